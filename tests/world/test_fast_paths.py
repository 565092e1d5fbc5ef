"""The generators' fast paths draw and decide exactly what the general code does.

ItemRandom against random.Random, the one-belief (focus) world against the full world, and
the release-form renderer against render_event, on many seeds and generated stories.
"""

from __future__ import annotations

import random

import pytest

from tomgym.world.debias import placements, true_location
from tomgym.world.hitom import HiToMConfig, ItemRandom, generate_hitom
from tomgym.world.render import render_event, render_story
from tomgym.world.simulator import World, _tuples, belief_after, simulate
from tomgym.world.tomi import ToMiConfig, generate_tomi


@pytest.mark.parametrize("seed", range(40))
def test_item_random_draws_what_random_draws(seed: int) -> None:
    fast, slow = ItemRandom(seed), random.Random(seed)
    for n in (1, 2, 3, 5, 8, 21, 22, 24, 30, 37, 38, 100):
        population = [f"x{i}" for i in range(n)]
        for k in sorted({0, 1, min(n, 5), min(n, 6), min(n, 15), n}):
            assert fast.sample(population, k) == slow.sample(population, k)
            assert fast.sample(tuple(population), k) == slow.sample(tuple(population), k)
        assert fast.choice(population) == slow.choice(population)
        assert fast.randrange(n) == slow.randrange(n)
        assert fast.randint(0, n) == slow.randint(0, n)
        assert fast.randrange(3, n + 3) == slow.randrange(3, n + 3)
        a, b = list(population), list(population)
        fast.shuffle(a)
        slow.shuffle(b)
        assert a == b
        assert fast.random() == slow.random()
    assert fast.sample(range(50), 7) == slow.sample(range(50), 7)
    assert fast.sample("abcdefgh", 3, counts=[1] * 8) == slow.sample("abcdefgh", 3, counts=[1] * 8)
    for args in ((0,), (-2,), (5, 5), (5, 2), (0, 10, 3), (3, 10, 1), (True, 4)):
        outcomes: list[object] = []
        for rng in (fast, slow):  # what the fast path leaves to random.Random does as it does
            try:
                outcomes.append(rng.randrange(*args))
            except ValueError as error:
                outcomes.append(type(error))
        assert outcomes[0] == outcomes[1]
    with pytest.raises(IndexError):
        fast.choice([])
    with pytest.raises(ValueError):
        fast.sample([1, 2], 3)


def _stories() -> list[tuple[tuple, int]]:
    out = []
    for i in range(60):
        q = generate_hitom(HiToMConfig(orders=(0, 1, 2, 3, 4), noise=0.3), 7, i)
        out.append((q.events, 4))
    for i in range(30):
        out.append((generate_tomi(ToMiConfig(), 7, i).events, 2))
    return out


def test_focus_world_keeps_the_full_worlds_belief() -> None:
    for events, max_order in _stories():
        full = simulate(events, max_order=max_order)
        agents = frozenset(full.agents)
        objects = list(full.location)
        for order in range(max_order + 1):
            tuples = [t for t in _tuples(agents, order) if len(t) == order][:30] if order else [()]
            for tup in tuples:
                for obj in objects:
                    want = simulate(events, max_order=max(order, 1)).beliefs(tup, obj)
                    assert full.beliefs(tup, obj) == want
                    assert belief_after(events, tup, obj, max_order=max(order, 1)) == want
                    focused = World(max_order=max_order, focus=(tup, obj)).apply_all(events)
                    assert focused.beliefs(tup, obj) == want
                    assert focused.location == full.location
                    assert focused.initial == full.initial


def test_true_location_is_the_simulated_location() -> None:
    """Order 0's answer (and ToMi's memory and reality answers) are read off the events
    (true_location, placements), not simulated."""
    for events, _ in _stories():
        world = simulate(events, max_order=1)
        for obj in {e.obj for e in events if hasattr(e, "obj")}:
            assert true_location(events, obj) == world.beliefs((), obj)
            assert true_location(events, obj) == belief_after(events, (), obj, max_order=1)
            placed = placements(events, obj)  # ToMi's memory and reality answers
            if placed:
                assert (placed[0], placed[-1]) == (world.initial[obj], world.location[obj])
            else:
                assert obj not in world.initial and obj not in world.location


def test_exact_order_world_keeps_the_full_worlds_beliefs_of_that_order() -> None:
    for events, max_order in _stories():
        for order in range(1, max_order + 1):
            full = simulate(events, max_order=order)
            exact = World(max_order=order, exact_order=True).apply_all(events)
            assert exact.belief == {k: v for k, v in full.belief.items() if len(k[0]) == order}
            assert exact.location == full.location
            for tup, obj in list(full.belief)[:20]:
                focused = World(max_order=order, exact_order=True, focus=(tup, obj))
                want = full.beliefs(tup, obj) if len(tup) == order else None
                assert focused.apply_all(events).beliefs(tup, obj) == want


def test_release_renderer_matches_render_event() -> None:
    for events, _ in _stories():
        lines = render_story(events).split("\n")
        assert lines == [f"{i} {render_event(e)}" for i, e in enumerate(events, 1)]
