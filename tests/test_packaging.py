"""The distribution installs only tomgym.* packages, with envs/ and agents/ mapped under it."""

from __future__ import annotations

from pathlib import Path

import tomllib

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_no_top_level_envs_agents_or_tests() -> None:
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]
    assert all(p == "tomgym" or p.startswith("tomgym.") for p in config["packages"])
    assert config["package-dir"]["tomgym.envs"] == "envs"
    assert config["package-dir"]["tomgym.agents"] == "agents"


def test_every_package_directory_is_listed() -> None:
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]
    root = PYPROJECT.parent
    listed = set(config["packages"])
    for init in (root / "tomgym").rglob("__init__.py"):
        name = ".".join(init.parent.relative_to(root).parts)
        assert name in listed, f"{name} is a package but pyproject does not install it"
