"""Event-driven world of agents, rooms, containers and objects with nested beliefs.

Implements the Hi-ToM semantics of docs/WORLD_RULES.md: observation by co-presence,
chapters with an exit order, and trust-dependent public claims and private tells.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations
from typing import Any, TypeVar

WAITING_ROOM = "waiting_room"
DEFAULT_MAX_ORDER = 4


# Events are frozen values. Their __init__ fills __dict__ directly: the dataclass-made one
# calls object.__setattr__ per field, twice the cost, and a generated story builds ~30 of them.


@dataclass(frozen=True, init=False)
class Enter:
    """Agents enter a room (together, in the listed order)."""

    agents: tuple[str, ...]
    room: str

    def __init__(self, agents: tuple[str, ...], room: str) -> None:
        d = self.__dict__
        d["agents"], d["room"] = agents, room


@dataclass(frozen=True, init=False)
class ObjectIs:
    """The object is (truly) in the container; `room` defaults to the current chapter's room."""

    obj: str
    container: str
    room: str | None = None

    def __init__(self, obj: str, container: str, room: str | None = None) -> None:
        d = self.__dict__
        d["obj"], d["container"], d["room"] = obj, container, room


@dataclass(frozen=True, init=False)
class Move:
    agent: str
    obj: str
    container: str

    def __init__(self, agent: str, obj: str, container: str) -> None:
        d = self.__dict__
        d["agent"], d["obj"], d["container"] = agent, obj, container


@dataclass(frozen=True, init=False)
class Stay:
    agent: str
    room: str

    def __init__(self, agent: str, room: str) -> None:
        d = self.__dict__
        d["agent"], d["room"] = agent, room


@dataclass(frozen=True, init=False)
class Exit:
    agent: str
    room: str

    def __init__(self, agent: str, room: str) -> None:
        d = self.__dict__
        d["agent"], d["room"] = agent, room


@dataclass(frozen=True, init=False)
class PublicClaim:
    speaker: str
    obj: str
    container: str

    def __init__(self, speaker: str, obj: str, container: str) -> None:
        d = self.__dict__
        d["speaker"], d["obj"], d["container"] = speaker, obj, container


@dataclass(frozen=True, init=False)
class PrivateTell:
    speaker: str
    listener: str
    obj: str
    container: str

    def __init__(self, speaker: str, listener: str, obj: str, container: str) -> None:
        d = self.__dict__
        d["speaker"], d["listener"], d["obj"], d["container"] = speaker, listener, obj, container


@dataclass(frozen=True, init=False)
class Distractor:
    """A sentence that changes no belief."""

    text: str

    def __init__(self, text: str) -> None:
        self.__dict__["text"] = text


Event = Enter | ObjectIs | Move | Stay | Exit | PublicClaim | PrivateTell | Distractor


@lru_cache(maxsize=4096)
def _tuples(
    agents: frozenset[str], max_order: int, exact: bool = False
) -> tuple[tuple[str, ...], ...]:
    """Every ordered tuple of 1..max_order distinct agents of the set (``exact``: of max_order
    agents only)."""
    ordered = sorted(agents)
    out: list[tuple[str, ...]] = []
    for m in range(max_order if exact else 1, min(max_order, len(ordered)) + 1):
        out.extend(permutations(ordered, m))
    return tuple(out)


@dataclass
class World:
    """True state plus beliefs B[x1..xm](obj) for ordered tuples of distinct agents.

    A chapter starts when agents enter a room other than the neutral rooms
    (``waiting_room``); its participants' exit order decides trust in later claims.
    """

    max_order: int = DEFAULT_MAX_ORDER
    neutral_rooms: frozenset[str] = frozenset({WAITING_ROOM})
    agents: list[str] = field(default_factory=list)
    location: dict[str, str] = field(default_factory=dict)  # object -> container
    initial: dict[str, str] = field(default_factory=dict)  # object -> first container
    container_room: dict[str, str] = field(default_factory=dict)
    agent_room: dict[str, str | None] = field(default_factory=dict)
    belief: dict[tuple[tuple[str, ...], str], str] = field(default_factory=dict)
    chapter_room: str | None = None
    participants: tuple[str, ...] = ()
    exit_rank: dict[str, int] = field(default_factory=dict)
    focus: tuple[tuple[str, ...], str] | None = None
    """When set, the one belief B[agents](obj) kept (a generator asking one question): it ends
    as in the full world, and the other beliefs, which never feed it, are not recorded."""
    exact_order: bool = False
    """When set, only the beliefs of exactly ``max_order`` agents are kept (a generator asking
    every chain of one length): they end as in the full world, as no update reads a belief
    (each evolves on its own), and the shorter chains' beliefs are not recorded."""

    # -- queries ---------------------------------------------------------------

    def beliefs(self, agents: tuple[str, ...], obj: str) -> str | None:
        """B[agents](obj); the empty tuple gives the true container (None if never seen)."""
        if not agents:
            return self.location.get(obj)
        return self.belief.get((tuple(agents), obj))

    def occupants(self, room: str) -> frozenset[str]:
        return frozenset(a for a, r in self.agent_room.items() if r == room)

    def objects_in(self, room: str) -> list[str]:
        return [o for o, c in self.location.items() if self.container_room.get(c) == room]

    def trusts(self, listener: str, speaker: str) -> bool:
        """Listener trusts speaker if it exited the chapter room earlier, or was not in it."""
        if listener not in self.participants:
            return True
        if speaker not in self.participants:
            return False
        big = len(self.participants) + 1
        return self.exit_rank.get(listener, big) < self.exit_rank.get(speaker, big)

    # -- updates ---------------------------------------------------------------

    def apply_all(self, events: Iterable[Event]) -> World:
        handlers = _HANDLERS
        for event in events:
            handler = handlers.get(type(event))
            if handler is None:
                self.apply(event)
            else:
                handler(self, event)
        return self

    def apply(self, event: Event) -> None:
        handler = by_type(_HANDLERS, event)
        if handler is not None:
            handler(self, event)

    def _object_is(self, event: ObjectIs) -> None:
        room = event.room or self.chapter_room or ""
        self.container_room.setdefault(event.container, room)
        self.initial.setdefault(event.obj, event.container)
        self.location[event.obj] = event.container
        self._observe(self.container_room[event.container], [event.obj])

    def _move(self, event: Move) -> None:
        self._add_agent(event.agent)
        room = self.agent_room.get(event.agent) or self.chapter_room or ""
        self.container_room.setdefault(event.container, room)
        self.initial.setdefault(event.obj, event.container)
        self.location[event.obj] = event.container
        self._observe(room, [event.obj])

    def _exit(self, event: Exit) -> None:
        self._add_agent(event.agent)
        self.agent_room[event.agent] = None
        if event.agent in self.participants and event.agent not in self.exit_rank:
            self.exit_rank[event.agent] = len(self.exit_rank)

    def _stay(self, event: Stay) -> None:
        self._add_agent(event.agent)

    def _add_agent(self, a: str) -> None:
        if a not in self.agent_room:
            self.agents.append(a)
            self.agent_room[a] = None

    def _add_agents(self, agents: Iterable[str]) -> None:
        for a in agents:
            if a not in self.agent_room:
                self.agents.append(a)
                self.agent_room[a] = None

    def _enter(self, event: Enter) -> None:
        self._add_agents(event.agents)
        room = event.room
        if room not in self.neutral_rooms:
            if room not in self.agent_room.values():  # nobody there: a new chapter
                self.chapter_room = room
                self.participants = ()
                self.exit_rank = {}
            if room == self.chapter_room:
                self.participants += tuple(a for a in event.agents if a not in self.participants)
        for a in event.agents:
            self.agent_room[a] = room
        if room not in self.neutral_rooms:
            if self.focus is None:
                self._observe(room, self.objects_in(room))
            else:
                where = self.location.get(self.focus[1])
                if where is not None and self.container_room.get(where) == room:
                    self._observe_focus(room)  # the focus object is in the room

    def _observe(self, room: str, objects: list[str]) -> None:
        """Every nesting of the room's occupants learns the true container of the objects."""
        if self.focus is not None:
            if self.focus[1] in objects:
                self._observe_focus(room)
            return
        present = self.occupants(room)
        if not present or not objects:
            return
        tuples = _tuples(present, self.max_order, self.exact_order)
        for obj in objects:
            where = self.location[obj]
            for t in tuples:
                self.belief[(t, obj)] = where

    def _observe_focus(self, room: str) -> None:
        """_observe for the focus belief only, its object being observed in ``room``: set when
        its agents (distinct, at most max_order of them) are all in the room, as _tuples would
        list it."""
        assert self.focus is not None
        agents, obj = self.focus
        if not agents or len(agents) > self.max_order or len(set(agents)) != len(agents):
            return  # not a tuple _tuples lists: the full world never records it
        if self.exact_order and len(agents) != self.max_order:
            return  # nor does a world keeping only max_order agents' beliefs
        agent_room = self.agent_room
        for a in agents:
            if agent_room.get(a) != room:
                return
        self.belief[self.focus] = self.location[obj]

    def _set(self, agents: tuple[str, ...], obj: str, container: str) -> None:
        kept = len(agents) == self.max_order if self.exact_order else len(agents) <= self.max_order
        if kept and (self.focus is None or self.focus == (agents, obj)):
            self.belief[(agents, obj)] = container

    def _public(self, event: PublicClaim) -> None:
        s, obj, c = event.speaker, event.obj, event.container
        self._add_agent(s)
        for b in list(self.agents):
            if b == s:
                continue
            if self.trusts(b, s):
                self._set((b,), obj, c)
                self._set((b, s), obj, c)
            self._set((s, b), obj, c)

    def _private(self, event: PrivateTell) -> None:
        s, li, obj, c = event.speaker, event.listener, event.obj, event.container
        self._add_agents([s, li])
        if self.trusts(li, s):
            self._set((li,), obj, c)
            self._set((li, s), obj, c)
        self._set((s, li), obj, c)


_HANDLERS: dict[type, Callable[[World, Any], None]] = {
    Enter: World._enter,
    ObjectIs: World._object_is,
    Move: World._move,
    Exit: World._exit,
    Stay: World._stay,
    PublicClaim: World._public,
    PrivateTell: World._private,
    Distractor: lambda world, event: None,
}
"""Event type -> update (Distractor: none); dispatch on the type, not an isinstance chain."""


_T = TypeVar("_T")


def by_type(table: Mapping[type, _T], event: Event) -> _T | None:
    """The table's entry for the event's type (dispatch on the type; a subclass falls back to
    the first base it is an instance of, in the table's order)."""
    found = table.get(type(event))
    if found is None:
        found = next((v for t, v in table.items() if isinstance(event, t)), None)
    return found


def simulate(events: Iterable[Event], max_order: int = DEFAULT_MAX_ORDER) -> World:
    """A fresh world with the events applied in order."""
    return World(max_order=max_order).apply_all(events)


def belief_after(
    events: Iterable[Event], agents: tuple[str, ...], obj: str, max_order: int = DEFAULT_MAX_ORDER
) -> str | None:
    """B[agents](obj) after the events (the true container for no agents): the answer
    ``simulate(events, max_order).beliefs(agents, obj)`` gives, tracking that belief only."""
    return (
        World(max_order=max_order, focus=(tuple(agents), obj))
        .apply_all(events)
        .beliefs(agents, obj)
    )
