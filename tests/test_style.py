"""The code stays as the brief asks: ruff's lint and format clean, mypy clean (the versions
pinned in the dev extra, so a new release's rules cannot turn CI red on unchanged code)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINTED = ["tomgym", "envs", "agents", "tests", "benchmarks", "examples"]
TYPED = ["tomgym", "envs", "agents"]


def run_tool(*argv: str) -> subprocess.CompletedProcess[str]:
    module = argv[0]
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[dev]')")
    return subprocess.run(
        [sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint_is_clean() -> None:
    done = run_tool("ruff", "check", "--no-cache", *LINTED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean() -> None:
    done = run_tool("ruff", "format", "--check", "--no-cache", *LINTED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_is_clean(tmp_path: Path) -> None:
    done = run_tool("mypy", "--cache-dir", str(tmp_path / "mypy"), *TYPED)
    assert done.returncode == 0, done.stdout + done.stderr
