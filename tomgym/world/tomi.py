"""ToMi generator on the world simulator, in the Clever-Hans (or coloured fb) sentence forms."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tomgym.world.debias import index_target, placements, rejection_sample
from tomgym.world.hitom import item_rng
from tomgym.world.render import (
    PARAPHRASES,
    TEMPLATE_SETS,
    item_phrasing,
    render_event,
    render_story,
)
from tomgym.world.simulator import Distractor, Enter, Event, Exit, Move, ObjectIs, World
from tomgym.world.tomi_solve import parse_tomi_question, solve_tomi
from tomgym.world.vocab import load_vocab

GENERATOR_VERSION = "tomi-1"
STORY_TYPES = ("true_belief", "false_belief", "second_order_false_belief")
QUESTION_TYPES = ("memory", "reality", "first_order", "second_order")
FEELINGS = ("likes", "dislikes", "loves", "hates")
MAX_NOISE, MAX_DISTRACTOR_EVENTS, MAX_ACTIONS = 2, 2, 4
# Actions after the entries, per story type: "move" (a1 moves the object), "out" (a2 exits),
# "back"/"away" (a2 re-enters the room / goes to the other room), "a1out" (a1 exits).
PLANS: dict[str, tuple[tuple[str, ...], ...]] = {
    "true_belief": (
        ("move", "out"),
        ("move", "out", "back"),
        ("move", "out", "away"),
        ("out", "back", "move"),
        ("out", "away", "move"),
    ),
    "false_belief": (("out", "move"), ("out", "move", "back"), ("out", "move", "away")),
    "second_order_false_belief": (
        ("move", "out", "a1out", "back"),
        ("move", "out", "a1out", "away"),
        ("out", "move", "a1out", "back"),
        ("out", "move", "a1out", "away"),
    ),
}


@dataclass(frozen=True)
class ToMiConfig:
    question_types: tuple[str, ...] = QUESTION_TYPES
    coloured: bool = False  # False: Clever-Hans containers ("box"); True: fb ("green_box")
    vocab: str = "train"
    templates: str = "canonical"
    debiased: bool = False

    def __post_init__(self) -> None:
        # As HiToMConfig: the config names an item stream, so types are checked first.
        if isinstance(self.question_types, str) or not isinstance(self.question_types, Sequence):
            raise ValueError(
                f"question_types must be a tuple of names from {QUESTION_TYPES}, "
                f"got {self.question_types!r}"
            )
        object.__setattr__(self, "question_types", tuple(self.question_types))
        for name in ("coloured", "debiased"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        bad = [q for q in self.question_types if q not in QUESTION_TYPES]
        if not self.question_types or bad:
            raise ValueError(f"question_types must be a non-empty subset of {QUESTION_TYPES}")
        if self.templates not in TEMPLATE_SETS:
            raise ValueError(f"templates must be one of {TEMPLATE_SETS}, got {self.templates!r}")
        if self.debiased and {"memory", "reality"} & set(self.question_types):
            raise ValueError("debiased stories need belief questions (first_order, second_order)")
        load_vocab(self.vocab)

    def canonical(self) -> str:
        return self._canonical

    @functools.cached_property
    def _canonical(self) -> str:
        # Made once per config (a frozen one): every draw of every item keys its RNG by it,
        # and a debiased item makes hundreds of draws.
        # The new options appear only when set, so every existing item stays byte-identical.
        return (
            f"qt={','.join(self.question_types)}|coloured={self.coloured}|vocab={self.vocab}"
            + (f"|templates={self.templates}" if self.templates != "canonical" else "")
            + ("|debiased" if self.debiased else "")
        )


@dataclass(frozen=True)
class ToMiQuestion:
    story: str
    question: str
    answer: str
    question_type: str
    question_index: int  # 0 when the (first) questioned agent entered first
    story_type: str
    tom: bool
    candidates: tuple[str, ...]
    object: str
    question_agents: tuple[str, ...]
    events: tuple[Event, ...]
    uid: str


def tomi_question(kind: str, agents: tuple[str, ...], obj: str) -> str:
    if kind == "memory":
        return f"Where was the {obj} at the beginning?"
    if kind == "reality":
        return f"Where is the {obj} really?"
    if kind == "first_order":
        return f"Where will {agents[0]} look for the {obj}?"
    return f"Where does {agents[0]} think that {agents[1]} searches for the {obj}?"


def _insert(rng: random.Random, events: list[Event], extra: Event, low: int = 0) -> int:
    at = rng.randint(low, len(events))
    events.insert(at, extra)
    return at


def _story(
    rng: random.Random, config: ToMiConfig, story_type: str
) -> tuple[list[Event], list[str], str, list[str]]:
    vocab = load_vocab(config.vocab)
    a1, a2, a3 = rng.sample(vocab.names, 3)
    room, other = rng.sample(vocab.rooms, 2)
    obj, *spare = rng.sample(vocab.objects, 1 + MAX_NOISE)
    c1, c2 = rng.sample(vocab.containers(config.coloured), 2)
    first, second = rng.sample([a1, a2], 2)
    events: list[Event] = [Enter((first,), room), Enter((second,), room), ObjectIs(obj, c1, room)]
    for step in rng.choice(PLANS[story_type]):
        if step == "move":
            events.append(Move(a1, obj, c2))
        elif step == "out":
            events.append(Exit(a2, room))
        elif step == "back":
            events.append(Enter((a2,), room))
        elif step == "away":
            events.append(Enter((a2,), other))
        else:
            events.append(Exit(a1, room))
    n_distractor = rng.randrange(MAX_DISTRACTOR_EVENTS + 1)
    if n_distractor:
        where = rng.choice([room, other])
        at = _insert(rng, events, Enter((a3,), where))
        if n_distractor == 2:
            _insert(rng, events, Exit(a3, where), at + 1)
    for i in range(rng.randrange(MAX_NOISE + 1)):
        who = rng.choice([a1, a2, a3])
        _insert(rng, events, Distractor(f"{who} {rng.choice(FEELINGS)} the {spare[i]}"))
    return events, [first, second], obj, [c1, c2]


def generate_tomi(config: ToMiConfig, seed: int, index: int) -> ToMiQuestion:
    """Item ``index``: story type index % 3 (balanced), question drawn from the config's types.

    Debiased: the answer is the true location for half the indices (so the reality and
    initial-location shortcuts are at 1/2), and the asked agent entered first for half.
    """
    if not config.debiased:
        return _render(_draw(config, seed, index))
    target = index_target("tomi", seed, index)
    want_real, want_first = bool(target % 2), bool((target // 2) % 2)
    return _render(
        rejection_sample(
            lambda attempt: _draw(config, seed, index, attempt),
            lambda d: (not d.tom) == want_real,
            lambda d: (d.question_index == 0) == want_first,
        )
    )


class _Draw(NamedTuple):
    """One item with every random choice made and its answer simulated, not yet rendered: the
    debiasing sampler judges draws by ``tom`` and ``question_index`` alone, so only the kept
    one is rendered (the phrasing has a stream of its own, so rendering draws nothing here)."""

    events: list[Event]
    question_type: str
    question_agents: tuple[str, ...]
    object: str
    answer: str
    question_index: int
    story_type: str
    tom: bool
    candidates: tuple[str, ...]
    uid: str
    templates: str


def _draw(config: ToMiConfig, seed: int, index: int, attempt: int = 0) -> _Draw:
    canonical = config.canonical() + (f"|try={attempt}" if attempt else "")
    rng, uid = item_rng("tomi", GENERATOR_VERSION, canonical, seed, index)
    story_type = STORY_TYPES[(index + attempt) % len(STORY_TYPES)]
    events, entered, obj, containers = _story(rng, config, story_type)
    kind = rng.choice(config.question_types)
    agents: tuple[str, ...] = ()
    if kind == "first_order":
        agents = (rng.choice(entered),)
    elif kind == "second_order":
        agents = tuple(rng.sample(entered, 2))
    answer: str | None
    if kind in ("memory", "reality"):
        # No one's belief is asked (half the questions): the first and last placements are the
        # simulator's initial and true locations, read off the events without simulating.
        placed = placements(events, obj)
        answer, location = placed[0] if kind == "memory" else placed[-1], placed[-1]
    else:
        # Only the asked belief is kept (the true and first locations are always known).
        world = World(max_order=2, focus=(agents, obj)).apply_all(events)
        answer, location = world.beliefs(agents, obj), world.location[obj]
    assert answer is not None
    return _Draw(
        events=events,
        question_type=kind,
        question_agents=agents,
        object=obj,
        answer=answer,
        question_index=entered.index(agents[0]) if agents else 0,
        story_type=story_type,
        tom=answer != location,
        candidates=tuple(rng.sample(containers, 2)),
        uid=uid,
        templates=config.templates,
    )


def _render(draw: _Draw) -> ToMiQuestion:
    """The drawn item's story and question as text."""
    phrasing = item_phrasing(draw.templates, draw.uid)
    return ToMiQuestion(
        story=render_story(draw.events, phrasing),
        question=tomi_question(draw.question_type, draw.question_agents, draw.object),
        answer=draw.answer,
        question_type=draw.question_type,
        question_index=draw.question_index,
        story_type=draw.story_type,
        tom=draw.tom,
        candidates=draw.candidates,
        object=draw.object,
        question_agents=draw.question_agents,
        events=tuple(draw.events),
        uid=draw.uid,
    )


def max_story_chars(config: ToMiConfig) -> int:
    """An upper bound on len(story) + len(question) over every item of the config."""
    vocab = load_vocab(config.vocab)
    name, obj = max(map(len, vocab.names)), max(map(len, vocab.objects))
    room = max(map(len, vocab.rooms))
    cont = max(map(len, vocab.containers(config.coloured)))
    phrasings: list[dict[str, str] | None] = [None]
    if config.templates != "canonical":
        phrasings.append({k: max(ts, key=len) for k, ts in PARAPHRASES[config.templates].items()})
    sentence = max(
        *(
            len(render_event(e, phrasing))
            for phrasing in phrasings
            for e in (
                Move("N" * name, "O" * obj, "C" * cont),
                ObjectIs("O" * obj, "C" * cont),
                Enter(("N" * name,), "R" * room),
                Exit("N" * name, "R" * room),
            )
        ),
        name + len(" dislikes the ") + obj,
    )
    lines = 3 + MAX_ACTIONS + MAX_DISTRACTOR_EVENTS + MAX_NOISE
    question = len(tomi_question("second_order", ("N" * name,) * 2, "O" * obj))
    return lines * (len(str(lines)) + 1 + sentence + 1) + question


__all__ = [
    "GENERATOR_VERSION",
    "ToMiConfig",
    "ToMiQuestion",
    "generate_tomi",
    "max_story_chars",
    "parse_tomi_question",
    "solve_tomi",
]
