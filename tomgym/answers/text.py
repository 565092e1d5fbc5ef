"""Judging a free-text answer: :func:`judge_text`, the gold phrase as whole words and no
other candidate, place or name beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tomgym.answers.alternatives import lists_alternatives
from tomgym.answers.hedging import hedges
from tomgym.answers.mentions import _phrase_spans, mentioned
from tomgym.answers.negation import ends_clause, excluded, may_negate, negates, only_affirmed
from tomgym.answers.numbers import judge_number
from tomgym.answers.story import names_other_entity
from tomgym.answers.tags import Judgement
from tomgym.answers.tokens import phrase_of, words

FREE_TEXT_MAX_EXTRA_WORDS = 12
"""A free-text answer with no other candidate to exclude (no list, or one holding only the
gold) may add this many words to the gold phrase: pasting the whole story names the gold too.
Words repeated from the question count too: "Sophia will search for the harmonica in the art
studio, but Elijah thinks Sophia will search for the harmonica somewhere else" answers the
reality question and denies the belief asked about (reward red team)."""


LOCATION_PREPOSITIONS = frozenset({"in", "inside", "into", "at", "on"})
"""A free-text gold that starts with one of these ("in the kitchen") is also named by the
place alone ("kitchen"), as a gold "kitchen" is named by "in the kitchen"."""
OTHER_RELATIONS = frozenset(
    {"outside", "out", "next", "under", "beneath", "beside", "behind", "near", "far", "above",
     "below", "without", "off", "front", "top", "around", "over", "away"}
)  # fmt: skip
"""Words that put a place in another relation than the gold's preposition ("outside the box"
for a gold "in the box"): the place alone does not name such a gold then."""


def judge_text(
    answer: str,
    gold: str,
    candidates: Sequence[str] = (),
    aliases: Sequence[str] = (),
    places: frozenset[str] = frozenset(),
    names: frozenset[str] = frozenset(),
    asked: Sequence[str] = (),
    other_aliases: Mapping[str, Sequence[str]] | None = None,
    people: frozenset[str] | None = None,
    question: str = "",
) -> Judgement:
    """Free text: the gold phrase (or an alias) as whole words, and no other candidate (or an
    alias of one, ``other_aliases``: candidate -> phrases); with no
    candidates, no other of the story's ``places`` either when the gold is one of them, and no
    other of its ``names`` when the gold is one of those. ``asked``: candidates the question
    names, which the answer may repeat but not offer beside the gold ("the satchel or the
    bin"); with no other candidate left, the free-text length and list rules apply. A note on
    the answer that names nothing ("staff room (last known location)", "In Liam's view, the
    staff room") is no alternative (:func:`annotates`) unless it holds a word of a candidate,
    the question's too, or of a story place; nor is a short sentence about the story after it
    that names nothing but the story's ``people`` ("grand ballroom. Nobody moved it.",
    :func:`states_reason`). Commas an answer repeats from the ``question`` split nothing
    (:func:`question_commas`). A number is read as a value (:func:`judge_number`)."""
    numeric = judge_number(answer, gold)
    if isinstance(numeric, Judgement):
        return numeric
    answer = numeric
    tokens = words(answer)
    gold_phrases = [p for p in (phrase_of(gold), *(phrase_of(a) for a in aliases)) if p]
    as_written = list(gold_phrases)
    places_only = [p[1:] for p in gold_phrases if len(p) > 1 and p[0] in LOCATION_PREPOSITIONS]
    gold_phrases += places_only
    listed = {  # every other candidate, the question's too: "red box" is not the gold "box"
        c: [phrase_of(c), *(phrase_of(a) for a in (other_aliases or {}).get(c, ()) if a)]
        for c in candidates
        if phrase_of(c) and phrase_of(c) not in gold_phrases
    }
    others = {c: phrases for c, phrases in listed.items() if c not in asked}
    named = mentioned(tokens, {"__gold__": gold_phrases, **listed})
    if len(named) > 1 and may_negate(set(tokens)):
        named = only_affirmed(answer, named, {"__gold__": gold_phrases, **listed})
    named -= set(asked)  # the question's own candidate, repeated: no other answer
    if "__gold__" not in named:
        return Judgement(False, "wrong", "the gold phrase is not in the answer")
    if len(named) > 1:
        return Judgement(False, "several_candidates", "the answer also names another candidate")
    # the other candidates' words are theirs: "not the red box" neither denies the gold "box"
    # nor names it beside "the red box" (see own_spans)
    rivals = [phrase for phrases in listed.values() for phrase in phrases]
    hedge = hedges(answer, tokens, gold_phrases, listed, rivals)
    if hedge is not None:
        return Judgement(False, "several_candidates", hedge)
    # What a note on the answer may not hold ("(last known location)", "In Liam's view"):
    # a word of any candidate, the question's too, or of a story place.
    barred = places.union(*(phrase_of(c) for c in candidates))
    if not others:  # nothing to exclude (no list, the gold alone, or the question's): length
        longest = max(len(p) for p in gold_phrases)
        if len(tokens) > longest + FREE_TEXT_MAX_EXTRA_WORDS:
            return Judgement(False, "too_long", f"{len(tokens)} words is too long for one answer")
        if lists_alternatives(
            answer, [gold, *aliases], gold_phrases, True, barred, rivals, people, question
        ):
            return Judgement(False, "several_candidates", "the answer lists alternatives")
        if places and names_other_entity(answer, tokens, gold_phrases, places):
            return Judgement(False, "several_candidates", "the answer names another place")
        if names and names_other_entity(answer, tokens, gold_phrases, names):
            return Judgement(False, "several_candidates", "the answer names another person")
    elif asked and lists_alternatives(
        answer, [gold, *aliases], gold_phrases, False, barred, rivals, people, question
    ):
        return Judgement(False, "several_candidates", "the answer offers the question's place")
    if may_negate(set(tokens)) and (
        negates(answer, gold_phrases, ends_clause((gold, *aliases)), rivals)
        or excluded(answer, gold_phrases, rivals)  # as another place would be: the same reading
    ):
        return Judgement(False, "wrong", "negates the gold phrase")
    if places_only and not _phrase_spans(tokens, as_written):
        beside = [tokens[max(0, s - 2) : s] for s, _ in _phrase_spans(tokens, places_only)]
        if beside and all(not OTHER_RELATIONS.isdisjoint(words_before) for words_before in beside):
            return Judgement(False, "wrong", "puts the place in another relation")
    return Judgement(True, "correct", "the gold phrase, and nothing else")
