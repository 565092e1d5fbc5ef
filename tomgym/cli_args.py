"""Command-line helpers shared by every ``tomgym`` subcommand module."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def parse_kwargs(pairs: Sequence[str]) -> dict[str, Any]:
    """``--kwarg KEY=VALUE`` pairs as a dict; values are JSON when they parse, else strings."""
    kwargs: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--kwarg takes KEY=VALUE, got {pair!r}")
        key, raw = pair.split("=", 1)
        try:
            kwargs[key] = json.loads(raw)
        except json.JSONDecodeError:
            kwargs[key] = raw
    return kwargs
