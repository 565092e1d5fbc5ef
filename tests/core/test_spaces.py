"""to_printable's fast paths give what the per-character definition gives."""

from __future__ import annotations

import random
import unicodedata

from tomgym.spaces import printable_charset, text_space, to_printable


def _by_definition(text: str) -> str:
    charset = printable_charset()
    stand_in = {"Zs": " ", "Zl": "\n", "Zp": "\n", "Cf": ""}
    return "".join(
        c
        if c in charset
        else "\n"
        if c == "\r"
        else stand_in.get(unicodedata.category(c), "\ufffd")
        for c in text.replace("\r\n", "\n")
    )


def test_to_printable_matches_its_definition() -> None:
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(
            chr(rng.choice([rng.randrange(0, 128), rng.randrange(0, 0x11000)]))
            for _ in range(rng.randrange(0, 8))
        )
        assert to_printable(text) == _by_definition(text), repr(text)


def test_plain_text_is_returned_as_is() -> None:
    text = "1 Ann entered the hall.\n2 The apple is in the red_box.\tWhere?"
    assert to_printable(text) is text
    assert to_printable("caf\u00e9\n") == "caf\u00e9\n"
    assert to_printable("a\x00b\x7fc\r") == "a\ufffdb\ufffdc\n"


def test_a_space_prints_in_one_line_not_its_character_set() -> None:
    """print(env.observation_space) used to write the 55,000-character set."""
    space = text_space(100)
    assert repr(space).startswith("Text(0, 100, charset=<printable Unicode")
    assert len(repr(space)) < 200


def test_other_spaces_read_as_spaces_and_invisible_marks_are_dropped() -> None:
    """Red team: a no-break space, zero-width space or soft hyphen in a user's story reached the
    prompt (and the exported chat messages) as U+FFFD: 'Ann\ufffdput the ball'."""
    assert to_printable("Ann\u00a0put the\u2009ball\u200b in the bas\u00adket.") == (
        "Ann put the ball in the basket."
    )
    assert to_printable("line\u2028next\r\nlast \U0001f600") == "line\nnext\nlast \ufffd"


def test_an_item_lists_emoji_reach_the_prompt_and_a_generators_are_warned_of() -> None:
    """Review: emoji, rare CJK and mathematical letters in a user's items reached every prompt
    as U+FFFD, silently: two questions about the 🍎 and the 🍌 read the same. An env whose
    items (or prompt preset) hold such characters gets a character set beyond the BMP, which
    its copies and pickles keep; a generated env cannot know its items, so it warns once."""
    import pickle
    import warnings

    import gymnasium as gym

    import tomgym

    story = "Ann put the 🍎 in the box and the 𝒷all in the jar."
    items = [
        {"id": "a", "story": story, "question": "Where is the 🍎?", "answer": "box",
         "candidates": ["box", "jar"]},
        {"id": "b", "story": story, "question": "Where is the 𝒷all?", "answer": "jar",
         "candidates": ["box", "jar"]},
    ]  # fmt: skip
    try:
        tomgym.register_tom_env("Test-Astral-v0", items=items)
        env = gym.make("Test-Astral-v0")
        prompts = [env.reset(options={"index": i})[0] for i in range(2)]
        assert "the 🍎 in the box" in prompts[0] and prompts[1].endswith("Where is the 𝒷all?")
        space = env.observation_space
        assert all(space.contains(p) for p in prompts)
        assert pickle.loads(pickle.dumps(space)).contains(prompts[0])
        assert not tomgym.make("ToM-HiToM-O1-v0").observation_space.astral  # BMP stays the rule

        def generated(index: int) -> dict[str, object]:
            return {**items[index % 2], "id": f"g{index}"}

        tomgym.register_tom_env("Test-Astral-Gen-v0", generator=generated, max_prompt_chars=400)
        made = tomgym.make("Test-Astral-Gen-v0")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            prompt, _ = made.reset(options={"index": 0})
            made.reset(options={"index": 1})
        assert "\ufffd" in prompt and made.observation_space.contains(prompt)
        (warning,) = caught
        assert "item 'g0'" in str(warning.message) and "🍎" in str(warning.message)
    finally:
        tomgym.unregister_tom_env("Test-Astral-v0")
        tomgym.unregister_tom_env("Test-Astral-Gen-v0")


def test_the_action_space_holds_every_response_the_env_takes() -> None:
    # Gymnasium's Text.contains checks its length bound and character set: an emoji or a
    # response over 16,384 characters was "not in the action space", although step() takes it
    import copy
    import pickle

    import gymnasium as gym

    import tomgym

    env = gym.make("ToM-ToMi-v0")
    space = env.action_space
    long_ramble, emoji, control = "box " * 10_000, "It is in the box \U0001f600", "box\x00\r"
    for response in (long_ramble, emoji, control, ""):
        assert space.contains(response) and response in space
        env.reset(options={"index": 0})
        env.step(response)
    assert not space.contains(b"box") and not space.contains(None)
    space.seed(0)
    sample = space.sample()
    assert len(sample) <= space.max_length and set(sample) <= space.character_set
    for copied in (pickle.loads(pickle.dumps(space)), copy.deepcopy(space)):
        assert type(copied) is type(space) and copied.contains(emoji)
    assert "any str" in repr(space)
    vector = gym.make_vec("ToM-ToMi-v0", num_envs=2, vectorization_mode="sync")
    assert vector.action_space.contains((emoji, long_ramble))
    assert tomgym.make("ToM-ToMi-v0").observation_space.contains(env.reset()[0])
