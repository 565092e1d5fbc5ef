"""Third-party ToM envs: load the ``tomgym.envs`` entry points of installed distributions.

A plugin's entry point names a callable (called with no arguments) or a module (whose import
registers its envs). A broken plugin is logged and skipped, with what it registered (or
replaced) before it failed undone; the others still load. Plugins load in the order of their
entry-point names: where two register one env ID, the first keeps it and the second fails,
naming the first, unless the second passes ``overwrite=True`` (then it replaces the first's,
with a logged warning, and messages name it as the owner).
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import sys
import types
import warnings
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from tomgym.registry import list_envs

GROUP = "tomgym.envs"
DISABLE_VAR = "TOMGYM_NO_PLUGINS"
"""Set to 1 to skip plugin loading (e.g. when a broken plugin hangs at import)."""

logger = logging.getLogger(__name__)
_LOADED: set[tuple[str, str, str]] = set()
PLUGIN_ENVS: set[str] = set()
"""Env IDs that a plugin registered: every tomgym process (a reward worker too) has them."""
_ENV_ID = re.compile(r"[\w.:/-]+-v\d+")
_OWNERS: dict[str, str] = {}
"""Env ID -> the plugin that registered it, as messages name it."""
_REGISTERED_BY: dict[tuple[str, str, str], tuple[str, ...]] = {}
"""A loaded entry point -> the env IDs it registered (undone before ``force`` reruns it)."""


@dataclass(frozen=True)
class PluginResult:
    """What loading one entry point did: the env IDs it registered, or the error it raised."""

    name: str
    target: str
    distribution: str | None
    ok: bool
    registered: tuple[str, ...] = ()
    error: str | None = None
    skipped: bool = False  # already loaded in this process


def _distribution(ep: EntryPoint) -> str | None:
    dist = getattr(ep, "dist", None)
    return None if dist is None else str(dist.metadata["Name"])


def load_plugin(ep: EntryPoint, previous: tuple[str, ...] = ()) -> PluginResult:
    """Load one entry point, catching any error it raises (and removing what it registered).

    ``previous``: the env IDs an earlier load of it registered; they are removed first and a
    module target is reloaded, so that it registers them again (and on failure they come back).
    """
    from tomgym.registry import registry_state, restore_registry, unregister_tom_env

    dist = _distribution(ep)
    state = registry_state()
    for env_id in previous:
        unregister_tom_env(env_id)
    before = {s.id for s in list_envs()}
    try:
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("default")
            imported = ep.module in sys.modules
            target = ep.load()
            if previous and imported and isinstance(target, types.ModuleType):
                target = importlib.reload(target)  # its import is what registers
            if not isinstance(target, types.ModuleType):
                if not callable(target):
                    raise TypeError(f"{ep.value} is neither a module nor a callable")
                target()
        for warning in raised:  # said once, naming the plugin (they load before any CLI setup)
            logger.warning(
                "tomgym plugin %r (%s, from %s): %s: %s",
                ep.name,
                ep.value,
                dist,
                warning.category.__name__,
                warning.message,
            )
    except (Exception, SystemExit) as exc:  # a plugin may raise anything; isolate it
        # (a plugin's sys.exit() ended `import tomgym`, and every command, without a word)
        restore_registry(state)  # half a plugin's envs would pass for all of them
        error = f"{type(exc).__name__}: {exc}"
        said = set(_ENV_ID.findall(str(exc)))
        taken = [f"{i} was registered by {owner}" for i, owner in _OWNERS.items() if i in said]
        if taken:
            error += f" ({'; '.join(taken)}, which loaded first)"
        logger.warning("tomgym plugin %r (%s, from %s) failed: %s", ep.name, ep.value, dist, error)
        return PluginResult(ep.name, ep.value, dist, ok=False, error=error)
    now = {s.id: s for s in list_envs()}
    added = tuple(i for i in now if i not in before)
    specs_before = state[0]
    changed = [
        i for i, spec in specs_before.items() if now.get(i) is not spec and i not in previous
    ]
    if changed:  # allowed (overwrite=True), and documented; but never silently
        what = ", ".join(f"{i} ({'replaced' if i in now else 'removed'})" for i in changed)
        logger.warning(
            "tomgym plugin %r (%s, from %s) changed envs registered before it: %s; every "
            "process that loads plugins serves its version under those IDs",
            ep.name,
            ep.value,
            dist,
            what,
        )
    PLUGIN_ENVS.difference_update(set(previous) - set(added))  # a rerun may register fewer
    PLUGIN_ENVS.update(added)
    _REGISTERED_BY[(ep.group, ep.name, ep.value)] = added
    owner = f"plugin {ep.name!r}" + (f" of the package {dist}" if dist else "")
    _OWNERS.update(dict.fromkeys([*added, *(i for i in changed if i in now)], owner))
    return PluginResult(ep.name, ep.value, dist, ok=True, registered=added)


def load_plugins(group: str = GROUP, *, force: bool = False) -> list[PluginResult]:
    """Load every entry point of ``group``, in name order; one result per entry point.

    An entry point that already loaded in this process is skipped unless ``force``: then the
    envs it registered are removed and it runs again (a module is reloaded).
    Nothing is loaded when ``$TOMGYM_NO_PLUGINS`` is set to a non-empty value other than 0.
    """
    if os.environ.get(DISABLE_VAR, "0") not in ("", "0"):
        return []
    results: list[PluginResult] = []
    for ep in sorted(entry_points(group=group), key=lambda e: (e.name, e.value)):
        key = (group, ep.name, ep.value)
        if key in _LOADED and not force:
            results.append(
                PluginResult(ep.name, ep.value, _distribution(ep), ok=True, skipped=True)
            )
            continue
        result = load_plugin(ep, _REGISTERED_BY.get(key, ()) if key in _LOADED else ())
        if result.ok:
            _LOADED.add(key)
        results.append(result)
    return results
