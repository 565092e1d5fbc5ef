"""REINFORCE++ on CPU with the bundled SmolLM2-135M: evaluate, train a bounded number of steps,
evaluate again (train env and a held-out env); writes train_cpu.json, .md and .png into --out
(default benchmarks/results).

    .venv/bin/python benchmarks/train_cpu.py [--env ToM-HiToM-O1-v0] [--steps 4] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from bench_args import (
    RESULTS,
    check_env,
    make_parser,
    recorded_command,
    registered_env,
    results_dir,
)
from tomgym.agents.chat import Sampling

from tomgym.cli_args import non_negative_int, positive_float, positive_int
from tomgym.eval import evaluate
from tomgym.rewards import REWARD_PRESETS
from tomgym.train.cpu_loop import LoopConfig, StepLog, Trainer


def evaluate_now(trainer: Trainer, envs: list[str], args: argparse.Namespace) -> dict[str, Any]:
    """Greedy evaluation of the model as it is now (the trainer's agent wraps it in memory)."""
    trainer.agent.sampling = Sampling(
        temperature=0.0, max_new_tokens=args.eval_tokens, batch_size=args.eval_n
    )
    with tempfile.TemporaryDirectory() as out:
        summary = evaluate(
            trainer.agent,
            envs,
            n=args.eval_n,
            out=out,
            split="test",
            env_kwargs=env_kwargs(args),
            quiet=True,
        )
    return {
        env_id: {
            "accuracy": s.accuracy,
            "format_rate": s.format_rate,
            "mean_reward": s.mean_reward,
            "response_tokens_mean": s.response_tokens_mean,
            "n": s.n,
        }
        for env_id, s in summary.envs.items()
    }


def env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The env kwargs of training and evaluation (``--length 0``: the env has no length)."""
    kwargs: dict[str, Any] = {"reward": args.reward}
    if args.length:
        kwargs["length"] = args.length
    return kwargs


def write_markdown(result: dict[str, Any], path: Path) -> None:
    cfg = result["config"]
    lines = [
        "# REINFORCE++ on CPU: SmolLM2-135M-Instruct",
        "",
        f"`{result.get('command', 'python benchmarks/train_cpu.py')}`",
        "",
        f"Train env `{cfg['env_id']}` ({cfg['env_kwargs']}), {cfg['steps']} steps x "
        f"{cfg['prompts_per_step']} prompts x {cfg['samples_per_prompt']} samples, "
        f"{cfg['max_new_tokens']} new tokens, lr {cfg['lr']}, baseline {cfg['baseline']}. "
        f"{result['threads']} torch threads, {result['seconds']:.0f} s in all.",
        "",
        "| step | mean reward | format rate | accuracy | response tokens | loss | grad norm | s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in result["steps"]:
        lines.append(
            f"| {s['step']} | {s['mean_reward']:.3f} | {s['format_rate']:.2f} | "
            f"{s['accuracy']:.2f} | {s['mean_response_tokens']:.1f} | {s['loss']:.4f} | "
            f"{s['grad_norm']:.2f} | {s['seconds']:.0f} |"
        )
    lines += [
        "",
        f"Greedy evaluation, test split, n={result['eval_n']} per env, "
        f"{result['eval_tokens']} new tokens:",
        "",
        "| env | when | accuracy | format rate | mean reward | response tokens |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for when in ("before", "after"):
        for env_id, e in result[when].items():
            lines.append(
                f"| {env_id} | {when} | {e['accuracy']:.2f} | {e['format_rate']:.2f} | "
                f"{e['mean_reward']:.3f} | {e['response_tokens_mean']:.1f} |"
            )
    if all(s["grad_norm"] == 0 for s in result["steps"]):
        lines += [
            "",
            "No sampled response earned any reward, so every REINFORCE++ advantage was 0 and no "
            "update was taken: the model after training is the model before it.",
        ]
    path.write_text("\n".join(lines) + "\n")


def plot(steps: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
    x = [s["step"] for s in steps]
    for ax, keys in zip(
        axes,
        (("mean_reward",), ("format_rate", "accuracy"), ("mean_response_tokens",)),
        strict=False,
    ):
        for key in keys:
            ax.plot(x, [s[key] for s in steps], marker="o", label=key)
        ax.set_xlabel("step")
        ax.legend()
    fig.suptitle("REINFORCE++ on CPU, SmolLM2-135M-Instruct")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--env", type=registered_env, default="ToM-HiToM-O1-v0")
    parser.add_argument("--held-out", type=registered_env, default="ToM-HiToM-O4-v0")
    parser.add_argument(
        "--length", type=non_negative_int, default=1, help="env length kwarg (0: none given)"
    )
    parser.add_argument("--steps", type=positive_int, default=4)
    parser.add_argument("--prompts", type=positive_int, default=2, help="prompts per step")
    parser.add_argument("--k", type=positive_int, default=4, help="samples per prompt")
    parser.add_argument("--tokens", type=positive_int, default=32, help="max new tokens")
    parser.add_argument("--lr", type=positive_float, default=1e-5)
    parser.add_argument(
        "--reward",
        default="rlvr",
        choices=sorted(REWARD_PRESETS),
        help="reward preset (lenient: untagged answers judged whole)",
    )
    parser.add_argument("--baseline", default="none", choices=["none", "group"])
    parser.add_argument("--eval-n", type=positive_int, default=8)
    parser.add_argument("--eval-tokens", type=positive_int, default=32)
    parser.add_argument("--threads", type=positive_int, default=2)
    parser.add_argument(
        "--out",
        type=results_dir,
        default=RESULTS,
        help="the folder train_cpu.json, .md and .png go into (default: benchmarks/results)",
    )
    args = parser.parse_args()
    check_env(parser, args.env, split="train", **env_kwargs(args))  # a kwarg it refuses, no data
    check_env(parser, args.held_out, split="test", **env_kwargs(args))
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    config = LoopConfig(
        env_id=args.env,
        env_kwargs=env_kwargs(args),
        steps=args.steps,
        prompts_per_step=args.prompts,
        samples_per_prompt=args.k,
        max_new_tokens=args.tokens,
        lr=args.lr,
        baseline=args.baseline,
        device="cpu",
    )
    trainer = Trainer(config)
    envs = [args.env, args.held_out]
    before = evaluate_now(trainer, envs, args)
    print("before:", json.dumps(before), flush=True)

    def report(log: StepLog) -> None:
        print(json.dumps(log.as_dict()), flush=True)

    steps = [log.as_dict() for log in trainer.train(report)]
    after = evaluate_now(trainer, envs, args)
    print("after:", json.dumps(after), flush=True)
    result = {
        "config": {k: v for k, v in vars(config).items()},
        "command": recorded_command(parser, args),
        "threads": args.threads,
        "machine": platform.machine(),
        "torch": torch.__version__,
        "eval_n": args.eval_n,
        "eval_tokens": args.eval_tokens,
        "before": before,
        "steps": steps,
        "after": after,
        "seconds": time.perf_counter() - start,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "train_cpu.json").write_text(json.dumps(result, indent=2) + "\n")
    write_markdown(result, args.out / "train_cpu.md")
    plot(steps, args.out / "train_cpu.png")
    print(f"wrote {args.out}/train_cpu.{{json,md,png}} in {result['seconds']:.0f} s")


if __name__ == "__main__":
    main()
