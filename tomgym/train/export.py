"""Export env items as training datasets (OpenRLHF, veRL, TRL, plain JSONL), each row labelled.

The label (:mod:`tomgym.train.labels`) names the env, item index and env kwargs, so a trainer's
reward hook rebuilds the episode and scores through the env's own ``step``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from tomgym.registry import get_spec
from tomgym.train.labels import encode_label

Format = Literal["openrlhf", "verl", "trl", "jsonl"]
FORMATS: tuple[Format, ...] = ("openrlhf", "verl", "trl", "jsonl")
ABILITY = "theory_of_mind"


class EvalOnlyError(ValueError):
    """An env whose authors allow evaluation only was asked for as training data."""


class ExportError(ValueError):
    """A request that cannot be exported as asked (no n for a procedural env, bad format...)."""


def check_trainable(env_ids: Sequence[str], allow_eval_only: bool = False) -> None:
    """Refuse eval-only envs (OpenToM, FANToM) unless the caller says they accept the terms."""
    if allow_eval_only:
        return
    refused = [env_id for env_id in env_ids if get_spec(env_id).usage == "eval-only"]
    if refused:
        raise EvalOnlyError(
            f"{', '.join(refused)}: registered usage='eval-only': the dataset authors' terms "
            "allow evaluation, not training. Pass --allow-eval-only (allow_eval_only=True) only "
            "if your use is permitted by those terms."
        )


def env_rows(
    env_id: str, split: str | None, n: int | None, **env_kwargs: Any
) -> Iterator[dict[str, Any]]:
    """Plain rows for items ``0..n-1`` of one env: prompt text, messages, gold answer, label."""
    import tomgym

    kwargs = dict(env_kwargs)
    if split is not None:
        kwargs["split"] = split
    try:
        env = tomgym.make(env_id, **kwargs)
    except (TypeError, ValueError) as exc:
        raise ExportError(f"{env_id}: cannot be made with {kwargs}: {exc}") from exc
    if env.size is None:
        if n is None:
            raise ExportError(f"{env_id} is procedural: give the number of items (--n)")
        count = n
    else:
        count = env.size if n is None else min(n, env.size)
    for index in range(count):
        observation, info = env.reset(options={"index": index})
        item = env.current_item
        assert item is not None
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
            "label": encode_label(env_id, index, **kwargs),
        }


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

    ``fmt`` is ``openrlhf``/``trl``/``jsonl`` (JSON lines) or ``verl`` (parquet). ``env_kwargs``
    (``reward``, ``prompt``...) go to every env and into every label. Returns the path written.
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    if not env_ids:
        raise ExportError("no env IDs given")
    check_trainable(env_ids, allow_eval_only)
    rows = [
        to_format(row, fmt)
        for env_id in env_ids
        for row in env_rows(env_id, split, n, **env_kwargs)
    ]
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "verl":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        with path.open("w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
