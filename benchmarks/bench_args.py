"""Command-line helpers shared by the benchmark scripts.

Where the results go is checked when the arguments are parsed, so a bad path fails before
anything is measured; the command a results file records is built from the parser, so it
names every option that can change a figure.
"""

from __future__ import annotations

import argparse
import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tomgym.cli_args import output_path

RESULTS = Path(__file__).resolve().parent / "results"
"""Where the benchmarks write their figures by default; the README quotes them from here."""
OUTPUT_OPTIONS = frozenset({"results_dir", "out"})
"""Options that say where results are written: left out of the recorded command."""


def make_parser(file: str, doc: str | None) -> argparse.ArgumentParser:
    """A script's parser: its file name as ``prog`` (the recorded command names it) and the
    first paragraph of its docstring as the ``--help`` description."""
    return argparse.ArgumentParser(prog=Path(file).name, description=(doc or "").split("\n\n")[0])


def results_dir(text: str) -> Path:
    """An argparse type: a folder to write results into (made later if missing).

    :func:`tomgym.cli_args.output_path`'s checks, an existing file refused, and a file made
    and removed in the nearest existing folder on the way (``os.access`` lets root through
    where nothing can be written, such as ``/proc``).
    """
    path = Path(output_path(text))
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a file, not a folder")
    _check_writable(path)
    return path


def add_results_dir(parser: argparse.ArgumentParser) -> None:
    """``--results-dir``: where a script writes its .md and .json (checked by
    :func:`results_dir` when the arguments are parsed; default benchmarks/results)."""
    parser.add_argument(
        "--results-dir",
        type=results_dir,
        default=RESULTS,
        help="where the .md and .json go (default: benchmarks/results)",
    )


def results_prefix(text: str) -> Path:
    """An argparse type: a path prefix OUT whose ``OUT.json`` and ``OUT.md`` are written
    (by ``Path.with_suffix``, as vs_lm_eval writes them); both must be writable files."""
    path = Path(output_path(text))
    if not path.name or path.name in (".", "..") or path.is_dir():
        raise argparse.ArgumentTypeError(
            f"{text} is a folder, but this is a path prefix OUT (OUT.json and OUT.md are "
            "written): give one such as DIR/run"
        )
    for suffix in (".json", ".md"):
        target = Path(output_path(str(path.with_suffix(suffix))))
        if target.is_dir():
            raise argparse.ArgumentTypeError(f"{target} is a folder, so it cannot be written")
    _check_writable(path)
    return path


def input_file(text: str) -> Path:
    """An argparse type: an existing file to read."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"{path} is not a file")
    return path


def registered_env(text: str) -> str:
    """An argparse type: a registered env ID (an unknown one names the nearest IDs)."""
    from tomgym.registry import UnknownEnvError, get_spec

    try:
        get_spec(text)
    except UnknownEnvError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def check_env(parser: argparse.ArgumentParser, env: str, **kwargs: object) -> None:
    """Make ``env`` once before anything is measured; tomgym's refusal (an unknown ID, a split
    the env lacks, a bad kwarg, missing data) ends the run as an argument error."""
    import tomgym
    from tomgym.data import MissingDataError
    from tomgym.env import EnvArgumentError
    from tomgym.registry import UnknownEnvError

    try:
        tomgym.make(env, **kwargs).close()
    except (UnknownEnvError, EnvArgumentError, MissingDataError) as exc:
        parser.error(str(exc))


def recorded_command(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    leave_out: Sequence[str] = tuple(OUTPUT_OPTIONS),
) -> str:
    """``python benchmarks/NAME.py`` and every option with its value, defaults included, so
    that a results file says how to reproduce it. Lists are spelled out, a flag appears only
    when set, an option left at None is left out, and so are the options in ``leave_out``
    (where results are written). Values are quoted for the shell."""
    parts = [f"python benchmarks/{parser.prog}"]
    for action in parser._actions:
        if action.dest in leave_out or action.default == argparse.SUPPRESS:
            continue  # an output, or --help
        value = getattr(args, action.dest, None)
        if value is None:
            continue
        flags = action.option_strings
        flag = next((f for f in flags if f.startswith("--")), flags[0]) if flags else ""
        if action.nargs == 0:  # store_true and the like
            if value == action.const and value != action.default:
                parts.append(flag)
            continue
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        parts += ([flag] if flag else []) + [shlex.quote(str(v)) for v in values]
    return " ".join(parts)


def _check_writable(path: Path) -> None:
    """Make and remove a file in ``path`` or the nearest existing folder on the way to it."""
    folder = path
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise argparse.ArgumentTypeError(
            f"{path} cannot be written: making a file in {folder} fails ({exc.strerror})"
        ) from None
