"""Episodes per second of every generated env (reset + step with the gold answer, reward
included) and of its generator alone, in one process. Medians over repeats; the figures go to
benchmarks/results/env_throughput.json and .md, which the README quotes.

    .venv/bin/python benchmarks/env_throughput.py [--episodes 300] [--repeats 5]
"""

from __future__ import annotations

import functools
import json
import platform
import statistics
import time

from bench_args import add_results_dir, make_parser, recorded_command

import tomgym
from tomgym.cli_args import positive_int
from tomgym.rewards import gold_response
from tomgym.sources import GeneratedSource, split_seed
from tomgym.world.hitom import generate_hitom
from tomgym.world.tomi import generate_tomi


def episodes_per_second(env_id: str, episodes: int, offset: int) -> float:
    env = tomgym.make(env_id)
    start = time.perf_counter()
    for i in range(offset, offset + episodes):
        env.reset(options={"index": i})
        item = env.current_item
        assert item is not None
        _, reward, *_ = env.step(gold_response(item))
        assert reward == env.reward_spec.max_reward
    return episodes / (time.perf_counter() - start)


def generator_per_second(env_id: str, episodes: int, offset: int) -> float:
    """The world generator alone, with the env's own configuration (variants included)."""
    family = tomgym.get_spec(env_id).family
    source = tomgym.make(env_id).source
    assert isinstance(source, GeneratedSource) and isinstance(source.make, functools.partial)
    config, split, seed = source.make.args
    stream = split_seed(family, split, seed)
    generate = generate_hitom if family == "hitom" else generate_tomi
    start = time.perf_counter()
    for i in range(offset, offset + episodes):
        generate(config, stream, i)
    return episodes / (time.perf_counter() - start)


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--episodes", type=positive_int, default=300)
    parser.add_argument("--repeats", type=positive_int, default=5)
    add_results_dir(parser)
    args = parser.parse_args()
    generated = [s.id for s in tomgym.list_envs() if s.procedural and s.family in ("hitom", "tomi")]
    rows = []
    for env_id in generated:
        # Fresh indices each repeat so the item cache never answers for the generator.
        env_runs = [
            episodes_per_second(env_id, args.episodes, 10_000 * (r + 1))
            for r in range(args.repeats)
        ]
        gen_runs = [
            generator_per_second(env_id, args.episodes, 500_000 + 10_000 * r)
            for r in range(args.repeats)
        ]
        env_eps, gen_eps = statistics.median(env_runs), statistics.median(gen_runs)
        rows.append(
            {
                "env_id": env_id,
                "episodes_per_s": round(env_eps, 1),
                "generator_items_per_s": round(gen_eps, 1),
                "env_over_generator_time": round(gen_eps / env_eps, 2),
            }
        )
        print(f"{env_id:18s} env {env_eps:8.1f} episodes/s   generator {gen_eps:8.1f} items/s")
    result = {
        "benchmark": "env_throughput",
        "command": recorded_command(parser, args),
        "machine": f"{platform.machine()} python {platform.python_version()}",
        "median_over_repeats": args.repeats,
        "rows": rows,
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "env_throughput.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        f"`{result['command']}` ({result['machine']}, median of {args.repeats} repeats)",
        "",
        "| env | episodes/s (reset + step + reward) | generator items/s "
        "| env time / generator time |",
        "|---|---|---|---|",
    ] + [
        f"| `{r['env_id']}` | {r['episodes_per_s']} | {r['generator_items_per_s']} | "
        f"{r['env_over_generator_time']} |"
        for r in rows
    ]
    (args.results_dir / "env_throughput.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.results_dir / 'env_throughput.json'}")


if __name__ == "__main__":
    main()
