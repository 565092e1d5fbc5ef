"""Policies that answer ToM envs: baselines, the oracle, local and served language models."""
