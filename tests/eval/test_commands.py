from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.eval.helpers import run_cli


def test_eval_then_leaderboard_over_directories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tomgym.agents.baselines")
    runs = []
    for agent in ("random", "heuristic:reality"):
        out = tmp_path / agent.replace(":", "_")
        args = ["eval", "--agent", agent, "--env", "ToM-HiToM-O0-v0", "--env", "ToM-HiToM-O4-v0"]
        assert run_cli(*args, "--n", "3", "--out", str(out), "--quiet") == 0
        runs.append(str(out))
    assert "ToM-HiToM-O4-v0" in capsys.readouterr().out
    board = tmp_path / "board"
    assert run_cli("leaderboard", *runs, "--out", str(board)) == 0
    printed = capsys.readouterr().out
    assert "| heuristic:reality |" in printed and "| random |" in printed
    data = json.loads((board / "leaderboard.json").read_text())
    assert [r["agent"] for r in data["rows"]] == ["heuristic:reality", "random"]
    assert data["held_out"]["ToM-HiToM-O4-v0"] is True
    assert (board / "leaderboard.md").exists() and (board / "leaderboard.html").exists()
    # UX red team: a suite run's options on a board of directories did nothing, without a word
    assert run_cli("leaderboard", *runs, "--agents", "oracle", "--n", "5", "--out",
                   str(board)) == 2  # fmt: skip
    assert "--agents and --n apply only with --suite" in capsys.readouterr().err
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not (board / "plots").exists()
    else:
        assert (board / "plots" / "accuracy_by_order.png").stat().st_size > 0
        assert (board / "plots" / "response_length.png").stat().st_size > 0
        # the page shows them (user red team: it neither embedded nor linked them)
        page = (board / "leaderboard.html").read_text(encoding="utf-8")
        assert '<img src="plots/accuracy_by_order.png"' in page


def test_leaderboard_runs_a_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tomgym.agents.oracle")
    code = run_cli(
        "leaderboard",
        "--suite",
        "quick",
        "--agents",
        "oracle,heuristic:first",
        "--n",
        "2",
        "--out",
        str(tmp_path),
        "--quiet",
    )
    assert code == 0
    # on generated Hi-ToM the oracle solves every item with the simulator, copying no gold
    assert "| oracle (simulator) |" in capsys.readouterr().out
    assert (tmp_path / "runs" / "heuristic_first" / "results.jsonl").exists()


def test_a_suite_board_holds_every_agent_run_into_its_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Report audit: a second command into the same --out rewrote the board with its one
    agent's row; and --agents "" (an unset shell variable) ran every default agent."""
    from tomgym.cli import main

    argv = ["leaderboard", "--suite", "quick", "--n", "2", "--out", str(tmp_path), "--quiet"]
    assert main([*argv, "--agents", ""]) == 2
    assert "--agents '' names no agent" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
    assert main([*argv, "--agents", "heuristic:first"]) == 0
    capsys.readouterr()
    assert main([*argv, "--agents", "random"]) == 0
    captured = capsys.readouterr()
    assert "| heuristic:first |" in captured.out and "| random |" in captured.out
    assert "also tabulated, run into this --out before: " in captured.err
    board = json.loads((tmp_path / "leaderboard.json").read_text())
    assert sorted(row["agent"] for row in board["rows"]) == ["heuristic:first", "random"]


def test_agents_sharing_a_folder_name_get_their_own_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Report audit: openai:模型@URL and openai:型号@URL (and hf:org/model, hf:org_model)
    were sent to one folder; the second was refused after the first had run."""
    from tomgym.eval.leaderboard import run_folder_names
    from tomgym.eval.runner import evaluate

    a, b = "openai:模型@http://127.0.0.1:9/v1", "openai:型号@http://127.0.0.1:9/v1"
    folders = run_folder_names(tmp_path, [a, b, a])
    assert folders[a] != folders[b]
    assert {folders[a].parent, folders[b].parent} == {tmp_path / "runs"}
    assert f"{a}, {b} share the folder name openai_http_127.0.0.1_9_v1" in capsys.readouterr().err
    assert run_folder_names(tmp_path, [a, b]) == folders  # the same folders every time
    # the plain folder already holding one of them stays that one's
    plain = tmp_path / "runs" / "heuristic_first"
    evaluate("heuristic:first", ["ToM-HiToM-O1-v0"], n=1, out=plain, quiet=True)
    again = run_folder_names(tmp_path, ["heuristic/first", "heuristic:first"])
    assert again["heuristic:first"] == plain and again["heuristic/first"] != plain


def test_eval_needs_envs_or_suite(tmp_path: Path) -> None:
    assert run_cli("eval", "--agent", "random", "--out", str(tmp_path)) == 2


def test_eval_says_which_of_env_and_suite_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tomgym.cli import main

    assert main(["eval", "--agent", "random", "--n", "2", "--out", str(tmp_path / "x")]) == 2
    assert "or --suite NAME, one of them" in capsys.readouterr().err  # it said "not both"
    both = ["--env", "ToM-HiToM-O1-v0", "--suite", "quick"]
    assert main(["eval", "--agent", "random", *both, "--out", str(tmp_path / "y")]) == 2
    assert "not both" in capsys.readouterr().err


def test_eval_takes_the_split_from_split_not_from_a_kwarg(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--kwarg split=val was taken (and kept by a rerun without it), though export and train
    refuse it in favour of --split."""
    from tomgym.cli import main

    argv = ["eval", "--agent", "random", "--env", "ToM-HiToM-O1-v0", "--n", "2"]
    assert main([*argv, "--kwarg", "split=val", "--out", str(tmp_path / "x")]) == 2
    assert "use --split val, not --kwarg split=" in capsys.readouterr().err


def test_a_kwarg_that_redefines_a_held_out_env_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--kwarg orders=(0,) made the O4 column hold order-0 items without a word (the note was
    printed for in-distribution envs only)."""
    from tomgym.cli import main

    argv = ["eval", "--agent", "heuristic:reality", "--env", "ToM-HiToM-O4-v0", "--n", "2",
            "--kwarg", "orders=(0,)", "--out", str(tmp_path / "x"), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    assert "ToM-HiToM-O4-v0 with {'orders': (0,)} serves other items than its ID: its column" in (
        capsys.readouterr().err
    )


def test_leaderboard_says_a_directory_is_missing_or_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tomgym.cli import main

    a_file = tmp_path / "afile"
    a_file.write_text("x")
    assert main(["leaderboard", str(tmp_path / "nope")]) == 2
    assert "nope: no such directory" in capsys.readouterr().err
    assert main(["leaderboard", str(a_file)]) == 2
    assert "is a file, not an eval directory" in capsys.readouterr().err


def test_a_run_over_fewer_envs_ranks_after_full_runs_and_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 10-item oracle-like run of one easy env ranked first above runs over every column."""
    from tomgym.cli import main

    easy, full = tmp_path / "easy", tmp_path / "full"
    assert main(["eval", "--agent", "heuristic:reality", "--env", "ToM-HiToM-O0-v0", "--n", "4",
                 "--out", str(easy), "--quiet"]) == 0  # fmt: skip
    assert main(["eval", "--agent", "random", "--env", "ToM-HiToM-O0-v0", "--env",
                 "ToM-HiToM-O4-v0", "--n", "4", "--out", str(full), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["leaderboard", str(easy), str(full), "--out", str(tmp_path / "board")]) == 0
    board = json.loads((tmp_path / "board" / "leaderboard.json").read_text())
    assert [row["agent"] for row in board["rows"]] == ["random", "heuristic:reality"]
    markdown = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "has no results for HiToM-O4" in markdown


def test_a_resumed_directory_keeps_its_first_revision_and_lists_every_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rerun rewrote git_revision to the current HEAD, though the records came from older
    code; uncommitted changes were not marked."""
    from tomgym.eval import runner
    from tomgym.eval.store import read_metadata

    out = tmp_path / "run"
    argv = ["eval", "--agent", "random", "--env", "ToM-HiToM-O1-v0", "--out", str(out), "--quiet"]
    monkeypatch.setattr(runner, "git_revision", lambda: "aaa")
    assert run_cli(*argv, "--n", "2") == 0
    monkeypatch.setattr(runner, "git_revision", lambda: "bbb-dirty")
    assert run_cli(*argv, "--n", "3") == 0
    metadata = read_metadata(out)
    assert metadata is not None
    assert metadata.git_revision == "aaa" and metadata.revisions == ["aaa", "bbb-dirty"]


def test_a_suite_runs_without_the_envs_whose_release_is_missing_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """paper-2507 could not run at all without FANToM's file (not in ../shared/data)."""
    from tomgym.cli import main

    argv = ["eval", "--agent", "heuristic:reality", "--suite", "paper-2507", "--n", "2",
            "--out", str(tmp_path / "run"), "--quiet"]  # fmt: skip
    assert main(argv) == 2
    assert "fantom_v1.json" in capsys.readouterr().err
    assert main([*argv, "--skip-missing"]) == 0
    err = capsys.readouterr().err
    assert "ToM-FANToM-v0 left out (--skip-missing)" in err
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert "ToM-FANToM-v0" not in summary["envs"] and "ToM-OpenToM-FineLoc-v0" in summary["envs"]


def test_agent_options_reach_the_agent_are_checked_and_belong_to_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A served model's timeout, retries and concurrency could not be set from the command
    line; now --agent-option sets any agent setting, a misspelt one is refused before --out
    is made, and one that shapes the answers is part of the run's identity."""
    from tomgym.cli import main

    out = tmp_path / "majority"
    argv = ["eval", "--agent", "heuristic:majority", "--env", "ToM-HiToM-O1-v0", "--n", "2",
            "--out", str(out), "--quiet"]  # fmt: skip
    assert main([*argv[:-3], "--agent-option", "fit_itmes=20", *argv[-3:]]) == 2
    err = capsys.readouterr().err
    assert "takes no option 'fit_itmes'" in err and "fit_items" in err and not out.exists()
    # the run's own settings are named with their flags, not as --agent-option keys (audit)
    assert "and the run's temperature, max_new_tokens, seed, batch_size" in err
    assert "their own flags: --temperature, --max-new-tokens, --seed, --batch-size" in err
    assert main([*argv, "--agent-option", "fit_items=20"]) == 0
    assert json.loads((out / "metadata.json").read_text())["agent_options"] == {"fit_items": 20}
    assert main([*argv, "--agent-option", "fit_items=30"]) == 2
    assert "agent options: {'fit_items': 30} here, {'fit_items': 20}" in capsys.readouterr().err
    assert main([*argv, "--agent-option", "temperature=0.5"]) == 2
    assert "give it as its own argument (--temperature" in capsys.readouterr().err


def test_a_leaderboard_gives_each_agent_the_options_it_takes(tmp_path: Path) -> None:
    from tomgym.eval.leaderboard import options_taken, run_suite

    given = {"timeout": 30, "fit_items": 20, "top_p": 0.9}
    assert options_taken("openai:m@http://h/v1", given) == {"timeout": 30, "top_p": 0.9}
    assert options_taken("heuristic:majority", given) == {"fit_items": 20, "top_p": 0.9}
    assert options_taken("heuristic:reality", given) == {"top_p": 0.9}
    with pytest.raises(ValueError, match="no agent of random, oracle takes the option 'timeout'"):
        run_suite("quick", ["random", "oracle"], tmp_path, agent_options={"timeout": 30})


def test_a_leaderboard_checks_every_local_model_path_before_the_first_agent_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: --agents smollm2,hf:/tmp/nope ran smollm2 for 108 s, then died on the path
    without writing a leaderboard."""
    from tomgym.cli import main

    missing = tmp_path / "nope"
    out = tmp_path / "board"
    argv = ["leaderboard", "--suite", "quick", "--agents", f"random,hf:{missing}", "--n", "1",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    assert f"no model directory at {missing}" in capsys.readouterr().err
    assert not out.exists()  # the random agent never ran
    (tmp_path / "empty").mkdir()
    assert main([*argv[:4], f"random,vllm:{tmp_path / 'empty'}", *argv[5:]]) == 2
    assert "holds no config.json and no .gguf file" in capsys.readouterr().err


def test_an_env_with_only_training_items_is_evaluated_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Said as a note ("using its default items"), though the README promises never to
    evaluate on train silently."""
    import tomgym
    from tomgym.eval.runner import evaluate
    from tomgym.items import ToMItem

    items = [ToMItem(id=f"t{k}", story="S.", question="Q?", answer="yes", answer_type="yes_no",
                     split="train") for k in range(3)]  # fmt: skip
    tomgym.register_tom_env("OnlyTrain-v0", items=items)
    try:
        evaluate("heuristic:yes", ["OnlyTrain-v0"], n=3, out=tmp_path / "x", quiet=True)
    finally:
        tomgym.registry.unregister_tom_env("OnlyTrain-v0")
    err = capsys.readouterr().err
    assert "tomgym: warning: OnlyTrain-v0 has none of the splits 'test', 'val', only train" in err
    assert "which are not held out" in err


def test_check_says_how_many_items_it_checked_of_how_many(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tomgym.cli import main

    assert main(["check", "ToM-HiToM-Original-O4-v0", "--items", "2"]) == 0
    assert "(2 of 120 items; --items N checks more)" in capsys.readouterr().out


def test_a_leaderboards_agent_specs_are_checked_before_any_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """UX red team: "--agents oracle,heuristic:realty" ran every env for the oracle, then
    failed on the typo (with the bundled model first, minutes later)."""
    from tomgym.cli import main

    code = main(["leaderboard", "--suite", "quick", "--agents", "oracle,heuristic:realty",
                 "--n", "2", "--out", str(tmp_path / "board"), "--quiet"])  # fmt: skip
    assert code == 2 and "unknown baseline 'heuristic:realty'" in capsys.readouterr().err
    assert not (tmp_path / "board" / "runs").exists()


def test_eval_says_whether_the_oracle_copied_any_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_root: Path
) -> None:
    """The header said "privileged: sees gold" for an oracle that solved every item with the
    simulator (the leaderboard's "(simulator)"); on OpenToM it does copy the gold (docs audit)."""
    args = ["eval", "--agent", "oracle", "--n", "2", "--quiet"]
    assert run_cli(*args, "--env", "ToM-HiToM-O2-v0", "--out", str(tmp_path / "a")) == 0
    assert "agent: oracle (simulator: no gold copied)\n" in capsys.readouterr().out
    assert run_cli(*args, "--env", "ToM-OpenToM-v0", "--out", str(tmp_path / "b")) == 0
    assert "agent: oracle (privileged: copied the gold on 2 items)\n" in capsys.readouterr().out
