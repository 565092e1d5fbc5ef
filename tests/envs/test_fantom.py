"""The FANToM loader on a small fixture in the authors' ``fantom_v1.json`` schema."""

from __future__ import annotations

import json
from collections import Counter

import gymnasium as gym
import pytest
from tomgym.envs import fantom
from tomgym.envs.fantom import load_fantom

from tomgym.data import MissingDataError, set_data_root
from tomgym.items import ItemError
from tomgym.registry import get_spec


def _part(set_id: str, part_id: int) -> dict:
    return {
        "set_id": set_id,
        "part_id": part_id,
        "full_context": "Ann: Hi!\nBob: I got a dog.\nCid: Hello, sorry I'm late.",
        "short_context": "Bob: I got a dog.",
        "missed_info": "Bob got a dog.",
        "joining_speaker": "Cid",
        "factQA": {
            "question": "What did Bob get?",
            "correct_answer": "A dog.",
            "wrong_answer": "A cat.",
        },
        "beliefQAs": [
            {
                "question": "What does Cid believe Bob got?",
                "question_type": "tom:belief:inaccessible",
                "tom_type": "first-order",
                "correct_answer": "Cid does not know Bob got a pet.",
                "wrong_answer": "Cid believes Bob got a dog.",
                "missed_info_accessibility": "inaccessible",
            },
            {
                "question": "What does Ann think Cid believes?",
                "question_type": "tom:belief:inaccessible",
                "tom_type": "second-order:cyclic",
                "correct_answer": "Ann thinks Cid does not know.",
                "wrong_answer": "Ann thinks Cid knows about the dog.",
                "missed_info_accessibility": "inaccessible",
            },
        ],
        "answerabilityQA_list": {
            "question": "Who knows what Bob got?",
            "correct_answer": ["Ann", "Bob"],
            "wrong_answer": ["Cid"],
        },
        "answerabilityQAs_binary": [
            {
                "question": "Does Cid know what Bob got? Answer yes or no.",
                "correct_answer": "no:long",
            },
            {"question": "Does Ann know what Bob got? Answer yes or no.", "correct_answer": "yes"},
        ],
        "infoAccessibilityQA_list": {
            "question": "Who knows that Bob got a dog?",
            "correct_answer": ["Ann", "Bob"],
            "wrong_answer": ["Cid"],
        },
        "infoAccessibilityQAs_binary": [
            {"question": "Does Cid know Bob got a dog? Answer yes or no.", "correct_answer": "no"},
        ],
    }


@pytest.fixture
def release(tmp_path):
    path = tmp_path / "fantom" / "fantom_v1.json"
    path.parent.mkdir()
    path.write_text(json.dumps([_part("s1", 1), _part("s1", 2), _part("s2", 1)]))
    return path


def test_kinds_and_answer_types(release):
    items = load_fantom(release)
    assert Counter(it.metadata["kind"] for it in items) == {
        "fact": 3,
        "belief": 6,
        "list": 6,
        "binary": 9,
    }
    for it in items:
        kind = it.metadata["kind"]
        expected = {"fact": "text", "belief": "choice", "list": "names", "binary": "yes_no"}
        assert it.answer_type == expected[kind]
    binary = [it for it in items if it.metadata["kind"] == "binary"]
    assert [it.answer for it in binary[:3]] == ["no", "yes", "no"]  # no:long counts as no
    belief = [it for it in items if it.metadata["kind"] == "belief"]
    assert [it.order for it in belief[:2]] == [1, 2]
    assert all(len(it.candidates) == 2 and it.answer in it.candidates for it in belief)
    names = [it for it in items if it.metadata["kind"] == "list"]
    assert names[0].answer == ["Ann", "Bob"]


def test_belief_option_order_is_seeded_and_stable(release):
    a = [it.candidates for it in load_fantom(release, ("belief",))]
    b = [it.candidates for it in load_fantom(release, ("belief",))]
    assert a == b
    golds_first = {
        load_fantom(release, ("belief",), seed=f"seed-{k}")[0].candidates[0] for k in range(16)
    }
    assert len(golds_first) == 2  # the gold is not always first


def test_short_context(release):
    items = load_fantom(release, ("fact",), context="short")
    assert items[0].story == "Bob: I got a dog."


def test_bad_record_names_file_and_part(tmp_path):
    parts = [_part("s1", 1), _part("s1", 2)]
    parts[1]["answerabilityQAs_binary"][0]["correct_answer"] = "maybe"
    path = tmp_path / "fantom_v1.json"
    path.write_text(json.dumps(parts))
    with pytest.raises(ItemError, match=r"fantom_v1.json record 1: cannot read.*maybe"):
        load_fantom(path)


def test_envs_register_without_data_and_make_with_it(release, tmp_path):
    fantom.register_envs()
    assert get_spec("ToM-FANToM-v0").usage == "eval-only"
    spec = get_spec("ToM-FANToM-List-v0")
    assert spec.usage == "eval-only" and spec.held_out
    set_data_root(tmp_path / "empty")
    try:
        with pytest.raises(MissingDataError, match="skywalker023/fantom"):
            gym.make("ToM-FANToM-v0")
        set_data_root(release.parent.parent)
        assert gym.make("ToM-FANToM-v0").unwrapped.size == 6
        assert gym.make("ToM-FANToM-List-v0").unwrapped.size == 6
    finally:
        set_data_root(None)


def test_fantom_envs_pass_the_conformance_checks_on_the_fixture(release):
    from tomgym.checks import check_tom_env

    fantom.register_envs()
    set_data_root(release.parent.parent)
    try:
        for env_id in ("ToM-FANToM-v0", "ToM-FANToM-List-v0"):
            report = check_tom_env(env_id, n_items=6)
            assert report.ok, report.problems
    finally:
        set_data_root(None)


def test_a_belief_option_may_be_answered_by_its_label(release):
    """The question shows "(a) ... (b) ...", and "(b)" scored no_candidate: a model answering
    as the prompt shows scored 0 on every belief item."""
    from tomgym.rewards import score_response

    def scored(answer: str, item) -> str:
        return score_response(f"<think>x</think><answer>{answer}</answer>", item).verdict

    for item in load_fantom(release, ("belief",)):
        gold, other = ("a", "b") if item.candidates[0] == item.answer else ("b", "a")
        assert f"({gold}) " in item.question and f"({other}) " in item.question
        right = (
            f"({gold})",
            gold,
            f"Option {gold.upper()}",
            f"{gold}) {item.answer}",
            f"The answer is {gold}",
            f"{gold}, because of what was said",
            "B: the second" if gold == "b" else "A. the first",
        )  # "A:" opens answers
        for answer in right:
            assert scored(answer, item) == "correct", answer
        assert scored(f"({other})", item) == "wrong"
        for hedge in (
            f"({gold}) or ({other})",
            f"{gold}) or {other})",
            f"{other} or ({gold})",
            f"{gold.upper()}) {other.upper()})",
        ):
            assert scored(hedge, item) == "several_candidates", hedge
        assert scored("A dog.", item) == "no_candidate"  # the article, not option (a)
        # an option quoted whole is never read for labels ("... plan B." is no option b)
        assert scored(item.answer, item) == "correct"
        assert scored(f"A: {item.answer}", item) == "correct"
        assert scored(f"({gold}) {item.candidates[1 if gold == 'a' else 0]}", item) != "correct"
