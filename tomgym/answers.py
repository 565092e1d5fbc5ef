"""Reading a response: the tag format, the extracted answer, and whole-word answer checking.

Everything here runs in time linear in the response: tags are found with ``str.find`` and
``str.count``, words with one non-backtracking character-class pass.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
ANSWER_OPEN, ANSWER_CLOSE = "<answer>", "</answer>"
TAGS = (THINK_OPEN, THINK_CLOSE, ANSWER_OPEN, ANSWER_CLOSE)

Verdict = Literal[
    "correct",
    "wrong",
    "no_answer",
    "several_answers",
    "empty_answer",
    "unparsable",
    "several_candidates",
    "no_candidate",
    "too_long",
]

_NON_WORD = re.compile(r"[\W_]+")
ARTICLES = frozenset({"a", "an", "the"})
YES_WORDS = frozenset({"yes"})
NO_WORDS = frozenset({"no"})
FREE_TEXT_MAX_EXTRA_WORDS = 12
"""A free-text answer with no other candidate to exclude (no list, or one holding only the
gold) may add this many words to the gold phrase: pasting the whole story names the gold too."""


def words(text: str) -> list[str]:
    """Normalised whole words: NFKC, case-folded, ``_`` and punctuation as spaces, no articles."""
    # ASCII is NFKC-stable and casefolds as lower(): the common case skips both passes.
    folded = text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).casefold()
    return [w for w in _NON_WORD.sub(" ", folded).split() if w not in ARTICLES]


@dataclass(frozen=True)
class ParsedResponse:
    """The format verdict and the extracted answer of one response."""

    format_ok: bool
    answer: str | None
    think: str | None
    problem: Verdict | None
    """Why no answer could be extracted (None when one was)."""


def parse_response(text: str, prefill: str = "") -> ParsedResponse:
    """Check the format and extract the answer block.

    The format holds when the full text (``prefill + text``) has exactly one ``<think>``, one
    ``</think>``, one ``<answer>`` and one ``</answer>``, in that order, with only whitespace
    before ``<think>`` and between ``</think>`` and ``<answer>``. The answer is the inside of
    the single answer block; several blocks, nested tags or an empty block give no answer.
    """
    full = prefill + text
    counts = {tag: full.count(tag) for tag in TAGS}
    think_open = full.find(THINK_OPEN)
    think_close = full.find(THINK_CLOSE)
    answer_open = full.find(ANSWER_OPEN)
    answer_close = full.find(ANSWER_CLOSE)
    format_ok = (
        all(c == 1 for c in counts.values())
        and 0 <= think_open < think_close < answer_open < answer_close
        and not full[:think_open].strip()
        and not full[think_close + len(THINK_CLOSE) : answer_open].strip()
    )
    think = None
    if counts[THINK_OPEN] == 1 and counts[THINK_CLOSE] == 1 and think_open < think_close:
        think = full[think_open + len(THINK_OPEN) : think_close]
    if counts[ANSWER_OPEN] == 0 or counts[ANSWER_CLOSE] == 0:
        return ParsedResponse(format_ok, None, think, "no_answer")
    if counts[ANSWER_OPEN] > 1 or counts[ANSWER_CLOSE] > 1:
        return ParsedResponse(format_ok, None, think, "several_answers")
    if answer_close < answer_open:
        return ParsedResponse(format_ok, None, think, "unparsable")
    answer = full[answer_open + len(ANSWER_OPEN) : answer_close]
    if THINK_OPEN in answer or THINK_CLOSE in answer:
        return ParsedResponse(format_ok, None, think, "unparsable")
    if not answer.strip():
        return ParsedResponse(format_ok, None, think, "empty_answer")
    return ParsedResponse(format_ok, answer.strip(), think, None)


@dataclass(frozen=True)
class Judgement:
    correct: bool
    verdict: Verdict
    detail: str


@functools.lru_cache(maxsize=1 << 16)
def _phrase(text: str) -> tuple[str, ...]:
    """``words(text)`` as a tuple, memoised: candidates and golds recur across items (a
    generated env draws them from one vocabulary), answers are never passed here."""
    return tuple(words(text))


def mentioned(tokens: Sequence[str], phrases: Mapping[str, Iterable[tuple[str, ...]]]) -> set[str]:
    """Which keys have one of their phrases in ``tokens`` as whole consecutive words.

    A mention inside a longer mention of another key does not count: with candidates
    ``box`` and ``green box``, the words "green box" name only ``green box``.
    """
    positions: dict[str, list[int]] = {}
    for i, tok in enumerate(tokens):
        positions.setdefault(tok, []).append(i)
    at, words_of = positions.get, tuple(tokens)
    spans: list[tuple[int, int, str]] = []
    for key, variants in phrases.items():
        for phrase in variants:
            starts = at(phrase[0]) if phrase else None
            if starts is None:
                continue
            n = len(phrase)
            spans.extend((s, s + n, key) for s in starts if words_of[s : s + n] == phrase)
    if not spans:
        return set()
    if all(key == spans[0][2] for _, _, key in spans):
        return {spans[0][2]}  # one key: its longest span is accepted, nothing else to decide
    # Longest first: a span strictly inside an accepted span of another key is dropped.
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    covered: list[int | None] = [None] * len(tokens)
    cover_key: dict[int, str] = {}
    found: set[str] = set()
    for span_id, (start, end, key) in enumerate(spans):
        owners = {covered[i] for i in range(start, end)}
        inside_other = (
            len(owners) == 1 and None not in owners and cover_key[owners.pop()] != key  # type: ignore[index]
        )
        if inside_other:
            continue
        found.add(key)
        for i in range(start, end):
            if covered[i] is None:
                covered[i] = span_id
        cover_key[span_id] = key
    return found


def judge_choice(
    answer: str, gold: str, candidates: Sequence[str], aliases: Sequence[str] = ()
) -> Judgement:
    """Correct only if the answer names the gold candidate and no other candidate."""
    tokens = words(answer)
    phrases: dict[str, list[tuple[str, ...]]] = {c: [_phrase(c)] for c in candidates}
    phrases.setdefault(gold, [_phrase(gold)]).extend(map(_phrase, aliases))
    named = mentioned(tokens, phrases)
    if not named:
        return Judgement(False, "no_candidate", "the answer names none of the candidates")
    if len(named) > 1:
        return Judgement(False, "several_candidates", f"the answer names {len(named)} candidates")
    if named == {gold}:
        return Judgement(True, "correct", "names the gold candidate only")
    return Judgement(False, "wrong", f"names {named.pop()!r}")


def judge_text(
    answer: str, gold: str, candidates: Sequence[str] = (), aliases: Sequence[str] = ()
) -> Judgement:
    """Free text: the gold phrase (or an alias) as whole words, and no other candidate."""
    tokens = words(answer)
    gold_phrases = [p for p in (_phrase(gold), *(_phrase(a) for a in aliases)) if p]
    others = {c: [_phrase(c)] for c in candidates if _phrase(c) and _phrase(c) not in gold_phrases}
    named = mentioned(tokens, {"__gold__": gold_phrases, **others})
    if "__gold__" not in named:
        return Judgement(False, "wrong", "the gold phrase is not in the answer")
    if len(named) > 1:
        return Judgement(False, "several_candidates", "the answer also names another candidate")
    if not others:  # nothing to exclude (no list, or the gold alone): the length is the check
        longest = max(len(p) for p in gold_phrases)
        if len(tokens) > longest + FREE_TEXT_MAX_EXTRA_WORDS:
            return Judgement(False, "too_long", f"{len(tokens)} words is too long for one answer")
    return Judgement(True, "correct", "the gold phrase, and nothing else")


def leading_yes_no(text: str) -> str | None:
    """``"yes"`` or ``"no"`` when the text starts with that word, else None."""
    tokens = words(text)
    if not tokens:
        return None
    if tokens[0] in YES_WORDS:
        return "yes"
    if tokens[0] in NO_WORDS:
        return "no"
    return None


def judge_yes_no(answer: str, gold: str) -> Judgement:
    """Judged on the answer's leading yes/no (``no:long`` and similar golds count as no)."""
    gold_value = leading_yes_no(gold)
    if gold_value is None:
        raise ValueError(f"gold answer {gold!r} of a yes/no item does not start with yes or no")
    said = leading_yes_no(answer)
    if said is None:
        return Judgement(False, "unparsable", "the answer does not start with yes or no")
    if said == gold_value:
        return Judgement(True, "correct", f"starts with {said!r}")
    return Judgement(False, "wrong", f"starts with {said!r}")


_LIST_SEPARATORS = re.compile(r"[,;\n]|\band\b|&")


def judge_names(answer: str, gold: Sequence[str]) -> Judgement:
    """A list of names: set equality after normalising each name."""
    said = {tuple(words(part)) for part in _LIST_SEPARATORS.split(answer)} - {()}
    want = {tuple(words(g)) for g in gold} - {()}
    if not said:
        return Judgement(False, "unparsable", "no names found in the answer")
    if said == want:
        return Judgement(True, "correct", "the same set of names")
    missing, extra = len(want - said), len(said - want)
    return Judgement(False, "wrong", f"{missing} name(s) missing, {extra} extra")
