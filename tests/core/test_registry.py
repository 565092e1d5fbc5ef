"""Registering envs from items and generators; lookups and suggestions."""

from __future__ import annotations

import gymnasium as gym
import pytest

import tomgym
from tomgym.items import ItemError
from tomgym.registry import UnknownEnvError, get_spec

ITEMS = [
    {
        "id": f"q{i}",
        "story": f"Ann put the ball in box{i}.",
        "question": "Where is the ball?",
        "answer": f"box{i}",
        "candidates": [f"box{i}", "basket"],
        "order": 0,
    }
    for i in range(3)
]


@pytest.fixture
def custom_id():
    env_id = "Test-Custom-ToM-v0"
    yield env_id
    tomgym.unregister_tom_env(env_id)


def test_register_items_and_make(custom_id: str) -> None:
    spec = tomgym.register_tom_env(custom_id, items=ITEMS, family="custom", usage="eval-only")
    assert spec.size == 3 and spec.orders == (0,) and spec.answer_type == "choice"
    assert custom_id in {s.id for s in tomgym.list_envs()}
    env = gym.make(custom_id)
    prompt, _ = env.reset(options={"index": 2})
    assert "box2" in prompt
    _, reward, *_ = env.step("<think>x</think><answer>box2</answer>")
    assert reward == pytest.approx(1.1)
    assert [i.id for i in tomgym.load_items(custom_id)] == ["q0", "q1", "q2"]


def test_register_generator(custom_id: str) -> None:
    def make(i: int) -> dict[str, object]:
        return {**ITEMS[0], "id": f"g{i}", "answer": "basket"}

    tomgym.register_tom_env(custom_id, generator=make, max_prompt_chars=200)
    assert get_spec(custom_id).procedural
    assert tomgym.load_items(custom_id, n=4)[3].id == "g3"
    with pytest.raises(ValueError, match="n="):
        tomgym.load_items(custom_id)


def test_bad_items_register_nothing(custom_id: str) -> None:
    with pytest.raises(ItemError, match="record 1"):
        tomgym.register_tom_env(custom_id, items=[ITEMS[0], {**ITEMS[1], "answer": "nowhere"}])
    assert custom_id not in {s.id for s in tomgym.list_envs()}
    assert custom_id not in gym.registry


def test_registration_errors(custom_id: str) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        tomgym.register_tom_env(custom_id)
    with pytest.raises(ValueError, match="version"):
        tomgym.register_tom_env("No-Version", items=ITEMS)
    tomgym.register_tom_env(custom_id, items=ITEMS)
    with pytest.raises(ValueError, match="already registered"):
        tomgym.register_tom_env(custom_id, items=ITEMS)


def test_unknown_id_suggests_nearest() -> None:
    with pytest.raises(UnknownEnvError, match="Did you mean: ToM-HiToM-O4-v0"):
        get_spec("ToM-HiToM-04-v0")


def test_held_out_spec_names_its_training_envs() -> None:
    spec = get_spec("ToM-HiToM-O4-v0")
    assert spec.held_out and "ToM-HiToM-v0" in spec.held_out_from
    assert not get_spec("ToM-HiToM-v0").held_out
    assert get_spec("ToM-HiToM-v0").orders == (0, 1, 2, 3)


def test_core_imports_no_heavy_dependency() -> None:
    import subprocess
    import sys

    code = (
        "import sys, tomgym, gymnasium as gym; gym.make('ToM-HiToM-O1-v0').reset(seed=0);"
        "heavy = {'torch', 'transformers', 'vllm', 'ray', 'openrlhf'} & set(sys.modules);"
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
