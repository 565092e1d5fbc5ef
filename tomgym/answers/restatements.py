"""What a sentence that restates a yes/no question says: "Hailey does not know about it" to
"Does Hailey know about the plans?" says no, "it is still in its initial location" to "From
Diego's perspective, is the scarf in its initial location ...?" says yes.

The judge reads it in two places: an answer that leads with one word and restates the question
as the other ("Yes, Hailey does not know about it.") contradicts itself and earns nothing; an
answer that gives no yes or no but restates the question ("Hailey does not know about it.")
answers by it. Only a close restatement is read: the question's own subject (or a pronoun),
its verb, negated or not, and then nothing, a pronoun ("about it", "so") or the question's own
words; anything else (another object, a reason, a concession) says nothing here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tomgym.answers.tokens import words

DO_AUXILIARIES = frozenset({"does", "do", "did"})
"""The auxiliaries of a "Does Hailey know ...?" question."""
PERSON_PRONOUNS = frozenset({"she", "he", "they"})
THING_PRONOUNS = frozenset({"it"})
STAND_INS = frozenset({"it", "that", "this", "so"})
"""Words that stand for the rest of the question ("does not know about it", "thinks so")."""
NEGATING = frozenset({"not", "never", "no", "nothing", "nobody", "none", "neither", "nor"})
IRREGULAR_PAST = {"know": "knew", "think": "thought", "see": "saw", "hear": "heard"}
OPTIONAL = frozenset({"still"})
"""Words a restatement may add or leave out ("it is still in its initial location")."""
_QUESTION_END = re.compile(r"\?")


@dataclass(frozen=True)
class YesNoQuestion:
    """A yes/no question as restatements are compared with it: who or what it is about, its
    verb (None for "is ...?"), and its words after the verb (after "is" and the subject)."""

    subjects: frozenset[str]
    verb: str | None
    rest: tuple[str, ...]


@functools.lru_cache(maxsize=4096)  # a release asks one question of many answers
def parse_question(question: str) -> YesNoQuestion | None:
    """The question's parts, for "Does NAME VERB ...?" and "[From NAME's perspective,] is the
    THING ...?" (the instruction after the question mark left out); None for any other form."""
    asked = _QUESTION_END.split(question, 1)[0]
    tokens = words(asked)
    if tokens[:1] == ["from"] and "perspective" in tokens:
        tokens = tokens[tokens.index("perspective") + 1 :]
    if len(tokens) >= 3 and tokens[0] in DO_AUXILIARIES:
        person, verb = tokens[1], tokens[2]
        return YesNoQuestion(frozenset({person}) | PERSON_PRONOUNS, verb, tuple(tokens[3:]))
    if len(tokens) >= 4 and tokens[0] in ("is", "was"):
        # "is scarf in its initial location ...": the subject runs to the first preposition
        for at in range(2, len(tokens)):
            if tokens[at] in ("in", "at", "on", "inside"):
                thing = frozenset(tokens[1:at])
                return YesNoQuestion(thing | THING_PRONOUNS, None, tuple(tokens[at:]))
    return None


def _verb_forms(verb: str) -> frozenset[str]:
    forms = {verb, f"{verb}s", f"{verb}es", f"{verb}d", f"{verb}ed"}
    if verb in IRREGULAR_PAST:
        forms.add(IRREGULAR_PAST[verb])
    return frozenset(forms)


def _mirrors(said: Sequence[str], asked: Sequence[str]) -> bool:
    """Whether the words after the verb restate the question's: none, a stand-in after the
    question's own first word or alone ("about it", "so"), or the question's words (a word of
    OPTIONAL added or left out), at least the start of them up to four words."""
    said = [w for w in said if w not in OPTIONAL]
    asked = [w for w in asked if w not in OPTIONAL]
    if not said:
        return True
    if said[-1] in STAND_INS and (
        len(said) == 1 or (len(said) == 2 and asked[:1] == [said[0]])
    ):  # "so", "it", "about it"
        return True
    return len(said) >= min(4, len(asked)) and list(asked[: len(said)]) == said


def restated_answer(clause: str, question: YesNoQuestion) -> str | None:
    """ "yes" or "no" when the clause restates the question as such, else None."""
    tokens = words(clause)
    at = 0  # the subject, perhaps of several words ("red scarf"): the question's own words
    while at < len(tokens) and tokens[at] in question.subjects:
        at += 1
    if at == 0:  # (a concession or a reason opens with another word: "but she does not")
        return None
    rest = tokens[at:]
    if question.verb is None:  # "it is (not / no longer) in its initial location"
        if rest[:1] not in (["is"], ["was"]):
            return None
        rest = rest[1:]
        negated = False
        if rest[:1] == ["not"]:
            negated, rest = True, rest[1:]
        elif rest[:2] == ["no", "longer"]:
            negated, rest = True, rest[2:]
        if NEGATING.intersection(rest) or not rest:
            return None
        if not _mirrors(rest, question.rest) or len(rest) < 3:
            return None
        return "no" if negated else "yes"
    forms = _verb_forms(question.verb)
    if rest[:3] and rest[0] in DO_AUXILIARIES and rest[1:2] == ["not"] and rest[2:3]:
        if rest[2] != question.verb:
            return None
        after, answer = rest[3:], "no"
    elif rest[:1] and rest[0] in forms:
        after, answer = rest[1:], "yes"
    else:
        return None
    if NEGATING.intersection(after) or not _mirrors(after, question.rest):
        return None
    return answer
