"""The Hi-ToM oracle: parse the story, re-simulate, answer any order and explain the answer."""

from __future__ import annotations

from tomgym.world.parse import parse_hitom_question, parse_story
from tomgym.world.simulator import World, simulate


def _world(story: str, order: int) -> World:
    return simulate(parse_story(story), max_order=max(order, 1))


def hitom_world(story: str, max_order: int = 4) -> World:
    """The simulated final state of a Hi-ToM story, nested beliefs up to ``max_order``."""
    return simulate(parse_story(story), max_order=max_order)


def solve_hitom(story: str, question: str) -> str:
    """The container the question asks for, under the Hi-ToM rules."""
    agents, obj = parse_hitom_question(question)
    answer = _world(story, len(agents)).beliefs(agents, obj)
    if answer is None:
        raise ValueError(f"the story never places the {obj} for {agents or 'reality'}")
    return answer


def belief_claim(agents: tuple[str, ...], obj: str, container: str) -> str:
    """'X thinks Y thinks the O is in the C.' (or 'The O is in the C.' for no agents)."""
    prefix = "".join(f"{a} thinks " for a in agents)
    sentence = f"{prefix}the {obj} is in the {container}."
    return sentence[0].upper() + sentence[1:]


def explain_hitom(story: str, question: str) -> list[str]:
    """Reasoning lines: the true container, then each nested belief from the inside out."""
    agents, obj = parse_hitom_question(question)
    world = _world(story, len(agents))
    lines = []
    for start in range(len(agents), -1, -1):
        chain = agents[start:]
        where = world.beliefs(chain, obj)
        if where is not None:
            lines.append(belief_claim(chain, obj, where))
    return lines
