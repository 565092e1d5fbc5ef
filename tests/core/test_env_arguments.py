"""Env keyword arguments are checked and normalised at make time: a bad type or value is a
clear error naming the env, the argument and the value, and equal-looking values (seed 1 / 1.0
/ True, noise 0 / 0.0) never name two item streams."""

from __future__ import annotations

from pathlib import Path

import pytest
from tomgym.envs.hitom import hitom_item
from tomgym.envs.tomi import tomi_item

import tomgym
from tomgym.cli_args import parse_kwargs
from tomgym.env import EnvArgumentError
from tomgym.prompts import PROMPT_PRESETS
from tomgym.sources import split_seed
from tomgym.world.hitom import HiToMConfig
from tomgym.world.tomi import ToMiConfig

HITOM = "ToM-HiToM-O2-v0"
TOMI = "ToM-ToMi-v0"


def ids(env_id: str, n: int = 2, **kwargs: object) -> list[str]:
    return [it.id for it in tomgym.load_items(env_id, n=n, **kwargs)]


def test_cli_reads_python_and_json_constants() -> None:
    parsed = parse_kwargs(
        ["a=False", "b=True", "c=None", "d=false", "e=null", "f=0.5", "g=train", "h=[1, 2]"]
    )
    assert parsed == {
        "a": False,
        "b": True,
        "c": None,
        "d": False,
        "e": None,
        "f": 0.5,
        "g": "train",
        "h": [1, 2],
    }
    assert parse_kwargs(["deception=False"])["deception"] is False
    # the README writes orders as a Python tuple; a bracket that is no literal stays a string
    assert parse_kwargs(["orders=(3,)", "m={'a': 1}", "s=(oops"]) == {
        "orders": (3,), "m": {"a": 1}, "s": "(oops"
    }  # fmt: skip
    assert ids(HITOM, orders=parse_kwargs(["orders=(3,)"])["orders"]) == ids(HITOM, orders=[3])


@pytest.mark.parametrize(
    ("env_id", "name", "value"),
    [
        (HITOM, "deception", "False"),
        (HITOM, "deception", "yes"),
        (HITOM, "deception", 1),
        (HITOM, "debiased", "False"),
        (HITOM, "debiased", 0),
        (HITOM, "prefill_think", "False"),
        (TOMI, "prefill_think", "yes"),
        (TOMI, "debiased", "False"),
        (TOMI, "coloured", 1),
        ("ToM-OpenToM-v0", "long", "False"),
    ],
)
def test_bool_arguments_refuse_other_types(env_id: str, name: str, value: object) -> None:
    with pytest.raises(EnvArgumentError) as err:
        tomgym.make(env_id, **{name: value})
    message = str(err.value)
    assert env_id in message and name in message and repr(value) in message
    assert isinstance(err.value, ValueError) and isinstance(err.value, TypeError)


@pytest.mark.parametrize(
    ("env_id", "name", "value"),
    [
        (HITOM, "seed", True),
        (HITOM, "seed", 1.0),
        (HITOM, "seed", 1.5),
        (HITOM, "seed", None),
        (HITOM, "seed", "1"),
        (TOMI, "seed", True),
        (TOMI, "seed", 1.5),
        (TOMI, "seed", None),
        (HITOM, "length", 2.0),
        (HITOM, "length", True),
        (HITOM, "length", 4),
        (HITOM, "noise", "0.5"),
        (HITOM, "noise", None),
        (HITOM, "noise", True),
        (HITOM, "noise", 1.0),
        (HITOM, "orders", 3),
        (HITOM, "orders", (True,)),
        (HITOM, "orders", (2.0,)),
        (HITOM, "orders", ()),
        (HITOM, "orders", (5,)),
        (HITOM, "split", "bogus"),
        (TOMI, "question_types", "memory"),
        (TOMI, "question_types", ("memory", "bogus")),
        ("ToM-HiToM-Original-v0", "order", "2"),
        ("ToM-HiToM-Original-v0", "order", True),
        ("ToM-HiToM-Original-v0", "order", 5),
        # named as given (template_split's bad value read "templates must be one of")
        (HITOM, "template_split", "x"),
        (HITOM, "vocab", "tset"),
        (TOMI, "vocab_split", "x"),
        (TOMI, "templates", "x"),
        # a plain ValueError without the ID, and a TypeError for a list (red team)
        ("ToM-ExploreToM-v0", "presentation", "x"),
        ("ToM-ExploreToM-v0", "presentation", ["infilled"]),
    ],
)
def test_bad_values_are_refused_at_make(env_id: str, name: str, value: object) -> None:
    with pytest.raises(EnvArgumentError) as err:
        tomgym.make(env_id, **{name: value})
    message = str(err.value)
    assert env_id in message and f"{name} must be" in message and repr(value) in message


def test_a_config_error_names_the_env() -> None:
    with pytest.raises(EnvArgumentError, match=f"{HITOM}: debiased stories need orders 1-4"):
        tomgym.make(HITOM, orders=(0, 1), debiased=True)


def test_a_single_order_reads_as_a_one_tuple_hint() -> None:
    with pytest.raises(EnvArgumentError, match=r"e\.g\. orders=\(3,\)"):
        tomgym.make(HITOM, orders=3)
    assert ids(HITOM, orders=[3]) == ids(HITOM, orders=(3,))


def test_int_noise_serves_the_float_stream() -> None:
    # The caches would hide the difference: clear them between the two.
    hitom_item.cache_clear()
    with_int = ids(HITOM, noise=0)
    hitom_item.cache_clear()
    with_float = ids(HITOM, noise=0.0)
    assert with_int == with_float
    assert HiToMConfig(noise=0).canonical() == HiToMConfig(noise=0.0).canonical()
    assert HiToMConfig(orders=[2]) == HiToMConfig(orders=(2,))


def test_integer_like_seeds_are_the_int_stream() -> None:
    import numpy as np

    assert ids(HITOM, seed=np.int64(3)) == ids(HITOM, seed=3)
    assert ids(TOMI, seed=np.int64(3)) == ids(TOMI, seed=3)
    assert ids(HITOM, seed=3)[0].startswith("hitom-gen-train-s3-0-")


def test_equal_keys_of_other_types_are_not_conflated_by_the_caches() -> None:
    hitom_item.cache_clear()
    tomi_item.cache_clear()
    split_seed.cache_clear()
    config = HiToMConfig(orders=(2,))
    assert "-sTrue-" in hitom_item(config, "train", True, 0).id
    assert "-s1-" in hitom_item(config, "train", 1, 0).id
    assert "-s1-" in tomi_item(ToMiConfig(), "train", 1, 0).id
    assert "-s1.0-" in tomi_item(ToMiConfig(), "train", 1.0, 0).id
    assert split_seed("hitom", "train", 1.0) != split_seed("hitom", "train", 1)


def test_configs_refuse_other_types() -> None:
    for bad in (
        {"deception": "False"},
        {"length": 2.0},
        {"noise": "0.5"},
        {"orders": 3},
        {"orders": (True,)},
        {"debiased": 1},
    ):
        with pytest.raises(ValueError):
            HiToMConfig(**bad)  # type: ignore[arg-type]
    for bad_tomi in ({"coloured": "no"}, {"debiased": 1}, {"question_types": "memory"}):
        with pytest.raises(ValueError):
            ToMiConfig(**bad_tomi)  # type: ignore[arg-type]


def test_documented_values_still_work() -> None:
    assert ids(HITOM, deception=False, length=2, noise=0.3, seed=5)
    assert ids(HITOM, deception=None, length=None, debiased=False)
    assert ids("ToM-HiToM-O2-v0", debiased=True)
    assert ids(TOMI, coloured=True, question_types=["memory"], debiased=False)
    env = tomgym.make(HITOM, prefill_think=True)
    assert env.prefill


@pytest.mark.parametrize(
    ("env_id", "name", "value"),
    [
        ("ToM-FANToM-v0", "kind", 1),
        ("ToM-FANToM-v0", "context", []),
        ("ToM-OpenToM-v0", "genre", ["x"]),
        ("ToM-HiToM-Original-v0", "copy", []),
    ],
)
def test_release_arguments_are_checked_before_data_is_read(
    env_id: str, name: str, value: object
) -> None:
    with pytest.raises(EnvArgumentError, match=f"{env_id}: {name} must be one of"):
        tomgym.make(env_id, **{name: value})


def test_bad_reward_and_prompt_dicts_name_the_env_on_one_line() -> None:
    with pytest.raises(EnvArgumentError) as caught:
        tomgym.make("ToM-HiToM-O1-v0", reward={"correct": "a"})
    message = str(caught.value)
    assert message.startswith("ToM-HiToM-O1-v0: bad RewardSpec: correct:") and "\n" not in message
    with pytest.raises(EnvArgumentError, match="ToM-HiToM-O1-v0: bad PromptPreset: sytem"):
        tomgym.make("ToM-HiToM-O1-v0", prompt={"sytem": "x"})  # a typo is not ignored


def test_a_prompt_dict_of_some_fields_takes_the_default_text_for_the_rest() -> None:
    env = tomgym.make("ToM-OpenToM-Attitude-v0", prompt={"list_candidates": True}).unwrapped
    prompt, _ = env.reset(options={"index": 0})
    assert prompt.startswith(PROMPT_PRESETS["default"].system)
    listed = prompt.rstrip().rsplit("\nPossible answers: ", 1)[1]
    assert sorted(listed.split(", ")) == ["negative", "neutral", "positive"]


@pytest.mark.parametrize(
    ("template", "words"),
    [
        ("Story: {stroy}\nQ: {question}", "unknown: ['stroy']"),
        ("Story: {story}", "missing: ['question']"),
        ("{story} {} {question}", "unknown: ['']"),
        ("{story} { {question}", "literal brace"),
    ],
)
def test_a_user_template_must_name_story_and_question_only(template: str, words: str) -> None:
    """A misspelt field used to raise a bare KeyError('stroy'); a missing {question} silently
    asked nothing."""
    with pytest.raises(EnvArgumentError, match="user_template") as caught:
        tomgym.make("ToM-HiToM-O1-v0", prompt={"user_template": template})
    assert words in str(caught.value)


def test_make_raises_the_env_message_without_gymnasiums_suffix() -> None:
    with pytest.raises(EnvArgumentError) as caught:
        tomgym.make("ToM-HiToM-v0", deception=7)
    assert "was raised from the environment creator" not in str(caught.value)


@pytest.mark.parametrize(
    ("env_id", "kwargs", "words"),
    [
        ("ToM-ExploreToM-v0", {"split": "bogus"}, "split must be one of"),
        ("ToM-ToMi-Original-v0", {"split": "test"}, "the test split is not shipped"),
        ("ToM-ToMi-Original-v0", {"version": "x"}, "version must be one of"),
    ],
)
def test_release_envs_check_their_arguments_before_reading_data(
    env_id: str,
    kwargs: dict[str, object],
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tomgym import data

    # An empty root: reading data first would be a missing-file error instead.
    monkeypatch.setattr(data, "_override", tmp_path)
    with pytest.raises(EnvArgumentError, match=words):
        tomgym.make(env_id, **kwargs)


def test_a_user_review_of_the_python_api() -> None:
    """prompt=123 was a plain TypeError; NaN rewards were taken; a template showing the story
    twice crashed reset on the release's longer stories; register_tom_env stored kwargs that
    only failed at make time, maybe in another process."""
    with pytest.raises(EnvArgumentError, match=f"{TOMI}: prompt must be a preset name"):
        tomgym.make(TOMI, prompt=123)
    for bad in (float("nan"), float("inf"), "1e400"):
        with pytest.raises(EnvArgumentError, match="finite"):
            tomgym.make(TOMI, reward={"correct": bad})
    twice = {"user_template": "{story}\n\nAgain:\n{story}\n\n{question}"}
    env = tomgym.make("ToM-HiToM-Original-O1-v0", prompt=twice)
    for index in range(env.unwrapped.size):
        observation, _ = env.reset(options={"index": index})
        assert env.observation_space.contains(observation)
    items = [{"id": "a", "story": "s", "question": "q", "answer": "box",
              "candidates": ["box", "bag"]}]  # fmt: skip
    for kwargs, said in (({"rewrd": "tomrl"}, "did you mean 'reward'"),
                         ({"reward": "nope"}, "unknown reward preset")):  # fmt: skip
        with pytest.raises(ValueError, match=said):
            tomgym.register_tom_env("TestArgs-Kwargs-v0", items=items, kwargs=kwargs)
        with pytest.raises(KeyError):  # nothing was stored
            tomgym.get_spec("TestArgs-Kwargs-v0")


def test_load_items_refuses_a_bad_count_and_tomenv_names_a_family_id() -> None:
    for n in (-1, 0, 1.5, True):
        with pytest.raises(ValueError, match="at least 1"):
            tomgym.load_items("ToM-HiToM-Original-O1-v0", n=n)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"make it with tomgym.make\('ToM-HiToM-v0'\)"):
        tomgym.ToMEnv("ToM-HiToM-v0")


def test_a_held_out_id_made_to_serve_other_items_warns() -> None:
    """gym.make("ToM-HiToM-O4-v0", orders=(0,)) served order-0 items under a held-out ID
    without a word (the evaluation said so; a plain RL loop did not)."""
    import warnings

    import gymnasium as gym

    from tomgym.env import HeldOutRedefinedWarning

    with pytest.warns(HeldOutRedefinedWarning, match=r"made with \{'orders': \(0,\)\}"):
        gym.make("ToM-HiToM-O4-v0", orders=(0,))
    with warnings.catch_warnings():
        warnings.simplefilter("error", HeldOutRedefinedWarning)
        gym.make("ToM-HiToM-O4-v0", orders=[4], split="train")  # its own items
        gym.make("ToM-HiToM-O1-v0", orders=(3,))  # not held out: an ordinary argument
        # some of a held-out ID's own items, all held out (red team: these warned)
        gym.make("ToM-ToMi-Debiased-v0", question_types=("second_order",))
        # debiased=True is the scheme "reality" (plugin audit: this warned)
        gym.make("ToM-HiToM-O2-Debiased-v0", debiased="reality")
    with pytest.warns(HeldOutRedefinedWarning, match="'positions'"):
        gym.make("ToM-HiToM-O2-Debiased-v0", debiased="positions")


def test_some_of_a_held_out_releases_items_do_not_warn(data_root: object) -> None:
    import warnings

    import gymnasium as gym

    from tomgym.env import HeldOutRedefinedWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", HeldOutRedefinedWarning)
        gym.make("ToM-OpenToM-v0", genre="coarse")
    with pytest.warns(HeldOutRedefinedWarning):  # another copy of the release: other items
        gym.make("ToM-HiToM-Original-O4-v0", copy="mc")


def test_untagged_answers_with_a_prefilled_think_warn_at_make() -> None:
    """Red team: reward='lenient' (for models too small to write the tags) with
    prefill_think=True paid nothing, silently: the response starts inside the think part and
    an untagged one never leaves it."""
    import warnings

    import tomgym

    with pytest.warns(UserWarning, match="prefill_think=True a response starts inside"):
        env = tomgym.make("ToM-ToMi-v0", reward="lenient", prefill_think=True)
    env.reset(options={"index": 0})
    item = env.unwrapped.current_item
    assert env.step(item.answer)[4]["verdict"] == "no_answer"  # what the warning says
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tomgym.make("ToM-ToMi-v0", reward="lenient")
        tomgym.make("ToM-ToMi-v0", prefill_think=True)


def test_gym_make_says_a_bad_argument_as_tomgym_make_does() -> None:
    """User red team: gym.make added "was raised from the environment creator for ... with
    kwargs ({'tom_id': ...})" to the message, showing tomgym's internal kwargs."""
    import gymnasium as gym

    with pytest.raises(EnvArgumentError) as caught:
        gym.make("ToM-HiToM-v0", noise=1.5)
    message = str(caught.value)
    assert message == "ToM-HiToM-v0: noise must be a probability in [0, 1), got 1.5 (float)"
