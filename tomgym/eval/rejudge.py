"""Re-judge stored responses whose item is asked the same way but judged otherwise now.

A release loader or a data file may change how an item is judged (its gold, candidates,
aliases, ToM order, the judge's metadata) without changing its prompt. The stored response is
then still the model's answer to that prompt: it is scored again with the env as it is now,
instead of the run refusing to resume or asking the model again. A record whose prompt changed
is not touched here (:func:`tomgym.eval.resume.check_items_unchanged` refuses it).
"""

from __future__ import annotations

from collections.abc import Mapping

from tomgym.agents.base import Agent, Response
from tomgym.eval.resume import changed_keys
from tomgym.eval.scoring import build_episode, score_response
from tomgym.eval.store import ResultRecord, agent_kind
from tomgym.eval.targets import EnvTarget

PROMPT_ONLY_KINDS = frozenset({"hf", "vllm", "openai", "smollm2"})
"""Agents whose response is a function of the prompt alone (the chat messages): a model. A
baseline reads the candidates and the oracle the gold, so their old responses are no answer
to an item whose candidates or gold changed; they are cheap to ask again instead."""


def answers_the_prompt_only(agent: str | Agent) -> bool:
    """Whether the agent's stored responses may be judged again against a changed item."""
    spec = agent if isinstance(agent, str) else str(getattr(agent, "spec", ""))
    privileged = not isinstance(agent, str) and bool(getattr(agent, "privileged", False))
    return agent_kind(spec) in PROMPT_ONLY_KINDS and not privileged


def rejudged(
    target: EnvTarget,
    records: Mapping[tuple[str, int], ResultRecord],
    done: set[tuple[str, int]],
) -> list[ResultRecord]:
    """New records for the finished items of ``target`` that changed since their records were
    made (:func:`tomgym.eval.resume.changed_keys`) but whose prompt is the stored one."""
    env = target.env
    if env is None:
        return []
    fresh = []
    for key, _ in changed_keys(target, records, done):
        record = records[key]
        if not record.prompt or record.failed:
            continue
        index = key[1]
        episode = build_episode(env, target.env_id, index, target.spec.family, False)
        item = env.current_item
        assert item is not None
        if episode.prompt != record.prompt or item.id != record.item_id:
            continue  # asked differently: not this record's item any more
        response = Response(
            text=record.response,
            prompt_tokens=record.prompt_tokens,
            completion_tokens=record.completion_tokens,
            seconds=record.seconds,
            error=record.error,
            truncated=record.truncated,
            extra={
                "source": record.answer_source,
                "max_tokens_lowered_to": record.max_tokens_lowered_to,
            },
        )
        fresh.append(
            score_response(env, episode, index, response, record.held_out, record.seconds or 0.0)
        )
    return fresh
