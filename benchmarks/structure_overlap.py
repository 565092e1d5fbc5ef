"""How many test items of a generated env are a training item with other words: the same story,
question and answer role once names, rooms, objects and containers are replaced by role
placeholders (the first name seen is <N1>, ...). Splits draw from disjoint seed streams, so no
story text is served twice; this measures what that does not: how small a family's space of
story structures is. Results go to benchmarks/results/structure_overlap.json and .md.

    .venv/bin/python benchmarks/structure_overlap.py [--test 1000] [--train 1000 5000 30000]
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from bench_args import add_results_dir, make_parser, recorded_command

import tomgym
from tomgym.cli_args import positive_int
from tomgym.items import ToMItem
from tomgym.world.vocab import load_vocab

PAIRS = (
    ("ToM-ToMi-v0", "ToM-ToMi-v0", "test"),
    ("ToM-ToMi-v0", "ToM-ToMi-NewVocab-v0", "test"),
    ("ToM-ToMi-v0", "ToM-ToMi-Debiased-v0", "test"),
    ("ToM-HiToM-v0", "ToM-HiToM-v0", "test"),
    ("ToM-HiToM-v0", "ToM-HiToM-O2-NewVocab-v0", "test"),
)
"""(training env, test env, test split): the test env's items looked up among the training
env's train items."""
_WORD = re.compile(r"[A-Za-z_]+")


def role_of_words() -> dict[str, str]:
    """Every vocabulary word (both vocabularies) -> its role letter."""
    roles: dict[str, str] = {}
    for name in ("train", "test"):
        vocab = load_vocab(name)
        for role, words in (
            ("N", vocab.names),
            ("R", vocab.rooms),
            ("O", vocab.objects),
            ("C", vocab.coloured),
            ("K", vocab.kinds),
        ):
            for word in words:
                roles.setdefault(word.lower(), role)
    return roles


def skeleton(item: ToMItem, roles: dict[str, str]) -> str:
    """The item's story, question and gold with each vocabulary word replaced by its role and
    order of first use."""
    seen: dict[str, str] = {}
    counts: dict[str, int] = {}

    def placeholder(match: re.Match[str]) -> str:
        word = match.group(0).lower()
        role = roles.get(word)
        if role is None:
            return word
        if word not in seen:
            counts[role] = counts.get(role, 0) + 1
            seen[word] = f"<{role}{counts[role]}>"
        return seen[word]

    text = f"{item.story} || {item.question} => {item.gold_text}"
    return " ".join(_WORD.sub(placeholder, text).split())


def first_items(env_id: str, n: int, split: str) -> list[ToMItem]:
    env = tomgym.make(env_id, split=split)
    return [env.unwrapped.source.item(i) for i in range(n)]


def measure(test_n: int, pools: list[int]) -> list[dict[str, Any]]:
    roles = role_of_words()
    train_keys: dict[str, list[str]] = {}
    rows = []
    for train_env, test_env, split in PAIRS:
        if train_env not in train_keys:
            items = first_items(train_env, max(pools), "train")
            train_keys[train_env] = [skeleton(it, roles) for it in items]
        keys = train_keys[train_env]
        test_keys = [skeleton(it, roles) for it in first_items(test_env, test_n, split)]
        shares = {}
        for pool in pools:
            known = set(keys[:pool])
            shares[str(pool)] = sum(k in known for k in test_keys) / len(test_keys)
        rows.append(
            {
                "train_env": train_env,
                "test_env": test_env,
                "test_split": split,
                "test_items": len(test_keys),
                "distinct_train_structures": len(set(keys)),
                "train_items": len(keys),
                "share_with_a_training_structure": shares,
            }
        )
        print(
            f"{test_env} ({split}) against {train_env} train: "
            + ", ".join(f"{100 * s:.1f}% of {pool}" for pool, s in shares.items())
        )
    return rows


def markdown(result: dict[str, Any]) -> str:
    pools = result["train_pools"]
    lines = [
        "# Structure overlap",
        "",
        f"`{result['command']}` ({result['seconds']} s). Share of test items whose story, "
        "question and answer role, with names, rooms, objects and containers replaced by role "
        "placeholders, equal those of one of the first N train items of the training env.",
        "",
        "| test env (split) | training env | "
        + " | ".join(f"N = {p}" for p in pools)
        + " | distinct structures in the largest N |",
        "|---|---|" + "---|" * (len(pools) + 1),
    ]
    for row in result["rows"]:
        shares = row["share_with_a_training_structure"]
        lines.append(
            f"| {row['test_env']} ({row['test_split']}) | {row['train_env']} | "
            + " | ".join(f"{100 * shares[str(p)]:.1f}%" for p in pools)
            + f" | {row['distinct_train_structures']} of {row['train_items']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--test", type=positive_int, default=1000, help="test items per env")
    parser.add_argument(
        "--train",
        type=positive_int,
        nargs="+",
        default=[1000, 5000, 30000],
        help="numbers of train items to look the test items up among",
    )
    add_results_dir(parser)
    args = parser.parse_args()
    pools = sorted(args.train)
    args.train = pools  # recorded as measured (sorted)
    start = time.perf_counter()
    rows = measure(args.test, pools)
    result = {
        "benchmark": "structure_overlap",
        "command": recorded_command(parser, args),
        "seconds": round(time.perf_counter() - start, 1),
        "train_pools": pools,
        "rows": rows,
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "structure_overlap.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.results_dir / "structure_overlap.md").write_text(markdown(result))
    print(f"wrote {args.results_dir / 'structure_overlap.json'} and .md")


if __name__ == "__main__":
    main()
