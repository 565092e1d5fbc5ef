"""Hedges of an answer that names the gold: another candidate elided beside it
(:func:`elided_candidate`), the gold asked about, or taken back (:func:`hedges`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from tomgym.answers.asides import _NOT_ALTERNATIVES
from tomgym.answers.mentions import _elided_parts, own_spans
from tomgym.answers.negation import (
    NEGATION_REACH,
    REFUTATION_CUES,
    _excluded_at,
    _is_negation,
    _refuted_after,
)
from tomgym.answers.tokens import _CLAUSE_BREAKS, clause_words
from tomgym.answers.yes_no import _YES_NO_CLAUSES, TAKING_BACK_LEADS

COORDINATORS = frozenset({"or", "and", "vs", "versus"})
"""Words that join two answers, which may share a word written once: "blue or green basket" is
the blue basket and the green basket (see :func:`elided_candidate`)."""
ALTERNATIVE_CUES = COORDINATORS | frozenset(
    {"maybe", "perhaps", "possibly", "probably", "if", "unless", "though", "either",
     "otherwise", "else"}
)  # fmt: skip
"""Words that, between the gold and a word of another candidate written once, offer that
candidate as a second answer ("the green basket, or maybe the blue one", "green basket (maybe
blue)", "green basket, if not blue", "green basket, though it could also be the blue one")."""
ALTERNATIVE_LEAD = ALTERNATIVE_CUES | frozenset(
    {"could", "might", "may", "also", "be", "it", "s", "even", "just", "well", "as", "not",
     "its", "her", "his", "their"}
)  # fmt: skip
"""Words a lead to such a second answer may be made of (one of ALTERNATIVE_CUES among them;
"not" only right after "if": "green basket, not blue" excludes the blue one; "green basket or
its blue twin")."""
ALTERNATIVE_NOUN_CUES = ALTERNATIVE_CUES - {"and", "if", "unless", "though"}
"""Cues after which another candidate's word may stand before one more word that ends the
clause ("green basket, or its blue twin", "green basket, possibly the blue thing"): "and"
joins descriptions ("green basket and blue lid"), "though" and "if" asides."""
ALTERNATIVE_TAIL = frozenset(
    {"also", "possible", "too", "maybe", "perhaps", "possibly", "likely", "though"}
)
"""Words after another candidate's word, set apart from the gold by a mark, that offer it:
"green basket; blue also possible"."""
_ELISION_MARKS = re.compile(r"[^\w\s'\u2019]+")
"""Marks that set a word apart from the one before it ("green basket/cabinet"); not an
apostrophe, which ``n't`` needs."""
OPEN_QUESTION_WORDS = frozenset({"whether", "if"})
"""Words that, at most NEGATION_REACH words before a mention in its clause, ask about it
rather than affirm it: "no idea whether she knows about it" offers both answers."""


def elided_candidate(
    tokens: Sequence[str],
    clauses: Callable[[], tuple[Sequence[int], Sequence[int]]],
    gold_spans: Iterable[tuple[int, int]],
    others: Mapping[str, Sequence[tuple[str, ...]]],
) -> str | None:
    """Another candidate the answer names by writing a word it shares with the gold once, beside
    a mention of the gold (``tokens[s:e]`` for each of ``gold_spans``): the other's own words
    before the gold's when they share their last words ("blue or green basket", "blue/green
    basket", "more or less full" name the blue basket, the more full), after it, joined by
    COORDINATORS and ending the clause ("green basket or blue", "does know or does not"), or
    the other's own words after the gold's when they share their first words ("green basket
    or cabinet", "green basket/cabinet", "green basket, cabinet"), set apart by a coordinator
    or a mark ("she knows nothing about it" offers no "knows about it") unless one word
    stands for one ("green basket cabinet"), and ending the clause. Only a reading that gives
    back another candidate counts ("the green basket, which is blue-lidded" names one), and
    not one excluded as a mention would be ("not blue, the green basket"). ``clauses`` gives,
    when a reading needs them, the clause of each word (split at _CLAUSE_BREAKS) and its piece
    (split at _ELISION_MARKS)."""
    n = len(tokens)

    def ends_clause(at: int) -> bool:  # the words before ``at`` end their clause
        return at >= n or clauses()[0][at] != clauses()[0][at - 1] or tokens[at] in ("one", "ones")

    def affirmed(at: int) -> bool:  # a mention starting at ``at`` is not excluded
        return not _excluded_at(tokens, clauses()[0], at)

    def after_lead(at: int) -> tuple[int, bool, bool]:
        """Where the words after ``at``'s lead (ALTERNATIVE_LEAD) start, whether the lead
        offers a second answer (one of ALTERNATIVE_CUES in it) and whether it offers one that
        a noun may follow (one of ALTERNATIVE_NOUN_CUES)."""
        start, cued, noun_cued = at, False, False
        while start < n and tokens[start] in ALTERNATIVE_LEAD:
            if tokens[start] == "not" and (start == at or tokens[start - 1] != "if"):
                break
            cued = cued or tokens[start] in ALTERNATIVE_CUES
            noun_cued = noun_cued or tokens[start] in ALTERNATIVE_NOUN_CUES
            start += 1
        return start, cued, noun_cued

    def one_more_word(at: int) -> bool:  # a noun-like word at ``at`` that ends the clause
        return (  # not a compound's ("perhaps blue-lidded")
            at < n
            and ends_clause(at + 1)
            and not set_apart(at)
            and tokens[at].isalpha()
            and tokens[at] not in _NOT_ALTERNATIVES
            and not _is_negation(tokens, at)
        )

    def refuted(at: int) -> bool:  # the words from ``at`` refute the elided mention
        return not REFUTATION_CUES.isdisjoint(tokens[at:]) and _refuted_after(
            tokens, clauses()[0], at
        )

    def set_apart(at: int) -> bool:  # a mark between ``at`` and the word before it
        return clauses()[1][at] != clauses()[1][at - 1]

    def offered_tail(at: int) -> bool:  # "one(s)" or ALTERNATIVE_TAIL words, ending the clause
        if at < n and tokens[at] in ("one", "ones"):
            return True
        end = at
        while end < n and tokens[end] in ALTERNATIVE_TAIL and not (end > at and ends_clause(end)):
            end += 1
        return end > at and ends_clause(end)

    gold_spans = list(gold_spans)

    def in_gold(start: int, end: int) -> bool:
        """The words are part of a gold mention: the "has" of "has never heard" offers no "has
        heard" beside the "never heard" inside it."""
        return any(s < end and start < e for s, e in gold_spans)

    for s, e in gold_spans:
        gold = tuple(tokens[s:e])
        for key, phrases in others.items():
            for other in phrases:
                own, rest, first = _elided_parts(gold, other)
                # before the gold: "blue or green basket", "blue, red or green basket"
                at = s
                while own:
                    start = at - (at > 0 and tokens[at - 1] in COORDINATORS) - len(own)
                    if start < 0 or tuple(tokens[start : start + len(own)]) != own:
                        break
                    if affirmed(start) and not in_gold(start, start + len(own)):
                        return key
                    at = start
                if e >= n:
                    continue
                start, cued, noun_cued = after_lead(e)
                if start > e and not cued:
                    continue
                # after it, joined or hedged: "green basket or blue", "does know or does not",
                # "the green basket, or maybe the blue one", "green basket, if not blue";
                # set apart by a mark: "the green basket/blue one", "green basket; blue too"
                end = start + len(own)
                if (
                    own
                    and end <= n
                    and tuple(tokens[start:end]) == own
                    and (
                        ends_clause(end)
                        or tokens[end] in COORDINATORS  # "(either blue or ..."
                        or (noun_cued and one_more_word(end))  # "or its blue twin"
                        if start > e
                        else set_apart(e) and (offered_tail(end) or ends_clause(end))
                    )
                    and not refuted(end)
                ):
                    return key
                # "green basket or cabinet", "green basket/cabinet", "green basket, or maybe
                # the cabinet"
                end = start + len(rest)
                if (
                    rest
                    and end <= n
                    and tuple(tokens[start:end]) == rest
                    and (start > e or set_apart(e) or len(rest) == 1 == e - s - first)
                    and (ends_clause(end) or offered_tail(end))
                    and affirmed(start)
                    and not refuted(end)
                ):
                    return key
    return None


def hedges(
    answer: str,
    tokens: Sequence[str],
    gold_phrases: Sequence[tuple[str, ...]],
    others: Mapping[str, Sequence[tuple[str, ...]]],
    rivals: Sequence[tuple[str, ...]] = (),
) -> str | None:
    """Why an answer that names the gold, and no other candidate outright, still offers another
    answer (None when it does not): another candidate elided beside the gold
    (:func:`elided_candidate`), the gold asked about ("no idea whether she knows about it";
    OPEN_QUESTION_WORDS), or a later part that takes it back (:func:`_takes_back`: "knows
    about it (or not)", "probably knows about it, probably does not", "box, or maybe not").
    ``tokens``: ``words(answer)``; ``others``: the other candidates' phrases by candidate;
    ``rivals``: as in :func:`own_spans`."""
    if tuple(tokens) in gold_phrases:
        return None  # the gold and nothing else (most answers): nothing to hedge with
    present = set(tokens)
    spans = own_spans(tokens, gold_phrases, rivals)
    if not spans:
        return None

    @functools.cache
    def clauses() -> tuple[list[int], list[int]]:
        """Each word's clause and piece, read once and only when asked for."""
        _, clause_of = clause_words(answer, _CLAUSE_BREAKS)
        marked, piece_of = clause_words(answer, _ELISION_MARKS)
        return clause_of, (piece_of if marked == tokens else clause_of)

    # the other candidates' phrases whose own words beside a shared one the answer has
    sharing = {
        key: kept
        for key, phrases in others.items()
        if (
            kept := [
                other
                for other in phrases
                if any(
                    (own and present.issuperset(own)) or (rest and present.issuperset(rest))
                    for gold in gold_phrases
                    for own, rest, _ in [_elided_parts(gold, other)]
                )
            ]
        )
    }
    if sharing:
        elided = elided_candidate(tokens, clauses, spans, sharing)
        if elided is not None:
            return f"the answer also names {elided!r}, sharing a word with the gold"
    if not OPEN_QUESTION_WORDS.isdisjoint(present):
        clause_of = clauses()[0]
        for start, _ in spans:
            first = max(0, start - NEGATION_REACH)
            if any(
                tokens[i] in OPEN_QUESTION_WORDS and clause_of[i] == clause_of[start]
                for i in range(first, start)
            ):
                return "the answer asks whether the gold holds"
    if "not" in present and _takes_back(answer, gold_phrases, rivals):
        return "a later part of the answer takes the gold back"
    return None


def _takes_back(
    answer: str, gold_phrases: Sequence[tuple[str, ...]], rivals: Sequence[tuple[str, ...]]
) -> bool:
    """Whether a part after the gold's mention (parts split as a yes/no answer's clauses) is a
    hedge ending in "not" (TAKING_BACK_LEADS before it): "knows about it (or not)", "does
    know or does not", "probably knows about it, probably does not". An "or" always offers
    the other side; without it, a gold that is a denial itself ("does not know about it,
    probably not") is said again."""
    tokens, clause_of = clause_words(answer, _YES_NO_CLAUSES)
    spans = own_spans(tokens, gold_phrases, rivals)
    if not spans:
        return False
    gold_clause = clause_of[min(end for _, end in spans) - 1]
    denial = any(_is_negation(phrase, i) for phrase in gold_phrases for i in range(len(phrase)))
    parts: dict[int, list[str]] = {}
    for token, clause in zip(tokens, clause_of, strict=True):
        if clause > gold_clause:
            parts.setdefault(clause, []).append(token)
    return any(
        part[-1] == "not"
        and TAKING_BACK_LEADS.issuperset(part[:-1])
        and ("or" in part or not denial)
        for part in parts.values()
    )
