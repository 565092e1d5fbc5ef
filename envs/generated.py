"""Helpers shared by the generated families (Hi-ToM, ToMi): argument aliases, variant metadata."""

from __future__ import annotations

from typing import Any, Protocol

from tomgym.world.render import TEMPLATE_SETS
from tomgym.world.vocab import VOCABS


class VariantConfig(Protocol):
    templates: str
    debiased: bool | str


ALIASES = {"vocab": ("vocab_split", "train"), "templates": ("template_split", "canonical")}
"""Argument -> (its alias, its default)."""
CHOICES = {"vocab": VOCABS, "templates": TEMPLATE_SETS}
"""Argument -> the values it (and its alias) takes."""


def resolve_alias(name: str, value: str | None, alias: str | None) -> str:
    """``vocab_split`` / ``template_split`` are aliases of ``vocab`` / ``templates``: either
    names the setting (neither: its default), and given both, they must agree. A bad value is
    named under the argument it was given as."""
    alias_name, default = ALIASES[name]
    for given, chosen in ((name, value), (alias_name, alias)):
        if chosen is not None and chosen not in CHOICES[name]:
            raise ValueError(f"{given} must be one of {CHOICES[name]}, got {chosen!r}")
    if value is not None and alias is not None and value != alias:
        raise ValueError(f"{name}={value!r} and {alias_name}={alias!r} disagree")
    chosen = value if value is not None else alias
    return default if chosen is None else chosen


ARGUMENT_ALIASES = {alias: name for name, (alias, _) in ALIASES.items()}
"""alias -> argument, for :attr:`tomgym.env.ToMEnv.ARGUMENT_ALIASES`."""


def variant_metadata(config: VariantConfig) -> dict[str, Any]:
    """Metadata for the generalisation options, only when set (existing items unchanged).

    ``vocab`` is left out: ``vocab="test"`` items predate the option's metadata.
    """
    out: dict[str, Any] = {}
    if config.templates != "canonical":
        out["template_split"] = config.templates
    if config.debiased:  # True for the first scheme (its items predate the schemes' names)
        out["debiased"] = True if config.debiased in (True, "reality") else config.debiased
    return out
