"""Training prompts against OpenRLHF's prompt budget.

OpenRLHF's agent executor cuts a prompt longer than ``--data.max_len`` minus
``--rollout.max_new_tokens`` from the left, logging a warning per rollout on the workers:
the system message with the answer format goes first, and the policy trains on a prompt that
evaluation never shows. ``tomgym train`` counts every training prompt with the model's own
tokenizer and chat template before starting, and refuses a run whose prompts do not fit.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any


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


def check_prompt_budget(tokenizer: Any, rows: Iterable[dict[str, Any]], budget: int) -> int:
    """The longest prompt's token count; a PromptBudgetError when any exceeds ``budget``."""
    over: list[tuple[int, str]] = []
    longest = 0
    count = 0
    for row in rows:
        count += 1
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
