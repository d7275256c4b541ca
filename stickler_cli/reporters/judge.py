"""The judges' bill (the report's ``judge`` block, analyses/judge.py) in the terminal, Markdown and HTML
reports: one line per judged field. Nothing at all when the run has no judged field."""

from __future__ import annotations

from typing import Any, Callable

TITLE = "Judge requests"
COLUMNS = ("asked", "cached", "identical", "deduplicated", "failed")


def figures(counts: dict[str, int]) -> str:
    """``"3 asked, 1 cached, 20 identical, 4 deduplicated, 0 failed"``."""
    return ", ".join(f"{counts.get(name, 0):,} {name}" for name in COLUMNS)


def summary_lines(block: dict[str, dict[str, int]] | None) -> list[str]:
    """One line per judged field, ``path: figures``."""
    return [f"{path}: {figures(counts)}" for path, counts in (block or {}).items()]


def render_terminal(block: dict[str, dict[str, int]] | None, console: Any) -> None:
    lines = summary_lines(block)
    if not lines:
        return
    from rich.text import Text

    console.print(Text(TITLE, style="bold"))
    for line in lines:
        console.print(Text(f"  {line}"))
    console.print()


def markdown_lines(block: dict[str, dict[str, int]] | None, text: Callable[..., str]) -> list[str]:
    """The section in Markdown (field paths as ``text``, markdown.text, makes them)."""
    if not block:
        return []
    lines = [f"### {TITLE}", ""]
    lines += [f"- {text(path)}: {figures(counts)}" for path, counts in block.items()]
    lines.append("")
    return lines


def html_section(
    block: dict[str, dict[str, int]] | None,
    _e: Callable[..., str],
    _num_cell: Callable[..., str],
    _table: Callable[..., str],
) -> str:
    """The section in HTML: a table of the judged fields and their counts."""
    if not block:
        return ""
    headers = [("field", "text"), *((name, "num") for name in COLUMNS)]
    rows = [
        f"<tr><td>{_e(path, 400)}</td>" + "".join(_num_cell(counts.get(name, 0)) for name in COLUMNS) + "</tr>"
        for path, counts in block.items()
    ]
    return f"<h2>{_e(TITLE)}</h2>" + _table(headers, rows)
