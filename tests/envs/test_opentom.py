"""The OpenToM loader: genres joined with narratives, answer types, eval-only registration."""

from __future__ import annotations

import json
from collections import Counter

import gymnasium as gym
import pytest
from tomgym.envs import opentom
from tomgym.envs.opentom import load_opentom, opentom_items

from tomgym.items import ItemError
from tomgym.registry import get_spec
from tomgym.rewards import score_response


@pytest.fixture(scope="module")
def items(data_root):
    return opentom_items()


def test_counts(items):
    assert len(items) == 13708
    assert len({it.metadata["story_id"] for it in items}) == 596
    assert Counter(Counter(it.metadata["story_id"] for it in items).values()) == {23: 596}
    assert Counter(it.metadata["genre"] for it in items) == opentom.GENRE_SIZES


def test_answer_types_and_labels(items):
    coarse_fo = Counter(it.answer for it in items if it.metadata["file"] == "location_cg_fo.json")
    assert coarse_fo == {"no": 849, "yes": 343}
    for it in items:
        genre = it.metadata["genre"]
        kind = {"coarse": "yes_no", "fine": "text", "multihop": "choice", "attitude": "choice"}
        assert it.answer_type == kind[genre]
        if genre == "multihop":
            assert it.candidates in (
                ("more full", "less full", "equally full"),
                ("more accessible", "less accessible", "equally accessible"),
            )
        if genre == "attitude":
            assert it.candidates == ("positive", "negative", "neutral") and it.order == 1
        if genre == "fine":
            assert it.answer in it.candidates
        # A closed-label question names its labels (as OpenToM's prompts do), a coarse one says
        # yes or no ("It is not in its initial location." was unparsable); others ask bare.
        labels = f" Answer with one of: {', '.join(it.candidates)}."
        assert it.question.endswith(labels) == (it.answer_type == "choice")
        assert it.question.endswith(" Answer yes or no.") == (it.answer_type == "yes_no")
    # Half of the fine first-order file asks "From narrator's perspective": the real place,
    # order 0, whatever file the release put it in.
    assert Counter(it.order for it in items) == {
        0: 1192,
        1: 596 + 1192 + 1192 + 3576,
        2: 1192 + 1192 + 3576,
    }
    for it in items:
        assert (it.order == 0) == it.question.startswith("From narrator's perspective")
    assert {get_spec("ToM-OpenToM-v0").orders, get_spec("ToM-OpenToM-FineLoc-v0").orders} == {
        (0, 1, 2)
    }


def test_stories_are_the_narratives(items, data_root):
    meta = json.loads((data_root / "opentom" / "meta_data.json").read_text())
    it = items[0]
    assert it.story == meta[it.metadata["story_id"]]["narrative"]


def test_long_narratives():
    long_items = opentom_items(long=True)
    assert len(long_items) == 100 * 23
    assert len({it.metadata["story_id"] for it in long_items}) == 100


def test_bad_record(tmp_path, data_root):
    src = data_root / "opentom"
    for name in ("meta_data.json", *[f for fs in opentom.GENRE_FILES.values() for f in fs]):
        data = json.loads((src / name).read_text())
        keep = list(data)[:2]
        (tmp_path / name).write_text(json.dumps({k: data[k] for k in keep}))
    data = json.loads((tmp_path / "attitude.json").read_text())
    next(iter(data.values()))[0]["answer"] = "ecstatic"
    (tmp_path / "attitude.json").write_text(json.dumps(data))
    with pytest.raises(ItemError, match=r"attitude.json record 0 \(story \w+, question 0\)"):
        load_opentom(tmp_path)
    assert len(load_opentom(tmp_path, ("coarse", "fine"))) == 2 * (4 + 6)


def test_registered_envs_are_eval_only():
    opentom.register_envs()
    ids = {
        "ToM-OpenToM-v0": 13708,
        "ToM-OpenToM-CoarseLoc-v0": 2384,
        "ToM-OpenToM-FineLoc-v0": 3576,
        "ToM-OpenToM-Multihop-v0": 7152,
        "ToM-OpenToM-Attitude-v0": 596,
    }
    for env_id, size in ids.items():
        spec = get_spec(env_id)
        assert spec.usage == "eval-only" and spec.held_out and spec.size == size
        assert gym.make(env_id).unwrapped.size == size


def test_gold_answer_is_judged_correct(items):
    from tomgym.answers import judge_choice, judge_text

    for it in items:
        if it.answer_type == "text":
            assert judge_text(it.answer, it.answer, it.candidates).correct, it.id
        elif it.answer_type == "choice":
            assert judge_choice(it.answer, it.answer, it.candidates).correct, it.id


def test_fine_location_candidates_read_as_distinct_places_and_pass_the_checks(items):
    """`tomgym check` over all of -FineLoc failed on 10 items: one listed 'a new hiding spot'
    beside its gold 'new hiding spot' (the same place as read), and quoted golds
    ('"Non-Brooklyn container"') defeated the gold-inside-a-word trick."""
    from tomgym.answers import phrase_of
    from tomgym.checks import adversarial_responses
    from tomgym.rewards import score_response

    fine = [it for it in items if it.question_type.startswith("location_fg")] or [
        it for it in items if it.answer_type == "text" and it.candidates
    ]
    assert len(fine) > 3000
    for item in fine:
        assert len({phrase_of(c) for c in item.candidates}) == len(item.candidates), item.id
    hiding = next(it for it in fine if it.answer == "new hiding spot")
    assert "a new hiding spot" not in hiding.candidates
    quoted = next(it for it in fine if it.answer.startswith('"'))
    for trick, response in adversarial_responses(quoted).items():
        assert not score_response(response, quoted).correct, trick


def test_a_household_synonym_names_the_fine_location(items):
    """ "the fridge" for "the refrigerator" and "the trashcan" or "the trash" for "the trash
    can" were wrong: 264 of the 3,576 fine-location golds are a refrigerator or a fridge, 304
    a trash or garbage can or bin. Each is named by its synonyms now, and still not beside the
    other candidate."""
    import re

    from tomgym.rewards import judge_answer

    swaps = {
        "refrigerator": "fridge",
        "fridge": "refrigerator",
        "trash can": "trashcan",
        "trash bin": "trash",
        "garbage bin": "trash can",
        "garbage can": "trash can",
    }
    judged = 0
    for it in items:
        if not (it.answer_type == "text" and it.candidates):
            continue
        for said, other in swaps.items():
            if re.search(rf"\b{said}\b", it.answer.lower()):
                answer = re.sub(rf"\b{said}\b", other, it.answer.lower())
                assert judge_answer(answer, it)[0], (it.id, answer)
                rival = next(c for c in it.candidates if c != it.answer)
                assert not judge_answer(f"{answer} or {rival}", it)[0], (it.id, answer)
                judged += 1
    assert judged > 500


def test_no_trick_passes_on_a_fine_location_with_a_household_synonym(items):
    """`tomgym check ToM-OpenToM-FineLoc-v0` failed on item 4 (and 31 of the first 300): its
    gold-inside-a-word trick glued "the trash can" with underscores, which the judge reads as
    spaces, so "xthe_trash_canx" held the word "trash", a synonym the judge rightly credits.
    The trick glues the gold's letters into one word now, and every trick fails on these
    items."""
    from tomgym.checks import adversarial_responses

    synonyms = ("trash", "garbage", "fridge", "refrigerator")
    household = [
        it
        for it in items
        if it.answer_type == "text" and it.candidates and any(w in it.answer for w in synonyms)
    ][:60]
    assert len(household) == 60
    for item in household:
        for trick, response in adversarial_responses(item).items():
            assert not score_response(response, item).correct, (item.id, trick, response)


def test_closed_labels_said_another_way_are_credited_for_their_label_only(items):
    """Red team C: "It stays the same" and "neither more nor less full" for "equally full",
    "fuller" for "more full", "neither positive nor negative" for "neutral" were refused on
    every such item (0/162), though the question lists the labels and a person would accept
    them; each is wrong on the items of the other labels."""
    said = {
        "equally full": ["It stays the same.", "No change", "neither more nor less full"],
        "more full": ["It is fuller now."],
        "less full": ["It is emptier now."],
        "equally accessible": ["It stays the same.", "neither more nor less accessible"],
        "more accessible": ["It is easier to reach now."],
        "less accessible": ["It is harder to reach now."],
        "neutral": ["neither positive nor negative"],
    }
    paid: Counter[str] = Counter()
    for it in items:
        for label, answers in said.items():
            if label not in it.candidates:
                continue
            for answer in answers:
                correct = score_response(f"<answer>{answer}</answer>", it).correct
                assert correct == (it.answer == label), (it.id, it.answer, answer)
                paid[label] += correct
    assert set(paid) == set(said), paid


def test_the_other_drawer_names_another_drawer_not_the_drawer(items):
    """Reward red team: with the candidates "another drawer" and "drawer", "the other drawer"
    and "a different drawer" were paid as "drawer" (a word before the gold), though the story's
    "another drawer" is the other candidate."""
    from tomgym.rewards import judge_answer

    nested = [it for it in items if set(it.candidates) == {"another drawer", "drawer"}]
    assert len(nested) >= 4
    for item in nested:
        for said in ("the other drawer", "a different drawer", "another drawer"):
            assert judge_answer(said, item)[0] is (item.answer == "another drawer"), item.id
        assert judge_answer("the drawer", item)[0] is (item.answer == "drawer"), item.id
