"""Trace fidelity: the claim parser on hand-written traces and on the oracle's own reasoning."""

from __future__ import annotations

import pytest

import tomgym
from tomgym.rewards import RewardSpec, score_response
from tomgym.trace import parse_claims, trace_fidelity
from tomgym.world.solve import explain_hitom, hitom_world, solve_hitom

STORY = """1 Anna, Ben and Carl entered the kitchen.
2 The apple is in the green_box.
3 Anna exited the kitchen.
4 Ben moved the apple to the red_bag.
5 Ben exited the kitchen.
6 Carl moved the apple to the blue_tub.
7 Carl exited the kitchen.
8 Anna, Ben and Carl entered the waiting_room."""
QUESTION = "Where does Anna think Ben thinks the apple is?"


def test_parser_reads_the_claim_forms() -> None:
    world = hitom_world(STORY)
    text = (
        "Ben thinks the apple is in the red_bag. Carl believes Ben thinks that the apple is in "
        "the red bag! The apple is now in the blue_tub. Anna would look for the apple in the "
        "green_box; Ben moved the apple to the red_bag. Anna does not think the apple is in "
        "the red_bag. The apple was in the green_box at first."
    )
    claims = [(c.agents, c.obj, c.container) for c in parse_claims(text, world)]
    assert claims == [
        (("Ben",), "apple", "red_bag"),
        (("Carl", "Ben"), "apple", "red_bag"),
        ((), "apple", "blue_tub"),
        (("Anna",), "apple", "green_box"),
    ]


def test_judged_right_wrong_and_irrelevant() -> None:
    think = (
        "The apple is in the blue_tub. Ben thinks the apple is in the blue_tub. "
        "Anna thinks Ben thinks the apple is in the green_box. Carl thinks the apple is in "
        "the blue_tub."
    )
    score = trace_fidelity(STORY, QUESTION, think, "hitom")
    assert (score.right, score.wrong, score.irrelevant) == (2, 1, 1)
    assert score.fidelity == pytest.approx(2 / 3)
    assert [v for _, v in score.claims] == ["right", "wrong", "right", "irrelevant"]


def test_no_claims_scores_nothing() -> None:
    score = trace_fidelity(STORY, QUESTION, "I am not sure about any of this.", "hitom")
    assert score.n_claims == 0 and score.fidelity is None and score.reward == 0.0


@pytest.mark.parametrize(
    "env_id", ["ToM-HiToM-v0", "ToM-HiToM-O4-v0", "ToM-HiToM-O2-Paraphrase-v0"]
)
def test_oracle_reasoning_scores_perfectly(env_id: str) -> None:
    for item in tomgym.load_items(env_id, 40):
        lines = explain_hitom(item.story, item.question)
        score = trace_fidelity(item.story, item.question, " ".join(lines), "hitom")
        assert score.right == len(lines) and score.wrong == 0 and score.irrelevant == 0


def test_tomi_claims() -> None:
    for item in tomgym.load_items("ToM-ToMi-v0", 30):
        if item.question_type == "memory":
            continue
        agents = item.metadata["question_agents"]
        verb = "would look for the {o} in the {c}" if agents else "the {o} is in the {c}"
        prefix = "".join(f"{a} thinks " for a in agents[:-1]) + (agents[-1] + " " if agents else "")
        think = prefix + verb.format(o=item.metadata["object"], c=item.answer) + "."
        assert trace_fidelity(item.story, item.question, think, "tomi").right == 1, think


def test_trace_weight_adds_a_reward_part() -> None:
    item = tomgym.load_items("ToM-HiToM-O2-v0", 1)[0]
    lines = " ".join(explain_hitom(item.story, item.question))
    response = f"<think>{lines}</think><answer>{solve_hitom(item.story, item.question)}</answer>"
    plain = score_response(response, item, "rlvr")
    assert "trace" not in plain.parts
    spec = RewardSpec(trace_weight=0.5)
    traced = score_response(response, item, spec)
    assert traced.parts["trace"] == 0.5 and traced.reward == spec.max_reward
    bad = response.replace(lines, "The apple is somewhere.")
    assert score_response(bad, item, spec).parts["trace"] == 0.0
    env = tomgym.make("ToM-HiToM-O2-v0", reward={"trace_weight": 0.5})
    env.reset(options={"index": 0})
    _, reward, *_, info = env.step(response)
    assert info["reward_parts"]["trace"] == 0.5 and reward == pytest.approx(1.6)


def test_where_the_object_is_now_earns_no_trace_reward_on_its_own() -> None:
    """The red-team's exploit: one true, easy sentence about reality was a full trace part."""
    score = trace_fidelity(STORY, QUESTION, "The apple is now in the blue_tub.", "hitom")
    assert (score.right, score.wrong) == (1, 0) and score.reward == 0.0


def test_the_trace_reward_is_the_share_of_the_needed_chains_stated_rightly() -> None:
    full = "Anna thinks Ben thinks the apple is in the green_box."
    assert trace_fidelity(STORY, QUESTION, full, "hitom").reward == pytest.approx(1 / 3)
    more = full + " The apple is now in the blue_tub."
    assert trace_fidelity(STORY, QUESTION, more, "hitom").reward == pytest.approx(2 / 3)
    complete = more + " Ben thinks the apple is in the red_bag."
    assert trace_fidelity(STORY, QUESTION, complete, "hitom").reward == 1.0


def test_repeats_count_once_and_contradictions_are_wrong() -> None:
    padded = "Anna thinks Ben thinks the apple is in the red_bag. " + (
        "The apple is now in the blue_tub. " * 9
    )
    score = trace_fidelity(STORY, QUESTION, padded, "hitom")
    assert (score.right, score.wrong, score.reward) == (1, 1, 0.0)
    every = " ".join(
        f"{who}the apple is in the {c}."
        for who in ("", "Ben thinks ", "Anna thinks Ben thinks ")
        for c in ("green_box", "red_bag", "blue_tub")
    )
    score = trace_fidelity(STORY, QUESTION, every, "hitom")
    assert (score.right, score.wrong, score.reward) == (0, 3, 0.0)


def test_tomi_memory_questions_are_not_judged_on_the_present() -> None:
    """ "Where was the O at the beginning?": a claim about now is neither right nor wrong."""
    item = next(i for i in tomgym.load_items("ToM-ToMi-v0", 60) if i.question_type == "memory")
    think = f"The {item.metadata['object']} is in the {item.answer}."
    score = trace_fidelity(item.story, item.question, think, "tomi")
    assert score.relevant == 0 and score.fidelity is None and score.reward == 0.0


@pytest.mark.parametrize("made_up", ["blue_box", "moon", "cupboard"])
def test_a_second_container_the_story_never_uses_still_contradicts_the_chain(
    made_up: str,
) -> None:
    """A second answer for the question's chain in a container outside the story was not
    read as a claim, so the chain's right claim was paid in full (found by a reviewer gaming
    the trace reward)."""
    right = (
        "The apple is in the blue_tub. Ben thinks the apple is in the red_bag. "
        "Anna thinks Ben thinks the apple is in the green_box."
    )
    assert trace_fidelity(STORY, QUESTION, right, "hitom").reward == 1.0
    hedged = right + f" Anna thinks Ben thinks the apple is in the {made_up}."
    score = trace_fidelity(STORY, QUESTION, hedged, "hitom", candidates=("blue_box", "red_bag"))
    assert (score.right, score.wrong, score.reward) == (2, 1, 0.0)
    rooms = right + " Anna thinks Ben thinks the apple is still in the kitchen."
    assert trace_fidelity(STORY, QUESTION, rooms, "hitom").reward == 1.0  # a room: no claim
    vague = right + " Anna thinks the apple is in the same place."
    assert trace_fidelity(STORY, QUESTION, vague, "hitom").reward == 1.0


def test_guessed_chains_cost_what_right_ones_earn() -> None:
    """The answer's container stated for every chain earned 60-90% of the trace part (inner
    chains often hold the answer's container); a wrong chain now cancels a right one."""
    guess = (
        "Anna thinks Ben thinks the apple is in the green_box. Ben thinks the apple is in the "
        "green_box. The apple is now in the green_box."
    )
    score = trace_fidelity(STORY, QUESTION, guess, "hitom")
    assert (score.right, score.wrong) == (1, 2) and score.reward == 0.0
    one_slip = (
        "Anna thinks Ben thinks the apple is in the green_box. Ben thinks the apple is in the "
        "red_bag. The apple is now in the green_box."
    )
    score = trace_fidelity(STORY, QUESTION, one_slip, "hitom")
    assert (score.right, score.wrong) == (2, 1) and score.reward == pytest.approx(1 / 3)
