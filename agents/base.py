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
    source_kwargs: dict[str, Any] = field(default_factory=dict)
    """The arguments the env was made with that pick its items (``split``, ``debiased``...):
    baselines that learn from training items fit on the same variant of the env."""

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
        source_kwargs: dict[str, Any] | None = None,
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
            source_kwargs=dict(source_kwargs or {}),
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


class AgentUnavailableError(RuntimeError):
    """The agent cannot answer at all right now (a served model that gives no reply): the run
    stops with the reason; its rerun goes on where it stopped."""


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


SAMPLING_OPTIONS = ("temperature", "top_p", "max_new_tokens", "seed", "batch_size")
"""Options every agent takes (``chat.Sampling``; baselines use the seed only)."""
VLLM_ENGINE_OPTIONS = (
    "dtype",
    "gpu_memory_utilization",
    "kv_cache_memory_bytes",
    "max_model_len",
    "max_num_seqs",
    "enforce_eager",
    "tensor_parallel_size",
    "revision",
)
"""The vLLM engine arguments the vllm agent passes on (``vllm.LLM(...)``)."""
OPENAI_SETTINGS = (
    "api_key_env",
    "concurrency",
    "timeout",
    "max_retries",
    "backoff_base",
    "backoff_max",
    "base_url",
    "max_tokens_field",
)
"""How a served model is reached: none of them changes what it answers."""
_KIND_OPTIONS: dict[str, tuple[str, ...]] = {
    "oracle": (),
    "random": (),
    "smollm2": ("device", "dtype", "num_threads"),
    "hf": ("device", "dtype", "num_threads", "revision"),
    "vllm": VLLM_ENGINE_OPTIONS,
    "openai": OPENAI_SETTINGS,
}
RUN_SETTINGS = frozenset(
    {
        *OPENAI_SETTINGS,
        "device",
        "num_threads",
        "gpu_memory_utilization",
        "kv_cache_memory_bytes",
        "max_num_seqs",
        "enforce_eager",
        "tensor_parallel_size",
    }
)
"""Options that say how an agent runs, not what it answers: a resumed run may change them
(a longer timeout, more threads, a server that moved). The others (``top_p``, ``dtype``,
``max_model_len``, ``fit_items``) shape the responses and belong to a run's identity."""


FALLBACK_SOURCE = "fallback"
"""``Response.extra["source"]`` (a record's ``answer_source``) of a baseline's answer where its
rule did not apply (no container to track in an OpenToM attitude question): the first
candidate, or "yes"."""


def agent_kinds() -> list[str]:
    return sorted(_KINDS)


def agent_kind(spec: str) -> str:
    """The kind a spec names (``hf`` for ``hf:gpt2``), checked."""
    kind = spec.split(":", 1)[0].strip()
    if kind not in _KINDS:
        from tomgym.agents.baselines import HEURISTICS

        hint = f" (did you mean heuristic:{kind}?)" if kind in HEURISTICS else ""
        raise ValueError(
            f"unknown agent spec {spec!r}{hint}: it should start with one of "
            f"{', '.join(agent_kinds())}"
        )
    return kind


def agent_options(spec: str) -> tuple[str, ...]:
    """The options the spec's kind of agent takes besides the sampling ones."""
    kind = agent_kind(spec)
    if kind == "heuristic":  # by name: only the heuristics fitted on items take fit_items
        from tomgym.agents.baselines import heuristic_options

        return heuristic_options(spec)
    return _KIND_OPTIONS[kind]


def check_agent_options(spec: str, options: dict[str, Any]) -> None:
    """Refuse an option the spec's agent does not take (a misspelt ``timout`` would otherwise
    be dropped without a word), naming the ones it does."""
    known = (*SAMPLING_OPTIONS, *agent_options(spec))
    unknown = sorted(k for k in options if k not in known)
    if unknown:
        own = [k for k in known if k in RUN_ARGUMENTS]
        others = [k for k in known if k not in RUN_ARGUMENTS]
        raise ValueError(
            f"agent {spec!r} takes no option {', '.join(map(repr, unknown))}; its options: "
            f"{', '.join(others)}, and the run's {', '.join(own)} (on the command line their "
            f"own flags: {', '.join('--' + k.replace('_', '-') for k in own)}, not "
            "--agent-option)"
        )


RUN_ARGUMENTS = ("temperature", "max_new_tokens", "seed", "batch_size")
"""Agent settings that an evaluation takes as arguments (and flags) of its own."""

RULE_BASED = ("oracle", "random", "heuristic")
"""Kinds of agent that generate no text: they cost nothing to build (:func:`check_agent_spec`
builds them), and no temperature or token budget shapes their answers."""


def check_agent_spec(spec: str) -> None:
    """Refuse a spec that names no agent before anything runs: its kind always, and the whole
    spec of the agents that cost nothing to build ("heuristic:realty" in a leaderboard's
    ``--agents`` failed only after the agents before it had run)."""
    kind = agent_kind(spec)
    if kind in RULE_BASED:
        make_agent(spec)
    elif kind in ("hf", "vllm", "smollm2"):
        # a local path that is not there, or holds no model: said before the agents before it
        # run (a leaderboard ran smollm2 for minutes, then died on hf:/tmp/nope)
        from tomgym.agents.hf import resolve_local_model

        resolve_local_model(spec)


def make_agent(spec: str, **options: Any) -> Agent:
    """Build an agent from a spec string: ``oracle``, ``random``, ``heuristic:<name>``,
    ``smollm2``, ``hf:<hub id or path>``, ``vllm:<hub id or path>``, ``openai:<model>@<url>``.

    ``options`` are agent settings (``temperature``, ``max_new_tokens``, ``seed``, ...). The
    sampling ones are validated for every kind of agent (``Sampling.from_options``) before the
    factory runs, so a bad value fails before any model loads.
    """
    from tomgym.agents.chat import Sampling

    kind = agent_kind(spec)
    check_agent_options(spec, options)
    Sampling.from_options(options)
    module_name, factory_name = _KINDS[kind].split(":")
    factory: AgentFactory = getattr(importlib.import_module(module_name), factory_name)
    return factory(spec, options)
