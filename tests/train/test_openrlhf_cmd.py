"""The OpenRLHF command we build, parsed by OpenRLHF's real train_ppo_ray argument parser."""

from __future__ import annotations

import runpy
import sys
import types
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openrlhf.utils")

from tomgym.train.openrlhf_cmd import AGENT_FILE, PRESETS, GpuLayout, build_command  # noqa: E402


class Parsed(Exception):
    """Raised by the stubbed get_strategy: carries the args train() got after validation."""

    def __init__(self, args: Any) -> None:
        super().__init__("parsed")
        self.parsed = args


def _stub(monkeypatch: pytest.MonkeyPatch, name: str, **attrs: Any) -> None:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    monkeypatch.setitem(sys.modules, name, module)


def openrlhf_parse(command: list[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Run train_ppo_ray as ``__main__`` with only Ray and the vLLM-backed modules stubbed."""
    import openrlhf.utils

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("training started")

    _stub(monkeypatch, "ray", is_initialized=lambda: True, init=never, get=never)
    _stub(monkeypatch, "ray.util")
    _stub(monkeypatch, "ray.util.placement_group", placement_group=never)
    _stub(monkeypatch, "openrlhf.trainer.ray", create_vllm_engines=never)
    _stub(
        monkeypatch,
        "openrlhf.trainer.ray.launcher",
        RayActorGroup=never,
        ReferenceModelActor=object,
        RewardModelActor=object,
    )
    _stub(monkeypatch, "openrlhf.trainer.ray.ppo_actor", PolicyModelActor=object)
    _stub(monkeypatch, "openrlhf.trainer.ray.ppo_critic", CriticModelActor=object)

    def capture(args: Any) -> Any:
        raise Parsed(args)

    monkeypatch.setattr(openrlhf.utils, "get_strategy", capture)
    assert command[1:3] == ["-m", "openrlhf.cli.train_ppo_ray"]
    monkeypatch.setattr(sys, "argv", ["train_ppo_ray.py", *command[3:]])
    with pytest.raises(Parsed) as caught:
        runpy.run_module("openrlhf.cli.train_ppo_ray", run_name="__main__", alter_sys=False)
    return caught.value.parsed


def command(preset: str, gpus: int, tmp_path: Path, **kwargs: Any) -> list[str]:
    return build_command(
        "Qwen/Qwen2.5-0.5B-Instruct",
        tmp_path / "train.jsonl",
        tmp_path,
        PRESETS[preset],
        GpuLayout.for_gpus(gpus),
        **kwargs,
    )


def test_paper_2507_on_one_gpu_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args = openrlhf_parse(command("paper-2507", 1, tmp_path, save_steps=5), monkeypatch)
    assert args.algo.advantage.estimator == "reinforce"
    assert args.actor.adam.lr == 5e-7 and args.rollout.batch_size == 8
    assert args.rollout.n_samples_per_prompt == 8 and args.rollout.temperature == 0.6
    assert args.train.num_episodes == 10 and not args.algo.kl.use_loss
    # the KL is written out (OpenRLHF 0.11's default), so the TRL backend can use the same
    assert "--algo.kl.init_coef" in command("paper-2507", 1, tmp_path)
    assert args.algo.kl.init_coef == 0.01 and args.algo.kl.estimator == "k1"
    assert args.train.colocate_all and args.vllm.num_engines == 1
    assert args.actor.num_gpus_per_node == 1 and args.vllm.tensor_parallel_size == 1
    assert args.train.agent_func_path == str(AGENT_FILE) and Path(AGENT_FILE).is_file()
    assert args.reward.remote_url == ["agent"]  # OpenRLHF's own switch to the agent executor
    assert args.data.input_key == "prompt" and args.data.label_key == "label"
    assert args.data.apply_chat_template and args.ckpt.save_hf and args.ckpt.save_steps == 5
    assert args.critic.model_name_or_path is None  # REINFORCE++: no critic


def test_paper_2504_on_eight_gpus_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = command("paper-2504", 8, tmp_path, estimator="reinforce_baseline")
    args = openrlhf_parse(cmd, monkeypatch)
    assert args.algo.advantage.estimator == "reinforce_baseline"
    assert args.rollout.n_samples_per_prompt == 16 and args.rollout.temperature == 1.0
    assert args.algo.kl.use_loss and args.algo.kl.init_coef == 0.001
    assert args.data.max_len == 1024 + 2048 and args.rollout.max_new_tokens == 2048
    assert args.train.num_episodes == 2 and args.train.batch_size == 128
    assert args.actor.num_gpus_per_node == 8 and args.vllm.num_engines == 8


def test_tensor_parallel_layout_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cmd = build_command(
        "m",
        tmp_path / "d.jsonl",
        tmp_path,
        PRESETS["paper-2507"],
        GpuLayout.for_gpus(8, tensor_parallel=2),
    )
    args = openrlhf_parse(cmd, monkeypatch)
    assert args.vllm.num_engines == 4 and args.vllm.tensor_parallel_size == 2


@pytest.mark.parametrize("old", [["--pretrain", "m"], ["--remote_rm_url", "r.py"]])
def test_old_underscore_flags_are_rejected(
    old: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        openrlhf_parse(command("paper-2507", 1, tmp_path, extra=tuple(old)), monkeypatch)
    assert exited.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_ray_address_wraps_in_a_job_submit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOMGYM_DATA", raising=False)  # no data root: no runtime env to carry
    cmd = command("paper-2507", 8, tmp_path, ray_address="http://head:8265")
    assert Path(cmd[0]).name == "ray"
    assert cmd[1:5] == ["job", "submit", "--address=http://head:8265", "--"]
    assert cmd[5:8] == ["python3", "-m", "openrlhf.cli.train_ppo_ray"]


def test_layout_checks() -> None:
    with pytest.raises(ValueError, match="at least one GPU"):
        GpuLayout.for_gpus(0)
    with pytest.raises(ValueError, match="does not divide"):
        GpuLayout.for_gpus(6, tensor_parallel=4)


@pytest.mark.parametrize("rows", [60, 64, 900])
def test_one_checkpoint_per_pass_counts_openrlhfs_last_short_batch(
    rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """save_steps was rows // batch: OpenRLHF trains on the last short batch too, so 900 rows
    in batches of 8 saved every 112 steps of a 113-step pass (training red team). The steps
    are counted with OpenRLHF's own prompt batching (its module imports vLLM, which has no
    build here: stubbed, as it is not called)."""
    _stub(monkeypatch, "vllm", SamplingParams=object)
    _stub(monkeypatch, "openrlhf.trainer.ray.vllm_engine", batch_vllm_engine_call=None)
    monkeypatch.delitem(sys.modules, "openrlhf.trainer.ppo_utils.samples_generator", raising=False)
    from openrlhf.trainer.ppo_utils.samples_generator import _collect_prompt_batch

    from tomgym.train.commands import steps_per_pass

    batch = 8
    loader = iter([(None, [f"p{i}"], [None], [None]) for i in range(rows)])
    steps = 0
    while True:
        prompts, _, _, exhausted = _collect_prompt_batch(loader, batch)
        steps += bool(prompts)
        if exhausted:
            break
    assert steps_per_pass(rows, batch) == steps


def test_openrlhfs_start_up_refusals_are_said_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dry run passed commands OpenRLHF refuses at start-up (training red team): fewer
    rollout micro-batches than actor processes, and a dataset path with ',' or '@'."""
    from dataclasses import replace

    tiny = replace(PRESETS["paper-2507"], prompts_per_batch=1, rollouts_per_prompt=4)
    layout = GpuLayout.for_gpus(2)
    # 1 x 4 rollouts make 2 micro-batches of 2: enough for 2 actors, OpenRLHF takes it
    argv = build_command("m", tmp_path / "train.jsonl", tmp_path, tiny, layout)
    assert openrlhf_parse(argv, monkeypatch).rollout.n_samples_per_prompt == 4
    with pytest.raises(ValueError, match="make 1 rollout micro-batches of 2, fewer than the 2"):
        build_command("m", tmp_path / "t.jsonl", tmp_path, replace(tiny, rollouts_per_prompt=2),
                      layout)  # fmt: skip
    for mark in ",@":
        with pytest.raises(ValueError, match="give an --out without them"):
            build_command("m", tmp_path / f"a{mark}b" / "train.jsonl", tmp_path, tiny, layout)


def test_a_train_batch_the_gpus_do_not_divide_is_refused_before_it_starts(tmp_path: Path) -> None:
    """Training red team: --gpus 3 built a command with a train batch of 64 (8 prompts x 8
    rollouts), which DeepSpeed refuses once the actors have loaded the model
    ("train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size")."""
    preset = PRESETS["paper-2507"]
    said = "train batch of 64, which 3 GPUs do not divide.*--gpus 2 or 4"
    with pytest.raises(ValueError, match=said):
        build_command("m", tmp_path / "train.jsonl", tmp_path, preset, GpuLayout.for_gpus(3))
    for gpus in (1, 2, 4, 8):
        build_command("m", tmp_path / "train.jsonl", tmp_path, preset, GpuLayout.for_gpus(gpus))
