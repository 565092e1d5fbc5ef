"""The response format and the judge's verdicts: the think and answer tags,
:func:`parse_response` (the format check and the extracted answer), :func:`with_prefill`,
and :class:`Judgement`, what every judge returns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

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
        # (nothing after the block, as in most responses, is a match: the regex is not run)
        and (
            answer_close + len(ANSWER_CLOSE) == len(full)
            or _AFTER_ANSWER_OK.fullmatch(full, answer_close + len(ANSWER_CLOSE)) is not None
        )
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
