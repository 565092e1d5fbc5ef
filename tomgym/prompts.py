"""Prompt presets: the system message, the family's world assumptions, and the user message."""

from __future__ import annotations

import functools
import hashlib
import string
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from tomgym.items import ToMItem
from tomgym.presets import resolve_preset

FORMAT_INSTRUCTION = (
    "Reason about the story step by step inside <think> </think> tags, then give only your "
    "final answer inside <answer> </answer> tags, for example: "
    "<think> your reasoning </think> <answer> your answer </answer>."
)

# The world assumptions a solver needs, per dataset family, in this project's own words.
FAMILY_ASSUMPTIONS: dict[str, tuple[str, ...]] = {
    "hitom": (
        "Before leaving a place, a person sees everything that happens there, every move included.",
        "A person can know what another person believes only if the two were in the same place "
        "together, or talked to each other privately or in public.",
        "People may lie, and telling something to others does not change what the teller believes. "
        "A person trusts someone who left the room later than they did in that chapter, and "
        "anyone at all if they were not in that room then; everyone knows the order in which "
        "people left.",
        "Everyone can hear a public claim; a private message is heard only by the person it is "
        "told to, and both of them know that.",
    ),
    "tomi": (
        "A person sees everything that happens in a room while they are in it, and nothing that "
        "happens there after they leave.",
        "A person who has not seen an object moved still believes it is where they last saw it.",
    ),
    "exploretom": (
        "A person knows about an event only if they witnessed it or were told about it.",
        "A person who did not see a change still believes things are as they last saw them.",
    ),
    "opentom": (),
    "fantom": (),
    "custom": (),
}

# ToM-RL (arXiv 2504.01698) states two of the four assumptions.
TOMRL_ASSUMPTIONS = (
    "A person sees everything that happens in a room, every move included, until they leave it.",
    "A person A can only infer what another person B believes if A and B were in the same room, "
    "or interacted privately or publicly.",
)


DEFAULT_SYSTEM = (
    "You answer questions about what people in a story know and believe. " + FORMAT_INSTRUCTION
)
TEMPLATE_FIELDS = ("story", "question")


class PromptPreset(BaseModel):
    """How an item becomes a system message and a user message. A dict of some fields (say
    ``{"list_candidates": True}``) takes the default preset's text for the rest; a field name
    it does not know is an error, not ignored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    system: str = DEFAULT_SYSTEM
    assumptions: Literal["family", "tomrl", "none"] = "family"
    """``family``: the family's assumptions; ``tomrl``: ToM-RL's two; ``none``."""
    list_candidates: bool = False
    user_template: str = "Story:\n{story}\n\nQuestion: {question}"

    @field_validator("user_template")
    @classmethod
    def _story_and_question(cls, template: str) -> str:
        try:
            fields = [name for _, name, _, _ in string.Formatter().parse(template)]
        except ValueError as exc:  # a lone "{" or "}"
            raise ValueError(f"{exc} (write a literal brace as {{{{ or }}}})") from None
        names = {name for name in fields if name is not None}  # None: text without a field
        unknown, missing = names - set(TEMPLATE_FIELDS), set(TEMPLATE_FIELDS) - names
        if unknown or missing:
            raise ValueError(
                "must name {story} and {question} and no other field"
                + (f"; unknown: {sorted(unknown)}" if unknown else "")
                + (f"; missing: {sorted(missing)}" if missing else "")
            )
        return template


PROMPT_PRESETS: dict[str, PromptPreset] = {
    "default": PromptPreset(name="default", system=DEFAULT_SYSTEM),
    "tomrl": PromptPreset(
        name="tomrl",
        system="The assistant first thinks about the reasoning process and then gives the user "
        "the answer. The reasoning goes inside <think> </think> tags and the answer inside "
        "<answer> </answer> tags: <think> reasoning here </think> <answer> answer here </answer>.",
        assumptions="tomrl",
        user_template="Read the story and answer the question.\n\nStory:\n{story}\n\n"
        "Question: {question}",
    ),
    "cot": PromptPreset(
        name="cot",
        system="Think step by step. Write your step-by-step reasoning inside <think> </think> "
        "tags and then your final answer inside <answer> </answer> tags.",
        assumptions="none",
    ),
}

PREFILL = "<think>\n"


def resolve_prompt(prompt: str | Mapping[str, Any] | PromptPreset) -> PromptPreset:
    """A preset name, a dict of fields, or a preset -> a preset (a clear error otherwise).

    A dict is what a custom preset becomes in a training label's JSON, so it must come back.
    """
    return resolve_preset(prompt, PROMPT_PRESETS, PromptPreset, "prompt")


def _assumption_block(preset: PromptPreset, family: str) -> str:
    if preset.assumptions == "none":
        return ""
    lines: Sequence[str]
    if preset.assumptions == "tomrl":
        lines = TOMRL_ASSUMPTIONS
    else:
        lines = FAMILY_ASSUMPTIONS.get(family, ())
    if not lines:
        return ""
    numbered = "\n".join(f"({i}) {text}" for i, text in enumerate(lines, 1))
    return f"Assume the following about the world of the story.\n{numbered}"


@functools.lru_cache(maxsize=256)
def system_message(preset: PromptPreset, family: str) -> str:
    """The system message: the preset's text, then the family's world assumptions if any."""
    block = _assumption_block(preset, family)
    return f"{preset.system}\n\n{block}" if block else preset.system


CANDIDATES_LEAD = "\nPossible answers: "
"""What a prompt puts before the candidates it lists (``list_candidates``)."""


def render_messages(item: ToMItem, preset: PromptPreset, family: str) -> list[dict[str, str]]:
    """The chat messages for an item: system (format + assumptions) and user (story + question)."""
    system = system_message(preset, family)
    user = preset.user_template.format(story=item.story.strip(), question=item.question.strip())
    if preset.list_candidates and item.candidates:
        user += CANDIDATES_LEAD + ", ".join(listed_candidates(item))
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def listed_candidates(item: ToMItem) -> list[str]:
    """The item's candidates in the order a prompt lists them: shuffled by a hash of the item's
    id, the same on every machine. A release's own order is a shortcut (the ToMi release puts
    the gold second in about 69% of its questions, ExploreToM first in about 61%)."""
    return sorted(
        item.candidates,
        key=lambda c: hashlib.blake2b(f"{item.id}|{c}".encode(), digest_size=8).digest(),
    )


def render_observation(messages: list[dict[str, str]], prefill: str = "") -> str:
    """The messages as one plain string (the env's observation), ending with any prefill."""
    text = "\n\n".join(m["content"] for m in messages)
    return f"{text}\n\n{prefill}" if prefill else text
