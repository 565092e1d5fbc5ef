"""The training label: which env item a prompt came from, as JSON, and scoring through the env.

Every trainer adapter (OpenRLHF, TRL, veRL) carries this label beside the prompt and scores a
response by rebuilding the episode and calling the env's own ``step``: one scorer, no copy.
"""

from __future__ import annotations

import functools
import json
import logging
import numbers
import threading
from collections.abc import Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from tomgym.data import MissingDataError
from tomgym.env import SplitNotFoundError, ToMEnv
from tomgym.items import ToMItem
from tomgym.registry import registry_generation
from tomgym.rewards import RewardSpec, Score, resolve_reward

logger = logging.getLogger(__name__)
_SPLIT_NOTES: set[tuple[str, str]] = set()  # (env ID, split) fallbacks already reported


class LabelError(ValueError):
    """A label that is not the JSON of a :class:`EpisodeLabel`."""


class StaleLabelError(LabelError):
    """A label whose env now serves another item at its index (the data changed since the
    export): scoring it would judge the response against the wrong gold."""


class EpisodeLabel(BaseModel):
    """Env ID, item index and env kwargs (split, seed, reward, prompt...) of one training prompt,
    and the digest of the item it was exported with (None in labels made before digests)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    env_id: str
    index: StrictInt = Field(ge=0)  # "3", 3.0 or true are not indices
    kwargs: dict[str, Any] = Field(default_factory=dict)
    digest: str | None = None

    def dumps(self) -> str:
        return json.dumps(self.model_dump(exclude_none=True), sort_keys=True, separators=(",", ":"))

    def of_item(self, item: ToMItem) -> EpisodeLabel:
        """This label pinned to ``item``, so that scoring refuses another item at its index."""
        return self.model_copy(update={"digest": item.digest()})

    def check(self, item: ToMItem) -> ToMItem:
        """``item`` when it is the one this label was made for (any, without a digest)."""
        if self.digest is not None and item.digest() != self.digest:
            raise StaleLabelError(
                f"{self.env_id} index {self.index} is now item {item.id!r}, not the item this "
                f"prompt was exported with (digest {self.digest}, now {item.digest()}): the "
                "env's data changed since the export; export the training data again"
            )
        return item


def encode_label(env_id: str, index: int, **kwargs: Any) -> str:
    """The label of item ``index`` of ``env_id`` made with ``kwargs``, as JSON text (numpy
    integers and floats, which envs accept, are written as plain numbers)."""
    return EpisodeLabel(env_id=env_id, index=_plain(index), kwargs=_plain(kwargs)).dumps()


def _plain(value: Any) -> Any:
    """numpy scalars (and those inside lists, tuples and dicts) as Python numbers."""
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


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


class _CachedEnv(NamedTuple):
    env: ToMEnv
    lock: threading.Lock


@functools.lru_cache(maxsize=64)
def _env(env_id: str, kwargs_json: str, generation: int) -> _CachedEnv:
    import tomgym

    return _CachedEnv(tomgym.make(env_id, **json.loads(kwargs_json)), threading.Lock())


def _cached(label: EpisodeLabel) -> _CachedEnv:
    # keyed on the registry's generation: a re-registered ID is made afresh
    kwargs = json.dumps(label.kwargs, sort_keys=True)
    return _env(label.env_id, kwargs, registry_generation())


def env_for(label: EpisodeLabel) -> ToMEnv:
    """A cached env per (ID, kwargs): building one costs more than scoring with it.

    The env is shared: reset/step on it directly only from one thread. The functions below
    (:func:`episode_prompt`, :func:`labelled_episode`, :func:`score_label`) hold its lock, as
    trainers call them from several threads at once.
    """
    return _cached(label).env


def labelled_episode(label: EpisodeLabel) -> tuple[str, dict[str, Any], ToMItem]:
    """The prompt, reset info and item of the labelled episode (thread-safe)."""
    env, lock = _cached(label)
    with lock:
        observation, info = env.reset(options={"index": label.index})
        item = env.current_item
    if item is None:  # reset always sets it; a clear error rather than an assert
        raise RuntimeError(f"{label.env_id}: reset served no item for index {label.index}")
    return observation, info, label.check(item)


def episode_prompt(label: EpisodeLabel) -> tuple[str, dict[str, Any]]:
    """The prompt and reset info of the labelled item (thread-safe)."""
    observation, info, _ = labelled_episode(label)
    return observation, info


def score_label(
    label: str | dict[str, Any] | EpisodeLabel, response: str
) -> tuple[Score, dict[str, Any]]:
    """Score ``response`` to the labelled item with the env's own ``step`` (thread-safe).

    The cached env is shared by every caller of the same (ID, kwargs): reset and step run
    under its lock, so concurrent scorers (veRL's executor, OpenRLHF's threads) never see
    each other's episode.
    """
    parsed = decode_label(label)
    env, lock = _cached(parsed)
    with lock:
        env.reset(options={"index": parsed.index})
        if env.current_item is not None:
            parsed.check(env.current_item)
        _, _, _, _, info = env.step(response)
        score = env.last_score
    if score is None:
        raise RuntimeError(f"{parsed.env_id}: step left no score")
    return score, info


DEFAULT_LABEL_REWARD = "rlvr"
"""The reward a label that names none is read with when its env cannot be made."""
TRAIN_SPLIT = "train"
"""The one split an exporter may drop for an env that lacks it (see open_labelled_env)."""


def open_labelled_env(
    env_id: str, split: str | None, kwargs: Mapping[str, Any]
) -> tuple[ToMEnv, dict[str, Any]]:
    """The (cached) env that labels with these arguments rebuild, and the kwargs it was made with.

    ``split`` is tried when ``kwargs`` has none. Only the training split, ``train`` (the
    default of every exporter), and ``all`` fall back: an env that takes no split, or has no
    ``train`` (a release without splits), is then made without one and used whole (which is
    all of it), with a logged note.
    Any other split it refuses is an error: asking for ``val`` or ``test`` and getting the
    env's default (often ``train``) items would be worse than stopping. The returned kwargs
    are the JSON form a label records, so the reward path remakes exactly this env.
    """
    env, made_with = _open_env(env_id, split, kwargs)
    return with_reward_recorded(env_id, env, made_with)


def with_reward_recorded(
    env_id: str, env: ToMEnv, kwargs: dict[str, Any]
) -> tuple[ToMEnv, dict[str, Any]]:
    """``kwargs`` plus the env's reward when the label would not name it otherwise.

    A label that names no reward is read as ``rlvr`` where its env cannot be made (a reward
    worker without the plugin that registered it): an env registered with another default
    reward (``kwargs={"reward": "tomrl"}``) would then make unusable samples earn rlvr's 0,
    more than its wrong answers' -3. Recording the spec (its fields, so a worker without the
    plugin reads it too) keeps every adapter's failure reward at the env's own minimum.
    """
    if env.reward_spec == _named_reward(kwargs):
        return env, kwargs
    recorded = {**kwargs, "reward": env.reward_spec.model_dump(mode="json")}
    return env_for(EpisodeLabel(env_id=env_id, index=0, kwargs=recorded)), recorded


def _named_reward(kwargs: Mapping[str, Any]) -> RewardSpec | None:
    """The reward a label's kwargs name when its env cannot be made (rlvr when none)."""
    try:
        return resolve_reward(kwargs.get("reward", DEFAULT_LABEL_REWARD))
    except (TypeError, ValueError):
        return None


def _open_env(
    env_id: str, split: str | None, kwargs: Mapping[str, Any]
) -> tuple[ToMEnv, dict[str, Any]]:
    base = decode_label(encode_label(env_id, 0, **kwargs)).kwargs
    if split is None or "split" in base:
        return env_for(EpisodeLabel(env_id=env_id, index=0, kwargs=base)), base
    with_split = {**base, "split": split}
    try:
        return env_for(EpisodeLabel(env_id=env_id, index=0, kwargs=with_split)), with_split
    except (TypeError, ValueError) as exc:
        if split not in (TRAIN_SPLIT, "all") or isinstance(exc, SplitNotFoundError):
            raise  # an env with other splits but no train items: its whole list holds them
        try:
            env = env_for(EpisodeLabel(env_id=env_id, index=0, kwargs=base))
        except MissingDataError:
            raise  # the env refused the split argument; what stops it is its missing release
        except Exception:
            raise exc from None
        if (env_id, split) not in _SPLIT_NOTES:
            _SPLIT_NOTES.add((env_id, split))
            logger.warning(
                "tomgym: note: %s does not take split=%r (%s); using the env's own items, and its "
                "labels record no split",
                env_id,
                split,
                exc,
            )
        return env, base


def reward_spec_for(label: Any) -> RewardSpec | None:
    """The reward spec a label's env scores with, or None when the label does not say."""
    try:
        return env_for(decode_label(label)).reward_spec
    except Exception:
        pass
    try:
        data = json.loads(label) if isinstance(label, str) else label
        return resolve_reward(data["kwargs"].get("reward", DEFAULT_LABEL_REWARD))
    except Exception:
        return None


def failure_parts(label: Any) -> tuple[float, float]:
    """(format part, answer part) of a sample that cannot be scored: each at the minimum of
    the label's reward spec, or 0.0 when the label names none."""
    spec = reward_spec_for(label)
    if spec is None:
        return 0.0, 0.0
    return min(spec.format_ok, spec.format_bad), min(spec.correct, spec.incorrect)


def failure_reward(label: Any) -> float:
    """What a sample that cannot be scored earns: the sum of :func:`failure_parts`.

    Every adapter uses this, so an unusable label never earns more than a wrong answer.
    """
    return sum(failure_parts(label))


ASSISTANT_ROLES = frozenset({"assistant", "model"})
"""Roles of the model's own turns (``model``: Gemini and Gemma chat formats)."""


def response_text(completion: Any) -> str:
    """The response a trainer hands over, as text: a string; chat messages (the assistant's,
    joined; roles ``assistant`` or ``model``, any case); a message; content parts
    (``{"type": "text", "text": ...}``); or a pipeline's ``{"generated_text": ...}``. Anything
    else (None, numbers, messages without an assistant turn, dicts of other keys) is a
    TypeError naming what it got, which every adapter turns into its failure reward."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _message_text(completion)
    if isinstance(completion, list | tuple) and all(isinstance(m, Mapping) for m in completion):
        if any("role" in m for m in completion):
            roles = [str(m.get("role", "")) for m in completion]
            if not any(r.lower() in ASSISTANT_ROLES for r in roles):
                raise TypeError(f"chat messages without an assistant turn (roles {roles})")
            return "".join(
                _content_text(m.get("content"))
                for m, role in zip(completion, roles, strict=True)
                if role.lower() in ASSISTANT_ROLES
            )
        if completion and all("content" in m or "generated_text" in m for m in completion):
            return "".join(_message_text(m) for m in completion)
        return _content_text(list(completion))
    raise TypeError(f"a completion must be text or chat messages, got {type(completion).__name__}")


def _message_text(message: Mapping[str, Any]) -> str:
    """One message's text: its ``content``, or a pipeline output's ``generated_text``."""
    if "content" in message:
        return _content_text(message["content"])
    if "generated_text" in message:
        return response_text(message["generated_text"])
    raise TypeError(f"a message needs 'content', got keys {sorted(map(str, message))}")


def _content_text(content: Any) -> str:
    """A message's content: text, or content parts whose text ones are joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple):
        for part in content:
            if not isinstance(part, Mapping) or not ("type" in part or "text" in part):
                shown = sorted(map(str, part)) if isinstance(part, Mapping) else type(part).__name__
                raise TypeError(f"a content part needs 'type' or 'text', got {shown}")
        return "".join(
            str(part.get("text") or "") for part in content if part.get("type", "text") == "text"
        )
    raise TypeError(f"message content must be text or parts, got {type(content).__name__}")
