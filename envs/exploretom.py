"""ExploreToM (Sclar et al. 2024) from its release table (CSV, or parquet with pyarrow)."""

from __future__ import annotations

import ast
import csv
import functools
import io
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, get_args

from tomgym.answers import story_places
from tomgym.data import damaged, read_release_text, release_items, require_file
from tomgym.env import ToMEnv, check_choice
from tomgym.items import ToMItem
from tomgym.registry import register_tom_env
from tomgym.rewards import CANDIDATE_ALIASES_KEY, PLACES_KEY
from tomgym.sources import ItemSource, list_source

from .splits import PRESET_SIZES, split_by_story

Presentation = Literal["structured", "infilled"]
RELEASE_FILE = "exploretom/explore_tom.csv"
ENV_ID = "ToM-ExploreToM-v0"
INFILLED_ID = "ToM-ExploreToM-Infilled-v0"
ROWS = 13309
STORY_COLUMN: dict[str, str] = {"structured": "story_structure", "infilled": "infilled_story"}
KNOWLEDGE_ANSWERS = ("knows about it", "does not know about it")
KNOWLEDGE_ALIASES = {
    "knows about it": ("does know", "knows", "has heard", "heard about it"),
    "does not know about it": (
        "does not know", "knows nothing", "nobody knows", "no one knows", "has not heard",
        "not heard about it", "never heard", "never heard about it", "has never heard",
        "heard nothing", "has heard nothing",
    ),
}  # fmt: skip
"""What else names a knowledge answer ("She doesn't know." reads "does not know", "He knows."
names "knows", "She hasn't heard about it." "has not heard"; the longest phrase wins, so "she
knows nothing about it", "nobody knows" and "she never heard about it" name the second).
Kept to the verb the answers use: "is aware" / "unaware" would be named by an answer
contrasting another person ("she does not know about it, but Liam is aware")."""
SIZES: dict[str, int] = {"structured": 13293, "infilled": 13307}
"""Items after de-duplication (see :func:`load_exploretom`)."""

REQUIRED_COLUMNS = (
    "story_structure",
    "infilled_story",
    "question",
    "expected_answer",
    "qprop=params",
    "qprop=nth_order",
)
"""The release's columns the env reads."""

_CACHE: dict[tuple[str, str], tuple[ToMItem, ...]] = {}
_SPLIT_CACHE: dict[tuple[str, str, str], tuple[ToMItem, ...]] = {}


def read_rows(path: Path) -> list[dict[str, str]]:
    """The release rows as string dicts, from ``.csv`` or ``.parquet`` (needs ``pyarrow``)."""
    return [row for _, row in read_placed_rows(path)]


def read_placed_rows(path: Path) -> list[tuple[str, dict[str, str]]]:
    """The release rows, each with where it is: ``line L`` of a CSV (where the row starts; a
    quoted story spans several lines), ``row N`` (0-based) of a parquet file."""
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError(
                f"reading {path} needs pyarrow: pip install 'tomgym[data]' (or use the CSV)"
            ) from None
        table = pq.read_table(path)
        header: list[str] = list(table.column_names)
        rows = [
            (f"row {n}", {k: "" if v is None else str(v) for k, v in row.items()})
            for n, row in enumerate(table.to_pylist())
        ]
    else:
        reader = csv.DictReader(io.StringIO(read_release_text(path), newline=""))
        header = list(reader.fieldnames or ())
        rows = []
        start = reader.line_num + 1
        for row in reader:
            rows.append((f"line {start}", row))
            start = reader.line_num + 1
    if not header and not rows:
        raise damaged(path, "holds no records")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise damaged(
            path,
            f"has no column(s) {', '.join(missing)} (its header: {', '.join(header) or 'none'})",
        )
    return rows


@functools.cache
def question_kind(params: str) -> str:
    """The last element of ``qprop=params`` (a tuple as text), e.g. ``container_location-True``."""
    value = ast.literal_eval(params)
    if not isinstance(value, tuple) or not value or not isinstance(value[-1], str):
        raise ValueError(f"qprop=params is not a tuple ending in a string: {params[:80]!r}")
    return value[-1]


def question_type(kind: str) -> str:
    """A coarse type from the kind: memory, reality, belief, knowledge or state_update."""
    if kind.startswith("<state_update>"):
        return "state_update"
    if kind.startswith("<knowledge>"):
        return "knowledge"
    if kind.startswith("memory"):
        return "memory"
    if kind.startswith("ground_truth"):
        return "reality"
    if "location" in kind:
        return "belief"
    raise ValueError(f"unknown question kind {kind!r}")


def _location_class(kind: str) -> str | None:
    for cls in ("container_location", "room_location"):
        if cls in kind:
            return cls
    return None


def load_exploretom(path: Path, presentation: Presentation = "structured") -> list[ToMItem]:
    """The release as items of one presentation, all or nothing.

    Duplicates: 15 rows repeat a (story structure, question) pair. Rows that repeat a
    (story, question) pair of *this presentation* with the same answer are dropped (the first
    is kept); a pair with conflicting answers (one pair in the release: a "before <event>"
    question whose text cannot tell the two events apart) is dropped entirely. Structured:
    13,309 - 14 - 2 = 13,293 items; infilled (14 of the pairs have two different infillings):
    13,309 - 2 = 13,307.

    Answers: yes/no -> ``yes_no``; "knows about it" / "does not know about it" -> ``choice``
    between the two, "(does) know(s)" and "doesn't know" (KNOWLEDGE_ALIASES) naming them too;
    anything else (a container or a room) -> ``text`` whose candidates are every expected
    answer of the same story for the same location class (containers or rooms), the gold
    included, so a model must name one of them; where the story has no other such answer
    (about a fifth of the items) the question is free text without candidates, as a
    one-element list would hand the gold to anything that reads ``info["candidates"]``. Such an
    infilled item lists the structured story's places in its metadata (PLACES_KEY), which the
    judge reads instead of its prose: "the dimly lit storage warehouse" hides the place behind
    adjectives, and "break room storage warehouse" would otherwise pay.
    """
    if presentation not in STORY_COLUMN:
        raise ValueError(f"presentation must be 'structured' or 'infilled', got {presentation!r}")
    placed = read_placed_rows(path)
    rows = [row for _, row in placed]
    column = STORY_COLUMN[presentation]
    answers: dict[tuple[str, str], set[str]] = defaultdict(set)
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in rows:
        try:
            cls = _location_class(question_kind(row["qprop=params"]))
        except (KeyError, ValueError, SyntaxError):
            continue  # reported with its record number below
        if cls:
            answers[(row["story_structure"], cls)].add(row["expected_answer"].strip())
        seen[(row[column], row["question"])].add(row["expected_answer"].strip())

    def make(number: int, row: dict[str, str]) -> dict[str, Any]:
        kind = question_kind(row["qprop=params"])
        answer = row["expected_answer"].strip()
        nth = int(row["qprop=nth_order"])
        fields: dict[str, Any] = {"answer": answer}
        extra: dict[str, Any] = {}
        if answer.lower() in ("yes", "no"):
            fields = {"answer": answer.lower(), "answer_type": "yes_no"}
        elif answer in KNOWLEDGE_ANSWERS:
            fields.update(
                answer_type="choice",
                candidates=KNOWLEDGE_ANSWERS,
                aliases=KNOWLEDGE_ALIASES[answer],
            )
            extra[CANDIDATE_ALIASES_KEY] = {
                other: list(KNOWLEDGE_ALIASES[other])
                for other in KNOWLEDGE_ANSWERS
                if other != answer
            }
        else:
            cls = _location_class(kind)
            others = answers.get((row["story_structure"], cls), set()) if cls else set()
            if others - {answer}:
                fields.update(answer_type="text", candidates=tuple(sorted(others | {answer})))
            else:  # the gold alone would be given away by info["candidates"]: plain free text
                fields.update(answer_type="text")
                if presentation == "infilled":  # its prose hides places behind adjectives
                    extra[PLACES_KEY] = sorted(story_places(row["story_structure"]))
        return {
            "id": f"exploretom-r{number}",
            "story": row[column],
            "question": row["question"],
            "order": max(nth, 0),
            "question_type": question_type(kind),
            "source": "exploretom",
            **fields,
            "metadata": {
                "row": number,
                "kind": kind,
                "nth_order": nth,
                "presentation": presentation,
                "story_group": row["story_structure"],
                "story_type": row["param=story_type"],
                "global_idx": row["sprop=global_idx"],
                "false_belief_1st": row["sprop=is_false_belief_story_1st"] == "True",
                **extra,
            },
        }

    def numbered() -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
        kept: set[tuple[str, str]] = set()
        for number, (place, row) in enumerate(placed):
            pair = (row.get(column, ""), row.get("question", ""))
            if pair in kept or len(seen.get(pair, ())) > 1:
                continue
            kept.add(pair)
            yield f"{number} ({place})", functools.partial(make, number, row)

    return release_items(path, numbered())


def exploretom_items(
    presentation: Presentation = "structured",
    split: str = "all",
    env_id: str = ENV_ID,
    path: Path | None = None,
) -> tuple[ToMItem, ...]:
    """One presentation, whole or one split (900/300/300 questions by story), cached."""
    if split not in ("all", *PRESET_SIZES):
        raise ValueError(f"split must be one of all, train, val, test; got {split!r}")
    file = path or require_file(env_id, "exploretom", RELEASE_FILE)
    items = _cached(file, presentation)
    if split == "all":
        return items
    key = (str(file), presentation, split)
    if key not in _SPLIT_CACHE:  # the same item objects each time: a make shares their source
        # Splits are made on the structured presentation; the infilled one follows by row.
        parts = split_by_story(_cached(file, "structured"))
        rows = {it.metadata["row"] for it in parts[split]}
        _SPLIT_CACHE[key] = tuple(
            it.model_copy(update={"split": split}) for it in items if it.metadata["row"] in rows
        )
    return _SPLIT_CACHE[key]


def _cached(file: Path, presentation: Presentation) -> tuple[ToMItem, ...]:
    key = (str(file), presentation)
    if key not in _CACHE:
        _CACHE[key] = tuple(load_exploretom(file, presentation))
    return _CACHE[key]


class ExploreToMEnv(ToMEnv):
    """ExploreToM's released questions, as the templated story or the infilled narrative.

    ## Description
    The 13,309-row ExploreToM release (Sclar et al. 2024, CC-BY-NC-4.0): 619 story
    structures with questions about container and room locations, knowledge, object states,
    memory and the ground truth, orders 0 (``qprop=nth_order`` -1), 1 and 2. Yes/no answers
    are 85% "yes" (2,936 vs 537). Duplicated (story, question) rows are de-duplicated (see
    ``load_exploretom``). The release has no official split: ``split`` takes ToM-RL-sized
    splits (900/300/300 questions) drawn by story with ``envs/splits.py``.

    ## Observation
    The story (templated or infilled) and the question, as text.

    ## Action
    Free text: yes/no, "knows about it" / "does not know about it", or a place.

    ## Rewards
    Per the env's reward scheme: yes/no on the leading word; places as whole words, and the
    answer may not also name another place the story's questions use.

    ## Episode End
    After one answer.

    ## Arguments
    - ``presentation``: ``"structured"`` (default) or ``"infilled"``.
    - ``split``: ``"all"`` (default), ``"train"``, ``"val"`` or ``"test"``.

    ## Registered Configurations
    ``ToM-ExploreToM-v0`` (structured, 13,293), ``ToM-ExploreToM-Infilled-v0`` (infilled,
    13,307; a held-out presentation of the same stories).

    ## Version History
    - v0: initial release. Later, with questions and golds unchanged, knowledge answers took
      "does know" / "doesn't know" and infilled free-text items their structured story's
      places for judging; those items' digests changed, so an eval resumed from before scores
      a model's stored responses to them again (a baseline asks them again), and a leaderboard
      of runs from before and after notes that the column's items differ.
    """

    family = "exploretom"

    def build_source(
        self, *, presentation: Presentation = "structured", split: str = "all", **unused: Any
    ) -> ItemSource:
        check_choice(self.label, "split", split, ("all", *PRESET_SIZES))  # before data is read
        check_choice(self.label, "presentation", presentation, get_args(Presentation))
        return list_source(exploretom_items(presentation, split, self.tom_id or ENV_ID))


def register_envs() -> None:
    """Register the ExploreToM envs (reads no data)."""
    common: Mapping[str, Any] = {
        "entry_point": "tomgym.envs.exploretom:ExploreToMEnv",
        "family": "exploretom",
        "orders": (0, 1, 2),
        "answer_type": "mixed",
        "overwrite": True,
    }
    register_tom_env(
        ENV_ID,
        size=SIZES["structured"],
        kwargs={"presentation": "structured", "split": "all"},
        description="ExploreToM release, templated stories; split= train/val/test by story",
        **common,
    )
    register_tom_env(
        INFILLED_ID,
        size=SIZES["infilled"],
        held_out=True,
        held_out_from=(ENV_ID,),
        kwargs={"presentation": "infilled", "split": "all"},
        description="ExploreToM release, infilled narratives (held-out presentation)",
        **common,
    )
