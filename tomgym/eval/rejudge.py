"""Re-judge stored responses whose item is asked the same way but judged otherwise now.

A release loader or a data file may change how an item is judged (its gold, candidates,
aliases, ToM order, the judge's metadata) without changing its prompt. The stored response is
then still the model's answer to that prompt: it is scored again with the env as it is now,
instead of the run refusing to resume or asking the model again. A record whose prompt changed
is not touched here (:func:`tomgym.eval.resume.check_items_unchanged` refuses it).

A newer tomgym may also judge a response to an unchanged item otherwise (its judge credits
"staff room, where she left it", say): every resumed run's stored responses are judged again,
whatever the agent, and those read otherwise now are scored again (:func:`judged_again`), so
one run's verdicts all come from one judge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tomgym.agents.base import Agent, Response
from tomgym.eval.scoring import build_episode, lenient_correct, score_response
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
    changed: Iterable[tuple[str, int]],
) -> list[ResultRecord]:
    """New records for the finished items of ``target`` that changed since their records were
    made (``changed``: :func:`tomgym.eval.resume.changed_keys`) but whose prompt is the stored
    one."""
    fresh = []
    for key in changed:
        record = records[key]
        if record.prompt and not record.failed:
            fresh += _scored_again(target, key[1], record)
    return fresh


JUDGED_FIELDS = ("answer", "correct", "verdict", "format_ok", "reward", "reward_parts")
"""What the env's judge decides of a response: a stored record that differs on any is scored
again."""


def judged_again(
    target: EnvTarget,
    records: Mapping[tuple[str, int], ResultRecord],
    keys: Iterable[tuple[str, int]],
) -> list[ResultRecord]:
    """New records for the stored responses among ``keys`` (finished items of ``target`` that
    have not changed, so any agent's response still answers them) that the env judges
    otherwise now than their record says: a newer judge, another reward rule. Records without
    an item digest or prompt (an older tomgym's) are left as they are: that their item is
    unchanged is known from its id, gold and order only, and a new record would stamp them
    with the current item's digest."""
    env = target.env
    if env is None:
        return []
    fresh = []
    for key in keys:
        record = records[key]
        if record.failed or not record.item_digest or not record.prompt:
            continue  # written before records kept both: unchanged is not known well enough
        env.reset(options={"index": key[1]})
        item = env.current_item
        assert item is not None
        _, reward, _, _, info = env.step(record.response)
        lenient = lenient_correct(record.response, item, info, env.prefill)
        now = (
            info["answer"],
            bool(info["correct"]),
            info["verdict"],
            bool(info["format_ok"]),
            float(reward),
            {k: float(v) for k, v in info["reward_parts"].items()},
        )
        stored = tuple(getattr(record, name) for name in JUDGED_FIELDS)
        if now != stored or record.lenient_correct not in (None, lenient):
            fresh += _scored_again(target, key[1], record)
    return fresh


def _scored_again(target: EnvTarget, index: int, record: ResultRecord) -> list[ResultRecord]:
    """The stored response scored with the env as it is now, as a new record; none where the
    item is asked otherwise now (not this record's item any more)."""
    env = target.env
    assert env is not None
    episode = build_episode(env, target.env_id, index, target.spec.family, False)
    item = env.current_item
    assert item is not None
    if (record.prompt and episode.prompt != record.prompt) or item.id != record.item_id:
        return []
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
    return [score_response(env, episode, index, response, record.held_out, record.seconds or 0.0)]
