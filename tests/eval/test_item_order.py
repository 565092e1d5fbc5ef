"""Which n items a run asks of a fixed env: a fixed shuffled order by default, so a small n on
a release stored order by order still spans its orders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.eval.helpers import FirstCandidateAgent
from tomgym.eval.runner import RunConflictError, evaluate
from tomgym.eval.store import ResultsStore, planned_indices

RELEASE = "ToM-HiToM-Original-v0"  # 1200 questions stored order 0 first, then 1, ...


def test_planned_indices_are_a_fixed_nested_sample() -> None:
    assert planned_indices("first", 5, 100) == [0, 1, 2, 3, 4]
    assert planned_indices("shuffled", 5, None) == [0, 1, 2, 3, 4]  # procedural: iid items
    assert planned_indices("shuffled", 200, 100) == list(range(100))
    small, large = planned_indices("shuffled", 20, 1200), planned_indices("shuffled", 60, 1200)
    assert len(set(small)) == 20 and small == sorted(small) and set(small) <= set(large)
    assert small == planned_indices("shuffled", 20, 1200)  # the same for every run and agent
    assert max(small) > 600  # spread over the file, not its head


def test_a_small_n_on_a_release_spans_its_orders(tmp_path: Path, data_root: Path) -> None:
    """The first 20 questions of the Hi-ToM release are all order 0; an agent answering
    'reality' scored 100% on that column."""
    shuffled = evaluate(FirstCandidateAgent(), [RELEASE], n=20, out=tmp_path / "s", quiet=True)
    assert len(shuffled.envs[RELEASE].by_order) >= 3
    first = evaluate(
        FirstCandidateAgent(), [RELEASE], n=20, out=tmp_path / "f", item_order="first", quiet=True
    )
    assert list(first.envs[RELEASE].by_order) == ["0"]
    assert [r.index for r in ResultsStore(tmp_path / "f").load()] == list(range(20))


def test_an_older_directory_resumes_in_file_order(tmp_path: Path, data_root: Path) -> None:
    evaluate(FirstCandidateAgent(), [RELEASE], n=4, out=tmp_path, item_order="first", quiet=True)
    path = tmp_path / "metadata.json"
    meta = json.loads(path.read_text())
    for plan in meta["envs"]:
        del plan["items"], plan["size"]  # as older versions wrote it
    path.write_text(json.dumps(meta))
    summary = evaluate(FirstCandidateAgent(), [RELEASE], n=6, out=tmp_path, quiet=True)
    assert summary.complete and summary.extra_records == 0
    assert [r.index for r in ResultsStore(tmp_path).load()] == list(range(6))
    with pytest.raises(RunConflictError, match="'first' order"):
        evaluate(
            FirstCandidateAgent(), [RELEASE], n=6, out=tmp_path, item_order="shuffled", quiet=True
        )


def test_a_directory_that_asked_every_item_imposes_no_order(
    tmp_path: Path, data_root: Path
) -> None:
    """Asking all 120 items records 'first' (any order is every item); a later, smaller --n on
    that directory must still get the shuffled sample, not the release's first lines."""
    env = "ToM-HiToM-Original-O4-v0"
    evaluate(FirstCandidateAgent(), [env], n=500, out=tmp_path, quiet=True)
    evaluate(FirstCandidateAgent(), [env], n=10, out=tmp_path, quiet=True)
    meta = json.loads((tmp_path / "metadata.json").read_text())
    assert meta["envs"][0]["items"] == "shuffled"
    assert meta["envs"][0]["n"] == 10
