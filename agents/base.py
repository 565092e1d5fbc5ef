"""The agent protocol: a batch of episodes in, one response each out; agents from spec strings."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from tomgym.items import ToMItem


@dataclass(frozen=True)
class Episode:
    """What an agent sees of one episode: the prompt as text and as chat messages.

    ``story``, ``question`` and ``candidates`` repeat what the prompt shows, for baselines that
    read the story directly. ``gold`` is set only for agents that declare ``privileged = True``
    (the oracle on families the simulator cannot solve); everyone else gets ``None``.
    """

    env_id: str
    item_id: str
    prompt: str
    messages: list[dict[str, str]]
    prefill: str = ""
    story: str = ""
    question: str = ""
    candidates: tuple[str, ...] = ()
    answer_type: str = "choice"
    family: str = "custom"
    order: int | None = None
    gold: str | None = None

    @classmethod
    def of_item(
        cls,
        item: ToMItem,
        env_id: str,
        family: str,
        privileged: bool = False,
        *,
        prompt: str = "",
        messages: list[dict[str, str]] | None = None,
        prefill: str = "",
    ) -> Episode:
        """The episode of ``item`` (its gold only for a privileged agent), with the prompt as
        the env rendered it, or none for agents that read the story directly."""
        return cls(
            env_id=env_id,
            item_id=item.id,
            prompt=prompt,
            messages=messages or [],
            prefill=prefill,
            story=item.story,
            question=item.question,
            candidates=tuple(item.candidates),
            answer_type=item.answer_type,
            family=family,
            order=item.order,
            gold=item.gold_text if privileged else None,
        )


@dataclass
class Response:
    """One agent response, with what it cost."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float | None = None
    failed: bool = False
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    truncated: bool | None = None
    """The response stopped at the token budget rather than on its own (None: cannot say)."""


def truncated_by(finish_reason: object) -> bool | None:
    """Whether an engine's finish reason (OpenAI's and vLLM's names) means the token budget
    ran out: ``"length"`` yes, ``"stop"`` no, anything else unknown."""
    if finish_reason == "length":
        return True
    if finish_reason == "stop":
        return False
    return None


@runtime_checkable
class Agent(Protocol):
    """Anything that answers a batch of episodes."""

    spec: str
    privileged: bool

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        """One response per episode, in order. A failure for one item is a failed Response."""
        ...

    def describe(self) -> dict[str, Any]:
        """What produced the responses (model, sampling parameters...) for run metadata."""
        ...


@runtime_checkable
class MeasuresPrompts(Protocol):
    """An agent that can say how long each prompt is in its own units (tokens for a model).

    Optional: the evaluation runner batches prompts of about one length together, longest
    first, and measures them this way when the agent can; otherwise by the prompt's characters.
    """

    def prompt_lengths(self, episodes: Sequence[Episode]) -> list[int]:
        """One length per episode, in order."""
        ...


AgentFactory = Callable[[str, dict[str, Any]], Agent]

_KINDS: dict[str, str] = {
    "oracle": "tomgym.agents.oracle:make_oracle",
    "random": "tomgym.agents.baselines:make_baseline",
    "heuristic": "tomgym.agents.baselines:make_baseline",
    "smollm2": "tomgym.agents.hf:make_hf_agent",
    "hf": "tomgym.agents.hf:make_hf_agent",
    "vllm": "tomgym.agents.vllm:make_vllm_agent",
    "openai": "tomgym.agents.openai_api:make_openai_agent",
}


def agent_kinds() -> list[str]:
    return sorted(_KINDS)


def make_agent(spec: str, **options: Any) -> Agent:
    """Build an agent from a spec string: ``oracle``, ``random``, ``heuristic:<name>``,
    ``smollm2``, ``hf:<hub id or path>``, ``vllm:<hub id or path>``, ``openai:<model>@<url>``.

    ``options`` are agent settings (``temperature``, ``max_new_tokens``, ``seed``, ...). The
    sampling ones are validated for every kind of agent (``Sampling.from_options``) before the
    factory runs, so a bad value fails before any model loads.
    """
    from tomgym.agents.chat import Sampling

    kind = spec.split(":", 1)[0].strip()
    if kind not in _KINDS:
        raise ValueError(
            f"unknown agent spec {spec!r}: it should start with one of {', '.join(agent_kinds())}"
        )
    Sampling.from_options(options)
    module_name, factory_name = _KINDS[kind].split(":")
    factory: AgentFactory = getattr(importlib.import_module(module_name), factory_name)
    return factory(spec, options)
