"""The compact "Thresholds" section of the terminal and Markdown reports (thresholds.py computes it).

Shown only when some field has something to say: a warning (unstable verdicts, overlapping TP and
FD similarities) or a threshold that would raise its F1 meaningfully. The HTML report draws every
field's curve (html.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .sanitize import NAME_LIMIT, safe

if TYPE_CHECKING:  # the Markdown section is plain text: Rich is imported where the terminal's table is drawn
    from rich.console import Console
    from rich.table import Table

TITLE = "Thresholds"
# The table's columns (fit.Column): (header, justify, group).
COLUMNS = (
    ("Thr", "right", 0),
    ("F1", "right", 0),
    ("Best", "right", 1),
    ("F1 best", "right", 1),
    ("Flips", "right", 2),
    ("Note", "left", 2),
)
NOTE = (
    "Flips: verdicts that change if the threshold moves ±{window:g}. Best: the highest F1 at or above the "
    'similarities\' valley (docs/why-it-fails.md, "Is a threshold set right?").'
)


def rows_to_show(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(path, block) of each field with a warning or a suggestion, in the field table's order."""
    from ..analyses.thresholds import something_to_say

    block = report.get("thresholds") or {}
    return [(path, b) for path, b in (block.get("fields") or {}).items() if something_to_say(b)]


def _notes(b: dict[str, Any]) -> str:
    return ", ".join(w["kind"] for w in b["warnings"]) or "–"


def _best(b: dict[str, Any]) -> str:
    return f"{b['best_threshold']:g}" if b["suggest"] else "–"


def _best_f1(b: dict[str, Any]) -> str:
    return f"{b['best_f1']:.3f}" if b["suggest"] else "–"


def tables(report: dict[str, Any], width: int) -> list[Table]:
    from .fit import Column, fit

    rows = [
        [
            safe(path, NAME_LIMIT),
            f"{b['threshold']:g}",
            f"{b['f1']:.3f}",
            _best(b),
            _best_f1(b),
            f"{b['flips']['total']}/{b['compared']}",
            _notes(b),
        ]
        for path, b in rows_to_show(report)
    ]
    columns = tuple(Column(header, justify=justify, group=group) for header, justify, group in COLUMNS)
    return fit(TITLE, "Field", columns, rows, width) if rows else []


def render(report: dict[str, Any], console: Console) -> None:
    found = tables(report, console.width)
    if not found:
        return
    from rich.text import Text

    for table in found:
        console.print(table)
    console.print(Text(NOTE.format(window=report["thresholds"]["window"]), style="dim"))
    console.print()


def markdown_lines(report: dict[str, Any], text: Any) -> list[str]:
    """The section in Markdown (``text`` escapes a name for a table cell)."""
    shown = rows_to_show(report)
    if not shown:
        return []
    window = report["thresholds"]["window"]
    lines = [
        "### Thresholds",
        "",
        NOTE.format(window=window),
        "",
        "| Field | Threshold | F1 | Best | F1 at best | Flips (±%g) | Warnings |" % window,
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for path, b in shown:
        warnings = "<br>".join(text(w["message"], 300) for w in b["warnings"]) or "–"
        lines.append(
            f"| {text(path)} | {b['threshold']:g} | {b['f1']:.3f} | {_best(b)} | {_best_f1(b)} "
            f"| {b['flips']['total']} of {b['compared']} | {warnings} |"
        )
    return lines + [""]
