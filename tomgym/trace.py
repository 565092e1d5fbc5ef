"""Trace fidelity: the belief claims in a response's reasoning, checked against the simulator.

Claims ("A thinks B thinks the O is in the C.", "The O is now in the C.", "A would look for
the O in the C.") are read sentence by sentence with plain token logic (no regex search over
the whole text), then judged on the story's final state: right, wrong, or irrelevant (an
agent chain or object the question does not need).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from tomgym.world.parse import NAME, UnknownSentenceError, parse_hitom_question, parse_story
from tomgym.world.simulator import Enter, Event, Move, ObjectIs, PrivateTell, PublicClaim, World
from tomgym.world.solve import hitom_world
from tomgym.world.tomi_solve import parse_tomi_question, tomi_world

TRACE_FAMILIES = ("hitom", "tomi")
MAX_TRACE_CHARS = 20_000
"""Only the first characters of a reasoning text are read (bounds the cost per response)."""

_SENTENCE_END = re.compile(r"[.!?;\n]+")
_TOKEN = re.compile(NAME)
BELIEF_VERBS = frozenset(
    {"thinks", "think", "believes", "believe", "assumes", "assume", "expects", "expect",
     "knows", "know", "searches", "search", "looks", "look", "would", "will", "suspects"}
)  # fmt: skip
FILLER = frozenset({"that", "really", "still", "probably", "also", "now", "the", "then", "so"})
NEGATIONS = frozenset({"not", "no", "never", "doesn't", "don't", "isn't", "wasn't", "nor"})
PAST_MARKERS = frozenset({"was", "were", "initially", "originally", "beginning", "previously"})
PLACE_PREPOSITIONS = frozenset({"in", "inside", "into", "at", "on"})
ARTICLES = frozenset({"the", "a", "an"})
NOT_PLACES = frozenset(
    {"it", "there", "here", "same", "room", "place", "container", "one", "his", "her", "their",
     "its", "this", "that", "which", "what", "where", "front", "back", "middle", "other",
     "another", "some", "any", "each", "order", "fact", "case", "story", "end", "mind"}
)  # fmt: skip
"""Words after "in (the)" that name no place ("in the same place", "in his mind")."""


@dataclass(frozen=True)
class Claim:
    """``agents`` (outermost first; empty: reality) think ``obj`` is in ``container``."""

    agents: tuple[str, ...]
    obj: str
    container: str
    sentence: str


@dataclass
class TraceScore:
    """Claims found in a trace and how they fare against the simulator.

    ``right`` and ``wrong`` count distinct belief chains of the question, not sentences: a
    chain is right when every claim about it names the simulator's container, wrong when any
    does not (two containers for one chain is a contradiction, not a hedge that is half
    right). Repeating a right sentence adds nothing.
    """

    right: int = 0
    wrong: int = 0
    irrelevant: int = 0
    claims: list[tuple[Claim, str]] = field(default_factory=list)
    needed: int = 0
    """How many chains the question's reasoning goes through (its chain, every inner part of
    it, and reality): what a complete trace states."""
    answer_chain_right: bool = False
    """The question's own chain is claimed, and rightly."""

    @property
    def relevant(self) -> int:
        return self.right + self.wrong

    @property
    def n_claims(self) -> int:
        return len(self.claims)

    @property
    def fidelity(self) -> float | None:
        """Share of the claimed chains that are right; None when there is none."""
        return self.right / self.relevant if self.relevant else None

    @property
    def reward(self) -> float:
        """The reward part: the needed chains stated rightly less those stated wrongly, as a
        share of the needed chains, paid only when the question's own chain is one of the right
        ones. A true but easy claim (where the object is now) earns nothing on its own, listing
        containers earns nothing, and guessing a chain costs what stating it rightly pays (the
        answer's container claimed for every chain was worth 60-90% of a full trace)."""
        if not self.answer_chain_right or not self.needed:
            return 0.0
        return max(0.0, (self.right - self.wrong) / self.needed)


@dataclass(frozen=True)
class Vocabulary:
    """The story's agents, objects and containers (lower-cased token -> spelling)."""

    agents: dict[str, str]
    objects: dict[str, str]
    containers: dict[str, str]
    spaced: tuple[tuple[str, str], ...]
    """("green drawer", "green_drawer"): multi-word spellings a model may write."""
    places: frozenset[str] = frozenset()
    """The story's rooms, agents and objects: words after "in the" that are not containers."""


def _vocabulary(
    world: World, events: Sequence[Event] = (), candidates: Sequence[str] = ()
) -> Vocabulary:
    """What the world knows, plus containers only ever claimed (``events``) and the item's
    candidate answers (containers of the vocabulary that the story never uses)."""
    containers = list(world.container_room)
    containers += [
        e.container for e in events if isinstance(e, PublicClaim | PrivateTell | ObjectIs | Move)
    ]
    containers += [c for c in candidates if c and " " not in c.strip()]
    names = [*world.location, *containers]
    rooms = {r for r in world.container_room.values() if r}
    rooms |= {e.room for e in events if isinstance(e, Enter)}
    return Vocabulary(
        agents={a.lower(): a for a in world.agents},
        objects={o.lower(): o for o in world.location},
        containers={c.lower(): c for c in containers},
        spaced=tuple((n.lower().replace("_", " "), n.lower()) for n in names if "_" in n),
        places=frozenset(x.lower() for x in (*rooms, *world.agents, *world.location)),
    )


def _claim(sentence: str, vocab: Vocabulary) -> Claim | None:
    """The claim one sentence makes, or None (narration, negation, history or no container)."""
    text = sentence.lower()
    for spaced, joined in vocab.spaced:
        text = text.replace(spaced, joined)
    tokens = _TOKEN.findall(text)
    if any(t in NEGATIONS or t.endswith("n't") for t in tokens):
        return None
    obj_at = next((i for i, t in enumerate(tokens) if t in vocab.objects), None)
    if obj_at is None:
        return None
    after = [t for t in tokens[obj_at + 1 :] if t in vocab.containers]
    if not after:
        after = _unknown_place(tokens[obj_at + 1 :], vocab)
    if len(after) != 1:  # none, or "moved from X to Y": ambiguous
        return None
    agents: list[str] = []
    verb_after_each = True
    prefix = tokens[:obj_at]
    for i, t in enumerate(prefix):
        if t in vocab.agents:
            agents.append(vocab.agents[t])
            rest = [w for w in prefix[i + 1 :] if w not in FILLER]
            verb_after_each &= bool(rest) and rest[0] in BELIEF_VERBS
        elif t not in FILLER and t not in BELIEF_VERBS and t not in ("for", "where", "in"):
            return None  # "A moved the O", "after A left, the O ...": narration, not belief
    if not verb_after_each:
        return None
    if not agents and any(t in PAST_MARKERS for t in tokens):
        return None  # a statement about the past, not the current location
    container = vocab.containers.get(after[0], after[0])
    return Claim(tuple(agents), vocab.objects[tokens[obj_at]], container, sentence)


def _unknown_place(tokens: Sequence[str], vocab: Vocabulary) -> list[str]:
    """The word after "in (the)" when it is none of the story's containers, rooms, agents or
    objects: a claim that the object is somewhere the story never puts it is a claim, and a
    wrong one, not a sentence to pass over (a second, made-up container for a chain was not
    seen, so the chain's right claim was paid in full)."""
    for i, token in enumerate(tokens[:-1]):
        if token not in PLACE_PREPOSITIONS:
            continue
        j = i + 1
        while j < len(tokens) and tokens[j] in ARTICLES:
            j += 1
        if j < len(tokens):
            place = tokens[j]
            if place in vocab.places or place in FILLER or place in NOT_PLACES:
                return []
            if not place[:1].isalpha():
                return []
            return [place]
    return []


def parse_claims(
    text: str, world: World, events: Sequence[Event] = (), candidates: Sequence[str] = ()
) -> list[Claim]:
    """Every belief claim in ``text`` about the world's agents and objects: in one of the
    world's containers, one the ``events`` mention, one of the ``candidates``, or any other
    place named after "in (the)" (a wrong claim, since the story never puts anything there)."""
    vocab = _vocabulary(world, events, candidates)
    claims = []
    for sentence in _SENTENCE_END.split(text[:MAX_TRACE_CHARS]):
        claim = _claim(sentence.strip(), vocab)
        if claim is not None:
            claims.append(claim)
    return claims


def _question(question: str, family: str) -> tuple[tuple[str, ...], str, bool]:
    """(chain, object, whether claims about the present can be judged for it): a ToMi memory
    question asks where the object was at the beginning, which present-tense claims do not
    state, so its trace is not judged."""
    if family == "hitom":
        chain, obj = parse_hitom_question(question)
        return chain, obj, True
    kind, agents, obj = parse_tomi_question(question)
    return agents, obj, kind != "memory"


def trace_fidelity(
    story: str, question: str, think_text: str, family: str, candidates: Sequence[str] = ()
) -> TraceScore:
    """Judge the belief claims of ``think_text`` against the simulated story.

    A claim is relevant when it is about the question's object and its agents are the
    question's chain or an inner part of it, or reality (what the oracle's reasoning states);
    each claim is labelled right when the simulator's belief for its chain is the claimed
    container, and the counts are per chain (see ``TraceScore``).
    """
    if family not in TRACE_FAMILIES:
        raise ValueError(
            f"trace fidelity needs a simulated family {TRACE_FAMILIES}, not {family!r}"
        )
    world = hitom_world(story) if family == "hitom" else tomi_world(story)
    events = parse_story(story)
    chain, obj, traceable = _question(question, family)
    needed = {chain[i:] for i in range(len(chain) + 1)} if traceable else set()
    score = TraceScore(needed=len(needed))
    containers: dict[tuple[str, ...], set[str]] = {}
    for claim in parse_claims(think_text, world, events, candidates):
        if claim.obj != obj or claim.agents not in needed:
            score.claims.append((claim, "irrelevant"))
            score.irrelevant += 1
            continue
        containers.setdefault(claim.agents, set()).add(claim.container)
        right = world.beliefs(claim.agents, claim.obj) == claim.container
        score.claims.append((claim, "right" if right else "wrong"))
    for agents, said in containers.items():
        if said == {world.beliefs(agents, obj)}:
            score.right += 1
            score.answer_chain_right |= agents == chain
        else:
            score.wrong += 1
    return score


def safe_trace_fidelity(
    story: str, question: str, think_text: str, family: str, candidates: Sequence[str] = ()
) -> TraceScore:
    """``trace_fidelity``, or an empty score when the story or question does not parse."""
    try:
        return trace_fidelity(story, question, think_text, family, candidates)
    except (UnknownSentenceError, ValueError):
        return TraceScore()


__all__ = ["Claim", "TraceScore", "parse_claims", "safe_trace_fidelity", "trace_fidelity"]
