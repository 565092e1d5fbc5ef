"""ToMEnv behaviour through gym.make: reset/step contract, info, errors, seeding, vector envs."""

from __future__ import annotations

import copy
import subprocess
import sys

import gymnasium as gym
import pytest
from gymnasium.vector import AutoresetMode

import tomgym
from tomgym.env import EpisodeStateError, ToMEnv
from tomgym.rewards import gold_response


def test_the_readme_example() -> None:
    env = gym.make("ToM-HiToM-O4-v0")
    prompt, info = env.reset(seed=0)
    assert "Question: Where does" in prompt and prompt.count(" thinks ") >= 3
    assert info["order"] == 4 and len(info["candidates"]) == 15
    assert "gold" not in info and "answer" not in info
    item = env.unwrapped.current_item
    _, reward, terminated, truncated, info = env.step(
        f"<think>...</think><answer>{item.answer}</answer>"
    )
    assert (reward, terminated, truncated) == (pytest.approx(1.1), True, False)
    assert info["correct"] and info["format_ok"] and info["gold"] == item.answer
    assert info["reward_parts"] == {"format": pytest.approx(0.1), "answer": 1.0}


def test_reset_info_and_messages() -> None:
    env = tomgym.make("ToM-HiToM-O2-v0")
    prompt, info = env.reset(options={"index": 3})
    assert info["index"] == 3 and info["env_id"] == "ToM-HiToM-O2-v0" and info["split"] == "train"
    roles = [m["role"] for m in info["messages"]]
    assert roles == ["system", "user"]
    assert all(m["content"] in prompt for m in info["messages"])
    assert "<think>" in info["messages"][0]["content"]


def test_prefill_think_is_counted_by_the_format_rule() -> None:
    env = tomgym.make("ToM-HiToM-O1-v0", prefill_think=True)
    prompt, info = env.reset(options={"index": 0})
    assert prompt.endswith("<think>\n") and info["prefill"] == "<think>\n"
    item = env.current_item
    _, reward, *_ = env.step(f"reasoning</think><answer>{item.answer}</answer>")
    assert reward == pytest.approx(1.1)
    # A caller who puts the prefill in front (as the observation shows it) is not penalised.
    env.reset(options={"index": 0})
    _, reward, *_ = env.step(f"{info['prefill']}reasoning</think><answer>{item.answer}</answer>")
    assert reward == pytest.approx(1.1)


def test_step_errors_say_what_is_wrong() -> None:
    env = tomgym.make("ToM-HiToM-O0-v0")
    with pytest.raises(EpisodeStateError, match="before reset"):
        env.step("x")
    env.reset(seed=1)
    with pytest.raises(TypeError, match="must be the response text"):
        env.step(42)  # type: ignore[arg-type]
    env.step("whatever")
    with pytest.raises(EpisodeStateError, match="has ended"):
        env.step("again")


def test_reset_option_errors() -> None:
    env = tomgym.make("ToM-HiToM-O0-v0")
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"idx": 1})
    with pytest.raises(IndexError):
        env.reset(options={"index": -1})
    with pytest.raises(TypeError):
        env.reset(options={"index": "3"})


def test_bad_kwargs_are_named() -> None:
    with pytest.raises(TypeError, match="colour"):
        gym.make("ToM-HiToM-O0-v0", colour="red")
    with pytest.raises(ValueError, match="split"):
        gym.make("ToM-HiToM-O0-v0", split="dev")
    with pytest.raises(ValueError, match="unknown reward preset"):
        gym.make("ToM-HiToM-O0-v0", reward="bonus")


def test_seeded_reset_is_deterministic_and_splits_differ() -> None:
    a = tomgym.make("ToM-HiToM-v0").reset(seed=7)[0]
    b = tomgym.make("ToM-HiToM-v0").reset(seed=7)[0]
    assert a == b
    train = tomgym.load_items("ToM-HiToM-O2-v0", n=20)
    test = tomgym.load_items("ToM-HiToM-O2-v0", n=20, split="test")
    assert {i.story for i in train}.isdisjoint({i.story for i in test})


def test_item_i_is_the_same_in_a_fresh_process_whatever_came_before() -> None:
    code = (
        "import tomgym; env = tomgym.make('ToM-HiToM-v0', split='val');"
        "env.reset(options={'index': 999}); print(env.reset(options={'index': 12345})[0])"
    )
    fresh = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    ).stdout
    here = tomgym.make("ToM-HiToM-v0", split="val").reset(options={"index": 12345})[0]
    assert fresh.rstrip("\n") == here


def test_render_ansi() -> None:
    env = gym.make("ToM-HiToM-O1-v0", render_mode="ansi")
    env.reset(seed=0)
    env.step("<think>x</think><answer>nowhere</answer>")
    text = env.render()
    assert isinstance(text, str) and "verdict: no_candidate" in text


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_with_same_step_autoreset(mode: str) -> None:
    envs = gym.make_vec(
        "ToM-HiToM-O1-v0",
        num_envs=3,
        vectorization_mode=mode,
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    try:
        prompts, infos = envs.reset(seed=0)
        # the observations are the prompts (async ones came back as padding: Gymnasium read the
        # shared memory of a Text space once, when the vector env was built)
        assert list(prompts) == [prompt_of(m) for m in infos["messages"]]
        for _ in range(3):
            answers = ["<think>x</think><answer>nowhere</answer>"] * 3
            prompts, rewards, terminated, _, infos = envs.step(answers)
            assert all(terminated) and len(rewards) == 3
            assert list(infos["final_info"]["verdict"]) == ["no_candidate"] * 3
            assert "messages" in infos  # the next episodes are already reset
            assert list(prompts) == [prompt_of(m) for m in infos["messages"]]
            assert list(rewards) == [pytest.approx(0.1)] * 3
    finally:
        envs.close()


def prompt_of(messages: list[dict[str, str]]) -> str:
    return "\n\n".join(m["content"] for m in messages)


def test_a_space_pickles_small_and_copies_share_the_tables() -> None:
    import copy
    import pickle

    env = tomgym.make("ToM-HiToM-O1-v0")
    assert len(pickle.dumps(env)) < 20_000  # it was 2.2 MB: the character tables, twice
    space = env.observation_space
    again = pickle.loads(pickle.dumps(space))
    assert again.max_length == space.max_length and again.character_set == space.character_set
    assert copy.copy(space).character_set is space.character_set


def test_gold_response_earns_the_max_for_each_preset() -> None:
    for preset in tomgym.REWARD_PRESETS:
        env = tomgym.make("ToM-HiToM-O3-v0", reward=preset)
        env.reset(options={"index": 5})
        item = env.current_item
        _, reward, *_ = env.step(gold_response(item))
        assert reward == pytest.approx(env.reward_spec.max_reward)
    assert isinstance(env, ToMEnv)


def test_space_copies_share_the_character_tables() -> None:
    """Vector envs deep-copy every sub-env's spaces; the 60,000-character tables are shared,
    each copy gets its own generator, and the copy is the same space."""
    space = tomgym.make("ToM-ToMi-v0").observation_space
    space.seed(3)
    clone = copy.deepcopy(space)
    assert clone == space
    assert clone._char_index is space._char_index  # type: ignore[attr-defined]
    assert clone.np_random is not space.np_random
    assert clone.sample() == space.sample()  # same state copied, drawn independently


def test_numpy_integer_indices_are_served_as_ints() -> None:
    """Indices often come from np.random or a permutation: np.int64(3) is item 3."""
    import numpy as np

    env = tomgym.make("ToM-HiToM-O1-v0")
    _, info = env.reset(options={"index": np.int64(3)})
    assert info["index"] == 3 and type(info["index"]) is int
    with pytest.raises(TypeError, match="must be an int"):
        env.reset(options={"index": np.float64(3.0)})


def test_listed_candidates_do_not_keep_the_releases_order() -> None:
    """With list_candidates the ToMi release's order was shown: the gold second in about 69%
    of questions, a positional shortcut the prompt itself handed out."""
    from tomgym.prompts import listed_candidates

    items = tomgym.load_items("ToM-ToMi-Original-v0", 400)
    assert sum(it.candidates.index(it.gold_text) == 1 for it in items) > 0.6 * len(items)
    second = sum(listed_candidates(it).index(it.gold_text) == 1 for it in items)
    assert 0.4 * len(items) < second < 0.6 * len(items)
    assert all(sorted(listed_candidates(it)) == sorted(it.candidates) for it in items)


def test_reset_options_that_are_not_a_mapping_are_refused() -> None:
    """A list of pairs was read as a dict; a string failed inside dict()."""
    env = tomgym.make("ToM-HiToM-O1-v0")
    for options in ([("index", 1)], "index"):
        with pytest.raises(TypeError, match="reset options must be a dict"):
            env.reset(options=options)  # type: ignore[arg-type]


def test_listed_candidates_longer_than_the_allowance_fit_the_observation_space() -> None:
    """Red team: five long candidates with list_candidates made every reset raise ('the
    source's max_prompt_chars is wrong'): the space allowed a fixed 2,048 characters for them."""
    options = [f"Option {k}: she thinks it is still where she left it, " * 9 + str(k)
               for k in range(5)]  # fmt: skip
    item = {"id": "q1", "story": "Ann put the ball in the box.", "question": "What does Ann think?",
            "answer": options[0], "candidates": options}  # fmt: skip
    tomgym.register_tom_env("TestEnv-LongOptions-v0", items=[item])
    try:
        env = tomgym.make("TestEnv-LongOptions-v0", prompt={"list_candidates": True})
        observation, _ = env.reset(options={"index": 0})
        assert sum(map(len, options)) > 2_048 and options[3] in observation
        assert env.observation_space.contains(observation)
    finally:
        tomgym.unregister_tom_env("TestEnv-LongOptions-v0")


def test_a_spec_made_with_preset_objects_round_trips_through_json() -> None:
    """Last sessions' leftover: ``spec.to_json()`` raised TypeError for an env made with a
    ``PromptPreset`` or ``RewardSpec`` object; the spec now holds the dicts of their fields."""
    from gymnasium.envs.registration import EnvSpec

    from tomgym import PromptPreset
    from tomgym.rewards import RewardSpec

    prompt = PromptPreset(name="mine", system="Answer in one word.")
    reward = RewardSpec(name="mine", format_ok=0.5, correct=2.0)
    env = gym.make("ToM-HiToM-O1-v0", prompt=prompt, reward=reward)
    again = gym.make(EnvSpec.from_json(env.spec.to_json()))
    assert again.unwrapped.prompt_preset == prompt and again.unwrapped.reward_spec == reward
    assert again.reset(options={"index": 2})[0] == env.reset(options={"index": 2})[0]
    assert env.spec.kwargs["prompt"] == prompt.model_dump(mode="json")
    plain = gym.make("ToM-HiToM-O1-v0", prompt="cot")
    assert plain.spec.kwargs["prompt"] == "cot"


def test_a_spec_made_with_numpy_numbers_round_trips_through_json() -> None:
    """Red team: seed=np.int64(3) (indices and seeds often come from NumPy) was accepted, and
    then ``spec.to_json()`` raised "Object of type int64 is not JSON serializable"."""
    import numpy as np
    from gymnasium.envs.registration import EnvSpec

    kwargs = {"seed": np.int64(3), "orders": (np.int64(1), np.int64(2)), "length": np.int64(2),
              "noise": np.float32(0.25)}  # fmt: skip
    env = gym.make("ToM-HiToM-v0", **kwargs)
    again = gym.make(EnvSpec.from_json(env.spec.to_json()))
    assert again.reset(options={"index": 4})[0] == env.reset(options={"index": 4})[0]
    assert type(env.spec.kwargs["seed"]) is int and env.spec.kwargs["orders"] == (1, 2)


def test_editing_the_info_metadata_changes_no_later_reward(data_root: object) -> None:
    """Red team: info["metadata"] was a shallow copy of the cached release item's, so a logging
    step that cleared its candidate_aliases made every later ExploreToM env pay a hedge."""
    hedge = "<think>a</think><answer>knows about it, nobody knows</answer>"
    env = tomgym.make("ToM-ExploreToM-v0")
    env.reset(options={"index": 75})
    *_, info = env.step(hedge)
    assert info["verdict"] == "several_candidates" and info["metadata"]["candidate_aliases"]
    for value in info["metadata"].values():
        if isinstance(value, dict | list):
            value.clear()
    fresh = tomgym.make("ToM-ExploreToM-v0")
    fresh.reset(options={"index": 75})
    assert fresh.step(hedge)[4]["verdict"] == "several_candidates"
