"""Command-line helpers shared by every ``tomgym`` subcommand module."""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PYTHON_CONSTANTS: dict[str, Any] = {"True": True, "False": False, "None": None}
"""Python spellings read as what they say (JSON's ``true``, ``false``, ``null`` parse anyway)."""


def debugging(args: argparse.Namespace) -> bool:
    """Whether ``--debug`` (or ``TOMGYM_DEBUG=1``) asks for tracebacks: a command that turns
    its errors into one line re-raises them then."""
    return bool(getattr(args, "debug", False)) or os.environ.get("TOMGYM_DEBUG", "") not in (
        "",
        "0",
    )


def add_pairs_option(parser: argparse.ArgumentParser, flag: str, help: str) -> None:
    """A repeatable ``--flag KEY=VALUE`` option (values read by :func:`parse_kwargs`)."""
    parser.add_argument(flag, action="append", default=[], metavar="KEY=VALUE", help=help)


def parse_kwargs(pairs: Sequence[str], option: str = "--kwarg") -> dict[str, Any]:
    """``--kwarg KEY=VALUE`` pairs as a dict.

    A value is JSON when it parses (``0.5``, ``true``, ``null``, ``[2, 3]``, ``{"a": 1}``), one
    of Python's ``True``, ``False`` and ``None``, a Python tuple, list or dict literal
    (``(3,)``), or else the string itself. So
    ``deception=False`` is the bool False, never the string ``"False"`` (which is truthy).
    """
    kwargs: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"{option} takes KEY=VALUE, got {pair!r}")
        key, raw = pair.split("=", 1)
        if not key.strip():
            raise ValueError(f"{option} takes KEY=VALUE, got {pair!r} (no key)")
        if key in kwargs:
            raise ValueError(f"{option} {key} is given twice: give it once")
        if raw in PYTHON_CONSTANTS:
            kwargs[key] = PYTHON_CONSTANTS[raw]
            continue
        try:
            kwargs[key] = json.loads(raw)
        except json.JSONDecodeError:
            kwargs[key] = _python_literal(raw)
    return kwargs


def output_path(text: str) -> str:
    """An argparse type: a path to write to, checked before any work is done.

    Not blank (``--out "$DIR"`` with ``DIR`` unset would write into the current directory);
    ``~`` expanded (the shell leaves ``--out=~/x`` alone); and writable: the nearest existing
    folder on the way must be a folder one may write in (missing ones are created later), and
    an existing path must be writable. Otherwise a long evaluation or audit would run first and
    fail only when it saves.
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: give a path (an unset shell variable?)")
    path = Path(os.path.expanduser(text))
    if path.is_symlink() and not path.exists():
        raise argparse.ArgumentTypeError(
            f"{path} is a link to {os.readlink(path)}, which does not exist: create that, or "
            "give another path"
        )
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"{path}: permission denied (not writable)")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if folder.exists() and not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{folder} is a file, so {path} cannot be made under it")
    if folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{folder}: permission denied (cannot write in it)")
    return str(path)


def _python_literal(raw: str) -> Any:
    """A Python container literal as written in the README (``(3,)``, ``{'a': 1}``), else the
    string itself (``test``, ``train``: plain words stay strings)."""
    if raw[:1] in "([{":
        try:
            return ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            pass
    return raw


def positive_int(text: str) -> int:
    """An argparse type: an int of at least 1 (counts of items, workers, tokens, ...)."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: an int of at least 0 (counts where 0 means none)."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None


def positive_float(text: str) -> float:
    """An argparse type: a finite number above 0 (a timeout, a duration)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number above 0, got {text}")
    return value


def non_negative_float(text: str) -> float:
    """An argparse type: a finite number of at least 0 (a KL weight, where 0 turns it off)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number of at least 0, got {text}")
    return value
