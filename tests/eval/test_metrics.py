from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import tomgym
from tomgym.eval.metrics import (
    MIN_THINK_ENTITIES,
    MIN_THINK_WORDS,
    label_macro_f1,
    macro_f1,
    response_lengths,
    story_entities,
    summarise,
    think_features,
    wilson_interval,
)
from tomgym.eval.store import ResultRecord


def record(env_id: str = "E-v0", index: int = 0, **fields: Any) -> ResultRecord:
    return ResultRecord(env_id=env_id, index=index, item_id=f"{env_id}-{index}", **fields)


def test_wilson_interval_matches_known_values() -> None:
    lo, hi = wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4)
    assert hi == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)


def test_macro_f1_averages_over_gold_labels() -> None:
    assert macro_f1(["a", "a", "b", "b"], ["a", "a", "b", "b"]) == 1.0
    # a: tp 1 fp 1 fn 1 -> 0.5; b: tp 0 -> 0; None counts against its gold
    assert macro_f1(["a", "a", None], ["a", "b", "a"]) == pytest.approx(0.25)


def test_label_macro_f1_normalises_answers() -> None:
    rows = [
        record(index=0, answer="Yes, it is", gold="yes", answer_type="yes_no", correct=True),
        record(index=1, answer="No", gold="no", answer_type="yes_no", correct=True),
        record(
            index=2, answer="The Positive", gold="positive", answer_type="choice", correct=True
        ),  # fmt: skip
    ]
    assert label_macro_f1(rows) == 1.0
    assert label_macro_f1([record(answer_type="text", gold="x")]) is None


def test_label_macro_f1_reads_answers_as_the_judge_does() -> None:
    """Review: macro-F1 compared the answer's words with the label, so a model answering in
    sentences ("Her attitude is negative", "I think no.") that the judge credited scored 0.0
    macro-F1 at the same accuracy as one answering with bare labels."""
    bare = [
        record(index=0, answer="negative", gold="negative", correct=True),
        record(index=1, answer="positive", gold="negative"),
        record(index=2, answer="positive", gold="positive", correct=True),
        record(index=3, answer="no", gold="yes", answer_type="yes_no"),
        record(index=4, answer="no", gold="no", answer_type="yes_no", correct=True),
    ]
    sentences = [
        record(index=0, answer="Her attitude is negative", gold="negative", correct=True),
        record(index=1, answer="She feels positive about it", gold="negative"),
        record(index=2, answer="It is positive", gold="positive", correct=True),
        record(index=3, answer="I think no.", gold="yes", answer_type="yes_no"),
        record(index=4, answer="No, she does not.", gold="no", answer_type="yes_no",
               correct=True),
    ]  # fmt: skip
    assert label_macro_f1(bare) == pytest.approx(label_macro_f1(sentences) or 0.0)
    # a yes/no answer given last is its prediction, as the judge reads it (review)
    last = [*sentences[:3], record(index=3, answer="She left early, so no.", gold="yes",
                                   answer_type="yes_no"), sentences[4]]  # fmt: skip
    assert label_macro_f1(last) == pytest.approx(label_macro_f1(sentences) or 0.0)
    # negative, positive and no: tp 1 and one fp or fn each (2/3); yes: no tp
    assert label_macro_f1(sentences) == pytest.approx((2 / 3 + 2 / 3 + 0 + 2 / 3) / 4)
    # a wrong answer naming two labels, or a label inside another, predicts what it names
    hedged = record(index=5, answer="positive or negative", gold="negative")
    assert label_macro_f1([hedged]) == 0.0
    # a label the answer denies is not its prediction (review: "not negative" counted as one)
    denied = [record(index=0, answer="Her attitude is not negative at all", gold="positive"),
              record(index=1, answer="negative", gold="negative", correct=True)]  # fmt: skip
    assert label_macro_f1(denied) == pytest.approx((0 + 1) / 2)
    fuller = [record(index=0, answer="it is less full", gold="more full"),
              record(index=1, answer="less full", gold="less full", correct=True)]  # fmt: skip
    assert label_macro_f1(fuller) == pytest.approx((0 + 2 / 3) / 2)


def test_reasoning_structure_needs_words_and_entities() -> None:
    story = "1 Kurt entered the den.\n2 The apple is in the red_box.\n3 Delia exited the den."
    entities = story_entities(story, ("red_box", "blue_bin"))
    assert {"kurt", "delia", "red box"} <= entities and "blue bin" not in entities
    good = (
        "<think> Kurt saw the apple go into the red_box before Delia left. </think>"
        "<answer>red_box</answer>"
    )
    assert think_features(good, "", story, ("red_box",)) == (10, 3)
    assert think_features("<answer>red_box</answer>", "", story, ()) == (0, 0)


def test_response_lengths_prefer_reported_tokens() -> None:
    with_tokens = [
        record(completion_tokens=5, response_words=3),
        record(index=1, completion_tokens=7),
    ]
    assert response_lengths(with_tokens) == ([5, 7], "completion_tokens")
    zeros = [record(completion_tokens=0, response_words=3)]
    assert response_lengths(zeros) == ([3], "words")
    # an unanswered item (no request, no count, no text) is 0 tokens: it turned the whole env
    # into words (metrics red team)
    unanswered = [*with_tokens, record(index=2, completion_tokens=None, response_words=0)]
    assert response_lengths(unanswered) == ([5, 7, 0], "completion_tokens")


def test_summary_slices_and_held_out_gap() -> None:
    rows = [
        record("A-v0", 0, correct=True, order=1, format_ok=True),
        record("A-v0", 1, correct=True, order=2, format_ok=True),
        record("B-v0", 0, correct=False, order=4, held_out=True),
        record("B-v0", 1, correct=True, order=4, held_out=True),
    ]
    summary = summarise(rows, ["A-v0", "B-v0"], {"B-v0": True}, {"A-v0": "hitom"}, agent="x")
    assert summary.envs["A-v0"].accuracy == 1.0
    assert set(summary.envs["A-v0"].by_order) == {"1", "2"}
    assert summary.envs["B-v0"].held_out
    assert summary.held_out_gap == pytest.approx(0.5)
    assert summary.accuracy == pytest.approx(0.75)


def test_a_think_part_pasted_from_the_story_is_not_reasoning() -> None:
    """Red-teamed: the story's first 25 words as the think part reached a 100% structure
    share on most envs. Copied runs of words do not count."""
    item = tomgym.load_items("ToM-HiToM-O2-v0", 1)[0]
    pasted = " ".join(item.story.split()[:25])
    think_words, entities = think_features(
        f"<think>{pasted}</think><answer>x</answer>", "", item.story, item.candidates
    )
    assert think_words < MIN_THINK_WORDS


def test_story_lines_pasted_out_of_order_and_name_salad_are_not_reasoning() -> None:
    """Red-teamed again: the story's lines in reverse order (no 8-word run left in order) and
    a think part listing names and containers ("Kurt Delia blue_chest hmm ...") both scored
    as structured reasoning, above an oracle-style trace."""
    item = tomgym.load_items("ToM-HiToM-O2-v0", 1)[0]
    lines = [line.split(" ", 1)[1] for line in item.story.splitlines()]
    for pasted in (" ".join(reversed(lines)), " ".join(lines[::2])):
        assert think_features(f"<think>{pasted}</think>", "", item.story)[0] < MIN_THINK_WORDS
    names = " ".join(item.metadata["question_agents"]) + " " + " ".join(item.candidates[:3])
    salad = f"<think>{names} hmm let me consider this very carefully indeed</think>"
    own, named = think_features(salad, "", item.story, item.candidates)
    assert own >= MIN_THINK_WORDS and named == 0
    obj, where = item.metadata["object"], item.answer
    agent = item.metadata["question_agents"][0]
    claim = f"<think>{agent} thinks the {obj} is in the {where}, as far as I can tell.</think>"
    assert think_features(claim, "", item.story, item.candidates)[1] >= MIN_THINK_ENTITIES


def test_pasted_sentences_without_line_numbers_are_copied_too_and_claims_are_not() -> None:
    item = tomgym.load_items("ToM-HiToM-O2-v0", 1)[0]
    lines = [line.split(" ", 1)[1] for line in item.story.splitlines()]
    pasted = " ".join(lines)
    assert think_features(f"<think>{pasted}</think>", "", item.story)[0] < MIN_THINK_WORDS
    numbered = item.story.replace("\n", " ")
    assert think_features(f"<think>{numbered}</think>", "", item.story)[0] < MIN_THINK_WORDS
    obj, where = item.metadata["object"], item.answer
    agents = item.metadata["question_agents"]
    claims = f"{agents[0]} thinks the {obj} is in the {where}. The {obj} is in the {where}."
    assert think_features(f"<think>{claims}</think>", "", item.story)[0] >= MIN_THINK_WORDS


def test_the_asked_object_counts_as_an_entity() -> None:
    """Objects are not capitalised nor candidates: 'The nectarine is in the blue_drawer' named
    one entity, so a correct chain of object claims read as unstructured."""
    from tomgym.eval.metrics import story_entities, think_features

    story = "1 Ann entered the hall.\n2 The nectarine is in the blue_drawer."
    question = "Where is the nectarine really?"
    assert "nectarine" in story_entities(story, ["blue_drawer", "red_box"], question)
    assert "really" not in story_entities(story, [], question)  # only what the story names
    think = "<think>The nectarine is in the blue_drawer.</think><answer>blue_drawer</answer>"
    assert think_features(think, "", story, ["blue_drawer", "red_box"], question)[1] == 2


def test_story_lines_dressed_in_connectives_and_the_question_are_not_reasoning() -> None:
    """Red-teamed a third time: 'Then ' before every pasted story line broke both copy
    checks, and the question copied in counted as a structured think part."""
    item = tomgym.load_items("ToM-HiToM-O2-v0", 1)[0]
    lines = [line.split(" ", 1)[1] for line in item.story.splitlines()]
    dressed = " ".join(f"Then {line.rstrip('.')} ok." for line in lines)
    assert think_features(f"<think>{dressed}</think>", "", item.story)[0] < MIN_THINK_WORDS
    copied = f"<think>{item.question}</think>"
    own, named = think_features(copied, "", item.story, item.candidates, item.question)
    assert own == 0 and named == 0


def test_a_line_said_over_again_or_a_word_babbled_is_not_reasoning() -> None:
    """Metrics red team: one story line pasted twice or five times, a claim said twice, and
    "is is is Kurt is Delia is is is" all counted as structured reasoning."""
    item = tomgym.load_items("ToM-HiToM-O2-v0", 1)[0]
    line = item.story.splitlines()[0].split(" ", 1)[1]
    for times in (2, 5):
        think = " ".join([line] * times)
        assert think_features(f"<think>{think}</think>", "", item.story)[0] < MIN_THINK_WORDS
    obj, where = item.metadata["object"], item.answer
    claim = f"The {obj} is in the {where}."
    assert think_features(f"<think>{claim} {claim}</think>", "", item.story)[0] < MIN_THINK_WORDS
    a, b = item.metadata["question_agents"][:2]
    babble = f"<think>is is is {a} is {b} is is is</think>"
    assert think_features(babble, "", item.story, item.candidates) == (0, 0)
    # a real chain of two claims still counts
    chain = f"<think>{a} thinks the {obj} is in the {where}. {b} saw it moved there.</think>"
    assert think_features(chain, "", item.story, item.candidates)[0] >= MIN_THINK_WORDS


def test_a_listing_sentence_is_a_statement_not_babble() -> None:
    """The babble rule first dropped "Emma is in the kitchen, Jack is in the kitchen, ..."
    (16 words, 7 distinct); only a third or fewer distinct is babble (review)."""
    story = "Emma entered the kitchen. Jack entered the kitchen. Owen entered the kitchen."
    listing = ("<think>Emma is in the kitchen, Jack is in the kitchen, Owen is in the kitchen, "
               "Lily is in the kitchen</think>")  # fmt: skip
    own, named = think_features(listing, "", story)
    assert own >= MIN_THINK_WORDS and named >= 3


def test_the_interval_by_story_groups_a_storys_questions() -> None:
    """Generalisation red team: ExploreToM's 300 test questions come from 14 stories, and
    every interval treated them as independent: a story-cluster bootstrap was about twice as
    wide. Checked by hand: two stories, all right in one and all wrong in the other."""
    from tomgym.eval.metrics import cluster_interval

    together = [("a", True)] * 5 + [("b", False)] * 5
    # p = 0.5; residuals +2.5 and -2.5; variance = 2/1 * 12.5 / 100 = 0.25; se = 0.5
    low, high = cluster_interval(together) or (None, None)
    assert (low, high) == (0.0, 1.0)
    apart = [(str(i), i % 2 == 0) for i in range(10)]  # one question a story: about Wald's
    low, high = cluster_interval(apart) or (0.0, 0.0)
    assert abs((high - low) / 2 - 1.959963984540054 * math.sqrt(10 / 9 * 0.25 / 10)) < 1e-9
    assert cluster_interval([("a", True), ("a", False)]) is None  # one story: no interval


def test_an_eval_over_few_stories_gives_the_interval_by_story(tmp_path: Path) -> None:
    from tomgym.eval import evaluate

    summary = evaluate("heuristic:majority", ["ToM-ExploreToM-v0", "ToM-HiToM-O2-v0"], n=40,
                       out=tmp_path / "run", quiet=True)  # fmt: skip
    explore, hitom = summary.envs["ToM-ExploreToM-v0"], summary.envs["ToM-HiToM-O2-v0"]
    assert explore.stories is not None and explore.stories < 40
    assert explore.ci95_by_story is not None
    assert hitom.stories == 40 and hitom.ci95_by_story is None  # a story a question
