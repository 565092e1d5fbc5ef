"""The vLLM agent: a clear message without vLLM, the prompt path shared with hf.py."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest
from tomgym.agents import chat, hf, vllm
from tomgym.agents.base import Episode, make_agent


def test_missing_vllm_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(ImportError, match=r"pip install 'tomgym\[vllm\]'"):
        make_agent("vllm:HuggingFaceTB/SmolLM2-135M-Instruct")


def test_prompts_are_built_by_the_helpers_hf_uses() -> None:
    assert vllm.chat_prompt is hf.chat_prompt is chat.chat_prompt
    assert vllm.prompt_token_ids is hf.prompt_token_ids is chat.prompt_token_ids
    assert vllm.Sampling is hf.Sampling


class FakeTokenizer:
    def apply_chat_template(self, messages: list[dict[str, str]], **kwargs: Any) -> str:
        assert kwargs == {"tokenize": False, "add_generation_prompt": True}
        return "".join(f"[{m['role']}]{m['content']}" for m in messages) + "[assistant]"

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict[str, list[int]]:
        assert add_special_tokens is False
        return {"input_ids": [ord(c) for c in text]}


def test_act_with_a_stand_in_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine calls and the bookkeeping, with a stand-in for the vllm module."""
    calls: dict[str, Any] = {}

    class LLM:
        def __init__(self, **kwargs: Any) -> None:
            calls["engine"] = kwargs

        def get_tokenizer(self) -> FakeTokenizer:
            return FakeTokenizer()

        def generate(self, prompts: list[dict[str, Any]], params: Any, use_tqdm: bool) -> list:
            calls["prompts"], calls["params"] = prompts, params
            done = types.SimpleNamespace(text=" ok", token_ids=[1, 2], finish_reason="stop")
            return [types.SimpleNamespace(outputs=[done]) for _ in prompts]

    fake = types.ModuleType("vllm")
    fake.LLM = LLM  # type: ignore[attr-defined]
    fake.SamplingParams = lambda **kw: kw  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fake)
    agent = make_agent("vllm:some/model", max_new_tokens=9, seed=5, dtype="bfloat16")
    messages = [{"role": "user", "content": "Q"}]
    episode = Episode(env_id="x", item_id="1", prompt="Q", messages=messages, prefill="<think>")
    (response,) = agent.act([episode])
    expected = "[user]Q[assistant]<think>"
    assert calls["prompts"] == [{"prompt_token_ids": [ord(c) for c in expected]}]
    assert calls["params"] == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 9, "seed": None}
    assert calls["engine"] == {"model": "some/model", "seed": 5, "dtype": "bfloat16"}
    assert (response.text, response.prompt_tokens, response.completion_tokens) == (
        " ok", len(expected), 2)
    assert agent.describe()["engine"] == {"dtype": "bfloat16"}
