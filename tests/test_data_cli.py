"""The ``data`` and ``register`` subcommands, run through a parser built like the CLI's."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from tomgym.data_commands import add_commands
from tomgym.registry import unregister_tom_env


def cli_main(argv: list[str]) -> int:
    """The whole CLI, with its error handling (one line, exit 2)."""
    from tomgym.cli import main

    return main(argv)


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tomgym")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def test_status_lists_files_and_envs(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["data", "status", "--no-checksums"]) == 0
    out = capsys.readouterr().out
    assert "hitom/Hi-ToM_data.json" in out and "ToM-HiToM-Original-v0" in out
    assert "tomi/clever_hans/val.trace" in out


def test_status_checks_checksums(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "hitom").mkdir()
    (tmp_path / "hitom" / "Hi-ToM_data.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("TOMGYM_DATA", str(tmp_path))
    assert run(["data", "status"]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "1/" in out


def test_fetch_offline_fails_fast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TOMGYM_DATA", str(tmp_path))
    assert run(["data", "fetch", "tomi"]) == 1  # ToMi has no direct download URL
    assert "put its files at" in capsys.readouterr().err


def test_splits_have_no_leakage(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["data", "splits", "exploretom-structured"]) == 0
    out = capsys.readouterr().out
    assert "leakage: 0 stories" in out and "train" in out and "900" in out


def test_audit_prints_tables_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "audit.json"
    assert run(["data", "audit", "hitom-cot", "--out", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "583/600 (97.2%)" in out and "all 17 disagreements" in out
    saved = json.loads(out_file.read_text(encoding="utf-8"))
    assert saved[0]["dataset"] == "hitom-cot" and len(saved[0]["disagreements"]) == 17


def test_audit_goes_on_past_a_missing_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """User audit: one missing release stopped `data audit` before the releases that exist."""
    (tmp_path / "hitom").symlink_to(Path("../shared/data/hitom").resolve())
    monkeypatch.setenv("TOMGYM_DATA", str(tmp_path))
    out_file = tmp_path / "audit.json"
    argv = ["data", "audit", "tomi-original-val", "hitom-cot", "--out", str(out_file)]
    assert run(argv) == 1
    out, err = capsys.readouterr()
    assert "583/600 (97.2%)" in out
    assert "not audited, tomi-original-val:" in err and "tomi" in err
    assert [r["dataset"] for r in json.loads(out_file.read_text(encoding="utf-8"))] == ["hitom-cot"]


def test_register_validates_and_previews(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.jsonl"
    row = {"s": "1 Ann put the pen in the box.", "q": "Where is the pen?", "a": "box"}
    path.write_text(json.dumps(row | {"c": ["box", "bag"]}) + "\n", encoding="utf-8")
    try:
        code = run(
            ["register", str(path), "--id", "Cli-ToM-v0", "--story", "s", "--question", "q"]
            + ["--answer", "a", "--candidates", "c", "--show", "1"]
        )
        assert code == 0
    finally:
        unregister_tom_env("Cli-ToM-v0")
    out = capsys.readouterr().out
    assert '"id": "Cli-ToM-v0"' in out and "Where is the pen?" in out
    assert "only for this process" in out


def test_register_reports_bad_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("story,question,answer\nonce,,box\n", encoding="utf-8")
    assert cli_main(["register", str(path), "--id", "Bad-ToM-v0"]) == 2
    assert "line 2: field 'question'" in capsys.readouterr().err
    # registration red team: a malformed ID was reported after the rows' problems, and
    # --sep '' once per row
    assert cli_main(["register", str(path), "--id", "bad id"]) == 2
    err = capsys.readouterr().err
    assert "'bad id' is not a valid Gymnasium env ID" in err and "line 2" not in err
    path.write_text("story,question,answer\ns,q1,box\ns,q2,box\n", encoding="utf-8")
    assert cli_main(["register", str(path), "--id", "Bad-ToM-v0", "--sep", ""]) == 2
    err = capsys.readouterr().err
    assert err.count("candidates_sep (--sep) must be the text") == 1 and "line" not in err


def test_register_reads_an_excel_csv_and_names_the_files_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "excel.csv"
    text = "story,question,answer\n1 Ann put the pen in the box.,Where is the pen?,box\n"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    try:
        assert run(["register", str(path), "--id", "Excel-ToM-v0"]) == 0
    finally:
        unregister_tom_env("Excel-ToM-v0")
    assert cli_main(["register", str(path), "--id", "Excel-ToM-v0", "--story", "text"]) == 2
    err = capsys.readouterr().err
    assert "column 'text' is missing; the file has 'story', 'question', 'answer'" in err


@pytest.mark.parametrize(
    "argv",
    [["data", "audit", "--examples", "-1"], ["register", "f.csv", "--id", "X", "--show", "-1"]],
)
def test_negative_counts_are_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        run(argv)
    assert "must be 0 or more, got -1" in capsys.readouterr().err


@pytest.mark.parametrize("timeout", ["0", "-1", "nan"])
def test_fetch_timeout_must_be_positive(timeout: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tomgym.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["data", "fetch", "hitom", "--timeout", timeout])
    assert exit_.value.code == 2 and "above 0" in capsys.readouterr().err
