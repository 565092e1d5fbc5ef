"""reward_func as OpenRLHF loads and calls it: one query at a time, in a thread, never raising."""

from __future__ import annotations

import asyncio
import json

import pytest

torch = pytest.importorskip("torch")
agent_utils = pytest.importorskip("openrlhf.utils.agent")

import tomgym  # noqa: E402
from tomgym.train import openrlhf_reward  # noqa: E402
from tomgym.train.labels import encode_label  # noqa: E402
from tomgym.train.openrlhf_reward import response_from_query, strip_end_tokens  # noqa: E402

PROMPT = "<|im_start|>user\nWhere is the ball?<|im_end|>\n<|im_start|>assistant\n"


def label_and_gold(reward: str = "rlvr") -> tuple[str, str]:
    label = encode_label("ToM-HiToM-v0", 1, split="train", reward=reward)
    env = tomgym.make("ToM-HiToM-v0", split="train")
    env.reset(options={"index": 1})
    assert env.current_item is not None
    return label, env.current_item.gold_text


def openrlhf_reward_func():  # type: ignore[no-untyped-def]
    """The function exactly as OpenRLHF's SingleTurnAgentExecutor loads it from the file."""
    return agent_utils.SingleTurnAgentExecutor(remote_rm_url=openrlhf_reward.__file__).reward_func


def test_strip_end_tokens_and_prompt() -> None:
    assert strip_end_tokens("<answer>a</answer><|im_end|>\n<|endoftext|>") == "<answer>a</answer>"
    assert strip_end_tokens("x</s>") == "x" and strip_end_tokens("y<|eot_id|>") == "y"
    assert response_from_query(PROMPT + "hi<|im_end|>", PROMPT) == "hi"
    # a prompt that does not round-trip exactly: cut at the assistant marker
    assert response_from_query(PROMPT + "hi<|im_end|>", "other text") == "hi"
    deepseek = "<\uff5cUser\uff5c>Where?<\uff5cAssistant\uff5c>"
    assert response_from_query(deepseek + "hi", "other") == "hi"
    assert response_from_query("<|user|>\nWhere?<|end|>\n<|assistant|>\nhi<|end|>", "x") == "hi"


def test_a_query_whose_response_cannot_be_found_is_an_error_not_a_zero() -> None:
    """Without the prompt as prefix or a known marker the whole query was scored: the
    system prompt's example tags read as several answers, reward 0 and error 0."""
    label, gold = label_and_gold()
    query = "User: Where? <answer> your answer </answer> Bot: " + f"<answer>{gold}</answer>"
    with pytest.raises(openrlhf_reward.UnknownPromptError):
        response_from_query(query, "User: Where?  <answer> your answer </answer> Bot:")
    out = openrlhf_reward.reward_func([query], ["no prefix"], [label])
    assert out["extra_logs"]["error"].tolist() == [1.0]


@pytest.mark.parametrize("reward", ["rlvr", "tomrl"])
def test_rewards_scores_and_logs(reward: str) -> None:
    label, gold = label_and_gold(reward)
    responses = [
        f"<think>she left</think><answer>{gold}</answer><|im_end|>",
        "<think>hmm</think><answer>the moon</answer><|im_end|>",
        f"It is {gold}.<|im_end|>",
    ]
    out = openrlhf_reward_func()([PROMPT + r for r in responses], [PROMPT] * 3, [label] * 3)
    expected = {"rlvr": [1.1, 0.1, 0.0], "tomrl": [3.0, -1.0, -3.0]}[reward]
    assert out["rewards"].dtype == torch.float and out["rewards"].shape == (3,)
    assert out["rewards"].tolist() == pytest.approx(expected)
    assert out["scores"].tolist() == [1.0, 0.0, 0.0]
    assert out["extra_logs"]["format"].tolist() == [1.0, 1.0, 0.0]
    assert out["extra_logs"]["error"].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "bad",
    ["{not json", "", None, 17, json.dumps({"env_id": "ToM-Nope-v0", "index": 0, "kwargs": {}})],
)
def test_malformed_labels_score_the_minimum_and_never_raise(bad: object) -> None:
    out = openrlhf_reward.reward_func([PROMPT + "<answer>x</answer>"], [PROMPT], [bad])
    assert out["rewards"].tolist() == [0.0] and out["scores"].tolist() == [0.0]
    assert out["extra_logs"]["error"].tolist() == [1.0]


def test_tomrl_minimum_when_the_label_names_the_reward() -> None:
    bad = json.dumps({"env_id": "ToM-HiToM-v0", "index": -1, "kwargs": {"reward": "tomrl"}})
    out = openrlhf_reward.reward_func([PROMPT + "x"], [PROMPT], [bad])
    assert out["rewards"].tolist() == [-3.0]


def test_mismatched_lengths_and_odd_queries() -> None:
    label, _ = label_and_gold()
    out = openrlhf_reward.reward_func([PROMPT + "x", None], [PROMPT], [label])  # type: ignore[list-item]
    assert out["rewards"].shape == (2,) and out["extra_logs"]["error"].tolist() == [0.0, 1.0]


def test_called_like_openrlhf_in_a_thread() -> None:
    label, gold = label_and_gold()
    executor = agent_utils.SingleTurnAgentExecutor(remote_rm_url=openrlhf_reward.__file__)
    query = PROMPT + f"<think>t</think><answer>{gold}</answer><|im_end|>"
    (info,) = asyncio.run(executor._fetch_rewards_via_func([query], [PROMPT], [label]))
    assert info["rewards"].tolist() == pytest.approx([1.1])


def test_prefill_label_needs_the_prefill_in_the_prompt() -> None:
    # On the reward-file path the prompt is OpenRLHF's chat template, without the env's prefill:
    # scoring prefill + response would fail every correctly tagged response, so it is refused.
    label = encode_label("ToM-HiToM-v0", 1, split="train", prefill_think=True)
    _, gold = label_and_gold()
    response = f"<think>t</think><answer>{gold}</answer><|im_end|>"
    out = openrlhf_reward.reward_func([PROMPT + response], [PROMPT], [label])
    assert out["extra_logs"]["error"].tolist() == [1.0] and out["rewards"].tolist() == [0.0]
    # with the prefill at the end of the prompt (what the agent path does) it scores in full
    prompt = PROMPT + "<think>\n"
    out = openrlhf_reward.reward_func([prompt + response[len("<think>") :]], [prompt], [label])
    assert out["rewards"].tolist() == pytest.approx([1.1])
