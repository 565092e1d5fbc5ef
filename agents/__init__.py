"""Policies that answer ToM envs: baselines, the oracle, local and served language models.

``make_agent(spec)`` builds any of them from a spec string; heavy dependencies (torch,
transformers, vLLM) are imported only by the agents that need them.
"""

from tomgym.agents.base import Agent, Episode, Response, agent_kinds, make_agent

__all__ = ["Agent", "Episode", "Response", "agent_kinds", "make_agent"]
