"""Cost per item of tomgym's generated envs (generate + render + reset + step + reward) against
reasoning-gym's text tasks (create_dataset + item + score_answer), in one process. Medians.

    .venv/bin/python benchmarks/vs_reasoning_gym.py [--items 200] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import reasoning_gym

import tomgym
from tomgym.rewards import gold_response

RESULTS = Path(__file__).resolve().parent / "results"
TOMGYM_ENVS = (
    "ToM-HiToM-v0",
    "ToM-HiToM-O4-v0",
    "ToM-ToMi-v0",
    "ToM-HiToM-O2-Paraphrase-v0",
    "ToM-ToMi-Paraphrase-v0",
    "ToM-HiToM-O2-Debiased-v0",
    "ToM-ToMi-Debiased-v0",
)
RG_TASKS = (
    "basic_arithmetic",
    "chain_sum",
    "letter_counting",
    "syllogism",
    "family_relationships",
    "word_sorting",
)


def tomgym_seconds_per_item(env_id: str, items: int, offset: int) -> float:
    """make + (reset on a fresh index: generate, render) + step with the gold + reward."""
    start = time.perf_counter()
    env = tomgym.make(env_id)
    for index in range(offset, offset + items):
        env.reset(options={"index": index})
        item = env.unwrapped.current_item
        _, reward, *_ = env.step(gold_response(item))
        assert reward == env.unwrapped.reward_spec.max_reward
    return (time.perf_counter() - start) / items


def reasoning_gym_seconds_per_item(task: str, items: int, seed: int) -> float:
    """create_dataset + every entry + score_answer on its gold answer."""
    start = time.perf_counter()
    dataset = reasoning_gym.create_dataset(task, size=items, seed=seed)
    for entry in dataset:
        assert dataset.score_answer(entry["answer"], entry) == 1.0
    return (time.perf_counter() - start) / items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=200, help="items per measurement")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for env_id in TOMGYM_ENVS:
        runs = [
            tomgym_seconds_per_item(env_id, args.items, 100_000 * (r + 1))
            for r in range(args.repeats)
        ]
        rows.append(
            {"tool": "tomgym", "task": env_id, "us_per_item": statistics.median(runs) * 1e6}
        )
    for task in RG_TASKS:
        runs = [reasoning_gym_seconds_per_item(task, args.items, r) for r in range(args.repeats)]
        rows.append(
            {"tool": "reasoning-gym", "task": task, "us_per_item": statistics.median(runs) * 1e6}
        )
    for row in rows:
        row["us_per_item"] = round(row["us_per_item"], 1)
        print(f"{row['tool']:14s} {row['task']:28s} {row['us_per_item']:10.1f} us/item")
    tom = statistics.median(r["us_per_item"] for r in rows if r["tool"] == "tomgym")
    rg = statistics.median(r["us_per_item"] for r in rows if r["tool"] == "reasoning-gym")
    ratio = round(tom / rg, 2)
    print(f"tomgym median {tom:.1f} us / reasoning-gym median {rg:.1f} us = {ratio} (goal <= 1)")
    command = f"python benchmarks/vs_reasoning_gym.py --items {args.items} --repeats {args.repeats}"
    result = {
        "benchmark": "vs_reasoning_gym",
        "command": command,
        "machine": f"{platform.machine()} python {platform.python_version()}",
        "reasoning_gym_version": version("reasoning-gym"),
        "median_over_repeats": args.repeats,
        "tomgym_median_us_per_item": round(tom, 1),
        "reasoning_gym_median_us_per_item": round(rg, 1),
        "ratio_tomgym_over_reasoning_gym": ratio,
        "goal": "ratio <= 1",
        "rows": rows,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "vs_reasoning_gym.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        f"`{command}` ({result['machine']}, reasoning-gym {result['reasoning_gym_version']})",
        "",
        "| tool | env / task | us per item |",
        "|---|---|---|",
        *(f"| {r['tool']} | `{r['task']}` | {r['us_per_item']} |" for r in rows),
        "",
        f"Median item cost: tomgym {tom:.1f} us, reasoning-gym {rg:.1f} us; "
        f"ratio **{ratio}** (goal <= 1).",
    ]
    (RESULTS / "vs_reasoning_gym.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {RESULTS / 'vs_reasoning_gym.json'}")


if __name__ == "__main__":
    main()
