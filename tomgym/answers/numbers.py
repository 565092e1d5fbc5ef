"""Numbers in answers: a gold that is a number ("1", "2.5", "1,000") is named by that value,
not by its digits among other marks ("-1", "1.5" and "1-2" hold the word "1" too);
:func:`judge_number` reads an answer so for the choice and free-text judges.

Linear time: one non-backtracking pass of ``_NUMBER`` over the answer.
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

from tomgym.answers.tags import Judgement

_DIGITS = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_GOLD_NUMBER = re.compile(rf"[-\u2212]?{_DIGITS}")
_NUMBER = re.compile(
    rf"(?:\b(?P<word>minus|negative)\s+|(?<![\w.])(?P<sign>[-\u2212]))?"
    rf"(?<![\w.])(?P<digits>{_DIGITS})(?!\w|\.\d)",
    re.IGNORECASE | re.ASCII,
)
"""A number as a whole: its sign ("-1", "minus 1"), thousands ("1,000") and decimals ("1.5");
not the digits of a word ("1st", "x1") or of a longer number. A hyphen after a word or a
number joins ("x-1", "2-1"), it does not negate."""


_WORDS_0_TO_20 = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)  # fmt: skip
NUMBER_WORDS = {word: value for value, word in enumerate(_WORDS_0_TO_20)}
"""Numbers written as words, read as their values where the gold is a number ("two" for 2)."""
_NUMBER_WORD = re.compile(rf"(?<![\w'-])(?:{'|'.join(NUMBER_WORDS)})(?![\w'-])", re.IGNORECASE)
_WORD_BEFORE = re.compile(r"([a-z]+)\s+$", re.IGNORECASE)
_NO_COUNT_BEFORE_ONE = frozenset(
    {"no", "any", "some", "every", "each", "which", "the", "this", "that", "other", "another",
     "a", "an", "same", "green", "red", "blue", "only", "last", "first", "next"}
)  # fmt: skip
"""Words after which "one" is a pronoun ("no one", "the other one"), not a count."""


def with_digits(answer: str) -> str:
    """The answer with its number words written in digits ("two" as "2"; not the "one" of "no
    one" or "the green one"), for a gold that is a number."""
    if not answer.isascii() or not _NUMBER_WORD.search(answer):
        return answer

    def digits(match: re.Match[str]) -> str:
        word = match[0].lower()
        if word == "one":  # the word before it, from a short window (linear on any answer)
            before = _WORD_BEFORE.search(answer, max(0, match.start() - 40), match.start())
            if before is not None and before[1].lower() in _NO_COUNT_BEFORE_ONE:
                return match[0]
        return str(NUMBER_WORDS[word])

    return _NUMBER_WORD.sub(digits, answer)


def number_value(text: str) -> Decimal | None:
    """The value of a gold answer that is a number and nothing else ("3", "-2", "1,000"; or a
    number word, "two")."""
    text = text.strip()
    if text.lower() in NUMBER_WORDS:
        return Decimal(NUMBER_WORDS[text.lower()])
    if not _GOLD_NUMBER.fullmatch(text):
        return None
    return Decimal(text.replace(",", "").replace("\u2212", "-"))


def _folded(answer: str) -> str:
    return unicodedata.normalize("NFKC", answer) if not answer.isascii() else answer


def _value(match: re.Match[str]) -> Decimal:
    value = Decimal(match["digits"].replace(",", ""))
    return -value if match["word"] or match["sign"] else value


def numbers_said(answer: str) -> list[Decimal]:
    """The values of the numbers an answer writes, in order."""
    return [_value(match) for match in _NUMBER.finditer(_folded(answer))]


def written_as_gold(answer: str, gold: str) -> str:
    """An answer whose numbers all have the gold's value (:func:`numbers_said`), each written as
    the gold writes it ("2.0", "1000" or "minus 1" become "2", "1,000" or "-1"), for the word
    reading: the same value in other digits is the same answer, while "not 2.0" still denies
    it."""
    as_gold = gold.strip()
    return _NUMBER.sub(lambda _: as_gold, _folded(answer))


def judge_number(answer: str, gold: str) -> Judgement | str:
    """For a gold that is a number, the answer's numbers as values (:mod:`tomgym.answers.numbers`):
    wrong when none is the gold's ("-1", "1.5" for 1), several when another is beside it ("1-2",
    "1 or 2"). Otherwise the answer for the word reading to judge ("not 1"): as given when the
    gold is no number or the answer writes none, and with the gold's value written as the gold
    writes it when that is the only value it writes ("2.0" for "2", "1000" for "1,000", "two"
    for "2" and "1" for "one": number words count as their values)."""
    value = number_value(gold)
    if value is None:
        return answer
    answer = with_digits(answer)  # "two" for 2, "1" for "one"
    said = set(numbers_said(answer))
    if not said:
        return answer
    if said == {value}:
        return written_as_gold(answer, gold)
    if value not in said:
        return Judgement(False, "wrong", f"says the number {min(said)}, not {gold.strip()}")
    return Judgement(False, "several_candidates", "the answer names another number")
