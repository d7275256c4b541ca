"""The HTML report: one self-contained page (inline CSS, inline SVG, one small script).

Everything in a report is untrusted: field names come from the schema, values from model
output. Every piece of it is escaped (text and attributes alike), no data ever goes inside the
script (it reads what it sorts from the DOM), and a Content-Security-Policy allows only that
script, by hash, so that even an escaping bug could not run injected code.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from collections.abc import Callable, Iterable
from html import escape
from typing import Any


from ..analyses.failures import more_line, where
from ..report.gates import NO_DATA_SHOWN, actual_text, threshold_text
from ..json_text import compact_json
from .cosmetic import html_section
from .judge import html_section as judge_section
from .sanitize import INVISIBLE, NAME_LIMIT, VALUE_LISTED, data_text, limited
from . import baseline as baseline_section
from .slices import render_html as render_slices
from . import list_section

ERROR_LIMIT = 50  # errors listed before "… and N more"
OPEN_DOCUMENTS = 3  # worst documents shown unfolded

# Characters HTML forbids (C0 but tab/LF/FF/CR, DEL, C1, lone surrogates, noncharacters), plus the
# invisible ones the terminal hides too (marks that reorder text, zero-width characters, U+2028/9).
_FORBIDDEN = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + INVISIBLE
    + "".join(chr(plane * 0x10000 + 0xFFFE) + chr(plane * 0x10000 + 0xFFFF) for plane in range(17))
    + "]"
)

_SCRIPT = """
document.querySelectorAll("table.sortable th button").forEach(function (button) {
  button.addEventListener("click", function () {
    var th = button.closest("th"), table = th.closest("table"), col = th.cellIndex;
    var numeric = th.getAttribute("data-type") === "num";
    var asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th[aria-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    function key(row) {
      var cell = row.cells[col], v = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
      return numeric ? (v === "" ? NaN : Number(v)) : v.toLowerCase();
    }
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (r) { return [key(r), r]; });
    rows.sort(function (a, b) {
      var x = a[0], y = b[0];
      if (numeric && isNaN(x) !== isNaN(y)) { return isNaN(x) ? 1 : -1; }  /* no data: always last */
      var c = numeric ? (isNaN(x) ? 0 : x - y) : x.localeCompare(y);
      return asc ? c : -c;
    });
    rows.forEach(function (pair) { body.appendChild(pair[1]); });
  });
});
/* A field's name shows the panel of its failing comparisons (every panel is in the page, hidden). */
document.querySelectorAll("button.field-link").forEach(function (button) {
  button.addEventListener("click", function () {
    var id = button.getAttribute("data-panel");
    document.querySelectorAll("section.failures").forEach(function (panel) { panel.hidden = panel.id !== id; });
    document.querySelectorAll("button.field-link").forEach(function (b) {
      b.setAttribute("aria-pressed", b === button ? "true" : "false");
    });
    var shown = document.getElementById(id);
    if (shown) { shown.scrollIntoView({block: "nearest"}); }
  });
});
/* The worst documents: hide right comparisons (TP, TN), and keep the rows whose text or document matches. */
(function () {
  var box = document.getElementById("worst"), hide = document.getElementById("hide-ok");
  var search = document.getElementById("doc-search"), status = document.getElementById("doc-status");
  if (!box || !hide || !search || !status) { return; }
  function apply() {
    var query = search.value.trim().toLowerCase(), rows = 0, docs = 0;
    box.classList.toggle("hide-ok", hide.checked);
    box.querySelectorAll("details.document").forEach(function (doc) {
      var whole = query !== "" && (doc.getAttribute("data-doc") || "").toLowerCase().indexOf(query) >= 0, n = 0;
      doc.querySelectorAll("table.doc tbody tr").forEach(function (row) {
        var match = query === "" || whole || row.textContent.toLowerCase().indexOf(query) >= 0;
        var right = row.classList.contains("TP") || row.classList.contains("TN");
        row.hidden = !match;
        if (match && !(hide.checked && right)) { n += 1; }
      });
      doc.hidden = query !== "" && n === 0;
      if (query !== "" && n > 0) { doc.open = true; }
      doc.querySelector(".shown").textContent = String(n);
      rows += n;
      docs += doc.hidden ? 0 : 1;
    });
    status.textContent = rows + " comparison" + (rows === 1 ? "" : "s") + " shown in " +
      docs + " document" + (docs === 1 ? "" : "s");
  }
  hide.addEventListener("change", apply);
  search.addEventListener("input", apply);
  apply();
})();
"""
_SCRIPT_HASH = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
CSP = (
    f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{_SCRIPT_HASH}'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)

_CSS = """
body{font:13px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430;background:#f6f7f9;margin:0}
main{max-width:1760px;margin:0 auto;padding:20px 28px 60px}
h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:28px 0 10px;border-bottom:1px solid #d8dce3;padding-bottom:4px}
.meta{color:#5b6472}.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.card{background:#fff;border:1px solid #d8dce3;border-radius:6px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:20px}.card span{color:#5b6472;font-size:12px}
table{border-collapse:collapse;background:#fff;margin:6px 0}
th,td{border:1px solid #d8dce3;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#eef0f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
th button{all:unset;cursor:pointer;font-weight:600}th button:focus-visible{outline:2px solid #2f6fdf}
th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
.wide{overflow-x:auto}code{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-all}
tr.FD td{background:#fff1dc}tr.FA td{background:#f3e6fb}tr.FN td{background:#fde4e4}
tr.failed td{background:#fde4e4;font-weight:600}tr.nodata td{color:#5b6472}
.tag{font-weight:700;font-size:12px}.tag.TP,.grid .TP{color:#23813b}.tag.TN,.grid .TN{color:#6b7280}
.tag.FD,.grid .FD{color:#b35c00}.tag.FA,.grid .FA{color:#8137b3}.tag.FN,.grid .FN{color:#c22a2a}
table.doc{width:100%}table.doc td:nth-child(3),table.doc td:nth-child(4){width:38%}
.grids{display:flex;flex-wrap:wrap;gap:14px}.grid caption{font-weight:600;text-align:left}
.grid td,.grid th{font-size:12px;text-align:center}
svg.chart{background:#fff;border:1px solid #d8dce3;border-radius:6px;margin:4px 12px 4px 0}svg.bar{display:block}
svg text{font:11px system-ui,sans-serif;fill:#1d2430}.charts{display:flex;flex-wrap:wrap}
details{background:#fff;border:1px solid #d8dce3;border-radius:6px;padding:6px 10px;margin:8px 0}
summary{cursor:pointer}
button.field-link{all:unset;cursor:pointer;color:#1f5bc4;text-decoration:underline dotted}
button.field-link:focus-visible{outline:2px solid #2f6fdf}button.field-link[aria-pressed=true]{font-weight:700}
section.failures{background:#fff;border:1px solid #d8dce3;border-radius:6px;padding:6px 12px;margin:10px 0}
section.failures h3{font-size:15px;margin:4px 0}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;color:#5b6472;font-size:12px;margin:4px 0}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;vertical-align:-1px;margin-right:4px}
.controls{display:flex;flex-wrap:wrap;gap:8px 18px;align-items:center;margin:6px 0}
.controls input[type=search]{width:300px;padding:3px 6px;font:inherit}
#worst.hide-ok tr.TP,#worst.hide-ok tr.TN{display:none}tr[hidden],details[hidden]{display:none}
.dflt{font-size:11px;color:#8a5a00;background:#fff3d6;border-radius:3px;padding:0 4px;margin-left:4px}
.cut{font-size:11px;color:#5b6472;margin-left:4px}
table.failing{width:100%}table.failing td:nth-child(4),table.failing td:nth-child(5){width:30%}
.warning{background:#fff3d6;border:1px solid #e8c46a;border-radius:6px;padding:6px 12px;margin:8px 0;color:#5a3d00}
"""
# What each colour of a field's bar means (the legend under the field table).
_MEANINGS = {
    "tp": "TP: matched",
    "fd": "FD: both present, differ",
    "fa": "FA: predicted, absent from the truth",
    "fn": "FN: in the truth, not predicted",
    "tn": "TN: absent on both sides",
}
# Confusion-matrix cells and their colours, in the order they are stacked.
_KINDS = (("tp", "#2e9e4f"), ("fd", "#e58a1f"), ("fa", "#9b4fd0"), ("fn", "#d64545"), ("tn", "#b8bec8"))


def clean(value: Any, limit: int | None = None) -> str:
    """Text of ``value`` without characters HTML forbids, cut to ``limit``; not yet escaped."""
    return limited(value, _FORBIDDEN.sub("\ufffd", data_text(value)), limit)


def _e(value: Any, limit: int | None = None) -> str:
    """Escaped text, safe in element content and in quoted attributes alike."""
    return escape(clean(value, limit), quote=True)


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or None: only such numbers go into SVG coordinates or sort keys."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _json(value: Any) -> str:
    """A data value as JSON text (strings quoted, integers beyond 64 bits as digits)."""
    text = compact_json(value)
    return data_text(value) if text is None else text  # data_text: what says it is too deep to show


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, int) and not isinstance(value, bool):
        return _e(f"{value:,}" if abs(value) < 10**18 else _json(value), 40)
    if isinstance(value, float):
        return f"{value:.{digits}f}" if math.isfinite(value) else _e(value)
    return _e(value, 60)


def _pct(value: Any) -> str:
    number = _number(value)
    return "—" if number is None else f"{number * 100:.1f}%"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _interval(ci: Any) -> str:
    """`` [low, high]`` of a bootstrap interval (``--ci``), or nothing."""
    ci = _dict(ci)
    if _number(ci.get("low")) is None or _number(ci.get("high")) is None:
        return ""
    return f' <small class="ci">[{_fmt(ci["low"])}, {_fmt(ci["high"])}]</small>'


def _num_cell(value: Any, digits: int = 3, ci: Any = None) -> str:
    number = _number(value)
    return (
        f'<td class="n" data-sort="{"" if number is None else repr(number)}">{_fmt(value, digits)}{_interval(ci)}</td>'
    )


def _table(headers: Iterable[tuple[str, str]], rows: Iterable[str], sortable: bool = False, cls: str = "") -> str:
    """A table; headers are (label, type) with type "num", "text", or "" for a column not sorted."""
    head = "".join(
        f'<th data-type="{kind}"><button type="button">{_e(label)}</button></th>'
        if sortable and kind
        else f"<th>{_e(label)}</th>"
        for label, kind in headers
    )
    classes = " ".join(c for c in (cls, "sortable" if sortable else "") if c)
    return (
        f'<div class="wide"><table class="{classes}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _cards(cards: Iterable[tuple[str, Any]]) -> str:
    """(label, figure) pairs as a row of cards."""
    return (
        "<div class=cards>"
        + "".join(f"<div class=card><b>{_fmt(v)}</b><span>{_e(label)}</span></div>" for label, v in cards)
        + "</div>"
    )


def _summary(report: dict[str, Any]) -> str:
    m = _dict(report.get("metrics"))
    # (label, figure, its --ci interval when the run has one)
    cards = [
        (label, m.get(key), m.get(f"{key}_ci"))
        for label, key in (
            ("weighted score", "weighted_overall_score"),
            ("F1", "cm_f1"),
            ("precision", "cm_precision"),
            ("recall", "cm_recall"),
            ("recall with FD", "recall_with_fd"),
            ("accuracy", "cm_accuracy"),
        )
    ]
    cards.append(("documents", report.get("document_count"), None))
    html = (
        '<div class="cards">'
        + "".join(
            f"<div class=card><b>{_fmt(v)}</b>{_interval(ci)}<span>{_e(label)}</span></div>" for label, v, ci in cards
        )
        + "</div>"
    )
    counts = [(k.upper(), m.get(k)) for k in ("tp", "fa", "fd", "fp", "fn", "tn")]
    html += _table([(k, "num") for k, _ in counts], [f"<tr>{''.join(_num_cell(v) for _, v in counts)}</tr>"])
    records = _dict(_dict(report.get("inputs")).get("records"))
    if records:
        html += _table(
            [(k.replace("_", " "), "num") for k in records],
            [f"<tr>{''.join(_num_cell(v) for v in records.values())}</tr>"],
        )
    c = _dict(report.get("schema_conformance"))
    if c:
        due = c.get("predictions_due", c.get("predictions_read"))  # a missing prediction is not a valid one
        html += (
            f"<p>Schema conformance: {_fmt(c.get('valid_json'))} of {_fmt(due)} "
            f"predictions due valid JSON ({_pct(c.get('valid_json_rate'))}); {_fmt(c.get('schema_valid'))} of "
            f"{_fmt(due)} valid against the schema ({_pct(c.get('schema_valid_rate'))}; "
            f"a record that is not JSON, or missing, is not schema-valid); {_fmt(c.get('violations'))} violations."
            + (
                f" Coverage: {_fmt(c.get('paired'))} of {_fmt(c.get('ground_truth_documents'))} ground-truth "
                f"documents have a prediction ({_pct(c.get('coverage'))})."
                if "coverage" in c
                else ""
            )
            + "</p>"
        )
    return "<h2>Summary</h2>" + html


def _gate_cells(gate: dict[str, Any]) -> str:
    """A gate's threshold as given and its figure to as many decimals as it takes to read on the threshold's
    side (three decimals of both made a failed 0.86962 against 0.8697 read 0.870 and 0.870); "no data" where
    it had nothing to measure."""
    threshold, actual = _number(gate.get("threshold")), _number(gate.get("actual"))
    if gate.get("no_data") or actual is None:
        return _num_cell(gate.get("threshold")) + f'<td class="n" data-sort="">{_e(NO_DATA_SHOWN)}</td>'
    if threshold is None:
        return _num_cell(gate.get("threshold")) + _num_cell(gate.get("actual"))
    return (
        f'<td class="n" data-sort="{threshold!r}">{_e(threshold_text(threshold))}</td>'
        f'<td class="n" data-sort="{actual!r}">{_e(actual_text(actual, threshold))}</td>'
    )


def _gates(report: dict[str, Any]) -> str:
    gates = [g for g in _list(report.get("gates")) if isinstance(g, dict)]
    if not gates:
        return ""
    failed = sum(g.get("status") == "failed" for g in gates)
    rows = [
        f'<tr class="{ {"failed": "failed", "no data": "nodata"}.get(str(g.get("status")), "") }">'
        f"<td><code>{_e(g.get('gate', ''), 200)}</code></td><td>{_e(g.get('path') or '—', 200)}</td>"
        f"<td>{_e(g.get('metric', ''), 60)}</td>{_gate_cells(g)}"
        f"<td>{_e(g.get('status', ''), 20)}</td></tr>"
        for g in gates
    ]
    headers = [("gate", ""), ("field", ""), ("metric", ""), ("threshold", ""), ("actual", ""), ("status", "")]
    unmeasured = sum(g.get("status") == "failed" and bool(g.get("no_data")) for g in gates)
    why = f", {unmeasured} for lack of data" if unmeasured else ""
    return f"<h2>Gates: {failed} of {len(gates)} failed{why}</h2>" + _table(headers, rows)


def _stacked_bar(fm: dict[str, Any]) -> str:
    """TP/FD/FA/FN/TN of one field as a 120-pixel stacked bar."""
    counts = [(k, colour, max(_number(fm.get(k)) or 0.0, 0.0)) for k, colour in _KINDS]
    total, x, parts = sum(n for _, _, n in counts), 0.0, []
    for kind, colour, n in counts:
        if total and n:
            width = 120 * n / total
            parts.append(
                f'<rect x="{x:.2f}" y="0" width="{width:.2f}" height="12" fill="{colour}">'
                f"<title>{kind.upper()} {n:g}</title></rect>"
            )
            x += width
    return f'<svg class="bar" width="120" height="12" role="img" aria-label="confusion counts">{"".join(parts)}</svg>'


def _legend() -> str:
    """What the colours of the fields' bars mean."""
    return (
        '<div class="legend">'
        + "".join(f'<span><i style="background:{colour}"></i>{_e(_MEANINGS[kind])}</span>' for kind, colour in _KINDS)
        + "</div>"
    )


def _misses(fm: dict[str, Any]) -> int:
    return sum(int(n) for n in (_number(fm.get(k)) or 0 for k in ("fd", "fa", "fn")))


def _fields(report: dict[str, Any]) -> str:
    fields = [(path, fm) for path, fm in _dict(report.get("field_metrics")).items() if isinstance(fm, dict)]
    if not fields:
        return ""
    failures = _dict(report.get("field_failures"))
    kept = _dict(failures.get("fields"))
    # recall_with_fd is left out: one more column and long paths no longer fit a 1,920-pixel window.
    nums = [
        "tp",
        "fa",
        "fd",
        "fn",
        "tn",
        "cm_precision",
        "cm_recall",
        "cm_f1",
        "cm_accuracy",
        "mean_score",
        "weight",
        "threshold",
        "schema_violations",
    ]
    names = {"cm_f1": "F1", "mean_score": "mean score", "schema_violations": "violations"}
    labels = [names.get(k, k.removeprefix("cm_") if len(k) > 2 else k.upper()) for k in nums]
    headers = [("field", "text"), ("comparator", "text")] + [(label, "num") for label in labels] + [("breakdown", "")]
    rows, panels = [], []
    for i, (path, fm) in enumerate(fields):
        samples = [r for r in _list(kept.get(path)) if isinstance(r, dict)]
        name = _e(path, NAME_LIMIT)
        if samples or _misses(fm):
            name = (
                f'<button type="button" class="field-link" data-panel="fail-{i}" aria-controls="fail-{i}" '
                f'aria-pressed="false">{name}</button>'
            )
            panels.append(_panel(i, path, fm, samples, _number(failures.get("kept_per_field"))))
        rows.append(
            f"<tr><td>{name}</td><td>{_e(fm.get('comparator', ''), 80)}</td>"
            + "".join(_num_cell(fm.get(k), ci=fm.get(f"{k}_ci")) for k in nums)
            + f"<td>{_stacked_bar(fm)}</td></tr>"
        )
    hint = " Click a field's name to see its failing comparisons." if panels else ""
    return (
        "<h2>Fields</h2><p class=meta>Click a column header to sort; again to reverse."
        + hint
        + "</p>"
        + _table(headers, rows, sortable=True, cls="fields")
        + _legend()
        + f'<div id="failures">{"".join(panels)}</div>'
        + "<details><summary>Confusion matrix per field</summary><div class=grids>"
        + "".join(_grid(path, fm) for path, fm in fields)
        + "</div></details>"
    )


def _ceiling(report: dict[str, Any]) -> str:
    """The noise ceiling (eval --ceiling, issue 42 item 4): reporters/ceiling.py's section, beside the field table."""
    if not report.get("ceiling"):
        return ""
    from .ceiling import html_section

    return html_section(report, _e, _table)


def _aggregates(report: dict[str, Any]) -> str:
    """The leaf roll-up of the document and of each object and list of objects (stickler-eval's
    ``aggregate``): a parent's own verdict beside what its leaves got."""
    nodes = [
        (path, _dict(fm.get("aggregate")))
        for path, fm in _dict(report.get("field_metrics")).items()
        if isinstance(fm, dict) and isinstance(fm.get("aggregate"), dict)
    ]
    if not nodes:
        return ""
    nums = ["tp", "fa", "fd", "fn", "tn", "cm_precision", "cm_recall", "cm_f1", "cm_accuracy"]
    headers = [("node", "text")] + [(k.removeprefix("cm_") if len(k) > 2 else k.upper(), "num") for k in nums]
    headers[-2] = ("F1", "num")
    document = _dict(_dict(report.get("metrics")).get("aggregate"))
    rows = [
        f"<tr><td>{name}</td>" + "".join(_num_cell(block.get(k)) for k in nums) + "</tr>"
        for name, block in [("<b>(document)</b>", document), *((_e(p, NAME_LIMIT), b) for p, b in nodes)]
    ]
    return (
        "<h2>Leaves beneath each node</h2><p class=meta>The counts of the leaf fields beneath each object and "
        "list of objects, summed (stickler-eval's <code>aggregate</code>): a parent counted wrong because one "
        "child was, beside how many of its children were right. A node compared as a whole (null on a side, "
        "no list item matched) counts as one leaf; list items below the match threshold add nothing.</p>"
        + _table(headers, rows, sortable=True, cls="fields")
    )


def _panel(i: int, path: str, fm: dict[str, Any], samples: list[dict[str, Any]], bound: float | None) -> str:
    """One field's kept failing comparisons (hidden until its name is clicked), with how many there were."""
    seen = _misses(fm)
    counts = " · ".join(f"{k.upper()} {_fmt(fm.get(k))}" for k in ("fd", "fa", "fn"))
    shown = len(samples)
    if bound is not None and shown >= bound and seen > shown:
        which = (
            f"showing <b>{shown:,}</b>, the first {shown:,} in input order (<code>--limit "
            f"failures-per-field=N</code> keeps more)"
        )
    else:
        which = f"showing <b>{shown:,}</b>" + (", all of them" if shown and shown >= seen else "")
    rows = "".join(
        f'<tr class="{_kind(r)}"><td>{_e(r.get("doc_id", ""), NAME_LIMIT)}</td><td>{_e(r.get("path", ""), NAME_LIMIT)}</td>'
        f'<td class="tag {_kind(r)}">{_e(r.get("type", ""), 10)}</td>{_value_cell(r, "gt")}{_value_cell(r, "pred")}'
        f"{_num_cell(r.get('confidence'))}{_num_cell(r.get('similarity'))}{_num_cell(r.get('threshold'))}"
        f"<td>{_e(r.get('comparator', ''), 80)}</td></tr>"
        for r in samples
    )
    headers = [
        ("document", "text"),
        ("comparison", "text"),
        ("type", "text"),
        ("ground truth", ""),
        ("prediction", ""),
        ("confidence", "num"),
        ("similarity", "num"),
        ("threshold", "num"),
        ("comparator", "text"),
    ]
    table = _table(headers, [rows], sortable=True, cls="failing") if samples else ""
    return (
        f'<section class="failures" id="fail-{i}" hidden><h3>Failing comparisons of <code>{_e(path, NAME_LIMIT)}</code>'
        f"</h3><p class=meta><b>{seen:,}</b> failing ({counts}); {which}.</p>{table}</section>"
    )


def _kind(row: dict[str, Any]) -> str:
    kind = row.get("type")
    return kind if kind in ("TP", "TN", "FD", "FA", "FN") else ""


def _value_cell(row: dict[str, Any], side: str) -> str:
    """A ground-truth or predicted value as JSON, marked when the schema's default filled it in or when the
    run kept it cut (then it is already JSON text)."""
    value = row.get(side)
    cut = side in _list(row.get("cut"))
    raw = value if cut and isinstance(value, str) else _json(value)
    text = limited(value, _FORBIDDEN.sub("\ufffd", raw), VALUE_LISTED)  # a number whole, other values cut
    marks = ""
    if row.get(f"{side}_default") is True:
        marks += '<span class="dflt" title="absent from the record: the schema\'s default was filled in">default</span>'
    if cut:
        marks += '<span class="cut">(cut)</span>'
    alternative = row.get("alternative") if side == "gt" else None
    if type(alternative) is int:  # the acceptable value that decided (docs/ground-truth.md)
        marks += f'<span class="dflt" title="one of the ground truth\'s acceptable values">_alternatives[{alternative}]</span>'
    return f"<td><code>{escape(text, quote=True)}</code>{marks}</td>"


def _grid(path: str, fm: dict[str, Any]) -> str:
    """One field's counts laid out by ground truth (rows) against prediction (columns)."""

    def cell(kind: str, span: int = 1) -> str:
        return f'<td colspan="{span}" class="{kind.upper()}"><b>{kind.upper()}</b> {_fmt(fm.get(kind))}</td>'

    return (
        f'<table class="grid"><caption>{_e(path, NAME_LIMIT)}</caption><tr><th></th><th>pred matches</th>'
        f"<th>pred differs</th><th>pred absent</th></tr><tr><th>GT present</th>{cell('tp')}{cell('fd')}"
        f"{cell('fn')}</tr><tr><th>GT absent</th>{cell('fa', 2)}{cell('tn')}</tr></table>"
    )


def _chart(
    title: str,
    x_label: str,
    y_label: str,
    y_max: float,
    body: Callable[[Callable, Callable], str],
    x_ticks: Iterable[float] = (0, 0.25, 0.5, 0.75, 1),
    y_fmt: str = "{:g}",
) -> str:
    """An SVG plot frame (x over [0, 1], y over [0, y_max]) around what ``body`` draws with the scales."""
    w, h, left, right, top, bottom = 360, 260, 46, 14, 26, 38

    def sx(v: float) -> float:
        return left + (w - left - right) * v

    def sy(v: float) -> float:
        return h - bottom - (h - top - bottom) * (v / y_max if y_max else 0)

    axis = [
        f'<line x1="{left}" y1="{sy(0):.1f}" x2="{w - right}" y2="{sy(0):.1f}" stroke="#1d2430"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{sy(0):.1f}" stroke="#1d2430"/>',
    ]
    axis += [f'<text x="{sx(t):.1f}" y="{h - bottom + 14}" text-anchor="middle">{t:g}</text>' for t in x_ticks]
    axis += [
        f'<line x1="{left}" y1="{sy(y_max * f):.1f}" x2="{w - right}" y2="{sy(y_max * f):.1f}" stroke="#eef0f4"/>'
        f'<text x="{left - 4}" y="{sy(y_max * f) + 4:.1f}" text-anchor="end">{_e(y_fmt.format(y_max * f))}</text>'
        for f in (0.25, 0.5, 0.75, 1)
    ]
    return (
        f'<svg class="chart" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{_e(title)}">'
        f'<text x="{w / 2}" y="16" text-anchor="middle" font-weight="600">{_e(title)}</text>{"".join(axis)}'
        f'{body(sx, sy)}<text x="{sx(0.5):.1f}" y="{h - 6}" text-anchor="middle">{_e(x_label)}</text>'
        f'<text transform="translate(12 {sy(y_max / 2):.1f}) rotate(-90)" text-anchor="middle">{_e(y_label)}</text></svg>'
    )


def _histogram(report: dict[str, Any]) -> str:
    counts = [max(_number(c) or 0.0, 0.0) for c in _list(_dict(report.get("score_histogram")).get("counts"))]
    if not counts:
        return ""
    width, top = 1 / len(counts), 4 * math.ceil(max(max(counts), 1.0) / 4)  # whole-number ticks

    def bars(sx: Callable, sy: Callable) -> str:
        return "".join(
            f'<rect x="{sx(i * width) + 1:.1f}" y="{sy(c):.1f}" width="{sx(width) - sx(0) - 2:.1f}" '
            f'height="{sy(0) - sy(c):.1f}" fill="#2f6fdf"><title>{i * width:.2f}–{(i + 1) * width:.2f}: {c:g}</title></rect>'
            for i, c in enumerate(counts)
        )

    return "<h2>Document scores</h2>" + _chart("Score distribution", "document score", "documents", top, bars)


HTML_CURVES = 48  # F1-vs-threshold charts drawn at most (fields with a warning or a suggestion first)


def _threshold_curve(path: str, b: dict[str, Any]) -> str:
    """One field's F1 against the threshold: the curve, the configured threshold (dashed) and the best (dot)."""
    curve = _dict(b.get("curve"))
    points = [
        (t, f)
        for t, f in zip(_list(curve.get("thresholds")), _list(curve.get("f1")))
        if _number(t) is not None and _number(f) is not None
    ]
    t0, best, best_f1 = _number(b.get("threshold")), _number(b.get("best_threshold")), _number(b.get("best_f1"))
    if not points or t0 is None:
        return ""

    def draw(sx: Callable, sy: Callable) -> str:
        # A step: F1 at an edge holds from just above the edge before it (no similarity lies between them).
        steps = [points[0]] + [p for (a, _), (b, f) in zip(points, points[1:]) for p in ((a, f), (b, f))]
        line = " ".join(f"{sx(t):.1f},{sy(f):.1f}" for t, f in steps)
        parts = [
            f'<line x1="{sx(t0):.1f}" y1="{sy(0):.1f}" x2="{sx(t0):.1f}" y2="{sy(1):.1f}" stroke="#9aa1ad" '
            f'stroke-dasharray="4 3"><title>configured threshold {t0:g}</title></line>',
            f'<polyline points="{line}" fill="none" stroke="#2f6fdf" stroke-width="2"/>',
        ]
        if b.get("suggest") is True and best is not None and best_f1 is not None:
            parts.append(
                f'<circle cx="{sx(best):.1f}" cy="{sy(best_f1):.1f}" r="4" fill="#d64545"><title>best '
                f"threshold {best:g}: F1 {best_f1:.3f}</title></circle>"
            )
        return "".join(parts)

    return _chart(path[-48:], "threshold", "F1", 1.0, draw, y_fmt="{:.2f}")


def _thresholds(report: dict[str, Any]) -> str:
    """Each primitive field's F1 as a function of its threshold (thresholds.py), with the table behind it."""
    block = _dict(report.get("thresholds"))
    fields = _dict(block.get("fields"))
    if not fields:
        return ""
    window = _number(block.get("window"))
    rows = []
    for path, b in fields.items():
        b = _dict(b)
        flips = _dict(b.get("flips"))
        warnings = "<br>".join(_e(_dict(w).get("message"), 300) for w in _list(b.get("warnings")))
        best = _num_cell(b.get("best_threshold")) if b.get("suggest") is True else '<td class="n">–</td>'
        rows.append(
            f"<tr><td>{_e(path, NAME_LIMIT)}</td>{_num_cell(b.get('threshold'))}{_num_cell(b.get('compared'))}"
            f"{_num_cell(b.get('f1'))}{best}{_num_cell(b.get('separation'))}"
            f"{_num_cell(flips.get('total'))}<td>{warnings or '–'}</td></tr>"
        )
    table = _table(
        [
            ("Field", "text"),
            ("Threshold", "num"),
            ("Compared", "num"),
            ("F1", "num"),
            ("Best", "num"),
            ("Valley", "num"),
            (f"Flips ±{window:g}" if window is not None else "Flips", "num"),
            ("Warnings", ""),
        ],
        rows,
        sortable=True,
    )
    order = sorted(
        fields.items(),
        key=lambda item: not (_dict(item[1]).get("suggest") is True or _list(_dict(item[1]).get("warnings"))),
    )
    charts = [_threshold_curve(path, _dict(b)) for path, b in order[:HTML_CURVES]]
    more = (
        f"<p class=meta>… and {len(fields) - HTML_CURVES:,} more fields' curves in the JSON report "
        f"(thresholds.fields.*.curve).</p>"
        if len(fields) > HTML_CURVES
        else ""
    )
    return (
        "<h2>Thresholds</h2><p class=meta>F1 of each primitive field at every threshold on the 0.01 grid "
        "(exact: FA and FN do not move, compared pairs switch between TP and FD); dashed, the configured "
        "threshold; the red dot, the best at or above the similarities' valley.</p>"
        + table
        + f'<div class="charts">{"".join(charts)}</div>'
        + more
    )


def _reliability(bins: list[Any]) -> str:
    points = []
    for b in bins:
        b = _dict(b)
        rng = _list(b.get("range"))
        lo, hi = (_number(rng[0]), _number(rng[1])) if len(rng) == 2 else (None, None)
        acc, conf, count = _number(b.get("accuracy")), _number(b.get("mean_confidence")), _number(b.get("count"))
        if None not in (lo, hi, acc, conf) and count:
            points.append((lo, hi, acc, conf, count))
    if not points:
        return ""

    def draw(sx: Callable, sy: Callable) -> str:
        parts = [
            f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(1):.1f}" y2="{sy(1):.1f}" stroke="#9aa1ad" stroke-dasharray="4 3"/>'
        ]
        for lo, hi, acc, conf, count in points:
            parts.append(
                f'<rect x="{sx(lo) + 1:.1f}" y="{sy(acc):.1f}" width="{max(sx(hi) - sx(lo) - 2, 1):.1f}" '
                f'height="{sy(0) - sy(acc):.1f}" fill="#2f6fdf" fill-opacity="0.35"/>'
                f'<circle cx="{sx(conf):.1f}" cy="{sy(acc):.1f}" r="3.5" fill="#2f6fdf"><title>confidence '
                f"{conf:.3f}, accuracy {acc:.3f}, {count:g} fields</title></circle>"
            )
        return "".join(parts)

    return _chart("Reliability diagram", "mean confidence", "accuracy", 1.0, draw)


def _policy(report: dict[str, Any]) -> str:
    """issue 41, policy: the auto-accept policy's table and curves (reporters/policy.py), with its options only."""
    if not report.get("policy"):
        return ""
    from .policy import html_section as policy_section

    return policy_section(report, _e, _table, _chart)


def _review_curve(curve: list[Any]) -> str:
    points = sorted(
        (b, p)
        for b, p in ((_number(_dict(c).get("budget")), _number(_dict(c).get("pct_errors_caught"))) for c in curve)
        if b is not None and p is not None
    )
    if not points:
        return ""

    def draw(sx: Callable, sy: Callable) -> str:
        line = " ".join(f"{sx(b):.1f},{sy(p):.1f}" for b, p in [(0.0, 0.0)] + points)
        return (
            f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(1):.1f}" y2="{sy(1):.1f}" stroke="#9aa1ad" stroke-dasharray="4 3"/>'
            f'<polyline points="{line}" fill="none" stroke="#d64545" stroke-width="2"/>'
        )

    return _chart("Review-budget curve", "share of fields reviewed (least confident first)", "errors caught", 1.0, draw)


def _confidence(report: dict[str, Any]) -> str:
    """The figures the terminal prints (calibration.py: the same names, the gain naming its budget), the
    sentence read off them, the review budgets, one row per field, and the two charts with their keys."""
    from ..confidence.trust import trust_sentence
    from .calibration import metric_labels, middle_budget

    conf = report.get("confidence_metrics")
    if not isinstance(conf, dict):
        return ""
    overall, coverage = _dict(conf.get("overall")), _dict(conf.get("coverage"))
    labels = metric_labels(overall)
    budget = middle_budget(overall)
    long_labels = {
        "auroc": "AUROC (0.5 chance, 1 best)",
        "brier_score": "Brier score (0 best)",
        "ece": "ECE: calibration error (0 best)",
        "error_capture_at_budget": "error-capture gain"
        + (f" reviewing the least confident {budget:.0%} (× random)" if budget is not None else ""),
    }
    cards = [(long_labels.get(name, labels[name]), _dict(overall.get(name)).get("value")) for name in overall]
    if coverage:
        cards.append(("predicted values with a confidence", coverage.get("ratio")))
    sentence = trust_sentence(overall)
    bins = _list(_dict(overall.get("ece")).get("bins"))
    curve = _list(conf.get("review_curve"))
    reliability, review = _reliability(bins), _review_curve(curve)
    keys = []
    if reliability:
        keys.append(
            "Reliability diagram: bars, the share right per confidence bin; dots, the bin's mean confidence; "
            "dashed, perfect calibration."
        )
    if review:
        keys.append(
            "Review-budget curve: the share of errors caught when the least confident values are reviewed "
            "first; dashed, a random review."
        )
    return (
        "<h2>Confidence</h2>"
        + (f"<p>{_e(sentence, 2000)}</p>" if sentence else "")
        + _cards(cards)
        + f"{_budgets(overall)}{_calibration_table(conf, labels)}"
        + f"<div class=charts>{reliability}{review}</div>"
        + "".join(f"<p class=legend>{_e(k)}</p>" for k in keys)
    )


def _pr_curve(path: str, precision: list[Any]) -> str:
    """One field's precision–recall curve at IoU 0.50: COCO's interpolated precision at the 101 recall points."""
    points = (
        [(k / (len(precision) - 1), v) for k, v in enumerate(map(_number, precision)) if v is not None]
        if len(precision) > 1
        else []
    )
    if not points:
        return ""

    def draw(sx: Callable, sy: Callable) -> str:
        line = " ".join(f"{sx(r):.1f},{sy(p):.1f}" for r, p in points)
        return f'<polyline points="{line}" fill="none" stroke="#2f6fdf" stroke-width="2"/>'

    return _chart(clean(path, 60), "recall", "precision (IoU 0.50)", 1.0, draw)


def _localisation(report: dict[str, Any]) -> str:
    """Box mAP (docs/numbers.md, "Localisation: box mAP"): the means, one row per field, a precision–recall curve per field."""
    from .localisation import RULE_TEXT, thresholds_label

    block = report.get("localisation")
    if not isinstance(block, dict):
        return ""
    boxes = _dict(block.get("boxes"))
    label = thresholds_label([t for t in map(_number, _list(block.get("iou_thresholds"))) if t is not None])
    cards = [
        (f"mAP@[{label}]", block.get("map")),
        ("mAP at IoU 0.50", block.get("map_50")),
        ("mAP at IoU 0.75", block.get("map_75")),
    ]
    fields = _dict(block.get("fields"))
    rows = [
        f"<tr><td>{_e(path, NAME_LIMIT)}</td>{_num_cell(f.get('ap'))}{_num_cell(f.get('ap_50'))}"
        f"{_num_cell(f.get('ap_75'))}{_num_cell(f.get('mean_iou'))}{_num_cell(f.get('gt_boxes'), 0)}"
        f"{_num_cell(f.get('pred_boxes'), 0)}{_num_cell(f.get('true_positives_50'), 0)}</tr>"
        for path, f in ((p, _dict(f)) for p, f in fields.items())
    ]
    table = _table(
        [
            ("Field", "text"),
            ("AP", "num"),
            ("AP50", "num"),
            ("AP75", "num"),
            ("Mean IoU", "num"),
            ("GT boxes", "num"),
            ("Predicted", "num"),
            ("TP at 0.50", "num"),
        ],
        rows,
        sortable=True,
    )
    curves = "".join(_pr_curve(path, _list(_dict(f).get("pr_curve_50"))) for path, f in fields.items())
    return (
        "<h2>Localisation</h2>"
        + f"<p>{_e(RULE_TEXT.get(str(block.get('rule')), block.get('rule')))}. {_fmt(boxes.get('gt_boxes'))} "
        f"ground-truth and {_fmt(boxes.get('pred_boxes'))} predicted boxes ({_fmt(boxes.get('gt_only'))} ground "
        f"truth only, {_fmt(boxes.get('pred_only'))} prediction only, {_fmt(boxes.get('not_a_box'))} not a box, "
        f"{_fmt(boxes.get('reversed'))} reversed).</p>"
        + _cards(cards)
        + table
        + f"<div class=charts>{curves}</div>"
        + "<p class=legend>Precision–recall at IoU 0.50: detections ranked by confidence, precision made "
        "non-increasing (COCO's envelope) at 101 recall points; the area under it is AP50.</p>"
        + "".join(f"<p class=legend>{_e(n, 500)}</p>" for n in _list(block.get("notes")))
    )


def _budgets(overall: dict[str, Any]) -> str:
    """Review the least confident first: what each budget catches (the terminal's table)."""
    budgets = _dict(_dict(overall.get("error_capture_at_budget")).get("budgets"))
    rows = []
    for key, b in budgets.items():
        b = _dict(b)
        rows.append(
            f"<tr><td class=n>{_pct(_float(str(key)))}</td>{_num_cell(b.get('fields_reviewed'))}"
            f"<td class=n>{_pct(b.get('pct_errors_caught'))} ({_fmt(b.get('errors_found'))})</td>"
            f"{_num_cell(b.get('gain'), 1)}</tr>"
        )
    if not rows:
        return ""
    headers = [("review", ""), ("values", ""), ("errors caught", ""), ("× random", "")]
    return "<h3>Review the least confident first</h3>" + _table(headers, rows)


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _calibration_table(conf: dict[str, Any], labels: dict[str, str]) -> str:
    """Per field: the confidence figures of the values that carried one (the terminal's table)."""
    overall, fields = _dict(conf.get("overall")), _dict(conf.get("fields"))
    if not fields:
        return ""

    def row(name: str, block: dict[str, Any]) -> str:
        return f"<tr><td>{name}</td>" + "".join(_num_cell(_dict(block.get(m)).get("value")) for m in labels) + "</tr>"

    rows = [row("<b>overall</b>", overall)] + [
        row(_e(path, NAME_LIMIT), _dict(block)) for path, block in fields.items()
    ]
    headers = [("field", "text")] + [(label, "num") for label in labels.values()]
    return "<h3>Per field</h3><p class=meta>Is the confidence trustworthy? AUROC high, Brier and ECE low.</p>" + _table(
        headers, rows, sortable=True, cls="calibration"
    )


def _documents(report: dict[str, Any]) -> str:
    docs = [d for d in _list(report.get("worst_documents")) if isinstance(d, dict)]
    if not docs:
        return ""
    out, total, failing = [], 0, 0
    headers = [
        ("path", ""),
        ("type", ""),
        ("ground truth", ""),
        ("prediction", ""),
        ("confidence", ""),
        ("similarity", ""),
    ]
    for i, doc in enumerate(docs):
        rows, wrong = [], 0
        for c in map(_dict, _list(doc.get("comparisons"))):
            cls = _kind(c)
            wrong += cls not in ("TP", "TN")
            rows.append(
                f'<tr class="{cls}"><td>{_e(c.get("path", ""), NAME_LIMIT)}</td>'
                f'<td class="tag {cls}">{_e(c.get("type", ""), 10)}</td>{_value_cell(c, "gt")}'
                f"{_value_cell(c, 'pred')}{_num_cell(c.get('confidence'))}"
                f"{_num_cell(c.get('similarity'))}</tr>"
            )
        total, failing = total + len(rows), failing + wrong
        lines = _e(where(doc), 1000)
        hidden = _dict(doc.get("comparisons_not_shown")).get("count")  # past --limit explain-items
        more = (
            f"<p class=meta>{_e(more_line(hidden, 'comparisons'), 200)}</p>"
            if type(hidden) is int and hidden > 0
            else ""
        )
        out.append(
            f'<details class="document" data-doc="{_e(doc.get("doc_id", ""), NAME_LIMIT)}"'
            f"{' open' if i < OPEN_DOCUMENTS else ''}><summary><b>{_e(doc.get('doc_id', ''), NAME_LIMIT)}</b>"
            f' — score {_fmt(doc.get("score"))} · <span class="shown">{wrong}</span> shown of {len(rows)} '
            f"comparisons, {wrong} failing · {lines}</summary>{_table(headers, rows, cls='doc')}{more}"
            f"{_pairings(doc)}</details>"
        )
    controls = (
        '<div class="controls"><label><input type="checkbox" id="hide-ok" checked> hide right comparisons '
        '(TP, TN)</label><input type="search" id="doc-search" placeholder="filter: path, value or document" '
        f'aria-label="filter the comparisons"><span id="doc-status" class="meta">{failing} comparison'
        f"{'' if failing == 1 else 's'} shown in {len(docs)} document{'' if len(docs) == 1 else 's'}"
        "</span></div>"
    )
    return (
        f"<h2>Worst documents</h2><p class=meta>The {len(docs)} documents with the lowest scores, every comparison "
        f'made ({total} in all).</p>{controls}<div id="worst" class="hide-ok">{"".join(out)}</div>'
    )


def _pairings(doc: dict[str, Any]) -> str:
    """How a worst document's list items were paired (its "pairings"): one row a pair or unmatched item."""
    rows = [
        f'<tr class="pairing"><td>{_e(path, NAME_LIMIT)}</td>{_index_cell(p.get("gt_index"))}'
        f"{_index_cell(p.get('pred_index'))}<td>{_e(p.get('rule', ''), 20)}</td>{_num_cell(p.get('similarity'))}</tr>"
        for path, pairs in _dict(doc.get("pairings")).items()
        for p in map(_dict, _list(pairs))
    ]
    if not rows:
        return ""
    hidden = _dict(doc.get("pairings_not_shown")).get("count")
    more = f"<p class=meta>{_e(more_line(hidden, 'pairings'), 200)}</p>" if type(hidden) is int and hidden > 0 else ""
    headers = [("list", ""), ("ground truth item", ""), ("predicted item", ""), ("rule", ""), ("similarity", "")]
    return f"<p class=meta>How the list items were paired</p>{_table(headers, rows, cls='pairings')}{more}"


def _index_cell(value: Any) -> str:
    """An item's index, or "–" for none (an unmatched item's missing counterpart)."""
    return f'<td class="n">{value}</td>' if type(value) is int else '<td class="n">–</td>'


def _violations(report: dict[str, Any]) -> str:
    """Schema violations by field path and JSON Schema keyword (the document's own at ``$``)."""
    rows = [
        f"<tr><td>{_e(path, NAME_LIMIT)}</td><td><code>{_e(keyword, 80)}</code></td>{_num_cell(n)}</tr>"
        for path, counts in _dict(report.get("schema_violations")).items()
        for keyword, n in _dict(counts).items()
    ]
    if not rows:
        return ""
    headers = [("field", "text"), ("keyword", "text"), ("violations", "num")]
    return (
        "<h2>Schema violations</h2><p class=meta>Predictions checked against the schema: how often each "
        "field broke each keyword (<code>$</code>: the document itself).</p>"
        + _table(headers, rows, sortable=True, cls="violations")
    )


def _location(error: dict[str, Any]) -> str:
    """Where a record problem is (reader.error_location: the file, its line and the document when known;
    what is not known is left out)."""
    from ..run.reader import error_location

    line = error.get("line")
    return error_location(
        {
            "source": clean(error.get("source") or "", 200),
            "side": error.get("side") in ("A", "B") and error["side"],
            "line": line if isinstance(line, int) and not isinstance(line, bool) else None,
            "doc_id": error.get("doc_id") if isinstance(error.get("doc_id"), (str, int)) else None,
        }
    )


def _warnings(report: dict[str, Any]) -> str:
    """The run's warnings (reader.record_warnings: arguments likely swapped, the older rich shape), above the
    figures they may put in doubt (standard error and the Markdown report carry them too)."""
    return "".join(
        f"<p class=warning role=alert><b>Warning:</b> {_e(w, 500)}</p>" for w in _list(report.get("warnings"))
    )


def _errors(report: dict[str, Any]) -> str:
    errors = _list(report.get("errors"))
    if not errors:
        return ""
    items = [
        f"<li>{_e(_location(e), 300)}: {_e(e.get('message', ''), 500)}</li>" for e in map(_dict, errors[:ERROR_LIMIT])
    ]
    more = f"<p>… and {len(errors) - ERROR_LIMIT:,} more</p>" if len(errors) > ERROR_LIMIT else ""
    return f"<h2>Errors ({len(errors):,})</h2><ul>{''.join(items)}</ul>{more}"


def _page(title: str, body: str, style: str = "") -> str:
    """One self-contained page: a policy that lets only its own script run, the stylesheet (and ``style``),
    ``body`` (already escaped), the sorting script."""
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{_CSS}{style}</style></head><body><main>{body}"
        f"</main><script>{_SCRIPT}</script></body></html>\n"
    )


def render_html(report: dict[str, Any]) -> str:
    """The whole report as one HTML page that loads nothing from anywhere."""
    schema = _dict(report.get("schema"))
    name = _e(schema.get("model_name") or "stickler report", 120)
    return _page(
        f"{name} — stickler report",
        f"<h1>{name}</h1><p class=meta>schema {_e(schema.get('path', ''), 300)} · "
        f"{_fmt(report.get('document_count'))} documents · stickler "
        f"{_e(_dict(report.get('tool')).get('version', ''), 40)}</p>"
        + baseline_section.notice_html(report, _e)
        + _warnings(report)
        + _summary(report)
        + _gates(report)
        + _fields(report)
        + _ceiling(report)
        + _aggregates(report)
        + html_section(report.get("cosmetic_errors"), _e, _num_cell, _table)
        + judge_section(report.get("judge"), _e, _num_cell, _table)
        + _policy(report)
        + render_slices(report, _e, _table, _num_cell)
        + baseline_section.html_section(report, _e, _table)
        + list_section.html_section(report, _e, _table)
        + _violations(report)
        + _histogram(report)
        + _thresholds(report)
        + _confidence(report)
        + _localisation(report)
        + _documents(report)
        + _errors(report),
    )


def render_diff_html(report: dict[str, Any]) -> str:
    """``stickler diff`` as one self-contained page: the verdict naming the watched figures that changed,
    then every comparison (sortable), regressions in red; same escaping and policy as the report."""
    from ..report.diff import IMPROVED, LABELS, REGRESSED, key, verdict

    schema, inputs, boot = _dict(report.get("schema")), _dict(report.get("inputs")), _dict(report.get("bootstrap"))
    name = _e(schema.get("model_name") or "stickler diff", 120)
    level = _number(boot.get("level")) or 0.95
    rows = []
    for r in _list(report.get("comparisons")):
        ci = _dict(r.get("ci"))
        cls = {REGRESSED: "failed", IMPROVED: "better"}.get(r.get("verdict"), "")
        interval = f"[{_fmt(ci.get('low'))}, {_fmt(ci.get('high'))}]" if ci else "—"
        rows.append(
            f'<tr class="{cls}"><td><code>{_e(key(r), 300)}</code></td><td>{"yes" if r.get("watched") else ""}</td>'
            f"{_num_cell(r.get('a'))}{_num_cell(r.get('b'))}{_num_cell(r.get('difference'))}"
            f'<td class="n">{interval}</td>{_num_cell(r.get("p_value"))}'
            f"<td>{_e(LABELS.get(r.get('verdict'), ''), 20)}</td></tr>"
        )
    headers = [
        ("figure", "text"),
        ("watched", "text"),
        ("A", "num"),
        ("B", "num"),
        ("B − A", "num"),
        (f"{level * 100:g}% interval", ""),
        ("p", "num"),
        ("verdict", "text"),
    ]
    line = verdict(report, lambda k: f"<code>{_e(k, 300)}</code>")
    return _page(
        f"{name} — stickler diff",
        f"<h1>B against A · {name}</h1>"
        f"<p class=meta>A {_e(inputs.get('a') or '', 300)} · B {_e(inputs.get('b') or '', 300)} · "
        f"ground truth {_e(inputs.get('ground_truth') or '', 300)} · {_fmt(report.get('document_count'))} "
        f"documents · {level * 100:g}% paired-bootstrap intervals, permutation p-values "
        f"({_fmt(boot.get('resamples'))} resamples, seed {_fmt(boot.get('seed'))}) · stickler "
        f"{_e(_dict(report.get('tool')).get('version', ''), 40)}</p>"
        + _warnings(report)
        + f"<p><b>{line}</b></p><h2>Figures</h2><p class=meta>Click a column header to sort; again to reverse.</p>"
        + _table(headers, rows, sortable=True)
        + _changed_documents(report)
        + _errors(report),
        style="tr.better td{background:#e3f5e6}",
    )


def _changed_documents(report: dict[str, Any]) -> str:
    """Per figure, the documents B made worse and better (diff.changed_documents), every figure listed."""
    from ..report.diff import documents_line, figure_name

    items = [
        f"<li><code>{_e(figure_name(entry), 300)}</code>: {documents_line(entry, lambda d: _e(d, 300))}</li>"
        for entry in map(_dict, _list(report.get("changed_documents")))
        if isinstance(entry.get("worse"), list) and isinstance(entry.get("better"), list)
    ]
    return f"<h2>Documents B changed (score A → B)</h2><ul>{''.join(items)}</ul>" if items else ""


def render_split_html(report: dict[str, Any]) -> str:
    """``stickler split`` as one self-contained page: the figures, the gates, pages by class, the
    misclassified pages, the worst packets (sortable) and the record problems; same escaping and policy."""
    from .packets import LABELS, MISSING, figure_details  # the terminal's and Markdown's names of things

    inputs, metrics, counts = _dict(report.get("inputs")), _dict(report.get("metrics")), _dict(report.get("counts"))
    source = _e(report.get("source") or "stickler split", 300)
    details = figure_details(report)
    figures = [
        f"<tr><td>{_e(label)}</td>{_num_cell(metrics.get(key))}<td>{_e(details.get(key, ''), 100)}</td></tr>"
        for key, label in LABELS.items()
    ]
    classes = [
        f"<tr><td>{_e(c.get('class'), 200)}</td>{_num_cell(c.get('gt_pages'))}{_num_cell(c.get('pred_pages'))}"
        f"{_num_cell(c.get('correct_pages'))}{_num_cell(c.get('precision'))}{_num_cell(c.get('recall'))}"
        f"{_num_cell(c.get('f1'))}</tr>"
        for c in map(_dict, _list(report.get("classes")))
    ]
    wrong = [
        f"<tr><td>{_e(c.get('ground_truth') or MISSING, 200)}</td>"
        f"<td>{_e(c.get('predicted') or MISSING, 200)}</td>{_num_cell(c.get('pages'))}</tr>"
        for c in map(_dict, _list(report.get("confusion")))
        if c.get("ground_truth") != c.get("predicted")
    ]
    keys = (
        "pages",
        "page_accuracy",
        "sections",
        "split_without_order",
        "split_with_order",
        "pages_missing",
        "pages_extra",
        "v_measure",
        "rand_index",
        "clustering_score",
        "ordering_score",
        "packet_score",
    )
    worst = [
        f"<tr><td>{_e(p.get('packet_id'), 200)}</td><td>{_e(p.get('where'), 300)}</td>"
        + "".join(_num_cell(p.get(k)) for k in keys)
        + "</tr>"
        for p in map(_dict, _list(report.get("worst_packets")))
    ]
    problems = [
        f"<li>{_e(p.get('source'), 300)}{':' + _fmt(p.get('line')) if p.get('line') else ''}: "
        f"{_e(p.get('message'), 500)}</li>"
        for p in map(_dict, _list(report.get("problems")))
    ]
    records = _dict(report.get("records"))
    body = (
        f"<h1>stickler split · {source}</h1><p class=meta>{_e(inputs.get('form'), 20)} · "
        f"{' · '.join(_e(f, 300) for f in _list(inputs.get('files')))} · {_fmt(report.get('packet_count'))} packets · "
        f"{_fmt(counts.get('pages'))} pages · stickler {_e(_dict(report.get('tool')).get('version', ''), 40)}</p>"
        "<h2>Figures</h2>" + _table([("figure", ""), ("value", ""), ("", "")], figures) + _gates(report)
    )
    if classes:
        body += "<h2>Pages by class</h2>" + _table(
            [
                ("class", "text"),
                ("ground truth", "num"),
                ("predicted", "num"),
                ("right", "num"),
                ("precision", "num"),
                ("recall", "num"),
                ("F1", "num"),
            ],
            classes,
            sortable=True,
        )
    if wrong:
        body += "<h2>Misclassified pages</h2>" + _table(
            [("ground truth", "text"), ("predicted", "text"), ("pages", "num")], wrong, sortable=True
        )
    if worst:
        body += "<h2>Worst packets</h2><p class=meta>Click a column header to sort; again to reverse.</p>" + _table(
            [("packet", "text"), ("where", "text"), *((k.replace("_", " "), "num") for k in keys)], worst, sortable=True
        )
    body += (
        "<h2>Records</h2>"
        + _table(
            [(k.replace("_", " "), "num") for k in records],
            [f"<tr>{''.join(_num_cell(v) for v in records.values())}</tr>"],
        )
        if records
        else ""
    )
    if problems:
        more = records.get("problem_count", len(problems)) - len(problems)
        body += (
            f"<h2>Record problems ({_fmt(records.get('problem_count', len(problems)))})</h2>"
            f"<ul>{''.join(problems)}</ul>" + (f"<p>… and {more:,} more</p>" if more > 0 else "")
        )
    return _page(f"{source} — stickler split", body)
