"""The same Hi-ToM items, prompts and greedy budget through lm-eval (custom generate_until task)
and through ``tomgym.eval.evaluate``: wall time, generated texts item by item, and scoring.

    TOMGYM_DATA=/work/shared/data .venv/bin/python benchmarks/vs_lm_eval.py [--n 20] [--out OUT]

Writes OUT.json and OUT.md (default OUT: benchmarks/results/vs_lm_eval).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import re
import string
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import torch
import transformers
from bench_args import RESULTS, make_parser, recorded_command, results_prefix
from tomgym.agents.hf import smollm2_path

import tomgym
from tomgym.cli_args import positive_int

ENVS: dict[str, dict[str, Any]] = {
    "ToM-HiToM-O1-v0": {"split": "test"},
    "ToM-HiToM-Original-v0": {},  # the release has no split kwarg
}
ANSWER_REGEX = r"<answer>\s*(.*?)\s*</answer>"
TASK_PREFIX = "tomgym_vs_"
MAX_SHOWN = 25


def build_docs(tokenizer: Any, n: int) -> dict[str, list[dict[str, Any]]]:
    """Per env, items 0..n-1 as {index, prompt (chat-templated), answer}: built by tomgym."""
    docs: dict[str, list[dict[str, Any]]] = {}
    for env_id, kwargs in ENVS.items():
        env = tomgym.make(env_id, **kwargs)
        rows = []
        for index in range(n):
            _, info = env.reset(options={"index": index})
            prompt = tokenizer.apply_chat_template(
                info["messages"], tokenize=False, add_generation_prompt=True
            )
            prompt += info.get("prefill") or ""
            rows.append(
                {
                    "index": index,
                    "prompt": prompt,
                    "answer": env.unwrapped.current_item.answer,
                    "candidates": info["candidates"],
                }
            )
        docs[env_id] = rows
    return docs


def task_name(env_id: str) -> str:
    return TASK_PREFIX + re.sub(r"\W", "_", env_id.lower())


def flexible_regex(rows: list[dict[str, Any]]) -> str:
    """lm-eval's usual lenient extraction (like gsm8k's flexible-extract): the first word of
    the text that is one of the env's answer candidates, tags or not."""
    names = sorted({c for r in rows for c in r["candidates"]}, key=len, reverse=True)
    return r"\b(" + "|".join(re.escape(n) for n in names) + r")\b"


def write_tasks(directory: Path, docs: dict[str, list[dict[str, Any]]], max_new: int) -> None:
    """One YAML task per env over a local JSONL: generate_until; raw, `<answer>` regex and
    flexible (first candidate named) filters; exact_match."""
    import yaml

    for env_id, rows in docs.items():
        data = directory / f"{task_name(env_id)}.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in rows))
        config = {
            "task": task_name(env_id),
            "dataset_path": "json",
            "dataset_kwargs": {"data_files": {"test": str(data)}},
            "test_split": "test",
            "output_type": "generate_until",
            "doc_to_text": "{{prompt}}",
            "doc_to_target": "{{answer}}",
            "target_delimiter": "",
            "generation_kwargs": {
                "until": ["<|im_end|>"],
                "do_sample": False,
                "max_gen_toks": max_new,
            },
            "filter_list": [
                {"name": "raw", "filter": [{"function": "take_first"}]},
                {
                    "name": "answer_tag",
                    "filter": [
                        {
                            "function": "regex",
                            "regex_pattern": ANSWER_REGEX,
                            "group_select": 0,
                            "fallback": "[no answer]",
                        },
                        {"function": "take_first"},
                    ],
                },
                {
                    "name": "flexible",
                    "filter": [
                        {
                            "function": "regex",
                            "regex_pattern": flexible_regex(rows),
                            "group_select": 0,
                            "fallback": "[no answer]",
                        },
                        {"function": "take_first"},
                    ],
                },
            ],
            "metric_list": [
                {
                    "metric": "exact_match",
                    "aggregation": "mean",
                    "higher_is_better": True,
                    "ignore_case": True,
                    "ignore_punctuation": True,
                }
            ],
            "metadata": {"version": 1.0},
        }
        (directory / f"{task_name(env_id)}.yaml").write_text(yaml.safe_dump(config))


def run_lm_eval(
    model_dir: str, docs: dict[str, list[dict[str, Any]]], max_new: int, batch_size: int
) -> dict[str, Any]:
    """simple_evaluate on the custom tasks; prompts already templated, so no chat template."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    with tempfile.TemporaryDirectory(prefix="vs_lm_eval_tasks_") as tmp:
        write_tasks(Path(tmp), docs, max_new)
        start = time.perf_counter()
        out = lm_eval.simple_evaluate(
            model="hf",
            model_args=f"pretrained={model_dir},dtype=float32,device=cpu",
            tasks=[task_name(e) for e in docs],
            task_manager=TaskManager(include_path=tmp),
            batch_size=batch_size,
            log_samples=True,
            apply_chat_template=False,
            random_seed=0,
            numpy_random_seed=0,
            torch_random_seed=0,
            fewshot_random_seed=0,
        )
        seconds = time.perf_counter() - start
    per_env: dict[str, Any] = {}
    for env_id in docs:
        samples = out["samples"][task_name(env_id)]
        by_filter: dict[str, dict[int, dict[str, Any]]] = {}
        for s in samples:
            by_filter.setdefault(s["filter"], {})[s["doc"]["index"]] = s
        raw, tagged, flex = by_filter["raw"], by_filter["answer_tag"], by_filter["flexible"]
        per_env[env_id] = {
            "text": {i: raw[i]["resps"][0][0] for i in raw},
            "extracted": {i: tagged[i]["filtered_resps"][0] for i in tagged},
            "raw_em": {i: float(raw[i]["exact_match"]) for i in raw},
            "tag_em": {i: float(tagged[i]["exact_match"]) for i in tagged},
            "flex_extracted": {i: flex[i]["filtered_resps"][0] for i in flex},
            "flex_em": {i: float(flex[i]["exact_match"]) for i in flex},
        }
    return {"seconds": seconds, "per_env": per_env}


def run_tomgym(
    model_dir: str,
    n: int,
    max_new: int,
    batch_size: int,
    threads: int,
    envs: list[str] | None = None,
) -> dict[str, Any]:
    """tomgym.eval.evaluate with the hf agent over the same env ids (all, or ``envs``) and
    items."""
    from tomgym.eval import evaluate

    envs = envs if envs is not None else list(ENVS)
    per_env: dict[str, Any] = {
        e: {"text": {}, "correct": {}, "lenient": {}, "answer": {}, "prompt": {}} for e in envs
    }
    with tempfile.TemporaryDirectory(prefix="vs_lm_eval_tomgym_") as tmp:
        start = time.perf_counter()
        evaluate(
            f"hf:{model_dir}",
            envs=envs,
            n=n,
            out=tmp,
            max_new_tokens=max_new,
            temperature=0,
            batch_size=batch_size,
            quiet=True,
            item_order="first",  # items 0..n-1, the ones the lm-eval task holds
            agent_options={
                "num_threads": threads,
                "device": "cpu",
                "dtype": "float32",
            },
        )
        seconds = time.perf_counter() - start
        for line in (Path(tmp) / "results.jsonl").read_text().splitlines():
            r = json.loads(line)
            env = per_env[r["env_id"]]
            env["text"][r["index"]] = r["response"]
            env["correct"][r["index"]] = bool(r["correct"])
            env["lenient"][r["index"]] = bool(r["lenient_correct"])
            env["answer"][r["index"]] = r["answer"]
            env["prompt"][r["index"]] = r["prompt"]
    return {"seconds": seconds, "per_env": per_env}


def norm(text: str) -> str:
    return text.lower().translate(str.maketrans("", "", string.punctuation)).strip()


def compare(
    docs: dict[str, list[dict[str, Any]]], lm: dict[str, Any], tg: dict[str, Any]
) -> dict[str, Any]:
    """Per env: identical texts, accuracies, and the items where the scorers disagree."""
    report: dict[str, Any] = {}
    for env_id, rows in docs.items():
        a, b = lm["per_env"][env_id], tg["per_env"][env_id]
        items, same, prefix = [], 0, 0
        for row in rows:
            i = row["index"]
            ta, tb = a["text"][i], b["text"][i]
            same += ta == tb
            prefix += ta != tb and (tb.startswith(ta) or ta.startswith(tb))
            item = {
                "index": i,
                "gold": row["answer"],
                "identical": ta == tb,
                "lm_eval_text": ta,
                "tomgym_text": tb,
                "lm_eval_extracted": a["extracted"][i],
                "tomgym_answer": b["answer"][i],
                "lm_eval_em_raw": a["raw_em"][i],
                "lm_eval_em_tag": a["tag_em"][i],
                "tomgym_correct": b["correct"][i],
                "lm_eval_flex_extracted": a["flex_extracted"][i],
                "lm_eval_em_flex": a["flex_em"][i],
                # tomgym's untagged judgement: the text names the gold and no other candidate.
                "tomgym_lenient": b["lenient"][i],
                # tomgym's verifier applied to lm-eval's text: isolates scorer vs generation.
                "lm_eval_text_tag_norm": norm(a["extracted"][i]),
            }
            items.append(item)
        report[env_id] = {
            "n": len(rows),
            "identical_texts": same,
            "one_is_prefix_of_other": prefix,
            "lm_eval_acc_raw_exact_match": sum(x["lm_eval_em_raw"] for x in items) / len(items),
            "lm_eval_acc_answer_tag_exact_match": sum(x["lm_eval_em_tag"] for x in items)
            / len(items),
            "tomgym_acc_verifier": sum(x["tomgym_correct"] for x in items) / len(items),
            "lm_eval_acc_flexible_exact_match": sum(x["lm_eval_em_flex"] for x in items)
            / len(items),
            "tomgym_acc_untagged": sum(x["tomgym_lenient"] for x in items) / len(items),
            "disagreements": [
                x["index"] for x in items if bool(x["lm_eval_em_tag"]) != x["tomgym_correct"]
            ],
            "flexible_disagreements": [
                x["index"] for x in items if bool(x["lm_eval_em_flex"]) != x["tomgym_lenient"]
            ],
            "items": items,
        }
    return report


def tomgym_score_on(env_id: str, kwargs: dict[str, Any], texts: dict[int, str]) -> dict[int, bool]:
    """tomgym's own verifier (env.step reward info) applied to another tool's texts."""
    from tomgym.rewards import score_response

    env = tomgym.make(env_id, **kwargs)
    out = {}
    for i, text in texts.items():
        env.reset(options={"index": i})
        u = env.unwrapped
        out[i] = bool(score_response(text, u.current_item, u.reward_spec, u.prefill).correct)
    return out


def markdown(result: dict[str, Any], command: str) -> str:
    lines = [f"`{command}`", ""]
    m = result["meta"]
    lines += [
        f"{m['machine']}, python {m['python']}, torch {m['torch']}, transformers "
        f"{m['transformers']}, lm-eval {m['lm_eval']}; {m['threads']} CPU threads; model "
        f"`{m['model']}`; N={m['n']} items per env, greedy, {m['max_new_tokens']} new tokens, "
        f"batch size {m['batch_size']} on both sides; "
        + (
            f"legs in this order: {', '.join(m['order'])} (each loads the model)."
            if "order" in m
            else f"{m.get('first', 'lm-eval')} ran first."
        ),
        "",
        "| tool | wall s (load + generate + score, 2 envs) |",
        "|---|---|",
        f"| lm-eval (simple_evaluate) | {result['lm_eval_seconds']:.1f} |",
        f"| tomgym (eval.evaluate) | {result['tomgym_seconds']:.1f} |",
        "",
        *(
            f"- {leg['tool']} on `{leg['env']}`: {leg['seconds']:.1f} s"
            for leg in result.get("legs", [])
        ),
        "",
        f"Wall-time ratio tomgym / lm-eval: **{result['ratio']:.2f}**",
        "",
        "| env | identical texts | lm-eval EM raw | lm-eval EM `<answer>` regex | "
        "tomgym verifier | tomgym verifier on lm-eval text | scorer disagreements |",
        "|---|---|---|---|---|---|---|",
    ]
    for env_id, r in result["envs"].items():
        lines.append(
            f"| `{env_id}` | {r['identical_texts']}/{r['n']} | "
            f"{r['lm_eval_acc_raw_exact_match']:.2f} | "
            f"{r['lm_eval_acc_answer_tag_exact_match']:.2f} | {r['tomgym_acc_verifier']:.2f} | "
            f"{r['tomgym_verifier_on_lm_eval_text_acc']:.2f} | {r['disagreements'] or '-'} |"
        )
    lines += [
        "",
        "Untagged answers (the bundled model rarely writes the tags): lm-eval's flexible",
        "extraction (the first candidate the text names) against tomgym's untagged judgement (the",
        "text names the gold and no other candidate).",
        "",
        "| env | lm-eval flexible EM | tomgym untagged | disagreements (flexible right, tomgym "
        "wrong / the reverse) |",
        "|---|---|---|---|",
    ]
    for env_id, r in result["envs"].items():
        flex_only = sum(
            1
            for x in r["items"]
            if x["index"] in r["flexible_disagreements"] and x["lm_eval_em_flex"]
        )
        lines.append(
            f"| `{env_id}` | {r['lm_eval_acc_flexible_exact_match']:.2f} | "
            f"{r['tomgym_acc_untagged']:.2f} | {flex_only} / "
            f"{len(r['flexible_disagreements']) - flex_only} |"
        )
    lines += ["", "Disagreeing items (lm-eval regex EM vs tomgym verifier):", ""]
    any_dis = False
    for env_id, r in result["envs"].items():
        for x in r["items"]:
            if x["index"] in r["disagreements"]:
                any_dis = True
                lines.append(
                    f"- `{env_id}` #{x['index']}: gold `{x['gold']}`; lm-eval extracted "
                    f"`{x['lm_eval_extracted']}` (EM {x['lm_eval_em_tag']:.0f}); tomgym answer "
                    f"`{x['tomgym_answer']}` (correct {x['tomgym_correct']}); "
                    f"tomgym text: {json.dumps(x['tomgym_text'])[:300]}"
                )
    if not any_dis:
        lines.append("- none")
    lines += ["", "Disagreeing items, untagged (lm-eval flexible vs tomgym untagged):", ""]
    shown = 0
    for env_id, r in result["envs"].items():
        for x in r["items"]:
            if x["index"] in r["flexible_disagreements"] and shown < MAX_SHOWN:
                shown += 1
                lines.append(
                    f"- `{env_id}` #{x['index']}: gold `{x['gold']}`; lm-eval flexible "
                    f"`{x['lm_eval_flex_extracted']}` (EM {x['lm_eval_em_flex']:.0f}); tomgym "
                    f"untagged {x['tomgym_lenient']}; text: {json.dumps(x['tomgym_text'])[:300]}"
                )
    total = sum(len(r["flexible_disagreements"]) for r in result["envs"].values())
    if total > shown:
        lines.append(f"- ... {total - shown} more in the JSON file")
    if not total:
        lines.append("- none")
    lines += ["", "Texts that differ between the tools:", ""]
    any_diff = False
    for env_id, r in result["envs"].items():
        for x in r["items"]:
            if not x["identical"]:
                any_diff = True
                lines.append(
                    f"- `{env_id}` #{x['index']}: lm-eval {json.dumps(x['lm_eval_text'])[:200]}"
                    f" / tomgym {json.dumps(x['tomgym_text'])[:200]}"
                )
    if not any_diff:
        lines.append("- none")
    return "\n".join(lines) + "\n"


def warm_up(model_dir: str, tokenizer: Any, docs: dict[str, list[dict[str, Any]]]) -> None:
    """One short untimed generation, so neither timed tool pays first-call kernel set-up."""
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    ids = tokenizer(
        next(iter(docs.values()))[0]["prompt"], return_tensors="pt", add_special_tokens=False
    )
    with torch.inference_mode():
        model.generate(**ids, max_new_tokens=4, do_sample=False)


def run_interleaved(
    args: argparse.Namespace, model_dir: str, docs: dict[str, list[dict[str, Any]]]
) -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, str, float]]]:
    """Both tools env by env, the order alternating (lm-eval, tomgym; then tomgym, lm-eval;
    ...), so a machine that speeds up or slows down during the run falls on both sides: run
    one tool after the other, the ratio followed the order (0.78 with lm-eval first, 1.15 with
    tomgym first, on the same code). Each leg loads the model, as a user's run would."""
    lm: dict[str, Any] = {"seconds": 0.0, "per_env": {}}
    tg: dict[str, Any] = {"seconds": 0.0, "per_env": {}}
    legs: list[tuple[str, str, float]] = []
    for k, env_id in enumerate(docs):
        tomgym_first = (k % 2 == 1) != bool(args.tomgym_first)
        for tool in ("tomgym", "lm-eval") if tomgym_first else ("lm-eval", "tomgym"):
            if tool == "lm-eval":
                part = run_lm_eval(
                    model_dir, {env_id: docs[env_id]}, args.max_new_tokens, args.batch_size
                )
                into = lm
            else:
                part = run_tomgym(
                    model_dir,
                    args.n,
                    args.max_new_tokens,
                    args.batch_size,
                    args.threads,
                    envs=[env_id],
                )
                into = tg
            into["seconds"] += part["seconds"]
            into["per_env"].update(part["per_env"])
            legs.append((tool, env_id, part["seconds"]))
            print(f"{tool} on {env_id}: {part['seconds']:.1f} s", flush=True)
    return lm, tg, legs


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--n", type=positive_int, default=20, help="items per env (0..n-1)")
    parser.add_argument("--max-new-tokens", type=positive_int, default=48)
    parser.add_argument("--batch-size", type=positive_int, default=8)
    parser.add_argument("--threads", type=positive_int, default=2)
    parser.add_argument(
        "--out",
        type=results_prefix,
        default=RESULTS / "vs_lm_eval",
        help="path prefix: OUT.json and OUT.md are written, a suffix of OUT's own replaced "
        "(default: benchmarks/results/vs_lm_eval)",
    )
    parser.add_argument(
        "--tomgym-first",
        action="store_true",
        help="start the alternation with tomgym (default: lm-eval) on the first env",
    )
    args = parser.parse_args()
    if importlib.util.find_spec("lm_eval") is None:
        sys.exit(f"{Path(__file__).name} needs lm-eval, a benchmark-only install: "
                 "pip install lm-eval==0.4.13")  # fmt: skip
    os.environ.setdefault("TOMGYM_DATA", "/work/shared/data")
    torch.set_num_threads(args.threads)
    model_dir = str(smollm2_path()[0])
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    docs = build_docs(tokenizer, args.n)
    warm_up(model_dir, tokenizer, docs)

    lm, tg, legs = run_interleaved(args, model_dir, docs)
    envs = compare(docs, lm, tg)
    for env_id, r in envs.items():
        texts = {x["index"]: x["lm_eval_text"] for x in r["items"]}
        scored = tomgym_score_on(env_id, ENVS[env_id], texts)
        for x in r["items"]:
            x["tomgym_verifier_on_lm_eval_text"] = scored[x["index"]]
        r["tomgym_verifier_on_lm_eval_text_acc"] = sum(scored.values()) / len(scored)
    result = {
        "meta": {
            "machine": platform.machine(),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "lm_eval": version("lm_eval"),
            "model": model_dir,
            "n": args.n,
            "max_new_tokens": args.max_new_tokens,
            "batch_size": args.batch_size,
            "threads": args.threads,
            "first": "tomgym" if args.tomgym_first else "lm-eval",
            "order": [f"{tool} {env_id}" for tool, env_id, _ in legs],
        },
        "legs": [
            {"tool": tool, "env": env_id, "seconds": seconds} for tool, env_id, seconds in legs
        ],
        "lm_eval_seconds": lm["seconds"],
        "tomgym_seconds": tg["seconds"],
        "ratio": tg["seconds"] / lm["seconds"],
        "envs": envs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2, default=str) + "\n")
    command = recorded_command(parser, args)
    args.out.with_suffix(".md").write_text(markdown(result, command))
    print(markdown(result, command))


if __name__ == "__main__":
    main()
