"""The item model rejects bad items with an error naming the item and the field."""

from __future__ import annotations

import re

import pytest

from tomgym.items import ItemError, ToMItem, validate_item, validate_items

GOOD = {"id": "a", "story": "s", "question": "q", "answer": "x", "candidates": ["x", "y"]}


def test_good_item() -> None:
    item = validate_item(GOOD)
    assert isinstance(item, ToMItem) and item.candidates == ("x", "y")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"answer": "z"}, "not among the candidates"),
        ({"story": ""}, "field 'story'"),
        # red team: a story of blank lines (["", ""] joined) or invisible marks was accepted
        ({"story": "\n"}, "field 'story': is blank"),
        ({"story": " \u200b "}, "field 'story': is blank"),
        ({"question": "\t"}, "field 'question': is blank"),
        ({"answer": "  "}, "field 'answer'"),
        ({"order": -5}, "field 'order'"),
        ({"order": -1}, "field 'order'"),  # UX red team: -1 was accepted as an order
        ({"colour": "red"}, "field 'colour'"),
        ({"answer_type": "essay"}, "field 'answer_type'"),
        ({"candidates": ["x", "x"]}, "duplicates"),
        # the same answer as read: the judge credited the first, so the gold could never score
        ({"candidates": ["X", "x", "y"]}, "'X' and 'x' read as the same answer"),
        ({"candidates": ["x", "the x", "y"]}, "'x' and 'the x' read as the same answer"),
        ({"answer": "blue_x", "candidates": ["y", "blue x", "blue_x"]}, "read as the same"),
        ({"candidates": ["x"]}, "holds only the gold answer"),
        ({"answer_type": "text", "candidates": ["the X"]}, "holds only the gold answer"),
        # user audit: Hugging Face's split names were refused without the one to write
        ({"split": "validation"}, "(got 'validation'): write 'val'"),
        ({"split": "Test"}, "(got 'Test'): write 'test'"),
        ({"split": "dev"}, "(got 'dev'): write 'val'"),
        ({"split": "holdout"}, "(got 'holdout')"),
    ],
)
def test_bad_items_name_item_and_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(ItemError) as info:
        validate_item({**GOOD, **change}, where="mydata.jsonl record 7")
    message = str(info.value)
    assert "mydata.jsonl record 7" in message and "'a'" in message and field in message


def test_validate_items_is_all_or_nothing_and_ids_unique() -> None:
    with pytest.raises(ItemError, match="record 1"):
        validate_items([GOOD, {**GOOD, "id": "b", "answer": ""}])
    with pytest.raises(ItemError, match="duplicate item id 'a'"):
        validate_items([GOOD, GOOD])


def test_dicts_without_an_answer_type_are_typed_as_data_file_rows_are() -> None:
    """register_tom_env with a yes/no dict used to fail with "answer_type 'choice' needs
    candidates" although the user set no type; order=True read as order 1."""
    base = {"id": "q", "story": "s", "question": "q?"}
    assert validate_item({**base, "answer": "Yes."}).answer_type == "yes_no"
    assert validate_item({**base, "answer": "the garden"}).answer_type == "text"
    assert validate_item({**base, "answer": ["Ann", "Bob"]}).answer_type == "names"
    assert validate_item({**base, "answer": "box", "candidates": ["box", "bag"]}).answer_type == (
        "choice"
    )
    with pytest.raises(ItemError, match=r"field 'order': .*got True"):
        validate_item({**base, "answer": "box", "order": True})
    with pytest.raises(ItemError, match=r"field 'split': .*\(got 'Train'\)"):
        validate_item({**base, "answer": "box", "split": "Train"})


@pytest.mark.parametrize(
    ("answer", "candidates", "gold"),
    [(True, ["True", "False"], "True"), (False, ["True", "False"], "False"),
     (True, None, "yes"), (False, None, "no"), ("Box", ["box", "bag"], "box"),
     ("the box", ["box", "bag"], "box"), (" box ", ["box", "bag"], "box"),
     ("true", ["True", "False"], "True")],
)  # fmt: skip
def test_a_dicts_gold_is_read_with_its_candidates_as_a_files_is(
    answer: object, candidates: list[str] | None, gold: str
) -> None:
    """{"answer": True, "candidates": ["True", "False"]} was refused with "gold answer 'yes'
    is not among the candidates", and "Box" for the candidate "box" was refused, while the
    same rows in a JSONL file were accepted."""
    record = {"id": "q", "story": "s", "question": "q?", "answer": answer}
    if candidates:
        record["candidates"] = candidates
    assert validate_item(record).answer == gold


def test_free_text_without_candidates_or_with_others_is_fine() -> None:
    assert validate_item({**GOOD, "answer_type": "text", "candidates": []}).candidates == ()
    assert validate_item({**GOOD, "answer_type": "text"}).candidates == ("x", "y")
    aliased = {**GOOD, "answer_type": "text", "candidates": ["x", "ex"], "aliases": ["ex"]}
    # Registration red team: this said "holds only the gold", pointing at the candidates;
    # the alias is what makes the other candidate a second gold.
    with pytest.raises(ItemError, match="'ex' reads as the candidate 'ex', a wrong answer"):
        validate_item(aliased)


def test_none_for_an_optional_field_means_absent_as_a_files_null_does() -> None:
    """register_tom_env(items=[{..., "candidates": None}]) failed ("valid tuple, got None")
    where the same row in a JSONL file ("options": null) loads as free text."""
    item = validate_item(
        {"id": "q", "story": "s", "question": "Where?", "answer": "box", "candidates": None,
         "aliases": None, "metadata": None, "split": None, "order": None}
    )  # fmt: skip
    assert item.candidates == () and item.answer_type == "text" and item.split == "all"
    assert item.order is None and item.metadata == {}


def test_an_empty_candidate_is_refused() -> None:
    with pytest.raises(ItemError, match="a candidate is empty"):
        validate_item({**GOOD, "candidates": ["x", " ", "y"]})


def test_chance_is_one_definition_for_eval_records_and_the_audit() -> None:
    """Eval records and the shortcut audit read one chance: a text answer with candidates is
    guessed among them (the audit used to say 1/k where eval said none)."""
    from tomgym.shortcuts import chance_level

    base = {"id": "a", "story": "s", "question": "Where?"}
    cases = [
        (ToMItem(**base, answer="box", candidates=("box", "bag", "tub")), 1 / 3),
        (ToMItem(**base, answer="yes", answer_type="yes_no"), 0.5),
        (ToMItem(**base, answer="box", answer_type="text", candidates=("box", "bag")), 0.5),
        (ToMItem(**base, answer="box", answer_type="text"), None),
        (ToMItem(**base, answer=["Ann", "Bo"], answer_type="names"), None),
    ]
    for item, chance in cases:
        assert item.chance == chance, item
        assert chance_level(item) == (chance or 0.0)


def test_an_eval_record_of_explore_tom_text_with_candidates_has_their_chance() -> None:
    from tomgym.agents.base import Response

    import tomgym
    from tomgym.eval.scoring import build_episode, score_response

    env = tomgym.make("ToM-ExploreToM-v0").unwrapped
    seen = set()
    for index in range(60):
        episode = build_episode(env, "ToM-ExploreToM-v0", index, "exploretom", False)
        item = env.current_item
        record = score_response(env, episode, index, Response("<answer>x</answer>"), True, 0.0)
        seen.add((item.answer_type, bool(item.candidates)))
        assert record.chance == item.chance
        if item.answer_type == "text" and item.candidates:
            assert record.chance == 1 / len(item.candidates)
    assert {("text", True), ("text", False)} <= seen


@pytest.mark.parametrize(
    ("change", "said"),
    [({"answer": 1, "candidates": ["1", "2"]}, "field 'answer': give the gold as text ('1')"),
     ({"candidates": "x|y"}, "field 'candidates': give a list of strings, not the one string"),
     ({"aliases": "the x"}, "field 'aliases': give a list of strings")],
)  # fmt: skip
def test_a_data_file_cells_form_in_a_python_record_is_named_plainly(
    change: dict[str, object], said: str
) -> None:
    """Red team: a Python record with the gold 1 or the candidates "x|y" (as a data file's cells
    hold them) got pydantic's "answer.str", "answer.list[str]" and "a valid tuple"."""
    with pytest.raises(ItemError, match=re.escape(said)):
        validate_item({**GOOD, **change})


@pytest.mark.parametrize(
    ("fields", "refusal"),
    [({"answer": ["AC/DC", "Queen"], "answer_type": "names"},
      "the name 'AC/DC' reads as 2 names to the judge ('AC', 'DC')"),
     ({"answer": ["Tom and Jerry"], "answer_type": "names"}, "reads as 2 names"),
     ({"answer": ["Ann", "the"], "answer_type": "names"}, "the name 'the' reads as no word"),
     ({"answer": ["Ann"], "answer_type": "names", "aliases": ["Annie"]},
      "aliases are not read for it"),
     ({"answer": "box </answer>", "answer_type": "text", "candidates": []},
      "holds a response tag"),
     ({"answer": "box", "candidates": ["box", "<think>bag"]}, "'<think>bag' holds a response tag"),
     ({"answer": "box", "aliases": ["basket"], "candidates": ["box", "basket", "bag"]},
      "'basket' reads as the candidate 'basket', a wrong answer")],
)  # fmt: skip
def test_golds_the_judge_could_never_credit_are_refused(
    fields: dict[str, object], refusal: str
) -> None:
    """Registration red team: these were accepted ("10 valid items"), and then no response
    could be judged right (a name the judge splits, a tag) or a wrong one was (an alias that
    is another candidate); the oracle copying the gold scored 0.9 on such a file."""
    with pytest.raises(ItemError, match=re.escape(refusal)):
        validate_item({**GOOD, **fields})


def test_numbers_of_one_phrase_are_different_answers() -> None:
    """ "-1" and "1" read as one phrase, but the judge tells them apart by value: they were
    refused as 'the same answer', and a text gold "-1" beside "1" as 'only the gold'."""
    assert validate_item({**GOOD, "answer": "-1", "candidates": ["-1", "1"]}).answer == "-1"
    text = validate_item({**GOOD, "answer": "-1", "answer_type": "text", "candidates": ["1"]})
    assert text.candidates == ("1",)
    with pytest.raises(ItemError, match="read as the same answer"):
        validate_item({**GOOD, "answer": "1", "candidates": ["1", "+1"]})
