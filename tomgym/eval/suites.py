"""Evaluation suites as data: JSON files naming envs, their kwargs, held-out marks and agents."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

SUITE_FOLDER = "suites"
"""Folder of built-in suite files inside the tomgym package."""


class SuiteError(ValueError):
    """A suite that cannot be found or read; the message says which and why."""


class SuiteEnv(BaseModel):
    """One env of a suite."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    kwargs: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments for make.")
    n: int | None = Field(
        default=None, ge=1, description="Items for this env (else the suite's n)."
    )
    held_out: bool | None = Field(
        default=None, description="Held out from training (None: the registry's mark)."
    )
    label: str | None = Field(default=None, description="Short column name for tables.")


class Suite(BaseModel):
    """A named set of envs evaluated together, with default agents for a leaderboard."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""
    n: int = Field(default=100, ge=1)
    seed: int = 0
    split: str | None = Field(
        default="test", description="Split passed to envs that take one (None: the env's own)."
    )
    envs: list[SuiteEnv] = Field(min_length=1)
    env_files: list[str] = Field(
        default_factory=list,
        description="Env files registering envs of the suite (relative: to the suite file).",
    )
    agents: list[str] = Field(default_factory=list)
    sampling: dict[str, float | int] = Field(
        default_factory=dict,
        description="Default temperature / max_new_tokens for model agents (CLI flags win).",
    )

    @field_validator("split")
    @classmethod
    def _known_split(cls, split: str | None) -> str | None:
        from tomgym.items import SPLITS

        if split is not None and split not in SPLITS:  # a typo would fall back to another split
            raise ValueError(f"split must be one of {', '.join(SPLITS)} or null, got {split!r}")
        return split

    @field_validator("sampling")
    @classmethod
    def _known_sampling(cls, sampling: dict[str, float | int]) -> dict[str, float | int]:
        unknown = sorted(set(sampling) - {"temperature", "max_new_tokens"})
        if unknown:
            raise ValueError(f"unknown sampling keys {unknown}; known: temperature, max_new_tokens")
        return sampling

    @field_validator("envs")
    @classmethod
    def _unique(cls, envs: list[SuiteEnv]) -> list[SuiteEnv]:
        seen = [e.id for e in envs]
        duplicates = sorted({i for i in seen if seen.count(i) > 1})
        if duplicates:
            raise ValueError(f"env IDs listed twice: {duplicates}")
        return envs

    def check_ids(self) -> None:
        """Raise SuiteError naming every env ID that is not registered (with suggestions)."""
        from tomgym.registry import UnknownEnvError, get_spec

        problems = []
        for env in self.envs:
            try:
                get_spec(env.id)
            except UnknownEnvError as exc:
                problems.append(str(exc))
        if problems:
            raise SuiteError(f"suite {self.name!r}: " + " ".join(problems))


def builtin_suites() -> list[str]:
    """Names of the suites shipped with tomgym."""
    folder = resources.files("tomgym") / SUITE_FOLDER
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def _is_builtin(path: Path) -> bool:
    return len(path.parts) == 1 and path.name in builtin_suites()


def load_suite(name_or_path: str | os.PathLike[str], *, check_ids: bool = True) -> Suite:
    """A built-in suite by name (``quick``) or a suite file by path, validated."""
    path = Path(name_or_path)
    # A built-in name wins over a directory of that name (``--suite quick --out quick``).
    if path.suffix == ".json" or path.is_file() or (path.exists() and not _is_builtin(path)):
        if not path.exists():
            raise SuiteError(f"no suite file at {path}")
        text, where = path.read_text(encoding="utf-8"), str(path)
    else:
        resource = resources.files("tomgym") / SUITE_FOLDER / f"{name_or_path}.json"
        if not resource.is_file():
            raise SuiteError(
                f"no built-in suite {str(name_or_path)!r}; built-in suites: "
                f"{', '.join(builtin_suites())} (or pass a path to a suite .json file)"
            )
        text, where = resource.read_text(encoding="utf-8"), f"built-in suite {name_or_path}"
    try:
        suite = Suite.model_validate(json.loads(text))
    except json.JSONDecodeError as exc:
        raise SuiteError(f"{where}: not valid JSON: {exc}") from None
    except ValidationError as exc:
        lines = [
            f"  {'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}"
            for err in exc.errors()
        ]
        raise SuiteError(f"{where}: invalid suite:\n" + "\n".join(lines)) from None
    if check_ids:
        _use_env_files(suite, path.parent if where == str(path) else None, where)
        suite.check_ids()
    return suite


def _use_env_files(suite: Suite, folder: Path | None, where: str) -> None:
    """Register the suite's env files (and hand them to the workers a run starts)."""
    if not suite.env_files:
        return
    from tomgym.env_files import use_env_files

    paths = [str(folder / Path(f).expanduser()) if folder else f for f in suite.env_files]
    try:
        use_env_files(paths)
    except (OSError, ValueError) as exc:  # DataFileError's rows too, each on its line
        raise SuiteError(f"{where}: env_files: {exc}") from None
