"""Reading a response: the tag format, the extracted answer, and whole-word answer checking.

Everything here runs in time linear in the response: tags are found with ``str.find`` and
``str.count``, words with one non-backtracking character-class pass.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tomgym.answer_numbers import number_value, numbers_said, with_digits, written_as_gold

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
ANSWER_OPEN, ANSWER_CLOSE = "<answer>", "</answer>"

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
_ASCII_NON_WORD_AS_SPACE = {c: " " for c in range(128) if not chr(c).isalnum()}
"""``_NON_WORD``'s matches among ASCII characters (all but letters and digits), as spaces."""
ARTICLES = frozenset({"a", "an", "the"})
YES_WORDS = frozenset({"yes", "yeah", "yep", "yup"})
NO_WORDS = frozenset({"no", "nope", "nah"})
FREE_TEXT_MAX_EXTRA_WORDS = 12
"""A free-text answer with no other candidate to exclude (no list, or one holding only the
gold) may add this many words to the gold phrase: pasting the whole story names the gold too.
Words repeated from the question count too: "Sophia will search for the harmonica in the art
studio, but Elijah thinks Sophia will search for the harmonica somewhere else" answers the
reality question and denies the belief asked about (reward red team)."""
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
REFUTATION_CUES = REFUTING_WORDS | REFUTING_AT_CLAUSE_END | NEGATIONS
"""Words without which no mention is refuted after it (see :func:`_refuted_after`)."""
_NEGATION_CUES = (
    NEGATIONS
    | REFUTING_WORDS
    | REFUTING_AT_CLAUSE_END
    | {second for _, second in EXCLUDING_PAIRS}
    | {"t"}
)
_CLAUSE_BREAKS = re.compile(r"[,;:.!?()\[\]\n]+")
_CLAUSE_BREAKS_AFTER = re.compile(r"[,;.!?)\]\n]+")
"""Where a mention's clause ends for the words that refute it: a colon or an opening bracket
after it goes on about it ("the jar: wrong", "the jar (wrong)")."""
LOCATION_PREPOSITIONS = frozenset({"in", "inside", "into", "at", "on"})
OTHER_RELATIONS = frozenset(
    {"outside", "out", "next", "under", "beneath", "beside", "behind", "near", "far", "above",
     "below", "without", "off", "front", "top", "around", "over", "away"}
)  # fmt: skip
"""Words that put a place in another relation than the gold's preposition ("outside the box"
for a gold "in the box"): the place alone does not name such a gold then."""
"""A free-text gold that starts with one of these ("in the kitchen") is also named by the
place alone ("kitchen"), as a gold "kitchen" is named by "in the kitchen"."""
_ALTERNATIVE_SPLIT = re.compile(
    r"([,;/|\n.?!:()\[\]+&\u2022\u3001]|\b(?:and|or|then|vs|versus)\b)", re.IGNORECASE
)
"""Where an answer splits like a list: commas and the like, sentence punctuation, brackets,
bullets, ``and``/``or``/``then``/``vs`` ("basket. box", "basket (box)", "basket then box")."""
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
ANSWER_LABELS = frozenset({"location", "place", "container", "person", "name", "object"})
"""What an answer may be labelled as ("Location: staff room"): a part of these words (and hedge
words) offers no other answer."""
REASON_LABELS = frozenset({"reason", "reasoning", "explanation", "justification", "why"})
"""What a reason after the answer may be labelled as ("staff room. Reason: Liam was there."):
a part of such a label names no other answer."""
_NOT_ALTERNATIVES = HEDGE_WORDS | REFUTING_WORDS | ANSWER_LABELS | REASON_LABELS
REASON_STARTS = frozenset(
    {"where", "which", "because", "since", "who", "whom", "whose", "when", "cause"}
)
"""Words that start a reason or a description of the answer given before it ("staff room,
where she left it"), not another answer; see ``lists_alternatives``. Not "as": "A, as well as
B" adds an answer."""
REASON_SEPARATORS = frozenset({",", ";", "("})
"""What may stand before such a reason: "A or where B is" offers B."""
VIEW_NOUNS = frozenset(
    {"view", "opinion", "perspective", "mind", "eyes", "belief", "beliefs", "knowledge",
     "understanding", "viewpoint", "standpoint", "estimation", "memory", "pov", "guess",
     "assumption", "expectation", "point"}
)  # fmt: skip
"""What a person's view is called after a possessive ("In Liam's view", "From Emma's point of
view", "Liam's guess:"); see ``ANNOTATION_WORDS``."""
VIEW_VERBS = frozenset(
    {"thinks", "thought", "believes", "believed", "knows", "knew", "assumes", "assumed",
     "expects", "expected", "remembers", "remembered", "recalls", "recalled", "supposes"}
)  # fmt: skip
"""What a person does with the answer, after the person ("Liam thinks", "as far as Liam
knows"); the bare forms ("think", "know") are HEDGE_WORDS, said of "I", not of a name."""
LOCATION_NOTES = frozenset(
    {"last", "known", "location", "position", "whereabouts", "first", "original", "initial",
     "presumed", "believed", "expected", "assumed", "supposed", "perceived", "latest",
     "current", "previous", "second", "third", "higher", "order", "false", "true"}
)  # fmt: skip
"""Words that describe the answer as a location or a belief ("last known location", "presumed
location", "second-order belief", "false belief"; "false" and "true" only before "belief(s)",
see :func:`annotates`), also after a possessive ("Liam's last known location").
No word that names a kind of place ("room", "spot"): "her room" is a place."""
ANNOTATION_WORDS = (
    VIEW_NOUNS
    | VIEW_VERBS
    | LOCATION_NOTES
    | frozenset(
        {"according", "to", "in", "from", "as", "far", "concerned", "based", "on", "per", "by",
         "of", "about", "what", "she", "he", "they", "her", "his", "their", "them", "him",
         "its", "we", "our", "your", "me", "seen", "saw", "left", "put", "placed", "kept",
         "where", "here", "was", "were", "be", "been", "has", "had", "have", "did", "does",
         "do", "would", "will", "look", "search", "find", "at", "originally", "initially",
         "previously", "currently", "most", "recent", "recently", "time", "start", "beginning",
         "end", "story", "before", "after", "move", "moved", "aware", "unaware", "presumably",
         "supposedly", "apparently"}
    )
)  # fmt: skip
"""Words a note on a free-text answer may be made of without naming anything ("staff room
(last known location)", "(as far as she knows)", "In her view, ..."): perspective frames,
pronouns, belief verbs and words that describe a location; no place, no negation, no
conjunction. Such a note may hold one more word, a person in a holder's slot (see
``_holds_view``), and none of the words barred for the item (candidates', story places)."""
REASON_VERBS = frozenset(
    {"is", "was", "were", "are", "am", "be", "been", "being", "did", "does", "do", "saw", "see",
     "sees", "seen", "told", "tell", "tells", "put", "puts", "left", "leave", "leaves", "went",
     "go", "goes", "came", "come", "comes", "stay", "stays", "stayed", "follow", "follows",
     "followed", "heard", "hear", "move", "moves", "moved", "placed", "watch", "watches",
     "watched", "witness", "witnessed", "notice", "noticed", "observed", "changed",
     "happened", "remained", "remains", "touched", "checked", "looked", "entered", "exited",
     "learned", "learnt", "said", "says", "showed", "shows", "shown", "confirms", "confirmed",
     "unchanged", "unmoved", "untouched", "know", "knows", "knew", "known"}
)  # fmt: skip
"""Verbs of a short sentence about the story after a free-text answer ("Nobody moved it",
"It was never moved", "Noah saw it"); see :func:`states_reason`. No verb of having or taking
("Lucas has it", "Danielle took it", "It's gone": the object is elsewhere); one of knowing
only in a sentence that negates nothing (KNOWING_VERBS)."""
KNOWING_VERBS = frozenset({"know", "knows", "knew", "known"})
"""Verbs of a reason that may not be negated: "Nobody knows", "I don't know" hedge ("Alexis
knows William saw it" is a reason)."""
PLACING_VERBS = frozenset({"moves", "moved", "placed", "put", "puts", "changed"})
"""Verbs of a reason that say the object was moved, which it may say only negated or of
"there"/"here" ("Nobody moved it", "Morgan put it there"; not "and it was moved")."""
LEAVING_VERBS = frozenset(
    {"left", "leave", "leaves", "went", "go", "goes", "came", "come", "comes"}
)
"""Verbs of a reason that a person may do ("Noah never left", "Liam left") but the object may
not ("It left with Lucas")."""
_OBJECT_SUBJECTS = frozenset({"it", "this", "that", "something", "everything", "nothing"})
_NEGATING_WORDS = frozenset({"not", "never", "nothing", "nobody", "none", "no"})
_FIRST_PERSON = frozenset({"i", "we"})
REASON_WORDS = REASON_VERBS | frozenset(
    {"it", "this", "that", "she", "he", "they", "i", "we", "you", "nobody", "everyone",
     "everybody", "someone", "somebody", "anyone", "anybody", "nothing", "everything",
     "anything", "none", "no", "one", "all", "there", "her", "him", "them", "me", "us",
     "itself", "herself", "himself", "themselves", "s", "m", "re", "not", "never", "still",
     "always", "already", "just", "also", "only", "ever", "again", "along", "here", "whole",
     "entire", "same", "time", "story", "change", "otherwise", "else", "from", "since",
     "after", "before", "at", "in", "inside", "into", "on", "to", "with", "of", "about",
     "for", "by", "present", "absent", "sure", "certain", "confident", "correct", "right",
     "true", "aware", "unaware", "fairly", "pretty", "quite", "very", "really", "definitely",
     "certainly", "absolutely", "clearly", "obviously", "so", "what", "where", "when",
     "while", "last", "first", "later", "earlier", "way", "as", "given", "based", "because"}
)  # fmt: skip
"""The words such a sentence may be made of, beside the story's people: pronouns, verbs,
adverbs, prepositions; no noun that could name a place or a thing ("room", "place", "spot"),
no possessive but "her", no modal or hedge ("might", "maybe", "think"), nothing that refutes."""
_CONTRACTED_VERBS = frozenset({"s", "m", "re"})
""""'s", "'m", "'re" after a pronoun ("It's", "I'm"), read as a verb; after a name "'s" is a
possessive ("Noah's" offers Noah's place)."""
_PRONOUN_SUBJECTS = frozenset(
    {"it", "this", "that", "she", "he", "they", "i", "we", "you", "there", "nobody",
     "everyone", "everybody", "someone", "somebody", "nothing", "everything", "what", "where"}
)  # fmt: skip
_REASON_NEGATIONS = frozenset({"not", "never"})
_NEGATABLE_IN_REASONS = REASON_VERBS | frozenset({"present", "aware"})
"""What "not"/"never" may stand before in a reason sentence ("Mia was not present"); "It's not
there", "It's not" deny the answer."""
LIST_PART_MAX_EXTRA_WORDS = 2
"""A part of a free-text answer, split like a list, that does not hold the gold and is at most
this many words longer than the gold reads as an alternative answer ("kitchen, garden")."""


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


@dataclass(frozen=True)
class ParsedResponse:
    """The format verdict and the extracted answer of one response."""

    format_ok: bool
    answer: str | None
    think: str | None
    problem: Verdict | None
    """Why no answer could be extracted (None when one was)."""


def with_prefill(text: str, prefill: str) -> str:
    """The full response: the prefill, then what followed it (a text that already starts with
    the prefill, put there by its caller, is the full response already)."""
    return prefill + text if prefill and not text.startswith(prefill) else text


_AFTER_ANSWER_OK = re.compile(r"(?:\s|<\|[^|<>\s]{1,40}\|>|</s>|<eos>|<end_of_turn>)*")
"""What may follow ``</answer>`` in a formatted response: whitespace and end-of-turn tokens
left in by a trainer's decoding (``<|im_end|>``, ``<|endoftext|>``, ``</s>``)."""


def parse_response(text: str, prefill: str = "") -> ParsedResponse:
    """Check the format and extract the answer block.

    ``text`` is what followed the prefill; a text that already starts with the prefill (a
    caller who put ``info["prefill"]`` in front, as the observation shows it) is read as the
    full text, not given the prefill twice.

    The format holds when the full text (``prefill + text``) has exactly one ``<think>`` and one
    ``</think>``, and after them one ``<answer>`` and one ``</answer>``, in that order, with
    only whitespace before ``<think>``, between ``</think>`` and ``<answer>`` and after
    ``</answer>`` (there, end-of-turn tokens too: ``_AFTER_ANSWER_OK``). The answer is the
    inside of the single answer block; several blocks, nested tags, an empty block or one
    inside the think part give no answer. Answer tags inside a (well-formed) think part are
    part of the thinking: they neither give an answer nor count as a second block.
    """
    full = with_prefill(text, prefill)
    n_think_open, n_think_close = full.count(THINK_OPEN), full.count(THINK_CLOSE)
    think_open = full.find(THINK_OPEN)
    think_close = full.find(THINK_CLOSE)
    think = None
    tags = full  # where answer tags count: the text with a well-formed think part blanked
    if n_think_open == 1 and n_think_close == 1 and think_open < think_close:
        start = think_open + len(THINK_OPEN)
        think = full[start:think_close]
        if "<" in think:  # answer tags in the thinking are thinking ("I'll use <answer> tags",
            # as the prompt says): an answer block there is no answer, nor a second block
            tags = full[:start] + " " * len(think) + full[think_close:]
    n_answer_open, n_answer_close = tags.count(ANSWER_OPEN), tags.count(ANSWER_CLOSE)
    answer_open = tags.find(ANSWER_OPEN)
    answer_close = tags.find(ANSWER_CLOSE)
    format_ok = (
        think is not None
        and n_answer_open == n_answer_close == 1
        and 0 <= think_open < think_close < answer_open < answer_close
        and not full[:think_open].strip()
        and not full[think_close + len(THINK_CLOSE) : answer_open].strip()
        # "... Actually the drawer." after the block breaks it; an end-of-turn token does not
        and _AFTER_ANSWER_OK.fullmatch(full, answer_close + len(ANSWER_CLOSE)) is not None
    )
    if n_answer_open == 0 or n_answer_close == 0:
        return ParsedResponse(format_ok, None, think, "no_answer")
    if n_answer_open > 1 or n_answer_close > 1:
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
def phrase_of(text: str) -> tuple[str, ...]:
    """``words(text)`` as a tuple, memoised: candidates and golds recur across items (a
    generated env draws them from one vocabulary), answers are never passed here."""
    return tuple(words(text))


HEAD_MAX_WORDS = 4
"""A candidate of two to this many words may be named by its last word alone ("the drawer" for
"wooden desk drawer"); a longer one is a sentence, whose last word is no name for it."""
NOT_HEADS = frozenset(
    {"it", "them", "one", "ones", "her", "him", "full", "accessible", "about", "there", "here",
     "room", "area", "place", "spot", "space", "side", "part", "location", "section", "zone",
     "corner", "way", "thing", "things", "same"}
)  # fmt: skip
"""Last words that name no one thing: not nouns ("knows about it", "more full"), or words any
answer may use of a place ("in the same room", "a quiet spot")."""
COMMON_WORD_HEADS = frozenset(
    {"can", "case", "safe", "back", "front", "top", "bottom", "left", "right", "well", "rest",
     "present", "kind", "sort", "still", "light", "close", "fine", "mind", "set", "point",
     "end", "lot", "stand"}
)  # fmt: skip
"""Last words that are also everyday words of other kinds ("I can't tell", "in any case", "to be
safe", "come back"): none is a name for its candidate alone, or "I can't tell" was credited as
"the trash can" and "She can find it in the container" named two candidates (reward red
team). The candidate is named in full ("trash can")."""


@functools.lru_cache(maxsize=1 << 12)
def head_aliases(candidates: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Candidate -> its last word as a name for it ("drawer" for "wooden desk drawer"; not an
    everyday word of another kind, COMMON_WORD_HEADS), where no other candidate holds that
    word: "the drawer" then names the drawer, and "the wooden desk drawer or the briefcase"
    names the leather briefcase too. Shared (memoised): not to be changed by callers."""
    phrases = [phrase_of(candidate) for candidate in candidates]
    holders: dict[str, int] = {}  # word -> how many candidates hold it
    for phrase in phrases:
        for word in set(phrase):
            holders[word] = holders.get(word, 0) + 1
    heads: dict[str, tuple[str, ...]] = {}
    for candidate, phrase in zip(candidates, phrases, strict=True):
        if 2 <= len(phrase) <= HEAD_MAX_WORDS:
            head = phrase[-1]
            named = head not in NOT_HEADS and head not in COMMON_WORD_HEADS
            if holders[head] == 1 and len(head) >= 3 and head.isalpha() and named:
                heads[candidate] = (head,)
    return heads


_NAME_WORD = re.compile(r"[A-Z][\w'\-]*")


SYNONYMS = (
    (("refrigerator",), ("fridge",)),
    (("sofa",), ("couch",)),
    (("television",), ("tv",)),
    (("trash", "can"), ("trashcan",), ("garbage", "can"), ("trash", "bin"), ("garbage", "bin"),
     ("rubbish", "bin"), ("wastebasket",), ("waste", "basket"), ("dustbin",)),
)  # fmt: skip
"""Household words a person uses for one another ("the fridge" for "the refrigerator", "the
trashcan" or "the garbage bin" for "the trash can"): see :func:`synonym_aliases`."""
LOOSE_SYNONYMS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("trash", "can"): ("trash", "garbage"),
    ("trash", "bin"): ("trash", "garbage"),
}
"""One-word names of a whole candidate only ("in the trash" for "the trash can"), never put in
place of a word of a longer one ("trash bag" is no trash can), and not where the story says
the word as part of another thing's name ("the garbage collector": see
:func:`synonym_aliases`)."""
_LOOSE_WORD_ENDS = frozenset(
    {"can", "cans", "bin", "bins", "and", "or", "but", "in", "on", "at", "to", "with", "before",
     "after", "while", "when", "as", "because", "so", "then", "where", "was", "is", "had",
     "has", "for", "of"}
)  # fmt: skip
"""Words after "trash"/"garbage" in a story that leave it the trash itself; any other word
makes it part of another thing's name ("garbage collector", "trash bag")."""


def _names_another_thing(word: str, story: str) -> bool:
    """Whether the story says ``word`` before a word outside _LOOSE_WORD_ENDS ("the garbage
    collector" for "garbage")."""
    return any(
        following.lower() not in _LOOSE_WORD_ENDS
        for following in re.findall(rf"\b{word}\s+([A-Za-z]+)", story, re.IGNORECASE)
    )


@functools.lru_cache(maxsize=1 << 10)  # keyed on whole stories: kept small
def synonym_aliases(candidates: tuple[str, ...], story: str = "") -> dict[str, tuple[str, ...]]:
    """Each candidate's phrases with a SYNONYMS member it holds put in place of another ("the
    fridge" for "the refrigerator", "fridge back" for "Refrigerator back"; "trash" and
    "garbage" for a whole "trash can" or "trash bin", LOOSE_SYNONYMS, unless the ``story``
    says the word as part of another thing's name, "the garbage collector"), where no other
    candidate holds a member of that group: with "trash can" and "garbage bin" both offered,
    "the trash" names neither."""
    phrases = {c: phrase_of(c) for c in candidates}
    found = {
        c: [
            (group, member)
            for group in SYNONYMS
            for member in group
            if phrase == member or _holds(phrase, member)
        ]
        for c, phrase in phrases.items()
    }
    aliases: dict[str, tuple[str, ...]] = {}
    for candidate, matches in found.items():
        shared = {
            id(group)
            for other, theirs in found.items()
            if other != candidate
            for group, _ in theirs
        }
        said: list[str] = []
        phrase = phrases[candidate]
        for group, member in matches:
            if id(group) in shared:
                continue
            at = next(i for i in range(len(phrase)) if phrase[i : i + len(member)] == member)
            for other in group:
                if other != member:
                    said.append(" ".join((*phrase[:at], *other, *phrase[at + len(member) :])))
            if phrase == member:
                loose = LOOSE_SYNONYMS.get(member, ())
                said += [word for word in loose if not _names_another_thing(word, story)]
        if said:
            aliases[candidate] = tuple(said)
    return aliases


@functools.lru_cache(maxsize=1 << 10)  # keyed on whole stories: kept small
def story_head_aliases(candidates: tuple[str, ...], story: str) -> dict[str, tuple[str, ...]]:
    """:func:`head_aliases`, less the last words the story uses of something else:

    - a candidate written as a name ("Mary Ann", "Jane Smith") where the story says that word
      outside the full name ("Ann" beside "Mary Ann", "John Smith" beside "Jane Smith"): that
      is another person;
    - a thing whose last word the story says on its own before it first names the thing in
      full ("put the ball in the box. Bob moved it to the red box."; the room "pantry" of a
      "red_pantry"): that is another thing, and "the box" was credited as the red box.

    Otherwise a story's "the briefcase" after "the leather briefcase" is the same thing, and the
    alias stands (custom-data audit)."""
    heads = head_aliases(candidates)
    if not heads:
        return heads
    kept = dict(heads)
    tokens: list[str] | None = None
    for candidate, (head,) in heads.items():
        parts = candidate.split()
        if all(_NAME_WORD.fullmatch(part) for part in parts):
            spaced = r"\s+".join(map(re.escape, parts))
            said = len(re.findall(rf"\b{re.escape(parts[-1])}\b", story))
            if said > len(re.findall(rf"\b{spaced}\b", story)):
                del kept[candidate]
            continue
        tokens = words(story) if tokens is None else tokens
        if _said_alone_first(tokens, phrase_of(candidate), head):
            del kept[candidate]
    return kept


def _said_alone_first(tokens: Sequence[str], phrase: tuple[str, ...], head: str) -> bool:
    """Whether ``head`` comes up on its own (not after a word of ``phrase``) before the tokens
    first hold ``phrase`` in full (False when they never do)."""
    spans = _phrase_spans(tokens, (phrase,))
    if not spans:
        return False
    return any(
        tokens[i] == head and (i == 0 or tokens[i - 1] not in phrase) for i in range(spans[0][0])
    )


PhraseIndex = Mapping[str, Sequence[tuple[tuple[str, ...], str, int]]]
"""First word -> the (phrase, key, rank) entries starting with it; rank is the entry's place in
the mapping the index was built from (key order, then phrase order), which breaks ties."""


def phrase_index(phrases: Mapping[str, Iterable[tuple[str, ...]]]) -> PhraseIndex:
    """The phrases of every key, indexed by their first word (empty phrases left out)."""
    index: dict[str, list[tuple[tuple[str, ...], str, int]]] = {}
    rank = 0
    for key, variants in phrases.items():
        for phrase in variants:
            if phrase:
                index.setdefault(phrase[0], []).append((phrase, key, rank))
            rank += 1
    return {first: tuple(entries) for first, entries in index.items()}


def mentioned(tokens: Sequence[str], phrases: Mapping[str, Iterable[tuple[str, ...]]]) -> set[str]:
    """Which keys have one of their phrases in ``tokens`` as whole consecutive words.

    A mention inside a longer mention of another key does not count: with candidates
    ``box`` and ``green box``, the words "green box" name only ``green box``.
    """
    return indexed_mentions(tokens, phrase_index(phrases))


def indexed_mentions(tokens: Sequence[str], index: PhraseIndex) -> set[str]:
    """:func:`mentioned` over a prebuilt :func:`phrase_index`: one dict look-up per word."""
    return set(indexed_spans(tokens, index))


def indexed_spans(tokens: Sequence[str], index: PhraseIndex) -> dict[str, list[tuple[int, int]]]:
    """The mentions :func:`indexed_mentions` accepts, as key -> its (start, end) spans: none
    strictly inside an accepted span of another key ("red box" holds no mention of ``box``
    when both are keys), so what is said of a longer candidate is not said of a shorter one
    inside it ("the box, not the red box" does not deny the box)."""
    words_of, at = tuple(tokens), index.get
    spans: list[tuple[int, int, int, str]] = []
    for start, tok in enumerate(words_of):
        entries = at(tok)
        if entries is None:
            continue
        for phrase, key, rank in entries:
            end = start + len(phrase)
            if words_of[start:end] == phrase:
                spans.append((start, end, rank, key))
    if not spans:
        return {}
    first_key = spans[0][3]
    if all(span[3] == first_key for span in spans):  # one key: nothing to decide
        return {first_key: [(start, end) for start, end, _, _ in spans]}
    # Longest first, then leftmost, then in the mapping's order: a span strictly inside an
    # accepted span of another key is dropped. The spans were found leftmost first and, at
    # one start, in the mapping's order, so grouping them by length (a handful of lengths)
    # orders them without a sort: the judge stays linear in the response's length.
    by_length: dict[int, list[tuple[int, int, int, str]]] = {}
    for span in spans:
        by_length.setdefault(span[1] - span[0], []).append(span)
    spans = [span for length in sorted(by_length, reverse=True) for span in by_length[length]]
    covered: list[int | None] = [None] * len(words_of)
    cover_key: dict[int, str] = {}
    found: dict[str, list[tuple[int, int]]] = {}
    for span_id, (start, end, _, key) in enumerate(spans):
        owners = {covered[i] for i in range(start, end)}
        inside_other = (
            len(owners) == 1 and None not in owners and cover_key[owners.pop()] != key  # type: ignore[index]
        )
        if inside_other:
            continue
        found.setdefault(key, []).append((start, end))
        for i in range(start, end):
            if covered[i] is None:
                covered[i] = span_id
        cover_key[span_id] = key
    return found


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


def _phrase_spans(
    tokens: Sequence[str], phrases: Iterable[tuple[str, ...]]
) -> list[tuple[int, int]]:
    """Where any of ``phrases`` occurs in ``tokens`` as whole consecutive words: (start, end)."""
    spans = []
    for phrase in phrases:
        if phrase:
            n, first = len(phrase), phrase[0]
            spans += [
                (i, i + n)
                for i, w in enumerate(tokens)
                if w == first and tuple(tokens[i : i + n]) == phrase
            ]
    return spans


def _outermost(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans less those inside another of them: "briefcase" inside "leather briefcase",
    both phrases of one candidate, is one mention (what is said of one is said of the other)."""
    kept: list[tuple[int, int]] = []
    reach = -1
    # The spans come as a few runs (one per phrase length, leftmost first): deduplicated in
    # order, they sort in about linear time, where a set's order would cost n log n.
    for start, end in sorted(dict.fromkeys(spans), key=lambda span: (span[0], -span[1])):
        if end > reach:
            kept.append((start, end))
            reach = end
    return kept


def own_spans(
    tokens: Sequence[str],
    phrases: Iterable[tuple[str, ...]],
    rivals: Sequence[tuple[str, ...]] = (),
) -> list[tuple[int, int]]:
    """Where ``phrases`` are mentioned in ``tokens``: their occurrences less those strictly
    inside a mention of one of the ``rivals`` (the other candidates), read as
    :func:`mentioned` reads them: with a rival "red box", the "box" of "not the red box" is
    no mention of the box, so it neither denies the box nor covers a part that offers it."""
    present = set(tokens)
    phrases = [phrase for phrase in phrases if phrase]
    # only a rival that holds one of the phrases can hold a mention of it ("red box": "box")
    rivals = [r for r in rivals if r and r[0] in present and any(_holds(r, p) for p in phrases)]
    if not rivals:
        return _phrase_spans(tokens, phrases)
    own = "\0"  # no rival's key (their keys are numbers)
    keyed = {own: phrases, **{str(i): [rival] for i, rival in enumerate(rivals)}}
    return indexed_spans(tokens, phrase_index(keyed)).get(own, [])


def _holds(longer: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    """Whether ``phrase`` is a strict part of ``longer`` as consecutive words."""
    n = len(phrase)
    return n < len(longer) and any(longer[i : i + n] == phrase for i in range(len(longer) - n + 1))


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


def states_reason(
    part: Sequence[str], people: frozenset[str], barred: frozenset[str] = frozenset()
) -> bool:
    """Whether a part of an answer is a short sentence about the story that names nothing
    ("Nobody moved it", "It was never moved", "I'm confident", "Noah saw it"): words of
    REASON_WORDS and the story's ``people`` only, none ``barred``, with a verb (REASON_VERBS,
    or "'s"/"'m"/"'re" after a pronoun), each "not"/"never" right before a verb or "present",
    "aware" ("It's not there" and "It's not" deny the answer, "It was never moved" does not).
    And what such a sentence may not say (reward red team): that the object moved
    (PLACING_VERBS after no negation, and of no "there"/"here": "and it was moved"), left
    (LEAVING_VERBS after the object as subject: "It left with Lucas"), or is not there (a
    negation before "there"/"here": "It never was there", "Nothing is there"); nor a first
    person's negation ("I don't know", "I am not aware": a hedge)."""
    if not barred.isdisjoint(part):
        return False
    negated_at = next((i for i, word in enumerate(part) if word in _NEGATING_WORDS), len(part))
    if negated_at < len(part) and not _FIRST_PERSON.isdisjoint(part):
        return False
    places = [i for i, word in enumerate(part) if word in ("there", "here")]
    if places and negated_at < max(places):
        return False
    for i, word in enumerate(part):
        if word in KNOWING_VERBS and negated_at < len(part):
            return False
        stayed_put = word == "put" and i > 0 and part[i - 1].startswith("stay")
        if word in PLACING_VERBS and negated_at > i and not places and not stayed_put:
            return False
        if word in LEAVING_VERBS and part[0] in _OBJECT_SUBJECTS:
            return False
    verb = False
    for i, word in enumerate(part):
        if word not in REASON_WORDS and word not in people:
            return False
        if word in REASON_VERBS or (
            word in _CONTRACTED_VERBS and i and part[i - 1] in _PRONOUN_SUBJECTS
        ):
            verb = True
        if word in _REASON_NEGATIONS and (
            i + 1 == len(part) or part[i + 1] not in _NEGATABLE_IN_REASONS
        ):
            return False
    return verb


@functools.lru_cache(maxsize=1024)
def question_commas(question: str) -> frozenset[tuple[str, str]]:
    """The word pairs a comma sets apart in the question outside a place ("for the small,
    leather-bound notebook" gives ("small", "leather")): not after a place's words ("in the
    kitchen, garden or hall", "moved it to the main information tent, leaving the bag" give
    none: an answer copying them would hide a place in one part with the gold)."""
    pairs = set()
    clauses = question.split(",")
    for left, right in zip(clauses, clauses[1:], strict=False):
        before, after = words(left), words(right)
        if before and after and not _ends_in_place(before):
            pairs.add((before[-1], after[0]))
    return frozenset(pairs)


_PLACE_PHRASE_REACH = 6
_PLACE_PHRASE_ENDS = frozenset(
    {"is", "was", "are", "were", "be", "does", "do", "did", "will", "would", "think", "thinks",
     "believe", "believes", "before", "after", "when", "while", "that", "and", "or", "moved",
     "put", "placed", "search", "look"}
)  # fmt: skip


def _ends_in_place(tokens: Sequence[str]) -> bool:
    """Whether the last of ``tokens`` is a word of a place: a place introducer stands at most
    _PLACE_PHRASE_REACH words before it with no verb or conjunction between ("to the main
    information tent"; not "In which container is the small")."""
    for at in range(len(tokens) - 1, max(-1, len(tokens) - 1 - _PLACE_PHRASE_REACH), -1):
        if tokens[at] in PLACE_INTRODUCERS:
            return True
        if tokens[at] in _PLACE_PHRASE_ENDS:
            return False
    return False


def _joined_at(pieces: list[str], pairs: frozenset[tuple[str, str]]) -> list[str]:
    """``pieces`` (text, separator, text, ...) with each comma between the words of one of
    ``pairs`` taken out: the two texts around it are one."""
    if not pairs:
        return pieces
    joined = [pieces[0]]
    for k in range(1, len(pieces) - 1, 2):
        separator, text = pieces[k], pieces[k + 1]
        before, after = words(joined[-1])[-1:], words(text)[:1]
        if separator.strip() == "," and before and after and (before[0], after[0]) in pairs:
            joined[-1] = f"{joined[-1]} {text}"
        else:
            joined += [separator, text]
    return joined


def annotates(part: Sequence[str], barred: frozenset[str]) -> bool:
    """Whether a part of an answer is a note on it that names nothing: words of
    ANNOTATION_WORDS (and hedges, labels), none of them ``barred``, and at most one other
    word, a person in a holder's slot (:func:`_holds_view`): "last known location", "as far
    as she knows", "In Liam's view", "According to Liam", "Liam thinks". The person may not be
    ``barred`` (a candidate's or a story place's word: "In the kitchen's view" names the
    kitchen) and is one word: "In the wooden desk drawer's view" is refused."""
    if not barred.isdisjoint(part) or any(
        word in _OWNED_PLACES and part[i - 1] in _POSSESSIVES for i, word in enumerate(part) if i
    ):  # "kitchen (her place)" offers her place
        return False
    if any(
        word in _BELIEF_TRUTHS and part[i + 1 : i + 2] not in (["belief"], ["beliefs"])
        for i, word in enumerate(part)
    ):  # "kitchen (false belief)" notes; "kitchen, false" may deny it
        return False
    others = [i for i, word in enumerate(part) if word not in _ANNOTATION_OR_HEDGE]
    return not others or (len(others) == 1 and _holds_view(part, others[0]))


_ANNOTATION_OR_HEDGE = ANNOTATION_WORDS | _NOT_ALTERNATIVES
_BELIEF_TRUTHS = frozenset({"false", "true"})
_POSSESSIVES = frozenset({"her", "his", "their", "our", "your", "my", "its", "s"})
_OWNED_PLACES = ANSWER_LABELS - {"location"}
"""Labels that, after a possessive, name a place or a thing ("her place", "his container")."""


def _holds_view(part: Sequence[str], at: int) -> bool:
    """Whether ``part[at]`` is a person whose view the part names: after "according to" or
    "per", before a possessive and a view or location word ("Liam's view", "Liam's point of
    view", "Liam's last known location"), or before a belief verb ("Liam thinks", "as far as
    Liam knows"). Not a negation nor a word that is nobody's name ("according to nobody",
    "in everyone's view", "outside's"), nor a number."""
    holder = part[at]
    if not holder.isalpha() or holder in _NO_HOLDERS:
        return False
    after = part[at + 1 : at + 3]
    return (
        (at >= 2 and part[at - 2] == "according" and part[at - 1] == "to")
        or (at >= 1 and part[at - 1] == "per")
        or (len(after) == 2 and after[0] == "s" and after[1] in _POSSESSED)
        or (len(after) >= 1 and after[0] in VIEW_VERBS)
    )


@functools.lru_cache(maxsize=1 << 12)
def _elided_parts(
    gold: tuple[str, ...], other: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """(the other's own words before the last words it shares with the gold, the other's own
    words after the first words it shares with it, how many first words they share); each
    part empty where they share no such words, or where either phrase would be left empty."""
    shortest = min(len(gold), len(other)) - 1
    last = 0
    while last < shortest and gold[-1 - last] == other[-1 - last]:
        last += 1
    first = 0
    while first < shortest and gold[first] == other[first]:
        first += 1
    return (other[: len(other) - last] if last else ()), (other[first:] if first else ()), first


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


def judge_number(answer: str, gold: str) -> Judgement | str:
    """For a gold that is a number, the answer's numbers as values (:mod:`tomgym.answer_numbers`):
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


def judge_choice(
    answer: str,
    gold: str,
    candidates: Sequence[str],
    aliases: Sequence[str] = (),
    other_aliases: Mapping[str, Sequence[str]] | None = None,
) -> Judgement:
    """Correct only if the answer names the gold candidate and no other candidate.
    ``aliases`` name the gold too; ``other_aliases`` (candidate -> phrases) name the other
    candidates, so that a paraphrase of the gold beside one of another ("does know or does
    not know") names two. A number is read as a value (:func:`judge_number`)."""
    numeric = judge_number(answer, gold)
    if isinstance(numeric, Judgement):
        return numeric
    answer = numeric
    tokens = words(answer)
    present = set(tokens)
    # The phrase index of the candidates (the gold's aliases under the gold), holding only
    # the phrases whose first word the answer has: an answer is a few words, a list 15 phrases.
    index: dict[str, list[tuple[tuple[str, ...], str, int]]] = {}
    variants: list[tuple[str, tuple[str, ...]]] = []
    for c in candidates:
        variants.append((c, phrase_of(c)))
        if c == gold:
            variants.extend((c, phrase_of(a)) for a in aliases)
        elif other_aliases and c in other_aliases:
            variants.extend((c, phrase_of(a)) for a in other_aliases[c])
    if gold not in candidates:
        variants.append((gold, phrase_of(gold)))
        variants.extend((gold, phrase_of(a)) for a in aliases)
    for rank, (key, phrase) in enumerate(variants):
        if phrase and phrase[0] in present:
            index.setdefault(phrase[0], []).append((phrase, key, rank))
    named = indexed_mentions(tokens, index)
    if not named:
        return Judgement(False, "no_candidate", "the answer names none of the candidates")
    if len(named) > 1 and may_negate(present):
        phrases: dict[str, list[tuple[str, ...]]] = {}
        for key, phrase in variants:
            phrases.setdefault(key, []).append(phrase)
        named = only_affirmed(answer, named, phrases)
    if len(named) > 1:
        return Judgement(False, "several_candidates", f"the answer names {len(named)} candidates")
    if named != {gold}:
        return Judgement(False, "wrong", f"names {named.pop()!r}")
    golds = [p for p in (phrase_of(gold), *map(phrase_of, aliases)) if p]
    # the other candidates' words are theirs: "the box, not the red box" denies no box
    rivals = [phrase for key, phrase in variants if key != gold and phrase]
    others: dict[str, list[tuple[str, ...]]] = {}
    for key, phrase in variants:
        if key != gold and phrase:
            others.setdefault(key, []).append(phrase)
    hedge = hedges(answer, tokens, golds, others, rivals)
    if hedge is not None:
        return Judgement(False, "several_candidates", hedge)
    if may_negate(present) and (
        negates(answer, golds, ends_clause((gold, *aliases)), rivals)
        or excluded(answer, golds, rivals)
    ):
        return Judgement(False, "wrong", "negates the gold candidate")
    return Judgement(True, "correct", "names the gold candidate only")


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
_POSSESSED = VIEW_NOUNS | LOCATION_NOTES
_NO_HOLDERS = NEGATIONS | NEGATING_EXCLUSION | NOT_NAMES
"""Words that hold no view in a note (:func:`_holds_view`): negations, nobody's names."""
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


ARTICLE_LABELS = frozenset({"a"})
"""Option labels that are also English words: read as labels only where no word follows."""


@functools.lru_cache(maxsize=64)
def _label_patterns(
    labels: tuple[str, ...],
) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(unmistakable label forms, every label form, a word after an article-like label).

    Unmistakable: "(b)", "b)" not inside a word, "(b" before a separator ("(b/c)"), "b."
    opening the answer, "b:" for a label that is not an article ("A:" opens many an answer),
    "option b" / "choice b", "answer (is) b" and an answer that is the letter alone or opens
    with it before punctuation. Every form: those, or a label letter standing alone."""
    any_label = "|".join(map(re.escape, labels))
    plain = "|".join(re.escape(label) for label in labels if label.lower() not in ARTICLE_LABELS)
    # after a label: the end, punctuation or an opening bracket ("answer: b (the option's text)")
    end = r"(?=\s*(?:$|[.,;:!?()]))"
    forms = [
        rf"\(\s*(?P<p>{any_label})\s*\)",
        # "(a/b)", "(b, c)", "(B or C)": the first of letters paired inside parentheses
        rf"\(\s*(?P<q>{any_label})(?=\s*(?:[/,|;]|(?:or|and)\s))",
        rf"(?<![\w(])(?P<m>{any_label})\)(?!\w)",
        rf"^\s*(?P<d>{any_label})\.(?!\w)",  # "B. ...", not "plan B." inside a sentence
        *([rf"(?<![\w(])(?P<c>{plain}):(?!\w)"] if plain else []),
        rf"\b(?:option|choice)\s*:?\s*(?P<o>{any_label})\b",
        rf"\banswer\s*(?:is\s*|:\s*)?(?P<n>{any_label}){end}",
        rf"^\s*(?P<s>{any_label})(?=\s*(?:$|[.,;!?()]))",  # not "A:", which opens answers
    ]
    unmistakable = re.compile("|".join(forms), re.IGNORECASE)
    every = re.compile("|".join([*forms, rf"(?<![\w(])(?P<w>{any_label})(?![\w)])"]), re.I)
    # after an article-like label, a word (not "or"/"and", not another label standing alone)
    word_after = re.compile(rf"\s+(?!(?:or|and|{any_label})(?![\w]))[^\W\d_]", re.IGNORECASE)
    return unmistakable, every, word_after


def expand_option_labels(answer: str, labels: Mapping[str, str]) -> str:
    """The answer with each option label it uses replaced by that option's text, for questions
    that show their candidates as "(a) ... (b) ...": "(b)", "b)", "option b" or a lone "b"
    then names the option, and "(a) or (b)", "(a/b)", "A) B)", "b or (a)" name both. A letter
    standing alone is read as a label once the answer uses one unmistakably, unless it is an
    article ("a dog": a word follows). Nothing inside an option's own text as the answer quotes it
    ("... plan B.") is read as a label, and the answer is read once, in linear time."""
    by_label = {str(k).strip().lower(): text for k, text in labels.items() if str(k).strip()}
    if not by_label:
        return answer
    unmistakable, every, word_after = _label_patterns(tuple(sorted(by_label)))
    quoted = _quoted_spans(answer, by_label.values())

    def outside(match: re.Match[str]) -> bool:
        at = bisect.bisect_right(quoted, (match.start(), len(answer) + 1)) - 1
        return at < 0 or match.start() >= quoted[at][1]

    if not any(map(outside, unmistakable.finditer(answer))):
        return answer

    def option(match: re.Match[str]) -> str:
        label = next(group for group in match.groups() if group)
        if not outside(match) or (
            match.group("w")
            and label.lower() in ARTICLE_LABELS
            and word_after.match(answer, match.end())
        ):
            return match.group(0)  # inside a quoted option, or "a pet": the article
        return f" {by_label[label.lower()]} "

    return every.sub(option, answer)


def _quoted_spans(answer: str, texts: Iterable[str]) -> list[tuple[int, int]]:
    """Where the answer quotes an option's text (case aside): sorted, disjoint (start, end)."""
    lowered = answer.lower()
    spans = []
    for text in texts:
        needle = text.strip().lower()
        start = lowered.find(needle) if needle else -1
        while start != -1:
            spans.append((start, start + len(needle)))
            start = lowered.find(needle, start + len(needle))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):  # one option's text may hold the other's
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


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


def leading_yes_no(text: str, lead_in: bool = True) -> str | None:
    """``"yes"`` or ``"no"`` when the text starts with that word (or "yeah", "yep", "nope",
    "true", "false"...), after an announcement such as "Answer:" or "The answer is", or is one
    of WHOLE_YES_NO_ANSWERS ("Not really."); else None: also for a "no" that declines to
    answer ("No idea", :func:`_declines`) and a bare yes or no asked back ("Yes?")."""
    tokens = words(text)
    while tokens[:1] and tokens[0] in LEAD_WORDS and len(tokens) > 1:  # "So the answer is no"
        tokens = tokens[1:]
    for _ in range(2):  # "Final answer: \boxed{yes}": an announcement, then a box
        for preamble in ANSWER_PREAMBLES:
            if tuple(tokens[: len(preamble)]) == preamble and len(tokens) > len(preamble):
                tokens = tokens[len(preamble) :]
                break
        else:
            break
    if not tokens:
        return None
    if len(tokens) == 1 and "?" in text:
        return None  # "Yes?", "**Yes?**", "So... no? 🤔" ask, they do not answer
    if tokens[0] in YES_WORDS or tokens[0] == "true":
        return "yes"
    if tokens[0] in NO_WORDS:
        return None if _declines(tokens) else "no"
    if tokens[0] == "false":
        return "no"
    whole = WHOLE_YES_NO_ANSWERS.get(tuple(tokens))
    if whole is None and tokens[0] in _HEDGE_STARTS:
        whole = _hedged_yes_no(_visible(unicodedata.normalize("NFKC", text)))
    return whole if whole is not None else _first_clause_says(text, lead_in)


LEAD_WORDS = frozenset({"so", "therefore", "thus", "hence", "overall", "ultimately", "well"})
"""Words that lead to an answer without saying one ("So the answer is no", "Therefore, yes")."""
LEAD_IN_WORDS = LEAD_WORDS | frozenset(
    {"in", "short", "summary", "conclusion", "sum", "based", "on", "story", "from", "according",
     "to", "given", "considering", "perspective", "view", "point", "of", "s", "all", "that",
     "this", "above", "information", "text", "narrative", "clearly", "obviously", "okay", "ok",
     "then", "after", "reading", "analysis", "brief"}
)  # fmt: skip
"""Words a clause before the answer may be made of ("In short, yes.", "Based on the story, no.",
"From Anthony's perspective, no.", with at most one other word, a person's name): it leads
to the answer after it, and says none itself (no negation, no yes or no)."""


def _first_clause_says(text: str, lead_in: bool = True) -> str | None:
    """The answer a text that does not open with yes or no gives in its first clause: a whole
    answer that says "not" ("Not at all - she left", "Definitely not - she left"), she, he or
    they and an auxiliary that is no modal ("She doesn't.", "He does, because he saw it",
    :func:`_restated_by_subject`), or the answer after a leading clause of LEAD_IN_WORDS and
    at most one other word, a name ("Based on the story, no.", "From Anthony's perspective,
    no."; one such clause, ``lead_in``: the reading stays linear). None where the text asks
    (a "?"), hedges or doubts (_HEDGED_BEFORE, _UNCOMMITTED)."""
    folded = text if text.isascii() else _visible(unicodedata.normalize("NFKC", text))
    first = next((piece for piece in _YES_NO_CLAUSES.split(folded) if words(piece)), "")
    if not first:
        return None
    said = words(first)  # everything before the first clause holds no word: it is found there
    rest = folded[folded.find(first) + len(first) :]
    if "?" in folded or _UNCOMMITTED.search(folded) or _HEDGED_BEFORE.search(folded):
        return None  # "She does - or does she?" asks; "Possibly, no." hedges
    # a whole answer that says "not" ("Definitely not - she left"); a yes word before more
    # text may be a marker ("Of course, Ann was not there", "Definitely, she was gone")
    whole = WHOLE_YES_NO_ANSWERS.get(tuple(said))
    if whole is not None and "not" in said:
        return whole
    if said[0] in _THIRD_PERSONS and _MODALS.isdisjoint(said):
        restated = _restated_by_subject(said)
        if restated is not None:
            return restated
    others = [word for word in said if word not in LEAD_IN_WORDS]
    if (
        lead_in
        and words(rest)
        and (not others or (len(others) == 1 and _capitalised_inside(first, others[0])))
        and not any(map(_says_yes_or_no, said))
    ):
        return leading_yes_no(rest, lead_in=False)
    return None


def _capitalised_inside(clause: str, word: str) -> bool:
    """Whether ``word`` is written capitalised in ``clause`` after its first word: a name
    ("From Anthony's perspective"; not "Unlikely" or "Hypothetically" opening it)."""
    return any(
        match.start() > 0 and match.group(0)[0].isupper()
        for match in re.finditer(rf"\b{re.escape(word)}\b", clause.lstrip(" *_`'\"(["), re.I)
    )


_UNCOMMITTED = re.compile(
    r"\b(?:not\s+sure|unsure|unclear|unknown|uncertain|hard\s+to\s+(?:say|tell)"
    r"|impossible\s+to|can\s*not\s+(?:say|tell|know|be\s+(?:sure|determined|certain))"
    r"|can['\u2019]?t\s+(?:say|tell|know|be\s+(?:sure|determined|certain))"
    r"|(?:do|does)\s+not\s+know|(?:don|doesn)['\u2019]?t\s+know|no\s+idea|no\s+one\s+(?:can|could|knows)"
    r"|either\s+way|could\s+go\s+either|could\s+be\s+either|refuse|unlikely|doubtful"
    r"|hypothetically|theoretically|whether|may\s+or\s+may|might\s+or\s+might"
    r"|determine[ds]?|could\s+be\s+wrong|disagree|the\s+other"
    r"|(?:doesn['\u2019]?t|does\s+not)\s+say(?=\s*(?:[.!,;:)]|$)))\b",
    re.IGNORECASE,
)
_HEDGED_BEFORE = re.compile(
    r"\b(?:either|possibly|perhaps|maybe|probably|arguably|questionable|otherwise|might|guess)\b",
    re.IGNORECASE,
)
"""Hedges that leave an answer read after a lead-in or at the end uncommitted ("Possibly, no.",
"Either, yes."); a leading hedged answer ("Probably not.") is read on its own terms."""
"""What leaves a yes/no answer uncommitted where the answer is read from a first clause, after
a lead-in or at the end (not from a leading yes or no): a doubt ("Hard to say. Yes.") or a
refusal (reward red team). A condition refuses any yes/no answer: _CONDITION."""
_MODALS = frozenset({"may", "might", "could", "would", "should", "can"})
"""Auxiliaries that hedge: "She might." commits to nothing."""


_WHOLE_ONLY = frozenset(
    {("probably",), ("i", "guess", "so"), ("i", "suppose", "so"), ("i", "think", "so"),
     ("negative",), ("affirmative",), ("indeed",)}
)  # fmt: skip
"""Whole answers that are the answer only when nothing follows: hedges ("Probably, but I'm not
sure" is no yes) and words also used as markers ("Indeed, she has no way of knowing")."""
_THIRD_PERSONS = frozenset({"she", "he", "they"})
"""Subjects of a first clause read as the answer ("She doesn't."); not "it", which may state the
object's place rather than the belief asked about ("It is. But Ann doesn't know that.")."""


def _says_yes_or_no(word: str) -> bool:
    return word in YES_WORDS or word in NO_WORDS or word in ("true", "false", "not", "never")


def yes_no_said(text: str) -> tuple[str | None, bool]:
    """The yes or no an answer gives, as the judge reads it, and whether it came last: its
    leading one (:func:`leading_yes_no`), else its last clause's (:func:`last_clause_says`)."""
    said = leading_yes_no(text)
    return (said, False) if said is not None else (last_clause_says(text), True)


def last_clause_says(text: str) -> str | None:
    """The answer a text gives in its last clause when it gives none first: a bare yes or no
    after the reasons, with "so", "therefore" or an announcement ("Kaitlyn left before it
    happened, so no.", "She was there. Yes.", "She saw it.\nAnswer: yes")."""
    folded = _visible(unicodedata.normalize("NFKC", text)) if not text.isascii() else text
    clauses = [c for c in _YES_NO_LAST_CLAUSES.split(folded) if words(c)]
    if len(clauses) < 2 or "?" in folded[folded.rfind(clauses[-1]) :]:
        return None  # "Hmm... no?", "So... **no?**" ask back ("Does she know? No." answers)
    if _UNCOMMITTED.search(folded) or _HEDGED_BEFORE.search(folded):
        return None  # "I don't know. Yes.", "If she saw it, yes.", "Possibly, no."
    said = words(clauses[-1])
    while said[:1] and said[0] in LEAD_WORDS and len(said) > 1:
        said = said[1:]
    for preamble in ANSWER_PREAMBLES:
        if tuple(said[: len(preamble)]) == preamble and len(said) > len(preamble):
            said = said[len(preamble) :]
            break
    if len(said) != 1:
        return None
    if said[0] in YES_WORDS or said[0] == "true":
        return "yes"
    if said[0] in NO_WORDS or said[0] == "false":
        return "no"
    return None


_YES_NO_LAST_CLAUSES = re.compile(r"[,;.!?()\[\]\n\u2014\u2013]|\s-+\s")
"""Where the last clause of a yes/no answer starts ("..., so no.", "... No."): not a colon,
which an announcement keeps ("Answer: no")."""


_DECLINING_AFTER_NO = frozenset({"idea", "clue", "clues", "telling", "comment"})


def _declines(tokens: Sequence[str]) -> bool:
    """Whether words opening with a "no" decline to answer instead ("No idea", "no clue", "no
    way to tell", "no telling"): they were read as the answer "no"."""
    if len(tokens) < 2:
        return False
    follows = tokens[1]
    return (
        follows in _DECLINING_AFTER_NO
        or (follows == "way" and len(tokens) > 2 and tokens[2] in ("to", "of"))
        or (follows == "one" and len(tokens) > 2 and tokens[2] in _NO_ONE_DECLINES)
    )


_NO_ONE_DECLINES = frozenset({"can", "could", "knows", "know", "really"})
"""After "no one": "No one can tell", "No one knows" decline; "No one told her" answers no."""


WHOLE_YES_NO_ANSWERS = {
    **dict.fromkeys(
        [("not", "really"), ("probably", "not"), ("i", "think", "not"), ("certainly", "not"),
         ("definitely", "not"), ("of", "course", "not"), ("absolutely", "not"),
         ("not", "at", "all"), ("i", "do", "not", "think", "so"), ("i", "believe", "not"),
         ("i", "guess", "not"), ("i", "suppose", "not"), ("i", "do", "not", "believe", "so"),
         ("negative",)],
        "no",
    ),
    **dict.fromkeys(
        [("i", "think", "so"), ("of", "course"), ("certainly",), ("definitely",),
         ("absolutely",), ("probably",), ("i", "believe", "so"), ("i", "guess", "so"),
         ("i", "suppose", "so"), ("indeed",), ("affirmative",)],
        "yes",
    ),
}  # fmt: skip
"""Whole answers that say no or yes without the word ("Not really.", "I don't think so",
"Of course"): only as the whole answer, so "Probably not the box" is not a "no"."""


_HEDGED_YES_NO = re.compile(
    r"\W*(?:i\s+(?:think|believe|guess|suppose|would\s+say)|probably|perhaps|maybe|(?:most\s+)?likely"
    r"|definitely|certainly|absolutely|surely)"
    rf"[\s,:]+({'|'.join(sorted(YES_WORDS | NO_WORDS))})\b(?=\s*(?:$|[^\w\s']))",
    re.IGNORECASE,
)
"""A yes or no after a hedge ("I think yes.", "Probably no, because..."), said as an answer:
before a punctuation mark or the end ("I think no one saw it" says neither)."""
_HEDGE_STARTS = frozenset(
    {"i", "probably", "perhaps", "maybe", "likely", "definitely", "certainly", "absolutely",
     "surely", "most"}
)  # fmt: skip


def _hedged_yes_no(text: str) -> str | None:
    """The yes or no a text opening with a hedge says as its answer (_HEDGED_YES_NO)."""
    hedged = _HEDGED_YES_NO.match(text)
    if hedged is None:
        return None
    return "yes" if hedged[1].casefold() in YES_WORDS else "no"


ANSWER_PREAMBLES = (
    ("my", "final", "answer", "would", "be"),
    ("my", "answer", "would", "be"),
    ("answer", "would", "be"),
    ("correct", "answer", "is"),
    ("right", "answer", "is"),
    ("i", "would", "say"),
    ("i", "d", "say"),
    ("my", "final", "answer", "is"),
    ("final", "answer", "is"),
    ("my", "answer", "is"),
    ("short", "answer", "is"),
    ("answer", "is"),
    ("my", "final", "answer"),
    ("final", "answer"),
    ("my", "answer"),
    ("short", "answer"),
    ("answer",),
    ("boxed", "text"),
    ("boxed",),
)
"""Words that announce an answer ("Answer: yes", "The answer is no", "My answer: yes",
"\boxed{yes}", "$\boxed{\text{no}}$", "The correct answer is yes", "My answer would be no",
"I'd say no"; articles are dropped)."""


def judge_yes_no(answer: str, gold: str, question: str = "") -> Judgement:
    """Judged on the answer's leading yes/no (``no:long`` and similar golds count as no); with
    the ``question``, a clause restating it (:mod:`tomgym.restatements`) is read too: one that
    says the other answer contradicts the yes/no, and an answer without a yes/no is judged by
    what its restatement says."""
    gold_value = leading_yes_no(gold)
    if gold_value is None:
        raise ValueError(f"gold answer {gold!r} of a yes/no item does not start with yes or no")
    folded = answer if answer.isascii() else unicodedata.normalize("NFKC", answer).casefold()
    if not folded.isascii():  # an invisible mark inside "n\u200bo" hides no word: as words()
        folded = _visible(folded)
    restated, unrestated = _restatements(folded, question) if question else (set(), folded)
    said, last = yes_no_said(answer)
    if said is None:
        if (
            len(restated) == 1
            and "?" not in folded  # asked back ("..., or does he?")
            and not _UNCOMMITTED.search(unrestated)
            and not _CONDITION.search(folded)
            and not _OFFERS_ANOTHER.search(unrestated)
            and not any(_clause_says(c) for c in unrestated.split(" | ") if words(c))
        ):
            (says,) = restated
            right = says == gold_value
            detail = f"restates the question as {says!r}"
            return Judgement(right, "correct" if right else "wrong", detail)
        return Judgement(False, "unparsable", "the answer does not start or end with yes or no")
    if said != gold_value:
        return Judgement(False, "wrong", f"{'ends' if last else 'starts'} with {said!r}")
    other = "no" if said == "yes" else "yes"
    if other in restated:
        return Judgement(
            False, "several_candidates", f"says {said!r}, and restates the question as {other!r}"
        )
    if _STANDALONE[other].search(folded) or (
        _TRUE_OR_FALSE.match(folded) and _STANDALONE_TRUTH[other].search(folded)
    ):
        return Judgement(False, "several_candidates", f"says {said!r} and {other!r}")
    if not _PLAIN_YES_NO.match(folded) and _UNCOMMITTED.search(folded):
        return Judgement(False, "several_candidates", "the answer hedges or declines")
    if _CONDITION.search(folded):
        return Judgement(False, "several_candidates", "answers on a condition")
    clauses = _YES_NO_CLAUSES.split(folded)
    # the clauses beside the one that answers: before the last, or after the first
    later = [clause for clause in clauses if words(clause)][:-1] if last else clauses[1:]
    if any(
        _clause_says(clause) in (other, "either")
        and not (_about_the_object(clause) and _about_a_person(clauses))
        for clause in later
    ):
        return Judgement(False, "several_candidates", f"says {said!r} and {other!r}")
    return Judgement(True, "correct", f"{'ends' if last else 'starts'} with {said!r}")


_OFFERS_ANOTHER = re.compile(r"\b(?:or|maybe|perhaps|possibly|probably)\b", re.IGNORECASE)
"""Words that, beside a restatement given as the whole answer, hedge it ("Hailey knows about
it, or maybe not"); a clause that answers on its own ("not really") does too."""


def _restatements(folded: str, question: str) -> tuple[set[str], str]:
    """What the answer's clauses that restate the question say (see tomgym.restatements), and
    the answer's other clauses (where a doubt, not the restated "does not know", is read)."""
    from tomgym.restatements import parse_question, restated_answer

    parsed = parse_question(question)
    if parsed is None:
        return set(), folded
    said: set[str] = set()
    others: list[str] = []
    for clause in _YES_NO_CLAUSES.split(folded):
        restated = restated_answer(clause, parsed)
        if restated is None:
            others.append(clause)
        else:
            said.add(restated)
    return said, " | ".join(others)


_PLAIN_YES_NO = re.compile(
    rf"\W*(?:{'|'.join(sorted(YES_WORDS | NO_WORDS))})\b(?!\s+(?:idea|clue|way|one)\b)", re.I
)
"""An answer that opens with the bare word: read on its own terms, as before the other
readings came; any other that doubts or declines (_UNCOMMITTED: "The correct answer is yes,
but I disagree", "False - can't be determined") is no committed answer."""
_TRUE_OR_FALSE = re.compile(r"\W*(?:true|false)\b", re.IGNORECASE)
_STANDALONE_TRUTH = {
    "yes": re.compile(r"\btrue\b", re.IGNORECASE),
    "no": re.compile(r"\bfalse\b", re.IGNORECASE),
}
"""A "true" after a leading "false" (or the reverse) says both ("False - or true")."""
_CONDITION = re.compile(
    r"(?<!\beven )(?<!\bas )\b(?:if|unless|depends|depending|assuming|supposing|provided"
    r"|(?:had|were)\s+(?:she|he|they|it))\b",
    re.IGNORECASE,
)
"""A condition on a yes/no answer ("Yes if she saw it, no otherwise", "Had she stayed, yes",
"Yes, unless she left",
"It depends; yes"): it answers a hypothetical, not the question; "even if" and "as if" do not
(reward red team)."""


def _about_a_person(clauses: Sequence[str]) -> bool:
    """Whether a clause of the answer opens with she, he or they ("Yes, he does")."""
    return any(_SUBJECT_OPENING.match(clause) for clause in clauses)


_SUBJECT_OPENING = re.compile(r"\W*(?:she|he|they)\b", re.IGNORECASE)


def _about_the_object(clause: str) -> bool:
    """Whether a later clause says something of "it" ("but it isn't", "even though it isn't"):
    after an answer about a person ("Yes, he does"), that is the object's true state, not a
    second answer to whether the person thinks so."""
    tokens = words(clause)
    while tokens and (tokens[0] in _CONNECTIVES or tokens[0] in {"even", "though"}):
        tokens = tokens[1:]
    return tokens in (["it", verb] for verb in _BE) or tokens in (
        ["it", verb, "not"] for verb in _BE
    )


_BE = ("is", "was", "are", "were")


_YES_NO_CLAUSES = re.compile(
    r"[,;.!?:()\[\]/\\\n\u2014\u2013\u2026\u3001\uff0c\ufe50\u201a]|\s-+\s"
    r"|(?=\b(?:or|but|though|although|unless)\b)",
    re.IGNORECASE,
)
"""Where a yes/no answer's later clauses start ("Yes, maybe not.")."""


def _clause_says(clause: str) -> str | None:
    """What a later clause of a yes/no answer says as an answer of its own (not "no one told
    him", not "of course, she left", not "that is so"): a whole answer that says not or so
    ("not really", "I don't think so"), a yes/no after a hedge ("I think no"), hedging leads
    ending in "not" (no) or "so" (yes) ("maybe not", "but I guess so", "or not"), a bare
    "not" ("Yes, not."), or
    "either" for a connective before a bare maybe ("but probably"), which takes the answer
    back. (A bare yes/no is _STANDALONE's.)"""
    tokens = words(clause)
    core = tokens
    while core and core[0] in _CONNECTIVES:  # "or not really": the clause after its "or"
        core = core[1:]
    if not core:
        return None
    whole = WHOLE_YES_NO_ANSWERS.get(tuple(core))
    if whole is not None and ("not" in core or core[-1] == "so"):
        return whole  # not "Of course" after a no: "No. Of course, she left."
    said = _hedged_yes_no(clause) if tokens[0] in _HEDGE_STARTS else None
    if said is not None:
        return said
    leads, last = tokens[:-1], tokens[-1]
    if not leads and last == "not":
        return "no"  # "Yes, not.", "Yes/not"
    restated = _restated_by_subject(tokens)
    if restated is not None:  # "..., or at least she might": a hedge, whichever it says
        return restated if _MODALS.isdisjoint(tokens) else "either"
    if leads and _HEDGING_LEADS.issuperset(leads):
        if last in ("not", "so"):
            return "no" if last == "not" else "yes"
        if last in _MAYBE and not _CONNECTIVES.isdisjoint(leads):
            return "either"
    return None


_CONNECTIVES = frozenset(
    {"or", "but", "though", "although", "unless", "then", "again", "and", "also", "yet"}
)
_MAYBE = frozenset({"maybe", "perhaps", "possibly", "probably", "likely"})
_HEDGING_LEADS = (
    _CONNECTIVES
    | _MAYBE
    | {"i", "think", "guess", "believe", "suppose", "would", "say", "well", "at", "least", "most"}
)
"""Words a later clause of a yes/no answer may open with before a "not" or "so" that says the
answer again ("but maybe not"): hedges and connectives, not a sentence ("is it not?")."""


_SUBJECTS = frozenset({"she", "he", "they", "it", "you", "we", "i"})
_AUXILIARIES = frozenset(
    {"does", "do", "did", "is", "was", "are", "were", "will", "would", "could", "might", "may",
     "can", "should", "has", "have", "had"}
)  # fmt: skip


def _restated_by_subject(tokens: Sequence[str]) -> str | None:
    """A later clause that is a subject and an auxiliary, as a short answer says yes or no
    ("she doesn't", "but maybe he does", "though she might not"): "no" when it ends in "not",
    "yes" when it ends in the auxiliary; None for anything else, and for a tag question
    ("is it not?": the auxiliary first)."""
    said = "yes"
    if tokens[-1:] == ["not"]:
        tokens, said = tokens[:-1], "no"
    if not tokens or tokens[-1] not in _AUXILIARIES:
        return None
    at = len(tokens) - 1  # the subject: the last word before the auxiliary and its hedges
    while at >= 0 and tokens[at] in _AUXILIARIES | _MAYBE:
        at -= 1
    if at < 0 or tokens[at] not in _SUBJECTS or not _HEDGING_LEADS.issuperset(tokens[:at]):
        return None
    return said


TAKING_BACK_LEADS = _HEDGING_LEADS | _SUBJECTS | frozenset(
    {"does", "do", "did", "is", "was", "are", "were", "will", "would", "could", "might", "may",
     "can", "should", "else"}
)  # fmt: skip
"""Words a later part of an answer may hold before a "not" that takes the gold back ("or
does not", "probably does not"); see :func:`_takes_back`."""


_STANDALONE = {
    word: re.compile(
        rf"\b(?:{'|'.join(sorted(spellings))})\b"
        rf"(?=\s*(?:$|[^\w\s']|(?:or|and|but|{'|'.join(sorted(YES_WORDS | NO_WORDS))})\b))",
        re.IGNORECASE,
    )
    for word, spellings in (("yes", YES_WORDS), ("no", NO_WORDS))
}
"""``yes``/``no`` said as an answer: before a punctuation mark, the end, another alternative
or another yes/no ("yes or no", "Yes? No!", "yes/no", "yes no yes"), not as a word of a
sentence ("no one saw it")."""


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
