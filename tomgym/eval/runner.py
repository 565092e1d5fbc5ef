"""Evaluate an agent on envs or a suite: batched, scored by the env itself, resumable."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from tomgym.agents.base import (
    RULE_BASED,
    RUN_ARGUMENTS,
    RUN_SETTINGS,
    Agent,
    agent_kind,
    check_agent_options,
    check_agent_spec,
    make_agent,
)
from tomgym.eval.metrics import Summary, summarise
from tomgym.eval.rejudge import answers_the_prompt_only, judged_again, rejudged
from tomgym.eval.resume import (
    OutputDirError,
    RunConflictError,
    best_records,
    changed_keys,
    check_answered_once,
    check_items_unchanged,
    git_revision,
    keep_stored_marking,
    keep_stored_order,
    keep_stored_split,
    model_fingerprint,
    pinned_for_workers,
    precision_conflict,
    prepare_out,
    prompt_files_fingerprint,
    register_recorded_env_files,
    revision_conflict,
    stored_plans,
)
from tomgym.eval.scoring import longest_prompt_first, run_batch
from tomgym.eval.store import (
    ITEM_ORDERS,
    LOCK_FILE,
    METADATA_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    ItemOrder,
    ResultRecord,
    ResultsStore,
    RunFileError,
    RunMetadata,
    directory_lock,
    read_metadata,
    write_json,
)
from tomgym.eval.targets import EnvTarget, resolve_targets
from tomgym.items import SPLITS

DEFAULT_BATCH_SIZE = 8
DEFAULT_SPLIT = "test"

__all__ = ["OutputDirError", "RunConflictError", "evaluate", "finish", "summarise_dir"]


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


def quiet_progress_bars() -> None:
    """``--quiet``: no model-loading progress bars either (transformers' "Loading weights",
    the hub's downloads), which write to the terminal past the run's own quiet."""
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"  # read when transformers is imported
    if "transformers" in sys.modules:  # imported already (an earlier agent of a leaderboard)
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


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

    check_run_arguments(batch_size, n, split, item_order)
    if quiet:
        quiet_progress_bars()
    split_given = split is not None
    if suite is None and split is None:
        split = DEFAULT_SPLIT
    recorded = read_metadata(out) if Path(out).is_dir() else None
    if recorded is not None:  # a rerun without --env-file: the env files the run recorded
        register_recorded_env_files(Path(out), recorded)
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
    sampling = sampling_of(suite, temperature, max_new_tokens)
    given = dict(agent_options or {})
    refuse_run_settings(given)
    options = {"seed": run_seed, "batch_size": batch_size, **sampling, **given}
    sampled = not Sampling.from_options(options).greedy  # a bad temperature fails here
    spec = agent if isinstance(agent, str) else agent.spec
    if isinstance(agent, str):
        check_agent_options(agent, options)  # a misspelt option fails before --out is made
    shaping = {k: v for k, v in sorted(given.items()) if k not in RUN_SETTINGS}
    directory = Path(out)
    created = not directory.exists()
    prepare_out(directory)
    with removed_if_left_empty(directory, created), directory_lock(directory):
        old = read_metadata(directory)
        results = directory / RESULTS_FILE
        if old is None and results.is_file() and results.stat().st_size:
            raise RunFileError(
                f"{directory} holds a {RESULTS_FILE} but no {METADATA_FILE}: which agent and "
                "settings made its records is unknown, so they cannot be resumed safely; "
                f"restore {METADATA_FILE} from a backup, or use another --out"
            )
        if old is not None and not (results.is_file() and results.stat().st_size):
            # Nothing was scored (the agent failed on its first batch: a missing chat template,
            # a bad device): the corrected command takes the directory over, as a training run
            # that saved nothing does, rather than being refused for the settings it fixes.
            print(  # said under --quiet too: another run's settings are dropped
                f"tomgym: note: {directory} holds a run that scored nothing: this run replaces it",
                file=sys.stderr,
            )
            old = None
        if (
            old is not None
            and "dtype" not in old.agent_options
            and "dtype" in shaping
            and shaping["dtype"] == old.agent_description.get("dtype")
        ):  # the dtype the run was made in, named now (as a precision conflict asks): same run
            shaping.pop("dtype")
        if old is not None and not split_given:
            targets = [keep_stored_split(t, old) for t in targets]
        if old is not None:
            targets = [keep_stored_order(t, old, given=item_order is not None) for t in targets]
            targets = [keep_stored_marking(t, old) for t in targets]
        metadata = run_metadata(
            directory,
            old,
            targets,
            agent=spec,
            sampling=sampling,
            agent_options=shaping,
            seed=run_seed,
            suite=suite_name,
        )
        store = ResultsStore(directory, metadata.run_id)
        stored = store.load()
        check_answered_once(directory, stored)
        best = best_records(stored)
        done = {
            key
            for key, record in best.items()
            if not record.failed and not (retry_unanswered and record.error)
        }
        # Items changed since their records were made: a baseline's or the oracle's answers
        # read the item, so they are asked again (their stale records dropped once the run is
        # accepted); a model's stored response to an unchanged prompt is scored again. The
        # unchanged items' responses are judged again, whatever the agent: those a newer judge
        # reads otherwise are scored again, so one run's verdicts come from one judge. Nothing
        # is written before every check has passed: a refused run changes no file.
        stale: dict[str, list[tuple[str, int]]] = {}
        fresh: dict[str, list[ResultRecord]] = {}
        regraded: dict[str, list[ResultRecord]] = {}
        flips: dict[str, tuple[int, int]] = {}  # env -> (newly correct, newly wrong)
        changed_anywhere: set[tuple[str, int]] = set()
        for target in targets:
            changed = [key for key, _ in changed_keys(target, best, done)]
            changed_anywhere.update(changed)
            unchanged = done.difference(changed)
            keys = [k for i in target.indices() if (k := (target.env_id, i)) in unchanged]
            regraded[target.env_id] = judged_again(target, best, keys)
            if answers_the_prompt_only(agent):
                fresh[target.env_id] = rejudged(target, best, changed)
                best.update((record.key, record) for record in fresh[target.env_id])
            else:
                stale[target.env_id] = changed
                done.difference_update(stale[target.env_id])
            flips[target.env_id] = (
                sum(r.correct and not best[r.key].correct for r in regraded[target.env_id]),
                sum(best[r.key].correct and not r.correct for r in regraded[target.env_id]),
            )
            best.update((record.key, record) for record in regraded[target.env_id])
        # only a changed item can still be one (an unchanged item's record was checked above)
        check_items_unchanged(directory, targets, best, done & changed_anywhere)
        pending = {t.env_id: [i for i in t.indices() if (t.env_id, i) not in done] for t in targets}
        if old is not None and old.seed_scheme != metadata.seed_scheme:
            if sampled and any(pending.values()):
                raise RunConflictError(
                    f"{directory} holds a sampled run of an older tomgym, which seeded each "
                    "batch, not each item: finishing it here would mix the two kinds of draws; "
                    "use another --out (greedy runs are unaffected)"
                )
            metadata = metadata.model_copy(update={"seed_scheme": old.seed_scheme})
        built: Agent | None = agent if not isinstance(agent, str) else None
        distributed = workers > 1 or ray_address is not None
        if distributed and isinstance(agent, str) and any(pending.values()):
            # what fails in a worker fails as a Ray traceback: the spec (a missing local model)
            # and a rule-based agent's options (cheap to build) are checked here first
            check_agent_spec(agent)
            if agent_kind(agent) in RULE_BASED:  # built once here, and shipped to the workers
                built = make_agent(agent, **options)
            if ray_address is not None:  # Ray retried an address where nothing listens forever
                from tomgym.eval.distributed import check_reachable

                check_reachable(ray_address)
            options = pinned_for_workers(directory, agent, options, old)
        if any(pending.values()) and built is None and not distributed:
            built = make_agent(agent, **options) if isinstance(agent, str) else None
        if built is not None and hasattr(built, "answered_before"):
            # a served model the run got answers from: its items refused alike before are
            # retried, not taken for a request the server never takes (see OpenAIAgent)
            built.answered_before = any(
                not record.failed and not record.error for record in best.values()
            )
        if built is not None:
            described = built.describe()
            check_same_model(directory, old, described, bool(best))
            metadata = metadata.model_copy(
                update={"agent_description": described, "privileged": built.privileged}
            )
        elif old is not None:
            metadata = metadata.model_copy(
                update={"agent_description": old.agent_description, "privileged": old.privileged}
            )
        if built is None and options.get("revision") and distributed:
            # the commit the workers will load, recorded before they start: an interrupted
            # run's rerun is checked against it (the first worker built describes the run)
            described = {**metadata.agent_description, "revision": options["revision"]}
            metadata = metadata.model_copy(update={"agent_description": described})
        apply_item_changes(store, stale, fresh, quiet, regraded, flips)
        write_json(directory / METADATA_FILE, metadata)
        # The previous command's summary describes another plan: gone until this one's is
        # written, so a run killed before then has none (readers rebuild it from the records)
        # rather than a stale one that may say "complete".
        (directory / SUMMARY_FILE).unlink(missing_ok=True)
        if batch_size > 1:  # for one process and for Ray workers alike
            for target in targets:
                if target.env is not None and pending[target.env_id]:
                    pending[target.env_id] = longest_prompt_first(
                        target.env, pending[target.env_id], built, target.env_id, target.spec.family
                    )

        try:
            if distributed and any(pending.values()):  # nothing to ask: no Ray to start
                from tomgym.eval.distributed import run_distributed

                def described(info: dict[str, Any]) -> None:
                    """The workers' model checked against the run's, as one process checks its
                    own (a run resumed on a GPU in bfloat16 went on mixing precisions), and
                    recorded at once: a run interrupted later still says what it ran."""
                    nonlocal metadata
                    check_same_model(directory, old, info["agent_description"], bool(best))
                    metadata = metadata.model_copy(update=info)
                    write_json(directory / METADATA_FILE, metadata)

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
                    on_described=described,
                )
                if info:
                    metadata = metadata.model_copy(update=info)
                    write_json(directory / METADATA_FILE, metadata)
            else:
                assert built is not None or not any(pending.values())
                for target in targets:
                    scored = [
                        best[k] for i in target.indices() if (k := (target.env_id, i)) in done
                    ]
                    ask_in_process(
                        built, target, pending[target.env_id], store, batch_size, scored, quiet
                    )
            return finish(directory, metadata)  # inside: an interrupt here is finished below
        except BaseException:
            # Interrupted (Ctrl-C, a crash): summary.json says what is done under the new plan,
            # not what the previous command finished.
            try:
                finish(directory, metadata)
            except Exception as exc:  # a full or read-only disk fails this too: keep the cause
                print(f"tomgym: warning: summary.json not updated: {exc}", file=sys.stderr)
            raise


def apply_item_changes(
    store: ResultsStore,
    stale: Mapping[str, Sequence[tuple[str, int]]],
    fresh: Mapping[str, Sequence[ResultRecord]],
    quiet: bool,
    regraded: Mapping[str, Sequence[ResultRecord]] | None = None,
    flips: Mapping[str, tuple[int, int]] | None = None,
) -> None:
    """Write what resuming decided: drop the stale records of changed items a baseline is
    asked again (an interrupted run then counts them as pending, not as their old verdicts),
    append the re-scored records of a model's changed items and of every unchanged item the
    judge reads otherwise now, and say how many of each."""
    regraded = regraded or {}
    dropped = {key for keys in stale.values() for key in keys}
    if dropped:
        store.rewrite([record for record in store.load() if record.key not in dropped])
    rescored = [record for records in fresh.values() for record in records]
    rescored += [record for records in regraded.values() for record in records]
    if rescored:
        store.append(rescored)
    for env_id, records in regraded.items():
        if records and not quiet:
            gained, lost = (flips or {}).get(env_id, (0, 0))
            print(
                f"tomgym: note: {_counted(len(records), 'stored response')} of {env_id} "
                f"judged otherwise by this tomgym's judge, scored again ({gained} newly "
                f"correct, {lost} newly wrong, the rest another verdict or reward only)",
                file=sys.stderr,
            )
    for env_id, keys in stale.items():
        if keys and not quiet:
            print(
                f"tomgym: note: {_counted(len(keys), 'item')} of {env_id} changed since their "
                "records were made: asked again",
                file=sys.stderr,
            )
    for env_id, records in fresh.items():
        if records and not quiet:
            print(
                f"tomgym: note: {_counted(len(records), 'stored response')} of {env_id} scored "
                "again: their items are asked the same way but judged otherwise now (gold, "
                "candidates, aliases or ToM order)",
                file=sys.stderr,
            )


def _counted(n: int, noun: str) -> str:
    """ "1 item", "2 items"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def check_run_arguments(
    batch_size: int, n: int | None, split: str | None, item_order: ItemOrder | None
) -> None:
    """Refuse what no run can use; a note for ``split="train"``."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if n is not None and n < 1:
        raise ValueError(f"n (items per env) must be at least 1, got {n}")
    if item_order is not None and item_order not in ITEM_ORDERS:
        raise ValueError(f"item_order must be one of {ITEM_ORDERS}, got {item_order!r}")
    if split is not None and split not in SPLITS:  # a typo must not fall back to another split
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    if split == "train":
        print(
            "tomgym: note: --split train evaluates on training items: in-distribution figures "
            "of what a model may have trained on, not held out",
            file=sys.stderr,
        )


def sampling_of(
    suite: str | os.PathLike[str] | None, temperature: float | None, max_new_tokens: int | None
) -> dict[str, Any]:
    """The sampling the run records: what was given, else the suite's own."""
    if suite is not None:
        from tomgym.eval.suites import load_suite

        suite_sampling = load_suite(suite).sampling
        temperature = temperature if temperature is not None else suite_sampling.get("temperature")
        if max_new_tokens is None and "max_new_tokens" in suite_sampling:
            max_new_tokens = int(suite_sampling["max_new_tokens"])
    return {
        k: v
        for k, v in (("temperature", temperature), ("max_new_tokens", max_new_tokens))
        if v is not None
    }


OWN_ARGUMENTS = RUN_ARGUMENTS
"""Agent settings that ``evaluate`` takes as arguments of its own, recorded by the run."""


def refuse_run_settings(agent_options: Mapping[str, Any]) -> None:
    own = sorted(k for k in OWN_ARGUMENTS if k in agent_options)
    if own:
        raise ValueError(
            f"agent option {', '.join(own)}: give it as its own argument (--temperature, "
            "--max-new-tokens, --seed, --batch-size), which the run records"
        )


def check_same_model(
    directory: Path, old: RunMetadata | None, described: dict[str, Any], scored: bool
) -> None:
    """Refuse a model at another hub commit than the directory's run, or (once it has scored
    records) computing in another precision: the run would mix two models' answers."""
    moved = revision_conflict(old.agent_description, described) if old else None
    if old is not None and not moved and scored:
        moved = precision_conflict(old.agent_description, described)
    if moved:
        raise RunConflictError(f"{directory} holds a different run: {moved}")


@contextlib.contextmanager
def removed_if_left_empty(directory: Path, created: bool) -> Iterator[None]:
    """A run that fails before writing anything (a misspelt agent, a bad model spec) leaves no
    ``--out`` behind that it created, not even one holding only its lock file."""
    try:
        yield
    except BaseException:
        left = directory.iterdir() if created and directory.is_dir() else None
        if left is not None and all(p.name == LOCK_FILE for p in left):
            (directory / LOCK_FILE).unlink(missing_ok=True)  # none without fcntl
            directory.rmdir()
        raise


def run_metadata(
    directory: Path,
    old: RunMetadata | None,
    targets: Sequence[EnvTarget],
    *,
    agent: str,
    sampling: dict[str, Any],
    agent_options: dict[str, Any],
    seed: int,
    suite: str | None,
) -> RunMetadata:
    """What ``metadata.json`` records of this command's run; on a directory that holds a run
    already, that run's creation time and revisions carried on, or a RunConflictError naming
    what differs."""
    plans = [t.plan(directory) for t in targets]
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
        agent=agent,
        # a rerun that loads nothing (the model moved away) keeps the fingerprint it had
        model_fingerprint=model_fingerprint(agent) or (old.model_fingerprint if old else None),
        prompt_files_fingerprint=prompt_files_fingerprint(agent)
        or (old.prompt_files_fingerprint if old else None),
        privileged=False,
        sampling=sampling,
        agent_options=agent_options,
        seed=seed,
        seed_scheme="per-item",
        n=max(t.n for t in targets),
        suite=suite,
        envs=plans,
        stored_envs=stored_plans(old, plans),
        created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        run_id=uuid.uuid4().hex[:16],
    )
    if old is None:
        return metadata
    problems = metadata.conflicts(old)
    if problems:
        raise RunConflictError(
            f"{directory} holds a different run; use another --out or delete it. "
            + "; ".join(problems)
        )
    # the run goes on: its creation time, and its ID on the records (an older tomgym's run
    # gets one now; its records carry none and are read as before)
    return metadata.model_copy(
        update={"created": old.created, "run_id": old.run_id or metadata.run_id}
    )


def ask_in_process(
    agent: Agent | None,
    target: EnvTarget,
    todo: Sequence[int],
    store: ResultsStore,
    batch_size: int,
    done: Sequence[ResultRecord],
    quiet: bool,
) -> None:
    """Ask one env's pending items batch by batch, appending each batch's records as it is
    scored (an interrupted run loses at most the batch in flight)."""
    progress = Progress(target.env_id, target.n, quiet=quiet)
    progress.done = target.n - len(todo)
    progress.hits = sum(r.correct for r in done)
    env = target.env
    assert env is not None
    for start in range(0, len(todo), batch_size):
        assert agent is not None
        batch = todo[start : start + batch_size]
        fresh = run_batch(agent, env, target.env_id, batch, target.spec.family, target.held_out)
        store.append(fresh)
        progress.update(fresh)
    progress.close()


def finish(
    directory: Path,
    metadata: RunMetadata,
    *,
    write: bool = True,
    judged: Mapping[tuple[str, int], ResultRecord] | None = None,
) -> Summary:
    """Summarise the plan of ``metadata`` and write ``summary.json``.

    Keeps one record per item (a retried item's new record replaces its failure) and rewrites
    the results in canonical order (env order, then index). The summary counts only the
    planned items (``EnvPlan.indices``) of each planned env; other stored records stay on disk
    (``extra_records``). ``write=False`` changes no file (for readers such as the leaderboard);
    only then may ``judged`` give new records that replace stored ones (the verdicts of a newer
    judge, see :func:`tomgym.eval.rejudge.judge_run_again`).
    """
    if write and judged:
        raise ValueError("judged records are summarised without writing (write=False)")
    store = ResultsStore(directory, metadata.run_id)
    records = store.load(repair=write)
    order = [*metadata.envs, *metadata.stored_envs]
    position = {p.env_id: k for k, p in enumerate(order)}
    ordered = sorted(
        best_records(records).values(),
        key=lambda r: (position.get(r.env_id, len(position)), r.env_id, r.index),
    )
    if write and [r.key for r in ordered] != [r.key for r in records]:
        store.rewrite(ordered)
    if judged:
        ordered = [judged.get(r.key, r) for r in ordered]
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
    if not write:
        return finish(Path(directory), metadata, write=False)
    with directory_lock(Path(directory)):  # it may rewrite results.jsonl: not during a run
        return finish(Path(directory), metadata)


def _version() -> str:
    import tomgym

    return tomgym.__version__
