"""What a run counts as held out, and readers that change nothing: from a review that measured
generalisation as a new user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.eval.helpers import FirstCandidateAgent
from tomgym.eval.html import render_html
from tomgym.eval.leaderboard import collect, column_labels, to_markdown
from tomgym.eval.runner import evaluate

O2 = "ToM-HiToM-O2-v0"


def test_kwargs_that_change_an_ids_content_count_it_as_held_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """O2 with the test vocabulary serves the NewVocab ID's items; it used to be counted in the
    in-distribution mean. A seed, a reward, or a kwarg equal to the env's default leaves the
    ID's items as they are."""
    changed = evaluate(
        FirstCandidateAgent(),
        [O2],
        n=2,
        out=tmp_path / "a",
        env_kwargs={"vocab_split": "test"},
        quiet=True,
    )
    assert changed.envs[O2].held_out
    assert "serves other items than its ID: counted as held out" in capsys.readouterr().err
    for name, kwargs in {
        "b": {"seed": 3, "reward": "tomrl", "orders": [2]},
        "c": {"vocab_split": "train", "noise": 0.1},
    }.items():
        same = evaluate(
            FirstCandidateAgent(), [O2], n=2, out=tmp_path / name, env_kwargs=kwargs, quiet=True
        )
        assert not same.envs[O2].held_out, kwargs


def test_a_directory_made_before_kwargs_could_mark_held_out_resumes(tmp_path: Path) -> None:
    kwargs = {"vocab_split": "test"}
    evaluate(FirstCandidateAgent(), [O2], n=2, out=tmp_path, env_kwargs=kwargs, quiet=True)
    path = tmp_path / "metadata.json"
    meta = json.loads(path.read_text())
    meta["envs"][0]["held_out"] = False  # as older versions marked it: by the ID alone
    path.write_text(json.dumps(meta))
    summary = evaluate(
        FirstCandidateAgent(), [O2], n=3, out=tmp_path, env_kwargs=kwargs, quiet=True
    )
    assert summary.complete and not summary.envs[O2].held_out


def test_a_misspelt_split_is_refused_and_a_missing_one_falls_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--split tset ran on val with exit 0. A real split an env lacks still falls back (envs
    that take no split, releases without that split), as the checkpoint evaluation needs."""
    with pytest.raises(ValueError, match="split must be one of"):
        evaluate(FirstCandidateAgent(), [O2], n=2, out=tmp_path / "x", split="tset", quiet=True)
    summary = evaluate(
        FirstCandidateAgent(),
        ["ToM-HiToM-Original-O4-v0"],
        n=2,
        out=tmp_path / "z",
        split="val",
        quiet=True,
    )
    err = capsys.readouterr().err  # a release without splits: a note, not an error to read
    assert summary.complete and "ToM-HiToM-Original-O4-v0 has no splits; using all its items" in err
    assert "not 'val'" not in err
    summary = evaluate(FirstCandidateAgent(), O2, n=2, out=tmp_path / "y", quiet=True)  # type: ignore[arg-type]
    assert list(summary.envs) == [O2]  # one ID as a string, not its characters


def test_the_leaderboard_says_when_runs_mark_a_column_differently(tmp_path: Path) -> None:
    suite = tmp_path / "mine.json"
    suite.write_text(json.dumps({"name": "mine", "envs": [{"id": O2, "held_out": True}]}))
    evaluate(FirstCandidateAgent(), suite=str(suite), n=2, out=tmp_path / "marked", quiet=True)
    evaluate(FirstCandidateAgent(), [O2], n=2, out=tmp_path / "plain", quiet=True)
    board = collect([tmp_path / "marked", tmp_path / "plain"])
    assert board.mixed_held_out == {
        O2: {str(tmp_path / "marked"): True, str(tmp_path / "plain"): False}
    }
    assert "held-out gaps do not compare" in to_markdown(board)
    # User audit: the header said "(held out)" for every row once any run marked it so
    assert board.held_out == {O2: False}
    assert column_labels(board)[O2].endswith(" (held out in some runs)")
    assert "(held out in some runs)</th>" in render_html(board)
    alone = collect([tmp_path / "marked"])
    assert alone.held_out == {O2: True} and column_labels(alone)[O2].endswith(" (held out)")


def test_reading_a_directory_leaves_its_files_as_they_are(tmp_path: Path) -> None:
    """A torn last line may be an evaluation still writing: the leaderboard must not cut it."""
    evaluate(FirstCandidateAgent(), [O2], n=3, out=tmp_path, quiet=True)
    (tmp_path / "summary.json").unlink()
    results = tmp_path / "results.jsonl"
    torn = results.read_bytes() + b'{"env_id": "ToM-Hi'
    results.write_bytes(torn)
    board = collect([tmp_path])
    assert board.rows[0].accuracy is not None
    assert results.read_bytes() == torn


def test_the_gap_above_chance_is_about_zero_for_guessing(tmp_path: Path) -> None:
    """Random on ToMi (2 candidates) in-distribution against Hi-ToM O4 (15) held out: the plain
    gap is large for an agent that learned nothing; the gap above chance is not."""
    summary = evaluate(
        "random", ["ToM-ToMi-v0", "ToM-HiToM-O4-v0"], n=100, out=tmp_path, quiet=True
    )
    tomi, o4 = summary.envs["ToM-ToMi-v0"], summary.envs["ToM-HiToM-O4-v0"]
    assert tomi.chance == 0.5 and o4.chance == pytest.approx(1 / 15)
    assert tomi.above_chance == pytest.approx((tomi.accuracy - 0.5) / 0.5)
    assert summary.held_out_gap is not None and summary.held_out_gap > 0.4
    assert summary.held_out_gap_above_chance is not None
    assert abs(summary.held_out_gap_above_chance) < 0.25
    assert "gap > chance" in to_markdown(collect([tmp_path]))


def test_two_runs_of_one_agent_are_told_apart_on_the_board(tmp_path: Path) -> None:
    evaluate(FirstCandidateAgent(), [O2], n=2, out=tmp_path / "seed0", quiet=True)
    evaluate(FirstCandidateAgent(), [O2], n=2, out=tmp_path / "seed1", seed=1, quiet=True)
    table = to_markdown(collect([tmp_path / "seed0", tmp_path / "seed1"]))
    assert "test:first-candidate [seed0]" in table and "test:first-candidate [seed1]" in table


def test_an_n_larger_than_the_env_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: --n 100000 on an env of 120 items ran the 120 without a word."""
    summary = evaluate(FirstCandidateAgent(), ["ToM-HiToM-Original-O4-v0"], n=500, out=tmp_path,
                       quiet=True)  # fmt: skip
    err = capsys.readouterr().err
    assert "has 120 items, fewer than the 500 asked for: evaluating all of them" in err
    assert summary.envs["ToM-HiToM-Original-O4-v0"].n == 120
