"""The ``stickler agree`` report for people: a plain-text table (80 columns unless a path or an interval is long;
nothing is cut), or Markdown. Field paths, file names and values are data: they go through ``plain`` (text) and
``markdown_cell`` (Markdown)."""

from __future__ import annotations

from typing import Any

# The field column: 24 + 1 + comparisons 11 + 2 + agreement and its interval 20 + 1 + kappa and its interval 20 = 79.
NAME_WIDTH = 24


def _interval(entry: dict[str, Any], metric: str) -> str:
    bounds = (entry.get("ci") or {}).get(metric)
    return "" if not bounds else f" [{bounds[0]:.3f}, {bounds[1]:.3f}]"


def _cells(entry: dict[str, Any], chance: str) -> tuple[str, str]:
    """A field's agreement and its kappa or alpha (``chance``), each with its interval when there is one."""
    agreed = figure(entry["agreement"]) + _interval(entry, "agreement")
    return agreed, figure(entry[chance]) + _interval(entry, chance) if chance in entry else ""


def _chance(report: dict[str, Any]) -> str:
    return "kappa" if len(report["annotators"]) == 2 else "alpha"


def _value(value: Any) -> str:
    """A value in full, as JSON (a string quoted, so that "" and null differ)."""
    from ..reporters.sanitize import data_text

    return data_text(value) if not isinstance(value, str) else data_text([value])[1:-1]


def _inert(value: Any) -> str:
    """Data as inert text, in full: a control character shown as U+FFFD, nothing cut."""
    from ..reporters.sanitize import plain

    return plain(value, None)


def figure(value: float | None) -> str:
    from ..reporters.sanitize import figure as shown

    return shown(value)


def table(report: dict[str, Any]) -> str:
    """Plain text, a line per field (80 columns unless a path or an interval is long; nothing is cut)."""
    chance = _chance(report)
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
    from ..reporters.sanitize import markdown_cell

    chance = _chance(report)
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
    lines += _verdicts(report)
    return "\n".join(lines) + "\n"
