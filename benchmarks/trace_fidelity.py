"""Trace fidelity of the oracle and the bundled model on a generated env: the share of the
belief claims in each response's reasoning that the simulator confirms, and claims per response.
Results go to benchmarks/results/trace_fidelity.json and .md.

    .venv/bin/python benchmarks/trace_fidelity.py [--env ToM-HiToM-O2-v0] [--n 20]
"""

from __future__ import annotations

import json
import time
from typing import Any

from bench_args import add_results_dir, check_env, make_parser, recorded_command, registered_env

import tomgym
from tomgym.answers import parse_response
from tomgym.cli_args import positive_int
from tomgym.eval.scoring import build_episode
from tomgym.rewards import score_response
from tomgym.trace import safe_trace_fidelity


def run_agent(spec: str, env_id: str, n: int, options: dict[str, Any]) -> dict[str, Any]:
    from tomgym.agents.base import make_agent

    env = tomgym.make(env_id, split="test")
    family = tomgym.get_spec(env_id).family
    agent = make_agent(spec, **options)
    episodes = [build_episode(env, env_id, i, family, agent.privileged) for i in range(n)]
    items = [env.source.item(i) for i in range(n)]
    start = time.perf_counter()
    responses = agent.act(episodes)
    seconds = time.perf_counter() - start
    right = wrong = irrelevant = correct = with_claims = 0
    fidelities = []
    examples: list[dict[str, Any]] = []
    for item, response in zip(items, responses, strict=True):
        think = parse_response(response.text, env.prefill).think or ""
        trace = safe_trace_fidelity(item.story, item.question, think, family)
        right, wrong, irrelevant = (
            right + trace.right,
            wrong + trace.wrong,
            irrelevant + trace.irrelevant,
        )
        correct += score_response(response.text, item, "accuracy", env.prefill).correct
        if trace.fidelity is not None:
            with_claims += 1
            fidelities.append(trace.fidelity)
        if len(examples) < 3:
            examples.append({"response": response.text[:600], "claims": [
                {"agents": list(c.agents), "object": c.obj, "container": c.container, "verdict": v}
                for c, v in trace.claims
            ]})  # fmt: skip
    relevant = right + wrong
    return {
        "agent": spec,
        "n": n,
        "accuracy": correct / n,
        "trace_fidelity": right / relevant if relevant else None,
        "mean_item_fidelity": sum(fidelities) / len(fidelities) if fidelities else None,
        "responses_with_relevant_claims": with_claims,
        "claims_per_response": (relevant + irrelevant) / n,
        "right": right,
        "wrong": wrong,
        "irrelevant": irrelevant,
        "seconds": round(seconds, 1),
        "examples": examples,
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def main() -> int:
    parser = make_parser(__file__, __doc__)
    parser.add_argument(
        "--env", type=registered_env, default="ToM-HiToM-O2-v0", help="an env with a test split"
    )
    parser.add_argument("--n", type=positive_int, default=20, help="test items")
    parser.add_argument("--max-new-tokens", type=positive_int, default=200)
    parser.add_argument("--agents", nargs="+", default=["oracle", "smollm2"], help="agent specs")
    add_results_dir(parser)
    args = parser.parse_args()
    check_env(parser, args.env, split="test")  # a split it lacks, or its data missing
    rows = []
    for spec in args.agents:
        options: dict[str, Any] = {}
        if spec != "oracle":
            options = {"temperature": 0.0, "max_new_tokens": args.max_new_tokens}
        try:
            rows.append(run_agent(spec, args.env, args.n, options))
        except (ImportError, OSError, RuntimeError) as exc:
            rows.append({"agent": spec, "error": f"{type(exc).__name__}: {exc}"})
        print(json.dumps({k: v for k, v in rows[-1].items() if k != "examples"}), flush=True)
    command = recorded_command(parser, args)
    args.results_dir.mkdir(parents=True, exist_ok=True)
    record = {"command": command, "env": args.env, "split": "test", "rows": rows}
    (args.results_dir / "trace_fidelity.json").write_text(json.dumps(record, indent=2) + "\n")
    head = (
        "| agent | n | accuracy | trace fidelity | claims / response | right | wrong | irrelevant |"
    )
    lines = ["# Trace fidelity", "", f"`{command}` (test split, greedy decoding).", "", head,
             "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['agent']} | - | - | - | - | - | - | - |  ({r['error']})")
            continue
        lines.append(
            f"| {r['agent']} | {r['n']} | {_pct(r['accuracy'])} | {_pct(r['trace_fidelity'])} "
            f"| {r['claims_per_response']:.2f} | {r['right']} | {r['wrong']} | {r['irrelevant']} |"
        )
    lines += [
        "",
        "trace fidelity = right / (right + wrong) over the distinct chains claimed about the "
        "question's object (its agent chain, an inner part of it, or reality; a chain given two "
        "containers is wrong, a repeated claim counts once); irrelevant claims are counted apart.",
    ]
    (args.results_dir / "trace_fidelity.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
