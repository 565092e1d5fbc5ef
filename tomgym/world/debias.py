"""Debiased generation: rejection-sample an item's sub-seeds until its answer defeats the shortcuts.

Each index gets a target (for Hi-ToM: the answer's position among the containers the asked
object was ever said to be in, uniform, and the asked agent's exit rank; for ToMi: the answer
is the true location or not, and the asked agent entered first or not), and the first draw
meeting it is the item. A belief answer is always one of the object's containers, so no story
pushes every shortcut to 1/#candidates without making "none of the obvious ones" a shortcut of
its own; uniform positions put every position rule at 1/#positions instead.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from tomgym.world.simulator import Event, Exit, Move, ObjectIs, PrivateTell, PublicClaim

MAX_TRIES = 100
"""Draws tried per item; past it the first draw meeting the answer-position target is kept."""
POSITION_RESOLUTION = 10_007
MIN_TRAJECTORY = 4
"""Fewest containers on the asked object's path: short paths make the answer easy to guess."""
_TOKEN = re.compile(r"[A-Za-z0-9_'-]+")


class Drawn(Protocol):
    """What the checks read of a generated question."""

    @property
    def answer(self) -> str: ...

    @property
    def object(self) -> str: ...

    @property
    def events(self) -> tuple[Event, ...]: ...


Q = TypeVar("Q")


def index_target(family: str, seed: int, index: int) -> int:
    """A uniform 64-bit number fixed by (family, seed, index): the item's debiasing target."""
    digest = hashlib.sha256(f"tomgym-debias|{family}|{seed}|{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def mention_order(story: str, containers: Sequence[str]) -> list[str]:
    """The containers in the order the story text names them (repeats kept)."""
    known = set(containers)
    return [t for t in _TOKEN.findall(story) if t in known]


def first_chapter_exit_rank(events: Sequence[Event], agent: str) -> int | None:
    """The agent's position in the exit order of the story's first exits (its first chapter)."""
    seen: list[str] = []
    for event in events:
        if isinstance(event, Exit) and event.agent not in seen:
            seen.append(event.agent)
    return seen.index(agent) if agent in seen else None


def rejection_sample(
    draw: Callable[[int], Q], role_ok: Callable[[Q], bool], rest_ok: Callable[[Q], bool]
) -> Q:
    """The first draw meeting both targets; else the first meeting the role; else draw 0."""
    fallback: Q | None = None
    for attempt in range(MAX_TRIES):
        q = draw(attempt)
        if role_ok(q):
            if rest_ok(q):
                return q
            fallback = fallback or q
    return fallback or draw(0)


def trajectory(events: Sequence[Event], obj: str) -> list[str]:
    """The containers the object is put in, moved to or claimed to be in, first mention order."""
    out: list[str] = []
    for e in events:
        if (
            isinstance(e, ObjectIs | Move | PublicClaim | PrivateTell)
            and e.obj == obj
            and e.container not in out
        ):
            out.append(e.container)
    return out


def position_ok(q: Drawn, target: float) -> bool:
    """The answer sits at position ``floor(target * len(trajectory))`` of the trajectory."""
    path = trajectory(q.events, q.object)
    if len(path) < MIN_TRAJECTORY or q.answer not in path:
        return False
    return path.index(q.answer) == int(target * len(path))
