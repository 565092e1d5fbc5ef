"""The Hi-ToM solver on the released data: the CoT copy (labels of record) and the MC/VP copy."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tomgym.world.parse import UnknownSentenceError, parse_sentence, parse_story
from tomgym.world.solve import solve_hitom


def _records(data_root: Path, prompting_type: str) -> list[dict]:
    path = data_root / "hitom" / "Hi-ToM_data.json"
    if not path.is_file():
        pytest.skip(f"{path} missing")
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    return [r for r in data if r["prompting_type"] == prompting_type]


def test_cot_copy_agreement(data_root: Path) -> None:
    records = _records(data_root, "CoTP")
    assert len(records) == 600
    disagreements = []
    for r in records:
        ours = solve_hitom(r["story"], r["question"])
        if ours != r["answer"]:
            disagreements.append(
                (
                    r["sample_id"],
                    r["story_length"],
                    r["deception"],
                    r["question_order"],
                    r["answer"],
                    ours,
                )
            )
    print(f"Hi-ToM CoT copy: {600 - len(disagreements)}/600 agree")
    for d in disagreements:
        print("  sample_id={} length={} tell={} order={} gold={} ours={}".format(*d))
    assert len(disagreements) <= 17
    assert all(d[3] >= 2 for d in disagreements)


def test_vp_copy_parses(data_root: Path) -> None:
    records = _records(data_root, "VP")
    assert len(records) == 600
    agree = sum(solve_hitom(r["story"], r["question"]) == r["answer"] for r in records)
    print(f"Hi-ToM VP copy: {agree}/600 agree")
    assert agree >= 450


def test_mc_text_files_parse(data_root: Path) -> None:
    files = sorted((data_root / "hitom" / "Hi-ToM_data").glob("*/MC/*/*/*.txt"))
    if not files:
        pytest.skip("release text files missing")
    agree = 0
    for f in files:
        story, rest = f.read_text(encoding="utf-8").split("\nQuestion:", 1)
        question = rest.splitlines()[0].strip()
        answer = re.search(r"\nAnswer:\s*(\S+)", rest)
        assert answer is not None
        agree += solve_hitom(story, question) == answer[1]
    print(f"Hi-ToM MC text files: {agree}/{len(files)} agree")
    assert len(files) == 600 and agree >= 450


def test_plain_running_text() -> None:
    story = (
        "Ann, Bob and Cy entered the den. The fig is in the red_tin. Ann exited the den. "
        "Bob moved the fig to the blue_jar. Bob exited the den.\n\n***\n"
    )
    assert len(parse_story(story)) == 5
    assert solve_hitom(story, "Where does Ann really think the fig is?") == "red_tin"
    assert solve_hitom(story, "Where is the fig really?") == "blue_jar"


def test_unknown_sentence_quoted() -> None:
    with pytest.raises(UnknownSentenceError, match="Ann juggled the fig"):
        parse_sentence("Ann juggled the fig.")
    with pytest.raises(ValueError, match="Ann juggled the fig"):
        solve_hitom("1 Ann entered the den.\n2 Ann juggled the fig.", "Where is the fig really?")
    with pytest.raises(UnknownSentenceError, match="When"):
        solve_hitom("1 Ann entered the den.", "When is the fig really?")
