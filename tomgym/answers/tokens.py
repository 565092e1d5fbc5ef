"""Tokenising an answer: its normalised whole words (:func:`words`, :func:`phrase_of`),
the clause each word is in (:func:`clause_words`), and the hedge words several readings
share."""

from __future__ import annotations

import functools
import re
import unicodedata

_NON_WORD = re.compile(r"[\W_]+")
_ASCII_NON_WORD_AS_SPACE = {c: " " for c in range(128) if not chr(c).isalnum()}
"""``_NON_WORD``'s matches among ASCII characters (all but letters and digits), as spaces."""
ARTICLES = frozenset({"a", "an", "the"})


HEDGE_WORDS = frozenset(
    {"i", "think", "guess", "believe", "suppose", "probably", "maybe", "perhaps", "obviously",
     "surely", "definitely", "certainly", "likely", "clearly", "so", "of", "course", "ok",
     "okay", "is", "it", "s", "that", "this", "m", "am", "pretty", "sure",
     "thereabouts", "exactly", "indeed", "right", "correct", "still", "again", "now", "there",
     "too", "though", "hmm", "well", "you", "see", "know", "my", "guessing", "bet", "answer",
     "final"}
)  # fmt: skip
"""Words a part of an answer may be made of without offering another answer ("box, I think",
"the box, obviously")."""


def words(text: str) -> list[str]:
    """Normalised whole words: NFKC, case-folded, ``n't`` and ``cannot`` written out ("does
    not", "can not"), ``_`` and punctuation as spaces, no articles."""
    # ASCII is NFKC-stable and casefolds as lower(): the common case skips both passes.
    if text.isascii():  # the ASCII non-word characters are exactly the non-alphanumerics
        lowered = text.lower()
        if "n't" in lowered or "cannot" in lowered:
            lowered = _expand_negations(lowered)
        spaced = lowered.translate(_ASCII_NON_WORD_AS_SPACE)
    else:
        folded = unicodedata.normalize("NFKC", text).casefold()
        if not folded.isprintable():  # invisible marks (soft hyphen, zero-width space) drop
            folded = _visible(folded)  # as in prompts
        if "n't" in folded or "n’t" in folded or "cannot" in folded:
            folded = _expand_negations(folded)
        spaced = _NON_WORD.sub(" ", folded)
    return [w for w in spaced.split() if w not in ARTICLES]


def _visible(text: str) -> str:
    """The text without invisible format marks (soft hyphen, zero-width space, joiners): every
    reading of an answer drops them, as prompts do, so "o\u200br" is "or" everywhere."""
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


_CONTRACTED_NOT = re.compile(r"\b(\w+)n['\u2019]t\b|\bcannot\b")
_IRREGULAR_NOT = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}


def _expand_negations(text: str) -> str:
    """``doesn't`` -> ``does not``, ``won't`` -> ``will not``, ``cannot`` -> ``can not``: the
    dataset's "does not know about it" and an answer's "doesn't know about it" are one phrase."""

    def expand(match: re.Match[str]) -> str:
        stem = match.group(1)
        if stem is None:
            return "can not"
        return f"{_IRREGULAR_NOT.get(stem, stem)} not"

    return _CONTRACTED_NOT.sub(expand, text)


@functools.lru_cache(maxsize=1 << 16)
def phrase_of(text: str) -> tuple[str, ...]:
    """``words(text)`` as a tuple, memoised: candidates and golds recur across items (a
    generated env draws them from one vocabulary), answers are never passed here."""
    return tuple(words(text))


_CLAUSE_BREAKS = re.compile(r"[,;:.!?()\[\]\n]+")


def clause_words(text: str, breaks: re.Pattern[str]) -> tuple[list[str], list[int]]:
    """The text's words (as :func:`words` gives them) and the number of the clause each is in,
    clauses split at ``breaks`` (non-word characters, so the words are those of the whole)."""
    tokens: list[str] = []
    clause_of: list[int] = []
    for number, clause in enumerate(breaks.split(text)):
        found = words(clause)
        tokens += found
        clause_of += [number] * len(found)
    return tokens, clause_of
