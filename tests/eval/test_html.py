from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tomgym.eval.html import render_html
from tomgym.eval.leaderboard import Leaderboard, LeaderboardRow

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def board() -> Leaderboard:
    rows = [
        LeaderboardRow(
            agent="oracle",
            privileged=True,
            gold_answers=2,
            directory="a",
            n_items=4,
            accuracy=1.0,
            envs={"ToM-HiToM-O1-v0": 1.0, "ToM-HiToM-O4-v0": 1.0},
            in_distribution=1.0,
            held_out=1.0,
            held_out_gap=0.0,
            by_order={"1": 1.0, "4": 1.0},
        ),
        LeaderboardRow(
            agent="hf:org/<model>",
            directory="b",
            n_items=4,
            accuracy=0.25,
            envs={"ToM-HiToM-O1-v0": 0.5, "ToM-HiToM-O4-v0": 0.0},
            in_distribution=0.5,
            held_out=0.0,
            held_out_gap=0.5,
            by_order={"1": 0.5, "4": 0.0},
        ),
    ]
    return Leaderboard(
        envs=["ToM-HiToM-O1-v0", "ToM-HiToM-O4-v0"],
        held_out={"ToM-HiToM-O4-v0": True},
        rows=rows,
    )


def test_page_is_self_contained_and_escaped() -> None:
    page = render_html(board())
    assert "<style>" in page and "<script>" in page
    assert not re.search(r"(src|href)=\"https?:", page)
    assert "hf:org/&lt;model&gt;" in page and "sees gold" in page
    assert "O4 (held out)" in page and "order 4" in page


def test_page_loads_in_headless_chromium(tmp_path: Path) -> None:
    browser = next((b for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        pytest.skip("no chromium on PATH (Debian: apt-get install -y chromium)")
    path = tmp_path / "leaderboard.html"
    path.write_text(render_html(board()), encoding="utf-8")
    result = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-dev-shm-usage",
            "--disable-extensions",
            f"--user-data-dir={tmp_path / 'p'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    dom = result.stdout
    assert 'data-ready="2"' in dom, result.stderr[-2000:]  # the script ran to its end
    assert 'data-count="0"' in dom  # no uncaught error
    assert "Uncaught" not in result.stderr
    for agent in ('data-agent="oracle"', 'data-agent="hf:org/&lt;model&gt;"'):
        assert agent in dom
