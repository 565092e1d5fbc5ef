"""Shared test set-up: point the data root at ../shared/data unless the caller chose one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"
os.environ.setdefault("TOMGYM_DATA", str(DEFAULT_DATA))


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The directory holding the real dataset releases (hitom/, tomi/, ...)."""
    root = Path(os.environ["TOMGYM_DATA"])
    if not root.is_dir():
        pytest.fail(f"data root {root} does not exist; set TOMGYM_DATA to ../shared/data")
    return root
