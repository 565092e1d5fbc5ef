"""Conformance checks every ToM env passes: check_env, determinism, reward invariants."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Any

import gymnasium as gym
from gymnasium.utils.env_checker import check_env

from tomgym.answers import phrase_of, rival_names, words
from tomgym.env import ToMEnv
from tomgym.items import ToMItem
from tomgym.registry import get_spec, list_envs
from tomgym.rewards import asked_candidates, gold_response, judged_places, score_response

MEGABYTE = 1_000_000


def _glued(gold: str) -> str:
    """The gold as one word: its letters and digits only ("the trash can" -> "thetrashcan").
    Spaces as underscores were no glue: the judge reads ``_`` as a space, so "xthe_trash_canx"
    held the whole word "trash", which names the trash can (a household synonym)."""
    return re.sub(r"[\W_]+", "", gold)


def adversarial_responses(item: ToMItem) -> dict[str, str]:
    """Responses that must never be scored correct for ``item``, by the trick they try."""
    gold = item.gold_text
    asked = asked_candidates(item) if item.answer_type == "text" else ()
    # the other answers as read, less those the question names (which an answer may repeat)
    others = [c for c in item.candidates if phrase_of(c) != phrase_of(gold) and c not in asked]
    if item.answer_type == "yes_no":
        others = ["no" if gold.lower().startswith("yes") else "yes"]
    decoy = others[0] if others else "somewhere else"
    # Listing "every candidate" puts another candidate first, so a yes/no answer leads with
    # the wrong word; with no other candidate the trick has nothing to list.
    everything = ", ".join([*others, gold])
    filler = "the story says many things. "
    responses = {
        "all_candidates": f"<think>not sure</think><answer>{everything}</answer>",
        "gold_only_in_think": f"<think>maybe {gold}</think><answer>{decoy}</answer>",
        "gold_in_think_empty_answer": f"<think>{gold}</think><answer></answer>",
        "two_answers_disagree": f"<think>x</think><answer>{gold}</answer><answer>{decoy}</answer>",
        "two_answers_same": f"<think>x</think><answer>{gold}</answer><answer>{gold}</answer>",
        "empty_answer": "<think>hmm</think><answer>   </answer>",
        "nested_answer": f"<think>x</think><answer><answer>{gold}</answer></answer>",
        "think_inside_answer": f"<answer><think>{gold}</think></answer>",
        "unclosed_answer": f"<think>x</think><answer>{gold}",
        "reversed_tags": f"<think>x</think></answer>{gold}<answer>",
        # the gold's letters glued into one word with letters either side
        "gold_inside_word": f"<think>x</think><answer>x{_glued(gold)}x</answer>",
        "no_tags": gold,
        "megabyte_of_candidates": "<think>"
        + filler * (MEGABYTE // len(filler))
        + f"</think><answer>{(everything + ' ') * 50}</answer>",
    }
    if item.answer_type == "yes_no":
        responses["gold_inside_word"] = "<think>x</think><answer>know, yesterday</answer>"
        said = "yes" if gold.lower().startswith("yes") else "no"
        responses["both_yes_and_no"] = f"<think>x</think><answer>{said} or {decoy}</answer>"
    if item.answer_type in ("choice", "text"):
        responses["negated_gold"] = f"<think>x</think><answer>It is not in the {gold}.</answer>"
        responses["refuted_gold"] = f"<think>x</think><answer>The {gold} is wrong.</answer>"
        responses["gold_excluded"] = f"<think>x</think><answer>anywhere except the {gold}</answer>"
    if item.answer_type == "text" and not item.candidates:  # judged as free text
        responses["gold_or_elsewhere"] = f"<think>x</think><answer>{gold} or elsewhere</answer>"
        responses.update(story_entity_lists(item))
    if not others:
        responses.pop("all_candidates")
        responses.pop("megabyte_of_candidates")
    return responses


def story_entity_lists(item: ToMItem) -> dict[str, str]:
    """For a free-text item without candidates whose gold is one of the story's names (or
    places): the gold among a few other names (places) of the story, joined by spaces only."""
    gold = item.gold_text
    first = words(gold)[:1]
    lists = {}
    names, places = rival_names(item.story, item.question, gold), judged_places(item)
    for kind, entities in (("names", names), ("places", places)):
        rest = sorted(entities - set(words(gold)))[:4]
        if first and first[0] in entities and rest:
            lists[f"story_{kind}_spaced"] = (
                f"<think>x</think><answer>{' '.join([*rest, gold])}</answer>"
            )
    return lists


def spec_problems(env_id: str) -> list[str]:
    """What the env's registered spec gets wrong about other envs: a held_out_from or
    serves_held_out ID that is not registered (a typo the spec would carry silently: the
    IDs are only recorded at registration, as built-ins name IDs registered after them), or
    held_out_from on an env not marked held out."""
    spec = get_spec(env_id)
    known = {s.id for s in list_envs()}
    problems = [
        f"spec: {name} names {other!r}, not a registered env ID"
        + (
            f" (did you mean {close[0]!r}?)"
            if (close := get_close_matches(other, known, 1))
            else ""
        )
        for name, ids in (
            ("held_out_from", spec.held_out_from),
            ("serves_held_out", spec.serves_held_out),
        )
        for other in ids
        if other not in known
    ]
    if spec.held_out_from and not spec.held_out:
        problems.append("spec: held_out_from is set but held_out is False (is it held out?)")
    return problems


@dataclass
class CheckReport:
    env_id: str
    problems: list[str] = field(default_factory=list)
    checked_items: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def check_tom_env(env_id: str, n_items: int = 5, **env_kwargs: Any) -> CheckReport:
    """Run the conformance checks on one registered env and report every problem found."""
    report = CheckReport(env_id)
    report.problems += spec_problems(env_id)
    env = gym.make(env_id, **env_kwargs)
    raw = env.unwrapped
    assert isinstance(raw, ToMEnv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            check_env(raw, skip_render_check=False)
        except Exception as exc:  # the checker raises AssertionError and others
            report.problems.append(f"check_env failed: {type(exc).__name__}: {exc}")
    report.problems += [f"check_env warned: {w.message}" for w in caught]

    first, _ = raw.reset(seed=123)
    again, _ = raw.reset(seed=123)
    if first != again:
        report.problems.append("reset(seed=123) twice gave different prompts")

    size = raw.size
    indices = range(min(n_items, size)) if size is not None else range(n_items)
    for index in indices:
        _, info = raw.reset(options={"index": index})
        if "gold" in info or "answer" in info:
            report.problems.append(f"item {index}: reset info leaks the gold answer")
        item = raw.current_item
        assert item is not None
        _, reward, terminated, truncated, step_info = raw.step(gold_response(item, raw.prefill))
        if not (step_info["correct"] and reward == raw.reward_spec.max_reward):
            report.problems.append(
                f"item {item.id}: the gold answer earned {reward} ({step_info['verdict']}), "
                f"not the maximum {raw.reward_spec.max_reward}"
            )
        if not terminated or truncated:
            report.problems.append(f"item {item.id}: episode did not terminate after one step")
        for trick, response in adversarial_responses(item).items():
            if trick == "no_tags" and raw.reward_spec.untagged_answers:
                continue  # that preset reads untagged answers on purpose
            score = score_response(response, item, raw.reward_spec, raw.prefill)
            if score.correct:
                report.problems.append(f"item {item.id}: trick {trick!r} was scored correct")
        report.checked_items += 1
    env.close()
    return report
