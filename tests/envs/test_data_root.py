"""The data root, the release-file table, the missing-file message and the offline download path."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tomgym import data
from tomgym.data import (
    DownloadError,
    MissingDataError,
    data_root,
    data_status,
    fetch_dataset,
    require_file,
    set_data_root,
)


@pytest.fixture(autouse=True)
def _reset_override():
    yield
    set_data_root(None)


def test_root_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv("TOMGYM_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert data_root() == tmp_path / "cache" / "tomgym" / "data"
    monkeypatch.setenv("TOMGYM_DATA", str(tmp_path / "env"))
    assert data_root() == tmp_path / "env"
    set_data_root(tmp_path / "set")
    assert data_root() == tmp_path / "set"
    set_data_root(None)
    assert data_root() == tmp_path / "env"


def test_default_without_xdg(monkeypatch):
    monkeypatch.delenv("TOMGYM_DATA", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert data_root() == Path.home() / ".cache" / "tomgym" / "data"


def test_require_file_finds_the_real_release(data_root):
    assert require_file("ToM-HiToM-Original-v0", "hitom", "hitom/Hi-ToM_data.json").is_file()


def test_missing_file_message_says_what_where_and_how(monkeypatch, tmp_path):
    monkeypatch.setenv("TOMGYM_DATA", str(tmp_path))
    with pytest.raises(MissingDataError) as err:
        require_file("ToM-OpenToM-v0", "opentom", "opentom/attitude.json")
    msg = str(err.value)
    assert isinstance(err.value, FileNotFoundError)
    for part in (
        "ToM-OpenToM-v0",
        "opentom/attitude.json",
        str(tmp_path / "opentom" / "attitude.json"),
        "$TOMGYM_DATA",
        "huggingface.co/datasets/SeacowX/OpenToM",
        "TOMGYM_DATA=",
        "--data-dir",
    ):
        assert part in msg, part
    set_data_root(tmp_path / "x")
    with pytest.raises(MissingDataError, match=r"set_data_root\(\)"):
        require_file("ToM-FANToM-v0", "fantom", "fantom/fantom_v1.json")


def test_every_dataset_says_where_the_authors_publish_it():
    homes = {name: d.homepage for name, d in data.DATASETS.items()}
    assert "github.com/ying-hui-he/Hi-ToM_dataset" in homes["hitom"]
    assert "github.com/facebookresearch/ToMi" in homes["tomi"]
    assert "facebook/ExploreToM" in homes["exploretom"]
    assert "SeacowX/OpenToM" in homes["opentom"]
    assert "github.com/skywalker023/fantom" in homes["fantom"]
    assert data.DATASETS["opentom"].eval_only and data.DATASETS["fantom"].eval_only


def test_data_status_on_the_real_root(data_root):
    status = {s.relpath: s for s in data_status(data_root)}
    assert set(status) == {f.relpath for f in data.RELEASE_FILES}
    hitom = status["hitom/Hi-ToM_data.json"]
    assert hitom.present and hitom.expected_records == 1200 and hitom.checksum_ok
    assert "ToM-HiToM-Original-v0" in hitom.envs
    assert status["exploretom/explore_tom.csv"].expected_records == 13309
    assert status["tomi/clever_hans/train.txt"].expected_records == 5994
    assert not status["fantom/fantom_v1.json"].present
    assert all(s.checksum_ok for s in status.values() if s.present)


def test_fetch_fails_fast_offline(tmp_path):
    start = time.monotonic()
    # A closed port on localhost: refused at once, whatever the network.
    with pytest.raises(DownloadError) as err:
        fetch_dataset("hitom", tmp_path, timeout=2, base_url="http://127.0.0.1:9/")
    assert time.monotonic() - start < 5
    assert str(tmp_path / "hitom" / "Hi-ToM_data.json") in str(err.value)
    assert "github.com/ying-hui-he/Hi-ToM_dataset" in str(err.value)
    assert not (tmp_path / "hitom" / "Hi-ToM_data.json").exists()


def test_fetch_without_url_says_what_to_put_where(tmp_path):
    with pytest.raises(DownloadError, match="explore_tom.csv"):
        fetch_dataset("exploretom", tmp_path, timeout=1)
    with pytest.raises(ValueError, match="unknown dataset"):
        fetch_dataset("nope", tmp_path)


@pytest.mark.parametrize(
    ("relpath", "content", "env_id", "said"),
    [("exploretom/explore_tom.csv", "", "ToM-ExploreToM-v0", "holds no records"),
     ("hitom/Hi-ToM_data.json", '{"data": []}', "ToM-HiToM-Original-v0", "holds no records"),
     ("hitom/Hi-ToM_data.json", "[]", "ToM-HiToM-Original-v0", "holds no 'data' list"),
     ("hitom/Hi-ToM_data.json", '{"data": [{"story', "ToM-HiToM-Original-v0",
      "is not valid JSON (Unterminated string")],
)  # fmt: skip
def test_a_damaged_release_file_is_named_with_what_to_do(
    tmp_path: Path, relpath: str, content: str, env_id: str, said: str
) -> None:
    """UX red team: an empty ExploreToM CSV or a Hi-ToM file of {"data": []} gave a complete
    0-item evaluation with exit 0, and a truncated file the bare "Expecting value: line 1
    column 1 (char 0)" naming no file."""
    import tomgym
    from tomgym.data import DamagedDataError

    (tmp_path / relpath).parent.mkdir(parents=True)
    (tmp_path / relpath).write_text(content)
    set_data_root(tmp_path)
    with pytest.raises(DamagedDataError) as info:
        tomgym.make(env_id)
    message = str(info.value)
    assert str(tmp_path / relpath) in message and said in message
    assert "tomgym data status" in message
    assert isinstance(info.value, MissingDataError)  # --skip-missing leaves it out too


@pytest.mark.parametrize("kept_lines", [1000, 0])
def test_a_truncated_tomi_split_is_damaged_and_eval_never_serves_another(
    tmp_path: Path, data_root: Path, kept_lines: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Eval red team: a truncated (or empty) ToMi val.txt raised a plain ItemError, which the
    eval took for "no such split": `eval --split val` scored train items and exited 0."""
    import tomgym
    from tomgym.cli import main
    from tomgym.data import DamagedDataError

    source, copy = data_root / "tomi" / "clever_hans", tmp_path / "tomi" / "clever_hans"
    copy.mkdir(parents=True)
    for name in ("train.txt", "train.trace", "val.trace"):
        (copy / name).write_bytes((source / name).read_bytes())
    val = (source / "val.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    (copy / "val.txt").write_text("".join(val[:kept_lines]), encoding="utf-8")
    set_data_root(tmp_path)
    with pytest.raises(DamagedDataError, match="val.txt and val.trace disagree"):
        tomgym.make("ToM-ToMi-Original-v0", split="val")
    out = tmp_path / "run"
    argv = ["eval", "--agent", "random", "--env", "ToM-ToMi-Original-v0", "--split", "val",
            "--n", "3", "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    assert "val.txt and val.trace disagree" in capsys.readouterr().err
    assert not (out / "results.jsonl").exists()


def test_a_root_set_in_code_reaches_spawned_vector_env_workers(monkeypatch, data_root):
    """Red team: after set_data_root(...), an async make_vec with spawned workers (macOS's
    default, Ray's) read the default root in each worker; the main process saw only
    "Connection reset by peer"."""
    import gymnasium as gym

    import tomgym  # noqa: F401 (registers the envs)

    monkeypatch.delenv("TOMGYM_DATA")
    set_data_root(data_root)
    envs = gym.make_vec("ToM-HiToM-Original-O1-v0", num_envs=2, vectorization_mode="async",
                        vector_kwargs={"context": "spawn"})  # fmt: skip
    try:
        observations, _ = envs.reset(seed=0)
        assert len(observations) == 2 and all(len(o) > 100 for o in observations)  # stories
    finally:
        envs.close()
    set_data_root(None)
    assert "TOMGYM_DATA" not in os.environ  # put back as it was: unset


def test_putting_the_root_back_leaves_a_variable_set_since_alone(monkeypatch, tmp_path):
    monkeypatch.setenv("TOMGYM_DATA", str(tmp_path / "env"))
    set_data_root(tmp_path / "set")
    assert data_root() == tmp_path / "set"
    assert os.environ["TOMGYM_DATA"] == str(tmp_path / "set")
    set_data_root(None)
    assert os.environ["TOMGYM_DATA"] == str(tmp_path / "env")
    set_data_root(tmp_path / "set")
    os.environ["TOMGYM_DATA"] = str(tmp_path / "mine")  # the user's own, after ours
    set_data_root(None)
    assert os.environ["TOMGYM_DATA"] == str(tmp_path / "mine")


def test_one_opentom_genre_is_served_without_another_genres_file(
    tmp_path: Path, data_root: Path
) -> None:
    """Data red team: with multihop_so.json missing, every OpenToM env (attitude too) failed
    with a bare "[Errno 2] No such file", though `tomgym data status` said only the full and
    multihop envs need it."""
    import tomgym

    copy = tmp_path / "opentom"
    copy.mkdir()
    for path in (data_root / "opentom").iterdir():
        if path.name != "multihop_so.json":
            (copy / path.name).symlink_to(path.resolve())
    set_data_root(tmp_path)
    env = tomgym.make("ToM-OpenToM-Attitude-v0")
    assert env.unwrapped.size == 596
    with pytest.raises(MissingDataError, match="opentom/multihop_so.json"):
        tomgym.make("ToM-OpenToM-Multihop-v0")


def test_a_release_without_one_order_or_copy_is_damaged_not_an_env_of_no_items(
    tmp_path: Path, data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Data red team: a Hi-ToM file without its order-4 records made ToM-HiToM-Original-O4-v0
    an env of 0 items ("is procedural", "high <= 0", an eval of 0/0 with exit 0), and one
    without its VP records was said to hold "no records"; `tomgym check` skipped a damaged
    release as "not installed" and exited 0."""
    import json

    import tomgym
    from tomgym.cli import main
    from tomgym.data import DamagedDataError

    release = json.loads((data_root / "hitom" / "Hi-ToM_data.json").read_text(encoding="utf-8"))
    release["data"] = [
        r for r in release["data"] if r["question_order"] != 4 and r["prompting_type"] == "CoTP"
    ]
    (tmp_path / "hitom").mkdir()
    (tmp_path / "hitom" / "Hi-ToM_data.json").write_text(json.dumps(release), encoding="utf-8")
    set_data_root(tmp_path)
    assert tomgym.make("ToM-HiToM-Original-O3-v0").unwrapped.size == 120
    with pytest.raises(DamagedDataError, match="holds no order-4 CoTP records"):
        tomgym.make("ToM-HiToM-Original-O4-v0")
    with pytest.raises(DamagedDataError, match="holds no VP records .* among its 480"):
        tomgym.make("ToM-HiToM-Original-MC-v0")
    assert main(["check", "--items", "1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL ToM-HiToM-Original-O4-v0: " in out and "FAIL ToM-HiToM-Original-MC-v0: " in out
    assert "skip ToM-HiToM-Original" not in out


def _copy_release(data_root: Path, tmp_path: Path, dataset: str, changed: dict[str, bytes]) -> None:
    """``dataset``'s release under ``tmp_path``: the files of ``changed`` with those bytes, the
    rest linked to the real release."""
    for path in (data_root / dataset).rglob("*"):
        if path.is_file():
            rel = path.relative_to(data_root)
            target = tmp_path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if str(rel) in changed:
                target.write_bytes(changed[str(rel)])
            else:
                target.symlink_to(path.resolve())


@pytest.mark.parametrize(
    ("env_id", "relpath", "edit", "said"),
    [
        ("ToM-ToMi-Original-v0", "tomi/clever_hans/train.txt",
         lambda text: text.replace("Oliver", "Oliv\udce9r", 1),
         "train.txt is not UTF-8 text (line"),
        ("ToM-ToMi-Original-v0", "tomi/clever_hans/train.trace",
         lambda text: text.replace("first_order", "weird_order", 1),
         "train.trace line 2: unknown ToMi question type"),
        ("ToM-ExploreToM-v0", "exploretom/explore_tom.csv",
         lambda text: text.replace("expected_answer", "answer", 1),
         "explore_tom.csv has no column(s) expected_answer (its header: story_structure"),
        ("ToM-OpenToM-Attitude-v0", "opentom/meta_data.json",
         lambda text: text.replace('"narrative"', '"narration"', 1),
         "meta_data.json story"),
    ],
)  # fmt: skip
def test_a_damaged_record_or_file_is_blamed_on_its_own_file_and_place(
    tmp_path: Path, data_root: Path, env_id: str, relpath: str, edit: Any, said: str
) -> None:
    """Data red team: a non-UTF-8 ToMi or ExploreToM file gave a bare codec error naming no
    file; a missing CSV column a bare "expected_answer"; an unknown type in a ToMi trace was
    blamed on the question file; a story without its narrative on a question file."""
    import tomgym
    from tomgym.items import ItemError

    # surrogateescape writes the lone surrogate "\udce9" as the Latin-1 byte 0xE9
    raw = edit((data_root / relpath).read_text(encoding="utf-8")).encode("utf-8", "surrogateescape")
    _copy_release(data_root, tmp_path, relpath.split("/")[0], {relpath: raw})
    set_data_root(tmp_path)
    with pytest.raises((ItemError, MissingDataError)) as info:
        tomgym.make(env_id)
    assert said in str(info.value) and str(tmp_path) in str(info.value)


def test_a_fantom_list_gold_given_as_one_string_is_refused() -> None:
    """Data red team: "correct_answer": "Ann" was served as the names A, n, n."""
    from tomgym.envs.fantom import _names

    assert _names(["Ann", "Bob"]) == ["Ann", "Bob"]
    with pytest.raises(ValueError, match="must be a list of names, got 'Ann'"):
        _names("Ann")
