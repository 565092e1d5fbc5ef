"""Where an env's items come from: a fixed list (a release, a user's data) or a generator."""

from __future__ import annotations

import functools
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tomgym.items import ToMItem
from tomgym.spaces import has_astral

PROCEDURAL_INDEX_LIMIT = 2**31 - 1
"""Items of a procedural source are numbered 0 .. this limit (exclusive)."""


@runtime_checkable
class ItemSource(Protocol):
    """Gives item ``index``; ``size`` is None for a procedural (unbounded) source."""

    @property
    def size(self) -> int | None: ...

    @property
    def max_prompt_chars(self) -> int:
        """An upper bound on ``len(story) + len(question)`` of every item (sizes the spaces)."""
        ...

    def item(self, index: int) -> ToMItem: ...


@dataclass(frozen=True)
class ListSource:
    """A fixed, already validated sequence of items (a release or a user's dataset)."""

    items: Sequence[ToMItem]

    @property
    def size(self) -> int:
        return len(self.items)

    # The scans below are cached: a release's source is shared by every make of its env IDs
    # (and a vector env's sub-envs), and scanning 13,000 items cost 10-20 ms a make.
    @functools.cached_property
    def max_prompt_chars(self) -> int:
        return max((len(it.story) + len(it.question) for it in self.items), default=1)

    @functools.cached_property
    def max_candidates_chars(self) -> int:
        """An upper bound on the length of any item's candidates listed in a prompt."""
        return max((sum(len(c) + 2 for c in it.candidates) for it in self.items), default=0)

    @functools.cached_property
    def holds_astral(self) -> bool:
        """Whether an item's story, question or candidates hold a character beyond the Basic
        Multilingual Plane (the env's spaces then hold those characters)."""
        return any(
            has_astral(it.story) or has_astral(it.question) or any(map(has_astral, it.candidates))
            for it in self.items
        )

    @functools.cached_property
    def splits(self) -> dict[str, ListSource]:
        """The items of each split their ``split`` field names, as sources of their own (made
        once: their cached scans then serve every make of a split env too)."""
        by_split: dict[str, list[ToMItem]] = {}
        for item in self.items:
            by_split.setdefault(item.split, []).append(item)
        return {split: ListSource(items) for split, items in by_split.items()}

    def item(self, index: int) -> ToMItem:
        if not 0 <= index < len(self.items):
            raise IndexError(
                f"item index {index} out of range: this env has {len(self.items)} items"
            )
        return self.items[index]


@dataclass(frozen=True)
class GeneratedSource:
    """A procedural source: ``make(index)`` is a pure function of the index."""

    make: Callable[[int], ToMItem]
    bound: int

    @property
    def size(self) -> None:
        return None

    @property
    def max_prompt_chars(self) -> int:
        return self.bound

    def item(self, index: int) -> ToMItem:
        if not 0 <= index < PROCEDURAL_INDEX_LIMIT:
            raise IndexError(f"item index {index} out of range 0..{PROCEDURAL_INDEX_LIMIT - 1}")
        return self.make(index)


def first_items(source: ItemSource, n: int | None = None) -> list[ToMItem]:
    """The first ``n`` items (all of a finite source when ``n`` is None)."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"n (how many items) must be a whole number of at least 1, got {n!r}")
    if source.size is None:
        if n is None:
            raise ValueError("a procedural env has no end: pass n= to say how many items you want")
        count = n
    else:
        count = source.size if n is None else min(n, source.size)
    return [source.item(i) for i in range(count)]


_SHARED_SOURCES: OrderedDict[tuple[int, ...], ListSource] = OrderedDict()
_SHARED_SOURCES_MAX = 64


def list_source(items: Sequence[ToMItem]) -> ListSource:
    """A ListSource over ``items``, the same one for the same (frozen) item objects.

    A release family's env is made many times per process (an eval per ID, a vector env's
    sub-envs) over the same cached items; sharing the source shares its cached scans (prompt
    bound, characters beyond the BMP), which cost 10-20 ms a make over 13,000 items. Keyed by
    the items' identities: the cached source keeps them alive, so an identity cannot be reused
    by another object while its entry lasts (the oldest entries go past 64)."""
    key = tuple(map(id, items))
    source = _SHARED_SOURCES.get(key)
    if source is None:
        source = _SHARED_SOURCES[key] = ListSource(tuple(items))
        if len(_SHARED_SOURCES) > _SHARED_SOURCES_MAX:
            _SHARED_SOURCES.popitem(last=False)
    else:
        _SHARED_SOURCES.move_to_end(key)
    return source


GENERATED_SPLITS = ("train", "val", "test")


@functools.lru_cache(maxsize=1024, typed=True)
def split_seed(family: str, split: str, seed: int) -> int:
    """The generator seed of one split of a generated family: train, val and test draw from
    disjoint seed streams, so no generated story is served in two splits by construction of
    the seeds (and the generator's per-item hashing)."""
    if split not in GENERATED_SPLITS:
        raise ValueError(f"split must be one of {GENERATED_SPLITS}, got {split!r}")
    digest = hashlib.sha256(f"tomgym-{family}|{split}|{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")
