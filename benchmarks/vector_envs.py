"""Items per second of ``gym.make_vec`` (sync and async, SAME_STEP autoreset, 1 to 8 envs) against
a plain loop over one env, on one generated env. Medians over repeats; every measurement on
items of its own (fresh seeds).

    .venv/bin/python benchmarks/vector_envs.py [--env ToM-HiToM-v0] [--items 800] [--repeats 3]
"""

from __future__ import annotations

import json
import platform
import statistics
import time
from typing import Any

import gymnasium as gym
from bench_args import add_results_dir, check_env, make_parser, recorded_command, registered_env
from gymnasium.vector import AutoresetMode

import tomgym
from tomgym.cli_args import positive_int
from tomgym.rewards import gold_response

FIXED_RESPONSE = "<think>The answer follows from the story.</think><answer>box</answer>"


def loop_items_per_second(env_id: str, items: int, offset: int, action: str) -> float:
    """One env, reset + step per item: what a hand-written rollout loop does."""
    env = tomgym.make(env_id)
    env.reset(seed=offset)
    start = time.perf_counter()
    for _ in range(items):
        env.reset()
        item = env.unwrapped.current_item
        env.step(gold_response(item) if action == "gold" else FIXED_RESPONSE)
    elapsed = time.perf_counter() - start
    env.close()
    return items / elapsed


def vector_items_per_second(
    env_id: str, mode: str, num_envs: int, items: int, offset: int, action: str
) -> float:
    """``num_envs`` envs stepped together; the env start-up (processes for async) is not timed."""
    envs = gym.make_vec(
        env_id,
        num_envs=num_envs,
        vectorization_mode=mode,
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    envs.reset(seed=offset)
    steps = max(1, items // num_envs)
    start = time.perf_counter()
    for _ in range(steps):
        if action == "gold":
            responses = [gold_response(item) for item in envs.call("current_item")]
        else:
            responses = [FIXED_RESPONSE] * num_envs
        _, rewards, terminated, _, infos = envs.step(responses)
        assert terminated.all()
    elapsed = time.perf_counter() - start
    if action == "gold":
        assert all(infos["final_info"]["correct"])
    envs.close()
    return steps * num_envs / elapsed


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--env", type=registered_env, default="ToM-HiToM-v0")
    parser.add_argument("--items", type=positive_int, default=800, help="items per measurement")
    parser.add_argument("--repeats", type=positive_int, default=3)
    parser.add_argument("--num-envs", type=positive_int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument(
        "--action",
        choices=("fixed", "gold"),
        default="fixed",
        help="one fixed response for every item, or the gold answer (read through envs.call)",
    )
    add_results_dir(parser)
    args = parser.parse_args()
    check_env(parser, args.env)  # its data missing, say
    # Every measurement draws from its own seed: the generated envs cache recent items, so two
    # measurements sharing a seed would serve the second one from the first one's cache.
    # Repeats go round every configuration in turn, so a noisy minute hits them all alike.
    configs = [("loop", 1)] + [(m, n) for m in ("sync", "async") for n in args.num_envs]
    runs: dict[tuple[str, int], list[float]] = {c: [] for c in configs}
    seed = 0
    for _ in range(args.repeats):
        for mode, num_envs in configs:
            seed += 1000  # a vector env seeds its sub-envs seed, seed + 1, ...
            if mode == "loop":
                rate = loop_items_per_second(args.env, args.items, seed, args.action)
            else:
                rate = vector_items_per_second(
                    args.env, mode, num_envs, args.items, seed, args.action
                )
            runs[(mode, num_envs)].append(rate)
    loop = statistics.median(runs[("loop", 1)])
    rows: list[dict[str, Any]] = []
    for mode, num_envs in configs:
        rate = statistics.median(runs[(mode, num_envs)])
        rows.append(
            {
                "mode": mode,
                "num_envs": num_envs,
                "items_per_s": round(rate, 1),
                "over_loop": round(rate / loop, 2),
            }
        )
        print(f"{mode:5s} x{num_envs}: {rate:8.1f} items/s ({rate / loop:.2f} x loop)")
    command = recorded_command(parser, args)
    result = {
        "benchmark": "vector_envs",
        "command": command,
        "machine": f"{platform.machine()} python {platform.python_version()}, "
        f"gymnasium {gym.__version__}",
        "median_over_repeats": args.repeats,
        "rows": rows,
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "vector_envs.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        f"`{command}` ({result['machine']})",
        "",
        "| mode | envs | items/s (reset + step + reward) | / plain loop |",
        "|---|---|---|---|",
    ] + [f"| {r['mode']} | {r['num_envs']} | {r['items_per_s']} | {r['over_loop']} |" for r in rows]
    (args.results_dir / "vector_envs.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.results_dir / 'vector_envs.json'}")


if __name__ == "__main__":
    main()
