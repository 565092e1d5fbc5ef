"""``tomgym train --backend trl``: TRL's GRPOTrainer on tomgym prompts, rewards from the env."""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import logging
import shutil
import sys
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from tomgym.train.checkpoints import (
    TRAINER_STATE,
    final_from_checkpoint,
    incomplete_checkpoints,
    last_trainer_checkpoint,
    reached_max_steps,
    step_of,
)
from tomgym.train.commands import (
    check_eval_agent,
    evaluate_run,
    preset_from_args,
    resolve_model_path,
    train_env_kwargs,
    with_env_kwargs,
)
from tomgym.train.export import (
    HeldOutDataWarning,
    check_prefill,
    check_trainable,
    open_export_env,
)
from tomgym.train.openrlhf_cmd import preset_estimator
from tomgym.train.run_checks import (
    FINISHED_NOTE,
    check_envs,
    check_run_dir,
    is_finished,
    training_lock,
    warn_held_out_training,
    warn_openrlhf_only,
    warn_selection_on_held_out,
    write_run_config,
)
from tomgym.train.trl import tom_dataset, tom_reward_funcs


def device_settings() -> dict[str, Any]:
    """``use_cpu`` and ``bf16`` for GRPOConfig from what this machine has.

    TRL's GRPOConfig defaults to ``bf16=True``, which transformers refuses without a GPU
    ("Your setup doesn't support bf16/gpu"): without CUDA train on the CPU in float32, with it
    use bf16 where the GPU supports it.
    """
    try:
        import torch
    except ImportError:
        return {"use_cpu": True, "bf16": False}
    if not torch.cuda.is_available():
        return {"use_cpu": True, "bf16": False}
    return {"use_cpu": False, "bf16": bool(torch.cuda.is_bf16_supported())}


def grpo_settings(args: argparse.Namespace) -> dict[str, Any]:
    """GRPOConfig keyword arguments from the CLI's preset and overrides.

    ``scale_rewards="batch"`` divides by the reward std of the whole batch, as REINFORCE++ does;
    TRL always subtracts the group mean first, so this is REINFORCE++-baseline for
    ``reinforce`` and ``reinforce_baseline`` alike (the loop in ``tomgym.train.cpu_loop`` has
    the plain variant). ``group_norm`` (GRPO, paper-2504's) divides by each group's std
    (``scale_rewards="group"``), as OpenRLHF's estimator of that name does.
    The preset's KL coefficient is TRL's ``beta``: the same weight as on OpenRLHF, but TRL
    always applies it as a loss term (k3), where paper-2507 on OpenRLHF puts it in the reward.
    """
    preset = preset_from_args(args)
    estimator = getattr(args, "estimator", None) or preset_estimator(preset)
    completions = preset.prompts_per_batch * preset.rollouts_per_prompt
    micro = micro_batch(completions)
    settings: dict[str, Any] = {
        "output_dir": str(Path(args.out).resolve()),
        "learning_rate": preset.lr,
        "num_generations": preset.rollouts_per_prompt,
        # One optimizer step per batch of prompts, as on OpenRLHF, taken in micro-batches: all
        # 64-128 completions of a paper preset in one forward and backward pass would not fit
        # a GPU's memory at 3k tokens each (training red team).
        "per_device_train_batch_size": micro,
        "temperature": preset.temperature,
        "top_p": preset.top_p,
        "num_train_epochs": preset.episodes,
        "max_completion_length": preset.response_max_tokens,
        "scale_rewards": "group" if estimator == "group_norm" else "batch",
        "beta": preset.kl_coef or 0.0,
        "logging_steps": 1,
        "report_to": [],
        **device_settings(),
    }
    if completions > micro:  # (TRL's default is 1: a run without accumulation keeps its config)
        settings["gradient_accumulation_steps"] = completions // micro
    if getattr(args, "save_steps", None):
        settings.update(save_strategy="steps", save_steps=args.save_steps)
    if getattr(args, "max_steps", None):
        settings.update(max_steps=args.max_steps)
    if settings["num_generations"] < 2:  # GRPO's group baseline needs two; say so in a dry run
        raise ValueError("the trl backend (GRPO) needs --rollouts of at least 2")
    return settings


def _hide_checkpointing_renames() -> None:
    """Ignore transformers' FutureWarnings that ``gradient_checkpointing*`` is being renamed:
    TRL's own GRPOConfig default and calls raise them, on every run, with nothing for a user to
    change (call inside ``warnings.catch_warnings()``)."""
    warnings.filterwarnings(
        "ignore", message=r"`\w*gradient_checkpointing\w*` is deprecated", category=FutureWarning
    )


MISSING_KEYS_NOTE = "There were missing keys in the checkpoint model loaded: "
"""How transformers' Trainer starts its warning after resuming, the keys following as a list."""


def tied_copies_only(model: Any, keys: Iterable[str]) -> bool:
    """Whether every one of ``keys`` names a parameter that shares its tensor with a parameter
    not among them (``lm_head.weight`` of a model with tied embeddings): a checkpoint saves a
    tied tensor once, and loading it fills every name of that tensor."""
    missing = set(keys)
    names_of: dict[int, set[str]] = {}
    for name, parameter in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(parameter.data_ptr(), set()).add(name)
    tensor_of = {name: pointer for pointer, names in names_of.items() for name in names}
    return bool(missing) and all(
        key in tensor_of and names_of[tensor_of[key]] - missing for key in missing
    )


class _TiedCopiesNotMissing(logging.Filter):
    """Drops the Trainer's missing-keys warning when the keys are only tied copies (see
    :func:`tied_copies_only`); any other missing key still warns."""

    def __init__(self, model: Any) -> None:
        super().__init__()
        self.model = model

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not message.startswith(MISSING_KEYS_NOTE):
            return True
        try:
            keys = ast.literal_eval(message[len(MISSING_KEYS_NOTE) :].strip().rstrip("."))
        except (ValueError, SyntaxError):
            return True
        return not (isinstance(keys, list) and tied_copies_only(self.model, keys))


def learning_rate_from_schedule() -> Any:
    """A TrainerCallback that, once a resumed run has loaded its checkpoint, sets the
    optimizer's learning rate from the schedule at the resumed step.

    A checkpoint's optimizer state holds the rate its own schedule had reached: after a run
    whose ``--max-steps`` was raised (1 -> 3), the first step resumed trained at the old
    schedule's end, learning rate 0, and only the next took the new schedule's. For a plain
    resume the two agree and nothing changes."""
    from transformers import TrainerCallback

    class LearningRateFromSchedule(TrainerCallback):  # type: ignore[misc]
        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            optimizer, scheduler = kwargs.get("optimizer"), kwargs.get("lr_scheduler")
            scheduler = getattr(scheduler, "scheduler", scheduler)  # accelerate's wrapper
            lambdas = getattr(scheduler, "lr_lambdas", None)
            if optimizer is None or scheduler is None or not lambdas:
                return
            step = scheduler.last_epoch
            rates = [
                base * rate(step) for base, rate in zip(scheduler.base_lrs, lambdas, strict=True)
            ]
            for group, rate in zip(optimizer.param_groups, rates, strict=True):
                group["lr"] = rate
            scheduler._last_lr = rates  # what the Trainer logs as the step's learning rate

    return LearningRateFromSchedule()


@contextlib.contextmanager
def quiet_about_tied_copies(model: Any) -> Iterator[None]:
    """Within it, resuming a model with tied embeddings does not warn that its checkpoint
    misses ``lm_head.weight`` (SmolLM2 and Qwen2.5's small models tie them): the weights are
    all there, and a warning on every resume reads as a broken checkpoint."""
    logger = logging.getLogger("transformers.trainer")
    quiet = _TiedCopiesNotMissing(model)
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


TRL_MICRO_BATCH = 8
"""Most completions in one TRL forward and backward pass (per device)."""


def micro_batch(completions: int) -> int:
    """The largest divisor of ``completions`` up to TRL_MICRO_BATCH: micro-batches that add up
    to the whole batch exactly, so one optimizer step still sees every completion."""
    return max(d for d in range(1, min(completions, TRL_MICRO_BATCH) + 1) if completions % d == 0)


class TrlPlan(NamedTuple):
    """What a TRL run will do, checked: GRPOConfig settings, env kwargs, rows, run config."""

    settings: dict[str, Any]
    env_kwargs: dict[str, Any]
    rows: int
    config: dict[str, Any]


def plan_trl_run(args: argparse.Namespace) -> TrlPlan:
    """Every check a TRL run makes before anything is built or run (a dry run makes the same),
    and the run config its directory records; a ValueError (or KeyError) names what is wrong."""
    if not args.train_env:
        raise ValueError("give at least one --train-env")
    settings = grpo_settings(args)
    # The preset's reward (--reward overrides it) and the --kwarg pairs, as for OpenRLHF.
    env_kwargs = train_env_kwargs(args)
    check_trainable(args.train_env, getattr(args, "allow_eval_only", False))
    # A procedural train env needs --n (as for OpenRLHF); a fixed one is used whole.
    eval_envs = list(getattr(args, "eval_env", None) or [])
    eval_split = getattr(args, "eval_split", None)
    rows = check_envs(
        args.train_env, eval_envs, split=args.split, eval_split=eval_split, n=args.n,
        env_kwargs=env_kwargs,
    )  # fmt: skip
    check_eval_agent(args)
    warn_openrlhf_only(args)
    warn_selection_on_held_out(eval_envs)
    warn_held_out_training(args.train_env, args.split, eval_envs, eval_split, env_kwargs, args.n)
    if not getattr(args, "save_steps", None):  # one checkpoint per pass, as for OpenRLHF
        per_pass = max(1, rows // preset_from_args(args).prompts_per_batch)
        settings.update(save_strategy="steps", save_steps=per_pass)
    for env_id in args.train_env:  # a conversational TRL prompt cannot carry the prefill
        env, _ = open_export_env(env_id, args.split, **env_kwargs)
        check_prefill("trl", env_id, env.prefill)
    config = {"backend": "trl", "model": args.model, "train_envs": args.train_env,
              "split": args.split, "n": args.n, "reward": env_kwargs["reward"],
              "preset_name": preset_from_args(args).name, "grpo": settings}  # fmt: skip
    return TrlPlan(settings, env_kwargs, rows, with_env_kwargs(config, env_kwargs))


def run_trl(args: argparse.Namespace) -> int:
    """Train with TRL's ``GRPOTrainer`` (not the CPU loop); 0 on success, 2 on a usage error."""
    out = Path(args.out).resolve()
    try:
        settings, env_kwargs, rows, config = plan_trl_run(args)
        more = check_run_dir(out, config)
        if more is not None:
            ready_to_go_on(out, *more)
            print(
                f"# --out {out} trained to step {more[0]}; this run goes on to --max-steps "
                f"{more[1]} from its last checkpoint",
                file=sys.stderr,
            )
    except (KeyError, ValueError) as exc:
        print(f"tomgym train: error: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "dry_run", False):
        shown = {"backend": "trl", "model": args.model, "env_kwargs": env_kwargs, "grpo": settings}
        print(json.dumps(shown, indent=2))
        return 0
    with training_lock(out):
        if more is not None:
            # final/ is the model of the step trained to, which its checkpoint also holds: the
            # run is no longer finished, and a rerun after an interruption resumes it.
            shutil.rmtree(out / "final", ignore_errors=True)
        return _train_trl(args, out, settings, env_kwargs, rows, config)


def ready_to_go_on(out: Path, before: int, now: int) -> None:
    """Refuse to raise ``--max-steps`` from ``before`` to ``now`` unless the run saved a whole
    checkpoint (weights and training state) at step ``before``: from an earlier one, training
    would redo steps and overwrite the final model of the run trained so far."""
    last = last_trainer_checkpoint(out) if out.is_dir() else None
    if last is None or step_of(last) != before:
        have = f"its last whole checkpoint is {last.name}" if last else "it has no whole checkpoint"
        raise ValueError(
            f"--out {out} trained to step {before}, but {have}: it cannot go on to "
            f"--max-steps {now} from its last step (give --save-steps dividing --max-steps for "
            "a run you may want to extend); use another --out"
        )


def _train_trl(
    args: argparse.Namespace,
    out: Path,
    settings: dict[str, Any],
    env_kwargs: dict[str, Any],
    rows: int,
    config: dict[str, Any],
) -> int:
    """The TRL run itself, under its directory's training lock."""
    if is_finished(out):
        print(FINISHED_NOTE.format(out=out), file=sys.stderr)
        if not getattr(args, "eval_env", None):
            return 0
        return evaluate_run(args, out, preset_from_args(args))
    last = last_trainer_checkpoint(out) if out.is_dir() else None
    if last is not None and reached_max_steps(last, settings.get("max_steps")):
        # interrupted after its last checkpoint but before final/: nothing left to train
        final_from_checkpoint(last, out / "final")
        print(f"{last.name} is the run's last step: saved {out / 'final'} from it")
        if getattr(args, "eval_env", None):
            return evaluate_run(args, out, preset_from_args(args))
        return 0
    try:
        import trl
    except ImportError:
        print("tomgym train: error: the trl backend needs TRL: pip install trl", file=sys.stderr)
        return 2
    with warnings.catch_warnings():  # warn_held_out_training has said it, as a train option
        warnings.simplefilter("ignore", HeldOutDataWarning)
        dataset = tom_dataset(
            args.train_env,
            split=args.split,
            n=args.n if args.n is not None else max(1, rows),  # rows >= every env's size
            allow_eval_only=getattr(args, "allow_eval_only", False),
            **env_kwargs,
        )
    write_run_config(out, config)
    # TRL types a reward as list[float | None]; ours give None only for a row they cannot score.
    reward_funcs: list[Any] = list(tom_reward_funcs())
    with warnings.catch_warnings():
        _hide_checkpointing_renames()
        trainer = trl.GRPOTrainer(
            model=resolve_model_path(args.model),
            reward_funcs=reward_funcs,
            args=trl.GRPOConfig(**settings),
            train_dataset=dataset,
        )
    # A rerun after an interruption goes on from the last checkpoint-N that TRL finished saving
    # (transformers' get_last_checkpoint takes any checkpoint-N, and resuming from one cut
    # short fails on its missing trainer_state.json, on every rerun).
    for partial in incomplete_checkpoints(out) if out.is_dir() else []:
        print(
            f"tomgym train: warning: {partial} was cut short while saving (no {TRAINER_STATE}): "
            "skipped, and replaced when training reaches that step again",
            file=sys.stderr,
        )
    last = last_trainer_checkpoint(out) if out.is_dir() else None
    if last is not None:
        print(f"resuming from {last}", flush=True)
        trainer.add_callback(learning_rate_from_schedule())
    with warnings.catch_warnings(), quiet_about_tied_copies(trainer.model):
        _hide_checkpointing_renames()
        trainer.train(resume_from_checkpoint=str(last) if last is not None else None)
    final = out / "final"
    trainer.save_model(str(final))
    print(f"saved {final}")
    if getattr(args, "eval_env", None):
        # as after an OpenRLHF run: every checkpoint-N and final, the best one recorded
        return evaluate_run(args, out, preset_from_args(args))
    return 0
