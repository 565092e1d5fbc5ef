"""Shortcut baselines (``random``, ``heuristic:<name>``): what a score is worth without reasoning.

Every baseline answers in the env's tag format, so its score measures the shortcut alone.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tomgym.agents.base import FALLBACK_SOURCE, Episode, Response
from tomgym.agents.chat import tagged

from tomgym.answers import words
from tomgym.items import ToMItem
from tomgym.world.parse import (
    UnknownSentenceError,
    parse_hitom_question,
    parse_story,
    story_sentences,
)
from tomgym.world.simulator import World, simulate
from tomgym.world.tomi_solve import parse_tomi_question

MAJORITY_FIT_ITEMS = 500
"""Train items a majority baseline counts for a procedural env."""
UNKNOWN = "unknown"


# --- reading the story without reasoning -----------------------------------------------


def mentions(text: str, candidates: Sequence[str]) -> list[str]:
    """The candidates in the order the text names them (whole words; the longest name wins)."""
    tokens = words(text)
    spans: list[tuple[int, int, str]] = []
    for candidate in candidates:
        phrase = words(candidate)
        n = len(phrase)
        if not n:
            continue
        spans += [
            (i, -n, candidate)
            for i in range(len(tokens) - n + 1)
            if tokens[i] == phrase[0] and tokens[i : i + n] == phrase
        ]
    spans.sort()
    found: list[str] = []
    end = 0
    for start, minus_length, candidate in spans:
        if start >= end:
            found.append(candidate)
            end = start - minus_length
    return found


def question_object(question: str) -> str | None:
    """The object a Hi-ToM or ToMi location question asks about, or None."""
    for parse in (lambda q: parse_hitom_question(q)[1], lambda q: parse_tomi_question(q)[2]):
        try:
            return parse(question)
        except UnknownSentenceError:
            continue
    return None


def story_world(story: str) -> World | None:
    """The simulated world of a story in the Hi-ToM/ToMi sentence forms; None if it won't parse."""
    try:
        return simulate(parse_story(story), max_order=1)
    except (UnknownSentenceError, ValueError):
        return None


def object_locations(episode: Episode) -> list[str]:
    """Candidates named in the sentences about the question's object, in story order.

    Falls back to every candidate the story names when the object is unknown or unnamed.
    """
    everywhere = mentions(episode.story, episode.candidates)
    obj = question_object(episode.question)
    if obj is None:
        return everywhere
    obj_words = words(obj)
    about: list[str] = []
    for sentence in story_sentences(episode.story):
        tokens = words(sentence)
        if any(tokens[i : i + len(obj_words)] == obj_words for i in range(len(tokens))):
            about += [c for c in mentions(sentence, episode.candidates)]
    return about or everywhere


def location_guess(episode: Episode, *, last: bool) -> tuple[str, str]:
    """(answer, how): the object's last (true) or first (initial) container."""
    obj = question_object(episode.question)
    world = story_world(episode.story) if obj else None
    if world is not None and obj is not None:
        where = (world.location if last else world.initial).get(obj)
        if where is not None:
            return where, "simulator"
    named = object_locations(episode)
    if named:
        return (named[-1] if last else named[0]), "text"
    return fallback_answer(episode), FALLBACK_SOURCE


def fallback_answer(episode: Episode) -> str:
    """Something well-formed for an item the shortcut does not fit (it simply scores ~0)."""
    if episode.candidates:
        return episode.candidates[0]
    return "yes" if episode.answer_type == "yes_no" else UNKNOWN


def answer_options(episode: Episode) -> tuple[str, ...]:
    """What a random guess picks from: the candidates, yes/no, or the story's containers."""
    if episode.candidates:
        return episode.candidates
    if episode.answer_type == "yes_no":
        return ("yes", "no")
    world = story_world(episode.story)
    if world is not None and world.container_room:
        return tuple(world.container_room)
    return (UNKNOWN,)


def item_rng(seed: int, item_id: str) -> random.Random:
    """A private RNG for one item: the same guess for (seed, item) whatever came before."""
    digest = hashlib.sha256(f"tomgym-random|{seed}|{item_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# --- the baselines ---------------------------------------------------------------------


Guess = Callable[[Episode], tuple[str, str]]


def guess_first(episode: Episode) -> tuple[str, str]:
    """Probes position bias: the first candidate the story names."""
    named = mentions(episode.story, episode.candidates)
    return (named[0], "text") if named else (fallback_answer(episode), FALLBACK_SOURCE)


def guess_reality(episode: Episode) -> tuple[str, str]:
    """Probes reality bias: where the object truly is now, ignoring who saw what."""
    return location_guess(episode, last=True)


def guess_initial(episode: Episode) -> tuple[str, str]:
    """Probes the 'never saw a move' shortcut: where the object was first put."""
    return location_guess(episode, last=False)


def constant(word: str) -> Guess:
    """Probes answer-prior bias on yes/no items: always the same word."""
    return lambda episode: (word, "constant")


Key = tuple[Any, ...]


FOLDS = 2
"""An env without a train split is fitted in this many folds, each answered from the others."""


def _as_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def fold_of(item_id: str) -> int:
    """The fold of an item, a pure function of its id."""
    return hashlib.sha256(f"tomgym-fold|{item_id}".encode()).digest()[0] % FOLDS


@dataclass
class FittedGuess:
    """A shortcut that learns one statistic of the gold answers from training items.

    Fitted lazily per env (its ID and the arguments that pick its items, so a variant made
    with ``--kwarg debiased=positions`` learns from that variant's training items) on its train
    split (the first 500 items of a procedural env; all items of a fixed env). An env without a
    train split (a release or a user's file with no splits) is fitted on all its items (the
    first 500 of a procedural one) in two folds by item id, each item answered from the other
    fold: never from its own gold, and independently of it, unlike leaving the one item out,
    which on balanced labels always picks the other label (0% where chance is 50%). (A
    story's other questions may be in the other fold: on the Hi-ToM release that moves the
    majority by under a point.)
    (Its first 500 items alone would be the release's order, not its prior: OpenToM's
    multihop file opens with "more full" questions.) ``fit_on`` fits it on given items
    instead, as the shortcut audit does with the probe's training items. A subclass says which
    keys an item's gold counts for and how an episode is answered from the counts.
    """

    fit_items: int = MAJORITY_FIT_ITEMS
    counts: dict[str, Counter[Key]] = field(default_factory=dict)
    folds: dict[str, list[Counter[Key]]] = field(default_factory=dict)
    """Fit key -> the counts of each fold, for an env without a train split."""

    def keys_of(self, item: ToMItem) -> list[Key]:
        raise NotImplementedError

    def choose(self, episode: Episode, counts: Counter[Key]) -> str | None:
        raise NotImplementedError

    @staticmethod
    def own_kwargs(env_id: str, source_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
        """The arguments that make this env another variant than its ID: those that differ
        from the ID's registered ones, less the split."""
        import tomgym

        registered = tomgym.get_spec(env_id).kwargs if source_kwargs else {}

        def same(name: str, value: Any) -> bool:
            return name in registered and _as_json(registered[name]) == _as_json(value)

        return {k: v for k, v in (source_kwargs or {}).items() if k != "split" and not same(k, v)}

    @classmethod
    def fit_key(cls, env_id: str, source_kwargs: Mapping[str, Any] | None = None) -> str:
        """The env's ID, with the arguments that make it another variant if any."""
        kwargs = cls.own_kwargs(env_id, source_kwargs)
        return f"{env_id} {_as_json(kwargs)}" if kwargs else env_id

    def fit(self, env_id: str, source_kwargs: Mapping[str, Any] | None = None) -> str:
        """Fit for the env (see the class) unless already fitted; returns its fit key."""
        key = self.fit_key(env_id, source_kwargs)
        if key not in self.counts and key not in self.folds:
            import tomgym

            kwargs = self.own_kwargs(env_id, source_kwargs)
            n = self.fit_items if tomgym.get_spec(env_id).procedural else None
            try:
                items = tomgym.load_items(env_id, n=n, split="train", **kwargs)
            except (TypeError, ValueError):
                items = tomgym.load_items(env_id, n=None if n is None else self.fit_items, **kwargs)
                folds: list[Counter[Key]] = [Counter() for _ in range(FOLDS)]
                for item in items:
                    folds[fold_of(item.id)].update(self.keys_of(item))
                self.folds[key] = folds
            else:
                self._count(key, items)
        return key

    def fit_on(self, env_id: str, items: Iterable[ToMItem]) -> None:
        """Fit on ``items`` for ``env_id`` (items that are not the ones to be answered)."""
        self.folds.pop(env_id, None)
        self._count(env_id, items)

    def _count(self, key: str, items: Iterable[ToMItem]) -> None:
        counter: Counter[Key] = Counter()
        for item in items:
            counter.update(self.keys_of(item))
        self.counts[key] = counter

    def __call__(self, episode: Episode) -> tuple[str, str]:
        try:
            key = self.fit(episode.env_id, episode.source_kwargs)
        except (KeyError, ValueError, TypeError, OSError):
            return fallback_answer(episode), FALLBACK_SOURCE
        if key in self.folds:
            own = fold_of(episode.item_id)
            counter = sum((c for f, c in enumerate(self.folds[key]) if f != own), Counter())
            why = "other-fold"
        else:
            counter, why = self.counts[key], "train"
        answer = self.choose(episode, counter)
        return (answer, why) if answer is not None else (fallback_answer(episode), FALLBACK_SOURCE)


@dataclass
class MajorityGuess(FittedGuess):
    """Probes label-prior bias: the training items' most frequent gold answer of the item's
    answer type (see ``FittedGuess`` for which items): a yes/no question gets the commoner of
    yes and no, never the commonest room of the free-text questions beside it. Among an item's
    candidates it picks the one most often gold in training. On generated Hi-ToM the
    containers are drawn afresh per story, so this is near chance (1 in 15)."""

    names: dict[Key, str] = field(default_factory=dict)

    def keys_of(self, item: ToMItem) -> list[Key]:
        key = (item.answer_type, *words(item.gold_text))
        self.names.setdefault(key, item.gold_text)
        return [key]

    def choose(self, episode: Episode, counts: Counter[Key]) -> str | None:
        kind = episode.answer_type
        if episode.candidates:
            return max(episode.candidates, key=lambda c: counts[(kind,) + tuple(words(c))])
        common = [k for k, count in counts.most_common() if count > 0 and k[0] == kind]
        return self.names[common[0]] if common else None


def named_order(story: str, candidates: Sequence[str]) -> list[str]:
    """The distinct candidates in the order the story first names them."""
    return list(dict.fromkeys(mentions(story, candidates)))


@dataclass
class PositionGuess(FittedGuess):
    """Probes position bias in general: the k-th distinct candidate the story names, counted
    from its start or its end, with the position most often holding the gold in training (see
    ``FittedGuess``). ``heuristic:first`` is one fixed position of it; this one finds, say,
    that the second container named is the answer more often than any other."""

    def keys_of(self, item: ToMItem) -> list[Key]:
        named = named_order(item.story, item.candidates)
        if item.gold_text not in named:
            return []
        k = named.index(item.gold_text)
        return [("start", k), ("end", len(named) - 1 - k)]

    def choose(self, episode: Episode, counts: Counter[Key]) -> str | None:
        named = named_order(episode.story, episode.candidates)
        for (side, k), count in counts.most_common():
            if count <= 0:
                break
            if k < len(named):
                return named[k] if side == "start" else named[len(named) - 1 - k]
        return None


HEURISTICS: dict[str, Callable[[], Guess]] = {
    "first": lambda: guess_first,
    "reality": lambda: guess_reality,
    "initial": lambda: guess_initial,
    "majority": MajorityGuess,
    "position": PositionGuess,
    "yes": lambda: constant("yes"),
    "no": lambda: constant("no"),
}


def heuristic_options(spec: str) -> tuple[str, ...]:
    """The options ``heuristic:<name>`` takes: ``fit_items`` for a heuristic fitted on items
    (``majority``, ``position``), none for the others (``fit_items`` given to
    ``heuristic:reality`` was accepted and did nothing)."""
    factory = HEURISTICS.get(spec.partition(":")[2].strip())
    fitted = isinstance(factory, type) and issubclass(factory, FittedGuess)
    return ("fit_items",) if fitted else ()


@dataclass
class BaselineAgent:
    """A shortcut policy: one guess per episode, wrapped in the think/answer format (after the
    episode's prefill, as a chat model's response continues it)."""

    spec: str
    guess: Guess
    seed: int = 0
    privileged: bool = False

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        responses = []
        for episode in episodes:
            answer, how = self.guess(episode)
            text = tagged(f"Baseline {self.spec}: {how}.", answer, episode.prefill)
            # where the answer came from, kept in the run's records (the fallback of a rule
            # that did not apply is counted apart from the rule's own answers)
            responses.append(
                Response(text=text, prompt_tokens=0, completion_tokens=0, extra={"source": how})
            )
        return responses

    def describe(self) -> dict[str, Any]:
        return {"kind": "baseline", "spec": self.spec, "seed": self.seed}


def make_baseline(spec: str, options: dict[str, Any]) -> BaselineAgent:
    """``random`` (seeded by ``options["seed"]``) or ``heuristic:<name>`` (see ``HEURISTICS``)."""
    kind, _, name = (part.strip() for part in spec.partition(":"))
    seed = int(options.get("seed", 0))
    if kind == "random" and not name:

        def guess_random(episode: Episode) -> tuple[str, str]:
            """Probes chance level: a uniform pick, fixed per (seed, item)."""
            return item_rng(seed, episode.item_id).choice(answer_options(episode)), "random"

        return BaselineAgent(spec="random", guess=guess_random, seed=seed)
    if kind == "heuristic" and name in HEURISTICS:
        guess = HEURISTICS[name]()
        if isinstance(guess, FittedGuess) and "fit_items" in options:
            guess.fit_items = int(options["fit_items"])
        return BaselineAgent(spec=f"heuristic:{name}", guess=guess, seed=seed)
    raise ValueError(
        f"unknown baseline {spec!r}: use 'random' or 'heuristic:<name>' with a name from "
        f"{', '.join(sorted(HEURISTICS))}"
    )
