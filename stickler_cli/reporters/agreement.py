"""The ``stickler agree`` report for people: a plain-text table (80 columns unless a path or an interval is long;
no figure or name is cut; a value is cut after VALUE_LISTED characters), or Markdown. Field paths, file names and values are data: they go through ``plain`` (text) and
``markdown_cell`` (Markdown)."""

from __future__ import annotations

from typing import Any

from ..report.agreement import chance_metric
from .sanitize import VALUE_LISTED, data_text, figure, limited, markdown_cell, plain

# The field column: 24 + 1 + comparisons 11 + 2 + agreement and its interval 20 + 1 + kappa and its interval 20 = 79.
NAME_WIDTH = 24


def _interval(entry: dict[str, Any], metric: str) -> str:
    bounds = (entry.get("ci") or {}).get(metric)
    return "" if not bounds else f" [{bounds[0]:.3f}, {bounds[1]:.3f}]"


def _cells(entry: dict[str, Any], chance: str) -> tuple[str, str]:
    """A field's agreement and its kappa or alpha (``chance``), each with its interval when there is one."""
    agreed = figure(entry["agreement"]) + _interval(entry, "agreement")
    return agreed, figure(entry[chance]) + _interval(entry, chance) if chance in entry else ""


ERRORS_SHOWN = 10  # record problems listed in the table and in Markdown (the JSON report keeps the first 100)


def _value(value: Any) -> str:
    """A value as JSON (a string quoted, so that "" and null differ), cut after VALUE_LISTED characters."""
    text = data_text(value) if not isinstance(value, str) else data_text([value])[1:-1]
    return limited(value, text, VALUE_LISTED)


def problem_lines(report: dict[str, Any], line: Any) -> list[str]:
    """The record problems: their count, then ``line(where, message)`` for each of the first ERRORS_SHOWN."""
    from ..run.reader import error_location

    count = report.get("error_count", 0)
    if not count:
        return []
    out = ["", f"{count:,} record problem(s):"]
    out += [line(error_location(e), e["message"]) for e in report["errors"][:ERRORS_SHOWN]]
    if count > ERRORS_SHOWN:
        out.append(f"… and {count - ERRORS_SHOWN:,} more (the JSON report lists the first {len(report['errors'])})")
    return out


def _inert(value: Any) -> str:
    """Data as inert text, in full: a control character shown as U+FFFD, nothing cut."""
    return plain(value, None)


def table(report: dict[str, Any]) -> str:
    """Plain text, a line per field (80 columns unless a path or an interval is long; nothing is cut)."""
    chance = chance_metric(report)
    lines = [
        f"{len(report['annotators'])} annotators, {report['documents']} documents",
        "",
        f"{'field':<{NAME_WIDTH}} {'comparisons':>11}  {'agreement':<20} {chance}",
    ]
    for entry in report["fields"]:
        agreed, chanced = _cells(entry, chance)
        name = _inert(entry["field"])
        if len(name) > NAME_WIDTH:  # a long path on a line of its own, its figures in their columns below it
            lines.append(name)
            name = ""
        lines.append(f"{name:<{NAME_WIDTH}} {entry['comparisons']:>11}  {agreed:<20} {chanced}".rstrip())
    lines += _listed(
        report,
        lambda d: f"{_inert(d['document'])}  {_inert(d['field'])}",
        lambda path, value: f"  {_inert(path)}: {_inert(_value(value))}",
    )
    lines += problem_lines(report, lambda where, message: f"  {_inert(where)}: {_inert(message)}")
    lines += _verdicts(report)
    return "\n".join(lines) + "\n"


def _listed(report: dict[str, Any], head: Any, each: Any) -> list[str]:
    """The disagreements: ``head(d)`` a line per disagreement, ``each(annotator, value)`` one per annotator."""
    if not report["disagreements"] and not report["disagreements_not_shown"]:
        return ["", "No disagreements."]
    out = ["", "Disagreements:"]
    for d in report["disagreements"]:
        out.append(head(d))
        for path, value in zip(report["annotators"], d["values"]):
            out.append(each(path, value))
    if report["disagreements_not_shown"]:
        out.append(f"… and {report['disagreements_not_shown']} more (--disagreements N lists more)")
    return out


def _verdicts(report: dict[str, Any]) -> list[str]:
    from ..report.gates import verdict

    if not report["gates"]:
        return []
    out = [""]
    for r in report["gates"]:
        out.append(f"{r['status'].upper():<8} {_inert(r['gate'])} (actual {figure(r['actual'])})")
    out.append(verdict(report["gates"]))
    return out


def markdown(report: dict[str, Any]) -> str:
    """A Markdown table per field, then the disagreements as a list."""
    chance = chance_metric(report)
    lines = [
        f"**{len(report['annotators'])} annotators, {report['documents']} documents**",
        "",
        f"| field | comparisons | agreement | {chance} |",
        "|---|---:|---:|---:|",
    ]
    for entry in report["fields"]:
        agreed, chanced = _cells(entry, chance)
        lines.append(f"| {markdown_cell(entry['field'], None)} | {entry['comparisons']} | {agreed} | {chanced} |")
    lines += _listed(
        report,
        lambda d: f"- {markdown_cell(d['document'], None)}, {markdown_cell(d['field'], None)}",
        lambda path, value: f"    - {markdown_cell(path, None)}: {markdown_cell(_value(value), None)}",
    )
    lines += problem_lines(
        report, lambda where, message: f"- {markdown_cell(where, None)}: {markdown_cell(message, None)}"
    )
    lines += _verdicts(report)
    return "\n".join(lines) + "\n"


def render_html(report: dict[str, Any]) -> str:
    """``stickler agree --html``: one self-contained page in the frame of eval's HTML report (reporters/html.py: its
    stylesheet, its sorting script, its Content-Security-Policy; every piece of data escaped, nothing loaded from
    anywhere). The fields (sortable), the gates, the annotators, the disagreements (values cut as in the table)."""
    from .html import _e, _errors, _gates, _num_cell, _page, _table

    def cell(entry: dict[str, Any], metric: str) -> str:
        bounds = (entry.get("ci") or {}).get(metric)
        return _num_cell(entry.get(metric), ci={"low": bounds[0], "high": bounds[1]} if bounds else None)

    schema, tool = report.get("schema") or {}, report.get("tool") or {}
    annotators = report["annotators"]
    chances = [m for m in ("kappa", "alpha") if any(m in entry for entry in report["fields"])]
    headers = [("field", "text"), ("comparator", "text"), ("threshold", "num"), ("comparisons", "num")]
    headers += [(m, "num") for m in ("agreement", *chances)]
    rows = [
        f"<tr><td>{_e(entry['field'], None)}</td><td>{_e(entry.get('comparator') or '', 80)}</td>"
        f"{_num_cell(entry.get('threshold'), 2)}{_num_cell(entry['comparisons'])}"
        + "".join(cell(entry, m) for m in ("agreement", *chances))
        + "</tr>"
        for entry in report["fields"]
    ]
    level = report.get("ci_level")
    body = (
        f"<h1>Annotators' agreement</h1><p class=meta>schema {_e(schema.get('path', ''), None)} · "
        f"{len(annotators)} annotators · {report['documents']:,} documents · stickler {_e(tool.get('version', ''), 40)}"
        f"{f' · {level * 100:g}% bootstrap intervals' if level else ''}</p>"
        + "<ol>"
        + "".join(f"<li>{_e(path, None)}</li>" for path in annotators)
        + "</ol>"
        + _gates(report)
        + _errors(report)
        + "<h2>Fields</h2><p class=meta>Two annotations agree when the field's comparator, at its threshold, calls "
        "them a match, or both are null. kappa (two annotators) and alpha (nominal): categorical fields only; – "
        "where there is nothing to measure. Click a column header to sort; again to reverse.</p>"
        + _table(headers, rows, sortable=True)
    )
    listed, more = report["disagreements"], report["disagreements_not_shown"]
    if listed or more:
        heads = [("document", ""), ("field", ""), *((path, "") for path in annotators)]  # _table escapes them
        lines = [
            f"<tr><td>{_e(d['document'], None)}</td><td>{_e(d['field'], None)}</td>"
            + "".join(f"<td><code>{_e(_value(v), None)}</code></td>" for v in d["values"])
            + "</tr>"
            for d in listed
        ]
        tail = f"<p>… and {more:,} more (--disagreements N lists more)</p>" if more else ""
        body += f"<h2>Disagreements ({len(listed) + more:,})</h2>" + _table(heads, lines) + tail
    else:
        body += "<h2>Disagreements</h2><p>No disagreements.</p>"
    return _page("stickler agree", body)
