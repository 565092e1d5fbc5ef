"""The oracle: the simulator's answers score 100% on generated Hi-ToM; gold elsewhere, labelled."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tomgym.agents.base import Episode, make_agent
from tomgym.agents.chat import episode_from_env

import tomgym


@pytest.mark.parametrize("env_id", ["ToM-HiToM-v0", "ToM-HiToM-O4-v0"])
def test_oracle_is_perfect_on_generated_hitom(env_id: str) -> None:
    env = tomgym.make(env_id)
    oracle = make_agent("oracle")
    assert oracle.privileged is True
    for i in range(50):
        _, info = env.reset(options={"index": i})
        (response,) = oracle.act([episode_from_env(env, info)])  # no gold given
        assert response.extra["source"] == "simulator"
        _, reward, _, _, result = env.step(response.text)
        assert result["correct"] and result["format_ok"], (i, response.text, result)


def test_oracle_explains_nested_beliefs() -> None:
    env = tomgym.make("ToM-HiToM-O3-v0")
    _, info = env.reset(options={"index": 0})
    (response,) = make_agent("oracle").act([episode_from_env(env, info)])
    think = response.text.split("</think>")[0]
    assert think.count(" thinks ") >= 3 + 2 + 1


@pytest.fixture
def custom_env() -> Iterator[str]:
    env_id = "Test-Agents-Oracle-v0"
    items = [
        {
            "id": "a",
            "story": "Mia hid the key.",
            "question": "Who hid the key?",
            "answer": "Mia",
            "candidates": ("Mia", "Tom"),
            "answer_type": "choice",
        },
        {
            "id": "b",
            "story": "Mia and Tom met.",
            "question": "Who met?",
            "answer": ["Mia", "Tom"],
            "answer_type": "names",
        },
    ]
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    yield env_id
    tomgym.unregister_tom_env(env_id)


def test_oracle_falls_back_to_gold_with_a_label(custom_env: str) -> None:
    env = tomgym.make(custom_env)
    oracle = make_agent("oracle")
    for i in range(2):
        _, info = env.reset(options={"index": i})
        (response,) = oracle.act([episode_from_env(env, info, with_gold=True)])
        assert response.extra == {"source": "gold"}
        assert env.step(response.text)[4]["correct"]


def test_oracle_without_simulator_or_gold_fails_cleanly() -> None:
    episode = Episode(env_id="x", item_id="x", prompt="", messages=[], story="s", question="q")
    (response,) = make_agent("oracle").act([episode])
    assert response.failed and response.text == "" and response.error


def test_oracle_on_an_unparsable_hitom_story_uses_gold() -> None:
    episode = Episode(
        env_id="x",
        item_id="x",
        prompt="",
        messages=[],
        story="Something odd happened.",
        question="Where is the ball really?",
        family="hitom",
        gold="box",
    )
    (response,) = make_agent("oracle").act([episode])
    assert response.extra["source"] == "gold" and "simulator_error" in response.extra
    assert response.text.endswith("<answer>box</answer>")


def test_oracle_answers_tomi_stories() -> None:
    story = (
        "1 Anne entered the kitchen.\n2 Ben entered the kitchen.\n3 The ball is in the box.\n"
        "4 Anne exited the kitchen.\n5 Ben moved the ball to the basket."
    )
    episode = Episode(
        env_id="x",
        item_id="x",
        prompt="",
        messages=[],
        story=story,
        question="Where will Anne look for the ball?",
        family="tomi",
    )
    (response,) = make_agent("oracle").act([episode])
    assert response.extra["source"] == "simulator"
    assert response.text.endswith("<answer>box</answer>")


def test_the_tomi_oracle_states_the_belief_chain_the_trace_judge_needs() -> None:
    """Review: the ToMi oracle's reasoning was one line ("Replaying the story... gives the
    box"), so the reference agent's trace coverage on ToMi was 60%: the figure a model's is
    read against must show every needed chain stated rightly."""
    from tomgym.trace import trace_fidelity

    env = tomgym.make("ToM-ToMi-v0")
    oracle = make_agent("oracle")
    traced = 0
    for i in range(40):
        _, info = env.reset(options={"index": i})
        (response,) = oracle.act([episode_from_env(env, info)])
        item = env.unwrapped.current_item
        think = response.text.split("</think>")[0]
        score = trace_fidelity(item.story, item.question, think, "tomi", item.candidates)
        assert score.wrong == 0 and score.right == score.needed, (i, think)
        traced += score.needed > 0
        if item.question.startswith("Where does "):  # reality; Y thinks; X thinks Y thinks
            assert think.count(" thinks ") == 1 + 2, think
    assert traced >= 20  # memory questions state where it was, which no chain needs
