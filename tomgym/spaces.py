"""Text spaces over printable Unicode, with the (costly) character set built once and shared."""

from __future__ import annotations

import copy
import functools
import unicodedata
from collections.abc import Sequence as CollectionsSequence
from typing import Any, overload

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import shared_memory

EXTRA_WHITESPACE = "\n\t"
ACTION_MAX_CHARS = 16_384
"""What ``action_space.sample()`` draws up to; ``step`` itself accepts a string of any length."""


@functools.cache
def printable_charset(astral: bool = False) -> frozenset[str]:
    """Every printable character of the Basic Multilingual Plane, plus newline and tab; with
    ``astral``, those of the planes beyond it too (emoji, rare CJK, mathematical letters): a
    set 2.6 times the size, 0.3 s more to build once per process and about 15 MB more, so only
    envs whose items hold such characters get it (see :func:`has_astral`)."""
    top = 0x110000 if astral else 0x10000
    chars = {chr(c) for c in range(0x20, top) if chr(c).isprintable()}
    return frozenset(chars | set(EXTRA_WHITESPACE))


def has_astral(text: str) -> bool:
    """Whether the text holds a character beyond the Basic Multilingual Plane."""
    return not text.isascii() and max(text) > "\uffff"


class PrintableText(spaces.Text):
    """A Text space whose deep copies share the (immutable) character tables.

    Gymnasium's vector envs deep-copy the single-env spaces (``batch_space``); copying a
    60,000-character set with its index table took about a second per sub-env. Only the
    generator is copied deeply here; the tables are never mutated.
    """

    _SHARED = ("_char_set", "_char_list", "_char_index", "_char_str")

    astral: bool = False
    """Whether the character set goes beyond the Basic Multilingual Plane."""

    def __repr__(self) -> str:
        # Gymnasium's repr lists the whole character set: 55,000 characters per space.
        where = "" if self.astral else " of the BMP"
        return (
            f"Text({self.min_length}, {self.max_length}, charset=<printable Unicode{where} "
            f"plus newline and tab: {len(self.character_set)} characters>)"
        )

    def __copy__(self) -> PrintableText:
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone

    def __deepcopy__(self, memo: dict[int, Any]) -> PrintableText:
        clone = copy.copy(self)
        for name, value in vars(self).items():
            if name not in self._SHARED:
                setattr(clone, name, copy.deepcopy(value, memo))
        return clone

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its bounds and generator: the tables (2 MB) are rebuilt from the shared
        # prototype, so shipping an env to a worker or a Ray actor stays small.
        return (
            _rebuilt_text_space,
            (self.max_length, self.min_length, self._np_random, self.astral),
        )


class ResponseText(PrintableText):
    """The action space: a response may be any string (``step`` reads emoji, control
    characters and 100,000-character rambles alike), so ``contains`` holds for every ``str``;
    ``sample()`` still draws printable text of the BMP up to ``max_length`` characters.

    Gymnasium's ``Text.contains`` checks the length bound and the character set: a model's
    response with an emoji, or longer than the bound, was "not in the action space" although
    the env takes it (RL libraries that check actions against the space refused them)."""

    def contains(self, x: Any) -> bool:
        return isinstance(x, str)

    def __repr__(self) -> str:
        return f"ResponseText(any str; sample() draws up to {self.max_length} printable characters)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt_response_space, (self.max_length, self._np_random))


def response_space(max_length: int = ACTION_MAX_CHARS) -> ResponseText:
    """The action space of a ToM env (see :class:`ResponseText`)."""
    space = text_space(max_length, min_length=0, kind=ResponseText)
    assert isinstance(space, ResponseText)
    return space


def _rebuilt_response_space(max_length: int, np_random: Any) -> ResponseText:
    space = response_space(max_length)
    space._np_random = np_random
    return space


def _rebuilt_text_space(
    max_length: int, min_length: int, np_random: Any, astral: bool = False
) -> PrintableText:
    space = text_space(max_length, min_length, astral=astral)
    space._np_random = np_random
    return space


class SharedTexts(CollectionsSequence[str]):
    """The texts of an async vector env's shared memory, decoded when read.

    Gymnasium reads a Text space's shared memory once, when the vector env is built, into a
    tuple of strings (empty then) and returns that tuple after every reset and step: every
    observation came back as padding. This view decodes the current contents on each access;
    a deep copy (what the vector env returns by default) is a plain tuple of the texts.
    """

    def __init__(self, space: spaces.Text, memory: Any, n: int) -> None:
        self._space, self._memory, self._n = space, memory, n
        # index -> code point, so a text decodes in one numpy pass, not a loop per character
        self._codes = np.fromiter(map(ord, space.character_list), dtype=np.uint32)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._n)))
        if not -self._n <= index < self._n:
            raise IndexError(f"index {index} out of range for {self._n} texts")
        size = self._space.max_length
        row = np.frombuffer(self._memory.get_obj(), dtype=np.int32)[
            (index % self._n) * size : (index % self._n + 1) * size
        ]
        kept = row[(row >= 0) & (row < len(self._codes))]  # the padding is len(charset)
        return str(self._codes[kept].astype("<u4").tobytes().decode("utf-32-le"))

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return repr(tuple(self))


@shared_memory.read_from_shared_memory.register(PrintableText)
def _read_printable_texts(space: PrintableText, memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(space, memory, n)


@functools.cache
def _prototype(astral: bool = False) -> PrintableText:
    space = PrintableText(max_length=1, min_length=0, charset=printable_charset(astral))
    space.astral = astral
    return space


def text_space(
    max_length: int,
    min_length: int = 0,
    *,
    astral: bool = False,
    kind: type[PrintableText] = PrintableText,
) -> PrintableText:
    """A Text space (a ``kind``) over :func:`printable_charset`; copies share the character
    tables."""
    space = kind.__new__(kind)
    space.__dict__.update(_prototype(astral).__dict__)
    space.max_length = int(max_length)
    space.min_length = int(min_length)
    space._np_random = None  # type: ignore[assignment]  # each copy seeds its own generator
    return space


_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + EXTRA_WHITESPACE.encode("ascii")


def to_printable(text: str, *, astral: bool = False) -> str:
    """The text within the charset (:func:`printable_charset` of ``astral``): other spaces
    (no-break, thin...) as a plain space, a carriage return (or CR LF) and line separators as
    a newline, invisible format characters (zero-width space, soft hyphen, byte order mark)
    dropped, and what is left outside (controls; without ``astral``, symbols beyond the BMP
    such as emoji) as U+FFFD."""
    if text.isascii():
        if not text.encode("ascii").translate(None, _PRINTABLE_ASCII):
            return text  # the common case, at C speed: nothing left once the printables go
    elif text.replace("\n", "").replace("\t", "").isprintable() and (
        astral or max(text) <= "\uffff"
    ):
        return text
    charset = printable_charset(astral)
    return "".join(c if c in charset else _stand_in(c) for c in text.replace("\r\n", "\n"))


def _stand_in(char: str) -> str:
    """What a character outside the charset becomes (see :func:`to_printable`)."""
    category = unicodedata.category(char)
    if char == "\r" or category in ("Zl", "Zp"):  # line and paragraph separators
        return "\n"
    if category == "Zs":
        return " "
    if category == "Cf":
        return ""
    return "\ufffd"
