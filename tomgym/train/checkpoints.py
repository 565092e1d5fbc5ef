"""Find the HF checkpoints a training run saved, evaluate each on the eval envs, keep the best."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BEST_FILE = "best_checkpoint.json"
_STEP = re.compile(r"(\d+)")


@dataclass(frozen=True)
class CheckpointResult:
    """One checkpoint's validation accuracy (mean over the eval envs' items)."""

    path: str
    step: int | None
    accuracy: float | None
    eval_dir: str


def step_of(path: Path) -> int | None:
    """The global step in a checkpoint's name (``global_step40_hf`` -> 40); None for the final."""
    found = _STEP.findall(path.name)
    return int(found[-1]) if found else None


TRAINER_STATE = "trainer_state.json"
"""What a Trainer (TRL's) writes into ``checkpoint-N`` after the model and optimizer: a
``checkpoint-N`` without it was cut short (interrupted while saving)."""


WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
WEIGHT_INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")


def has_weights(path: Path) -> bool:
    """Whether a saved model's weights are there: one weights file, or every shard its index
    names (transformers writes config.json first, so a save cut short may hold only that)."""
    if any((path / name).is_file() for name in WEIGHT_FILES):
        return True
    for name in WEIGHT_INDEXES:
        try:
            shards = set(
                json.loads((path / name).read_text(encoding="utf-8"))["weight_map"].values()
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        return bool(shards) and all((path / str(shard)).is_file() for shard in shards)
    return False


def is_hf_checkpoint(path: Path) -> bool:
    """A saved model: its config and weights (a final/ whose save was cut short was taken as a
    finished run, and its evaluation failed to load it), and for a Trainer's ``checkpoint-N``
    its trainer state (the model files of a save cut short may be partial)."""
    if not (path.is_dir() and (path / "config.json").is_file() and has_weights(path)):
        return False
    return not path.name.startswith("checkpoint-") or (path / TRAINER_STATE).is_file()


def incomplete_checkpoints(run_dir: Path) -> list[Path]:
    """``checkpoint-N`` directories of a Trainer run that a save left unfinished."""
    return sorted(
        (p for p in run_dir.glob("checkpoint-*") if p.is_dir() and not is_hf_checkpoint(p)),
        key=lambda p: (step_of(p) or 0, p.name),
    )


def reached_max_steps(checkpoint: Path, max_steps: int | None = None) -> bool:
    """Whether a Trainer's ``checkpoint-N`` is the run's last step (its trainer state's
    ``global_step`` at ``max_steps``, or at the state's own where None): resuming from it would
    train past the end (TRL did, a step at learning rate 0, when a run was interrupted before
    saving ``final/``). A run whose ``--max-steps`` was raised passes the new end."""
    try:
        state = json.loads((checkpoint / TRAINER_STATE).read_text(encoding="utf-8"))
        step = int(state["global_step"])
        end = int(state["max_steps"]) if max_steps is None else max_steps
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return end > 0 and step >= end


TRAINING_STATE_FILES = (
    "optimizer.pt",
    "scheduler.pt",
    "rng_state*.pth",
    "scaler.pt",
    TRAINER_STATE,
)
"""What a Trainer's ``checkpoint-N`` holds beside the model ``save_model`` writes."""


def final_from_checkpoint(checkpoint: Path, final: Path) -> None:
    """Write ``final`` as the model of ``checkpoint`` (its files less the optimizer and trainer
    state), through a temporary directory so that an interruption leaves no partial final."""
    import shutil

    partial = final.with_name(final.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(checkpoint, partial, ignore=shutil.ignore_patterns(*TRAINING_STATE_FILES))
    partial.rename(final)


def last_trainer_checkpoint(run_dir: Path) -> Path | None:
    """The last complete ``checkpoint-N`` to resume a Trainer run from (None: start over)."""
    complete = [p for p in run_dir.glob("checkpoint-*") if is_hf_checkpoint(p)]
    return max(complete, key=lambda p: (step_of(p) or 0, p.name), default=None)


def find_checkpoints(run_dir: str | Path) -> list[Path]:
    """HF checkpoints a run saved, by step, then the final model if saved: OpenRLHF's
    ``run_dir/ckpt/global_stepN_hf`` and TRL's ``run_dir/checkpoint-N``."""
    root = Path(run_dir)
    ckpt = root / "ckpt"
    saved = [*(ckpt.glob("*_hf") if ckpt.is_dir() else ()), *root.glob("checkpoint-*")]
    found = sorted(
        (p for p in saved if is_hf_checkpoint(p)),
        key=lambda p: (step_of(p) is None, step_of(p) or 0, p.name),
    )
    final = root / "final"
    if is_hf_checkpoint(final):
        found.append(final)
    return found


Evaluate = Callable[..., Any]


def checkpoint_fingerprint(path: Path) -> str:
    """12 hex digits of the checkpoint's files (names, sizes, sampled contents; see
    ``files_fingerprint``): a new checkpoint saved under an old name (``final``,
    ``global_step40_hf``) gets new ones, a copied or restored one keeps its own."""
    from tomgym.eval.resume import files_fingerprint

    return files_fingerprint(path)[:12]


def timed_fingerprint(path: Path) -> str:
    """The fingerprint tomgym named checkpoint evaluations by before: names, sizes and
    modification times (a copy, or ``touch``, made it another checkpoint)."""
    digest = hashlib.sha256()
    for file in sorted(f for f in path.rglob("*") if f.is_file()):
        stat = file.stat()
        digest.update(f"{file.relative_to(path)}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:12]


def checkpoint_eval_dir(
    run_dir: str | Path,
    path: Path,
    *,
    agent: str = "vllm",
    temperature: float | None = None,
    max_new_tokens: int | None = None,
    split: str = "val",
    top_p: float = 1.0,
) -> Path:
    """Where a checkpoint's evaluation goes: ``run_dir/eval/<name>-<fingerprint>-<settings>``.
    Keyed by name alone, a rerun's new checkpoint resumed the old one's results and was
    'scored' from them without loading a weight; the agent kind, temperature, token budget,
    top-p and eval split (the last two other than the defaults 1.0 and ``val``) are in the
    name, so `--eval-only` with other ones evaluates afresh beside the first. An evaluation
    named by the older, time-based fingerprint of the same files is kept in use."""
    settings = f"{agent}-T{_setting(temperature)}-max{_setting(max_new_tokens)}"
    if top_p != 1.0:  # top-p 1.0's directories predate it in the name
        settings += f"-p{top_p:g}"
    if split != "val":  # val's directories predate the split in the name
        settings += f"-{split}"
    root = Path(run_dir) / "eval"
    older = root / f"{path.name}-{timed_fingerprint(path)}-{settings}"
    if older.is_dir():
        return older
    return root / f"{path.name}-{checkpoint_fingerprint(path)}-{settings}"


def _setting(value: float | None) -> str:
    return "default" if value is None else f"{value:g}"


def evaluate_checkpoints(
    checkpoints: Sequence[Path],
    eval_envs: Sequence[str],
    run_dir: str | Path,
    *,
    agent: str = "vllm",
    n: int | None = None,
    split: str = "val",
    temperature: float | None = None,
    max_new_tokens: int | None = None,
    top_p: float = 1.0,
    evaluate: Evaluate | None = None,
) -> list[CheckpointResult]:
    """Evaluate ``agent:<checkpoint>`` on ``eval_envs`` into :func:`checkpoint_eval_dir`."""
    if evaluate is None:
        from tomgym.eval import evaluate as evaluate_fn

        evaluate = evaluate_fn
    results = []
    for path in checkpoints:
        eval_dir = checkpoint_eval_dir(
            run_dir,
            path,
            agent=agent,
            temperature=temperature,
            max_new_tokens=max_new_tokens,
            split=split,
            top_p=top_p,
        )
        summary = evaluate(
            f"{agent}:{path}",
            envs=list(eval_envs),
            n=n,
            split=split,
            out=eval_dir,
            temperature=temperature,
            max_new_tokens=max_new_tokens,
            agent_options={"top_p": top_p} if top_p != 1.0 else None,
        )
        # A checkpoint whose evaluation is incomplete (failed items) has no accuracy to rank:
        # it was scored on some of the items only.
        whole = summary.complete and not summary.failed_items
        accuracy = summary.accuracy if whole else None
        results.append(CheckpointResult(str(path), step_of(path), accuracy, str(eval_dir)))
    return results


def write_best(results: Sequence[CheckpointResult], run_dir: str | Path) -> CheckpointResult:
    """Record the checkpoint with the best validation accuracy (earliest on ties) in the run dir."""
    scored = [r for r in results if r.accuracy is not None]
    if not scored:
        raise ValueError("no checkpoint has a validation accuracy")
    best = max(scored, key=lambda r: (r.accuracy or 0.0, -results.index(r)))
    record: dict[str, Any] = {"best": asdict(best), "all": [asdict(r) for r in results]}
    Path(run_dir, BEST_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return best
