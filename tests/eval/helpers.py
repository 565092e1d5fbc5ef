"""Test agents for the evaluation tests: small classes that satisfy the agent protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tomgym.agents.base import Episode, Response


class FirstCandidateAgent:
    """Answers each item's first candidate; can raise KeyboardInterrupt on a chosen batch."""

    spec = "test:first-candidate"
    privileged = False

    def __init__(self, interrupt_on_batch: int | None = None) -> None:
        self.interrupt_on_batch = interrupt_on_batch
        self.batches = 0
        self.seen: list[Episode] = []

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        self.batches += 1
        if self.interrupt_on_batch == self.batches:
            raise KeyboardInterrupt
        self.seen.extend(episodes)
        answers = [ep.candidates[0] if ep.candidates else "yes" for ep in episodes]
        return [
            Response(
                text=f"<think> {ep.story.split()[0]} and the rest. </think> <answer>{a}</answer>",
                completion_tokens=7,
            )
            for ep, a in zip(episodes, answers, strict=True)
        ]

    def describe(self) -> dict[str, Any]:
        return {"kind": "test"}


class ShortestStoryFirstAgent(FirstCandidateAgent):
    """Measures its prompts in its own units (MeasuresPrompts): here, minus the story's length,
    so the runner's longest-first order becomes shortest story first."""

    spec = "test:shortest-story-first"

    def prompt_lengths(self, episodes: Sequence[Episode]) -> list[int]:
        return [-len(ep.story) for ep in episodes]


class FlakyAgent(FirstCandidateAgent):
    """Like FirstCandidateAgent, but its request fails for the items in ``failing`` (IDs)."""

    def __init__(self, failing: set[str] | None = None) -> None:
        super().__init__()
        self.failing = failing or set()

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        answered = super().act(episodes)
        return [
            Response(text="", failed=True, error="HTTP 503: try later")
            if ep.item_id in self.failing
            else response
            for ep, response in zip(episodes, answered, strict=True)
        ]


def run_cli(*argv: str) -> int:
    """``tomgym eval`` / ``leaderboard`` through their own argument parser; the exit status."""
    import argparse

    from tomgym.eval.commands import add_commands

    parser = argparse.ArgumentParser(prog="tomgym")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    code: int = args.handler(args)
    return code
