"""Shared agent helpers: sampling validation for every agent, the prefill, per-item seeds."""

from __future__ import annotations

from pathlib import Path

import pytest
from tomgym.agents.base import Episode, make_agent
from tomgym.agents.chat import Sampling, episode_from_env, item_seed, tagged

import tomgym
from tomgym.answers import parse_response


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0])
@pytest.mark.parametrize("spec", ["oracle", "random", "heuristic:first", "smollm2", "hf:x/y"])
def test_every_agent_rejects_a_bad_temperature_before_loading(spec: str, value: float) -> None:
    with pytest.raises(ValueError, match="temperature must be a finite number >= 0"):
        make_agent(spec, temperature=value)


def test_sampling_accepts_greedy_and_finite_temperatures() -> None:
    assert Sampling.from_options({"temperature": 0}).greedy
    assert Sampling.from_options({"temperature": 0.7, "batch_size": 12}).batch_size == 12
    with pytest.raises(ValueError, match="top_p"):
        Sampling.from_options({"top_p": float("nan")})


def test_tagged_continues_after_the_prefill() -> None:
    assert tagged("t", "a") == "<think>t</think><answer>a</answer>"
    continued = tagged("t", "a", "<think>\n")
    assert continued == "t</think><answer>a</answer>"
    assert parse_response(continued, "<think>\n").format_ok


def test_item_seed_depends_on_the_seed_and_the_item_only() -> None:
    def ep(env_id: str, item_id: str) -> Episode:
        return Episode(env_id=env_id, item_id=item_id, prompt="same", messages=[])

    assert item_seed(0, ep("E", "1")) == item_seed(0, ep("E", "1"))
    seeds = {item_seed(s, ep(e, i)) for s in (0, 1) for e in ("E", "F") for i in ("1", "2")}
    assert len(seeds) == 8 and all(0 <= s < 2**31 for s in seeds)


@pytest.mark.parametrize("spec", ["oracle", "heuristic:reality", "random"])
def test_rule_agents_honour_prefill_think(spec: str) -> None:
    """With prefill_think the env scores prefill + response: one <think>, format and the full
    tomrl reward (3.0 for a right answer)."""
    env = tomgym.make("ToM-HiToM-O0-v0", prefill_think=True, reward="tomrl")
    agent = make_agent(spec)
    for index in range(3):
        _, info = env.reset(options={"index": index})
        assert info["prefill"] == "<think>\n"
        (response,) = agent.act([episode_from_env(env, info)])
        _, reward, _, _, result = env.step(response.text)
        assert result["format_ok"], response.text
        if spec != "random":
            assert result["correct"] and reward == 3.0


def test_a_hub_model_that_cannot_be_fetched_or_found_is_one_quick_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """User audit: hf:Qwen/Qwen2.5-0.5B-Instruct with no network retried for 48 s, then
    ended on the hub client's "couldn't connect", naming neither the model nor a fix."""
    from tomgym.agents.chat import hub_revision

    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    with pytest.raises(FileNotFoundError, match=r"org/model is not a local directory and not in "
                       r"the hub cache .*http://127.0.0.1:9 cannot be reached"):  # fmt: skip
        hub_revision("hf:org/model", "hub", None)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="HF_HUB_OFFLINE is set"):
        hub_revision("vllm:org/model", "hub", None)
    commit = "a" * 40  # a model the cache holds is loaded from it
    snapshot = tmp_path / "hub" / "models--org--model" / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (tmp_path / "hub" / "models--org--model" / "refs").mkdir()
    (tmp_path / "hub" / "models--org--model" / "refs" / "main").write_text(commit)
    hub_revision("hf:org/model", "hub", None)  # no error
