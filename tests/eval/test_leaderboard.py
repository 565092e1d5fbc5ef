"""Leaderboard columns and the accuracy-by-order plot."""

from __future__ import annotations

from pathlib import Path

from tomgym.eval.leaderboard import Leaderboard, LeaderboardRow, column_labels, to_markdown
from tomgym.eval.plots import order_series


def row(agent: str, by_order: dict[str, float]) -> LeaderboardRow:
    return LeaderboardRow(agent=agent, directory=agent, n_items=4, accuracy=0.5, by_order=by_order)


def test_column_headers_are_distinct() -> None:
    envs = ["ToM-HiToM-O4-v0", "ToM-HiToM-Original-O4-v0", "ToM-ToMi-v0", "ToM-ToMi-Original-v0"]
    board = Leaderboard(
        envs=envs,
        labels={"ToM-HiToM-Original-O4-v0": "HiToM-O4", "ToM-ToMi-Original-v0": "ToMi"},
        held_out={"ToM-HiToM-O4-v0": True, "ToM-HiToM-Original-O4-v0": True},
        rows=[row("a", {})],
    )
    labels = column_labels(board)
    assert len(set(labels.values())) == len(envs)
    assert labels["ToM-HiToM-Original-O4-v0"] == "HiToM-Original-O4 (held out)"
    assert labels["ToM-ToMi-v0"] == "ToMi" and labels["ToM-ToMi-Original-v0"] == "ToMi-Original"
    header = to_markdown(board).splitlines()[0]
    assert header.count("| ToMi |") == 1


def test_orders_are_plotted_in_numeric_order() -> None:
    board = Leaderboard(
        envs=[], rows=[row("a", {"2": 0.5, "4": 0.25}), row("b", {"0": 1.0, "1": 0.9, "10": 0.1})]
    )
    orders, series = order_series(board)
    assert orders == ["0", "1", "2", "4", "10"]
    assert series[0] == ("a", [2, 3], [0.5, 0.25])
    assert series[1][1] == [0, 1, 4]


def test_a_column_mixing_runs_of_different_splits_says_so(tmp_path: Path) -> None:
    """Runs of one env on different splits are not comparable: the board names them."""
    from tomgym.eval.html import render_html
    from tomgym.eval.leaderboard import collect, to_markdown
    from tomgym.eval.runner import evaluate

    env = "ToM-HiToM-O1-v0"
    evaluate("random", [env], n=2, out=tmp_path / "a", split="val", quiet=True)
    evaluate("random", [env], n=2, out=tmp_path / "b", split="test", quiet=True)
    board = collect([tmp_path / "a", tmp_path / "b"])
    assert set(board.mixed) == {env}
    note = f"Column {env} mixes runs"
    assert note in to_markdown(board) and note in render_html(board)
    assert collect([tmp_path / "a"]).mixed == {}
