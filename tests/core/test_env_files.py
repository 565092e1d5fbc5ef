"""Env files: a data file's registration written by ``tomgym register --save`` and made by
``--env-file`` and ``$TOMGYM_ENV_FILES`` in this process and in the processes it starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tomgym
from tomgym import env_files
from tomgym.datafile import DataFileError
from tomgym.env_files import (
    ENV_FILES_VAR,
    EnvFileError,
    read_env_file,
    register_env_file,
    use_env_files,
)
from tomgym.registry import registry_state, restore_registry


@pytest.fixture(autouse=True)
def clean_registry() -> Iterator[None]:
    """Every test starts and ends without env-file envs and $TOMGYM_ENV_FILES (the CLI's
    --env-file sets it; both would outlive the test otherwise)."""
    listed = os.environ.pop(ENV_FILES_VAR, None)
    state = registry_state()
    loaded = dict(env_files._LOADED)
    env_files._LOADED.clear()
    yield
    restore_registry(state)
    os.environ.pop(ENV_FILES_VAR, None)
    if listed is not None:
        os.environ[ENV_FILES_VAR] = listed
    env_files._LOADED.clear()
    env_files._LOADED.update(loaded)


def cli(argv: list[str]) -> int:
    from tomgym.cli import main

    return main(argv)


def small_csv(folder: Path) -> Path:
    """A user's own CSV with its own column names (context/q/gold/options)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mine.csv"
    path.write_text(
        "context,q,gold,options\n"
        '"Ann put the pen in the box. Ann left. Bob moved the pen to the bag.",'
        "Where will Ann look for the pen?,box,box|bag\n"
        '"Cat put the ball in the basket. Cat left. Dan moved the ball to the crate.",'
        "Where is the ball really?,crate,basket|crate\n",
        encoding="utf-8",
    )
    return path


def env_file(folder: Path, **fields: object) -> Path:
    document = {
        "id": "Mine-ToM-v0",
        "data": "mine.csv",
        "columns": {"story": "context", "question": "q", "answer": "gold", "candidates": "options"},
    } | fields
    path = folder / "mine.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_register_save_writes_an_env_file_that_eval_takes(
    tmp_path: Path, data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's path end to end, on the real ExploreToM release as a user's own CSV: validate
    and save, then evaluate and resume in commands that know the env only from its file."""
    saved = tmp_path / "envs" / "explore.json"
    data = data_root / "exploretom" / "explore_tom.csv"
    argv = ["register", str(data), "--id", "MyExplore-v0", "--story", "story_structure"]
    assert cli([*argv, "--answer", "expected_answer", "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    assert f"--env-file {saved}" in out
    written = json.loads(saved.read_text(encoding="utf-8"))
    # the data lies outside the env file's folder: written absolute, so the file may move
    assert written["data"] == os.path.abspath(data)  # as given: a link is not followed
    assert written["columns"] == {
        "story": "story_structure",
        "question": "question",
        "answer": "expected_answer",
    }
    tomgym.unregister_tom_env("MyExplore-v0")  # as in a new process
    out_dir = tmp_path / "run"
    run = ["eval", "--env", "MyExplore-v0", "--agent", "heuristic:first", "--n", "4"]
    assert cli([*run, "--out", str(out_dir)]) == 2
    assert "--env-file" in capsys.readouterr().err  # the unknown ID says how to give it
    assert cli(["--env-file", str(saved), *run, "--out", str(out_dir)]) == 0
    records = (out_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(records) == 4
    assert os.environ[ENV_FILES_VAR] == str(saved.resolve())  # for the workers it starts
    # a resume with the option after the subcommand: nothing asked again
    assert cli([*run, "--out", str(out_dir), "--env-file", str(saved)]) == 0
    assert len((out_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 4


def as_in_a_new_process() -> None:
    """Forget every env file, as a new process started without --env-file would."""
    for done in env_files._LOADED.values():
        for spec in done.specs:
            tomgym.unregister_tom_env(spec.id)
    env_files._LOADED.clear()
    os.environ.pop(ENV_FILES_VAR, None)


def test_a_rerun_or_a_board_without_env_file_registers_the_env_file_the_run_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A resume without --env-file failed on the unknown ID (the run's metadata did not say
    where its env came from): the plan records the env file, and a rerun on the directory,
    or a leaderboard of it, registers it from there, saying so, from where it lies beside the
    run when the project folder moved (user red team); one gone is said too."""
    small_csv(tmp_path)
    saved = env_file(tmp_path)
    out_dir = tmp_path / "run"
    run = ["eval", "--env", "Mine-ToM-v0", "--agent", "heuristic:first", "--n", "2"]
    assert cli(["--env-file", str(saved), *run, "--out", str(out_dir), "--n", "1"]) == 0
    metadata = json.loads((out_dir / "metadata.json").read_text(encoding="utf-8"))
    assert metadata["envs"][0]["env_file"] == str(saved)
    as_in_a_new_process()
    assert cli([*run, "--out", str(out_dir)]) == 0  # resumes, and asks the second item
    err = capsys.readouterr().err
    assert f"registered Mine-ToM-v0 from {saved}, the env file the run in {out_dir}" in err
    assert len((out_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 2
    as_in_a_new_process()
    board = tmp_path / "board"
    assert cli(["leaderboard", str(out_dir), "--out", str(board)]) == 0
    assert "registered Mine-ToM-v0" in capsys.readouterr().err
    assert "could not be made here" not in (board / "leaderboard.md").read_text(encoding="utf-8")
    as_in_a_new_process()
    moved = tmp_path.parent / f"{tmp_path.name}-moved"  # the project folder, run and all
    tmp_path.rename(moved)
    moved_run = moved / "run"
    assert cli([*run, "--out", str(moved_run)]) == 0
    assert f"registered Mine-ToM-v0 from {moved / 'mine.json'}" in capsys.readouterr().err
    as_in_a_new_process()
    (moved / "mine.json").unlink()
    assert cli([*run, "--out", str(moved_run)]) == 2
    err = capsys.readouterr().err
    gone = moved / "mine.json"  # the path the moved run recorded
    assert f"registered Mine-ToM-v0 from the env file {gone}, which cannot be" in err
    assert "--env-file" in err  # and the unknown ID says how to give it


def test_a_relative_data_path_is_read_from_the_env_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small_csv(tmp_path / "project")
    path = env_file(tmp_path / "project", description="Two questions of mine.")
    monkeypatch.chdir(tmp_path)  # not the env file's folder
    (spec,) = register_env_file("project/mine.json")
    assert (spec.id, spec.size, spec.description) == ("Mine-ToM-v0", 2, "Two questions of mine.")
    env = tomgym.make("Mine-ToM-v0")
    _, info = env.reset(options={"index": 0})
    assert info["candidates"] == ["box", "bag"]
    # registering it again (a second --env-file, the variable too) reads nothing again
    assert [s.id for s in register_env_file(path)] == ["Mine-ToM-v0"]


def test_register_save_keeps_a_data_path_in_its_folder_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = small_csv(tmp_path / "project")
    monkeypatch.chdir(tmp_path)
    argv = ["register", str(data), "--id", "Mine-ToM-v0", "--story", "context", "--question"]
    argv += ["q", "--answer", "gold", "--candidates", "options", "--usage", "eval-only"]
    assert cli([*argv, "--save", "project/mine.json"]) == 0
    (entry,) = read_env_file(tmp_path / "project" / "mine.json")
    assert (entry.data, entry.usage) == ("mine.csv", "eval-only")
    moved = tmp_path / "moved"
    (tmp_path / "project").rename(moved)  # the env file and its data move together
    tomgym.unregister_tom_env("Mine-ToM-v0")
    (spec,) = register_env_file(moved / "mine.json")
    assert spec.usage == "eval-only" and spec.size == 2


def test_every_process_started_with_the_variable_makes_the_env(tmp_path: Path) -> None:
    """Another process (a reward worker, a Ray actor) knows the env from $TOMGYM_ENV_FILES; a
    bad env file beside it is logged, naming it, and the good one still registers."""
    small_csv(tmp_path)
    good = env_file(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": "Bad-ToM-v0", "data": "mine.csv", "colums": {}}', encoding="utf-8")
    code = (
        "import gymnasium as gym, tomgym\n"
        "env = gym.make('Mine-ToM-v0')\n"
        "obs, info = env.reset(options={'index': 1})\n"
        "print(info['item_id'], env.step('<answer>crate</answer>')[1])\n"
    )
    listed = os.pathsep.join([str(bad), str(good)])
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=os.environ | {ENV_FILES_VAR: listed, "TOMGYM_NO_PLUGINS": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Mine-ToM-v0-3", "1.0"]
    assert f"{bad}" in done.stderr and "did you mean 'columns'" in done.stderr


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"id": "X-v0", "data": "mine.csv", "colums": {}}', "colums: is not a field"),
        ('{"id": "X-v0", "data": "mine.csv", "columns": {"stroy": "s"}}', "did you mean 'story'"),
        ('{"id": "X-v0", "data": "mine.csv", "usage": "eval"}', "usage: Input should be"),
        ('{"id": "X-v0", "data": "mine.csv", "tomgym_env_file": 2}', "tomgym_env_file"),
        ('{"id": "X-v0"}', "data: Field required"),
        ('{"id": "X-v0", "data": " "}', "data: Value error, is empty"),
        ('{"id": "X-v0", "data": "mine.csv",}', "not JSON (line 1, column 35"),
        ('["X-v0"]', "an env file is a JSON object"),
        ("[]", "an env file is a JSON object"),
        (
            '[{"id": "X-v0", "data": "a.csv"}, {"id": "X-v0", "data": "b.csv"}]',
            "names X-v0 more than once",
        ),
        ('[{"id": "X-v0", "data": "a.csv"}, {"id": "Y-v0"}]', "[1] (Y-v0).data: Field required"),
        ('[{"id": "X-v0", "data": "a.csv"}, {"data": "b.csv"}]', "[1].id: Field required"),
        (
            '[{"id": "X-v0", "data": "a.csv", "held_out_from": ["In-v0"]}]',
            "[0] (X-v0): held_out_from names ['In-v0'], the envs this one is held out from, but "
            'held_out is false: add "held_out": true',
        ),
        ('{"id": "X-v0", "data": "a.csv", "kwargs": [1]}', "kwargs: Input should be"),
    ],
)
def test_a_bad_env_file_is_refused_naming_the_file_and_field(
    tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "mine.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(EnvFileError) as caught:
        register_env_file(path)
    assert str(path) in str(caught.value) and said in str(caught.value)


def test_a_missing_data_file_or_a_taken_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EnvFileError, match="no such file"):
        register_env_file(tmp_path / "none.json")
    path = env_file(tmp_path)
    with pytest.raises(EnvFileError, match=r"data 'mine.csv': no such file \(.*read from the"):
        register_env_file(path)
    small_csv(tmp_path)
    built_in = env_file(tmp_path, id="ToM-ToMi-v0")
    with pytest.raises(EnvFileError, match="ToM-ToMi-v0: the ID is already registered"):
        register_env_file(built_in)
    first = env_file(tmp_path)
    register_env_file(first)
    second = tmp_path / "again.json"
    second.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(EnvFileError, match=f"already registered by the env file {first}"):
        register_env_file(second)


def test_a_bad_row_names_the_env_file_and_nothing_of_it_registers(tmp_path: Path) -> None:
    small_csv(tmp_path)
    (tmp_path / "worse.csv").write_text("context,q,gold\n,Where?,box\n", encoding="utf-8")
    columns = {"story": "context", "question": "q", "answer": "gold"}
    entries = [
        {"id": "Good-ToM-v0", "data": "mine.csv", "columns": columns},
        {"id": "Worse-ToM-v0", "data": "worse.csv", "columns": columns},
    ]
    path = tmp_path / "both.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    with pytest.raises(DataFileError) as caught:
        register_env_file(path)
    assert f"env file {path}: Worse-ToM-v0" in str(caught.value)
    assert "line 2: field 'story'" in str(caught.value)
    ids = {spec.id for spec in tomgym.list_envs()}
    assert "Good-ToM-v0" not in ids and "Worse-ToM-v0" not in ids  # all or none


def test_use_env_files_hands_them_to_started_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tomgym.eval.distributed import worker_env
    from tomgym.train.openrlhf_cmd import job_runtime_env

    small_csv(tmp_path)
    path = env_file(tmp_path)
    monkeypatch.delenv("TOMGYM_DATA")
    monkeypatch.chdir(tmp_path)
    use_env_files(["mine.json", "mine.json"])
    assert os.environ[ENV_FILES_VAR] == str(path)  # absolute, once
    assert worker_env()[ENV_FILES_VAR] == str(path)  # Ray eval workers
    (runtime,) = job_runtime_env()  # a training job submitted to a cluster
    assert json.loads(runtime.removeprefix("--runtime-env-json=")) == {
        "env_vars": {ENV_FILES_VAR: str(path)}
    }


def test_an_env_file_env_is_no_process_only_env(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tomgym.train.export import warn_process_only

    small_csv(tmp_path)
    register_env_file(env_file(tmp_path))
    warn_process_only(["Mine-ToM-v0"])
    assert capsys.readouterr().err == ""
    tomgym.register_tom_env(
        "Script-ToM-v0", items=[tomgym.make("Mine-ToM-v0").unwrapped.source.item(0)]
    )
    warn_process_only(["Script-ToM-v0"])
    assert "registered in this process only" in capsys.readouterr().err


@pytest.mark.slow  # a local ray.init takes 15-20 s
def test_ray_workers_make_an_env_file_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray eval workers (other processes) make the env each batch is scored in: they know an
    env-file env from the variable --env-file sets before Ray starts."""
    ray = pytest.importorskip("ray", reason="ray is optional (pip install 'tomgym[train]')")
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")  # a Ray of its own, as in test_distributed
    small_csv(tmp_path)
    path = env_file(tmp_path)
    out = tmp_path / "run"
    argv = ["eval", "--env-file", str(path), "--env", "Mine-ToM-v0", "--agent", "oracle"]
    try:
        argv += ["--n", "2", "--batch-size", "1", "--workers", "2", "--out", str(out)]
        assert cli(argv) == 0
    finally:
        ray.shutdown()
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["item_id"] for r in rows) == ["Mine-ToM-v0-2", "Mine-ToM-v0-3"]
    assert [r["correct"] for r in rows] == [True, True]


def test_a_suite_file_brings_its_env_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A leaderboard over one's own data beside a built-in env, from the suite file alone (its
    env files relative to it, not to the working folder)."""
    project = tmp_path / "project"
    small_csv(project)
    env_file(project)
    suite = {
        "name": "mine",
        "n": 2,
        "split": None,
        "env_files": ["mine.json"],
        "envs": [{"id": "Mine-ToM-v0", "label": "mine"}, {"id": "ToM-HiToM-O1-v0"}],
    }
    (project / "suite.json").write_text(json.dumps(suite), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    argv = ["leaderboard", "--suite", "project/suite.json", "--agents", "oracle,random"]
    assert cli([*argv, "--out", "board", "--quiet"]) == 0
    board = (tmp_path / "board" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| mine | HiToM-O1 |" in board  # the suite's label heads its column
    rows = (tmp_path / "board" / "runs" / "oracle" / "results.jsonl").read_text().splitlines()
    assert sum('"env_id":"Mine-ToM-v0"' in r for r in rows) == 2
    assert os.environ[ENV_FILES_VAR] == str(project / "mine.json")

    tomgym.unregister_tom_env("Mine-ToM-v0")
    env_files._LOADED.clear()
    (project / "suite.json").write_text(
        json.dumps(suite | {"env_files": ["elsewhere.json"]}), encoding="utf-8"
    )
    assert cli([*argv, "--out", "board2"]) == 2
    err = capsys.readouterr().err
    assert "project/suite.json: env_files: env file" in err and "elsewhere.json" in err


def register_argv(data: Path) -> list[str]:
    argv = ["register", str(data), "--id", "Mine-ToM-v0", "--story", "context", "--question"]
    return [*argv, "q", "--answer", "gold", "--candidates", "options"]


def test_register_save_writes_the_env_file_when_the_reader_leaves_early(tmp_path: Path) -> None:
    """User red team: `tomgym register ... --save F.json | head -1` wrote F.json 3 times in 5:
    the broken pipe stopped the command while it printed the spec, before it saved."""
    data = small_csv(tmp_path)
    saved = tmp_path / "mine.json"
    command = [sys.executable, "-m", "tomgym.cli", *register_argv(data), "--show", "2"]
    with subprocess.Popen(
        [*command, "--save", str(saved)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=os.environ | {"TOMGYM_NO_PLUGINS": "1"},
    ) as reader:
        assert reader.stdout is not None
        reader.stdout.readline()  # `| head -1`
        reader.stdout.close()
        reader.wait(timeout=120)
    assert read_env_file(saved)[0].id == "Mine-ToM-v0"


def test_register_save_never_overwrites_what_is_not_this_envs_env_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: --save onto the data file turned the CSV into JSON, and a hand-written env
    file of several envs was replaced by one."""
    data = small_csv(tmp_path)
    before = data.read_text(encoding="utf-8")
    assert cli([*register_argv(data), "--save", str(data)]) == 2
    assert "ending in .json" in capsys.readouterr().err
    assert data.read_text(encoding="utf-8") == before
    several = tmp_path / "several.json"
    several.write_text('[{"id": "A-v0", "data": "a.csv"}, {"id": "B-v0", "data": "b.csv"}]')
    assert cli([*register_argv(data), "--save", str(several)]) == 2
    assert "is not the env file of Mine-ToM-v0 alone" in capsys.readouterr().err
    assert "B-v0" in several.read_text()
    assert cli([*register_argv(data), "--save", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    broken = tmp_path / "broken.json"  # a hand edit gone wrong: said why, and kept
    broken.write_text('{"id": "Mine-ToM-v0", "data": "mine.csv",', encoding="utf-8")
    assert cli([*register_argv(data), "--save", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "is not a valid env file" in err and "not JSON (line 1" in err
    assert broken.read_text(encoding="utf-8").endswith('"mine.csv",')
    # this env's own env file may be rewritten (an update), registered from it or not
    own = tmp_path / "own.json"
    assert cli([*register_argv(data), "--save", str(own)]) == 0
    tomgym.unregister_tom_env("Mine-ToM-v0")
    argv = ["--env-file", str(own), *register_argv(data), "--usage", "eval-only"]
    assert cli([*argv, "--save", str(own)]) == 0
    assert read_env_file(own)[0].usage == "eval-only"
    other = tmp_path / "other.json"
    assert cli([*argv, "--save", str(other)]) == 2  # the ID is the first env file's
    assert f"already registered by the env file {own}" in capsys.readouterr().err


def test_register_save_keeps_a_linked_data_file_as_given(tmp_path: Path) -> None:
    """Red team: latest.csv -> v1.csv was saved as v1.csv, so relinking it changed nothing."""
    data = small_csv(tmp_path)
    link = tmp_path / "latest.csv"
    link.symlink_to(data.name)
    assert cli([*register_argv(link), "--save", str(tmp_path / "mine.json")]) == 0
    assert read_env_file(tmp_path / "mine.json")[0].data == "latest.csv"


def test_a_path_holding_the_variables_separator_is_refused_up_front(tmp_path: Path) -> None:
    """Red team: a worker split "col:on/env.json" at the colon and never knew the env."""
    folder = tmp_path / f"col{os.pathsep}on"
    small_csv(folder)
    path = env_file(folder)
    with pytest.raises(EnvFileError, match="separates the paths of \\$TOMGYM_ENV_FILES"):
        use_env_files([str(path)])
    assert ENV_FILES_VAR not in os.environ
    assert "Mine-ToM-v0" not in {spec.id for spec in tomgym.list_envs()}


def test_an_edited_or_removed_env_file_env_registers_again(tmp_path: Path) -> None:
    """Red team (a notebook): an edited env file kept its old envs, and one whose env was
    unregistered gave back nothing."""
    small_csv(tmp_path)
    path = env_file(tmp_path)
    (first,) = register_env_file(path)
    assert env_files.env_file_of("Mine-ToM-v0") == path
    env_file(tmp_path, id="Mine-ToM-v1")
    os.utime(path, ns=(1, 1))  # an edit within the clock's tick still counts
    (second,) = register_env_file(path)
    ids = {spec.id for spec in tomgym.list_envs()}
    assert second.id == "Mine-ToM-v1" and "Mine-ToM-v0" not in ids
    tomgym.unregister_tom_env("Mine-ToM-v1")
    assert env_files.env_file_of("Mine-ToM-v1") is None
    assert [s.id for s in register_env_file(path)] == ["Mine-ToM-v1"]
    assert first is not second


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"id": "My ToM-v0"}, "env file {path}: My ToM-v0: "),
        ({"id": "my:Env-v0"}, "env file {path}: my:Env-v0: "),
        ({"data": "mine.txt"}, "env file {path}: Mine-ToM-v0: "),
        ({"columns": {"story": "context", "question": "q", "order": "q"}}, "Mine-ToM-v0: "),
        ({"held_out": "yes"}, "held_out: Input should be a valid boolean"),
        (
            {"kwargs": {"rewrd": "lenient"}},
            "env file {path}: Mine-ToM-v0: kwargs ['rewrd'] are not arguments of an env of items",
        ),
    ],
)
def test_every_error_of_an_env_names_the_env_file_and_the_env(
    tmp_path: Path, fields: dict[str, object], said: str
) -> None:
    small_csv(tmp_path)
    (tmp_path / "mine.txt").write_text("x", encoding="utf-8")
    path = env_file(tmp_path, **fields)
    with pytest.raises(ValueError) as caught:
        register_env_file(path)
    assert said.format(path=path) in str(caught.value)


def test_an_editors_byte_order_mark_is_read(tmp_path: Path) -> None:
    small_csv(tmp_path)
    path = env_file(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert [s.id for s in register_env_file(path)] == ["Mine-ToM-v0"]


def test_an_update_keeps_the_settings_it_is_not_given_and_says_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: re-saving an eval-only env file without --usage made it trainable (and
    dropped its family, held_out and description)."""
    data = small_csv(tmp_path)
    path = env_file(
        tmp_path, usage="eval-only", held_out=True, family="mine", description="licensed"
    )
    assert cli(["--env-file", str(path), *register_argv(data), "--save", str(path)]) == 0
    (kept,) = read_env_file(path)
    assert (kept.usage, kept.held_out, kept.family, kept.description) == (
        "eval-only",
        True,
        "mine",
        "licensed",
    )
    assert f"updating {path}: nothing changed" in capsys.readouterr().out
    tomgym.unregister_tom_env("Mine-ToM-v0")
    argv = [*register_argv(data), "--usage", "train", "--no-held-out", "--save", str(path)]
    assert cli(argv) == 0
    assert "usage: 'eval-only' -> 'train'; held_out: True -> False" in capsys.readouterr().out
    (changed,) = read_env_file(path)
    assert (changed.usage, changed.held_out, changed.family) == ("train", False, "mine")


def test_an_edited_data_file_registers_again(tmp_path: Path) -> None:
    """Red team (a notebook): a row added to the data file was not seen, only the env file's
    own changes were."""
    data = small_csv(tmp_path)
    path = env_file(tmp_path)
    assert register_env_file(path)[0].size == 2
    with data.open("a", encoding="utf-8") as out:
        out.write('"Eve put the cup in the tub. Eve left.",Where is the cup?,tub,tub|sink\n')
    assert register_env_file(path)[0].size == 3


def test_the_variable_is_rewritten_with_absolute_paths_and_links_are_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team: a relative entry already in the variable stayed relative (a worker in
    another folder missed it); two links to one env file served the first link's data."""
    env_file(tmp_path).rename(tmp_path / "shared.json")  # data: mine.csv beside each link
    for name, rows in (("one", 1), ("two", 2)):
        folder = tmp_path / name
        small_csv(folder)
        lines = (folder / "mine.csv").read_text(encoding="utf-8").splitlines()
        (folder / "mine.csv").write_text("\n".join(lines[: rows + 1]) + "\n", encoding="utf-8")
        (folder / "mine.json").symlink_to(tmp_path / "shared.json")
    monkeypatch.chdir(tmp_path)
    os.environ[ENV_FILES_VAR] = "one/mine.json"
    (spec,) = use_env_files(["one/mine.json"])
    assert spec.size == 1
    assert os.environ[ENV_FILES_VAR] == str(tmp_path / "one" / "mine.json")
    with pytest.raises(EnvFileError, match="already registered by the env file"):
        use_env_files(["two/mine.json"])  # the same ID from other data: not the first's
    with pytest.raises(EnvFileError, match="the path is empty"):
        use_env_files([""])


def test_an_env_file_says_what_its_env_is_held_out_from_and_its_default_kwargs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A user's held-out env names its in-distribution env (as the built-in held-out IDs do)
    and its default kwargs, in the env file, so every process makes the same env."""
    data = small_csv(tmp_path)
    path = tmp_path / "held.json"
    extra = ["--held-out-from", "Mine-In-v0", "--kwarg", "reward=lenient", "--save", str(path)]
    assert cli([*register_argv(data), *extra]) == 0
    (entry,) = read_env_file(path)
    assert (entry.held_out, entry.held_out_from, entry.kwargs) == (
        True,
        ("Mine-In-v0",),
        {"reward": "lenient"},
    )
    tomgym.unregister_tom_env("Mine-ToM-v0")
    env_files._LOADED.clear()
    (spec,) = register_env_file(path)
    assert spec.held_out and spec.held_out_from == ("Mine-In-v0",)
    assert tomgym.make("Mine-ToM-v0").unwrapped.reward_spec.name == "lenient"
    # an update without the options keeps them; one that contradicts them is refused
    assert cli(["--env-file", str(path), *register_argv(data), "--save", str(path)]) == 0
    assert f"updating {path}: nothing changed" in capsys.readouterr().out
    tomgym.unregister_tom_env("Mine-ToM-v0")
    assert cli([*register_argv(data), "--no-held-out", "--save", str(path)]) == 2
    assert "--no-held-out, but the env is held out from Mine-In-v0" in capsys.readouterr().err
    # an env file without them is written as before: no empty fields
    plain = tmp_path / "plain.json"
    if any(spec.id == "Mine-ToM-v0" for spec in tomgym.list_envs()):
        tomgym.unregister_tom_env("Mine-ToM-v0")
    assert cli([*register_argv(data), "--save", str(plain)]) == 0
    assert not {"held_out_from", "kwargs"} & set(json.loads(plain.read_text(encoding="utf-8")))
