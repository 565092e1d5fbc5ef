"""The reward file OpenRLHF loads with ``--reward.remote_url PATH/openrlhf_reward.py``.

``reward_func`` scores each response through the env's own ``step`` (via the row's label) and
never raises: OpenRLHF swallows exceptions and leaves the sample without a reward.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, NamedTuple

import torch

from tomgym.train.labels import decode_label, env_for, failure_reward, score_label

logger = logging.getLogger(__name__)

# End-of-turn and end-of-text markers of common chat templates (Qwen, Llama 2/3, Gemma, Mistral).
END_TOKENS = (
    "<|im_end|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|end_of_text|>",
    "<|end|>",
    "<end_of_turn>",
    "<eos>",
    "</s>",
)
# Where the assistant turn starts, for a query whose text does not begin with the prompt.
ASSISTANT_MARKERS = (
    "<|im_start|>assistant\n",
    "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "<start_of_turn>model\n",
    "[/INST]",
    "<\uff5cAssistant\uff5c>",  # DeepSeek-R1 and its distills
    "<|assistant|>\n",  # Phi-3, Zephyr
    "<|assistant|>",
)


class UnknownPromptError(ValueError):
    """The query neither starts with the prompt nor holds an assistant-turn marker: where the
    response starts is unknown, and scoring the whole query would read the prompt's example
    tags as the answer."""


class Outcome(NamedTuple):
    """What one response earned: the reward, 1/0 correctness and numeric logs.

    Not a dataclass: OpenRLHF execs this file without putting it in ``sys.modules``, and
    ``@dataclass`` looks its module up there.
    """

    reward: float
    score: float
    logs: dict[str, float]


def strip_end_tokens(text: str) -> str:
    """Drop trailing end-of-turn/end-of-text markers (and whitespace) from a response."""
    text = text.rstrip()
    stripped = True
    while stripped:
        stripped = False
        for token in END_TOKENS:
            if text.endswith(token):
                text = text[: -len(token)].rstrip()
                stripped = True
    return text


def response_from_query(query: str, prompt: str) -> str:
    """The response part of ``query`` (prompt + response, special tokens kept)."""
    if prompt and query.startswith(prompt):
        response = query[len(prompt) :]
    else:
        # Decoding the prompt's tokens may not give back its exact text: cut at the last
        # assistant-turn marker instead.
        cuts = [query.rfind(m) + len(m) for m in ASSISTANT_MARKERS if m in query]
        if not cuts:
            raise UnknownPromptError(
                "the query does not start with the prompt and has no assistant-turn marker "
                f"({', '.join(map(repr, ASSISTANT_MARKERS))}): cannot tell where the response "
                "starts"
            )
        response = query[max(cuts) :]
    return strip_end_tokens(response)


def failure(label: Any) -> Outcome:
    """The outcome of a sample that cannot be scored: the reward's minimum, score 0."""
    return Outcome(
        failure_reward(label), 0.0, {"format": 0.0, "answer": 0.0, "order": -1.0, "error": 1.0}
    )


def score_response_safely(label: Any, response: str) -> Outcome:
    """Score one response against its label; a bad label or any crash is logged, not raised."""
    try:
        score, info = score_label(label, response)
    except Exception as exc:
        logger.warning("tomgym reward: cannot score (%s: %s)", type(exc).__name__, exc)
        return failure(label)
    order = info.get("order")
    logs = {
        "format": float(score.format_ok),
        "answer": float(score.correct),
        "order": float(order) if isinstance(order, int) else -1.0,
        "error": 0.0,
    }
    return Outcome(float(score.reward), float(score.correct), logs)


def prefill_in_prompt(label: Any, prompt: str) -> bool:
    """False (with a warning) when the label's env starts responses with a prefill
    (``prefill_think=True``) that the prompt does not end with.

    The env scores ``prefill + response``; on this path OpenRLHF's prompt is the chat template
    of the messages, without the prefill, so such a label cannot be scored honestly here. The
    agent file (``--train.agent_func_path``, what ``tomgym train`` uses) appends the prefill.
    """
    try:
        prefill = env_for(decode_label(label)).prefill
    except Exception:
        return True  # an unusable label: scoring reports it
    if not prefill or prompt.rstrip().endswith(prefill.strip()):
        return True
    logger.warning(
        "tomgym reward: the label asks for prefill_think but the prompt does not end with %r; "
        "use the agent file (--train.agent_func_path openrlhf_agent.py), which appends it",
        prefill,
    )
    return False


def reward_func(
    queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], **kwargs: Any
) -> dict[str, Any]:
    """OpenRLHF's hook: 1-D float tensors ``rewards`` and ``scores`` and per-key ``extra_logs``."""
    outcomes: list[Outcome] = []
    labels, prompts = list(labels or []), list(prompts or [])  # None from a misconfigured run
    for i, query in enumerate(queries):
        label = labels[i] if i < len(labels) else None
        try:
            prompt = prompts[i] if i < len(prompts) else ""
            if not prefill_in_prompt(label, prompt):
                outcomes.append(failure(label))
                continue
            outcomes.append(score_response_safely(label, response_from_query(query, prompt)))
        except Exception as exc:  # never let OpenRLHF drop the sample
            logger.warning("tomgym reward: %s: %s", type(exc).__name__, exc)
            outcomes.append(failure(label))
    keys = ("format", "answer", "order", "error")
    return {
        "rewards": torch.tensor([o.reward for o in outcomes], dtype=torch.float),
        "scores": torch.tensor([o.score for o in outcomes], dtype=torch.float),
        "extra_logs": {
            k: torch.tensor([o.logs[k] for o in outcomes], dtype=torch.float) for k in keys
        },
    }
