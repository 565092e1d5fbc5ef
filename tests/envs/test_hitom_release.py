"""The Hi-ToM release loader: both copies, both file layouts, the facts of the data README."""

from __future__ import annotations

import json
from collections import Counter

import gymnasium as gym
import pytest
from tomgym.envs import hitom_release
from tomgym.envs.hitom_release import hitom_items, load_hitom_json, load_hitom_tree

import tomgym
from tomgym.items import ItemError


@pytest.fixture(scope="module")
def cot(data_root):
    return load_hitom_json(data_root / "hitom" / "Hi-ToM_data.json", "cot")


@pytest.fixture(scope="module")
def mc(data_root):
    return load_hitom_json(data_root / "hitom" / "Hi-ToM_data.json", "mc")


def test_counts_and_fields(cot, mc):
    for items in (cot, mc):
        assert len(items) == 600
        assert Counter(it.order for it in items) == {o: 120 for o in range(5)}
        assert len({it.story for it in items}) == 120
        assert all(len(it.candidates) == 15 and it.answer in it.candidates for it in items)
        assert all(it.answer_type == "choice" for it in items)
    assert {it.question_type for it in cot if it.order == 0} == {"reality"}
    assert {it.question_type for it in cot if it.order} == {"belief"}
    meta = cot[0].metadata
    assert set(meta) == {"deception", "story_length", "sample_id", "prompting_type"}
    assert Counter(it.metadata["deception"] for it in cot) == {True: 300, False: 300}
    assert {it.metadata["prompting_type"] for it in mc} == {"VP"}


def test_stories_are_only_the_story(cot, mc):
    for it in [*cot, *mc]:
        assert it.story.startswith("1 ")
        assert "Read the following" not in it.story and "***" not in it.story
        assert "Question:" not in it.story and "Choices:" not in it.story
    # The copies share their stories.
    assert {it.story for it in cot} == {it.story for it in mc}


def test_copies_disagree_only_on_orders_2_to_4(cot, mc):
    mc_by_key = {it.id.replace("-mc-", "-cot-"): it for it in mc}
    differ = Counter(it.order for it in cot if it.answer != mc_by_key[it.id].answer)
    assert set(differ) <= {2, 3, 4} and sum(differ.values()) > 0


@pytest.mark.parametrize("copy", ["cot", "mc"])
def test_json_and_text_tree_give_the_same_items(data_root, copy, cot, mc):
    tree = load_hitom_tree(data_root / "hitom" / "Hi-ToM_data", copy)
    from_json = cot if copy == "cot" else mc
    assert sorted(tree, key=lambda i: i.id) == sorted(from_json, key=lambda i: i.id)


def test_bad_record_names_file_and_record(tmp_path, data_root):
    records = json.loads((data_root / "hitom" / "Hi-ToM_data.json").read_text())["data"][:5]
    records[3]["answer"] = "purple_cauldron"
    path = tmp_path / "Hi-ToM_data.json"
    path.write_text(json.dumps({"data": records}))
    with pytest.raises(
        ItemError, match=rf"{path.name} record 3 \(data\[3\]\):.*not among the candidates"
    ):
        load_hitom_json(path)
    del records[3]["choices"]
    path.write_text(json.dumps({"data": records}))
    with pytest.raises(ItemError, match=r"record 3 \(data\[3\]\): cannot read.*choices"):
        load_hitom_json(path)


def test_orders_and_bad_arguments():
    assert len(hitom_items("cot", 4)) == 120
    with pytest.raises(ValueError):
        hitom_items("vp")
    with pytest.raises(ValueError):
        hitom_items("cot", 5)


def test_registered_envs_make():
    hitom_release.register_envs()
    sizes = {"ToM-HiToM-Original-v0": 600, "ToM-HiToM-Original-MC-v0": 600}
    sizes.update({f"ToM-HiToM-Original-O{o}-v0": 120 for o in range(5)})
    for env_id, size in sizes.items():
        env = gym.make(env_id).unwrapped
        assert env.size == size, env_id
    env = gym.make("ToM-HiToM-Original-O3-v0").unwrapped
    assert {env.source.item(i).order for i in range(env.size)} == {3}
    # order 4 is held out from orders 0-3, as ToM-HiToM-O4-v0 is from the generated mix
    held = {o: tomgym.get_spec(f"ToM-HiToM-Original-O{o}-v0").held_out for o in range(5)}
    assert held == {0: False, 1: False, 2: False, 3: False, 4: True}
    assert "ToM-HiToM-Original-O3-v0" in tomgym.get_spec("ToM-HiToM-Original-O4-v0").held_out_from
    with pytest.raises(TypeError, match="colour"):
        gym.make("ToM-HiToM-Original-v0", colour=1)
    with pytest.raises(ValueError, match="no splits"):
        gym.make("ToM-HiToM-Original-v0", split="train")


@pytest.mark.parametrize(
    "env_id", ["ToM-HiToM-Original-O3-v0", "ToM-HiToM-Original-MC-v0", "ToM-HiToM-Original-v0"]
)
def test_missing_data_names_the_env_made(env_id, tmp_path):
    import tomgym
    from tomgym.data import MissingDataError, set_data_root

    set_data_root(tmp_path)
    try:
        with pytest.raises(MissingDataError, match=f"^{env_id} needs the file"):
            tomgym.make(env_id)
    finally:
        set_data_root(None)


def test_drop_contradicted_keeps_the_questions_the_rules_agree_with():
    """Label red team: the release envs served their 17 (Hi-ToM) and 230 (ToMi) labels that
    contradict their stories with no way to leave them out; 7 are in the held-out O4 set."""
    from tomgym.audit import audit_release

    whole = tomgym.make("ToM-HiToM-Original-v0").unwrapped
    kept = tomgym.make("ToM-HiToM-Original-v0", drop_contradicted=True).unwrapped
    contradicted = {d.item_id for d in audit_release("hitom-cot").disagreements}
    assert (whole.size, kept.size, len(contradicted)) == (600, 583, 17)
    assert {kept.source.item(i).id for i in range(kept.size)}.isdisjoint(contradicted)
    assert tomgym.make("ToM-HiToM-Original-O4-v0", drop_contradicted=True).unwrapped.size == 113
    tomi = tomgym.make("ToM-ToMi-Original-v0", drop_contradicted=True).unwrapped
    assert tomi.size == 5994 - len(audit_release("tomi-clever_hans-train").disagreements)
    with pytest.raises(tomgym.EnvArgumentError, match="drop_contradicted"):
        tomgym.make("ToM-ToMi-Original-v0", drop_contradicted="yes")
