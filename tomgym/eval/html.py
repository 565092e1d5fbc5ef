"""A self-contained HTML leaderboard page: inline CSS and JS, sortable, accuracy by ToM order."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from html import escape

from tomgym.eval.leaderboard import (
    INCOMPLETE_NOTE,
    PRIVILEGED_NOTE,
    UNANSWERED_NOTE,
    Leaderboard,
    LeaderboardRow,
    column_labels,
    coverage_notes,
    extra_record_notes,
    items_label,
    length_label,
    mixed_notes,
    order_columns,
    order_items,
    order_value,
    question_type_columns,
    question_type_items,
    question_type_label,
    question_type_value,
)

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 14px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
th.sorted-asc::after { content: " \\25B2"; } th.sorted-desc::after { content: " \\25BC"; }
td:first-child, th:first-child { text-align: left; }
tr.privileged td { background: #fff6dd; }
th.held-out { background: #e8eefc; }
.tag { font-size: 11px; background: #f0c040; border-radius: 3px; padding: 0 4px; margin-left: 4px; }
.bar { display: inline-block; height: 10px; background: #4a7bd0; vertical-align: middle; }
#errors { color: #b00; }
"""

_JS = """
function cellValue(cell) {
  var v = cell.getAttribute('data-value');
  if (v === null || v === '') { return null; }
  var f = parseFloat(v);
  return isNaN(f) ? v.toLowerCase() : f;
}
function sortTable(table, column, th) {
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var asc = th.classList.contains('sorted-desc');  // first click: descending
  rows.sort(function (a, b) {
    var x = cellValue(a.cells[column]), y = cellValue(b.cells[column]);
    if (x === null) { return 1; } if (y === null) { return -1; }
    if (x < y) { return asc ? -1 : 1; } if (x > y) { return asc ? 1 : -1; } return 0;
  });
  rows.forEach(function (r) { body.appendChild(r); });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) {
    c.classList.remove('sorted-asc', 'sorted-desc');
  });
  th.classList.add(asc ? 'sorted-asc' : 'sorted-desc');
}
document.querySelectorAll('table.sortable').forEach(function (table) {
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
    th.addEventListener('click', function () { sortTable(table, column, th); });
  });
});
document.body.setAttribute('data-ready', String(document.querySelectorAll('tr.agent-row').length));
"""

_ERRORS_JS = """
window.addEventListener('error', function (e) {
  var box = document.getElementById('errors');
  if (box) { box.setAttribute('data-count', String(Number(box.getAttribute('data-count')) + 1));
             box.textContent += 'error: ' + e.message + '\\n'; }
});
"""


def _cell(value: float | None, scale: float = 100.0, digits: int = 1, signed: bool = False) -> str:
    if value is None:
        return '<td data-value="">-</td>'
    shown = f"{scale * value:+.{digits}f}" if signed else f"{scale * value:.{digits}f}"
    return f'<td data-value="{value:.6f}">{shown}</td>'


def _length_cell(row: LeaderboardRow) -> str:
    """Mean response length as the Markdown table shows it (words marked ``w``)."""
    if row.response_tokens_mean is None:
        return '<td data-value="">-</td>'
    return f'<td data-value="{row.response_tokens_mean:.6f}">{escape(length_label(row))}</td>'


def _agent_cell(row: LeaderboardRow) -> str:
    note = f"{PRIVILEGED_NOTE}: {row.gold_answers}" if row.gold_answers else "simulator"
    tag = f'<span class="tag">{escape(note)}</span>' if row.privileged else ""
    name = f"{row.agent} [{row.run}]" if row.run else row.agent
    return f'<td data-value="{escape(name)}">{escape(name)}{tag}</td>'


def _main_table(board: Leaderboard) -> str:
    heads = ["rank", "agent", "n", "accuracy", "95% CI"]
    head_html = [f"<th>{h}</th>" for h in heads]
    labels = column_labels(board)
    for env_id in board.envs:
        cls = ' class="held-out"' if board.held_out.get(env_id) else ""
        head_html.append(f'<th{cls} title="{escape(env_id)}">{escape(labels[env_id])}</th>')
    head_html += [
        f"<th>{h}</th>"
        for h in (
            "in-dist",
            "held-out",
            "gap",
            "gap &gt; chance",
            "format",
            "untagged acc",
            "response length",
            "cut at budget",
            "reasoning",
            "trace",
            "trace cov",
            "macro-F1",
        )
    ]
    body = []
    for row in board.rows:
        cls = "agent-row privileged" if row.privileged else "agent-row"
        ci = "-" if row.ci95 is None else f"{100 * row.ci95[0]:.1f}-{100 * row.ci95[1]:.1f}"
        place = row.rank.rstrip("=") if row.rank else ""
        cells = [
            f'<td data-value="{place}">{escape(row.rank or "-")}</td>',
            _agent_cell(row),
            f'<td data-value="{row.n_items}">{escape(items_label(row))}</td>',
            _cell(row.accuracy),
            f'<td data-value="{row.ci95[0] if row.ci95 else ""}">{ci}</td>',
        ]
        cells += [_cell(row.envs.get(e)) for e in board.envs]
        cells += [
            _cell(row.in_distribution),
            _cell(row.held_out),
            _cell(row.held_out_gap, signed=True),
            _cell(row.held_out_gap_above_chance, signed=True),
            _cell(row.format_rate),
            _cell(row.lenient_accuracy),
            _length_cell(row),
            _cell(row.truncated_share),
            _cell(row.reasoning_structure),
            _cell(row.trace_fidelity),
            _cell(row.trace_coverage),
            _cell(row.macro_f1),
        ]
        body.append(
            f'<tr class="{cls}" data-agent="{escape(row.agent)}">' + "".join(cells) + "</tr>"
        )
    return (
        '<table class="sortable" id="leaderboard"><thead><tr>'
        + "".join(head_html)
        + "</tr></thead><tbody>"
        + "\n".join(body)
        + "</tbody></table>"
    )


def _order_table(board: Leaderboard) -> str:
    columns = order_columns(board)
    if not columns:
        return "<p>No ToM orders recorded.</p>"
    return _slice_table(
        board,
        "by-order",
        [(f"order {o}{' (held out)' if h else ''}", o, h) for o, h in columns],
        order_value,
        order_items,
    )


def _question_type_table(board: Leaderboard) -> str:
    """The question-type section, where the orders do not tell the types apart."""
    columns = question_type_columns(board)
    if not columns:
        return ""
    table = _slice_table(
        board,
        "by-question-type",
        [(question_type_label(t, h), t, h) for t, h in columns],
        question_type_value,
        question_type_items,
    )
    return (
        "<h2>Accuracy by question type</h2>\n<p>In-distribution and held-out envs apart; each "
        "pools every family with questions of that type (ToMi's reality and memory questions "
        "are both order 0: a shortcut that answers one type shows here).</p>\n" + table
    )


def _slice_table(
    board: Leaderboard,
    table_id: str,
    columns: Sequence[tuple[str, str, bool]],
    value_of: Callable[[LeaderboardRow, str, bool], float | None],
    items_of: Callable[[LeaderboardRow, str, bool], int | None],
) -> str:
    """A sortable table of accuracy per slice (heading, key, held out) with its items."""
    head = "<th>agent</th>" + "".join(f"<th>{escape(heading)}</th>" for heading, _, _ in columns)
    body = []
    for row in board.rows:
        cells = [_agent_cell(row)]
        for _, key, held_out in columns:
            value = value_of(row, key, held_out)
            if value is None:
                cells.append('<td data-value="">-</td>')
            else:
                bar = f'<span class="bar" style="width:{round(60 * value)}px"></span>'
                n = items_of(row, key, held_out)
                items = f' <span class="tag">{n}</span>' if n is not None else ""
                cells.append(f'<td data-value="{value:.6f}">{bar} {100 * value:.1f}{items}</td>')
        cls = "privileged" if row.privileged else ""
        body.append(f'<tr class="{cls}">' + "".join(cells) + "</tr>")
    return (
        f'<table class="sortable" id="{table_id}"><thead><tr>'
        + head
        + "</tr></thead><tbody>"
        + "\n".join(body)
        + "</tbody></table>"
    )


def _plots_section(plots: Sequence[str]) -> str:
    """The plots written beside the page, each as an image linking to its file."""
    if not plots:
        return ""
    images = "\n".join(
        f'<p><a href="{escape(path)}"><img src="{escape(path)}" alt="{escape(path)}" '
        'style="max-width:100%"></a></p>'
        for path in plots
    )
    return f"<h2>Plots</h2>\n{images}"


def render_html(board: Leaderboard, plots: Sequence[str] = ()) -> str:
    """The whole page as one string (no external resources; ``plots``: the PNGs written
    beside it, as paths relative to it, shown at its end)."""
    title = f"tomgym leaderboard{': ' + board.suite if board.suite else ''}"
    data = json.dumps(board.model_dump(mode="json")).replace("</", "<\\/")
    note = (
        f'<p>Rows tagged <span class="tag">{PRIVILEGED_NOTE}</span> are privileged agents that are '
        "given the gold answer (an upper bound, not a model).</p>"
        if any(r.privileged for r in board.rows)
        else ""
    )
    if any(not r.complete or r.failed for r in board.rows):
        note += f"\n<p>{escape(INCOMPLETE_NOTE)}</p>"
    if any(r.unanswered for r in board.rows):
        note += f"\n<p>{escape(UNANSWERED_NOTE)}</p>"
    note += "".join(f"\n<p>{escape(line)}</p>" for line in coverage_notes(board))
    note += "".join(f"\n<p>{escape(line)}</p>" for line in extra_record_notes(board))
    note += "".join(f"\n<p>{escape(line)}</p>" for line in mixed_notes(board))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>
<style>{_CSS}</style><script>{_ERRORS_JS}</script></head>
<body>
<h1>{escape(title)}</h1>
<p>Accuracy in %; a row's acc is the mean of its env columns, with a 95% interval of that
mean (the envs as independent samples, each an Agresti-Coull variance). Held-out columns are
shaded; gap = in-distribution
minus held-out. Response length is in tokens where the agent reported them, else words.
Reasoning = share of responses whose think part is non-trivial and names story entities.
Click a header to sort.</p>
{note}
{_main_table(board)}
<h2>Accuracy by ToM order</h2>
<p>In-distribution and held-out envs apart; each pools every family with items of that order.</p>
{_order_table(board)}
{_question_type_table(board)}
{_plots_section(plots)}
<pre id="errors" data-count="0"></pre>
<script type="application/json" id="leaderboard-data">{data}</script>
<script>{_JS}</script>
</body></html>
"""
