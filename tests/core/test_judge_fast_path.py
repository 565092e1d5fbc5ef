"""judge_choice (memoised candidate phrases, the one-key shortcut and tuple slicing in
``mentioned``) gives the verdicts of a plain reference: unmemoised words and the span scan as
first written, kept here on purpose as the yardstick."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from tomgym.answers import Judgement, judge_choice, words


def _reference_mentioned(
    tokens: Sequence[str], phrases: Mapping[str, Iterable[tuple[str, ...]]]
) -> set[str]:
    positions: defaultdict[str, list[int]] = defaultdict(list)
    for i, tok in enumerate(tokens):
        positions[tok].append(i)
    spans = [
        (start, start + len(phrase), key)
        for key, variants in phrases.items()
        for phrase in variants
        if phrase
        for start in positions.get(phrase[0], ())
        if tuple(tokens[start : start + len(phrase)]) == phrase
    ]
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    covered: list[int | None] = [None] * len(tokens)
    cover_key: dict[int, str] = {}
    found: set[str] = set()
    for span_id, (start, end, key) in enumerate(spans):
        owners = {covered[i] for i in range(start, end)}
        if len(owners) == 1 and None not in owners and cover_key[owners.pop()] != key:  # type: ignore[index]
            continue
        found.add(key)
        for i in range(start, end):
            if covered[i] is None:
                covered[i] = span_id
        cover_key[span_id] = key
    return found


def _reference(answer: str, gold: str, candidates: list[str], aliases: list[str]) -> Judgement:
    tokens = words(answer)
    phrases: dict[str, list[tuple[str, ...]]] = {c: [tuple(words(c))] for c in candidates}
    phrases.setdefault(gold, [tuple(words(gold))]).extend(tuple(words(a)) for a in aliases)
    named = _reference_mentioned(tokens, phrases)
    if not named:
        return Judgement(False, "no_candidate", "the answer names none of the candidates")
    if len(named) > 1:
        return Judgement(False, "several_candidates", f"the answer names {len(named)} candidates")
    if named == {gold}:
        return Judgement(True, "correct", "names the gold candidate only")
    return Judgement(False, "wrong", f"names {named.pop()!r}")


PIECES = [
    "red",
    "box",
    "red_box",
    "green",
    "the",
    "a",
    "Box",
    "BOX",
    "x1",
    "é",
    "ﬁle",
    "\n",
    "blue basket",
    "an",
    "-",
    "_",
    " ",
    "1",
    "box2",
    "bo",
    "ox",
    "Red-Box",
    "K",
]


def test_judge_choice_agrees_with_the_reference() -> None:
    rng = random.Random(0)
    for _ in range(4000):
        candidates = list(
            dict.fromkeys(
                "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 3)))
                for _ in range(rng.randint(1, 8))
            )
        )
        gold = rng.choice(candidates) if rng.random() < 0.9 else "red box"
        aliases = [rng.choice(PIECES) for _ in range(rng.randint(0, 2))]
        answer = " ".join(rng.choice(PIECES + candidates) for _ in range(rng.randint(0, 5)))
        assert judge_choice(answer, gold, candidates, aliases) == _reference(
            answer, gold, candidates, aliases
        )
