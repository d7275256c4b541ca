"""The report's "What went wrong in lists" section, in the terminal, Markdown and HTML.

Shown only when some list of objects has something to say; only the labels that occur get a column.
Field paths and document ids come from the schema and the data: each is made inert as its format
requires (``safe`` for the terminal, a code span in Markdown, escaped in HTML).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..analyses.list_errors import HEADERS, SHOWN, describe, has_findings, shown_columns
from .sanitize import NAME_LIMIT

if TYPE_CHECKING:
    from rich.console import Console

Escape = Callable[..., str]  # (value, limit) -> inert text: the Markdown and HTML reporters' own

TITLE = "What went wrong in lists"
LEGEND = (
    "Rows not matched, each labelled once (docs/why-it-fails.md, What went wrong in a list); Reorder: lists whose "
    "matched rows are out of order, τ their mean Kendall tau."
)


def _cell(field: dict[str, Any], key: str) -> str:
    if key == "reordered" and field["reordered"]:
        return f"{field['reordered']} (τ {field['mean_tau']:+.2f})"
    return str(field.get(key, 0))


def _fields(block: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(path, f) for path, f in block["fields"].items() if f.get("lists")]


def render_terminal(report: dict[str, Any], console: "Console") -> None:
    """A table of the labels per list field (fit to the width: no figure cut), then the worst lists in words."""
    block = report.get("list_errors")
    if not has_findings(block):
        return
    from rich.text import Text  # here: the Markdown and HTML reports need no Rich

    from .fit import Column, fit
    from .sanitize import safe

    keys = shown_columns(block)
    rows = [[safe(path, NAME_LIMIT), *(_cell(f, key) for key in keys)] for path, f in _fields(block)]
    console.print()
    for table in fit(TITLE, "List", [Column(HEADERS[key]) for key in keys], rows, console.width):
        console.print(table)
    console.print(Text(LEGEND, style="dim"))
    for path, f in _fields(block):
        for example in f["examples"][:SHOWN]:
            line = Text("  ") + safe(path, NAME_LIMIT) + Text(" · ") + safe(example["doc_id"], NAME_LIMIT)
            console.print(line + Text(": " + describe(example)))


def markdown_lines(report: dict[str, Any], code: Escape) -> list[str]:
    """The section in Markdown; ``code`` makes a name inert (markdown.text: a code span)."""
    block = report.get("list_errors")
    if not has_findings(block):
        return []
    keys = shown_columns(block)
    lines = [
        f"### {TITLE}",
        "",
        LEGEND,
        "",
        "| List | " + " | ".join(HEADERS[k] for k in keys) + " |",
        "|---|" + "---:|" * len(keys),
    ]
    for path, f in _fields(block):
        lines.append(f"| {code(path, NAME_LIMIT)} | " + " | ".join(_cell(f, k) for k in keys) + " |")
    lines.append("")
    for path, f in _fields(block):
        for example in f["examples"][:SHOWN]:
            lines.append(f"- {code(path, NAME_LIMIT)} · {code(example['doc_id'], NAME_LIMIT)}: {describe(example)}")
    return lines + [""]


def html_section(report: dict[str, Any], escape: Escape, table: Callable[..., str]) -> str:
    """The section in HTML; ``escape`` is html._e (forbidden characters replaced, then escaped), ``table`` html._table."""
    block = report.get("list_errors")
    if not isinstance(block, dict) or not has_findings(block):
        return ""
    keys = shown_columns(block)
    rows = [
        f"<tr><td>{escape(path, NAME_LIMIT)}</td>"
        + "".join(f'<td class="n">{escape(_cell(f, k))}</td>' for k in keys)
        + "</tr>"
        for path, f in _fields(block)
    ]
    items = "".join(
        f"<li><code>{escape(path, NAME_LIMIT)}</code> · "
        f"<code>{escape(example['doc_id'], NAME_LIMIT)}</code>: {escape(describe(example))}</li>"
        for path, f in _fields(block)
        for example in f["examples"]
    )
    return (
        f"<h2>{TITLE}</h2><p class=meta>{escape(LEGEND)}</p>"
        + table([("list", ""), *((HEADERS[k], "") for k in keys)], rows)
        + f"<ul>{items}</ul>"
    )
