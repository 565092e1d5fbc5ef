"""Registration's last check of a user's items: the judge credits each item's own gold answer,
and none of its wrong candidates.

The item model refuses what it can see in the fields (a name the judge splits, a tag, an
alias that reads as a wrong candidate); what only the judge's reading shows ("2" beside the
gold "two" is the same number to it) is found here, by scoring the responses themselves. An
item failing either could never be answered right, or would reward a wrong answer, so the
whole registration is refused. Built-in envs are not checked here: their golds come from the
simulator or a release, and the test suite scores them all."""

from __future__ import annotations

from collections.abc import Sequence

from tomgym.answers import SYNONYMS, phrase_of
from tomgym.answers.numbers import NUMBER_WORDS
from tomgym.items import CANDIDATE_ALIASES_KEY, PLACES_KEY, ToMItem
from tomgym.rewards import asked_candidates, gold_response, score_response

SYNONYM_WORDS = frozenset(word for group in SYNONYMS for member in group for word in member)
"""Words of the judge's household synonyms ("fridge" names the refrigerator)."""
SHOWN_PROBLEMS = 3
"""Items named in a refusal; the rest are counted."""


def wrong_candidates(item: ToMItem) -> list[str]:
    """The candidates a response may not be credited for that the judge might read as the
    gold: those sharing a word with the gold or an alias ("the drawer" for "desk drawer"), or
    where either holds a number ("room 2" for "two"). The others, which read as neither the
    gold nor an alias and share nothing with them, need no scoring; nor do a text item's
    candidates that its question names (an answer may repeat them)."""
    golds = {phrase_of(g) for g in (item.gold_text, *item.aliases)}
    gold_words = {word for phrase in golds for word in phrase}
    # numbers, household synonyms and aliases kept in the metadata: every candidate is scored
    scored_all = (
        any(_numeric(g) for g in (item.gold_text, *item.aliases))
        or not gold_words.isdisjoint(SYNONYM_WORDS)
        or CANDIDATE_ALIASES_KEY in item.metadata
        or PLACES_KEY in item.metadata
    )
    asked = asked_candidates(item) if item.answer_type == "text" else ()
    return [
        c
        for c in item.candidates
        if phrase_of(c) not in golds
        and c not in asked
        and (scored_all or _numeric(c) or not gold_words.isdisjoint(phrase_of(c)))
    ]


def _numeric(text: str) -> bool:
    """Whether ``text`` holds a digit or a number word (the judge reads numbers by value)."""
    return any(ch.isdigit() for ch in text) or any(w in NUMBER_WORDS for w in phrase_of(text))


def judging_problem(item: ToMItem) -> str | None:
    """Why the judge cannot score ``item`` as written, or None."""
    gold = score_response(gold_response(item), item)
    if not gold.correct:
        return (
            f"item {item.id!r}: its own gold {item.answer!r} is judged {gold.verdict} "
            f"({gold.detail}), so no response could be scored correct"
        )
    for candidate in wrong_candidates(item):
        response = f"<think>x</think><answer>{candidate}</answer>"
        if score_response(response, item).correct:
            return (
                f"item {item.id!r}: the wrong candidate {candidate!r} is scored correct for "
                f"the gold {item.gold_text!r} (the judge reads them as one answer: numbers by "
                "value, words without case, articles or punctuation)"
            )
    return None


def judging_problems(items: Sequence[ToMItem]) -> list[str]:
    """Every item's :func:`judging_problem`, in order."""
    return [problem for problem in map(judging_problem, items) if problem is not None]


def refusal(where: str, problems: Sequence[str], total: int) -> str:
    """The registration's error for ``problems`` among ``total`` items."""
    shown = "; ".join(problems[:SHOWN_PROBLEMS])
    more = len(problems) - SHOWN_PROBLEMS
    rest = f"; and {more} more" if more > 0 else ""
    return (
        f"{where}: {len(problems)} of {total} items cannot be judged as written: {shown}{rest}. "
        "Fix the gold or the candidates (tomgym.rewards.score_response shows how a response "
        "is read)"
    )
