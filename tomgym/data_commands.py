"""The ``tomgym data ...`` and ``tomgym register`` subcommands: releases, splits, audits, files."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tomgym.cli_args import (
    add_pairs_option,
    non_negative_int,
    output_path,
    parse_kwargs,
    positive_float,
)

if TYPE_CHECKING:
    from tomgym.env_files import EnvFileEntry
    from tomgym.registry import ToMEnvSpec

SPLIT_DATASETS = ("exploretom-structured", "exploretom-infilled")


def _table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_status(args: argparse.Namespace) -> int:
    from tomgym.data import data_root, data_root_origin, data_status

    statuses = data_status(checksums=not args.no_checksums)
    root = data_root()
    missing = (
        ""
        if root.is_dir()
        else "; this is a file, not a directory"
        if root.exists()
        else "; this directory does not exist"
    )
    print(f"data root: {root} (from {data_root_origin()}){missing}")
    rows = [
        (
            s.dataset,
            s.relpath,
            "yes" if s.present else "no",
            "?" if s.expected_records is None else s.expected_records,
            {True: "ok", False: "MISMATCH", None: "-"}[s.checksum_ok],
            ", ".join(s.envs),
        )
        for s in statuses
    ]
    print(_table(rows, ("dataset", "file", "present", "records (release)", "checksum", "envs")))
    present = sum(s.present for s in statuses)
    bad = [s.relpath for s in statuses if s.checksum_ok is False]
    print(f"{present}/{len(statuses)} files present; {len(bad)} checksum mismatch(es)")
    return 1 if bad else 0


def cmd_fetch(args: argparse.Namespace) -> int:
    from tomgym.data import DownloadError, fetch_dataset

    try:
        paths = fetch_dataset(args.name, timeout=args.timeout)
    except DownloadError as exc:
        print(f"tomgym data fetch: {exc}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"ok {path}")
    return 0


def cmd_splits(args: argparse.Namespace) -> int:
    from tomgym.envs.exploretom import exploretom_items
    from tomgym.envs.splits import PRESET_SIZES, find_leakage, story_key

    leaks = 0
    for dataset in args.datasets or SPLIT_DATASETS:
        if dataset not in SPLIT_DATASETS:
            raise ValueError(f"unknown dataset {dataset!r}; splits exist for {SPLIT_DATASETS}")
        presentation = "infilled" if dataset.endswith("infilled") else "structured"
        parts = {name: exploretom_items(presentation, name) for name in PRESET_SIZES}
        found = find_leakage(parts)
        whole = len(exploretom_items(presentation))
        rows = [
            (name, len(items), len({story_key(it) for it in items}))
            for name, items in parts.items()
        ]
        print(f"{dataset}: {whole} questions in the release")
        print(_table(rows, ("split", "questions", "stories")))
        print(f"leakage: {len(found)} stor{'y' if len(found) == 1 else 'ies'} in two splits")
        for leak in found[:10]:
            print(f"  - {leak}")
        print()
        leaks += len(found)
    return 1 if leaks else 0


def _pct(n: int | None, total: int) -> str:
    return "-" if n is None or not total else f"{n}/{total} ({100 * n / total:.1f}%)"


def cmd_audit(args: argparse.Namespace) -> int:
    from tomgym.audit import AUDITS, audit_release
    from tomgym.data import DamagedDataError, MissingDataError

    reports, missing = [], []
    for name in args.datasets or AUDITS:
        try:
            reports.append(audit_release(name, examples=args.examples))
        except DamagedDataError:
            raise
        except MissingDataError as exc:  # the other releases are still worth auditing
            missing.append(f"{name}: {exc}")
    for report in reports:
        print(f"{report.dataset}: rules agree with {_pct(report.agree, report.total)} of labels")
        rows = [
            (t.question_type, t.total, _pct(t.agree, t.total), _pct(t.agree_release_mode, t.total))
            for t in report.by_type
        ]
        print(_table(rows, ("question type", "n", "rules agree", "release-mode agree")))
        for t in report.by_type:
            for d in t.examples:
                also = f", release mode: {d.release_mode}" if d.release_mode is not None else ""
                print(
                    f"  e.g. {d.item_id} [{d.question_type}] {d.question!r}: "
                    f"release {d.release}, rules {d.rules}{also}"
                )
        if report.dataset.startswith("hitom") and report.disagreements:
            ids = ", ".join(d.item_id for d in report.disagreements)
            print(f"  all {len(report.disagreements)} disagreements: {ids}")
        print()
    if args.out:
        payload = [r.model_dump() for r in reports]
        Path(args.out).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"written to {args.out}")
    for line in missing:
        print(f"not audited, {line}", file=sys.stderr)
    return 1 if missing else 0


def cmd_register(args: argparse.Namespace) -> int:
    import tomgym
    from tomgym.datafile import register_from_file

    mapping: dict[str, Any] = {
        "story": args.story,
        "question": args.question,
        "answer": args.answer,
        "candidates": args.candidates,
        "order": args.order,
        "id": args.id_column,
        "answer_type": args.answer_type,
        "aliases": args.aliases,
        "question_type": args.question_type,
        "split": args.split,
    }
    from tomgym.registry import check_env_id

    check_env_id(args.id)  # before the file is read: its rows' problems would come first
    previous = _check_save_target(args) if args.save else None
    settings = _settings(args, previous)
    if any(spec.id == args.id for spec in tomgym.list_envs()):  # overwrite= is for Python
        _id_taken(args)
    # A DataFileError (every bad row) reaches main(): "tomgym register: error: ...", exit 2.
    spec = register_from_file(args.file, args.id, **settings, **mapping)
    # saved before anything is printed: a reader that leaves early (`| head`) stops the
    # printing with a broken pipe, and the env file was then written or not by chance
    saved = _save_env_file(args, mapping, settings, spec, previous) if args.save else None
    print(json.dumps(spec.model_dump(), indent=2, default=str))
    if args.show:
        env = tomgym.make(spec.id)
        for index in range(min(args.show, spec.size or 0)):
            prompt, _ = env.reset(options={"index": index})
            item = env.current_item
            assert item is not None
            print(f"\n=== item {index}: {item.id} (gold: {item.gold_text}) ===")
            print(prompt)
    valid = f"\n{spec.id}: {spec.size} valid item{'' if spec.size == 1 else 's'}."
    if saved is not None:
        print(
            f"{valid} Wrote the env file {saved}: pass --env-file {saved} to tomgym eval, "
            f"leaderboard, export, audit or train (or list it in $TOMGYM_ENV_FILES, or call "
            f"tomgym.env_files.register_env_file() in Python) to make {spec.id}."
        )
        return 0
    print(
        f"{valid} This registration lasts only for this process: add --save FILE.json to "
        "write an env file that tomgym eval, export and training take as --env-file, or call "
        "tomgym.datafile.register_from_file(...) in Python."
    )
    return 0


REGISTER_DEFAULTS = {"family": "custom", "usage": "train", "held_out": False, "sep": "|"}
"""What ``register`` registers with where an option is not given (and no env file is being
updated)."""


def _settings(args: argparse.Namespace, previous: EnvFileEntry | None) -> dict[str, Any]:
    """register_from_file's settings: each option as given, else (updating an env file) the
    file's own, else the default; so an update never drops a usage of eval-only or a
    description it was not told about."""
    kept = (
        {}
        if previous is None
        else {
            "family": previous.family,
            "usage": previous.usage,
            "held_out": previous.held_out,
            "sep": previous.candidates_sep,
        }
    )
    chosen = {
        key: value if value is not None else kept.get(key, REGISTER_DEFAULTS[key])
        for key, value in [
            ("family", args.family),
            ("usage", args.usage),
            ("held_out", args.held_out),
            ("sep", args.sep),
        ]
    }
    settings = {
        "family": chosen["family"],
        "usage": chosen["usage"],
        "held_out": chosen["held_out"],
        "candidates_sep": chosen["sep"],
    }
    if previous is not None and previous.description is not None:
        settings["description"] = previous.description
    held_out_from = args.held_out_from or (previous.held_out_from if previous else ())
    if held_out_from:
        settings["held_out_from"] = tuple(held_out_from)
        if args.held_out is None:  # naming what it is held out from says it is held out
            settings["held_out"] = True
        elif not settings["held_out"]:
            raise ValueError(
                f"--no-held-out, but the env is held out from {', '.join(held_out_from)} "
                "(--held-out-from, or the env file's held_out_from): drop --no-held-out, or "
                "remove held_out_from from the env file"
            )
    kwargs = parse_kwargs(args.kwarg) if args.kwarg else (previous.kwargs if previous else {})
    if kwargs:
        settings["kwargs"] = kwargs
    return settings


def _check_save_target(args: argparse.Namespace) -> EnvFileEntry | None:
    """Refuse, before any work, a --save that would overwrite something else: the data file
    itself, a folder, or a file that is not this env's env file (a hand-written one listing
    several envs included). Rewriting this env's own env file (an update) is allowed: its
    entry is returned."""
    from tomgym.env_files import EnvFileError, check_separator_free, read_env_file

    target = Path(args.save).expanduser()
    check_separator_free(os.path.abspath(target))  # --env-file could not take it
    if target.is_dir():
        raise ValueError(f"--save {args.save} is a folder: give the env file's name in it")
    if target.suffix.lower() != ".json":
        raise ValueError(f"--save {args.save}: an env file is JSON: give a name ending in .json")
    if not target.exists():
        return None
    if target.resolve() == Path(args.file).expanduser().resolve():
        raise ValueError(f"--save {args.save} is the data file itself: give another name")
    try:
        entries = read_env_file(target)
    except EnvFileError as exc:  # a broken env file may be hand-written work: not overwritten
        raise ValueError(
            f"--save {args.save} exists and is not a valid env file, so writing it could lose "
            f"what it holds: fix or remove it, or give another name ({exc})"
        ) from None
    if [e.id for e in entries] != [args.id]:
        raise ValueError(
            f"--save {args.save} exists and is not the env file of {args.id} alone, so "
            "writing it would lose what it holds: remove it or give another name"
        )
    return entries[0]


def _id_taken(args: argparse.Namespace) -> None:
    """A registered --id is refused, naming who registered it; the env of the env file being
    rewritten (--save, from --env-file or $TOMGYM_ENV_FILES) gives way to the update."""
    from tomgym.env_files import env_file_of
    from tomgym.registry import unregister_tom_env

    owner = env_file_of(args.id)
    if owner is not None and args.save and Path(args.save).expanduser().resolve() == owner:
        unregister_tom_env(args.id)
        return
    by = f"by the env file {owner}" if owner else "(built in, by a plugin or by a script)"
    raise ValueError(f"{args.id} is already registered {by}; choose another --id")


def _save_env_file(
    args: argparse.Namespace,
    mapping: dict[str, Any],
    settings: dict[str, Any],
    spec: ToMEnvSpec,
    previous: EnvFileEntry | None,
) -> Path:
    """The env file of this registration. Its data path is relative where the data lies in
    the env file's folder or below (the two move together), else absolute (the env file may
    move alone); a link is kept as given (``latest.csv``), not followed to its target. An
    update says which fields it changed."""
    from tomgym.env_files import EnvFileEntry, record_written, write_env_file

    target = Path(args.save).expanduser()
    data = Path(os.path.abspath(Path(args.file).expanduser()))
    folder = Path(os.path.abspath(target)).parent
    written = data.relative_to(folder) if data.is_relative_to(folder) else data
    entry = EnvFileEntry.model_validate(
        {
            "id": args.id,
            "data": Path(written).as_posix(),
            "columns": {field: column for field, column in mapping.items() if column},
            **settings,
        }
    )
    if previous is not None:
        old, new = previous.model_dump(), entry.model_dump()
        changed = [f"{k}: {old[k]!r} -> {new[k]!r}" for k in new if old[k] != new[k]]
        print(f"updating {target}: " + ("; ".join(changed) if changed else "nothing changed"))
    written_at = write_env_file(target, entry)
    record_written(written_at, data, spec)
    return written_at


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``data`` (status, fetch, splits, audit) and ``register`` to the ``tomgym`` parser."""
    from tomgym.audit import AUDITS
    from tomgym.data import DATASETS, RELEASE_FILES

    data = subparsers.add_parser("data", help="dataset releases: status, fetch, splits, audit")
    sub = data.add_subparsers(dest="data_command", required=True)

    p = sub.add_parser("status", help="which release files are under the data root")
    p.add_argument("--no-checksums", action="store_true", help="skip the sha256 checks")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("fetch", help="download a release from its authors' public URLs")
    direct = sorted({f.dataset for f in RELEASE_FILES if f.url})
    by_hand = sorted(set(DATASETS) - set(direct))
    p.add_argument(
        "name",
        choices=sorted(DATASETS),
        help=f"downloadable: {', '.join(direct)}"
        + (
            f"; {', '.join(by_hand)} have no direct download URL (the command says where the "
            "authors publish them and which files to put where)"
            if by_hand
            else ""
        ),
    )
    p.add_argument("--timeout", type=positive_float, default=5.0, help="seconds before giving up")
    p.set_defaults(handler=cmd_fetch)

    p = sub.add_parser("splits", help="split sizes and story leakage (exit 1 on leakage)")
    p.add_argument("datasets", nargs="*", metavar="DATASET", help=", ".join(SPLIT_DATASETS))
    p.set_defaults(handler=cmd_splits)

    p = sub.add_parser(
        "audit",
        help="how many release labels contradict the story's rules (exit 1: a release missing)",
    )
    p.add_argument("datasets", nargs="*", metavar="DATASET", help=", ".join(AUDITS))
    p.add_argument(
        "--examples", type=non_negative_int, default=3, help="examples per question type"
    )
    p.add_argument(
        "--out", type=output_path, metavar="FILE.json", help="write the full reports as JSON"
    )
    p.set_defaults(handler=cmd_audit)

    p = subparsers.add_parser(
        "register",
        help="validate a JSONL/CSV/parquet file as a ToM env and preview it",
        description=(
            "Validate a data file as a ToM env and print its spec. A registration made on the "
            "command line lives only in that process: --save writes it as an env file, which "
            "every other command takes as --env-file (and Python as "
            "tomgym.env_files.register_env_file())."
        ),
    )
    p.add_argument("file")
    p.add_argument("--id", required=True, help="the env ID, e.g. My-ToM-v0")
    for field in ("story", "question", "answer"):
        p.add_argument(f"--{field}", default=field, metavar="COL", help=f"{field} column")
    for field in ("candidates", "order", "aliases", "answer-type", "question-type", "split"):
        p.add_argument(f"--{field}", default=None, metavar="COL", help=f"{field} column")
    p.add_argument("--id-column", default=None, metavar="COL", help="item id column")
    # None where not given: an update (--save onto the env's own env file) keeps the file's
    p.add_argument("--sep", default=None, help="separator of CSV list columns (default |)")
    p.add_argument("--family", default=None, help="the env's family (default custom)")
    p.add_argument("--usage", choices=("train", "eval-only"), default=None, help="(default train)")
    p.add_argument(
        "--held-out",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="held out from training (default: no)",
    )
    p.add_argument(
        "--held-out-from",
        action="append",
        default=None,
        metavar="ID",
        help="an env this one is held out from, its in-distribution env (repeatable; implies "
        "--held-out)",
    )
    add_pairs_option(
        p,
        "--kwarg",
        "a default keyword argument of the env, e.g. reward=lenient (repeatable; the value as "
        "JSON or a Python literal, else a string)",
    )
    p.add_argument(
        "--show", type=non_negative_int, default=0, metavar="N", help="print the first N prompts"
    )
    p.add_argument(
        "--save",
        type=output_path,
        metavar="FILE.json",
        help="write the registration as an env file, for --env-file (eval, export, train)",
    )
    p.set_defaults(handler=cmd_register)
