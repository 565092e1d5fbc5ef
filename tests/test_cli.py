"""The command line: list, show, check, oracle."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import tomgym
from tomgym import cli
from tomgym.cli import main
from tomgym.data import DownloadError, set_data_root


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "ToM-HiToM-O4-v0" in out and "procedural" in out and "held-out" in out
    whole_release = next(line for line in out.splitlines() if "ToM-HiToM-Original-v0" in line)
    assert "serves some" in whole_release  # it holds the held-out O4 set
    assert out.rstrip().endswith(cli.LIST_LEGEND)  # the columns explained (user red team)


def test_show_prints_prompt_and_gold(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "ToM-HiToM-O4-v0", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    env = tomgym.make("ToM-HiToM-O4-v0")
    env.reset(seed=0)
    assert env.current_item is not None
    assert f"gold answer: {env.current_item.answer}" in out
    assert "Question: Where does" in out


def test_show_unknown_id_suggests(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "ToM-HiToM-O9-v0"]) == 2
    assert "Did you mean" in capsys.readouterr().err


def test_list_family_is_checked_and_version_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--family", "ToMi"]) == 0  # case aside, a family name lists its envs
    assert "ToM-ToMi-v0" in capsys.readouterr().out
    assert main(["list", "--family", "nope"]) == 2  # it printed an empty table, exit 0
    err = capsys.readouterr().err
    assert "no env of family 'nope'; families: " in err and "hitom" in err
    assert main(["list", "--family", ""]) == 2  # it listed every env, as if not given
    assert "no env of family ''" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("tomgym 0.")


def test_warnings_print_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "items.csv"  # a column named like a field but not mapped: a warning
    path.write_text("story,question,answer,split\nAnn left.,Where is Ann?,out,train\n")
    assert main(["register", str(path), "--id", "CliWarn-v0"]) == 0
    err = capsys.readouterr().err
    assert "tomgym register: warning: " in err and "UserWarning" not in err and ".py:" not in err


def test_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "ToM-HiToM-O1-v0", "--items", "2"]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
    assert main(["check", "ToM-HiToM-O1-v0", "ToM-HiToM-O1-v0", "--items", "1"]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out  # named twice, checked once


def test_data_status_says_a_root_that_is_a_file_is_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data_root_reset: None
) -> None:
    (tmp_path / "notes.txt").write_text("x")
    main(["--data-dir", str(tmp_path / "notes.txt"), "data", "status"])
    assert "; this is a file, not a directory" in capsys.readouterr().out


def test_check_names_an_unknown_id_and_skips_an_uninstalled_release(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An unknown ID failed like a broken env (exit 1, Gymnasium's NameNotFound); FANToM's
    missing file (not in ../shared/data) made every plain `tomgym check` fail."""
    assert main(["check", "ToM-Nope-v0"]) == 2
    assert "No ToM env is registered" in capsys.readouterr().err
    # named, it is not skipped but could not be checked: a failure, said as one (it printed
    # "skip ... 0 failed" and exited 1)
    # A missing file is a set-up mistake, status 2 as for every command (it was 1, as for an
    # env that fails its checks)
    assert main(["check", "ToM-HiToM-O1-v0", "ToM-FANToM-v0", "--items", "2"]) == 2
    out = capsys.readouterr().out
    assert "FAIL ToM-FANToM-v0: not checked: " in out and "fantom_v1.json" in out
    assert "1 passed, 1 failed" in out and "skipped" not in out


def test_check_exits_1_when_an_env_fails_its_checks_even_beside_a_missing_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tomgym import checks

    real = checks.check_tom_env

    def broken(env_id: str, n_items: int = 20) -> checks.CheckReport:
        if env_id == "ToM-HiToM-O1-v0":
            raise RuntimeError("the gold answer scored 0")
        return real(env_id, n_items=n_items)

    monkeypatch.setattr(checks, "check_tom_env", broken)
    assert main(["check", "ToM-HiToM-O1-v0", "ToM-FANToM-v0", "--items", "2"]) == 1
    assert "FAIL ToM-HiToM-O1-v0: RuntimeError: the gold answer scored 0" in capsys.readouterr().out


def test_show_takes_the_prompt_as_a_kwarg(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["show", "ToM-HiToM-O2-v0", "--index", "1"]
    assert main([*argv, "--kwarg", 'prompt={"list_candidates": true}']) == 0
    assert "Possible answers:" in capsys.readouterr().out  # it crashed: prompt given twice
    assert main([*argv, "--prompt", "cot", "--kwarg", "prompt=tomrl"]) == 2
    assert "give the prompt once" in capsys.readouterr().err


def test_oracle_names_every_bad_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"story": "s", "question": "q"}\n{"story": "s", "question": "q", '
                    '"answer": "a"}\nnot json\n')  # fmt: skip
    assert main(["oracle", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tomgym oracle: error:") and "line 1" in err and "line 3" in err
    # UX red team: "KeyError: 'answer'" and "JSONDecodeError: ..." per line, Python's names
    assert "line 1: no answer (its keys: question, story)" in err
    assert "line 3: not a JSON object (Expecting value)" in err and "Error" not in err
    assert not (tmp_path / "bad.disagreements.jsonl").exists()


def test_oracle_reports_agreement_and_writes_disagreements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tomgym.load_items("ToM-HiToM-v0", n=30)
    path = tmp_path / "items.jsonl"
    lines = [{"story": i.story, "question": i.question, "answer": i.answer} for i in items]
    lines[0]["answer"] = "somewhere_else"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert main(["oracle", str(path)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == "agreement: 0.9667 (29/30)"
    bad = (tmp_path / "items.disagreements.jsonl").read_text().splitlines()
    assert len(bad) == 1 and json.loads(bad[0])["gold"] == "somewhere_else"
    assert main(["oracle", str(path)]) == 0  # a rerun says it replaces the file
    assert "note: replacing" in capsys.readouterr().err


def test_oracle_on_the_other_familys_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ToMi file read with the Hi-ToM parser gave 17% agreement and no word about why."""
    items = tomgym.load_items("ToM-ToMi-v0", n=10)
    path = tmp_path / "tomi.jsonl"
    path.write_text("".join(json.dumps({"story": i.story, "question": i.question,
                                        "answer": i.answer}) + "\n" for i in items))  # fmt: skip
    assert main(["oracle", str(path)]) == 0
    assert "is the file tomi's? (--family tomi reads them)" in capsys.readouterr().err


def test_oracle_refuses_a_mode_its_family_lacks_and_an_empty_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Eval red team: `--mode release` on Hi-ToM gave "agreement: 0.0000 (0/600)" and exit 0
    (the reason only in each disagreement record); an empty file "0.0000 (0/0)"; one unread
    story among four was counted a disagreement without a word."""
    items = tomgym.load_items("ToM-HiToM-v0", n=4)
    path = tmp_path / "items.jsonl"
    lines = [{"story": i.story, "question": i.question, "answer": i.answer} for i in items]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["oracle", str(path), "--mode", "release"]) == 2
    assert "--family hitom has the mode(s) rules, not --mode release" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert main(["oracle", str(empty)]) == 2
    assert "holds no lines to check" in capsys.readouterr().err
    lines[1]["question"] = "What colour is the sky?"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["oracle", str(path)]) == 0
    assert "the hitom parser could not read 1 of 4 stories or questions (their reasons" in (
        capsys.readouterr().err
    )


def test_oracle_tells_unread_stories_from_questions_about_what_a_story_never_places(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Oracle red team: two ToMi questions about an agent and an object the story never
    mentions were counted as unread, and the note sent the user to --family hitom, which
    reads nothing of the file; --out naming a folder said 'replacing' before failing."""
    story = (
        "1 Jack entered the closet.\n2 Alex entered the closet.\n3 The sweater is in the "
        "bucket.\n4 Jack moved the sweater to the cupboard.\n5 Alex exited the closet."
    )
    questions = ["Where will Bob look for the sweater?", "Where is the hat really?",
                 "Where will Alex look for the sweater?"]  # fmt: skip
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps({"story": story, "question": q, "answer": "cupboard"})
                            + "\n" for q in questions))  # fmt: skip
    assert main(["oracle", str(path), "--family", "tomi"]) == 0
    err = capsys.readouterr().err
    assert "2 of 3 questions ask where the story never places" in err
    assert "could not read" not in err and "--family hitom" not in err
    (tmp_path / "folder").mkdir()
    assert main(["oracle", str(path), "--out", str(tmp_path / "folder")]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err and "replacing" not in err


def test_oracle_keeps_its_input_reads_answers_as_the_judge_and_names_bad_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Data red team: `--out` naming the input emptied the user's file; golds in another case
    or with an article ("GREEN_DRAWER", "the blue_container") all counted as disagreements; a
    null story, a numeric question or a non-UTF-8 line gave a traceback or a bare codec error."""
    items = tomgym.load_items("ToM-HiToM-v0", n=3)
    lines = [{"story": i.story, "question": i.question, "answer": i.answer} for i in items]
    lines[0]["answer"] = lines[0]["answer"].upper()
    lines[1]["answer"] = "the " + lines[1]["answer"]
    path = tmp_path / "items.jsonl"
    text = "".join(json.dumps(x) + "\n" for x in lines)
    path.write_text("\ufeff" + text, encoding="utf-8")  # a byte-order mark is read past
    assert main(["oracle", str(path), "--out", str(path)]) == 2
    assert "is the input file itself" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == "\ufeff" + text
    assert main(["oracle", str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith("agreement: 1.0000 (3/3)")
    bad = [dict(lines[0], story=None), dict(lines[1], question=7, answer=None)]
    path.write_bytes(
        "".join(json.dumps(x) + "\n" for x in bad).encode() + b'{"story": "caf\xe9"}\n'
    )
    assert main(["oracle", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 1: story is null, not text" in err
    assert "line 2: question is a number, not text; answer is null, not text or a number" in err
    assert "line 3: not UTF-8 text (byte 15)" in err and "Traceback" not in err


@pytest.fixture
def data_root_reset() -> Iterator[None]:
    yield
    set_data_root(None)


def fail_with(exc: BaseException) -> Callable[..., int]:
    def handler(*args: object, **kwargs: object) -> int:
        raise exc

    return handler


@pytest.mark.parametrize(
    "exc",
    [
        FileExistsError(17, "File exists", "afile"),
        NotADirectoryError(20, "Not a directory", "afile/sub"),
        PermissionError(1, "Operation not permitted", "/sys/x"),
        IsADirectoryError(21, "Is a directory", "adir"),
        OSError("nosuchorg/nosuchmodel is not a local folder and is not a valid model identifier"),
        ImportError("the vllm agent needs vLLM: pip install 'tomgym[vllm]'"),
        IndexError("options['index']=600 is out of range 0..599"),
        DownloadError("no network"),
    ],
)
def test_user_errors_print_one_line_not_a_traceback(
    exc: BaseException, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TOMGYM_DEBUG", raising=False)
    monkeypatch.setattr(cli, "cmd_list", fail_with(exc))
    assert main(["list"]) == 2
    assert capsys.readouterr().err == f"tomgym list: error: {exc}\n"


def test_only_a_real_os_error_naming_no_file_is_blamed_on_the_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: `leaderboard runs/nope --out b` said "runs/nope: no such directory
    (writing --out b)", blaming the output for a missing input."""
    monkeypatch.delenv("TOMGYM_DEBUG", raising=False)
    out = tmp_path / "board"
    assert main(["leaderboard", str(tmp_path / "nope"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "nope: no such directory" in err and "writing --out" not in err
    import tomgym.eval.runner

    full = OSError(28, "No space left on device")  # what a full disk raises: no file named
    monkeypatch.setattr(tomgym.eval.runner, "evaluate", fail_with(full))
    argv = ["eval", "--agent", "oracle", "--env", "ToM-HiToM-O1-v0", "--out", str(out)]
    assert main(argv) == 2
    assert f"No space left on device (writing --out {out})" in capsys.readouterr().err


def test_key_errors_are_not_quoted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "cmd_list", fail_with(KeyError("no such key")))
    assert main(["list"]) == 2
    assert capsys.readouterr().err == "tomgym list: error: no such key\n"


def test_debug_shows_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "cmd_list", fail_with(IndexError("deep")))
    with pytest.raises(IndexError, match="deep"):
        main(["--debug", "list"])
    with pytest.raises(IndexError, match="deep"):
        main(["list", "--debug"])
    monkeypatch.setenv("TOMGYM_DEBUG", "1")
    with pytest.raises(IndexError, match="deep"):
        main(["list"])
    assert "TOMGYM_DEBUG=1" in cli.build_parser().format_help()


def test_debug_shows_the_traceback_of_errors_a_command_reports_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: eval, leaderboard, export and train turn their own errors into one line
    before the CLI sees them, so --debug showed no traceback for exactly those."""
    import tomgym.eval.runner
    from tomgym.train.export import ExportError

    monkeypatch.setattr(tomgym.eval.runner, "evaluate", fail_with(RuntimeError("server gone")))
    argv = ["eval", "--agent", "oracle", "--env", "ToM-HiToM-O1-v0", "--out", str(tmp_path)]
    assert main(argv) == 2
    assert "tomgym eval: error: server gone" in capsys.readouterr().err
    with pytest.raises(RuntimeError, match="server gone"):
        main([*argv, "--debug"])
    export = ["export", "--env", "ToM-HiToM-O1-v0", "--n", "1", "--format", "verl", "--out", "-"]
    assert main(export) == 2
    with pytest.raises(ExportError, match="cannot be streamed"):
        main([*export, "--debug"])
    monkeypatch.setenv("TOMGYM_DEBUG", "1")
    with pytest.raises(ExportError, match="cannot be streamed"):
        main(export)


def test_a_genuine_bug_is_not_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "cmd_list", fail_with(AttributeError("oops")))
    with pytest.raises(AttributeError):
        main(["list"])


def test_interrupting_eval_says_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tomgym.eval.runner

    monkeypatch.setattr(tomgym.eval.runner, "evaluate", fail_with(KeyboardInterrupt()))
    argv = ["eval", "--agent", "oracle", "--env", "ToM-HiToM-O1-v0", "--out", str(tmp_path)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip() == "tomgym eval: interrupted; rerun the same command to resume"


def test_real_user_errors_from_the_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TOMGYM_DEBUG", raising=False)
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    oracle = ["eval", "--agent", "oracle", "--env", "ToM-HiToM-O1-v0", "--n", "2", "--out"]
    cases = [
        (oracle + [str(afile)], "afile"),
        (["leaderboard", str(tmp_path / "none"), "--out", str(afile)], "error:"),
        (["export", "--env", "ToM-HiToM-O1-v0", "--n", "2", "--out", str(tmp_path)], ""),
        (["eval", "--agent", "oracle", "--suite", str(tmp_path), "--out", str(tmp_path / "o")], ""),
        (["show", "ToM-HiToM-Original-v0", "--index", "600"], "has 600 items (0..599)"),
        (["show", "ToM-HiToM-Original-v0", "--index", "-1"], "--index -1 is out of range"),
        (["show", "ToM-HiToM-O1-v0", "--index", "-1"], "is procedural"),
    ]
    for argv, expected in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        # the wording of eval's and export's own messages is theirs; here: one line, no traceback
        assert err.startswith(f"tomgym {argv[0]}: error: ") and expected in err, (argv, err)
        assert "Traceback" not in err
    with pytest.raises(SystemExit) as info:  # found by the parser, before any work
        main(oracle + [str(afile / "sub")])
    assert info.value.code == 2 and f"{afile} is a file" in capsys.readouterr().err


def test_data_dir_goes_before_or_after_the_subcommand(
    tmp_path: Path, data_root_reset: None, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for argv, root in [
        (["--data-dir", str(first), "data", "status", "--no-checksums"], first),
        (["data", "status", "--no-checksums", "--data-dir", str(second)], second),
        (["--data-dir", str(first), "data", "status", "--data-dir", str(second)], second),
    ]:
        main(argv)
        assert f"data root: {root} (from" in capsys.readouterr().out
        set_data_root(None)
    args = cli.build_parser().parse_args(["eval", "--agent", "x", "--out", "o", "--data-dir", "d"])
    assert args.data_dir == "d"


@pytest.mark.parametrize("value", ["0", "-3"])
@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "--agent", "oracle", "--env", "E", "--out", "o", "--n"],
        ["eval", "--agent", "oracle", "--env", "E", "--out", "o", "--workers"],
        ["eval", "--agent", "oracle", "--env", "E", "--out", "o", "--batch-size"],
        ["eval", "--agent", "oracle", "--env", "E", "--out", "o", "--max-new-tokens"],
        ["leaderboard", "--n"],
        ["export", "--env", "E", "--out", "o.jsonl", "--n"],
        ["train", "--model", "m", "--epochs"],
        ["audit", "E", "--n"],
        ["audit", "E", "--n-train"],
        ["check", "--items"],
    ],
)
def test_counts_must_be_positive(
    argv: list[str], value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*argv, value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argv[-1]}: must be a positive integer, got {value}" in err


def test_every_int_option_is_a_count_or_known_to_be_signed() -> None:
    signed = {"--seed", "--index"}  # options where 0 and negative numbers can make sense
    loose = [
        f"{parser.prog} {action.option_strings[0]}"
        for parser in cli._subparsers(cli.build_parser())
        for action in parser._actions
        if action.type is int and not signed.intersection(action.option_strings)
    ]
    assert loose == []


def test_register_refuses_an_existing_id_without_naming_a_python_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tomgym.cli import main

    path = tmp_path / "mine.jsonl"
    path.write_text('{"story": "S.", "question": "Q?", "answer": "yes"}\n')
    assert main(["register", str(path), "--id", "ToM-ToMi-v0"]) == 2
    err = capsys.readouterr().err
    assert "ToM-ToMi-v0 is already registered (built in" in err and "overwrite" not in err


def test_a_misspelt_option_is_named_by_its_subcommand_with_the_nearest_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It printed the top-level usage and no hint: 'tomgym: error: unrecognized arguments'."""
    with pytest.raises(SystemExit) as exited:
        main(["show", "ToM-HiToM-O4-v0", "--idx", "1"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: tomgym show")
    assert "tomgym show: error: unrecognized arguments: --idx 1 ('--idx': did you mean" in err


@pytest.mark.parametrize("command", ["eval", "leaderboard", "export", "train"])
def test_an_empty_out_is_refused(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """UX red team: `--out ""` (an unset $OUTDIR) wrote the run into the current directory and
    said `results: /results.jsonl`."""
    args = {"eval": ["--agent", "oracle", "--env", "ToM-HiToM-O4-v0"],
            "leaderboard": ["--suite", "quick"], "export": ["--env", "ToM-HiToM-O4-v0"],
            "train": ["--train-env", "ToM-HiToM-O4-v0"]}[command]  # fmt: skip
    with pytest.raises(SystemExit) as info:
        main([command, *args, "--out", " "])
    assert info.value.code == 2
    assert "argument --out: is empty: give a path" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["eval", "leaderboard", "export", "audit"])
def test_an_out_under_a_file_is_refused_before_any_work(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: an --out that cannot be written was found only when saving, after the run."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("x")
    args = {"eval": ["eval", "--agent", "oracle", "--env", "ToM-HiToM-O4-v0"],
            "leaderboard": ["leaderboard", "--suite", "quick"],
            "export": ["export", "--env", "ToM-HiToM-O4-v0"],
            "audit": ["data", "audit"]}[command]  # fmt: skip
    with pytest.raises(SystemExit) as info:
        main([*args, "--out", str(blocker / "sub" / "out.json")])
    assert info.value.code == 2
    assert f"{blocker} is a file" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere; permissions are not tested")
def test_an_out_in_a_read_only_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(SystemExit):
            main(["data", "audit", "--out", str(locked / "new" / "a.json")])
        assert f"{locked}: permission denied" in capsys.readouterr().err
    finally:
        locked.chmod(0o700)


def test_an_out_that_is_a_dangling_link_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: eval said "cannot create --out dang: File exists", and the leaderboard
    printed its table, then a raw "[Errno 17] File exists"."""
    dangling = tmp_path / "dang"
    dangling.symlink_to(tmp_path / "gone")
    with pytest.raises(SystemExit):
        main(["leaderboard", "--suite", "quick", "--out", str(dangling)])
    assert f"is a link to {tmp_path / 'gone'}, which does not exist" in capsys.readouterr().err


def test_out_expands_a_tilde(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--out=~/x` reaches the program unexpanded (the shell expands only a word-initial ~)."""
    from tomgym.cli_args import output_path

    monkeypatch.setenv("HOME", str(tmp_path))
    assert output_path("~/runs/a") == str(tmp_path / "runs" / "a")


@pytest.mark.parametrize(
    ("pairs", "said"),
    [(["noise=0.1", "noise=0.3"], "--kwarg noise is given twice"), (["=3"], "(no key)"),
     # (training red team: "got '1,2' (str)" with no word of how a list is written)
     (["orders=1,2"], "on the command line a list is written in brackets: --kwarg orders=[1,2]")],
)  # fmt: skip
def test_a_repeated_or_keyless_kwarg_is_refused(
    pairs: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """UX red team: the last of two `--kwarg noise=` won silently; `--kwarg =3` got
    "unexpected keyword argument(s) ['']"."""
    kwargs = [arg for pair in pairs for arg in ("--kwarg", pair)]
    code = main(["eval", "--agent", "oracle", "--env", "ToM-HiToM-O4-v0", "--n", "1",
                 "--out", str(tmp_path / "run"), *kwargs])  # fmt: skip
    assert code == 2 and said in capsys.readouterr().err


def test_show_takes_a_split_and_says_which_it_shows(capsys: pytest.CaptureFixture[str]) -> None:
    """UX red team: `show --index 0` served the train split's item 0 while eval's record 0 is
    the test split's, and show had no --split (eval refuses --kwarg split=)."""
    assert main(["show", "ToM-HiToM-O1-v0", "--index", "0"]) == 0
    captured = capsys.readouterr()
    assert "split: train" in captured.out and "--split test shows its items" in captured.err
    assert main(["show", "ToM-HiToM-O1-v0", "--index", "0", "--split", "test"]) == 0
    captured = capsys.readouterr()
    assert "split: test" in captured.out and "note" not in captured.err
    assert main(["show", "ToM-HiToM-O1-v0", "--index", "0", "--seed", "3"]) == 0
    assert "--index names one" in capsys.readouterr().err
    # Data red team: ToMi-Original's note sent users to --split test, which it refuses (eval
    # asks its val split); ExploreToM's default of every item got no note; a negative --seed
    # ended in Gymnasium's traceback.
    assert main(["show", "ToM-ToMi-Original-v0", "--index", "3"]) == 0
    assert "`tomgym eval` asks the val split" in capsys.readouterr().err
    assert main(["show", "ToM-ExploreToM-v0", "--index", "3"]) == 0
    assert "default split 'all'; `tomgym eval` asks the test split" in capsys.readouterr().err
    assert main(["show", "ToM-HiToM-Original-v0", "--index", "3"]) == 0
    assert "note" not in capsys.readouterr().err  # no splits: eval asks what show shows
    with pytest.raises(SystemExit):
        main(["show", "ToM-HiToM-O4-v0", "--seed", "-3"])
    assert "argument --seed: must be 0 or more, got -3" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
def test_a_write_error_that_names_no_file_is_told_with_the_out_path(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """UX red team: `export --out /dev/full` said only "[Errno 28] No space left on device"."""
    assert main(["export", "--env", "ToM-ToMi-v0", "--n", "2", "--out", "/dev/full"]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "--out /dev/full" in err


def test_gymnasiums_coloured_warnings_reach_a_log_without_escape_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Data red team: `tomgym check` wrote Gymnasium's "[33mWARN: ... out of date[0m" into
    files and pipes."""
    assert main(["check", "ToM-HiToM-O1-Debiased-v0", "--items", "1"]) == 0
    err = capsys.readouterr().err
    assert "WARN: The environment ToM-HiToM-O1-Debiased-v0 is out of date" in err
    assert "\x1b[" not in err


def test_sigterm_is_handled_as_ctrl_c(tmp_path: Path) -> None:
    """Red team: SIGTERM (what timeout, Slurm and docker stop send) ended a command with no
    word and no clean-up: an export left its hidden partial file (57 MB), an evaluation its
    summary unwritten. It now takes the Ctrl-C path, and exits 143."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "x.jsonl"
    argv = [sys.executable, "-m", "tomgym.cli", "export", "--env", "ToM-HiToM-O2-v0",
            "--n", "1000000", "--out", str(out)]  # fmt: skip
    env = {**os.environ, "TOMGYM_NO_PLUGINS": "1"}
    process = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".x.jsonl.*.partial")) and time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143, err
    assert "tomgym export: terminated" in err
    assert list(tmp_path.iterdir()) == []  # no partial file, and no output written
