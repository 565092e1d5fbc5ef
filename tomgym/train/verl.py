"""veRL adapter: ``compute_score`` for ``reward.custom_reward_function``, scoring through the env.

veRL rows carry the tomgym label JSON as ``reward_model.ground_truth``.
"""

from __future__ import annotations

from typing import Any

from tomgym.train.labels import score_label

# veRL's reward managers collect every key of the returned dict into per-sample lists, so every
# call returns the same keys, errors included.
_EMPTY = {"score": 0.0, "format": 0.0, "answer": 0.0, "correct": 0.0, "format_ok": 0.0}


def compute_score(
    data_source: str | None,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """The env's reward for ``solution_str`` on the item named by ``ground_truth`` (a label).

    Returns ``score`` (the env reward), ``format`` and ``answer`` (its parts), ``correct`` and
    ``format_ok`` (0/1) and ``error`` (empty, or why the sample scored 0). Never raises: a bad
    label or response scores 0 with the reason in ``error``.
    """
    try:
        label = ground_truth.item() if hasattr(ground_truth, "item") else ground_truth
        score, _ = score_label(label, str(solution_str))
    except Exception as exc:  # a trainer worker must not die on one bad sample
        return {**_EMPTY, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {
        "score": float(score.reward),
        "format": float(score.parts.get("format", 0.0)),
        "answer": float(score.parts.get("answer", 0.0)),
        "correct": float(score.correct),
        "format_ok": float(score.format_ok),
        "error": "",
    }
