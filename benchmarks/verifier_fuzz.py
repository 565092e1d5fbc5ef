"""Fuzz the verifier: random and mutated responses per answer type, counting any scored correct
without naming the gold only (must be 0), and timing every call (per kB, and 10 kB vs 1 MB vs 4 MB).

    .venv/bin/python benchmarks/verifier_fuzz.py [--responses 100000] [--repeats 5]
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench_args import add_results_dir, make_parser, recorded_command

import tomgym
from tomgym.cli_args import positive_int
from tomgym.items import ToMItem
from tomgym.rewards import score_response

ROOT = Path(__file__).resolve().parents[1]
# The oracle and the mutations live with the property tests, so both check the same contract.
sys.path.insert(0, str(ROOT / "tests" / "core"))
from test_verifier_properties import (  # noqa: E402
    COLOURS,
    CONTAINERS,
    NAMES,
    PLACES,
    denials_as_words,
    fragment_pool,
    gold_spellings,
    is_hedge,
    listed_alternative,
    negated_gold,
    oracle_allows,
    oracle_block,
    oracle_words,
)

ANSWER_TYPES = ("choice", "text", "yes_no", "names")
SIZES = (1_000, 10_000, 100_000, 1_000_000, 4_000_000)


def random_item(rng: random.Random, answer_type: str, number: int) -> ToMItem:
    base: dict[str, Any] = {"id": f"f{number}", "story": "s", "question": "q?"}
    if answer_type == "names":
        return ToMItem(**base, answer_type="names", answer=rng.sample(NAMES, rng.randint(1, 4)))
    if answer_type == "yes_no":
        gold = rng.choice(("yes", "no", "no:long", "Yes"))
        return ToMItem(**base, answer_type="yes_no", answer=gold)
    phrases = [f"{c}{rng.choice('_ ')}{k}" for c in COLOURS for k in CONTAINERS]
    phrases += list(CONTAINERS) + list(PLACES)
    candidates: list[str] = []
    seen: set[str] = set()
    for phrase in rng.sample(phrases, rng.randint(2, 8)):
        key = phrase.replace("_", " ")
        if key not in seen:
            seen.add(key)
            candidates.append(phrase)
    gold = rng.choice(candidates)
    if answer_type == "text" and rng.random() < 0.3:
        candidates = []
    return ToMItem(**base, answer_type=answer_type, answer=gold, candidates=tuple(candidates))


def real_items(answer_type: str) -> list[ToMItem]:
    """A few items of the generated envs (all choice items) to mix with the synthetic ones."""
    if answer_type != "choice":
        return []
    found = []
    for env_id in ("ToM-HiToM-v0", "ToM-HiToM-O4-v0", "ToM-ToMi-v0"):
        env = tomgym.make(env_id)
        for index in range(10):
            env.reset(options={"index": index})
            found.append(env.unwrapped.current_item)
    return found


def near_gold(rng: random.Random, item: ToMItem, pool: list[str]) -> str:
    """A right answer with up to three fragments spliced in or characters dropped."""
    text = rng.choice(gold_spellings(item))
    for _ in range(rng.randint(0, 3)):
        at = rng.randint(0, len(text))
        if rng.random() < 0.7:
            text = text[:at] + rng.choice(pool) + text[at:]
        else:
            text = text[:at] + text[at + rng.randint(1, 3) :]
    return text


def mutated_response(rng: random.Random, item: ToMItem, pool: list[str]) -> str:
    def soup() -> str:
        parts = rng.choices(pool, k=rng.randint(0, 24))
        if rng.random() < 0.2:
            parts.append("".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(1, 6))))
        rng.shuffle(parts)
        return "".join(parts)

    inside = near_gold(rng, item, pool) if rng.random() < 0.4 else soup()
    shape = rng.random()
    if shape < 0.25:
        response = inside
    elif shape < 0.6:
        response = f"<answer>{inside}</answer>"
    else:
        response = f"<think>{soup()}</think><answer>{inside}</answer>"
    if rng.random() < 0.01:  # 10 to 100 kB, in the think part or the answer
        target = rng.randint(10_000, 100_000)
        filler = (inside or "x") + " "
        blown = filler * (target // len(filler))
        response = (
            f"<think>{blown}</think><answer>{inside}</answer>"
            if rng.random() < 0.5
            else f"<answer>{blown}</answer>"
        )
    return response


def timed_score(response: str, item: ToMItem) -> tuple[bool, float]:
    start = time.perf_counter()
    score = score_response(response, item, "accuracy")
    return score.correct, time.perf_counter() - start


def negated(response: str, item: ToMItem) -> bool:
    """The block negates a gold mention ("not the jar"): part of the oracle, counted apart."""
    block = oracle_block(response)
    if block is None or item.answer_type not in ("choice", "text"):
        return False
    assert isinstance(item.answer, str)
    block = denials_as_words(block)  # "kitchen ❌ garden", "kitchen? No." as the oracle reads them
    golds = [item.answer, *item.aliases]
    # a gold's words inside another candidate are that candidate's ("box, not the red box")
    others = [c for c in item.candidates if oracle_words(c) not in map(oracle_words, golds)]
    return negated_gold(block, golds, others)


def free_text_list(response: str, item: ToMItem) -> bool:
    """A free-text item with nothing to exclude, answered with a list of alternatives."""
    block = oracle_block(response)
    if block is None or item.answer_type != "text" or len(set(item.candidates) - {item.answer}):
        return False
    assert isinstance(item.answer, str)
    return listed_alternative(denials_as_words(block), [item.answer, *item.aliases])


def fuzz(answer_type: str, responses: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    items = [random_item(rng, answer_type, n) for n in range(60)] + real_items(answer_type)
    pools = [fragment_pool(item) for item in items]
    counts: Counter[str] = Counter()
    violations: list[dict[str, str]] = []
    # None until a response of that size comes: a figure not measured is not a 0
    max_small_us: float | None = None
    max_us_per_kb: float | None = None
    biggest = 0
    for _ in range(responses):
        which = rng.randrange(len(items))
        item = items[which]
        response = mutated_response(rng, item, pools[which])
        correct, seconds = timed_score(response, item)
        size = len(response.encode())
        biggest = max(biggest, size)
        if size < 1000:
            max_small_us = max(max_small_us or 0.0, seconds * 1e6)
        else:
            max_us_per_kb = max(max_us_per_kb or 0.0, seconds * 1e6 / (size / 1000))
        counts["responses"] += 1
        counts["with_one_answer_block"] += oracle_block(response) is not None
        if correct:
            counts["scored_correct"] += 1
            if oracle_allows(response, item):
                counts["correct_naming_gold_only"] += 1
            else:
                counts["correct_without_naming_gold_only"] += 1
                violations.append({"item": item.id, "response": response[:300]})
            counts["yes_no_hedges_scored_correct"] += is_hedge(response, item)
            counts["negated_golds_scored_correct"] += negated(response, item)
            counts["free_text_lists_scored_correct"] += free_text_list(response, item)
    return {
        "answer_type": answer_type,
        **{k: counts[k] for k in sorted(counts)},
        "violations": violations[:10],
        "max_us_per_call_under_1kB": None if max_small_us is None else round(max_small_us, 1),
        "max_us_per_kB_at_1kB_and_over": None if max_us_per_kb is None else round(max_us_per_kb, 2),
        "largest_response_bytes": biggest,
    }


def shown(figure: float | None) -> str:
    """A figure as the table shows it: ``-`` when it was not measured (None)."""
    return "-" if figure is None else str(figure)


def sized_inputs(item: ToMItem, size: int) -> dict[str, str]:
    """Worst shapes at one size: long reasoning, an answer full of candidates, tag soup."""
    gold = item.gold_text
    mentions = " ".join([*item.candidates, gold, "yes", "no", "Alice, Bob and Kai"]) + " "
    soup = f"<answer{gold}</answer <think> {gold} <answer </think"
    return {
        "long_think": f"<think>{('the story says many things. ' * (size // 28))}</think>"
        f"<answer>{gold}</answer>",
        "answer_full_of_mentions": f"<think>x</think><answer>{mentions * (size // len(mentions))}"
        "</answer>",
        "tag_soup": soup * (size // len(soup)),
    }


def linearity(answer_type: str, repeats: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    item = random_item(rng, answer_type, 0)
    medians: dict[str, dict[int, float]] = {}
    for size in SIZES:
        for shape, response in sized_inputs(item, size).items():
            runs = [timed_score(response, item)[1] for _ in range(repeats)]
            medians.setdefault(shape, {})[size] = statistics.median(runs)
    rows = []
    for shape, by_size in medians.items():
        rows.append(
            {
                "answer_type": answer_type,
                "shape": shape,
                **{f"ms_at_{s // 1000}kB": round(by_size[s] * 1e3, 3) for s in SIZES},
                "us_per_kB_at_1MB": round(by_size[1_000_000] * 1e6 / 1000, 2),
                "ratio_1MB_over_10kB": round(by_size[1_000_000] / by_size[10_000], 1),
                # Past the caches and the interpreter's first garbage collections, the
                # growth the algorithm itself adds: 4 when the time is linear.
                "ratio_4MB_over_1MB": round(by_size[4_000_000] / by_size[1_000_000], 2),
            }
        )
    return rows


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--responses", type=positive_int, default=100_000, help="per answer type")
    parser.add_argument("--repeats", type=positive_int, default=5, help="for the linearity check")
    parser.add_argument("--seed", type=int, default=0)
    add_results_dir(parser)
    args = parser.parse_args()
    start = time.perf_counter()
    fuzz_rows, linear_rows = [], []
    for number, answer_type in enumerate(ANSWER_TYPES):
        row = fuzz(answer_type, args.responses, args.seed + number)
        fuzz_rows.append(row)
        print(
            f"{answer_type:7s} {row['responses']} responses, {row.get('scored_correct', 0)} "
            f"correct, {row.get('correct_without_naming_gold_only', 0)} without naming the "
            f"gold only; max {shown(row['max_us_per_kB_at_1kB_and_over'])} us/kB",
            flush=True,
        )
        linear_rows += linearity(answer_type, args.repeats)
    total_bad = sum(r.get("correct_without_naming_gold_only", 0) for r in fuzz_rows)
    result = {
        "benchmark": "verifier_fuzz",
        "command": recorded_command(parser, args),
        "machine": f"{platform.machine()} python {platform.python_version()}",
        "oracle": "tests/core/test_verifier_properties.py::oracle_allows",
        "correct_without_naming_gold_only": total_bad,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "fuzz": fuzz_rows,
        "linearity": linear_rows,
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "verifier_fuzz.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        f"`{result['command']}` ({result['machine']}, {result['wall_seconds']} s)",
        "",
        "| answer type | responses | one answer block | scored correct | correct without naming "
        "the gold only | of which negated golds | of which free-text lists "
        "| yes/no hedges scored correct | max us/call (< 1 kB) | max us/kB (>= 1 kB) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['answer_type']} | {r['responses']} | {r.get('with_one_answer_block', 0)} | "
        f"{r.get('scored_correct', 0)} | {r.get('correct_without_naming_gold_only', 0)} | "
        f"{r.get('negated_golds_scored_correct', 0)} | "
        f"{r.get('free_text_lists_scored_correct', 0)} | "
        f"{r.get('yes_no_hedges_scored_correct', 0)} | {shown(r['max_us_per_call_under_1kB'])} | "
        f"{shown(r['max_us_per_kB_at_1kB_and_over'])} |"
        for r in fuzz_rows
    ]
    lines += [
        "",
        f"Linearity: median of {args.repeats} calls per size; ratio 1 MB / 10 kB is 100 and "
        "4 MB / 1 MB is 4 when the time is linear. The first also holds the caches' and "
        "CPython's garbage collector's growing share (a response of 1 MB holds some 10^5 "
        "words, each a tracked object), the second what the judge itself adds.",
        "",
        "| answer type | shape | "
        + " | ".join(f"ms at {s // 1000} kB" for s in SIZES)
        + " | us/kB at 1 MB | 1 MB / 10 kB | 4 MB / 1 MB |",
        "|---|---|" + "---|" * (len(SIZES) + 3),
    ]
    lines += [
        f"| {r['answer_type']} | {r['shape']} | "
        + " | ".join(str(r[f"ms_at_{s // 1000}kB"]) for s in SIZES)
        + f" | {r['us_per_kB_at_1MB']} | {r['ratio_1MB_over_10kB']} | {r['ratio_4MB_over_1MB']} |"
        for r in linear_rows
    ]
    (args.results_dir / "verifier_fuzz.md").write_text("\n".join(lines) + "\n")
    print(f"{total_bad} responses scored correct without naming the gold only")
    print(f"wrote {args.results_dir / 'verifier_fuzz.json'}")


if __name__ == "__main__":
    main()
