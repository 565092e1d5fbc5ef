"""The agent file OpenRLHF loads with ``--train.agent_func_path PATH/openrlhf_agent.py``.

One ToM question per episode: ``reset`` keeps OpenRLHF's (chat-templated) prompt, ``step``
scores the response through the env's own ``step`` via the row's label and ends the episode.
"""

from __future__ import annotations

import logging
from typing import Any

import torch
from openrlhf.utils.agent import (  # type: ignore[import-untyped]
    AgentInstanceBase,
    MultiTurnAgentExecutor,
)

from tomgym.train.labels import decode_label, episode_prompt
from tomgym.train.openrlhf_reward import failure, score_response_safely, strip_end_tokens

logger = logging.getLogger(__name__)


class AgentInstance(AgentInstanceBase):  # type: ignore[misc]
    """One episode: the prompt from OpenRLHF (or rebuilt from the label), one scored answer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.label_error: str | None = None

    async def reset(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observation = states.get("observation") or ""
        try:
            text, info = episode_prompt(decode_label(states["label"]))
        except Exception as exc:
            self.label_error = f"{type(exc).__name__}: {exc}"
            logger.warning("tomgym agent: bad label (%s)", self.label_error)
            return {"observation": observation}
        if not observation:
            return {"observation": text}
        prefill = info.get("prefill") or ""
        if prefill and not observation.endswith(prefill):
            observation += prefill  # the env was built to start the response with <think>
        return {"observation": observation}

    async def step(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        label = states.get("label")
        try:
            response = strip_end_tokens(str(states.get("action_text") or ""))
            outcome = score_response_safely(label, response)
        except Exception as exc:  # OpenRLHF must never see an exception from the env
            logger.warning("tomgym agent: %s: %s", type(exc).__name__, exc)
            outcome = failure(label)
        return {
            "rewards": torch.tensor(outcome.reward),
            "scores": torch.tensor(outcome.score),
            "environment_feedback": "",
            "done": True,
            "sampling_params": states.get("sampling_params"),
            "extra_logs": dict(outcome.logs),
        }


class AgentExecutor(MultiTurnAgentExecutor):  # type: ignore[misc]
    """What OpenRLHF instantiates (no arguments) from the agent file."""

    def __init__(self) -> None:
        super().__init__(AgentInstance)
