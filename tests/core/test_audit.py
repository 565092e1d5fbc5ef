"""The release audit on the real Hi-ToM and ToMi files: the measured agreement, exactly."""

from __future__ import annotations

import pytest

from tomgym.audit import audit_release


def by_type(dataset: str) -> dict[str, tuple[int, int | None, int]]:
    report = audit_release(dataset)
    return {t.question_type: (t.agree, t.agree_release_mode, t.total) for t in report.by_type}


def test_hitom_cot_copy_differs_on_17_items_all_orders_2_to_4() -> None:
    report = audit_release("hitom-cot")
    assert (report.agree, report.total) == (583, 600)
    assert len(report.disagreements) == 17
    assert {d.question_type for d in report.disagreements} == {"order 2", "order 3", "order 4"}
    assert [t.agree for t in report.by_type] == [120, 120, 115, 115, 113]
    assert all(d.item_id.startswith("hitom-cot-") and d.rules for d in report.disagreements)
    assert len(report.by_type[2].examples) == 3


def test_hitom_mc_copy_is_stale_on_deep_orders() -> None:
    report = audit_release("hitom-mc")
    assert (report.agree, report.total) == (470, 600)
    assert [t.agree for t in report.by_type] == [120, 120, 90, 75, 65]
    assert len(report.disagreements) == 130


def test_tomi_clever_hans_val() -> None:
    assert by_type("tomi-clever_hans-val") == {
        "memory": (999, 999, 999),
        "reality": (999, 999, 999),
        "first_order": (1992, 1992, 1998),  # 99.7%
        "second_order": (1758, 1884, 1998),  # 88.0% rules, 94.3% release mode
    }


def test_tomi_original_val() -> None:
    report = audit_release("tomi-original-val")
    assert report.by_type[-1].model_dump(exclude={"examples"}) == {
        "question_type": "second_order",
        "total": 1998,
        "agree": 1516,  # 75.9%
        "agree_release_mode": 1892,  # 94.7%
    }
    assert (report.agree, report.agree_release_mode) == (5512, 5888)
    assert all(d.release_mode is not None for d in report.disagreements)


def test_unknown_dataset() -> None:
    with pytest.raises(ValueError, match="hitom-cot"):
        audit_release("tomi-fb-test")
