"""Labels: custom prompt presets survive the JSON, thread-safe scoring, consistent failures."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import tomgym
from tomgym.prompts import PromptPreset, resolve_prompt
from tomgym.train.export import export_dataset
from tomgym.train.labels import (
    decode_label,
    encode_label,
    failure_reward,
    labelled_episode,
    score_label,
)
from tomgym.train.trl import tom_dataset
from tomgym.train.verl import compute_score

ENV = "ToM-HiToM-O1-v0"
MINE = PromptPreset(name="mine", system="Answer in tags, briefly.", assumptions="none")


def gold(label: str) -> str:
    return labelled_episode(decode_label(label))[2].gold_text


def test_resolve_prompt_takes_a_dict_and_explains_other_types() -> None:
    assert resolve_prompt(MINE.model_dump()) == MINE
    assert resolve_prompt("cot").name == "cot"
    with pytest.raises(TypeError, match="preset name, a dict or a PromptPreset, not int"):
        resolve_prompt(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown prompt preset"):
        resolve_prompt("nope")
    env = tomgym.make(ENV, prompt=MINE.model_dump())
    _, info = env.reset(options={"index": 0})
    assert info["messages"][0]["content"] == MINE.system


def test_custom_preset_round_trips_through_a_label(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    path = export_dataset([ENV], "train", 2, "verl", tmp_path / "cp.parquet", prompt=MINE)
    rows = pq.read_table(path).to_pylist()
    assert rows[0]["prompt"][0]["content"] == MINE.system
    for row in rows:
        label = row["reward_model"]["ground_truth"]
        result = compute_score(ENV, f"<think>t</think><answer>{gold(label)}</answer>", label)
        assert result["error"] == "" and result["score"] == pytest.approx(1.1)
    dataset = tom_dataset(ENV, n=1, prompt=MINE)
    assert dataset[0]["prompt"][0]["content"] == MINE.system


@pytest.fixture
def fast_switching() -> Iterator[None]:
    # Switch threads every microsecond so that an unlocked reset/step race shows up at once.
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(previous)


def test_scoring_from_many_threads_gives_every_gold_answer_the_maximum(
    fast_switching: None,
) -> None:
    labels = [encode_label(ENV, i, split="train", length=1) for i in range(16)]
    answers = {label: f"<think>t</think><answer>{gold(label)}</answer>" for label in labels}
    results: list[tuple[float, str]] = []
    lock = threading.Lock()

    def work(offset: int) -> None:
        mine = []
        for round_ in range(12):
            for k in range(len(labels)):
                label = labels[(k + offset + round_) % len(labels)]
                if k % 2:
                    out = compute_score(ENV, answers[label], label)
                    mine.append((out["score"], out["error"]))
                else:
                    score, _ = score_label(label, answers[label])
                    mine.append((score.reward, ""))
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 * 12 * 16
    bad = [r for r in results if r != pytest.approx((1.1, ""))]
    assert not bad, bad[:5]


@pytest.mark.parametrize(
    ("label", "minimum"),
    [
        ("not json", 0.0),
        (json.dumps({"env_id": ENV, "index": -1, "kwargs": {"reward": "tomrl"}}), -3.0),
        (json.dumps({"env_id": ENV, "index": -1, "kwargs": {}}), 0.0),
        (encode_label(ENV, 10**12, reward="tomrl"), -3.0),  # a valid label, an index too large
    ],
)
def test_unusable_labels_score_the_presets_minimum_everywhere(label: str, minimum: float) -> None:
    assert failure_reward(label) == minimum
    result = compute_score(ENV, "<think>t</think><answer>x</answer>", label)
    assert result["score"] == minimum and result["error"]
    assert result["format"] + result["answer"] == minimum
    openrlhf_reward = pytest.importorskip("tomgym.train.openrlhf_reward")
    out = openrlhf_reward.reward_func(["<answer>x</answer>"], [""], [label])
    assert out["rewards"].tolist() == [minimum]


def test_a_refused_held_out_or_unknown_split_is_an_error_not_the_default_items() -> None:
    """Only the training split falls back to an env's own items; asking for test or a typo
    must not quietly export the env's default (train) items."""
    from tomgym.train.labels import open_labelled_env

    with pytest.raises((TypeError, ValueError), match="split"):
        open_labelled_env("ToM-HiToM-O1-v0", "tset", {})
    with pytest.raises((TypeError, ValueError)):
        open_labelled_env("ToM-OpenToM-v0", "test", {})


def test_split_all_of_an_env_without_splits_is_the_whole_env(tmp_path: Path) -> None:
    """Plugin audit: --split train on a generator env fell back to its own items, --split all
    (all of them, by name) was an error."""
    env_id = "Test-No-Splits-v0"
    tomgym.register_tom_env(
        env_id,
        generator=lambda i: {
            "id": f"g{i}",
            "story": "Ann put the pen in the box.",
            "question": "Where is the pen?",
            "answer": "box",
            "candidates": ["box", "bag"],
        },  # fmt: skip
        max_prompt_chars=200,
    )
    try:
        path = export_dataset([env_id], "all", 3, "openrlhf", tmp_path / "rows.jsonl")
        labels = [decode_label(json.loads(line)["label"]) for line in path.read_text().split("\n")
                  if line]  # fmt: skip
        assert [label.index for label in labels] == [0, 1, 2]
        assert all("split" not in label.kwargs for label in labels)
    finally:
        tomgym.unregister_tom_env(env_id)


def test_labels_of_an_env_registered_with_another_reward_keep_its_minimum(tmp_path: Path) -> None:
    """A plugin env whose default reward is tomrl: its labels record the spec, so a reward
    worker without the plugin (the env unknown there) gives unusable samples tomrl's -3, never
    rlvr's 0, which would pay more than a wrong answer (-1)."""

    env_id = "Test-Plugin-Reward-v0"
    items = [
        {"id": f"q{i}", "story": f"The ball is in the box{i}.", "question": "Where is the ball?",
         "answer": f"box{i}", "candidates": ["box0", "box1", "box2"]}
        for i in range(3)
    ]  # fmt: skip
    tomgym.register_tom_env(env_id, items=items, kwargs={"reward": "tomrl"})
    try:
        path = export_dataset([env_id], "train", None, "openrlhf", tmp_path / "rows.jsonl")
        label = json.loads(path.read_text().splitlines()[0])["label"]
        assert decode_label(label).kwargs["reward"]["name"] == "tomrl"
        wrong = "<think>t</think><answer>box9</answer>"
        assert score_label(label, wrong)[0].reward == pytest.approx(-1.0)
    finally:
        tomgym.unregister_tom_env(env_id)  # the label scorers' caches see it go
    assert failure_reward(label) == -3.0  # the env is unknown now, as on a bare worker
    result = compute_score(env_id, "<think>t</think><answer>box0</answer>", label)
    assert result["score"] == -3.0 and result["error"]
    built_in = export_dataset([ENV], "train", 2, "openrlhf", tmp_path / "built_in.jsonl")
    first = json.loads(built_in.read_text().splitlines()[0])["label"]
    assert "reward" not in decode_label(first).kwargs  # rlvr: nothing to record


def test_a_re_registered_env_is_scored_on_its_new_items() -> None:
    """The label scorers cached the env per ID and kwargs: after registering the ID again (a
    notebook) every adapter kept scoring against the old items, even after unregistering."""
    from tomgym.train.trl import tom_answer_reward

    env_id = "TestLabels-Reregistered-v0"
    item = {"id": "q", "story": "s", "question": "Where?", "answer": "box",
            "candidates": ["box", "basket"]}  # fmt: skip
    label = encode_label(env_id, 0)
    said_box = "<think>t</think><answer>box</answer>"
    try:
        tomgym.register_tom_env(env_id, items=[item])
        assert score_label(label, said_box)[0].correct
        assert tom_answer_reward(["p"], [said_box], label=[label]) == [1.0]
        tomgym.register_tom_env(env_id, items=[{**item, "answer": "basket"}], overwrite=True)
        assert not score_label(label, said_box)[0].correct
        assert tom_answer_reward(["p"], [said_box], label=[label]) == [0.0]
    finally:
        tomgym.unregister_tom_env(env_id)
    with pytest.raises(KeyError):  # unregistered: no longer scored on the cached env
        score_label(label, said_box)


def test_every_adapter_reads_a_completion_alike() -> None:
    """veRL and OpenRLHF scored str(list) of chat messages (the minimum, with no error) where
    TRL read the assistant's content; None was scored as the text 'None'; labels=None raised
    inside OpenRLHF's reward hook."""
    from tomgym.train.openrlhf_reward import reward_func
    from tomgym.train.trl import tom_answer_reward

    gold = labelled_episode(decode_label(encode_label(ENV, 0)))[2].gold_text
    text = f"<think>t</think><answer>{gold}</answer>"
    label = encode_label(ENV, 0)
    forms = [
        text,
        [{"role": "assistant", "content": text}],
        [{"role": "assistant", "content": [{"type": "text", "text": text}]}],
        {"role": "assistant", "content": text},
    ]
    for form in forms:
        assert compute_score(ENV, form, label)["correct"] == 1.0, form
        assert tom_answer_reward(["p"], [form], label=[label]) == [1.0], form
    unusable = compute_score(ENV, None, label)
    assert unusable["correct"] == 0.0 and "completion must be text" in unusable["error"]
    out = reward_func([text], None, None)  # type: ignore[arg-type]
    assert out["rewards"].tolist() == [0.0]  # the failure reward, not an exception


def test_labels_take_numpy_numbers_and_refuse_loose_indices() -> None:
    """tom_rows(seed=np.int64(3)) failed ('int64 is not JSON serializable') though the env
    takes it; an index of "3", 3.0 or true was read as an index."""
    import numpy as np

    from tomgym.train.labels import LabelError
    from tomgym.train.trl import tom_rows

    label = encode_label(ENV, np.int64(3), seed=np.int64(2))
    assert decode_label(label).index == 3 and decode_label(label).kwargs == {"seed": 2}
    assert len(tom_rows(ENV, n=2, seed=np.int64(3))) == 2
    for index in ("3", 3.0, True):
        with pytest.raises(LabelError):
            decode_label({"env_id": ENV, "index": index, "kwargs": {}})


def test_completion_shapes_other_libraries_hand_over_are_read_or_refused() -> None:
    """Messages without roles, a 'model' or 'Assistant' role and a pipeline's generated_text
    were read as empty text: reward 0 with no error."""
    from tomgym.train.labels import response_text

    text = "<think>x</think><answer>crate</answer>"
    shapes = [  # fmt: skip
        [{"content": text}],
        [{"role": "model", "content": text}],
        [{"role": "Assistant", "content": text}],
        [{"generated_text": text}],
        {
            "generated_text": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": text},
            ]
        },
    ]
    assert [response_text(shape) for shape in shapes] == [text] * len(shapes)
    for bad in ([{"role": "user", "content": text}], [{"foo": 1}], {"foo": 1}):
        with pytest.raises(TypeError):
            response_text(bad)


def test_an_exported_label_refuses_an_edited_item_at_its_index(tmp_path: Path) -> None:
    """Red team: labels carried only the env ID and index, so after the user's file changed
    (rows swapped) the exported prompt about one item was scored against another's gold, with
    no error. Exported labels now carry the item's digest; every adapter gives the failure
    reward (they never raise into a trainer) and scoring says what changed."""
    from tomgym.train.labels import StaleLabelError
    from tomgym.train.trl import tom_answer_reward

    env_id = "TestLabels-Edited-v0"
    rows = [{"id": "q1", "story": "Ann put the ball in the box.", "question": "Where is the ball?",
             "answer": "box", "candidates": ["box", "oven"]},
            {"id": "q2", "story": "Bob put the pie in the oven.", "question": "Where is the pie?",
             "answer": "oven", "candidates": ["box", "oven"]}]  # fmt: skip
    said_box = "<think>t</think><answer>box</answer>"
    try:
        tomgym.register_tom_env(env_id, items=rows)
        out = export_dataset([env_id], None, None, "jsonl", tmp_path / "x.jsonl")
        label = json.loads(out.read_text().splitlines()[0])["label"]
        assert json.loads(label)["digest"]
        assert score_label(label, said_box)[0].correct
        tomgym.register_tom_env(env_id, items=rows[::-1], overwrite=True)
        with pytest.raises(StaleLabelError, match="q2.*export the training data again"):
            score_label(label, said_box)
        assert tom_answer_reward(["p"], [said_box], label=[label]) == [None]
        assert compute_score(env_id, said_box, label)["correct"] == 0.0
        assert score_label(encode_label(env_id, 0), said_box)[0].correct is False  # no digest
    finally:
        tomgym.unregister_tom_env(env_id)
