"""Negation and refutation of a mention: a negation before it ("not the jar"), an
exclusion ("anywhere but the jar"), or words after it that refute it ("the jar is
wrong"); :func:`negates`, :func:`excluded` and :func:`only_affirmed` read them."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from tomgym.answers.mentions import (
    _elided_parts,
    _holds,
    _outermost,
    _phrase_spans,
    indexed_spans,
    own_spans,
    phrase_index,
)
from tomgym.answers.tokens import _CLAUSE_BREAKS, clause_words

NEGATIONS = frozenset(
    {"not", "never", "neither", "nor", "cannot", "isnt", "wasnt", "arent", "werent", "dont",
     "doesnt", "didnt", "cant", "wont", "hasnt", "havent", "hadnt", "couldnt", "wouldnt",
     "shouldnt", "aint", "except", "excluding", "nowhere", "non", "un", "hardly", "scarcely"}
)  # fmt: skip
"""Words that negate what follows ("not the jar", "hardly positive"); ``n't`` is read as its own
word ``t`` after a word ending in ``n`` (``isn't`` -> ``isn t``), and a negating prefix written
apart is a word of its own ("non-negative", "un-positive"; "nonnegative" names no label)."""
NEGATION_REACH = 3
"""How many words before a gold mention, within its clause, a negation still negates it:
"is not (located) in the jar" but not "does not know it moved, so she looks in the jar"."""
EXCLUDING_PAIRS = frozenset(
    {("other", "than"), ("no", "longer"), ("anywhere", "but"), ("anything", "but"),
     ("everywhere", "but"), ("everything", "but"), ("all", "but"), ("instead", "of"),
     ("rather", "than"), ("far", "from")}
)  # fmt: skip
"""Two words that exclude what follows them ("anywhere but the jar", "no longer in the jar",
"the box instead of the jar", "far from positive")."""
REFUTING_WORDS = frozenset({"wrong", "incorrect", "untrue"})
"""Words that deny a mention they follow in its clause ("the jar is wrong")."""
REFUTING_AT_CLAUSE_END = frozenset({"false"})
"""Words that refute the mention before them only as the last word of its clause ("the box is
false", "box: false"), not as a description ("the box (false belief)")."""
REFUTED_AFTER_NEGATION = frozenset({"answer", "correct", "right", "it", "true"})
"""Words a negation after a mention denies it with ("the jar is not the answer", "the jar is
not it", "the jar is not true"), a "be" between them too ("the jar cannot be right")."""
REFUTED_AT_CLAUSE_END_AFTER_NEGATION = frozenset({"one"})
"""Words a negation after a mention denies it with as the last word of its clause ("the jar is
not the one", "the jar - not the one."), not before more ("the jar, not the one it is in now"
may say where the object is)."""
LEAVING_WORDS = frozenset({"left", "leave", "leaves", "leaving", "budged"})
"""After a negation, words that make it deny a departure, not the place ("never left the jar");
so does "from" or "out of" just before the place ("has not moved from the jar"), while "was
never moved to the jar" still denies it."""
EXCLUDING_GAP = frozenset({"in", "inside", "into", "at", "on", "to", "be"})
"""Words that may stand between a negation and a candidate it excludes ("not in the box", "it
cannot be the box", "can't be in the box"): any other word means the negation is about
something else ("not sure box or basket"). "be" is the one verb among them, as the gold's own
denial reads it too; others are not: "won't look in the box or the basket" would exclude the
box, leaving the basket as the answer, while the 3-word reach of a negation cannot see back to
deny it."""
CONTRAST_WORDS = frozenset({"but", "rather", "instead"})
"""After a negation, words that turn it round: "not the hamper but the box" affirms the box."""
NEGATING_EXCLUSION = frozenset({"none", "nothing", "nowhere", "no"})
"""Words that, before an exclusion, negate it ("none other than the jar", "nowhere except the
jar"): the place is affirmed, for the gold and for any other candidate alike."""
NEGATED_EXCLUSION_REACH = 4
"""How many words before an exclusion a negation still turns it round (see _negates_exclusion)."""
ONLY_MARKERS = frozenset({"but", "except", "other", "else", "besides"})
"""After "nowhere", words that make it mean "only" ("nowhere but the jar")."""
CONDITIONAL_WORDS = frozenset({"if"})
"""Words that, at most NEGATION_REACH words before a negation in its clause, make it a
condition, not an exclusion: "the box, if not the chest" offers the chest too ("good, if not
great"), as does "the box, if it isn't in the chest"; the gold's own denial still reads it."""


REFUTATION_CUES = REFUTING_WORDS | REFUTING_AT_CLAUSE_END | NEGATIONS
"""Words without which no mention is refuted after it (see :func:`_refuted_after`)."""
_NEGATION_CUES = (
    NEGATIONS
    | REFUTING_WORDS
    | REFUTING_AT_CLAUSE_END
    | {second for _, second in EXCLUDING_PAIRS}
    | {"t"}
)


_CLAUSE_BREAKS_AFTER = re.compile(r"[,;.!?)\]\n]+")
"""Where a mention's clause ends for the words that refute it: a colon or an opening bracket
after it goes on about it ("the jar: wrong", "the jar (wrong)")."""


def _is_negation(tokens: Sequence[str], i: int) -> bool:
    word = tokens[i]
    if i > 0 and (tokens[i - 1], word) in _NOT_NEGATIONS:
        return False  # "or why not the box" offers it, "not excluding the box" keeps it
    return word in NEGATIONS or (word == "t" and i > 0 and tokens[i - 1].endswith("n"))


_NOT_NEGATIONS = frozenset(
    {("why", "not"), ("not", "excluding"), ("not", "except"), ("without", "excluding")}
)
"""A negation word after these negates nothing (reward red team: "green basket, or why not
the blue basket" and "green basket (not excluding the blue basket)" were paid as the green)."""


def may_negate(present: set[str]) -> bool:
    """Whether an answer with these words can negate anything (most cannot: no check then)."""
    return not _NEGATION_CUES.isdisjoint(present)


def negates(
    answer: str,
    phrases: Sequence[tuple[str, ...]],
    golds_end_clauses: bool = False,
    rivals: Sequence[tuple[str, ...]] = (),
) -> bool:
    """Whether a mention of one of ``phrases`` is denied in its clause: a negation at most
    NEGATION_REACH words before it ("not the jar", "isn't in the jar", "anywhere except the
    jar", "no longer in the jar"), or after it, as words that refute it ("the jar is wrong",
    "the jar is not the answer"). ``golds_end_clauses``: the golds end with a clause break
    themselves (a sentence answer, "Kai believes the trip was to Peru."), so the clause after
    a mention that ends one is still the mention's ("... Peru. is wrong"). ``rivals``: the
    other candidates' phrases; the words of a phrase inside a mention of one of them are no
    mention of it (:func:`own_spans`: "the box, not the red box" does not deny the box)."""
    if not any(phrase and phrase[0] for phrase in phrases):
        return False
    # The answer's words with the clause each is in: a mention may span clause breaks (a gold
    # that is a sentence, "Kai believes the trip was to Peru."), its context may not.
    tokens, clause_of = clause_words(answer, _CLAUSE_BREAKS)
    # The same words (every break is a non-word character), in the clauses refutations read.
    _, clause_after = clause_words(answer, _CLAUSE_BREAKS_AFTER)
    spans = own_spans(tokens, phrases, rivals)
    # a refutation after another candidate's mention is that one's ("the jar (the box is wrong)"),
    # written out or elided ("the green basket (the blue one is wrong)")
    rival_starts = (
        {s for s, _ in own_spans(tokens, rivals, phrases)}
        | _elided_rival_starts(tokens, phrases, rivals)
        if spans and rivals
        else set()
    )
    return any(
        _denied(tokens, clause_of, clause_after, s, e, golds_end_clauses, rival_starts)
        for s, e in spans
    )


def _elided_rival_starts(
    tokens: Sequence[str], golds: Sequence[tuple[str, ...]], rivals: Sequence[tuple[str, ...]]
) -> set[int]:
    """Where another candidate is named by its own words and "one(s)" standing for the rest:
    the words it shares with a gold ("the blue one" beside "green basket" for the blue basket)
    or, sharing none, its last word ("the blue one" for the blue box)."""
    starts: set[int] = set()
    if "one" not in tokens and "ones" not in tokens:
        return starts
    for gold in golds:
        for rival in rivals:
            own = _elided_parts(gold, rival)[0] if gold and rival else ()
            if not own and len(rival) > 1 and rival[-1:] != gold[-1:] and rival[:-1] != gold[:-1]:
                own = rival[:-1]
            size = len(own)
            for j in range(len(tokens) - size) if own else ():
                if tokens[j + size] in ("one", "ones") and tuple(tokens[j : j + size]) == own:
                    starts.add(j)
    return starts


def ends_clause(texts: Iterable[str]) -> bool:
    """Whether any of the texts ends with a clause break (a sentence answer)."""
    return any(_CLAUSE_BREAKS.fullmatch(text.rstrip()[-1:]) for text in texts)


def _denied(
    tokens: Sequence[str],
    clause_of: Sequence[int],
    clause_after: Sequence[int],
    start: int,
    end: int,
    own_break: bool,
    rival_starts: Collection[int] = (),
) -> bool:
    """Whether the mention tokens[start:end] is negated before it or refuted after it, within
    the clause it starts (before, ``clause_of``) or ends (after, ``clause_after``) in, and
    before the next mention of another candidate (``rival_starts``: where they start);
    ``own_break``: a clause that ends with the mention continues into the next one (the break
    was the gold's own)."""
    # "it never left the jar", "it has not moved from the jar": the negation is of leaving
    if _negated_before(tokens, clause_of, start):
        return True
    first = start
    while first > max(0, start - NEGATION_REACH) and clause_of[first - 1] == clause_of[start]:
        first -= 1
    pairs = [i for i in range(first, start - 1) if (tokens[i], tokens[i + 1]) in EXCLUDING_PAIRS]
    # "none other than the jar", "it cannot be anywhere but the jar": a negated exclusion
    if pairs and not _negates_exclusion(tokens, clause_of, pairs[0]):
        return True
    return _refuted_after(tokens, clause_after, end, own_break, rival_starts)


def _refuted_after(
    tokens: Sequence[str],
    clause_after: Sequence[int],
    end: int,
    own_break: bool = False,
    rival_starts: Collection[int] = (),
) -> bool:
    """Whether words after a mention ending at ``end`` refute it ("the jar is wrong", "the jar
    (wrong)", "the jar is false", "the jar is not the answer"), at most NEGATION_REACH + 1
    words on, in the clause it ends in and before the next mention of another candidate
    (``rival_starts``); ``own_break`` as for :func:`_denied`."""
    last = end
    limit = min(len(tokens), end + NEGATION_REACH + 1)
    clause = clause_after[end - 1]
    if own_break and end < len(tokens) and clause_after[end] != clause:
        clause = clause_after[end]
    while last < limit and clause_after[last] == clause and last not in rival_starts:
        last += 1
    if any(
        (
            tokens[j] in REFUTING_WORDS
            or (
                tokens[j] in REFUTING_AT_CLAUSE_END
                and j + 1 == last
                and (last == len(tokens) or clause_after[last] != clause)
            )
        )
        and not (j > end and _is_negation(tokens, j - 1))
        and not (j > end + 1 and tokens[j - 1] == "be" and _is_negation(tokens, j - 2))
        for j in range(end, last)
    ):  # "the jar is wrong", "the jar is false", not "the jar, not wrong" ("wouldn't be")
        return True
    return any(
        _is_negation(tokens, j)
        and j + 1 < last
        and (
            tokens[j + 1] in REFUTED_AFTER_NEGATION
            or (tokens[j + 1] == "be" and j + 2 < last and tokens[j + 2] in REFUTED_AFTER_NEGATION)
            or (  # "the jar is not the one.": "the one she looks in" may be about another place
                tokens[j + 1] in REFUTED_AT_CLAUSE_END_AFTER_NEGATION
                and (j + 2 == len(tokens) or clause_after[j + 2] != clause)
            )
        )
        for j in range(end, last)
    )


def only_affirmed(
    answer: str, named: set[str], phrases: Mapping[str, Sequence[tuple[str, ...]]]
) -> set[str]:
    """The named candidates less those the answer only excludes ("the box, not the basket"
    names the box; see :func:`excluded`); all of them when it excludes every one (the gold's
    own denial is judged after). A candidate's mentions are those :func:`mentioned` accepts:
    with "box" and "red box", "red box, not the box" excludes the box ("red box" holds no
    mention of it) and names the red box."""
    tokens, clause_of = clause_words(answer, _CLAUSE_BREAKS)
    # the named keys' phrases that may occur (another key holds no accepted mention to hide
    # one of theirs inside)
    present = set(tokens)
    found = {key: [p for p in phrases[key] if p and p[0] in present] for key in named}
    nested = any(
        _holds(longer, phrase)
        for key, variants in found.items()
        for phrase in variants
        for other, others in found.items()
        if other != key
        for longer in others
    )
    if nested:  # the mentions mentioned() accepts
        accepted = indexed_spans(tokens, phrase_index(found))
        spans = {key: accepted.get(key, []) for key in named}
    else:  # the same spans, found faster
        spans = {key: _phrase_spans(tokens, found[key]) for key in named}
    spans = {key: _outermost(found) for key, found in spans.items()}  # "briefcase" in "leather
    # briefcase" is no mention of its own: excluding the whole excludes it
    every = [span for key in named for span in spans[key]]
    status = _exclusions(tokens, clause_of, every)
    if not REFUTATION_CUES.isdisjoint(present):  # "the basket (the box is wrong)"
        _, clause_after = clause_words(answer, _CLAUSE_BREAKS_AFTER)
        starts = {s for s, _ in every}
        for s, e in every:
            status[s] = status[s] or _refuted_after(tokens, clause_after, e, False, starts - {s})
    kept = {key for key in named if not (spans[key] and all(status[s] for s, _ in spans[key]))}
    return kept or named


def excluded(
    answer: str, phrases: Sequence[tuple[str, ...]], rivals: Sequence[tuple[str, ...]] = ()
) -> bool:
    """Whether every mention of the phrases is negated right before it in its clause ("the
    box, not the basket", "it is not in the basket"; not "not sure, basket or box"), or
    follows "or"/"nor" after a mention of them that is ("not the box or the box"; across
    several candidates' mentions, see :func:`only_affirmed`). A mention is as
    :func:`own_spans` reads it beside the ``rivals``."""
    tokens, clause_of = clause_words(answer, _CLAUSE_BREAKS)
    spans = _outermost(own_spans(tokens, phrases, rivals))
    if not spans:
        return False
    status = _exclusions(tokens, clause_of, spans)
    return all(status[start] for start, _ in spans)


def _exclusions(
    tokens: Sequence[str], clause_of: Sequence[int], spans: Sequence[tuple[int, int]]
) -> dict[int, bool]:
    """Mention start -> excluded, in one pass from the left: a mention is excluded by its own
    negation (:func:`_excluded_at`) or as the next item of an "or"/"nor" list whose previous
    mention is (linear in the mentions, however long the list)."""
    ending: dict[int, list[int]] = {}  # a mention's end -> the starts of mentions ending there
    status: dict[int, bool] = {}
    for start, end in sorted(set(spans)):
        if start not in status:
            status[start] = _excluded_at(tokens, clause_of, start) or _listed_after_excluded(
                tokens, clause_of, start, ending, status
            )
        ending.setdefault(end, []).append(start)
    return status


def _listed_after_excluded(
    tokens: Sequence[str],
    clause_of: Sequence[int],
    start: int,
    ending: Mapping[int, Sequence[int]],
    status: Mapping[int, bool],
) -> bool:
    i = start - 1
    while i >= 0 and clause_of[i] == clause_of[start] and tokens[i] in EXCLUDING_GAP:
        i -= 1
    if i < 1 or clause_of[i] != clause_of[start] or tokens[i] not in ("or", "nor"):
        return False
    return any(
        clause_of[before] == clause_of[start] and status[before] for before in ending.get(i, ())
    )


def _excluded_at(tokens: Sequence[str], clause_of: Sequence[int], start: int) -> bool:
    """A negation right before the mention, or with only place words between ("not the box",
    "isn't in the box"), or an excluding pair ("rather than the box", "instead of the box"),
    in its clause."""
    i = start - 1
    while i >= 0 and clause_of[i] == clause_of[start] and tokens[i] in EXCLUDING_GAP:
        i -= 1
    if i < 0 or clause_of[i] != clause_of[start]:
        return False
    if _is_negation(tokens, i):
        if _conditional(tokens, clause_of, i):
            return False  # "the box, if not the chest": the chest is offered, not excluded
        return not (tokens[i] in ONLY_MARKERS and _negates_exclusion(tokens, clause_of, i))
    return (
        i > 0
        and clause_of[i - 1] == clause_of[start]
        and (tokens[i - 1], tokens[i]) in EXCLUDING_PAIRS
        and not _negates_exclusion(tokens, clause_of, i - 1)
    )


def _conditional(tokens: Sequence[str], clause_of: Sequence[int], negation: int) -> bool:
    """Whether the negation at ``negation`` is a condition (CONDITIONAL_WORDS before it)."""
    return any(
        clause_of[j] == clause_of[negation] and tokens[j] in CONDITIONAL_WORDS
        for j in range(max(0, negation - NEGATION_REACH), negation)
    )


def _negates_exclusion(tokens: Sequence[str], clause_of: Sequence[int], first: int) -> bool:
    """Whether the exclusion starting at ``first`` is itself negated, so that it affirms: a
    negation or "none"-like word at most 4 words before it in its clause ("none other than
    the jar", "nowhere except the jar", "it can't be anywhere other than the jar", "she
    wouldn't search anywhere except the jar"). The gold's denial (:func:`_denied`) and another
    candidate's exclusion read exclusions the same way, so the reach favours no gold."""
    return any(
        clause_of[j] == clause_of[first]
        and (_is_negation(tokens, j) or tokens[j] in NEGATING_EXCLUSION)
        for j in range(max(0, first - NEGATED_EXCLUSION_REACH), first)
    )


BELIEF_BRIDGE = frozenset(
    {"think", "thinks", "thought", "believe", "believes", "believed", "suppose", "supposes",
     "expect", "expects", "imagine", "imagines", "reckon", "reckons", "aware", "sure",
     "certain", "that"}
)  # fmt: skip
"""Words a denial reaches across without counting them: a negated belief denies what is
believed ("Landon doesn't think that Hailey knows about it" says she does not; "I don't think
it's the box"), the reach counting "Hailey" but not "think that"."""


def _negated_before(tokens: Sequence[str], clause_of: Sequence[int], start: int) -> bool:
    first, counted = start, 0
    while first > 0 and counted < NEGATION_REACH and clause_of[first - 1] == clause_of[start]:
        first -= 1
        counted += tokens[first] not in BELIEF_BRIDGE
    negations = [i for i in range(first, start) if _is_negation(tokens, i)]
    if not negations:
        return False
    between = tokens[negations[-1] + 1 : start]
    last = negations[-1]
    if not CONTRAST_WORDS.isdisjoint(between):
        return False  # "not the hamper but the box": the negation is the hamper's
    if tokens[last] == "nowhere" and between[:1] and between[0] in ONLY_MARKERS:
        return False  # "nowhere but the jar", "nowhere else than the jar": only the jar
    if tokens[last] in ONLY_MARKERS and _negates_exclusion(tokens, clause_of, last):
        return False  # "nowhere except the jar", "nothing except the jar", in one clause
    departure = not LEAVING_WORDS.isdisjoint(between) or (
        between[-1:] == ["from"] or between[-2:] == ["out", "of"]
    )
    return not departure
