"""ToMi generator and solver: self-agreement, coverage, and agreement with the releases."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tomgym.world.tomi import STORY_TYPES, ToMiConfig, generate_tomi, max_story_chars
from tomgym.world.tomi_solve import solve_tomi

# (file, mode) -> per question type minimum agreement on the release val split.
THRESHOLDS = {"memory": 0.995, "reality": 0.995, "first_order": 0.995}


@pytest.mark.parametrize("coloured", [False, True])
def test_generated_items_solved_and_covered(coloured: bool) -> None:
    config = ToMiConfig(coloured=coloured, vocab="test" if coloured else "train")
    bound = max_story_chars(config)
    seen = Counter()
    for i in range(1200):
        q = generate_tomi(config, 5, i)
        assert q.story_type == STORY_TYPES[i % 3]
        assert solve_tomi(q.story, q.question) == q.answer, q.uid
        assert q.answer in q.candidates and len(set(q.candidates)) == 2
        assert len(q.story) + len(q.question) <= bound
        seen[(q.question_type, q.story_type)] += 1
    assert len(seen) == 12
    assert generate_tomi(config, 5, 7) == generate_tomi(config, 5, 7)


def _load(path: Path, trace: Path) -> list[tuple[str, str, str, str]]:
    kinds = [line.split(",")[-2] for line in trace.read_text().splitlines() if line]
    items, story = [], []
    for line in path.read_text().splitlines():
        if not line:
            continue
        num, text = line.split(" ", 1)
        if num == "1":
            story = []
        if "\t" in text:
            question, answer, _ = text.split("\t")
            items.append(("\n".join(story), question, answer))
        else:
            story.append(line)
    assert len(items) == len(kinds)
    return [
        (s, q, a, k.split("_order")[0] + "_order" if "_order" in k else k)
        for (s, q, a), k in zip(items, kinds, strict=True)
    ]


@pytest.mark.parametrize("name", ["clever_hans/val.txt", "fb/fb_all_val.txt"])
def test_release_agreement(data_root: Path, name: str) -> None:
    path = data_root / "tomi" / name
    if not path.is_file():
        pytest.skip(f"{path} missing")
    items = _load(path, path.with_suffix(".trace"))
    for mode in ("rules", "release"):
        agree, total = Counter(), Counter()
        for story, question, answer, kind in items:
            total[kind] += 1
            agree[kind] += solve_tomi(story, question, mode) == answer
        rates = {k: agree[k] / total[k] for k in total}
        print(name, mode, {k: f"{agree[k]}/{total[k]} = {rates[k]:.3f}" for k in total})
        for kind, minimum in THRESHOLDS.items():
            assert rates[kind] >= minimum, (mode, kind)
        if mode == "release":
            assert rates["second_order"] >= 0.9
        else:
            assert rates["second_order"] >= 0.7
