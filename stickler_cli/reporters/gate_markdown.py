"""The failed quality gates as Markdown: shared by the Markdown reports of ``eval``, ``merge`` and
``split``. Here, not in report/gates.py: report/ decides the verdicts, reporters/ turn them into text
(and report/ sits below reporters/, so it may not import the Markdown cell escaping)."""

from __future__ import annotations

from typing import Any

from ..report.gates import shown_actual, threshold_text
from .sanitize import markdown_cell


def failed_gates_markdown(bad: list[dict[str, Any]]) -> list[str]:
    """The failed gates as a Markdown table, and a blank line; nothing when none failed."""
    if not bad:
        return []
    return [
        "### Failed gates",
        "",
        "| Gate | Threshold | Actual |",
        "|---|---:|---:|",
        *(f"| {markdown_cell(g['gate'])} | {threshold_text(g['threshold'])} | {shown_actual(g)} |" for g in bad),
        "",
    ]
