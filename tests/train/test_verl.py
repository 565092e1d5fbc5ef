"""veRL's reward hook: compute_score called the way veRL's reward manager calls it."""

from __future__ import annotations

import numpy as np
import pytest

from tomgym.train.labels import decode_label, encode_label, env_for
from tomgym.train.verl import compute_score

LABEL = encode_label("ToM-HiToM-O1-v0", 0, split="train", length=1)
KEYS = {"score", "format", "answer", "correct", "format_ok", "error"}


def gold() -> str:
    env = env_for(decode_label(LABEL))
    env.reset(options={"index": 0})
    assert env.current_item is not None
    return env.current_item.gold_text


def call(solution: str, ground_truth: object = LABEL) -> dict:
    # veRL's reward manager: keyword arguments, ground_truth from reward_model.ground_truth.
    return compute_score(
        data_source="tomgym/ToM-HiToM-O1-v0",
        solution_str=solution,
        ground_truth=ground_truth,
        extra_info={"index": 0, "split": "train"},
    )


def test_correct_response_scores_env_reward() -> None:
    result = call(f"<think>she left</think><answer>{gold()}</answer><|im_end|>")
    assert result == {
        "score": 1.1,
        "format": 0.1,
        "answer": 1.0,
        "correct": 1.0,
        "format_ok": 1.0,
        "error": "",
    }


def test_wrong_and_unformatted() -> None:
    assert call("<think>x</think><answer>the moon</answer>")["score"] == 0.1
    result = call("no tags at all")
    assert result["score"] == 0.0 and result["format_ok"] == 0.0 and result["error"] == ""


def test_bad_label_never_raises_keeps_keys_and_warns(caplog: pytest.LogCaptureFixture) -> None:
    """The docs promise a warning for a label that cannot be scored; veRL's hook only put
    the reason in the result's error key, which veRL does not show."""
    for bad in ("not json", '{"env_id": "ToM-Nope-v0", "index": 0}', None, 3):
        caplog.clear()
        with caplog.at_level("WARNING", logger="tomgym.train.verl"):
            result = call("<answer>x</answer>", bad)
        assert set(result) == KEYS and result["score"] == 0.0 and result["error"]
        assert "tomgym veRL reward: cannot score" in caplog.text, bad


def test_numpy_ground_truth_and_positional_call() -> None:
    # Parquet rows come back through numpy object arrays; veRL may also pass extra kwargs.
    result = compute_score(
        "tomgym",
        f"<think>a</think><answer>{gold()}</answer>",
        np.array(LABEL, dtype=object),
        None,
        reward_router_address=None,
    )
    assert result["correct"] == 1.0
