"""Events to sentences in the Hi-ToM and ToMi release forms (or paraphrase templates), numbered."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

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


TEMPLATE_SETS = ("canonical", "train", "test")
"""``canonical``: the release forms; ``train`` and ``test``: disjoint paraphrase sets."""

EVENT_KINDS = ("enter", "object_is", "move", "stay", "exit", "public", "private")
# Placeholders: {agents} {agent} {room} {obj} {container} {speaker} {listener}. The parser
# (tomgym.world.parse) reads every template here, so a paraphrased story stays solvable.
PARAPHRASES: dict[str, dict[str, tuple[str, ...]]] = {
    "train": {
        "enter": ("{agents} walked into the {room}.", "{agents} came into the {room}."),
        "object_is": ("The {obj} sits in the {container}.", "The {obj} is inside the {container}."),
        "move": (
            "{agent} put the {obj} into the {container}.",
            "{agent} transferred the {obj} to the {container}.",
        ),
        "stay": (
            "{agent} did nothing and remained in the {room}.",
            "{agent} stayed in the {room} for a while without moving anything.",
        ),
        "exit": ("{agent} left the {room}.", "{agent} walked out of the {room}."),
        "public": (
            "{speaker} announced to everyone that the {obj} is in the {container}.",
            "{speaker} told everyone that the {obj} is in the {container}.",
        ),
        "private": (
            "{speaker} whispered to {listener} that the {obj} is in the {container}.",
            "{speaker} secretly told {listener} that the {obj} is in the {container}.",
        ),
    },
    "test": {
        "enter": ("{agents} went into the {room}.", "{agents} stepped into the {room}."),
        "object_is": ("The {obj} lies in the {container}.", "The {obj} rests in the {container}."),
        "move": (
            "{agent} relocated the {obj} to the {container}.",
            "{agent} placed the {obj} in the {container}.",
        ),
        "stay": (
            "{agent} waited in the {room} without touching anything.",
            "{agent} lingered in the {room} and moved nothing.",
        ),
        "exit": ("{agent} went out of the {room}.", "{agent} stepped out of the {room}."),
        "public": (
            "{speaker} declared in public that the {obj} is in the {container}.",
            "{speaker} said aloud to all that the {obj} is in the {container}.",
        ),
        "private": (
            "{speaker} confided to {listener} that the {obj} is in the {container}.",
            "{speaker} quietly informed {listener} that the {obj} is in the {container}.",
        ),
    },
}

Phrasing = Mapping[str, str]
"""One template per event kind (a story keeps its phrasing throughout)."""


def choose_phrasing(templates: str, rng: random.Random) -> Phrasing | None:
    """A phrasing drawn from a template set; None for the canonical release forms."""
    if templates not in TEMPLATE_SETS:
        raise ValueError(f"templates must be one of {TEMPLATE_SETS}, got {templates!r}")
    if templates == "canonical":
        return None
    return {kind: rng.choice(forms) for kind, forms in PARAPHRASES[templates].items()}


def _fields(event: Event) -> tuple[str, dict[str, str]] | None:
    if isinstance(event, Enter):
        return "enter", {"agents": join_names(event.agents), "room": event.room}
    if isinstance(event, ObjectIs):
        return "object_is", {"obj": event.obj, "container": event.container}
    if isinstance(event, Move):
        return "move", {"agent": event.agent, "obj": event.obj, "container": event.container}
    if isinstance(event, Stay):
        return "stay", {"agent": event.agent, "room": event.room}
    if isinstance(event, Exit):
        return "exit", {"agent": event.agent, "room": event.room}
    if isinstance(event, PublicClaim):
        return "public", {"speaker": event.speaker, "obj": event.obj, "container": event.container}
    if isinstance(event, PrivateTell):
        fields = {"speaker": event.speaker, "listener": event.listener}
        return "private", {**fields, "obj": event.obj, "container": event.container}
    return None


def render_event(event: Event, phrasing: Phrasing | None = None) -> str:
    """The sentence for one event: the Hi-ToM release form (ToMi shares it), or ``phrasing``'s."""
    if phrasing is not None:
        found = _fields(event)
        if found is not None:
            kind, fields = found
            return phrasing[kind].format(**fields)
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


def render_story(events: Sequence[Event], phrasing: Phrasing | None = None) -> str:
    return number_lines([render_event(e, phrasing) for e in events])


def hitom_question(agents: Sequence[str], obj: str) -> str:
    """The Hi-ToM question of order len(agents)."""
    if not agents:
        return f"Where is the {obj} really?"
    if len(agents) == 1:
        return f"Where does {agents[0]} really think the {obj} is?"
    chain = " thinks ".join(agents[1:])
    return f"Where does {agents[0]} think {chain} thinks the {obj} is?"
