"""The env loop with no RL library: reset, let a model answer, step, read the reward."""

from __future__ import annotations

from tomgym.agents import make_agent
from tomgym.agents.chat import episode_from_env

import tomgym

# A generated Hi-ToM env: order-1 beliefs, one-chapter stories, items of the train split.
env = tomgym.make("ToM-HiToM-O1-v0", split="train", length=1)
# The bundled SmolLM2-135M-Instruct, sampling at temperature 1 (0 would be greedy).
agent = make_agent("smollm2", temperature=1.0, max_new_tokens=96)

total = 0.0
for index in range(4):
    observation, info = env.reset(options={"index": index})  # item `index`: reproducible
    # The agent applies its chat template to info["messages"] (the observation as chat turns).
    response = agent.act([episode_from_env(env, info)])[0].text
    _, reward, terminated, truncated, info = env.step(response)  # one answer per episode
    total += reward
    # reward = format part + correctness part; info says why (verdict) and what was gold.
    print(f"item {index}: reward {reward:.2f} verdict {info['verdict']} gold {info['gold']!r}")
    print(f"  response: {response[:120]!r}")

# This is where an RL update would use `reward` (see tomgym/train/cpu_loop.py for one).
print(f"mean reward {total / 4:.3f}")
