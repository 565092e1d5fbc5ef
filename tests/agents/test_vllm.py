"""The vLLM agent: a clear message without vLLM, the prompt path shared with hf.py, and (slow, in
the .venv-vllm that scripts/setup_vllm.sh makes) greedy texts identical to the transformers
agent's on real Hi-ToM prompts."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from tomgym.agents import chat, hf, vllm
from tomgym.agents.base import Episode, make_agent
from tomgym.agents.chat import item_seed

import tomgym


def test_missing_vllm_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(ImportError, match=r"pip install 'tomgym\[vllm\]'.*setup_vllm\.sh"):
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

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        assert skip_special_tokens is True
        return "".join(chr(i) for i in ids if i)  # 0 stands for a special token


def fake_vllm(monkeypatch: pytest.MonkeyPatch, calls: dict[str, Any]) -> None:
    """A stand-in for the vllm module that records the engine calls."""

    class LLM:
        def __init__(self, **kwargs: Any) -> None:
            calls["engine"] = kwargs

        def get_tokenizer(self) -> FakeTokenizer:
            return FakeTokenizer()

        def generate(self, prompts: list[dict[str, Any]], params: Any, use_tqdm: bool) -> list:
            calls["prompts"], calls["params"] = prompts, params
            ids = [ord(" "), ord("o"), ord("k"), 0]
            done = types.SimpleNamespace(
                text="vLLM's own text", token_ids=ids, finish_reason="stop"
            )
            return [types.SimpleNamespace(outputs=[done]) for _ in prompts]

    fake = types.ModuleType("vllm")
    fake.LLM = LLM  # type: ignore[attr-defined]
    fake.SamplingParams = lambda **kw: kw  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fake)
    monkeypatch.setattr(vllm, "on_cpu", lambda: False)  # not the real platform if imported
    # the engine is a stand-in that fetches nothing: whether the hub is reachable is not asked
    monkeypatch.setattr(chat, "check_hub_reachable", lambda *_: None)


def test_act_with_a_stand_in_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine calls and the bookkeeping, with a stand-in for the vllm module."""
    calls: dict[str, Any] = {}
    fake_vllm(monkeypatch, calls)
    agent = make_agent("vllm:some/model", max_new_tokens=9, seed=5, dtype="bfloat16")
    messages = [{"role": "user", "content": "Q"}]
    episode = Episode(env_id="x", item_id="1", prompt="Q", messages=messages, prefill="<think>")
    (response,) = agent.act([episode])
    expected = "[user]Q[assistant]<think>"
    assert calls["prompts"] == [{"prompt_token_ids": [ord(c) for c in expected]}]
    assert calls["params"] == {"temperature": 0.0, "top_p": 1.0, "max_tokens": 9, "seed": None}
    assert calls["engine"] == {"model": "some/model", "seed": 5, "dtype": "bfloat16"}
    # The text is the tokenizer's decode of the token ids, special tokens dropped, as in hf.py.
    assert (response.text, response.prompt_tokens, response.completion_tokens) == (
        " ok",
        len(expected),
        4,
    )
    assert agent.describe()["engine"] == {"dtype": "bfloat16"}
    assert isinstance(agent, vllm.VLLMAgent)
    agent.close()
    assert agent.llm is None


def test_sampling_seeds_each_request(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: dict[str, Any] = {}
    fake_vllm(monkeypatch, calls)
    agent = make_agent("vllm:some/model", temperature=0.7, top_p=0.9, seed=3)
    first, second = (Episode(env_id="x", item_id=i, prompt="Q", messages=[]) for i in "12")
    agent.act([first, second])
    seeds = [p["seed"] for p in calls["params"]]
    assert seeds == [item_seed(3, first), item_seed(3, second)] and seeds[0] != seeds[1]
    assert {p["temperature"] for p in calls["params"]} == {0.7}
    # A later batch (or a resumed run) seeds an item as before, not from the batch position.
    agent.act([second])
    assert [p["seed"] for p in calls["params"]] == [seeds[1]]


def test_smollm2_spec_serves_the_cached_safetensors(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: dict[str, Any] = {}
    fake_vllm(monkeypatch, calls)
    cached = Path("/cache/models") / hf.SMOLLM2_CACHE_NAME
    monkeypatch.setattr(hf, "smollm2_path", lambda: (cached, "cache"))
    agent = make_agent("vllm:smollm2")
    assert calls["engine"]["model"] == str(cached)
    assert agent.describe()["source"] == "cache"


def test_a_hub_model_is_pinned_to_the_commit_its_revision_points_to(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The engine loads weights and tokenizer at one commit, which the run records; the hub is
    a local cache in the hub's layout (offline), the engine a stand-in (no vLLM here)."""
    import huggingface_hub.constants

    calls: dict[str, Any] = {}
    fake_vllm(monkeypatch, calls)
    repo = tmp_path / "models--some--model"
    commit, other = "3" * 40, "4" * 40
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "config.json").write_text("{}")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    agent = make_agent("vllm:some/model")
    assert calls["engine"]["revision"] == calls["engine"]["tokenizer_revision"] == commit
    assert agent.describe()["revision"] == commit  # what a resumed run compares
    make_agent("vllm:some/model", revision=other)  # a commit is taken as it is
    assert calls["engine"]["revision"] == other
    with pytest.raises(ValueError, match="applies to a hub ID"):
        make_agent(f"vllm:{repo / 'snapshots' / commit}", revision="main")


def test_cpu_engine_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)
    assert vllm.engine_defaults({"max_new_tokens": 5}, cpu=False) == {}
    assert vllm.engine_defaults({"enforce_eager": True}, cpu=True) == {
        "enforce_eager": True,
        "dtype": "float32",
        "kv_cache_memory_bytes": 1 << 30,
    }
    assert vllm.engine_defaults({"dtype": "bfloat16"}, cpu=True)["dtype"] == "bfloat16"
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "2")
    assert vllm.engine_defaults({}, cpu=True) == {"dtype": "float32"}


# --- real vLLM (the community CPU build in .venv-vllm) against the transformers agent ---

MAX_NEW_TOKENS = 48


def hitom_episodes() -> list[Episode]:
    """8 generated Hi-ToM items: four plain, four with the ``<think>`` prefill."""
    episodes = []
    for prefill_think in (False, True):
        env = tomgym.make("ToM-HiToM-O1-v0", prefill_think=prefill_think)
        for index in range(4):
            _, info = env.reset(options={"index": index + 4 * prefill_think})
            episodes.append(chat.episode_from_env(env.unwrapped, info))
    return episodes


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("vllm") is None,
    reason="needs vLLM: scripts/setup_vllm.sh, then .venv-vllm/bin/python",
)
def test_greedy_texts_identical_to_transformers(request: pytest.FixtureRequest) -> None:
    """vLLM CPU (float32, its default torch.compile'd model) and transformers one prompt at a time
    (float32): same prompt token ids, same texts, same token counts, item by item."""
    expr = request.config.getoption("markexpr") or ""
    if "slow" not in expr or "not slow" in expr:
        pytest.skip("starting vLLM takes 1-3 minutes on two cores: run with -m slow")
    episodes = hitom_episodes()
    assert sum(e.prefill == "<think>\n" for e in episodes) == 4
    engine = make_agent("vllm:smollm2", max_new_tokens=MAX_NEW_TOKENS)
    assert isinstance(engine, vllm.VLLMAgent)
    try:
        assert Path(engine.model_path).name == hf.SMOLLM2_CACHE_NAME
        assert engine.describe()["engine"]["dtype"] == "float32"
        served = engine.act(episodes)
    finally:
        engine.close()  # its worker would compete with transformers for the two cores
    local = make_agent("smollm2", max_new_tokens=MAX_NEW_TOKENS, batch_size=1, num_threads=1)
    expected = local.act(episodes)
    for number, (mine, theirs) in enumerate(zip(served, expected, strict=True)):
        assert (mine.text, mine.completion_tokens, mine.prompt_tokens) == (
            theirs.text,
            theirs.completion_tokens,
            theirs.prompt_tokens,
        ), f"item {number}"
    assert all(r.text.strip() for r in served)
    assert any(r.completion_tokens == MAX_NEW_TOKENS for r in served)  # some run to the limit
    assert any(r.extra["finish_reason"] == "stop" for r in served)  # and some stop on EOS
