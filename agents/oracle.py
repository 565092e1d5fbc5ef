"""The oracle: the world simulator's answer for Hi-ToM and ToMi stories, the gold answer elsewhere.

Scores mark where each answer came from (``extra["source"]``: ``simulator`` or ``gold``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tomgym.agents.base import Episode, Response
from tomgym.agents.chat import tagged

from tomgym.world.parse import UnknownSentenceError

SIMULATED_FAMILIES = ("hitom", "tomi")


def simulate_answer(episode: Episode) -> tuple[str, list[str]]:
    """(answer, reasoning lines) from the simulator; raises ValueError when it cannot answer."""
    if episode.family == "hitom":
        from tomgym.world.solve import explain_hitom, solve_hitom

        return solve_hitom(episode.story, episode.question), explain_hitom(
            episode.story, episode.question
        )
    if episode.family == "tomi":
        from tomgym.world.tomi_solve import explain_tomi, solve_tomi

        answer = solve_tomi(episode.story, episode.question)
        return answer, explain_tomi(episode.story, episode.question)
    raise ValueError(f"the simulator does not know the family {episode.family!r}")


@dataclass
class OracleAgent:
    """Answers from the simulator where it can, else from the episode's gold (privileged).

    Responses continue after the episode's prefill, as a chat model's do (see ``tagged``).
    """

    spec: str = "oracle"
    privileged: bool = True

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        return [self.answer(episode) for episode in episodes]

    def answer(self, episode: Episode) -> Response:
        error = None
        if episode.family in SIMULATED_FAMILIES:
            try:
                answer, lines = simulate_answer(episode)
                return Response(
                    text=tagged(" ".join(lines), answer, episode.prefill),
                    extra={"source": "simulator"},
                )
            except (UnknownSentenceError, ValueError) as exc:
                error = str(exc)
        if episode.gold is None:
            return Response(
                text="",
                failed=True,
                error=error or "no simulator for this family and no gold answer given",
                extra={"source": "none"},
            )
        extra: dict[str, Any] = {"source": "gold"}
        if error:
            extra["simulator_error"] = error
        return Response(text=tagged("The gold answer.", episode.gold, episode.prefill), extra=extra)

    def describe(self) -> dict[str, Any]:
        return {"kind": "oracle", "spec": self.spec, "simulated_families": SIMULATED_FAMILIES}


def make_oracle(spec: str, options: dict[str, Any]) -> OracleAgent:
    """The oracle agent (``oracle``; it takes no options)."""
    if spec.strip() != "oracle":
        raise ValueError(f"the oracle's spec is 'oracle', not {spec!r}")
    return OracleAgent()
