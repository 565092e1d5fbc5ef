"""The ``tomgym audit`` command: shortcut baselines, probe and oracle side by side per env."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tomgym.cli_args import add_pairs_option, output_path, parse_kwargs, positive_int

SHARE_DEFINITION = (
    "share = (best shortcut - chance) / (oracle - chance): the part of the gap from chance "
    "to the oracle that a policy without belief tracking closes; best 95% CI = the Wilson "
    "interval of the best shortcut's accuracy, the items counted as independent (wider where "
    "they share stories), and the best of several read on the same items is a high estimate"
)


AUDIT_SUFFIXES = (".json", ".md")
"""What ``audit --out`` writes: the rows as JSON, or the printed report as Markdown."""


def cmd_audit(args: argparse.Namespace) -> int:
    from tomgym.registry import get_spec
    from tomgym.shortcuts import audit_envs, audit_notes, audit_table

    env_ids = list(dict.fromkeys(args.envs))  # `audit X X` audits X once
    for env_id in env_ids:  # an unknown ID stops the run before any env is audited
        get_spec(env_id)
    kwargs = parse_kwargs(args.kwarg)
    out = Path(args.out) if args.out else None
    if out is not None and out.is_dir():  # said before the audit, not after minutes of it
        raise ValueError(f"--out {out} is a directory: give a file (.json, or .md for the report)")
    if out is not None and out.suffix.lower() not in AUDIT_SUFFIXES:
        raise ValueError(
            f"--out {out}: audit writes the rows as .json or the report as .md, not "
            f"{out.suffix or 'a file without a suffix'}"
        )
    n_train = args.n_train if args.n_train is not None else 2 * args.n
    rows, skipped = audit_envs(env_ids, n_train=n_train, n_test=args.n, **kwargs)
    table, notes = audit_table(rows), audit_notes(rows)
    notes += [
        f"{row.env_id}: {row.n_test} test items, all it serves (--n {args.n})"
        for row in rows
        if row.n_test < args.n
    ]
    lines = [f"skipped {env_id}: {why}" for env_id, why in skipped.items()]
    if notes:
        table += "\n\n" + "\n".join(f"- {note}" for note in notes)
    made_with = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    header = [f"every env made with {made_with} (--kwarg)\n"] if kwargs else []
    report = "\n".join([*header, table, *lines, SHARE_DEFINITION])
    print(report)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix.lower() == ".md":
            out.write_text(report + "\n", encoding="utf-8")
        else:
            record = {"rows": [r.to_dict() for r in rows], "skipped": skipped, "kwargs": kwargs}
            out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return 1 if skipped or not rows else 0


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``audit`` to the ``tomgym`` parser."""
    p = subparsers.add_parser(
        "audit",
        help="shortcut audit: baselines, a learned probe and the oracle on an env's test items",
        description="Exit 1 when an env was skipped (its data missing, or it failed).",
    )
    p.add_argument("envs", nargs="+", metavar="ENV", help="registered env IDs")
    p.add_argument("--n", type=positive_int, default=300, help="test items per env (default 300)")
    p.add_argument(
        "--n-train", type=positive_int, default=None, help="probe train items (default 2n)"
    )
    add_pairs_option(
        p,
        "--kwarg",
        help="env keyword argument for every env (repeatable), e.g. vocab_split=test; the "
        "value as JSON or a Python literal, else a string",
    )
    p.add_argument(
        "--out",
        type=output_path,
        metavar="FILE",
        help="write the rows as JSON (a .json file) or the report (a .md file)",
    )
    p.set_defaults(handler=cmd_audit)
