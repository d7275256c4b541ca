"""The slices section (``--slice-by``, slice_stats.py) for the terminal, Markdown and HTML.

The terminal shows a table only when some slice is significantly worse than the rest (one dim line
otherwise: the user asked for slices, and learns there is nothing to say); Markdown and HTML show the
findings and each path's slices. Slice values come from the data: shown through the same sanitising
as any value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .sanitize import NAME_LIMIT

if TYPE_CHECKING:  # rich is imported when the terminal section is drawn: Markdown and JSON outputs need none of it
    from rich.console import Console

SHOWN = 20  # findings listed on the terminal and in Markdown (all of them in the JSON and HTML reports)

COLUMNS = (("Docs", 0), ("Share", 1), ("Rest", 1), ("Diff", 2), ("Interval", 2), ("q", 3))  # (header, group)


def _interval(finding: dict[str, Any]) -> str:
    low, high = finding["low"], finding["high"]
    return "–" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"


def _q(value: float) -> str:
    return f"{value:.2g}"


def summary(section: dict[str, Any]) -> str:
    """One sentence: what was sliced, how many tests, at what rate."""
    paths = ", ".join(section["paths"])
    found = len(section["significant"])
    what = (
        f"{found} (slice, field) pair(s) significantly worse than the rest"
        if found
        else "no field significantly worse in any slice"
    )
    return f"Sliced by {paths}: {what} ({section['tests']} tests, Benjamini-Hochberg FDR {section['fdr']:g})"


def render_terminal(report: dict[str, Any], console: Console) -> None:
    section = report.get("slices")
    if not section:
        return
    from rich.text import Text

    from .fit import Column, fit
    from .sanitize import safe

    columns = [Column(header, group=group) for header, group in COLUMNS]
    findings = section["significant"]
    console.print()
    if not findings:
        console.print(safe(summary(section), 4 * NAME_LIMIT), style="dim")
        return
    shown = findings[:SHOWN]
    for path in dict.fromkeys(f["path"] for f in shown):  # a table per slicing path, the worst path first
        rows = [
            [
                safe(f"{f['value']} · {f['field']}", NAME_LIMIT),
                str(f["documents"]),
                f"{f['tp_share']:.3f}",
                f"{f['rest_tp_share']:.3f}",
                f"{f['difference']:+.3f}",
                _interval(f),
                _q(f["q_value"]),
            ]
            for f in shown
            if f["path"] == path
        ]
        title = Text.assemble(
            Text("Weak slices of ", style="bold"),
            safe(path, NAME_LIMIT),
            Text(f" (FDR {section['fdr']:g}, {section['level'] * 100:g}% intervals)", style="bold"),
        )
        for table in fit(title, "Value · field", columns, rows, console.width):
            console.print(table)
    more = len(findings) - SHOWN
    note = f"… and {more} more (see the JSON report). " if more > 0 else ""
    console.print(
        Text(
            note + "Share: TP / (TP + FA + FD + FN) in the slice, Rest: in every other document; "
            "q: the Benjamini-Hochberg adjusted p-value.",
            style="dim",
        )
    )


def render_markdown(report: dict[str, Any], text: Any) -> list[str]:
    """The section's Markdown lines (``text`` makes data inert: markdown.text)."""
    section = report.get("slices")
    if not section:
        return []
    lines = ["### Slices", "", summary_markdown(section, text), ""]
    findings = section["significant"]
    if findings:
        lines += [
            f"| Slice | Field | Documents | TP share | Rest | Difference | {section['level'] * 100:g}% interval | q |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
        for f in findings[:SHOWN]:
            lines.append(
                f"| {text(f['path'] + '=' + f['value'])} | {text(f['field'])} | {f['documents']} "
                f"| {f['tp_share']:.3f} | {f['rest_tp_share']:.3f} | {f['difference']:+.3f} | {_interval(f)} "
                f"| {_q(f['q_value'])} |"
            )
        if len(findings) > SHOWN:
            lines.append(f"\n… and {len(findings) - SHOWN} more (see the JSON report)")
        lines.append("")
    return lines


def summary_markdown(section: dict[str, Any], text: Any) -> str:
    found = len(section["significant"])
    paths = ", ".join(text(p) for p in section["paths"])
    what = (
        f"**{found}** (slice, field) pair(s) significantly worse than the rest"
        if found
        else "no field significantly worse in any slice"
    )
    return (
        f"Sliced by {paths}: {what} ({section['tests']} tests, Benjamini-Hochberg FDR {section['fdr']:g}; "
        "TP share = TP / (TP + FA + FD + FN))."
    )


def render_html(report: dict[str, Any], escaped: Any, table: Any, number: Any) -> str:
    """The section as HTML: ``escaped`` (html._e), ``table`` (html._table), ``number`` (html._num_cell)."""
    section = report.get("slices")
    if not isinstance(section, dict):
        return ""
    findings = [f for f in section.get("significant") or [] if isinstance(f, dict)]
    out = (
        f"<h2>Slices</h2><p class=meta>{escaped(summary(section), 4 * NAME_LIMIT)}. TP share = TP / (TP + FA + "
        "FD + FN), a field's decided comparisons that matched; q: the Benjamini-Hochberg adjusted p-value of "
        "Fisher's exact test (one-sided), on counts divided by the field's design effect.</p>"
    )
    if findings:
        headers = [
            ("slice", "text"),
            ("field", "text"),
            ("documents", "num"),
            ("TP share", "num"),
            ("rest", "num"),
            ("difference", "num"),
            ("interval", ""),
            ("q", "num"),
            ("F1", "num"),
            ("rest F1", "num"),
        ]
        rows = [
            f"<tr><td>{escaped(f.get('path', '') + '=' + str(f.get('value', '')), NAME_LIMIT)}</td>"
            f"<td>{escaped(f.get('field', ''), NAME_LIMIT)}</td>{number(f.get('documents'))}{number(f.get('tp_share'))}"
            f"{number(f.get('rest_tp_share'))}{number(f.get('difference'))}<td>{escaped(_interval(f), 60)}</td>"
            f"{number(f.get('q_value'), 3)}{number(f.get('cm_f1'))}{number(f.get('rest_cm_f1'))}</tr>"
            for f in findings
        ]
        out += table(headers, rows, sortable=True, cls="fields")
    for path, block in (section.get("paths") or {}).items():
        values = block.get("values") or {}
        headers = [
            ("value", "text"),
            ("documents", "num"),
            ("weighted score", "num"),
            ("F1", "num"),
            ("weak fields", "num"),
        ]
        rows = []
        for value, v in values.items():
            weak = sum(1 for f in (v.get("field_metrics") or {}).values() if (f.get("test") or {}).get("significant"))
            rows.append(
                f"<tr><td>{escaped(value, NAME_LIMIT)}</td>{number(v.get('documents'))}"
                f"{number(v.get('weighted_overall_score'))}{number((v.get('metrics') or {}).get('cm_f1'))}"
                f"{number(weak)}</tr>"
            )
        pooled = " (values beyond the cap pooled into (other))" if block.get("pooled") else ""
        out += (
            f"<details><summary>Slices of {escaped(path, NAME_LIMIT)}: {len(values)} value(s){pooled}</summary>"
            + table(headers, rows, sortable=True)
            + "</details>"
        )
    return out
