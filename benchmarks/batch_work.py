"""How much model work a batch order costs: padded prompt tokens and decode steps of the
vs_lm_eval items under lm-eval's order and tomgym's (by tokens, and by characters as before).

A left-padded batch reads every prompt at the batch's longest length and decodes until its
longest answer ends, so the order items are batched in decides the model's work. Completion
lengths come from the texts a vs_lm_eval run generated (identical on both sides).

    TOMGYM_DATA=../shared/data .venv/bin/python benchmarks/batch_work.py \
        [--results benchmarks/results/vs_lm_eval.json] [--batch-size 8]
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import transformers
from bench_args import RESULTS, add_results_dir, input_file, make_parser, recorded_command
from tomgym.agents.hf import smollm2_path
from vs_lm_eval import ENVS, build_docs

import tomgym
from tomgym.cli_args import positive_int


def batch_work(
    order: list[int], prompt_tokens: dict[int, int], completion_tokens: dict[int, int], size: int
) -> tuple[int, int]:
    """(padded prompt tokens, decode steps) of the batches of ``size`` taken in ``order``."""
    padded = steps = 0
    for start in range(0, len(order), size):
        batch = order[start : start + size]
        padded += max(prompt_tokens[i] for i in batch) * len(batch)
        steps += max(completion_tokens[i] for i in batch)
    return padded, steps


def completion_steps(tokenizer: Any, text: str, max_new: int) -> int:
    """Decode steps of one answer: its tokens, plus the end-of-turn token when it stopped early."""
    n = len(tokenizer(text, add_special_tokens=False)["input_ids"])
    return n + 1 if n < max_new else max_new


def orders(
    rows: list[dict[str, Any]], tokens: dict[int, int], chars: dict[int, int]
) -> dict[str, list[int]]:
    """The item orders compared: lm-eval's collator (token length, then the prompt text),
    tomgym's runner with the transformers agent (token length, then index), and tomgym's
    former order by characters."""
    prompt = {r["index"]: r["prompt"] for r in rows}
    keys: dict[str, Callable[[int], tuple[Any, ...]]] = {
        "lm-eval (tokens, then text)": lambda i: (-tokens[i], prompt[i]),
        "tomgym (tokens, then index)": lambda i: (-tokens[i], i),
        "tomgym before (characters)": lambda i: (-chars[i], i),
    }
    return {name: sorted(tokens, key=key) for name, key in keys.items()}


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument(
        "--results",
        type=input_file,
        default=RESULTS / "vs_lm_eval.json",
        help="a vs_lm_eval results file to read (default: benchmarks/results/vs_lm_eval.json)",
    )
    parser.add_argument("--batch-size", type=positive_int, default=8)
    add_results_dir(parser)
    args = parser.parse_args()
    run = json.loads(args.results.read_text())
    max_new = int(run["meta"]["max_new_tokens"])
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(smollm2_path()[0]))
    docs = build_docs(tokenizer, int(run["meta"]["n"]))
    totals: dict[str, list[int]] = {}
    for env_id, rows in docs.items():
        items = {x["index"]: x for x in run["envs"][env_id]["items"]}
        tokens = {
            r["index"]: len(tokenizer(r["prompt"], add_special_tokens=False)["input_ids"])
            for r in rows
        }
        env = tomgym.make(env_id, **ENVS[env_id])
        chars = {i: len(env.reset(options={"index": i})[0]) for i in tokens}
        completion = {
            i: completion_steps(tokenizer, x["tomgym_text"], max_new) for i, x in items.items()
        }
        for name, order in orders(rows, tokens, chars).items():
            padded, steps = batch_work(order, tokens, completion, args.batch_size)
            total = totals.setdefault(name, [0, 0])
            total[0] += padded
            total[1] += steps
    base = totals["lm-eval (tokens, then text)"]
    lines = [
        f"`{recorded_command(parser, args)}`",
        "",
        f"{len(docs)} envs x {run['meta']['n']} items, batch size {args.batch_size}.",
        "",
        "| order | padded prompt tokens | vs lm-eval | decode steps | vs lm-eval |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {p} | {p / base[0]:.3f} | {s} | {s / base[1]:.3f} |"
            for name, (p, s) in totals.items()
        ),
    ]
    print("\n".join(lines))
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "batch_work.md").write_text("\n".join(lines) + "\n")
    (args.results_dir / "batch_work.json").write_text(
        json.dumps(
            {
                "results": str(args.results),
                "batch_size": args.batch_size,
                "orders": {
                    n: {"padded_prompt_tokens": p, "decode_steps": s}
                    for n, (p, s) in totals.items()
                },
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
