from __future__ import annotations

import json
from pathlib import Path

import pytest

from tomgym.eval.suites import SuiteError, builtin_suites, load_suite
from tomgym.registry import UnknownEnvError, get_spec


def test_builtin_suites_parse() -> None:
    assert {"quick", "paper-2504", "paper-2507"} <= set(builtin_suites())
    quick = load_suite("quick")
    assert [e.id for e in quick.envs if e.held_out] == ["ToM-HiToM-O4-v0"]
    assert "oracle" in quick.agents and "smollm2" in quick.agents
    assert len(load_suite("paper-2507", check_ids=False).envs) == 12
    paper_2504 = load_suite("paper-2504", check_ids=False)
    assert len(paper_2504.envs) == 8  # Hi-ToM release O0-O3 in-distribution, O4 held out, ...
    inside = [e.id for e in paper_2504.envs if not e.held_out]
    assert inside == [f"ToM-HiToM-Original-O{k}-v0" for k in range(4)]


@pytest.mark.parametrize("name", ["paper-2504", "paper-2507"])
def test_paper_suite_ids_are_registered(name: str) -> None:
    suite = load_suite(name, check_ids=False)
    missing = []
    for env in suite.envs:
        try:
            get_spec(env.id)
        except UnknownEnvError:
            missing.append(env.id)
    if missing:
        pytest.skip(f"not registered yet: {missing}")
    load_suite(name)


def test_user_suite_file_and_clear_errors(tmp_path: Path) -> None:
    good = {"name": "mine", "n": 3, "envs": [{"id": "ToM-HiToM-O1-v0", "held_out": True}]}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(good))
    assert load_suite(path).envs[0].held_out

    path.write_text(json.dumps({**good, "envs": [{"id": "ToM-HiToM-O9-v0"}]}))
    with pytest.raises(SuiteError, match="ToM-HiToM-O9-v0.*Did you mean"):
        load_suite(path)

    path.write_text(json.dumps({**good, "nn": 3}))
    with pytest.raises(SuiteError, match="nn"):
        load_suite(path)

    path.write_text(json.dumps({**good, "split": "tset"}))  # fell back to val, quietly
    with pytest.raises(SuiteError, match="split must be one of .*'tset'"):
        load_suite(path)

    path.write_text("{not json")
    with pytest.raises(SuiteError, match="not valid JSON"):
        load_suite(path)

    with pytest.raises(SuiteError, match="built-in suites: .*quick"):
        load_suite("no-such-suite")


def test_a_builtin_suite_name_wins_over_a_directory_of_that_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``leaderboard --suite quick --out quick`` makes a directory named quick: a rerun in the
    same folder must still read the built-in suite, not the directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quick").mkdir()
    assert load_suite("quick").name == "quick"


def test_an_eval_names_held_out_envs_that_share_items_with_in_distribution_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Hi-ToM release next to its own O4 subset held out: the gap would compare items with
    themselves. paper-2504 used to hold exactly that pair."""
    from tomgym.eval.targets import resolve_targets, shared_items, shared_stories

    envs = [
        {"id": "ToM-HiToM-Original-v0", "held_out": False},
        {"id": "ToM-HiToM-Original-O4-v0", "held_out": True},
        {"id": "ToM-HiToM-O1-v0"},
    ]
    path = tmp_path / "pair.json"
    path.write_text(json.dumps({"name": "pair", "envs": envs}))
    targets, _, _ = resolve_targets(None, path, 5, None, None)
    assert shared_items(targets) == [("ToM-HiToM-Original-O4-v0", "ToM-HiToM-Original-v0", 120)]
    assert "held-out ToM-HiToM-Original-O4-v0 shares 120 items" in capsys.readouterr().err
    paper, _, _ = resolve_targets(None, "paper-2504", 5, None, None)
    assert shared_items(paper) == []
    # No item in common, but every O4 question is about a story O0-O3 ask about too.
    (o4,) = shared_stories(paper)
    assert o4[0] == "ToM-HiToM-Original-O4-v0" and o4[2] == o4[3] > 0
    assert "ToM-HiToM-Original-O3-v0" in o4[1]
    assert "it holds out the questions (another order or kind), not the stories" in (
        capsys.readouterr().err
    )


def test_a_suite_goes_on_past_an_agent_that_cannot_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review: one unreachable served agent stopped `tomgym leaderboard --suite` (exit 2, no
    board written, the agents after it never run)."""
    from tests.eval.helpers import run_cli

    out = tmp_path / "board"
    agents = "random,openai:m@http://127.0.0.1:9/v1,heuristic:reality"
    code = run_cli("leaderboard", "--suite", "quick", "--agents", agents, "--n", "1",
                   "--out", str(out), "--agent-option", "max_retries=0")  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "openai:m@http://127.0.0.1:9/v1 stopped" in err and "nothing listens at" in err
    # each agent's progress lines are headed by the agent (user red team: 8 alike blocks)
    assert "agent 1/3: random -> " in err and "agent 3/3: heuristic:reality -> " in err
    board = json.loads((out / "leaderboard.json").read_text())
    assert {"random", "heuristic:reality"} <= {row["agent"] for row in board["rows"]}
    notes = (out / "leaderboard.md").read_text()
    assert "stopped before it finished" in notes
    assert "has no results.jsonl" not in notes  # it never had any: its own note says why
