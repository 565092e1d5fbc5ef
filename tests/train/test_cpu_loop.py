"""The one-machine REINFORCE++ loop: advantages, a known batch, and one real sampled step."""

from __future__ import annotations

import math

import pytest

from tests.train.helpers import tiny_llama
from tomgym.train.cpu_loop import LoopConfig, Trainer, whiten
from tomgym.train.labels import decode_label, env_for

pytest.importorskip("torch")


def test_whiten_batch_and_group() -> None:
    adv = whiten([1.0, 0.0, 1.0, 0.0])
    assert adv == pytest.approx([1.0, -1.0, 1.0, -1.0], abs=1e-6)
    assert whiten([0.1, 0.1, 0.1]) == [0.0, 0.0, 0.0]
    # group baseline: a group with equal rewards carries no signal
    grouped = whiten([1.0, 1.0, 1.1, 0.0], groups=[0, 0, 1, 1])
    assert grouped[:2] == pytest.approx([0.0, 0.0], abs=1e-6) and grouped[2] > 0 > grouped[3]
    with pytest.raises(ValueError):
        LoopConfig(baseline="mean")


CONFIG = {
    "env_id": "ToM-ToMi-v0",
    "env_kwargs": {},
    "prompts_per_step": 1,
    "samples_per_prompt": 2,
    "max_new_tokens": 16,
    "lr": 1e-3,
    "seed": 0,
    "device": "cpu",
}


@pytest.fixture(scope="module")
def trainer(tmp_path_factory: pytest.TempPathFactory) -> Trainer:
    """The loop on a tiny random Llama with SmolLM2's tokenizer: the mechanics in seconds."""
    import torch
    from tomgym.agents.chat import Sampling
    from tomgym.agents.hf import HFAgent

    torch.set_num_threads(2)
    path = tiny_llama(tmp_path_factory.mktemp("tiny-llama"))  # seeds torch with 0
    agent = HFAgent(spec=f"hf:{path}", model_path=str(path), sampling=Sampling(), device="cpu")
    return Trainer(LoopConfig(**CONFIG), agent=agent)  # type: ignore[arg-type]


def test_known_batch_updates_parameters_and_logs(trainer: Trainer) -> None:
    check_known_batch(trainer)


def check_known_batch(trainer: Trainer) -> None:
    import torch

    label = trainer._label(0)
    env = env_for(decode_label(label))
    env.reset(options={"index": 0})
    assert env.current_item is not None
    right = f"<think>ok</think><answer>{env.current_item.gold_text}</answer>"
    samples = [
        trainer.sample_from_text(label, right, 0),
        trainer.sample_from_text(label, "no idea", 0),
    ]
    before = [p.detach().clone() for p in trainer.model.parameters()]
    with torch.no_grad():
        good_before = trainer._token_logprobs(trainer.model, samples[:1])[0].sum().item()
    log = trainer.step(samples)
    assert math.isfinite(log.loss) and log.grad_norm > 0
    assert (log.mean_reward, log.format_rate, log.accuracy) == pytest.approx((0.55, 0.5, 0.5))
    tokens = [len(s.completion_ids) for s in samples]
    assert log.mean_response_tokens == sum(tokens) / 2
    changed = any(
        not torch.equal(a, b) for a, b in zip(before, trainer.model.parameters(), strict=False)
    )
    assert changed
    # the update moves probability towards the rewarded response
    with torch.no_grad():
        good_after = trainer._token_logprobs(trainer.model, samples[:1])[0].sum().item()
    assert good_after > good_before


def test_sampled_step_is_finite(trainer: Trainer) -> None:
    check_sampled_step(trainer)


def check_sampled_step(trainer: Trainer) -> None:
    log = trainer.step()
    assert math.isfinite(log.loss) and log.step == 1
    assert 1 <= log.mean_response_tokens <= 16
    assert 0.0 <= log.format_rate <= 1.0 and len(trainer.history) == 2


@pytest.mark.slow
def test_smollm2_steps() -> None:
    """The same two steps on the bundled SmolLM2-135M (a minute or more on two busy cores)."""
    import torch

    torch.set_num_threads(2)
    smollm2 = Trainer(LoopConfig(**{**CONFIG, "lr": 1e-4}))  # type: ignore[arg-type]
    check_known_batch(smollm2)
    check_sampled_step(smollm2)
