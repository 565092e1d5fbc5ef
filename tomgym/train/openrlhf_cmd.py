"""Build the OpenRLHF REINFORCE++ command (dotted 0.11 flags) for a tomgym dataset, from presets.

Pure functions: nothing here imports OpenRLHF, Ray or vLLM; ``tomgym train`` runs the result.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from tomgym.data import ENV_VAR as DATA_ENV_VAR
from tomgym.env_files import ENV_FILES_VAR, env_files_in_environment

Estimator = Literal["reinforce", "reinforce_baseline", "group_norm"]
GROUP_ESTIMATORS = ("reinforce_baseline", "group_norm")
"""Estimators with a per-prompt baseline: they need more than one rollout per prompt."""
ENTRY_MODULE = "openrlhf.cli.train_ppo_ray"
AGENT_FILE = Path(__file__).with_name("openrlhf_agent.py")


@dataclass(frozen=True)
class Preset:
    """Hyperparameters of one training setup; ``reward`` is the env's reward preset."""

    name: str
    lr: float
    prompts_per_batch: int
    rollouts_per_prompt: int
    temperature: float
    episodes: int
    reward: str
    prompt_max_tokens: int = 1024
    response_max_tokens: int = 2048
    kl_coef: float | None = None  # None: OpenRLHF's default (TRL: no KL)
    kl_use_loss: bool = False
    top_p: float = 1.0


OPENRLHF_DEFAULT_KL = 0.01
"""OpenRLHF 0.11's ``--algo.kl.init_coef`` default (estimator k1, as a penalty in the reward)."""

PRESETS: dict[str, Preset] = {
    # arXiv 2507.15788: REINFORCE++, batch 8, 8 rollouts, lr 5e-7, T 0.6, 10 epochs, rlvr reward.
    # The paper gives no lengths or KL: ToM-RL's lengths and OpenRLHF 0.11's KL default (0.01,
    # a penalty in the reward) are used, the KL written out so that both backends and later
    # OpenRLHF versions train with the same coefficient.
    "paper-2507": Preset(
        name="paper-2507",
        lr=5e-7,
        prompts_per_batch=8,
        rollouts_per_prompt=8,
        temperature=0.6,
        episodes=10,
        reward="rlvr",
        kl_coef=OPENRLHF_DEFAULT_KL,
    ),
    # arXiv 2504.01698 (ToM-RL, veRL GRPO there): batch 8, 16 rollouts, T 1.0, KL loss 0.001,
    # prompt 1024 / response 2048 tokens, 2 epochs, tomrl reward.
    "paper-2504": Preset(
        name="paper-2504",
        lr=5e-7,
        prompts_per_batch=8,
        rollouts_per_prompt=16,
        temperature=1.0,
        episodes=2,
        reward="tomrl",
        kl_coef=0.001,
        kl_use_loss=True,
    ),
}
PRESETS["custom"] = replace(PRESETS["paper-2507"], name="custom")

PRESET_ESTIMATORS: dict[str, Estimator] = {"paper-2504": "group_norm"}
"""The advantage estimator of a preset's paper where it is not REINFORCE++ (``reinforce``):
ToM-RL trained with GRPO, OpenRLHF's ``group_norm`` (rewards normalised within each prompt's
group of rollouts). Kept apart from :class:`Preset`, whose fields a run directory records."""


def preset_estimator(preset: Preset) -> Estimator:
    """The estimator a preset trains with unless ``--estimator`` says otherwise."""
    return PRESET_ESTIMATORS.get(preset.name, "reinforce")


@dataclass(frozen=True)
class EvalSampling:
    """How a run's checkpoints are evaluated (and the best of them picked)."""

    temperature: float
    top_p: float
    max_new_tokens: int


EVAL_TEMPERATURE = 0.6
"""Both papers evaluate at temperature 0.6."""
PAPER_EVAL: dict[str, tuple[float, int]] = {"paper-2504": (0.95, 4096)}
"""A preset's paper's top-p and evaluation budget where they are not 1.0 and the training
response budget: ToM-RL evaluated at top-p 0.95 with up to 4,096 new tokens. Kept apart from
:class:`Preset`, whose fields a run directory records."""


def eval_sampling(preset: Preset) -> EvalSampling:
    """The sampling a preset's checkpoints are evaluated with: temperature 0.6, and the paper's
    top-p and budget (:data:`PAPER_EVAL`) where it has them, else top-p 1.0 and the response
    budget. A response budget changed from the preset's own (a CPU run's ``--max-new-tokens
    48``) is the evaluation budget too: a run that trains on 48 tokens is not evaluated on
    4,096."""
    top_p, budget = 1.0, preset.response_max_tokens
    paper = PAPER_EVAL.get(preset.name)
    if paper is not None:
        top_p = paper[0]
        if preset.response_max_tokens == PRESETS[preset.name].response_max_tokens:
            budget = paper[1]
    return EvalSampling(EVAL_TEMPERATURE, top_p, budget)


ROLLOUT_MICRO_BATCH = 2
"""``--rollout.micro_batch_size``: sequences per rollout forward pass."""


@dataclass(frozen=True)
class GpuLayout:
    """How the GPUs are shared: actor, reference and vLLM engines all colocated (hybrid engine)."""

    gpus: int
    vllm_engines: int
    tensor_parallel: int

    @classmethod
    def for_gpus(cls, gpus: int, tensor_parallel: int = 1) -> GpuLayout:
        if gpus < 1:
            raise ValueError(f"OpenRLHF training needs at least one GPU, got {gpus}")
        if tensor_parallel < 1 or gpus % tensor_parallel:
            raise ValueError(f"vLLM tensor parallel {tensor_parallel} does not divide {gpus} GPUs")
        return cls(gpus=gpus, vllm_engines=gpus // tensor_parallel, tensor_parallel=tensor_parallel)


def detect_gpus() -> int:
    """CUDA devices visible here (0 without torch or CUDA)."""
    try:
        import torch
    except ImportError:
        return 0
    return int(torch.cuda.device_count()) if torch.cuda.is_available() else 0


def _fmt(value: float) -> str:
    return f"{value:g}"


def build_command(
    model: str,
    dataset: str | Path,
    out: str | Path,
    preset: Preset,
    layout: GpuLayout,
    *,
    estimator: Estimator = "reinforce",
    agent_file: str | Path = AGENT_FILE,
    save_steps: int = -1,
    ray_address: str | None = None,
    python: str = "python3",
    extra: tuple[str, ...] = (),
) -> list[str]:
    """The argv of an OpenRLHF REINFORCE++ run on ``dataset`` (an ``openrlhf`` export)."""
    if estimator in GROUP_ESTIMATORS and preset.rollouts_per_prompt < 2:
        raise ValueError(f"{estimator} needs more than one rollout per prompt")
    # Two of OpenRLHF's own start-up refusals, said before a cluster is booked for them.
    if any(mark in str(dataset) for mark in ",@"):
        raise ValueError(
            f"the training data would be at {dataset}: OpenRLHF reads ',' in a dataset path as "
            "a list of datasets and '@' as a split, so give an --out without them"
        )
    micro_batches = preset.prompts_per_batch * preset.rollouts_per_prompt // ROLLOUT_MICRO_BATCH
    if micro_batches < layout.gpus:
        raise ValueError(
            f"{preset.prompts_per_batch} prompts x {preset.rollouts_per_prompt} rollouts a batch "
            f"make {micro_batches} rollout micro-batches of {ROLLOUT_MICRO_BATCH}, fewer than "
            f"the {layout.gpus} actor processes (one per GPU), which OpenRLHF refuses: raise "
            "--batch or --rollouts, or use fewer --gpus"
        )
    rollouts = preset.prompts_per_batch * preset.rollouts_per_prompt
    if rollouts % layout.gpus:  # DeepSpeed: batch = micro batch (1) x accumulation x GPUs
        fits = [g for g in range(1, rollouts + 1) if rollouts % g == 0 and g <= 2 * layout.gpus]
        raise ValueError(
            f"{preset.prompts_per_batch} prompts x {preset.rollouts_per_prompt} rollouts make a "
            f"train batch of {rollouts}, which {layout.gpus} GPUs do not divide: DeepSpeed "
            'refuses it when the actor starts ("train_batch_size is not equal to '
            'micro_batch_per_gpu * gradient_acc_step * world_size"); use --gpus '
            f"{' or '.join(map(str, fits[-2:]))}, or a --batch or --rollouts that {layout.gpus} "
            "divides"
        )
    out = Path(out)
    gpus = str(layout.gpus)
    args = [
        "--actor.model_name_or_path",
        model,
        "--actor.num_nodes",
        "1",
        "--actor.num_gpus_per_node",
        gpus,
        "--ref.num_nodes",
        "1",
        "--ref.num_gpus_per_node",
        gpus,
        "--vllm.num_engines",
        str(layout.vllm_engines),
        "--vllm.tensor_parallel_size",
        str(layout.tensor_parallel),
        "--vllm.gpu_memory_utilization",
        "0.5" if layout.gpus == 1 else "0.6",
        "--vllm.enable_sleep",
        "--ds.enable_sleep",
        "--train.colocate_all",
        "--algo.advantage.estimator",
        estimator,
        "--actor.adam.lr",
        _fmt(preset.lr),
        "--rollout.batch_size",
        str(preset.prompts_per_batch),
        "--rollout.n_samples_per_prompt",
        str(preset.rollouts_per_prompt),
        "--train.batch_size",
        str(rollouts),
        "--train.micro_batch_size",
        "1",
        "--rollout.micro_batch_size",
        str(ROLLOUT_MICRO_BATCH),
        "--rollout.temperature",
        _fmt(preset.temperature),
        "--rollout.top_p",
        _fmt(preset.top_p),
        "--train.num_episodes",
        str(preset.episodes),
        "--train.max_epochs",
        "1",
        "--data.max_len",
        str(preset.prompt_max_tokens + preset.response_max_tokens),
        "--rollout.max_new_tokens",
        str(preset.response_max_tokens),
        "--data.prompt_dataset",
        str(dataset),
        "--data.input_key",
        "prompt",
        "--data.label_key",
        "label",
        "--data.apply_chat_template",
        "--train.agent_func_path",
        str(agent_file),
        "--ds.zero_stage",
        "2",
        "--ds.param_dtype",
        "bf16",
        "--actor.gradient_checkpointing_enable",
        "--ckpt.output_dir",
        str(out / "final"),
        "--ckpt.path",
        str(out / "ckpt"),
        "--ckpt.save_hf",
        "--ckpt.save_steps",
        str(save_steps),
        "--ckpt.load_enable",  # a rerun after a crash resumes from ckpt/ (when it holds one)
        "--logger.tensorboard_dir",
        str(out / "tensorboard"),
    ]
    if preset.kl_coef is not None:
        args += ["--algo.kl.init_coef", _fmt(preset.kl_coef)]
    if preset.kl_use_loss and preset.kl_coef:  # a zero weight (--kl 0) is no KL at all
        args += ["--algo.kl.use_loss", "--algo.kl.estimator", "k3"]
    command = [python, "-m", ENTRY_MODULE, *args, *extra]
    if ray_address:
        command = [ray_cli(), "job", "submit", f"--address={ray_address}", *job_runtime_env(),
                   "--", *command]  # fmt: skip
    return command


def ray_cli() -> str:
    """Ray's command line from tomgym's own environment (where ``tomgym[train]`` put it), so
    that ``.venv/bin/tomgym train --address ...`` works without activating the environment;
    else ``ray`` on the PATH."""
    beside = Path(sys.executable).with_name("ray")
    return str(beside) if beside.is_file() else "ray"


def job_runtime_env() -> list[str]:
    """``--runtime-env-json`` carrying the data root ($TOMGYM_DATA, which --data-dir sets) and
    the env files ($TOMGYM_ENV_FILES, which --env-file sets) to a job submitted to a Ray
    cluster: its reward workers rebuild release envs' episodes from the files there and make
    a data file's env from its env file; without them every such row scored the minimum,
    logged only as a warning. The paths must be readable on the cluster's nodes (a shared file
    system)."""
    env_vars: dict[str, str] = {}
    root = os.environ.get(DATA_ENV_VAR)
    if root:
        env_vars[DATA_ENV_VAR] = str(Path(root).absolute())
    env_files = env_files_in_environment()
    if env_files:
        env_vars[ENV_FILES_VAR] = os.pathsep.join(str(Path(f).absolute()) for f in env_files)
    if not env_vars:
        return []
    return [f"--runtime-env-json={json.dumps({'env_vars': env_vars})}"]
