"""Judging a list of names: :func:`split_names`, :func:`listed_names` and
:func:`judge_names` (set equality of the names, the words around them dropped)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tomgym.answers.tags import Judgement
from tomgym.answers.tokens import words

_LIST_SEPARATORS = re.compile(r"[,;\n/]|\b(?:and|as well as)\b|&", re.IGNORECASE)


def split_names(text: str) -> list[str]:
    """The names of a list as the judge reads one: split on commas, semicolons, newlines,
    slashes, ``and``, ``as well as`` and ``&``; blank parts dropped."""
    return [part.strip() for part in _LIST_SEPARATORS.split(text) if part.strip()]


NAME_EXCLUSIONS = frozenset({"not", "except", "excluding", "without", "never"})
"""Words that start a part of a name list excluding its names ("Ann and Bob, but not Carl"),
after an optional "but", when nothing but names follows them: not a filler word ("not only
Ann", "not to mention Carl") nor one of NOT_EXCLUDING."""
NOT_EXCLUDING = frozenset(
    {"sure", "necessarily", "mention", "forgetting", "ruling", "excluding", "that", "maybe",
     "perhaps", "possibly", "probably", "but", "or", "certain", "counting", "least", "yet",
     "even", "including", "unless", "if"}
)  # fmt: skip
"""Words after an exclusion word that make it no exclusion of names ("Bob, not sure about
Ann", "except maybe Ann", "not Carl but Dana"): the part is read as it stands, and its words
are no name of the list (reward red team)."""


def listed_names(answer: str, filler: frozenset[str]) -> set[tuple[str, ...]]:
    """The names an answer lists: its parts (:func:`split_names`), further split at numbers
    ("1. Ann 2. Bob"), the ``filler`` words around the names dropped; the names of a part that
    excludes (NAME_EXCLUSIONS, "but not Carl") are none of them, even where another part says
    them ("Ann, Bob, but not Bob" lists Ann)."""
    said: set[tuple[str, ...]] = set()
    excluded: set[tuple[str, ...]] = set()
    for part in split_names(answer):
        tokens = words(part)
        if tokens[:1] == ["but"]:
            tokens = tokens[1:]
        names = said
        if (
            tokens[:1]
            and tokens[0] in NAME_EXCLUSIONS
            and len(tokens) > 1
            and NAME_LIST_FILLER.isdisjoint(tokens[1:])
            and NOT_EXCLUDING.isdisjoint(tokens[1:])
        ):
            names, tokens = excluded, tokens[1:]
        name: list[str] = []
        for token in [*tokens, "0"]:
            if token.isdigit():  # a list's number ends a name
                names.add(tuple(name))
                name = []
            elif token not in filler:
                name.append(token)
    return said - excluded - {()}


NAME_LIST_FILLER = frozenset(
    {"only", "both", "just", "also", "all", "of", "them", "they", "the", "characters",
     "character", "people", "person", "who", "know", "knows", "knew", "about", "it", "this",
     "that", "are", "is", "were", "was", "aware", "answer", "would", "be", "those", "as",
     "well", "too", "can", "could", "answerable", "access", "have", "has", "had", "info",
     "information", "question", "to", "present", "in", "conversation", "discussion", "there",
     "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
)  # fmt: skip
"""Words around the names of a list that name nobody ("Only Ann", "Both Ann and Bob", "Ann and
Bob know about it", "The characters who know are Ann and Bob", "All three: Ann, Bob and
Carl", "Ann and Bob were in the conversation"): dropped from each part, unless a gold name
holds them. No negation, no hedge ("maybe Bob" offers two lists), no quantifier
that excludes ("all but Carl", "everyone except Carl")."""


def judge_names(answer: str, gold: Sequence[str]) -> Judgement:
    """A list of names: set equality after normalising each name and dropping the words around
    them that name nobody (NAME_LIST_FILLER); see :func:`listed_names`."""
    want = {tuple(words(g)) for g in gold} - {()}
    filler = NAME_LIST_FILLER.difference(*want)
    said = listed_names(answer, filler)
    if not said:
        return Judgement(False, "unparsable", "no names found in the answer")
    if said == want:
        return Judgement(True, "correct", "the same set of names")
    missing, extra = len(want - said), len(said - want)
    return Judgement(False, "wrong", f"{missing} name(s) missing, {extra} extra")
