"""PNG plots of a leaderboard with matplotlib (the ``plot`` extra): accuracy by order, length."""

from __future__ import annotations

from pathlib import Path

from tomgym.eval.leaderboard import Leaderboard, agent_label


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


def _order_key(order: str) -> tuple[int, float | str]:
    try:
        return (0, float(order))
    except ValueError:
        return (1, order)


def order_series(board: Leaderboard) -> tuple[list[str], list[tuple[str, list[int], list[float]]]]:
    """(the orders in numeric order, and per row: its label, x positions, accuracies).

    Positions are indices into the sorted orders: plotting the order strings themselves would
    make matplotlib place categories in the order it first sees them (2, 4, 0, 1 when the first
    row lacks orders 0 and 1).
    """
    orders = sorted({o for r in board.rows for o in r.by_order}, key=_order_key)
    series = []
    for row in board.rows:
        xs = [k for k, o in enumerate(orders) if o in row.by_order]
        series.append((agent_label(row), xs, [row.by_order[orders[k]] for k in xs]))
    return orders, series


def write_plots(board: Leaderboard, directory: Path) -> list[Path]:
    """``accuracy_by_order.png`` and ``response_length.png`` under ``directory``."""
    plt = _pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    written = []

    orders, series = order_series(board)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, xs, ys in series:
        ax.plot(xs, [100 * y for y in ys], marker="o", label=label)
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
