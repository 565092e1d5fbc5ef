"""Hi-ToM (He et al. 2023) as released: the JSON file or the text-file tree, either copy."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from tomgym.audit import agreeing_items
from tomgym.data import (
    DamagedDataError,
    damaged,
    read_release_json,
    release_items,
    require_file,
)
from tomgym.env import EnvArgumentError, ToMEnv, check_bool, check_choice, check_optional_int
from tomgym.items import ToMItem
from tomgym.registry import register_tom_env
from tomgym.sources import ItemSource, list_source

Copy = Literal["cot", "mc"]
JSON_FILE = "hitom/Hi-ToM_data.json"
TREE_DIR = "hitom/Hi-ToM_data"
ORDERS = (0, 1, 2, 3, 4)
HELD_OUT_ORDER = 4
HELD_OUT_ID = f"ToM-HiToM-Original-O{HELD_OUT_ORDER}-v0"
PER_COPY = 600
ENV_ID = "ToM-HiToM-Original-v0"

_PROMPTING = {"cot": "CoTP", "mc": "VP"}
_TREE_COPY = {"cot": "CoT", "mc": "MC"}
_STORY_LINE = re.compile(r"^\d+ \S")
_CHOICE = re.compile(r"([A-O])\. ([^,]+)")
_TREE_PATH = re.compile(r"(Tell|No_Tell)/(MC|CoT)/length_(\d+)/sample_(\d+)/order_(\d+)\.txt$")
_CACHE: dict[tuple[str, str, str], tuple[ToMItem, ...]] = {}


def story_lines(text: str) -> str:
    """The numbered story sentences only: no instruction header, no stray ``***``."""
    return "\n".join(line.strip() for line in text.splitlines() if _STORY_LINE.match(line.strip()))


def parse_choices(choices: str) -> tuple[str, ...]:
    """``"A. x, B. y, ..."`` -> ``("x", "y", ...)``; Hi-ToM always lists 15 containers."""
    found = tuple(name.strip() for _, name in _CHOICE.findall(choices))
    if len(found) != 15:
        raise ValueError(f"expected 15 choices A-O, found {len(found)} in {choices[:80]!r}")
    return found


def _item(
    copy: Copy,
    deception: bool,
    length: int,
    sample: int,
    order: int,
    story: str,
    question: str,
    answer: str,
    choices: str,
) -> dict[str, Any]:
    tell = "tell" if deception else "no_tell"
    if order not in ORDERS:
        raise ValueError(f"question order {order} is not 0-4")
    return {
        "id": f"hitom-{copy}-{tell}-l{length}-s{sample}-o{order}",
        "story": story_lines(story),
        "question": question.strip(),
        "answer": answer.strip(),
        "candidates": parse_choices(choices),
        "answer_type": "choice",
        "order": order,
        "question_type": "reality" if order == 0 else "belief",
        "source": "hitom",
        "metadata": {
            "deception": deception,
            "story_length": length,
            "sample_id": sample,
            "prompting_type": _PROMPTING[copy],
        },
    }


def _from_json_record(copy: Copy, rec: Mapping[str, Any]) -> dict[str, Any]:
    # The JSON's sample_id runs over the whole file; the tree's sample_<k> is its k.
    return _item(
        copy,
        bool(rec["deception"]),
        int(rec["story_length"]),
        int(rec["sample_id"]) % 20 + 1,
        int(rec["question_order"]),
        rec["story"],
        rec["question"],
        rec["answer"],
        rec["choices"],
    )


def load_hitom_json(path: Path, copy: Copy = "cot") -> list[ToMItem]:
    """The 600 items of one copy from ``Hi-ToM_data.json`` (CoT: ``CoTP`` records, MC: ``VP``)."""
    _check_copy(copy)
    loaded = read_release_json(path)
    records = loaded.get("data") if isinstance(loaded, dict) else None
    if not isinstance(records, list):
        raise damaged(path, "holds no 'data' list of records (the release's layout)")

    def numbered() -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
        for number, rec in enumerate(records):
            if rec.get("prompting_type") == _PROMPTING[copy]:
                yield f"{number} (data[{number}])", functools.partial(_from_json_record, copy, rec)

    try:
        return release_items(path, numbered())
    except DamagedDataError:
        if not records:
            raise
        raise damaged(
            path, f"holds no {_PROMPTING[copy]} records (the {copy} copy) among its {len(records)}"
        ) from None


def _from_text_file(copy: Copy, path: Path) -> dict[str, Any]:
    match = _TREE_PATH.search(path.as_posix())
    if match is None:
        raise ValueError("not a <Tell|No_Tell>/<MC|CoT>/length_n/sample_k/order_o.txt path")
    tell, _, length, sample, order = match.groups()
    text = path.read_text(encoding="utf-8")
    story, rest = text.split("\nQuestion:", 1)
    fields = dict(line.split(": ", 1) for line in ("Question:" + rest).splitlines() if ": " in line)
    return _item(
        copy,
        tell == "Tell",
        int(length),
        int(sample),
        int(order),
        story.split("Story:", 1)[-1],
        fields["Question"],
        fields["Answer"],
        fields["Choices"],
    )


def load_hitom_tree(root: Path, copy: Copy = "cot") -> list[ToMItem]:
    """The 600 items of one copy from the ``Hi-ToM_data/`` text files (same items as the JSON)."""
    _check_copy(copy)
    files = [
        p
        for tell in ("No_Tell", "Tell")
        for p in (root / tell / _TREE_COPY[copy]).rglob("order_*.txt")
    ]

    def key(p: Path) -> tuple[int, ...]:
        m = _TREE_PATH.search(p.as_posix())
        return (0, 0, 0, 0) if m is None else (m[1] == "Tell", int(m[3]), int(m[5]), int(m[4]))

    files.sort(key=key)
    return release_items(
        root,
        ((str(p.relative_to(root)), functools.partial(_from_text_file, copy, p)) for p in files),
    )


MC_CAVEAT = (
    "the MC copy's labels for orders 2-4 are stale (they predate a fix in the reference "
    "generator; its order-4 answer is always the object's initial container): they agree with "
    "the stated rules on 470 of 600 answers. Train on the CoT copy (copy='cot', as "
    "ToM-HiToM-Original-v0 serves), or pass drop_contradicted=True"
)
"""Why an export of the MC copy warns: tomgym data audit hitom-mc lists the answers."""


def _check_copy(copy: str) -> None:
    if copy not in _PROMPTING:
        raise ValueError(f"copy must be 'cot' (labels of record) or 'mc' (stale), not {copy!r}")


def hitom_items(
    copy: Copy = "cot", order: int | None = None, env_id: str = ENV_ID
) -> tuple[ToMItem, ...]:
    """The release's items of one copy (optionally one order), loaded once per process."""
    _check_copy(copy)
    path = require_file(env_id, "hitom", JSON_FILE)
    key = (str(path), copy, "")
    if key not in _CACHE:
        _CACHE[key] = tuple(load_hitom_json(path, copy))
    items = _CACHE[key]
    if order is None:
        return items
    if type(order) is not int or order not in ORDERS:
        raise ValueError(f"Hi-ToM orders are the ints 0-4, got {order!r}")
    kept = tuple(it for it in items if it.order == order)
    if not kept:
        raise damaged(
            path, f"holds no order-{order} {_PROMPTING[copy]} records (the release has 120)"
        )
    return kept


class HiToMReleaseEnv(ToMEnv):
    """Hi-ToM's released questions: where does A think B thinks ... the object is?

    ## Description
    The 1,200-record Hi-ToM release (He et al. 2023, Apache-2.0) is two copies of the same
    600 (story, question) pairs: 120 stories (2 tell settings x 3 lengths x 20 samples) with
    one question per order 0-4. The CoT copy is the labels of record; the MC copy's labels
    for orders 2-4 are stale (its order-4 answer is always the object's initial container, from
    before a fix in the reference generator), so it agrees with the stated rules on only
    470/600 answers against 583/600 for the CoT copy. Stories are the numbered sentences only:
    the MC copy's instruction header and three stray ``***`` lines are dropped.

    ## Observation
    The story and the question (with the 15 candidate containers), as text.

    ## Action
    Free text naming one container.

    ## Rewards
    Per the env's reward scheme; the answer must name the gold container and no other.

    ## Episode End
    After one answer.

    ## Arguments
    - ``copy``: ``"cot"`` (default, labels of record) or ``"mc"`` (stale labels, for comparison).
    - ``order``: the int 0-4 to keep one order, None for all (checked at make time, before
      any data is read).
    - ``split``: only ``"all"`` (the release has no splits; 120 stories are too few to split).
    - ``drop_contradicted``: True keeps only the questions whose release label the stated
      rules give too (CoT copy: 583 of 600; order 4: 113 of 120); ``tomgym data audit
      hitom-cot`` lists the others. False (default) serves the release as published.

    ## Registered Configurations
    ``ToM-HiToM-Original-v0`` (600), ``ToM-HiToM-Original-O0-v0`` .. ``-O4-v0`` (120 each),
    ``ToM-HiToM-Original-MC-v0`` (600, stale labels).

    ## Version History
    - v0: initial release; ``drop_contradicted`` added later (default off: items unchanged).
    """

    family = "hitom"

    def build_source(
        self,
        *,
        copy: Copy = "cot",
        order: int | None = None,
        split: str = "all",
        drop_contradicted: bool = False,
        **unused: Any,
    ) -> ItemSource:
        if split != "all":
            raise EnvArgumentError(
                f"{self.label}: the Hi-ToM release has no splits (120 stories are too few to "
                f"split): use split='all', not {split!r}"
            )
        check_choice(self.label, "copy", copy, tuple(_PROMPTING))
        order = check_optional_int(self.label, "order", order, ORDERS)
        items = hitom_items(copy, order, self.tom_id or ENV_ID)
        if check_bool(self.label, "drop_contradicted", drop_contradicted):
            items = agreeing_items(items, "hitom")
        elif copy == "mc" and order in (None, 2, 3, 4):
            self.label_caveat = MC_CAVEAT
        return list_source(items)


def register_envs() -> None:
    """Register the Hi-ToM release envs (reads no data)."""
    entry = "tomgym.envs.hitom_release:HiToMReleaseEnv"
    common: dict[str, Any] = {"family": "hitom", "answer_type": "choice", "entry_point": entry}
    register_tom_env(
        ENV_ID,
        orders=ORDERS,
        size=PER_COPY,
        kwargs={"copy": "cot", "order": None},
        description="Hi-ToM release, CoT copy (labels of record), orders 0-4 (order 4 is "
        "ToM-HiToM-Original-O4-v0's held-out set: train on -O0-v0 ... -O3-v0)",
        serves_held_out=(HELD_OUT_ID,),
        overwrite=True,
        **common,
    )
    for order in ORDERS:
        # As for the generated envs, order 4 is held out from a training mix of orders 0-3
        # (ToM-RL, arXiv 2504.01698, tests its generalisation to 4th-order questions).
        held_out = order == HELD_OUT_ORDER
        register_tom_env(
            f"ToM-HiToM-Original-O{order}-v0",
            orders=(order,),
            size=PER_COPY // 5,
            kwargs={"copy": "cot", "order": order},
            description=f"Hi-ToM release, CoT copy, order {order} only"
            + (" (held out from orders 0-3)" if held_out else ""),
            held_out=held_out,
            held_out_from=(
                tuple(f"ToM-HiToM-Original-O{o}-v0" for o in ORDERS if o != order)
                if held_out
                else ()
            ),
            overwrite=True,
            **common,
        )
    register_tom_env(
        "ToM-HiToM-Original-MC-v0",
        orders=ORDERS,
        size=PER_COPY,
        kwargs={"copy": "mc", "order": None},
        description="Hi-ToM release, MC copy: orders 2-4 labels are stale (predate a fix)",
        serves_held_out=(HELD_OUT_ID,),
        overwrite=True,
        **common,
    )
