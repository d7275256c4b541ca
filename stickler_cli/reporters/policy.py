"""The auto-accept policy (the report's ``policy`` block, report/policy.py) in the terminal, Markdown and HTML
reports: a table per field (threshold, coverage, precision, bound, errors let through; with --policy the target
and whether it holds) and the straight-through rate; in HTML, each field's precision-against-coverage curve with
the chosen point marked. Nothing at all without --target-precision or --policy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .sanitize import NAME_LIMIT, figure, safe

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

TITLE = "Auto-accept policy"


def _threshold(b: dict[str, Any]) -> str:
    return "review always" if b["threshold"] is None else f"{b['threshold']:g}"


def _holds(b: dict[str, Any]) -> str:
    if b["threshold"] is None:
        return "reviewed"
    return "no data" if b.get("holds") is None else "holds" if b["holds"] else "FAILS"


def headers(block: dict[str, Any]) -> list[str]:
    """The table's columns after the field's."""
    found = ["Threshold", "Coverage", "Precision", "Bound", "Target", "Accepted", "Errors"]
    return found + (["p", "Verdict"] if block["mode"] == "applied" else [])


def rows(block: dict[str, Any]) -> list[list[str]]:
    """One row per policy field (the field path first), as the terminal and Markdown show them."""
    found = []
    for path, b in block["fields"].items():
        row = [
            path,
            _threshold(b),
            figure(b["coverage"]),
            figure(b["precision"]),
            figure(b["lower_bound"]),
            f"{b['target']:g}",
            f"{b['accepted']}/{b['values']}",
            str(b["errors_let_through"]),
        ]
        if block["mode"] == "applied":
            row += [figure(b.get("p_value")), _holds(b)]
        found.append(row)
    return found


def summary(block: dict[str, Any]) -> str:
    """The straight-through line (and, applied, whether the policy holds)."""
    through = block["straight_through"]
    if through is None:
        text = "Straight through: cannot be known (a merged state kept no per-document confidences)."
    else:
        text = (
            f"Straight through: {through['straight_through']:,} of {through['documents']:,} documents "
            f"({figure(through['rate'])}); precision of their values {figure(through['precision'])} "
            f"({through['correct']:,} of {through['values']:,})."
        )
    if block["mode"] == "applied":
        checked = [b.get("holds") for b in block["fields"].values() if b["threshold"] is not None]
        if block.get("holds") is None:
            text += " Whether the policy holds: no data (a threshold accepts no value here)."
        else:
            text += f" The policy holds on {sum(checked)} of {len(checked)} fields with a threshold."
    return text


def note(block: dict[str, Any]) -> str:
    level = block["level"]
    return (
        "Coverage: share of the field's predicted values accepted. Errors: wrong values accepted (let through). "
        f"Bound: one-sided {level:g} Clopper-Pearson lower bound of the precision. The threshold is the lowest confidence whose accepted values (ties together) reach "
        "the target at that bound (docs/decisions.md)."
    )


def tables(report: dict[str, Any], width: int) -> list[Table]:
    from .fit import Column, fit

    block = report.get("policy")
    if not block or not block["fields"]:
        return []
    shown = [[safe(row[0], NAME_LIMIT), *row[1:]] for row in rows(block)]
    columns = tuple(Column(h, justify="left" if h == "Verdict" else "right") for h in headers(block))
    return fit(TITLE, "Field", columns, shown, width)


def render_terminal(report: dict[str, Any], console: Console) -> None:
    block = report.get("policy")
    if not block:
        return
    from rich.text import Text

    for table in tables(report, console.width):
        console.print(table)
    console.print(Text(summary(block)))
    console.print(Text(note(block), style="dim"))
    console.print()


def markdown_lines(report: dict[str, Any], text: Callable[..., str]) -> list[str]:
    """The section in Markdown (``text`` escapes a name for a table cell)."""
    block = report.get("policy")
    if not block:
        return []
    names = headers(block)
    lines = [f"### {TITLE}", "", summary(block), "", note(block), ""]
    if block["fields"]:
        lines += ["| Field | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        lines += [f"| {text(row[0])} | " + " | ".join(row[1:]) + " |" for row in rows(block)]
    return lines + [""]


def html_section(report: dict[str, Any], _e: Callable[..., str], _table: Callable[..., str], chart: Callable) -> str:
    """The section in HTML: the table, then each field's precision-against-coverage curve, its chosen point
    marked (``chart`` is html.py's SVG frame)."""
    block = report.get("policy")
    if not block:
        return ""
    names = headers(block)
    table = _table(
        [("field", "text"), *((h, "text" if h in ("Threshold", "Verdict") else "num") for h in names)],
        [
            f"<tr><td>{_e(row[0], 400)}</td>" + "".join(f"<td>{_e(cell)}</td>" for cell in row[1:]) + "</tr>"
            for row in rows(block)
        ],
    )
    curves = "".join(_curve(path, b, _e, chart) for path, b in block["fields"].items())
    return (
        f"<h2>{_e(TITLE)}</h2><p>{_e(summary(block))}</p><p class=meta>{_e(note(block))}</p>{table}"
        f'<div class="charts">{curves}</div>'
    )


def _curve(path: str, b: dict[str, Any], _e: Callable[..., str], chart: Callable) -> str:
    points = [(c[1], c[2]) for c in b["curve"]]
    if not points:
        return ""
    chosen = (b["coverage"], b["precision"]) if b["threshold"] is not None and b["accepted"] else None

    def draw(sx: Callable, sy: Callable) -> str:
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in points)
        target = (
            f'<line x1="{sx(0)}" y1="{sy(b["target"]):.1f}" x2="{sx(1):.1f}" y2="{sy(b["target"]):.1f}" '
            'stroke="#9aa1ad" stroke-dasharray="4 3"/>'
        )
        mark = (
            f'<circle cx="{sx(chosen[0]):.1f}" cy="{sy(chosen[1]):.1f}" r="5" fill="#d64545">'
            f"<title>threshold {_e(_threshold(b))}</title></circle>"
            if chosen
            else ""
        )
        return f'{target}<polyline points="{line}" fill="none" stroke="#2f6fdf" stroke-width="2"/>{mark}'

    return chart(f"{path}: precision against coverage", "coverage (share accepted)", "precision", 1.0, draw)
