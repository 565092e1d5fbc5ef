"""The ``tomgym export`` and ``tomgym train`` subcommands (wired into ``tomgym.cli``)."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import shlex
import subprocess
import sys
import warnings
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from tomgym.cli_args import (
    add_pairs_option,
    debugging,
    non_negative_float,
    output_path,
    parse_kwargs,
    positive_float,
    positive_int,
)
from tomgym.train.export import (
    FORMATS,
    PARQUET_SUFFIXES,
    STDOUT,
    EvalOnlyError,
    ExportError,
    HeldOutDataWarning,
    export_dataset,
    unique_env_ids,
)
from tomgym.train.openrlhf_cmd import (
    PRESETS,
    GpuLayout,
    Preset,
    build_command,
    detect_gpus,
    eval_sampling,
    preset_estimator,
)
from tomgym.train.run_checks import (
    FINISHED_NOTE,
    RUN_CONFIG,
    check_envs,
    check_not_in_use,
    check_run_dir,
    is_finished,
    training_lock,
    warn_held_out_training,
    warn_selection_on_held_out,
    write_run_config,
)

DEFAULT_PRESET = "paper-2507"
"""The preset of a run given no --preset (--eval-only: the one the run recorded)."""

EXPORT_OPTIONS = {
    "env_ids": "--env",
    "split": "--split",
    "n": "--n",
    "fmt": "--format",
    "out": "--out",
    "allow_eval_only": "--allow-eval-only",
}
"""export_dataset's own arguments, and the option that sets each (not a --kwarg)."""


def cmd_export(args: argparse.Namespace) -> int:
    try:
        kwargs = env_kwargs_of(args.kwarg, EXPORT_OPTIONS)
        path = export_dataset(
            args.env,
            args.split,
            args.n,
            args.format,
            args.out,
            allow_eval_only=args.allow_eval_only,
            **kwargs,
        )
    except (EvalOnlyError, ExportError, ValueError, KeyError) as exc:
        if debugging(args):
            raise
        print(f"tomgym export: error: {exc}", file=sys.stderr)
        return 2
    if str(path) == STDOUT:
        print("wrote the rows to standard output", file=sys.stderr)
        return 0
    if not Path(path).is_file():  # a device or pipe (/dev/stdout): its rows cannot be read back
        print(f"wrote the rows to {path}", file=sys.stderr)
        return 0
    rows = exported_rows(Path(path))
    unique = dict.fromkeys(env_id.removeprefix("tomgym:") for env_id in args.env)
    wanted = args.n * len(unique) if args.n else None  # an ID given twice: warned of, once
    short = (
        f" (fewer than --n {args.n} per env asked: that is every item the env(s) serve here)"
        if wanted is not None and rows < wanted
        else ""
    )
    print(f"wrote {rows} row{'s' if rows != 1 else ''} to {path}{short}")
    return 0


def exported_rows(path: Path) -> int:
    """Rows in an exported file: JSONL lines, or a parquet file's row count."""
    if path.suffix.lower() in PARQUET_SUFFIXES:
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    with path.open(encoding="utf-8") as fh:
        return sum(1 for line in fh if line.strip())


def preset_from_args(args: argparse.Namespace) -> Preset:
    """The named preset with any explicit overrides (--lr, --batch, ...) applied."""
    overrides: dict[str, Any] = {
        field: getattr(args, name, None)
        for name, field in (
            ("lr", "lr"),
            ("batch", "prompts_per_batch"),
            ("rollouts", "rollouts_per_prompt"),
            ("temperature", "temperature"),
            ("epochs", "episodes"),
            ("reward", "reward"),
            ("max_new_tokens", "response_max_tokens"),
            ("max_prompt_tokens", "prompt_max_tokens"),
            ("kl", "kl_coef"),
        )
        if getattr(args, name, None) is not None  # a Namespace built by hand may lack some
    }
    return replace(PRESETS[args.preset or DEFAULT_PRESET], **overrides)


TRAIN_OPTIONS = {"reward": "--reward", "split": "--split", "n": "--n"}
"""Env arguments `tomgym train` sets with its own options (not with --kwarg)."""


def train_env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments every training env is made with: the preset's reward (or
    --reward) and the ``--kwarg KEY=VALUE`` pairs. Eval envs are made with their defaults."""
    kwargs = env_kwargs_of(getattr(args, "kwarg", None) or [], TRAIN_OPTIONS)
    return {"reward": preset_from_args(args).reward, **kwargs}


def env_kwargs_of(pairs: list[str], options: dict[str, str]) -> dict[str, Any]:
    """The ``--kwarg KEY=VALUE`` pairs, refusing a key the command sets with an option of its
    own (``options``: key -> that option)."""
    kwargs = parse_kwargs(pairs)
    clashes = sorted(set(kwargs) & set(options))
    if clashes:
        raise ExportError(
            "use "
            + ", ".join(options[k] for k in clashes)
            + f", not --kwarg {clashes[0]}=...: --kwarg is for the env's own arguments"
        )
    return kwargs


def with_env_kwargs(config: dict[str, Any], env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The run config with the --kwarg pairs recorded (none: the config of runs made before
    --kwarg existed, so rerunning one still resumes it)."""
    extra = {k: v for k, v in env_kwargs.items() if k != "reward"}
    return {**config, "env_kwargs": extra} if extra else config


def resolve_model_path(model: str) -> str:
    """``smollm2`` (the bundled model: its saved copy, made on first use), else a hub ID or
    path as given. Either backend trains the same weights for the same ``--model``."""
    if model.strip() == "smollm2":
        from tomgym.agents.hf import smollm2_path

        return str(smollm2_path()[0])
    return model


def missing_local_model(model: str) -> str | None:
    """Why ``--model`` cannot be the local model it names ("./no_such_model", a file, a folder
    without config.json), None for a hub ID, ``smollm2`` or a model directory. A path is what
    starts with "/", "." or "~", or is there (``models/mine``); a hub ID is ``org/name``."""
    path = Path(model).expanduser()
    if model.strip() == "smollm2":
        return None
    if not model.startswith(("/", ".", "~")) and not path.exists():
        return None  # a hub ID (org/name); a relative path that is there is checked below
    if not path.exists():
        return (
            f"--model {model}: no such directory (a local model is a directory holding its "
            "config.json; a hub ID is written org/name)"
        )
    if not path.is_dir():
        return f"--model {model} is a file: give the model's directory"
    if not (path / "config.json").is_file():  # an empty folder was launched on the trainer
        return (
            f"--model {model} holds no config.json: give the directory a model was saved to "
            "(save_pretrained: config.json, tokenizer and weights)"
        )
    return None


def cmd_train(args: argparse.Namespace) -> int:
    args.train_env = unique_env_ids(args.train_env)  # one pass over each env's items
    args.eval_env = list(dict.fromkeys(args.eval_env))
    # (with --address the run starts on a Ray cluster, whose machines hold its paths; and
    # --eval-only evaluates the checkpoints in --out, not the model trained from)
    skip = getattr(args, "address", None) or getattr(args, "eval_only", False)
    problem = None if skip else missing_local_model(args.model)
    if problem:
        print(f"tomgym train: error: {problem}", file=sys.stderr)
        return 2
    if args.backend == "trl" and not getattr(args, "eval_only", False):
        return _run_trl(args)
    try:
        if getattr(args, "eval_only", False):
            return evaluate_only(args)
        return _train_openrlhf(args)
    except (EvalOnlyError, ExportError, ValueError, KeyError) as exc:
        if debugging(args):
            raise
        print(f"tomgym train: error: {exc}", file=sys.stderr)
        return 2


def _run_trl(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("tomgym.train.trl_backend") is None:
        message = "the trl backend is not available in this install"
        print(f"tomgym train: error: {message}", file=sys.stderr)
        return 2
    module = importlib.import_module("tomgym.train.trl_backend")
    return int(module.run_trl(args))


def steps_per_pass(rows: int, prompts_per_batch: int) -> int:
    """OpenRLHF's training steps in one pass over ``rows`` prompts: it trains on a last, short
    batch too, so ceil(rows / batch) (rows // batch saved a step early, drifting by a step a
    pass)."""
    return max(1, -(-rows // prompts_per_batch))


def _train_openrlhf(args: argparse.Namespace) -> int:
    from tomgym.train.export import check_trainable

    if not args.train_env:
        raise ExportError("give at least one --train-env")
    check_trainable(args.train_env, args.allow_eval_only)
    if args.max_steps is not None:
        raise ValueError("--max-steps is for the trl backend; OpenRLHF runs --epochs passes")
    preset = preset_from_args(args)
    env_kwargs = train_env_kwargs(args)
    # The same checks in a dry run as in a real one: a dry run that passes must not fail later.
    rows = check_envs(
        args.train_env,
        args.eval_env,
        split=args.split,
        eval_split=args.eval_split,
        n=args.n,
        env_kwargs=env_kwargs,
    )
    check_eval_agent(args)
    warn_selection_on_held_out(args.eval_env)
    warn_held_out_training(
        args.train_env, args.split, args.eval_env, args.eval_split, env_kwargs, args.n
    )
    # OpenRLHF loads --model itself: the bundled model's alias is a directory by now.
    model = resolve_model_path(args.model)
    check_training_prompts(
        args,
        model,
        env_kwargs,
        preset.prompt_max_tokens,
        response_tokens=preset.response_max_tokens,
        rows=rows,
    )
    out = Path(args.out).resolve()  # one run however --out is spelt
    gpus = args.gpus if args.gpus is not None else detect_gpus()
    if gpus < 1:
        if not args.dry_run:
            raise ValueError("no CUDA GPU found here: pass --gpus N (e.g. with --address RAY)")
        print("# no GPU found: showing the 1-GPU layout", file=sys.stderr)
        gpus = 1
    layout = GpuLayout.for_gpus(gpus, args.vllm_tp or 1)
    dataset = out / "data" / "train.jsonl"
    save_steps = args.save_steps
    if save_steps is None:  # one checkpoint per pass over the data
        save_steps = steps_per_pass(rows, preset.prompts_per_batch)
    command = build_command(
        model,
        dataset,
        out,
        preset,
        layout,
        estimator=args.estimator or preset_estimator(preset),
        save_steps=save_steps,
        ray_address=args.address,
        python=args.python or sys.executable,
    )
    config = {
        "model": args.model,
        "train_envs": args.train_env,
        "eval_envs": args.eval_env,
        "split": args.split,
        "n": args.n,
        "preset": asdict(preset),
        "estimator": args.estimator or preset_estimator(preset),
        "gpus": asdict(layout),
        "command": command,
    }
    config = with_env_kwargs(config, env_kwargs)
    check_run_dir(out, config)
    files = [dataset, out / RUN_CONFIG, out / "ckpt", out / "final"]
    if args.eval_env:
        files += [out / "eval", out / "best_checkpoint.json"]
    if args.dry_run:
        print(shlex.join(command))
        print("# would write:", *(f"#   {f}" for f in files), sep="\n")
        return 0
    with training_lock(out):
        return _run_openrlhf(args, out, preset, env_kwargs, dataset, config, command)


def _run_openrlhf(
    args: argparse.Namespace,
    out: Path,
    preset: Preset,
    env_kwargs: dict[str, Any],
    dataset: Path,
    config: dict[str, Any],
    command: list[str],
) -> int:
    """The OpenRLHF run itself (export, trainer, checkpoint evaluation), under the lock."""
    if is_finished(out):
        print(FINISHED_NOTE.format(out=out), file=sys.stderr)
        return evaluate_run(args, out, preset) if args.eval_env else 0
    with warnings.catch_warnings():  # warn_held_out_training has said it, as a train option
        warnings.simplefilter("ignore", HeldOutDataWarning)
        export_dataset(
            args.train_env,
            args.split,
            args.n,
            "openrlhf",
            dataset,
            allow_eval_only=args.allow_eval_only,
            **env_kwargs,
        )
    write_run_config(out, config)
    print(shlex.join(command), flush=True)
    code = subprocess.call(command)  # output streams straight to this terminal
    if code != 0:
        print(f"tomgym train: OpenRLHF exited with status {code}", file=sys.stderr)
        return code
    if args.eval_env:
        return evaluate_run(args, out, preset)
    return 0


def check_training_prompts(
    args: argparse.Namespace,
    model: str,
    env_kwargs: dict[str, Any],
    budget: int,
    *,
    response_tokens: int,
    rows: int,
) -> None:
    """Refuse training prompts longer than OpenRLHF's prompt budget (tomgym.train.
    prompt_budget), counted with ``model``'s tokenizer (``--model`` resolved); where it cannot
    be loaded here (a hub model not in the local cache, in a dry run), say that they were not
    counted. First, the two budgets together must fit the model's context (where its config is
    here to say it)."""
    from tomgym.prompts import PREFILL
    from tomgym.train.export import env_rows
    from tomgym.train.prompt_budget import (
        check_context,
        check_prompt_budget,
        hub_offline,
        load_tokenizer,
    )

    check_context(model, budget, response_tokens, shown=args.model)
    tokenizer, why = load_tokenizer(model, offline=True)
    if tokenizer is None and not args.dry_run and not hub_offline():
        tokenizer, why = load_tokenizer(model, offline=False)
    if tokenizer is None:
        print(f"# training prompt lengths not checked: {why}", file=sys.stderr)
        return
    prefill = PREFILL if env_kwargs.get("prefill_think") else ""
    prompts = (
        {**row, "prefill": prefill}
        for env_id in args.train_env
        for row in env_rows(env_id, args.split, args.n, **env_kwargs)
    )
    longest = check_prompt_budget(tokenizer, prompts, budget, total=rows)
    print(f"# longest training prompt: {longest} of {budget} tokens", file=sys.stderr)


def check_eval_agent(args: argparse.Namespace) -> None:
    """Refuse ``--eval-agent vllm`` where vLLM is missing, before training: the evaluation
    after it would fail on it only after hours."""
    wants_vllm = getattr(args, "eval_env", None) and getattr(args, "eval_agent", "vllm") == "vllm"
    if wants_vllm and importlib.util.find_spec("vllm") is None:
        raise ValueError(
            "--eval-agent vllm needs vLLM here (pip install 'tomgym[vllm]'); or --eval-agent hf"
        )


def evaluate_only(args: argparse.Namespace) -> int:
    """``--eval-only``: evaluate the checkpoints of the run in ``--out`` again, without
    training (an evaluation that failed, more eval envs, another --eval-agent). The options
    given now apply (eval envs, split, agent, items, the preset's response budget); the
    training options are not needed. Evaluations already written resume."""
    out = Path(args.out).resolve()
    if not args.eval_env:
        raise ValueError("--eval-only needs at least one --eval-env")
    if not (out / RUN_CONFIG).is_file():
        raise ValueError(f"--eval-only: {out} holds no training run ({RUN_CONFIG} is missing)")
    check_not_in_use(out)  # checkpoints still being written are not evaluated
    check_envs([], args.eval_env, split=None, eval_split=args.eval_split, n=None, env_kwargs={})
    check_eval_agent(args)
    warn_selection_on_held_out(args.eval_env)
    warn_held_out_training([], None, args.eval_env, args.eval_split, {})  # --eval-split test
    stored = json.loads((out / RUN_CONFIG).read_text("utf-8"))
    recorded = stored_preset_name(stored)
    if args.preset is None and recorded is not None:
        args.preset = recorded  # its top-p and budget, as the run's own evaluation used
    elif args.preset is not None and recorded is not None and args.preset != recorded:
        print(
            f"tomgym train: note: the run trained with --preset {recorded}; --eval-only "
            f"evaluates with {args.preset}'s sampling, as asked",
            file=sys.stderr,
        )
    given_budget = getattr(args, "max_new_tokens", None)  # an evaluation budget here
    if given_budget is None:
        budget = stored_response_budget(stored)
        if budget is not None:
            # as the run's own evaluation after training, whose results then resume
            args.max_new_tokens = budget
            sampling = eval_sampling(preset_from_args(args))
            what = f"the run's response budget, {budget} tokens"
            if sampling.max_new_tokens != budget:
                what = (
                    f"{args.preset or DEFAULT_PRESET}'s evaluation budget, "
                    f"{sampling.max_new_tokens} tokens (its "
                    f"paper's; the run trained with {budget})"
                )
            print(
                f"tomgym train: note: --eval-only evaluates with {what}, as the run's own "
                "evaluation did (--max-new-tokens sets another)",
                file=sys.stderr,
            )
    if args.dry_run:
        print(f"# would evaluate the checkpoints under {out} on {', '.join(args.eval_env)}")
        return 0
    with training_lock(out):
        return evaluate_run(args, out, preset_from_args(args), max_new_tokens=given_budget)


def stored_preset_name(config: Any) -> str | None:
    """The preset a run's ``train_config.json`` names (OpenRLHF runs record theirs whole, TRL
    runs its ``preset_name``), None where it names none or one this tomgym does not know."""
    preset = config.get("preset") if isinstance(config, dict) else None
    name = preset.get("name") if isinstance(preset, dict) else None
    if name is None and isinstance(config, dict):
        name = config.get("preset_name")
    return name if isinstance(name, str) and name in PRESETS else None


def stored_response_budget(config: Any) -> int | None:
    """The response budget a run's ``train_config.json`` trained with (OpenRLHF's preset, TRL's
    ``max_completion_length``), None when it records none."""
    for section, key in (("preset", "response_max_tokens"), ("grpo", "max_completion_length")):
        part = config.get(section) if isinstance(config, dict) else None
        value = part.get(key) if isinstance(part, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def evaluate_run(
    args: argparse.Namespace, out: Path, preset: Preset, *, max_new_tokens: int | None = None
) -> int:
    """Evaluate every checkpoint of the run on the eval envs (each into its own resumable
    directory) with the preset's :func:`eval_sampling`, ``max_new_tokens`` its budget where
    given, and record the best on --eval-split in best_checkpoint.json; either backend."""
    from tomgym.train.checkpoints import evaluate_checkpoints, find_checkpoints, write_best

    checkpoints = find_checkpoints(out)
    if not checkpoints:
        print(f"tomgym train: error: no HF checkpoint found under {out}", file=sys.stderr)
        return 1
    sampling = eval_sampling(preset)
    results = evaluate_checkpoints(
        checkpoints,
        args.eval_env,
        out,
        agent=args.eval_agent,
        n=args.eval_n,
        split=args.eval_split,
        temperature=sampling.temperature,
        max_new_tokens=max_new_tokens or sampling.max_new_tokens,
        top_p=sampling.top_p,
    )
    best = write_best(results, out)
    print(f"best checkpoint on {args.eval_split}: {best.path} (accuracy {best.accuracy:.3f})")
    return 0


def add_commands(subparsers: Any) -> None:
    """Add ``export`` and ``train`` to the ``tomgym`` command's subparsers."""
    p = subparsers.add_parser("export", help="write env items as a training dataset")
    p.add_argument("--env", nargs="+", action="extend", required=True, metavar="ID")
    p.add_argument("--split", default="train", help="env split (default: train)")
    p.add_argument("--n", type=positive_int, help="items per env (needed for procedural envs)")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="openrlhf",
        help="row layout (default openrlhf: prompt and label, as OpenRLHF and TRL read)",
    )
    p.add_argument(
        "--out", type=output_path, required=True, help="output file (.jsonl, or .parquet for verl)"
    )
    add_pairs_option(
        p,
        "--kwarg",
        "env keyword argument, also put in every label (repeatable)",
    )
    p.add_argument(
        "--allow-eval-only",
        action="store_true",
        help="export eval-only envs (check the dataset authors' terms first)",
    )
    p.set_defaults(handler=cmd_export)

    p = subparsers.add_parser(
        "train", help="RL-train a model on ToM envs (OpenRLHF on Ray, or TRL on one machine)"
    )
    p.add_argument("--backend", choices=("openrlhf", "trl"), default="openrlhf")
    p.add_argument("--model", required=True, help="HF hub ID or local path")
    p.add_argument(
        "--train-env", nargs="+", action="extend", default=[], metavar="ID", help="envs to train on"
    )
    p.add_argument(
        "--eval-env",
        nargs="+",
        action="extend",
        default=[],
        metavar="ID",
        help="envs every checkpoint is evaluated on (the best is picked on --eval-split)",
    )
    add_pairs_option(
        p,
        "--kwarg",
        "keyword argument of every training env, recorded in its labels (repeatable; "
        "eval envs keep their defaults)",
    )
    p.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default=None,
        help="a paper's training setup (default: paper-2507; with --eval-only, the one the "
        "run recorded), or custom: paper-2507's values "
        "under a name that claims no paper, for a run you change with the options below (they "
        "override any preset)",
    )
    p.add_argument(
        "--estimator",
        choices=("reinforce", "reinforce_baseline", "group_norm"),
        default=None,
        help="advantage estimator (default: the preset's: reinforce, i.e. REINFORCE++, for "
        "paper-2507 and custom; group_norm, i.e. GRPO, for paper-2504); on the trl backend, "
        "group_norm normalises rewards per group and the others over the batch",
    )
    p.add_argument("--gpus", type=positive_int, help="GPUs to use (default: all CUDA devices here)")
    p.add_argument("--vllm-tp", type=positive_int, help="vLLM tensor parallel size (default 1)")
    p.add_argument("--address", help="Ray cluster address: submit with `ray job submit`")
    p.add_argument("--n", type=positive_int, help="training items per env")
    p.add_argument("--split", default="train", help="training split (default: train)")
    p.add_argument(
        "--out", type=output_path, default="runs/train", help="run directory (default: runs/train)"
    )
    p.add_argument(
        "--save-steps", type=positive_int, help="checkpoint every N steps (default: per epoch)"
    )
    p.add_argument(
        "--eval-agent",
        choices=("vllm", "hf"),
        default="vllm",
        help="how checkpoints are evaluated (default: vllm)",
    )
    p.add_argument("--eval-n", type=positive_int, help="items per eval env")
    p.add_argument("--eval-split", default="val", help="split to pick the best checkpoint on")
    p.add_argument(
        "--python", help="interpreter that has OpenRLHF (default: the one running tomgym)"
    )
    p.add_argument(
        "--allow-eval-only",
        action="store_true",
        help="train on eval-only envs (check the dataset authors' terms first)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the command, write nothing")
    p.add_argument(
        "--eval-only",
        action="store_true",
        help="do not train: evaluate the checkpoints of the run in --out again, with the "
        "--eval-* options and preset given now (evaluations already written resume)",
    )
    overrides = p.add_argument_group("preset overrides")
    overrides.add_argument("--lr", type=positive_float)
    overrides.add_argument("--batch", type=positive_int, help="prompts per rollout batch")
    overrides.add_argument("--rollouts", type=positive_int, help="rollouts per prompt")
    overrides.add_argument(
        "--temperature", type=positive_float, help="rollout sampling temperature (above 0)"
    )
    overrides.add_argument("--epochs", type=positive_int)
    overrides.add_argument("--reward", help="env reward preset (rlvr, tomrl, accuracy, lenient)")
    overrides.add_argument(
        "--kl",
        type=non_negative_float,
        help="KL weight (paper-2507: 0.01, paper-2504: 0.001); 0 turns it off and loads no "
        "reference model (a CPU run)",
    )
    overrides.add_argument(
        "--max-new-tokens",
        type=positive_int,
        help="tokens per response (the preset's is 2048; a CPU run wants a few dozen); "
        "checkpoints are evaluated with it too (paper-2504 unchanged: 4096, its paper's); "
        "with --eval-only, the evaluation budget",
    )
    overrides.add_argument(
        "--max-prompt-tokens",
        type=positive_int,
        help="OpenRLHF's prompt budget (the preset's is 1024): a run whose training prompts, "
        "counted with the model's tokenizer, do not fit is refused (OpenRLHF would cut them)",
    )
    p.add_argument(
        "--max-steps",
        type=positive_int,
        help="stop after this many optimizer steps (trl backend; a short CPU run)",
    )
    p.set_defaults(handler=cmd_train)
