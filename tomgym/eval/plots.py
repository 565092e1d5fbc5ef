"""PNG plots of a leaderboard with matplotlib (the ``plot`` extra): accuracy by order, length."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tomgym.eval.leaderboard import Leaderboard, agent_label, order_key


class PlotsUnavailable(RuntimeError):
    """matplotlib is not installed."""


def _pyplot():  # type: ignore[no-untyped-def]
    try:
        import matplotlib
    except ImportError:
        raise PlotsUnavailable(
            "plots skipped: matplotlib is not installed (pip install 'tomgym[plot]')"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def order_series(
    board: Leaderboard,
) -> tuple[list[str], list[tuple[str, list[int], list[float], bool]]]:
    """(the orders in numeric order, and per row and kind of env: its label, x positions,
    accuracies, and whether the series is over held-out envs).

    Positions are indices into the sorted orders: plotting the order strings themselves would
    make matplotlib place categories in the order it first sees them (2, 4, 0, 1 when the first
    row lacks orders 0 and 1). A row's held-out envs make their own series, never pooled with
    its in-distribution ones.
    """
    orders = sorted(
        {o for r in board.rows for o in (*r.by_order, *r.by_order_held_out)}, key=order_key
    )
    series = []
    for row in board.rows:
        for held_out, values in ((False, row.by_order), (True, row.by_order_held_out)):
            if not values and (held_out or row.by_order_held_out):
                continue
            xs = [k for k, o in enumerate(orders) if o in values]
            label = agent_label(row) + (" (held out)" if held_out else "")
            series.append((label, xs, [values[orders[k]] for k in xs], held_out))
    return orders, series


IN_DISTRIBUTION_STYLE: dict[str, Any] = {"linestyle": "-", "marker": "o"}
HELD_OUT_STYLE: dict[str, Any] = {"linestyle": "--", "marker": "s", "fillstyle": "none"}


def with_gaps(xs: list[int], ys: list[float]) -> tuple[list[int], list[float]]:
    """The series with a NaN at each position it skips, so matplotlib breaks the line there: a
    run with orders 0 and 2 but no 1 was drawn as if it had been measured at 1."""
    if not xs:
        return xs, ys
    at = dict(zip(xs, ys, strict=True))
    span = list(range(min(xs), max(xs) + 1))
    return span, [at.get(x, float("nan")) for x in span]


DODGE_SPAN = 0.3
"""The width (in orders) over which the agents' points at one order are spread."""


def dodged(xs: list[int], agent: int, agents: int) -> list[float]:
    """``xs`` moved sideways by the agent's place among ``agents``, so that agents with the same
    accuracy at an order (baselines often tie) do not hide each other's points and lines."""
    if agents < 2:
        return [float(x) for x in xs]
    shift = (agent - (agents - 1) / 2) * min(DODGE_SPAN / (agents - 1), 0.06)
    return [x + shift for x in xs]


def legend_beside(ax: Any, colours: dict[str, str], held_out: bool) -> None:
    """One entry per agent (its colour) and, where a series is held out, one per line style,
    right of the axes: inside them, two entries per agent covered the data."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=c, marker="o", label=a) for a, c in colours.items()]
    if held_out:
        handles += [
            Line2D([], [], color="black", label="in-distribution", **IN_DISTRIBUTION_STYLE),
            Line2D([], [], color="black", label="held out", **HELD_OUT_STYLE),
        ]
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def agent_of(label: str, held_out: bool) -> str:
    """The agent a series' label names (a held-out series is labelled "<agent> (held out)")."""
    return label.removesuffix(" (held out)") if held_out else label


def accuracy_by_order_figure(board: Leaderboard, plt: Any) -> Any:
    """The accuracy-by-order figure: a line per agent and kind of env, broken where a run has
    no items of an order, and the legend beside the axes."""
    orders, series = order_series(board)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    colours: dict[str, str] = {}
    names = list(dict.fromkeys(agent_of(label, held_out) for label, _, _, held_out in series))
    for label, xs, ys, held_out in series:
        agent = agent_of(label, held_out)
        style = HELD_OUT_STYLE if held_out else IN_DISTRIBUTION_STYLE
        gapped_xs, gapped_ys = with_gaps(xs, [100 * y for y in ys])
        placed = dodged(gapped_xs, names.index(agent), len(names))
        (line,) = ax.plot(placed, gapped_ys, color=colours.get(agent), **style)
        colours.setdefault(agent, line.get_color())
    ax.set_xticks(range(len(orders)), orders)
    ax.set_xlabel("ToM order")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Accuracy by ToM order")
    if board.rows:
        legend_beside(ax, colours, any(held_out for *_, held_out in series))
    return fig


LENGTH_UNITS = {"completion_tokens": ("tokens", "C0"), "words": ("words", "C1")}
"""How a row's length is counted (``response_tokens_source``) -> its legend label and colour."""


def response_length_figure(board: Leaderboard, plt: Any) -> Any:
    """Mean response length per row, tokens and words told apart by colour (one axis drew
    both as one quantity); a row whose envs mix the two has no bar and says so. Where the rows
    ran different envs, each bar says over how many of the board's envs it is."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = [agent_label(r) for r in board.rows]
    covered = [frozenset(e for e, acc in r.envs.items() if acc is not None) for r in board.rows]
    if len(set(covered)) > 1:  # rows over different envs: each bar says over how many
        labels = [
            f"{label}\n({len(envs)} of {len(board.envs)} envs)"
            for label, envs in zip(labels, covered, strict=True)
        ]
    drawn: set[str] = set()
    for label, row in zip(labels, board.rows, strict=True):
        unit = row.response_tokens_source or "words"
        if row.response_tokens_mean is None or unit not in LENGTH_UNITS:
            why = " (its envs mix tokens and words)" if "/" in unit else ""
            ax.barh(label, 0.0)
            ax.annotate(f" no length{why}", (0, label), va="center")
            continue
        name, colour = LENGTH_UNITS[unit]
        ax.barh(label, row.response_tokens_mean, color=colour,
                label=None if name in drawn else name)  # fmt: skip
        drawn.add(name)
    if drawn:
        ax.legend(title="counted in")
    ax.set_xlabel("mean response length")
    ax.set_title("Response length")
    return fig


def write_plots(board: Leaderboard, directory: Path) -> list[Path]:
    """``accuracy_by_order.png`` and ``response_length.png`` under ``directory``."""
    plt = _pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    written = []

    fig = accuracy_by_order_figure(board, plt)
    fig.tight_layout()
    path = directory / "accuracy_by_order.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)

    fig = response_length_figure(board, plt)
    fig.tight_layout()
    path = directory / "response_length.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)
    return written
