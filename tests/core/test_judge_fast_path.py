"""judge_choice's batched candidate scan gives the verdicts of the per-candidate reference."""

from __future__ import annotations

import random

from tomgym.answers import (
    Judgement,
    _phrase,
    judge_choice,
    mentioned,
    words,
)


def _reference(answer: str, gold: str, candidates: list[str], aliases: list[str]) -> Judgement:
    tokens = words(answer)
    phrases: dict[str, list[tuple[str, ...]]] = {c: [_phrase(c)] for c in candidates}
    phrases.setdefault(gold, [_phrase(gold)]).extend(_phrase(a) for a in aliases)
    named = mentioned(tokens, phrases)
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


def test_batched_candidates_agree_with_the_reference() -> None:
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
