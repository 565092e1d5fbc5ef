"""The training label: which env item a prompt came from, as JSON, and scoring through the env.

Every trainer adapter (OpenRLHF, TRL, veRL) carries this label beside the prompt and scores a
response by rebuilding the episode and calling the env's own ``step``: one scorer, no copy.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tomgym.env import ToMEnv
from tomgym.rewards import Score


class LabelError(ValueError):
    """A label that is not the JSON of a :class:`EpisodeLabel`."""


class EpisodeLabel(BaseModel):
    """Env ID, item index and env kwargs (split, seed, reward, prompt...) of one training prompt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    env_id: str
    index: int = Field(ge=0)
    kwargs: dict[str, Any] = Field(default_factory=dict)

    def dumps(self) -> str:
        return json.dumps(self.model_dump(), sort_keys=True, separators=(",", ":"))


def encode_label(env_id: str, index: int, **kwargs: Any) -> str:
    return EpisodeLabel(env_id=env_id, index=index, kwargs=kwargs).dumps()


def decode_label(label: str | dict[str, Any] | EpisodeLabel) -> EpisodeLabel:
    """Parse a label (JSON text, dict or label); a clear :class:`LabelError` otherwise."""
    if isinstance(label, EpisodeLabel):
        return label
    try:
        data = json.loads(label) if isinstance(label, str) else label
        return EpisodeLabel.model_validate(data)
    except (json.JSONDecodeError, TypeError, ValidationError) as exc:
        raise LabelError(
            f"not a tomgym label ({type(exc).__name__}): {str(label)[:200]!r}"
        ) from None


@functools.lru_cache(maxsize=64)
def _env(env_id: str, kwargs_json: str) -> ToMEnv:
    import tomgym

    return tomgym.make(env_id, **json.loads(kwargs_json))


def env_for(label: EpisodeLabel) -> ToMEnv:
    """A cached env per (ID, kwargs): building one costs more than scoring with it."""
    return _env(label.env_id, json.dumps(label.kwargs, sort_keys=True))


def episode_prompt(label: EpisodeLabel) -> tuple[str, dict[str, Any]]:
    """The prompt and reset info of the labelled item."""
    return env_for(label).reset(options={"index": label.index})


def score_label(
    label: str | dict[str, Any] | EpisodeLabel, response: str
) -> tuple[Score, dict[str, Any]]:
    """Score ``response`` to the labelled item with the env's own ``step``."""
    parsed = decode_label(label)
    env = env_for(parsed)
    env.reset(options={"index": parsed.index})
    _, _, _, _, info = env.step(response)
    assert env.last_score is not None
    return env.last_score, info
