"""veRL adapter: ``compute_score`` for ``reward.custom_reward_function``, scoring through the env.

veRL rows carry the tomgym label JSON as ``reward_model.ground_truth``.
"""

from __future__ import annotations

import logging
from typing import Any

from tomgym.train.labels import failure_parts, response_text, score_label

logger = logging.getLogger(__name__)

# veRL's reward managers collect every key of the returned dict into per-sample lists, so every
# call returns the same keys (score, format, answer, correct, format_ok, error), errors included.


def _unusable(label: Any, exc: BaseException) -> dict[str, Any]:
    """The result for a sample that cannot be scored: each part at the minimum of the label's
    reward spec (see :func:`tomgym.train.labels.failure_parts`), and why."""
    try:
        fmt, answer = failure_parts(label)
    except Exception:
        fmt, answer = 0.0, 0.0
    return {
        "score": float(fmt + answer),
        "format": float(fmt),
        "answer": float(answer),
        "correct": 0.0,
        "format_ok": 0.0,
        "error": f"{type(exc).__name__}: {exc}"[:300],
    }


def compute_score(
    data_source: str | None,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """The env's reward for ``solution_str`` on the item named by ``ground_truth`` (a label).

    Returns ``score`` (the env reward), ``format`` and ``answer`` (its parts), ``correct`` and
    ``format_ok`` (0/1) and ``error`` (empty, or why the sample could not be scored). Never
    raises, and is safe to call from several threads at once. A bad label or a crash scores
    the minimum of the label's reward preset (``rlvr``: 0.0, ``tomrl``: -3.0; 0.0 when the
    label names no usable preset, as for text that is not a label), the same as OpenRLHF's
    ``reward_func``, with the reason in ``error``.
    """
    label: Any = ground_truth
    try:
        label = ground_truth.item() if hasattr(ground_truth, "item") else ground_truth
        score, _ = score_label(label, response_text(solution_str))
        return {
            "score": float(score.reward),
            "format": float(score.parts.get("format", 0.0)),
            "answer": float(score.parts.get("answer", 0.0)),
            "correct": float(score.correct),
            "format_ok": float(score.format_ok),
            "error": "",
        }
    except Exception as exc:  # a trainer worker must not die on one bad sample
        logger.warning(
            "tomgym veRL reward: cannot score (%s: %s); label %.200r",
            type(exc).__name__,
            exc,
            label,
        )
        return _unusable(label, exc)
