"""Terminal view of ``confidence_metrics``: per-field table, reliability diagram, review budgets."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .fit import Column, ReportTable, fit
from .sanitize import safe

BAR_WIDTH = 30


def _number(value: float | None, digits: int = 3) -> Text:
    return Text("–", style="dim") if value is None else Text(f"{value:.{digits}f}")


def _value(block: dict[str, Any], name: str) -> float | None:
    entry = block.get(name)
    return entry.get("value") if isinstance(entry, dict) else None


def middle_budget(overall: dict[str, Any]) -> float | None:
    """The review budget whose gain is ``error_capture_at_budget``'s value (the middle one), or None."""
    entry = overall.get("error_capture_at_budget")
    budgets = entry.get("budgets") if isinstance(entry, dict) else None
    if not isinstance(budgets, dict) or not budgets:
        return None
    try:
        return float(list(budgets)[len(budgets) // 2])
    except ValueError:
        return None


def metric_labels(overall: dict[str, Any]) -> dict[str, str]:
    """Column names of the confidence metrics, by metric name: the gain names its budget (``Gain@30%``)."""
    headers = {"auroc": "AUROC", "brier_score": "Brier", "ece": "ECE", "error_capture_at_budget": "Gain"}
    budget = middle_budget(overall)
    if budget is not None:
        headers["error_capture_at_budget"] = f"Gain@{budget:.0%}"
    return {name: headers.get(name, name) for name in overall}


def render_calibration(confidence: dict[str, Any] | None, console: Console) -> None:
    """Print the calibration tables; nothing when no prediction carried a confidence."""
    if not confidence:
        return
    coverage = confidence["coverage"]
    console.print()
    console.print(
        Text(
            f"Confidence: {coverage['fields_with_confidence']} of {coverage['fields_total']} predicted values "
            f"carry one ({coverage['ratio']:.0%})",
            style="bold",
        )
    )
    names = [n for n in confidence["overall"]]
    headers = metric_labels(confidence["overall"])
    rows = [[Text("overall", style="bold"), *[_number(_value(confidence["overall"], n)) for n in names]]]
    rows += [
        [safe(path, 400), *[_number(_value(block, n)) for n in names]] for path, block in confidence["fields"].items()
    ]
    for table in fit(
        "Is the confidence trustworthy? (AUROC high, Brier and ECE low)",
        "Field",
        [Column(headers.get(name, name)) for name in names],
        rows,
        console.width,
    ):
        console.print(table)
    ece = confidence["overall"].get("ece")
    if isinstance(ece, dict) and ece.get("bins"):
        console.print(reliability_diagram(ece["bins"]))
    budgets = confidence["overall"].get("error_capture_at_budget")
    if isinstance(budgets, dict) and budgets.get("budgets"):
        console.print(budget_table(budgets["budgets"]))


def reliability_diagram(bins: list[dict[str, Any]]) -> Table:
    """Accuracy per confidence bin as a bar, with the bin's mean confidence as a marker (│)."""
    table = ReportTable(
        title="Reliability: accuracy (bar) vs mean confidence (│) per bin",
        title_justify="left",
        box=None,
        padding=(0, 1),
    )
    table.add_column("confidence", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("accuracy", no_wrap=True)
    table.add_column("", justify="right")
    for b in bins:
        lo, hi = b["range"]
        label = f"{lo:.2f}–{hi:.2f}"
        if not b["count"]:
            table.add_row(Text(label, style="dim"), Text("0", style="dim"), Text(""), Text(""))
            continue
        filled = round(b["accuracy"] * BAR_WIDTH)
        marker = min(BAR_WIDTH - 1, int(b["mean_confidence"] * BAR_WIDTH))
        cells = ["█" if i < filled else " " for i in range(BAR_WIDTH)]
        cells[marker] = "│"
        gap = b["accuracy"] - b["mean_confidence"]
        style = "green" if abs(gap) <= 0.1 else "yellow" if abs(gap) <= 0.25 else "red"
        table.add_row(
            label,
            str(b["count"]),
            Text("".join(cells), style=style),
            Text(f"{b['accuracy']:.2f} vs {b['mean_confidence']:.2f}"),
        )
    return table


def budget_table(budgets: dict[str, dict[str, Any]]) -> Table:
    """'Review 10% -> catch 55% of errors, 5.5x random', one row per budget."""
    table = ReportTable(title="Review the least confident first", title_justify="left", box=None, padding=(0, 1))
    table.add_column("review", justify="right")
    table.add_column("values", justify="right")
    table.add_column("errors caught", justify="right")
    table.add_column("vs random", justify="right")
    for key, b in budgets.items():
        table.add_row(
            f"{float(key):.0%}",
            str(b["fields_reviewed"]),
            f"{b['pct_errors_caught']:.0%} ({b['errors_found']})",
            f"{b['gain']:.1f}×",
        )
    return table
