"""Register a ToM env from your own JSONL, CSV or parquet file, with a column mapping.

Every bad row is reported by line and field, and nothing is registered unless all rows are valid.
"""

from __future__ import annotations

import ast
import csv
import dataclasses
import difflib
import inspect
import json
import math
import numbers
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tomgym.answers import phrase_of, split_names
from tomgym.items import (
    ItemError,
    ToMItem,
    default_answer_type,
    describe_error,
    gold_as_its_candidate,
)
from tomgym.registry import ToMEnvSpec, Usage, register_tom_env

FIELDS = (
    "id",
    "story",
    "question",
    "answer",
    "candidates",
    "order",
    "answer_type",
    "aliases",
    "question_type",
    "split",
)
"""Item fields a file column can fill; story, question and answer are required."""
REQUIRED = ("story", "question", "answer")
LIST_FIELDS = ("candidates", "aliases")
MAX_LISTED = 20
MAX_COLUMNS = 30
SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet"}

Row = tuple[int, Mapping[str, Any]]
"""A row of a file with its number (JSONL/CSV: the line; parquet: the row, from 1)."""


@dataclass(frozen=True)
class RowProblem:
    """One thing wrong with one row: where it is, which item field, and what."""

    where: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: field '{self.field}': {self.message}"


class DataFileError(ItemError):
    """A data file has bad rows; ``problems`` lists them all, the message the first few."""

    def __init__(self, source: str, problems: Sequence[RowProblem]) -> None:
        self.problems = list(problems)
        listed = "\n".join(f"  - {p}" for p in self.problems[:MAX_LISTED])
        more = len(self.problems) - MAX_LISTED
        tail = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(
            f"{source}: {len(self.problems)} problem(s); nothing was registered:\n{listed}{tail}"
        )


def read_rows(path: str | Path) -> tuple[list[Row], list[RowProblem], str]:
    """The rows of a JSONL, CSV or parquet file, the rows that could not be read, and the unit.

    The unit is ``"line"`` (JSONL, CSV: the file's line number) or ``"row"`` (parquet). Text
    files must be UTF-8 (a BOM is fine); another encoding is an error naming the line.
    """
    file = Path(path)
    kind = SUFFIXES.get(file.suffix.lower())
    if kind is None:
        raise ValueError(f"{file}: unknown file type {file.suffix!r}; use .jsonl, .csv or .parquet")
    if file.is_dir():
        raise IsADirectoryError(f"{file} is a directory, not a data file")
    if not file.is_file():
        raise FileNotFoundError(f"{file} does not exist")
    if kind == "parquet":
        return _read_parquet(file), [], "row"
    try:
        if kind == "jsonl":
            return *_read_jsonl(file), "line"
        return *_read_csv(file), "line"
    except UnicodeDecodeError as exc:
        raise DataFileError(str(file), [_encoding_problem(file, exc)]) from None


def _encoding_problem(file: Path, exc: UnicodeDecodeError) -> RowProblem:
    """Where a file stops being UTF-8: its line and the bytes (Excel's "CSV" is often cp1252)."""
    raw = file.read_bytes()
    try:  # the reader's error counts from a buffer's start: decode whole to find the line
        raw.decode("utf-8")
    except UnicodeDecodeError as whole:
        exc = whole
    line = raw.count(b"\n", 0, exc.start) + 1
    return RowProblem(
        f"line {line}",
        "<row>",
        f"not UTF-8 (byte {exc.object[exc.start : exc.start + 1]!r}): save the file as UTF-8 "
        "(in Excel: CSV UTF-8)",
    )


class RepeatedKeyError(ValueError):
    """A JSON object names one key twice."""


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise RepeatedKeyError(f"key {', '.join(map(repr, twice))} appears more than once")
    return dict(pairs)


def _read_jsonl(file: Path) -> tuple[list[Row], list[RowProblem]]:
    rows: list[Row] = []
    problems: list[RowProblem] = []
    with file.open(encoding="utf-8-sig") as fh:  # -sig: drop the BOM some editors write
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line, object_pairs_hook=_object_without_repeats)
            except json.JSONDecodeError as exc:
                # json's own "line 2 column 1" counts the newline ending this one line: the
                # column within it, past its end where the row stops short
                at = min(exc.pos, len(line.rstrip("\r\n"))) + 1
                where = f"{exc.msg} at column {at}"
                problems.append(RowProblem(f"line {number}", "<row>", f"not JSON ({where})"))
                continue
            except RepeatedKeyError as exc:  # json keeps the last value without a word
                problems.append(RowProblem(f"line {number}", "<row>", str(exc)))
                continue
            if not isinstance(record, dict):
                found = type(record).__name__
                problems.append(RowProblem(f"line {number}", "<row>", f"not an object: {found}"))
                continue
            rows.append((number, record))
    return rows, problems


CSV_FIELD_LIMIT = 1 << 30
"""The longest CSV field read (the csv module's default, 128 KiB, is shorter than some stories)."""


def _read_csv(file: Path) -> tuple[list[Row], list[RowProblem]]:
    """Rows numbered by the line they start on (a quoted field may span lines). Blank lines
    before the header, and rows of empty cells anywhere (Excel's trailing ",,,,"), are skipped;
    a quote that is never closed, or text after a closing quote, is an error at its line (a
    lenient reader would merge the following rows into the field)."""
    rows: list[Row] = []
    problems: list[RowProblem] = []
    limit = csv.field_size_limit(CSV_FIELD_LIMIT)
    try:
        with file.open(encoding="utf-8-sig", newline="") as fh:  # Excel writes a BOM
            reader = csv.reader(fh, strict=True)
            try:
                header = next((values for values in reader if values), [])
            except csv.Error as exc:
                return [], [_csv_problem(reader.line_num, exc)]
            nameless = 0  # Excel's trailing ",," after the header: columns of no name
            while header and not header[-1].strip():
                header, nameless = header[:-1], nameless + 1
            twice = sorted({c for c in header if header.count(c) > 1})
            if twice:  # dict(zip(...)) would keep the last one without a word
                named = ", ".join(map(repr, twice))
                hint = " (a trailing separator makes an empty column)" if "" in twice else ""
                message = f"column {named} appears more than once{hint}"
                return [], [RowProblem(f"line {reader.line_num}", "<header>", message)]
            header_line = last = reader.line_num
            while True:
                try:
                    values = next(reader)
                except StopIteration:
                    break
                except csv.Error as exc:
                    problem = _csv_problem(last + 1, exc)
                    hint = _delimiter_hint(header)
                    problems.append(dataclasses.replace(problem, message=problem.message + hint))
                    break  # where the next row starts is unknown
                number, last = last + 1, reader.line_num
                if not any(v.strip() for v in values):  # a blank line, or Excel's ",,,,"
                    continue
                if nameless and not any(v.strip() for v in values[len(header) :]):
                    values = values[: len(header)]  # the nameless columns, empty in this row
                if len(values) != len(header):  # a short row would silently lose fields
                    more, fewer = len(values) - len(header), len(header) - len(values)
                    message = (
                        f"{more} more value(s) than columns"
                        if more > 0
                        else f"{fewer} fewer value(s) than the {len(header)} columns"
                    )
                    if len(header) == 1:  # a title or comment line taken for the header
                        message += f" (the header, line {header_line}, is {header[0]!r} alone)"
                    problems.append(RowProblem(f"line {number}", "<row>", message))
                    continue
                rows.append((number, dict(zip(header, values, strict=False))))
    finally:
        csv.field_size_limit(limit)
    return rows, problems


def _csv_problem(line: int, exc: csv.Error) -> RowProblem:
    """A row the csv module cannot read, most often a quote left open."""
    return RowProblem(
        f"line {line}",
        "<row>",
        f"not valid CSV ({exc}): a quoted field must end with a quote followed by a separator "
        'or the line\'s end, and a quote inside it is written twice ("")',
    )


def _read_parquet(file: Path) -> list[Row]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            f"reading {file} needs pyarrow: pip install 'tomgym[data]' (or pip install pyarrow)"
        ) from None
    return list(enumerate(pq.read_table(file).to_pylist(), 1))


def _as_list(value: Any, sep: str) -> list[str]:
    if isinstance(value, str):
        written = _list_literal(value)
        if written is not None:
            return [text for text in map(_list_element, enumerate(written)) if text]
        return [part.strip() for part in value.split(sep) if part.strip()]
    if isinstance(value, Iterable):
        return [text for text in map(_list_element, enumerate(value)) if text]
    raise ValueError(f"expected a list or a {sep!r}-separated string, got {type(value).__name__}")


def _list_literal(cell: str) -> list[Any] | None:
    """A text cell holding a list as pandas' ``to_csv`` (``['box', 'basket']``) or JSON
    (``["box", "basket"]``) writes one, as that list; None for any other text. Split on a
    separator instead, such a cell would make candidates of its brackets and quotes."""
    text = cell.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if not isinstance(value, list) or any(isinstance(v, (list, dict)) for v in value):
        return None
    return value


BOOLEAN_CELLS = frozenset({"TRUE", "FALSE", "True", "False", "true", "false"})
"""A text cell holding a boolean as a spreadsheet (TRUE) or pandas (True) writes one: an answer
cell reads it as yes or no, as a JSON file's true is, unless a candidate reads as the word
itself (a true or false question whose candidates are True and False: the gold is that one)."""


def _boolean_cell(value: Any) -> bool:
    return isinstance(value, str) and value.strip() in BOOLEAN_CELLS


def _list_element(numbered: tuple[int, Any]) -> str:
    """One element of a list cell as text: a missing one (null, NaN) is an error, not the
    text "None" or "nan"; a number as its digits (2.0 as "2"), true/false as yes/no."""
    number, value = numbered
    if _blank(value) and not isinstance(value, str):
        raise ValueError(f"element {number} is missing ({value!r})")
    if isinstance(value, bool):
        return "yes" if value else "no"
    try:
        return _text(value)
    except ValueError as exc:
        raise ValueError(f"element {number}: {exc}") from None


def _as_int(value: Any) -> int:
    """A whole number from an int, an integral float (``2.0``) or a string of either; never bool.

    Refusing 2.7 instead of truncating it keeps JSONL, CSV and parquet files consistent.
    """
    if isinstance(value, bool):
        raise ValueError(f"expected a whole number, got {value}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"expected a whole number, got {value!r}") from None
    if isinstance(value, numbers.Real):
        number = float(value)
        if number.is_integer():
            return int(number)
        raise ValueError(f"expected a whole number, got {value}")
    raise ValueError(f"expected a whole number, got {type(value).__name__}")


def _delimiter_hint(columns: Sequence[str]) -> str:
    """For a CSV read as one column because its cells are split by another character (a
    European Excel's semicolons, tabs): say so."""
    if len(columns) != 1:
        return ""
    other = next((d for d in (";", "\t") if d in columns[0]), None)
    if other is None:
        return ""
    shown = "tabs" if other == "\t" else "semicolons"
    return (
        f" (one column: its header is split by {shown}, but a CSV file's cells are split by "
        "commas; save it as CSV with commas, or as JSONL)"
    )


def _listed(columns: Iterable[str]) -> str:
    names = [repr(c) for c in columns]
    more = len(names) - MAX_COLUMNS
    return ", ".join(names[:MAX_COLUMNS]) + (f", ... ({more} more)" if more > 0 else "") or "none"


def _metadata(row: Mapping[str, Any], used: set[str], unit: str, number: int) -> dict[str, Any]:
    """The row's unmapped columns, and where it is in the file: under ``unit`` ("line" or
    "row"), or ``_unit`` when the file has a column of that name, which is kept as it is."""
    kept = {k: v for k, v in row.items() if k not in used}
    key = unit
    while key in kept:
        key = f"_{key}"
    return kept | {key: number}


def _is_list(value: Any) -> bool:
    """A list cell: a JSON array, or parquet's list (an array), not text or an object."""
    return isinstance(value, Iterable) and not isinstance(value, str | bytes | Mapping)


def _sentences(value: Any) -> bool:
    """A story given as a list of sentences (one per line when joined)."""
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def _text(value: Any) -> str:
    """A text field's value: a string, or a number written as text; a list, an object or a
    bool would reach the prompt as its Python form ("['a', 'b']", "True")."""
    if isinstance(value, str):  # a quoted CSV cell keeps the file's Windows line ends
        return value.replace("\r\n", "\n").replace("\r", "\n").strip()
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)  # a whole float is written as an int: 2.0 as "2" (a pandas
        if not math.isfinite(number):  # JSON's 1e400 is read as infinity: no answer names it
            raise ValueError(
                "expected text, got an infinite number (JSON reads a number too large for a "
                "float, such as 1e400, as infinity): write it in quotes"
            )
        return str(int(number)) if number.is_integer() else str(value)  # column with a gap)
    raise ValueError(f"expected text, got {type(value).__name__} {_short(value)}")


def _short(value: Any, limit: int = 60) -> str:
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _blank(value: Any) -> bool:
    """No value: None, blank text, or a float NaN (pandas' and parquet's missing value, which
    would otherwise reach the item as the text "nan")."""
    return (
        value is None
        or (isinstance(value, str) and not value.strip())
        or (isinstance(value, float) and math.isnan(value))
    )


def _fields(
    row: Mapping[str, Any], mapping: Mapping[str, str], where: str, sep: str
) -> tuple[dict[str, Any], list[RowProblem]]:
    """The item fields one row gives (no defaults applied), and what is wrong with it."""
    fields: dict[str, Any] = {}
    problems: list[RowProblem] = []
    for field, column in mapping.items():
        if column not in row:
            if field in REQUIRED:  # an optional field a row leaves out is simply absent
                message = f"column {column!r} is missing (the row has {_listed(row)})"
                problems.append(RowProblem(where, field, message))
            continue
        value = row[column]
        if _blank(value):
            if field in REQUIRED:
                problems.append(RowProblem(where, field, f"column {column!r} is empty"))
            continue
        try:
            if field in LIST_FIELDS:
                fields[field] = tuple(_as_list(value, sep))
            elif field == "order":
                fields[field] = _as_int(value)
            elif field == "answer" and _is_list(value):
                fields[field] = _as_list(value, sep)
            elif field == "answer" and isinstance(value, bool):
                fields[field] = "TRUE" if value else "FALSE"  # read with the candidates below
            elif field == "story" and _sentences(value):
                fields[field] = "\n".join(str(v).strip() for v in value)
            else:
                fields[field] = _text(value)
        except (TypeError, ValueError) as exc:
            problems.append(RowProblem(where, field, f"column {column!r}: {exc}"))
    answer, candidates = fields.get("answer"), fields.get("candidates") or ()
    if _boolean_cell(answer):
        # a spreadsheet's TRUE, a JSON true: yes/no for a yes/no question, unless a candidate
        # reads as the word itself (a true/false question whose candidates are True|False)
        word = str(answer).strip().lower()
        if not any(phrase_of(c) == (word,) for c in candidates):
            fields["answer"] = answer = "yes" if word == "true" else "no"
    # "Box" or "the box" for the candidate "box" (the judge reads them as one answer): the
    # gold is that candidate as written, as a choice's gold must be (as for a Python record)
    gold_as_its_candidate(fields)
    if fields.get("answer_type") == "names" and isinstance(fields.get("answer"), str):
        # A CSV cell holds the names joined: by the list separator or as a judge reads a list;
        # a cell written as a list (["Ann", "Bob"]) holds them whole, each checked as a name.
        written = _list_literal(fields["answer"])
        fields["answer"] = (
            [text for text in map(_list_element, enumerate(written)) if text]
            if written is not None
            else [name for part in _as_list(fields["answer"], sep) for name in split_names(part)]
        )
    return fields, problems


def _separator_hint(candidates: Any, sep: str) -> str:
    """A note for a candidates cell that kept its list whole: "box, basket" with sep "|"."""
    if not isinstance(candidates, tuple) or len(candidates) != 1:
        return ""
    used = [mark for mark in (",", ";", "/") if mark != sep and mark in candidates[0]]
    if not used:
        return ""
    return (
        f" (candidates are split on {sep!r}, so {candidates[0]!r} is one candidate: pass "
        f"candidates_sep={used[0]!r}, or --sep {used[0]!r} on the command line)"
    )


def items_from_rows(
    rows: Iterable[Row | Mapping[str, Any]],
    mapping: Mapping[str, str],
    where: str,
    *,
    id_prefix: str = "item",
    unit: str = "line",
    source: str = "custom",
    candidates_sep: str = "|",
) -> list[ToMItem]:
    """Build validated items from rows, all or nothing; raises :class:`DataFileError`.

    ``rows`` are ``(number, mapping)`` pairs (or plain mappings, numbered from 1);
    ``mapping`` maps item fields (:data:`FIELDS`) to row keys; unmapped keys go into
    ``metadata``. Ids default to ``<id_prefix>-<number>``; the answer type defaults to
    ``names`` for list answers, ``choice`` with candidates, else ``yes_no`` for a row whose
    answer is yes or no (``"Yes."`` too), else ``text``. A row without an optional field's key (a
    JSONL line with no ``"candidates"``) leaves that field unset; a mapped column that no row
    has is an error, and so is a row without a required one. ``order`` takes whole numbers
    only (``2`` or ``2.0``, not ``2.7`` or ``true``).
    """
    unknown = sorted(set(mapping) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown item field(s) {unknown}; known: {', '.join(FIELDS)}")
    if not isinstance(candidates_sep, str) or not candidates_sep:  # not once a row
        raise ValueError(
            f"candidates_sep (--sep) must be the text that separates list cells, got "
            f"{candidates_sep!r}"
        )
    missing = [f for f in REQUIRED if f not in mapping]
    if missing:
        raise ValueError(f"the mapping needs a column for {', '.join(missing)}")
    shared = {c: [f for f, col in mapping.items() if col == c] for c in mapping.values()}
    for column, sharing in shared.items():
        if len(sharing) > 1:  # the story shown as the question, say, with the story unused
            raise ValueError(f"column {column!r} is mapped to {' and '.join(sharing)}: one each")
    numbered = [r if isinstance(r, tuple) else (n, r) for n, r in enumerate(rows, 1)]
    columns = list(dict.fromkeys(key for _, row in numbered for key in row))
    absent = [(f, c) for f, c in mapping.items() if c not in columns]
    if numbered and absent:  # a mapping mistake: say so once, not on every row
        hint = _delimiter_hint(columns)
        raise DataFileError(
            where,
            [
                RowProblem(
                    where,
                    f,
                    f"column {c!r} is missing; the file has {_listed(columns)}"
                    + (hint if k == 0 else ""),
                )
                for k, (f, c) in enumerate(absent)
            ],
        )
    parsed: list[tuple[str, int, dict[str, Any], Mapping[str, Any]]] = []
    problems: list[RowProblem] = []
    for number, row in numbered:
        label = f"{unit} {number}"
        fields, bad = _fields(row, mapping, label, candidates_sep)
        problems.extend(bad)
        if not bad:
            parsed.append((label, number, fields, row))
    used = set(mapping.values())
    items: list[ToMItem] = []
    seen: dict[str, str] = {}
    for label, number, fields, row in parsed:
        record = {
            "id": f"{id_prefix}-{number}",
            "source": source,
            "answer_type": default_answer_type(fields),
            "metadata": _metadata(row, used, unit, number),
            **fields,
        }
        try:
            item = ToMItem.model_validate(record)
        except ValidationError as exc:
            hint = _separator_hint(fields.get("candidates"), candidates_sep)
            for err in exc.errors():
                field, message = describe_error(err)
                if hint and field in ("candidates", "answer"):
                    message += hint
                problems.append(RowProblem(label, field, message))
            continue
        if item.id in seen:
            problems.append(
                RowProblem(label, "id", f"duplicate id {item.id!r} (first at {seen[item.id]})")
            )
            continue
        seen[item.id] = label
        items.append(item)
    if problems:
        problems.sort(key=lambda p: _number(p.where))
        raise DataFileError(where, problems)
    if not items:
        raise DataFileError(where, [RowProblem(where, "<file>", "no rows")])
    return items


def column_mapping(
    *,
    story: str = "story",
    question: str = "question",
    answer: str = "answer",
    candidates: str | None = None,
    order: str | None = None,
    id: str | None = None,  # noqa: A002 - the item field is called id
    answer_type: str | None = None,
    aliases: str | None = None,
    question_type: str | None = None,
    split: str | None = None,
) -> dict[str, str]:
    """Item field -> file column, leaving out the optional fields that are not given."""
    given = {
        "story": story,
        "question": question,
        "answer": answer,
        "candidates": candidates,
        "order": order,
        "id": id,
        "answer_type": answer_type,
        "aliases": aliases,
        "question_type": question_type,
        "split": split,
    }
    for field, column in given.items():
        if column is not None and not isinstance(column, str):
            raise TypeError(
                f"{field}= names the file's column that holds each row's {field}, as a string; "
                f"got {type(column).__name__} {column!r:.60} (a value shared by every row belongs "
                "in the file)"
            )
    return {field: column for field, column in given.items() if column is not None}


AUTO_MAPPED = ("candidates", "aliases", "answer_type", "question_type")
"""Optional fields a same-named column fills without a mapping. ``id``, ``split`` and ``order``
are not among them: files use such names for other things (a story id shared by its
questions, a 'dev' split, a row order), so those are named in a warning instead."""


def load_file_items(
    path: str | Path,
    env_id: str,
    mapping: Mapping[str, str],
    *,
    source: str = "custom",
    candidates_sep: str = "|",
) -> list[ToMItem]:
    """The validated items of a file (what :func:`register_from_file` would register).

    A column named exactly like one of :data:`AUTO_MAPPED` fills that field unless the mapping
    says otherwise. One named like another item field (``id``, ``split``, ``order``) that the
    mapping leaves out goes to the metadata, as every unmapped column does, with a warning
    naming it.
    """
    rows, problems, unit = read_rows(path)
    columns = {key for _, row in rows for key in row}
    used = set(mapping.values())
    # Columns named exactly like a field whose meaning no other use shares are taken as it:
    # a file written with ToMItem's names keeps its candidates (left out, its items were free
    # text, where "box or bag" names the gold).
    auto = {f: f for f in AUTO_MAPPED if f in columns and f not in mapping and f not in used}
    mapping = {**mapping, **auto}
    used |= set(auto)
    unmapped = [f for f in FIELDS if f in columns and f not in mapping and f not in used]
    if unmapped:
        first = unmapped[0]
        flag = "--id-column" if first == "id" else f"--{first.replace('_', '-')}"
        warnings.warn(
            f"{path}: column(s) {', '.join(map(repr, unmapped))} are named like item fields but "
            f"not mapped, so they go to the metadata; map them to use them (e.g. {first}="
            f"{first!r}, or {flag} {first} on the command line)",
            UserWarning,
            stacklevel=2,
        )
    try:
        items = items_from_rows(
            rows,
            mapping,
            str(path),
            id_prefix=env_id,
            unit=unit,
            source=source,
            candidates_sep=candidates_sep,
        )
    except DataFileError as exc:
        if problems and not rows:  # an unreadable header: "no rows" would only repeat it
            exc.problems = [p for p in exc.problems if p.field != "<file>"]
        problems = problems + exc.problems
    if problems:
        problems.sort(key=lambda p: _number(p.where))
        raise DataFileError(str(path), problems)
    return items


def _number(where: str) -> int:
    tail = where.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def _check_spec_keywords(spec: Mapping[str, Any]) -> None:
    """A keyword neither a column nor a registration argument, named with the closest of both
    (``candidate=`` failed inside register_tom_env, a function the user never called)."""
    accepted = set(inspect.signature(register_tom_env).parameters) - {"env_id", "items"}
    unknown = sorted(k for k in spec if k not in accepted)
    if not unknown:
        return
    known = sorted({*FIELDS, "family", "usage", "held_out", "candidates_sep", *accepted})
    close = difflib.get_close_matches(unknown[0], known, n=1)
    hint = f"; did you mean {close[0]}=?" if close else ""
    raise TypeError(
        f"register_from_file got an unexpected keyword argument {unknown[0]!r}{hint} (columns: "
        f"{', '.join(FIELDS)}; registration: {', '.join(sorted(accepted - set(FIELDS)))})"
    )


def register_from_file(
    path: str | Path,
    env_id: str,
    *,
    story: str = "story",
    question: str = "question",
    answer: str = "answer",
    candidates: str | None = None,
    order: str | None = None,
    id: str | None = None,  # noqa: A002 - the item field is called id
    answer_type: str | None = None,
    aliases: str | None = None,
    question_type: str | None = None,
    split: str | None = None,
    family: str = "custom",
    usage: Usage = "train",
    held_out: bool = False,
    candidates_sep: str = "|",
    **spec: Any,
) -> ToMEnvSpec:
    """Register ``env_id`` with the questions of a JSONL, CSV or parquet file.

    The keyword arguments from ``story`` to ``split`` name the file's column for each item
    field. CSV list columns (candidates, aliases, and the answer of a ``names`` row) are split
    on ``candidates_sep``; JSONL and parquet may hold real lists. Ids default to
    ``<env_id>-<line>``. Other keywords (``description``, ``overwrite``, ...) go to
    :func:`tomgym.register_tom_env`.
    Raises :class:`DataFileError` listing every bad row; then nothing is registered.
    """
    _check_spec_keywords(spec)
    mapping = column_mapping(
        story=story,
        question=question,
        answer=answer,
        candidates=candidates,
        order=order,
        id=id,
        answer_type=answer_type,
        aliases=aliases,
        question_type=question_type,
        split=split,
    )
    items = load_file_items(path, env_id, mapping, source=family, candidates_sep=candidates_sep)
    splits = {it.split for it in items}
    spec.setdefault("split", splits.pop() if len(splits) == 1 else "all")
    spec.setdefault("description", f"Questions from {Path(path).name}.")
    return register_tom_env(
        env_id, items=items, family=family, usage=usage, held_out=held_out, **spec
    )
