"""TRL adapter: dataset rows, reward functions scored by the env, and a tiny real GRPO run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tomgym.train.labels import decode_label, env_for
from tomgym.train.trl import (
    tom_answer_reward,
    tom_dataset,
    tom_format_reward,
    tom_other_reward,
    tom_reward,
    tom_reward_funcs,
)

pytest.importorskip("datasets")


def gold_of(label: str) -> str:
    parsed = decode_label(label)
    env = env_for(parsed)
    env.reset(options={"index": parsed.index})
    assert env.current_item is not None
    return env.current_item.gold_text


def test_dataset_rows() -> None:
    ds = tom_dataset(["ToM-HiToM-O1-v0", "ToM-HiToM-O2-v0"], n=2, length=None)
    assert len(ds) == 4 and {"prompt", "label"} <= set(ds.column_names)
    row = ds[0]
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert decode_label(row["label"]).kwargs == {"split": "train", "length": None}


def test_reward_functions_string_and_conversational() -> None:
    labels = list(tom_dataset("ToM-HiToM-O1-v0", n=1, length=1)["label"]) * 3
    good = f"<think>x</think><answer>{gold_of(labels[0])}</answer>"
    completions: list[Any] = [good, [{"role": "assistant", "content": good}], "no tags"]
    logged: dict[str, float] = {}
    kwargs: dict[str, Any] = {
        "label": labels,
        "trainer_state": None,
        "log_metric": logged.__setitem__,
    }
    assert tom_reward([None] * 3, completions, None, **kwargs) == [1.1, 1.1, 0.0]
    assert tom_format_reward([None] * 3, completions, **kwargs) == [0.1, 0.1, 0.0]
    assert tom_answer_reward([None] * 3, completions, **kwargs) == [1.0, 1.0, 0.0]
    assert logged == pytest.approx({"tom/format_rate": 2 / 3, "tom/accuracy": 2 / 3})
    assert tom_reward_funcs() == [tom_format_reward, tom_answer_reward, tom_other_reward]
    assert tom_other_reward([None] * 3, completions, **kwargs) == [0.0, 0.0, 0.0]
    assert tom_reward_funcs(split_parts=False) == [tom_reward]


def test_missing_label_column_is_explained() -> None:
    with pytest.raises(KeyError, match="label"):
        tom_reward(["p"], ["c"], None, answer=["x"])


@pytest.mark.slow
def test_grpo_trainer_two_steps_on_cpu(tmp_path: Path) -> None:
    """A real GRPOTrainer run with SmolLM2-135M: two steps, tiny settings."""
    trl = pytest.importorskip("trl")
    import torch
    from tomgym.agents.hf import smollm2_path

    torch.set_num_threads(2)
    model_dir, _ = smollm2_path()
    config = trl.GRPOConfig(
        output_dir=str(tmp_path),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=16,
        max_steps=2,
        learning_rate=1e-5,
        scale_rewards="batch",
        logging_steps=1,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        seed=0,
    )
    trainer = trl.GRPOTrainer(
        model=str(model_dir),
        reward_funcs=tom_reward_funcs(),
        args=config,
        train_dataset=tom_dataset("ToM-ToMi-v0", n=4),
    )
    trainer.train()
    logs = [entry for entry in trainer.state.log_history if "reward" in entry]
    assert len(logs) == 2
    assert {"rewards/tom_format_reward/mean", "rewards/tom_answer_reward/mean"} <= set(logs[0])
    assert "tom/format_rate" in logs[0] and "tom/accuracy" in logs[0]
