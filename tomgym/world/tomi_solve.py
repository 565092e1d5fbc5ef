"""The ToMi oracle: parse a ToMi story, re-simulate, answer its four question kinds.

``mode="rules"`` follows the stated rules; ``mode="release"`` also mimics the reference
generator's late, stale-observer update of the distractor's moves for second-order labels.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import permutations

from tomgym.world.parse import UnknownSentenceError, W, parse_story
from tomgym.world.simulator import Enter, Event, Exit, Move, ObjectIs, World

_QUESTIONS: list[tuple[str, re.Pattern[str]]] = [
    ("memory", re.compile(rf"^Where was the {W} at the beginning\??$")),
    ("reality", re.compile(rf"^Where is the {W} really\??$")),
    ("first_order", re.compile(rf"^Where will {W} look for the {W}\??$")),
    ("second_order", re.compile(rf"^Where does {W} think that {W} searches for the {W}\??$")),
]


def parse_tomi_question(question: str) -> tuple[str, tuple[str, ...], str]:
    """(question type, agents outermost first, object)."""
    q = question.strip().split("\t")[0].strip()
    q = re.sub(r"^\d+\s+", "", q)
    for kind, pattern in _QUESTIONS:
        m = pattern.match(q)
        if m:
            groups = m.groups()
            return kind, tuple(groups[:-1]), groups[-1]
    raise UnknownSentenceError(question, "question")


def _place_objects(events: list[Event]) -> list[Event]:
    """Give each 'The O is in the C.' the room holding the most agents (the main agents')."""
    where: dict[str, str | None] = {}
    first_entry: dict[str, int] = {}
    out: list[Event] = []
    for i, e in enumerate(events):
        if isinstance(e, Enter):
            for a in e.agents:
                where[a] = e.room
            first_entry.setdefault(e.room, i)
        elif isinstance(e, Exit):
            where[e.agent] = None
        elif isinstance(e, ObjectIs) and e.room is None:
            counts: dict[str, int] = {}
            for r in where.values():
                if r is not None:
                    counts[r] = counts.get(r, 0) + 1
            if counts:
                room = max(counts, key=lambda r: (counts[r], -first_entry[r]))
                e = replace(e, room=room)
        out.append(e)
    return out


def _answer(world: World, kind: str, agents: tuple[str, ...], obj: str) -> str | None:
    if kind == "memory":
        return world.initial.get(obj)
    return world.beliefs(agents, obj)


def _release_world(events: list[Event], agents: tuple[str, ...], obj: str) -> World:
    """The reference generator's order: the distractor's enter/exit applied after the rest."""
    everyone = [a for e in events if isinstance(e, Enter) for a in e.agents]
    movers = {e.agent for e in events if isinstance(e, Move)}
    outsiders = [a for a in dict.fromkeys(everyone) if a not in agents and a not in movers]
    world = World(max_order=2)
    if len(outsiders) != 1:
        return world.apply_all(events)
    distractor = outsiders[0]
    late = [
        e
        for e in events
        if (isinstance(e, Enter) and e.agents == (distractor,))
        or (isinstance(e, Exit) and e.agent == distractor)
    ]
    world.apply_all(e for e in events if e not in late)
    if not late:
        return world
    # The stale observer list: everyone who ever entered the object's room.
    room = next((e.room for e in events if isinstance(e, ObjectIs)), None)
    observers = list(
        dict.fromkeys(
            a for e in events if isinstance(e, Enter) and e.room == room for a in e.agents
        )
    )
    where = world.location.get(obj)
    if where is not None and distractor in observers:
        for pair in permutations(observers, 2):
            world.belief[(pair, obj)] = where
    return world


def tomi_world(story: str) -> World:
    """The simulated final state of a ToMi story under the rules (beliefs up to order 2)."""
    return World(max_order=2).apply_all(_place_objects(parse_story(story)))


def explain_tomi(story: str, question: str) -> list[str]:
    """Reasoning lines under the rules, as ``explain_hitom``'s: where the object really is, then
    each belief of the question's chain from the inside out ("Y thinks...", "X thinks Y
    thinks..."); a memory question states where the object was at the beginning."""
    from tomgym.world.solve import belief_claim

    kind, agents, obj = parse_tomi_question(question)
    world = tomi_world(story)
    if kind == "memory":
        first = world.initial.get(obj)
        return [] if first is None else [f"The {obj} was in the {first} at the beginning."]
    lines = []
    for start in range(len(agents), -1, -1):
        where = world.beliefs(agents[start:], obj)
        if where is not None:
            lines.append(belief_claim(agents[start:], obj, where))
    return lines


def solve_tomi(story: str, question: str, mode: str = "rules") -> str:
    """The container a ToMi question asks for; mode "rules" or "release" (see module doc)."""
    if mode not in ("rules", "release"):
        raise ValueError(f"mode must be 'rules' or 'release', got {mode!r}")
    kind, agents, obj = parse_tomi_question(question)
    events = _place_objects(parse_story(story))
    if mode == "release" and kind == "second_order":
        world = _release_world(events, agents, obj)
    else:
        world = World(max_order=2).apply_all(events)
    answer = _answer(world, kind, agents, obj)
    if answer is None:
        raise ValueError(f"the story never places the {obj} for {agents or kind}")
    return answer
