"""Checks and warnings a training run passes before anything is built or trained: its run
directory (another run's checkpoints are never resumed), its envs as the run will make them,
and what of the held-out data it would spend."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tomgym.eval.store import RunInProgressError, directory_lock, lock_holder
from tomgym.train.export import ExportError, item_count, open_export_env

RUN_CONFIG = "train_config.json"
TRAIN_LOCK = ".tomgym-train.lock"
"""Held by a training run on its directory while it trains (tomgym.eval.store.directory_lock)."""


@contextlib.contextmanager
def training_lock(out: Path) -> Iterator[None]:
    """Hold ``out`` for this training run: another command on it (a resume, or one taking over
    a directory whose run has saved nothing yet) is refused while it trains."""
    out.mkdir(parents=True, exist_ok=True)
    with directory_lock(out, TRAIN_LOCK, "tomgym training run"):
        yield


def check_not_in_use(out: Path) -> None:
    """Refuse a run directory that a training run (or an --eval-only) holds now: it is
    neither resumed, replaced nor evaluated under it."""
    holder = lock_holder(out, TRAIN_LOCK)
    if holder is not None:
        raise RunInProgressError(
            f"--out {out} is in use by a tomgym training run (process {holder}): wait for it "
            "to finish (then rerun to resume), or use another --out"
        )


def check_run_dir(out: Path, config: dict[str, Any]) -> tuple[int, int] | None:
    """Refuse a run directory that holds another training run (a different train_config.json,
    or checkpoints without one): its checkpoints would be resumed or picked as this run's. The
    same config is a rerun (resumed from its last checkpoint where the backend can). A TRL
    config that differs only in a larger ``--max-steps`` goes on with the run: returned as
    ``(steps trained to, steps now)``, None otherwise."""
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file: give a directory for the run")
    check_not_in_use(out)
    path = out / RUN_CONFIG
    saved = saved_results(out)
    if not path.is_file():
        if saved:
            raise ValueError(
                f"--out {out} holds checkpoints ({', '.join(saved[:3])}) but no {RUN_CONFIG}: "
                "use another --out"
            )
        return None
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        raise ValueError(f"{path} is not valid JSON: use another --out or delete it") from None
    old_out = stored_out_dir(stored)
    if old_out is not None and old_out != str(out):  # the run directory was moved or copied
        stored = relocated(stored, old_out, str(out))
    changed = config_differences(the_runs_identity(stored), the_runs_identity(config))
    more = more_steps(stored, config) if changed and saved else None
    if more is not None:
        return more
    if changed and not saved:
        # A run that failed to start (a trainer refusing its command) saved nothing: the
        # corrected command takes the directory over instead of being told to delete it.
        print(
            f"# --out {out} held a run that saved nothing (its {RUN_CONFIG} differed in "
            f"{'; '.join(changed[:3])}): this run replaces it",
            file=sys.stderr,
        )
        return None
    if changed:
        raise ValueError(
            f"--out {out} holds another training run (its {RUN_CONFIG} differs in "
            f"{'; '.join(changed[:6])}); use another --out, or delete it to start again "
            "(--eval-only evaluates its checkpoints again, on the --eval-env given)"
        )
    return None


def more_steps(stored: Any, config: Any) -> tuple[int, int] | None:
    """``(before, now)`` where a TRL run config asks for nothing but more steps than the stored
    one (``--max-steps`` raised, every other setting the same), else None."""
    before, now = _max_steps(stored), _max_steps(config)
    if before is None or now is None or now <= before:
        return None
    raised = json.loads(json.dumps(stored))
    raised["grpo"]["max_steps"] = now
    if config_differences(the_runs_identity(raised), the_runs_identity(config)):
        return None
    return before, now


def _max_steps(config: Any) -> int | None:
    grpo = config.get("grpo") if isinstance(config, dict) else None
    steps = grpo.get("max_steps") if isinstance(grpo, dict) else None
    return steps if isinstance(steps, int) and not isinstance(steps, bool) and steps > 0 else None


LAUNCHER_PATHS = ("--train.agent_func_path",)
"""Trainer options naming a file of this checkout: a moved checkout is the same run."""


def the_runs_identity(config: Any) -> Any:
    """``config`` as two runs must share it to be one: its trainer ``command`` without how it
    is launched (``ray job submit --address=...``, the interpreter's path, where this checkout
    lies). After a cluster restart at a new address, or from a moved checkout or virtual
    environment, a rerun resumes rather than being refused as another run."""
    config = json.loads(json.dumps(config))
    command = config.get("command") if isinstance(config, dict) else None
    if not isinstance(command, list) or not all(isinstance(a, str) for a in command):
        return config
    if command and Path(command[0]).name == "ray" and "--" in command:
        command = command[command.index("--") + 1 :]
    if len(command) > 1 and command[1] == "-m":
        command = command[1:]  # the interpreter: a path of this machine
    for flag in LAUNCHER_PATHS:
        if flag in command[:-1]:
            at = command.index(flag) + 1
            command[at] = Path(command[at]).name
    config["command"] = command
    return config


def stored_out_dir(stored: Any) -> str | None:
    """The run directory a stored train_config.json was written for (TRL's output_dir, or the
    parent of OpenRLHF's --ckpt.path), None where it does not say."""
    if not isinstance(stored, dict):
        return None
    grpo = stored.get("grpo")
    if isinstance(grpo, dict) and isinstance(grpo.get("output_dir"), str):
        return str(grpo["output_dir"])
    command = stored.get("command")
    if isinstance(command, list) and "--ckpt.path" in command[:-1]:
        return str(Path(command[command.index("--ckpt.path") + 1]).parent)
    return None


def relocated(value: Any, old: str, new: str) -> Any:
    """``value`` with every path under ``old`` moved under ``new``: a run directory moved or
    copied elsewhere is the same run (its config named the old place)."""
    if isinstance(value, dict):
        return {key: relocated(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [relocated(item, old, new) for item in value]
    if isinstance(value, str) and (value == old or value.startswith(old + "/")):
        return new + value[len(old) :]
    return value


def saved_results(out: Path) -> list[str]:
    """What a training run directory holds that a run computed: checkpoints (a ``ckpt`` or
    ``final`` folder with files in it, ``checkpoint-*``) and checkpoint evaluations."""
    if not out.is_dir():
        return []
    found = [
        p.name
        for p in (out / "ckpt", out / "final", out / "eval")
        if p.is_dir() and any(f.is_file() for f in p.rglob("*"))
    ]
    return found + sorted(p.name for p in out.glob("checkpoint-*"))


_ABSENT = object()

NOT_THE_RUNS_IDENTITY = frozenset({"eval_envs", "preset_name"})
"""Config keys a rerun may change: which envs pick the best checkpoint (evaluated after
training, as ``--eval-only`` does) changes nothing the trainer does, nor does the name of a
TRL run's preset, whose training settings are all in ``grpo`` (the name sets the evaluation's
sampling; runs recorded before it resume)."""

DERIVED_KEYS = ("command",)
"""Config keys made from the others (the trainer's argv): named after them, so that a changed
option is named before the command it changes."""


def config_differences(stored: Any, config: Any, where: str = "") -> list[str]:
    """Where two run configs differ, as ``key.sub: old there, new now`` (nested keys and list
    positions named: ``command[12]: "1e-06" there, "2e-06" now``)."""
    if isinstance(stored, dict) and isinstance(config, dict):
        keys = sorted({*stored, *config}, key=lambda k: (k in DERIVED_KEYS, k))
        return [
            difference
            for key in keys
            if not (key in NOT_THE_RUNS_IDENTITY and not where)
            for difference in config_differences(
                stored.get(key, _ABSENT),
                config.get(key, _ABSENT),
                f"{where}.{key}" if where else key,
            )
        ]
    if isinstance(stored, list) and isinstance(config, list) and stored != config:
        if len(stored) == len(config):
            return [
                difference
                for i, (old, new) in enumerate(zip(stored, config, strict=True))
                for difference in config_differences(old, new, f"{where}[{i}]")
            ]
        first = next(
            (i for i, (a, b) in enumerate(zip(stored, config, strict=False)) if a != b),
            min(len(stored), len(config)),
        )
        stored, config, where = stored[first:], config[first:], f"{where}[{first}:]"
    if stored == config:
        return []
    return [f"{where or 'the config'}: {_shown(stored)} there, {_shown(config)} now"]


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "not set"
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def is_finished(out: Path) -> bool:
    """Whether the run saved its final model whole (training again would only add steps). A
    final/ cut short (config.json without the weights) is not finished: the rerun trains on
    from its last checkpoint and saves it again (see ``checkpoints.is_hf_checkpoint``)."""
    from tomgym.train.checkpoints import is_hf_checkpoint

    return is_hf_checkpoint(out / "final")


FINISHED_NOTE = (
    "tomgym train: the run in {out} is finished (final/ is saved): not training again; "
    "--eval-only re-evaluates its checkpoints"
)


OPENRLHF_ONLY = {
    "gpus": "--gpus",
    "vllm_tp": "--vllm-tp",
    "address": "--address",
    "python": "--python",
    "max_prompt_tokens": "--max-prompt-tokens",
}
"""Options the trl backend has no use for (it says so rather than ignoring them)."""


def warn_openrlhf_only(args: argparse.Namespace) -> None:
    """Name the OpenRLHF options a trl run was given: they change nothing there."""
    given = [flag for name, flag in OPENRLHF_ONLY.items() if getattr(args, name, None)]
    if given:
        print(
            f"tomgym train: warning: {', '.join(given)} are OpenRLHF options; the trl backend "
            "ignores them (it trains here, on this machine's devices)",
            file=sys.stderr,
        )


def warn_held_out_training(
    train_envs: list[str],
    split: str | None,
    eval_envs: list[str],
    eval_split: str | None,
    env_kwargs: dict[str, Any],
    n: int | None = None,
) -> None:
    """Say when training (or picking the best checkpoint) spends data that is meant to measure
    generalisation: a held-out env, the test split, an argument serving held-out items."""
    from tomgym.train.export import held_out_notes

    notes = [
        {"the test split": "--split test trains on the test split"}.get(note, note)
        for note in held_out_notes(train_envs, split, env_kwargs, n)
    ]
    notes = [f"--kwarg {n}" if n.endswith("serves held-out items") else n for n in notes]
    if eval_envs and eval_split == "test":
        notes.append("--eval-split test picks the best checkpoint on the test split")
    elif eval_envs and eval_split == "all":  # the whole of an env with splits holds its test
        from tomgym.train.export import test_items_served

        served = [test_items_served(env_id, "all", {}) for env_id in eval_envs]
        notes += [f"--eval-split all picks the best checkpoint on {s}" for s in served if s]
    if notes:
        print(
            f"tomgym train: warning: {'; '.join(notes)}: their scores stop measuring "
            "generalisation for this model",
            file=sys.stderr,
        )
    warn_training_prompt(eval_envs, env_kwargs)


def warn_training_prompt(eval_envs: list[str], env_kwargs: dict[str, Any]) -> None:
    """Say that a prompt set by --kwarg reaches the training envs only: checkpoints are then
    picked under another prompt than the one they were trained on."""
    prompting = sorted(set(env_kwargs) & {"prompt", "prefill_think"})
    if eval_envs and prompting:
        print(
            f"tomgym train: warning: --kwarg {', '.join(prompting)} applies to the training envs "
            "only: checkpoints are evaluated and picked with the eval envs' default prompt",
            file=sys.stderr,
        )


def warn_selection_on_held_out(eval_envs: list[str]) -> None:
    """The best checkpoint is picked on the eval envs: when all are held out, their scores
    are no longer held out (arXiv 2507.15788 selects on in-distribution validation)."""
    from tomgym.registry import get_spec

    if eval_envs and all(get_spec(env_id).held_out for env_id in eval_envs):
        print(
            f"tomgym train: warning: the best checkpoint is picked on {', '.join(eval_envs)}, "
            "all held out: their scores then stop being held out; add an in-distribution "
            "--eval-env (its val split) to pick on, and read held-out envs with tomgym eval",
            file=sys.stderr,
        )


def write_run_config(out: Path, config: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / RUN_CONFIG).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def check_envs(
    train_envs: list[str],
    eval_envs: list[str],
    *,
    split: str | None,
    eval_split: str | None,
    n: int | None,
    env_kwargs: dict[str, Any],
) -> int:
    """Make every train and eval env as the run will (registered, kwargs, split), before anything
    is built or run; returns the number of training rows. Raises ExportError with the reason.

    A procedural train env needs ``n``; an env that takes no split is used without one (with a
    logged note), as the export and the evaluation do.
    """
    rows = 0
    trained: set[str] = set()
    for env_id in train_envs:
        env, _ = open_export_env(env_id, split, **env_kwargs)
        count = item_count(env_id, env.size, n)
        if n is not None and count < n:  # as the export says it (this trained on fewer unseen)
            print(
                f"tomgym train: note: {env_id} serves {count} items here, fewer than --n {n}: "
                f"it trains on those {count}",
                file=sys.stderr,
            )
        rows += count
        trained.update(env.source.item(i).id for i in range(min(count, OVERLAP_PROBE_ITEMS)))
    from tomgym.eval.targets import open_env
    from tomgym.items import SPLITS

    if eval_split is not None and eval_split not in SPLITS:
        # the evaluation after training refuses it: refuse it now, not after hours of training
        raise ExportError(f"--eval-split must be one of {', '.join(SPLITS)}, got {eval_split!r}")
    for env_id in eval_envs:
        try:  # made as tomgym.eval will make it (a held-out split where the asked one is missing)
            eval_env, _ = open_env(env_id, {}, eval_split)
        except (KeyError, TypeError, ValueError) as exc:
            raise ExportError(f"eval env {env_id}: {exc}") from exc
        probe = min(eval_env.size or OVERLAP_PROBE_ITEMS, OVERLAP_PROBE_ITEMS)
        shared = sum(eval_env.source.item(i).id in trained for i in range(probe))
        if shared:  # an env without splits, or a release and its own subset
            print(
                f"tomgym train: warning: eval env {env_id} shares {shared} of its first {probe} "
                "items with the training data: its scores, and the best checkpoint picked on them, "
                "are not held out",
                file=sys.stderr,
            )
    return rows


OVERLAP_PROBE_ITEMS = 5_000
"""Items per env compared by id between the training data and each eval env."""
