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


def write_plots(board: Leaderboard, directory: Path) -> list[Path]:
    """``accuracy_by_order.png`` and ``response_length.png`` under ``directory``."""
    plt = _pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    written = []

    orders = sorted({o for r in board.rows for o in r.by_order}, key=lambda o: (len(o), o))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for row in board.rows:
        xs = [o for o in orders if o in row.by_order]
        ax.plot(xs, [100 * row.by_order[o] for o in xs], marker="o", label=agent_label(row))
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
