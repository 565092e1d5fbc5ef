"""PNG plots of a leaderboard with matplotlib (the ``plot`` extra): accuracy by order, length."""

from __future__ import annotations

from pathlib import Path

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


def write_plots(board: Leaderboard, directory: Path) -> list[Path]:
    """``accuracy_by_order.png`` and ``response_length.png`` under ``directory``."""
    plt = _pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    written = []

    orders, series = order_series(board)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colours: dict[str, str] = {}
    for label, xs, ys, held_out in series:
        agent = label.removesuffix(" (held out)") if held_out else label
        style = (
            {"linestyle": "--", "marker": "s", "fillstyle": "none"} if held_out else {"marker": "o"}
        )
        ys_pct = [100 * y for y in ys]
        (line,) = ax.plot(xs, ys_pct, label=label, color=colours.get(agent), **style)
        colours.setdefault(agent, line.get_color())
    ax.set_xticks(range(len(orders)), orders)
    ax.set_xlabel("ToM order")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Accuracy by ToM order")
    if board.rows:
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = directory / "accuracy_by_order.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = [agent_label(r) for r in board.rows]
    ax.barh(labels, [r.response_tokens_mean or 0.0 for r in board.rows])
    units = sorted({r.response_tokens_source or "words" for r in board.rows})
    ax.set_xlabel(f"mean response length ({' / '.join(units)})")
    ax.set_title("Response length")
    fig.tight_layout()
    path = directory / "response_length.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)
    return written
