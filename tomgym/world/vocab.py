"""The packaged vocabularies (names, rooms, objects, containers) read from ``vocab/*.txt``."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

VOCAB_DIR = Path(__file__).resolve().parent / "vocab"
VOCABS = ("train", "test")


@dataclass(frozen=True)
class Vocab:
    name: str
    names: tuple[str, ...]
    rooms: tuple[str, ...]
    objects: tuple[str, ...]
    kinds: tuple[str, ...]
    colours: tuple[str, ...]

    coloured: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """Every ``colour_kind`` name, made once (every generated story samples from it)."""

    def __post_init__(self) -> None:
        coloured = tuple(f"{c}_{k}" for c in self.colours for k in self.kinds)
        object.__setattr__(self, "coloured", coloured)

    def containers(self, coloured: bool = True) -> tuple[str, ...]:
        """Every container name: ``colour_kind`` (Hi-ToM, ToMi fb) or bare kinds (Clever-Hans)."""
        return self.coloured if coloured else self.kinds


def _read(kind: str, name: str) -> tuple[str, ...]:
    path = VOCAB_DIR / f"{kind}_{name}.txt"
    words = [w.strip() for w in path.read_text(encoding="utf-8").splitlines()]
    return tuple(w for w in words if w and not w.startswith("#"))


@cache
def load_vocab(name: str) -> Vocab:
    """The vocabulary called ``name`` (one of VOCABS)."""
    if name not in VOCABS:
        raise ValueError(f"unknown vocabulary {name!r}; known: {', '.join(VOCABS)}")
    return Vocab(
        name=name,
        names=_read("names", name),
        rooms=_read("rooms", name),
        objects=_read("objects", name),
        kinds=_read("kinds", name),
        colours=_read("colours", name),
    )
