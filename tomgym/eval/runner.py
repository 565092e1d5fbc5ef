"""Evaluate an agent on envs or a suite: batched, scored by the env itself, resumable."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from tomgym.agents.base import (
    RUN_SETTINGS,
    Agent,
    Episode,
    MeasuresPrompts,
    Response,
    check_agent_options,
    make_agent,
)
from tomgym.env import EnvArgumentError, HeldOutRedefinedWarning, ToMEnv
from tomgym.eval.metrics import Summary, summarise, think_features
from tomgym.eval.store import (
    ITEM_ORDERS,
    METADATA_FILE,
    SUMMARY_FILE,
    EnvPlan,
    ItemOrder,
    ResultRecord,
    ResultsStore,
    RunMetadata,
    planned_indices,
    read_metadata,
    write_json,
)
from tomgym.items import SPLITS, ToMItem
from tomgym.registry import ToMEnvSpec, get_spec
from tomgym.rewards import score_response as reward_of
from tomgym.sources import ListSource

DEFAULT_N = 100
DEFAULT_BATCH_SIZE = 8
DEFAULT_SPLIT = "test"


class RunConflictError(ValueError):
    """The output directory holds a run that differs in what matters (agent, seed, kwargs)."""


@dataclass
class EnvTarget:
    """One env of a run, resolved: the kwargs it is made with and how many items it serves."""

    env_id: str
    kwargs: dict[str, Any]
    held_out: bool
    n: int
    spec: ToMEnvSpec
    env: ToMEnv | None = field(default=None, repr=False)
    items: ItemOrder = "first"
    size: int | None = None
    marked: bool = False
    """Whether ``held_out`` was given (a suite entry), not derived from the ID and kwargs."""
    label: str | None = None
    """The suite's column label for the env, if it gives one."""
    changes_items: bool = False
    """Whether its kwargs make it serve other items than its ID (``_changes_distribution``)."""

    def plan(self) -> EnvPlan:
        return EnvPlan(
            env_id=self.env_id,
            label=self.label,
            changes_items=self.changes_items,
            kwargs=self.kwargs,
            held_out=self.held_out,
            n=self.n,
            spec=self.spec.model_dump(mode="json"),
            items=self.items,
            size=self.size,
        )

    def indices(self) -> list[int]:
        return planned_indices(self.items, self.n, self.size)


HELD_OUT_SPLITS = ("val", "test")
"""Splits tried, in this order, when an env does not take the requested one."""


def order_for(order: ItemOrder, n: int, size: int | None) -> ItemOrder:
    """The order a plan records: ``order`` where it picks which items (a fixed env, n below
    its size), else ``first`` (every item, or a procedural env's iid items 0..n-1)."""
    return order if size is not None and n < size else "first"


def open_env(
    env_id: str, kwargs: dict[str, Any], split: str | None
) -> tuple[ToMEnv, dict[str, Any]]:
    """Make the env with ``split`` unless the kwargs set one; returns the kwargs used.

    An env that has splits but not this one (ValueError) is made with the first held-out split
    it has (``val``, then ``test``), never silently with its own default (often ``train``); only
    an env with neither, or one that takes no split at all (TypeError), gets its own default.
    Any change of split is said on stderr.
    """
    with warnings.catch_warnings():  # resolve_targets says it of the run's column itself
        warnings.simplefilter("ignore", HeldOutRedefinedWarning)
        return _open_env(env_id, kwargs, split)


def _open_env(
    env_id: str, kwargs: dict[str, Any], split: str | None
) -> tuple[ToMEnv, dict[str, Any]]:
    import tomgym

    if split is None or "split" in kwargs:
        return tomgym.make(env_id, **kwargs), dict(kwargs)
    refusals = []
    for candidate in dict.fromkeys([split, *HELD_OUT_SPLITS]):
        try:
            env = tomgym.make(env_id, **kwargs, split=candidate)
        except EnvArgumentError as exc:  # a bad value (it is a TypeError too): try the next
            refusals.append(str(exc))
            continue
        except TypeError as exc:
            refusals.append(f"it takes no split: {exc}")
            break
        except ValueError as exc:
            refusals.append(str(exc))
            continue
        if candidate != split:
            print(
                f"tomgym: note: {env_id} has no {split!r} split; using its held-out split "
                f"{candidate!r}",
                file=sys.stderr,
            )
        return env, {**kwargs, "split": candidate}
    env = tomgym.make(env_id, **kwargs)
    if has_splits(env):
        tried = ", ".join(repr(s) for s in dict.fromkeys([split, *HELD_OUT_SPLITS]))
        items = getattr(getattr(env.unwrapped, "source", None), "items", ())
        present = ", ".join(sorted({item.split for item in items})) or "its own"
        print(
            f"tomgym: warning: {env_id} has none of the splits {tried}, only {present}: "
            f"evaluating on those items, which are not held out ({refusals[-1]})",
            file=sys.stderr,
        )
    else:
        print(f"tomgym: note: {env_id} has no splits; using all its items", file=sys.stderr)
    return env, dict(kwargs)


def has_splits(env: ToMEnv) -> bool:
    """Whether the env takes ``split=`` and its items have splits (a user's items, or a release
    such as Hi-ToM's, may all be ``all``)."""
    unwrapped = env.unwrapped
    if not isinstance(unwrapped, ToMEnv) or "split" not in unwrapped.source_arguments():
        return False
    items = getattr(unwrapped.source, "items", None)
    return items is None or any(item.split != "all" for item in items)


Entry = tuple[str, dict[str, Any], bool | None, int | None, str | None]
"""A run's env as asked: ID, kwargs, held-out marking, n and column label (None: not given)."""


def resolve_targets(
    env_ids: Sequence[str] | None,
    suite: str | os.PathLike[str] | None,
    n: int | None,
    split: str | None,
    env_kwargs: dict[str, Any] | None,
    *,
    item_order: ItemOrder = "shuffled",
    skip_missing: bool = False,
) -> tuple[list[EnvTarget], str | None, int | None]:
    """The envs of a run (from IDs or a suite), made once; also the suite's name and seed.

    A repeated env ID is asked once (the first occurrence wins). ``n`` must be at least 1.
    An env whose kwargs make it serve other items than its ID (see
    ``_changes_distribution``) is counted as held out unless a suite marks it: it is not the
    ID's training distribution. ``item_order`` picks a fixed env's ``n`` items (see
    ``planned_indices``). ``skip_missing``: an env whose release is not under the data root is
    left out, with a note (a suite with FANToM, where its file cannot be had), not an error.
    """
    from tomgym.data import MissingDataError
    from tomgym.eval.suites import load_suite

    if isinstance(env_ids, str):
        env_ids = [env_ids]  # one ID, not its characters
    if (env_ids is None) == (suite is None):
        raise ValueError("give either envs (env IDs) or a suite, not both and not neither")
    if n is not None and n < 1:
        raise ValueError(f"n (items per env) must be at least 1, got {n}")
    entries: list[Entry]
    suite_name: str | None = None
    suite_seed: int | None = None
    if suite is not None:
        loaded = load_suite(suite)
        suite_name, suite_seed = loaded.name, loaded.seed
        default_n = n if n is not None else loaded.n
        split = split if split is not None else loaded.split
        entries = [
            (
                e.id,
                {**e.kwargs, **(env_kwargs or {})},
                e.held_out,
                n if n is not None else e.n,
                e.label or None,
            )
            for e in loaded.envs
        ]
    else:
        assert env_ids is not None
        if not env_ids:
            raise ValueError("no env IDs given")
        default_n = n if n is not None else DEFAULT_N
        entries = [(i, dict(env_kwargs or {}), None, None, None) for i in env_ids]
    first: dict[str, Entry] = {}
    for entry in entries:
        first.setdefault(entry[0], entry)
    entries = list(first.values())
    targets: list[EnvTarget] = []
    for env_id, kwargs, held_out, env_n, label in entries:
        spec = get_spec(env_id)
        try:
            env, used = open_env(env_id, kwargs, split)
        except MissingDataError as exc:
            if not skip_missing:
                if suite is None:
                    raise
                raise MissingDataError(
                    f"{exc} (--skip-missing runs the suite without the envs whose release is "
                    "not installed)"
                ) from None
            print(f"tomgym: note: {env_id} left out (--skip-missing): {exc.brief}", file=sys.stderr)
            continue
        wanted = env_n if env_n is not None else default_n
        if wanted < 1:
            raise ValueError(f"n (items per env) must be at least 1, got {wanted} for {env_id}")
        size = env.size
        marked = held_out is not None
        changed = _changes_distribution(env_id, env, used, spec.held_out or marked)
        if held_out is None:
            held_out = spec.held_out or changed
        count = min(wanted, size) if size is not None else wanted
        targets.append(
            EnvTarget(
                env_id=env_id,
                kwargs=used,
                held_out=held_out,
                n=count,
                spec=spec,
                env=env,
                items=order_for(item_order, count, size),
                size=size,
                marked=marked,
                label=label,
                changes_items=changed,
            )
        )
    warn_shared_items(targets)
    if not targets:
        raise ValueError("every env of the run was left out: none of their releases is installed")
    return targets, suite_name, suite_seed


def shared_items(targets: Sequence[EnvTarget]) -> list[tuple[str, str, int]]:
    """(held-out env, in-distribution env, items they share) for fixed envs (a release, a data
    file): such a pair's gap compares items partly with themselves (the Hi-ToM release with its
    own O4 subset). Generated envs draw from separate streams and are not compared."""
    sources = {t.env_id: t.env.source for t in targets if t.env is not None}
    ids = {
        env_id: {item.id for item in source.items}
        for env_id, source in sources.items()
        if isinstance(source, ListSource)
    }
    return [
        (out.env_id, inside.env_id, len(ids[out.env_id] & ids[inside.env_id]))
        for out in targets
        if out.held_out and out.env_id in ids
        for inside in targets
        if not inside.held_out and inside.env_id in ids and ids[out.env_id] & ids[inside.env_id]
    ]


def shared_stories(targets: Sequence[EnvTarget]) -> list[tuple[str, list[str], int, int]]:
    """(held-out env, the in-distribution envs it shares stories with, stories shared, its
    stories) for fixed envs that share stories but no items: the Hi-ToM release asks every
    order about each story, so its held-out O4 questions are about the stories of O0-O3."""
    stories = {
        t.env_id: {item.story.strip() for item in t.env.source.items}
        for t in targets
        if t.env is not None and isinstance(t.env.source, ListSource)
    }
    with_items = {(out, inside) for out, inside, _ in shared_items(targets)}
    found = []
    for out in targets:
        if not out.held_out or out.env_id not in stories:
            continue
        insides = [
            t.env_id
            for t in targets
            if not t.held_out
            and t.env_id in stories
            and (out.env_id, t.env_id) not in with_items
            and stories[out.env_id] & stories[t.env_id]
        ]
        if insides:
            seen = set().union(*(stories[e] for e in insides))
            mine = stories[out.env_id]
            found.append((out.env_id, insides, len(mine & seen), len(mine)))
    return found


def warn_shared_items(targets: Sequence[EnvTarget]) -> None:
    for held_out, inside, count in shared_items(targets):
        print(
            f"tomgym: warning: held-out {held_out} shares {count} items with in-distribution "
            f"{inside}: their gap compares those items with themselves",
            file=sys.stderr,
        )
    for held_out, insides, shared, total in shared_stories(targets):
        print(
            f"tomgym: note: held-out {held_out} shares {shared} of its {total} stories "
            f"with in-distribution {', '.join(insides)}: it holds out the questions (another "
            "order or kind), not the stories",
            file=sys.stderr,
        )


NEUTRAL_KWARGS = frozenset({"split", "seed", "reward", "prompt", "prefill_think", "render_mode"})
"""Env arguments that leave an ID's item distribution as it is (which items, how scored)."""


def _changes_distribution(
    env_id: str, env: ToMEnv, kwargs: Mapping[str, Any], marked: bool = False
) -> bool:
    """Whether ``kwargs`` make the env serve other items than its ID does (``vocab_split="test"``
    on ToM-HiToM-O2-v0 serves the NewVocab ID's items; ``vocab_split="train"``, its default,
    serves its own): its first items against those of the ID made with the neutral kwargs
    only. Said on stderr when so."""
    import tomgym

    changed = {k: v for k, v in kwargs.items() if k not in NEUTRAL_KWARGS}
    if not changed:
        return False
    try:
        reference = tomgym.make(env_id, **{k: v for k, v in kwargs.items() if k in NEUTRAL_KWARGS})
        same = reference.size == env.size and all(
            _content(reference.source.item(i)) == _content(env.source.item(i))
            for i in range(min(CONTENT_PROBE_ITEMS, env.size or CONTENT_PROBE_ITEMS))
        )
    except (TypeError, ValueError, KeyError, IndexError):
        same = False
    if not same:
        # said for an env already held out too: its column no longer holds its ID's items
        counted = (
            "its column shows those, not the ID's"
            if marked
            else "counted as held out (a suite entry can say otherwise with its held_out)"
        )
        print(
            f"tomgym: note: {env_id} with {changed} serves other items than its ID: {counted}",
            file=sys.stderr,
        )
    return not same


CONTENT_PROBE_ITEMS = 8


def _content(item: ToMItem) -> tuple[Any, ...]:
    return (item.story, item.question, item.gold_text, item.candidates, item.order)


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
    )


def score_response(
    env: ToMEnv, episode: Episode, index: int, response: Response, held_out: bool, seconds: float
) -> ResultRecord:
    """Score one response with the env itself (a fresh reset of the same index, then step)."""
    env.reset(options={"index": index})
    item = env.current_item
    assert item is not None
    text = response.text if isinstance(response.text, str) else ""
    _, reward, _, _, info = env.step(text)
    lenient = bool(info["correct"])
    if info["verdict"] == "no_answer" and text.strip():
        # as the lenient reward judges it: untagged responses, outside their think part
        lenient = reward_of(text, item, "lenient", episode.prefill).correct
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
        order=item.order,
        question_type=item.question_type,
        answer_type=item.answer_type,
        chance=chance_of(item),
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
    )


def chance_of(item: ToMItem) -> float | None:
    """A uniform guess's chance on the item (None where guessing has no set to draw from)."""
    if item.answer_type == "choice" and item.candidates:
        return 1 / len(item.candidates)
    if item.answer_type == "yes_no":
        return 0.5
    return None


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


class Progress:
    """A progress line on stderr: ``\\r`` updates on a TTY, else one line per env at its end."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None, quiet: bool = False):
        self.label, self.total = label, total
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = self.stream.isatty()
        self.done = self.hits = self.failed = 0
        self.start = time.monotonic()

    def update(self, records: Iterable[ResultRecord]) -> None:
        for record in records:
            self.done += 1
            self.failed += record.failed
            self.hits += record.correct and not record.failed
        if self.tty and not self.quiet:
            self.stream.write("\r" + self.line())
            self.stream.flush()

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        scored = self.done - self.failed  # failed items are left out of accuracy, as later
        accuracy = f"{self.hits / scored:.3f}" if scored else "-"
        failed = f" failed {self.failed}" if self.failed else ""
        eta_text = "?" if eta != eta else _duration(eta)
        return (
            f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
            f"acc {accuracy}{failed} elapsed {_duration(elapsed)} eta {eta_text}"
        )

    def close(self) -> None:
        if self.quiet:
            return
        if self.tty:
            self.stream.write("\r" + self.line() + "\n")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def git_revision() -> str | None:
    """HEAD of the checkout tomgym runs from, ``-dirty`` with uncommitted changes to tracked
    files (the revision alone does not say what ran); None outside a git checkout."""
    revision = _git("rev-parse", "HEAD")
    if not revision:
        return None
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return revision + "-dirty" if dirty else revision


def _git(*args: str) -> str:
    """A git command's output in tomgym's directory ("" when git fails or is missing)."""
    try:
        out = subprocess.run(
            ["git", *args],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def keep_stored_split(target: EnvTarget, old: RunMetadata) -> EnvTarget:
    """``target`` as the directory's run made it, when the two differ only in a split that
    this command did not ask for.

    The split an env falls back to has changed over tomgym's versions (an env without
    ``test`` once got its own default, now a held-out split): resuming an older directory
    must finish that run, not conflict with it. A split given explicitly is never replaced.
    """
    stored = {e.env_id: e for e in [*old.stored_envs, *old.envs]}.get(target.env_id)
    if stored is None or stored.kwargs == target.kwargs:
        return target
    mine = {k: v for k, v in target.kwargs.items() if k != "split"}
    theirs = {k: v for k, v in stored.kwargs.items() if k != "split"}
    if mine != theirs:
        return target
    import tomgym

    print(
        f"tomgym: note: {target.env_id}: resuming with the directory's env arguments "
        f"{stored.kwargs} (this command would choose {target.kwargs})",
        file=sys.stderr,
    )
    env = tomgym.make(target.env_id, **stored.kwargs)
    size = env.size
    n = min(target.n, size) if size is not None else target.n
    items = order_for(target.items, n, size)
    return replace(target, kwargs=dict(stored.kwargs), env=env, n=n, size=size, items=items)


def keep_stored_marking(target: EnvTarget, old: RunMetadata) -> EnvTarget:
    """``target`` with the directory's held-out marking when this command derived its own
    (no suite marking) and the env is made with the same arguments: a directory made before
    kwargs could mark an env held out resumes instead of conflicting."""
    stored = {e.env_id: e for e in [*old.stored_envs, *old.envs]}.get(target.env_id)
    if target.marked or stored is None or stored.kwargs != target.kwargs:
        return target
    if stored.held_out == target.held_out:
        return target
    print(
        f"tomgym: note: {target.env_id}: resuming with the directory's held-out marking "
        f"({stored.held_out})",
        file=sys.stderr,
    )
    return replace(target, held_out=stored.held_out)


def keep_stored_order(target: EnvTarget, old: RunMetadata, *, given: bool) -> EnvTarget:
    """``target`` asking its items in the order the directory's run used for that env: an
    older directory (always ``first``) resumes as it was made. An order given explicitly that
    differs is a RunConflictError."""
    stored = {e.env_id: e for e in [*old.stored_envs, *old.envs]}.get(target.env_id)
    if stored is None or stored.items == target.items:
        return target
    if target.size is None or target.n >= target.size:
        return target  # every item is asked: the order picks nothing
    if stored.size is not None and stored.n >= stored.size:
        return target  # the stored run asked every item: its order chose nothing either
    if given:
        raise RunConflictError(
            f"{target.env_id}: this directory asked its items in {stored.items!r} order, not "
            f"{target.items!r}; use another --out"
        )
    print(
        f"tomgym: note: {target.env_id}: resuming with the directory's item order "
        f"{stored.items!r}",
        file=sys.stderr,
    )
    return replace(target, items=stored.items)


def _stored_plans(old: RunMetadata | None, current: list[EnvPlan]) -> list[EnvPlan]:
    """Plans of earlier commands on the directory for envs the current plan leaves out."""
    if old is None:
        return []
    ours = {p.env_id for p in current}
    stored = {p.env_id: p for p in [*old.stored_envs, *old.envs] if p.env_id not in ours}
    return list(stored.values())


class OutputDirError(ValueError):
    """The output directory cannot be used (a file, not writable, cannot be made)."""


def prepare_out(directory: Path) -> None:
    """Make the output directory and check it is writable: before any agent or model loads."""
    if directory.exists() and not directory.is_dir():
        raise OutputDirError(f"--out {directory} is a file, not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputDirError(f"cannot create --out {directory}: {exc.strerror or exc}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputDirError(f"cannot write to --out {directory} (permission denied)")


def best_records(records: Iterable[ResultRecord]) -> dict[tuple[str, int], ResultRecord]:
    """One record per item: the last scored one, else the last failed one (a retried item's
    new record supersedes its failure)."""
    best: dict[tuple[str, int], ResultRecord] = {}
    for record in records:
        previous = best.get(record.key)
        if previous is None or record.failed <= previous.failed:
            best[record.key] = record
    return best


def evaluate(
    agent: str | Agent,
    envs: Sequence[str] | None = None,
    *,
    suite: str | os.PathLike[str] | None = None,
    n: int | None = None,
    seed: int | None = None,
    out: str | os.PathLike[str],
    split: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    workers: int = 1,
    ray_address: str | None = None,
    temperature: float | None = None,
    max_new_tokens: int | None = None,
    agent_options: dict[str, Any] | None = None,
    quiet: bool = False,
    item_order: ItemOrder | None = None,
    retry_unanswered: bool = False,
    skip_missing: bool = False,
) -> Summary:
    """Evaluate ``agent`` (a spec string or an Agent) and write ``out``/results, metadata, summary.

    Each env serves ``n`` items (capped at its size; ``n >= 1``; a repeated env is asked
    once): a generated env its indices ``0..n-1``, a fixed env (a release, a user's data) the
    first ``n`` of one fixed shuffled order (``item_order="shuffled"``, the default: a release
    stored order by order is then sampled across its orders) or ``0..n-1``
    (``item_order="first"``). A directory resumes in the order it was made with.
    ``split`` is passed to envs that take one (default: ``test`` for env IDs, the
    suite's own split for a suite); an env without it gets a held-out split (see ``open_env``).
    ``seed`` goes to the agent (default: the suite's seed, else 0), and so does ``batch_size``
    (the batches the runner asks for are the ones a model agent generates). Sampling options
    and the output directory are checked before the agent is built.

    Rerunning on the same ``out`` resumes: items already scored are skipped. An item whose
    agent request failed (``Response.failed``) is recorded as failed, left out of every number
    and counted in ``failed_items``; a rerun asks it again and the new record replaces it.
    An item the agent could not answer (a prompt over a served model's context: scored empty,
    counted in ``unanswered_items``) is asked again only with ``retry_unanswered`` (after the
    server's context was raised).
    The summary covers exactly this call's plan: records of an earlier, larger ``n`` or of
    other envs stay in ``results.jsonl`` uncounted (``extra_records``); ``complete`` says
    whether every planned item is scored. ``workers > 1`` or ``ray_address`` runs agent
    replicas as Ray actors.
    """
    from tomgym.agents.chat import Sampling

    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if n is not None and n < 1:
        raise ValueError(f"n (items per env) must be at least 1, got {n}")
    split_given = split is not None
    if suite is None and split is None:
        split = DEFAULT_SPLIT
    if item_order is not None and item_order not in ITEM_ORDERS:
        raise ValueError(f"item_order must be one of {ITEM_ORDERS}, got {item_order!r}")
    if split_given and split not in SPLITS:  # a typo must not fall back to another split
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    if split == "train":
        print(
            "tomgym: note: --split train evaluates on training items: in-distribution figures "
            "of what a model may have trained on, not held out",
            file=sys.stderr,
        )
    targets, suite_name, suite_seed = resolve_targets(
        envs,
        suite,
        n,
        split,
        env_kwargs,
        item_order=item_order or "shuffled",
        skip_missing=skip_missing,
    )
    run_seed = seed if seed is not None else (suite_seed if suite_seed is not None else 0)
    if suite is not None:
        from tomgym.eval.suites import load_suite

        suite_sampling = load_suite(suite).sampling
        temperature = temperature if temperature is not None else suite_sampling.get("temperature")
        if max_new_tokens is None and "max_new_tokens" in suite_sampling:
            max_new_tokens = int(suite_sampling["max_new_tokens"])
    sampling = {
        k: v
        for k, v in (("temperature", temperature), ("max_new_tokens", max_new_tokens))
        if v is not None
    }
    given = dict(agent_options or {})
    own = sorted(k for k in ("temperature", "max_new_tokens", "seed", "batch_size") if k in given)
    if own:
        raise ValueError(
            f"agent option {', '.join(own)}: give it as its own argument (--temperature, "
            "--max-new-tokens, --seed, --batch-size), which the run records"
        )
    options = {"seed": run_seed, "batch_size": batch_size, **sampling, **given}
    sampled = not Sampling.from_options(options).greedy  # a bad temperature fails here
    spec = agent if isinstance(agent, str) else agent.spec
    if isinstance(agent, str):
        check_agent_options(agent, options)  # a misspelt option fails before --out is made
    shaping = {k: v for k, v in sorted(given.items()) if k not in RUN_SETTINGS}
    directory = Path(out)
    created = not directory.exists()
    prepare_out(directory)
    old = read_metadata(directory)
    if old is not None and not split_given:
        targets = [keep_stored_split(t, old) for t in targets]
    if old is not None:
        targets = [keep_stored_order(t, old, given=item_order is not None) for t in targets]
        targets = [keep_stored_marking(t, old) for t in targets]
    plans = [t.plan() for t in targets]
    revision = git_revision()
    revisions: list[str] = []
    if old is not None:
        revisions = list(old.revisions or ([old.git_revision] if old.git_revision else []))
    if revision and revision not in revisions[-1:]:
        revisions.append(revision)
    metadata = RunMetadata(
        tomgym_version=_version(),
        git_revision=old.git_revision if old is not None else revision,
        revisions=revisions,
        agent=spec,
        privileged=False,
        sampling=sampling,
        agent_options=shaping,
        seed=run_seed,
        seed_scheme="per-item",
        n=max(t.n for t in targets),
        suite=suite_name,
        envs=plans,
        stored_envs=_stored_plans(old, plans),
        created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    )
    if old is not None:
        problems = metadata.conflicts(old)
        if problems:
            raise RunConflictError(
                f"{directory} holds a different run; use another --out or delete it. "
                + "; ".join(problems)
            )
        metadata = metadata.model_copy(update={"created": old.created})
    store = ResultsStore(directory)
    best = best_records(store.load())
    done = {
        key
        for key, record in best.items()
        if not record.failed and not (retry_unanswered and record.error)
    }
    pending = {t.env_id: [i for i in t.indices() if (t.env_id, i) not in done] for t in targets}
    if old is not None and old.seed_scheme != metadata.seed_scheme:
        if sampled and any(pending.values()):
            raise RunConflictError(
                f"{directory} holds a sampled run of an older tomgym, which seeded each batch, "
                "not each item: finishing it here would mix the two kinds of draws; use another "
                "--out (greedy runs are unaffected)"
            )
        metadata = metadata.model_copy(update={"seed_scheme": old.seed_scheme})
    built: Agent | None = agent if not isinstance(agent, str) else None
    distributed = workers > 1 or ray_address is not None
    if any(pending.values()) and built is None and not distributed:
        try:
            built = make_agent(agent, **options) if isinstance(agent, str) else None
        except BaseException:
            if created and not any(directory.iterdir()):
                directory.rmdir()  # a misspelt agent leaves no empty --out behind
            raise
    if built is not None:
        metadata = metadata.model_copy(
            update={"agent_description": built.describe(), "privileged": built.privileged}
        )
    elif old is not None:
        metadata = metadata.model_copy(
            update={"agent_description": old.agent_description, "privileged": old.privileged}
        )
    write_json(directory / METADATA_FILE, metadata)
    if batch_size > 1:  # for one process and for Ray workers alike
        for target in targets:
            if target.env is not None and pending[target.env_id]:
                pending[target.env_id] = longest_prompt_first(
                    target.env, pending[target.env_id], built, target.env_id, target.spec.family
                )

    try:
        if distributed:
            from tomgym.eval.distributed import run_distributed

            info = run_distributed(
                agent if built is None else built,
                options,
                targets,
                pending,
                store,
                batch_size=batch_size,
                workers=max(1, workers),
                address=ray_address,
                quiet=quiet,
            )
            if info:
                metadata = metadata.model_copy(update=info)
                write_json(directory / METADATA_FILE, metadata)
        else:
            assert built is not None or not any(pending.values())
            for target in targets:
                todo = pending[target.env_id]
                progress = Progress(target.env_id, target.n, quiet=quiet)
                progress.done = target.n - len(todo)
                progress.hits = sum(
                    best[(target.env_id, i)].correct
                    for i in target.indices()
                    if (target.env_id, i) in done
                )
                env = target.env
                assert env is not None
                for start in range(0, len(todo), batch_size):
                    assert built is not None
                    batch = todo[start : start + batch_size]
                    fresh = run_batch(
                        built, env, target.env_id, batch, target.spec.family, target.held_out
                    )
                    store.append(fresh)
                    progress.update(fresh)
                progress.close()
    except BaseException:
        # Interrupted (Ctrl-C, a crash): summary.json says what is done under the new plan,
        # not what the previous command finished.
        finish(directory, metadata)
        raise
    return finish(directory, metadata)


def finish(directory: Path, metadata: RunMetadata, *, write: bool = True) -> Summary:
    """Summarise the plan of ``metadata`` and write ``summary.json``.

    Keeps one record per item (a retried item's new record replaces its failure) and rewrites
    the results in canonical order (env order, then index). The summary counts only the
    planned items (``EnvPlan.indices``) of each planned env; other stored records stay on disk
    (``extra_records``). ``write=False`` changes no file (for readers such as the leaderboard).
    """
    store = ResultsStore(directory)
    records = store.load(repair=write)
    order = [*metadata.envs, *metadata.stored_envs]
    position = {p.env_id: k for k, p in enumerate(order)}
    ordered = sorted(
        best_records(records).values(),
        key=lambda r: (position.get(r.env_id, len(position)), r.env_id, r.index),
    )
    if write and [r.key for r in ordered] != [r.key for r in records]:
        store.rewrite(ordered)
    planned = {p.env_id: p.n for p in metadata.envs}
    asked = {p.env_id: set(p.indices()) for p in metadata.envs}
    counted = [r for r in ordered if r.index in asked.get(r.env_id, ())]
    summary = summarise(
        counted,
        [p.env_id for p in metadata.envs],
        {p.env_id: p.held_out for p in metadata.envs},
        {p.env_id: str(p.spec.get("family", "custom")) for p in metadata.envs},
        agent=metadata.agent,
        agent_description=metadata.agent_description,
        privileged=metadata.privileged,
        suite=metadata.suite,
        planned=planned,
    )
    summary.extra_records = len(ordered) - len(counted)
    if write:
        write_json(directory / SUMMARY_FILE, summary)
    return summary


def summarise_dir(directory: str | os.PathLike[str], *, write: bool = True) -> Summary:
    """Rebuild the summary of a results directory from its records (``summary.json`` too,
    unless ``write=False``)."""
    if not Path(directory).exists():
        raise FileNotFoundError(f"{directory}: no such directory")
    if not Path(directory).is_dir():
        raise NotADirectoryError(f"{directory} is a file, not an eval directory")
    metadata = read_metadata(directory)
    if metadata is None:
        runs = sorted(
            str(d) for d in Path(directory).glob("runs/*") if (d / METADATA_FILE).is_file()
        )
        hint = f"; it holds a suite's runs: {' '.join(runs)}" if runs else ""
        raise FileNotFoundError(
            f"{directory}: no {METADATA_FILE} (not a tomgym eval directory){hint}"
        )
    return finish(Path(directory), metadata, write=write)


def _version() -> str:
    import tomgym

    return tomgym.__version__
