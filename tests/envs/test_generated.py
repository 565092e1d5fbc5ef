"""The generated families through the env API: the oracle agrees with every label, splits differ."""

from __future__ import annotations

from collections import Counter

import pytest

import tomgym


@pytest.mark.parametrize(
    ("env_id", "family"),
    [("ToM-HiToM-v0", "hitom"), ("ToM-HiToM-O4-v0", "hitom"), ("ToM-ToMi-v0", "tomi")],
)
def test_oracle_agrees_with_every_generated_label(env_id: str, family: str) -> None:
    items = tomgym.load_items(env_id, n=300, split="test")
    wrong = [i.id for i in items if tomgym.solve(i.story, i.question, family=family) != i.answer]
    assert wrong == []


def test_hitom_mix_covers_orders_0_to_3_only() -> None:
    orders = Counter(i.order for i in tomgym.load_items("ToM-HiToM-v0", n=400))
    assert set(orders) == {0, 1, 2, 3} and min(orders.values()) > 60


def test_tomi_balances_story_types_and_covers_six_kinds() -> None:
    items = tomgym.load_items("ToM-ToMi-v0", n=600)
    story_types = Counter(i.metadata["story_type"] for i in items)
    assert set(story_types.values()) == {200}
    kinds = Counter((i.question_type, i.metadata["question_index"]) for i in items)
    assert {k for k, _ in kinds} == {"memory", "reality", "first_order", "second_order"}
    assert len([k for k in kinds if k[0] in ("first_order", "second_order")]) == 4


def test_generated_kwargs_select_what_they_say() -> None:
    tell = tomgym.load_items("ToM-HiToM-O2-v0", n=30, deception=True, length=2)
    assert all(i.metadata["deception"] and i.metadata["length"] == 2 for i in tell)
    assert all(i.order == 2 for i in tell)
    quiet = tomgym.load_items("ToM-HiToM-O1-v0", n=30, noise=0.0)
    noisy = tomgym.load_items("ToM-HiToM-O1-v0", n=30, noise=0.5)
    lines = lambda items: sum(len(i.story.splitlines()) for i in items)  # noqa: E731
    assert lines(noisy) > lines(quiet)
