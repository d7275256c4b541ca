"""The quality gates as a table on the terminal: shared by every command that has gates (``eval``,
``merge``, ``split``), and light (no engine), so that a command which scores nothing need not load one."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from ..report.gates import shown_actual, threshold_text, verdict
from .fit import Column, fit
from .sanitize import NAME_LIMIT, safe


def render_gates(results: list[dict[str, Any]], console: Console) -> None:
    """The quality gates: every result, failed ones first and in red; a verdict line."""
    if not results:
        return
    failed = [r for r in results if r["status"] == "failed"]
    console.print()
    order = {"failed": 0, "no data": 1, "passed": 2}
    rows = []
    for r in sorted(results, key=lambda r: order[r["status"]]):
        style = {"failed": "bold red", "no data": "yellow", "passed": "green"}[r["status"]]
        actual = shown_actual(r)
        rows.append(
            [safe(r["gate"], NAME_LIMIT), threshold_text(r["threshold"]), actual, Text(r["status"], style=style)]
        )
    columns = [Column("Threshold"), Column("Actual"), Column("", justify="left")]
    for table in fit("Quality gates", "Gate", columns, rows, console.width):
        console.print(table)
    line = verdict(results)
    console.print(Text(line + " (exit code 1)", style="bold red") if failed else Text(line, style="bold green"))
