"""Answers that offer more than one answer or none: a list of alternatives
(:func:`lists_alternatives`), an offer of any other answer (:func:`offers_any_other`), a
refusal or a question asked back (:func:`declines_or_asks_back`)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from tomgym.answers.asides import (
    _NOT_ALTERNATIVES,
    REASON_SEPARATORS,
    REASON_STARTS,
    _joined_at,
    annotates,
    question_commas,
    states_reason,
)
from tomgym.answers.hedging import COORDINATORS
from tomgym.answers.mentions import _phrase_spans, own_spans
from tomgym.answers.negation import _is_negation
from tomgym.answers.tokens import _CLAUSE_BREAKS, _visible, clause_words, words

_ALTERNATIVE_SPLIT = re.compile(
    r"([,;/|\n.?!:()\[\]+&\u2022\u3001]|\b(?:and|or|then|vs|versus)\b)", re.IGNORECASE
)
"""Where an answer splits like a list: commas and the like, sentence punctuation, brackets,
bullets, ``and``/``or``/``then``/``vs`` ("basket. box", "basket (box)", "basket then box")."""


LIST_PART_MAX_EXTRA_WORDS = 2
"""A part of a free-text answer, split like a list, that does not hold the gold and is at most
this many words longer than the gold reads as an alternative answer ("kitchen, garden")."""


ANY_OTHER_WORDS = frozenset(
    {"other", "others", "elsewhere", "both", "neither", "either", "anywhere", "somewhere",
     "wherever", "vice", "opposite", "rest"}
)  # fmt: skip
"""Words that, in a clause opened by "or", offer every other answer at once without naming
one: "bucket, or the other one", "box or elsewhere", "basket, or both", "negative, or the
opposite", "yes, or vice versa"."""
_OR = re.compile(r"\bor\b", re.IGNORECASE)
ANY_OTHER_REACH = 4
"""How many words after such an "or" may hold one of ANY_OTHER_WORDS."""
_NOT_ANY_OTHER = frozenset({("other", "words")})
"""Pairs where such a word offers nothing: "box, or in other words the crate"."""


def offers_any_other(answer: str, own_words: Callable[[], frozenset[str]] = frozenset) -> bool:
    """Whether an "or" opens, in its clause, an offer of any other answer (ANY_OTHER_WORDS,
    at most ANY_OTHER_REACH words after it): a hedge over every candidate that names none of
    them, paid as the gold alone before (reward red team). ``own_words``: the words of the
    item's candidates and gold, which are answers, not such offers ("the other drawer"),
    asked for only when such a word is found."""
    if _OR.search(answer) is None:  # most answers: nothing to read
        return False
    tokens, clause_of = clause_words(answer, _CLAUSE_BREAKS)
    for i, token in enumerate(tokens):
        if token != "or":
            continue
        for j in range(i + 1, min(len(tokens), i + 1 + ANY_OTHER_REACH)):
            word = tokens[j]
            if clause_of[j] != clause_of[i]:
                break
            if (
                word in ANY_OTHER_WORDS
                and word not in own_words()
                and (word, tokens[j + 1] if j + 1 < len(tokens) else "") not in _NOT_ANY_OTHER
            ):
                return True
    return False


_CLAUSE_END = r"(?=\s*(?:$|[,;:.!?)\]\n]|\bor\b))"
_DECLINES = re.compile(
    r"(?:^|[,;:.!?(\[\n]|\bor\b)\s*(?:it\s+is\s+|it['\u2019]s\s+)?"
    rf"(?:unknown|undetermined|unclear|(?:i\s+have\s+)?no\s+idea){_CLAUSE_END}"
    rf"|\bi\s+(?:do\s+not|don['\u2019]?t|cannot|can['\u2019]?t)\s+(?:know|tell|say){_CLAUSE_END}"
    rf"|\b(?:can\s*not|can['\u2019]?t)\s+be\s+(?:determined|known|told){_CLAUSE_END}"
    rf"|\bimpossible\s+to\s+(?:say|tell|know|determine){_CLAUSE_END}"
    rf"|\b(?:insufficient|not\s+enough)\s+information{_CLAUSE_END}"
    rf"|\b(?:story|text)\s+(?:does\s+not|doesn['\u2019]?t)\s+say{_CLAUSE_END}",
    re.IGNORECASE,
)
"""What says an answer cannot be given, as a clause of its own: beside a candidate it is no
committed answer ("I don't know, bucket", "bucket or cannot be determined", "Unknown; bucket"),
while a reason is ("bucket: the move is unknown to her", "No. The story doesn't say she saw
it")."""
_DECLINE_FILLER = frozenset({"it", "is", "s", "or"})
"""Words around a refusal that leave it a candidate's own ("It is unknown." for "unknown")."""
_DECLINE_WORDS = ("know", "tell", "say", "determin", "told", "idea", "information", "unclear")
"""A word of every refusal _DECLINES reads."""
_ASKED_BACK = re.compile(r"\?[\s*_\"'\u201d\u2019)\]]*$")
"""An answer that ends as a question ("Is it the bucket?", "bucket?") asks, not answers."""


def declines_or_asks_back(
    answer: str, own_words: Callable[[], frozenset[str]] = frozenset
) -> str | None:
    """Why a choice or free-text answer gives no committed answer although it may name the
    gold (None when it does): it ends as a question, or says the answer cannot be given
    (reward red team: both were paid as the gold). A
    refusal made of a candidate's own words ("unknown" as a label) is an answer;
    ``own_words`` gives those words, asked only when a refusal is found."""
    if _ASKED_BACK.search(answer):
        return "the answer asks back"
    lowered = answer.lower()  # (a long answer is scanned by the pattern only if it may match)
    if not any(word in lowered for word in _DECLINE_WORDS):
        return None
    for found in _DECLINES.finditer(answer):
        if not set(words(found.group())) - _DECLINE_FILLER <= own_words():
            return "the answer says it cannot be given"
    return None


def lists_alternatives(
    answer: str,
    golds: Sequence[str],
    phrases: Sequence[tuple[str, ...]],
    reasons: bool = False,
    barred: frozenset[str] | None = None,
    rivals: Sequence[tuple[str, ...]] = (),
    people: frozenset[str] | None = None,
    question: str = "",
) -> bool:
    """Whether the answer, split like a list (``_ALTERNATIVE_SPLIT``: commas, sentence
    punctuation, brackets, ``and``, ``or``, ``then``...), has a short part that no mention of
    a gold covers and that says more than a hedge: "kitchen, garden", "Alice or Bob",
    "basket. box" (not "box, I think").
    A gold that is a list itself ("Anne and Bob") covers the parts it spans, so "Anne and Bob
    or Carl" lists an alternative and "Anne and Bob" does not; "short" is at most
    LIST_PART_MAX_EXTRA_WORDS longer than the golds' longest item. A part that starts with a
    negation excludes rather than adds ("garden, not the hall"). ``phrases``: the golds'
    words as mentions are matched (with their variants). With ``reasons``, a part after a
    part naming the gold that starts with one of REASON_STARTS gives a reason, not another
    answer ("staff room, where she left it"); "kitchen, where staff room" still lists one.
    With ``barred`` (the words that may name another answer: candidates', story places), a
    part that is a note on the answer (:func:`annotates`: "(last known location)", "In Liam's
    view") is no alternative either: it holds no word but ANNOTATION_WORDS and one person,
    unless a coordinator joins it ("or its original location" offers that place).
    ``rivals``: the other candidates' phrases, whose words cover no part for the gold ("box or
    red box" lists the red box; see :func:`own_spans`), and a part that names one is short
    beside it ("metal toolbox, perhaps the black plastic storage bin").
    With ``people`` (the story's), a short sentence about the story after the part naming the
    gold is no alternative either (:func:`states_reason`: "grand ballroom.
    Nobody moved it."), unless "or", "then" or the like joins it ("or it was moved").
    A comma the answer copies from the ``question`` between the same two words does not split
    it (:func:`question_commas`: "The small, leather-bound notebook is in the control room")."""
    longest = max(len(words(item)) for gold in golds for item in _ALTERNATIVE_SPLIT.split(gold))
    folded = answer if answer.isascii() else _visible(unicodedata.normalize("NFKC", answer))
    pieces = _ALTERNATIVE_SPLIT.split(folded)  # text, separator, text, ...
    if question and "," in question:
        pieces = _joined_at(pieces, question_commas(question))
    tokens: list[str] = []
    part_of: list[int] = []
    for number, piece in enumerate(pieces):
        piece_words = words(piece)
        tokens += piece_words
        part_of += [number if number % 2 == 0 else -1] * len(piece_words)
    parts: dict[int, list[str]] = {}
    for token, part in zip(tokens, part_of, strict=True):
        if part >= 0:
            parts.setdefault(part, []).append(token)
    if len(parts) < 2:
        return False
    covered = {part_of[i] for s, e in own_spans(tokens, phrases, rivals) for i in range(s, e)}

    def gives_reason(part: int, part_words: list[str]) -> bool:
        """A reason after the answer ("staff room, where she left it")."""
        return (
            reasons
            and part > min(covered)
            and part_words[0] in REASON_STARTS
            and pieces[part - 1].strip() in REASON_SEPARATORS
        )

    def reason_sentence(part: int, part_words: list[str]) -> bool:
        """A sentence about the story after the answer ("grand ballroom. Nobody moved it.")."""
        return (
            people is not None
            and part > min(covered)
            and pieces[part - 1].strip().casefold() not in _JOINING_ANOTHER
            and states_reason(part_words, people, barred or frozenset())
        )

    def offered(part: int) -> bool:
        """A note joined by a coordinator is another answer it describes ("staff room, or its
        original location", "or where it was before"); "or so she thinks" is still a note."""
        return pieces[part - 1].strip().casefold() in COORDINATORS | {"then"} and (
            parts[part][0] != "so"
        )

    def short(part_words: list[str]) -> bool:
        """At most LIST_PART_MAX_EXTRA_WORDS more than the golds' longest item, or than a
        rival the part names ("metal toolbox, maybe the black plastic storage bin")."""
        named = [len(r) for r in rivals if r and _phrase_spans(part_words, [r])]
        return len(part_words) <= max([longest, *named]) + LIST_PART_MAX_EXTRA_WORDS

    return bool(covered) and any(
        part not in covered
        and short(part_words)
        and not _is_negation(part_words, 0)
        and not _NOT_ALTERNATIVES.issuperset(part_words)
        and not gives_reason(part, part_words)
        and not reason_sentence(part, part_words)
        and not (barred is not None and annotates(part_words, barred) and not offered(part))
        for part, part_words in parts.items()
    )


_JOINING_ANOTHER = COORDINATORS - {"and"} | frozenset({"then", "/", "|", "+"})
"""What may not stand before a reason sentence: "grand ballroom, or it was moved" offers
another answer."""
