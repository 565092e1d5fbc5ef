"""Helpers shared by the generated families (Hi-ToM, ToMi): argument aliases, variant metadata."""

from __future__ import annotations

from typing import Any, Protocol


class VariantConfig(Protocol):
    templates: str
    debiased: bool


ALIASES = {"vocab": ("vocab_split", "train"), "templates": ("template_split", "canonical")}
"""Argument -> (its alias, its default)."""


def resolve_alias(name: str, value: str, alias: str | None) -> str:
    """``vocab_split`` / ``template_split`` are aliases of ``vocab`` / ``templates``; giving
    both, they must agree."""
    alias_name, default = ALIASES[name]
    if alias is None:
        return value
    if value not in (default, alias):
        raise ValueError(f"{name}={value!r} and {alias_name}={alias!r} disagree")
    return alias


def variant_metadata(config: VariantConfig) -> dict[str, Any]:
    """Metadata for the generalisation options, only when set (existing items unchanged).

    ``vocab`` is left out: ``vocab="test"`` items predate the option's metadata.
    """
    out: dict[str, Any] = {}
    if config.templates != "canonical":
        out["template_split"] = config.templates
    if config.debiased:
        out["debiased"] = True
    return out
