"""Audit a dataset release: how many of its labels contradict the story under the stated rules.

The world-simulator oracle (rules mode) re-answers every question; for ToMi the ``release``
mode, which mimics the reference generator's second-order quirk, is reported beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from tomgym.items import ToMItem

HITOM_AUDITS = {"hitom-cot": "cot", "hitom-mc": "mc"}
TOMI_AUDITS = {
    f"tomi-{version}-{split}": (version, split)
    for version in ("clever_hans", "original")
    for split in ("train", "val")
}
AUDITS = (*HITOM_AUDITS, *TOMI_AUDITS)
"""Dataset names :func:`audit_release` knows."""
TOMI_TYPES = ("memory", "reality", "first_order", "second_order")


class Disagreement(BaseModel):
    """One release label that the rules answer differently."""

    item_id: str
    question_type: str
    question: str
    release: str
    rules: str | None = Field(description="The oracle's answer (None: it found none).")
    release_mode: str | None = Field(default=None, description="ToMi: the release-mode answer.")


class TypeAudit(BaseModel):
    """Agreement of one question type (a Hi-ToM order or a ToMi question kind)."""

    question_type: str
    total: int
    agree: int
    agree_release_mode: int | None = None
    examples: list[Disagreement] = Field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.agree / self.total if self.total else 0.0

    @property
    def release_rate(self) -> float | None:
        if self.agree_release_mode is None or not self.total:
            return None
        return self.agree_release_mode / self.total


class AuditReport(BaseModel):
    """A release's agreement with the rules, per question type, and every disagreement."""

    dataset: str
    total: int
    agree: int
    agree_release_mode: int | None = None
    by_type: list[TypeAudit]
    disagreements: list[Disagreement]


def _answer(solve: Callable[..., str], *args: str) -> str | None:
    try:
        return solve(*args)
    except ValueError:
        return None


_AGREES: dict[tuple[str, str], bool] = {}
"""(family, item digest) -> whether the rules give the item's label (one solve per item)."""


def agreeing_items(items: Sequence[ToMItem], family: str) -> tuple[ToMItem, ...]:
    """The items whose release label the stated rules give too (ToMi: in rules mode), in
    order: a release without the labels :func:`audit_items` reports as contradicting their
    story. Each item is solved once per process."""
    from tomgym.world.solve import solve_hitom
    from tomgym.world.tomi_solve import solve_tomi

    def agrees(item: ToMItem) -> bool:
        key = (family, item.digest())
        if key not in _AGREES:
            if family == "tomi":
                rules = _answer(solve_tomi, item.story, item.question, "rules")
            else:
                rules = _answer(solve_hitom, item.story, item.question)
            _AGREES[key] = rules == item.answer
        return _AGREES[key]

    return tuple(item for item in items if agrees(item))


def _hitom_type(item: ToMItem) -> str:
    return f"order {item.order}"


def audit_items(
    dataset: str,
    items: tuple[ToMItem, ...] | list[ToMItem],
    family: str,
    *,
    examples: int = 3,
) -> AuditReport:
    """Audit already-loaded items of the ``hitom`` or ``tomi`` family."""
    from tomgym.world.solve import solve_hitom
    from tomgym.world.tomi_solve import solve_tomi

    types = TOMI_TYPES if family == "tomi" else tuple(sorted({_hitom_type(i) for i in items}))
    tallies = {t: [0, 0, 0] for t in types}  # total, agree (rules), agree (release mode)
    found: list[Disagreement] = []
    for item in items:
        kind = item.question_type if family == "tomi" else _hitom_type(item)
        tally = tallies.setdefault(kind, [0, 0, 0])
        tally[0] += 1
        release_mode = None
        if family == "tomi":
            rules = _answer(solve_tomi, item.story, item.question, "rules")
            release_mode = _answer(solve_tomi, item.story, item.question, "release")
            tally[2] += release_mode == item.answer
        else:
            rules = _answer(solve_hitom, item.story, item.question)
        if rules == item.answer:
            tally[1] += 1
            continue
        found.append(
            Disagreement(
                item_id=item.id,
                question_type=kind,
                question=item.question,
                release=item.gold_text,
                rules=rules,
                release_mode=release_mode,
            )
        )
    tomi = family == "tomi"
    by_type = [
        TypeAudit(
            question_type=kind,
            total=total,
            agree=agree,
            agree_release_mode=agree_release if tomi else None,
            examples=[d for d in found if d.question_type == kind][:examples],
        )
        for kind, (total, agree, agree_release) in tallies.items()
    ]
    return AuditReport(
        dataset=dataset,
        total=sum(t.total for t in by_type),
        agree=sum(t.agree for t in by_type),
        agree_release_mode=sum(t.agree_release_mode or 0 for t in by_type) if tomi else None,
        by_type=by_type,
        disagreements=found,
    )


def audit_release(dataset: str, *, examples: int = 3) -> AuditReport:
    """Audit one release (a name in :data:`AUDITS`) read from the data root."""
    if dataset in HITOM_AUDITS:
        from tomgym.envs.hitom_release import hitom_items

        copy = "cot" if HITOM_AUDITS[dataset] == "cot" else "mc"
        return audit_items(dataset, hitom_items(copy), "hitom", examples=examples)
    if dataset in TOMI_AUDITS:
        from tomgym.envs.tomi_release import tomi_items

        version, split = TOMI_AUDITS[dataset]
        return audit_items(dataset, tomi_items(version, split), "tomi", examples=examples)
    raise ValueError(f"unknown dataset {dataset!r}; audits exist for {', '.join(AUDITS)}")
