"""Training prompts against OpenRLHF's prompt budget.

OpenRLHF's agent executor cuts a prompt longer than ``--data.max_len`` minus
``--rollout.max_new_tokens`` from the left, logging a warning per rollout on the workers:
the system message with the answer format goes first, and the policy trains on a prompt that
evaluation never shows. ``tomgym train`` counts every training prompt with the model's own
tokenizer and chat template before starting, and refuses a run whose prompts do not fit.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

CONTEXT_KEYS = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length")
"""Config fields that name a model's context length (the first present is used)."""

ESTIMATE_AFTER = 500
"""Prompts counted before the time the rest will take is estimated."""

SAY_ESTIMATE_ABOVE_S = 20.0
"""A count estimated to take longer than this says so (a large --n looked like a hang)."""


class PromptBudgetError(ValueError):
    """Training prompts longer than the prompt budget OpenRLHF would cut them to."""


def hub_offline() -> bool:
    """Whether ``HF_HUB_OFFLINE`` says there is no hub to download from (read now, not at
    import as huggingface_hub does)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def load_tokenizer(model: str, *, offline: bool) -> tuple[Any | None, str]:
    """(the model's tokenizer, "") or (None, why it could not be loaded here). ``offline``
    reads only local files (a hub download retries for most of a minute without a network)."""
    try:
        from transformers import AutoTokenizer
    except ImportError:
        return None, "transformers is not installed (pip install 'tomgym[train]')"
    try:
        return AutoTokenizer.from_pretrained(model, local_files_only=offline), ""
    except (OSError, ValueError) as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"cannot load the tokenizer of {model} here ({first_line})"


def prompt_tokens(tokenizer: Any, messages: Sequence[dict[str, str]], prefill: str = "") -> int:
    """The prompt's length as OpenRLHF counts it: the chat template with the generation prompt,
    tokenised without special tokens, plus any prefill the agent appends."""
    text = tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
    return len(tokenizer(text=text + prefill, add_special_tokens=False)["input_ids"])


def check_prompt_budget(
    tokenizer: Any, rows: Iterable[dict[str, Any]], budget: int, total: int | None = None
) -> int:
    """The longest prompt's token count; a PromptBudgetError when any exceeds ``budget``.
    With ``total`` (the number of rows), a count that will take long says how long first."""
    over: list[tuple[int, str]] = []
    longest = 0
    count = 0
    start = time.perf_counter()
    for row in rows:
        count += 1
        if count == ESTIMATE_AFTER + 1 and total is not None:
            say_estimate(total, (time.perf_counter() - start) / ESTIMATE_AFTER)
        tokens = prompt_tokens(tokenizer, row["messages"], row.get("prefill", ""))
        longest = max(longest, tokens)
        if tokens > budget:
            over.append((tokens, f"{row['env_id']} item {row['index']}"))
    if over:
        tokens, where = max(over)
        raise PromptBudgetError(
            f"{len(over)} of {count} training prompts are longer than the prompt budget of "
            f"{budget} tokens (the longest, {where}, has {tokens}); OpenRLHF would cut them "
            f"from the left, system message first: pass --max-prompt-tokens {tokens} or more"
        )
    return longest


def say_estimate(total: int, seconds_per_prompt: float) -> None:
    """Print how long counting ``total`` prompts will take, when that is long."""
    seconds = total * seconds_per_prompt
    if seconds <= SAY_ESTIMATE_ABOVE_S:
        return
    print(
        f"# counting the tokens of {total:,} training prompts takes about "
        f"{duration_text(seconds)} here ({1 / seconds_per_prompt:,.0f} a second); --n sets "
        "how many there are",
        file=sys.stderr,
        flush=True,
    )


def duration_text(seconds: float) -> str:
    """``seconds`` in the largest fitting unit: "45 s", "12 min", "3.5 h", "120 days"."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.0f} days"


def context_length(model: str) -> int | None:
    """The longest sequence ``model`` takes, from its config (a local directory or the hub
    cache; nothing is downloaded): the first of CONTEXT_KEYS, times a rope scaling factor
    where one is set (an upper bound: vLLM applies some kinds only). None where unknown."""
    try:
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(model, local_files_only=True)
    except Exception:  # not installed, not cached, not a model: unknown, nothing to check
        return None
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    length = next(
        (v for k in CONTEXT_KEYS if isinstance(v := getattr(text, k, None), int) and v > 0), None
    )
    if length is None:
        return None
    scaling = getattr(text, "rope_scaling", None)
    factor = scaling.get("factor") if isinstance(scaling, dict) else None
    if isinstance(factor, (int, float)) and not isinstance(factor, bool) and factor > 1:
        length = int(length * factor)
    return length


def check_context(
    model: str, prompt_tokens: int, response_tokens: int, *, shown: str | None = None
) -> None:
    """Refuse a prompt budget plus response budget longer than ``model``'s context: vLLM
    refuses such a ``max_model_len`` only once the cluster is up and the model loaded
    (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, which is honoured here too). ``shown`` is
    the model as the user named it."""
    if os.environ.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "").strip() in ("1", "true", "True"):
        return
    limit = context_length(model)
    total = prompt_tokens + response_tokens
    if limit is None or total <= limit:
        return
    raise PromptBudgetError(
        f"the prompt budget ({prompt_tokens} tokens, --max-prompt-tokens) plus the response "
        f"budget ({response_tokens}, --max-new-tokens) make {total} tokens, more than "
        f"{shown or model}'s context of {limit} (its config.json); vLLM would refuse the run once "
        f"started: lower --max-new-tokens to {max(1, limit - prompt_tokens)} or less"
    )
