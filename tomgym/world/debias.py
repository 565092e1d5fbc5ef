"""Debiased generation: choose each item's story and question so its answer defeats the shortcuts.

Each index gets a target fixed by (family, seed, index). For Hi-ToM: the answer is the
object's true location with probability 1/|path| (path = the containers the object was ever
put in or said to be in) and otherwise sits at a uniform other position of the path, and the
innermost asked agent's exit rank is uniform. A drawn story gives every chain of asked agents
at once (one simulation holds all nested beliefs), so the generator keeps the first draw with
a chain meeting the target. For ToMi: the answer is the true location or not, and the asked
agent entered first or not, each for half the indices, by rejection sampling.

A belief answer is always on the object's path, so no story pushes every shortcut to
1/#candidates without making "none of the path's containers" a shortcut of its own. Two
schemes:

- ``reality`` (``debiased=True``, the ``-Debiased-v0`` IDs): the answer is the true location
  with probability 1/|path|, else a uniform *other* place of the path. The reality answer and
  the initial location sit at E[1/|path|], but the kept stories are those where some chain
  believes the wanted place, and deep chains believe early places: the second container on
  the path held 32-41% of the answers on orders 2-4 (a red team's rule, "the second container
  the story names", beat every audited shortcut).
- ``positions`` (the ``-Debiased-v1`` IDs): the answer's place on the path is itself the
  target, uniform, and it is the true location with probability 1/|path| (a draw whose place
  does not agree is redrawn), so every fixed place on the path, the reality answer and the
  initial location each sit at about E[1/|path|]. About, not exactly: a place that deep
  chains rarely believe is met less often within the tries (on order 4, the last of four
  places holds 17.5% of the answers where 25% is asked), and about 1% of order-4 items find
  no draw meeting their target and keep the plain draw.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tomgym.world.simulator import Event, Exit, Move, ObjectIs, PrivateTell, PublicClaim

MAX_TRIES = 100
"""Draws tried per item; past it the first draw meeting the answer target is kept."""
POSITION_TRIES = 400
"""The same for the ``positions`` scheme, whose target fewer draws meet (on order 4, about
half of the items wanting a late place that is not the true location missed it in 100)."""
SCHEMES = ("reality", "positions")
"""The Hi-ToM debiasing schemes (module docstring); ``debiased=True`` is ``reality``."""
POSITION_RESOLUTION = 10_007
MIN_TRAJECTORY = 4
"""Fewest containers on the asked object's path: short paths make the answer easy to guess."""
_TOKEN = re.compile(r"[A-Za-z0-9_'-]+")


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
    return first_chapter_exit_ranks(events).get(agent)


def first_chapter_exit_ranks(events: Sequence[Event]) -> dict[str, int]:
    """Every exiting agent's ``first_chapter_exit_rank``, read in one pass (the debiasing
    sampler asks it of every chain it keeps)."""
    ranks: dict[str, int] = {}
    for event in events:
        if isinstance(event, Exit) and event.agent not in ranks:
            ranks[event.agent] = len(ranks)
    return ranks


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


# isinstance against a tuple of classes: against the equivalent union (ObjectIs | Move) it is
# two to three times slower, and the debiasing sampler reads every event of hundreds of draws.
_PLACING = (ObjectIs, Move)
"""Events that put an object in a container."""
_ON_PATH = (ObjectIs, Move, PublicClaim, PrivateTell)
"""Events that put an object in a container or say it is in one."""


def true_location(events: Sequence[Event], obj: str) -> str | None:
    """Where the object ends up: its last ``ObjectIs`` or ``Move`` (a claim moves nothing), as
    the simulator's ``location`` has it, without simulating anyone's beliefs."""
    where = None
    for e in events:
        if isinstance(e, _PLACING) and e.obj == obj:
            where = e.container
    return where


def placements(events: Sequence[Event], obj: str) -> list[str]:
    """The containers the object is put in, in order (claims aside): the first is the
    simulator's ``initial``, the last its ``location``."""
    return [e.container for e in events if isinstance(e, _PLACING) and e.obj == obj]


def trajectory(events: Sequence[Event], obj: str) -> list[str]:
    """The containers the object is put in, moved to or claimed to be in, first mention order."""
    out: list[str] = []
    for e in events:
        if isinstance(e, _ON_PATH) and e.obj == obj and e.container not in out:
            out.append(e.container)
    return out


@dataclass(frozen=True)
class AnswerTarget:
    """One item's debiasing target, each part uniform and independent of the others."""

    position: float
    """In [0, 1): which of the path's other positions holds the answer when it is not real."""
    reality: float
    """In [0, 1): the answer is the true location when this is below 1/|path|."""
    rank: int
    """In [0, ranks): the innermost asked agent's exit rank."""
    pick: int
    """Chooses among the chains of asked agents that meet the rest."""

    @classmethod
    def of(cls, family: str, seed: int, index: int, ranks: int) -> AnswerTarget:
        t = index_target(family, seed, index)
        position, t = t % POSITION_RESOLUTION, t // POSITION_RESOLUTION
        reality, t = t % POSITION_RESOLUTION, t // POSITION_RESOLUTION
        rank, pick = t % ranks, t // ranks
        return cls(position / POSITION_RESOLUTION, reality / POSITION_RESOLUTION, rank, pick)

    def answer(self, path: Sequence[str], real: str) -> str | None:
        """The container the answer must be on this path, or None for a path too short."""
        if len(path) < MIN_TRAJECTORY or real not in path:
            return None
        if self.reality < 1 / len(path):
            return real
        others = [c for c in path if c != real]
        return others[int(self.position * len(others))]

    def answer_at_position(self, path: Sequence[str], real: str) -> str | None:
        """The ``positions`` scheme: the container at the target's place on the path, which
        must be the true location exactly when the target wants reality; None when this path
        cannot meet that (too short, or its place disagrees)."""
        if len(path) < MIN_TRAJECTORY or real not in path:
            return None
        want = path[int(self.position * len(path))]
        return want if (want == real) == (self.reality < 1 / len(path)) else None
