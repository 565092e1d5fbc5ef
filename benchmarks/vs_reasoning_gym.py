"""Cost per item of every generated tomgym env (generate + render + reset + step + reward)
against every reasoning-gym task (create_dataset + item + score_answer), in one process. Medians.

    .venv/bin/python benchmarks/vs_reasoning_gym.py [--items 200] [--repeats 5]
        [--seconds-per-repeat 1.0] [--tasks T ...] [--envs ENV ...] [--results-dir DIR]

Every env that tomgym's registry marks procedural is measured, and every task in
``reasoning_gym.factory.DATASETS``; a task whose dataset cannot be made or run with its default
config (e.g. ``composite``) is recorded as failed, with the reason. reasoning-gym tasks differ
in cost by five orders of magnitude, so each gets an adaptive item count: after a warm-up
(the first ``create_dataset`` may load files) a probe times 5 items (growing 4x while it takes
under a tenth of --seconds-per-repeat), and each repeat then uses
``min(--items, max(5, --seconds-per-repeat / probe cost))`` items, seed 100_000 * (repeat + 1)
(fresh items: reasoning-gym makes item i from Random(seed + i)). Repeats run as rounds, every
env then every task, so the shared machine's drift falls on both sides of the ratio. The gold
answer of some tasks legitimately scores below 1 (non-unique answers), so the share that scored
1.0 is recorded instead of asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import Any

from bench_args import add_results_dir, make_parser, recorded_command

import tomgym
from tomgym.cli_args import positive_float, positive_int
from tomgym.rewards import gold_response

SIX_FIRST_MEASURED = (
    "basic_arithmetic",
    "chain_sum",
    "letter_counting",
    "syllogism",
    "family_relationships",
    "word_sorting",
)
"""The six cheap reasoning-gym tasks this benchmark first compared against (kept for continuity)."""
PROBE_ITEMS = 5
PROBE_STEPS = 4
MIN_ITEMS = 5
WARMUP_SEED = 90_000
PROBE_SEED = 50_000
TOMGYM_PROBE_OFFSET = 10_000


@dataclass
class TaskResult:
    """One reasoning-gym task: items used per repeat, median cost and gold-scored-1.0 share."""

    task: str
    items: int
    probe_us_per_item: float
    us_per_item: float
    gold_scored_1_share: float


@dataclass
class EnvResult:
    """One tomgym env: items per repeat and median cost."""

    task: str
    items: int
    us_per_item: float


def subset(names: list[str], only: Sequence[str] | None, what: str) -> list[str]:
    """``names`` restricted to ``only`` (all of them when None); an unknown name stops the run."""
    if not only:
        return names
    unknown = sorted(set(only) - set(names))
    if unknown:
        raise SystemExit(f"not {what}: {', '.join(unknown)}")
    return [name for name in names if name in only]


def procedural_env_ids(only: Sequence[str] | None) -> list[str]:
    """Every generated env in tomgym's registry (as `tomgym list` shows `procedural`)."""
    ids = [spec.id for spec in tomgym.list_envs() if spec.procedural]
    return subset(ids, only, "generated tomgym envs")


def reasoning_gym_task_names(only: Sequence[str] | None) -> list[str]:
    """Every task registered in reasoning-gym's factory, sorted (optionally a subset)."""
    from reasoning_gym.factory import DATASETS

    return subset(sorted(DATASETS), only, "reasoning-gym tasks")


def tomgym_seconds_per_item(env_id: str, items: int, offset: int) -> float:
    """make + (reset on a fresh index: generate, render) + step with the gold + reward.

    The garbage the previous measurement left is collected first, untimed, on both sides: the
    env measured right after the debiased ones (which draw hundreds of stories an item) was
    otherwise charged for their collection (ToM-ToMi-v0: 130-312 against 65-72 us alone)."""
    gc.collect()
    start = time.perf_counter()
    env = tomgym.make(env_id)
    for index in range(offset, offset + items):
        env.reset(options={"index": index})
        item = env.unwrapped.current_item
        _, reward, *_ = env.step(gold_response(item))
        if reward != env.unwrapped.reward_spec.max_reward:
            raise RuntimeError(f"{env_id} index {index}: the gold response got reward {reward}")
    return (time.perf_counter() - start) / items


def reasoning_gym_run(task: str, items: int, seed: int) -> tuple[float, float]:
    """create_dataset + every entry + score_answer on its gold answer.

    Returns (seconds per item, share of entries whose gold answer scored 1.0).
    Some tasks print (bf's compiler); their stdout goes to os.devnull.
    """
    import reasoning_gym  # a benchmark-only install, so the tomgym side imports without it

    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        gc.collect()  # untimed, as for tomgym's envs
        start = time.perf_counter()
        dataset = reasoning_gym.create_dataset(task, size=items, seed=seed)
        perfect = 0
        for entry in dataset:
            perfect += dataset.score_answer(entry["answer"], entry) == 1.0
        seconds = time.perf_counter() - start
    return seconds / items, perfect / items


def adaptive_items(probe_seconds_per_item: float, max_items: int, seconds: float) -> int:
    """Items per repeat: enough for about `seconds`, at least MIN_ITEMS, at most `max_items`."""
    fitting = int(seconds / probe_seconds_per_item) if probe_seconds_per_item > 0 else max_items
    return min(max_items, max(MIN_ITEMS, fitting))


def failure_reason(exc: BaseException, stage: str) -> str:
    """`stage: ExcType: first line of the message`."""
    lines = str(exc).strip().splitlines()
    reason = f"{stage}: {type(exc).__name__}"
    return f"{reason}: {lines[0]}" if lines else reason


def probe_reasoning_gym(task: str, max_items: int, seconds: float) -> tuple[float, int]:
    """Warm the task up (size-1 dataset), then time probes; -> (s per item, items to use).

    The first probe has PROBE_ITEMS items; while a probe takes under a tenth of `seconds` and
    has fewer than `max_items` items, a probe four times larger follows, so that a task whose
    first few items happened to be cheap (a heavy tail) is not given far too many items.
    """
    reasoning_gym_run(task, 1, WARMUP_SEED)
    size = PROBE_ITEMS
    for step in range(PROBE_STEPS):
        per_item, _ = reasoning_gym_run(task, size, PROBE_SEED + step)
        if per_item * size >= seconds / 10 or size >= max_items:
            break
        size = min(max_items, size * 4)
    return per_item, adaptive_items(per_item, max_items, seconds)


def measure_in_rounds(
    envs: Sequence[str],
    probes: dict[str, tuple[float, int]],
    args: argparse.Namespace,
    failed: dict[str, str],
) -> tuple[list[EnvResult], list[TaskResult]]:
    """``--repeats`` rounds; each round runs every env once, then every task once, on fresh
    items (offset / seed 100_000 * (round + 1)), and each row's figure is its median over the
    rounds. Interleaving keeps the machine's drift (this one is shared) out of the ratio: both
    sides see every minute of the run.

    reasoning-gym makes item i of a dataset from Random(seed + i), so seeds 0, 1, 2, ... would
    share almost every item.
    """
    env_runs: dict[str, list[float]] = {env_id: [] for env_id in envs}
    task_runs: dict[str, list[tuple[float, float]]] = {task: [] for task in probes}
    for r in range(args.repeats):
        fresh = 100_000 * (r + 1)
        for env_id in envs:
            env_runs[env_id].append(tomgym_seconds_per_item(env_id, args.items, fresh))
        for task, (_, items) in probes.items():
            if task in failed:
                continue
            run = guarded(task, "measure", partial(reasoning_gym_run, task, items, fresh), failed)
            if run is not None:
                task_runs[task].append(run)
        print(f"round {r + 1}/{args.repeats} done")
    env_rows = [
        EnvResult(
            task=env_id, items=args.items, us_per_item=round(statistics.median(runs) * 1e6, 1)
        )
        for env_id, runs in env_runs.items()
    ]
    task_rows = [
        TaskResult(
            task=task,
            items=probes[task][1],
            probe_us_per_item=round(probes[task][0] * 1e6, 1),
            us_per_item=round(statistics.median(per for per, _ in runs) * 1e6, 1),
            gold_scored_1_share=round(sum(share for _, share in runs) / len(runs), 3),
        )
        for task, runs in task_runs.items()
        if task not in failed
    ]
    return env_rows, task_rows


def guarded(task: str, stage: str, call: Callable[[], Any], failed: dict[str, str]) -> Any:
    """Run `call`; on an exception record `task` as failed at `stage` and return None."""
    try:
        return call()
    except Exception as exc:  # any task may break under its default config
        failed[task] = failure_reason(exc, stage)
        print(f"reasoning-gym  {task:28s} FAILED ({failed[task]})")
        return None


def probe_all(
    envs: Sequence[str], tasks: Sequence[str], args: argparse.Namespace, failed: dict[str, str]
) -> tuple[float, dict[str, tuple[float, int]]]:
    """Warm up and probe every env and task; -> (tomgym s per item summed, task probes)."""
    tom_probe = 0.0
    for env_id in envs:
        tomgym_seconds_per_item(env_id, 1, TOMGYM_PROBE_OFFSET)
        tom_probe += tomgym_seconds_per_item(env_id, PROBE_ITEMS, TOMGYM_PROBE_OFFSET + 1)
    probes: dict[str, tuple[float, int]] = {}
    for task in tasks:
        probe = guarded(
            task,
            "probe",
            partial(probe_reasoning_gym, task, args.items, args.seconds_per_repeat),
            failed,
        )
        if probe is not None:
            probes[task] = probe
    return tom_probe, probes


def median_or_none(values: Sequence[float]) -> float | None:
    """Median rounded to 0.1, or None for no values."""
    return round(statistics.median(values), 1) if values else None


def ratio_or_none(num: float | None, den: float | None) -> float | None:
    """num / den rounded to 0.01, or None when either is missing."""
    return round(num / den, 2) if num is not None and den else None


def summarise(
    env_rows: list[EnvResult], task_rows: list[TaskResult], failed: dict[str, str]
) -> dict[str, Any]:
    """Medians, both ratios and the share of tasks cheaper than tomgym's median env.

    The six cheap tasks' median is over those of them measured in this run, which
    ``reasoning_gym_six_tasks`` lists (all six in a full run; --tasks may pick fewer)."""
    tom = median_or_none([r.us_per_item for r in env_rows])
    rg = median_or_none([r.us_per_item for r in task_rows])
    measured = {r.task for r in task_rows}
    six_measured = [task for task in SIX_FIRST_MEASURED if task in measured]
    six = median_or_none([r.us_per_item for r in task_rows if r.task in SIX_FIRST_MEASURED])
    cheaper = sum(r.us_per_item < tom for r in task_rows) if tom is not None else 0
    return {
        "tomgym_envs_measured": len(env_rows),
        "tomgym_median_us_per_item": tom,
        "reasoning_gym_tasks_measured": len(task_rows),
        "reasoning_gym_tasks_failed": failed,
        "reasoning_gym_median_us_per_item": rg,
        "ratio_tomgym_over_reasoning_gym": ratio_or_none(tom, rg),
        "reasoning_gym_six_tasks": six_measured,
        "reasoning_gym_six_median_us_per_item": six,
        "ratio_over_six": ratio_or_none(tom, six),
        "share_of_rg_tasks_cheaper_than_tomgym_median": (
            round(cheaper / len(task_rows), 3) if task_rows else None
        ),
        "goal": "ratio_tomgym_over_reasoning_gym <= 1",
    }


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """The human-readable summary, printed and written into the .md."""
    share = summary["share_of_rg_tasks_cheaper_than_tomgym_median"]
    six = summary["reasoning_gym_six_median_us_per_item"]
    lines = [
        f"tomgym median over {summary['tomgym_envs_measured']} generated envs: "
        f"{summary['tomgym_median_us_per_item']} us/item",
        f"reasoning-gym median over {summary['reasoning_gym_tasks_measured']} tasks "
        f"({len(summary['reasoning_gym_tasks_failed'])} failed): "
        f"{summary['reasoning_gym_median_us_per_item']} us/item; "
        f"ratio {summary['ratio_tomgym_over_reasoning_gym']} (goal <= 1)",
    ]
    if six is not None:  # left out when none of the six was measured
        lines.append(
            f"reasoning-gym median over {six_tasks_phrase(summary)}: "
            f"{six} us/item; ratio {summary['ratio_over_six']}"
        )
    lines.append(
        "reasoning-gym tasks cheaper per item than tomgym's median env: "
        + ("n/a" if share is None else f"{share * 100:.0f}%")
    )
    return lines


def six_tasks_phrase(summary: dict[str, Any]) -> str:
    """``the six cheap tasks first measured``, or ``2 of the six cheap tasks first measured
    (a, b)`` when --tasks left some of them out (or they failed)."""
    measured = summary["reasoning_gym_six_tasks"]
    if len(measured) == len(SIX_FIRST_MEASURED):
        return "the six cheap tasks first measured"
    return f"{len(measured)} of the six cheap tasks first measured ({', '.join(measured)})"


def markdown(result: dict[str, Any], lines: list[str]) -> str:
    """The .md report: command, summary, env table, task table by cost, failed tasks."""
    out = [
        f"`{result['command']}` ({result['machine']}, "
        f"reasoning-gym {result['reasoning_gym_version']}, median of "
        f"{result['median_over_repeats']} repeats)",
        "",
        f"Ratio tomgym / reasoning-gym median task: **{result['ratio_tomgym_over_reasoning_gym']}**"
        " (goal <= 1)"
        + (
            f"; against {six_tasks_phrase(result)}: **{result['ratio_over_six']}**."
            if result["reasoning_gym_six_median_us_per_item"] is not None
            else "."
        ),
        "",
        *(f"- {line}" for line in lines),
        "",
        "| tomgym env | items | us per item |",
        "|---|---|---|",
        *(
            f"| `{r['task']}` | {r['items']} | {r['us_per_item']} |"
            for r in result["rows"]
            if r["tool"] == "tomgym"
        ),
        "",
        "| reasoning-gym task | items | us per item | gold scored 1.0 |",
        "|---|---|---|---|",
        *(
            f"| `{r['task']}` | {r['items']} | {r['us_per_item']} | {r['gold_scored_1_share']} |"
            for r in result["rows"]
            if r["tool"] == "reasoning-gym"
        ),
        "",
        "Failed reasoning-gym tasks (default config):",
        "",
        *(f"- `{task}`: {reason}" for task, reason in result["reasoning_gym_tasks_failed"].items()),
    ]
    if not result["reasoning_gym_tasks_failed"]:
        out.append("- none")
    return "\n".join(out) + "\n"


def write_results(result: dict[str, Any], lines: list[str], results_dir: Path) -> None:
    """Write vs_reasoning_gym.json and .md into `results_dir`."""
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "vs_reasoning_gym.json").write_text(json.dumps(result, indent=2) + "\n")
    (results_dir / "vs_reasoning_gym.md").write_text(markdown(result, lines))
    print(f"wrote {results_dir / 'vs_reasoning_gym.json'} and .md")


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--items", type=positive_int, default=200, help="max items per measurement")
    parser.add_argument("--repeats", type=positive_int, default=5)
    parser.add_argument(
        "--seconds-per-repeat",
        type=positive_float,
        default=1.0,
        help="a reasoning-gym repeat gets about this long (at least 5, at most --items items)",
    )
    parser.add_argument("--tasks", nargs="+", help="only these reasoning-gym tasks")
    parser.add_argument("--envs", nargs="+", help="only these generated tomgym envs")
    add_results_dir(parser)
    return parser


def main() -> None:
    """Probe, estimate, measure, print the summary and write the results."""
    parser = build_parser()
    args = parser.parse_args()
    if importlib.util.find_spec("reasoning_gym") is None:
        sys.exit(f"{Path(__file__).name} needs reasoning-gym, a benchmark-only install: "
                 "pip install reasoning-gym==0.1.25")  # fmt: skip
    started = time.perf_counter()
    envs = procedural_env_ids(args.envs)
    tasks = reasoning_gym_task_names(args.tasks)
    failed: dict[str, str] = {}
    tom_probe, probes = probe_all(envs, tasks, args, failed)
    estimate = args.repeats * (
        tom_probe * args.items + sum(per * items for per, items in probes.values())
    )
    print(
        f"probed {len(envs)} envs and {len(tasks)} tasks in {time.perf_counter() - started:.0f} s;"
        f" estimated measurement time {estimate:.0f} s"
    )
    env_rows, task_rows = measure_in_rounds(envs, probes, args, failed)
    for env_row in env_rows:
        print(f"tomgym         {env_row.task:28s} {env_row.us_per_item:10.1f} us/item")
    for row in task_rows:
        print(
            f"reasoning-gym  {row.task:28s} {row.us_per_item:10.1f} us/item "
            f"({row.items} items, gold 1.0: {row.gold_scored_1_share})"
        )
    task_rows.sort(key=lambda r: r.us_per_item)
    summary = summarise(env_rows, task_rows, dict(sorted(failed.items())))
    lines = summary_lines(summary)
    print(*lines, sep="\n")
    elapsed = round(time.perf_counter() - started, 1)
    print(f"total {elapsed} s (estimate was {estimate:.0f} s plus probing)")
    result = {
        "benchmark": "vs_reasoning_gym",
        "command": recorded_command(parser, args),
        "machine": f"{platform.machine()} python {platform.python_version()}",
        "reasoning_gym_version": version("reasoning-gym"),
        "median_over_repeats": args.repeats,
        "max_items": args.items,
        "seconds_per_repeat": args.seconds_per_repeat,
        "wall_seconds": elapsed,
        **summary,
        "rows": [{"tool": "tomgym", **asdict(r)} for r in env_rows]
        + [{"tool": "reasoning-gym", **asdict(r)} for r in task_rows],
    }
    write_results(result, lines, args.results_dir)


if __name__ == "__main__":
    main()
