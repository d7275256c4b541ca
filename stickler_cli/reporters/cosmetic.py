"""The "Cosmetic or real" section of the terminal, Markdown and HTML reports (the report's ``cosmetic_errors``).

Shown only when some FD of a leaf field is cosmetic (matches once normalised, cosmetic.py): one line per such
field, "FD 120, of which 80 differ only in case, 25 in punctuation, 15 real", and the comparator setting that
would accept the most of them. Advice only: every figure of the report stays the configured comparator's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..analyses.cosmetic import OUTCOMES, STEP_NAMES, figures, iter_fields, suggestion_text, summary

if TYPE_CHECKING:
    from rich.console import Console

FIELDS_SHOWN = 10  # fields listed on the terminal and in Markdown (the JSON and HTML reports list all)
TITLE = "Cosmetic or real: FDs re-scored under normalisations (advice; scores unchanged)"


def render_cosmetic(block: dict[str, Any] | None, console: Console) -> None:
    """Each field with cosmetic FDs: its summary line and the suggested setting, wrapped at the console's
    width (lines fold between words: a figure is never cut)."""
    from rich.padding import Padding
    from rich.text import Text

    from .sanitize import safe

    shown = iter_fields(block)
    if not shown:
        return
    console.print()
    console.print(Text(TITLE, style="bold"))
    for path, entry in shown[:FIELDS_SHOWN]:
        console.print(Padding(safe(summary(_name(path), entry), 600), (0, 0, 0, 2)), overflow="fold")
        advice = suggestion_text(entry)
        if advice:
            console.print(Padding(Text("try: ", style="dim") + safe(advice, 600), (0, 0, 0, 4)), overflow="fold")
    if len(shown) > FIELDS_SHOWN:
        console.print(Text(f"  … and {len(shown) - FIELDS_SHOWN} more fields (see the JSON report)", style="dim"))


def _name(path: str) -> str:
    return path if len(path) <= 200 else path[:199] + "…"


def markdown_lines(block: dict[str, Any] | None, text: Callable[..., str]) -> list[str]:
    """The section in Markdown: a line per field, its suggestion under it (data and schema text as code spans,
    ``text``: markdown.text)."""
    shown = iter_fields(block)
    if not shown:
        return []
    lines = [f"### {TITLE}", ""]
    for path, entry in shown[:FIELDS_SHOWN]:
        lines.append(f"- {text(path)}: {figures(entry)}")
        advice = suggestion_text(entry)
        if advice:
            lines.append(f"  - try {text(advice, 600)}")
    if len(shown) > FIELDS_SHOWN:
        lines.append(f"- … and {len(shown) - FIELDS_SHOWN} more fields (see the JSON report)")
    lines.append("")
    return lines


def html_section(
    block: dict[str, Any] | None, _e: Callable[..., str], _num_cell: Callable[..., str], _table: Callable[..., str]
) -> str:
    """The section in HTML: a sortable table of every field with FDs classified, then each field's examples
    (escaped and laid out by html.py's ``_e``, ``_num_cell`` and ``_table``)."""
    fields = [(p, e) for p, e in (block or {}).get("fields", {}).items()]
    if not iter_fields(block):
        return ""
    headers = [
        ("field", "text"),
        ("FD", "num"),
        *((STEP_NAMES.get(o, o.replace("_", " ")), "num") for o in OUTCOMES),
        ("suggestion", ""),
    ]
    rows = []
    for path, entry in fields:
        advice = suggestion_text(entry)
        rows.append(
            f"<tr><td>{_e(path, 400)}</td>{_num_cell(entry['fd'])}"
            + "".join(_num_cell(entry[o]) for o in OUTCOMES)
            + f"<td>{_e(advice, 600) if advice else '—'}</td></tr>"
        )
    examples = []
    for path, entry in fields:
        for outcome, kept in entry.get("examples", {}).items():
            for row in kept:
                examples.append(
                    f"<tr><td>{_e(path, 400)}</td><td>{_e(STEP_NAMES.get(outcome, outcome), 40)}</td>"
                    f"<td>{_e(row.get('doc_id'), 200)}</td><td><code>{_e(row.get('gt'), 200)}</code></td>"
                    f"<td><code>{_e(row.get('pred'), 200)}</code></td></tr>"
                )
    detail = ""
    if examples:
        detail = (
            "<details><summary>Examples (the first of each field and step)</summary>"
            + _table(
                [("field", ""), ("first match", ""), ("document", ""), ("truth", ""), ("prediction", "")], examples
            )
            + "</details>"
        )
    return (
        f"<h2>{_e(TITLE)}</h2><p class=meta>Each FD of a leaf field re-scored by its own comparator and threshold "
        "on values normalised step by step (case, whitespace, punctuation, Unicode, number spelling, date "
        "spelling); counted at the first step that matches, <i>real</i> when none does.</p>"
        + _table(headers, rows, sortable=True, cls="cosmetic")
        + detail
    )
