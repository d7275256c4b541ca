"""The ``stickler stability`` report for people: Rich tables on the terminal, or Markdown.

Field paths come from the schema and run file names from the command line: they go through ``safe``
(terminal) and ``markdown_cell`` (Markdown). Tables are laid out by ``fit``: piped at 80 columns, names wrap
and no figure is cut.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from ..report.gates import failed
from .fit import Column, fit
from .gate_markdown import failed_gates_markdown
from .gate_table import render_gates
from .agreement import problem_lines
from .sanitize import NAME_LIMIT, figure, markdown_cell, safe

MESSAGE_LIMIT = 1_400  # a record problem's line: its place (a name's length) and its message (reporters/terminal)

HEADERS = ("Mean score", "pass^k", "pass@k", "Flip rate", "Flaky")


def _row(block: dict[str, Any], flaky: bool) -> list[str]:
    return [
        figure(block["mean_score"]),
        figure(block["pass_k"]),
        figure(block["pass_at_k"]),
        figure(block["flip_rate"]),
        "flaky" if flaky else "",
    ]


def _runs(report: dict[str, Any]) -> list[list[str]]:
    """Run, its file, its overall mean score, its missing documents and its predictions with no ground truth."""
    return [
        [str(k + 1), path, figure(mean), str(missing), str(unpaired)]
        for k, (path, mean, missing, unpaired) in enumerate(
            zip(
                report["inputs"]["runs"],
                report["total"]["mean_score_per_run"],
                report["missing_per_run"],
                report["unpaired_per_run"],
            )
        )
    ]


def _summary(report: dict[str, Any]) -> str:
    total = report["total"]
    return (
        f"{report['document_count']} document(s), {report['runs']} runs: "
        f"{total['right_in_every_run']} right in every run, {total['right_in_some_run']} in at least one, "
        f"{total['flipped']} flipped. A field is right with no FD, FA or FN; a missing document is right in no "
        f"field. Flaky: a flip rate above {report['flaky_above']:g}."
    )


def render_terminal(report: dict[str, Any], console: Console) -> None:
    width = console.width
    rows = [[Text("(total)", style="bold"), *_row(report["total"], False)]]
    flaky = set(report["flaky_fields"])
    rows += [[safe(p, NAME_LIMIT), *_row(b, p in flaky)] for p, b in report["fields"].items()]
    columns = [Column(h) for h in HEADERS[:-1]] + [Column(HEADERS[-1], justify="left")]
    for table in fit("Run-to-run stability", "Field", columns, rows, width):
        console.print(table)
    run_rows = [[r[0], safe(r[1], NAME_LIMIT), *r[2:]] for r in _runs(report)]
    run_columns = [Column("File", justify="left"), Column("Mean score"), Column("Missing"), Column("Unpaired")]
    for table in fit("Runs", "Run", run_columns, run_rows, width):
        console.print(table)
    console.print(Text(_summary(report), style="dim"))
    named = ", ".join(report["flaky_fields"]) or "none"
    console.print(safe(f"Flaky fields: {named}", 4 * NAME_LIMIT))
    for line in problem_lines(report, lambda where, message: f"  {where}: {message}"):
        console.print(safe(line, MESSAGE_LIMIT))
    render_gates(report["gates"], console)


def render_markdown(report: dict[str, Any]) -> str:
    lines = ["## Run-to-run stability", ""]
    bad = failed(report["gates"])
    if report["gates"]:
        lines += [f"**Gates: {len(bad)} of {len(report['gates'])} failed.**" if bad else "**Gates: all passed.**", ""]
    lines += failed_gates_markdown(bad)
    lines += [_summary(report), ""]
    named = ", ".join(markdown_cell(p) for p in report["flaky_fields"]) or "none"
    lines += [f"Flaky fields: {named}", ""]
    lines += ["| Field | " + " | ".join(HEADERS) + " |", "|---|---:|---:|---:|---:|---|"]
    lines.append("| (total) | " + " | ".join(_row(report["total"], False)) + " |")
    flaky = set(report["flaky_fields"])
    for path, block in report["fields"].items():
        lines.append(f"| {markdown_cell(path)} | " + " | ".join(_row(block, path in flaky)) + " |")
    lines += ["", "| Run | File | Mean score | Missing | Unpaired |", "|---:|---|---:|---:|---:|"]
    lines += [f"| {r[0]} | {markdown_cell(r[1])} | {r[2]} | {r[3]} | {r[4]} |" for r in _runs(report)]
    lines += problem_lines(report, lambda where, message: f"- {markdown_cell(where, None)}: {markdown_cell(message)}")
    return "\n".join(lines) + "\n"
