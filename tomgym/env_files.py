"""Env files: a data file's registration written down, so that every process can make it.

A registration made in a script lives in that process only; ``tomgym eval``, ``export`` and a
trainer's reward workers are other processes. An env file is a small JSON document naming a
JSONL, CSV or parquet file and its column mapping (what :func:`tomgym.datafile.register_from_file`
takes)::

    {"tomgym_env_file": 1, "id": "MyToM-v0", "data": "my_tom.csv",
     "columns": {"story": "context", "question": "q", "answer": "gold", "candidates": "options"}}

``tomgym register FILE --id ... --save my_tom.json`` writes one after validating the data.
The env files listed in ``$TOMGYM_ENV_FILES`` (separated by the system's path separator, as
``PATH`` is) are registered when tomgym is imported, in every process that inherits the
variable; the command line's ``--env-file`` registers one and adds it to the variable, so the
workers it starts (Ray actors, a submitted training job, spawned vector envs) have it too.
A relative ``data`` path is read from the env file's folder.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from tomgym.datafile import FIELDS
from tomgym.registry import (
    ToMEnvSpec,
    list_envs,
    registry_state,
    restore_registry,
    unregister_tom_env,
)

ENV_FILES_VAR = "TOMGYM_ENV_FILES"
"""Env files to register at ``import tomgym``, separated by ``os.pathsep``."""

logger = logging.getLogger(__name__)
_LOADED: dict[Path, _Registered] = {}
"""A registered env file (absolute, links not followed) -> what registering it did."""


class EnvFileError(ValueError):
    """An env file that cannot be read or registered; the message names the file and field."""


class EnvFileEntry(BaseModel):
    """One env of an env file: its ID, its data file and how the data's columns map."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tomgym_env_file: Literal[1] = Field(default=1, description="The format's version.")
    id: str = Field(description="The env ID, e.g. MyToM-v0.")
    data: str = Field(description="The JSONL, CSV or parquet file; relative: to the env file.")
    columns: dict[str, str] = Field(
        default_factory=dict, description="Item field -> the data's column (default: its name)."
    )
    candidates_sep: str = Field(default="|", description="Separator of CSV list cells.")
    family: str = "custom"
    usage: Literal["train", "eval-only"] = "train"
    held_out: StrictBool = False
    held_out_from: tuple[str, ...] = Field(
        default=(),
        description="The env IDs it is held out from (its in-distribution envs); needs held_out.",
    )
    kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="Default keyword arguments of the env (reward, prompt, split, ...), as "
        "tomgym.make takes them; checked when the env file is registered.",
    )
    description: str | None = None

    @field_validator("id", "data", "family", "candidates_sep")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is empty")
        return value

    @field_validator("columns")
    @classmethod
    def _item_fields(cls, columns: dict[str, str]) -> dict[str, str]:
        for name in columns:
            if name not in FIELDS:
                what = "an item field a column can fill"
                raise ValueError(f"{name!r} {_unknown(name, list(FIELDS), what)}")
        return columns

    @field_validator("held_out_from")
    @classmethod
    def _ids_not_blank(cls, ids: tuple[str, ...]) -> tuple[str, ...]:
        if any(not i.strip() for i in ids):
            raise ValueError("an env ID is empty")
        return ids

    @model_validator(mode="after")
    def _held_out_from_needs_held_out(self) -> EnvFileEntry:
        if self.held_out_from and not self.held_out:
            raise ValueError(
                f"held_out_from names {list(self.held_out_from)}, the envs this one is held out "
                'from, but held_out is false: add "held_out": true (or drop held_out_from)'
            )
        return self

    def data_path(self, env_file: Path) -> Path:
        """The data file, a relative path read from the env file's folder."""
        data = Path(self.data).expanduser()
        return data if data.is_absolute() else env_file.parent / data


def _problems(exc: ValidationError, prefix: str) -> list[str]:
    """Pydantic's errors as "field: problem" parts, the field written as a path
    (``[1].usage``), with a close spelling where a name is unknown."""
    parts = []
    for error in exc.errors():
        loc = [str(p) for p in error["loc"]]
        where = prefix + ".".join(loc) if loc else prefix.rstrip(".")
        message = f"{error['msg']} (got {json.dumps(error.get('input'), default=str)[:60]})"
        if error["type"] == "missing":
            message = str(error["msg"])
        elif error["type"] == "value_error" and not loc:  # the entry's fields together
            message = str(error["msg"]).removeprefix("Value error, ")
        elif error["type"] == "extra_forbidden":
            message = _unknown(loc[-1], list(EnvFileEntry.model_fields), "a field of an env file")
        parts.append(f"{where or 'the document'}: {message}")
    return parts


def _entry_label(number: int, entry: dict[str, Any]) -> str:
    """How an error names an entry of a list: its index, and its ID where it has one
    (``[1] (MyToM-v0).``)."""
    env_id = entry.get("id")
    named = f" ({env_id})" if isinstance(env_id, str) and env_id.strip() else ""
    return f"[{number}]{named}."


def _unknown(name: str, known: list[str], what: str) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"is not {what} ({', '.join(known)}){hint}"


def read_env_file(path: str | Path) -> list[EnvFileEntry]:
    """The env(s) an env file describes: one JSON object, or a list of them.

    Raises :class:`EnvFileError` naming the file and every bad field."""
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8-sig")  # an editor's byte-order mark too
    except FileNotFoundError:
        raise EnvFileError(f"env file {file}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EnvFileError(f"env file {file}: cannot be read: {exc}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EnvFileError(
            f"env file {file}: not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    listed = isinstance(document, list)
    entries = document if listed else [document]
    if not entries or not all(isinstance(e, dict) for e in entries):
        raise EnvFileError(
            f"env file {file}: holds {type(document).__name__} {json.dumps(document)[:60]}; an "
            'env file is a JSON object such as {"id": "MyToM-v0", "data": "my_tom.csv", '
            '"columns": {"story": "context"}}, or a list of them'
        )
    read: list[EnvFileEntry] = []
    problems: list[str] = []
    for number, entry in enumerate(entries):
        try:
            read.append(EnvFileEntry.model_validate(entry))
        except ValidationError as exc:
            problems += _problems(exc, _entry_label(number, entry) if listed else "")
    if problems:
        listed_problems = "".join(f"\n  - {p}" for p in problems)
        raise EnvFileError(f"env file {file}: {len(problems)} problem(s):{listed_problems}")
    ids = [e.id for e in read]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise EnvFileError(f"env file {file}: names {', '.join(repeated)} more than once")
    return read


@dataclass(frozen=True)
class _Registered:
    """What registering one env file did: the specs it made, from the files it read (the env
    file and its data files) as they were then."""

    files: tuple[Path, ...]
    stamps: tuple[tuple[int, int] | None, ...]
    specs: tuple[ToMEnvSpec, ...]

    @classmethod
    def of(cls, files: list[Path], specs: list[ToMEnvSpec]) -> _Registered:
        return cls(tuple(files), tuple(_stamp(f) for f in files), tuple(specs))

    def current(self) -> bool:
        """Whether no file it read has changed and every spec it made is still registered."""
        registered = {spec.id: spec for spec in list_envs()}
        unchanged = tuple(_stamp(f) for f in self.files) == self.stamps
        return unchanged and all(registered.get(s.id) is s for s in self.specs)


def env_file_of(env_id: str) -> Path | None:
    """The env file whose registration ``env_id`` now is (None: built in, a plugin's, a
    script's, or one replaced or removed since)."""
    registered = {spec.id: spec for spec in list_envs()}
    for file, done in _LOADED.items():
        if any(s.id == env_id and registered.get(env_id) is s for s in done.specs):
            return file
    return None


def _stamp(file: Path) -> tuple[int, int] | None:
    try:
        stat = file.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _absolute(path: str | Path) -> Path:
    """The path made absolute without following links: a linked env file reads its data
    from the link's own folder, as the path given shows it."""
    text = str(path)
    if not text.strip():
        raise EnvFileError("env file '': the path is empty (an unset shell variable?)")
    return Path(os.path.abspath(Path(text).expanduser()))


def register_env_file(path: str | Path) -> list[ToMEnvSpec]:
    """Register every env an env file describes, all or none (a bad one undoes the others).

    An env file already registered in this process is not read again while neither it nor
    its data files have changed: its specs are returned. One changed since (a notebook
    editing it or its data), or whose envs were removed or replaced, is registered again in
    place of its earlier envs.
    Raises :class:`EnvFileError` naming the env file (and the env, for its data file's
    problems) or :class:`tomgym.datafile.DataFileError` (every bad row of a data file)."""
    given = _absolute(path)
    earlier = _LOADED.get(given)
    if earlier is not None and earlier.current():
        return list(earlier.specs)
    entries = read_env_file(given)
    state = registry_state()
    try:
        if earlier is not None:  # its envs give way to the file as it is now
            for spec in earlier.specs:
                if env_file_of(spec.id) == given:
                    unregister_tom_env(spec.id)
        specs = [_register_entry(given, entry) for entry in entries]
    except BaseException:
        restore_registry(state)
        raise
    _LOADED[given] = _Registered.of([given, *(e.data_path(given) for e in entries)], specs)
    return specs


def record_written(path: str | Path, data: Path, spec: ToMEnvSpec) -> None:
    """Record ``spec``, registered from the data file ``data``, as the registration of the
    env file just written for it at ``path`` (``tomgym register --save``): the process then
    holds that env file's env, as a process given it would."""
    file = _absolute(path)
    _LOADED[file] = _Registered.of([file, data], [spec])


def _register_entry(file: Path, entry: EnvFileEntry) -> ToMEnvSpec:
    """One env of the env file ``file``; every error names the env file and the env."""
    from tomgym.datafile import DataFileError, register_from_file

    where = f"env file {file}: {entry.id}"
    if any(spec.id == entry.id for spec in list_envs()):
        owner = env_file_of(entry.id)
        by = f"by the env file {owner}" if owner else "(built in, by a plugin or by a script)"
        raise EnvFileError(f"{where}: the ID is already registered {by}; choose another id")
    data = entry.data_path(file)
    if not data.is_file():
        what = "is a folder, not a data file" if data.is_dir() else "no such file"
        raise EnvFileError(
            f"{where}: data {entry.data!r}: {what} ({data}; a relative path is read from the "
            "env file's folder)"
        )
    extra: dict[str, Any] = {}
    if entry.description is not None:
        extra["description"] = entry.description
    if entry.held_out_from:
        extra["held_out_from"] = entry.held_out_from
    if entry.kwargs:
        extra["kwargs"] = entry.kwargs
    try:
        return register_from_file(
            data,
            entry.id,
            family=entry.family,
            usage=entry.usage,
            held_out=entry.held_out,
            candidates_sep=entry.candidates_sep,
            **entry.columns,
            **extra,
        )
    except DataFileError as exc:
        raise DataFileError(where, exc.problems) from None
    except (ValueError, TypeError, OSError) as exc:  # the ID's form, the data's type, ...
        # register_tom_env's messages start with the ID, which ``where`` names already
        raise EnvFileError(f"{where}: {str(exc).removeprefix(f'{entry.id}: ')}") from None


def write_env_file(path: str | Path, entry: EnvFileEntry) -> Path:
    """Write ``entry`` as an env file (its data path as given: relative ones are read from the
    env file's folder). Returns the path written."""
    file = Path(path).expanduser()
    file.parent.mkdir(parents=True, exist_ok=True)
    document = entry.model_dump(exclude_defaults=False)
    for optional in ("description", "held_out_from", "kwargs"):  # written only where set
        if document[optional] in (None, (), {}):
            del document[optional]
    file.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return file


def env_files_in_environment() -> list[str]:
    """The paths ``$TOMGYM_ENV_FILES`` lists (blank parts skipped)."""
    listed = os.environ.get(ENV_FILES_VAR, "")
    return [part for part in listed.split(os.pathsep) if part.strip()]


def load_env_files_from_environment() -> list[str]:
    """Register the env files of ``$TOMGYM_ENV_FILES`` (at ``import tomgym``). A file that
    fails is logged, naming it and what is wrong, and skipped; the others still register. The
    warnings a data file raises (a question asked twice with two golds) are logged naming its
    env file. Returns the error messages."""
    errors = []
    for path in env_files_in_environment():
        try:
            with warnings.catch_warnings(record=True) as raised:
                warnings.simplefilter("always")
                register_env_file(path)
        except Exception as exc:  # noqa: BLE001 - one bad file must not stop `import tomgym`
            errors.append(str(exc))
            logger.warning("tomgym: $%s: %s", ENV_FILES_VAR, exc)
            continue
        for warning in raised:
            logger.warning("tomgym: $%s: %s: %s", ENV_FILES_VAR, path, warning.message)
    return errors


def use_env_files(paths: list[str]) -> list[ToMEnvSpec]:
    """Register each env file (errors raised) and add it to ``$TOMGYM_ENV_FILES``, every
    entry there made absolute, so that the processes this one starts (in another working
    folder too) register it."""
    specs: list[ToMEnvSpec] = []
    listed = [str(_absolute(p)) for p in env_files_in_environment()]
    for path in paths:
        absolute = str(_absolute(path))
        check_separator_free(absolute)
        specs += register_env_file(absolute)
        if absolute not in listed:
            listed.append(absolute)
    if listed:
        os.environ[ENV_FILES_VAR] = os.pathsep.join(listed)
    return specs


def check_separator_free(path: str) -> None:
    """Refuse an env file path holding ``os.pathsep``, which separates the paths of
    ``$TOMGYM_ENV_FILES``: the processes a command starts would split it."""
    if os.pathsep in path:
        raise EnvFileError(
            f"env file {path}: its path holds {os.pathsep!r}, which separates the paths of "
            f"${ENV_FILES_VAR}, so the processes a command starts could not read it; move or "
            "link it to a path without one"
        )
