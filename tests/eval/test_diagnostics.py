"""The diagnostic metrics of a run: untagged accuracy and trace fidelity."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tomgym.agents import Episode, Response

import tomgym
from tomgym.eval import evaluate


class PlainSentenceAgent:
    """Answers with the true location in a plain sentence, no tags (like small chat models)."""

    spec = "test:plain-sentence"
    privileged = False

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        return [
            Response(text=f"It is in the {tomgym.solve(e.story, e.question)}.") for e in episodes
        ]

    def describe(self) -> dict[str, Any]:
        return {"kind": "test"}


def test_untagged_answers_count_only_as_a_diagnostic(tmp_path: Path) -> None:
    summary = evaluate(
        PlainSentenceAgent(), envs=["ToM-HiToM-O1-v0"], n=6, out=tmp_path, quiet=True
    )
    env = summary.envs["ToM-HiToM-O1-v0"]
    assert env.accuracy == 0.0 and env.format_rate == 0.0
    assert env.lenient_accuracy == 1.0
    assert env.trace_claims_mean == 0.0 and env.trace_fidelity is None


class GoldInThinkAgent(PlainSentenceAgent):
    """Names the gold only inside a think part, with no answer block (or an unclosed one)."""

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        golds = [tomgym.solve(e.story, e.question) for e in episodes]
        return [
            Response(text=f"<think>So, {gold}.</think>" + ("<answer>not sure" if i % 2 else ""))
            for i, gold in enumerate(golds)
        ]


def test_untagged_accuracy_reads_what_the_lenient_reward_reads(tmp_path: Path) -> None:
    """The untagged diagnostic judged the whole text, think part included: the gold named
    only while reasoning counted on 300 of 300 items, where the lenient reward gives 0."""
    summary = evaluate(GoldInThinkAgent(), envs=["ToM-HiToM-O1-v0"], n=6, out=tmp_path,
                       quiet=True)  # fmt: skip
    assert summary.envs["ToM-HiToM-O1-v0"].lenient_accuracy == 0.0


def test_oracle_traces_are_all_confirmed(tmp_path: Path) -> None:
    summary = evaluate("oracle", envs=["ToM-HiToM-O2-v0"], n=6, out=tmp_path, quiet=True)
    env = summary.envs["ToM-HiToM-O2-v0"]
    assert env.trace_fidelity == 1.0 and (env.trace_claims_mean or 0) >= 1
    record = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])
    assert record["trace_right"] >= 1 and record["trace_wrong"] == 0


def test_oracle_rows_say_when_answers_were_copied_from_gold(tmp_path: Path) -> None:
    items = [
        {
            "id": f"q{i}",
            "story": "Ann hid the key.",
            "question": "Who hid the key?",
            "answer": "Ann",
            "answer_type": "text",
        }
        for i in range(3)
    ]
    tomgym.register_tom_env("Test-GoldOnly-v0", items=items, overwrite=True)
    try:
        summary = evaluate("oracle", envs=["Test-GoldOnly-v0"], n=3, out=tmp_path, quiet=True)
    finally:
        tomgym.unregister_tom_env("Test-GoldOnly-v0")
    assert summary.privileged and summary.gold_answers == 3


class RealityOnlyAgent(PlainSentenceAgent):
    """States where the object is now, and nothing about anyone's beliefs."""

    def act(self, episodes: Sequence[Episode]) -> list[Response]:
        out = []
        for e in episodes:
            obj = e.question.rsplit(" the ", 1)[1].split()[0]  # "... thinks the pumpkin is?"
            where = tomgym.solve(e.story, f"Where is the {obj} really?")
            out.append(Response(text=f"<think>The {obj} is now in the {where}.</think>"
                                     f"<answer>{where}</answer>"))  # fmt: skip
        return out


def test_trace_coverage_does_not_reward_claiming_little(tmp_path: Path) -> None:
    """Fidelity alone was 100% for a trace that only says where the object is now."""
    summary = evaluate(RealityOnlyAgent(), envs=["ToM-HiToM-O2-v0"], n=4, out=tmp_path / "r",
                       quiet=True)  # fmt: skip
    env = summary.envs["ToM-HiToM-O2-v0"]
    assert env.trace_fidelity == 1.0
    assert env.trace_coverage is not None and env.trace_coverage <= 1 / 3 + 1e-9
    oracle = evaluate("oracle", envs=["ToM-HiToM-O2-v0"], n=4, out=tmp_path / "o", quiet=True)
    assert oracle.envs["ToM-HiToM-O2-v0"].trace_coverage == 1.0
