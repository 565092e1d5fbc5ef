"""ToMEnv: one Theory-of-Mind question per episode, the response scored by the shared verifier."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import inspect
import numbers
import warnings
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from pydantic import BaseModel

from tomgym.items import SPLITS, ToMItem
from tomgym.prompts import (
    CANDIDATES_LEAD,
    PREFILL,
    PromptPreset,
    render_messages,
    render_observation,
    resolve_prompt,
)
from tomgym.registry import get_spec, registered_source
from tomgym.rewards import RewardSpec, Score, resolve_reward, score_response
from tomgym.sources import PROCEDURAL_INDEX_LIMIT, ItemSource, ListSource
from tomgym.spaces import (
    ACTION_MAX_CHARS,
    has_astral,
    response_space,
    text_space,
    to_printable,
)

_RESET_OPTIONS = frozenset({"index"})
_CANDIDATE_LIST_ALLOWANCE = 2_048


class EpisodeStateError(RuntimeError):
    """``step`` was called before ``reset`` or after the episode ended."""


class EnvArgumentError(ValueError, TypeError):
    """A keyword argument of an env has the wrong type or value, found at make time.

    The message names the env, the argument and the value. It is both a ValueError and a
    TypeError so that code catching either (the CLI, ``gym.make`` callers) sees it.
    """

    def __init__(self, *args: object) -> None:
        # gym.make raises a TypeError from the env's creator again as its own type, adding
        # "was raised from the environment creator for ID with kwargs (...)": the message
        # names the ID already, and the kwargs held tomgym's internal ones (user red team).
        if args and isinstance(args[0], str) and _GYM_MAKE_SUFFIX in args[0]:
            args = (args[0].split(_GYM_MAKE_SUFFIX, 1)[0], *args[1:])
        super().__init__(*args)


_GYM_MAKE_SUFFIX = " was raised from the environment creator for "


class SplitNotFoundError(EnvArgumentError):
    """The env's items have splits, but none of the one asked for. Unlike an env without
    splits (a plain ValueError), it must not be replaced by the env's whole item list: that
    would serve the other splits' items (the test items, when training asked for ``train``)."""


@contextlib.contextmanager
def arguments_of(where: str) -> Iterator[None]:
    """Re-raise a ValueError from a check further down (a generator config's) as an
    :class:`EnvArgumentError` that names the env."""
    try:
        yield
    except EnvArgumentError:
        raise
    except (ValueError, TypeError) as exc:  # prompt=123 is a TypeError: named as the others
        raise EnvArgumentError(f"{where}: {_one_line(exc)}") from None


def _one_line(exc: ValueError | TypeError) -> str:
    """A pydantic ValidationError as ``field: problem (got value)``; other errors as they are."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return str(exc)
    title = getattr(exc, "title", "value")
    return f"bad {title}: " + "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']} (got {e.get('input')!r})"
        for e in errors()
    )


def argument_error(where: str, name: str, value: Any, expected: str) -> EnvArgumentError:
    """``<env>: <name> must be <expected>, got <value> (<type>)``; for a string of commas
    ("1,2", as ``--kwarg orders=1,2`` gives), how a list is written there."""
    hint = (
        f" (on the command line a list is written in brackets: --kwarg {name}=[{value}])"
        if isinstance(value, str) and "," in value and not value.lstrip().startswith("[")
        else ""
    )
    return EnvArgumentError(
        f"{where}: {name} must be {expected}, got {value!r} ({type(value).__name__}){hint}"
    )


def check_bool(where: str, name: str, value: Any) -> bool:
    """``value`` if it is a bool; strings such as ``"False"`` or ``"yes"`` and 0/1 are refused
    (``bool("False")`` is True, and 1 vs True would give a different item stream)."""
    if not isinstance(value, bool):
        raise argument_error(where, name, value, "True or False")
    return value


def check_optional_bool(where: str, name: str, value: Any) -> bool | None:
    """``value`` if it is a bool or None."""
    if value is not None and not isinstance(value, bool):
        raise argument_error(where, name, value, "True, False or None")
    return value


def check_int(where: str, name: str, value: Any, allowed: Collection[int] | None = None) -> int:
    """``value`` as a plain int (numpy integers too); bools, floats and strings are refused,
    so that equal-looking arguments (1, 1.0, True) cannot name different item streams."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        expected = "an int" if allowed is None else f"an int in {_describe(allowed)}"
        raise argument_error(where, name, value, expected)
    number = int(value)
    if allowed is not None and number not in allowed:
        raise argument_error(where, name, value, f"an int in {_describe(allowed)}")
    return number


def check_optional_int(
    where: str, name: str, value: Any, allowed: Collection[int] | None = None
) -> int | None:
    """``value`` as a plain int, or None; see :func:`check_int`."""
    if value is None:
        return None
    try:
        return check_int(where, name, value, allowed)
    except EnvArgumentError:
        expected = "an int" if allowed is None else f"an int in {_describe(allowed)}"
        raise argument_error(where, name, value, f"{expected} or None") from None


def check_ints(where: str, name: str, value: Any, allowed: Collection[int]) -> tuple[int, ...]:
    """A non-empty sequence (tuple or list) of ints from ``allowed``, as a tuple of plain ints.
    A bare int is refused: ``orders=3`` is written ``orders=(3,)``."""
    expected = f"a non-empty tuple or list of ints in {_describe(allowed)}"
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        raise argument_error(where, name, value, f"{expected}, e.g. {name}=({int(value)},)")
    if not isinstance(value, tuple | list) or not value:
        raise argument_error(where, name, value, expected)
    if any(
        isinstance(v, bool) or not isinstance(v, numbers.Integral) or int(v) not in allowed
        for v in value
    ):
        raise argument_error(where, name, value, expected)
    return tuple(int(v) for v in value)


def check_probability(where: str, name: str, value: Any, *, below_one: bool = True) -> float:
    """``value`` as a float in [0, 1) (or [0, 1]); an int becomes the equal float, so 0 and 0.0
    serve the same items. Bools, strings and None are refused."""
    interval = "[0, 1)" if below_one else "[0, 1]"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise argument_error(where, name, value, f"a number in {interval}")
    number = float(value)
    if not (0.0 <= number < 1.0 if below_one else 0.0 <= number <= 1.0):
        raise argument_error(where, name, value, f"a probability in {interval}")
    return number


def check_choice(where: str, name: str, value: Any, allowed: Collection[str]) -> str:
    """``value`` if it is one of the names in ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise argument_error(where, name, value, f"one of {tuple(allowed)}")
    return value


def check_strs(where: str, name: str, value: Any, allowed: Collection[str]) -> tuple[str, ...]:
    """A non-empty sequence (tuple or list) of names from ``allowed``, as a tuple."""
    expected = f"a non-empty tuple or list of names from {tuple(allowed)}"
    if isinstance(value, str):
        raise argument_error(where, name, value, f"{expected}, e.g. {name}=({value!r},)")
    if not isinstance(value, tuple | list) or not value or any(v not in allowed for v in value):
        raise argument_error(where, name, value, expected)
    return tuple(value)


def _describe(allowed: Collection[int]) -> str:
    values = sorted(allowed)
    if len(values) > 2 and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]}"
    return ", ".join(str(a) for a in values)


TRACE_REWARD_FAMILIES = ("hitom", "tomi")
"""Families whose reasoning the simulator can check (the trace reward part)."""


def _first_unparsed_story(source: ItemSource, family: str) -> str | None:
    """The id of the first item of a fixed source whose story the simulator cannot read in
    ``family``'s sentence forms (a user's items registered under a simulated family), or
    None; generated sources, which write those forms, are not read."""
    if not isinstance(source, ListSource) or not source.items:
        return None
    from tomgym.world.parse import UnknownSentenceError, parse_story

    item = source.items[0]
    try:
        parse_story(item.story)
    except (UnknownSentenceError, ValueError):
        return repr(item.id)
    return None


class HeldOutRedefinedWarning(UserWarning):
    """A held-out ID made with arguments that make it serve other items than its own."""


class HeldOutDataWarning(UserWarning):
    """Training data drawn from held-out envs, the test split or held-out items (an export,
    ``tomgym train``)."""


class KnownWrongLabelsWarning(UserWarning):
    """Training data from an env whose family knows some of its gold answers to be wrong (its
    ``label_caveat``): an export, ``tom_rows``, ``tomgym train``."""


def warn_if_redefined(
    tom_id: str,
    given: Mapping[str, Any],
    canonical: Callable[[str, Any], Any] | None = None,
) -> None:
    """Warn when a held-out ID is made with another value for an argument its registration
    fixes (``gym.make("ToM-HiToM-O4-v0", orders=(0,))``): it then serves other items, which
    its spec and ``info["env_id"]`` still call held out. ``canonical(key, value)`` is the
    family's way of writing a value, where two spellings are one (Hi-ToM's ``debiased=True``
    and ``"reality"``)."""
    spec = get_spec(tom_id)
    if not spec.held_out:
        return
    same = canonical or (lambda _key, value: value)
    changed = {
        key: value
        for key, value in given.items()
        if key in spec.kwargs
        and key != "split"
        and _plain(same(key, value)) != _plain(same(key, spec.kwargs[key]))
        and not _narrows(value, spec.kwargs[key])
    }
    if changed:
        fixed = {key: spec.kwargs[key] for key in changed}
        warnings.warn(
            f"{tom_id} is held out as registered ({fixed}); made with {changed} it serves other "
            "items, which its spec and info['env_id'] still call held out",
            HeldOutRedefinedWarning,
            stacklevel=4,
        )


def _narrows(given: Any, registered: Any) -> bool:
    """Whether ``given`` picks some of the registration's items, all still held out: any value
    where the registration sets none (OpenToM's ``genre``), or some of its names or orders
    (ToMi-Debiased's ``question_types``)."""
    if registered is None:
        return given is not None
    if isinstance(given, tuple | list) and isinstance(registered, tuple | list):
        return bool(given) and set(given) < set(registered)
    return False


def _plain(value: Any) -> Any:
    """A value compared as written: a list as the tuple it stands for."""
    return tuple(value) if isinstance(value, list) else value


def split_of(label: str, source: ItemSource, split: Any) -> ItemSource:
    """The items of ``source`` in ``split`` (``all``: every item), or an error that names the
    env: a generated env takes no split, items without splits take only ``all``, and a split
    none of the items has is refused, never replaced by the whole list."""
    if not isinstance(source, ListSource):
        raise EnvArgumentError(
            f"{label}: a generated env takes no split argument (its generator makes item i for "
            f"every index i; register one generator env per split), not split={split!r}"
        )
    split = check_choice(label, "split", split, SPLITS)
    if split == "all":
        return source
    present = sorted(source.splits)
    if present == ["all"]:
        raise ValueError(
            f"{label}: its items have no splits (use split='all' or none), not split={split!r}"
        )
    if split not in source.splits:
        raise SplitNotFoundError(
            f"{label}: no items of split {split!r}; its items' splits are {', '.join(present)}"
        )
    return source.splits[split]


def json_ready(value: Any) -> Any:
    """An env argument as JSON writes it: a pydantic model as its fields, a NumPy number as the
    Python number of its value, inside tuples, lists and dicts too."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return tuple(json_ready(inner) for inner in value)
    if isinstance(value, list):
        return [json_ready(inner) for inner in value]
    if isinstance(value, dict):
        return {key: json_ready(inner) for key, inner in value.items()}
    return value


_COPIED = (dict, list)
"""What :func:`detached` copies (subclasses too, as plain dicts and lists)."""


def detached(value: Any) -> Any:
    """A copy of ``value``'s dicts and lists, sharing their other contents: an item's metadata
    as ``info`` hands it out. A release's items are cached for the whole process, so editing a
    shallow copy's ``candidate_aliases`` changed what every env of that release paid."""
    # Values that are neither are kept without a call each: most of an item's metadata is
    # strings and numbers, and a call per value was most of this copy's cost (every step).
    if isinstance(value, dict):
        return {
            key: detached(inner) if isinstance(inner, _COPIED) else inner
            for key, inner in value.items()
        }
    if isinstance(value, list):
        return [detached(inner) if isinstance(inner, _COPIED) else inner for inner in value]
    return value


def _printable(content: str, role: str, astral: bool) -> str:
    """``to_printable`` of a message; a system message's is kept, as every item of an env
    shows the same one (about 1,000 characters read again per reset)."""
    if role == "system":
        return _printable_system(content, astral)
    return to_printable(content, astral=astral)


@functools.lru_cache(maxsize=64)
def _printable_system(content: str, astral: bool) -> str:
    return to_printable(content, astral=astral)


class ToMEnv(gym.Env[str, str]):
    """A Theory-of-Mind question answered in one step.

    ## Description
    Each episode shows one story and one question about who knows or believes what. The agent
    answers once, reasoning inside ``<think> </think>`` and answering inside
    ``<answer> </answer>``; the episode then ends. Items come from a dataset release, a
    user's data, or a generator (the world simulator), depending on the registered ID.

    ## Observation
    The rendered prompt (system message with the format instruction and the family's world
    assumptions, then the story and the question) as one string in a ``Text`` space over
    printable Unicode, sized to the env's longest prompt. ``info["messages"]`` carries the
    same content as chat messages so an agent can apply its own chat template;
    ``info["prefill"]`` is ``"<think>\\n"`` when ``prefill_think=True``: the start of the
    response, already written (the observation then ends with it too).

    ## Action
    The response text: any string of any length (the action space's bound only limits
    ``sample()``). With a prefill, the text the model generated after it; a text that starts
    with the prefill itself is read as the whole response (both earn the same reward).

    ## Rewards
    A format part plus a correctness part, from a reward preset: ``rlvr`` (default; 0.1 for
    the format, 1.0 for a correct answer), ``tomrl`` (format +1/-1, answer +2/-2) or
    ``accuracy`` (1/0, format ignored), or a custom ``RewardSpec``. The format holds for
    exactly one ``<think>...</think>`` followed by exactly one ``<answer>...</answer>``.
    Correctness is judged on whole normalised words; where the item has candidates, naming
    any other candidate besides the gold one earns nothing.

    ## Episode End
    Always terminated after the first step (``terminated=True``, ``truncated=False``). The
    terminal observation is the empty string. ``info`` then holds the extracted answer,
    ``format_ok``, ``correct``, ``verdict`` (why not correct), ``gold`` and ``reward_parts``.

    ## Arguments
    - ``reward``: preset name, dict of ``RewardSpec`` fields, or a ``RewardSpec``.
    - ``prompt``: preset name (``default``, ``tomrl``, ``cot``), a ``PromptPreset`` or a dict of
      its fields.
    - ``prefill_think``: start the response with ``<think>`` (counted by the format rule);
      a bool (``"False"`` is refused, not read as true).
    - ``render_mode``: ``None`` or ``"ansi"`` (``render()`` returns the prompt and, after the
      step, the response and its verdict).
    - ``split``: for an env registered with items (a user's data), serve only the items of
      that split (``train``, ``val``, ``test``; ``all``: every item), as each item's ``split``
      field says; an env whose items carry no split takes only ``all``.
    - further keyword arguments go to the family's item source (``split``, ``order``, ...).

    An argument of the wrong type or value is an ``EnvArgumentError`` (a ValueError and a
    TypeError) at make time, naming the env ID, the argument and the value.

    ``reset(seed=..., options={"index": i})`` serves item ``i``; without an index, a seeded
    random item.

    ## Registered Configurations
    Every ToM env ID (``tomgym list``); user envs from ``tomgym.register_tom_env``.

    ## Version History
    - v0: initial release.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012
    family: ClassVar[str] = "custom"
    ARGUMENT_ALIASES: ClassVar[Mapping[str, str]] = {}
    """Arguments that name one setting (``vocab_split`` -> ``vocab``): given for an ID
    registered with the other, the one given wins (see :meth:`given_over_registered`)."""
    label_caveat: str = ""
    """Known wrong gold answers among the items this env serves, as the family knows them (the
    Hi-ToM release's MC copy): an export or training set of it warns, since training on them
    rewards the wrong answers. Empty when none are known."""
    _spec: EnvSpec | None = None

    @property  # type: ignore[override]
    def spec(self) -> EnvSpec | None:
        """The spec ``gym.make`` gave the env, with a ``PromptPreset`` or ``RewardSpec`` argument
        as the dict of its fields and a NumPy number (``seed=np.int64(3)``) as Python's:
        ``spec.to_json()`` then works, and ``gym.make`` of the spec (or of
        ``EnvSpec.from_json``) makes the same env."""
        return self._spec

    @spec.setter
    def spec(self, value: EnvSpec | None) -> None:
        if value is not None:
            kwargs = {key: json_ready(v) for key, v in value.kwargs.items()}
            value = dataclasses.replace(value, kwargs=kwargs)
        self._spec = value

    def __init__(
        self,
        tom_id: str | None = None,
        *,
        reward: str | dict[str, Any] | RewardSpec = "rlvr",
        prompt: str | PromptPreset | Mapping[str, Any] = "default",
        prefill_think: bool = False,
        render_mode: str | None = None,
        **source_kwargs: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvArgumentError(
                f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}"
            )
        self.tom_id = tom_id
        self.render_mode = render_mode
        prefill_think = check_bool(self.label, "prefill_think", prefill_think)
        with arguments_of(self.label):  # a bad dict's validation error names the env
            self.reward_spec = resolve_reward(reward)
            self.prompt_preset = resolve_prompt(prompt)
        self.prefill = PREFILL if prefill_think else ""
        self.prompt_family = get_spec(tom_id).family if tom_id else self.family
        if self.prompt_family == "custom":
            self.prompt_family = self.family
        self.refuse_unknown(source_kwargs)
        source_kwargs = self.given_over_registered(source_kwargs)
        self.source_kwargs: dict[str, Any] = dict(source_kwargs)
        """The arguments that picked the items (``split``, ``debiased``...), as given."""
        self.source: ItemSource = self.build_source(**source_kwargs)
        if self.source.size == 0:  # a family's loader names a damaged file before this
            given = f" with {source_kwargs}" if source_kwargs else ""
            raise ValueError(f"{self.label} serves no items{given}: nothing to reset to")
        if tom_id is not None:  # once the arguments are known to be good
            warn_if_redefined(tom_id, source_kwargs, self.canonical_argument)
        family = self.prompt_family
        if self.reward_spec.trace_weight > 0 and family not in TRACE_REWARD_FAMILIES:
            warnings.warn(
                f"{self.label}: trace_weight is paid on generated and released Hi-ToM and ToMi "
                f"only (the simulator checks their claims); {family} items get no trace part",
                UserWarning,
                stacklevel=3,
            )
        elif self.reward_spec.trace_weight > 0:
            unparsed = _first_unparsed_story(self.source, family)
            if unparsed is not None:
                warnings.warn(
                    f"{self.label}: trace_weight needs stories in {family}'s sentence forms, "
                    f"which the simulator reads; item {unparsed} is not (a family named for "
                    "its dataset, not its format?): such items get a trace part of 0",
                    UserWarning,
                    stacklevel=3,
                )
        if self.reward_spec.untagged_answers and self.prefill:
            warnings.warn(
                f"{self.label}: untagged answers are read outside the think part, and with "
                "prefill_think=True a response starts inside it: an untagged response that "
                "never closes </think> earns nothing (drop prefill_think, or ask for the tags)",
                UserWarning,
                stacklevel=3,
            )
        self._astral = self._prompts_go_beyond_the_bmp()
        self._stood_in_warned = False
        self.observation_space: spaces.Text = text_space(
            self._max_observation_chars(), min_length=0, astral=self._astral
        )
        self.action_space: spaces.Text = response_space(ACTION_MAX_CHARS)
        self._item: ToMItem | None = None
        self._index: int | None = None
        self._episode_over = False
        self._last_response: str | None = None
        self._last_score: Score | None = None

    @property
    def label(self) -> str:
        """The env's ID (its class name when made without one), for messages."""
        return self.tom_id or type(self).__name__

    ENV_ARGUMENTS: ClassVar[tuple[str, ...]] = ("reward", "prompt", "prefill_think", "render_mode")
    """What every env takes, besides its family's own arguments (see :meth:`source_arguments`)."""

    @classmethod
    def source_arguments(cls) -> tuple[str, ...]:
        """The keyword arguments this env's ``build_source`` takes, by name."""
        if cls.build_source is ToMEnv.build_source:
            return ("split",)  # registered items: split=, read by the base build_source
        parameters = inspect.signature(cls.build_source).parameters.values()
        return tuple(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)

    def given_over_registered(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """``kwargs`` with an argument given under one name of a setting taking the place of
        the registration's value under another (``vocab="train"`` on an ID registered with
        ``vocab_split="test"``): otherwise the two would disagree, or the registration's would
        win silently. The given value goes under the registered name, so a held-out ID's
        redefinition warns as any other."""
        registered = get_spec(self.tom_id).kwargs if self.tom_id is not None else {}
        out = dict(kwargs)
        for alias, name in self.ARGUMENT_ALIASES.items():
            for fixed, given in ((alias, name), (name, alias)):
                if (
                    fixed in registered
                    and given not in registered
                    and fixed in out
                    and given in out
                    and _plain(out[fixed]) == _plain(registered[fixed])  # not given as well
                ):
                    out[fixed] = out.pop(given)
        return out

    def refuse_unknown(self, source_kwargs: Mapping[str, Any]) -> None:
        """An :class:`EnvArgumentError` naming arguments the env does not take, what it takes,
        and the closest name to each ("splt" -> "split")."""
        accepted = self.source_arguments()
        unknown = sorted(set(source_kwargs) - set(accepted))
        if not unknown:
            return
        known = (*accepted, *self.ENV_ARGUMENTS)
        close = {name: difflib.get_close_matches(name, known, n=1) for name in unknown}
        hints = "".join(f"; did you mean {m[0]!r} for {n!r}?" for n, m in close.items() if m)
        raise EnvArgumentError(
            f"{self.label}: unexpected keyword argument(s) {unknown}; it takes "
            f"{', '.join(accepted)} and every env's {', '.join(self.ENV_ARGUMENTS)}{hints}"
        )

    # --- what a family overrides -------------------------------------------------------
    def canonical_argument(self, key: str, value: Any) -> Any:
        """``value`` of the source argument ``key`` as the family writes it, where two
        spellings pick the same items (compared when a held-out ID is made with arguments).
        Families with such spellings override this."""
        return value

    def build_source(self, **source_kwargs: Any) -> ItemSource:
        """The items this env serves. Families override this; the base serves registered items,
        all of them or (``split=``) those of one split, as each item's ``split`` field says."""
        split = source_kwargs.pop("split", None)  # anything else was refused in __init__
        if self.tom_id is None:
            raise ValueError("ToMEnv needs tom_id= (a registered ID) or a family subclass")
        source = registered_source(self.tom_id)
        if split is None:
            return source
        return split_of(self.label, source, split)

    # --- the Gymnasium API -------------------------------------------------------------
    @property
    def size(self) -> int | None:
        """Number of items; None for a procedural env."""
        return self.source.size

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(
                f"reset options must be a dict such as {{'index': 3}}, got "
                f"{type(options).__name__} {options!r:.60}"
            )
        options = dict(options or {})
        unknown = set(options) - _RESET_OPTIONS
        if unknown:
            raise ValueError(
                f"unknown reset options {sorted(unknown)}; known: {sorted(_RESET_OPTIONS)}"
            )
        limit = self.source.size if self.source.size is not None else PROCEDURAL_INDEX_LIMIT
        index = options.get("index")
        if index is None:
            index = int(self.np_random.integers(0, limit))
        elif type(index) is not int and (  # an int, at once; else numbers' (slower) check
            isinstance(index, bool) or not isinstance(index, numbers.Integral)
        ):
            raise TypeError(f"options['index'] must be an int, got {type(index).__name__}")
        else:
            index = int(index)  # numpy's integers too: indices often come from np.random
        if not 0 <= index < limit:
            raise IndexError(f"options['index']={index} is out of range 0..{limit - 1}")
        item = self.source.item(index)
        self._item, self._index, self._episode_over = item, index, False
        self._last_response = self._last_score = None
        messages = self.messages_for(item)
        observation = render_observation(messages, self.prefill)
        if len(observation) > self.observation_space.max_length:
            raise RuntimeError(
                f"{self.tom_id}: item {item.id} renders to {len(observation)} characters, over the "
                f"space's bound {self.observation_space.max_length}; the source's "
                "max_prompt_chars is wrong"
            )
        info = {
            "env_id": self.tom_id,
            "item_id": item.id,
            "index": index,
            "order": item.order,
            "question_type": item.question_type,
            "answer_type": item.answer_type,
            "split": item.split,
            "source": item.source,
            "candidates": list(item.candidates),
            "messages": messages,
            "prefill": self.prefill,
        }
        return observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if not isinstance(action, str):
            raise TypeError(
                f"the action must be the response text (str), got {type(action).__name__}"
            )
        if self._item is None:
            raise EpisodeStateError("step() called before reset(): call reset() first")
        if self._episode_over:
            raise EpisodeStateError("the episode has ended (one answer per episode): call reset()")
        item = self._item
        score = score_response(action, item, self.reward_spec, self.prefill)
        self._episode_over = True
        self._last_response, self._last_score = action, score
        info = {
            "env_id": self.tom_id,
            "item_id": item.id,
            "index": self._index,
            "order": item.order,
            "question_type": item.question_type,
            "answer": score.answer,
            "format_ok": score.format_ok,
            "correct": score.correct,
            "verdict": score.verdict,
            "detail": score.detail,
            "gold": score.gold,
            "reward_parts": dict(score.parts),
            "metadata": detached(item.metadata),
        }
        return "", float(score.reward), True, False, info

    def render(self) -> str | None:  # type: ignore[override]
        return self.render_text() if self.render_mode == "ansi" else None

    # --- helpers -----------------------------------------------------------------------
    @property
    def current_item(self) -> ToMItem | None:
        """The item of the current episode (it holds the gold answer: for tools, not agents)."""
        return self._item

    @property
    def last_score(self) -> Score | None:
        """The full verdict of the last step (None before the first step of an episode)."""
        return self._last_score

    def messages_for(self, item: ToMItem) -> list[dict[str, str]]:
        messages = render_messages(item, self.prompt_preset, self.prompt_family)
        warn = not self._astral and not self._stood_in_warned
        if warn and any(has_astral(m["content"]) for m in messages):  # at C speed, mostly
            self._warn_stood_in(item, messages)
        return [
            {"role": m["role"], "content": _printable(m["content"], m["role"], self._astral)}
            for m in messages
        ]

    def _prompts_go_beyond_the_bmp(self) -> bool:
        """Whether a prompt may hold printable characters beyond the Basic Multilingual Plane
        (emoji...): an item list or the prompt preset that holds one. The spaces' character
        set then includes them, so they reach the agent as written, not as U+FFFD."""
        if has_astral(repr(self.prompt_preset.model_dump())):
            return True
        if isinstance(self.source, ListSource):
            return self.source.holds_astral  # cached on the (shared) source
        items = getattr(self.source, "items", None)
        return items is not None and ListSource(items).holds_astral

    def _warn_stood_in(self, item: ToMItem, messages: list[dict[str, str]]) -> None:
        """Warn once when a generated item's prompt loses printable characters beyond the BMP
        (an item list's are kept: see :meth:`_prompts_go_beyond_the_bmp`)."""
        lost = sorted(
            {c for m in messages for c in m["content"] if c > "\uffff" and c.isprintable()}
        )
        if lost:
            self._stood_in_warned = True
            warnings.warn(
                f"{self.label}: item {item.id!r} holds characters beyond the Basic Multilingual "
                f"Plane ({''.join(lost[:10])}); a generated env's observation space holds only "
                "the BMP's, so its prompts show U+FFFD in their place (register the items as a "
                "list to keep them)",
                UserWarning,
                stacklevel=4,
            )

    def render_text(self) -> str:
        if self._item is None:
            return "(no episode yet: call reset())"
        lines = [render_observation(self.messages_for(self._item), self.prefill)]
        if self._last_score is not None:
            s = self._last_score
            lines += [
                "",
                f"Response: {self._last_response}",
                f"Answer: {s.answer!r}  gold: {s.gold!r}  verdict: {s.verdict}  reward: {s.reward}",
            ]
        return "\n".join(lines)

    def _max_observation_chars(self) -> int:
        probe = ToMItem(id="probe", story="s", question="q", answer="x", answer_type="text")
        overhead = len(
            render_observation(
                render_messages(probe, self.prompt_preset, self.prompt_family), PREFILL
            )
        )
        extra = 0
        if self.prompt_preset.list_candidates:  # a source that knows its candidates says so
            listed = getattr(self.source, "max_candidates_chars", 0)
            listed = len(CANDIDATES_LEAD) + listed if isinstance(listed, int) else 0
            extra = max(_CANDIDATE_LIST_ALLOWANCE, listed)
        # a user_template may show the story (or question) more than once
        template = self.prompt_preset.user_template
        repeats = max(1, template.count("{story}"), template.count("{question}"))
        return overhead + repeats * self.source.max_prompt_chars + extra
