"""The ExploreToM loader: presentations, answer types, duplicates, splits by story."""

from __future__ import annotations

import io
import re
from collections import Counter

import gymnasium as gym
import pytest
from tomgym.envs import exploretom
from tomgym.envs.exploretom import (
    KNOWLEDGE_ANSWERS,
    exploretom_items,
    load_exploretom,
    read_rows,
)
from tomgym.envs.splits import find_leakage

from tomgym.items import ItemError


@pytest.fixture(scope="module")
def structured(data_root):
    return exploretom_items("structured")


def test_release_rows_and_duplicates(data_root, structured):
    rows = read_rows(data_root / "exploretom" / "explore_tom.csv")
    assert len(rows) == 13309 and len(rows[0]) == 18
    pairs = Counter((r["story_structure"], r["question"]) for r in rows)
    assert sum(n - 1 for n in pairs.values() if n > 1) == 15
    assert len({r["story_structure"] for r in rows}) == 619
    # 14 same-answer repeats dropped, one conflicting pair dropped entirely.
    assert len(structured) == exploretom.SIZES["structured"] == 13309 - 14 - 2
    assert len(exploretom_items("infilled")) == exploretom.SIZES["infilled"] == 13309 - 2
    assert len({(it.story, it.question) for it in structured}) == len(structured)


def test_answer_types(structured):
    yes_no = Counter(it.answer for it in structured if it.answer_type == "yes_no")
    assert yes_no == {"yes": 2936, "no": 537}
    for it in structured:
        if it.answer_type == "choice":
            assert it.candidates == KNOWLEDGE_ANSWERS
        elif it.answer_type == "text":
            # Candidates hold the gold and another answer, or are absent: never the gold alone
            # (info["candidates"] would give it away).
            assert not it.candidates or (it.answer in it.candidates and len(it.candidates) > 1)
            assert it.answer not in KNOWLEDGE_ANSWERS and it.answer not in ("yes", "no")
    text = Counter(len(it.candidates) for it in structured if it.answer_type == "text")
    assert text == {0: 2816, 2: 1462, 3: 740, 4: 144}


def test_orders_and_kinds(structured):
    assert {it.order for it in structured} == {0, 1, 2}
    assert all(it.order == max(it.metadata["nth_order"], 0) for it in structured)
    kinds = Counter(it.question_type for it in structured)
    assert set(kinds) == {"memory", "reality", "belief", "knowledge", "state_update"}


def test_splits_by_story_without_leakage():
    parts = {s: exploretom_items("structured", s) for s in ("train", "val", "test")}
    assert {s: len(v) for s, v in parts.items()} == {"train": 900, "val": 300, "test": 300}
    assert find_leakage(parts) == []
    infilled = {s: exploretom_items("infilled", s) for s in ("train", "val", "test")}
    assert {s: len(v) for s, v in infilled.items()} == {"train": 900, "val": 300, "test": 300}
    assert find_leakage(infilled) == []
    assert all(it.split == s for s, v in parts.items() for it in v)
    # Deterministic: the same call gives the same ids.
    assert [it.id for it in exploretom_items("structured", "test")] == [
        it.id for it in parts["test"]
    ]


def test_bad_record_names_file_and_row(tmp_path, data_root):
    src = (data_root / "exploretom" / "explore_tom.csv").read_text(encoding="utf-8")
    rows = read_rows(data_root / "exploretom" / "explore_tom.csv")[:4]
    import csv

    path = tmp_path / "small.csv"
    rows[2]["qprop=params"] = "not a tuple ("
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert src  # the real file is untouched
    with pytest.raises(ItemError, match=r"small.csv record 2 \(line (\d+)\): cannot read") as err:
        load_exploretom(path)
    # the line a user's editor shows the row starting on (stories are quoted and span lines)
    line = int(re.search(r"\(line (\d+)\)", str(err.value)).group(1))
    text = path.read_text(encoding="utf-8").splitlines(keepends=True)
    from_there = csv.DictReader(io.StringIO(text[0] + "".join(text[line - 1 :]), newline=""))
    assert next(from_there) == rows[2]


def test_parquet_needs_pyarrow(tmp_path):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"tomgym\[data\]"):
            read_rows(tmp_path / "x.parquet")


def test_registered_envs():
    exploretom.register_envs()
    env = gym.make("ToM-ExploreToM-v0", split="test").unwrapped
    assert env.size == 300
    env = gym.make("ToM-ExploreToM-Infilled-v0").unwrapped
    assert env.size == 13307
    from tomgym.registry import get_spec

    spec = get_spec("ToM-ExploreToM-Infilled-v0")
    assert spec.held_out and spec.held_out_from == ("ToM-ExploreToM-v0",)
    with pytest.raises(ValueError, match="split"):
        gym.make("ToM-ExploreToM-v0", split="dev")


def test_gold_answer_is_judged_correct(structured):
    from tomgym.answers import judge_choice, judge_text

    for it in structured:
        if it.answer_type == "text":
            assert judge_text(it.answer, it.answer, it.candidates).correct, it.id
            others = [c for c in it.candidates if c != it.answer]
            if others:
                assert not judge_text(others[0], it.answer, it.candidates).correct, it.id
        elif it.answer_type == "choice":
            assert judge_choice(it.answer, it.answer, it.candidates).correct, it.id


def test_a_short_reason_after_a_free_text_answer_is_credited(structured):
    """ "grand ballroom. Nobody moved it." read as two answers (the free-text list rule): a
    reason after the answer scored 0 on the free-text items whose candidates leave nothing else
    to name (no list, or only the place the question names), against 1 on Hi-ToM's."""
    from tomgym.answers import story_people
    from tomgym.rewards import asked_candidates, judge_answer

    judged = 0
    for it in structured:
        others = set(it.candidates) - {it.answer, *asked_candidates(it)}
        if it.answer_type != "text" or others:
            continue
        person = sorted(story_people(it.story))[0].title()
        for reason in ("Nobody moved it.", "(I'm confident)", f"{person} saw it."):
            assert judge_answer(f"{it.answer}. {reason}", it)[0], (it.id, reason)
        for hedge in ("It's not.", "Maybe the attic.", f"{person}'s."):
            assert not judge_answer(f"{it.answer}. {hedge}", it)[0], (it.id, hedge)
        judged += 1
    assert judged > 2816  # every item without candidates, and those naming the question's


def test_restating_the_asked_object_with_its_commas_is_credited(structured):
    """ "The small, leather-bound notebook was in the wooden desk drawer." split at the
    object's comma into the alternative "small": 212 of 544 such restatements scored 0."""
    from tomgym.rewards import judge_answer

    asked = re.compile(r"(?:for|was|is) the ([^?]+?,[^?]+?)(?:\?| at the beginning| before| now)")
    restated = 0
    for it in structured:
        found = asked.search(it.question)
        if it.answer_type == "text" and found and len(found.group(1).split()) <= 5:
            answer = f"The {found.group(1)} was in the {it.answer}."
            assert judge_answer(answer, it)[0], (it.id, answer)
            restated += 1
    assert restated > 200


def test_a_knowledge_answer_is_one_of_the_phrases_the_question_lists(structured):
    """The question lists "(knows about it / does not know about it)". Cutting the candidates
    to "knows" / "does not know" credited "She knows nothing about it." and "Nobody knows.",
    so the release's phrases stay the candidates; "knows" is an alias of the first, and those
    two, being longer, name the second."""
    from tomgym.rewards import score_response

    knowing = next(it for it in structured if it.answer == "knows about it")
    assert knowing.question.endswith("(knows about it / does not know about it)")
    for answer, verdict in (
        ("knows about it", "correct"),
        ("She knows about it.", "correct"),
        ("She knows nothing about it.", "wrong"),
        ("Nobody knows.", "wrong"),
        ("No one knows.", "wrong"),
        ("doesn't know about it", "wrong"),
        ("knows about it or does not know about it", "several_candidates"),
    ):
        judged = score_response(f"<think>x</think><answer>{answer}</answer>", knowing)
        assert judged.verdict == verdict, (answer, judged)


def test_a_list_of_the_story_s_places_does_not_pay_on_free_text_items():
    """Red team: on the infilled env 68 of 159 multi-room free-text questions paid for the
    story's rooms joined by spaces (its prose hides them behind adjectives, "the dimly lit
    storage warehouse"). The answer 'the dorm was...' after 'the hostel dorm' refers back, so
    places that share a word with the gold are not compared (a list of them pays on 14 of the
    167 items with several places, far below a guess)."""
    from tomgym.rewards import judge_answer

    infilled = exploretom.exploretom_items("infilled")
    item = infilled[555]
    assert item.answer_type == "text" and not item.candidates
    assert set(item.metadata["story_places"]) >= {"employee", "storage"}
    assert judge_answer(item.answer, item)[0]
    assert judge_answer(f"It is in the {item.answer}.", item)[0]
    for places in (
        "employee break room storage warehouse",
        "storage warehouse employee break room",
    ):
        assert judge_answer(places, item)[1] == "several_candidates"


def test_knowledge_answers_take_paraphrases_of_either_side_but_not_both(structured):
    """Red team: 'Hailey doesn't know.' and 'Hailey does know about it.' named no candidate on
    the 4,658 knowledge questions. Each side's paraphrases now name it, the other side's name
    the other, so a hedge over both paraphrases earns nothing whatever the gold."""
    from tomgym.rewards import judge_answer

    knows, not_knows = structured[77], structured[105]
    assert (knows.answer, not_knows.answer) == ("knows about it", "does not know about it")
    assert judge_answer("Hailey does know about it.", knows)[:2] == (True, "correct")
    assert judge_answer("Hailey doesn't know.", not_knows)[:2] == (True, "correct")
    assert judge_answer("She does not know about it, but Liam is aware.", not_knows)[0]
    assert judge_answer("does not know or knows", knows)[1] == "several_candidates"
    assert judge_answer("Hailey doesn't know.", knows)[1] == "wrong"
    assert judge_answer("Hailey does know about it.", not_knows)[1] == "wrong"
    assert judge_answer("she knows nothing about it", knows)[0] is False
    assert judge_answer("she knows nothing about it", not_knows)[0]  # the longest phrase wins
    assert judge_answer("He knows.", knows)[:2] == (True, "correct")  # red team (round 3)
    assert judge_answer("He knows.", not_knows)[1] == "wrong"
    # last sessions' leftover: "hasn't heard about it" named neither side
    for said in ("She hasn't heard about it.", "She has never heard about it.",
                 "She never heard about it", "She had not heard about it.",
                 "She heard nothing about it.", "She has heard nothing."):  # fmt: skip
        assert judge_answer(said, not_knows)[:2] == (True, "correct"), said
        assert judge_answer(said, knows)[1] == "wrong", said
    for said in ("She has heard about it.", "She heard about it."):
        assert judge_answer(said, knows)[:2] == (True, "correct"), said
        assert judge_answer(said, not_knows)[1] == "wrong", said
    assert judge_answer("She heard about it, or she has not heard", knows)[1] == (
        "several_candidates"
    )
    for hedge in ("She does know, or she does not know", "does not know or does know"):
        for item in (knows, not_knows):
            assert judge_answer(hedge, item)[1] == "several_candidates"


def test_an_answer_may_repeat_the_place_its_question_names(structured):
    """Red team: 'It was in the leather satchel before Brooklyn moved it to the plastic storage
    bin.' was several_candidates on 221 of the 261 'before ... moved it to ...' questions: the
    question's own place counted as a second answer."""
    from tomgym.rewards import judge_answer

    item = structured[31]
    assert "plastic storage bin" in item.question and item.answer == "leather satchel"
    echo = "It was in the leather satchel before Brooklyn moved it to the plastic storage bin."
    assert judge_answer(echo, item)[:2] == (True, "correct")
    assert judge_answer("the plastic storage bin", item)[1] == "wrong"
    assert judge_answer("leather satchel or cardboard box", item)[1] == "several_candidates"
    assert judge_answer("cardboard box, then the plastic storage bin", item)[1] == "wrong"
