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


def test_check_tries_the_story_s_names_and_places_on_free_text_items() -> None:
    """Free-text items without candidates: `tomgym check` lists the story's other names (or
    places) beside the gold, spaces only, and the env must refuse them. (The probe once called
    the names helper with the wrong arguments and failed on every such item.)"""
    from tomgym.checks import adversarial_responses
    from tomgym.items import ToMItem
    from tomgym.rewards import score_response

    story = "Ann put the ball in the box. Ann left. Bob moved the ball to the basket."
    who = ToMItem(
        id="w", story=story, question="Who moved the ball?", answer="Bob", answer_type="text"
    )
    where = ToMItem(
        id="p", story=story, question="Where is the ball?", answer="basket", answer_type="text"
    )
    for item, kind in ((who, "story_names_spaced"), (where, "story_places_spaced")):
        probes = adversarial_responses(item)
        assert kind in probes
        assert all(not score_response(r, item).correct for r in probes.values())
    env_id = "Test-Conformance-FreeText-v0"
    tomgym.register_tom_env(env_id, items=[who, where], overwrite=True)
    try:
        report = check_tom_env(env_id, n_items=2)
        assert report.ok, report.problems
    finally:
        tomgym.unregister_tom_env(env_id)


def test_check_names_a_held_out_from_id_that_is_not_registered() -> None:
    """Review: held_out_from and serves_held_out are recorded, never checked (built-ins name
    IDs registered after them), so a typo in a user's spec stood silently: `tomgym check`
    names it, with the ID it probably meant."""
    item = {"id": "a", "story": "Ann put the ball in the box.", "question": "Where is the ball?",
            "answer": "box", "candidates": ["box", "bag"]}  # fmt: skip
    env_id = "Test-Conformance-HeldOutFrom-v0"
    tomgym.register_tom_env(
        env_id, items=[item], held_out=True, held_out_from=["ToM-HiToM-O2-V0"], overwrite=True
    )
    try:
        problems = check_tom_env(env_id, n_items=1).problems
        assert problems == [
            "spec: held_out_from names 'ToM-HiToM-O2-V0', not a registered env ID "
            "(did you mean 'ToM-HiToM-O2-v0'?)"
        ]
        tomgym.register_tom_env(
            env_id, items=[item], held_out_from=["ToM-HiToM-O2-v0"], overwrite=True
        )
        assert check_tom_env(env_id, n_items=1).problems == [
            "spec: held_out_from is set but held_out is False (is it held out?)"
        ]
    finally:
        tomgym.unregister_tom_env(env_id)
