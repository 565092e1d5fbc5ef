"""Yes/no answers: the yes or no an answer says (:func:`leading_yes_no`,
:func:`yes_no_said`, :func:`last_clause_says`) and :func:`judge_yes_no`."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from tomgym.answers.restatements import parse_question, restated_answer
from tomgym.answers.tags import Judgement
from tomgym.answers.tokens import _visible, words

YES_WORDS = frozenset({"yes", "yeah", "yep", "yup"})
NO_WORDS = frozenset({"no", "nope", "nah"})


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
"""What leaves a yes/no answer uncommitted where the answer is read from a first clause, after
a lead-in or at the end (not from a leading yes or no): a doubt ("Hard to say. Yes.") or a
refusal (reward red team). A condition refuses any yes/no answer: _CONDITION."""
_HEDGED_BEFORE = re.compile(
    r"\b(?:either|possibly|perhaps|maybe|probably|arguably|questionable|otherwise|might|guess)\b",
    re.IGNORECASE,
)
"""Hedges that leave an answer read after a lead-in or at the end uncommitted ("Possibly, no.",
"Either, yes."); a leading hedged answer ("Probably not.") is read on its own terms."""
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
    the ``question``, a clause restating it (:mod:`tomgym.answers.restatements`) is read too:
    one that says the other answer contradicts the yes/no, and an answer without a yes/no is
    judged by what its restatement says."""
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
    """What the answer's clauses that restate the question say (see
    tomgym.answers.restatements), and the answer's other clauses (where a doubt, not the
    restated "does not know", is read)."""
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
