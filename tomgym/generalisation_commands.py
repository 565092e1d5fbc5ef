"""The ``tomgym audit`` command: shortcut baselines, probe and oracle side by side per env."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tomgym.cli_args import output_path, positive_int


def cmd_audit(args: argparse.Namespace) -> int:
    from tomgym.shortcuts import audit_envs, audit_notes, audit_table

    n_train = args.n_train if args.n_train is not None else 2 * args.n
    rows, skipped = audit_envs(args.envs, n_train=n_train, n_test=args.n)
    table, notes = audit_table(rows), audit_notes(rows)
    if notes:
        table += "\n\n" + "\n".join(f"- {note}" for note in notes)
    print(table)
    for env_id, why in skipped.items():
        print(f"skipped {env_id}: {why}")
    print(
        "share = (best shortcut - chance) / (oracle - chance): the part of the gap from chance "
        "to the oracle that a policy without belief tracking closes"
    )
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix == ".md":
            out.write_text(table + "\n", encoding="utf-8")
        else:
            record = {"rows": [r.to_dict() for r in rows], "skipped": skipped}
            out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return 0 if rows else 1


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``audit`` to the ``tomgym`` parser."""
    p = subparsers.add_parser(
        "audit",
        help="shortcut audit: baselines, a learned probe and the oracle on an env's test items",
    )
    p.add_argument("envs", nargs="+", metavar="ENV", help="registered env IDs")
    p.add_argument("--n", type=positive_int, default=300, help="test items per env (default 300)")
    p.add_argument(
        "--n-train", type=positive_int, default=None, help="probe train items (default 2n)"
    )
    p.add_argument(
        "--out", type=output_path, metavar="FILE", help="write the rows as JSON (or the table, .md)"
    )
    p.set_defaults(handler=cmd_audit)
