"""FANToM (Kim et al. 2023) from the authors' ``fantom_v1.json``: beliefs, lists, yes/no, facts."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from tomgym.data import damaged, read_release_json, release_items, require_file
from tomgym.env import ToMEnv, check_choice
from tomgym.items import ToMItem
from tomgym.registry import register_tom_env
from tomgym.sources import ItemSource, list_source

from .splits import stable_hash

Context = Literal["full", "short"]
RELEASE_FILE = "fantom/fantom_v1.json"
ENV_ID = "ToM-FANToM-v0"
LIST_ID = "ToM-FANToM-List-v0"
KINDS = ("belief", "list", "binary", "fact")
HEADER = (
    "This is a theory-of-mind test. Please answer the question regarding facts or beliefs, "
    "based on the following in-person conversation between individuals who have just met."
)
_CACHE: dict[tuple[str, str], tuple[ToMItem, ...]] = {}


def belief_order(tom_type: str) -> int | None:
    """``first-order`` -> 1, ``second-order:cyclic`` / ``:acyclic`` -> 2."""
    t = tom_type.lower()
    if t.startswith("first"):
        return 1
    if t.startswith("second"):
        return 2
    return None


def _names(answer: Any) -> list[str]:
    """A list question's gold: the release's list of names (a bare string would be read as
    its letters)."""
    if not isinstance(answer, list) or not all(isinstance(n, str) for n in answer):
        raise ValueError(f"correct_answer must be a list of names, got {answer!r}")
    return answer


def yes_no(answer: str) -> str:
    """FANToM's binary labels: ``yes``, ``no`` and ``no:long`` (counted as no)."""
    head = answer.strip().lower().split(":", 1)[0]
    if head not in ("yes", "no"):
        raise ValueError(f"binary answer must be yes, no or no:long, got {answer!r}")
    return head


def _part_items(part: dict[str, Any], context: Context, seed: str) -> list[dict[str, Any]]:
    base = f"fantom-{part['set_id']}-{part['part_id']}"
    story = part["full_context" if context == "full" else "short_context"]
    meta = {"set_id": part["set_id"], "part_id": part["part_id"], "context": context}

    def item(suffix: str, kind: str, **fields: Any) -> dict[str, Any]:
        extra = fields.pop("metadata", {})
        return {
            "id": f"{base}-{suffix}",
            "story": story,
            "source": "fantom",
            "metadata": {**meta, "kind": kind, **extra},
            **fields,
        }

    out: list[dict[str, Any]] = []
    fact = part.get("factQA")
    if fact:
        out.append(
            item(
                "fact",
                "fact",
                question=fact["question"],
                answer=fact["correct_answer"],
                answer_type="text",
                order=0,
                question_type="fact",
            )
        )
    for i, q in enumerate(part.get("beliefQAs", [])):
        item_id = f"{base}-belief-{i}"
        options = [q["correct_answer"], q["wrong_answer"]]
        if int(stable_hash(item_id, seed), 16) % 2:
            options.reverse()
        question = f"{q['question']}\n(a) {options[0]}\n(b) {options[1]}"
        out.append(
            item(
                f"belief-{i}",
                "belief",
                question=question,
                answer=q["correct_answer"],
                candidates=tuple(options),
                answer_type="choice",
                order=belief_order(q.get("tom_type") or ""),
                question_type="belief",
                metadata={
                    "question_type": q.get("question_type"),
                    "tom_type": q.get("tom_type"),
                    "missed_info_accessibility": q.get("missed_info_accessibility"),
                    # the question shows them so: "(b)" answers with the second option
                    "option_labels": {"a": options[0], "b": options[1]},
                },
            )
        )
    for name in ("answerabilityQA_list", "infoAccessibilityQA_list"):
        q = part.get(name)
        if q:
            out.append(
                item(
                    name,
                    "list",
                    question=q["question"],
                    answer=_names(q["correct_answer"]),
                    answer_type="names",
                    order=1,
                    question_type=name.removesuffix("QA_list"),
                )
            )
    for name in ("answerabilityQAs_binary", "infoAccessibilityQAs_binary"):
        for i, q in enumerate(part.get(name, [])):
            out.append(
                item(
                    f"{name}-{i}",
                    "binary",
                    question=q["question"],
                    answer=yes_no(q["correct_answer"]),
                    answer_type="yes_no",
                    order=1,
                    question_type=name.removesuffix("QAs_binary"),
                    metadata={"raw_answer": q["correct_answer"]},
                )
            )
    return out


def load_fantom(
    path: Path,
    kinds: tuple[str, ...] = KINDS,
    *,
    context: Context = "full",
    seed: str = "fantom-v0",
) -> list[ToMItem]:
    """The release's questions of ``kinds`` (belief, list, binary, fact), all or nothing.

    Belief questions become a two-way choice between the correct and the wrong answer, in
    an order fixed by a stable hash of the item ID and ``seed``.
    """
    if context not in ("full", "short"):
        raise ValueError(f"context must be 'full' or 'short', got {context!r}")
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown FANToM question kinds {sorted(unknown)}; known: {KINDS}")
    parts = read_release_json(path)
    if isinstance(parts, dict):
        parts = list(parts.values())
    if not isinstance(parts, list):
        raise damaged(path, "holds no list of conversations (the release's layout)")

    def numbered() -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
        for number, part in enumerate(parts):
            try:
                built = _part_items(part, context, seed)
            except (KeyError, ValueError, TypeError) as exc:
                err = exc

                def fail(err: Exception = err) -> dict[str, Any]:
                    raise err

                yield str(number), fail
                continue
            for k, fields in enumerate(built):
                if fields["metadata"]["kind"] in kinds:
                    yield f"{number} (question {k})", functools.partial(dict, fields)

    return release_items(path, numbered())


def fantom_items(
    kind: str = "belief", context: Context = "full", env_id: str = ENV_ID
) -> tuple[ToMItem, ...]:
    """One kind of question (or ``"all"``), cached per process."""
    path = require_file(env_id, "fantom", RELEASE_FILE)
    key = (str(path), context)
    if key not in _CACHE:
        _CACHE[key] = tuple(load_fantom(path, context=context))
    if kind != "all" and kind not in KINDS:
        raise ValueError(f"kind must be 'all' or one of {KINDS}, got {kind!r}")
    return tuple(it for it in _CACHE[key] if kind == "all" or it.metadata["kind"] == kind)


class FANToMEnv(ToMEnv):
    """FANToM's questions about who knows what in a conversation someone partly missed.

    ## Description
    FANToM (Kim et al. 2023): multi-party conversations in which a character leaves and
    misses information. The authors ask that it be used for evaluation only: both IDs are
    ``usage="eval-only"``. Belief questions are a binary choice between the correct and the
    wrong answer (order by a seeded stable hash); list questions (who knows / who can
    answer) want a set of names; binary questions are yes/no (``no:long`` counts as no);
    fact questions are free text. The data file is not shipped: put the authors'
    ``fantom_v1.json`` (from ``fantom.tar.gz``) at ``<data root>/fantom/``.

    ## Observation
    The conversation (full or short context) and the question, as text.

    ## Action
    Free text: the chosen option, a list of names, yes/no, or a fact.

    ## Rewards
    Per the env's reward scheme.

    ## Episode End
    After one answer.

    ## Arguments
    - ``kind``: ``"belief"`` (default), ``"list"``, ``"binary"``, ``"fact"`` or ``"all"``.
    - ``context``: ``"full"`` (default) or ``"short"``.

    ## Registered Configurations
    ``ToM-FANToM-v0`` (belief choices), ``ToM-FANToM-List-v0`` (name lists; held out).
    Sizes are unknown until the file is present.

    ## Version History
    - v0: initial release.
    """

    family = "fantom"

    def build_source(
        self, *, kind: str = "belief", context: Context = "full", **unused: Any
    ) -> ItemSource:
        # Checked before any data is read, so a bad value is not reported as missing data.
        check_choice(self.label, "kind", kind, ("all", *KINDS))
        check_choice(self.label, "context", context, ("full", "short"))
        return list_source(fantom_items(kind, context, self.tom_id or ENV_ID))


def register_envs() -> None:
    """Register the FANToM envs, evaluation-only (reads no data)."""
    common: dict[str, Any] = {
        "entry_point": "tomgym.envs.fantom:FANToMEnv",
        "family": "fantom",
        "usage": "eval-only",
        "overwrite": True,
        "size": None,
        "procedural": False,
    }
    register_tom_env(
        ENV_ID,
        orders=(1, 2),
        answer_type="choice",
        kwargs={"kind": "belief"},
        description="FANToM belief questions as binary choices (evaluation only)",
        **common,
    )
    register_tom_env(
        LIST_ID,
        orders=(1,),
        answer_type="names",
        held_out=True,
        held_out_from=(ENV_ID,),
        kwargs={"kind": "list"},
        description="FANToM answerability / info-accessibility name lists (held out, eval only)",
        **common,
    )
