"""The command line: list, show, check, oracle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tomgym
from tomgym.cli import main


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "ToM-HiToM-O4-v0" in out and "procedural" in out and "held-out" in out


def test_show_prints_prompt_and_gold(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "ToM-HiToM-O4-v0", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    env = tomgym.make("ToM-HiToM-O4-v0")
    env.reset(seed=0)
    assert f"gold answer: {env.current_item.answer}" in out
    assert "Question: Where does" in out


def test_show_unknown_id_suggests(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "ToM-HiToM-O9-v0"]) == 2
    assert "Did you mean" in capsys.readouterr().err


def test_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "ToM-HiToM-O1-v0", "--items", "2"]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out


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
