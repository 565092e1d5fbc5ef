"""Other names of a candidate: its last word alone (:func:`head_aliases`,
:func:`story_head_aliases`) and household synonyms (SYNONYMS, :func:`synonym_aliases`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from tomgym.answers.mentions import _holds, _phrase_spans
from tomgym.answers.tokens import phrase_of, words

HEAD_MAX_WORDS = 4
"""A candidate of two to this many words may be named by its last word alone ("the drawer" for
"wooden desk drawer"); a longer one is a sentence, whose last word is no name for it."""
NOT_HEADS = frozenset(
    {"it", "them", "one", "ones", "her", "him", "full", "accessible", "about", "there", "here",
     "room", "area", "place", "spot", "space", "side", "part", "location", "section", "zone",
     "corner", "way", "thing", "things", "same"}
)  # fmt: skip
"""Last words that name no one thing: not nouns ("knows about it", "more full"), or words any
answer may use of a place ("in the same room", "a quiet spot")."""
COMMON_WORD_HEADS = frozenset(
    {"can", "case", "safe", "back", "front", "top", "bottom", "left", "right", "well", "rest",
     "present", "kind", "sort", "still", "light", "close", "fine", "mind", "set", "point",
     "end", "lot", "stand"}
)  # fmt: skip
"""Last words that are also everyday words of other kinds ("I can't tell", "in any case", "to be
safe", "come back"): none is a name for its candidate alone, or "I can't tell" was credited as
"the trash can" and "She can find it in the container" named two candidates (reward red
team). The candidate is named in full ("trash can")."""


@functools.lru_cache(maxsize=1 << 12)
def head_aliases(candidates: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Candidate -> its last word as a name for it ("drawer" for "wooden desk drawer"; not an
    everyday word of another kind, COMMON_WORD_HEADS), where no other candidate holds that
    word: "the drawer" then names the drawer, and "the wooden desk drawer or the briefcase"
    names the leather briefcase too. Shared (memoised): not to be changed by callers."""
    phrases = [phrase_of(candidate) for candidate in candidates]
    holders: dict[str, int] = {}  # word -> how many candidates hold it
    for phrase in phrases:
        for word in set(phrase):
            holders[word] = holders.get(word, 0) + 1
    heads: dict[str, tuple[str, ...]] = {}
    for candidate, phrase in zip(candidates, phrases, strict=True):
        if 2 <= len(phrase) <= HEAD_MAX_WORDS:
            head = phrase[-1]
            named = head not in NOT_HEADS and head not in COMMON_WORD_HEADS
            if holders[head] == 1 and len(head) >= 3 and head.isalpha() and named:
                heads[candidate] = (head,)
    return heads


_NAME_WORD = re.compile(r"[A-Z][\w'\-]*")


SYNONYMS = (
    (("refrigerator",), ("fridge",)),
    (("sofa",), ("couch",)),
    (("television",), ("tv",)),
    (("trash", "can"), ("trashcan",), ("garbage", "can"), ("trash", "bin"), ("garbage", "bin"),
     ("rubbish", "bin"), ("wastebasket",), ("waste", "basket"), ("dustbin",)),
)  # fmt: skip
"""Household words a person uses for one another ("the fridge" for "the refrigerator", "the
trashcan" or "the garbage bin" for "the trash can"): see :func:`synonym_aliases`."""
LOOSE_SYNONYMS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("trash", "can"): ("trash", "garbage"),
    ("trash", "bin"): ("trash", "garbage"),
}
"""One-word names of a whole candidate only ("in the trash" for "the trash can"), never put in
place of a word of a longer one ("trash bag" is no trash can), and not where the story says
the word as part of another thing's name ("the garbage collector": see
:func:`synonym_aliases`)."""
_LOOSE_WORD_ENDS = frozenset(
    {"can", "cans", "bin", "bins", "and", "or", "but", "in", "on", "at", "to", "with", "before",
     "after", "while", "when", "as", "because", "so", "then", "where", "was", "is", "had",
     "has", "for", "of"}
)  # fmt: skip
"""Words after "trash"/"garbage" in a story that leave it the trash itself; any other word
makes it part of another thing's name ("garbage collector", "trash bag")."""


def _names_another_thing(word: str, story: str) -> bool:
    """Whether the story says ``word`` before a word outside _LOOSE_WORD_ENDS ("the garbage
    collector" for "garbage")."""
    return any(
        following.lower() not in _LOOSE_WORD_ENDS
        for following in re.findall(rf"\b{word}\s+([A-Za-z]+)", story, re.IGNORECASE)
    )


@functools.lru_cache(maxsize=1 << 10)  # keyed on whole stories: kept small
def synonym_aliases(candidates: tuple[str, ...], story: str = "") -> dict[str, tuple[str, ...]]:
    """Each candidate's phrases with a SYNONYMS member it holds put in place of another ("the
    fridge" for "the refrigerator", "fridge back" for "Refrigerator back"; "trash" and
    "garbage" for a whole "trash can" or "trash bin", LOOSE_SYNONYMS, unless the ``story``
    says the word as part of another thing's name, "the garbage collector"), where no other
    candidate holds a member of that group: with "trash can" and "garbage bin" both offered,
    "the trash" names neither."""
    phrases = {c: phrase_of(c) for c in candidates}
    found = {
        c: [
            (group, member)
            for group in SYNONYMS
            for member in group
            if phrase == member or _holds(phrase, member)
        ]
        for c, phrase in phrases.items()
    }
    aliases: dict[str, tuple[str, ...]] = {}
    for candidate, matches in found.items():
        shared = {
            id(group)
            for other, theirs in found.items()
            if other != candidate
            for group, _ in theirs
        }
        said: list[str] = []
        phrase = phrases[candidate]
        for group, member in matches:
            if id(group) in shared:
                continue
            at = next(i for i in range(len(phrase)) if phrase[i : i + len(member)] == member)
            for other in group:
                if other != member:
                    said.append(" ".join((*phrase[:at], *other, *phrase[at + len(member) :])))
            if phrase == member:
                loose = LOOSE_SYNONYMS.get(member, ())
                said += [word for word in loose if not _names_another_thing(word, story)]
        if said:
            aliases[candidate] = tuple(said)
    return aliases


@functools.lru_cache(maxsize=1 << 10)  # keyed on whole stories: kept small
def story_head_aliases(candidates: tuple[str, ...], story: str) -> dict[str, tuple[str, ...]]:
    """:func:`head_aliases`, less the last words the story uses of something else:

    - a candidate written as a name ("Mary Ann", "Jane Smith") where the story says that word
      outside the full name ("Ann" beside "Mary Ann", "John Smith" beside "Jane Smith"): that
      is another person;
    - a thing whose last word the story says on its own before it first names the thing in
      full ("put the ball in the box. Bob moved it to the red box."; the room "pantry" of a
      "red_pantry"): that is another thing, and "the box" was credited as the red box.

    Otherwise a story's "the briefcase" after "the leather briefcase" is the same thing, and the
    alias stands (custom-data audit)."""
    heads = head_aliases(candidates)
    if not heads:
        return heads
    kept = dict(heads)
    tokens: list[str] | None = None
    for candidate, (head,) in heads.items():
        parts = candidate.split()
        if all(_NAME_WORD.fullmatch(part) for part in parts):
            spaced = r"\s+".join(map(re.escape, parts))
            said = len(re.findall(rf"\b{re.escape(parts[-1])}\b", story))
            if said > len(re.findall(rf"\b{spaced}\b", story)):
                del kept[candidate]
            continue
        tokens = words(story) if tokens is None else tokens
        if _said_alone_first(tokens, phrase_of(candidate), head):
            del kept[candidate]
    return kept


def _said_alone_first(tokens: Sequence[str], phrase: tuple[str, ...], head: str) -> bool:
    """Whether ``head`` comes up on its own (not after a word of ``phrase``) before the tokens
    first hold ``phrase`` in full (False when they never do)."""
    spans = _phrase_spans(tokens, (phrase,))
    if not spans:
        return False
    return any(
        tokens[i] == head and (i == 0 or tokens[i - 1] not in phrase) for i in range(spans[0][0])
    )
