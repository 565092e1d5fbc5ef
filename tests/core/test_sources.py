"""Item sources: a release env's re-makes share one source and its cached scans."""

from __future__ import annotations

import pytest

from tomgym.items import ToMItem
from tomgym.sources import _SHARED_SOURCES_MAX, ListSource, list_source


def items(n: int, tag: str = "") -> tuple[ToMItem, ...]:
    return tuple(
        ToMItem(id=f"{tag}{i}", story="Ann put the ball in the box.", question="Where?",
                answer="box", candidates=["box", "bag"], split="test" if i % 2 else "train")
        for i in range(n)
    )  # fmt: skip


def test_the_same_item_objects_share_one_source_and_its_scans() -> None:
    """Review: every make of a release env built a new source and scanned its 13,000 items for
    the prompt bound and characters beyond the BMP again (10-20 ms a make)."""
    first = items(3, "a")
    source = list_source(first)
    assert list_source(list(first)) is source  # same objects, any sequence
    assert list_source(first[:2]) is not source  # other items, another source
    assert list_source(items(3, "a")) is not source  # equal but other objects
    assert source.max_prompt_chars == len(first[0].story) + len(first[0].question)
    assert not source.holds_astral
    assert [it.id for it in source.splits["test"].items] == ["a1"]
    assert source.splits["test"] is source.splits["test"]


def test_the_shared_sources_are_bounded_and_the_oldest_goes_first() -> None:
    kept = items(1, "kept")
    source = list_source(kept)
    for i in range(_SHARED_SOURCES_MAX):
        list_source(items(1, f"other{i}"))
    assert list_source(kept) is not source  # evicted: made again, still correct
    assert list_source(kept).items == kept


def test_a_source_with_a_character_beyond_the_bmp_says_so() -> None:
    apple = ToMItem(id="x", story="Ann put the 🍎 in the box.", question="Where is the 🍎?",
                    answer="box", candidates=["box", "bag"])  # fmt: skip
    assert ListSource((*items(2), apple)).holds_astral


@pytest.mark.parametrize(
    ("env_id", "kwargs"),
    [("ToM-OpenToM-v0", {}), ("ToM-ExploreToM-v0", {"split": "test"}),
     ("ToM-HiToM-Original-v0", {}), ("ToM-ToMi-Original-v0", {})],
)  # fmt: skip
def test_a_release_env_made_twice_shares_its_source(env_id: str, kwargs: dict[str, str]) -> None:
    import tomgym

    first = tomgym.make(env_id, **kwargs).unwrapped.source
    assert tomgym.make(env_id, **kwargs).unwrapped.source is first
