"""The ToM env registry: metadata for every ToM env, kept beside Gymnasium's own registry."""

from __future__ import annotations

import difflib
import re
import string
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import gymnasium as gym
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tomgym.items import SPLITS, ToMItem, validate_item, validate_items
from tomgym.sources import GeneratedSource, ItemSource, ListSource

Usage = Literal["train", "eval-only"]

ITEMS_ENTRY_POINT = "tomgym.env:ToMEnv"


class UnknownEnvError(KeyError):
    """An ID that no ToM env is registered under; the message suggests the nearest IDs."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class ToMEnvSpec(BaseModel):
    """What a user needs to know about a ToM env before making it."""

    model_config = ConfigDict(frozen=True)

    id: str
    family: str = Field(
        min_length=1,
        pattern=r"\S",
        description="Dataset family (hitom, tomi, exploretom, ..., or custom).",
    )
    orders: tuple[int, ...] | None = Field(
        default=None, description="ToM orders the env asks (None: not applicable or mixed/unknown)."
    )
    split: str = "all"
    held_out: bool = False
    held_out_from: tuple[str, ...] = ()
    serves_held_out: tuple[str, ...] = Field(
        default=(),
        description="Held-out env IDs whose items this env serves too (a release's whole copy "
        "holds its held-out order): training on it spends them.",
    )
    usage: Usage = "train"
    size: int | None = Field(default=None, description="Number of items; None when procedural.")
    procedural: bool = False
    answer_type: Literal["choice", "text", "yes_no", "names", "mixed"] = Field(
        default="choice",
        description="How the env's answers are judged (tomgym.items.AnswerType), or 'mixed'.",
    )
    description: str = ""
    entry_point: str = ITEMS_ENTRY_POINT
    kwargs: dict[str, Any] = Field(default_factory=dict)

    @property
    def order_label(self) -> str:
        if not self.orders:
            return "-"
        if len(self.orders) == 1:
            return str(self.orders[0])
        return ",".join(str(o) for o in self.orders)

    @property
    def size_label(self) -> str:
        return "procedural" if self.procedural else ("?" if self.size is None else str(self.size))


_SPECS: dict[str, ToMEnvSpec] = {}
BUILTIN_IDS: set[str] = set()
"""The env IDs tomgym itself registers (filled when ``import tomgym`` has registered them)."""
_SOURCES: dict[str, ItemSource] = {}


@dataclass(frozen=True)
class ValidatedGenerator:
    """A user's ``generator=`` with each item it makes validated (an error names the env and
    the index). A class, not a closure, so that an env of a picklable generator pickles (for
    async vector envs, Ray workers, ``copy``)."""

    env_id: str
    generator: Callable[[int], ToMItem | Mapping[str, Any]]
    max_prompt_chars: int | None = None
    """The bound given at registration: an item over it is named with the argument to raise
    (the env's spaces are sized from it, and the prompt would not fit)."""

    def __call__(self, index: int) -> ToMItem:
        where = f"{self.env_id} item {index}"
        item = validate_item(self.generator(index), where=where)
        size = len(item.story) + len(item.question)
        if self.max_prompt_chars is not None and size > self.max_prompt_chars:
            raise ValueError(
                f"{where}: its story and question take {size} characters, over "
                f"max_prompt_chars={self.max_prompt_chars} given to register_tom_env; register "
                "it again with a bound every item's story and question fit in"
            )
        return item


def register_tom_env(
    env_id: str,
    items: Iterable[ToMItem | Mapping[str, Any]] | None = None,
    generator: Callable[[int], ToMItem | Mapping[str, Any]] | None = None,
    *,
    entry_point: str | None = None,
    max_prompt_chars: int | None = None,
    family: str = "custom",
    orders: Sequence[int] | None = None,
    split: str = "all",
    held_out: bool = False,
    held_out_from: Sequence[str] = (),
    serves_held_out: Sequence[str] = (),
    usage: Usage = "train",
    size: int | None = None,
    procedural: bool | None = None,
    answer_type: str | None = None,
    description: str = "",
    kwargs: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> ToMEnvSpec:
    """Register a ToM env under ``env_id`` so that ``gym.make(env_id)`` serves it.

    Give exactly one of:

    - ``items``: the questions (ToMItem or plain dicts), validated now, all or nothing;
    - ``generator``: ``f(index) -> item`` for a procedural env (a pure function of the
      index), with ``max_prompt_chars`` bounding ``len(story) + len(question)``;
    - ``entry_point``: ``"module:Class"`` of a ToMEnv subclass that builds its own source
      (how the built-in families register without loading anything).

    For an entry point, ``size`` is the item count with the default kwargs; with no size the
    env counts as procedural unless ``procedural=False`` says the size is just unknown.
    ``kwargs`` are default keyword arguments for the env (``split``, ``reward``, ``prompt``...).
    Every argument is checked before anything is stored, so a failed call registers nothing.
    Returns the spec; raises ValueError for a bad ID or argument, or a clash with a registered
    ToM env (unless ``overwrite``). An ID that another package registered with Gymnasium is
    never replaced, ``overwrite`` or not.
    """
    given = [x is not None for x in (items, generator, entry_point)]
    if sum(given) != 1:
        raise ValueError(f"{env_id}: give exactly one of items=, generator= or entry_point=")
    if not isinstance(env_id, str):
        raise ValueError(f"the env ID must be a string, got {env_id!r}")
    check_env_id(env_id)  # before the clash checks: they compare IDs as Gymnasium writes them
    if env_id in _SPECS and not overwrite:
        if env_id in BUILTIN_IDS:  # "pass overwrite=True" invited replacing a benchmark
            raise ValueError(
                f"{env_id} is one of tomgym's own env IDs: register yours under another ID "
                "(overwrite=True would replace the built-in one wherever your code runs)"
            )
        raise ValueError(f"{env_id} is already registered (pass overwrite=True to replace it)")
    if env_id not in _SPECS and env_id in gym.registry and not _is_tom_entry(env_id):
        raise ValueError(
            f"{env_id} is already registered with Gymnasium by another package "
            f"(entry point {gym.registry[env_id].entry_point!r}); tomgym does not replace "
            "it, even with overwrite=True: choose another ID"
        )
    if max_prompt_chars is not None and generator is None:
        raise ValueError(f"{env_id}: max_prompt_chars is for generator= only")
    orders = _ints_or_none(env_id, "orders", orders)
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
        raise ValueError(f"{env_id}: size must be a non-negative int or None, got {size!r}")
    if split not in SPLITS:
        raise ValueError(f"{env_id}: split must be one of {', '.join(SPLITS)}, got {split!r}")
    for name, ids in (("held_out_from", held_out_from), ("serves_held_out", serves_held_out)):
        if isinstance(ids, str):
            raise ValueError(f"{env_id}: {name} must be a sequence of IDs, got {ids!r}")
    if kwargs is not None and not isinstance(kwargs, Mapping):
        raise ValueError(f"{env_id}: kwargs must be a mapping, got {kwargs!r}")
    is_procedural = False
    source: ItemSource | None = None
    if items is not None:
        validated = validate_items(items, where=env_id)
        if not validated:
            raise ValueError(f"{env_id}: no items given")
        from tomgym.judgeable import judging_problems, refusal

        unjudgeable = judging_problems(validated)
        if unjudgeable:
            raise ValueError(refusal(env_id, unjudgeable, len(validated)))
        source = ListSource(tuple(validated))
        if size is not None and size != len(validated):
            raise ValueError(
                f"{env_id}: size={size} but {len(validated)} items were given (size is for "
                "entry_point= envs; an item list's size is its length)"
            )
        size = len(validated)
        unsplit = sum(it.split == "all" for it in validated)
        if 0 < unsplit < size:
            warnings.warn(
                f"{env_id}: {unsplit} of its {size} items have no split (a blank or 'all' "
                "split cell): split='train', 'val' or 'test' serves none of them, only "
                "split='all' (or none)",
                UserWarning,
                stacklevel=2,
            )
        warned = [*_repeated_questions(validated), *_unspaced_answers(validated)]
        for problem in [*warned, *_name_list_golds(validated)]:
            warnings.warn(f"{env_id}: {problem}", UserWarning, stacklevel=2)
        found = sorted({it.order for it in validated if it.order is not None})
        if orders is not None and sorted(set(orders)) != found:
            raise ValueError(
                f"{env_id}: orders={list(orders)} but the items' ToM orders are "
                f"{found or 'none (no item has an order)'}: set each item's order (the "
                "per-order figures read the items), and orders= may be left out"
            )
        orders = found or None
        kinds = {it.answer_type for it in validated}
        found_type = kinds.pop() if len(kinds) == 1 else "mixed"
        if answer_type is not None and answer_type != found_type:
            raise ValueError(
                f"{env_id}: answer_type={answer_type!r} but the items are judged as "
                f"{found_type!r}: set each item's answer_type (answer_type= may be left out)"
            )
        answer_type = found_type
        entry = ITEMS_ENTRY_POINT
    elif generator is not None:
        if not callable(generator):
            raise ValueError(
                f"{env_id}: generator must be a function of the item index, got {generator!r}"
            )
        if max_prompt_chars is None:
            raise ValueError(
                f"{env_id}: a generator needs max_prompt_chars (a bound on prompt size)"
            )
        if (
            isinstance(max_prompt_chars, bool)
            or not isinstance(max_prompt_chars, int)
            or max_prompt_chars < 1
        ):
            raise ValueError(
                f"{env_id}: max_prompt_chars must be a positive int, got {max_prompt_chars!r}"
            )
        if size is not None or procedural is False:
            raise ValueError(
                f"{env_id}: a generator env is procedural (item i for every index i): size= "
                "and procedural=False are for entry_point= envs; for a fixed set, give items="
            )
        source = GeneratedSource(
            ValidatedGenerator(env_id, generator, max_prompt_chars), max_prompt_chars
        )
        is_procedural = True
        size = None
        entry = ITEMS_ENTRY_POINT
    else:
        if not isinstance(entry_point, str) or ":" not in entry_point:
            raise ValueError(
                f"{env_id}: entry_point must look like 'module:Class', got {entry_point!r}"
            )
        _check_entry_class(env_id, entry_point)
        entry = entry_point
        is_procedural = size is None if procedural is None else procedural
    try:
        spec = ToMEnvSpec(
            id=env_id,
            family=family,
            orders=tuple(orders) if orders is not None else None,
            split=split,
            held_out=held_out,
            held_out_from=tuple(held_out_from),
            serves_held_out=tuple(serves_held_out),
            usage=usage,
            size=size,
            procedural=is_procedural,
            answer_type=answer_type or "choice",  # type: ignore[arg-type]  # checked by pydantic
            description=description,
            entry_point=entry,
            kwargs=dict(kwargs or {}),
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}={err['input']!r}: {err['msg']}"
            for err in exc.errors()
        )
        raise ValueError(f"{env_id}: bad registration argument(s): {problems}") from None
    _check_kwargs(env_id, entry, spec.kwargs, source)
    if env_id in BUILTIN_IDS and not entry.startswith("tomgym.envs."):
        warnings.warn(
            f"{env_id}: overwrite=True replaces tomgym's own env of this ID, in this process: "
            "its results and exports are no longer the benchmark's; register yours under "
            "another ID to compare with it",
            UserWarning,
            stacklevel=2,
        )
    # Everything is checked: from here on nothing can fail half-way.
    _changed()
    _SPECS[env_id] = spec
    if source is None:
        _SOURCES.pop(env_id, None)
    else:
        _SOURCES[env_id] = source
    if env_id in gym.registry:
        del gym.registry[env_id]
    gym.register(
        id=env_id,
        entry_point=entry,
        kwargs={"tom_id": env_id, **spec.kwargs},
        max_episode_steps=None,
        disable_env_checker=False,
    )
    return spec


def _check_kwargs(
    env_id: str, entry: str, kwargs: Mapping[str, Any], source: ItemSource | None
) -> None:
    """The default kwargs of a registration, checked before it is stored: every env's reward
    and prompt, and (for envs of items or a generator) that nothing else is given but a split
    its items have."""
    from tomgym.prompts import resolve_prompt
    from tomgym.rewards import resolve_reward

    try:
        if "reward" in kwargs:
            resolve_reward(kwargs["reward"])
        if "prompt" in kwargs:
            resolve_prompt(kwargs["prompt"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{env_id}: kwargs: {exc}") from None
    if entry != ITEMS_ENTRY_POINT:
        return  # a family's own arguments are checked when it is made
    from tomgym.env import ToMEnv

    known = ("split", *ToMEnv.ENV_ARGUMENTS)
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        close = {n: difflib.get_close_matches(n, known, n=1) for n in unknown}
        hints = "".join(f"; did you mean {m[0]!r} for {n!r}?" for n, m in close.items() if m)
        raise ValueError(
            f"{env_id}: kwargs {unknown} are not arguments of an env of items, which takes "
            f"{', '.join(known)}{hints}"
        )
    if "split" in kwargs and source is not None:
        from tomgym.env import split_of

        try:
            split_of(env_id, source, kwargs["split"])
        except (TypeError, ValueError) as exc:  # SplitNotFoundError is a ValueError
            message = str(exc).removeprefix(f"{env_id}: ")
            raise ValueError(f"{env_id}: kwargs: {message}") from None


_GENERATION = [0]


_SPACES_AND_MARKS = str.maketrans("", "", string.punctuation + string.whitespace)


def _as_compared(text: str) -> str:
    """A text as two copies of one question compare: case, spaces and punctuation aside ("the
    ball ?" is "The ball?"; only exact copies were caught). One C-level pass: a 200,000-row
    file registers in seconds."""
    return text.casefold().translate(_SPACES_AND_MARKS)


def _repeated_questions(items: Sequence[ToMItem]) -> list[str]:
    """What a list of items repeats that a user would want to know: one question about one
    story with two different golds (one of them can never be answered right), or with the
    same gold in one split (a row given twice, which weighs twice), and a test or
    val question that the train split asks too (held-out items seen in training)."""
    golds: dict[tuple[str, str], ToMItem] = {}
    splits: dict[tuple[str, str], dict[str, ToMItem]] = {}
    contradicted: list[tuple[ToMItem, ToMItem]] = []
    repeated: list[tuple[ToMItem, ToMItem]] = []
    for item in items:
        key = (_as_compared(item.story), _as_compared(item.question))
        first = golds.setdefault(key, item)
        if first is not item and first.answer != item.answer:
            contradicted.append((first, item))
        elif first is not item and first.split == item.split:
            repeated.append((first, item))
        splits.setdefault(key, {}).setdefault(item.split, item)
    leaked = [
        (by_split["train"], by_split[held])
        for by_split in splits.values()
        for held in ("val", "test")
        if "train" in by_split and held in by_split
    ]
    problems = []
    if contradicted:
        a, b = contradicted[0]
        problems.append(
            f"{len(contradicted)} question(s) about the same story are asked again with another "
            f"gold (item {a.id!r}: {a.answer!r}, item {b.id!r}: {b.answer!r}): no answer is "
            "right for both"
        )
    if repeated:
        a, b = repeated[0]
        problems.append(
            f"{len(repeated)} question(s) about the same story are asked again with the same "
            f"gold (item {b.id!r} repeats item {a.id!r}): each weighs twice, in training and "
            "in every score"
        )
    if leaked:
        a, b = leaked[0]
        problems.append(
            f"{len(leaked)} question(s) of a held-out split are asked in the train split too "
            f"(item {b.id!r} of {b.split} is item {a.id!r} of train): trained on, they stop "
            "measuring generalisation"
        )
    return problems


_UNSPACED_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
"""Kana and Han: scripts written without spaces between words."""


def _unspaced_answers(items: Sequence[ToMItem]) -> list[str]:
    """A dataset whose golds are written in a script without spaces (Chinese, Japanese): the
    judge finds the gold only as a word of its own, so "在箱子里" never names "箱子"."""
    unspaced = [item for item in items if _UNSPACED_SCRIPT.search(str(item.answer))]
    if not unspaced:
        return []
    advice = (
        "list its candidates in the prompt (list_candidates=True) and ask for one of them"
        if all(item.candidates for item in unspaced)
        else "give candidates and ask for one of them"
    )
    return [
        f"{len(unspaced)} item(s) have a gold in a script written without spaces (item "
        f"{unspaced[0].id!r}: {unspaced[0].answer!r}): the judge reads English words, so only an "
        f"answer that is the gold alone (or set apart by spaces or punctuation) names it; {advice}"
    ]


_NAME_LIST = re.compile(r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)?(?:\s*(?:,|\band\b|&)\s*[A-Z][\w'-]*"
                        r"(?: [A-Z][\w'-]*)?)+")  # fmt: skip
"""A gold that reads as a list of names: "Anne, Bob", "Anne and Bob", "Mary Ann, Bob & Carl"."""


def _name_list_golds(items: Sequence[ToMItem]) -> list[str]:
    """Free-text golds that read as lists of names ("Anne, Bob"): judged as text, "Bob and
    Anne" is wrong for them; as a list (answer_type 'names') they are judged as sets."""
    listed = [
        item
        for item in items
        if item.answer_type == "text" and _NAME_LIST.fullmatch(str(item.answer).strip())
    ]
    if not listed:
        return []
    return [
        f"{len(listed)} item(s) have a free-text gold that reads as a list of names (item "
        f"{listed[0].id!r}: {listed[0].answer!r}): judged as text, the same names in another "
        "order or joined otherwise ('Bob and Anne') are wrong; give the answer as a list, or "
        "set answer_type='names' (a column of a data file), to judge it as a set"
    ]


def _changed() -> None:
    _GENERATION[0] += 1


def registry_generation() -> int:
    """A number that changes whenever an env is registered or unregistered: caches of made
    envs (the label scorers') key on it, so a re-registered ID is never scored on old items."""
    return _GENERATION[0]


def _check_entry_class(env_id: str, entry_point: str) -> None:
    """``entry_point`` imports and names a ToMEnv subclass. Checked when registered: a class
    of another kind (a Gymnasium env) or a missing module was listed as an env, and every
    make of it then failed on an error naming neither the ID nor the registration."""
    import importlib

    from tomgym.env import ToMEnv

    module_name, _, attribute = entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # a missing module or one that fails on import
        raise ValueError(
            f"{env_id}: entry_point {entry_point!r}: cannot import {module_name} "
            f"({type(exc).__name__}: {exc})"
        ) from None
    target: Any = module
    for part in attribute.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise ValueError(
                f"{env_id}: entry_point {entry_point!r}: {module_name} has no {attribute}"
            )
    if not (isinstance(target, type) and issubclass(target, ToMEnv)):
        raise ValueError(
            f"{env_id}: entry_point {entry_point!r} is not a subclass of tomgym.ToMEnv (an env "
            "of items or a generator needs no class: pass items= or generator=)"
        )


def _is_tom_entry(env_id: str) -> bool:
    """Whether Gymnasium's entry for ``env_id`` was made by ``register_tom_env`` (it passes
    ``tom_id``), for instance before this module was reloaded."""
    entry = gym.registry.get(env_id)
    return entry is not None and entry.kwargs.get("tom_id") == env_id


def _ints_or_none(env_id: str, name: str, value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ValueError(f"{env_id}: {name} must be a sequence of ints or None, got {value!r}")
    values = tuple(value)
    if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
        raise ValueError(f"{env_id}: {name} must be a sequence of ints or None, got {value!r}")
    return values


def check_env_id(env_id: str) -> None:
    """A valid Gymnasium ID with a version, written as Gymnasium writes it: it stores
    ``X-v00`` under ``X-v0``, so that spelling would silently take the place of ``X-v0``."""
    from gymnasium.envs.registration import get_env_id, parse_env_id

    try:
        namespace, name, version = parse_env_id(env_id)
    except Exception as exc:  # gymnasium raises its own error type
        raise ValueError(f"{env_id!r} is not a valid Gymnasium env ID: {exc}") from None
    if version is None:
        raise ValueError(f"{env_id!r}: ToM env IDs end with a version, e.g. 'My-ToM-v0'")
    if ":" in env_id:  # gym.make("my:Bar-v0") imports the module "my" first
        raise ValueError(
            f"{env_id!r}: an env ID cannot hold ':', which gym.make reads as 'module:ID' (the "
            "module to import first); write the ID without it"
        )
    canonical = get_env_id(namespace, name, version)
    if canonical != env_id:
        raise ValueError(
            f"{env_id!r}: Gymnasium reads its version as {version} and stores it as "
            f"{canonical!r} (another env's ID, or one gym.make({env_id!r}) cannot find); "
            f"write it as {canonical!r}"
        )


RegistryState = tuple[dict[str, "ToMEnvSpec"], dict[str, ItemSource], dict[str, Any]]


def registry_state() -> RegistryState:
    """A snapshot of tomgym's registrations, to undo what a failing plugin did."""
    entries = {i: gym.registry[i] for i in _SPECS if i in gym.registry}
    return dict(_SPECS), dict(_SOURCES), entries


def restore_registry(state: RegistryState) -> None:
    """Put tomgym's registrations back as :func:`registry_state` took them: IDs added since
    are removed, IDs replaced (``overwrite=True``) or removed since get their old env back."""
    specs, sources, entries = state
    for env_id in set(_SPECS) - set(specs):
        unregister_tom_env(env_id)
    for env_id, spec in specs.items():
        if _SPECS.get(env_id) is spec and _SOURCES.get(env_id) is sources.get(env_id):
            continue
        _changed()
        _SPECS[env_id] = spec
        if env_id in sources:
            _SOURCES[env_id] = sources[env_id]
        else:
            _SOURCES.pop(env_id, None)
        if env_id in entries:
            gym.registry[env_id] = entries[env_id]


def unregister_tom_env(env_id: str) -> None:
    """Remove a ToM env from both registries (a no-op for unknown IDs, and for Gymnasium IDs
    that tomgym did not register: those are left alone)."""
    ours = env_id in _SPECS or _is_tom_entry(env_id)
    _changed()
    _SPECS.pop(env_id, None)
    _SOURCES.pop(env_id, None)
    if ours and env_id in gym.registry:
        del gym.registry[env_id]


def get_spec(env_id: str) -> ToMEnvSpec:
    """The spec of a registered ToM env; an unknown ID suggests the nearest registered ones."""
    if env_id.startswith("tomgym:"):
        env_id = env_id.split(":", 1)[1]
    try:
        return _SPECS[env_id]
    except KeyError:
        raise UnknownEnvError(unknown_id_message(env_id)) from None


BUILT_IN_PREFIX = "ToM-"
"""The prefix of tomgym's own env IDs."""


def unknown_id_message(env_id: str) -> str:
    """The unregistered ID, the nearest registered IDs of its kind (tomgym's own for a
    ``ToM-`` ID, users' for another: "MyFile-v0" is not a typo of "ToM-ToMi-v0"), and, for a
    user's ID, where a registration made in a script is known."""
    # by case-folded IDs: "tom-hitom-o4-v0" is a typo of ToM-HiToM-O4-v0
    own = env_id.casefold().startswith(BUILT_IN_PREFIX.casefold())
    kind = {i.casefold(): i for i in _SPECS if i.startswith(BUILT_IN_PREFIX) == own}
    near = [kind[i] for i in difflib.get_close_matches(env_id.casefold(), kind, n=5, cutoff=0.5)]
    hint = f" Did you mean: {', '.join(near)}?" if near else ""
    where = (
        ""
        if own
        else " An env registered in a script (register_tom_env, register_from_file) is known "
        "in that process only: for tomgym's commands and other processes to know it, pass its "
        "env file (--env-file FILE.json, written by `tomgym register ... --save FILE.json`; "
        "$TOMGYM_ENV_FILES for other processes) or register it from a plugin (the "
        "`tomgym.envs` entry-point group; see the README)."
    )
    return f"No ToM env is registered as {env_id!r}.{hint}{where} (`tomgym list` shows them all.)"


def registered_source(env_id: str) -> ItemSource:
    """The item source stored for an env registered with items= or generator=."""
    try:
        return _SOURCES[env_id]
    except KeyError:
        if env_id in _SPECS:  # a family env: ToMEnv itself serves only registered items
            raise ValueError(
                f"{env_id} is a {_SPECS[env_id].family} env, not one of registered items: make "
                f"it with tomgym.make({env_id!r}), not ToMEnv({env_id!r})"
            ) from None
        raise UnknownEnvError(unknown_id_message(env_id)) from None


def list_envs(family: str | None = None) -> list[ToMEnvSpec]:
    """One record per registered ToM env (optionally one family, named in any case), in
    registration order. A family no registered env has is a ValueError listing those there
    are: a misspelt one would otherwise read as a family without envs."""
    if family is None:
        return list(_SPECS.values())
    if not isinstance(family, str):
        raise TypeError(f"family must be a string or None, got {type(family).__name__}")
    wanted = family.strip().casefold()
    specs = [s for s in _SPECS.values() if s.family.casefold() == wanted]
    if not specs:
        known = sorted({s.family for s in _SPECS.values()})
        raise ValueError(f"no env of family {family!r}; families: {', '.join(known)}")
    return specs
