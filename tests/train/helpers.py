"""Shared test data for the training adapters."""

from __future__ import annotations

from typing import Any


def readme_items(n: int) -> list[dict[str, Any]]:
    """``n`` copies (ids q0..) of the README's custom-env item: a list env without splits."""
    return [
        {
            "id": f"q{i}",
            "story": "Ann put the ball in the box. Ann left. Bob moved the ball to the basket.",
            "question": "Where will Ann look for the ball?",
            "answer": "box",
            "candidates": ["box", "basket"],
            "order": 1,
        }
        for i in range(n)
    ]
