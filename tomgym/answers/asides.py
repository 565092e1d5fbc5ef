"""Parts of an answer that offer no other answer: labels, a reason after it
(:func:`states_reason`), a note on it (:func:`annotates`), and commas it copies from the
question (:func:`question_commas`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from tomgym.answers.negation import NEGATING_EXCLUSION, NEGATIONS, REFUTING_WORDS
from tomgym.answers.story import NOT_NAMES, PLACE_INTRODUCERS
from tomgym.answers.tokens import HEDGE_WORDS, words

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


_POSSESSED = VIEW_NOUNS | LOCATION_NOTES
_NO_HOLDERS = NEGATIONS | NEGATING_EXCLUSION | NOT_NAMES
"""Words that hold no view in a note (:func:`_holds_view`): negations, nobody's names."""


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
