"""The envs of a run, resolved: each made once, with the split it falls back to, its kwargs,
its held-out marking and the items it is asked."""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tomgym.env import EnvArgumentError, HeldOutRedefinedWarning, ToMEnv
from tomgym.eval.store import NEUTRAL_KWARGS, EnvPlan, ItemOrder, planned_indices
from tomgym.items import ItemError, ToMItem
from tomgym.registry import ToMEnvSpec, get_spec
from tomgym.sources import ListSource

DEFAULT_N = 100


@dataclass
class EnvTarget:
    """One env of a run, resolved: the kwargs it is made with and how many items it serves."""

    env_id: str
    kwargs: dict[str, Any]
    held_out: bool
    n: int
    spec: ToMEnvSpec
    env: ToMEnv | None = field(default=None, repr=False)
    items: ItemOrder = "first"
    size: int | None = None
    marked: bool = False
    """Whether ``held_out`` was given (a suite entry), not derived from the ID and kwargs."""
    label: str | None = None
    """The suite's column label for the env, if it gives one."""
    changes_items: bool = False
    """Whether its kwargs make it serve other items than its ID (``_changes_distribution``)."""

    def plan(self, run_dir: str | os.PathLike[str] | None = None) -> EnvPlan:
        """The plan a run records; ``run_dir``: the run's directory, from which the env file
        (if any) is also recorded relatively, so that the two may move together."""
        from tomgym.env_files import env_file_of

        env_file = env_file_of(self.env_id)
        relative = None
        if env_file is not None and run_dir is not None:
            with contextlib.suppress(ValueError):  # (another drive, on Windows)
                relative = os.path.relpath(env_file, os.path.abspath(run_dir))
        return EnvPlan(
            env_file=None if env_file is None else str(env_file),
            env_file_from_run=relative,
            env_id=self.env_id,
            label=self.label,
            changes_items=self.changes_items,
            kwargs=self.kwargs,
            held_out=self.held_out,
            n=self.n,
            spec=self.spec.model_dump(mode="json"),
            items=self.items,
            size=self.size,
        )

    def indices(self) -> list[int]:
        return planned_indices(self.items, self.n, self.size)


HELD_OUT_SPLITS = ("val", "test")
"""Splits tried, in this order, when an env does not take the requested one."""


def order_for(order: ItemOrder, n: int, size: int | None) -> ItemOrder:
    """The order a plan records: ``order`` where it picks which items (a fixed env, n below
    its size), else ``first`` (every item, or a procedural env's iid items 0..n-1)."""
    return order if size is not None and n < size else "first"


def open_env(
    env_id: str, kwargs: dict[str, Any], split: str | None
) -> tuple[ToMEnv, dict[str, Any]]:
    """Make the env with ``split`` unless the kwargs set one; returns the kwargs used.

    An env that has splits but not this one (ValueError) is made with the first held-out split
    it has (``val``, then ``test``), never silently with its own default (often ``train``); only
    an env with neither, or one that takes no split at all (TypeError), gets its own default.
    Any change of split is said on stderr.
    """
    with warnings.catch_warnings():  # resolve_targets says it of the run's column itself
        warnings.simplefilter("ignore", HeldOutRedefinedWarning)
        return _open_env(env_id, kwargs, split)


def _open_env(
    env_id: str, kwargs: dict[str, Any], split: str | None
) -> tuple[ToMEnv, dict[str, Any]]:
    import tomgym

    if split is None or "split" in kwargs:
        return tomgym.make(env_id, **kwargs), dict(kwargs)
    if split == "all":
        return _open_whole(env_id, kwargs)
    refusals = []
    for candidate in dict.fromkeys([split, *HELD_OUT_SPLITS]):
        try:
            env = tomgym.make(env_id, **kwargs, split=candidate)
        except EnvArgumentError as exc:  # a bad value (it is a TypeError too): try the next
            refusals.append(str(exc))
            continue
        except ItemError:  # the split's items are damaged, not absent: never another split
            raise
        except TypeError as exc:
            refusals.append(f"it takes no split: {exc}")
            break
        except ValueError as exc:
            refusals.append(str(exc))
            continue
        if candidate != split:
            print(
                f"tomgym: note: {env_id} has no {split!r} split; using its held-out split "
                f"{candidate!r}",
                file=sys.stderr,
            )
        return env, {**kwargs, "split": candidate}
    env = tomgym.make(env_id, **kwargs)
    if has_splits(env):
        tried = ", ".join(repr(s) for s in dict.fromkeys([split, *HELD_OUT_SPLITS]))
        items = getattr(getattr(env.unwrapped, "source", None), "items", ())
        present = ", ".join(sorted({item.split for item in items})) or "its own"
        print(
            f"tomgym: warning: {env_id} has none of the splits {tried}, only {present}: "
            f"evaluating on those items, which are not held out ({refusals[-1]})",
            file=sys.stderr,
        )
    else:
        print(f"tomgym: note: {env_id} has no splits; using all its items", file=sys.stderr)
    return env, dict(kwargs)


def _open_whole(env_id: str, kwargs: dict[str, Any]) -> tuple[ToMEnv, dict[str, Any]]:
    """``split="all"``: every item of an env that has them, never a held-out split in its place;
    an env without splits (or that takes no split) as it is, the run that names no split."""
    import tomgym

    try:
        env = tomgym.make(env_id, **kwargs, split="all")
    except (TypeError, ValueError) as exc:  # EnvArgumentError is both
        whole = tomgym.make(env_id, **kwargs)  # its own errors (missing data...) come first
        if has_splits(whole):
            raise EnvArgumentError(
                f"{env_id} has no split 'all': its items come only in splits ({exc}); pass one "
                "of them"
            ) from None
        print(f"tomgym: note: {env_id} has no splits; using all its items", file=sys.stderr)
        return whole, dict(kwargs)
    if not has_splits(env):
        return env, dict(kwargs)
    return env, {**kwargs, "split": "all"}


def has_splits(env: ToMEnv) -> bool:
    """Whether the env takes ``split=`` and its items have splits (a user's items, or a release
    such as Hi-ToM's, may all be ``all``)."""
    unwrapped = env.unwrapped
    if not isinstance(unwrapped, ToMEnv) or "split" not in unwrapped.source_arguments():
        return False
    items = getattr(unwrapped.source, "items", None)
    return items is None or any(item.split != "all" for item in items)


Entry = tuple[str, dict[str, Any], bool | None, int | None, str | None]
"""A run's env as asked: ID, kwargs, held-out marking, n and column label (None: not given)."""


def resolve_targets(
    env_ids: Sequence[str] | None,
    suite: str | os.PathLike[str] | None,
    n: int | None,
    split: str | None,
    env_kwargs: dict[str, Any] | None,
    *,
    item_order: ItemOrder = "shuffled",
    skip_missing: bool = False,
) -> tuple[list[EnvTarget], str | None, int | None]:
    """The envs of a run (from IDs or a suite), made once; also the suite's name and seed.

    A repeated env ID is asked once (the first occurrence wins). ``n`` must be at least 1.
    An env whose kwargs make it serve other items than its ID (see
    ``_changes_distribution``) is counted as held out unless a suite marks it: it is not the
    ID's training distribution. ``item_order`` picks a fixed env's ``n`` items (see
    ``planned_indices``). ``skip_missing``: an env whose release is not under the data root is
    left out, with a note (a suite with FANToM, where its file cannot be had), not an error.
    """
    from tomgym.data import MissingDataError
    from tomgym.eval.suites import load_suite

    if isinstance(env_ids, str):
        env_ids = [env_ids]  # one ID, not its characters
    if (env_ids is None) == (suite is None):
        raise ValueError("give either envs (env IDs) or a suite, not both and not neither")
    if n is not None and n < 1:
        raise ValueError(f"n (items per env) must be at least 1, got {n}")
    entries: list[Entry]
    suite_name: str | None = None
    suite_seed: int | None = None
    if suite is not None:
        loaded = load_suite(suite)
        suite_name, suite_seed = loaded.name, loaded.seed
        default_n = n if n is not None else loaded.n
        split = split if split is not None else loaded.split
        entries = [
            (
                e.id,
                {**e.kwargs, **(env_kwargs or {})},
                e.held_out,
                n if n is not None else e.n,
                e.label or None,
            )
            for e in loaded.envs
        ]
    else:
        assert env_ids is not None
        if not env_ids:
            raise ValueError("no env IDs given")
        default_n = n if n is not None else DEFAULT_N
        entries = [(i, dict(env_kwargs or {}), None, None, None) for i in env_ids]
    first: dict[str, Entry] = {}
    for entry in entries:
        first.setdefault(entry[0], entry)
    entries = list(first.values())
    targets: list[EnvTarget] = []
    for env_id, kwargs, held_out, env_n, label in entries:
        spec = get_spec(env_id)
        try:
            env, used = open_env(env_id, kwargs, split)
        except MissingDataError as exc:
            if not skip_missing:
                if suite is None:
                    raise
                raise MissingDataError(
                    f"{exc} (--skip-missing runs the suite without the envs whose release is "
                    "not installed)"
                ) from None
            print(f"tomgym: note: {env_id} left out (--skip-missing): {exc.brief}", file=sys.stderr)
            continue
        wanted = env_n if env_n is not None else default_n
        if wanted < 1:
            raise ValueError(f"n (items per env) must be at least 1, got {wanted} for {env_id}")
        size = env.size
        marked = held_out is not None
        used = without_neutral_defaults(env_id, used, env)
        changed = _changes_distribution(env_id, env, used, spec.held_out or marked)
        if held_out is None:
            held_out = spec.held_out or changed
        count = min(wanted, size) if size is not None else wanted
        if count < wanted:
            where = f" in its {used['split']!r} split" if "split" in used else ""
            print(
                f"tomgym: note: {env_id} has {size} items{where}, fewer than the {wanted} asked "
                "for: evaluating all of them",
                file=sys.stderr,
            )
        targets.append(
            EnvTarget(
                env_id=env_id,
                kwargs=used,
                held_out=held_out,
                n=count,
                spec=spec,
                env=env,
                items=order_for(item_order, count, size),
                size=size,
                marked=marked,
                label=label,
                changes_items=changed,
            )
        )
    warn_shared_items(targets)
    if not targets:
        raise ValueError("every env of the run was left out: none of their releases is installed")
    return targets, suite_name, suite_seed


def shared_items(targets: Sequence[EnvTarget]) -> list[tuple[str, str, int]]:
    """(held-out env, in-distribution env, items they share): for fixed envs (a release, a
    data file) by item ID, and for generated envs by their first items' content. Such a pair's
    gap compares items partly or wholly with themselves: the Hi-ToM release with its own O4
    subset, or a held-out generated ID remade with its in-distribution sibling's settings
    (ToM-HiToM-O4-v0 with orders=[2] beside ToM-HiToM-O2-v0), which serves its very items."""
    sources = {t.env_id: t.env.source for t in targets if t.env is not None}
    ids = {
        env_id: {item.id for item in source.items}
        for env_id, source in sources.items()
        if isinstance(source, ListSource)
    }
    found = [
        (out.env_id, inside.env_id, len(ids[out.env_id] & ids[inside.env_id]))
        for out in targets
        if out.held_out and out.env_id in ids
        for inside in targets
        if not inside.held_out and inside.env_id in ids and ids[out.env_id] & ids[inside.env_id]
    ]
    drawn = {
        t.env_id: _first_contents(t.env.source)
        for t in targets
        if t.env is not None and not isinstance(t.env.source, ListSource)
    }
    found += [
        (out.env_id, inside.env_id, min(out.n, inside.n))
        for out in targets
        if out.held_out and drawn.get(out.env_id)
        for inside in targets
        if not inside.held_out and drawn.get(inside.env_id) == drawn[out.env_id]
    ]
    return found


def _first_contents(source: Any) -> tuple[tuple[Any, ...], ...] | None:
    """The ``item_content`` of a generated source's first CONTENT_PROBE_ITEMS items (two
    sources that agree on these draw one stream), None where they cannot be drawn."""
    try:
        return tuple(item_content(source.item(i)) for i in range(CONTENT_PROBE_ITEMS))
    except (TypeError, ValueError, KeyError, IndexError):
        return None


def shared_stories(targets: Sequence[EnvTarget]) -> list[tuple[str, list[str], int, int]]:
    """(held-out env, the in-distribution envs it shares stories with, stories shared, its
    stories) for fixed envs that share stories but no items: the Hi-ToM release asks every
    order about each story, so its held-out O4 questions are about the stories of O0-O3."""
    stories = {
        t.env_id: {item.story.strip() for item in t.env.source.items}
        for t in targets
        if t.env is not None and isinstance(t.env.source, ListSource)
    }
    with_items = {(out, inside) for out, inside, _ in shared_items(targets)}
    found = []
    for out in targets:
        if not out.held_out or out.env_id not in stories:
            continue
        insides = [
            t.env_id
            for t in targets
            if not t.held_out
            and t.env_id in stories
            and (out.env_id, t.env_id) not in with_items
            and stories[out.env_id] & stories[t.env_id]
        ]
        if insides:
            seen = set().union(*(stories[e] for e in insides))
            mine = stories[out.env_id]
            found.append((out.env_id, insides, len(mine & seen), len(mine)))
    return found


def warn_shared_items(targets: Sequence[EnvTarget]) -> None:
    for held_out, inside, count in shared_items(targets):
        print(
            f"tomgym: warning: held-out {held_out} shares {count} items with in-distribution "
            f"{inside}: their gap compares those items with themselves",
            file=sys.stderr,
        )
    for held_out, insides, shared, total in shared_stories(targets):
        print(
            f"tomgym: note: held-out {held_out} shares {shared} of its {total} stories "
            f"with in-distribution {', '.join(insides)}: it holds out the questions (another "
            "order or kind), not the stories",
            file=sys.stderr,
        )


def _changes_distribution(
    env_id: str, env: ToMEnv, kwargs: Mapping[str, Any], marked: bool = False
) -> bool:
    """Whether ``kwargs`` make the env serve other items than its ID does (``vocab_split="test"``
    on ToM-HiToM-O2-v0 serves the NewVocab ID's items; ``vocab_split="train"``, its default,
    serves its own): its first items against those of the ID made with the neutral kwargs
    only. Said on stderr when so."""
    import tomgym

    changed = {k: v for k, v in kwargs.items() if k not in NEUTRAL_KWARGS}
    if not changed:
        return False
    try:
        reference = tomgym.make(env_id, **{k: v for k, v in kwargs.items() if k in NEUTRAL_KWARGS})
        same = reference.size == env.size and all(
            item_content(reference.source.item(i)) == item_content(env.source.item(i))
            for i in range(min(CONTENT_PROBE_ITEMS, env.size or CONTENT_PROBE_ITEMS))
        )
    except (TypeError, ValueError, KeyError, IndexError):
        same = False
    if not same:
        # said for an env already held out too: its column no longer holds its ID's items
        counted = (
            "its column shows those, not the ID's"
            if marked
            else "counted as held out (a suite entry can say otherwise with its held_out)"
        )
        print(
            f"tomgym: note: {env_id} with {changed} serves other items than its ID: {counted}",
            file=sys.stderr,
        )
    return not same


CONTENT_PROBE_ITEMS = 8

DEFAULT_CHECKED_KWARGS = ("seed", "reward", "prompt", "prefill_think", "render_mode")
"""Neutral kwargs a run drops where given at the value the env takes without them."""


def without_neutral_defaults(
    env_id: str, kwargs: Mapping[str, Any], env: ToMEnv | None = None
) -> dict[str, Any]:
    """``kwargs`` less the neutral ones (``seed=0``, ``prompt="default"``, ...) that make the
    same env as leaving them out: the same reward, prompt, prefill, render mode and first
    items. A rerun that spells its env's defaults out, or stops spelling them, is the same run
    (it was refused as a different one), and a leaderboard column does not split on them.
    ``env``: the env made with ``kwargs``, if at hand."""
    import tomgym

    given = [key for key in DEFAULT_CHECKED_KWARGS if key in kwargs]
    kept = dict(kwargs)
    if not given:
        return kept
    try:
        made = env if env is not None else _unwrapped(tomgym.make(env_id, **kept))
        for key in given:
            rest = {k: v for k, v in kept.items() if k != key}
            try:
                reference = _unwrapped(tomgym.make(env_id, **rest))
            except (TypeError, ValueError, LookupError):
                continue  # the env needs the kwarg: it stays
            if _same_env(made, reference):
                kept = rest
    except (TypeError, ValueError, LookupError, OSError):
        return dict(kwargs)  # the env cannot be made here: kwargs compare as given
    return kept


def _unwrapped(env: Any) -> ToMEnv:
    inner = env.unwrapped
    assert isinstance(inner, ToMEnv)
    return inner


def _same_env(a: ToMEnv, b: ToMEnv) -> bool:
    """Whether two envs serve the same episodes: scoring, prompt and their first items."""
    if (a.reward_spec, a.prompt_preset, a.prefill, a.render_mode, a.size) != (
        b.reward_spec,
        b.prompt_preset,
        b.prefill,
        b.render_mode,
        b.size,
    ):
        return False
    probe = range(min(CONTENT_PROBE_ITEMS, a.size or CONTENT_PROBE_ITEMS))
    pairs = ((a.source.item(i), b.source.item(i)) for i in probe)
    return all(x.id == y.id and item_content(x) == item_content(y) for x, y in pairs)


def item_content(item: ToMItem) -> tuple[Any, ...]:
    """What an item asks and answers: two items alike in it are one question."""
    return (item.story, item.question, item.gold_text, item.candidates, item.order)
