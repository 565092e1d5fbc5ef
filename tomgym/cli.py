"""The ``tomgym`` command: Theory-of-Mind benchmarks as Gymnasium text envs. List, show and check
envs, evaluate agents and tabulate leaderboards, export training data and train, audit shortcuts."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tomgym.cli_args import (
    add_pairs_option,
    debugging,
    non_negative_int,
    output_path,
    parse_kwargs,
    positive_int,
)

Handler = Callable[[argparse.Namespace], int]

DESCRIPTION = (
    "Theory-of-Mind benchmarks as Gymnasium text envs: list, show and check envs, evaluate "
    "agents and tabulate leaderboards, export training data and train, audit shortcuts."
)
EPILOG = (
    "Options --data-dir, --env-file and --debug go before or after the subcommand. Errors "
    "print one line; "
    "--debug (or TOMGYM_DEBUG=1) shows the full traceback instead."
)
RESUMABLE = {
    "eval": "; rerun the same command to resume",
    "leaderboard": "; rerun the same command to resume",
    "train": "; rerun the same command to resume from the last checkpoint saved",
}
"""What an interrupted command says about going on."""
DEFAULT_PROMPT = "default"


def _table(rows: Sequence[Sequence[object]], header: Sequence[str]) -> str:
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_list(args: argparse.Namespace) -> int:
    import tomgym

    specs = tomgym.list_envs(family=args.family)
    if args.json:
        print(json.dumps([s.model_dump(exclude={"kwargs"}) for s in specs], indent=2, default=str))
        return 0
    rows = [
        (
            s.id,
            s.family,
            s.order_label,
            s.split,
            "yes" if s.held_out else "serves some" if s.serves_held_out else "no",
            s.usage,
            s.size_label,
        )
        for s in specs
    ]
    print(_table(rows, ("id", "family", "order", "split", "held-out", "usage", "size")))
    print(LIST_LEGEND)
    return 0


LIST_LEGEND = (
    "split: the items the ID serves when made without split= (an env with splits takes "
    "split='train', 'val' or 'test'); held-out: evaluation reports it apart and training "
    "warns ('serves some': it holds a held-out env's items, or a kwarg such as "
    "vocab_split='test' makes it serve some); "
    "usage: eval-only envs are refused by training and export; size: items (procedural: "
    "generated on the spot, unbounded)"
)
"""What `tomgym list`'s columns mean, printed under its table."""


def cmd_show(args: argparse.Namespace) -> int:
    import tomgym
    from tomgym.sources import PROCEDURAL_INDEX_LIMIT

    kwargs = parse_kwargs(args.kwarg)
    if "prompt" in kwargs and args.prompt != DEFAULT_PROMPT:
        raise ValueError("give the prompt once: --prompt NAME or --kwarg prompt=..., not both")
    kwargs.setdefault("prompt", args.prompt)
    if args.split is not None:
        if "split" in kwargs:
            raise ValueError("give the split once: --split NAME or --kwarg split=..., not both")
        kwargs["split"] = args.split
    env = tomgym.make(args.env_id, **kwargs)
    options = {"index": args.index} if args.index is not None else None
    if args.index is not None and args.seed is not None:
        print("tomgym show: note: --seed picks a random item; --index names one", file=sys.stderr)
    try:
        prompt, info = env.reset(seed=args.seed, options=options)
    except IndexError:
        size = getattr(env.unwrapped, "size", None)
        has = (
            f"has {size} items (0..{size - 1})"
            if size
            else f"is procedural; use 0..{PROCEDURAL_INDEX_LIMIT - 1}"
        )
        raise IndexError(f"--index {args.index} is out of range: {args.env_id} {has}") from None
    item = env.current_item
    assert item is not None
    print(prompt)
    print("\n" + "=" * 72)
    print(
        f"env: {args.env_id}  item: {item.id}  index: {info['index']}  split: {item.split}  "
        f"order: {item.order}"
    )
    own = getattr(env.unwrapped, "source_kwargs", {}).get("split") or item.split
    if args.split is None and "split" not in kwargs:
        asked = _eval_split(args.env_id, kwargs)
        if asked is not None and asked != own:
            print(
                f"tomgym show: note: this is the env's default split {own!r}; `tomgym eval` "
                f"asks the {asked} split unless told otherwise (--split {asked} shows its "
                "items)",
                file=sys.stderr,
            )
    print(f"question type: {item.question_type}  answer type: {item.answer_type}")
    if item.candidates:
        print(f"candidates: {', '.join(item.candidates)}")
    print(f"gold answer: {item.gold_text}")
    return 0


def _eval_split(env_id: str, kwargs: dict[str, Any]) -> str | None:
    """The split `tomgym eval` asks of the env by default (test, else its held-out val)."""
    import contextlib
    import io

    from tomgym.eval.targets import open_env

    try:
        with contextlib.redirect_stderr(io.StringIO()):  # the eval's own notes, not show's
            _, used = open_env(env_id, kwargs, "test")
    except Exception:  # show has shown the item: no note is better than a failure here
        return None
    split = used.get("split")
    return split if isinstance(split, str) else None


def cmd_check(args: argparse.Namespace) -> int:
    import tomgym
    from tomgym.checks import check_tom_env
    from tomgym.data import DamagedDataError, MissingDataError

    for env_id in args.env_ids:
        tomgym.get_spec(env_id)  # an unknown ID is a usage error, named before any check runs
    ids = list(dict.fromkeys(args.env_ids)) or [s.id for s in tomgym.list_envs()]
    failed = skipped = unchecked = 0
    for env_id in ids:
        try:
            report = check_tom_env(env_id, n_items=args.items)
        except DamagedDataError as exc:  # installed but unreadable: a finding, not a skip
            print(f"FAIL {env_id}: {exc}")
            failed += 1
            continue
        except MissingDataError as exc:  # not installed here: nothing to check, not a failure
            if args.env_ids:  # ... unless it was named: then it could not be checked
                print(f"FAIL {env_id}: not checked: {exc.brief}")
                failed += 1
                unchecked += 1
            else:
                print(f"skip {env_id}: {exc.brief}")  # `tomgym data status` says more
                skipped += 1
            continue
        except Exception as exc:  # report it and go on to the next env
            print(f"FAIL {env_id}: {type(exc).__name__}: {exc}")
            failed += 1
            continue
        status = "ok  " if report.ok else "FAIL"
        size = tomgym.get_spec(env_id).size
        of = f" of {size}" if size is not None and size > report.checked_items else ""
        more = "; --items N checks more" if of else ""
        print(f"{status} {env_id} ({report.checked_items}{of} items{more})")
        for problem in report.problems:
            print(f"     - {problem}")
        failed += not report.ok
    tail = f", {skipped} skipped (release not installed)" if skipped else ""
    print(f"{len(ids) - failed - skipped} passed, {failed} failed{tail}")
    # A named env whose data file is missing is a mistake in the set-up (status 2, as for
    # every command); an env that failed its checks is a finding (status 1).
    return 0 if not failed else 2 if failed == unchecked else 1


def _json_kind(value: object) -> str:
    """What a JSON value is, in JSON's words ("null", "a list"), for an error message."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return "empty" if not value.strip() else "text"
    kinds = {bool: "true/false", int: "a number", float: "a number", list: "a list"}
    return kinds.get(type(value), "an object")


def cmd_oracle(args: argparse.Namespace) -> int:
    import tomgym
    from tomgym.answers import words
    from tomgym.world.parse import UnknownSentenceError

    path = Path(args.file)
    out = Path(args.out) if args.out else path.with_suffix(".disagreements.jsonl")
    modes = tomgym.SOLVE_MODES.get(args.family, ())
    if args.mode not in modes:  # refused up front, not once per line as a disagreement
        raise ValueError(
            f"--family {args.family} has the mode(s) {', '.join(modes)}, not --mode {args.mode}"
        )
    if out.is_dir():
        raise ValueError(f"--out {out} is a folder: name the file to write the disagreements to")
    if out.exists() and path.exists() and out.samefile(path):
        raise ValueError(
            f"--out {out} is the input file itself: the disagreements would overwrite it "
            "(leave --out out, or name another file)"
        )
    if not path.is_file():
        raise ValueError(
            f"{path} {'is a folder' if path.is_dir() else 'does not exist'}: give a JSONL file "
            "of story, question and answer records"
        )
    records, problems = [], []
    with path.open("rb") as src:
        for line_no, raw in enumerate(src, 1):
            try:  # a byte-order mark is no part of the first record
                line = raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                problems.append(f"line {line_no}: not UTF-8 text (byte {exc.start + 1})")
                continue
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"line {line_no}: not a JSON object ({exc.msg})")
                continue
            if not isinstance(record, dict):
                problems.append(f"line {line_no}: not a JSON object")
                continue
            missing = [key for key in ("story", "question", "answer") if key not in record]
            if missing:
                keys = ", ".join(sorted(record)) or "none"
                problems.append(f"line {line_no}: no {', '.join(missing)} (its keys: {keys})")
                continue
            not_text = [
                f"{key} is {_json_kind(record[key])}, not text"
                for key in ("story", "question")
                if not isinstance(record[key], str) or not record[key].strip()
            ] + (
                [f"answer is {_json_kind(record['answer'])}, not text or a number"]
                if isinstance(record["answer"], (bool, list, dict)) or record["answer"] is None
                else []
            )
            if not_text:
                problems.append(f"line {line_no}: {'; '.join(not_text)}")
                continue
            records.append((line_no, record["story"], record["question"], record["answer"]))
    if problems:  # every bad line named, and nothing written
        more = f"; and {len(problems) - 10} more" if len(problems) > 10 else ""
        shown = "; ".join(problems[:10]) + more
        raise ValueError(
            f"{path}: the oracle reads JSON lines, each an object with story, question and "
            f"answer: {shown}"
        )
    if not records:
        raise ValueError(f"{path} holds no lines to check (one JSON object per line)")
    if out.exists():
        print(f"tomgym oracle: note: replacing {out}", file=sys.stderr)
    n = agree = unanswered = 0
    unread: list[tuple[str, str]] = []  # (story, question) the parser could not read
    with out.open("w", encoding="utf-8") as bad:
        for line_no, story, question, gold in records:
            n += 1
            try:
                ours: str | None = tomgym.solve(story, question, family=args.family, mode=args.mode)
                error = None
            except UnknownSentenceError as exc:
                ours, error = None, str(exc)
                unread.append((story, question))
            except ValueError as exc:  # read, but it asks what the story never places
                ours, error = None, str(exc)
                unanswered += 1
            # As the judge reads answers: case, articles, "_" and punctuation aside.
            if ours is not None and words(ours) == words(str(gold)):
                agree += 1
            else:
                bad.write(
                    json.dumps(
                        {
                            "line": line_no,
                            "question": question,
                            "gold": gold,
                            "oracle": ours,
                            "error": error,
                        }
                    )
                    + "\n"
                )
    print(f"n: {n}")
    print(f"agree: {agree}")
    print(f"disagreements written to: {out}")
    rate = agree / n if n else 0.0
    print(f"agreement: {rate:.4f} ({agree}/{n})")
    if unread:
        other = "tomi" if args.family == "hitom" else "hitom"
        hint = (
            f": is the file {other}'s? (--family {other} reads them)"
            if len(unread) > n / 2 and _reads_as(other, unread)
            else f" (their reasons are in {out}, under 'error')"
        )
        print(
            f"note: the {args.family} parser could not read {len(unread)} of {n} stories or "
            f"questions{hint}",
            file=sys.stderr,
        )
    if unanswered:
        print(
            f"note: {unanswered} of {n} questions ask where the story never places the object "
            f"for those agents (read, but no answer; the reasons are in {out})",
            file=sys.stderr,
        )
    return 0


ORACLE_FAMILY_PROBE = 20
"""Unread records tried with the other family before `tomgym oracle` suggests it."""


def _reads_as(family: str, records: list[tuple[str, str]]) -> bool:
    """Whether the other family's parser reads most of the first unread records."""
    import tomgym
    from tomgym.world.parse import UnknownSentenceError

    probe = records[:ORACLE_FAMILY_PROBE]
    read = 0
    for story, question in probe:
        try:
            tomgym.solve(story, question, family=family)
        except UnknownSentenceError:
            continue
        except ValueError:
            pass  # read, though it places nothing for the question
        read += 1
    return read > len(probe) / 2


def _add_global_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--data-dir", default=default, help="root of the dataset releases (else $TOMGYM_DATA)"
    )
    parser.add_argument(
        "--env-file",
        # given after the subcommand, kept apart: argparse would replace the earlier list
        dest="env_file" if default is None else "env_file_after",
        action="append",
        default=default,
        metavar="FILE.json",
        help="register a data file's env from its env file (made by `tomgym register --save`) "
        "here and in the workers this command starts (repeatable; also $TOMGYM_ENV_FILES)",
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        default=default,
        help="on an error, show the traceback (also TOMGYM_DEBUG=1)",
    )


def _subparsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """Every (nested) subcommand parser below ``parser``, each once."""
    seen: set[int] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if id(child) not in seen:
                    seen.add(id(child))
                    yield child
                    yield from _subparsers(child)


def _finish_subcommands(parser: argparse.ArgumentParser) -> None:
    """Accept the global options after any subcommand too.

    After the subcommand, ``--data-dir`` and ``--debug`` default to SUPPRESS, so they override
    the ones given before it only when given.
    """
    for child in _subparsers(parser):
        _add_global_options(child, argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tomgym", description=DESCRIPTION, epilog=EPILOG)
    from tomgym import __version__

    parser.add_argument("--version", action="version", version=f"tomgym {__version__}")
    _add_global_options(parser, None)
    parser.set_defaults(debug=False)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="every registered ToM env ID with its metadata")
    p.add_argument("--family", help="only this family (hitom, tomi, exploretom, ...)")
    p.add_argument("--json", action="store_true", help="the full specs as JSON")
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("show", help="the prompt a model sees and the gold answer")
    p.add_argument("env_id")
    p.add_argument(
        "--seed", type=non_negative_int, default=None, help="seed of reset's random item pick"
    )
    p.add_argument("--index", type=int, default=None, help="the item to show (else a random one)")
    p.add_argument(
        "--split", default=None, help="the split to show an item of (default: the env's own)"
    )
    p.add_argument("--prompt", default=DEFAULT_PROMPT, help="prompt preset (default, tomrl, cot)")
    add_pairs_option(
        p,
        "--kwarg",
        "env keyword argument, the value as JSON or a Python literal (True, (1, 2), ...), else "
        "a string (repeatable)",
    )
    p.set_defaults(handler=cmd_show)

    p = sub.add_parser("check", help="conformance checks (all registered IDs by default)")
    p.add_argument("env_ids", nargs="*")
    p.add_argument("--items", type=positive_int, default=5, help="items per env to probe")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("oracle", help="agreement of the world-simulator oracle with a JSONL file")
    p.add_argument("file", help="JSONL lines with story, question, answer")
    p.add_argument("--family", choices=("hitom", "tomi"), default="hitom")
    p.add_argument("--mode", choices=("rules", "release"), default="rules")
    p.add_argument(
        "--out",
        type=output_path,
        help="where to write the disagreements (default: FILE with .jsonl replaced by "
        ".disagreements.jsonl)",
    )
    p.set_defaults(handler=cmd_oracle)

    from tomgym.data_commands import add_commands as add_data_commands
    from tomgym.eval.commands import add_commands as add_eval_commands
    from tomgym.generalisation_commands import add_commands as add_generalisation_commands
    from tomgym.train.commands import add_commands as add_train_commands

    add_data_commands(sub)
    add_eval_commands(sub)
    add_train_commands(sub)
    add_generalisation_commands(sub)
    _finish_subcommands(parser)
    return parser


def _user_errors() -> tuple[type[BaseException], ...]:
    """Errors a user can cause (bad input, missing files or packages, offline): one line each.

    ValueError covers the package's own ItemError, DataFileError, SuiteError, ExportError,
    RunConflictError, ...; KeyError covers UnknownEnvError; OSError covers MissingDataError
    and the files and model downloads that fail. The RuntimeErrors listed are the package's.
    """
    from tomgym.data import DownloadError
    from tomgym.eval.plots import PlotsUnavailable

    return (
        KeyError,
        ValueError,
        TypeError,
        IndexError,
        OSError,
        ImportError,
        DownloadError,
        PlotsUnavailable,
    )


def _message(exc: BaseException) -> str:
    if type(exc) is KeyError and len(exc.args) == 1:
        return str(exc.args[0])  # KeyError's str() would quote it
    return str(exc) or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # said by the subcommand's own parser: its usage, and the nearest option
        _subcommand_parser(parser, args.command).error(_unrecognized(extra, parser, args.command))
    debug = debugging(args)
    prog = f"tomgym {args.command}"
    handler: Handler = args.handler
    with warnings.catch_warnings(), _terminate_as_interrupt():
        if not debug:  # one line each, as errors are, not the warning's file and source line
            warnings.showwarning = _one_line_warning(prog)
        return _run(handler, args, prog, debug)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, Slurm, ``docker stop``, ``kill``), handled as Ctrl-C is: an
    evaluation rewrites its summary and an export removes its partial file before exiting."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Within it, SIGTERM raises :class:`Terminated` (in the main thread, which alone can
    take a signal handler); the previous handler is restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _subcommand_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:  # argparse keeps its subparsers in the choices of this one
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]  # type: ignore[no-any-return]
    return parser


def _unrecognized(extra: Sequence[str], parser: argparse.ArgumentParser, command: str) -> str:
    """argparse's message for stray arguments, with the closest option of the subcommand."""
    options = [
        flag
        for action in _subcommand_parser(parser, command)._actions
        for flag in action.option_strings
    ]
    hints = [
        f"{arg!r}: did you mean {close[0]!r}?"
        for arg in extra
        if arg.startswith("--")
        for close in [difflib.get_close_matches(arg.split("=", 1)[0], options, n=1)]
        if close
    ]
    said = f"unrecognized arguments: {' '.join(extra)}"
    return said + (f" ({'; '.join(hints)})" if hints else "")


_ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def _one_line_warning(prog: str) -> Callable[..., None]:
    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        # Gymnasium colours its own warnings: the escape codes are noise in a log or a pipe.
        print(f"{prog}: warning: {_ANSI_COLOUR.sub('', str(message))}", file=sys.stderr)

    return show


def _run(handler: Handler, args: argparse.Namespace, prog: str, debug: bool) -> int:
    try:
        if args.data_dir:
            from tomgym.data import set_data_root

            set_data_root(args.data_dir)
        env_files = [*(args.env_file or ()), *getattr(args, "env_file_after", ())]
        if env_files:
            from tomgym.env_files import use_env_files

            use_env_files(env_files)
        return handler(args)
    except KeyboardInterrupt as exc:
        if debug:
            raise
        resume = RESUMABLE.get(args.command, "")
        terminated = isinstance(exc, Terminated)
        print(f"\n{prog}: {'terminated' if terminated else 'interrupted'}{resume}", file=sys.stderr)
        return 143 if terminated else 130
    except BrokenPipeError:  # `tomgym list | head`: the reader left, nothing to report
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except _user_errors() as exc:
        if debug:
            raise
        print(f"{prog}: error: {_message(exc)}{_unnamed_file(exc, args)}", file=sys.stderr)
        return 2


def _unnamed_file(exc: BaseException, args: argparse.Namespace) -> str:
    """For an operating-system error that names no file ("No space left on device"), the
    command's --out, which it was most likely writing. Not for tomgym's own errors of that
    type (no errno: "runs/x: no such directory" is about an input, and names it)."""
    out = getattr(args, "out", None)
    if not isinstance(exc, OSError) or exc.errno is None or exc.filename:
        return ""
    if not out or str(out) in str(exc):
        return ""
    return f" (writing --out {out})"


if __name__ == "__main__":
    sys.exit(main())
