"""vLLM offline generation (``vllm:<hub id or path>``), with the same prompts and sampling as hf.py.

The prompt string comes from ``chat.chat_prompt`` and goes in as token ids from
``chat.prompt_token_ids``, so greedy outputs agree with the transformers agent.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tomgym.agents.base import Episode, Response
from tomgym.agents.chat import Sampling, chat_prompt, prompt_token_ids

VLLM_INSTALL_HINT = "pip install 'tomgym[vllm]'"


def require_vllm() -> Any:
    """The vllm module, or an ImportError that says what to install."""
    try:
        import vllm
    except ImportError as exc:
        raise ImportError(
            f"the vllm agent needs vLLM (and a GPU it supports): {VLLM_INSTALL_HINT}"
        ) from exc
    return vllm


@dataclass
class VLLMAgent:
    """One vLLM engine answering whole batches (vLLM schedules them itself)."""

    spec: str
    model_path: str
    sampling: Sampling
    source: str = "hub"
    engine_options: dict[str, Any] = field(default_factory=dict)
    privileged: bool = False
    load_seconds: float = 0.0
    llm: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        vllm = require_vllm()
        start = time.perf_counter()
        self.llm = vllm.LLM(model=self.model_path, seed=self.sampling.seed, **self.engine_options)
        self.load_seconds += time.perf_counter() - start

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        if not episodes:
            return []
        vllm = require_vllm()
        tokenizer = self.llm.get_tokenizer()
        prompts = [
            {"prompt_token_ids": prompt_token_ids(tokenizer, chat_prompt(tokenizer, e))}
            for e in episodes
        ]
        params = vllm.SamplingParams(
            temperature=self.sampling.temperature,
            top_p=self.sampling.top_p,
            max_tokens=self.sampling.max_new_tokens,
            seed=None if self.sampling.greedy else self.sampling.seed,
        )
        start = time.perf_counter()
        outputs = self.llm.generate(prompts, params, use_tqdm=False)
        seconds = time.perf_counter() - start
        responses = []
        for prompt, output in zip(prompts, outputs, strict=True):
            completion = output.outputs[0]
            responses.append(
                Response(
                    text=completion.text,
                    prompt_tokens=len(prompt["prompt_token_ids"]),
                    completion_tokens=len(completion.token_ids),
                    seconds=seconds / len(episodes),
                    extra={"batch_seconds": seconds, "finish_reason": completion.finish_reason},
                )
            )
        return responses

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "vllm",
            "spec": self.spec,
            "model": self.model_path,
            "source": self.source,
            "engine": dict(self.engine_options),
            "sampling": self.sampling.as_dict(),
        }


ENGINE_OPTIONS = ("dtype", "gpu_memory_utilization", "max_model_len", "tensor_parallel_size")


def make_vllm_agent(spec: str, options: dict[str, Any]) -> VLLMAgent:
    """``vllm:<hub id or path>`` (``vllm:smollm2`` uses the cached SmolLM2); options: the
    sampling ones plus ``dtype``, ``gpu_memory_utilization``, ``max_model_len``,
    ``tensor_parallel_size``."""
    require_vllm()
    from tomgym.agents.hf import resolve_model

    path, source = resolve_model(spec)
    return VLLMAgent(
        spec=spec.strip(),
        model_path=path,
        sampling=Sampling.from_options(options),
        source=source,
        engine_options={k: options[k] for k in ENGINE_OPTIONS if k in options},
    )
