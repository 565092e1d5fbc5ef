"""Hi-ToM generator on the world simulator: deterministic item i for (version, config, seed)."""

from __future__ import annotations

import _random
import functools
import hashlib
import math
import random
from collections.abc import Iterable, MutableSequence, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any, NamedTuple, TypeVar

from tomgym.world.debias import (
    MAX_TRIES,
    MIN_TRAJECTORY,
    POSITION_TRIES,
    AnswerTarget,
    first_chapter_exit_ranks,
    trajectory,
    true_location,
)
from tomgym.world.debias import SCHEMES as DEBIAS_SCHEMES
from tomgym.world.render import (
    PARAPHRASES,
    TEMPLATE_SETS,
    hitom_question,
    item_phrasing,
    render_event,
    render_story,
)
from tomgym.world.simulator import (
    WAITING_ROOM,
    Distractor,
    Enter,
    Event,
    Exit,
    Move,
    ObjectIs,
    PrivateTell,
    PublicClaim,
    Stay,
    World,
    belief_after,
)
from tomgym.world.vocab import Vocab, load_vocab

GENERATOR_VERSION = "hitom-1"
T = TypeVar("T")

N_AGENTS, N_ROOMS, N_OBJECTS, N_CONTAINERS = 5, 3, 6, 15
CONTAINERS_PER_ROOM = N_CONTAINERS // N_ROOMS
# Chapter plans by story length: (number of agents, tells in a Tell story).
CHAPTER_PLANS: dict[int, tuple[tuple[int, bool], ...]] = {
    1: ((5, True),),
    2: ((5, False), (3, True)),
    3: ((5, True), (3, False), (4, True)),
}
# At most one distractor before each real sentence, so at most as many as real sentences.
MAX_DISTRACTORS_PER_SENTENCE = 1
ANIMALS = ("cat", "dog", "monkey", "mouse")
BELONGINGS = ("watch", "gloves", "phone")


@dataclass(frozen=True)
class HiToMConfig:
    orders: tuple[int, ...] = (0, 1, 2, 3, 4)
    deception: bool | None = None
    length: int | None = None
    noise: float = 0.1
    vocab: str = "train"
    templates: str = "canonical"
    debiased: bool | str = False
    """False, or a debiasing scheme of tomgym.world.debias: "reality" (also True) or
    "positions"."""

    def __post_init__(self) -> None:
        # Types are checked and normalised first: the config names an item stream through
        # canonical(), so equal-looking values (noise 0 and 0.0, True and 1) must not differ,
        # and a value that hashes equal must not reach the item caches as another type.
        if isinstance(self.orders, int | str) or not isinstance(self.orders, Sequence):
            raise ValueError(f"orders must be a tuple of ints 0..4, got {self.orders!r}")
        if any(type(o) is not int for o in self.orders):
            raise ValueError(f"orders must be a tuple of ints 0..4, got {self.orders!r}")
        object.__setattr__(self, "orders", tuple(self.orders))
        if self.deception is not None and not isinstance(self.deception, bool):
            raise ValueError(f"deception must be True, False or None, got {self.deception!r}")
        if self.length is not None and type(self.length) is not int:
            raise ValueError(f"length must be 1, 2, 3 or None, got {self.length!r}")
        if isinstance(self.noise, bool) or not isinstance(self.noise, int | float):
            raise ValueError(f"noise must be a number in [0, 1], got {self.noise!r}")
        object.__setattr__(self, "noise", float(self.noise))
        if self.debiased is True:
            object.__setattr__(self, "debiased", "reality")
        if self.debiased is not False and self.debiased not in DEBIAS_SCHEMES:
            raise ValueError(
                f"debiased must be False, True or one of {DEBIAS_SCHEMES}, got {self.debiased!r}"
            )
        if self.templates not in TEMPLATE_SETS:
            raise ValueError(f"templates must be one of {TEMPLATE_SETS}, got {self.templates!r}")
        if self.debiased and 0 in self.orders:
            raise ValueError("debiased stories need orders 1-4 (order 0's answer is reality)")
        if not self.orders or any(o not in range(5) for o in self.orders):
            raise ValueError(f"orders must be a non-empty subset of 0..4, got {self.orders}")
        if self.length is not None and self.length not in CHAPTER_PLANS:
            raise ValueError(f"length must be 1, 2, 3 or None, got {self.length!r}")
        if not 0.0 <= self.noise <= 1.0:
            raise ValueError(f"noise must be in [0, 1], got {self.noise!r}")
        load_vocab(self.vocab)  # raises on an unknown name

    def canonical(self) -> str:
        return self._canonical

    @functools.cached_property
    def _canonical(self) -> str:
        # Made once per config (a frozen one): every draw of every item keys its RNG by it,
        # and a debiased item makes hundreds of draws.
        # The new options appear only when set, so every existing item stays byte-identical.
        return (
            f"orders={','.join(map(str, self.orders))}|deception={self.deception}"
            f"|length={self.length}|noise={self.noise!r}|vocab={self.vocab}"
            + (f"|templates={self.templates}" if self.templates != "canonical" else "")
            + ("|debiased" if self.debiased == "reality" else "")
            + ("|debiased=positions" if self.debiased == "positions" else "")
        )


@dataclass(frozen=True)
class HiToMQuestion:
    story: str
    question: str
    answer: str
    order: int
    candidates: tuple[str, ...]
    deception: bool
    length: int
    object: str
    question_agents: tuple[str, ...]
    events: tuple[Event, ...]
    uid: str


class ItemRandom(random.Random):
    """``random.Random`` whose ``choice``, ``shuffle``, ``randrange(n)``, ``randrange(a, b)``
    (so ``randint``) and ``sample`` of a list or tuple draw exactly what the standard
    library's do (the same algorithms over ``getrandbits``; tests/world/test_fast_paths.py
    checks them against it), minus the generic checks and method look-ups that dominated a
    story's cost."""

    def __init__(self, x: int) -> None:
        # random.Random.__init__ goes through the Python-level seed(); an int seeds the same
        # way straight through the C one.
        _random.Random.seed(self, x)
        self.gauss_next = None

    def choice(self, seq: Sequence[T]) -> T:  # type: ignore[override]
        n = len(seq)
        if not n:
            raise IndexError("Cannot choose from an empty sequence")
        bits, k = self.getrandbits, n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        return seq[r]

    def shuffle(self, x: MutableSequence[Any]) -> None:  # type: ignore[override]
        bits = self.getrandbits
        for i in reversed(range(1, len(x))):
            n = i + 1
            k = n.bit_length()
            j = bits(k)
            while j >= n:
                j = bits(k)
            x[i], x[j] = x[j], x[i]

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        # randrange(n) and randrange(a, b) (so randint(a, b) too) of ints, as the standard
        # library's: low + _randbelow(width); anything else, and its errors, goes to it.
        low, high = (0, start) if stop is None else (start, stop)
        if type(step) is not int or step != 1 or type(low) is not int or type(high) is not int:
            return super().randrange(start, stop, step)
        width = high - low
        if width <= 0:
            return super().randrange(start, stop, step)
        bits, k = self.getrandbits, width.bit_length()
        r = bits(k)
        while r >= width:
            r = bits(k)
        return low + r

    def sample(  # type: ignore[override]
        self, population: Sequence[T], k: int, *, counts: Iterable[int] | None = None
    ) -> list[T]:
        if counts is not None or type(population) not in (list, tuple):
            return super().sample(population, k, counts=counts)
        n = len(population)
        if not 0 <= k <= n:
            raise ValueError("Sample larger than population or is negative")
        bits = self.getrandbits
        result: list[T] = []
        if n <= _sample_set_size(k):  # as random.Random.sample: a pool, else a set
            pool = list(population)
            push = result.append
            for m in range(n, n - k, -1):
                b = _BIT_LENGTH[m] if m < _BIT_LENGTH_SIZE else m.bit_length()
                j = bits(b)
                while j >= m:
                    j = bits(b)
                push(pool[j])
                pool[j] = pool[m - 1]
        else:
            selected: set[int] = set()
            b = n.bit_length()
            for _ in range(k):
                j = bits(b)
                while j >= n or j in selected:
                    j = bits(b)
                selected.add(j)
                result.append(population[j])
        return result


_BIT_LENGTH_SIZE = 64
_BIT_LENGTH = tuple(m.bit_length() for m in range(_BIT_LENGTH_SIZE))


@functools.cache
def _sample_set_size(k: int) -> int:
    """random.Random.sample's threshold: populations up to this size are drawn from a pool."""
    return 21 + (4 ** math.ceil(math.log(k * 3, 4)) if k > 5 else 0)


def item_rng(
    kind: str, version: str, canonical: str, seed: int, index: int
) -> tuple[random.Random, str]:
    """A private RNG and a short uid, both pure functions of the arguments."""
    key = f"{kind}|{version}|{canonical}|seed={seed}|index={index}"
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    # The seed is the digest's first 128 bits, the uid its first 48 (as hex digits).
    return ItemRandom(int.from_bytes(digest[:16], "big")), f"{kind}-{digest[:6].hex()}"


def _tells(
    rng: random.Random,
    agents: list[str],
    others: list[str],
    room_cs: list[str],
    obj: str,
    truth: str,
) -> list[Event]:
    """One communication form, as in the release (a1..ak = the chapter's agents in order)."""
    tc0, tc1 = rng.sample(room_cs, 2)
    a = [""] + agents  # 1-based
    k = len(agents)
    form = rng.randrange(3 if k == 5 else 4)
    if k == 5:
        if form == 0:
            return [PublicClaim(a[3], obj, tc0), PrivateTell(a[5], a[3], obj, tc1)]
        if form == 1:
            return [PublicClaim(a[4], obj, tc0), PrivateTell(a[5], a[1], obj, truth)]
        return [PrivateTell(a[3], a[1], obj, tc0), PrivateTell(a[2], a[4], obj, tc1)]
    out = rng.choice(others)
    last = a[k]
    if form == 0:
        return [PublicClaim(a[2], obj, tc0), PrivateTell(last, a[k - 1], obj, tc1)]
    if form == 1:
        return [PublicClaim(a[3], obj, tc0), PrivateTell(a[1], last, obj, tc1)]
    if form == 2:
        return [PublicClaim(a[1], obj, tc0), PrivateTell(last, out, obj, truth)]
    return [PrivateTell(a[2], a[3], obj, tc0), PrivateTell(last, out, obj, truth)]


def _distractor(
    rng: random.Random, agents: list[str], containers: list[str], objects: list[str]
) -> Distractor:
    who = rng.choice(agents)
    kind = rng.randrange(4)
    if kind == 0:
        return Distractor(f"{who} saw a {rng.choice(ANIMALS)}.")
    if kind == 1:
        return Distractor(f"{who} lost his {rng.choice(BELONGINGS)}.")
    if kind == 2:
        return Distractor(f"{who} likes the {rng.choice(containers)}.")
    return Distractor(f"{who} dislikes the {rng.choice(objects)}.")


def _chapters(
    rng: random.Random, vocab: Vocab, length: int, deception: bool
) -> tuple[list[Event], list[str], list[str], list[str], str]:
    """The real events of a story, its agents, containers and objects, and the asked object."""
    agents = rng.sample(vocab.names, N_AGENTS)
    rooms = rng.sample(vocab.rooms, N_ROOMS)
    objects = rng.sample(vocab.objects, N_OBJECTS)
    containers = rng.sample(vocab.containers(), N_CONTAINERS)
    room_cs = [
        containers[i * CONTAINERS_PER_ROOM : (i + 1) * CONTAINERS_PER_ROOM] for i in range(N_ROOMS)
    ]
    where = {objects[2 * i + j]: room_cs[i][j] for i in range(N_ROOMS) for j in range(2)}
    events: list[Event] = []
    asked = ""
    for k, tells in CHAPTER_PLANS[length]:
        members = rng.sample(agents, k)
        r = rng.randrange(N_ROOMS)
        room = rooms[r]
        obj = rng.choice([objects[2 * r], objects[2 * r + 1]])
        asked = asked or obj
        c0 = where[obj]
        targets = [c for c in room_cs[r] if c != c0]
        rng.shuffle(targets)
        events += [Enter(tuple(members), room), ObjectIs(obj, c0, room)]
        for i, agent in enumerate(members):
            if rng.random() < 0.5:
                target = c0 if (k == N_AGENTS and i == k - 1) else targets[i]
                where[obj] = target
                events.append(Move(agent, obj, target))
            else:
                events.append(Stay(agent, room))
            events.append(Exit(agent, room))
        events.append(Enter(tuple(members), WAITING_ROOM))
        if deception and tells:
            outsiders = [a for a in agents if a not in members]
            events += _tells(rng, members, outsiders, room_cs[r], obj, where[obj])
    return events, agents, containers, objects, asked


class _Draw(NamedTuple):
    """One drawn story with every random choice of its item made (the rendering and the
    answer follow from it without further draws). A named tuple: a debiased item draws
    hundreds, and a frozen dataclass's field-by-field ``__init__`` cost twice as much."""

    events: tuple[Event, ...]
    order: int
    question_agents: tuple[str, ...]
    object: str
    candidates: tuple[str, ...]
    deception: bool
    length: int
    uid: str
    templates: str


class _Chapters(NamedTuple):
    """The first part of a draw: its real events and everything drawn before them, with the
    RNG positioned where the rest of the draw (distractors, asked agents, candidates) goes on.
    The debiasing sampler judges a draw's story from this alone (distractors touch no path),
    so the draws it turns down are never finished."""

    rng: random.Random
    uid: str
    templates: str
    noise: float
    deception: bool
    length: int
    order: int
    real: list[Event]
    agents: list[str]
    containers: list[str]
    objects: list[str]
    object: str


def _draw(config: HiToMConfig, seed: int, index: int, attempt: int = 0) -> _Draw:
    """Draw ``attempt`` of item ``index``; attempts > 0 are the debiasing sampler's tries."""
    return _finish(_draw_chapters(config, seed, index, attempt))


def _draw_chapters(config: HiToMConfig, seed: int, index: int, attempt: int) -> _Chapters:
    """The draw's first part: every draw up to and including its chapters."""
    canonical = config.canonical() + (f"|try={attempt}" if attempt else "")
    rng, uid = item_rng("hitom", GENERATOR_VERSION, canonical, seed, index)
    vocab = load_vocab(config.vocab)
    deception = config.deception if config.deception is not None else rng.random() < 0.5
    length = config.length if config.length is not None else rng.choice((1, 2, 3))
    order = rng.choice(config.orders)
    real, agents, containers, objects, obj = _chapters(rng, vocab, length, deception)
    return _Chapters(
        rng=rng,
        uid=uid,
        templates=config.templates,
        noise=config.noise,
        deception=deception,
        length=length,
        order=order,
        real=real,
        agents=agents,
        containers=containers,
        objects=objects,
        object=obj,
    )


def _finish(drawn: _Chapters) -> _Draw:
    """The rest of the draw, from where ``drawn`` left its RNG: a distractor before each
    real event with probability ``noise``, the asked agents and the candidates' order."""
    rng, agents = drawn.rng, drawn.agents
    events: list[Event] = []
    uniform, noise = rng.random, drawn.noise
    for event in drawn.real:
        if uniform() < noise:
            events.append(_distractor(rng, agents, drawn.containers, drawn.objects))
        events.append(event)
    asked = rng.sample(agents, N_AGENTS)
    order = drawn.order
    return _Draw(
        events=tuple(events),
        order=order,
        question_agents=tuple(asked[4 - order : 4]),
        object=drawn.object,
        candidates=tuple(rng.sample(drawn.containers, N_CONTAINERS)),
        deception=drawn.deception,
        length=drawn.length,
        uid=drawn.uid,
        templates=drawn.templates,
    )


def _question(
    draw: _Draw, chain: tuple[str, ...], answer: str, uid: str | None = None
) -> HiToMQuestion:
    """The drawn story rendered, with the question put to ``chain`` (answer ``answer``)."""
    # A separate stream, so the phrasing never changes which story is drawn.
    phrasing = item_phrasing(draw.templates, draw.uid)
    return HiToMQuestion(
        story=render_story(draw.events, phrasing),
        question=hitom_question(chain, draw.object),
        answer=answer,
        order=draw.order,
        candidates=draw.candidates,
        deception=draw.deception,
        length=draw.length,
        object=draw.object,
        question_agents=chain,
        events=draw.events,
        uid=uid or draw.uid,
    )


def _generate(config: HiToMConfig, seed: int, index: int) -> HiToMQuestion:
    """Item ``index`` as drawn: the question put to the draw's own chain of agents."""
    return _as_drawn(_draw(config, seed, index))


def _as_drawn(draw: _Draw) -> HiToMQuestion:
    """The draw's question, put to its own chain of agents."""
    # Beliefs of each nesting depth evolve independently, so simulating up to the asked
    # depth gives the same answer, faster; order 0 asks where the object really is, the
    # simulator's location, read off the events without simulating anyone (a quarter of
    # the training mix).
    if draw.order == 0:
        answer = true_location(draw.events, draw.object)
    else:
        answer = belief_after(
            draw.events, draw.question_agents, draw.object, max_order=max(draw.order, 1)
        )
    assert answer is not None
    return _question(draw, draw.question_agents, answer)


def generate_hitom(config: HiToMConfig, seed: int, index: int) -> HiToMQuestion:
    """Item ``index`` of the Hi-ToM stream (GENERATOR_VERSION, config, seed): a pure function."""
    if config.debiased:
        return _debiased(config, seed, index)
    return _generate(config, seed, index)


def _debiased(config: HiToMConfig, seed: int, index: int) -> HiToMQuestion:
    """The first draw whose story has a chain of asked agents meeting the item's target (see
    tomgym.world.debias): under ``reality``, its answer the true location with probability
    1/|path|, else at a uniform other place on the path; under ``positions``, its answer at a
    uniform place on the path that is the true location with probability 1/|path|; either
    way its innermost agent's first-chapter exit rank uniform. Only the kept draw is
    rendered."""
    positions = config.debiased == "positions"
    target = AnswerTarget.of("hitom-debiased-2", seed, index, N_AGENTS)
    wanted = target.answer_at_position if positions else target.answer
    fallback: tuple[_Draw, tuple[str, ...], str] | None = None
    for attempt in range(POSITION_TRIES if positions else MAX_TRIES):
        # The target needs only the object's path and where it ends up, which the real events
        # give (a distractor is on no path): most draws are turned down before their
        # distractors, asked agents and candidates are drawn (each attempt has an RNG of its
        # own, so what a turned-down draw leaves undrawn changes no other draw), and before
        # anyone's beliefs are simulated (the answer itself comes from the simulation).
        drawn = _draw_chapters(config, seed, index, attempt)
        path = trajectory(drawn.real, drawn.object)
        if len(path) < MIN_TRAJECTORY:
            continue
        real = true_location(drawn.real, drawn.object)
        want = wanted(path, real) if real is not None else None
        if want is None:
            continue
        draw = _finish(drawn)
        # Only the chains of the asked order are kept: B[chain](object) read straight from
        # the world's beliefs (World.beliefs(chain, obj) for a non-empty chain, without its
        # call and tuple copy per chain: order 4 tries 120 chains).
        world = World(max_order=draw.order, exact_order=True).apply_all(draw.events)
        believed, obj = world.belief.get, draw.object
        chains = [
            chain
            for chain in permutations(_story_agents(draw.events), draw.order)
            if believed((chain, obj)) == want
        ]
        rank = first_chapter_exit_ranks(draw.events).get
        ranked = [c for c in chains if rank(c[-1]) == target.rank]
        if ranked:
            return _asking(draw, ranked[target.pick % len(ranked)], want)
        if chains and fallback is None:
            fallback = (draw, chains[target.pick % len(chains)], want)
    if fallback:
        return _asking(*fallback)
    return _generate(config, seed, index)  # attempt 0, the plain item's own draw


def _story_agents(events: tuple[Event, ...]) -> list[str]:
    """The story's agents in the order they first enter."""
    seen: dict[str, None] = {}
    for event in events:
        if isinstance(event, Enter):
            seen.update(dict.fromkeys(event.agents))
    return list(seen)


def _asking(draw: _Draw, chain: tuple[str, ...], answer: str) -> HiToMQuestion:
    """The drawn story with the question put to another chain of agents (its own uid)."""
    digest = hashlib.sha256(f"{draw.uid}|ask={','.join(chain)}".encode()).hexdigest()
    return _question(draw, chain, answer, uid=f"hitom-{digest[:12]}")


def _longest_phrasings(templates: str) -> list[dict[str, str] | None]:
    """The canonical forms and, for a paraphrase set, its longest template of every kind."""
    if templates == "canonical":
        return [None]
    return [None, {k: max(ts, key=len) for k, ts in PARAPHRASES[templates].items()}]


def max_story_chars(config: HiToMConfig) -> int:
    """An upper bound on len(story) + len(question) over every item of the config."""
    vocab = load_vocab(config.vocab)
    name = max(map(len, vocab.names))
    room = max(map(len, [*vocab.rooms, WAITING_ROOM]))
    obj = max(map(len, vocab.objects))
    cont = max(map(len, vocab.containers()))
    longest = max(
        (
            render_event(e, phrasing)
            for phrasing in _longest_phrasings(config.templates)
            for e in (
                Enter(tuple(["N" * name] * N_AGENTS), "R" * room),
                ObjectIs("O" * obj, "C" * cont),
                Move("N" * name, "O" * obj, "C" * cont),
                Stay("N" * name, "R" * room),
                PublicClaim("N" * name, "O" * obj, "C" * cont),
                PrivateTell("N" * name, "N" * name, "O" * obj, "C" * cont),
            )
        ),
        key=len,
    )
    sentence = max(
        len(longest),
        name + len(" dislikes the .") + max(obj, cont),
        name + len(" saw a monkey."),
        name + len(" lost his gloves."),
    )
    real = max(sum(2 * k + 5 for k, _ in CHAPTER_PLANS[n]) for n in CHAPTER_PLANS)
    lines = real * (1 + MAX_DISTRACTORS_PER_SENTENCE)
    per_line = len(str(lines)) + 1 + sentence + 1  # "NN " prefix and "\n"
    question = len(hitom_question(["N" * name] * 4, "O" * obj))
    return lines * per_line + question


__all__ = [
    "GENERATOR_VERSION",
    "HiToMConfig",
    "HiToMQuestion",
    "generate_hitom",
    "max_story_chars",
]
