"""Leaderboard columns and the accuracy-by-order plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tomgym.eval.leaderboard import (
    Leaderboard,
    LeaderboardRow,
    column_labels,
    load_summary,
    to_markdown,
)
from tomgym.eval.plots import order_series


def row(agent: str, by_order: dict[str, float]) -> LeaderboardRow:
    return LeaderboardRow(agent=agent, directory=agent, n_items=4, accuracy=0.5, by_order=by_order)


def test_column_headers_are_distinct() -> None:
    envs = ["ToM-HiToM-O4-v0", "ToM-HiToM-Original-O4-v0", "ToM-ToMi-v0", "ToM-ToMi-Original-v0"]
    board = Leaderboard(
        envs=envs,
        labels={"ToM-HiToM-Original-O4-v0": "HiToM-O4", "ToM-ToMi-Original-v0": "ToMi"},
        held_out={"ToM-HiToM-O4-v0": True, "ToM-HiToM-Original-O4-v0": True},
        rows=[row("a", {})],
    )
    labels = column_labels(board)
    assert len(set(labels.values())) == len(envs)
    assert labels["ToM-HiToM-Original-O4-v0"] == "HiToM-Original-O4 (held out)"
    assert labels["ToM-ToMi-v0"] == "ToMi" and labels["ToM-ToMi-Original-v0"] == "ToMi-Original"
    header = to_markdown(board).splitlines()[0]
    assert header.count("| ToMi |") == 1


def test_orders_are_plotted_in_numeric_order() -> None:
    board = Leaderboard(
        envs=[], rows=[row("a", {"2": 0.5, "4": 0.25}), row("b", {"0": 1.0, "1": 0.9, "10": 0.1})]
    )
    orders, series = order_series(board)
    assert orders == ["0", "1", "2", "4", "10"]
    assert series[0] == ("a", [2, 3], [0.5, 0.25], False)
    assert series[1][1] == [0, 1, 4]


def test_held_out_orders_are_never_pooled_with_in_distribution_ones(tmp_path: Path) -> None:
    """An in-distribution O2 env and a held-out O2 variant both have order-2 items: the board
    keeps them apart (in the row, the Markdown and HTML tables and the plot's series)."""
    from tomgym.eval.html import render_html
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    envs = ["ToM-HiToM-O2-v0", "ToM-HiToM-O2-Debiased-v1"]  # the registry: the second held out
    evaluate("oracle", envs, n=10, out=tmp_path / "oracle", quiet=True)
    evaluate("heuristic:reality", envs, n=40, out=tmp_path / "reality", quiet=True)
    board = collect([tmp_path / "oracle", tmp_path / "reality"])
    reality = next(r for r in board.rows if r.agent == "heuristic:reality")
    summary = load_summary(tmp_path / "reality")
    assert reality.by_order == {"2": summary.envs[envs[0]].accuracy}
    assert reality.by_order_held_out == {"2": summary.envs[envs[1]].accuracy}
    assert reality.by_order != reality.by_order_held_out  # pooled, the two would be one figure
    assert "| agent | O2 | O2 (held out) |" in to_markdown(board).splitlines()
    assert "order 2 (held out)" in render_html(board)
    _, series = order_series(board)
    assert [(label, held_out) for label, _, _, held_out in series] == [
        ("oracle (simulator)", False), ("oracle (simulator) (held out)", True),
        ("heuristic:reality", False), ("heuristic:reality (held out)", True),
    ]  # fmt: skip


def test_a_column_mixing_runs_of_different_splits_says_so(tmp_path: Path) -> None:
    """Runs of one env on different splits are not comparable: the board names them."""
    from tomgym.eval.html import render_html
    from tomgym.eval.leaderboard import collect, to_markdown
    from tomgym.eval.runner import evaluate

    env = "ToM-HiToM-O1-v0"
    evaluate("random", [env], n=2, out=tmp_path / "a", split="val", quiet=True)
    evaluate("random", [env], n=2, out=tmp_path / "b", split="test", quiet=True)
    board = collect([tmp_path / "a", tmp_path / "b"])
    assert set(board.mixed) == {env}
    note = f"Column {env} mixes runs"
    assert note in to_markdown(board) and note in render_html(board)
    assert collect([tmp_path / "a"]).mixed == {}


def test_a_directory_given_twice_is_one_row(tmp_path: Path) -> None:
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    evaluate("random", ["ToM-HiToM-O1-v0"], n=2, out=tmp_path / "r", quiet=True)
    board = collect([tmp_path / "r", str(tmp_path / "r") + "/", tmp_path / "." / "r"])
    assert len(board.rows) == 1


def test_a_suite_label_never_reads_as_another_envs_name() -> None:
    """The paper suites label the release's O0 env "HiToM-O0": next to a run of the generated
    envs, "HiToM-O0" (release) and "HiToM-O2" (generated) headed columns of different datasets
    although neither label clashed with another on the board."""
    envs = ["ToM-HiToM-O2-v0", "ToM-HiToM-Original-O0-v0", "ToM-HiToM-Original-O2-v0"]
    suite = {f"ToM-HiToM-Original-O{k}-v0": f"HiToM-O{k}" for k in (0, 2)}
    board = Leaderboard(envs=envs, labels=suite, rows=[row("a", {})])
    labels = column_labels(board)
    assert labels == {
        "ToM-HiToM-O2-v0": "HiToM-O2",
        "ToM-HiToM-Original-O0-v0": "HiToM-Original-O0",
        "ToM-HiToM-Original-O2-v0": "HiToM-Original-O2",
    }
    # a label naming no other env is kept
    assert column_labels(Leaderboard(envs=envs[1:2], labels={envs[1]: "Release O0"},
                                     rows=[row("a", {})]))[envs[1]] == "Release O0"  # fmt: skip


def test_a_column_over_different_items_says_so(tmp_path: Path) -> None:
    """Runs of --n 2 and --n 3 (or another item order on a release) shared a column without
    a word, their accuracies read as paired."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    env = "ToM-HiToM-O1-v0"
    for name, n in (("two", 2), ("three", 3), ("also-two", 2)):
        evaluate("heuristic:reality", [env], n=n, out=tmp_path / name, quiet=True)
    board = collect([tmp_path / "two", tmp_path / "also-two"])
    assert board.mixed_items == {}
    board = collect([tmp_path / "two", tmp_path / "three"])
    assert set(board.mixed_items[env].values()) == {"items 0-1", "items 0-2"}
    assert f"Column {env} compares runs over different items: items 0-1 in" in to_markdown(board)
    # columns whose runs differ alike (a run cut short everywhere) share one note
    both = [env, "ToM-HiToM-O2-v0"]
    for name, n in (("both-two", 2), ("both-three", 3)):
        evaluate("heuristic:reality", both, n=n, out=tmp_path / name, quiet=True)
    notes = to_markdown(collect([tmp_path / "both-two", tmp_path / "both-three"]))
    assert notes.count("runs over different items") == 1
    assert f"Columns {', '.join(both)} compare runs over different items: items 0-1 in" in notes


def test_a_kwarg_at_its_default_mixes_nothing_and_a_suite_files_labels_are_kept(
    tmp_path: Path,
) -> None:
    """vocab_split='train' (the default) made the column read as made with other arguments,
    and a suite given as a path lost its labels (they were looked up by the suite's name)."""
    import json

    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    env = "ToM-HiToM-O2-v0"
    evaluate("heuristic:reality", [env], n=2, out=tmp_path / "plain", quiet=True)
    evaluate("heuristic:first", [env], n=2, out=tmp_path / "default", quiet=True,
             env_kwargs={"vocab_split": "train"})  # fmt: skip
    assert collect([tmp_path / "plain", tmp_path / "default"]).mixed == {}
    evaluate("heuristic:first", [env], n=2, out=tmp_path / "other", quiet=True,
             env_kwargs={"noise": 0.5})  # fmt: skip
    assert env in collect([tmp_path / "plain", tmp_path / "other"]).mixed
    suite = tmp_path / "mine.json"
    suite.write_text(json.dumps({"name": "mine", "n": 2,
                                 "envs": [{"id": env, "label": "Second order"}]}))  # fmt: skip
    evaluate("heuristic:reality", suite=suite, out=tmp_path / "suite", quiet=True)
    board = collect([tmp_path / "suite"])
    assert board.labels[env] == "Second order" and "| Second order |" in to_markdown(board)


def test_the_order_table_shows_the_items_behind_each_figure(tmp_path: Path) -> None:
    """A reader saw 18.2 against 69.2 without knowing they rested on 11 and 13 items."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    evaluate("heuristic:reality", ["ToM-HiToM-O1-v0", "ToM-HiToM-O4-v0"], n=3,
             out=tmp_path / "run", quiet=True)  # fmt: skip
    board = collect([tmp_path / "run"])
    (row,) = board.rows
    assert row.order_items == {"1": 3, "H4": 3}
    table = to_markdown(board)
    assert "| O1 | O4 (held out) |" in table
    assert f"| {100 * row.by_order['1']:.1f} (3) |" in table


def test_label_envs_show_macro_f1_on_the_leaderboard(tmp_path: Path) -> None:
    """OpenToM's macro-F1 was in summary.json only: the leaderboard showed accuracy, which a
    majority-label guess flatters."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    evaluate("heuristic:majority", ["ToM-OpenToM-Attitude-v0"], n=20, out=tmp_path / "maj",
             quiet=True)  # fmt: skip
    board = collect([tmp_path / "maj"])
    (row,) = board.rows
    assert row.macro_f1 is not None and row.macro_f1 < (row.accuracy or 0)
    table = to_markdown(board)
    assert table.splitlines()[0].endswith("| macro-F1 |") and "macro-F1 (when a run" in table
    evaluate("random", ["ToM-HiToM-O1-v0"], n=2, out=tmp_path / "plain", quiet=True)
    assert "| macro-F1 |" not in to_markdown(collect([tmp_path / "plain"]))


def test_the_headline_accuracy_counts_each_env_once_whatever_its_item_count(
    tmp_path: Path,
) -> None:
    """Pooled over items, a random run with 40 ToMi items and 4 Hi-ToM items ranked above a
    shortcut that beats it on Hi-ToM: ToMi's 50% chance carried the pool (metrics red team)."""
    import json

    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    envs = ["ToM-ToMi-v0", "ToM-HiToM-O0-v0"]
    suite = tmp_path / "skewed.json"
    suite.write_text(json.dumps(
        {"name": "skewed", "envs": [{"id": envs[0], "n": 40}, {"id": envs[1], "n": 4}]}
    ))  # fmt: skip
    evaluate("random", suite=suite, out=tmp_path / "no", quiet=True)
    evaluate("heuristic:reality", suite=suite, n=4, out=tmp_path / "reality", quiet=True)
    board = collect([tmp_path / "no", tmp_path / "reality"])
    by_agent = {row.agent: row for row in board.rows}
    no = by_agent["random"]
    assert no.envs[envs[1]] == 0.0 and no.item_accuracy is not None
    assert no.accuracy == (no.envs[envs[0]] or 0.0) / 2  # each env once, not 40 to 4
    assert no.item_accuracy > no.accuracy
    assert board.rows[0].agent == "heuristic:reality"
    assert no.ci95 is not None and no.ci95[0] <= no.accuracy <= no.ci95[1]
    # the other columns count each env once too: every answer tagged, untagged acc is acc
    # (pooled over items it was 20.0 beside acc 18.9, and read as lenient judging; audit)
    for r in board.rows:
        assert r.format_rate == 1.0 and r.lenient_accuracy == r.accuracy, r
        assert r.reasoning_structure is not None
    lengths = [e.response_tokens_mean for e in load_summary(tmp_path / "no").envs.values()]
    assert no.response_tokens_mean == sum(lengths) / 2


def test_an_in_distribution_column_that_serves_held_out_items_says_so() -> None:
    """The whole Hi-ToM release's order-4 items are the held-out O4 set; the leaderboard's
    in-distribution order 4 held them without a word (metrics red team)."""
    board = Leaderboard(
        envs=["ToM-HiToM-Original-v0", "ToM-HiToM-O2-v0"],
        held_out={"ToM-HiToM-Original-v0": False, "ToM-HiToM-O2-v0": False},
        rows=[row("a", {"4": 0.3})],
    )
    table = to_markdown(board)
    assert "Column ToM-HiToM-Original-v0 is in-distribution but serves the items of held-out " \
        "ToM-HiToM-Original-O4-v0" in table  # fmt: skip
    assert "Column ToM-HiToM-O2-v0 is in-distribution but" not in table


def test_a_rows_trace_fidelity_is_pooled_over_claims_not_items() -> None:
    """One env with 10 claims all right and one with 100 claims a third right showed 91.7
    (the envs' shares by items) where the claims say 39.4 (metrics red team)."""
    from types import SimpleNamespace

    from tomgym.eval.leaderboard import _claims_weighted

    few = SimpleNamespace(trace_fidelity=1.0, trace_claims_mean=1.0, n=10)
    many = SimpleNamespace(trace_fidelity=1 / 3, trace_claims_mean=10.0, n=10)
    pooled = _claims_weighted([few, many])  # type: ignore[list-item]
    assert pooled is not None and abs(pooled - (10 + 100 / 3) / 110) < 1e-9


def test_a_row_mixing_tokens_and_words_shows_no_length_and_html_marks_words() -> None:
    """A row averaged one env's 120 tokens with another's 88.5 words and showed "110 w"; the
    HTML page dropped the "w" (metrics red team)."""
    from tomgym.eval.html import _length_cell
    from tomgym.eval.leaderboard import length_label

    words = LeaderboardRow(agent="a", directory="a", n_items=2, accuracy=0.5,
                           response_tokens_mean=88.5, response_tokens_source="words")  # fmt: skip
    assert length_label(words) == "88 w" and ">88 w<" in _length_cell(words)
    from tomgym.eval.leaderboard import row_from_summary
    from tomgym.eval.metrics import summarise
    from tomgym.eval.store import ResultRecord

    def rec(env: str, tokens: int | None) -> ResultRecord:
        return ResultRecord(env_id=env, index=0, item_id=env, response="a b c",
                            response_words=3, completion_tokens=tokens)  # fmt: skip

    summary = summarise([rec("A-v0", 120), rec("B-v0", None)], ["A-v0", "B-v0"], {}, {},
                        agent="x")  # fmt: skip
    mixed = row_from_summary(summary, "d")
    assert mixed.response_tokens_mean is None and length_label(mixed) == "-"


def test_the_env_mean_interval_covers_the_true_mean_95_percent_of_the_time() -> None:
    """The first interval divided by n + 4 and covered 82-91% on the quick suite's shape (6
    envs of 10 items) and smaller ones (review). Simulated, seeded."""
    import random
    from types import SimpleNamespace

    from tomgym.eval.leaderboard import env_mean

    rng = random.Random(0)
    for envs, n in ((6, 10), (5, 4)):
        covered, trials = 0, 2000
        truth = [0.3 + 0.3 * i / (envs - 1) for i in range(envs)]
        for _ in range(trials):
            summaries = [
                SimpleNamespace(n=n, accuracy=sum(rng.random() < p for _ in range(n)) / n)
                for p in truth
            ]
            _, (low, high) = env_mean(summaries)  # type: ignore[arg-type,misc]
            covered += low <= sum(truth) / envs <= high
        assert covered / trials >= 0.93, (envs, n, covered / trials)


def test_an_env_of_unanswered_items_keeps_the_rows_length_in_tokens() -> None:
    """Every item of one env unanswered (empty, no count) made that env 'words' and blanked
    the row's length (review)."""
    from tomgym.eval.leaderboard import length_label, row_from_summary
    from tomgym.eval.metrics import summarise
    from tomgym.eval.store import ResultRecord

    answered = ResultRecord(env_id="A-v0", index=0, item_id="a", response="x y",
                            response_words=2, completion_tokens=30)  # fmt: skip
    unanswered = ResultRecord(env_id="B-v0", index=0, item_id="b", response="",
                              response_words=0, error="too long")  # fmt: skip
    summary = summarise([answered, unanswered], ["A-v0", "B-v0"], {}, {}, agent="x")
    assert length_label(row_from_summary(summary, "d")) == "15"


def test_a_column_whose_env_served_other_items_between_runs_says_so(tmp_path: Path) -> None:
    """Red team: two runs of one registered ID over two different data files shared a column
    with no note (the same indices, other items): the items' digests now tell them apart."""
    import tomgym
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    env = "TestBoard-FileChanged-v0"
    item = {"id": "q", "story": "Ann put the ball in the box.", "question": "Where is the ball?",
            "answer": "box", "candidates": ["box", "bag"]}  # fmt: skip
    try:
        for name, answer in (("first", "box"), ("again", "box"), ("edited", "bag")):
            tomgym.register_tom_env(env, items=[{**item, "answer": answer}], overwrite=True)
            evaluate("heuristic:reality", [env], out=tmp_path / name, quiet=True)
    finally:
        tomgym.unregister_tom_env(env)
    assert collect([tmp_path / "first", tmp_path / "again"]).mixed_items == {}
    board = collect([tmp_path / "first", tmp_path / "edited"])
    described = sorted(board.mixed_items[env].values())
    assert len(described) == 2 and all(d.startswith("its one item (items ") for d in described)
    assert f"Column {env} compares runs over different items" in to_markdown(board)


def test_a_leaderboard_of_directories_counts_this_tomgyms_verdicts_and_says_so(
    tmp_path: Path,
) -> None:
    """A run written by an older judge kept its verdicts on a board of directories (only
    resuming the run judged again), so one board ranked runs by two judges. The board judges
    every run's stored responses again in memory, says which runs' records differ, and changes
    no file; a run whose env cannot be made here (a plugin not installed) keeps its verdicts,
    said too. The older judge's verdict is written into the record by hand."""
    import json

    import tomgym
    from tomgym.eval.leaderboard import collect, mixed_notes
    from tomgym.eval.runner import evaluate

    env_id = "TestBoardJudgedAgain-v0"
    item = {"id": "q", "story": "Ann put the key in the staff room. Ann went to the kitchen.",
            "question": "Where is the key?", "answer": "staff room",
            "answer_type": "text"}  # fmt: skip
    items = [item, {**item, "id": "r"}]
    try:
        tomgym.register_tom_env(env_id, items=items, overwrite=True)
        evaluate("oracle", [env_id], out=tmp_path / "old", quiet=True)
        evaluate("oracle", [env_id], out=tmp_path / "new", quiet=True)
        results = tmp_path / "old" / "results.jsonl"
        records = [json.loads(line) for line in results.read_text().splitlines()]
        records[0].update(correct=False, verdict="several_candidates", reward=0.0,
                          reward_parts={"correctness": 0.0}, lenient_correct=False)  # fmt: skip
        results.write_text("".join(json.dumps(r) + "\n" for r in records))
        (tmp_path / "old" / "summary.json").unlink()  # rebuilt from the records: 50%
        files = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
        assert load_summary(tmp_path / "old").accuracy == 0.5
        board = collect([tmp_path / "old", tmp_path / "new"])
        assert [r.accuracy for r in board.rows] == [1.0, 1.0]
        assert list(board.judged_now) == [str(tmp_path / "old")]
        assert (
            "1 stored response (1 now correct, 0 now wrong)"
            in board.judged_now[str(tmp_path / "old")]
        )
        assert any("rerun its eval command" in note for note in mixed_notes(board))
        assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == files
        stored = collect([tmp_path / "old"], judge_again=False)
        assert stored.rows[0].accuracy == 0.5 and stored.judged_now == {}
    finally:
        tomgym.unregister_tom_env(env_id)
    board = collect([tmp_path / "old"])  # the env is not registered in this process now
    assert board.rows[0].accuracy == 0.5 and board.judged_now == {}
    (why,) = board.not_judged_now.values()
    assert why.startswith(f"{env_id} (") and env_id in to_markdown(board)


def test_the_board_says_when_a_held_out_column_shares_the_in_distribution_stories(
    tmp_path: Path,
) -> None:
    """Review: the eval said that held-out Hi-ToM-Original-O4 asks about the 120 stories of
    O0-O3, but the leaderboard, what gets published, did not."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    envs = ["ToM-HiToM-Original-O1-v0", "ToM-HiToM-Original-O4-v0"]
    evaluate("heuristic:reality", envs, n=5, out=tmp_path / "run", quiet=True)
    board = collect([tmp_path / "run"])
    assert board.shared_stories == {
        envs[1]: f"120 of its 120 stories with in-distribution {envs[0]}"
    }
    assert f"Column {envs[1]} is held out but shares 120 of its 120" in to_markdown(board)


def test_the_board_says_when_a_runs_items_changed_since_it_was_made(tmp_path: Path) -> None:
    """Review: a board of directories judged every run again but said nothing of records whose
    item had since changed (a data file edited): their verdicts are of the old items, so the
    board names the run and how many of each env's records."""
    import tomgym
    from tomgym.eval.leaderboard import collect, mixed_notes
    from tomgym.eval.runner import evaluate

    env = "TestBoard-ItemsChangedSince-v0"
    item = {"id": "q", "story": "Ann put the ball in the box.", "question": "Where is the ball?",
            "answer": "box", "candidates": ["box", "bag"]}  # fmt: skip
    items = [item, {**item, "id": "r"}]
    try:
        tomgym.register_tom_env(env, items=items, overwrite=True)
        evaluate("oracle", [env], out=tmp_path / "run", quiet=True)
        assert collect([tmp_path / "run"]).changed_since == {}
        tomgym.register_tom_env(env, items=[items[0], {**items[1], "answer": "bag"}],
                                overwrite=True)  # fmt: skip
        board = collect([tmp_path / "run"])
    finally:
        tomgym.unregister_tom_env(env)
    assert board.changed_since == {str(tmp_path / "run"): f"1 of {env}"}
    assert board.rows[0].accuracy == 1.0  # the stored verdict, of the old item
    assert any(
        f"holds records of items that changed since they were made (1 of {env})" in note
        for note in mixed_notes(board)
    )


def test_a_run_that_recorded_fewer_items_than_planned_says_so_in_the_items_note(
    tmp_path: Path,
) -> None:
    """UX red team: a run whose last record was cut by a kill was "items 0-29 ... items 0-29"
    in the note on different items, the same words for both runs."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    env = "ToM-HiToM-O1-v0"
    for name in ("whole", "cut"):
        evaluate("heuristic:reality", [env], n=4, out=tmp_path / name, quiet=True)
    results = tmp_path / "cut" / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:3]))
    (tmp_path / "cut" / "summary.json").unlink()
    board = collect([tmp_path / "whole", tmp_path / "cut"])
    described = board.mixed_items[env]
    assert described[str(tmp_path / "cut")].startswith("items 0-3, 3 of them recorded (items ")
    assert "recorded" not in described[str(tmp_path / "whole")]


def test_ranks_mark_ties_as_the_table_shows_them() -> None:
    """Competition ranks: rows whose accuracy reads the same (0.1 points) in the same standing
    share the first one's place, marked "="; an incomplete run's tie is not a complete one's."""
    from tomgym.eval.leaderboard import assign_ranks

    def ranked(*rows: tuple[str, float | None, bool]) -> list[str | None]:
        board = [
            LeaderboardRow(agent=a, directory=a, n_items=4, accuracy=acc, complete=complete)
            for a, acc, complete in rows
        ]
        assign_ranks(board, lambda r: (r.accuracy is None, not r.complete))
        return [r.rank for r in board]

    assert ranked(("a", 0.9, True), ("b", 0.5, True), ("c", 0.1, True)) == ["1", "2", "3"]
    assert ranked(("a", 0.9, True), ("b", 0.50001, True), ("c", 0.5, True), ("d", 0.2, True)) == [
        "1", "2=", "2=", "4"
    ]  # fmt: skip
    assert ranked(("a", 0.5, True), ("b", 0.5, False), ("c", None, True)) == ["1", "2", None]


def test_two_equal_runs_share_first_place_on_every_table(tmp_path: Path) -> None:
    from tomgym.eval.html import render_html
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    env = "ToM-HiToM-O1-v0"
    for name, agent in (("first", "oracle"), ("second", "oracle"), ("third", "random")):
        evaluate(agent, [env], n=6, out=tmp_path / name, quiet=True)
    board = collect([tmp_path / "first", tmp_path / "second", tmp_path / "third"])
    assert [r.rank for r in board.rows] == ["1=", "1=", "3"]
    lines = to_markdown(board).splitlines()
    assert lines[0].startswith("| rank | agent |")
    assert lines[2].startswith("| 1= | oracle [first] (simulator) |"), lines[2]
    assert lines[4].startswith("| 3 | random |")
    assert '<td data-value="1">1=</td>' in render_html(board)


def test_the_order_plot_breaks_lines_at_missing_orders_and_keeps_its_legend_beside() -> None:
    """Red team: a run with orders 0 and 2 was drawn through order 1, and the legend (two
    entries per agent) covered the data in the quick leaderboard's plot."""
    from tomgym.eval.plots import _pyplot, accuracy_by_order_figure, with_gaps

    xs, ys = with_gaps([0, 2], [50.0, 25.0])
    assert xs == [0, 1, 2] and ys[0] == 50.0 and ys[1] != ys[1] and ys[2] == 25.0
    board = Leaderboard(
        envs=[],
        rows=[row("a", {"0": 0.5, "2": 0.25}), row("b", {"0": 1.0, "1": 0.9, "2": 0.8})],
    )
    board.rows[0].by_order_held_out = {"4": 0.1}
    plt = _pyplot()
    fig = accuracy_by_order_figure(board, plt)
    try:
        fig.tight_layout()
        fig.canvas.draw()
        (ax,) = fig.axes
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == ["a", "b", "in-distribution",
                                                              "held out"]  # fmt: skip
        renderer = fig.canvas.get_renderer()
        assert legend.get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
        assert legend.get_window_extent(renderer).x1 <= fig.bbox.x1  # not cut off the image
        # each agent's points sit a little apart, so that two agents tying at an order do not
        # hide each other (the quick board's first and position agents tie at order 0)
        a, _, b = (line.get_xdata()[0] for line in ax.get_lines())  # a, a held out, b
        assert a != b and abs(a) < 0.1 and abs(b) < 0.1
    finally:
        plt.close(fig)


def test_the_board_says_when_a_held_out_column_shares_the_in_distribution_items(
    tmp_path: Path, data_root: Path
) -> None:
    """Held-out ExploreToM-Infilled asks ExploreToM's own questions: eval warned, the
    leaderboard said nothing and showed a gap of +0.0 as a generalisation figure (audit)."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    envs = ["ToM-ExploreToM-v0", "ToM-ExploreToM-Infilled-v0"]
    evaluate("heuristic:reality", envs, n=5, out=tmp_path / "run", quiet=True)
    board = collect([tmp_path / "run"])
    assert board.shared_items == {envs[1]: f"300 of its 300 items with {envs[0]}"}
    assert f"Column {envs[1]} is held out but shares 300 of its 300 items with {envs[0]} " \
        "(in-distribution; by ID" in to_markdown(board)  # fmt: skip
    assert envs[1] not in board.shared_stories


def test_a_held_out_generated_id_remade_as_its_sibling_is_said_to_share_its_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Generalisation red team: ToM-HiToM-O4-v0 made with orders=[2] beside ToM-HiToM-O2-v0
    serves O2's very items, yet stayed a held-out column with no word of it (the check of
    shared items compared fixed envs only): a gap of +0.0 read as generalisation."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"name": "revert", "n": 4, "envs": [
        {"id": "ToM-HiToM-O2-v0"}, {"id": "ToM-HiToM-O4-v0", "kwargs": {"orders": [2]}},
        {"id": "ToM-HiToM-O3-v0"}]}))  # fmt: skip
    evaluate("heuristic:position", suite=str(suite), out=tmp_path / "run", quiet=True)
    err = capsys.readouterr().err
    assert "held-out ToM-HiToM-O4-v0 shares 4 items with in-distribution ToM-HiToM-O2-v0" in err
    assert "ToM-HiToM-O3-v0" not in err.split("shares")[0]  # O3: its own stream
    board = collect([tmp_path / "run"])
    assert board.shared_items == {"ToM-HiToM-O4-v0": "4 items with ToM-HiToM-O2-v0"}


def test_the_board_says_when_model_runs_were_sampled_differently_or_cannot_be_checked(
    tmp_path: Path,
) -> None:
    """Two runs of one model at 4 and 6 tokens stood side by side without a word, and a row
    whose results.jsonl was gone was ranked from its summary.json alone, silently (audit).
    A tiny random Llama stands in for a model (real HF generation, in seconds)."""
    import shutil

    import pytest

    pytest.importorskip("torch")
    from tests.train.helpers import tiny_llama
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    model, env = tiny_llama(tmp_path / "model"), ["ToM-HiToM-O0-v0"]
    for tokens in (4, 6):
        evaluate(f"hf:{model}", env, n=1, out=tmp_path / f"m{tokens}", max_new_tokens=tokens,
                 quiet=True)  # fmt: skip
    evaluate("random", env, n=1, out=tmp_path / "random", quiet=True)
    evaluate("heuristic:reality", env, n=1, out=tmp_path / "reality", quiet=True,
             max_new_tokens=9)  # fmt: skip
    runs = [tmp_path / name for name in ("m4", "m6", "random", "reality")]
    board = collect(runs)
    assert board.sampling == {
        str(runs[0]): "temperature 0, 4 tokens",
        str(runs[1]): "temperature 0, 6 tokens",
    }  # the rule-based runs are left out: no setting changes their answers
    assert "Model runs sampled differently: " in to_markdown(board)
    assert collect(runs[:1] + runs[2:]).sampling == {}  # one model run: nothing to compare
    shutil.copytree(runs[2], tmp_path / "copy")
    (tmp_path / "copy" / "results.jsonl").unlink()
    board = collect([runs[2], tmp_path / "copy"])
    assert board.unchecked == {str(tmp_path / "copy"): "results.jsonl"}
    assert f"Run {tmp_path / 'copy'} has no results.jsonl: its row is its summary.json as " \
        "written" in to_markdown(board)  # fmt: skip


def test_the_length_plot_tells_tokens_from_words() -> None:
    """A model's 40 tokens and a baseline's 12 words were bars on one axis labelled
    "(completion_tokens / words)", read as one quantity (audit)."""
    from tomgym.eval.plots import _pyplot, response_length_figure

    def sized(agent: str, mean: float | None, source: str) -> LeaderboardRow:
        return LeaderboardRow(agent=agent, directory=agent, n_items=1, accuracy=0.5,
                              response_tokens_mean=mean, response_tokens_source=source)  # fmt: skip

    board = Leaderboard(envs=[], rows=[
        sized("m", 40.0, "completion_tokens"), sized("b", 12.0, "words"),
        sized("x", None, "completion_tokens/words"),
    ])  # fmt: skip
    plt = _pyplot()
    fig = response_length_figure(board, plt)
    try:
        (ax,) = fig.axes
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["tokens", "words"]
        bars = ax.patches
        assert [b.get_width() for b in bars] == [40.0, 12.0, 0.0]
        assert bars[0].get_facecolor() != bars[1].get_facecolor()
        assert "mix tokens and words" in ax.texts[0].get_text() and "(" not in ax.get_xlabel()
    finally:
        plt.close(fig)
    # rows over different envs: each bar says over how many (they were bars side by side)
    envs = ["ToM-HiToM-O1-v0", "ToM-HiToM-O4-v0"]
    board = Leaderboard(envs=envs, rows=[
        sized("m", 40.0, "completion_tokens").model_copy(update={"envs": dict.fromkeys(envs, .5)}),
        sized("b", 12.0, "words").model_copy(update={"envs": {envs[0]: 0.5}}),
    ])  # fmt: skip
    fig = response_length_figure(board, plt)
    try:
        ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
        assert ticks == ["m\n(2 of 2 envs)", "b\n(1 of 2 envs)"]
    finally:
        plt.close(fig)
    board.rows[1].envs[envs[1]] = 0.5
    fig = response_length_figure(board, plt)
    try:
        assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["m", "b"]
    finally:
        plt.close(fig)


def test_a_bar_in_a_run_directorys_name_keeps_the_markdown_columns(tmp_path: Path) -> None:
    """Two runs of one agent are told apart by their directories' names; a run named ``a|b``
    split its cell and shifted every later column of its row."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    for name in ("a|b", "c"):
        evaluate("random", ["ToM-HiToM-O1-v0"], n=2, out=tmp_path / name, quiet=True)
    table = to_markdown(collect([tmp_path / "a|b", tmp_path / "c"]))
    blocks = [b.splitlines() for b in table.split("\n\n") if b.startswith("|")]
    assert len(blocks) == 2  # the leaderboard and the by-order table
    for block in blocks:
        assert sum("a\\|b" in line for line in block) == 1
        assert len({len(line.replace("\\|", "").split("|")) for line in block}) == 1, block


def test_a_row_of_one_env_shows_its_own_interval(tmp_path: Path) -> None:
    """Generalisation red team: one env, one item right: eval said 0.207-1.000 (Wilson), the
    leaderboard 4.0-100.0 (its interval of a mean over envs)."""
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    summary = evaluate("oracle", ["ToM-HiToM-O1-v0"], n=1, out=tmp_path / "run", quiet=True)
    row = collect([tmp_path / "run"]).rows[0]
    assert row.ci95 == summary.envs["ToM-HiToM-O1-v0"].ci95


def test_question_types_the_orders_do_not_tell_apart_get_their_own_table(tmp_path: Path) -> None:
    """Generalisation red team: ToMi's reality and memory questions are both order 0, so the
    reality shortcut's 100% and 0% on them read as 50% in the order table, its rule unseen."""
    from tomgym.eval.html import render_html
    from tomgym.eval.leaderboard import collect
    from tomgym.eval.runner import evaluate

    for agent in ("heuristic:reality", "heuristic:first"):
        evaluate(agent, ["ToM-ToMi-v0"], n=24, out=tmp_path / agent, quiet=True)
    board = collect([tmp_path / "heuristic:reality", tmp_path / "heuristic:first"])
    reality, first = board.rows if board.rows[0].agent == "heuristic:reality" else board.rows[::-1]
    assert reality.by_question_type["reality"] == 1.0 and reality.by_question_type["memory"] == 0
    assert first.by_question_type["memory"] == 1.0 and first.by_question_type["reality"] == 0
    n = reality.question_type_items
    assert sum(n.values()) == 24 and not reality.by_question_type_held_out
    markdown = to_markdown(board)
    assert "Accuracy by question type" in markdown
    assert "| heuristic:reality | " in markdown and f"0.0 ({n['memory']})" in markdown
    page = render_html(board)
    assert 'id="by-question-type"' in page and "Accuracy by question type" in page
    # Hi-ToM alone: reality is order 0 and belief the rest, which the order table shows
    evaluate("heuristic:reality", ["ToM-HiToM-v0"], n=8, out=tmp_path / "hitom", quiet=True)
    board = collect([tmp_path / "hitom"])
    assert set(board.rows[0].by_question_type) <= {"reality", "belief"}
    assert "by question type" not in to_markdown(board)
    assert 'id="by-question-type"' not in render_html(board)
