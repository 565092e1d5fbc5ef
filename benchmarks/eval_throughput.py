"""Evaluation throughput with the bundled model on CPU: items/s and generated tokens/s, batched
against one at a time, and the share of wall time spent outside the model (env, verifier,
bookkeeping, result writing). Both modes answer the same prompts greedily in one process.

    .venv/bin/python benchmarks/eval_throughput.py [--n 16] [--batch 8] [--tokens 64]

Writes benchmarks/results/eval_throughput.json and .md, which the README quotes.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench_args import add_results_dir, make_parser, recorded_command, registered_env
from tomgym.agents import Episode, Response, make_agent

from tomgym.cli_args import positive_int
from tomgym.eval import evaluate


class TimedAgent:
    """Wraps an agent and adds up the seconds spent inside its ``act``."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.spec = agent.spec
        self.privileged = agent.privileged
        self.model_seconds = 0.0

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        start = time.perf_counter()
        try:
            return self.agent.act(episodes)
        finally:
            self.model_seconds += time.perf_counter() - start

    def describe(self) -> dict[str, Any]:
        return self.agent.describe()


def measure(agent: Any, env_id: str, n: int, batch: int) -> dict[str, float]:
    timed = TimedAgent(agent)
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        evaluate(timed, envs=[env_id], n=n, out=out, batch_size=batch, quiet=True)
        wall = time.perf_counter() - start
        records = [json.loads(line) for line in (Path(out) / "results.jsonl").open()]
    tokens = sum(r.get("completion_tokens") or 0 for r in records)
    outside = wall - timed.model_seconds
    return {
        "batch_size": batch,
        "items": len(records),
        "wall_s": round(wall, 2),
        "model_s": round(timed.model_seconds, 2),
        "items_per_s": round(len(records) / wall, 3),
        "generated_tokens": tokens,
        "tokens_per_s": round(tokens / wall, 2),
        "outside_model_share": round(outside / wall, 5),
    }


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--env", type=registered_env, default="ToM-HiToM-O1-v0")
    parser.add_argument("--n", type=positive_int, default=16)
    parser.add_argument("--batch", type=positive_int, default=8)
    parser.add_argument("--tokens", type=positive_int, default=64)
    add_results_dir(parser)
    args = parser.parse_args()
    load_start = time.perf_counter()
    agent = make_agent("smollm2", max_new_tokens=args.tokens, batch_size=args.batch)
    load_s = time.perf_counter() - load_start
    rows = []
    for batch in (args.batch, 1):
        agent.sampling = dataclasses.replace(agent.sampling, batch_size=batch)
        row = measure(agent, args.env, args.n, batch)
        rows.append(row)
        print(json.dumps(row))
    batched, single = rows
    result = {
        "benchmark": "eval_throughput",
        "command": recorded_command(parser, args),
        "env": args.env,
        "model": "smollm2 (SmolLM2-135M-Instruct, CPU, greedy)",
        "model_load_s": round(load_s, 2),
        "rows": rows,
        "batched_over_single_items_per_s": round(batched["items_per_s"] / single["items_per_s"], 2),
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "eval_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        f"`{result['command']}` ({result['model']})",
        "",
        "| batch | items | wall s | items/s | generated tokens/s "
        "| share of wall time outside the model |",
        "|---|---|---|---|---|---|",
    ] + [
        f"| {r['batch_size']} | {r['items']} | {r['wall_s']} | {r['items_per_s']} | "
        f"{r['tokens_per_s']} | {100 * r['outside_model_share']:.2f}% |"
        for r in rows
    ]
    lines.append("")
    lines.append(
        f"Batched / one-at-a-time items per second: {result['batched_over_single_items_per_s']}x "
        f"(model load {result['model_load_s']} s, not counted)."
    )
    (args.results_dir / "eval_throughput.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.results_dir / 'eval_throughput.json'}")


if __name__ == "__main__":
    main()
