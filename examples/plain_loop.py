"""The env loop with no RL library: reset, let a model answer, step, read the reward."""

from __future__ import annotations

from tomgym.agents import make_agent
from tomgym.agents.chat import episode_from_env

import tomgym

# A generated ToMi env (short stories), items of the train split. The `lenient` reward judges
# an answer written without the <answer> tags as a whole: the bundled 135M model never writes
# the tags, so under the default `rlvr` reward every response would earn 0. For a model that
# follows the format, drop it (or pass reward="tomrl", the ToM-RL paper's).
env = tomgym.make("ToM-ToMi-v0", split="train", reward="lenient")
# The bundled SmolLM2-135M-Instruct, sampling at temperature 1 (0 would be greedy).
agent = make_agent("smollm2", temperature=1.0, max_new_tokens=48)

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
