"""Simulator semantics on small hand-written event sequences."""

from __future__ import annotations

import pytest

from tomgym.world.simulator import (
    Enter,
    Exit,
    Move,
    ObjectIs,
    PrivateTell,
    PublicClaim,
    Stay,
    simulate,
)

ABC = ("A", "B", "C")


def _chapter() -> list:
    # A exits first, then B moves the apple and exits, then C moves it and exits.
    return [
        Enter(ABC, "kitchen"),
        ObjectIs("apple", "box"),
        Stay("A", "kitchen"),
        Exit("A", "kitchen"),
        Move("B", "apple", "crate"),
        Exit("B", "kitchen"),
        Move("C", "apple", "tin"),
        Exit("C", "kitchen"),
        Enter(ABC, "waiting_room"),
    ]


def test_enter_exit_move() -> None:
    w = simulate(_chapter())
    assert w.beliefs((), "apple") == "tin"
    assert w.beliefs(("A",), "apple") == "box"
    assert w.beliefs(("B",), "apple") == "crate"
    assert w.beliefs(("C",), "apple") == "tin"
    assert w.beliefs(("C", "B"), "apple") == "crate"
    assert w.beliefs(("B", "A"), "apple") == "box"
    assert w.beliefs(("C", "B", "A"), "apple") == "box"
    assert w.initial["apple"] == "box"


def test_public_claim_trust_both_ways() -> None:
    # B exited before C: B trusts C, C distrusts B; A (earliest) trusts B.
    w = simulate([*_chapter(), PublicClaim("B", "apple", "jar")])
    assert w.beliefs(("A",), "apple") == "jar"  # A exited before B: trusts
    assert w.beliefs(("A", "B"), "apple") == "jar"
    assert w.beliefs(("B", "A"), "apple") == "jar"
    assert w.beliefs(("C",), "apple") == "tin"  # C exited after B: no trust
    assert w.beliefs(("C", "B"), "apple") == "crate"
    assert w.beliefs(("B", "C"), "apple") == "jar"
    assert w.beliefs(("B",), "apple") == "crate"  # a claim never changes the speaker
    assert w.beliefs(("C", "B", "A"), "apple") == "box"  # nor third order


def test_public_claim_outsider_trusts() -> None:
    events = [Enter(("A", "B", "C", "D"), "den"), ObjectIs("fig", "bin"), Exit("D", "den")]
    events += _chapter() + [PublicClaim("A", "fig", "jar")]
    w = simulate(events)
    assert w.beliefs(("D",), "fig") == "jar"  # D was not in the last chapter
    assert w.beliefs(("D", "A"), "fig") == "jar"
    assert w.beliefs(("B",), "fig") == "bin"  # B exited after A: no trust


def test_private_tell_trust_both_ways() -> None:
    w = simulate([*_chapter(), PrivateTell("C", "A", "apple", "jar")])
    assert w.beliefs(("A",), "apple") == "jar"
    assert w.beliefs(("A", "C"), "apple") == "jar"
    assert w.beliefs(("C", "A"), "apple") == "jar"
    w = simulate([*_chapter(), PrivateTell("A", "C", "apple", "jar")])
    assert w.beliefs(("C",), "apple") == "tin"
    assert w.beliefs(("C", "A"), "apple") == "box"
    assert w.beliefs(("A", "C"), "apple") == "jar"
    assert w.beliefs(("B", "C"), "apple") == "crate"  # B heard nothing


def test_fourth_order() -> None:
    agents = ("A", "B", "C", "D", "E")
    events = [Enter(agents, "hall"), ObjectIs("kiwi", "box")]
    for i, a in enumerate(agents):
        events += [Move(a, "kiwi", f"c{i}"), Exit(a, "hall")]
    w = simulate(events)
    assert w.beliefs(("E", "D", "C", "B"), "kiwi") == "c1"
    assert w.beliefs(("A", "B", "C", "D"), "kiwi") == "c0"
    assert w.beliefs(("E", "D", "C"), "kiwi") == "c2"
    assert w.beliefs(("E", "D"), "kiwi") == "c3"
    assert w.beliefs(("E",), "kiwi") == "c4"


def test_later_chapter_reenters_room() -> None:
    events = [*_chapter(), Enter(("A", "B"), "kitchen"), ObjectIs("pear", "bin")]
    w = simulate(events)
    assert w.beliefs(("A",), "apple") == "tin"  # refreshed on entering
    assert w.beliefs(("A", "B"), "apple") == "tin"
    assert w.beliefs(("C", "A"), "apple") == "box"  # C did not come back
    assert w.participants == ("A", "B")


def test_events_are_frozen_values() -> None:
    """Events fill __dict__ in a hand-written __init__ (for speed): still frozen, compared and
    hashed by value, rebuilt by dataclasses.replace, built by keyword."""
    import dataclasses

    move = Move("Ann", "apple", "red_box")
    assert move == Move(agent="Ann", obj="apple", container="red_box")
    assert hash(move) == hash(Move("Ann", "apple", "red_box"))
    assert move != Move("Ann", "apple", "blue_box")
    assert repr(move) == "Move(agent='Ann', obj='apple', container='red_box')"
    with pytest.raises(dataclasses.FrozenInstanceError):
        move.agent = "Bob"  # type: ignore[misc]
    assert dataclasses.replace(ObjectIs("apple", "red_box"), room="hall").room == "hall"
    assert ObjectIs("apple", "red_box").room is None
    assert Enter(("Ann", "Bob"), "hall") != Exit("Ann", "hall")
