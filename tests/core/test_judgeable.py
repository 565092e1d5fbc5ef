"""Registration scores every item of a user's list with the judge (tomgym.judgeable)."""

from __future__ import annotations

from typing import Any

import pytest

import tomgym
from tomgym.items import validate_items
from tomgym.judgeable import judging_problems, wrong_candidates

BASE = {"story": "Ann put the ball in the box.", "question": "Where is the ball?"}


def register(env_id: str, items: list[dict[str, Any]]) -> None:
    try:
        tomgym.register_tom_env(env_id, items=items)
    finally:
        if env_id in {spec.id for spec in tomgym.list_envs()}:
            tomgym.unregister_tom_env(env_id)


@pytest.mark.parametrize(
    ("answer", "candidates", "wrong"),
    [("two", ["two", "2", "3"], "'2'"),
     ("1000", ["1000", "1,000", "3"], "'1,000'"),
     ("two", ["two", "room 2", "room 3"], "'room 2'")],
)  # fmt: skip
def test_a_wrong_candidate_the_judge_reads_as_the_gold_refuses_the_registration(
    answer: str, candidates: list[str], wrong: str
) -> None:
    """Registration red team: candidates "two" and "2" were accepted, and the response "2"
    then earned the full reward for the gold "two" (36 such pairs in a fuzz)."""
    items = [{"id": "ok", "answer": "box", "candidates": ["box", "bag"], **BASE},
             {"id": "q7", "answer": answer, "candidates": candidates, **BASE}]  # fmt: skip
    with pytest.raises(ValueError, match="1 of 2 items cannot be judged") as refused:
        register("Test-Judged-v0", items)
    assert f"item 'q7': the wrong candidate {wrong} is scored correct" in str(refused.value)


def test_a_gold_judged_wrong_refuses_the_registration() -> None:
    items = [{"id": "yn", "answer": "yes and no", "answer_type": "yes_no", **BASE}]
    with pytest.raises(ValueError, match="its own gold 'yes and no' is judged several_"):
        register("Test-Judged-v0", items)


def test_items_the_judge_reads_apart_register_and_few_responses_are_scored() -> None:
    """Candidates sharing no word, number or synonym with the gold are not scored (they are
    most of a file's): the check costs about one judging an item. "-1" beside "1" registers."""
    items = validate_items(
        [
            {"id": f"i{k}", "answer": "box", "candidates": ["box", "bag", "red basket"], **BASE}
            for k in range(2000)
        ]  # fmt: skip
    )
    assert wrong_candidates(items[0]) == []
    offered = ["desk drawer", "drawer", "fridge", "room 2"]
    mixed = validate_items([{"id": "m", "answer": "desk drawer", "candidates": offered, **BASE}])
    assert wrong_candidates(mixed[0]) == ["drawer", "room 2"]
    assert judging_problems(items) == []
    register("Test-Judged-v0", [{"id": "a", "answer": "-1", "candidates": ["-1", "1"], **BASE}])
