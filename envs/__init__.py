"""The built-in env families, one module each; ``register_builtin_envs`` registers their IDs."""

from __future__ import annotations

import importlib
import logging

logger = logging.getLogger(__name__)

FAMILY_MODULES = (
    "hitom",
    "tomi",
    "hitom_release",
    "tomi_release",
    "exploretom",
    "opentom",
    "fantom",
)
"""Modules under ``tomgym.envs`` with a ``register_envs()`` function, in listing order."""


def register_builtin_envs() -> None:
    """Register every built-in ID. Registration reads no data file and generates nothing."""
    for name in FAMILY_MODULES:
        module = importlib.import_module(f"tomgym.envs.{name}")
        module.register_envs()
