"""Shortcut audit of every registered env: shortcut baselines, a learned probe and the oracle on
each env's test items, and the shortcut share. Results go to benchmarks/results/shortcut_audit.json
and .md, which the README quotes.

    TOMGYM_DATA=/work/shared/data .venv/bin/python benchmarks/shortcut_audit.py [--n 300]
"""

from __future__ import annotations

import json
import platform
import sys
import time

from bench_args import add_results_dir, make_parser, recorded_command, registered_env

import tomgym
from tomgym.cli_args import positive_int
from tomgym.shortcuts import audit_envs, audit_notes, audit_table


def main() -> int:
    parser = make_parser(__file__, __doc__)
    parser.add_argument("--n", type=positive_int, default=300, help="test items per env")
    parser.add_argument(
        "--n-train", type=positive_int, default=600, help="probe train items per env"
    )
    parser.add_argument(
        "--envs",
        nargs="*",
        type=registered_env,
        help="env IDs (default: every registered one)",
    )
    add_results_dir(parser)
    args = parser.parse_args()
    env_ids = args.envs or [spec.id for spec in tomgym.list_envs()]
    start = time.perf_counter()
    rows, skipped = [], {}
    for env_id in env_ids:
        t0 = time.perf_counter()
        done, missed = audit_envs([env_id], n_train=args.n_train, n_test=args.n)
        rows += done
        skipped.update(missed)
        if missed:
            status = f"skipped: {next(iter(missed.values())).splitlines()[0]}"
        else:
            status = f"share {done[0].shortcut_share}"
        print(f"{env_id}: {status} ({time.perf_counter() - t0:.1f} s)", flush=True)
    if not rows:
        print(
            f"{parser.prog}: every env was skipped (reasons above); nothing written",
            file=sys.stderr,
        )
        return 1
    table = audit_table(rows)
    seconds = time.perf_counter() - start
    args.results_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "command": recorded_command(parser, args),
        "python": platform.python_version(),
        "seconds": round(seconds, 1),
        "n_test": args.n,
        "n_train": args.n_train,
        "rows": [r.to_dict() for r in rows],
        "skipped": skipped,
    }
    (args.results_dir / "shortcut_audit.json").write_text(json.dumps(record, indent=2) + "\n")
    notes = [f"- {env_id}: {why.splitlines()[0]}" for env_id, why in skipped.items()]
    md = [
        "# Shortcut audit",
        "",
        f"`{record['command']}` ({seconds:.0f} s). Accuracy in % on each env's test items "
        "(its test split, else its val split, else a fixed half of its stories); the probe is "
        "a linear softmax over candidates on bag-of-words and mention-position features, "
        "trained on the train split (or the other half). share = (best shortcut - chance) / "
        "(oracle - chance), the best shortcut being a heuristic or the probe (random measures "
        "chance; it is not a shortcut).",
        "",
        table,
        "",
        *[f"- {note}" for note in audit_notes(rows)],
        "",
        *(["Skipped:", "", *notes] if notes else []),
    ]
    (args.results_dir / "shortcut_audit.md").write_text("\n".join(md) + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
