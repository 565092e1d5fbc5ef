"""What the debiased Hi-ToM envs serve besides balanced answers: their story mix (chapters,
deception) against the plain env of the same order. A debiased item is the first drawn story
whose answer meets its target, so stories that meet targets more easily are served more often;
part of a plain-to-debiased drop in accuracy can be harder stories rather than lost shortcuts.
Results go to benchmarks/results/story_mix.json and .md.

    .venv/bin/python benchmarks/story_mix.py [--items 600] [--orders 1 2 3 4]
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from typing import Any

from bench_args import add_results_dir, make_parser, recorded_command

import tomgym
from tomgym.cli_args import positive_int

VARIANTS = ("v0", "Debiased-v0", "Debiased-v1")
"""The plain env and the two debiasing schemes of one order (ToM-HiToM-O<k>-<variant>)."""


def debiased_orders() -> list[int]:
    """The Hi-ToM orders registered with all three variants (1 to 4)."""
    registered = {spec.id for spec in tomgym.list_envs()}
    plain = (re.fullmatch(r"ToM-HiToM-O(\d+)-v0", env_id) for env_id in registered)
    orders = sorted(int(match[1]) for match in plain if match)
    return [k for k in orders if all(f"ToM-HiToM-O{k}-{v}" in registered for v in VARIANTS)]


def story_mix(env_id: str, items: int) -> dict[str, Any]:
    """Shares of the first ``items`` items (fresh indices 0..items-1) by chapters and deception."""
    env = tomgym.make(env_id).unwrapped
    chapters: Counter[int] = Counter()
    deceptive = 0
    for index in range(items):
        env.reset(options={"index": index})
        item = env.current_item
        assert item is not None
        chapters[int(item.metadata["length"])] += 1
        deceptive += bool(item.metadata["deception"])
    return {
        "env": env_id,
        "items": items,
        "chapters_share": {str(k): round(v / items, 3) for k, v in sorted(chapters.items())},
        "deception_share": round(deceptive / items, 3),
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Story mix of the debiased Hi-ToM envs",
        "",
        f"`{result['command']}` ({result['seconds']} s). Shares of each env's items 0 to "
        f"{result['items'] - 1} by number of chapters and by deception.",
        "",
        "| env | 1 chapter | 2 chapters | 3 chapters | deception |",
        "|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        shares = row["chapters_share"]
        cells = " | ".join(f"{100 * shares.get(str(k), 0.0):.0f}%" for k in (1, 2, 3))
        lines.append(f"| {row['env']} | {cells} | {100 * row['deception_share']:.0f}% |")
    return "\n".join(lines) + "\n"


def main() -> None:
    import warnings

    parser = make_parser(__file__, __doc__)
    parser.add_argument("--items", type=positive_int, default=600, help="items per env")
    parser.add_argument(
        "--orders", type=positive_int, nargs="+", choices=debiased_orders(), default=[1, 2, 3, 4]
    )
    add_results_dir(parser)
    args = parser.parse_args()
    start = time.perf_counter()
    rows = []
    with warnings.catch_warnings():  # the -Debiased-v0 IDs are marked out of date, on purpose
        warnings.simplefilter("ignore", DeprecationWarning)
        for order in args.orders:
            for variant in VARIANTS:
                row = story_mix(f"ToM-HiToM-O{order}-{variant}", args.items)
                rows.append(row)
                print(
                    f"{row['env']:28s} chapters {row['chapters_share']} "
                    f"deception {row['deception_share']}"
                )
    result = {
        "benchmark": "story_mix",
        "command": recorded_command(parser, args),
        "seconds": round(time.perf_counter() - start, 1),
        "items": args.items,
        "rows": rows,
    }
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "story_mix.json").write_text(json.dumps(result, indent=2) + "\n")
    (args.results_dir / "story_mix.md").write_text(markdown(result))
    print(f"wrote {args.results_dir / 'story_mix.json'} and .md")


if __name__ == "__main__":
    main()
