"""ToMi (Le et al. 2019) as released: bAbI ``.txt`` questions joined with their ``.trace`` lines."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from tomgym.audit import agreeing_items
from tomgym.data import damaged, read_release_text, release_items, require_file
from tomgym.env import ToMEnv, argument_error, check_bool, check_choice
from tomgym.items import ItemError, ToMItem
from tomgym.registry import register_tom_env
from tomgym.sources import ItemSource, list_source

Version = Literal["clever_hans", "original"]
ENV_ID = "ToM-ToMi-Original-v0"
SPLIT_SIZE = 5994
FILES: dict[str, str] = {
    "clever_hans": "tomi/clever_hans/{split}",
    "original": "tomi/fb/fb_all_{split}",
}
QUESTION_ORDER = {"memory": 0, "reality": 0, "first_order": 1, "second_order": 2}
_CONTAINER = re.compile(r"(?:^(?:\d+ )?The \S+ (?:is|are) in|\bmoved the \S+ to) the (\w+)\.?$")
_CACHE: dict[tuple[str, str], tuple[ToMItem, ...]] = {}


def parse_question_type(text: str) -> tuple[str, bool | None]:
    """``"first_order_1_tom"`` -> ``("first_order", True)``; memory/reality have no tom flag."""
    if text in ("memory", "reality"):
        return text, None
    m = re.fullmatch(r"(first_order|second_order)_[01]_(tom|no_tom)", text)
    if m is None:
        raise ValueError(f"unknown ToMi question type {text!r}")
    return m[1], m[2] == "tom"


def story_containers(lines: list[str]) -> tuple[str, ...]:
    """The containers the story names (``The o is in the X`` / ``moved the o to the X``).

    Agents' rooms (``Ann is in the hall``) are not containers.
    """
    found: list[str] = []
    for line in lines:
        m = _CONTAINER.search(line)
        if m and m[1] not in found:
            found.append(m[1])
    return tuple(found)


def _questions(txt: Path) -> Iterator[tuple[int, list[str], str, str]]:
    """Yields (line number, story lines, question, answer) per question line."""
    story: list[str] = []
    last = 0
    for lineno, raw in enumerate(read_release_text(txt).splitlines(), start=1):
        if not raw.strip():
            story, last = [], 0
            continue
        num_text, _, rest = raw.partition(" ")
        if not num_text.isdigit():
            raise damaged(txt, f"line {lineno} has no line number at its start: {raw[:60]!r}")
        if int(num_text) <= last:
            story = []
        last = int(num_text)
        if "\t" in rest:
            parts = rest.split("\t")
            if len(parts) < 2:
                raise damaged(txt, f"line {lineno}: a question line needs question<TAB>answer")
            yield lineno, list(story), parts[0].strip(), parts[1].strip()
        else:
            story.append(raw.strip())


def load_tomi(
    txt: Path, trace: Path, *, version: str = "clever_hans", split: str = "train"
) -> list[ToMItem]:
    """One split of the release: every question with its type, order and story type."""
    questions = list(_questions(txt))
    traces = [t for t in read_release_text(trace).splitlines() if t.strip()]
    if len(traces) != len(questions):
        raise damaged(
            txt,
            f"and {trace.name} disagree ({len(questions)} questions, {len(traces)} trace lines)",
        )
    story_ids: dict[str, int] = {}

    def make(number: int) -> dict[str, Any]:
        lineno, lines, question, answer = questions[number]
        fields = traces[number].split(",")
        if len(fields) < 3:
            raise damaged(trace, f"line {number + 1} has fewer than 3 fields")
        try:
            qtype, tom = parse_question_type(fields[-2])
        except ValueError as exc:  # the trace's fault, not the question line's
            raise ItemError(f"{trace} line {number + 1}: {exc}") from None
        story_type = fields[-1]
        if story_type not in ("true_belief", "false_belief", "second_order_false_belief"):
            raise damaged(trace, f"line {number + 1} names an unknown story type {story_type!r}")
        story = "\n".join(lines)
        story_id = story_ids.setdefault(story, len(story_ids))
        return {
            "id": f"tomi-{version}-{split}-{number}",
            "story": story,
            "question": question,
            "answer": answer,
            "candidates": story_containers(lines),
            "answer_type": "choice",
            "order": QUESTION_ORDER[qtype],
            "question_type": qtype,
            "source": "tomi",
            "split": split if split in ("train", "val", "test") else "all",
            "metadata": {
                "tom": tom,
                "story_type": story_type,
                "story_id": story_id,
                "trace": fields[:-2],
                "version": version,
                "line": lineno,
            },
        }

    def numbered() -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
        for n, q in enumerate(questions):
            yield f"{n} (line {q[0]})", functools.partial(make, n)

    return release_items(txt, numbered())


def tomi_items(
    version: str = "clever_hans", split: str = "train", env_id: str = ENV_ID
) -> tuple[ToMItem, ...]:
    """A split of one version, loaded once per process."""
    if version not in FILES:
        raise ValueError(f"ToMi version must be one of {sorted(FILES)}, got {version!r}")
    if split not in ("train", "val"):
        raise ValueError(
            f"ToMi split must be 'train' or 'val', got {split!r} (the test split is not shipped)"
        )
    stem = FILES[version].format(split=split)
    txt = require_file(env_id, "tomi", stem + ".txt")
    trace = require_file(env_id, "tomi", stem + ".trace")
    key = (str(txt), split)
    if key not in _CACHE:
        _CACHE[key] = tuple(load_tomi(txt, trace, version=version, split=split))
    return _CACHE[key]


class ToMiReleaseEnv(ToMEnv):
    """ToMi's released questions: memory, reality, first- and second-order beliefs.

    ## Description
    ToMi (Le et al. 2019, CC-BY-NC-4.0) in two versions: ``clever_hans`` (default), the
    corrected release of Shapira et al. 2023 used by ToM-RL, and ``original`` (Facebook's,
    with coloured containers). Each split holds 5,994 questions: 999 stories x 6 questions,
    1,998 per story type (true belief, false belief, second-order false belief). Orders:
    memory and reality 0, first order 1, second order 2; ``metadata`` keeps the trace, the
    tom/no_tom flag and the story type. About 12% (Clever-Hans) and 24% (original) of the
    second-order labels contradict the story under the stated rules (a quirk of the
    reference generator); they are served as released.

    ## Observation
    The numbered story and the question, as text.

    ## Action
    Free text naming one container.

    ## Rewards
    Per the env's reward scheme; the candidates are the containers the story names.

    ## Episode End
    After one answer.

    ## Arguments
    - ``version``: ``"clever_hans"`` (default) or ``"original"``.
    - ``split``: ``"train"`` (default) or ``"val"``; the test split is not shipped.
    - ``drop_contradicted``: True keeps only the questions whose release label the stated rules
      give too (mostly second-order labels go: ``tomgym data audit tomi-clever_hans-train``
      lists them). False (default) serves the release as published.

    ## Registered Configurations
    ``ToM-ToMi-Original-v0`` (5,994 per split).

    ## Version History
    - v0: initial release; ``drop_contradicted`` added later (default off: items unchanged).
    """

    family = "tomi"

    def build_source(
        self,
        *,
        version: Version = "clever_hans",
        split: str = "train",
        drop_contradicted: bool = False,
        **unused: Any,
    ) -> ItemSource:
        check_choice(self.label, "version", version, tuple(FILES))  # before data is read
        if split not in ("train", "val"):
            raise argument_error(
                self.label, "split", split, "'train' or 'val' (the test split is not shipped)"
            )
        drop = check_bool(self.label, "drop_contradicted", drop_contradicted)
        items = tomi_items(version, split, self.tom_id or ENV_ID)
        return list_source(agreeing_items(items, "tomi") if drop else items)


def register_envs() -> None:
    """Register the ToMi release env (reads no data)."""
    register_tom_env(
        ENV_ID,
        entry_point="tomgym.envs.tomi_release:ToMiReleaseEnv",
        family="tomi",
        orders=(0, 1, 2),
        split="train",
        size=SPLIT_SIZE,
        answer_type="choice",
        description="ToMi release (Clever-Hans corrected by default), official train/val splits",
        kwargs={"version": "clever_hans", "split": "train"},
        overwrite=True,
    )
