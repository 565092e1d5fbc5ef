"""Every registered ToM env passes the conformance checks (check_env, determinism, rewards)."""

from __future__ import annotations

import pytest

import tomgym
from tomgym.checks import check_tom_env

ALL_IDS = [s.id for s in tomgym.list_envs()]
NEEDS_ABSENT_DATA = {s.id for s in tomgym.list_envs() if s.family == "fantom"}
"""FANToM's file is not in ../shared/data: its envs are checked on a fixture in test_fantom.py."""


@pytest.mark.parametrize("env_id", [i for i in ALL_IDS if i not in NEEDS_ABSENT_DATA])
def test_conformance(env_id: str) -> None:
    report = check_tom_env(env_id, n_items=3)
    assert report.ok, "\n".join(report.problems)
    assert report.checked_items == 3
