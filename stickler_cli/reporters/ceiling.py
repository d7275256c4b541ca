"""The noise ceiling (``eval --ceiling``, report/ceiling.py) for the terminal, Markdown and HTML: a table of its own
after the field table, a row per field ``stickler agree`` measures: the model's accuracy, the annotators' agreement,
their kappa (two annotators) or alpha (more), and ``above`` where the model is above the annotators' agreement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..report.agreement import chance_metric
from .sanitize import NAME_LIMIT, figure

if TYPE_CHECKING:  # rich is imported when drawn: Markdown and JSON need it not
    from rich.console import Console

TITLE = "Noise ceiling"
ABOVE = "above"
NO_FIGURE = "–"
KEY = (
    "Model: the field's accuracy, (TP + TN) / comparisons. Agreement: how often two annotators agree, counted by the "
    "same rule (stickler agree). above: the model agrees with the ground truth more often than the annotators agree "
    "with each other: the ground truth may be the limit."
)


def _block(report: dict[str, Any]) -> dict[str, Any] | None:
    block = report.get("ceiling")
    return block if isinstance(block, dict) else None


def headers(block: dict[str, Any]) -> tuple[str, ...]:
    return ("Field", "Model", "Agreement", chance_metric(block), "Ceiling")


def cells(block: dict[str, Any], row: dict[str, Any]) -> list[str]:
    """A field's figures after its path: the model's accuracy, the agreement, kappa or alpha, and ``above``."""
    return [
        figure(row["model_accuracy"]),
        figure(row["agreement"]),
        figure(row[chance_metric(block)]),
        ABOVE if row["above_ceiling"] else "",
    ]


def summary(block: dict[str, Any], name: Callable[[Any], str] = str) -> str:
    """Where the agreement comes from, in a line (``name`` makes the file name inert for its format)."""
    other = "; made with another schema file whose fields match" if not block["same_schema"] else ""
    return (
        f"Agree report {name(block['file'])}: {len(block['annotators'])} annotators, "
        f"{block['documents']:,} documents{other}"
    )


def findings(block: dict[str, Any], name: Callable[[Any], str] = str) -> list[str]:
    """The fields above the ceiling, and the fields the agree report lacks, a line each (named)."""
    above, lacking = block["above_ceiling"], block["not_in_report"]
    out = [
        f"{len(above)} field(s) above the ceiling: the ground truth may be the limit ({', '.join(map(name, above))})"
        if above
        else "No field above the ceiling."
    ]
    if lacking:
        out.append(
            f"{len(lacking)} field(s) not in the agree report, shown as {NO_FIGURE}: {', '.join(map(name, lacking))}"
        )
    return out


def render_terminal(report: dict[str, Any], console: Console) -> None:
    block = _block(report)
    if not block:
        return
    from rich.text import Text

    from .fit import Column, fit
    from .sanitize import safe

    console.print()
    console.print(Text(TITLE, style="bold"))
    console.print(safe(summary(block), 4 * NAME_LIMIT), style="dim")
    if block["fields"]:
        shown = headers(block)
        columns = [Column(h) for h in shown[1:-1]] + [Column(shown[-1], justify="left")]
        rows = [[safe(r["path"], NAME_LIMIT), *cells(block, r)] for r in block["fields"]]
        for table in fit(None, shown[0], columns, rows, console.width):
            console.print(table)
        console.print(Text(KEY, style="dim"))
    for line in findings(block):
        console.print(safe(line, 8 * NAME_LIMIT), style="bold yellow" if block["above_ceiling"] else None)


def markdown_lines(report: dict[str, Any], text: Callable[[Any], str]) -> list[str]:
    """The section's Markdown lines (``text`` makes data inert: markdown.text)."""
    block = _block(report)
    if not block:
        return []
    lines = [f"### {TITLE}", "", summary(block, text) + ".", ""]
    if block["fields"]:
        shown = headers(block)
        lines += ["| " + " | ".join(shown) + " |", "|---|" + "---:|" * (len(shown) - 2) + "---|"]
        lines += [f"| {text(r['path'])} | " + " | ".join(cells(block, r)) + " |" for r in block["fields"]]
        lines += ["", KEY, ""]
    lines += [f"- {line}" for line in findings(block, text)] + [""]
    return lines


def html_section(report: dict[str, Any], escaped: Any, table: Any) -> str:
    """The section as HTML: ``escaped`` (html._e), ``table`` (html._table); a field above the ceiling in a row of
    the warning's colour."""
    block = _block(report)
    if not block:
        return ""
    out = f"<h2>{TITLE}</h2><p class=meta>{escaped(summary(block), 4 * NAME_LIMIT)}</p>"
    if block["fields"]:
        shown = headers(block)
        heads = [(h, "" if k in (0, len(shown) - 1) else "num") for k, h in enumerate(shown)]
        rows = [
            f'<tr class="{"failed" if r["above_ceiling"] else ""}">'
            + "".join(f"<td>{escaped(c, NAME_LIMIT)}</td>" for c in [r["path"], *cells(block, r)])
            + "</tr>"
            for r in block["fields"]
        ]
        out += table(heads, rows) + f"<p class=meta>{escaped(KEY, 1000)}</p>"
    return out + "".join(f"<p>{escaped(line, 8 * NAME_LIMIT)}</p>" for line in findings(block))
