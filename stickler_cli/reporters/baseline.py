"""The baseline section (``eval --baseline``, report/baseline.py) for the terminal, Markdown, HTML and JUnit.

A notice that the baseline was written by another stickler or with another schema comes first, before the
report: a change in the evaluator is not a change in the model. The section itself comes after the slices:
one line of verdict, the documents on one side only, and a row per field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .sanitize import NAME_LIMIT, figure

if TYPE_CHECKING:  # rich (and the XML module) are imported when drawn: Markdown and JSON need neither
    import xml.etree.ElementTree as ET

    from rich.console import Console

LISTED = 5  # documents on one side only named per side (the JSON report lists them all)
HEADERS = ("Field", "Docs", "Worse", "Better", "Was", "Now", "q", "Verdict")


def _block(report: dict[str, Any]) -> dict[str, Any] | None:
    block = report.get("baseline")
    return block if isinstance(block, dict) else None


def _q(value: Any) -> str:
    return "–" if value is None else f"{value:.2g}"


def _least(f: dict[str, Any]) -> float | None:
    found = [q for q in (f["mcnemar_q"], f["score_q"]) if q is not None]
    return min(found) if found else None


def cells(f: dict[str, Any]) -> list[str]:
    """A field's row: documents compared, documents made worse and better (correct to incorrect, and back), the
    mean scores in the baseline and now, the smaller q of its two tests, and the verdict."""
    return [
        str(f["documents"]),
        str(f["worse"]),
        str(f["better"]),
        figure(f["baseline_mean_score"]),
        figure(f["run_mean_score"]),
        _q(_least(f)),
        f["verdict"],
    ]


KEY = (
    "Worse, Better: documents whose outcome went from correct (no FD, FA or FN) to incorrect, and back; Was, Now: "
    "mean scores; q: the smaller Benjamini-Hochberg adjusted p-value of the field's two tests (McNemar, mean score)."
)


def documents_line(block: dict[str, Any]) -> str:
    """The documents on one side only, in a line (empty when there are none)."""
    d = block["documents"]
    parts = []
    for side, name in (("baseline_only", "in the baseline only"), ("run_only", "in this run only")):
        if d[side]:
            listed = d[f"{side}_listed"]
            more = f" and {d[side] - LISTED} more" if d[side] > LISTED else ""
            parts.append(f"{d[side]} document(s) {name}: {', '.join(listed[:LISTED])}{more}")
    return "; ".join(parts)


def summary(block: dict[str, Any], name: Any = str) -> str:
    """What was compared, in a line (``name`` quotes the file for its format)."""
    d = block["documents"]
    return (
        f"Compared with the baseline {name(block['file'])} (written by stickler {block['written_by']['stickler']}): {d['common']} document(s) in "
        f"common, {d['baseline_only']} in the baseline only, {d['run_only']} in this run only; "
        f"Benjamini-Hochberg FDR {block['fdr']:g}"
    )


def not_compared(block: dict[str, Any], name: Any = str) -> str:
    """The fields found on one side only (``--baseline-any-schema``), in a line."""
    listed = (name(f"{f['path']} ({f['comparator']}, {f['side']} only)") for f in block["not_compared"])
    return f"Not compared: {', '.join(listed)}"


def notice_terminal(report: dict[str, Any], console: Console) -> None:
    """The notice that comes before everything else, when there is one."""
    block = _block(report)
    if block and block["notices"]:
        from .sanitize import safe

        for notice in block["notices"]:
            console.print(safe(f"Note: {notice}", 4 * NAME_LIMIT), style="bold yellow")
        console.print()


def render_terminal(report: dict[str, Any], console: Console) -> None:
    block = _block(report)
    if not block:
        return
    from rich.text import Text

    from .fit import Column, fit
    from .sanitize import safe

    console.print()
    console.print(safe(block["verdict"], 4 * NAME_LIMIT), style="bold red" if block["worse"] else "bold")
    console.print(safe(summary(block), 4 * NAME_LIMIT), style="dim")
    if documents_line(block):
        console.print(safe(documents_line(block), 8 * NAME_LIMIT))
    if block["fields"]:
        columns = [Column(header) for header in HEADERS[1:]]
        rows = [[safe(f["path"], NAME_LIMIT), *cells(f)] for f in block["fields"]]
        for table in fit(Text("Against the baseline", style="bold"), HEADERS[0], columns, rows, console.width):
            console.print(table)
        console.print(Text(KEY, style="dim"))
    if block["not_compared"]:
        console.print(safe(not_compared(block), 8 * NAME_LIMIT), style="dim")


def markdown_lines(report: dict[str, Any], text: Any) -> list[str]:
    """The section's Markdown lines (``text`` makes data inert: markdown.text)."""
    block = _block(report)
    if not block:
        return []
    lines = ["### Against the baseline", "", f"**{text(block['verdict'])}**", "", summary(block, text) + ".", ""]
    if documents_line(block):
        lines += [text(documents_line(block)), ""]
    if block["fields"]:
        lines += ["| " + " | ".join(HEADERS) + " |", "|---|" + "---:|" * (len(HEADERS) - 2) + "---|"]
        lines += [f"| {text(f['path'])} | " + " | ".join(cells(f)) + " |" for f in block["fields"]]
        lines += ["", KEY, ""]
    if block["not_compared"]:
        lines += [not_compared(block, text), ""]
    return lines


def notice_markdown(report: dict[str, Any], text: Any) -> list[str]:
    """What a PR comment says first: another version or schema wrote the baseline, then the comparison's verdict
    (❌ when a field is worse or nothing was compared, which --fail-on-regression exits 1 on), so that a regression
    is read at the top even when no gate failed."""
    block = _block(report)
    if not block:
        return []
    notes = [f"> **Note:** {text(n)}" for n in block["notices"]] + [""] if block["notices"] else []
    return [*notes, f"**{'❌' if block['regressed'] else '✅'} {text(block['verdict'])}**", ""]


def html_section(report: dict[str, Any], escaped: Any, table: Any) -> str:
    """The section as HTML: ``escaped`` (html._e), ``table`` (html._table)."""
    block = _block(report)
    if not block:
        return ""
    out = f"<h2>Against the baseline</h2><p><b>{escaped(block['verdict'])}</b></p>"
    out += f"<p class=meta>{escaped(summary(block), 4 * NAME_LIMIT)}</p>"
    if documents_line(block):
        out += f"<p>{escaped(documents_line(block), 8 * NAME_LIMIT)}</p>"
    if block["fields"]:
        headers = [(h, "" if k == 0 or k == len(HEADERS) - 1 else "num") for k, h in enumerate(HEADERS)]
        rows = [
            "<tr>" + "".join(f"<td>{escaped(c)}</td>" for c in [f["path"], *cells(f)]) + "</tr>"
            for f in block["fields"]
        ]
        out += table(headers, rows) + f"<p class=meta>{escaped(KEY, 1000)}</p>"
    if block["not_compared"]:
        out += f"<p class=meta>{escaped(not_compared(block), 8 * NAME_LIMIT)}</p>"
    return out


def notice_html(report: dict[str, Any], escaped: Any) -> str:
    block = _block(report)
    if not block or not block["notices"]:
        return ""
    return "".join(
        f"<p class=warning role=alert><b>Note:</b> {escaped(n, 4 * NAME_LIMIT)}</p>" for n in block["notices"]
    )


def junit_suite(report: dict[str, Any], suite: ET.Element, text: Any) -> None:
    """``stickler.baseline``: a test case per field compared, failing when it is significantly worse."""
    import xml.etree.ElementTree as ET

    block = _block(report)
    if not block:
        return
    for f in block["fields"]:
        case = ET.SubElement(suite, "testcase", name=text(f["path"], 300), classname="stickler.baseline", time="0")
        if f["verdict"] == "worse":
            ET.SubElement(case, "failure", type="Regression", message="significantly worse than the baseline")
        elif f["verdict"] == "no data":
            ET.SubElement(case, "skipped", message="no document compared this field on both sides")
        ET.SubElement(case, "system-out").text = (
            f"{f['documents']} documents; worse in {f['worse']}, better in {f['better']} (McNemar q "
            f"{_q(f['mcnemar_q'])}); mean score {figure(f['baseline_mean_score'])} -> {figure(f['run_mean_score'])} "
            f"(q {_q(f['score_q'])}): {f['verdict']}"
        )
