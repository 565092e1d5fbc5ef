"""Events to sentences in the Hi-ToM and ToMi release forms (or paraphrase templates), numbered."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tomgym.world.simulator import (
    Distractor,
    Enter,
    Event,
    Exit,
    Move,
    ObjectIs,
    PrivateTell,
    PublicClaim,
    Stay,
    by_type,
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


def item_phrasing(templates: str, uid: str) -> Phrasing | None:
    """An item's phrasing, drawn from its own stream ``{uid}|templates`` (so the phrasing never
    changes which story is drawn); the canonical forms draw nothing, so no stream is made."""
    if templates == "canonical":
        return None
    return choose_phrasing(templates, random.Random(f"{uid}|templates"))


_FIELDS: dict[type, Callable[[Any], tuple[str, dict[str, str]]]] = {
    Enter: lambda e: ("enter", {"agents": join_names(e.agents), "room": e.room}),
    ObjectIs: lambda e: ("object_is", {"obj": e.obj, "container": e.container}),
    Move: lambda e: ("move", {"agent": e.agent, "obj": e.obj, "container": e.container}),
    Stay: lambda e: ("stay", {"agent": e.agent, "room": e.room}),
    Exit: lambda e: ("exit", {"agent": e.agent, "room": e.room}),
    PublicClaim: lambda e: (
        "public",
        {"speaker": e.speaker, "obj": e.obj, "container": e.container},
    ),
    PrivateTell: lambda e: (
        "private",
        {"speaker": e.speaker, "listener": e.listener, "obj": e.obj, "container": e.container},
    ),
}
"""Event type -> (template kind, placeholder values) for the paraphrase templates."""

_RELEASE: dict[type, Callable[[Any], str]] = {
    Enter: lambda e: f"{join_names(e.agents)} entered the {e.room}.",
    ObjectIs: lambda e: f"The {e.obj} is in the {e.container}.",
    Move: lambda e: f"{e.agent} moved the {e.obj} to the {e.container}.",
    Stay: lambda e: f"{e.agent} made no movements and stayed in the {e.room} for 1 minute.",
    Exit: lambda e: f"{e.agent} exited the {e.room}.",
    # The release omits "the" before the object here.
    PublicClaim: lambda e: f"{e.speaker} publicly claimed that {e.obj} is in the {e.container}.",
    PrivateTell: lambda e: (
        f"{e.speaker} privately told {e.listener} that the {e.obj} is in the {e.container}."
    ),
    Distractor: lambda e: e.text,
}
"""Event type -> its sentence in the Hi-ToM release form (ToMi shares it)."""


def render_event(event: Event, phrasing: Phrasing | None = None) -> str:
    """The sentence for one event: the Hi-ToM release form (ToMi shares it), or ``phrasing``'s."""
    if phrasing is not None:
        fields = by_type(_FIELDS, event)
        if fields is not None:
            kind, values = fields(event)
            return phrasing[kind].format(**values)
    form = by_type(_RELEASE, event)
    if form is not None:
        return form(event)
    return event.text  # type: ignore[union-attr]  # a Distractor


def number_lines(sentences: Sequence[str], start: int = 1) -> str:
    """'1 First.\\n2 Second.' like the releases."""
    return "\n".join([f"{i} {s}" for i, s in enumerate(sentences, start)])


def render_story(events: Sequence[Event], phrasing: Phrasing | None = None) -> str:
    """The numbered story: ``number_lines`` of every event's sentence."""
    if phrasing is not None:
        return number_lines([render_event(e, phrasing) for e in events])
    release, lines = _RELEASE.get, []
    for i, event in enumerate(events, 1):  # render_event's release forms, without a call each
        form = release(type(event))
        lines.append(f"{i} {form(event) if form is not None else render_event(event)}")
    return "\n".join(lines)


def hitom_question(agents: Sequence[str], obj: str) -> str:
    """The Hi-ToM question of order len(agents)."""
    if not agents:
        return f"Where is the {obj} really?"
    if len(agents) == 1:
        return f"Where does {agents[0]} really think the {obj} is?"
    chain = " thinks ".join(agents[1:])
    return f"Where does {agents[0]} think {chain} thinks the {obj} is?"
