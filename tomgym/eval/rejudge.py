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
from dataclasses import dataclass, field
from pathlib import Path

from tomgym.agents.base import Agent, Response
from tomgym.env import ToMEnv
from tomgym.eval.scoring import build_episode, lenient_correct, score_response
from tomgym.eval.store import EnvPlan, ResultRecord, RunMetadata, agent_kind
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


@dataclass
class JudgedNow:
    """A finished run's stored responses judged by this tomgym, in memory (no file changes)."""

    records: dict[tuple[str, int], ResultRecord] = field(default_factory=dict)
    """The new record of every stored response read otherwise now, by key."""
    newly_correct: int = 0
    newly_wrong: int = 0
    unchecked: list[str] = field(default_factory=list)
    """One entry per planned env that could not be made or judged here (``env ID (why)``): its
    stored verdicts stand."""
    changed: dict[str, int] = field(default_factory=dict)
    """Env ID -> finished records whose item changed since (data edited): not judged again
    here, their verdicts are of the old items."""
    targets: list[EnvTarget] = field(default_factory=list)
    """The planned envs as made here (for what the board says of them: shared stories)."""


def judge_run_again(
    directory: Path, metadata: RunMetadata, envs: dict[str, ToMEnv] | None = None
) -> JudgedNow:
    """Judge the stored responses of a run directory's planned, unchanged items again, as a
    resumed run would (:func:`judged_again`), without changing any file: a leaderboard of
    directories then counts one judge's verdicts whatever tomgym wrote each run. ``envs``
    caches the envs made, by ID and kwargs, across the runs of one board."""
    from tomgym.eval.resume import best_records, changed_keys, register_recorded_env_files
    from tomgym.eval.store import ResultsStore

    envs = {} if envs is None else envs
    best = best_records(ResultsStore(directory).load(repair=False))
    done = {key for key, record in best.items() if not record.failed}
    now = JudgedNow()
    register_recorded_env_files(directory, metadata)
    for plan in metadata.envs:
        try:
            target = _target_of(plan, envs)
            now.targets.append(target)
            changed = {key for key, _ in changed_keys(target, best, done)}
            if changed:
                now.changed[plan.env_id] = len(changed)
            keys = [
                k for i in plan.indices() if (k := (plan.env_id, i)) in done and k not in changed
            ]
            again = judged_again(target, best, keys)
        except Exception as exc:  # noqa: BLE001 - not made here (data, plugin...): verdicts kept
            why = str(exc).splitlines()[0] if str(exc) else repr(exc)
            now.unchecked.append(f"{plan.env_id} ({why})")
            continue
        for record in again:
            now.records[record.key] = record
            was = best[record.key].correct
            now.newly_correct += record.correct and not was
            now.newly_wrong += was and not record.correct
    return now


def _target_of(plan: EnvPlan, envs: dict[str, ToMEnv]) -> EnvTarget:
    """The plan's env made again with its recorded kwargs (one env per ID and kwargs)."""
    import json

    import tomgym
    from tomgym.registry import get_spec

    spec = get_spec(plan.env_id)
    key = f"{plan.env_id}|{json.dumps(plan.kwargs, sort_keys=True, default=str)}"
    if key not in envs:
        envs[key] = tomgym.make(plan.env_id, **plan.kwargs)
    return EnvTarget(
        env_id=plan.env_id,
        kwargs=plan.kwargs,
        held_out=plan.held_out,
        n=plan.n,
        spec=spec,
        env=envs[key],
        items=plan.items,
        size=plan.size,
    )
