"""The ``stickler split`` report for people: Rich tables on the terminal, or Markdown.

Class names and packet ids come from the data: they go through ``safe`` (terminal) and ``text``
(Markdown), so they cannot inject control sequences or markup. Tables are laid out by ``fit``:
piped at 80 columns, names wrap and no figure is cut.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from .fit import Column, fit
from .gate_markdown import failed_gates_markdown
from .gate_table import render_gates
from .sanitize import NAME_LIMIT, figure, safe
from .sanitize import markdown_cell as text

MISSING = "(missing)"  # the class of a page one side does not name
CONFUSIONS_SHOWN = 20  # off-diagonal confusion cells listed on the terminal and in Markdown (the JSON has all)
PROBLEMS_SHOWN = 10  # record problems listed on the terminal and in Markdown (the JSON has the first 100)

LABELS = {
    "page_accuracy": "Page accuracy",
    "split_accuracy_without_order": "Split accuracy, any page order",
    "split_accuracy_with_order": "Split accuracy, page order kept",
    "v_measure": "V-measure",
    "rand_index": "Rand index",
    "clustering_score": "Clustering score",
    "ordering_score": "Ordering score (Kendall's tau)",
    "packet_score": "Packet score",
}


def figure_details(report: dict[str, Any]) -> dict[str, str]:
    """The counts behind the pooled figures, and the definition behind the means."""
    c, s = report["counts"], report["settings"]
    details = {
        "v_measure": "mean over packets",
        "rand_index": "mean over packets",
        "clustering_score": f"{s['v_measure_weight']:g}·V + {1 - s['v_measure_weight']:g}·RI, mean",
        "ordering_score": "mean over packets",
        "packet_score": f"{s['alpha']:g}·clustering + {s['beta']:g}·ordering, mean",
    }
    if "pages" in c:
        details["page_accuracy"] = f"{c['correct_pages']:,} of {c['pages']:,} pages"
    if "sections" in c:
        details["split_accuracy_without_order"] = (
            f"{c['sections_split_without_order']:,} of {c['sections']:,} documents"
        )
        details["split_accuracy_with_order"] = f"{c['sections_split_with_order']:,} of {c['sections']:,} documents"
    return details


def _summary_line(report: dict[str, Any]) -> str:
    r = report["records"]
    parts = [f"{report['packet_count']:,} packets scored"]
    for key, words in (
        ("missing_predictions", "without prediction (scored as empty)"),
        ("invalid_predictions", "predictions unreadable"),
        ("unpaired_predictions", "predictions without ground truth (not scored)"),
        ("duplicate_predictions", "duplicate predictions ignored"),
    ):
        if r.get(key):
            parts.append(f"{r[key]:,} {words}")
    if report["settings"]["strict_clustering"]:
        parts.append("strict clustering")
    return "; ".join(parts)


def _class_name(value: Any) -> str:
    return MISSING if value is None else value


def _worst_row(p: dict[str, Any]) -> list[Any]:
    split = "–" if p["sections"] is None else f"{p['split_with_order']}/{p['sections']}"
    return [
        p["pages"],
        figure(p["page_accuracy"]),
        split,
        figure(p["v_measure"]),
        figure(p["rand_index"]),
        figure(p["ordering_score"]),
        figure(p["packet_score"]),
    ]


WORST_COLUMNS = ("Pages", "Acc", "Split", "V", "RI", "Tau", "Score")


def render_terminal(report: dict[str, Any], console: Console, worst_shown: int) -> None:
    """Figures, pages by class, the confusions, the worst packets, problems and gates."""
    width = console.width
    title = Text("stickler split · ") + safe(report["source"], NAME_LIMIT)
    details = figure_details(report)
    rows = [[LABELS[name], figure(value), details.get(name, "")] for name, value in report["metrics"].items()]
    for table in fit(title, "Figure", [Column("Value"), Column("", justify="left")], rows, width):
        console.print(table)
    console.print(Text(_summary_line(report), style="dim"))
    classes = report["classes"]
    if classes:
        console.print()
        rows = [
            [
                safe(c["class"], NAME_LIMIT),
                f"{c['gt_pages']:,}",
                f"{c['pred_pages']:,}",
                f"{c['correct_pages']:,}",
                figure(c["precision"]),
                figure(c["recall"]),
                figure(c["f1"]),
            ]
            for c in classes
        ]
        columns = [
            Column("GT", group=0),
            Column("Pred", group=0),
            Column("Right", group=0),
            Column("Prec", group=1),
            Column("Rec", group=1),
            Column("F1", group=1),
        ]
        for table in fit("Pages by class", "Class", columns, rows, width):
            console.print(table)
    confusions = [c for c in report["confusion"] if c["ground_truth"] != c["predicted"]]
    if confusions:
        console.print()
        rows = [
            [
                safe(_class_name(c["ground_truth"]), NAME_LIMIT)
                + Text(" → ")
                + safe(_class_name(c["predicted"]), NAME_LIMIT),
                f"{c['pages']:,}",
            ]
            for c in confusions[:CONFUSIONS_SHOWN]
        ]
        more = f" (the {CONFUSIONS_SHOWN} largest of {len(confusions)})" if len(confusions) > CONFUSIONS_SHOWN else ""
        for table in fit(f"Pages misclassified{more}", "Ground truth → predicted", [Column("Pages")], rows, width):
            console.print(table)
    worst = report["worst_packets"][:worst_shown]
    if worst:
        console.print()
        rows = [[safe(p["packet_id"], NAME_LIMIT), *map(str, _worst_row(p))] for p in worst]
        columns = [Column(h, group=0 if k < 3 else 1) for k, h in enumerate(WORST_COLUMNS)]
        for table in fit(f"The {len(worst)} worst packet(s)", "Packet", columns, rows, width):
            console.print(table)
        console.print(
            Text(
                "Acc: page accuracy · Split: documents reproduced in order / documents · "
                "Tau: ordering · Score: packet score",
                style="dim",
            )
        )
    _render_problems(report, console)
    render_gates(report.get("gates") or [], console)


def _render_problems(report: dict[str, Any], console: Console) -> None:
    problems = report["problems"]
    if not problems:
        return
    console.print()
    total = report["records"]["problem_count"]
    console.print(Text(f"{total:,} record problem(s)", style="bold yellow"))
    for p in problems[:PROBLEMS_SHOWN]:
        console.print(safe(f"  {_location(p)}: {p['message']}", 2 * NAME_LIMIT), style="yellow")
    if total > PROBLEMS_SHOWN:
        console.print(
            Text(
                f"  … and {total - PROBLEMS_SHOWN:,} more (the JSON report lists the first {len(problems)})",
                style="yellow",
            )
        )


def _location(problem: dict[str, Any]) -> str:
    return f"{problem['source']}:{problem['line']}" if problem["line"] else str(problem["source"])


def render_markdown(report: dict[str, Any], worst_shown: int) -> str:
    """The same report as Markdown, for a pull-request comment or $GITHUB_STEP_SUMMARY."""
    details = figure_details(report)
    lines = [f"## stickler split · {text(report['source'])}", "", _summary_line(report), ""]
    bad = [g for g in report.get("gates") or [] if g["status"] == "failed"]
    lines += failed_gates_markdown(bad)
    lines += ["| Figure | Value | |", "|---|---:|---|"]
    lines += [
        f"| {LABELS[name]} | {figure(value)} | {details.get(name, '')} |" for name, value in report["metrics"].items()
    ]
    lines.append("")
    if report["classes"]:
        lines += [
            "### Pages by class",
            "",
            "| Class | GT pages | Predicted pages | Right | Precision | Recall | F1 |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {text(c['class'])} | {c['gt_pages']} | {c['pred_pages']} | {c['correct_pages']} "
            f"| {figure(c['precision'])} | {figure(c['recall'])} | {figure(c['f1'])} |"
            for c in report["classes"]
        ]
        lines.append("")
    confusions = [c for c in report["confusion"] if c["ground_truth"] != c["predicted"]]
    if confusions:
        lines += ["### Pages misclassified", "", "| Ground truth | Predicted | Pages |", "|---|---|---:|"]
        lines += [
            f"| {text(_class_name(c['ground_truth']))} | {text(_class_name(c['predicted']))} | {c['pages']} |"
            for c in confusions[:CONFUSIONS_SHOWN]
        ]
        lines.append("")
    worst = report["worst_packets"][:worst_shown]
    if worst:
        lines += [
            "### Worst packets",
            "",
            "| Packet | Where | " + " | ".join(WORST_COLUMNS) + " |",
            "|---|---|" + "---:|" * len(WORST_COLUMNS),
        ]
        lines += [
            f"| {text(p['packet_id'])} | {text(p['where'])} | " + " | ".join(map(str, _worst_row(p))) + " |"
            for p in worst
        ]
        lines.append("")
    problems = report["problems"]
    if problems:
        lines += [f"<details><summary>{report['records']['problem_count']} record problem(s)</summary>", ""]
        lines += [f"- {text(_location(p))}: {text(p['message'], 200)}" for p in problems[:PROBLEMS_SHOWN]]
        lines += ["", "</details>", ""]
    return "\n".join(lines) + "\n"
