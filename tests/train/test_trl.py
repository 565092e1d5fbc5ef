"""TRL adapter: dataset rows, reward functions scored by the env, and a tiny real GRPO run."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tests.train.helpers import readme_items
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


def test_a_malformed_label_gives_none_and_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    good_label = tom_dataset("ToM-HiToM-O1-v0", n=1, length=1)["label"][0]
    good = f"<think>x</think><answer>{gold_of(good_label)}</answer>"
    labels = [good_label, "junk", '{"env_id": "ToM-Nope-v0", "index": 0}']
    logged: dict[str, float] = {}
    kwargs: dict[str, Any] = {"label": labels, "log_metric": logged.__setitem__}
    with caplog.at_level("WARNING", logger="tomgym.train.trl"):
        parts = [f([None] * 3, [good] * 3, None, **kwargs) for f in tom_reward_funcs()]
        total = tom_reward([None] * 3, [good] * 3, None, **kwargs)
    assert parts == [[0.1, None, None], [1.0, None, None], [0.0, None, None]]
    assert total == [1.1, None, None]
    assert "row 1" in caplog.text and "junk" in caplog.text and "row 2" in caplog.text
    assert caplog.text.count("row 1 cannot be scored") == 1  # not once per reward function
    assert logged == {"tom/format_rate": 1.0, "tom/accuracy": 1.0}  # over the scored rows


def test_dataset_of_an_env_without_splits() -> None:
    import tomgym

    items = readme_items(2)
    tomgym.register_tom_env("TestTRL-MyToM-v0", items=items, overwrite=True)
    try:
        ds = tom_dataset("TestTRL-MyToM-v0", n=3)
        assert len(ds) == 2 and decode_label(ds[0]["label"]).kwargs == {}
        rewards = tom_reward(
            [None] * 2, ["<think>t</think><answer>box</answer>"] * 2, None, **{"label": ds["label"]}
        )
        assert rewards == [1.1, 1.1]
    finally:
        tomgym.unregister_tom_env("TestTRL-MyToM-v0")
    with pytest.raises(ValueError, match="at least 1"):
        tom_dataset("ToM-HiToM-O1-v0", n=0)
    with pytest.raises(ValueError, match="prefill_think"):
        tom_dataset("ToM-HiToM-O1-v0", n=1, prefill_think=True)


def test_grpo_settings_follow_the_machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import argparse

    import torch

    trl = pytest.importorskip("trl")
    from tomgym.train.trl_backend import grpo_settings

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    args = argparse.Namespace(
        preset="paper-2507",
        out=str(tmp_path),
        lr=None,
        batch=1,
        rollouts=2,
        temperature=None,
        epochs=None,
        reward=None,
        save_steps=None,
    )
    settings = grpo_settings(args)
    assert settings["use_cpu"] is True and settings["bf16"] is False
    assert settings["beta"] == 0.01  # paper-2507's KL weight, as on OpenRLHF (was 0 here)
    config = trl.GRPOConfig(**settings)  # raised "doesn't support bf16/gpu" on CPU before
    assert config.use_cpu and not config.bf16
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert grpo_settings(args)["bf16"] is True and grpo_settings(args)["use_cpu"] is False


def test_tom_dataset_refuses_eval_only_envs_as_export_does(data_root: Path) -> None:
    from tomgym.train.export import EvalOnlyError

    with pytest.raises(EvalOnlyError, match="eval-only"):
        tom_dataset("ToM-OpenToM-v0", n=2)
    assert len(tom_dataset("ToM-OpenToM-v0", n=2, allow_eval_only=True)) == 2


def test_paper_presets_train_in_micro_batches_of_one_step_per_prompt_batch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """per_device_train_batch_size was prompts x rollouts (64 for paper-2507, 128 for
    paper-2504): one forward and backward pass over every completion, which no GPU holds at 3k
    tokens each (training red team). Micro-batches of at most 8 now add up to the same batch:
    TRL generates and steps on all 64 (128) completions of 8 prompts at once."""
    import argparse

    import torch

    trl = pytest.importorskip("trl")
    from tomgym.train.trl_backend import grpo_settings, micro_batch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for preset, prompts, rollouts in (("paper-2507", 8, 8), ("paper-2504", 8, 16)):
        args = argparse.Namespace(preset=preset, out=str(tmp_path), save_steps=None)
        settings = grpo_settings(args)
        assert settings["per_device_train_batch_size"] == 8
        config = trl.GRPOConfig(**settings)
        assert config.generation_batch_size == prompts * rollouts
        assert config.generation_batch_size // config.num_generations == prompts
    assert [micro_batch(n) for n in (2, 9, 12, 64, 7)] == [2, 3, 6, 8, 7]


def test_resuming_a_model_with_tied_embeddings_does_not_warn_of_missing_keys() -> None:
    """Every TRL resume of SmolLM2 printed "There were missing keys in the checkpoint model
    loaded: ['lm_head.weight']": the checkpoint saves the tied tensor once, under the
    embeddings' name. Only tied copies are quiet; a key whose tensor is really gone still warns.
    (A small module with tied weights stands in for the model: loading SmolLM2 takes 25 s.)"""
    torch = pytest.importorskip("torch")
    from tomgym.train.trl_backend import MISSING_KEYS_NOTE, quiet_about_tied_copies

    class Tied(torch.nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(5, 3)
            self.head = torch.nn.Linear(3, 5, bias=False)
            self.head.weight = self.embed.weight
            self.norm = torch.nn.LayerNorm(3)

    class Kept(logging.Handler):  # transformers' loggers may not propagate to caplog's
        def __init__(self) -> None:
            super().__init__()
            self.messages: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.messages.append(record.getMessage())

    model, kept = Tied(), Kept()
    trainer_log = logging.getLogger("transformers.trainer")
    trainer_log.addHandler(kept)
    try:
        with quiet_about_tied_copies(model):
            trainer_log.warning(f"{MISSING_KEYS_NOTE}['head.weight'].")
            trainer_log.warning(f"{MISSING_KEYS_NOTE}['head.weight', 'embed.weight'].")
            trainer_log.warning(f"{MISSING_KEYS_NOTE}['norm.weight'].")
            trainer_log.warning("There were unexpected keys in the checkpoint model loaded: ['x'].")
        trainer_log.warning(f"{MISSING_KEYS_NOTE}['head.weight'].")  # outside: as before
    finally:
        trainer_log.removeHandler(kept)
    assert kept.messages == [
        f"{MISSING_KEYS_NOTE}['head.weight', 'embed.weight'].",
        f"{MISSING_KEYS_NOTE}['norm.weight'].",
        "There were unexpected keys in the checkpoint model loaded: ['x'].",
        f"{MISSING_KEYS_NOTE}['head.weight'].",
    ]


@pytest.mark.slow
def test_a_trl_run_goes_on_when_max_steps_is_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: a finished TRL run could not be trained further: a larger --max-steps was
    'another training run', refused. Now it goes on from its last checkpoint (a real run of
    the bundled model: one step, then raised to two), on the new schedule's learning rate
    (the first resumed step trained at the old schedule's end, rate 0), and records its
    preset, which --eval-only then uses."""
    pytest.importorskip("trl")
    from tomgym.cli import main
    from tomgym.train import checkpoints

    out = tmp_path / "run"
    argv = ["train", "--backend", "trl", "--model", "smollm2", "--train-env", "ToM-ToMi-v0",
            "--n", "2", "--batch", "1", "--rollouts", "2", "--reward", "lenient",
            "--max-new-tokens", "8", "--save-steps", "1", "--kl", "0", "--preset", "custom",
            "--out", str(out)]  # fmt: skip
    assert main([*argv, "--max-steps", "1"]) == 0
    stored = json.loads((out / "train_config.json").read_text())
    assert stored["preset_name"] == "custom"
    capsys.readouterr()
    assert main([*argv, "--max-steps", "2"]) == 0
    said = capsys.readouterr()
    assert "trained to step 1; this run goes on to --max-steps 2" in said.err
    state = json.loads((out / "checkpoint-2" / checkpoints.TRAINER_STATE).read_text())
    rates = [entry["learning_rate"] for entry in state["log_history"] if "learning_rate" in entry]
    assert state["global_step"] == 2 and len(rates) == 2
    assert rates[1] > 0  # linear decay over 2 steps: half the rate, not the old end's 0
    assert checkpoints.is_hf_checkpoint(out / "final")
    assert main([*argv, "--max-steps", "2"]) == 0
    assert "is finished" in capsys.readouterr().err
