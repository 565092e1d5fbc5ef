"""The shortcut audit: rows, the probe, the summary number and the command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from tomgym.env import EnvArgumentError
from tomgym.generalisation_commands import add_commands
from tomgym.shortcuts import (
    AuditRow,
    audit_env,
    audit_notes,
    audit_table,
    fit_probe,
    probe_predict,
    split_items,
)


def test_shortcut_share() -> None:
    row = AuditRow("X-v0", "hitom", "test", 10, 10, chance=0.1, oracle=1.0,
                   baselines={"random": 0.1, "heuristic:first": 0.55}, probe=0.4)  # fmt: skip
    assert row.best_shortcut == ("heuristic:first", 0.55)
    assert row.shortcut_share == pytest.approx(0.5)
    assert AuditRow("Y-v0", "x", "test", 1, 1, chance=0.5, oracle=0.5).shortcut_share is None


def test_probe_learns_a_planted_feature() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 4, 3))
    gold = x[:, :, 1].argmax(axis=1)
    mask = np.ones((200, 4), dtype=bool)
    w = fit_probe(x[:150], mask[:150], gold[:150])
    assert (probe_predict(w, x[150:], mask[150:]) == gold[150:]).mean() > 0.9
    assert np.array_equal(w, fit_probe(x[:150], mask[:150], gold[:150]))


def test_audit_generated_env() -> None:
    row = audit_env("ToM-HiToM-O4-v0", n_train=120, n_test=60)
    assert row.test_split == "test" and row.n_test == 60
    assert row.oracle == 1.0 and row.chance == pytest.approx(1 / 15)
    assert row.baselines["heuristic:initial"] > 0.2  # the known order-4 shortcut
    assert row.probe is not None and row.shortcut_share is not None
    assert "ToM-HiToM-O4-v0" in audit_table([row])
    assert row.test_stories == 60 and "| 60 (60 stories) |" in audit_table([row])
    # the best shortcut's accuracy on 60 items comes with its interval (none was shown)
    low, high = row.best_ci95
    assert low < row.best_shortcut[1] < high and high - low > 0.15
    assert f"| {100 * low:.1f}-{100 * high:.1f} |" in audit_table([row])
    assert row.to_dict()["best_shortcut_ci95"] == [low, high]


def test_the_audits_fitted_baselines_score_what_eval_scores_on_the_same_items(
    tmp_path: Path,
) -> None:
    """The audit fitted heuristic:position and :majority on its probe's training items
    (2n), eval on 500 train items, so the same baseline on the same items read 26.7 in the
    audit and 43.3 in eval, and moved with --n (audit red team). Now both fit alike."""
    from tomgym.eval.leaderboard import load_summary
    from tomgym.eval.runner import evaluate

    env_id, fitted = "ToM-HiToM-O2-v0", ("heuristic:position", "heuristic:majority")
    row = audit_env(env_id, n_train=120, n_test=60, baselines=fitted)
    for spec in fitted:
        evaluate(spec, [env_id], n=60, out=tmp_path / spec[10:], quiet=True)
        assert row.baselines[spec] == load_summary(tmp_path / spec[10:]).envs[env_id].accuracy
    assert row.baselines["heuristic:position"] == pytest.approx(26 / 60)


def test_the_audit_scores_the_items_eval_scores_on_a_release(
    data_root: Path, tmp_path: Path
) -> None:
    """Report audit: on a release the audit took evenly spaced items and eval the first n of
    its shuffled order, so ToMi-Original's first-container rule read 26.7 against 16.7."""
    from tomgym.eval.leaderboard import load_summary
    from tomgym.eval.runner import evaluate

    env_id, specs = "ToM-ToMi-Original-v0", ("heuristic:first", "heuristic:reality")
    row = audit_env(env_id, n_train=60, n_test=30, baselines=specs)
    assert row.test_split == "val"
    for spec in specs:
        out = tmp_path / spec[10:]
        evaluate(spec, [env_id], n=30, out=out, quiet=True)
        assert row.baselines[spec] == load_summary(out).envs[env_id].accuracy


def test_audit_says_how_many_stories_its_test_items_come_from(data_root: Path) -> None:
    """ExploreToM's 300 test questions come from 14 stories: a baseline's score on them moves
    by tens of points between equally valid splits (split red team), and the table now says so."""
    row = audit_env("ToM-ExploreToM-v0", n_train=100, n_test=300, baselines=("random",))
    assert (row.n_test, row.test_stories) == (300, 14)
    # its oracle copies the gold and its chance counts free text as 0: the table now says so
    assert row.oracle_gold_answers == 300 and row.free_text_items == 31
    assert [note.split(":")[0] for note in audit_notes([row])] == [
        "chance on ToM-ExploreToM-v0",
        "oracle on ToM-ExploreToM-v0",
    ]
    assert audit_notes([audit_env("ToM-ToMi-v0", n_train=40, n_test=20)]) == []


def test_audit_release_without_split(data_root: Path) -> None:
    row = audit_env("ToM-HiToM-Original-O0-v0", n_train=60, n_test=60)
    assert row.test_split.startswith("half")
    assert row.baselines["heuristic:reality"] > 0.9


def test_audit_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"))
    out = tmp_path / "a.json"
    args = parser.parse_args(["audit", "ToM-ToMi-v0", "--n", "40", "--out", str(out)])
    assert args.handler(args) == 0
    assert "| ToM-ToMi-v0 |" in capsys.readouterr().out
    assert json.loads(out.read_text())["rows"][0]["env_id"] == "ToM-ToMi-v0"


def test_a_release_without_splits_is_halved_by_story_and_random_is_not_a_shortcut() -> None:
    """The probe was trained and tested on the same Hi-ToM stories (95 of 100 test items
    shared a story with its training items), and random's luck was named the best shortcut."""
    from tomgym.shortcuts import AuditRow, split_items

    train, test, what = split_items("ToM-HiToM-Original-v0", 200, 100)
    assert what == "half of the stories (no split)" and len(test) == 100 and len(train) == 200
    assert not {it.story for it in train} & {it.story for it in test}
    row = AuditRow("x", "hitom", what, 200, 100, chance=0.5, oracle=1.0,
                   baselines={"random": 0.6, "heuristic:first": 0.55})  # fmt: skip
    assert row.best_shortcut == ("heuristic:first", 0.55)


def test_an_env_whose_stories_all_fall_on_one_side_is_skipped_not_scored_zero(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Red team: a custom env of one story (no split) left the audit no test items, and it
    printed chance, every baseline and the oracle as 0.0 and exited 0: an oracle at 0% reads
    as wrong labels. It is skipped, saying why."""
    import argparse

    import tomgym

    story = "Ann put the ball in the box. Ann went out."
    items = [{"id": f"q{i}", "story": story, "question": f"Where is the ball? ({i})",
              "answer": "box", "candidates": ["box", "bag"]} for i in range(4)]  # fmt: skip
    env_id = "Test-Audit-OneStory-v0"
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    try:
        parser = argparse.ArgumentParser()
        add_commands(parser.add_subparsers())
        args = parser.parse_args(["audit", env_id, "--n", "5"])
        assert args.handler(args) == 1
    finally:
        tomgym.unregister_tom_env(env_id)
    out = capsys.readouterr().out
    assert f"skipped {env_id}: {env_id}: no " in out and "1 story all fell in the" in out
    assert f"| {env_id} |" not in out


def _parsed(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    return parser.parse_args(argv)


def test_yes_no_golds_written_as_sentences_are_probed_and_one_failing_env_keeps_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: the probe looked up a gold "No, she doesn't." among ("yes", "no") and
    raised, and that one env's error threw away every other env's finished row."""
    import tomgym

    golds = ["Yes.", "No, she doesn't.", "yes", "No"]
    items = [{"id": f"y{i}", "story": f"Ann put ball {i} in the box.", "answer": golds[i % 4],
              "question": f"Does Bob know where ball {i} is?",
              "split": "train" if i < 50 else "test"} for i in range(80)]  # fmt: skip
    tomgym.register_tom_env("Test-Audit-YesNo-v0", items=items, overwrite=True)

    def broken(index: int) -> dict[str, object]:
        raise ValueError(f"no item {index} today")

    tomgym.register_tom_env(
        "Test-Audit-Broken-v0", generator=broken, max_prompt_chars=1000, overwrite=True
    )
    out = tmp_path / "a.md"
    try:
        row = audit_env("Test-Audit-YesNo-v0", n_train=50, n_test=30)
        assert row.probe is not None and 0.0 <= row.probe <= 1.0
        ids = ["Test-Audit-Broken-v0", "Test-Audit-YesNo-v0", "Test-Audit-YesNo-v0"]  # twice
        args = _parsed(["audit", *ids, "--n", "30", "--out", str(out)])
        assert args.handler(args) == 1
    finally:
        tomgym.unregister_tom_env("Test-Audit-YesNo-v0")
        tomgym.unregister_tom_env("Test-Audit-Broken-v0")
    printed = capsys.readouterr().out
    assert "| Test-Audit-YesNo-v0 |" in printed and printed.count("| Test-Audit-YesNo-v0 |") == 1
    assert "skipped Test-Audit-Broken-v0: failed: ValueError: no item" in printed
    saved = out.read_text(encoding="utf-8")  # the report as printed, skips and share included
    assert "skipped Test-Audit-Broken-v0" in saved and "share = (best shortcut" in saved


def test_audit_checks_every_id_first_passes_kwargs_and_notes_a_short_env(
    data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: an unknown second ID failed only after the first env was audited; --n above
    an env's size was cut without a word; env kwargs could not be given."""
    from tomgym.registry import UnknownEnvError

    with pytest.raises(UnknownEnvError, match="ToM-Nope-v0"):
        args = _parsed(["audit", "ToM-HiToM-O1-v0", "ToM-Nope-v0", "--n", "5"])
        args.handler(args)
    assert "| ToM-HiToM-O1-v0 |" not in capsys.readouterr().out
    args = _parsed(["audit", "ToM-HiToM-Original-O4-v0", "--n", "100", "--n-train", "60"])
    assert args.handler(args) == 0
    assert "ToM-HiToM-Original-O4-v0: 61 test items, all it serves (--n 100)" in (
        capsys.readouterr().out
    )
    args = _parsed(["audit", "ToM-HiToM-O2-v0", "--n", "20", "--kwarg", "vocab_split=test"])
    assert args.handler(args) == 0
    # the report says what the envs were made with (user red team: its row read as the plain
    # env's, though its numbers were the new-vocabulary ones)
    assert capsys.readouterr().out.startswith("every env made with vocab_split='test' (--kwarg)")
    # a bad or misspelt argument is the command's mistake (exit 2 from the CLI), said before
    # any env is audited; it was a skipped env and exit 1 (report audit)
    for bad in ("vocab_split=bogus", "vocab_splt=test"):
        args = _parsed(["audit", "ToM-HiToM-O1-v0", "ToM-HiToM-O2-v0", "--n", "20",
                        "--kwarg", bad])  # fmt: skip
        with pytest.raises(EnvArgumentError, match="ToM-HiToM-O1-v0: "):
            args.handler(args)
    assert "| ToM-HiToM-O1-v0 |" not in capsys.readouterr().out


@pytest.mark.parametrize(("out", "said"), [("edge", "is a directory"), ("a.csv", "not .csv")])
def test_an_audit_out_it_cannot_write_is_refused_before_the_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str, said: str
) -> None:
    """Report audit: --out naming a directory failed after the whole audit, writing nothing;
    --out a.csv was written as JSON."""
    from tomgym.cli import main

    (tmp_path / "edge").mkdir()
    assert main(["audit", "ToM-HiToM-O1-v0", "--n", "5", "--out", str(tmp_path / out)]) == 2
    captured = capsys.readouterr()
    assert said in captured.err and "| ToM-HiToM-O1-v0 |" not in captured.out


def test_an_env_with_val_and_test_splits_but_no_train_trains_the_probe_on_val() -> None:
    """Registration audit: an env of val and test items was audited as "half of the stories",
    mixing its test items into the probe's training half."""
    import tomgym

    items = [{"id": f"v{i}", "story": f"Ann put ball {i} in the box. Ann went out.",
              "question": "Where is the ball?", "answer": "box", "candidates": ["box", "bag"],
              "split": "val" if i < 20 else "test"} for i in range(40)]  # fmt: skip
    tomgym.register_tom_env("Test-Audit-ValTest-v0", items=items, overwrite=True)
    try:
        train, test, what = split_items("Test-Audit-ValTest-v0", n_train=20, n_test=20)
    finally:
        tomgym.unregister_tom_env("Test-Audit-ValTest-v0")
    assert what == "test"
    assert {i.split for i in train} == {"val"} and {i.split for i in test} == {"test"}
    assert len(train) == len(test) == 20


def test_a_baseline_whose_rule_does_not_apply_is_said_to_fall_back(tmp_path: Path) -> None:
    """Generalisation red team: heuristic:reality, initial and first answered 'yes' on every
    OpenToM location question (no container to track) and the first candidate on most of
    ExploreToM's, reported under the shortcut's name: four 'different' shortcuts at 35.0%.
    The fallback answers are counted: in the records, eval's summary, the leaderboard and
    the audit's notes."""
    from tomgym.eval import evaluate
    from tomgym.eval.leaderboard import collect, to_markdown
    from tomgym.shortcuts import audit_env, audit_notes

    summary = evaluate("heuristic:reality", envs=["ToM-OpenToM-CoarseLoc-v0", "ToM-HiToM-O2-v0"],
                       n=6, out=tmp_path / "run", quiet=True)  # fmt: skip
    assert summary.envs["ToM-OpenToM-CoarseLoc-v0"].fallback_answers == 6
    assert summary.envs["ToM-HiToM-O2-v0"].fallback_answers == 0
    board = to_markdown(collect([tmp_path / "run"]))
    assert "its rule did not apply, so it gave a fixed answer" in board
    assert "OpenToM-CoarseLoc (held out) 6/6" in board
    row = audit_env("ToM-OpenToM-CoarseLoc-v0", n_train=20, n_test=10)
    assert row.fallbacks["heuristic:reality"] == 10 and "heuristic:majority" not in row.fallbacks
    assert any("reality on ToM-OpenToM-CoarseLoc-v0: its rule does not apply to 10 of 10" in note
               for note in audit_notes([row]))  # fmt: skip
