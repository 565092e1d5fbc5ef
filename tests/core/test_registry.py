"""Registering envs from items and generators; lookups and suggestions."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest

import tomgym
from tomgym.items import ItemError, ToMItem
from tomgym.registry import UnknownEnvError, get_spec

ITEMS = [
    {
        "id": f"q{i}",
        "story": f"Ann put the ball in box{i}.",
        "question": "Where is the ball?",
        "answer": f"box{i}",
        "candidates": [f"box{i}", "basket"],
        "order": 0,
    }
    for i in range(3)
]


@pytest.fixture
def custom_id():
    env_id = "Test-Custom-ToM-v0"
    yield env_id
    tomgym.unregister_tom_env(env_id)


def test_register_items_and_make(custom_id: str) -> None:
    spec = tomgym.register_tom_env(custom_id, items=ITEMS, family="custom", usage="eval-only")
    assert spec.size == 3 and spec.orders == (0,) and spec.answer_type == "choice"
    assert custom_id in {s.id for s in tomgym.list_envs()}
    env = gym.make(custom_id)
    prompt, _ = env.reset(options={"index": 2})
    assert "box2" in prompt
    _, reward, *_ = env.step("<think>x</think><answer>box2</answer>")
    assert reward == pytest.approx(1.1)
    assert [i.id for i in tomgym.load_items(custom_id)] == ["q0", "q1", "q2"]


def test_register_generator(custom_id: str) -> None:
    def make(i: int) -> dict[str, object]:
        return {**ITEMS[0], "id": f"g{i}", "answer": "basket"}

    tomgym.register_tom_env(custom_id, generator=make, max_prompt_chars=200)
    assert get_spec(custom_id).procedural
    assert tomgym.load_items(custom_id, n=4)[3].id == "g3"
    with pytest.raises(ValueError, match="n="):
        tomgym.load_items(custom_id)


def basket_item(index: int) -> dict[str, object]:
    """A module-level generator: picklable, as a user's would be."""
    return {**ITEMS[0], "id": f"g{index}", "answer": "basket"}


def test_an_env_of_a_picklable_generator_pickles(custom_id: str) -> None:
    """The generator was wrapped in a closure, so pickling the env (copies, Ray workers)
    failed with "Can't pickle local object"."""
    import pickle

    tomgym.register_tom_env(custom_id, generator=basket_item, max_prompt_chars=200)
    env = gym.make(custom_id)
    again = pickle.loads(pickle.dumps(env))
    assert again.reset(options={"index": 3}) == env.reset(options={"index": 3})


def test_bad_items_register_nothing(custom_id: str) -> None:
    with pytest.raises(ItemError, match="record 1"):
        tomgym.register_tom_env(custom_id, items=[ITEMS[0], {**ITEMS[1], "answer": "nowhere"}])
    assert custom_id not in {s.id for s in tomgym.list_envs()}
    assert custom_id not in gym.registry


def test_a_generator_env_refuses_a_size(custom_id: str) -> None:
    """User audit: register_tom_env(generator=f, size=5) ignored the size without a word."""

    def make(i: int) -> dict[str, object]:
        return {**ITEMS[0], "id": f"g{i}"}

    for extra in ({"size": 5}, {"procedural": False}):
        with pytest.raises(ValueError, match="a generator env is procedural"):
            tomgym.register_tom_env(custom_id, generator=make, max_prompt_chars=500, **extra)  # type: ignore[arg-type]
    assert custom_id not in [spec.id for spec in tomgym.list_envs()]


def test_registration_errors(custom_id: str) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        tomgym.register_tom_env(custom_id)
    with pytest.raises(ValueError, match="version"):
        tomgym.register_tom_env("No-Version", items=ITEMS)
    tomgym.register_tom_env(custom_id, items=ITEMS)
    with pytest.raises(ValueError, match="already registered"):
        tomgym.register_tom_env(custom_id, items=ITEMS)
    # a built-in ID: not an invitation to overwrite the benchmark (plugin audit)
    with pytest.raises(ValueError, match="ToM-HiToM-O4-v0 is one of tomgym's own env IDs"):
        tomgym.register_tom_env("ToM-HiToM-O4-v0", items=ITEMS)


def test_overwriting_a_built_in_from_a_script_warns() -> None:
    """Registration red team: overwrite=True replaced the held-out ToM-HiToM-O4-v0 with one
    custom item (family custom, held_out False) without a word; the built-in registrations
    themselves (run again by a family's register_envs) stay quiet."""
    from tomgym.envs import hitom

    try:
        with pytest.warns(UserWarning, match="ToM-HiToM-O4-v0: overwrite=True replaces tomgym"):
            tomgym.register_tom_env("ToM-HiToM-O4-v0", items=ITEMS, overwrite=True)
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            hitom.register_envs()
    assert tomgym.get_spec("ToM-HiToM-O4-v0").held_out


@pytest.mark.parametrize(
    ("written", "stored_as"),
    [("ToM-HiToM-O4-v00", "ToM-HiToM-O4-v0"), ("CartPole-v01", "CartPole-v1"), ("Mine-v007", None)],
)
def test_a_version_with_a_leading_zero_is_refused_not_stored_over_another_id(
    written: str, stored_as: str | None
) -> None:
    """User audit: Gymnasium stores X-v00 as X-v0, so registering ToM-HiToM-O4-v00 replaced the
    held-out benchmark (and CartPole-v01 replaced CartPole-v1) with a Gymnasium warning only."""
    before = gym.spec(stored_as) if stored_as else None
    with pytest.raises(ValueError, match=r"Gymnasium reads its version as \d+ and stores it as"):
        tomgym.register_tom_env(written, items=ITEMS)
    if stored_as:
        assert gym.spec(stored_as) == before
    assert written not in [spec.id for spec in tomgym.list_envs()]


@pytest.mark.parametrize("env_id", ["tomgym:Foo-v0", "my:Bar-v0"])
def test_an_id_holding_a_colon_is_refused(env_id: str) -> None:
    """Plugin audit: "my:Bar-v0" was registered and listed, but gym.make reads "my:" as a
    module to import first, and tomgym.make suggested the very ID that failed."""
    with pytest.raises(ValueError, match="an env ID cannot hold ':'"):
        tomgym.register_tom_env(env_id, items=ITEMS)
    assert env_id not in [spec.id for spec in tomgym.list_envs()]


def test_unknown_id_suggests_nearest() -> None:
    with pytest.raises(UnknownEnvError, match="Did you mean: ToM-HiToM-O4-v0"):
        get_spec("ToM-HiToM-04-v0")
    # the ID in the wrong case was read as a user's ID and offered nothing (audit)
    with pytest.raises(UnknownEnvError, match="Did you mean: ToM-HiToM-O4-v0") as lower:
        get_spec("tom-hitom-o4-v0")
    assert "plugin" not in str(lower.value)


def test_a_users_unknown_id_is_not_offered_a_built_in_env_and_is_told_where_scripts_count(
    custom_id: str,
) -> None:
    """UX red team: a leaderboard over "MyFile-v0", registered in another process, answered
    "Did you mean: ToM-ToMi-v0?"."""
    with pytest.raises(UnknownEnvError) as unknown:
        get_spec("MyFile-v0")
    assert "ToM-" not in str(unknown.value) and "plugin" in str(unknown.value)
    tomgym.register_tom_env(custom_id, items=ITEMS)
    typo = custom_id[:-3] + "x" + custom_id[-3:]
    with pytest.raises(UnknownEnvError, match=f"Did you mean: {custom_id}"):
        get_spec(typo)
    with pytest.raises(UnknownEnvError) as built_in:
        get_spec("ToM-ToMi-v9")
    assert "plugin" not in str(built_in.value) and "ToM-ToMi-v0" in str(built_in.value)


def test_held_out_spec_names_its_training_envs() -> None:
    spec = get_spec("ToM-HiToM-O4-v0")
    assert spec.held_out and "ToM-HiToM-v0" in spec.held_out_from
    assert not get_spec("ToM-HiToM-v0").held_out
    assert get_spec("ToM-HiToM-v0").orders == (0, 1, 2, 3)


def test_core_imports_no_heavy_dependency() -> None:
    import subprocess
    import sys

    code = (
        "import sys, tomgym, gymnasium as gym; gym.make('ToM-HiToM-O1-v0').reset(seed=0);"
        "heavy = {'torch', 'transformers', 'vllm', 'ray', 'openrlhf'} & set(sys.modules);"
        "print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_refuses_to_replace_another_packages_gym_env() -> None:
    before = gym.registry["CartPole-v1"]
    for overwrite in (False, True):
        with pytest.raises(ValueError, match="CartPole-v1 is already registered with Gymnasium"):
            tomgym.register_tom_env("CartPole-v1", items=ITEMS, overwrite=overwrite)
    assert gym.registry["CartPole-v1"] is before
    assert "CartPole-v1" not in {s.id for s in tomgym.list_envs()}
    tomgym.unregister_tom_env("CartPole-v1")  # documented as a no-op for non-ToM IDs
    assert gym.registry["CartPole-v1"] is before


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"items": ITEMS, "usage": "test"}, "usage='test'"),
        ({"items": ITEMS[0]}, "items must be a list of mappings .*got a dict"),
        ({"items": ITEMS, "orders": 3}, "orders must be a sequence of ints or None, got 3"),
        ({"items": ITEMS, "max_prompt_chars": 200}, "max_prompt_chars is for generator= only"),
        ({"generator": 5, "max_prompt_chars": 200}, "generator must be a function .* got 5"),
        ({"generator": lambda i: ITEMS[0], "max_prompt_chars": "200"}, "got '200'"),
        ({"generator": lambda i: ITEMS[0], "max_prompt_chars": -1}, "positive int, got -1"),
        ({"generator": lambda i: ITEMS[0], "max_prompt_chars": True}, "positive int, got True"),
        ({"entry_point": "tomgym.env:ToMEnv", "size": "3"}, "size must be .* got '3'"),
        ({"entry_point": 5}, "entry_point must look like 'module:Class', got 5"),
        # plugin audit: these were listed as envs that no make could build
        (
            {"entry_point": "gymnasium.envs.classic_control.cartpole:CartPoleEnv", "size": 3},
            "is not a subclass of tomgym.ToMEnv",
        ),
        ({"entry_point": "no_such_module_x:Env"}, "cannot import no_such_module_x"),
        ({"entry_point": "tomgym.env:NoSuchEnv"}, "tomgym.env has no NoSuchEnv"),
        ({"items": ITEMS, "held_out_from": "ToM-HiToM-v0"}, "held_out_from must be a sequence"),
    ],
)
def test_bad_registrations_register_nothing(
    custom_id: str, kwargs: dict[str, object], message: str
) -> None:
    from tomgym.registry import _SOURCES

    with pytest.raises(ValueError, match=message) as err:
        tomgym.register_tom_env(custom_id, **kwargs)  # type: ignore[arg-type]
    assert custom_id in str(err.value)
    assert custom_id not in {s.id for s in tomgym.list_envs()}
    assert custom_id not in _SOURCES
    assert custom_id not in gym.registry


def test_a_failed_overwrite_keeps_the_old_env(custom_id: str) -> None:
    tomgym.register_tom_env(custom_id, items=ITEMS)
    with pytest.raises(ValueError, match="usage"):
        tomgym.register_tom_env(custom_id, items=ITEMS[:1], usage="test", overwrite=True)
    assert len(tomgym.load_items(custom_id)) == 3
    assert get_spec(custom_id).usage == "train"


def test_an_items_env_serves_one_split_when_its_items_have_splits(custom_id: str) -> None:
    """A user's data with a split field: split= serves those items only; a split it lacks is a
    SplitNotFoundError (never the whole list, which holds the other splits' items); an env
    whose items have no splits takes only split='all'."""
    from tomgym.env import SplitNotFoundError

    splits = ["train", "test", "test"]
    split_items = [{**item, "split": s} for item, s in zip(ITEMS, splits, strict=True)]
    tomgym.register_tom_env(custom_id, items=split_items)
    assert [i.id for i in tomgym.load_items(custom_id)] == ["q0", "q1", "q2"]
    assert [i.id for i in tomgym.load_items(custom_id, split="test")] == ["q1", "q2"]
    assert [i.id for i in tomgym.load_items(custom_id, split="all")] == ["q0", "q1", "q2"]
    assert tomgym.make(custom_id, split="train").unwrapped.size == 1
    with pytest.raises(SplitNotFoundError, match="splits are test, train"):
        tomgym.make(custom_id, split="val")
    with pytest.raises(ValueError, match="split must be one of"):
        tomgym.make(custom_id, split="Train")
    tomgym.register_tom_env(custom_id, items=ITEMS, overwrite=True)
    with pytest.raises(ValueError, match="no splits") as caught:
        tomgym.make(custom_id, split="train")
    assert not isinstance(caught.value, SplitNotFoundError)
    assert tomgym.make(custom_id, split="all").unwrapped.size == 3


def test_training_labels_never_take_other_splits_items(custom_id: str) -> None:
    from tomgym.env import SplitNotFoundError
    from tomgym.train.labels import open_labelled_env

    held_out = [{**item, "split": "test"} for item in ITEMS]
    tomgym.register_tom_env(custom_id, items=held_out)
    with pytest.raises(SplitNotFoundError):
        open_labelled_env(custom_id, "train", {})
    tomgym.register_tom_env(custom_id, items=ITEMS, overwrite=True)  # no splits: used whole
    env, kwargs = open_labelled_env(custom_id, "train", {})
    assert env.size == 3 and kwargs == {}


def test_a_default_split_is_checked_against_the_items_when_registered() -> None:
    """kwargs={"split": "banana"} (or a split the items lack) was stored and failed only at
    gym.make; a spec split outside train/val/test/all was stored as well."""
    item = ToMItem(id="a", story="S.", question="Q?", answer="box", candidates=("box", "bag"))
    with pytest.raises(ValueError, match="Split-v0: kwargs: split must be one of"):
        tomgym.register_tom_env("Split-v0", items=[item], kwargs={"split": "banana"})
    with pytest.raises(ValueError, match="Split-v0: kwargs: its items have no splits"):
        tomgym.register_tom_env("Split-v0", items=[item], kwargs={"split": "train"})
    with pytest.raises(ValueError, match="Split-v0: split must be one of train, val, test, all"):
        tomgym.register_tom_env("Split-v0", items=[item], split="banana")
    assert "Split-v0" not in {spec.id for spec in tomgym.list_envs()}


def test_items_of_which_some_have_no_split_are_named_when_registered() -> None:
    """A data file whose split cell is blank in some rows: split='test' served none of them,
    without a word."""
    items = [
        ToMItem(
            id=f"i{k}", story="S.", question="Q?", answer="yes", answer_type="yes_no", split=split
        )
        for k, split in enumerate(["train", "test", "all", "all"])
    ]
    with pytest.warns(UserWarning, match="2 of its 4 items have no split"):
        tomgym.register_tom_env("PartSplit-v0", items=items)
    tomgym.registry.unregister_tom_env("PartSplit-v0")


def test_an_item_lists_size_and_orders_must_be_its_own(custom_id: str) -> None:
    """Review: orders=[3] on items without an order showed order 3 in the spec (the per-order
    figures read the items, which had none), and size=10 on one item was dropped silently."""
    item = {"id": "q", "story": "Ann put the pen in the box.", "question": "Where is the pen?",
            "answer": "box", "candidates": ["box", "bag"]}  # fmt: skip
    with pytest.raises(ValueError, match=r"orders=\[3\] but the items' ToM orders are none"):
        tomgym.register_tom_env(custom_id, items=[item], orders=[3])
    with pytest.raises(ValueError, match=r"size=10 but 1 items were given"):
        tomgym.register_tom_env(custom_id, items=[item], size=10)
    assert custom_id not in {s.id for s in tomgym.list_envs()}
    spec = tomgym.register_tom_env(custom_id, items=[{**item, "order": 3}], orders=[3], size=1)
    assert spec.orders == (3,) and spec.size == 1


def test_items_that_contradict_or_leak_across_splits_warn_at_registration() -> None:
    """Red team: a data file asking one question about one story twice with two golds (one
    can never be answered right), or a train row repeated in the test split, was accepted
    without a word."""

    import pytest

    base = {"story": "Ann put the ball in the box.", "question": "Where is the ball?",
            "candidates": ["box", "bag"]}  # fmt: skip
    items = [
        {**base, "id": "a", "answer": "box", "split": "train"},
        # the same question with another space, case and mark (custom-data audit: only an
        # exact copy was caught)
        {
            "story": "Ann put the ball in the box. ",
            "question": "where is the ball ?",
            "candidates": ["box", "bag"],
            "id": "b",
            "answer": "box",
            "split": "test",
        },
        {**base, "id": "c", "answer": "bag", "split": "test"},
    ]
    env_id = "Test-Registry-Repeated-v0"
    try:
        with pytest.warns(UserWarning) as caught:
            tomgym.register_tom_env(env_id, items=items, overwrite=True)
        said = " ".join(str(w.message) for w in caught)
        assert (
            "1 question(s) about the same story are asked again with another gold (item "
            "'a': 'box', item 'c': 'bag')" in said
        )
        assert (
            "1 question(s) of a held-out split are asked in the train split too (item 'b' "
            "of test is item 'a' of train)" in said
        )
        # both in train: no leak, but a row given twice, which weighs twice
        with pytest.warns(UserWarning, match="item 'b' repeats item 'a'") as caught:
            tomgym.register_tom_env(env_id, items=[items[0], {**items[1], "split": "train"}],
                                    overwrite=True)  # fmt: skip
        assert len(caught) == 1, [str(w.message) for w in caught]
    finally:
        tomgym.unregister_tom_env(env_id)


def test_golds_in_a_script_without_spaces_warn_at_registration() -> None:
    """Red team: a Chinese dataset registered without a word, then its natural answers
    ("在箱子里", in the box) were all wrong: the judge's words are set apart by spaces."""
    import warnings

    import pytest

    from tomgym.answers import judge_choice

    item = {"id": "zh", "story": "小明把球放在箱子里。", "question": "球在哪里？",
            "answer": "箱子", "candidates": ["箱子", "篮子"]}  # fmt: skip
    env_id = "Test-Registry-Unspaced-v0"
    try:
        unspaced = "a script written without spaces \\(item 'zh': '箱子'\\)"
        with pytest.warns(UserWarning, match=f"1 item\\(s\\) have a gold in {unspaced}.*list_cand"):
            tomgym.register_tom_env(env_id, items=[item], overwrite=True)
        assert judge_choice("箱子", "箱子", ["箱子", "篮子"]).correct  # the gold alone pays
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tomgym.register_tom_env(env_id, items=[{**item, "answer": "box",
                                    "candidates": ["box", "bag"]}], overwrite=True)  # fmt: skip
    finally:
        tomgym.unregister_tom_env(env_id)


def test_a_free_text_gold_reading_as_a_list_of_names_is_warned_about() -> None:
    """Custom-data audit: a gold "Anne, Bob" (no answer_type) is free text, so "Bob and Anne"
    was wrong without a word; registration now says how to have it judged as a set."""
    import warnings

    from tomgym.rewards import judge_answer

    item = {"id": "a", "story": "Anne and Bob saw it.", "question": "Who saw it?",
            "answer": "Anne, Bob", "answer_type": "text"}  # fmt: skip
    env_id = "Test-Registry-NameList-v0"
    try:
        with pytest.warns(UserWarning, match="item 'a': 'Anne, Bob'.*answer_type='names'"):
            tomgym.register_tom_env(env_id, items=[item], overwrite=True)
        as_list = ToMItem(**{**item, "answer": ["Anne", "Bob"], "answer_type": "names"})
        assert judge_answer("Bob and Anne", as_list)[0]  # what the warning offers
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a place or a single name is no list
            for gold in ("New York", "Anne", "kitchen, garden"):
                tomgym.register_tom_env(env_id, items=[{**item, "answer": gold}], overwrite=True)
    finally:
        tomgym.unregister_tom_env(env_id)


def test_list_envs_reads_a_family_in_any_case_and_refuses_an_unknown_one() -> None:
    assert [s.id for s in tomgym.list_envs("TOMI")] == [s.id for s in tomgym.list_envs("tomi")]
    assert "ToM-ToMi-v0" in [s.id for s in tomgym.list_envs("tomi")]
    # a misspelt family returned [], which reads as a family without envs
    with pytest.raises(ValueError, match=r"no env of family 'hitomm'; families: .*hitom"):
        tomgym.list_envs(family="hitomm")
    with pytest.raises(TypeError, match="family must be a string"):
        tomgym.list_envs(family=3)  # type: ignore[arg-type]


def test_a_row_given_twice_is_warned_of_at_registration() -> None:
    """Registration red team: a data file holding one row twice (under two ids) registered
    and exported without a word; the export of one env does not compare rows (it would keep
    every row's key), so registration says it."""
    row = {"story": "Ann put the ball in the box.", "question": "Where is the ball?",
           "answer": "box", "candidates": ["box", "bag"]}  # fmt: skip
    try:
        with pytest.warns(UserWarning, match="item 'b' repeats item 'a'.*weighs twice"):
            tomgym.register_tom_env("Test-Twice-v0", items=[{"id": "a", **row}, {"id": "b", **row}])
    finally:
        tomgym.unregister_tom_env("Test-Twice-v0")


def test_registration_metadata_is_checked() -> None:
    """Registration red team: answer_type="bogus" (or "names" over choice items), an empty
    family and an id of spaces were stored as given."""
    item = {"id": "a", "story": "s", "question": "Where?", "answer": "box",
            "candidates": ["box", "bag"]}  # fmt: skip
    with pytest.raises(
        ValueError, match="answer_type='names' but the items are judged as 'choice'"
    ):
        tomgym.register_tom_env("Test-Meta-v0", items=[item], answer_type="names")
    with pytest.raises(ValueError, match="family=''"):
        tomgym.register_tom_env("Test-Meta-v0", items=[item], family="")
    with pytest.raises(ValueError, match="answer_type='bogus'"):
        tomgym.register_tom_env(
            "Test-Meta-v0", entry_point="tomgym.env:ToMEnv", answer_type="bogus"
        )
    with pytest.raises(ValueError, match="an id of spaces only names no item"):
        tomgym.register_tom_env("Test-Meta-v0", items=[{**item, "id": "  "}])
    assert "Test-Meta-v0" not in {spec.id for spec in tomgym.list_envs()}


def test_a_generator_over_its_bound_or_asked_for_a_split_is_told_plainly() -> None:
    """Registration red team: a generator item longer than max_prompt_chars failed at reset
    with "the source's max_prompt_chars is wrong", naming no argument, and split= gave
    Gymnasium's "was raised from the environment creator ... with kwargs ({'tom_id': ...})"."""

    def make(index: int) -> dict[str, object]:
        story = "Ann put the ball in the box. Ann left."
        return {"id": f"g{index}", "story": story, "question": "Where is the ball?",
                "answer": "box", "candidates": ["box", "bag"]}  # fmt: skip

    tomgym.register_tom_env("Test-GenSmall-v0", generator=make, max_prompt_chars=10)
    try:
        env = gym.make("Test-GenSmall-v0")
        with pytest.raises(ValueError, match=r"item 0: its story and question take 56 characters"):
            env.reset(options={"index": 0})
        with pytest.raises(ValueError, match="max_prompt_chars=10 given to register_tom_env"):
            env.reset(options={"index": 1})
        with pytest.raises(tomgym.EnvArgumentError) as refused:
            gym.make("Test-GenSmall-v0", split="test")
        assert "takes no split argument" in str(refused.value)
        assert "environment creator" not in str(refused.value)
    finally:
        tomgym.unregister_tom_env("Test-GenSmall-v0")
