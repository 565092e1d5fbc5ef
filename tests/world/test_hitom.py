"""Hi-ToM generator: determinism, coverage, candidates and length bound; solver self-agreement."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import tomgym
from tomgym.world.hitom import HiToMConfig, generate_hitom, max_story_chars
from tomgym.world.solve import explain_hitom, solve_hitom
from tomgym.world.vocab import load_vocab

REPO = Path(__file__).resolve().parents[2]


def test_same_item_twice_and_order_independent() -> None:
    config = HiToMConfig()
    forward = [generate_hitom(config, 3, i) for i in range(20)]
    backward = [generate_hitom(config, 3, i) for i in reversed(range(20))][::-1]
    assert forward == backward
    assert generate_hitom(config, 3, 5) == forward[5]
    assert generate_hitom(config, 4, 5) != forward[5]
    assert len({q.uid for q in forward}) == 20


def test_same_item_in_fresh_process() -> None:
    code = (
        "from tomgym.world.hitom import HiToMConfig, generate_hitom\n"
        "q = generate_hitom(HiToMConfig(deception=True), 11, 42)\n"
        "print(q.uid, q.answer, repr(q.story))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PYTHONHASHSEED": "123"},
    ).stdout.strip()
    q = generate_hitom(HiToMConfig(deception=True), 11, 42)
    assert out == f"{q.uid} {q.answer} {q.story!r}"


def test_every_setting_reachable_and_labels_agree() -> None:
    config = HiToMConfig()
    bound = max_story_chars(config)
    seen = set()
    for i in range(2000):
        q = generate_hitom(config, 0, i)
        seen.add((q.order, q.length, q.deception))
        assert len(q.candidates) == 15 == len(set(q.candidates))
        assert q.answer in q.candidates
        assert len(q.story) + len(q.question) <= bound
        assert len(q.question_agents) == q.order
        assert solve_hitom(q.story, q.question) == q.answer, q.uid
    assert len(seen) == 5 * 3 * 2


@pytest.mark.parametrize("length", [1, 2, 3])
@pytest.mark.parametrize("deception", [True, False])
def test_fixed_settings(length: int, deception: bool) -> None:
    config = HiToMConfig(orders=(4,), length=length, deception=deception, noise=0.5, vocab="test")
    for i in range(50):
        q = generate_hitom(config, 1, i)
        assert (q.order, q.length, q.deception) == (4, length, deception)
        assert solve_hitom(q.story, q.question) == q.answer
        assert ("privately told" in q.story) == deception
        assert len(q.story) + len(q.question) <= max_story_chars(config)


def test_explain_ends_with_answer() -> None:
    q = generate_hitom(HiToMConfig(orders=(3,)), 2, 0)
    lines = explain_hitom(q.story, q.question)
    assert len(lines) == 4
    assert lines[-1].endswith(f"the {q.object} is in the {q.answer}.")
    assert lines[-1].startswith(q.question_agents[0] + " thinks")


def test_vocabularies_disjoint_and_big_enough() -> None:
    train, test = load_vocab("train"), load_vocab("test")
    for field in ("names", "rooms", "objects", "kinds"):
        a, b = getattr(train, field), getattr(test, field)
        assert not set(a) & set(b), field
        assert len(a) == len(set(a)) and len(b) == len(set(b))
    for v in (train, test):
        assert len(v.containers()) >= 15 and len(v.names) >= 5
        assert len(v.rooms) >= 3 and len(v.objects) >= 6
        assert "waiting_room" not in v.rooms


def test_bad_config() -> None:
    with pytest.raises(ValueError):
        HiToMConfig(orders=(5,))
    with pytest.raises(ValueError):
        HiToMConfig(vocab="nope")


def test_solve_checks_family_and_mode() -> None:
    import tomgym

    q = generate_hitom(HiToMConfig(orders=(1,)), 0, 0)
    assert tomgym.solve(q.story, q.question, family="hitom", mode="rules") == q.answer
    with pytest.raises(ValueError, match="'hitom' has only the mode\\(s\\) 'rules', not 'bogus'"):
        tomgym.solve(q.story, q.question, family="hitom", mode="bogus")
    with pytest.raises(ValueError, match="'tomi' has the mode\\(s\\) 'rules', 'release'"):
        tomgym.solve(q.story, q.question, family="tomi", mode="bogus")
    with pytest.raises(ValueError, match="families 'hitom', 'tomi', not 'fantom'"):
        tomgym.solve(q.story, q.question, family="fantom")
    # free prose is refused with an error users can catch by its top-level name
    with pytest.raises(tomgym.UnknownSentenceError):
        tomgym.solve("Ann strolled about, musing.", q.question)


def test_names_of_any_script_read_in_every_sentence_form() -> None:
    """Oracle red team: "Zoë entered the closet." was read, but "Zoë moved ..." and every
    other form only took ASCII names, so a hand-made story with José or 李 could not be
    solved."""
    story = (
        "1 Zoë entered the closet.\n2 José and 李 entered the closet.\n3 The sweater is "
        "in the bucket.\n4 Zoë exited the closet.\n5 李 moved the sweater to the "
        "cupboard.\n6 O\u2019Neil publicly claimed that sweater is in the bucket."
    )
    assert tomgym.solve(story, "Where does Zoë really think the sweater is?") == "bucket"
    assert tomgym.solve(story, "Where does José think 李 thinks the sweater is?") == "cupboard"
    assert tomgym.solve(story, "Where will Zoë look for the sweater?", family="tomi") == "bucket"

    with pytest.raises(TypeError, match="story must be text"):
        tomgym.solve(None, "Where is the sweater really?")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="question must be text"):
        tomgym.solve(story, b"Where is the sweater really?")  # type: ignore[arg-type]
