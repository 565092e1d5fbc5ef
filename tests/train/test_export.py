"""Dataset export: every format, labels that score through the env, eval-only refusal."""

from __future__ import annotations

import json
import os
import types
import warnings
from pathlib import Path
from typing import Any

import pytest

import tomgym
from tests.train.helpers import readme_items
from tomgym.train.export import EvalOnlyError, ExportError, export_dataset
from tomgym.train.labels import decode_label, score_label

ENVS = ["ToM-HiToM-O1-v0", "ToM-HiToM-O2-v0"]
ITEMS = readme_items(3)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("fmt", ["openrlhf", "trl"])
def test_chat_formats(fmt: str, tmp_path: Path) -> None:
    path = export_dataset(ENVS, "train", 3, fmt, tmp_path / "d.jsonl", reward="tomrl")  # type: ignore[arg-type]
    rows = read_jsonl(path)
    assert len(rows) == 6 and set(rows[0]) == {"prompt", "label"}
    assert [m["role"] for m in rows[0]["prompt"]][-1] == "user"
    labels = [decode_label(r["label"]) for r in rows]
    assert [(lb.env_id, lb.index) for lb in labels] == [(e, i) for e in ENVS for i in range(3)]
    assert labels[0].kwargs == {"split": "train", "reward": "tomrl"}


def test_jsonl_gold_scores_correct_through_the_label(tmp_path: Path) -> None:
    rows = read_jsonl(export_dataset(ENVS, "val", 2, "jsonl", tmp_path / "p.jsonl"))
    for row in rows:
        assert row["prompt"] and row["messages"] and row["split"] == "val"
        score, _ = score_label(row["label"], f"<think>t</think><answer>{row['gold']}</answer>")
        assert score.correct and score.reward == pytest.approx(1.1)


def test_verl_parquet(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    path = export_dataset(ENVS[:1], "train", 2, "verl", tmp_path / "d.parquet")
    rows = pq.read_table(path).to_pylist()
    assert rows[0]["data_source"] == ENVS[0] and rows[0]["ability"] == "theory_of_mind"
    assert rows[0]["reward_model"]["style"] == "rule"
    assert decode_label(rows[1]["reward_model"]["ground_truth"]).index == 1
    assert rows[1]["extra_info"]["index"] == 1 and rows[1]["extra_info"]["split"] == "train"
    assert rows[1]["extra_info"]["order"] == 1


def test_finite_env_is_capped(tmp_path: Path, data_root: Path) -> None:
    rows = read_jsonl(
        export_dataset(["ToM-HiToM-Original-O0-v0"], "all", 10_000, "jsonl", tmp_path / "h.jsonl")
    )
    assert len(rows) == 120


def test_eval_only_envs_are_refused(tmp_path: Path, data_root: Path) -> None:
    with pytest.raises(EvalOnlyError, match="ToM-OpenToM-v0.*authors' terms"):
        export_dataset(["ToM-HiToM-v0", "ToM-OpenToM-v0"], None, 2, "openrlhf", tmp_path / "x")
    assert not (tmp_path / "x").exists()
    path = export_dataset(
        ["ToM-OpenToM-v0"], None, 2, "openrlhf", tmp_path / "x", allow_eval_only=True
    )
    assert len(read_jsonl(path)) == 2


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="procedural"):
        export_dataset(["ToM-HiToM-v0"], "train", None, "openrlhf", tmp_path / "x")
    with pytest.raises(ExportError, match="format"):
        export_dataset(["ToM-HiToM-v0"], "train", 1, "csv", tmp_path / "x")  # type: ignore[arg-type]
    with pytest.raises(ExportError, match="No ToM env is registered"):
        export_dataset(["ToM-Bogus-v0"], "train", 1, "jsonl", tmp_path / "x")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("n", [0, -3])
def test_count_below_one_is_refused(n: int, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="at least 1"):
        export_dataset(["ToM-HiToM-v0"], "train", n, "jsonl", tmp_path / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize(
    ("fmt", "name", "hint"),
    [("verl", "v.jsonl", r"\.parquet"), ("jsonl", "v.parquet", "JSON lines")],
)
def test_suffix_that_disagrees_with_the_format_is_refused(
    fmt: str, name: str, hint: str, tmp_path: Path
) -> None:
    with pytest.raises(ExportError, match=hint):
        export_dataset(["ToM-HiToM-v0"], "train", 1, fmt, tmp_path / name)  # type: ignore[arg-type]
    assert not (tmp_path / name).exists()


def test_envs_without_splits_are_exported_and_labelled_as_made(
    tmp_path: Path, data_root: Path
) -> None:
    tomgym.register_tom_env("TestExport-NoSplit-v0", items=ITEMS, overwrite=True)
    try:
        rows = read_jsonl(
            export_dataset(
                ["ToM-HiToM-O1-v0", "ToM-HiToM-Original-O0-v0", "TestExport-NoSplit-v0"],
                "train",
                2,
                "jsonl",
                tmp_path / "mix.jsonl",
            )
        )
    finally:
        tomgym.unregister_tom_env("TestExport-NoSplit-v0")
    kwargs = {row["env_id"]: decode_label(row["label"]).kwargs for row in rows}
    assert kwargs == {
        "ToM-HiToM-O1-v0": {"split": "train"},
        "ToM-HiToM-Original-O0-v0": {},
        "TestExport-NoSplit-v0": {},
    }
    for row in rows[:4]:  # the labels remake the same envs: the gold answers score the maximum
        score, _ = score_label(row["label"], f"<think>t</think><answer>{row['gold']}</answer>")
        assert score.correct, row


def test_prefill_is_refused_where_the_prompt_cannot_carry_it(tmp_path: Path) -> None:
    for fmt, name in (("verl", "p.parquet"), ("trl", "p.jsonl")):
        with pytest.raises(ExportError, match="prefill_think.*--format openrlhf"):
            export_dataset(
                ["ToM-HiToM-O1-v0"], "train", 1, fmt, tmp_path / name, prefill_think=True
            )  # type: ignore[arg-type]
    # jsonl: the prompt text ends with the prefill, so a response continuing it scores the format
    (row,) = read_jsonl(
        export_dataset(
            ["ToM-HiToM-O1-v0"], "train", 1, "jsonl", tmp_path / "p.jsonl", prefill_think=True
        )
    )
    assert row["prompt"].endswith("<think>\n")
    score, _ = score_label(row["label"], f"t</think><answer>{row['gold']}</answer>")
    assert score.format_ok and score.correct
    # openrlhf: OpenRLHF's agent path appends the prefill (tests/train/test_openrlhf_agent.py)
    assert export_dataset(
        ["ToM-HiToM-O1-v0"], "train", 1, "openrlhf", tmp_path / "o.jsonl", prefill_think=True
    ).exists()


def test_exporting_an_env_registered_in_this_process_only_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its rows export fine, but every reward worker (another process) scores them at the
    minimum: the export says so instead of leaving it to a training run."""
    items = [{"id": f"q{i}", "story": "s", "question": "Where?", "answer": f"box{i}",
              "candidates": ["box0", "box1"]} for i in range(2)]  # fmt: skip
    tomgym.register_tom_env("Test-Local-v0", items=items)
    try:
        export_dataset(["Test-Local-v0"], "train", None, "jsonl", tmp_path / "d.jsonl")
    finally:
        tomgym.unregister_tom_env("Test-Local-v0")
    assert "Test-Local-v0 registered in this process only" in capsys.readouterr().err
    export_dataset(ENVS[:1], "train", 1, "jsonl", tmp_path / "e.jsonl")
    assert "this process only" not in capsys.readouterr().err  # built-in envs: nothing said


def test_exporting_held_out_data_for_training_warns(tmp_path: Path) -> None:
    """tomgym train warned when it would spend held-out data; export and tom_rows, the
    same data for one's own trainer, said nothing."""
    from tomgym import HeldOutDataWarning
    from tomgym.train.trl import tom_rows

    with pytest.warns(HeldOutDataWarning, match="ToM-HiToM-O4-v0 is held out"):
        export_dataset(["ToM-HiToM-O4-v0"], "train", 2, "jsonl", tmp_path / "o4.jsonl")
    with pytest.warns(HeldOutDataWarning, match="the test split"):
        tom_rows("ToM-HiToM-O1-v0", split="test", n=2)
    with pytest.warns(HeldOutDataWarning, match="the val split .* picks the best checkpoint"):
        export_dataset(["ToM-HiToM-O1-v0"], "val", 2, "jsonl", tmp_path / "val.jsonl")
    with pytest.warns(HeldOutDataWarning, match="vocab_split=test serves held-out items"):
        tom_rows("ToM-HiToM-O2-v0", n=2, vocab_split="test")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HeldOutDataWarning)
        tom_rows("ToM-HiToM-O1-v0", split="train", n=2)


def test_exporting_the_stale_mc_copy_warns(tmp_path: Path) -> None:
    """Red team: the Hi-ToM release's MC copy, whose order 2-4 labels are stale, was exported
    alone for training without a word (only beside the CoT copy did the conflicting golds
    show)."""
    from tomgym import KnownWrongLabelsWarning
    from tomgym.train.trl import tom_rows

    with pytest.warns(KnownWrongLabelsWarning, match="470 of 600 answers"):
        export_dataset(["ToM-HiToM-Original-MC-v0"], None, 2, "jsonl", tmp_path / "mc.jsonl")
    with pytest.warns(KnownWrongLabelsWarning, match="MC copy's labels for orders 2-4 are stale"):
        tom_rows("ToM-HiToM-Original-O3-v0", split=None, n=2, copy="mc")
    with warnings.catch_warnings():
        warnings.simplefilter("error", KnownWrongLabelsWarning)
        tom_rows("ToM-HiToM-Original-O1-v0", split=None, n=2, copy="mc")  # order 1: not stale
        tom_rows("ToM-HiToM-Original-MC-v0", split=None, n=2, drop_contradicted=True)
        tom_rows("ToM-HiToM-Original-O3-v0", split=None, n=2)  # the CoT copy


@pytest.mark.parametrize(
    ("env_id", "kwargs", "held_out"),
    [("ToM-HiToM-v0", {"orders": [4]}, "ToM-HiToM-O4-v0"),
     ("ToM-HiToM-O2-v0", {"noise": 0.5}, "ToM-HiToM-O2-Noisy-v0"),
     ("ToM-HiToM-O2-v0", {"debiased": "positions"}, "ToM-HiToM-O2-Debiased-v1"),
     ("ToM-ToMi-v0", {"vocab": "test"}, "ToM-ToMi-NewVocab-v0"),
     ("ToM-ToMi-v0", {"templates": "test"}, "ToM-ToMi-Paraphrase-v0")],
)  # fmt: skip
def test_arguments_that_remake_a_held_out_generated_env_warn(
    tmp_path: Path, env_id: str, kwargs: dict[str, Any], held_out: str
) -> None:
    """Red team: a generated env given its held-out sibling's settings (orders=[4],
    noise=0.5, vocab="test" ...) serves that env's very items, and export, tom_rows and train
    said nothing; only arguments named *_split were looked at."""
    from tomgym import HeldOutDataWarning

    with pytest.warns(HeldOutDataWarning, match=f"{env_id} with .* serves the items of held-out "
                      f"{held_out}:"):  # fmt: skip
        export_dataset([env_id], "train", 3, "jsonl", tmp_path / "x.jsonl", **kwargs)


def test_arguments_that_remake_no_held_out_env_do_not_warn(tmp_path: Path) -> None:
    from tomgym import HeldOutDataWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", HeldOutDataWarning)
        export_dataset(["ToM-HiToM-O2-v0"], "train", 3, "jsonl", tmp_path / "a.jsonl", noise=0.1)
        export_dataset(["ToM-HiToM-v0"], "train", 3, "jsonl", tmp_path / "b.jsonl",
                       orders=[1, 2])  # fmt: skip


def test_exporting_a_whole_release_that_holds_a_held_out_order_warns(
    tmp_path: Path, data_root: Path
) -> None:
    """The Hi-ToM release's whole copies serve every item of ToM-HiToM-Original-O4-v0, the
    release's held-out order; exporting them said nothing (red team: 120 of its 120 items)."""
    from tomgym import HeldOutDataWarning

    held_out = {it.id for it in tomgym.load_items("ToM-HiToM-Original-O4-v0")}
    for env_id in ("ToM-HiToM-Original-v0", "ToM-HiToM-Original-MC-v0"):
        out = tmp_path / f"{env_id}.jsonl"
        with pytest.warns(HeldOutDataWarning, match=f"{env_id} serves 120 of the 120 items of "):
            export_dataset([env_id], None, None, "jsonl", out)
        exported = {json.loads(line)["item_id"] for line in out.read_text().splitlines()}
        assert held_out <= exported or env_id.endswith("MC-v0")
    with warnings.catch_warnings():
        warnings.simplefilter("error", HeldOutDataWarning)
        export_dataset(
            [f"ToM-HiToM-Original-O{o}-v0" for o in range(4)],
            None,
            None,
            "jsonl",
            tmp_path / "o0-3.jsonl",
        )
        # the items as made: the whole release at order 1 holds none of O4 (review)
        export_dataset(["ToM-HiToM-Original-v0"], None, None, "jsonl", tmp_path / "o1.jsonl",
                       order=1)  # fmt: skip
        # the first 10 items of the whole release are order-0 questions: none held out (review)
        export_dataset(["ToM-HiToM-Original-v0"], None, 10, "jsonl", tmp_path / "ten.jsonl")
    # ... and an order env made with order=4 holds them all
    with pytest.warns(HeldOutDataWarning, match="serves 120 of the 120 items of held-out"):
        export_dataset(["ToM-HiToM-Original-O0-v0"], None, None, "jsonl", tmp_path / "o4.jsonl",
                       order=4)  # fmt: skip


def test_exporting_split_all_of_an_env_with_a_test_split_warns(
    tmp_path: Path, data_root: Path
) -> None:
    """Red team: `--split all` wrote a data file's test rows (and ExploreToM's test stories)
    as training rows without the HeldOutDataWarning that `--split test` gives."""
    from tomgym import HeldOutDataWarning

    story = "Ann put the ball in the box."
    items = [{"id": f"q{i}", "story": f"{story} ({i})", "question": "Where is the ball?",
              "answer": "box", "candidates": ["box", "bag"],
              "split": ("train", "val", "test")[i % 3]} for i in range(6)]  # fmt: skip
    env_id = "Test-Export-SplitAll-v0"
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    try:
        with pytest.warns(HeldOutDataWarning, match=f"2 test-split items of {env_id}"):
            export_dataset([env_id], "all", None, "jsonl", tmp_path / "all.jsonl")
        with warnings.catch_warnings():
            warnings.simplefilter("error", HeldOutDataWarning)
            export_dataset([env_id], "train", None, "jsonl", tmp_path / "train.jsonl")
            export_dataset([env_id], "all", 2, "jsonl", tmp_path / "first2.jsonl")  # q0, q1
    finally:
        tomgym.unregister_tom_env(env_id)
    with pytest.warns(HeldOutDataWarning, match="300 test-split items of ToM-ExploreToM-v0"):
        export_dataset(["ToM-ExploreToM-v0"], "all", None, "jsonl", tmp_path / "et.jsonl")


def test_an_export_to_a_directory_or_a_table_suffix_is_refused(tmp_path: Path) -> None:
    """Red team: --out naming an existing directory failed with a raw '[Errno 21] Is a
    directory', and --format jsonl wrote JSON lines into x.csv silently."""
    from tomgym.train.export import ExportError

    with pytest.raises(ExportError, match="is a directory: name the file"):
        export_dataset(ENVS[:1], "train", 1, "jsonl", tmp_path)
    with pytest.raises(ExportError, match="ends in .csv; name the file"):
        export_dataset(ENVS[:1], "train", 1, "jsonl", tmp_path / "x.csv")


def test_tom_rows_takes_every_item_with_n_none_and_warns_when_n_is_too_many(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """User audit: n above an env's size was cut silently, and n=None (every item) refused."""
    from tomgym.train.trl import tom_rows

    tomgym.register_tom_env("TestRows-Small-v0", items=ITEMS, overwrite=True)
    try:
        every = tom_rows("TestRows-Small-v0", split=None, n=None)
        assert [row["index"] for row in every] == list(range(len(ITEMS)))
        assert not caplog.records
        with caplog.at_level("WARNING", logger="tomgym.train.trl"):
            assert len(tom_rows("TestRows-Small-v0", split=None, n=50)) == len(ITEMS)
        assert f"serves {len(ITEMS)} items here, fewer than n=50" in caplog.text
    finally:
        tomgym.unregister_tom_env("TestRows-Small-v0")
    with pytest.raises(ValueError, match="ToM-HiToM-O1-v0 is generated and has no end: give n"):
        tom_rows("ToM-HiToM-O1-v0", n=None)


def test_an_interrupted_export_leaves_the_previous_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """User audit: Ctrl-C while an export wrote left a shorter file in place of the complete
    one, every line of it parsing, so a trainer would use it without a word."""
    import tomgym.train.export as export

    out = tmp_path / "rows.jsonl"
    export_dataset(["ToM-ToMi-v0"], "train", 6, "jsonl", out)
    before = out.read_text()
    written: list[str] = []

    def interrupted(row: object, **kwargs: object) -> str:  # the writer's json.dumps, per row
        if len(written) == 3:
            raise KeyboardInterrupt
        written.append(json.dumps(row, **kwargs))  # type: ignore[arg-type]
        return written[-1]

    monkeypatch.setattr(export, "json", types.SimpleNamespace(dumps=interrupted))
    with pytest.raises(KeyboardInterrupt):
        export_dataset(["ToM-ToMi-v0"], "train", 9, "jsonl", out)
    monkeypatch.undo()
    assert out.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.jsonl"]  # no partial file left
    export_dataset(["ToM-ToMi-v0"], "train", 2, "jsonl", os.devnull)  # a device: written as is


def test_rows_are_written_as_they_are_made(tmp_path: Path, data_root: Path) -> None:
    """User audit: an export built every row in memory before writing one, so a large --n
    grew past gigabytes with nothing on disk. The peak now stays flat as --n grows."""
    import tracemalloc

    def peak_bytes(n: int) -> int:
        tracemalloc.start()
        try:
            export_dataset(["ToM-ToMi-Original-v0"], None, n, "jsonl", tmp_path / "t.jsonl")
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak_bytes(5)  # the release loaded once, untraced by the figures below
    small, large = peak_bytes(300), peak_bytes(3000)
    assert large < 2 * small, (small, large)  # held in a list: about 10x
    assert len(read_jsonl(tmp_path / "t.jsonl")) == 3000


def test_verl_rows_go_out_in_row_groups_of_one_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parquet is written a row group at a time, under a fixed schema: an item without an
    order (a data file's) in one group and ints in the next must not clash."""
    pq = pytest.importorskip("pyarrow.parquet")
    import tomgym.train.export as export

    monkeypatch.setattr(export, "PARQUET_BATCH_ROWS", 2)
    items = [{"id": f"q{i}", "story": "s", "question": "Where?", "answer": f"box{i}",
              "candidates": ["box0", "box1"]} for i in range(2)]  # fmt: skip
    tomgym.register_tom_env("Test-NoOrder-v0", items=items)
    try:
        path = export_dataset(
            ["Test-NoOrder-v0", "ToM-HiToM-O2-v0"], "train", 3, "verl", tmp_path / "v.parquet"
        )
        rows = read_jsonl(
            export_dataset(
                ["Test-NoOrder-v0", "ToM-HiToM-O2-v0"], "train", 3, "jsonl", tmp_path / "v.jsonl"
            )
        )
    finally:
        tomgym.unregister_tom_env("Test-NoOrder-v0")
    assert pq.ParquetFile(path).metadata.num_row_groups == 3
    table = pq.read_table(path).to_pylist()
    assert table == [export.to_format(row, "verl") for row in rows]
    assert [r["extra_info"]["order"] for r in table] == [None, None, 2, 2, 2]


def test_prompts_exported_twice_are_counted_and_conflicting_golds_named(
    tmp_path: Path, data_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Red team: the Hi-ToM release's CoT and MC copies exported together wrote 600 prompts
    twice, 138 of them with another gold (one prompt rewarded for either answer), and the
    whole release with its O2 env wrote 120 rows twice, without a word; 'tomgym:ID' beside
    'ID' got past the check for an ID given twice (and named veRL's data_source with it)."""
    export_dataset(["ToM-HiToM-Original-v0", "ToM-HiToM-Original-MC-v0"], None, None,
                   "jsonl", tmp_path / "a.jsonl")  # fmt: skip
    err = capsys.readouterr().err
    assert "138 rows ask a prompt written before with another gold answer" in err
    assert "462 rows repeat a prompt written before with the same gold" in err
    export_dataset(["ToM-HiToM-Original-v0", "ToM-HiToM-Original-O2-v0"], None, None,
                   "jsonl", tmp_path / "b.jsonl")  # fmt: skip
    err = capsys.readouterr().err
    assert "120 rows repeat a prompt" in err and "another gold" not in err
    out = export_dataset(["tomgym:ToM-HiToM-O2-v0", "ToM-HiToM-O2-v0"], "train", 2, "verl",
                         tmp_path / "c.parquet")  # fmt: skip
    assert "given more than once" in capsys.readouterr().err
    import pandas as pd

    assert list(pd.read_parquet(out)["data_source"]) == ["ToM-HiToM-O2-v0"] * 2
    export_dataset(["ToM-HiToM-O2-v0", "ToM-HiToM-O3-v0", "ToM-ToMi-v0"], "train", 50,
                   "jsonl", tmp_path / "d.jsonl")  # fmt: skip
    err = capsys.readouterr().err
    assert "rows repeat" not in err and "another gold" not in err
