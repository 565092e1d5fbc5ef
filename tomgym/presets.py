"""Resolving a preset argument (a reward, a prompt): a name, a dict of fields, or the model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def resolve_preset(value: Any, presets: Mapping[str, M], model: type[M], what: str) -> M:
    """``value`` as a ``model``: a preset name, a dict of its fields (what a preset becomes in
    JSON, e.g. a training label) or a ``model`` already; a clear error for anything else."""
    if isinstance(value, model):
        return value
    if isinstance(value, str):
        try:
            return presets[value]
        except KeyError:
            raise ValueError(
                f"unknown {what} preset {value!r}; presets: {', '.join(presets)}"
            ) from None
    if isinstance(value, Mapping):
        return model.model_validate(dict(value))
    raise TypeError(
        f"{what} must be a preset name, a dict or a {model.__name__}, not {type(value).__name__}"
    )
