"""Several acceptable values (the report's ``alternatives`` block, analyses/alternatives.py) in the terminal and
Markdown reports: one line. Nothing at all when no ground-truth value lists ``_alternatives``."""

from __future__ import annotations

from typing import Any, Callable

TITLE = "Acceptable values"


def summary_line(block: dict[str, Any] | None, text: Callable[[str], str] = str) -> str:
    """``"5 ground-truth values in 3 documents list _alternatives; an alternative decided 2 (city 2 of 4, tags
    0 of 1)"``; "" without a block (field paths as ``text`` makes them)."""
    if not block:
        return ""
    fields = ", ".join(
        f"{text(path)} {counts['decided_by_alternative']:,} of {counts['values']:,}"
        for path, counts in block["fields"].items()
    )
    return (
        f"{block['values']:,} ground-truth values in {block['documents']:,} documents list _alternatives; "
        f"an alternative decided {block['decided_by_alternative']:,} ({fields})"
    )


def render_terminal(block: dict[str, Any] | None, console: Any) -> None:
    line = summary_line(block)
    if not line:
        return
    from rich.text import Text

    console.print(Text.assemble((f"{TITLE}: ", "bold"), line))
    console.print()


def markdown_lines(block: dict[str, Any] | None, text: Callable[..., str]) -> list[str]:
    """The line in Markdown (field paths as ``text``, markdown.text, makes them)."""
    line = summary_line(block, text)
    return [f"**{TITLE}**: {line}", ""] if line else []
