"""Export env items as training datasets (OpenRLHF, veRL, TRL, plain JSONL), each row labelled.

The label (:mod:`tomgym.train.labels`) names the env, item index and env kwargs, so a trainer's
reward hook rebuilds the episode and scores through the env's own ``step``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from tomgym.env import HeldOutDataWarning, KnownWrongLabelsWarning, ToMEnv
from tomgym.registry import get_spec
from tomgym.train.labels import EpisodeLabel, labelled_episode, open_labelled_env

Format = Literal["openrlhf", "verl", "trl", "jsonl"]
FORMATS: tuple[Format, ...] = ("openrlhf", "verl", "trl", "jsonl")
ABILITY = "theory_of_mind"
# Formats whose prompt is chat messages only: a response prefill (prefill_think=True) cannot be
# carried, so a label scoring ``prefill + response`` would misjudge every response. The
# ``openrlhf`` format can: OpenRLHF's agent path (tomgym/train/openrlhf_agent.py) appends it.
NO_PREFILL_FORMATS: tuple[Format, ...] = ("verl", "trl")
PARQUET_SUFFIXES = (".parquet", ".pq")


class EvalOnlyError(ValueError):
    """An env whose authors allow evaluation only was asked for as training data."""


class ExportError(ValueError):
    """A request that cannot be exported as asked (no n for a procedural env, bad format...)."""


def held_out_notes(
    env_ids: Sequence[str],
    split: str | None,
    env_kwargs: Mapping[str, Any],
    n: int | None = None,
) -> list[str]:
    """What in a training set (the first ``n`` items of each env, or all) is meant to measure
    generalisation: a held-out env, a held-out env's items, the val or test split, an argument that
    serves held-out items (``vocab_split="test"``)."""
    notes = [
        f"{env_id} is held out (from {', '.join(get_spec(env_id).held_out_from) or 'training'})"
        for env_id in env_ids
        if get_spec(env_id).held_out
    ]
    notes += [note for env_id in env_ids for note in served_held_out(env_id, split, env_kwargs, n)]
    if split == "test":
        notes.append("the test split")
    elif split == "val":
        notes.append("the val split (the one `tomgym train` picks the best checkpoint on)")
    else:  # split="all" (or an env's own default) may hold test-split items too
        served = (test_items_served(env_id, split, env_kwargs, n) for env_id in env_ids)
        notes += [note for note in served if note]
    notes += [
        f"{key}={value} serves held-out items"
        for key, value in env_kwargs.items()
        if key.endswith("_split") and value == "test"
    ]
    return notes


def test_items_served(
    env_id: str, split: str | None, env_kwargs: Mapping[str, Any], n: int | None = None
) -> str | None:
    """How many test-split items a fixed env, made as the export makes it, serves among its
    first ``n`` (``split="all"`` holds the test split too: a data file's test rows,
    ExploreToM's test stories), or None."""
    if get_spec(env_id).procedural:
        return None  # a generated env's splits are seed streams: none holds another
    from tomgym.sources import first_items

    env, _ = open_export_env(env_id, split, **env_kwargs)
    try:
        served = first_items(env.source, n)
        tested = open_labelled_env(env_id, "test", dict(env_kwargs))[0].source
        test = {(it.story, it.question) for it in first_items(tested)}
    except (TypeError, ValueError, KeyError):  # no test split (or no splits) to serve
        return None
    count = sum((item.story, item.question) in test for item in served)
    if not count:
        return None
    return f"{count} test-split items of {env_id} (split={split or 'its default'!r} holds them)"


def served_held_out(
    env_id: str, split: str | None, env_kwargs: Mapping[str, Any], n: int | None = None
) -> list[str]:
    """Which held-out envs' items a fixed env, made as the export makes it, serves too: the
    Hi-ToM release's whole copies hold its O4 set, and so does an order env made with
    ``order=4``. Compared by story and question (the MC copy's stale labels ask the same
    questions) against every held-out env of the same loader whose data is here."""
    from tomgym import make
    from tomgym.data import MissingDataError
    from tomgym.registry import list_envs
    from tomgym.sources import first_items

    spec = get_spec(env_id)
    if spec.held_out:
        return []
    if spec.procedural:
        return generated_held_out(env_id, split, env_kwargs)
    rivals = [
        s
        for s in list_envs()
        if s.held_out and not s.procedural and s.id != env_id and s.entry_point == spec.entry_point
    ]
    if not rivals:
        return []
    env, _ = open_export_env(env_id, split, **env_kwargs)
    try:  # the items the export writes: its first n, or all
        mine = {(item.story, item.question) for item in first_items(env.source, n)}
    except ValueError:  # a source of unknown size asked for all of it: nothing to compare
        return []
    notes = []
    for rival in rivals:
        try:
            theirs = {(it.story, it.question) for it in first_items(make(rival.id).source, None)}
        except (MissingDataError, ValueError, TypeError, OSError):
            continue  # its data is not here: nothing to compare
        shared = len(mine & theirs)
        if shared:
            notes.append(
                f"{env_id} serves {shared} of the {len(theirs)} items of held-out {rival.id}"
            )
    return notes


HELD_OUT_PROBE_ITEMS = 8
"""Items of a generated env compared with a held-out env's: a stream is a pure function of
its settings, so settings that make one make every item alike."""


def generated_held_out(env_id: str, split: str | None, env_kwargs: Mapping[str, Any]) -> list[str]:
    """Which held-out generated envs a generated env, made with ``env_kwargs`` as the export
    makes it, serves the items of: ``orders=[4]`` on ToM-HiToM-O2-v0 is ToM-HiToM-O4-v0's
    stream, ``noise=0.5`` the Noisy one's, ``vocab="test"`` on ToM-ToMi-v0 the NewVocab one's.
    Compared item by item (story, question, answer) over the first HELD_OUT_PROBE_ITEMS."""
    from tomgym.eval.store import NEUTRAL_KWARGS
    from tomgym.eval.targets import item_content
    from tomgym.registry import list_envs
    from tomgym.sources import first_items

    changed = {key: value for key, value in env_kwargs.items() if key not in NEUTRAL_KWARGS}
    if not changed:
        return []  # the ID's own stream: held out or not by its registration
    neutral = {key: value for key, value in env_kwargs.items() if key not in changed}
    spec = get_spec(env_id)
    rivals = [
        s
        for s in list_envs()
        if s.held_out and s.procedural and s.id != env_id and s.entry_point == spec.entry_point
    ]
    if not rivals:
        return []
    env, _ = open_export_env(env_id, split, **env_kwargs)
    mine = [item_content(item) for item in first_items(env.source, HELD_OUT_PROBE_ITEMS)]
    shown = ", ".join(f"{key}={value!r}" for key, value in changed.items())
    notes = []
    for rival in rivals:
        try:  # made with the same seed, prompt... as the export's env
            theirs, _ = open_labelled_env(rival.id, split, dict(neutral))
            same = mine == [item_content(it) for it in first_items(theirs.source, len(mine))]
        except (TypeError, ValueError, KeyError, IndexError):
            continue
        if same:
            notes.append(f"{env_id} with {shown} serves the items of held-out {rival.id}")
    return notes


def warn_held_out_data(
    env_ids: Sequence[str],
    split: str | None,
    env_kwargs: Mapping[str, Any],
    n: int | None = None,
) -> None:
    """A HeldOutDataWarning when training rows would spend held-out data."""
    notes = held_out_notes(env_ids, split, env_kwargs, n)
    if notes:
        warnings.warn(
            f"training data from {'; '.join(notes)}: trained on, their scores stop measuring "
            "generalisation",
            HeldOutDataWarning,
            stacklevel=3,
        )


def warn_label_caveat(env_id: str, env: ToMEnv) -> None:
    """A KnownWrongLabelsWarning when the env, made as the training rows' labels make it, has
    a ``label_caveat`` (the Hi-ToM release's MC copy, alone or as ``copy="mc"``)."""
    if env.label_caveat:
        warnings.warn(
            f"training data from {env_id}: {env.label_caveat}",
            KnownWrongLabelsWarning,
            stacklevel=3,
        )


def check_trainable(env_ids: Sequence[str], allow_eval_only: bool = False) -> None:
    """Refuse eval-only envs (OpenToM, FANToM) unless the caller says they accept the terms."""
    try:
        specs = [get_spec(env_id) for env_id in env_ids]
    except KeyError as exc:  # an unknown ID: the message names the nearest registered ones
        raise ExportError(exc.args[0] if exc.args else str(exc)) from None
    if allow_eval_only:
        return
    refused = [spec.id for spec in specs if spec.usage == "eval-only"]
    if refused:
        raise EvalOnlyError(
            f"{', '.join(refused)}: registered usage='eval-only': the dataset authors' terms "
            "allow evaluation, not training. Pass --allow-eval-only (allow_eval_only=True) only "
            "if your use is permitted by those terms."
        )


def warn_process_only(env_ids: Sequence[str]) -> None:
    """Say (stderr) which envs were registered in this process only (``items=`` or
    ``generator=`` from a script, not by a plugin or an env file): a trainer's reward workers,
    other processes, do not know them and score every row at the minimum."""
    from tomgym.env_files import env_file_of
    from tomgym.plugins import PLUGIN_ENVS
    from tomgym.registry import ITEMS_ENTRY_POINT

    local = [
        env_id
        for env_id in env_ids
        if get_spec(env_id).entry_point == ITEMS_ENTRY_POINT
        and env_id not in PLUGIN_ENVS
        and env_file_of(env_id) is None
    ]
    if local:
        print(
            f"tomgym: warning: {', '.join(local)} registered in this process only: a trainer's "
            "reward workers (other processes) will not know it and will give every row the "
            "reward minimum; give it as an env file (--env-file, made by `tomgym register --save`) "
            "or register it from a plugin (README, 'Register your own ToM env')",
            file=sys.stderr,
        )


def unique_env_ids(env_ids: Sequence[str]) -> list[str]:
    """The IDs, each once: an ID given twice would put its rows in the data twice (written
    with gymnasium's namespace, ``tomgym:ID``, too)."""
    env_ids = [env_id.removeprefix("tomgym:") for env_id in env_ids]
    unique = list(dict.fromkeys(env_ids))
    if len(unique) < len(env_ids):
        repeated = sorted({e for e in env_ids if list(env_ids).count(e) > 1})
        print(
            f"tomgym: warning: {', '.join(repeated)} given more than once: used once",
            file=sys.stderr,
        )
    return unique


def check_count(n: int | None) -> None:
    """Refuse a count of items below 1 (None means every item of a finite env)."""
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ExportError(f"the number of items per env must be at least 1, got {n!r}")


def open_export_env(
    env_id: str, split: str | None, **env_kwargs: Any
) -> tuple[ToMEnv, dict[str, Any]]:
    """The env the labels will rebuild and the kwargs they record (``split`` only where the env
    takes it; see :func:`tomgym.train.labels.open_labelled_env`)."""
    try:
        return open_labelled_env(env_id, split, env_kwargs)
    except (TypeError, ValueError, KeyError) as exc:
        shown = {**env_kwargs, **({"split": split} if split is not None else {})}
        # KeyError (an unknown ID) quotes its message: show the text itself.
        reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        raise ExportError(f"{env_id}: cannot be made with {shown}: {reason}") from exc


def item_count(env_id: str, size: int | None, n: int | None) -> int:
    """Items to take from an env of ``size`` (None: procedural) when ``n`` were asked for."""
    check_count(n)
    if size is None:
        if n is None:
            raise ExportError(f"{env_id} is procedural: give the number of items (--n)")
        return n
    return size if n is None else min(n, size)


def env_rows(
    env_id: str, split: str | None, n: int | None, **env_kwargs: Any
) -> Iterator[dict[str, Any]]:
    """Plain rows for items ``0..n-1`` of one env: prompt text, messages, gold answer, label.

    ``split`` goes to envs that take it; the label records the kwargs the env was made with.
    """
    env, kwargs = open_export_env(env_id, split, **env_kwargs)
    for index in range(item_count(env_id, env.size, n)):
        label = EpisodeLabel(env_id=env_id, index=index, kwargs=kwargs)
        observation, info, item = labelled_episode(label)
        label = label.of_item(item)  # scoring refuses another item at this index
        yield {
            "env_id": env_id,
            "index": index,
            "item_id": item.id,
            "split": item.split,
            "order": item.order,
            "question_type": item.question_type,
            "prompt": observation,
            "messages": info["messages"],
            "gold": item.gold_text,
            "label": label.dumps(),
        }


def _pair(first: str, then: str) -> str:
    return f"within {first}" if first == then else f"{first} and {then}"


class RepeatedPrompts:
    """Counts, as rows pass, prompts written before: with the same gold (a duplicate row,
    which weighs twice in training) or with another gold (one prompt rewarded for two
    answers: the Hi-ToM release's CoT and MC copies, whose labels disagree). It keeps about
    150 bytes a row: an export of several envs only."""

    def __init__(self) -> None:
        self.first: dict[bytes, tuple[str, str, str]] = {}  # prompt -> gold, env, item
        self.duplicates: Counter[tuple[str, str]] = Counter()  # (env of the first, of the repeat)
        self.conflicts: list[tuple[str, str, str]] = []  # (env, env, item of the first)

    def passing(self, rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for row in rows:
            text = json.dumps(row["messages"], ensure_ascii=False, sort_keys=True)
            key = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
            seen = self.first.setdefault(key, (row["gold"], row["env_id"], row["item_id"]))
            if seen[2] != row["item_id"] or seen[1] != row["env_id"]:
                if seen[0] == row["gold"]:
                    self.duplicates[seen[1], row["env_id"]] += 1
                else:
                    self.conflicts.append((seen[1], row["env_id"], seen[2]))
            yield row

    def warnings(self) -> list[str]:
        said = []
        if self.conflicts:
            first, then, item = self.conflicts[0]
            said.append(
                f"{len(self.conflicts)} rows ask a prompt written before with another gold "
                f"answer (first: item {item} of {first}, again in {then}): training rewards "
                "either answer to it; export those envs apart, or leave one out"
            )
        if self.duplicates:
            pairs = sorted(self.duplicates)
            said.append(
                f"{self.duplicates.total()} rows repeat a prompt written before with the same gold "
                f"({', '.join(_pair(a, b) for a, b in pairs[:3])}): those items weigh twice "
                "in training"
            )
        return said


def to_format(row: dict[str, Any], fmt: Format) -> dict[str, Any]:
    """One plain row in a trainer's layout."""
    if fmt in ("openrlhf", "trl"):
        return {"prompt": row["messages"], "label": row["label"]}
    if fmt == "verl":
        return {
            "data_source": row["env_id"],
            "prompt": row["messages"],
            "ability": ABILITY,
            "reward_model": {"style": "rule", "ground_truth": row["label"]},
            "extra_info": {
                "index": row["index"],
                "order": row["order"],
                "split": row["split"],
                "item_id": row["item_id"],
            },
        }
    if fmt == "jsonl":
        return row
    raise ExportError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")


STDOUT = "-"
"""``--out -``: JSON lines go to standard output (for a pipe), as Unix tools read '-'."""


def write_to_stdout(rows: Iterable[dict[str, Any]]) -> None:
    """Write JSON-line rows to standard output. A reader that stops early (``| head``) raises
    BrokenPipeError, which the CLI ends quietly as it does for every command."""
    for row in rows:
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def check_suffix(fmt: Format, out: str | Path) -> None:
    """Refuse an output name whose suffix says another file type than the format writes."""
    if str(out) == STDOUT:
        if fmt == "verl":
            raise ExportError(
                "--format verl writes Parquet, which cannot be streamed to standard output "
                "('--out -'); name a *.parquet file"
            )
        return
    suffix = Path(out).suffix.lower()
    if fmt == "verl" and suffix not in PARQUET_SUFFIXES:
        raise ExportError(
            f"--format verl writes Parquet, but {str(out)!r} does not end in .parquet; "
            "name the file *.parquet (or use --format jsonl/openrlhf/trl for JSON lines)"
        )
    if fmt != "verl" and suffix in (*PARQUET_SUFFIXES, ".csv", ".tsv", ".json"):
        raise ExportError(
            f"--format {fmt} writes JSON lines, but {str(out)!r} ends in {suffix}; "
            "name the file *.jsonl (or use --format verl for Parquet)"
        )
    if Path(out).is_dir():
        raise ExportError(f"{str(out)!r} is a directory: name the file to write in it")


def check_prefill(fmt: Format, env_id: str, prefill: str) -> None:
    """Refuse ``prefill_think`` where the exported prompt cannot carry the prefill."""
    if prefill and fmt in NO_PREFILL_FORMATS:
        raise ExportError(
            f"{env_id}: prefill_think=True cannot be exported as {fmt}: its prompt is chat "
            "messages, which cannot start the response with the prefill, while the label scores "
            "prefill + response. Use --format openrlhf with OpenRLHF's agent path "
            "(--train.agent_func_path tomgym/train/openrlhf_agent.py, as `tomgym train` does), "
            "or --format jsonl, whose 'prompt' text ends with the prefill."
        )


PARQUET_BATCH_ROWS = 1024
"""Rows per Parquet row group: memory stays flat however many rows an export writes."""


def verl_schema() -> Any:
    """The Parquet schema of a ``verl`` row, fixed rather than read off the first rows: a first
    batch whose items have no order would type the column null and refuse the next ones."""
    import pyarrow as pa

    return pa.schema(
        [
            ("data_source", pa.string()),
            ("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
            ("ability", pa.string()),
            ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
            (
                "extra_info",
                pa.struct(
                    [
                        ("index", pa.int64()),
                        ("order", pa.int64()),
                        ("split", pa.string()),
                        ("item_id", pa.string()),
                    ]
                ),
            ),
        ]
    )


def write_parquet(rows: Iterable[dict[str, Any]], target: Path) -> None:
    """Write ``verl`` rows to ``target`` in row groups of PARQUET_BATCH_ROWS, as they come."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = verl_schema()
    with pq.ParquetWriter(target, schema) as writer:
        batch = list(itertools.islice(rows, PARQUET_BATCH_ROWS))
        while batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            batch = list(itertools.islice(rows, PARQUET_BATCH_ROWS))


def export_dataset(
    env_ids: Sequence[str],
    split: str | None,
    n: int | None,
    fmt: Format,
    out: str | Path,
    allow_eval_only: bool = False,
    **env_kwargs: Any,
) -> Path:
    """Write items ``0..n-1`` of each env (finite envs capped at their size) to ``out``.

    ``fmt`` is ``openrlhf``/``trl``/``jsonl`` (JSON lines) or ``verl`` (parquet, ``out`` must
    end in ``.parquet``). ``n`` must be at least 1 (None: every item of a finite env).
    ``out`` ``-`` writes JSON lines to standard output.
    ``split`` goes to every env that takes it (with a logged note for one that does not).
    ``env_kwargs`` (``reward``, ``prompt``...) go to every env; every label records the kwargs
    its env was made with. ``prefill_think=True`` is refused for ``verl`` and ``trl`` (their
    prompts cannot carry the prefill); ``openrlhf`` needs OpenRLHF's agent path for it.
    Nothing is written unless every env can be exported. Returns the path written.
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    if not env_ids:
        raise ExportError("no env IDs given")
    check_count(n)
    check_suffix(fmt, out)
    env_ids = unique_env_ids(env_ids)
    check_trainable(env_ids, allow_eval_only)
    warn_process_only(env_ids)
    warn_held_out_data(env_ids, split, env_kwargs, n)
    for env_id in env_ids:
        env, _ = open_export_env(env_id, split, **env_kwargs)
        warn_label_caveat(env_id, env)
        check_prefill(fmt, env_id, env.prefill)
        item_count(env_id, env.size, n)  # a procedural env without n: refused before writing
    repeated = RepeatedPrompts()
    plain: Iterable[dict[str, Any]] = (
        row for env_id in env_ids for row in env_rows(env_id, split, n, **env_kwargs)
    )
    # One env serves each prompt once (a data file's row given twice is warned of when it is
    # registered); several may share rows. Kept per row, so only when needed.
    if len(env_ids) > 1:
        plain = repeated.passing(plain)
    rows = (to_format(row, fmt) for row in plain)
    if str(out) == STDOUT:
        write_to_stdout(rows)
        for said in repeated.warnings():
            print(f"tomgym: warning: {said}", file=sys.stderr)
        return Path(STDOUT)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Rows are written as they are made (a large --n once held every row in memory first), into
    # a file beside ``out`` renamed into place at the end: an interrupted or failed export
    # leaves the previous file whole, never a shorter one whose lines all parse. A device or
    # pipe (/dev/stdout, /dev/null) is written as it is.
    direct = path.exists() and not path.is_file()
    target = path if direct else path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        if fmt == "verl":
            write_parquet(rows, target)
        else:
            with target.open("w", encoding="utf-8") as f:
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
        if not direct:
            os.replace(target, path)
    except OSError as exc:  # named as the user gave it, not as the hidden partial file
        reason = exc.strerror or str(exc)
        raise ExportError(f"cannot write --out {out}: {reason}") from exc
    finally:
        if not direct:
            target.unlink(missing_ok=True)
    for said in repeated.warnings():
        print(f"tomgym: warning: {said}", file=sys.stderr)
    return path
