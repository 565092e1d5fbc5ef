"""The ToMi release loader: both versions, official splits, trace-derived fields."""

from __future__ import annotations

from collections import Counter

import gymnasium as gym
import pytest
from tomgym.envs import tomi_release
from tomgym.envs.tomi_release import load_tomi, parse_question_type, tomi_items

from tomgym.items import ItemError


@pytest.mark.parametrize("version", ["clever_hans", "original"])
@pytest.mark.parametrize("split", ["train", "val"])
def test_counts(version, split):
    items = tomi_items(version, split)
    assert len(items) == 5994
    assert Counter(it.metadata["story_type"] for it in items) == {
        "true_belief": 1998,
        "false_belief": 1998,
        "second_order_false_belief": 1998,
    }
    assert len({it.metadata["story_id"] for it in items}) == 999
    assert Counter(it.question_type for it in items) == {
        "memory": 999,
        "reality": 999,
        "first_order": 1998,
        "second_order": 1998,
    }
    orders = {"memory": 0, "reality": 0, "first_order": 1, "second_order": 2}
    assert all(it.order == orders[it.question_type] for it in items)
    assert all(it.answer in it.candidates for it in items)
    assert {it.split for it in items} == {split}


def test_versions_differ_as_the_readme_says():
    ch = tomi_items("clever_hans", "train")
    fb = tomi_items("original", "train")
    colours = ("red_", "green_", "blue_")
    assert not any(c.startswith(colours) for it in ch for c in it.candidates)
    assert any(c.startswith(colours) for it in fb for c in it.candidates)
    rooms = {"workshop", "master_bedroom", "hall", "kitchen", "porch"}
    assert not any(rooms & set(it.candidates) for it in ch)
    tom = Counter(it.metadata["tom"] for it in ch if it.order)
    assert set(tom) == {True, False}


def test_parse_question_type():
    assert parse_question_type("second_order_1_no_tom") == ("second_order", False)
    assert parse_question_type("reality") == ("reality", None)
    with pytest.raises(ValueError):
        parse_question_type("third_order_0_tom")


def _write(tmp_path, answer="basket", trace_type="first_order_0_tom"):
    txt = tmp_path / "x.txt"
    txt.write_text(
        "1 Ann entered the hall.\n2 The apple is in the box.\n"
        "3 Ann moved the apple to the basket.\n"
        "4 Where is the apple really?\tbasket\t1\n"
        "1 Bob entered the hall.\n2 The pear is in the box.\n"
        f"3 Where will Bob look for the pear?\t{answer}\t1\n"
    )
    trace = tmp_path / "x.trace"
    trace.write_text(f"enter,reality,true_belief\nenter,{trace_type},true_belief\n")
    return txt, trace


def test_small_file_and_bad_records(tmp_path):
    txt, trace = _write(tmp_path, answer="box")
    # A story naming one container would list only the gold as a candidate: refused by name.
    with pytest.raises(ItemError, match=r"x.txt record 1 \(line 7\).*holds only the gold"):
        load_tomi(txt, trace, split="val")
    two = "2 The pear is in the box.\n3 The plum is in the crate.\n4 Where will Bob"
    txt.write_text(txt.read_text().replace("2 The pear is in the box.\n3 Where will Bob", two))
    items = load_tomi(txt, trace, split="val")
    assert [it.candidates for it in items] == [("box", "basket"), ("box", "crate")]
    txt, trace = _write(tmp_path, answer="basket")
    with pytest.raises(ItemError, match=r"x.txt record 1 \(line 7\).*not among the candidates"):
        load_tomi(txt, trace)
    txt, trace = _write(tmp_path, answer="box", trace_type="third_order")
    with pytest.raises(ItemError, match=r"x.trace line 2: unknown ToMi question type .third_order"):
        load_tomi(txt, trace)


def test_registered_env_and_split_kwarg():
    tomi_release.register_envs()
    env = gym.make("ToM-ToMi-Original-v0").unwrapped
    assert env.size == 5994
    env = gym.make("ToM-ToMi-Original-v0", version="original", split="val").unwrapped
    assert env.source.item(0).metadata["version"] == "original"
    with pytest.raises(ValueError, match="test split"):
        gym.make("ToM-ToMi-Original-v0", split="test")
    with pytest.raises(TypeError, match="order"):
        gym.make("ToM-ToMi-Original-v0", order=1)
