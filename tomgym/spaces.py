"""Text spaces over printable Unicode, with the (costly) character set built once and shared."""

from __future__ import annotations

import copy
import functools
from typing import Any

from gymnasium import spaces

EXTRA_WHITESPACE = "\n\t"
ACTION_MAX_CHARS = 16_384
"""What ``action_space.sample()`` draws up to; ``step`` itself accepts a string of any length."""


@functools.cache
def printable_charset() -> frozenset[str]:
    """Every printable character of the Basic Multilingual Plane, plus newline and tab."""
    chars = {chr(c) for c in range(0x20, 0x10000) if chr(c).isprintable()}
    return frozenset(chars | set(EXTRA_WHITESPACE))


class PrintableText(spaces.Text):
    """A Text space whose deep copies share the (immutable) character tables.

    Gymnasium's vector envs deep-copy the single-env spaces (``batch_space``); copying a
    60,000-character set with its index table took about a second per sub-env. Only the
    generator is copied deeply here; the tables are never mutated.
    """

    _SHARED = ("_char_set", "_char_list", "_char_index", "_char_str")

    def __repr__(self) -> str:
        # Gymnasium's repr lists the whole character set: 55,000 characters per space.
        return (
            f"Text({self.min_length}, {self.max_length}, charset=<printable Unicode of the BMP "
            f"plus newline and tab: {len(self.character_set)} characters>)"
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> PrintableText:
        clone = copy.copy(self)
        for name, value in vars(self).items():
            if name not in self._SHARED:
                setattr(clone, name, copy.deepcopy(value, memo))
        return clone


@functools.cache
def _prototype() -> PrintableText:
    return PrintableText(max_length=1, min_length=0, charset=printable_charset())


def text_space(max_length: int, min_length: int = 0) -> PrintableText:
    """A Text space over :func:`printable_charset`; copies share the character tables."""
    space = copy.copy(_prototype())
    space.max_length = int(max_length)
    space.min_length = int(min_length)
    space._np_random = None  # type: ignore[assignment]  # each copy seeds its own generator
    return space


_PRINTABLE_ASCII = bytes(range(0x20, 0x7F)) + EXTRA_WHITESPACE.encode("ascii")


def to_printable(text: str) -> str:
    """Replace characters outside the charset (controls, astral-plane symbols) by U+FFFD."""
    if text.isascii():
        if not text.encode("ascii").translate(None, _PRINTABLE_ASCII):
            return text  # the common case, at C speed: nothing left once the printables go
    elif text.replace("\n", "").replace("\t", "").isprintable() and max(text) <= "\uffff":
        return text
    charset = printable_charset()
    return "".join(c if c in charset else ("\n" if c == "\r" else "\ufffd") for c in text)
