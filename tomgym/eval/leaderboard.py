"""Leaderboards: run summaries as one table (Markdown, JSON, HTML, plots); or run a suite first."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from tomgym.agents.base import RULE_BASED, AgentUnavailableError, check_agent_spec
from tomgym.eval.metrics import Z95, EnvSummary, Summary
from tomgym.eval.store import (
    METADATA_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    EnvPlan,
    RunFileError,
    RunMetadata,
    agent_identity,
    agent_kind,
    effective_sampling,
    read_metadata,
    write_json,
)

if TYPE_CHECKING:
    from tomgym.eval.rejudge import JudgedNow

PRIVILEGED_NOTE = "sees gold"
INCOMPLETE_NOTE = (
    "n shown as done/planned marks an incomplete run (interrupted, or items whose agent "
    "request failed); its numbers cover the scored items only. Rerun its eval command to "
    "finish it and retry the failures."
)


class LeaderboardRow(BaseModel):
    """One agent's run, reduced to the numbers a table shows."""

    agent: str
    privileged: bool = False
    gold_answers: int = 0
    directory: str
    run: str | None = Field(
        default=None,
        description="The run directory's name, shown when another row has the same agent.",
    )
    n_items: int = Field(description="Scored items.")
    failed: int = Field(default=0, description="Items whose agent request failed (not scored).")
    extra_records: int = Field(
        default=0,
        description="Stored records outside the run's current plan (an earlier, larger --n): "
        "kept on disk, not counted in this row.",
    )
    unanswered: int = Field(
        default=0,
        description="Scored items the agent could not answer (a prompt too long for a served "
        "model), scored as wrong.",
    )
    agent_errors: dict[str, int] = Field(
        default_factory=dict, description="The run's agent error messages, most common first."
    )
    planned: int | None = Field(default=None, description="Items the run's plan asks for.")
    complete: bool = Field(default=True, description="Every planned item is scored.")
    accuracy: float | None = Field(
        description="The mean of the run's env accuracies, each env counting once whatever its "
        "item count: pooled over items, an env given 300 items outweighs one given 10, and a "
        "run's rank would follow how many items each env got."
    )
    ci95: tuple[float, float] | None = Field(
        default=None,
        description="For ``accuracy``: a 95% interval of the mean of the envs' accuracies.",
    )
    item_accuracy: float | None = Field(
        default=None, description="Accuracy pooled over every scored item (summary.json's)."
    )
    envs: dict[str, float | None] = Field(default_factory=dict, description="Accuracy per env.")
    fallbacks: dict[str, tuple[int, int]] = Field(
        default_factory=dict,
        description="Per env, (items a baseline gave its fixed fallback answer on, scored "
        "items), where it did on any: its accuracy there is that answer's, not its shortcut's.",
    )
    in_distribution: float | None = None
    held_out: float | None = None
    held_out_gap: float | None = None
    held_out_gap_above_chance: float | None = None
    by_order: dict[str, float] = Field(
        default_factory=dict,
        description="Accuracy per ToM order over the in-distribution envs (families pooled).",
    )
    by_order_held_out: dict[str, float] = Field(
        default_factory=dict,
        description="Accuracy per ToM order over the held-out envs, kept apart from by_order: "
        "order 4 of a mixed-order training env and of a held-out O4 env are different claims.",
    )
    order_items: dict[str, int] = Field(
        default_factory=dict,
        description="Items behind each by_order figure ('4' in-distribution, 'H4' held out).",
    )
    by_question_type: dict[str, float] = Field(
        default_factory=dict,
        description="Accuracy per question type over the in-distribution envs (families "
        "pooled): ToMi's reality and memory questions are both order 0, and a shortcut that "
        "answers one kind shows here, not in by_order.",
    )
    by_question_type_held_out: dict[str, float] = Field(
        default_factory=dict, description="The same over the held-out envs, kept apart."
    )
    question_type_items: dict[str, int] = Field(
        default_factory=dict,
        description="Items behind each question-type figure ('memory' in-distribution, "
        "'H:memory' held out).",
    )
    format_rate: float | None = Field(
        default=None,
        description="This and the shares and means after it (trace fidelity aside, pooled "
        "over belief claims): the mean over the run's envs, each counting once, as accuracy.",
    )
    lenient_accuracy: float | None = None
    trace_fidelity: float | None = None
    trace_coverage: float | None = None
    response_tokens_mean: float | None = None
    response_tokens_source: str | None = None
    truncated_share: float | None = Field(
        default=None, description="Share of responses cut at the token budget (agents that say)."
    )
    reasoning_structure: float | None = None
    macro_f1: float | None = Field(
        default=None,
        description="Macro-F1 over the run's label envs (OpenToM's attitude, fullness...), "
        "each env counting once; None without one. Accuracy flatters a majority-label guess "
        "there.",
    )
    rank: str | None = Field(
        default=None,
        description="The row's place on the board ('1', '2=' for a tie): rows with the same "
        "accuracy as shown (0.1 points) among rows of the same standing (complete, over every "
        "column) share the place of the first; None without an accuracy.",
    )


class Leaderboard(BaseModel):
    """``leaderboard.json``: the envs (columns, held-out marked) and one row per run."""

    suite: str | None = None
    envs: list[str]
    labels: dict[str, str] = Field(default_factory=dict)
    held_out: dict[str, bool] = Field(
        default_factory=dict,
        description="Env columns every run counts as held out (see mixed_held_out for those "
        "runs disagree on).",
    )
    rows: list[LeaderboardRow]
    mixed: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Env columns whose runs made the env with different arguments (a split, a "
        "reward...): env ID -> run directory -> those arguments as JSON.",
    )
    mixed_held_out: dict[str, dict[str, bool]] = Field(
        default_factory=dict,
        description="Env columns that some runs count as held out and others as in-distribution "
        "(a suite's marking): env ID -> run directory -> held out. Their gaps do not compare.",
    )
    stopped: dict[str, str] = Field(
        default_factory=dict,
        description="Agents of a suite run whose evaluation stopped (the agent could not answer "
        "at all, e.g. a served model that gave no reply): agent -> why. Their rows hold what "
        "they finished; rerunning the command goes on.",
    )
    mixed_items: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Env columns whose runs asked different items (another --n or item "
        "order, or the env's data changed between them): env ID -> run directory -> its items. "
        "Their accuracies are not paired.",
    )
    judged_now: dict[str, str] = Field(
        default_factory=dict,
        description="Runs whose stored responses this tomgym's judge reads otherwise than their "
        "records (a newer judge): run directory -> how many. Their rows count today's "
        "verdicts; rerunning the run's eval command stores them.",
    )
    shared_stories: dict[str, str] = Field(
        default_factory=dict,
        description="Held-out columns whose env shares stories (not items) with an "
        "in-distribution column of the same run: env ID -> how many, with which. They hold "
        "out the questions (another order or kind), not the stories.",
    )
    shared_items: dict[str, str] = Field(
        default_factory=dict,
        description="Held-out columns whose env shares items (by ID) with an in-distribution "
        "column of the same run (ExploreToM-Infilled's questions are ExploreToM's): env ID -> "
        "how many, with which. Their gap compares those questions with themselves.",
    )
    sampling: dict[str, str] = Field(
        default_factory=dict,
        description="When the board's model runs were sampled differently: run directory -> "
        "its temperature, token budget and top-p (rule-based agents, whose answers no setting "
        "changes, left out). Their accuracies differ by the settings as well as the model.",
    )
    unchecked: dict[str, str] = Field(
        default_factory=dict,
        description="Runs whose row is their summary.json as written: run directory -> the "
        "run files it lacks (results.jsonl, metadata.json), without which it is neither judged "
        "again nor compared with the other runs.",
    )
    changed_since: dict[str, str] = Field(
        default_factory=dict,
        description="Runs holding records of items that changed since they were made (a data "
        "file edited): run directory -> how many, by env. Their verdicts are of the old items.",
    )
    not_judged_now: dict[str, str] = Field(
        default_factory=dict,
        description="Runs with envs that could not be made here to judge their responses "
        "again (a release not under the data root, a plugin not installed): run directory -> "
        "the envs and why. Those envs' stored verdicts are counted.",
    )


def env_mean(envs: Sequence[EnvSummary]) -> tuple[float | None, tuple[float, float] | None]:
    """The mean of the envs' accuracies and its 95% interval: a normal one over the envs'
    variances p(1 - p) / n with p taken as Agresti-Coull's (x + 2) / (n + 4), so that an env
    all right or all wrong still has some; the envs are independent samples. A row of one env
    shows that env's own (Wilson) interval, as its eval and summary.json do (the two gave one
    right item 4-100 and 21-100)."""
    scored = [e for e in envs if e.n and e.accuracy is not None]
    if not scored:
        return None, None
    mean = sum(e.accuracy or 0.0 for e in scored) / len(scored)
    if len(scored) == 1:
        return mean, scored[0].ci95
    variance = 0.0
    for e in scored:
        adjusted = (round((e.accuracy or 0.0) * e.n) + 2) / (e.n + 4)
        variance += adjusted * (1 - adjusted) / e.n
    half = Z95 * math.sqrt(variance) / len(scored)
    return mean, (max(0.0, mean - half), min(1.0, mean + half))


def row_from_summary(summary: Summary, directory: str) -> LeaderboardRow:
    n = summary.n_items
    envs = [e for e in summary.envs.values() if e.n]  # an env with only failures has no numbers
    mean, interval = env_mean(envs)
    return LeaderboardRow(
        agent=summary.agent,
        privileged=summary.privileged,
        gold_answers=summary.gold_answers,
        directory=directory,
        n_items=n,
        failed=summary.failed_items,
        unanswered=summary.unanswered_items,
        extra_records=summary.extra_records,
        agent_errors=summary.agent_errors,
        planned=summary.planned_items,
        complete=summary.complete,
        accuracy=mean,
        ci95=interval,
        item_accuracy=summary.accuracy,
        envs={env_id: e.accuracy for env_id, e in summary.envs.items()},
        fallbacks={
            env_id: (e.fallback_answers, e.n)
            for env_id, e in summary.envs.items()
            if e.fallback_answers
        },
        in_distribution=summary.in_distribution_accuracy,
        held_out=summary.held_out_accuracy,
        held_out_gap=summary.held_out_gap,
        held_out_gap_above_chance=summary.held_out_gap_above_chance,
        by_order=_pooled_orders(e for e in summary.envs.values() if not e.held_out),
        by_order_held_out=_pooled_orders(e for e in summary.envs.values() if e.held_out),
        order_items={
            **_pooled_counts(e for e in summary.envs.values() if not e.held_out),
            **{
                f"H{k}": v
                for k, v in _pooled_counts(e for e in summary.envs.values() if e.held_out).items()
            },
        },
        by_question_type=_pooled_types(e for e in summary.envs.values() if not e.held_out),
        by_question_type_held_out=_pooled_types(e for e in summary.envs.values() if e.held_out),
        question_type_items={
            **_pooled_counts(
                (e for e in summary.envs.values() if not e.held_out), "by_question_type"
            ),
            **{
                f"H:{k}": v
                for k, v in _pooled_counts(
                    (e for e in summary.envs.values() if e.held_out), "by_question_type"
                ).items()
            },
        },
        # every share and mean below counts each env once, as acc does: pooled over items, a
        # row's untagged acc differed from its acc where every answer was tagged
        format_rate=_env_mean(envs, "format_rate"),
        lenient_accuracy=_env_mean(envs, "lenient_accuracy"),
        trace_fidelity=_claims_weighted(envs),
        trace_coverage=_env_mean(envs, "trace_coverage"),
        # one unit or none: tokens of some envs and words of others do not average (an env
        # of empty responses only, every item unanswered, is 0 in either)
        response_tokens_mean=_env_mean(envs, "response_tokens_mean")
        if len(_length_units(envs)) <= 1
        else None,
        response_tokens_source="/".join(sorted(_length_units(envs))) or None,
        truncated_share=_env_mean(envs, "truncated_share"),
        reasoning_structure=_env_mean(envs, "reasoning_structure"),
        macro_f1=_env_mean(envs, "macro_f1"),
    )


CURRENT_SUMMARY_KEY = "planned_items"
"""A summary.json without this key predates failed-item and completeness accounting."""


def load_summary(directory: str | os.PathLike[str]) -> Summary:
    """A run's summary: ``summary.json``, or rebuilt from the records (changing no file) when
    that is missing or older than the results or metadata (an interrupted rerun)."""
    root = Path(directory)
    path = root / SUMMARY_FILE
    sources = [root / RESULTS_FILE, root / METADATA_FILE]
    newest = max((f.stat().st_mtime_ns for f in sources if f.exists()), default=0)
    if path.exists() and (path.stat().st_mtime_ns >= newest or not sources[1].exists()):
        text = path.read_text(encoding="utf-8")
        try:
            summary = Summary.model_validate_json(text)
        except ValueError as exc:
            raise RunFileError(
                f"{path} is not a valid tomgym summary ({exc.__class__.__name__}); delete it "
                "and it is rebuilt from the run's records"
            ) from None
        if CURRENT_SUMMARY_KEY in json.loads(text):
            return summary
        # Written before summaries knew failed items and planned counts: rebuilt, read-only.
    from tomgym.eval.runner import summarise_dir

    return summarise_dir(directory, write=False)


def collect(
    directories: Sequence[str | os.PathLike[str]], *, judge_again: bool = True
) -> Leaderboard:
    """One leaderboard from run directories; columns are the union of their envs, in order.

    Every run's stored responses are judged again by this tomgym, in memory, as resuming the
    run would (see :func:`tomgym.eval.rejudge.judge_run_again`): runs written by different
    tomgym versions are then ranked by one judge, and the board says which runs' records hold
    other verdicts. It also notes held-out columns whose env shares stories with an
    in-distribution one (the envs made to judge again show it). ``judge_again=False`` reads
    the stored verdicts only.
    """
    if not directories:
        raise ValueError("no result directories given")
    unique = {os.path.realpath(d): d for d in reversed(directories)}  # the first spelling kept
    directories = [unique[path] for path in dict.fromkeys(map(os.path.realpath, directories))]
    rows: list[LeaderboardRow] = []
    envs: list[str] = []
    labels: dict[str, str] = {}
    suites = set()
    made_with: dict[str, dict[str, str]] = {}
    marked: dict[str, dict[str, bool]] = {}
    asked: dict[str, dict[str, tuple[str, tuple[int, ...], str | None]]] = {}
    judged_now: dict[str, str] = {}
    not_judged_now: dict[str, str] = {}
    shared: dict[str, str] = {}
    changed_since: dict[str, str] = {}
    made: dict[str, Any] = {}  # the envs made to judge again, shared by the runs
    sampled: dict[str, str] = {}
    unchecked: dict[str, str] = {}
    from tomgym.eval.targets import shared_items, shared_stories

    same_items: dict[str, str] = {}
    for directory in directories:
        summary = load_summary(directory)
        metadata = read_metadata(directory)
        if judge_again and metadata is not None:
            summary, again = _judged_now(directory, metadata, summary, made)
            if again.unchecked:
                not_judged_now[str(directory)] = "; ".join(again.unchecked)
            if again.records:
                n = len(again.records)
                judged_now[str(directory)] = (
                    f"{n} stored response{'s' if n != 1 else ''} ({again.newly_correct} now "
                    f"correct, {again.newly_wrong} now wrong)"
                )
            if again.changed:
                changed_since[str(directory)] = ", ".join(
                    f"{count} of {env_id}" for env_id, count in again.changed.items()
                )
            for column, insides, count, total in shared_stories(again.targets):
                shared.setdefault(
                    column,
                    f"{count} of its {total} stories with in-distribution {', '.join(insides)}",
                )
            sizes = {t.env_id: t.size for t in again.targets}
            pairs: dict[str, list[str]] = {}
            for column, inside, count in shared_items(again.targets):
                of = f" of its {sizes[column]}" if sizes.get(column) else ""
                pairs.setdefault(column, []).append(f"{count}{of} items with {inside}")
            for column, parts in pairs.items():
                same_items.setdefault(column, "; ".join(parts))
        suites.add(summary.suite)
        lacking = [f for f in (RESULTS_FILE, METADATA_FILE) if not Path(directory, f).exists()]
        if lacking:
            unchecked[str(directory)] = " and ".join(lacking)
        if metadata is not None and agent_kind(metadata.agent) not in RULE_BASED:
            sampled[str(directory)] = sampling_label(metadata)
        if metadata is not None:
            for plan in [*metadata.stored_envs, *metadata.envs]:
                if plan.env_id in summary.envs:
                    arguments = json.dumps(_made_with(plan), sort_keys=True, default=str)
                    made_with.setdefault(plan.env_id, {})[str(directory)] = arguments
            for plan in metadata.envs:  # the plan the summary covers
                if plan.env_id in summary.envs:
                    described, indices = _items_asked(plan)
                    scored = summary.envs[plan.env_id]
                    served = scored.items_digest
                    recorded = scored.n + scored.failed
                    if recorded < len(indices):  # an interrupted run: not all asked yet
                        described += f", {recorded} of them recorded"
                    asked.setdefault(plan.env_id, {})[str(directory)] = (
                        described,
                        indices,
                        served,
                    )
        rows.append(row_from_summary(summary, str(directory)))
        for env_id, env in summary.envs.items():
            if env_id not in envs:
                envs.append(env_id)
            marked.setdefault(env_id, {})[str(directory)] = env.held_out
        if metadata is not None and metadata.suite:
            labels.update(_suite_labels(metadata.suite))
        if metadata is not None:  # the labels the run recorded (a suite given as a path too)
            labels.update({p.env_id: p.label for p in metadata.envs if p.label})

    # Complete runs rank first: a run scored on a few items (the rest failed or not yet asked)
    # must not top the board on those few.
    # So do runs over every column: an accuracy over a few easy envs is not above one over all.
    def standing(r: LeaderboardRow) -> tuple[bool, bool, bool]:
        return (r.accuracy is None, not r.complete or r.failed > 0,
                len(set(r.envs) & set(envs)) < len(envs))  # fmt: skip

    rows.sort(key=lambda r: (*standing(r), -(r.accuracy or 0.0), r.agent))
    assign_ranks(rows, standing)
    same_agent = Counter(r.agent for r in rows)
    names = Counter(Path(r.directory).name for r in rows)
    for row in rows:
        if same_agent[row.agent] > 1:  # two runs of one agent (another seed, split...)
            name = Path(row.directory).name
            row.run = name if names[name] == 1 else row.directory
    suite = suites.pop() if len(suites) == 1 else None
    mixed = {e: runs for e, runs in made_with.items() if len(set(runs.values())) > 1}
    mixed_held_out = {e: runs for e, runs in marked.items() if len(set(runs.values())) > 1}
    # a column is held out where every run counts it so; a mixed one is said to be mixed
    held_out = {e: all(runs.values()) for e, runs in marked.items()}
    mixed_items = {
        e: {d: described for d, (described, _, _) in runs.items()}
        for e, runs in asked.items()
        if len({indices for _, indices, _ in runs.values()}) > 1
    }
    for e, runs in asked.items():  # the same indices, but the env served other items
        digests = {d: digest for d, (_, _, digest) in runs.items() if digest is not None}
        if e not in mixed_items and len(set(digests.values())) > 1:
            mixed_items[e] = {
                d: f"{runs[d][0]} (items {digest[:8]})" for d, digest in digests.items()
            }
    return Leaderboard(
        suite=suite,
        envs=envs,
        labels=distinct_labels(envs, labels),  # the names the tables show
        held_out=held_out,
        rows=rows,
        mixed=mixed,
        mixed_held_out=mixed_held_out,
        mixed_items=mixed_items,
        judged_now=judged_now,
        not_judged_now=not_judged_now,
        shared_stories=shared,
        shared_items=same_items,
        sampling=sampled if len(set(sampled.values())) > 1 else {},
        unchecked=unchecked,
        changed_since=changed_since,
    )


def sampling_label(metadata: RunMetadata) -> str:
    """A model run's sampling, in words ("temperature 0, 64 tokens", top-p where not 1)."""
    settings = effective_sampling(metadata.sampling)
    label = f"temperature {settings['temperature']:g}, {settings['max_new_tokens']:g} tokens"
    top_p = float(metadata.agent_options.get("top_p", 1.0))
    return label + (f", top-p {top_p:g}" if top_p != 1.0 else "")


def assign_ranks(
    rows: Sequence[LeaderboardRow], standing: Callable[[LeaderboardRow], Hashable]
) -> None:
    """Set each sorted row's ``rank``, competition style ("1", "2=", "2=", "4"): a row ties the
    one before when both have the same ``standing`` and the same accuracy as the tables show it
    (0.1 points), so two rows a reader sees as equal never get different places."""
    keys = [None if r.accuracy is None else (standing(r), round(100 * r.accuracy, 1)) for r in rows]
    first = 1
    for i, (row, key) in enumerate(zip(rows, keys, strict=True)):
        if key is None:
            row.rank = None
            continue
        after_tie = i > 0 and keys[i - 1] == key
        if not after_tie:
            first = i + 1
        tied = after_tie or (i + 1 < len(keys) and keys[i + 1] == key)
        row.rank = f"{first}=" if tied else str(first)


def _judged_now(
    directory: str | os.PathLike[str], metadata: RunMetadata, summary: Summary, made: dict[str, Any]
) -> tuple[Summary, JudgedNow]:
    """The run's summary with its responses judged by this tomgym (the stored one if no verdict
    changes), and what judging them again found."""
    from tomgym.eval.rejudge import judge_run_again
    from tomgym.eval.runner import finish

    again = judge_run_again(Path(directory), metadata, made)
    if again.records:
        summary = finish(Path(directory), metadata, write=False, judged=again.records)
    return summary, again


def _made_with(plan: EnvPlan) -> dict[str, Any]:
    """The arguments that make a column's env differ: its kwargs, less those that leave its
    ID's items as they are (a kwarg at its default) when the run checked that."""
    return plan.comparable_kwargs()


def _items_asked(plan: EnvPlan) -> tuple[str, tuple[int, ...]]:
    """How a run's plan picks an env's items, in words, and the indices it asks."""
    if plan.size is None:  # generated: items 0..n-1 whatever the order option
        return ("item 0" if plan.n == 1 else f"items 0-{plan.n - 1}"), tuple(range(plan.n))
    if plan.n >= plan.size:
        return (f"all {plan.size} items" if plan.size > 1 else "its one item"), tuple(
            range(plan.size)
        )
    how = "of its fixed shuffled order" if plan.items == "shuffled" else "in file order"
    return f"the first {plan.n} {how}", tuple(plan.indices())


def _grouped_by_runs(
    columns: Mapping[str, Mapping[str, str]],
) -> dict[str, tuple[tuple[str, str], ...]]:
    """Env columns whose runs are told alike, one entry per telling: a suite run cut short
    at other items differs so in every column, which made one note per column."""
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for env_id, runs in columns.items():
        groups.setdefault(tuple(runs.items()), []).append(env_id)
    return {
        (f"Column {ids[0]}" if len(ids) == 1 else f"Columns {', '.join(ids)}"): runs
        for runs, ids in groups.items()
    }


def mixed_notes(board: Leaderboard) -> list[str]:
    """One sentence per env column whose runs made the env differently (not comparable)."""
    return (
        [
            f"Column {env_id} mixes runs that made the env with different arguments: "
            + "; ".join(f"{arguments} in {directory}" for directory, arguments in runs.items())
            + "."
            for env_id, runs in board.mixed.items()
        ]
        + [
            f"Column {env_id} is held out in "
            + ", ".join(d for d, h in runs.items() if h)
            + " but in-distribution in "
            + ", ".join(d for d, h in runs.items() if not h)
            + ": those runs' held-out gaps do not compare."
            for env_id, runs in board.mixed_held_out.items()
        ]
        + [
            f"{columns} compare{'s' if columns.startswith('Column ') else ''} runs over "
            "different items: "
            + "; ".join(f"{described} in {directory}" for directory, described in runs)
            + " (their accuracies differ by the items as well as the agent)."
            for columns, runs in _grouped_by_runs(board.mixed_items).items()
        ]
        + held_out_inside_notes(board)
        + [
            f"Column {env_id} is held out but shares {what}: it holds out the questions "
            "(another order or kind), not the stories."
            for env_id, what in board.shared_stories.items()
        ]
        + [
            f"Column {env_id} is held out but shares {what} (in-distribution; by ID, or for "
            "a generated env by its items' content): its gap compares those questions with "
            "themselves, however its env tells them."
            for env_id, what in board.shared_items.items()
        ]
        + [
            f"Run {directory}: this tomgym judges {what} otherwise than its records say; the "
            "board counts the new verdicts (rerun its eval command to store them)."
            for directory, what in board.judged_now.items()
        ]
        + (
            [
                "Model runs sampled differently: "
                + "; ".join(f"{d}: {how}" for d, how in board.sampling.items())
                + " (their accuracies differ by the settings as well as the model)."
            ]
            if board.sampling
            else []
        )
        + [
            f"Run {directory} has no {what}: its row is its summary.json as written, neither "
            "judged again nor compared with the other runs."
            for directory, what in board.unchecked.items()
        ]
        + [
            f"Run {directory} holds records of items that changed since they were made ({what}): "
            "their verdicts are of the old items; rerun its eval command to score the new ones."
            for directory, what in board.changed_since.items()
        ]
        + [
            f"Run {directory}: {why} could not be made here, so its stored verdicts are counted "
            "as they are, not judged again by this tomgym."
            for directory, why in board.not_judged_now.items()
        ]
        + [
            f"The run of {agent} stopped before it finished ({why}); its row holds what it "
            "had answered, and rerunning the command goes on."
            for agent, why in board.stopped.items()
        ]
    )


def held_out_inside_notes(board: Leaderboard) -> list[str]:
    """In-distribution columns whose env serves a held-out env's items (the Hi-ToM release's
    whole copies hold its O4 set): their figures, by order included, are not held out."""
    from tomgym.registry import get_spec

    notes = []
    for env_id in board.envs:
        if board.held_out.get(env_id) or env_id in board.mixed_held_out:
            continue
        try:
            served = get_spec(env_id).serves_held_out
        except KeyError:  # an env registered in another process: nothing known of it here
            continue
        if served:
            notes.append(
                f"Column {env_id} is in-distribution but serves the items of held-out "
                f"{', '.join(served)} (with its registered arguments): its order "
                "figures include those items, so they are not held out."
            )
    return notes


def _suite_labels(suite: str) -> dict[str, str]:
    from tomgym.eval.suites import SuiteError, load_suite

    try:
        loaded = load_suite(suite, check_ids=False)
    except SuiteError:
        return {}
    return {e.id: e.label for e in loaded.envs if e.label}


def _short_id(env_id: str) -> str:
    return re.sub(r"^ToM-|-v\d+$", "", env_id)


def distinct_labels(envs: Sequence[str], suite_labels: Mapping[str, str]) -> dict[str, str]:
    """A distinct name per env column: the suite's label, else the ID without ``ToM-`` and
    ``-vN``. A suite label that reads as another registered env's short ID (the paper suites
    call the Hi-ToM release's O0 env "HiToM-O0", the generated O0 env's name) is not used, and
    labels two envs share fall back to the short ID, then to the full ID."""
    from tomgym.registry import list_envs

    short_ids = {_short_id(spec.id): spec.id for spec in list_envs()}
    labels = {}
    for env_id in envs:
        label = suite_labels.get(env_id) or _short_id(env_id)
        if short_ids.get(label, env_id) != env_id:
            label = _short_id(env_id)
        labels[env_id] = label
    for fallback in (_short_id, str):
        counts = Counter(labels.values())
        labels = {e: fallback(e) if counts[label] > 1 else label for e, label in labels.items()}
    return labels


def column_labels(board: Leaderboard) -> dict[str, str]:
    """The header of every env column: its distinct name, ``(held out)`` where every run
    counts it held out, ``(held out in some runs)`` where runs differ."""
    labels = distinct_labels(board.envs, board.labels)
    return {e: label + _marking(board, e) for e, label in labels.items()}


def _marking(board: Leaderboard, env_id: str) -> str:
    if env_id in board.mixed_held_out:
        return " (held out in some runs)"
    return " (held out)" if board.held_out.get(env_id) else ""


def column_label(board: Leaderboard, env_id: str) -> str:
    """The header of one env column (distinct among the board's columns)."""
    labels = column_labels(board)
    if env_id in labels:
        return labels[env_id]
    return _short_id(env_id) + _marking(board, env_id)


UNANSWERED_NOTE = (
    "n marked (k unanswered) counts items the agent could not answer (a prompt longer than a "
    "served model's context), scored as wrong: its accuracy is not the model's on those items."
)


def coverage_notes(board: Leaderboard) -> list[str]:
    """One line per row that has results for only some of the board's env columns."""
    notes = []
    labels = column_labels(board)  # as the table's header names the columns
    for row in board.rows:
        missing = [e for e in board.envs if row.envs.get(e) is None]
        if missing and len(missing) < len(board.envs):
            shown = ", ".join(labels[e] for e in missing[:4]) + (
                f" and {len(missing) - 4} more" if len(missing) > 4 else ""
            )
            notes.append(
                f"{agent_label(row)} ({row.directory}) has no results for {shown}: its acc is "
                "over its other envs only and ranks after the rows that cover every column."
            )
    return notes


def fallback_notes(board: Leaderboard) -> list[str]:
    """One line per baseline row that gave its fixed fallback answer on some env's items."""
    labels = column_labels(board)
    notes = []
    for row in board.rows:
        if row.fallbacks:
            said = ", ".join(
                f"{labels.get(env_id, env_id)} {count}/{n}"
                for env_id, (count, n) in row.fallbacks.items()
            )
            notes.append(
                f"{agent_label(row)}: its rule did not apply, so it gave a fixed answer (the "
                f"first candidate, or yes), on {said}: there its acc is that answer's, not "
                "its shortcut's."
            )
    return notes


def extra_record_notes(board: Leaderboard) -> list[str]:
    """One line per row whose directory holds records its current plan does not count."""
    return [
        f"{agent_label(row)} ({row.directory}): {row.extra_records} stored records outside its "
        "current plan (of an earlier command's larger --n or other envs) are not counted; "
        "rerun with that plan to count them."
        for row in board.rows
        if row.extra_records
    ]


def items_label(row: LeaderboardRow) -> str:
    """The n cell: scored items, as ``done/planned`` for an incomplete run, failures named."""
    text = str(row.n_items)
    if not row.complete and row.planned is not None:
        text += f"/{row.planned}"
    if row.failed:
        text += f" ({row.failed} failed)"
    if row.unanswered:
        text += f" ({row.unanswered} unanswered)"
    return text


def agent_label(row: LeaderboardRow) -> str:
    name = f"{row.agent} [{row.run}]" if row.run else row.agent
    if not row.privileged:
        return name
    if row.gold_answers:
        return f"{name} ({PRIVILEGED_NOTE}: {row.gold_answers} answers)"
    return f"{name} (simulator)"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


SliceName = Literal["by_order", "by_question_type"]
"""An EnvSummary's slices that a leaderboard pools over envs."""


def _pooled_orders(envs: Iterable[EnvSummary], slices: SliceName = "by_order") -> dict[str, float]:
    """Accuracy per ToM order (or, with ``slices``, per question type) over the items of
    ``envs``, orders in numeric order."""
    hits: dict[str, list[int]] = {}
    for env in envs:
        for order, stats in getattr(env, slices).items():
            bucket = hits.setdefault(order, [0, 0])
            bucket[0] += round(stats.accuracy * stats.n)
            bucket[1] += stats.n
    return {k: h / m for k, (h, m) in sorted(hits.items(), key=lambda kv: order_key(kv[0])) if m}


def _pooled_types(envs: Iterable[EnvSummary]) -> dict[str, float]:
    """Accuracy per question type over the items of ``envs``, types by name."""
    return _pooled_orders(envs, "by_question_type")


def _pooled_counts(envs: Iterable[EnvSummary], slices: SliceName = "by_order") -> dict[str, int]:
    """Items per ToM order (or per question type) over ``envs``."""
    counts: dict[str, int] = {}
    for env in envs:
        for order, stats in getattr(env, slices).items():
            counts[order] = counts.get(order, 0) + stats.n
    return counts


def order_key(order: str) -> tuple[int, float | str]:
    """Numeric orders first, in numeric order ("10" after "4"), then any others by name."""
    try:
        return (0, float(order))
    except ValueError:
        return (1, order)


def _length_units(envs: Sequence[EnvSummary]) -> set[str]:
    """The units the envs' response lengths are in, envs of empty responses aside (0 either
    way); the words of all of them when every env is empty."""
    units = {e.response_tokens_source for e in envs if e.response_tokens_mean}
    return units or {e.response_tokens_source for e in envs}


def _claims_weighted(envs: Sequence[EnvSummary]) -> float | None:
    """Trace fidelity pooled over the belief claims of every env (each env's share weighted by
    its claims, not its items: an env whose responses claim little weighs little)."""
    pairs = [
        (e.trace_fidelity, e.n * e.trace_claims_mean)
        for e in envs
        if e.trace_fidelity is not None and e.trace_claims_mean
    ]
    total = sum(claims for _, claims in pairs)
    return sum(share * claims for share, claims in pairs) / total if total else None


def _env_mean(envs: Sequence[EnvSummary], field: str) -> float | None:
    """The mean of ``field`` over the envs that have it, each env counting once (as ``acc``)."""
    values = [getattr(e, field) for e in envs if getattr(e, field) is not None]
    return sum(values) / len(values) if values else None


def length_label(row: LeaderboardRow) -> str:
    """Mean response length: tokens the agent reported, else words (marked ``w``)."""
    if row.response_tokens_mean is None:
        return "-"
    unit = "" if row.response_tokens_source == "completion_tokens" else " w"
    return f"{row.response_tokens_mean:.0f}{unit}"


def _gap(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"


def table_row(cells: Sequence[str]) -> str:
    """One Markdown table row; a ``|`` or line break inside a cell (a run directory may be
    named ``a|b``) is escaped, so it cannot split the cell and shift the columns."""
    shown = (c.replace("|", "\\|").replace("\r", " ").replace("\n", " ") for c in cells)
    return "| " + " | ".join(shown) + " |"


def to_markdown(board: Leaderboard) -> str:
    """The leaderboard as a Markdown table (accuracy in %, best first)."""
    header = ["rank", "agent", "n", "acc", "95% CI"]
    labels = column_labels(board)
    header += [labels[e] for e in board.envs]
    header += ["in-dist", "held-out", "gap", "gap > chance", "format", "untagged acc", "len"]
    header += ["cut"]
    header += ["reasoning", "trace", "trace cov"]
    labels_f1 = any(r.macro_f1 is not None for r in board.rows)
    if labels_f1:
        header.append("macro-F1")
    lines = [table_row(header), "|" + "|".join("---" for _ in header) + "|"]
    for row in board.rows:
        ci = "-" if row.ci95 is None else f"{_pct(row.ci95[0])}-{_pct(row.ci95[1])}"
        cells = [row.rank or "-", agent_label(row), items_label(row), _pct(row.accuracy), ci]
        cells += [_pct(row.envs.get(e)) for e in board.envs]
        cells += [
            _pct(row.in_distribution),
            _pct(row.held_out),
            _gap(row.held_out_gap),
            _gap(row.held_out_gap_above_chance),
            _pct(row.format_rate),
            _pct(row.lenient_accuracy),
            length_label(row),
            _pct(row.truncated_share),
            _pct(row.reasoning_structure),
            _pct(row.trace_fidelity),
            _pct(row.trace_coverage),
        ]
        if labels_f1:
            cells.append(_pct(row.macro_f1))
        lines.append(table_row(cells))
    notes = [
        "",
        "Accuracy in %; rank = place by acc, complete runs over every column first, a tie "
        "(the same acc as shown, among such rows) marked = (the 95% intervals say which gaps "
        "are more than noise); acc = the mean of the run's env columns, each env counting once "
        "whatever its item count (summary.json's accuracy pools the items), with a 95% "
        "interval of that mean (the envs as independent samples), and every other column but "
        "trace the same mean over the envs; gap = in-distribution minus "
        "held-out (points); gap > chance = the same "
        "over accuracy above chance, (acc - chance) / (1 - chance), so that envs with 2 and 15 "
        "candidates compare (a guessing agent's is about 0); len = mean response length in the "
        "tokens the agent reported, or in whitespace words (w) for agents that report none; cut = "
        "share of responses that ran out of the token budget (- for agents without one); "
        "untagged acc judges a "
        "response with no answer block as a whole (a diagnostic, never a reward); trace = share "
        "of the think part's belief claims that the simulator confirms (Hi-ToM and ToMi; "
        "pooled over the claims of every env), trace cov = its needed chains stated rightly "
        "less those stated wrongly, over all it needed (a trace that claims little has a high "
        "trace and a low cov); "
        "macro-F1 (when a run has label envs such as OpenToM's) averages F1 over the labels, "
        "each answer read as the judge reads it (a credited sentence counts as its label), "
        "so a majority-label guess scores low.",
    ]
    if any(not r.complete or r.failed for r in board.rows):
        notes.append(INCOMPLETE_NOTE)
    if any(r.unanswered for r in board.rows):
        notes.append(UNANSWERED_NOTE)
    notes += coverage_notes(board)
    notes += fallback_notes(board)
    notes += extra_record_notes(board)
    notes += mixed_notes(board)
    if any(r.privileged for r in board.rows):
        notes.append(
            f"Rows marked ({PRIVILEGED_NOTE}) copied that many answers from the gold label "
            "(families the simulator cannot solve); (simulator) rows solved every item."
        )
    return "\n".join(lines + notes + order_table(board) + question_type_table(board)) + "\n"


def order_columns(board: Leaderboard) -> list[tuple[str, bool]]:
    """The (order, held out) columns of the by-order table: in-distribution orders first."""
    inside = {o for r in board.rows for o in r.by_order}
    outside = {o for r in board.rows for o in r.by_order_held_out}
    return [(o, False) for o in sorted(inside, key=order_key)] + [
        (o, True) for o in sorted(outside, key=order_key)
    ]


def order_value(row: LeaderboardRow, order: str, held_out: bool) -> float | None:
    return (row.by_order_held_out if held_out else row.by_order).get(order)


def order_label(order: str, held_out: bool) -> str:
    return f"O{order} (held out)" if held_out else f"O{order}"


def order_table(board: Leaderboard) -> list[str]:
    """Accuracy per ToM order, in-distribution and held-out envs apart (Markdown lines)."""
    return slice_table(
        board,
        "Accuracy by ToM order (%, items in brackets), over the items of the in-distribution "
        "envs and, apart, of the held-out envs; each pools every family (Hi-ToM, ToMi, ...) "
        "with items of that order, whose chance levels differ (1/15 on Hi-ToM, 1/2 on ToMi).",
        [(order_label(o, h), o, h) for o, h in order_columns(board)],
        order_value,
        order_items,
    )


def order_items(row: LeaderboardRow, order: str, held_out: bool) -> int | None:
    return row.order_items.get(f"H{order}" if held_out else order)


def slice_table(
    board: Leaderboard,
    intro: str,
    columns: Sequence[tuple[str, str, bool]],
    value_of: Callable[[LeaderboardRow, str, bool], float | None],
    items_of: Callable[[LeaderboardRow, str, bool], int | None],
) -> list[str]:
    """Markdown lines of accuracy per slice (heading, key, held out), each cell with the items
    behind it ("55.0 (40)": a cell of 11 items reads as noisy); none without columns."""
    if not columns:
        return []
    header = ["agent", *(heading for heading, _, _ in columns)]
    lines = ["", intro, "", table_row(header), "|" + "|".join("---" for _ in header) + "|"]
    for row in board.rows:
        cells = [agent_label(row)]
        for _, key, held_out in columns:
            value, n = value_of(row, key, held_out), items_of(row, key, held_out)
            cells.append(_pct(value) if value is None or n is None else f"{_pct(value)} ({n})")
        lines.append(table_row(cells))
    return lines


ORDER_TELLS_THE_TYPE = frozenset({"reality", "belief"})
"""Question types that the order already tells apart (Hi-ToM: reality is order 0, belief the
others): a board with only these has no question-type table."""


def question_type_columns(board: Leaderboard) -> list[tuple[str, bool]]:
    """The (question type, held out) columns of the question-type table, in-distribution types
    first; none where the by-order table already tells the types apart."""
    inside = {t for r in board.rows for t in r.by_question_type}
    outside = {t for r in board.rows for t in r.by_question_type_held_out}
    if inside | outside <= ORDER_TELLS_THE_TYPE:
        return []
    return [(t, False) for t in sorted(inside)] + [(t, True) for t in sorted(outside)]


def question_type_value(row: LeaderboardRow, kind: str, held_out: bool) -> float | None:
    return (row.by_question_type_held_out if held_out else row.by_question_type).get(kind)


def question_type_items(row: LeaderboardRow, kind: str, held_out: bool) -> int | None:
    return row.question_type_items.get(f"H:{kind}" if held_out else kind)


def question_type_label(kind: str, held_out: bool) -> str:
    return f"{kind} (held out)" if held_out else kind


def question_type_table(board: Leaderboard) -> list[str]:
    """Accuracy per question type, in-distribution and held-out envs apart (Markdown lines)."""
    return slice_table(
        board,
        "Accuracy by question type (%, items in brackets), in-distribution and held-out envs "
        "apart, each pooling every family with questions of that type: where the orders do "
        "not tell the types apart (ToMi's reality and memory questions are both order 0), a "
        "shortcut that answers one type and fails the other shows here.",
        [(question_type_label(t, h), t, h) for t, h in question_type_columns(board)],
        question_type_value,
        question_type_items,
    )


def write_leaderboard(board: Leaderboard, out: str | os.PathLike[str]) -> dict[str, Any]:
    """Write leaderboard.md/.json/.html and the plots; returns what was written (and skipped)."""
    from tomgym.eval.html import render_html
    from tomgym.eval.plots import PlotsUnavailable, write_plots

    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    written: dict[str, Any] = {}
    (directory / "leaderboard.md").write_text(to_markdown(board), encoding="utf-8")
    write_json(directory / "leaderboard.json", board)
    plots: list[Path] = []
    try:
        plots = write_plots(board, directory / "plots")
        written["plots"] = [str(p) for p in plots]
    except PlotsUnavailable as exc:
        written["plots_skipped"] = str(exc)
    shown = [p.relative_to(directory).as_posix() for p in plots]  # the page shows them
    (directory / "leaderboard.html").write_text(render_html(board, shown), encoding="utf-8")
    written["files"] = [str(directory / f"leaderboard.{x}") for x in ("md", "json", "html")]
    return written


def safe_name(agent: str) -> str:
    """A directory name for an agent spec (``hf:org/model`` -> ``hf_org_model``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", agent).strip("_") or "agent"


def run_folder_names(out: Path, agents: Sequence[str]) -> dict[str, Path]:
    """``out/runs/<safe_name(agent)>`` for each agent; where two agents of one command share
    that name (``hf:org/model`` and ``hf:org_model``, names in another script), each gets
    the name followed by a digest of its spec, unless the plain folder already holds its run.
    Said in a note: before, the second agent was refused after the first had run."""
    by_name: dict[str, list[str]] = {}
    for agent in dict.fromkeys(agents):
        by_name.setdefault(safe_name(agent), []).append(agent)
    folders: dict[str, Path] = {}
    for name, specs in by_name.items():
        plain = out / "runs" / name
        if len(specs) == 1:
            folders[specs[0]] = plain
            continue
        try:
            stored = read_metadata(plain)
        except RunFileError:
            stored = None
        owner = stored.agent if stored is not None else None
        for spec in specs:
            digest = hashlib.sha256(spec.encode("utf-8")).hexdigest()[:8]
            folders[spec] = plain if spec == owner else out / "runs" / f"{name}-{digest}"
        print(
            f"tomgym leaderboard: note: {', '.join(specs)} share the folder name {name}: "
            + "; ".join(f"{spec} runs in {folders[spec]}" for spec in specs),
            file=sys.stderr,
        )
    return folders


def stored_runs(out: Path) -> list[tuple[Path, RunMetadata]]:
    """The run folders under ``out/runs`` with readable metadata, in name order (a damaged one
    is named when given to a leaderboard by hand)."""
    runs = out / "runs"
    found = []
    for directory in sorted(runs.iterdir()) if runs.is_dir() else []:
        if not directory.is_dir():
            continue
        try:
            metadata = read_metadata(directory)
        except RunFileError:
            continue
        if metadata is not None:
            found.append((directory, metadata))
    return found


def earlier_suite_runs(out: Path, suite: str, ran: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Run folders under ``out/runs`` of this suite that this command did not run (an earlier
    command's agents): the board of a suite directory holds every agent run into it."""
    done = {Path(d).resolve() for d in ran}
    return [
        directory
        for directory, metadata in stored_runs(out)
        if metadata.suite == suite and directory.resolve() not in done
    ]


def suite_run_directory(out: Path, agent: str, claimed: set[Path], own: Path | None = None) -> Path:
    """``out/runs/<agent>``, or the run there of the same agent under an earlier spec: a
    served model whose URL changed (``127.0.0.1`` -> ``localhost``, a new port after a
    restart) is the same agent (``store.agent_identity``), and its finished items were asked
    all over again in a new directory. A directory another agent of this command names
    (two servers of one model name, compared) is never taken. ``own``: the agent's folder
    as :func:`run_folder_names` names it."""
    own = own or out / "runs" / safe_name(agent)
    identity = agent_identity(agent)
    if own.exists() or identity == agent:
        return own
    for directory, metadata in stored_runs(out):
        if directory not in claimed and agent_identity(metadata.agent) == identity:
            print(
                f"tomgym leaderboard: note: {agent} goes on in {directory}, the run of "
                f"{metadata.agent} (the same served model at another URL)",
                file=sys.stderr,
            )
            return directory
    return own


def options_taken(spec: str, options: dict[str, Any]) -> dict[str, Any]:
    """The agent options that the spec's kind of agent takes (a leaderboard's ``timeout`` is
    for its served models, not its baselines)."""
    from tomgym.agents.base import SAMPLING_OPTIONS, agent_options

    known = (*SAMPLING_OPTIONS, *agent_options(spec))
    return {k: v for k, v in options.items() if k in known}


def run_suite(
    suite: str,
    agents: Sequence[str],
    out: str | os.PathLike[str],
    **evaluate_kwargs: Any,
) -> Leaderboard:
    """Evaluate each agent on the suite into ``out/runs/<agent>`` (resumable) and tabulate."""
    from tomgym.eval.runner import evaluate

    if not agents:
        raise ValueError("no agents given")
    for spec in agents:  # every spec, before the first agent runs
        check_agent_spec(spec)
    given = dict(evaluate_kwargs.pop("agent_options", None) or {})
    taken = {spec: options_taken(spec, given) for spec in agents}
    unused = sorted(set(given) - {k for options in taken.values() for k in options})
    if unused:
        raise ValueError(
            f"no agent of {', '.join(agents)} takes the option {', '.join(map(repr, unused))}"
        )
    directories = []
    stopped: dict[str, str] = {}
    stopped_in: list[str] = []
    folders = run_folder_names(Path(out), agents)
    claimed = set(folders.values())
    for number, agent in enumerate(agents, 1):
        directory = suite_run_directory(Path(out), agent, claimed, folders[agent])
        claimed.add(directory)
        if not evaluate_kwargs.get("quiet"):  # each agent's progress lines look alike
            print(f"agent {number}/{len(agents)}: {agent} -> {directory}", file=sys.stderr)
        try:
            evaluate(
                agent, suite=suite, out=directory, agent_options=taken[agent], **evaluate_kwargs
            )
        except AgentUnavailableError as exc:  # the other agents still run; said at the end
            stopped[agent] = str(exc)
            stopped_in.append(str(directory))
            if not (directory / METADATA_FILE).exists():
                continue
        directories.append(directory)
    board = collect(directories)  # evaluate judged them again: this finds nothing new
    board.stopped = stopped
    for stopped_dir in stopped_in:  # its own note says it stopped, not "no results.jsonl"
        board.unchecked.pop(stopped_dir, None)
    return board
