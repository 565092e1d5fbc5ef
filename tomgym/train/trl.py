"""TRL adapter: a conversational prompt dataset with a ``label`` column, and GRPO reward functions
that score completions through the env's own ``step`` (via :func:`score_label`)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from tomgym.registry import registry_generation
from tomgym.rewards import Score
from tomgym.train.export import (
    check_trainable,
    unique_env_ids,
    warn_held_out_data,
    warn_label_caveat,
)
from tomgym.train.labels import (
    EpisodeLabel,
    decode_label,
    labelled_episode,
    open_labelled_env,
    response_text,
    score_label,
)

logger = logging.getLogger(__name__)

RewardFunc = Callable[..., list[float | None]]


def completion_text(completion: str | Sequence[dict[str, Any]]) -> str:
    """The response text of a TRL completion: a string, or conversational assistant messages
    (content text or parts), as every adapter reads it (:func:`labels.response_text`)."""
    return response_text(completion)


def score_completions(
    completions: Sequence[str | Sequence[dict[str, Any]]], labels: Sequence[Any]
) -> list[Score | None]:
    """The env's verdict on each completion against the item its label names.

    None for a row that cannot be scored (a malformed label, an env that cannot be made...),
    with a logged warning naming the row: TRL takes None as "no reward for this sample" (in
    TRL 1.16 a completion that every reward function gives None gets no advantage), while an
    exception would end the training run.
    """
    if len(labels) != len(completions):
        raise ValueError(f"{len(completions)} completions but {len(labels)} labels")
    scores: list[Score | None] = []
    for row, (completion, label) in enumerate(zip(completions, labels, strict=True)):
        try:
            scores.append(_score(decode_label(label).dumps(), completion_text(completion)))
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            _warn_unscorable(id(labels), row, f"{label!r:.200}", error)
            scores.append(None)
    return scores


@functools.lru_cache(maxsize=256)
def _warn_unscorable(batch: int, row: int, label: str, error: str) -> None:
    """Said once for a row of a batch (``batch``: the id of its label column), though TRL
    calls each reward function (total, format, answer) on the same batch."""
    logger.warning("tomgym TRL reward: row %d cannot be scored (%s); label %s", row, error, label)


def _score(label: str, text: str) -> Score:
    # TRL calls each reward function on the same batch: the format, answer and other parts
    # all come from one scoring of each (label, completion), not three (and never from a
    # scoring before the label's env was registered again).
    return _memo_score(label, text, registry_generation())


@functools.lru_cache(maxsize=4096)
def _memo_score(label: str, text: str, generation: int) -> Score:
    return score_label(label, text)[0]


def _labels(kwargs: dict[str, Any]) -> Sequence[Any]:
    if "label" not in kwargs:
        raise KeyError(
            "the tomgym reward functions need a 'label' dataset column (see tom_dataset); "
            f"got columns {sorted(k for k in kwargs if k not in ('trainer_state',))}"
        )
    labels: Sequence[Any] = kwargs["label"]
    return labels


def _log(kwargs: dict[str, Any], scores: Sequence[Score | None]) -> None:
    """Format rate and accuracy through TRL's ``log_metric`` hook, when the trainer passes it."""
    log_metric = kwargs.get("log_metric")
    scored = [s for s in scores if s is not None]
    if callable(log_metric) and scored:
        log_metric("tom/format_rate", sum(s.format_ok for s in scored) / len(scored))
        log_metric("tom/accuracy", sum(s.correct for s in scored) / len(scored))


def tom_reward(
    prompts: Sequence[Any],
    completions: Sequence[str | Sequence[dict[str, Any]]],
    completion_ids: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list[float | None]:
    """The env's total reward for each completion (format part + answer part); None for a row
    whose label cannot be scored."""
    scores = score_completions(completions, _labels(kwargs))
    _log(kwargs, scores)
    return [None if s is None else float(s.reward) for s in scores]


def tom_format_reward(
    prompts: Sequence[Any],
    completions: Sequence[str | Sequence[dict[str, Any]]],
    completion_ids: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list[float | None]:
    """The format part of the env's reward (``parts["format"]``); None for an unscorable row."""
    scores = score_completions(completions, _labels(kwargs))
    _log(kwargs, scores)
    return [None if s is None else float(s.parts["format"]) for s in scores]


def tom_answer_reward(
    prompts: Sequence[Any],
    completions: Sequence[str | Sequence[dict[str, Any]]],
    completion_ids: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list[float | None]:
    """The correctness part of the env's reward (``parts["answer"]``); None for an unscorable
    row."""
    scores = score_completions(completions, _labels(kwargs))
    return [None if s is None else float(s.parts["answer"]) for s in scores]


def tom_other_reward(
    prompts: Sequence[Any],
    completions: Sequence[str | Sequence[dict[str, Any]]],
    completion_ids: Sequence[Sequence[int]] | None = None,
    **kwargs: Any,
) -> list[float | None]:
    """Any reward part beyond format and answer (e.g. trace fidelity); 0 for the usual presets,
    None for an unscorable row."""
    scores = score_completions(completions, _labels(kwargs))
    return [
        None if s is None else float(s.reward - s.parts["format"] - s.parts["answer"])
        for s in scores
    ]


def tom_reward_funcs(split_parts: bool = True) -> list[RewardFunc]:
    """Reward functions for ``GRPOTrainer(reward_funcs=...)``.

    TRL adds its reward functions (``reward_weights`` default to 1), so the default returns the
    format part, the answer part and the rest of the env's reward (0 unless the reward spec has
    more parts): their sum is the env's reward, and TRL logs each one
    (``rewards/tom_format_reward/mean``...). ``split_parts=False`` returns the total alone.
    Either way format rate and accuracy go to TRL's metrics as ``tom/format_rate`` and
    ``tom/accuracy``. A row whose label cannot be scored gets None from every function (TRL's
    "no reward"), with a logged warning; they never raise on a bad row.
    """
    if split_parts:
        return [tom_format_reward, tom_answer_reward, tom_other_reward]
    return [tom_reward]


def tom_rows(
    env_ids: Sequence[str] | str,
    split: str | None = "train",
    n: int | None = 100,
    *,
    allow_eval_only: bool = False,
    **env_kwargs: Any,
) -> list[dict[str, Any]]:
    """Rows ``{"prompt": messages, "label", "env_id", "index"}``, items ``0..n-1`` of each env.

    ``n=None`` takes every item of each env (a generated env, which has no end, refuses it);
    an env with fewer than ``n`` items gives all it has, with a logged warning. ``split`` goes
    to the envs that take it (an env without splits is used whole, with a logged note); each
    label records the kwargs its env was made with. Eval-only envs (OpenToM, FANToM) are
    refused, as by ``tomgym export``, unless ``allow_eval_only``.
    """
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"n (items per env) must be at least 1 or None (every item), got {n!r}")
    ids = [env_ids] if isinstance(env_ids, str) else unique_env_ids(env_ids)
    check_trainable(ids, allow_eval_only)
    warn_held_out_data(ids, split, env_kwargs, n)
    rows = []
    for env_id in ids:
        env, kwargs = open_labelled_env(env_id, split, env_kwargs)
        warn_label_caveat(env_id, env)
        if env.prefill:
            raise ValueError(
                f"{env_id}: prefill_think=True cannot be expressed in a conversational TRL "
                "prompt (the label would score prefill + response); use OpenRLHF's agent path "
                "(tomgym export --format openrlhf) or a plain loop for it"
            )
        size = env.size
        if n is None:
            if size is None:
                raise ValueError(f"{env_id} is generated and has no end: give n (items per env)")
            count = size
        else:
            count = n if size is None else min(n, size)
            if count < n:
                logger.warning(
                    "%s serves %d items here, fewer than n=%d: using all %d",
                    env_id,
                    count,
                    n,
                    count,
                )
        for index in range(count):
            label = EpisodeLabel(env_id=env_id, index=index, kwargs=kwargs)
            _, info, item = labelled_episode(label)
            label = label.of_item(item)  # scoring refuses another item at this index
            rows.append(
                {
                    "prompt": info["messages"],
                    "label": label.dumps(),
                    "env_id": env_id,
                    "index": index,
                }
            )
    return rows


def tom_dataset(
    env_ids: Sequence[str] | str,
    split: str | None = "train",
    n: int | None = 100,
    *,
    allow_eval_only: bool = False,
    **env_kwargs: Any,
) -> Any:
    """A ``datasets.Dataset`` for TRL: conversational ``prompt`` messages plus the ``label`` column.

    ``n`` items per env (indices ``0..n-1``; fewer, with a logged warning, where the env is
    smaller; ``None``: every item of a fixed env). ``split`` goes to
    the envs that take it. ``env_kwargs`` (e.g. ``length=1``, ``reward="tomrl"``, a custom
    ``prompt=PromptPreset(...)``) go to every env and into the labels, so the reward functions
    rebuild the same env. Eval-only envs are refused unless ``allow_eval_only``.
    """
    try:
        import datasets
    except ImportError as exc:
        raise ImportError("tom_dataset needs the datasets package: pip install trl") from exc
    return datasets.Dataset.from_list(
        tom_rows(env_ids, split, n, allow_eval_only=allow_eval_only, **env_kwargs)
    )
