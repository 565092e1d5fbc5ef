"""OpenToM (Xu et al. 2024): the per-genre question files joined with the story narratives."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tomgym.answers import phrase_of
from tomgym.data import damaged, read_release_json, release_items, require_file
from tomgym.env import ToMEnv, check_bool, check_choice
from tomgym.items import CANDIDATE_ALIASES_KEY, ItemError, ToMItem
from tomgym.registry import register_tom_env
from tomgym.sources import ItemSource, list_source

ENV_ID = "ToM-OpenToM-v0"
GENRE_FILES: dict[str, tuple[str, ...]] = {
    "coarse": ("location_cg_fo.json", "location_cg_so.json"),
    "fine": ("location_fg_fo_new.json", "location_fg_so_new.json"),
    "multihop": ("multihop_fo.json", "multihop_so.json"),
    "attitude": ("attitude.json",),
}
GENRE_SIZES: dict[str, int] = {"coarse": 2384, "fine": 3576, "multihop": 7152, "attitude": 596}
TOTAL = 13708
STORIES = 596
ATTITUDES = ("positive", "negative", "neutral")
_CACHE: dict[tuple[str, bool, str | None], tuple[ToMItem, ...]] = {}


def multihop_candidates(question: str, answer: str) -> tuple[str, ...]:
    """``more/less/equally`` + ``full`` or ``accessible``, chosen from the question's wording."""
    q = question.lower()
    if "fullness" in q or "full" in q.split():
        scale = "full"
    elif "accessib" in q:
        scale = "accessible"
    else:
        scale = answer.split()[-1]
    return tuple(f"{d} {scale}" for d in ("more", "less", "equally"))


UNCHANGED = ("stays the same", "the same", "unchanged", "no change")
LABEL_ALIASES: dict[str, tuple[str, ...]] = {
    "more full": ("fuller",),
    "less full": ("emptier",),
    "equally full": ("neither more nor less full", "as full as before", *UNCHANGED),
    "more accessible": ("easier to access", "easier to reach"),
    "less accessible": ("harder to access", "harder to reach"),
    "equally accessible": (
        "neither more nor less accessible",
        "as accessible as before",
        *UNCHANGED,
    ),
    "neutral": ("neither positive nor negative",),
}
"""Other ways of saying a closed label that a person would mark right: "It stays the same" for
"equally full", "fuller" for "more full", "neither positive nor negative" for "neutral"."""


def label_aliases(fields: dict[str, Any]) -> dict[str, Any]:
    """A closed-label item's gold aliases and its other labels' (as ``candidate_aliases``)."""
    if fields["answer_type"] != "choice":
        return {}
    others = {
        c: list(LABEL_ALIASES[c])
        for c in fields["candidates"]
        if c != fields["answer"] and c in LABEL_ALIASES
    }
    return {
        "aliases": LABEL_ALIASES.get(fields["answer"], ()),
        "metadata": {CANDIDATE_ALIASES_KEY: others} if others else {},
    }


ANOTHER_SAID = ("other", "different", "second")
"""How an answer names the candidate "another X" beside a candidate "X": "the other drawer",
"a different drawer" (read as the plain "drawer" with a word before it, they were paid as
it: reward red team, on about 30 fine-location items)."""


def another_aliases(fields: dict[str, Any]) -> dict[str, Any]:
    """A fine-location item's aliases for a candidate "another X" when "X" is one too: the
    gold's own, and the other candidates' (as ``candidate_aliases``)."""
    candidates = fields.get("candidates", ())
    gold_aliases: list[str] = []
    others: dict[str, list[str]] = {}
    for candidate in candidates:
        phrase = phrase_of(candidate)
        if phrase[:1] != ("another",) or not any(
            phrase_of(other) == phrase[1:] for other in candidates if other != candidate
        ):
            continue
        said = [f"{word} {' '.join(phrase[1:])}" for word in ANOTHER_SAID]
        if candidate == fields["answer"]:
            gold_aliases += said
        else:
            others[candidate] = said
    return {
        "aliases": tuple(gold_aliases),
        "metadata": {CANDIDATE_ALIASES_KEY: others} if others else {},
    }


def with_label_set(question: str, fields: dict[str, Any]) -> str:
    """A closed-label question (attitude, fullness, accessibility) with its labels named, as
    OpenToM's own prompts do: asked bare, "She would be upset" names none of them and a model
    is scored on guessing the label words rather than on the attitude. A coarse-location
    question says its answer is yes or no (asked bare, "It is not in its initial location" is
    a fair reply that no yes/no judge can read)."""
    if fields["answer_type"] == "yes_no":
        return f"{question} Answer yes or no."
    if fields["answer_type"] != "choice":
        return question
    return f"{question} Answer with one of: {', '.join(fields['candidates'])}."


NARRATOR = "from narrator's perspective"


def _order(file: str, question: str) -> int:
    """The belief depth of a question. The release files it by ``*_fo``/``*_so`` file, but
    half of the fine first-order file asks "From narrator's perspective, where is ...": the
    object's real place, order 0. Attitude asks for a character's own attitude towards
    another's action: first order."""
    if question.lower().startswith(NARRATOR):
        return 0
    return 2 if file.endswith(("_so.json", "_so_new.json")) else 1


def _question(
    genre: str,
    file: str,
    story_id: str,
    k: int,
    q: dict[str, Any],
    meta: dict[str, Any],
    story: str,
) -> dict[str, Any]:
    question, answer = q["question"].strip(), str(q["answer"]).strip()
    fields: dict[str, Any]
    if genre == "coarse":
        fields = {"answer": answer.lower(), "answer_type": "yes_no"}
    elif genre == "fine":
        info = meta["plot_info"]
        info = ast.literal_eval(info) if isinstance(info, str) else info
        places = [answer, str(info["original_place"]).strip(), str(info["move_to_place"]).strip()]
        # one spelling per place as the judge reads it ("a new hiding spot" is the gold "new
        # hiding spot"), the gold's own kept
        kept = {phrase_of(place): place for place in reversed(places)}
        candidates = tuple(sorted(kept.values()))
        fields = {"answer": answer, "answer_type": "text", "candidates": candidates}
    elif genre == "multihop":
        fields = {
            "answer": answer.lower(),
            "answer_type": "choice",
            "candidates": multihop_candidates(question, answer.lower()),
        }
    else:
        fields = {"answer": answer.lower(), "answer_type": "choice", "candidates": ATTITUDES}
    said_otherwise = another_aliases(fields) if genre == "fine" else label_aliases(fields)
    return {
        "id": f"opentom-{file.removesuffix('.json')}-{story_id}-{k}",
        "story": story,
        "question": with_label_set(question, fields),
        "order": _order(file, question),
        "question_type": genre if genre != "coarse" else "coarse_location",
        "source": "opentom",
        **fields,
        "aliases": said_otherwise.get("aliases", ()),
        "metadata": {
            "story_id": story_id,
            "genre": genre,
            "file": file,
            "type": q.get("type"),
            **said_otherwise.get("metadata", {}),
        },
    }


def load_opentom(
    directory: Path, genres: tuple[str, ...] = tuple(GENRE_FILES), *, long: bool = False
) -> list[ToMItem]:
    """Questions of ``genres`` with their stories (``long``: the 100 long narratives only)."""
    meta_file = directory / ("meta_data_long.json" if long else "meta_data.json")
    meta: dict[str, dict[str, Any]] = read_release_json(meta_file)
    if not isinstance(meta, dict):
        raise damaged(meta_file, "holds no object of stories (the release's layout)")
    text_field = "long_narrative" if long else "narrative"
    items: list[ToMItem] = []
    for genre in genres:
        if genre not in GENRE_FILES:
            raise ValueError(f"unknown OpenToM genre {genre!r}; known: {', '.join(GENRE_FILES)}")
        for file in GENRE_FILES[genre]:
            path = directory / file
            data: dict[str, list[dict[str, Any]]] = read_release_json(path)
            if not isinstance(data, dict):
                raise damaged(path, "holds no object of questions by story (the release's layout)")

            def numbered(
                file: str = file, genre: str = genre, data: dict[str, list[dict[str, Any]]] = data
            ) -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
                number = 0
                for story_id, questions in data.items():
                    if story_id not in meta:
                        if long:
                            number += len(questions)
                            continue
                        raise ItemError(
                            f"{directory / file} story {story_id}: not in {meta_file.name}"
                        )
                    story = meta[story_id].get(text_field)
                    if not isinstance(story, str) or not story.strip():
                        raise ItemError(
                            f"{meta_file} story {story_id}: no {text_field!r} text (asked by "
                            f"{file})"
                        )
                    for k, q in enumerate(questions):
                        yield (
                            f"{number} (story {story_id}, question {k})",
                            functools.partial(
                                _question, genre, file, story_id, k, q, meta[story_id], story
                            ),
                        )
                        number += 1

            items.extend(release_items(path, numbered(), allow_empty=long))
    return items


def opentom_items(
    genre: str | None = None, long: bool = False, env_id: str = ENV_ID
) -> tuple[ToMItem, ...]:
    """All genres (or one), cached per process; checks every file is there first. A genre's
    env reads its own question files only: another genre's missing or damaged file leaves it
    usable."""
    genres = tuple(GENRE_FILES) if genre is None else (genre,)
    for g in genres:
        if g not in GENRE_FILES:
            raise ValueError(f"unknown OpenToM genre {g!r}; known: {', '.join(GENRE_FILES)}")
        for file in GENRE_FILES[g]:
            require_file(env_id, "opentom", f"opentom/{file}")
    meta_name = "meta_data_long.json" if long else "meta_data.json"
    meta = require_file(env_id, "opentom", f"opentom/{meta_name}")
    every = (str(meta.parent), long, None)
    if every in _CACHE:  # all genres already read: no second read for one of them
        return tuple(it for it in _CACHE[every] if genre is None or it.metadata["genre"] == genre)
    key = (str(meta.parent), long, genre)
    if key not in _CACHE:
        _CACHE[key] = tuple(load_opentom(meta.parent, genres, long=long))
    return _CACHE[key]


class OpenToMEnv(ToMEnv):
    """OpenToM's questions about characters' beliefs, feelings and a moved object.

    ## Description
    OpenToM (Xu et al. 2024, CC-BY-NC-4.0): 13,708 questions over 596 narratives (23 per
    story). The authors ask that it be used for evaluation only, never for training: every
    ID is registered ``usage="eval-only"`` and held out. Genres: coarse location (yes/no, first
    order 849 No / 343 Yes), fine location (free text, e.g. "a donation bin"), multihop
    (more/less/equally full or accessible) and attitude (positive/negative/neutral). Order: 1
    for ``*_fo`` files and attitude (a character's own attitude), 2 for ``*_so``, 0 for the
    1,192 fine questions "From narrator's perspective" (the object's real place). The authors
    recommend macro-F1 because labels are unbalanced.

    ## Observation
    The narrative (or the long narrative) and the question, as text.

    ## Action
    Free text: yes/no, a place, or one of the genre's labels.

    ## Rewards
    Per the env's reward scheme; yes/no on the leading word, labels as a closed choice.

    ## Episode End
    After one answer.

    ## Arguments
    - ``genre``: None (all), ``"coarse"``, ``"fine"``, ``"multihop"`` or ``"attitude"``.
    - ``long`` (a bool): use ``meta_data_long.json``'s 100 long narratives (2,300 questions).

    ## Registered Configurations
    ``ToM-OpenToM-v0`` (13,708), ``-CoarseLoc-v0`` (2,384), ``-FineLoc-v0`` (3,576),
    ``-Multihop-v0`` (7,152), ``-Attitude-v0`` (596). All eval-only.

    ## Version History
    - v0: initial release. Later, with questions and golds unchanged: the 1,192 narrator's
      perspective questions count as order 0, and one fine-location item lists its gold's
      place once ("a new hiding spot" beside "new hiding spot"); a model's stored responses to
      changed items are scored again on resume.
    """

    family = "opentom"

    def build_source(
        self, *, genre: str | None = None, long: bool = False, **unused: Any
    ) -> ItemSource:
        long = check_bool(self.label, "long", long)
        if genre is not None:
            check_choice(self.label, "genre", genre, tuple(GENRE_FILES))
        return list_source(opentom_items(genre, long, self.tom_id or ENV_ID))


def register_envs() -> None:
    """Register the OpenToM envs, all evaluation-only (reads no data)."""
    common: dict[str, Any] = {
        "entry_point": "tomgym.envs.opentom:OpenToMEnv",
        "family": "opentom",
        "usage": "eval-only",
        "held_out": True,
        "overwrite": True,
    }
    register_tom_env(
        ENV_ID,
        orders=(0, 1, 2),
        size=TOTAL,
        answer_type="mixed",
        kwargs={"genre": None},
        description="OpenToM, all genres (evaluation only, by the authors' terms)",
        **common,
    )
    names = {
        "coarse": "CoarseLoc",
        "fine": "FineLoc",
        "multihop": "Multihop",
        "attitude": "Attitude",
    }
    kinds = {"coarse": "yes_no", "fine": "text", "multihop": "choice", "attitude": "choice"}
    for genre, name in names.items():
        register_tom_env(
            f"ToM-OpenToM-{name}-v0",
            orders={"attitude": (1,), "fine": (0, 1, 2)}.get(genre, (1, 2)),
            size=GENRE_SIZES[genre],
            answer_type=kinds[genre],
            kwargs={"genre": genre},
            description=f"OpenToM, {genre} questions (evaluation only)",
            **common,
        )
