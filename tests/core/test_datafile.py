"""Registering envs from JSONL, CSV and parquet files: mappings, defaults, all-row errors."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import tomgym
from tomgym.datafile import (
    DataFileError,
    column_mapping,
    items_from_rows,
    load_file_items,
    register_from_file,
)
from tomgym.registry import unregister_tom_env

STORY = "1 Anne put the ball in the box.\n2 Anne left the room.\n3 Bob moved the ball to the bag."
ROWS: list[dict[str, Any]] = [
    {"text": STORY, "q": "Where will Anne look for the ball?", "gold": "box", "opts": "box|bag"},
    {"text": STORY, "q": "Where is the ball really?", "gold": "bag", "opts": "box|bag"},
]


@pytest.fixture
def env_id() -> Iterator[str]:
    name = "File-ToM-v0"
    yield name
    unregister_tom_env(name)


def write_jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_csv_with_mapping_registers_a_playable_env(tmp_path: Path, env_id: str) -> None:
    path = write_csv(tmp_path / "mine.csv", ROWS)
    spec = register_from_file(
        path, env_id, story="text", question="q", answer="gold", candidates="opts", family="mine"
    )
    assert (spec.size, spec.family, spec.answer_type) == (2, "mine", "choice")
    items = tomgym.load_items(env_id)
    assert [it.id for it in items] == [f"{env_id}-2", f"{env_id}-5"]  # lines the rows start on
    assert items[0].candidates == ("box", "bag") and items[0].source == "mine"
    env = tomgym.make(env_id)
    prompt, _ = env.reset(options={"index": 1})
    assert "Where is the ball really?" in prompt
    _, reward, *_ = env.step("<answer>bag</answer>")
    assert reward == 1.0


def test_jsonl_lists_and_default_answer_types(tmp_path: Path, env_id: str) -> None:
    rows: list[dict[str, Any]] = [
        {"story": STORY, "question": "Does Anne know where the ball is?", "answer": "no"},
        {"story": STORY, "question": "Did Bob see Anne leave?", "answer": "Yes", "extra": 7},
    ]
    spec = register_from_file(write_jsonl(tmp_path / "yn.jsonl", rows), env_id)
    assert spec.answer_type == "yes_no"
    items = tomgym.load_items(env_id)
    assert items[1].metadata == {"extra": 7, "line": 2}
    unregister_tom_env(env_id)
    rows[1]["answer"] = "the bag"
    rows[0]["opts"] = ["box", "bag"]
    rows[0]["answer"] = "box"
    rows[1]["opts"] = None
    items = load_file_items(
        write_jsonl(tmp_path / "mixed.jsonl", rows),
        env_id,
        {"story": "story", "question": "question", "answer": "answer", "candidates": "opts"},
    )
    assert [it.answer_type for it in items] == ["choice", "text"]


def test_every_bad_row_is_reported_and_nothing_registered(tmp_path: Path, env_id: str) -> None:
    rows = [
        dict(ROWS[0]),
        {**ROWS[1], "gold": "shelf"},  # not a candidate
        {**ROWS[0], "q": ""},  # empty required field
        {**ROWS[0], "order": "two"},
    ]
    for row in rows:
        row.setdefault("order", "1")
    path = write_csv(tmp_path / "bad.csv", rows)
    with pytest.raises(DataFileError) as caught:
        register_from_file(
            path,
            env_id,
            story="text",
            question="q",
            answer="gold",
            candidates="opts",
            order="order",
        )
    problems = [(p.where, p.field) for p in caught.value.problems]
    # each story spans three lines: rows start on lines 2, 5, 8 and 11; a gold missing from the
    # candidates is the answer field's problem (it was "<item>")
    assert problems == [("line 5", "answer"), ("line 8", "question"), ("line 11", "order")]
    assert "shelf" in str(caught.value) and "nothing was registered" in str(caught.value)
    assert env_id not in {s.id for s in tomgym.list_envs()}


def test_jsonl_syntax_errors_and_missing_columns_by_line(tmp_path: Path, env_id: str) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(
        json.dumps({"story": STORY, "question": "q?", "answer": "box"})
        + "\n\n{not json\n"
        + json.dumps({"story": STORY, "answer": "box"})
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(DataFileError) as caught:
        register_from_file(path, env_id)
    listed = [str(p) for p in caught.value.problems]
    # the row's own line, and the column in it (json's "line 1 column 2" counted in the row)
    assert listed[0] == (
        "line 3: field '<row>': not JSON (Expecting property name enclosed in double quotes "
        "at column 2)"
    )
    assert listed[1] == (
        "line 4: field 'question': column 'question' is missing (the row has 'story', 'answer')"
    )


def test_duplicate_ids_and_long_error_lists_are_capped(tmp_path: Path, env_id: str) -> None:
    rows = [{"key": "same", "story": STORY, "question": "q?", "answer": "box"}] * 30
    with pytest.raises(DataFileError) as caught:
        register_from_file(write_jsonl(tmp_path / "dup.jsonl", rows), env_id, id="key")
    assert len(caught.value.problems) == 29
    assert "first at line 1" in str(caught.value) and "and 9 more" in str(caught.value)


def test_parquet_round_trip(tmp_path: Path, env_id: str) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {
            "story": [STORY, STORY],
            "question": ["Where will Anne look for the ball?", "Where is the ball really?"],
            "answer": ["box", "bag"],
            "choices": [["box", "bag"], ["box", "bag"]],
            "order": [1, 0],
            "split": ["val", "val"],
        }
    )
    path = tmp_path / "mine.parquet"
    pq.write_table(table, path)
    spec = register_from_file(path, env_id, candidates="choices", order="order", split="split")
    assert (spec.size, spec.split, spec.orders) == (2, "val", (0, 1))
    assert tomgym.load_items(env_id)[0].id == f"{env_id}-1"


def test_items_from_rows_from_python() -> None:
    items = items_from_rows(
        [{"s": STORY, "q": "Who left?", "a": ["Anne"]}],
        {"story": "s", "question": "q", "answer": "a"},
        "inline",
    )
    assert items[0].answer_type == "names" and items[0].id == "item-1"
    with pytest.raises(ValueError, match="unknown item field"):
        items_from_rows([], {"story": "s", "question": "q", "answer": "a", "colour": "c"}, "x")


def test_unknown_suffix(tmp_path: Path, env_id: str) -> None:
    path = tmp_path / "data.txt"
    path.write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown file type"):
        register_from_file(path, env_id)


def test_a_utf8_bom_is_not_part_of_the_first_column(tmp_path: Path, env_id: str) -> None:
    csv_path = write_csv(
        tmp_path / "excel.csv", [{"story": STORY, "question": "q?", "answer": "x"}]
    )
    csv_path.write_bytes(b"\xef\xbb\xbf" + csv_path.read_bytes())
    jsonl_path = write_jsonl(
        tmp_path / "bom.jsonl", [{"story": STORY, "question": "q?", "answer": "x"}]
    )
    jsonl_path.write_bytes(b"\xef\xbb\xbf" + jsonl_path.read_bytes())
    for path in (csv_path, jsonl_path):
        assert [it.story for it in load_file_items(path, env_id, column_mapping())] == [STORY]


@pytest.mark.parametrize("order", [2.7, True, "1.5", "two"])
def test_an_order_that_is_not_a_whole_number_is_an_error(
    tmp_path: Path, env_id: str, order: Any
) -> None:
    rows = [{"story": STORY, "question": "q?", "answer": "x", "order": 1}]
    rows.append({**rows[0], "order": order})
    with pytest.raises(DataFileError) as caught:
        register_from_file(write_jsonl(tmp_path / "o.jsonl", rows), env_id, order="order")
    assert [(p.where, p.field) for p in caught.value.problems] == [("line 2", "order")]
    assert "whole number" in str(caught.value)


def test_integral_orders_are_read_the_same_from_every_format(tmp_path: Path, env_id: str) -> None:
    rows = [{"story": STORY, "question": "q?", "answer": "x", "order": o} for o in (2.0, "3", 1)]
    mapping = column_mapping(order="order")
    for path in (write_jsonl(tmp_path / "o.jsonl", rows), write_csv(tmp_path / "o.csv", rows)):
        assert [it.order for it in load_file_items(path, env_id, mapping)] == [2, 3, 1]


def test_parquet_float_orders_must_be_whole(tmp_path: Path, env_id: str) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {"story": [STORY] * 2, "question": ["q?"] * 2, "answer": ["x"] * 2, "order": [2.0, 1.7]}
    )
    pq.write_table(table, tmp_path / "o.parquet")
    with pytest.raises(DataFileError) as caught:
        load_file_items(tmp_path / "o.parquet", env_id, column_mapping(order="order"))
    assert [(p.where, p.field) for p in caught.value.problems] == [("row 2", "order")]


def test_a_jsonl_row_may_leave_out_an_optional_field(tmp_path: Path, env_id: str) -> None:
    rows: list[dict[str, Any]] = [
        {"story": STORY, "question": "Where is the ball?", "answer": "bag", "c": ["box", "bag"]},
        {"story": STORY, "question": "Did Bob see Anne leave?", "answer": "no"},
    ]
    items = load_file_items(
        write_jsonl(tmp_path / "mixed.jsonl", rows), env_id, column_mapping(candidates="c")
    )
    assert [it.answer_type for it in items] == ["choice", "yes_no"]
    assert items[1].candidates == ()


def test_a_column_no_row_has_is_reported_once_with_the_files_columns(
    tmp_path: Path, env_id: str
) -> None:
    path = write_csv(tmp_path / "mine.csv", ROWS)
    with pytest.raises(DataFileError) as caught:
        register_from_file(path, env_id, question="q", answer="gold", candidates="choices")
    problems = caught.value.problems
    assert [p.field for p in problems] == ["story", "candidates"]
    assert "'text', 'q', 'gold', 'opts'" in str(problems[0])
    assert env_id not in {s.id for s in tomgym.list_envs()}


def test_the_yes_no_type_is_decided_per_row_so_a_hedge_earns_nothing(
    tmp_path: Path, env_id: str
) -> None:
    """One free-text row used to turn every yes/no row of the file into free text, where
    "yes no" names the gold whichever it is."""
    rows: list[dict[str, Any]] = [
        {"story": STORY, "question": "Does Anne know where the ball is?", "answer": "No."},
        {"story": STORY, "question": "Who moved the ball?", "answer": "Bob"},
    ]
    register_from_file(write_jsonl(tmp_path / "mixed.jsonl", rows), env_id)
    items = tomgym.load_items(env_id)
    assert [it.answer_type for it in items] == ["yes_no", "text"]
    env = tomgym.make(env_id)
    env.reset(options={"index": 0})
    _, reward, *_ = env.step("<think>x</think><answer>yes no</answer>")
    assert reward == 0.1  # the format part only


def test_a_yes_no_row_whose_gold_is_not_yes_or_no_is_a_row_problem(
    tmp_path: Path, env_id: str
) -> None:
    rows: list[dict[str, Any]] = [
        {"story": STORY, "question": "Does Anne know?", "answer": "maybe", "kind": "yes_no"},
    ]
    with pytest.raises(DataFileError) as caught:
        register_from_file(write_jsonl(tmp_path / "bad.jsonl", rows), env_id, answer_type="kind")
    assert "line 1" in str(caught.value) and "starting with yes or no" in str(caught.value)


def test_columns_named_like_fields_are_mapped_or_named_in_a_warning(
    tmp_path: Path, env_id: str
) -> None:
    """A JSONL file written with the field names but registered without a mapping kept its
    candidates in the metadata (free-text items, where "box or bag" names the gold): a
    candidates column is now taken as the candidates. id and split are not mapped silently:
    files use such names for other things (a story id shared by its questions, a 'dev' split),
    so the user is told which columns to map."""
    rows: list[dict[str, Any]] = [
        {
            "id": "7",
            "story": STORY,
            "question": "Where is the ball?",
            "answer": "bag",
            "candidates": ["box", "bag"],
            "split": "dev",
        }
        for _ in range(2)
    ]
    path = write_jsonl(tmp_path / "f.jsonl", rows)
    with pytest.warns(UserWarning, match=r"'id', 'split' are named like item fields"):
        items = load_file_items(path, env_id, column_mapping())
    assert items[0].answer_type == "choice" and items[0].candidates == ("box", "bag")
    assert items[0].split == "all" and items[0].metadata["split"] == "dev"
    renamed = [{**row, "options": row["candidates"]} for row in rows]
    path = write_jsonl(tmp_path / "g.jsonl", renamed)
    with pytest.warns(UserWarning, match="'id', 'split' are named"):
        mapped = load_file_items(path, env_id, column_mapping(candidates="options"))
    assert mapped[0].candidates == ("box", "bag")  # the mapping wins over the same-named column


def test_short_csv_rows_and_other_encodings_are_reported_by_line(tmp_path: Path) -> None:
    short = tmp_path / "short.csv"
    short.write_text(f'text,q,gold,opts\n"{STORY}",Where?,bag,box|bag\n"{STORY}",Where?,bag\n')
    with pytest.raises(DataFileError) as caught:
        load_file_items(
            short,
            "X-v0",
            column_mapping(story="text", question="q", answer="gold", candidates="opts"),
        )
    assert [(p.where, p.field) for p in caught.value.problems] == [("line 5", "<row>")]
    assert "1 fewer value(s) than the 4 columns" in str(caught.value)
    cp1252 = tmp_path / "excel.csv"
    cp1252.write_bytes("story,question,answer\nA,B?,C\nCafé,B?,C\n".encode("cp1252"))
    with pytest.raises(DataFileError, match=r"line 3: field '<row>': not UTF-8") as caught:
        load_file_items(cp1252, "X-v0", column_mapping())
    assert str(cp1252) in str(caught.value)


def test_a_csv_names_row_splits_its_answer_as_the_judge_reads_a_list(tmp_path: Path) -> None:
    path = tmp_path / "names.csv"
    path.write_text(
        "story,question,answer,kind\nAnn and Bob left.,Who left?,Ann|Bob,names\n"
        'Ann and Bob left.,Who left?,"Ann, Bob",names\nAnn left.,Who left?,Ann,names\n'
        "Ann and Bob left.,Who left?,Ann/Bob,names\n"
    )
    items = load_file_items(path, "N-v0", column_mapping(answer_type="kind"))
    assert [it.answer for it in items] == [["Ann", "Bob"], ["Ann", "Bob"], ["Ann"], ["Ann", "Bob"]]
    from tomgym.rewards import score_response

    assert score_response("<think>x</think><answer>Ann and Bob</answer>", items[1]).correct
    # Registration red team: a cell written as a list was split further, name by name, so
    # '["AC/DC", "Queen"]' became three names; it is read whole, and such a name refused.
    listed = tmp_path / "listed.csv"
    listed.write_text('story,question,answer,kind\ns,Who?,"[""Ann Lee"", ""Bob""]",names\n')
    assert load_file_items(listed, "N-v0", column_mapping(answer_type="kind"))[0].answer == [
        "Ann Lee",
        "Bob",
    ]
    listed.write_text('story,question,answer,kind\ns,Who?,"[""AC/DC"", ""Queen""]",names\n')
    with pytest.raises(DataFileError, match=r"the name 'AC/DC' reads as 2 names"):
        load_file_items(listed, "N-v0", column_mapping(answer_type="kind"))


def test_candidates_kept_whole_by_another_separator_get_a_hint(tmp_path: Path) -> None:
    """A CSV cell "box, bag" with the default '|' separator is one candidate: the error says
    how the cell was split and which option reads it."""
    rows = [{**row, "opts": row["opts"].replace("|", ", ")} for row in ROWS]
    path = write_csv(tmp_path / "commas.csv", rows)
    mapping = {"story": "text", "question": "q", "answer": "gold", "candidates": "opts"}
    with pytest.raises(DataFileError, match=r"split on '\|'.*candidates_sep=','.*--sep ','"):
        load_file_items(path, "Commas-v0", mapping)
    items = load_file_items(path, "Commas-v0", mapping, candidates_sep=",")
    assert items[0].candidates == ("box", "bag")


@pytest.mark.parametrize(
    "cell", ["['box', 'bag']", '["box", "bag"]', " ['box', 'bag'] ", "['box', \"bag\"]"]
)
def test_a_list_written_as_pandas_or_json_writes_it_is_that_list(tmp_path: Path, cell: str) -> None:
    """pandas' to_csv writes a list cell as ['box', 'bag']: split on '|' it was one candidate,
    and the hint's candidates_sep=',' made candidates of "['box'" and "'bag']"."""
    rows = [{**row, "opts": cell} for row in ROWS]
    path = write_csv(tmp_path / "pandas.csv", rows)
    mapping = {"story": "text", "question": "q", "answer": "gold", "candidates": "opts"}
    for sep in ("|", ","):
        items = load_file_items(path, "Pandas-v0", mapping, candidates_sep=sep)
        assert [item.candidates for item in items] == [("box", "bag")] * 2


def test_a_list_cell_with_a_missing_element_names_it(tmp_path: Path) -> None:
    rows = [{**row, "opts": '["box", null]'} for row in ROWS]
    path = write_csv(tmp_path / "gap.csv", rows)
    mapping = {"story": "text", "question": "q", "answer": "gold", "candidates": "opts"}
    with pytest.raises(DataFileError, match="element 1 is missing"):
        load_file_items(path, "Gap-v0", mapping)


def test_a_list_where_a_column_name_goes_is_named() -> None:
    """candidates=["box", "bag"] failed with a bare "unhashable type: 'list'"."""
    with pytest.raises(TypeError, match=r"candidates= names the file's column.*got list"):
        column_mapping(candidates=["box", "bag"])  # type: ignore[arg-type]


def test_a_repeated_csv_column_is_an_error_not_the_last_one(tmp_path: Path, env_id: str) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("story,question,answer,answer\nA put x in box.,Where is x?,box,bag\n")
    with pytest.raises(DataFileError) as caught:
        load_file_items(path, env_id, column_mapping())
    assert [str(p) for p in caught.value.problems] == [
        "line 1: field '<header>': column 'answer' appears more than once"
    ]


def test_jsonl_values_that_are_not_text_are_refused_or_read_as_meant(
    tmp_path: Path, env_id: str
) -> None:
    """A list, an object or a bool reached the prompt as its Python form ("['Q?']")."""
    rows = [
        {"story": ["Ann put the ball in the box.", "Ann left."], "question": "Where?",
         "answer": "box"},
        {"story": "S.", "question": "Is it?", "answer": True},
        {"story": "S.", "question": "How many?", "answer": 3},
    ]  # fmt: skip
    items = load_file_items(write_jsonl(tmp_path / "ok.jsonl", rows), env_id, column_mapping())
    assert items[0].story == "Ann put the ball in the box.\nAnn left."
    assert (items[1].answer, items[1].answer_type) == ("yes", "yes_no")
    assert items[2].answer == "3"
    bad = [{"story": "S.", "question": ["Q?"], "answer": "box"},
           {"story": "S.", "question": "Q?", "answer": {"text": "box"}},
           {"story": {"text": "S."}, "question": "Q?", "answer": "box"}]  # fmt: skip
    with pytest.raises(DataFileError) as caught:
        load_file_items(write_jsonl(tmp_path / "bad.jsonl", bad), env_id, column_mapping())
    assert [str(p) for p in caught.value.problems] == [
        "line 1: field 'question': column 'question': expected text, got list ['Q?']",
        "line 2: field 'answer': column 'answer': expected text, got dict {'text': 'box'}",
        "line 3: field 'story': column 'story': expected text, got dict {'text': 'S.'}",
    ]


def test_a_sentence_answer_starting_with_yes_or_no_is_judged_as_yes_no(
    tmp_path: Path, env_id: str
) -> None:
    """ "No, she doesn't" was typed free text: <answer>no</answer> scored wrong."""
    rows = [{"story": "S.", "question": "Does she know?", "answer": "No, she doesn't."},
            {"story": "S.", "question": "Who saw it?", "answer": "No one saw it"}]  # fmt: skip
    first, second = load_file_items(write_jsonl(tmp_path / "yn.jsonl", rows), env_id,
                                    column_mapping())  # fmt: skip
    assert (first.answer_type, second.answer_type) == ("yes_no", "text")


def test_a_quote_left_open_is_an_error_at_its_line_not_rows_merged(tmp_path: Path) -> None:
    """A lenient reader merged the following rows into the open field: the item's own question
    and gold sat in its story, the next row was gone, and the file registered."""
    path = tmp_path / "open.csv"
    path.write_text(
        'story,question,answer\n"Ann said ""hi"" and left,Where?,box\n'
        '"Bob put it in the box.",Where?,box\nCid left.,Where?,box\n'
    )
    with pytest.raises(DataFileError, match=r"line 2: field '<row>': not valid CSV"):
        load_file_items(path, "X-v0", column_mapping())
    never_closed = tmp_path / "never.csv"
    never_closed.write_text('story,question,answer\nA.,Where?,box\n"B.,Where?,box\n')
    with pytest.raises(DataFileError, match=r"line 3: .*not valid CSV \(unexpected end of data"):
        load_file_items(never_closed, "X-v0", column_mapping())


def test_long_csv_fields_blank_leading_lines_and_a_title_line(tmp_path: Path) -> None:
    """A 180 KB story crashed with the csv module's field limit; a blank first line was taken
    for the header; a title line gave "more values than columns" with no hint why."""
    story = "Ann put the ball in the box. " * 6000
    path = tmp_path / "long.csv"
    path.write_text(f'\n\nstory,question,answer\n"{story}",Where?,box\n')
    (item,) = load_file_items(path, "X-v0", column_mapping())
    assert item.story == story.strip()
    titled = tmp_path / "titled.csv"
    titled.write_text("# my data v2\nstory,question,answer\nA.,Where?,box\n")
    with pytest.raises(DataFileError, match=r"the header, line 1, is '# my data v2' alone"):
        load_file_items(titled, "X-v0", column_mapping())
    renamed = tmp_path / "dir.csv"
    renamed.mkdir()
    with pytest.raises(IsADirectoryError, match="is a directory"):
        load_file_items(renamed, "X-v0", column_mapping())


def test_nan_is_a_missing_value_not_the_text_nan(tmp_path: Path) -> None:
    """pandas writes a missing answer as NaN (JSONL) or a float NaN (parquet): it registered
    with gold 'nan', and <answer>nan</answer> scored correct."""
    path = tmp_path / "nan.jsonl"
    path.write_text(
        '{"story": "A.", "question": "Where?", "answer": NaN}\n'
        '{"story": "B.", "question": "Where?", "answer": "box", "order": NaN}\n'
    )
    with pytest.raises(DataFileError) as caught:
        load_file_items(path, "X-v0", column_mapping(order="order"))
    assert [str(p) for p in caught.value.problems] == [
        "line 1: field 'answer': column 'answer' is empty"
    ]


def test_one_column_mapped_to_two_fields_is_refused() -> None:
    rows = [{"story": "A.", "question": "Where?", "answer": "box"}]
    with pytest.raises(ValueError, match="column 'question' is mapped to story and question"):
        items_from_rows(rows, column_mapping(story="question"), "rows")


def test_a_misspelt_keyword_names_register_from_file_and_the_likely_one(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "rows.csv", ROWS)
    with pytest.raises(TypeError, match=r"register_from_file .* 'candidate'; did you mean cand"):
        register_from_file(path, "Typo-v0", story="text", candidate="opts")  # type: ignore[call-arg]


def test_a_repeated_jsonl_key_and_windows_line_ends_inside_a_field(tmp_path: Path) -> None:
    """A JSON object naming "answer" twice took the last without a word; a quoted CSV field
    kept its \\r\\n line ends, so \\r reached the prompt."""
    path = tmp_path / "twice.jsonl"
    path.write_text('{"story": "A.", "question": "Where?", "answer": "box", "answer": "bag"}\n')
    with pytest.raises(DataFileError, match=r"line 1: field '<row>': key 'answer' appears more"):
        load_file_items(path, "X-v0", column_mapping())
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(b'story,question,answer\r\n"Ann left.\r\nBob came.",Where?,box\r\n')
    (item,) = load_file_items(crlf, "X-v0", column_mapping())
    assert item.story == "Ann left.\nBob came."


def test_a_missing_value_inside_a_list_is_an_error_not_the_text_none(tmp_path: Path) -> None:
    """Red team: a null or NaN among the candidates became the candidate 'None' / 'nan', and
    one among the aliases made <answer>None</answer> a correct answer."""
    path = tmp_path / "gaps.jsonl"
    path.write_text(
        '{"story": "A.", "question": "Where?", "answer": "box", '
        '"candidates": ["box", "bag", NaN]}\n'
        '{"story": "B.", "question": "Where?", "answer": "box", "aliases": [null, "the box"]}\n'
    )
    with pytest.raises(DataFileError) as caught:
        load_file_items(path, "X-v0", column_mapping(candidates="candidates", aliases="aliases"))
    assert [str(p) for p in caught.value.problems] == [
        "line 1: field 'candidates': column 'candidates': element 2 is missing (nan)",
        "line 2: field 'aliases': column 'aliases': element 0 is missing (None)",
    ]


def test_whole_floats_read_as_their_integer_and_list_answers_as_lists(tmp_path: Path) -> None:
    """A pandas int column with a gap holds floats: answer 2.0 registered as '2.0', so the
    answer '2' was wrong. List elements go through the same reading."""
    rows = [
        {"story": "S.", "question": "How many?", "answer": 2.0, "candidates": [1, 2.0, 2.5]},
        {"story": "S.", "question": "Who?", "answer": ["Ann", "Bo"], "answer_type": "names"},
    ]
    path = write_jsonl(tmp_path / "n.jsonl", rows)
    items = load_file_items(path, "X-v0", column_mapping(candidates="candidates"))
    assert (items[0].answer, items[0].candidates) == ("2", ("1", "2", "2.5"))
    assert items[1].answer == ["Ann", "Bo"]


def test_a_letter_answer_that_reads_as_an_article_is_refused(tmp_path: Path) -> None:
    """Red team: candidates 'A'..'D' registered, but the judge drops the article 'a', so the
    gold 'A' could never be named and 'A or B' was correct for gold 'B'."""
    rows = [{"story": "S.", "question": "Which? A) box B) bag", "answer": "B",
             "candidates": "A|B"}]  # fmt: skip
    with pytest.raises(DataFileError) as caught:
        load_file_items(write_jsonl(tmp_path / "l.jsonl", rows), "X-v0",
                        column_mapping(candidates="candidates"))  # fmt: skip
    (problem,) = caught.value.problems
    assert "'A' reads as no word" in str(problem) and "candidates" in str(problem)


def test_a_column_named_line_keeps_its_value_in_the_metadata(tmp_path: Path) -> None:
    """Red team: the file's own 'line' column was overwritten by the line number."""
    rows = [{"story": "S.", "question": "Where?", "answer": "box", "line": "L1"}]
    (item,) = load_file_items(write_jsonl(tmp_path / "m.jsonl", rows), "X-v0", column_mapping())
    assert item.metadata["line"] == "L1" and item.metadata["_line"] == 1


def test_rows_of_empty_cells_are_skipped_like_blank_lines(tmp_path: Path) -> None:
    """Red team: Excel's trailing ',,,' rows failed the whole file, three errors per row."""
    path = tmp_path / "excel.csv"
    path.write_text("story,question,answer\nS.,Where?,box\n,,\n , ,\n", encoding="utf-8")
    (item,) = load_file_items(path, "X-v0", column_mapping())
    assert item.answer == "box"


def test_a_boolean_answer_is_yes_or_no_in_a_csv_cell_and_a_python_dict(
    tmp_path: Path, env_id: str
) -> None:
    """Review: a spreadsheet's TRUE in a CSV answer cell became the free-text gold "TRUE", so
    <answer>yes</answer> scored wrong, and a dict's True was refused, while a JSONL file's true
    reads as yes: every form of a boolean answer now reads as yes or no."""
    path = tmp_path / "yn.csv"
    path.write_text("story,question,answer\nS.,Does she know?,TRUE\nS.,Does he?, False \n")
    items = load_file_items(path, env_id, column_mapping())
    assert [(it.answer, it.answer_type) for it in items] == [("yes", "yes_no"), ("no", "yes_no")]
    tomgym.register_tom_env(
        env_id, items=[{"id": "q", "story": "S.", "question": "Does she know?", "answer": True}]
    )
    env = tomgym.make(env_id)
    env.reset(options={"index": 0})
    assert env.step("<answer>yes</answer>")[4]["correct"]


def test_a_true_or_false_question_with_those_candidates_keeps_its_answer(
    tmp_path: Path, env_id: str
) -> None:
    """Review: reading TRUE as yes refused a true/false benchmark whose candidates are "True"
    and "False" (gold 'yes' not among the candidates)."""
    path = tmp_path / "tf.csv"
    path.write_text("story,question,answer,candidates\nS.,True or false?,True,True|False\n")
    (item,) = load_file_items(path, env_id, column_mapping())
    assert (item.answer, item.answer_type) == ("True", "choice")


def test_a_gold_written_otherwise_than_its_candidate_is_that_candidate(
    tmp_path: Path, env_id: str
) -> None:
    """Red team: Excel writes a true/false answer as TRUE, and a JSON file's false with the
    candidates True/False was refused as the gold 'no', a text the file never holds; a gold
    "Box" or "the box" for the candidate "box" (which the judge reads as one answer) was
    refused too. The gold is the candidate that reads the same, as written."""
    path = tmp_path / "tf.csv"
    path.write_text(
        "story,question,answer,candidates\nS.,True or false?,FALSE,True|False\n"
        "S.,Where?,Box,box|basket\nS.,Where now?,the basket,box|basket\n"
        "S.,Is it?,TRUE,yes|no\n"
    )
    items = load_file_items(path, env_id, column_mapping())
    assert [it.answer for it in items] == ["False", "box", "basket", "yes"]
    jsonl = tmp_path / "tf.jsonl"
    jsonl.write_text(
        '{"story": "S.", "question": "True or false?", "answer": false, '
        '"candidates": ["True", "False"]}\n'
        '{"story": "S.", "question": "Does she?", "answer": true}\n'
    )
    items = load_file_items(jsonl, env_id, column_mapping())
    assert [it.answer for it in items] == ["False", "yes"]
    path.write_text("story,question,answer,candidates\nS.,Where?,crate,box|basket\n")
    with pytest.raises(ValueError, match="'crate' is not among the candidates"):
        load_file_items(path, env_id, column_mapping())


@pytest.mark.parametrize(("sep", "shown"), [(";", "semicolons"), ("\t", "tabs")])
def test_a_csv_split_by_another_character_says_so(
    tmp_path: Path, env_id: str, sep: str, shown: str
) -> None:
    """Red team: a European Excel's semicolon CSV (or a tab one named .csv) was refused as
    'column story is missing; the file has story;question;answer', with no word of why."""
    path = tmp_path / "semi.csv"
    path.write_text(sep.join(["story", "question", "answer"]) + "\n" + sep.join("SQA") + "\n")
    with pytest.raises(ValueError, match=f"its header is split by {shown}, but a CSV file's"):
        load_file_items(path, env_id, column_mapping())


def test_a_semicolon_csv_with_a_quoted_cell_says_so_too(tmp_path: Path, env_id: str) -> None:
    """A quoted story in a semicolon file stopped the csv reader first: the error said
    "',' expected after '\"'" with no word of the separator."""
    path = tmp_path / "semi.csv"
    path.write_text('story;question;answer\n"Ann left; Bob stayed.";Where?;box\n')
    with pytest.raises(ValueError, match="not valid CSV.*its header is split by semicolons"):
        load_file_items(path, env_id, column_mapping())


def test_excels_trailing_nameless_columns_are_dropped(tmp_path: Path, env_id: str) -> None:
    """A header ending "answer,," (Excel's empty formatted columns) was refused as "column ''
    appears more than once"; a value in such a column is still an error."""
    path = tmp_path / "excel.csv"
    path.write_text("story,question,answer,,\nS.,Where?,box,,\nT.,Where?,jar\n")
    assert [i.answer for i in load_file_items(path, env_id, column_mapping())] == ["box", "jar"]
    path.write_text("story,question,answer,,\nS.,Where?,box,,x\n")
    with pytest.raises(ValueError, match="line 2: field '<row>': 2 more value"):
        load_file_items(path, env_id, column_mapping())


def test_a_json_number_too_large_for_a_float_is_refused_not_read_as_inf(tmp_path: Path) -> None:
    """JSON reads 1e400 as infinity: the gold was registered as 'inf', which no answer of the
    real number names."""
    path = tmp_path / "big.jsonl"
    path.write_text(
        '{"story": "S.", "question": "How many?", "answer": 1e400, "candidates": ["1", "2"]}\n'
        '{"story": "S.", "question": "How many?", "answer": "1", "candidates": ["1", -1e400]}\n',
        encoding="utf-8",
    )
    with pytest.raises(DataFileError) as caught:
        load_file_items(path, "X-v0", column_mapping(candidates="candidates"))
    problems = [str(p) for p in caught.value.problems]
    assert len(problems) == 2 and all("infinite number" in p for p in problems), problems
    assert problems[0].startswith("line 1: field 'answer'")
    assert problems[1].startswith("line 2: field 'candidates'")
