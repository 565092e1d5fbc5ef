"""Reward specs and the one scoring function that evaluation and training both call."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tomgym.answers import (
    ANSWER_CLOSE,
    ANSWER_OPEN,
    THINK_CLOSE,
    THINK_OPEN,
    Verdict,
    declines_or_asks_back,
    expand_option_labels,
    judge_choice,
    judge_names,
    judge_text,
    judge_yes_no,
    offers_any_other,
    parse_response,
    rival_names,
    story_head_aliases,
    story_names,
    story_places,
    synonym_aliases,
    with_prefill,
    words,
)
from tomgym.items import CANDIDATE_ALIASES_KEY, PLACES_KEY, ToMItem
from tomgym.presets import resolve_preset


class RewardSpec(BaseModel):
    """A format part and a correctness part, added (finite numbers: NaN or inf is refused)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    name: str = "custom"
    format_ok: float = Field(0.1, description="Added when the tag format holds.")
    format_bad: float = Field(0.0, description="Added when it does not.")
    correct: float = Field(1.0, description="Added for a correct answer.")
    incorrect: float = Field(
        0.0, description="Added for anything else (wrong, missing, unparsable)."
    )
    untagged_answers: bool = Field(
        default=False,
        description="Judge a response with no <answer> block as a whole (the candidate rules "
        "still apply: naming two candidates earns nothing). For models too small to follow "
        "the tag format; off in every preset but 'lenient'.",
    )
    trace_weight: float = Field(
        default=0.0,
        ge=0.0,
        description="Weight of trace fidelity (share of the reasoning's belief claims that the "
        "simulator confirms) on Hi-ToM and ToMi items; 0 leaves the reward as it was.",
    )

    @property
    def max_reward(self) -> float:
        return (
            max(self.format_ok, self.format_bad)
            + max(self.correct, self.incorrect)
            + self.trace_weight
        )


REWARD_PRESETS: dict[str, RewardSpec] = {
    # arXiv 2507.15788: 0.1 for the format plus 1.0 for a correct answer.
    "rlvr": RewardSpec(name="rlvr", format_ok=0.1, format_bad=0.0, correct=1.0, incorrect=0.0),
    # ToM-RL (arXiv 2504.01698): format +1/-1, answer +2/-2.
    "tomrl": RewardSpec(name="tomrl", format_ok=1.0, format_bad=-1.0, correct=2.0, incorrect=-2.0),
    # Plain accuracy: format ignored (only an answer block is needed).
    "accuracy": RewardSpec(
        name="accuracy", format_ok=0.0, format_bad=0.0, correct=1.0, incorrect=0.0
    ),
    # rlvr, but an untagged response is judged whole: a learning signal for tiny models that
    # answer in plain sentences before they learn the tags (the format part still rewards them).
    "lenient": RewardSpec(
        name="lenient",
        format_ok=0.1,
        format_bad=0.0,
        correct=1.0,
        incorrect=0.0,
        untagged_answers=True,
    ),
}


def resolve_reward(reward: str | Mapping[str, Any] | RewardSpec) -> RewardSpec:
    """A preset name, a dict of fields, or a spec -> a spec (a clear error for anything else)."""
    return resolve_preset(reward, REWARD_PRESETS, RewardSpec, "reward")


class Score(BaseModel):
    """The verdict on one response, with the reward's parts."""

    model_config = ConfigDict(frozen=True)

    reward: float
    parts: dict[str, float]
    format_ok: bool
    answer: str | None
    correct: bool
    verdict: Verdict
    detail: str
    gold: str


def candidate_aliases(item: ToMItem) -> dict[str, list[str]]:
    """The other candidates' aliases from the item's metadata (well-formed entries only)."""
    given = item.metadata.get(CANDIDATE_ALIASES_KEY)
    if not isinstance(given, Mapping):
        return {}
    return {
        str(c): [a for a in phrases if isinstance(a, str)]
        for c, phrases in given.items()
        if isinstance(phrases, list | tuple)
    }


def places_of(item: ToMItem) -> frozenset[str]:
    """The words that start one of the item's story places: those its metadata lists under
    PLACES_KEY (a list of strings, which then stands for the story), else read from the
    story."""
    given = item.metadata.get(PLACES_KEY)
    if isinstance(given, list | tuple) and given:
        starts = (words(place)[:1] for place in given if isinstance(place, str))
        return frozenset(w for start in starts for w in start)
    return story_places(item.story)


def asked_candidates(item: ToMItem) -> tuple[str, ...]:
    """A free-text item's candidates, other than its gold, that its question names ("In which
    container was the script before Brooklyn moved it to the plastic storage bin?"): an answer
    may repeat the question, as it may repeat the names it asks about, and naming a place the
    question has ruled out is no hedge."""
    asked = f" {' '.join(words(item.question))} "
    return tuple(
        c
        for c in item.candidates
        if c != item.answer and words(c) and f" {' '.join(words(c))} " in asked
    )


def judged_places(item: ToMItem) -> frozenset[str]:
    """The places a free-text answer may not name beside the gold: the story's (``places_of``)
    less those the question names, which an answer may repeat ("the wooden chest is in the
    multipurpose room", asked where Austin will search for the wooden chest), the gold's kept."""
    repeatable = set(words(item.question)) - set(words(str(item.answer)))
    return places_of(item) - repeatable


_STRUCK_THROUGH = re.compile(r"~~(?=\S).*?(?<=\S)~~", re.DOTALL)
"""Markdown strikethrough: what a response crosses out ("~~box~~ basket") it does not answer.
As Markdown renders it: with a space inside the tildes ("box ~~ or basket ~~") nothing is
struck, and the reader sees the hedge (reward red team: it was paid as "box")."""

_STRIKE_TAGS = re.compile(r"<(/?)(s|del|strike)>", re.IGNORECASE)
"""HTML strikethrough tags: ``<s>box</s> basket`` crosses the box out as ``~~box~~`` does."""


def without_struck_tags(answer: str) -> str:
    """``answer`` with each ``<s>``, ``<del>`` or ``<strike>`` span and its tags left out, in one
    pass (a regex with a lazy ``.*?`` to a closing tag is quadratic on a megabyte of opening
    tags); an unclosed tag and what follows it are kept."""
    parts: list[str] = []
    kept_from, opened, opened_at = 0, "", 0
    for match in _STRIKE_TAGS.finditer(answer):
        closing, name = match.group(1), match.group(2).lower()
        if not opened and not closing:
            parts.append(answer[kept_from : match.start()])
            opened, opened_at = name, match.start()
        elif closing and name == opened:
            parts.append(" ")
            kept_from, opened = match.end(), ""
    parts.append(answer[opened_at:] if opened else answer[kept_from:])
    return "".join(parts)


_TAKEN_BACK = (
    r"scratch that|just kidding|never ?mind|i take (?:that|it) back|"
    r"(?:that|this|it)(?:'s|’s| is| was) (?:probably |surely |definitely )?"
    r"(?:wrong|incorrect|not right)|"
    r"i(?:'m|’m| am) (?:probably |surely |definitely )?(?:wrong|mistaken)"
)
"""What takes an answer back at its end, whatever the answer type."""

_RETRACTED_AT_END = re.compile(
    r"[.,;:!?(\-–—]\s*(?:but\s+|though\s+|although\s+)?(?:wait[,.!]?\s*)?"
    rf"(?:actually[,.!]?\s*)?(?:no|nope|not|not really|{_TAKEN_BACK})\W*$",
    re.IGNORECASE,
)
"""An answer that takes itself back at its end ("box. Wait, no.", "box (just kidding)", "box.
Scratch that.", "box, I take that back", "box, but that is wrong", "box (not really)", "box,
though I'm probably mistaken"): it answers nothing (reward red team)."""

_RETRACTED_AT_END_YES_NO = re.compile(
    rf"[.,;:!?(\-–—]\s*(?:but\s+|though\s+|although\s+)?(?:{_TAKEN_BACK})\W*$",
    re.IGNORECASE,
)
"""The same for a yes/no answer, without the bare "no" ("No. Wait, no." says no twice)."""

_REFUTED_AT_START = re.compile(
    r"^\W*(?:wrong(?: answer)?|false|incorrect|(?:definitely )?not)\s*[:\-–—]",
    re.IGNORECASE,
)
"""An answer labelled wrong at its start ("Wrong answer: box", "False: box", "Not: box")."""
_REFUTED_AT_START_YES_NO = re.compile(
    r"^\W*(?:wrong(?: answer)?|incorrect)\s*[:\-–—]"
    r"|^\W*(?:yes|no)\W*\s+(?:is|was|would\s+be)\s+"
    r"(?:wrong|incorrect|false|untrue|not\s+(?:right|correct|true))\b",
    re.I,
)
"""The same for a yes/no answer, where "False - she left" and "Definitely not - she left" say
no, not that the answer is wrong; and its own word called wrong ("Yes is incorrect", '"No"
is wrong': reward red team, paid as the word)."""

CROSS_MARKS = "\u274c\u274e\u2715\u2716\u2717\u2718\U0001f6ab"
"""❌ ❎ ✕ ✖ ✗ ✘ 🚫: a mark that says "not this one"."""
CHECK_MARKS = "\u2705\u2713\u2714\u2611"
"""✅ ✓ ✔ ☑: a mark that says "this one"."""
_MARKS = re.compile(f"[{CROSS_MARKS}{CHECK_MARKS}]")
_LINE_LEAD = re.compile(r"[ \t*\-\u2022>]*(?:\d+[.)][ \t]*)?")
"""What may come before a line's first mark: indentation, a bullet, a quote mark, a number."""
_QUESTION_BEFORE_CROSS = re.compile(f"\\?[ \t]*(?=[{CROSS_MARKS}])")
"""A question mark that a cross answers ("Is it the box? ❌"): the cross refutes the question."""


def read_marks(answer: str) -> str:
    """The answer with its check and cross marks written as words, each line read as it is laid
    out: marks that open the line mark what follows them ("❌ box" as "not box"), other marks
    what comes before ("box ❌" as "box wrong", "Is it the box? ❌" too); a check mark only ends
    a clause. So "box ❌ basket ✅" answers the basket, where the bare words named two
    candidates, and "box ❌" alone is no answer of the box."""
    if not _MARKS.search(answer):
        return answer
    return "\n".join(map(_read_line_marks, answer.split("\n")))


def _read_line_marks(line: str) -> str:
    lead = _LINE_LEAD.match(line)
    if _MARKS.match(line, lead.end() if lead else 0):
        cross = " ; not "
    else:  # a cross answering a question refutes what it asks: "Is it the box? ❌"
        cross = " wrong ; "
        line = _QUESTION_BEFORE_CROSS.sub("", line)
    return _MARKS.sub(lambda mark: cross if mark[0] in CROSS_MARKS else " ; ", line)


_DENIED_QUESTION = re.compile(
    r"\?[ \t]*(?:no|nope|nah)(?=[ \t]*(?:$|[.,;:!?\n]))", re.IGNORECASE | re.MULTILINE
)
"""A question answered "no" on its own: "Is it the blue box? No." denies the box."""


def read_denied_questions(answer: str) -> str:
    """The answer with each question it answers "no" to written as a refutation: "the blue box?
    No, the green basket" as "the blue box wrong ; , the green basket", which answers the basket
    where the bare words named two candidates. "? No doubt" and "? No one" are no answers."""
    if "?" not in answer:
        return answer
    return _DENIED_QUESTION.sub(" wrong ; ", answer)


def judge_answer(answer: str, item: ToMItem) -> tuple[bool, Verdict, str]:
    """Judge an extracted answer against an item, by the item's answer type (what it strikes
    through left out; a choice or text answer's questions answered "no" and its check and cross
    marks read, see :func:`read_denied_questions` and :func:`read_marks`)."""
    if "~~" in answer:
        answer = _STRUCK_THROUGH.sub(" ", answer)
    if "<" in answer:
        answer = without_struck_tags(answer)
    yes_no = item.answer_type == "yes_no"
    retracted = _RETRACTED_AT_END_YES_NO if yes_no else _RETRACTED_AT_END
    refuted = _REFUTED_AT_START_YES_NO if yes_no else _REFUTED_AT_START
    if retracted.search(answer) or refuted.search(answer):
        return False, "wrong", "the answer takes itself back, or is labelled wrong"
    if item.answer_type != "names" and offers_any_other(answer, lambda: _own_words(item)):
        return False, "several_candidates", "the answer also offers any other answer"
    if item.answer_type == "names":
        assert isinstance(item.answer, list)
        j = judge_names(answer, item.answer)
    else:
        assert isinstance(item.answer, str)
        if item.answer_type == "yes_no":
            declined = declines_or_asks_back(answer)  # "Yes, I don't know", "Yes. Or not?"
            if declined is not None:
                return False, "several_candidates", declined
            j = judge_yes_no(answer, item.answer, item.question)
            return j.correct, j.verdict, j.detail
        answer = read_marks(read_denied_questions(answer))
        if answer.strip() and answer.strip() != item.answer:
            declined = declines_or_asks_back(answer, lambda: _own_words(item))
            if declined is not None:
                return False, "several_candidates", declined
        if answer.strip() == item.answer:
            # the gold as written (most answers of a trained policy): what every reading
            # below gives it, without building the other candidates' names
            detail = (
                "names the gold candidate only"
                if item.answer_type == "choice"
                else ("the gold phrase, and nothing else")
            )
            return True, "correct", detail
        aliases, others = item.aliases, candidate_aliases(item)
        heads = story_head_aliases(item.candidates, item.story)
        synonyms = synonym_aliases(item.candidates or (item.answer,), item.story)
        for said in (heads, synonyms):  # "the drawer" names the wooden desk drawer where no
            if not said:  # other is a drawer; "the fridge" the refrigerator
                continue
            aliases = (*aliases, *said.get(item.answer, ()))
            for candidate, also in said.items():
                if candidate != item.answer:
                    others[candidate] = [*others.get(candidate, ()), *also]
        if item.answer_type == "choice":
            labels = item.metadata.get("option_labels")
            if isinstance(labels, dict) and labels:  # "(a) ... (b) ..." in the question
                answer = expand_option_labels(answer, labels)
            j = judge_choice(answer, item.answer, item.candidates, aliases, others)
        else:
            places = names = frozenset[str]()
            if not item.candidates:  # nothing to compare with but the story's own places, names
                places = judged_places(item)
                names = rival_names(item.story, item.question, item.answer)
            asked = asked_candidates(item)
            people = story_names(item.story) - story_places(item.story)  # "to Paris": a place
            j = judge_text(
                answer,
                item.answer,
                item.candidates,
                aliases,
                places,
                names,
                asked,
                others,
                people,
                item.question,
            )
    return j.correct, j.verdict, j.detail


def _own_words(item: ToMItem) -> frozenset[str]:
    """The words of an item's candidates and gold answer (and its aliases)."""
    texts = [*item.candidates, *item.aliases, *([item.answer] if isinstance(item.answer, str)
             else item.answer)]  # fmt: skip
    return frozenset(w for text in texts for w in words(text))


def item_family(item: ToMItem) -> str:
    """The dataset family of an item, from its source ("hitom-generated" -> "hitom")."""
    return item.source.split("-", 1)[0]


def score_response(
    response: str, item: ToMItem, reward: RewardSpec | str = "rlvr", prefill: str = ""
) -> Score:
    """Score a response to ``item``: format, extracted answer, correctness, reward parts."""
    spec = resolve_reward(reward)
    parsed = parse_response(response, prefill)
    visible = None
    if parsed.answer is None and spec.untagged_answers:
        visible = outside_think(response, prefill)  # answer tags in the thinking are thinking
        if ANSWER_OPEN in visible or ANSWER_CLOSE in visible:
            visible = None  # tagged, but not well: judged as such
    if visible is not None:
        if visible.strip():
            correct, verdict, detail = judge_answer(visible, item)
        elif response.strip():
            correct, verdict, detail = False, "no_answer", "nothing outside the think part"
        else:
            correct, verdict, detail = False, "empty_answer", "the response is empty"
    elif parsed.answer is None:
        assert parsed.problem is not None
        correct, verdict, detail = False, parsed.problem, _PROBLEM_DETAIL[parsed.problem]
    else:
        correct, verdict, detail = judge_answer(parsed.answer, item)
    parts = {
        "format": spec.format_ok if parsed.format_ok else spec.format_bad,
        "answer": spec.correct if correct else spec.incorrect,
    }
    family = item_family(item)
    if spec.trace_weight > 0 and family in ("hitom", "tomi"):
        from tomgym.trace import safe_trace_fidelity

        trace = safe_trace_fidelity(
            item.story, item.question, parsed.think or "", family, item.candidates
        )
        parts["trace"] = spec.trace_weight * trace.reward
    return Score(
        reward=sum(parts.values()),
        parts=parts,
        format_ok=parsed.format_ok,
        answer=parsed.answer,
        correct=correct,
        verdict=verdict,
        detail=detail,
        gold=item.gold_text,
    )


def outside_think(response: str, prefill: str = "") -> str:
    """The part of an untagged response that is not reasoning: after the last ``</think>``, or
    before an unclosed ``<think>`` (the prefill counted, as the format rule counts it). The
    gold named only in the think part earns nothing, with or without an answer block."""
    full = with_prefill(response, prefill)
    if THINK_CLOSE in full:
        return full.rsplit(THINK_CLOSE, 1)[1]
    if THINK_OPEN in full:
        return full.split(THINK_OPEN, 1)[0]
    return full


_PROBLEM_DETAIL: dict[str, str] = {
    "no_answer": "no <answer>...</answer> block",
    "several_answers": "more than one answer block",
    "empty_answer": "the answer block is empty",
    "unparsable": "the answer block is malformed (nested or misordered tags)",
}


def gold_response(item: ToMItem, prefill: str = "") -> str:
    """A response in the right format carrying the gold answer (the reward invariant's probe)."""
    body = f"<think>The answer follows from the story.</think><answer>{item.gold_text}</answer>"
    if prefill and body.startswith(prefill.strip()):
        return body[len(prefill.strip()) :]
    return body
