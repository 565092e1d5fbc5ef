"""Deterministic by-story splits for releases without official ones, and a leakage check."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from tomgym.items import ToMItem

PRESET_SIZES: dict[str, int] = {"train": 900, "val": 300, "test": 300}
"""Question counts of the ToM-RL splits (arXiv 2507.15788)."""

FILL_ORDER = ("test", "val", "train")
"""Held-out splits are filled first, so test and val do not move if the train size changes."""


def story_key(item: ToMItem) -> str:
    """What makes two items share a story: ``metadata["story_group"]`` if set, else the text."""
    group = item.metadata.get("story_group")
    return str(group) if group is not None else item.story


def stable_hash(text: str, seed: str = "") -> str:
    """A hash that is the same in every process (unlike ``hash()``)."""
    return hashlib.sha256(f"{seed}\x00{text}".encode()).hexdigest()


def split_by_story(
    items: Sequence[ToMItem],
    sizes: Mapping[str, int] = PRESET_SIZES,
    *,
    key: Callable[[ToMItem], str] = story_key,
    seed: str = "tomgym-split-v0",
) -> dict[str, list[ToMItem]]:
    """Split ``items`` so that no story is in two splits, with exactly ``sizes`` questions each.

    Stories are ordered by ``stable_hash(key, seed)``; the splits are filled in
    :data:`FILL_ORDER` (then any other names), each taking whole stories in that order until
    its count is reached. The last story a split takes may be cut short (questions in
    release order) to hit the count exactly; its remaining questions go to no split. Items
    come back with ``split`` set (for train/val/test names) and in release order.
    """
    groups: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        groups.setdefault(key(item), []).append(index)
    ordered = sorted(groups, key=lambda k: stable_hash(k, seed))
    names = [n for n in FILL_ORDER if n in sizes] + [n for n in sizes if n not in FILL_ORDER]
    needed = sum(sizes.values())
    if needed > len(items):
        raise ValueError(f"splits need {needed} questions, but only {len(items)} are given")
    chosen: dict[str, list[int]] = {}
    stories = iter(ordered)
    for name in names:
        picked: list[int] = []
        while len(picked) < sizes[name]:
            try:
                group = groups[next(stories)]
            except StopIteration:
                raise ValueError(
                    f"ran out of stories filling split {name!r} ({len(picked)}/{sizes[name]})"
                ) from None
            picked.extend(group[: sizes[name] - len(picked)])
        chosen[name] = sorted(picked)
    return {
        name: [
            items[i].model_copy(update={"split": name})
            if name in ("train", "val", "test")
            else items[i]
            for i in picked
        ]
        for name, picked in chosen.items()
    }


@dataclass(frozen=True)
class Leak:
    """A story (text or group key) found in more than one split."""

    story: str
    splits: tuple[str, ...]

    def __str__(self) -> str:
        excerpt = self.story[:60].replace("\n", " ")
        return f"story {excerpt!r}... is in splits {', '.join(self.splits)}"


def find_leakage(
    splits: Mapping[str, Sequence[ToMItem]], *, key: Callable[[ToMItem], str] = story_key
) -> list[Leak]:
    """Every story whose text (or ``key``) occurs in two or more splits; empty means no leak."""
    where: dict[str, set[str]] = {}
    for name, items in splits.items():
        for item in items:
            for k in {item.story, key(item)}:
                where.setdefault(k, set()).add(name)
    return [Leak(k, tuple(sorted(s))) for k, s in where.items() if len(s) > 1]
