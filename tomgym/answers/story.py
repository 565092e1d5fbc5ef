"""What a story names: its places (:func:`story_places`), names and people, the names an
answer may not name beside the gold (:func:`rival_names`), and whether a free-text answer
names another of them (:func:`names_other_entity`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from tomgym.answers.mentions import _phrase_spans
from tomgym.answers.negation import NEGATIONS, excluded
from tomgym.answers.tokens import HEDGE_WORDS, words

PLACE_INTRODUCERS = frozenset(
    {"in", "into", "inside", "to", "on", "at", "from", "entered", "exited", "left"}
)
"""Words after which a story names a place ("moved the ball to the basket", "entered the
kitchen"): the first word after them (articles aside) starts a place."""
NOT_PLACE_STARTS = frozenset(
    {"her", "his", "their", "its", "my", "your", "our", "this", "that", "these", "those", "which",
     "what", "front", "middle", "same", "one", "another", "other", "some", "any", "each", "order",
     "fact", "case", "time", "end", "way", "it", "them", "him", "me", "us", "you", "all", "first",
     "secret", "private", "public"}
)  # fmt: skip


@functools.lru_cache(maxsize=4096)
def story_places(story: str) -> frozenset[str]:
    """The words that start a place in the story: each first word after a place introducer
    ("in", "to", "entered"...), pronouns, the story's people and the like aside."""
    tokens = words(story)
    return frozenset(
        tokens[i + 1]
        for i in range(len(tokens) - 1)
        if tokens[i] in PLACE_INTRODUCERS
        and tokens[i + 1] not in NOT_PLACE_STARTS
        and tokens[i + 1] not in PLACE_INTRODUCERS  # "moved it in in the box": typos
        and not tokens[i + 1].isdigit()
    ) - story_people(story)  # "told it privately to Lachlan": a person, not a place


NOT_NAMES = frozenset(
    {"the", "a", "an", "she", "he", "they", "it", "we", "i", "you", "her", "his", "their", "its",
     "my", "our", "your", "this", "that", "these", "those", "there", "here", "then", "after",
     "before", "later", "when", "while", "as", "at", "in", "on", "to", "for", "with", "from",
     "by", "of", "into", "meanwhile", "first", "next", "now", "so", "but", "and", "or", "yes",
     "no", "not", "what", "where", "who", "whom", "whose", "why", "how", "which", "one", "some",
     "all", "both", "each", "every", "if", "because", "since", "though", "although", "during",
     "once", "soon", "today", "yesterday", "tomorrow", "everyone", "someone", "nobody", "none",
     "also", "just", "only", "still", "however", "afterwards", "well", "oh", "ok", "okay", "hi",
     "hello", "thanks", "sure", "mr", "mrs", "ms", "dr", "sir", "monday", "tuesday",
     "wednesday", "thursday", "friday", "saturday", "sunday", "january", "february", "march",
     "september", "october", "november", "december", "do", "does", "did", "is", "are", "was",
     "were", "would", "can", "could", "should", "let", "please", "maybe", "everybody",
     "anybody", "somebody", "anyone", "nothing", "something", "everything", "anything", "yeah",
     "yep", "nope", "wow", "alas", "luckily", "unluckily", "fortunately", "unfortunately",
     "suddenly", "finally", "actually", "eventually", "probably", "certainly", "clearly",
     "surely", "really", "usually", "quickly", "slowly", "quietly", "recently", "apparently",
     "obviously", "initially", "immediately", "naturally", "hopefully", "sadly", "happily",
     "honestly", "basically", "interestingly", "curiously", "secretly", "afterward", "instead",
     "upstairs", "downstairs", "outside", "inside", "again", "even", "ever", "never",
     "always", "perhaps", "besides", "yet", "thus", "therefore", "otherwise", "anyway"}
)  # fmt: skip
"""Capitalised words that open sentences and are nobody's name (months and verbs that are also
first names, such as June or Will, are left out of it)."""


_WORD = re.compile(r"\b\w+\b")
_SENTENCE_END = frozenset('.!?:;"“”\n')


@functools.lru_cache(maxsize=4096)
def story_names(story: str) -> frozenset[str]:
    """The story's names, lower-cased: its capitalised words, less sentence openers: those in
    ``NOT_NAMES``, and those capitalised only where a sentence starts that the story also
    writes in lower case ("Then ... then"). A word capitalised inside a sentence is a name
    ("gave the rose to Rose")."""
    openers: set[str] = set()
    inside: set[str] = set()
    lowered: set[str] = set()
    for match in _WORD.finditer(story):
        word = match.group(0)
        if not word[0].isupper() or not word.isalpha():
            lowered.add(word.lower())
            continue
        at = match.start() - 1
        while at >= 0 and story[at].isspace():
            at -= 1
        starts = at < 0 or story[at] in _SENTENCE_END  # no copy of the story before it
        (openers if starts else inside).add(word.lower())
    names = inside | (openers - lowered)
    return frozenset(name for name in names if name not in NOT_NAMES)


def story_people(story: str) -> frozenset[str]:
    """The story's names that start a sentence somewhere ("Lachlan entered the room."): its
    people, not a place such as "Paris" that only ever follows "to" or "in"."""
    starts = {
        match.group(0).lower()
        for match in _WORD.finditer(story)
        if match.group(0)[0].isupper() and _starts_sentence(story, match.start())
    }
    return story_names(story) & starts


def _starts_sentence(story: str, at: int) -> bool:
    at -= 1
    while at >= 0 and story[at].isspace():
        at -= 1
    return at < 0 or story[at] in _SENTENCE_END


def rival_names(story: str, question: str, gold: str) -> frozenset[str]:
    """The names a free-text answer naming ``gold`` may not name beside it: the story's names,
    less the question's (an answer may repeat whom it asks about: "Whom did Ann see?" "Ann saw
    Bob"), except those the question offers beside the gold ("Who has the key, Anne or Bob?":
    the names of its "or" list that holds the gold); the gold's own name among them, so that
    the rule knows the gold is a name."""
    names = story_names(story)
    asked = words(question)
    gold_words = set(words(gold))
    listable = names | gold_words
    offered: set[str] = set()
    for i, word in enumerate(asked):
        if word != "or":
            continue
        left = i - 1
        while left >= 0 and asked[left] in listable:
            left -= 1
        right = i + 1
        while right < len(asked) and asked[right] in listable:
            right += 1
        listed = set(asked[left + 1 : i]) | set(asked[i + 1 : right])
        if listed & gold_words:
            offered |= listed
    return (names - set(asked)) | offered | (names & gold_words)


def names_other_entity(
    answer: str,
    tokens: Sequence[str],
    gold_phrases: Sequence[tuple[str, ...]],
    entities: frozenset[str],
) -> bool:
    """Whether a free-text answer whose gold is one of the story's ``entities`` (its places, or
    its names) also names another of them, outside the gold's mentions and not excluded ("box
    basket", "box -> basket", "Ann Bob Carl")."""
    if not any(phrase[0] in entities for phrase in gold_phrases):
        return False  # the gold is not one of them: nothing to compare with
    covered = {i for s, e in _phrase_spans(tokens, gold_phrases) for i in range(s, e)}
    outside = [(i, t) for i, t in enumerate(tokens) if i not in covered and t in entities]
    gold_words = {w for phrase in gold_phrases for w in phrase}
    others = {t for _, t in outside if t not in gold_words}
    if any(not excluded(answer, [(entity,)]) for entity in others):
        return True
    # Another place that starts as the gold does ("hospital staff lounge hospital conference
    # room"): the gold's first word again, outside its mentions, then a word the gold lacks
    # that could go on a place name (not "the hostel dorm, as the hostel was...").
    # (A possessive, "the hotel's upper floor", is no other place: "s" is a _NOT_PLACE_WORDS.)
    starts = {phrase[0] for phrase in gold_phrases}
    return any(
        t in starts
        and i + 1 < len(tokens)
        and tokens[i + 1] not in gold_words
        and tokens[i + 1].isalpha()
        and tokens[i + 1] not in _NOT_PLACE_WORDS
        and not excluded(answer, [(t, tokens[i + 1])])
        for i, t in outside
    )


_NOT_PLACE_WORDS = (
    HEDGE_WORDS
    | NOT_PLACE_STARTS
    | PLACE_INTRODUCERS
    | NEGATIONS
    | frozenset(
        {"was", "were", "is", "are", "be", "been", "has", "had", "have", "where", "when",
         "which", "who", "and", "or", "but", "as", "of", "for", "with", "by", "then", "again",
         "s", "she", "he", "they", "we", "i", "would", "will", "did", "does", "do", "might"}
    )
)  # fmt: skip
"""Words after a repeated first word of the gold that go on a sentence, not a place name."""
