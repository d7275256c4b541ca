"""Rich tables for people: the overall figures, then one row per field path.

Every string that comes from the data or the schema (values, field names, the
model name, error messages) is passed through ``safe``, so that neither can
inject terminal control sequences, Rich markup, line breaks or bidirectional
overrides that would make the terminal show something other than what was read.
"""

from __future__ import annotations

from typing import Any

import orjson
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..analyses.failures import MISSES, PARTIAL_ONLY, imperfect, listed_value, misses_not_shown, more_line, where
from ..extras import install_hint
from ..run.reader import error_location
from ..engine.result import HUNGARIAN, UNMATCHED, TraceRow
from . import threshold_table
from .calibration import render_calibration
from . import list_section
from .cosmetic import render_cosmetic
from .alternatives import render_terminal as render_alternatives
from .judge import render_terminal as render_judge
from .fit import Column, ReportTable, compact, fit, wrap_name
from .sanitize import NAME_LIMIT, VALUE_LISTED, figure_cell, folding, safe
from . import baseline as baseline_section
from .slices import render_terminal as render_slices

_LABEL_STYLES = {"TP": "green", "TN": "green", "FD": "red", "FA": "red", "FN": "red"}


# The field table's figures; a table too wide for the console is dealt into two along these groups.
FIELD_COLUMNS = (
    Column("W", group=0),
    Column("Score", group=0),
    *(Column(name, group=1) for name in ("TP", "FA", "FD", "FN", "TN")),
    *(Column(name, group=2) for name in ("Prec", "Rec", "F1")),
    Column("Viol", group=3),
)


def _rate(value: float | None) -> Text:
    if value is None:
        return Text("–", style="dim")
    style = "red" if value < 0.5 else "yellow" if value < 0.8 else "green"
    return Text(f"{value:.3f}", style=style)


def render_report(report: dict[str, Any], console: Console) -> None:
    baseline_section.notice_terminal(report, console)  # before the figures: a change in the evaluator, if any
    m = report["metrics"]
    title = (
        Text("stickler · ") + safe(report["schema"]["model_name"]) + Text(f" · {report['document_count']} documents")
    )
    summary = ReportTable(title=title, title_justify="left", show_header=False, box=None, padding=(0, 2))
    summary.add_column(style="bold")
    summary.add_column()
    summary.add_row(
        "Weighted score", _rate(m["weighted_overall_score"]) + _interval(m.get("weighted_overall_score_ci"))
    )
    for label, key in (
        ("Precision", "cm_precision"),
        ("Recall", "cm_recall"),
        ("Recall with FD", "recall_with_fd"),
        ("F1", "cm_f1"),
    ):
        summary.add_row(label, _rate(m[key]) + _interval(m.get(f"{key}_ci")))
    summary.add_row("Accuracy", _rate(m["cm_accuracy"]))
    summary.add_row(
        "Counts",
        Text(f"TP {m['tp']}  FA {m['fa']}  FD {m['fd']}  FN {m['fn']}  TN {m['tn']}"),
    )
    records = report["inputs"].get("records", {})
    if records:  # two rows: on one, an 80-column log split "0" from its "unpaired"
        summary.add_row(
            "Records", Text(f"{records.get('gt_lines', 0)} ground truth, {records.get('pred_lines', 0)} predictions")
        )
        summary.add_row(
            "",
            Text(
                f"{records.get('invalid_predictions', 0)} invalid, "
                f"{records.get('missing_predictions', 0)} missing, "
                f"{records.get('unpaired_predictions', 0)} unpaired"
            ),
        )
    conformance = report.get("schema_conformance")
    if conformance:
        # Shares of the predictions due (a missing prediction is not a valid one), and of the documents.
        due = conformance.get("predictions_due", conformance["predictions_read"])
        if due:
            summary.add_row("Valid JSON", _share(conformance["valid_json"], due))
            summary.add_row("Schema-valid", _share(conformance["schema_valid"], due))
        if conformance.get("ground_truth_documents"):
            summary.add_row("Coverage", _share(conformance["paired"], conformance["ground_truth_documents"]))
    console.print(summary)
    console.print()
    for table in field_tables(report["field_metrics"], console.width):
        console.print(table)
    if report.get("ceiling"):  # issue 42, item 4: the noise ceiling, beside the field table
        from .ceiling import render_terminal as render_ceiling

        render_ceiling(report, console)
    for table in aggregate_tables(report, console.width):
        console.print(table)
    threshold_table.render(report, console)
    render_slices(report, console)
    baseline_section.render_terminal(report, console)
    list_section.render_terminal(report, console)
    render_cosmetic(report.get("cosmetic_errors"), console)
    render_judge(report.get("judge"), console)
    render_alternatives(report.get("alternatives"), console)
    if report.get("policy"):  # issue 41, policy
        from .policy import render_terminal as render_policy

        render_policy(report, console)
    _render_other_violations(report.get("schema_violations") or {}, report["field_metrics"], console)
    render_calibration(report.get("confidence_metrics"), console)
    if report.get("localisation"):
        from .localisation import render_localisation

        render_localisation(report["localisation"], console)
    render_record_problems(report["errors"], console)


def render_record_problems(errors: list[dict[str, Any]], console: Console) -> None:
    """The first record problems (eval's, and each side's of a diff), where each is and what."""
    if errors:
        console.print()
        console.print(Text(f"{len(errors)} record problem(s):", style="bold yellow"))
        for error in errors[:10]:
            console.print(
                Text("  ") + safe(error_location(error), 400) + Text(": ") + safe(error["message"], MESSAGE_LIMIT)
            )
        if len(errors) > 10:
            console.print(Text(f"  … and {len(errors) - 10} more (see the JSON report)", style="dim"))


def _interval(ci: dict[str, float] | None) -> Text:
    """`` [low, high]`` after a figure that has a bootstrap interval."""
    return Text(f" [{ci['low']:.3f}, {ci['high']:.3f}]", style="dim") if ci else Text("")


def _share(part: int, whole: int) -> Text:
    rate = part / whole
    return _rate(rate) + Text(f"  ({part} of {whole})", style="dim")


def _render_other_violations(violations: dict[str, dict[str, int]], fields: dict[str, Any], console: Console) -> None:
    """Violations at paths the field table has no row for (the document, extra properties)."""
    others = [(path, counts) for path, counts in violations.items() if path not in fields]
    if not others:
        return
    console.print(Text("Schema violations outside the field table:", style="bold"))
    for path, counts in others[:10]:
        detail = ", ".join(f"{keyword} ×{n}" for keyword, n in counts.items())
        console.print(Text("  ") + safe(path, 60) + Text(f": {detail}"))
    if len(others) > 10:
        console.print(Text(f"  … and {len(others) - 10} more paths (see the JSON report)", style="dim"))


def field_tables(fields: dict[str, dict[str, Any]], width: int) -> list[Table]:
    """One row per field path; two tables (the counts, then the rates) when one would not fit ``width``."""
    worst = _worst(fields)
    rows = []
    for path, f in fields.items():
        depth = path.count(".")
        label = Text("  " * depth) + safe(path.rsplit(".", 1)[-1], NAME_LIMIT)
        label.stylize("bold red" if path in worst else "")
        rows.append(
            [
                label,
                f"{f['weight']:g}",
                _rate(f.get("mean_score")),
                str(f["tp"]),
                str(f["fa"]),
                str(f["fd"]),
                str(f["fn"]),
                str(f["tn"]),
                _rate(f["cm_precision"] if f["tp"] + f["fp"] else None),
                _rate(f["cm_recall"] if f["tp"] + f["fn"] else None),
                _rate(f["cm_f1"] if f["tp"] + f["fp"] + f["fn"] else None) + _interval(f.get("cm_f1_ci")),
                _violations(f.get("schema_violations", 0)),
            ]
        )
    return fit("Fields (worst F1 in bold red)", "Field", FIELD_COLUMNS, rows, width)


AGGREGATE_COLUMNS = (
    *(Column(name, group=1) for name in ("TP", "FA", "FD", "FN", "TN")),
    *(Column(name, group=2) for name in ("Prec", "Rec", "F1")),
)
AGGREGATE_TITLE = "Leaves beneath each node (stickler-eval's aggregate)"
DOCUMENT_ROW = "(document)"


def aggregate_rows(report: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    """(name, depth, roll-up block) of the document and of each object and list of objects, in the field
    table's order; none when no field has fields beneath it (the roll-up would repeat the counts)."""
    nodes = [
        (p.rsplit(".", 1)[-1], p.count(".") + 1, f["aggregate"])
        for p, f in report["field_metrics"].items()
        if "aggregate" in f
    ]
    if not nodes:
        return []
    return [(DOCUMENT_ROW, 0, report["metrics"]["aggregate"]), *nodes]


def aggregate_tables(report: dict[str, Any], width: int) -> list[Table]:
    """The leaf roll-up of each node: its leaves' counts summed, and the figures from them."""
    rows = []
    for name, depth, a in aggregate_rows(report):
        label = Text("  " * depth) + (Text(name, style="bold") if not depth else safe(name, NAME_LIMIT))
        rows.append(
            [
                label,
                *(str(a[k]) for k in ("tp", "fa", "fd", "fn", "tn")),
                _rate(a["cm_precision"] if a["tp"] + a["fp"] else None),
                _rate(a["cm_recall"] if a["tp"] + a["fn"] else None),
                _rate(a["cm_f1"] if a["tp"] + a["fp"] + a["fn"] else None),
            ]
        )
    return fit(AGGREGATE_TITLE, "Node", AGGREGATE_COLUMNS, rows, width) if rows else []


def _violations(n: int) -> Text:
    return Text(str(n), style="yellow") if n else Text("0", style="dim")


def _worst(fields: dict[str, dict[str, Any]], n: int = 3) -> set[str]:
    """The n field paths with the lowest F1 below 0.8, among those with any positives."""
    scored = [(f["cm_f1"], p) for p, f in fields.items() if f["tp"] + f["fp"] + f["fn"] and f["cm_f1"] < 0.8]
    return {p for _, p in sorted(scored)[:n]}


# Characters of a value shown, folded onto lines (never cut at the column): `stickler compare` explains one
# pair, so it shows nearly anything whole; the failure lists show enough to triage (sanitize.VALUE_LISTED). Past
# these, the text says how many characters were left out; a number is never cut (sanitize.safe).
# A record problem's message: stickler's words (up to about 300 characters) around data already cut to a name's
# length; the bound only stops a message from filling the screen.
MESSAGE_LIMIT = 1_000
VALUE_SHOWN = 10_000
DEFAULT_MARK = " (default)"  # after a value the schema's default stood in for (the record had none)
CONFIDENCE_HEADER = "Conf"  # the prediction's _confidence at a leaf, a column of its own


def value_cell(value: Any, filled: bool | None, limit: int) -> Text:
    """A compared value as shown in a failure list, marked when the schema's default stood in for it."""
    cell = folding(value, limit)
    if filled:
        cell.append(DEFAULT_MARK, style="dim")
    return cell


def gt_cell(value: Any, filled: bool | None, limit: int, alternative: int | None) -> Text:
    """A ground-truth value as ``value_cell`` shows it, and which of its ``_alternatives`` decided, if one did
    (its index: docs/ground-truth.md)."""
    cell = value_cell(value, filled, limit)
    if alternative is not None:
        cell.append(f" (_alternatives[{alternative}])", style="dim")
    return cell


def _comparison_table(
    title: str | Text, paths: list[str], widest_path: int, confident: bool, figures: tuple[str, ...]
) -> tuple[Table, int]:
    """The table of comparisons (``compare``, the worst documents) and its path column's width: paths and
    values fold onto more lines rather than being cut (a value may be an amount), the header never folds,
    the confidence column only when some row has one, the figures whole."""
    table = compact(title, expand=True)
    path_width = max(len("Field"), min(max(map(len, paths), default=5), widest_path))
    table.add_column("Field", overflow="fold", width=path_width)
    table.add_column("", no_wrap=True, width=2)
    table.add_column("Ground truth", overflow="fold", ratio=1)
    table.add_column("Prediction", overflow="fold", ratio=1)
    for name in ((CONFIDENCE_HEADER,) if confident else ()) + figures:
        table.add_column(name, justify="right", no_wrap=True, min_width=5)
    return table, path_width


def render_trace(
    score: float, field_scores: dict[str, float], rows: list[TraceRow], console: Console, not_shown: int = 0
) -> None:
    """``stickler compare``: every comparison made for one pair (threshold and comparator only
    on terminals of 100 columns or more, so that the values keep room on narrow ones; the
    prediction's confidence when it gave any), then how many were made past --limit explain-items."""
    wide = console.width >= 100
    confident = any(r.confidence is not None for r in rows)
    figures = ("Sim", "Score", "Thr") if wide else ("Sim", "Score")  # never cut: a threshold may be 0.8333
    table, field_width = _comparison_table(
        f"Document score {score:.3f}", [r.path for r in rows], 24 if wide else 18, confident, figures
    )
    if wide:
        table.add_column("Comparator", overflow="fold")  # a plugin's name too, whole
    for row in rows:
        cells = [
            wrap_name(safe(row.path, 400), field_width),
            Text(row.label, style=_LABEL_STYLES[row.label]),
            gt_cell(row.gt, row.gt_default, VALUE_SHOWN, row.alternative),
            value_cell(row.pred, row.pred_default, VALUE_SHOWN),
        ]
        if confident:
            cells.append(figure_cell(row.confidence))
        cells += [f"{row.similarity:.3f}", f"{row.score:.3f}"]
        if wide:
            cells += [f"{row.threshold:g}", row.comparator.removesuffix("Comparator")]
        table.add_row(*cells)
    console.print(table)
    if not_shown:
        console.print(Text(more_line(not_shown, "comparisons"), style="dim"))


def render_pairings(block: dict[str, Any], console: Console) -> None:
    """``stickler compare``: how each list's items were paired (``failures.pairings``' block): one row a pair
    (its rule and similarity) or an unmatched item, then how many were made past --limit explain-items. Only
    when a list's rule paired some items (key, position, or identical items of a long list): the comparison rows
    above already show every pair the similarity made (``items[0↔1]``) and every item left (``items[2↔-]``)."""
    lists = block.get("pairings") or {}
    if not any(p["rule"] not in (HUNGARIAN, UNMATCHED) for pairs in lists.values() for p in pairs):
        return
    table = compact("How the list items were paired", expand=False)
    table.add_column("List", overflow="fold", max_width=40)
    for name in ("GT item", "Pred item"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("Rule", no_wrap=True)
    table.add_column("Sim", justify="right", no_wrap=True)
    for path, pairs in lists.items():
        for p in pairs:
            table.add_row(
                safe(path, 400),
                "-" if p["gt_index"] is None else str(p["gt_index"]),
                "-" if p["pred_index"] is None else str(p["pred_index"]),
                p["rule"],
                "-" if p["similarity"] is None else f"{p['similarity']:.3f}",
            )
    console.print(table)
    hidden = (block.get("pairings_not_shown") or {}).get("count")
    if hidden:
        console.print(Text(more_line(hidden, "pairings"), style="dim"))


def render_comparators(catalogue: list[dict[str, Any]], console: Console) -> None:
    """One block per comparator: name and aliases, what it does, then its options."""
    for n, entry in enumerate(catalogue):
        if n:
            console.print()
        head = Text(entry["name"], style="bold cyan")
        if entry["aliases"]:
            head.append(f"  also: {', '.join(entry['aliases'])}", style="dim")
        if not entry["builtin"]:
            head.append(f"  plugin from {entry['module']}", style="magenta")
        console.print(head)
        if entry["summary"]:
            console.print(Text("  " + entry["summary"]))
        if entry["whole_value"]:
            console.print(Text("  scores a whole array or object as one value", style="dim"))
        if entry["extra"]:
            state = "installed" if entry["available"] else "not installed"
            console.print(
                Text(
                    f"  needs the extra {entry['extra']!r} ({state}): {install_hint(entry['extra'])}",
                    style="green" if entry["available"] else "yellow",
                )
            )
        if not entry["options"]:
            console.print(Text("  no options", style="dim"))
            continue
        table = ReportTable(box=None, padding=(0, 1), show_header=True, header_style="dim")
        table.add_column("  option", no_wrap=True)
        table.add_column("type", no_wrap=True)
        table.add_column("default", overflow="fold")
        table.add_column("meaning")
        for option in entry["options"]:
            kind = option["type"] + ("|null" if option["nullable"] else "")
            meaning = option["help"] or ""
            if option["choices"]:
                meaning += f" (one of: {', '.join(map(str, option['choices']))})"
            table.add_row(
                Text("  " + option["name"], style="bold"),
                kind,
                Text(orjson.dumps(option["default"], default=repr).decode()),
                Text(meaning),
            )
        console.print(table)


def render_worst(worst: list[dict[str, Any]], console: Console) -> None:
    """``--show-errors N``: the worst documents, each with its failing comparisons."""
    worst = imperfect(worst)
    if not worst:
        return
    console.print()
    console.print(Text(f"The {len(worst)} worst document(s)", style="bold"))
    # The confidence column only when a failing comparison carries one (else the values keep its room).
    confident = any(c.get("confidence") is not None for d in worst for c in d["comparisons"] if c["type"] in MISSES)
    for doc in worst:
        found = where(doc)
        misses = [c for c in doc["comparisons"] if c["type"] in MISSES]
        # The name whole (a FILE:LINE name ends in its line number; an id is what a user searches for).
        title = (
            Text("  ")
            + safe(doc["doc_id"], 400)
            + Text(f" · score {doc['score']:.3f} · ")
            + safe(found, 2 * NAME_LIMIT)
        )
        hidden = misses_not_shown(doc)  # past --limit explain-items
        if not misses:  # a line of its own: in the field column it stood one syllable a line
            console.print(title)
            console.print(Text(f"    {more_line(hidden) if hidden else PARTIAL_ONLY}", style="dim"))
            continue
        table, path_width = _comparison_table(title, [c["path"] for c in misses], 30, confident, ("Score",))
        for c in misses:
            table.add_row(
                wrap_name(safe(c["path"], NAME_LIMIT), path_width),
                Text(c["type"], style=_LABEL_STYLES[c["type"]]),
                gt_cell(listed_value(c, "gt", VALUE_LISTED), c.get("gt_default"), VALUE_LISTED, c.get("alternative")),
                value_cell(listed_value(c, "pred", VALUE_LISTED), c.get("pred_default"), VALUE_LISTED),
                *([figure_cell(c.get("confidence"))] if confident else []),
                f"{c['score']:.3f}",
            )
        console.print(table)
        if hidden:
            console.print(Text(f"    {more_line(hidden)}", style="dim"))


def render_diff(report: dict[str, Any], console: Console) -> None:
    """``stickler diff``: the watched figures and every significant change, then the verdict."""
    from ..report import diff

    level = report["bootstrap"]["level"]
    title = (
        Text("B against A · ")
        + safe(report["schema"]["model_name"])
        + Text(f" · {report['document_count']} documents · {level * 100:g}% intervals")
    )
    columns = [
        Column("A"),
        Column("B"),
        Column("B − A"),
        Column("interval", group=1),
        Column("p", group=1),
        Column("", justify="left", group=2),
    ]
    styles = {"improved": "bold green", "regressed": "bold red", "no significant change": "dim", "no data": "yellow"}
    rows = []
    for r in diff.shown(report):
        ci = r["ci"]
        rows.append(
            [
                safe(diff.key(r), NAME_LIMIT),
                figure_cell(r["a"]),
                figure_cell(r["b"]),
                Text("–") if r["difference"] is None else Text(f"{r['difference']:+.3f}"),
                Text("–") if ci is None else Text(f"[{ci['low']:+.3f}, {ci['high']:+.3f}]"),
                Text("–") if r["p_value"] is None else Text(f"{r['p_value']:.3f}"),
                Text(diff.LABELS[r["verdict"]], style=styles[r["verdict"]]),
            ]
        )
    for table in fit(title, "Figure", columns, rows, console.width):
        console.print(table)
    console.print(Text(diff.rule(level), style="dim"))
    changed = report.get("changed_documents") or []
    if changed:
        console.print()
        console.print(Text("Documents B changed (score A → B):", style="bold"))
        for entry in changed[: diff.FIELDS_SHOWN]:
            # Each name made safe on its own: the line is never cut, so no figure in it is.
            console.print(
                Text("  ")
                + safe(diff.figure_name(entry), NAME_LIMIT)
                + Text(": ")
                + Text(diff.documents_line(entry, lambda name: safe(name, NAME_LIMIT).plain))
            )
        if len(changed) > diff.FIELDS_SHOWN:
            console.print(Text(f"  … and {len(changed) - diff.FIELDS_SHOWN} more figures (see -f json)", style="dim"))
    render_record_problems(report.get("errors") or [], console)
    style = "bold red" if report["regressions"] else "bold green" if report["improvements"] else "bold"
    console.print(safe(diff.verdict(report), 4 * NAME_LIMIT), style=style)
