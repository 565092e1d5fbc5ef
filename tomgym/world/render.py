"""Events to sentences in the Hi-ToM and ToMi release forms, and numbered story text."""

from __future__ import annotations

from collections.abc import Sequence

from tomgym.world.simulator import (
    Enter,
    Event,
    Exit,
    Move,
    ObjectIs,
    PrivateTell,
    PublicClaim,
    Stay,
)


def join_names(names: Sequence[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def render_event(event: Event) -> str:
    """The sentence for one event, as the Hi-ToM release writes it (ToMi shares the forms)."""
    if isinstance(event, Enter):
        return f"{join_names(event.agents)} entered the {event.room}."
    if isinstance(event, ObjectIs):
        return f"The {event.obj} is in the {event.container}."
    if isinstance(event, Move):
        return f"{event.agent} moved the {event.obj} to the {event.container}."
    if isinstance(event, Stay):
        return f"{event.agent} made no movements and stayed in the {event.room} for 1 minute."
    if isinstance(event, Exit):
        return f"{event.agent} exited the {event.room}."
    if isinstance(event, PublicClaim):
        # The release omits "the" before the object here.
        return f"{event.speaker} publicly claimed that {event.obj} is in the {event.container}."
    if isinstance(event, PrivateTell):
        return (
            f"{event.speaker} privately told {event.listener} that the {event.obj} "
            f"is in the {event.container}."
        )
    return event.text


def number_lines(sentences: Sequence[str], start: int = 1) -> str:
    """'1 First.\\n2 Second.' like the releases."""
    return "\n".join(f"{i} {s}" for i, s in enumerate(sentences, start))


def render_story(events: Sequence[Event]) -> str:
    return number_lines([render_event(e) for e in events])


def hitom_question(agents: Sequence[str], obj: str) -> str:
    """The Hi-ToM question of order len(agents)."""
    if not agents:
        return f"Where is the {obj} really?"
    if len(agents) == 1:
        return f"Where does {agents[0]} really think the {obj} is?"
    chain = " thinks ".join(agents[1:])
    return f"Where does {agents[0]} think {chain} thinks the {obj} is?"
