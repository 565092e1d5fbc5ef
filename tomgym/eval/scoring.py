"""One batch of an evaluation: what the agent is shown, and each response scored by the env
itself into a result record."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from typing import Any

from tomgym.agents.base import Agent, Episode, MeasuresPrompts, Response
from tomgym.env import ToMEnv
from tomgym.eval.metrics import think_features
from tomgym.eval.store import ResultRecord
from tomgym.items import ToMItem
from tomgym.rewards import score_response as reward_of

AGENT_FAILED = "agent_failed"
"""The verdict of a record whose agent request failed (``Response.failed``): no response was
judged. Such records are left out of every number, and a rerun asks their items again."""


def build_episode(env: ToMEnv, env_id: str, index: int, family: str, privileged: bool) -> Episode:
    """What the agent sees of item ``index`` (the gold answer only for privileged agents)."""
    prompt, info = env.reset(options={"index": index})
    item = env.current_item
    assert item is not None
    return Episode.of_item(
        item,
        env_id,
        family,
        privileged,
        prompt=prompt,
        messages=info["messages"],
        prefill=info["prefill"],
        source_kwargs=env.source_kwargs,
    )


def lenient_correct(text: str, item: ToMItem, info: Mapping[str, Any], prefill: str) -> bool:
    """The untagged diagnostic: the env's verdict (``info`` of its step), except that a
    response without an answer block is judged as the lenient reward judges it (untagged,
    outside its think part)."""
    if info["verdict"] == "no_answer" and text.strip():
        return reward_of(text, item, "lenient", prefill).correct
    return bool(info["correct"])


def score_response(
    env: ToMEnv, episode: Episode, index: int, response: Response, held_out: bool, seconds: float
) -> ResultRecord:
    """Score one response with the env itself (a fresh reset of the same index, then step)."""
    env.reset(options={"index": index})
    item = env.current_item
    assert item is not None
    text = response.text if isinstance(response.text, str) else ""
    _, reward, _, _, info = env.step(text)
    lenient: bool | None = lenient_correct(text, item, info, episode.prefill)
    if response.failed:  # no answer to judge: its record says so, not "no_answer" (a wrong one)
        nothing_judged = {"correct": False, "verdict": AGENT_FAILED, "format_ok": False}
        info = {**info, **nothing_judged, "reward_parts": {}}
        reward, lenient = 0.0, None
    think_words, think_entities = think_features(
        text, episode.prefill, item.story, item.candidates, item.question
    )
    trace = trace_counts(
        text, episode.prefill, item.story, item.question, episode.family, item.candidates
    )
    metadata = item.metadata
    story_type = metadata.get("story_type")
    deception = metadata.get("deception")
    length = metadata.get("length")
    return ResultRecord(
        env_id=episode.env_id,
        index=index,
        item_id=item.id,
        item_digest=item.digest(),
        order=item.order,
        question_type=item.question_type,
        answer_type=item.answer_type,
        chance=item.chance,
        held_out=held_out,
        prompt=episode.prompt,
        response=text,
        answer=info["answer"],
        gold=info["gold"] if isinstance(info["gold"], str) else item.gold_text,
        correct=bool(info["correct"]),
        verdict=info["verdict"],
        format_ok=bool(info["format_ok"]),
        lenient_correct=lenient,
        answer_source=(response.extra or {}).get("source"),
        max_tokens_lowered_to=(response.extra or {}).get("max_tokens_lowered_to"),
        reward=float(reward),
        reward_parts={k: float(v) for k, v in info["reward_parts"].items()},
        prompt_tokens=response.prompt_tokens,
        completion_tokens=response.completion_tokens,
        truncated=response.truncated,
        response_words=len(text.split()),
        think_words=think_words,
        think_entities=think_entities,
        trace_right=trace[0] if trace else None,
        trace_wrong=trace[1] if trace else None,
        trace_needed=trace[2] if trace else None,
        seconds=response.seconds if response.seconds is not None else seconds,
        failed=response.failed,
        error=response.error,
        story_type=str(story_type) if story_type is not None else None,
        deception=deception if isinstance(deception, bool) else None,
        length=length if isinstance(length, int) and not isinstance(length, bool) else None,
        story_digest=story_digest(item.story),
    )


def story_digest(story: str) -> str:
    """12 hex digits naming a story (its text, outer spaces aside)."""
    return hashlib.blake2b(story.strip().encode("utf-8"), digest_size=6).hexdigest()


TRACE_FAMILIES = frozenset({"hitom", "tomi"})


def trace_counts(
    text: str,
    prefill: str,
    story: str,
    question: str,
    family: str,
    candidates: Sequence[str] = (),
) -> tuple[int, int, int] | None:
    """(right, wrong) belief claims of the think part, for families the simulator can check."""
    if family not in TRACE_FAMILIES:
        return None
    from tomgym.answers import parse_response
    from tomgym.trace import safe_trace_fidelity

    think = parse_response(text, prefill).think or ""
    score = safe_trace_fidelity(story, question, think, family, candidates)
    return (score.right, score.wrong, score.needed)


def run_batch(
    agent: Agent, env: ToMEnv, env_id: str, indices: Sequence[int], family: str, held_out: bool
) -> list[ResultRecord]:
    """Ask the agent one batch of items and score every response."""
    episodes = [build_episode(env, env_id, i, family, agent.privileged) for i in indices]
    start = time.perf_counter()
    responses = agent.act(episodes)
    elapsed = time.perf_counter() - start
    if len(responses) != len(episodes):
        raise RuntimeError(
            f"agent {agent.spec!r} returned {len(responses)} responses for {len(episodes)} episodes"
        )
    share = elapsed / max(1, len(episodes))
    return [
        score_response(env, ep, i, r, held_out, share)
        for ep, i, r in zip(episodes, indices, responses, strict=True)
    ]


def longest_prompt_first(
    env: ToMEnv,
    indices: Sequence[int],
    agent: Agent | None = None,
    env_id: str = "",
    family: str = "custom",
) -> list[int]:
    """The indices by prompt length, longest first (ties by index), so each batch holds prompts
    of about one length: a padded batch costs as much as its longest prompt. Lengths are the
    agent's own (tokens) when it implements ``MeasuresPrompts``, else the prompt's characters.
    Results are written in canonical order at the end whatever the order they were asked in."""
    if isinstance(agent, MeasuresPrompts):
        episodes = [build_episode(env, env_id, i, family, agent.privileged) for i in indices]
        lengths = agent.prompt_lengths(episodes)
    else:
        lengths = [len(env.reset(options={"index": i})[0]) for i in indices]
    length = dict(zip(indices, lengths, strict=True))
    return sorted(indices, key=lambda i: (-length[i], i))
