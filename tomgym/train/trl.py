"""TRL adapter: a conversational prompt dataset with a ``label`` column, and GRPO reward functions
that score completions through the env's own ``step`` (via :func:`score_label`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from tomgym.rewards import Score
from tomgym.train.labels import decode_label, encode_label, env_for, episode_prompt, score_label

RewardFunc = Callable[..., list[float]]


def completion_text(completion: str | Sequence[dict[str, Any]]) -> str:
    """The response text of a TRL completion: a string, or conversational assistant messages."""
    if isinstance(completion, str):
        return completion
    return "".join(str(m.get("content") or "") for m in completion if m.get("role") == "assistant")


def score_completions(
    completions: Sequence[str | Sequence[dict[str, Any]]], labels: Sequence[Any]
) -> list[Score]:
    """The env's verdict on each completion against the item its label names."""
    if len(labels) != len(completions):
        raise ValueError(f"{len(completions)} completions but {len(labels)} labels")
    return [
        _score(decode_label(label).dumps(), completion_text(c))
        for c, label in zip(completions, labels, strict=False)
    ]


@functools.lru_cache(maxsize=4096)
def _score(label: str, text: str) -> Score:
    # TRL calls each reward function on the same batch: the format, answer and other parts
    # all come from one scoring of each (label, completion), not three.
    return score_label(label, text)[0]


def _labels(kwargs: dict[str, Any]) -> Sequence[Any]:
    if "label" not in kwargs:
        raise KeyError(
            "the tomgym reward functions need a 'label' dataset column (see tom_dataset); "
            f"got columns {sorted(k for k in kwargs if k not in ('trainer_state',))}"
        )
    labels: Sequence[Any] = kwargs["label"]
    return labels


def _log(kwargs: dict[str, Any], scores: Sequence[Score]) -> None:
    """Format rate and accuracy through TRL's ``log_metric`` hook, when the trainer passes it."""
    log_metric = kwargs.get("log_metric")
    if callable(log_metric) and scores:
        log_metric("tom/format_rate", sum(s.format_ok for s in scores) / len(scores))
        log_metric("tom/accuracy", sum(s.correct for s in scores) / len(scores))


def tom_reward(
    prompts: Sequence[Any],
    completions: Sequence[str | Sequence[dict[str, Any]]],
    completion_ids: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list[float]:
    """The env's total reward for each completion (format part + answer part)."""
    scores = score_completions(completions, _labels(kwargs))
    _log(kwargs, scores)
    return [float(s.reward) for s in scores]


def tom_format_reward(
    prompts: Sequence[Any],
    completions: Sequence[str | Sequence[dict[str, Any]]],
    completion_ids: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list[float]:
    """The format part of the env's reward (``parts["format"]``)."""
    scores = score_completions(completions, _labels(kwargs))
    _log(kwargs, scores)
    return [float(s.parts["format"]) for s in scores]


def tom_answer_reward(
    prompts: Sequence[Any],
    completions: Sequence[str | Sequence[dict[str, Any]]],
    completion_ids: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list[float]:
    """The correctness part of the env's reward (``parts["answer"]``)."""
    return [float(s.parts["answer"]) for s in score_completions(completions, _labels(kwargs))]


def tom_other_reward(
    prompts: Sequence[Any],
    completions: Sequence[str | Sequence[dict[str, Any]]],
    completion_ids: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list[float]:
    """Any reward part beyond format and answer (e.g. trace fidelity); 0 for the usual presets."""
    scores = score_completions(completions, _labels(kwargs))
    return [float(s.reward - s.parts["format"] - s.parts["answer"]) for s in scores]


def tom_reward_funcs(split_parts: bool = True) -> list[RewardFunc]:
    """Reward functions for ``GRPOTrainer(reward_funcs=...)``.

    TRL adds its reward functions (``reward_weights`` default to 1), so the default returns the
    format part, the answer part and the rest of the env's reward (0 unless the reward spec has
    more parts): their sum is the env's reward, and TRL logs each one
    (``rewards/tom_format_reward/mean``...). ``split_parts=False`` returns the total alone.
    Either way format rate and accuracy go to TRL's metrics as ``tom/format_rate`` and
    ``tom/accuracy``.
    """
    if split_parts:
        return [tom_format_reward, tom_answer_reward, tom_other_reward]
    return [tom_reward]


def tom_rows(
    env_ids: Sequence[str] | str, split: str = "train", n: int = 100, **env_kwargs: Any
) -> list[dict[str, Any]]:
    """Rows ``{"prompt": messages, "label", "env_id", "index"}``, items ``0..n-1`` of each env."""
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    rows = []
    for env_id in ids:
        probe = decode_label(encode_label(env_id, 0, split=split, **env_kwargs))
        size = env_for(probe).size
        for index in range(n if size is None else min(n, size)):
            label = encode_label(env_id, index, split=split, **env_kwargs)
            _, info = episode_prompt(decode_label(label))
            if info.get("prefill"):
                raise ValueError(
                    "prefill_think=True cannot be expressed in a conversational TRL prompt"
                )
            rows.append(
                {"prompt": info["messages"], "label": label, "env_id": env_id, "index": index}
            )
    return rows


def tom_dataset(
    env_ids: Sequence[str] | str, split: str = "train", n: int = 100, **env_kwargs: Any
) -> Any:
    """A ``datasets.Dataset`` for TRL: conversational ``prompt`` messages plus the ``label`` column.

    ``n`` items per env (indices ``0..n-1``; fewer where the env is smaller). ``env_kwargs`` (e.g.
    ``length=1``, ``reward="tomrl"``) go to every env and into the labels, so the reward
    functions rebuild the same env.
    """
    try:
        import datasets
    except ImportError as exc:
        raise ImportError("tom_dataset needs the datasets package: pip install trl") from exc
    return datasets.Dataset.from_list(tom_rows(env_ids, split, n, **env_kwargs))
