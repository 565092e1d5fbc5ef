"""Shortcut baselines on real generated envs: each one scores what its shortcut is worth."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tomgym.agents.base import Episode, make_agent
from tomgym.agents.baselines import MajorityGuess, PositionGuess, mentions, question_object
from tomgym.agents.chat import episode_from_env

import tomgym

SPECS = (
    "random",
    "heuristic:first",
    "heuristic:reality",
    "heuristic:initial",
    "heuristic:majority",
    "heuristic:yes",
    "heuristic:no",
)


def episodes(env_id: str, n: int) -> list[Episode]:
    env = tomgym.make(env_id)
    out = []
    for i in range(n):
        _, info = env.reset(options={"index": i})
        out.append(episode_from_env(env, info))
    return out


def step_all(env_id: str, texts: list[str]) -> list[dict]:
    """Each response scored by the env itself, item i for response i."""
    env = tomgym.make(env_id)
    infos = []
    for i, text in enumerate(texts):
        env.reset(options={"index": i})
        infos.append(env.step(text)[4])
    return infos


def test_reality_is_perfect_on_order_0_and_well_formed() -> None:
    eps = episodes("ToM-HiToM-O0-v0", 40)
    responses = make_agent("heuristic:reality").act(eps)
    infos = step_all("ToM-HiToM-O0-v0", [r.text for r in responses])
    assert all(info["correct"] and info["format_ok"] for info in infos)
    assert {r.extra["source"] for r in responses} == {"simulator"}


def test_reality_fails_where_beliefs_differ() -> None:
    eps = episodes("ToM-HiToM-O2-v0", 40)
    infos = step_all("ToM-HiToM-O2-v0", [r.text for r in make_agent("heuristic:reality").act(eps)])
    assert 0 < sum(i["correct"] for i in infos) < 40


def test_random_is_near_chance_and_deterministic() -> None:
    eps = episodes("ToM-HiToM-O0-v0", 150)
    texts = [r.text for r in make_agent("random", seed=3).act(eps)]
    infos = step_all("ToM-HiToM-O0-v0", texts)
    accuracy = sum(i["correct"] for i in infos) / len(infos)
    assert all(i["format_ok"] for i in infos)
    assert 0.0 < accuracy < 0.2  # 15 candidates: chance is 1/15
    assert [r.text for r in make_agent("random", seed=3).act(eps)] == texts
    # item i gets the same guess whatever else is in the batch
    reversed_texts = [r.text for r in make_agent("random", seed=3).act(eps[::-1])]
    assert reversed_texts[::-1] == texts
    assert [r.text for r in make_agent("random", seed=4).act(eps)] != texts


@pytest.mark.parametrize("spec", SPECS)
def test_every_baseline_is_deterministic_and_well_formed(spec: str) -> None:
    eps = episodes("ToM-HiToM-v0", 12)
    first = make_agent(spec, seed=1).act(eps)
    again = make_agent(spec, seed=1).act(eps)
    assert [r.text for r in first] == [r.text for r in again]
    infos = step_all("ToM-HiToM-v0", [r.text for r in first])
    assert all(i["format_ok"] for i in infos)
    agent = make_agent(spec, seed=1)
    assert agent.privileged is False and agent.describe()["spec"] == spec


@pytest.fixture
def yes_no_env() -> Iterator[str]:
    env_id = "Test-Agents-YesNo-v0"
    items = [
        {
            "id": f"q{i}",
            "story": "Anne put the ball in the box. Anne left.",
            "question": "Does Anne know where the ball is?",
            "answer": answer,
            "answer_type": "yes_no",
        }
        for i, answer in enumerate(["yes", "yes", "yes", "no"])
    ]
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    yield env_id
    tomgym.unregister_tom_env(env_id)


def test_constant_answers_on_yes_no_items(yes_no_env: str) -> None:
    eps = episodes(yes_no_env, 4)
    yes = step_all(yes_no_env, [r.text for r in make_agent("heuristic:yes").act(eps)])
    no = step_all(yes_no_env, [r.text for r in make_agent("heuristic:no").act(eps)])
    assert [i["correct"] for i in yes] == [True, True, True, False]
    assert [i["correct"] for i in no] == [False, False, False, True]
    # random picks yes or no; majority fits on the env's own items (no split argument)
    assert {r.text.split("<answer>")[1][:-9] for r in make_agent("random").act(eps * 3)} <= {
        "yes",
        "no",
    }
    majority = step_all(yes_no_env, [r.text for r in make_agent("heuristic:majority").act(eps)])
    assert [i["correct"] for i in majority] == [True, True, True, False]


def test_shortcuts_that_do_not_fit_still_answer(yes_no_env: str) -> None:
    yes_no = episodes(yes_no_env, 1)
    choice = episodes("ToM-HiToM-O1-v0", 1)
    for spec in SPECS:
        agent = make_agent(spec)
        for episode in yes_no + choice:
            (response,) = agent.act([episode])
            assert response.text.startswith("<think>") and response.text.endswith("</answer>")
            assert not response.failed


def test_majority_fits_lazily_on_the_train_split() -> None:
    guess = MajorityGuess(fit_items=50)
    assert guess.counts == {}
    eps = episodes("ToM-HiToM-O1-v0", 3)
    answers = [guess(e)[0] for e in eps]
    assert list(guess.counts) == ["ToM-HiToM-O1-v0"]
    assert sum(guess.counts["ToM-HiToM-O1-v0"].values()) == 50
    assert all(a in e.candidates for a, e in zip(answers, eps, strict=True))


def test_first_and_initial_read_the_story() -> None:
    story = (
        "1 Anne entered the kitchen.\n2 The ball is in the red_box.\n3 Anne exited the kitchen.\n"
        "4 Ben entered the kitchen.\n5 Ben moved the ball to the blue_box.\n"
        "6 Ben moved the ball to the green_box."
    )
    episode = Episode(
        env_id="none",
        item_id="x",
        prompt="",
        messages=[],
        story=story,
        question="Where does Anne think the ball is?",
        candidates=("green_box", "blue_box", "red_box"),
        family="hitom",
    )
    answer = {
        spec: make_agent(spec).act([episode])[0].text.split("<answer>")[1]
        for spec in ("heuristic:first", "heuristic:initial", "heuristic:reality")
    }
    assert answer == {
        "heuristic:first": "red_box</answer>",
        "heuristic:initial": "red_box</answer>",
        "heuristic:reality": "green_box</answer>",
    }
    # a story outside the parser's forms: the text fallback over mentions of the object
    odd = Episode(
        env_id="none",
        item_id="y",
        prompt="",
        messages=[],
        story="The hat sat in the drawer. Later, someone took the hat to the closet.",
        question="Where is the hat really?",
        candidates=("closet", "drawer"),
    )
    (response,) = make_agent("heuristic:reality").act([odd])
    assert response.text.endswith("<answer>closet</answer>") and response.extra["source"] == "text"
    (response,) = make_agent("heuristic:initial").act([odd])
    assert response.text.endswith("<answer>drawer</answer>")


def test_mentions_prefer_the_longest_name() -> None:
    assert mentions("the green box and the box", ["box", "green box"]) == ["green box", "box"]
    assert question_object("Where will Anne look for the ball?") == "ball"
    assert question_object("Who knows?") is None


def test_unknown_heuristic_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="majority"):
        make_agent("heuristic:cleverest")


def test_majority_on_an_env_without_splits_never_counts_the_answered_item() -> None:
    """Fitted on the env's own items, the majority once counted the gold of the very item it
    answered: six items, each with its own gold, scored 100% where chance is 50%. Each item
    is answered from the other fold of the env's items."""
    env_id = "Test-Agents-Distinct-v0"
    items = [
        {
            "id": f"q{i}",
            "story": f"Ann put the ball in the pot{i}.",
            "question": "Where?",
            "answer": f"pot{i}",
            "candidates": [f"pan{i}", f"pot{i}"],
        }
        for i in range(6)
    ]
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    try:
        eps = episodes(env_id, 6)
        responses = make_agent("heuristic:majority").act(eps)
        assert {r.extra.get("source") for r in responses} == {"other-fold"}
        assert not any(i["correct"] for i in step_all(env_id, [r.text for r in responses]))
    finally:
        tomgym.unregister_tom_env(env_id)


def test_majority_on_balanced_labels_is_not_pushed_below_chance() -> None:
    """Review: leaving the answered item out of a 6/6 count of yes and no always left the other
    label ahead, so the majority scored 0 of 12 where chance is 50%: the answered item's own
    label decided against it. Folds by item id answer it independently of its label."""
    env_id = "Test-Agents-Balanced-v0"
    story = "Ann put the ball in the box. Ann left. Bob moved the ball to the basket."
    items = [{"id": f"q{i}", "story": story, "question": f"Does Ann know? ({i})",
              "answer": "yes" if i % 2 else "no"} for i in range(12)]  # fmt: skip
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    try:
        responses = make_agent("heuristic:majority").act(episodes(env_id, 12))
        right = sum(i["correct"] for i in step_all(env_id, [r.text for r in responses]))
        assert 3 <= right <= 9  # not 0: around chance
    finally:
        tomgym.unregister_tom_env(env_id)


def test_fitted_baselines_learn_from_the_variant_the_env_was_made_as() -> None:
    """Review: a variant made with --kwarg (ToM-HiToM-O2-v0 with debiased=positions, the items
    of ToM-HiToM-O2-Debiased-v1) got baselines fitted on the plain env's training items, so
    its shortcuts looked weaker (position 21% against 29% on the same items)."""
    variant = tomgym.make("ToM-HiToM-O2-v0", debiased="positions")
    same = tomgym.make("ToM-HiToM-O2-Debiased-v1")
    answers = {}
    for name, env in (("variant", variant), ("registered", same)):
        eps = []
        for i in range(40):
            _, info = env.reset(options={"index": i})
            eps.append(episode_from_env(env, info))
        answers[name] = [r.text for r in make_agent("heuristic:position").act(eps)]
    assert answers["variant"] == answers["registered"]
    guess = PositionGuess()
    assert guess.fit_key("ToM-HiToM-O2-v0", {"orders": [2], "split": "test"}) == "ToM-HiToM-O2-v0"
    assert "positions" in guess.fit_key("ToM-HiToM-O2-v0", {"debiased": "positions"})


def test_majority_without_splits_counts_every_item_not_the_first_500() -> None:
    """Fitted on the release order's first 500 items, the majority took the file's opening
    label for the prior (red team: OpenToM's multihop file opens with "more full")."""
    env_id = "Test-Agents-Sorted-v0"
    items = [
        {
            "id": f"q{i}",
            "story": "Ann put the ball in the pot.",
            "question": "Where?",
            "answer": "pan" if i < 500 else "pot",
            "candidates": ["pan", "pot"],
        }
        for i in range(1100)
    ]
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    try:
        (response,) = make_agent("heuristic:majority").act(episodes(env_id, 1))
        assert response.text.endswith("<answer>pot</answer>")
    finally:
        tomgym.unregister_tom_env(env_id)


def test_majority_answers_each_question_with_the_commonest_gold_of_its_kind() -> None:
    """Review: the majority of a mix of yes/no and free-text items without candidates (as
    ExploreToM's) was the commonest gold of any kind, so every yes/no question got "kitchen"
    (unparsable) and the label prior looked weaker than it is."""
    env_id = "Test-Agents-Mixed-v0"
    story = "Ann put the ball in the box. Ann left. Bob moved the ball to the basket."
    items = [
        {"id": f"yn{i}", "story": story, "question": f"Does Ann know where the ball is? ({i})",
         "answer": "no"}
        for i in range(10)
    ] + [
        {"id": f"tx{i}", "story": story + " Carl entered the kitchen.",
         "question": f"Which room did Carl enter? ({i})", "answer": "kitchen"}
        for i in range(12)
    ]  # fmt: skip
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    try:
        responses = make_agent("heuristic:majority").act(episodes(env_id, len(items)))
        infos = step_all(env_id, [r.text for r in responses])
        assert all(info["correct"] for info in infos)
    finally:
        tomgym.unregister_tom_env(env_id)


def test_position_finds_the_named_place_that_holds_the_gold() -> None:
    """The red team's shortcut: the second container a story names was the answer of a third
    of the debiased Hi-ToM items. heuristic:position learns that place from the other items."""
    env_id = "Test-Agents-Second-v0"
    names = ["box", "jar", "pot", "tub", "bag", "can"]
    items = []
    for i in range(12):
        a, b, c = names[i % 6], names[(i + 1) % 6], names[(i + 2) % 6]
        items.append(
            {
                "id": f"q{i}",
                "story": f"The ball is in the {a}. Ann moved it to the {b}. "
                f"Bob moved it to the {c}.",
                "question": "Where does Ann think the ball is?",
                "answer": b,
                "candidates": sorted([a, b, c]),
            }
        )
    tomgym.register_tom_env(env_id, items=items, overwrite=True)
    try:
        eps = episodes(env_id, 12)
        verdicts = step_all(env_id, [r.text for r in make_agent("heuristic:position").act(eps)])
        assert all(v["correct"] for v in verdicts)
        first = step_all(env_id, [r.text for r in make_agent("heuristic:first").act(eps)])
        assert not any(v["correct"] for v in first)
        guess = PositionGuess()
        guess.fit_on(env_id, [tomgym.ToMItem(**{**items[0], "answer": items[0]["candidates"][0]})])
        assert guess(eps[1])[1] == "train"  # fitted on given items: no item left out
    finally:
        tomgym.unregister_tom_env(env_id)


def test_fit_items_is_refused_by_the_heuristics_that_fit_nothing() -> None:
    """Red team: --agent-option fit_items=10 with heuristic:reality was accepted, recorded in
    the run's options and ignored."""
    with pytest.raises(ValueError, match="'heuristic:reality' takes no option 'fit_items'"):
        make_agent("heuristic:reality", fit_items=10)
    with pytest.raises(ValueError, match="'random' takes no option 'fit_items'"):
        make_agent("random", fit_items=10)
    assert make_agent("heuristic:position", fit_items=10).guess.fit_items == 10  # type: ignore[attr-defined]
