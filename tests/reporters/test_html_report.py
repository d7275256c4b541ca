"""The HTML report: self-contained, escaped everywhere, and working in a real headless Chromium."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any


from stickler_cli.cli.app import main
from stickler_cli.reporters.html import render_html
from tests.support.browser import chromium, open_page

SCRIPT = "<script>document.title='pwned';window.__pwned=1</script>"
IMG = '"><img src=x onerror="window.__pwned=1">'
TEXTAREA = "</textarea><svg onload=window.__pwned=1>"
HOSTILE = [SCRIPT, IMG, TEXTAREA]
HOSTILE_FIELD = 'x"><img src=x onerror=window.__pwned=1>\x07'
TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "main",
    "h1",
    "h2",
    "p",
    "div",
    "b",
    "span",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "button",
    "code",
    "details",
    "summary",
    "caption",
    "ul",
    "li",
    "script",
    "svg",
    "rect",
    "line",
    "text",
    "circle",
    "polyline",
    "small",
    "section",
    "h3",
    "label",
    "input",
    "i",
}


def _report(confidence: bool = True) -> dict[str, Any]:
    """A report with every section, hostile text wherever the data can put text."""
    comparisons = [
        {
            "path": HOSTILE_FIELD,
            "type": "FD",
            "gt": "a",
            "pred": SCRIPT,
            "similarity": 0.1,
            "score": 0.1,
            "threshold": 1.0,
            "comparator": "ExactComparator",
        },
        {"path": "b", "type": "FA", "gt": None, "pred": {"_value": IMG, "_confidence": 0.9}, "similarity": 0.0},
        {"path": "c", "type": "FN", "gt": [TEXTAREA, 2**70], "pred": None, "similarity": 0.0},
        {"path": "d", "type": "TP", "gt": "x" * 5000, "pred": "x" * 5000, "similarity": 1.0},
    ]
    field = {
        "tp": 3,
        "fa": 1,
        "fd": 2,
        "fp": 3,
        "fn": 1,
        "tn": 0,
        "cm_precision": 0.5,
        "cm_recall": 0.75,
        "cm_f1": 0.6,
        "cm_accuracy": 0.43,
        "weight": 1.0,
        "threshold": 1.0,
        "comparator": SCRIPT,
        "schema_violations": 0,
    }
    report: dict[str, Any] = {
        "tool": {"name": "stickler", "version": "0.1.0"},
        "schema": {"path": "s.json", "model_name": SCRIPT},
        "inputs": {
            "records": {
                "gt_lines": 2,
                "pred_lines": 2,
                "paired": 2,
                "unpaired_predictions": 0,
                "missing_predictions": 0,
                "invalid_predictions": 0,
            }
        },
        "document_count": 2,
        "metrics": {
            "tp": 3,
            "fa": 1,
            "fd": 2,
            "fp": 3,
            "fn": 1,
            "tn": 0,
            "cm_precision": 0.5,
            "cm_recall": 0.75,
            "cm_f1": 0.6,
            "cm_accuracy": 0.43,
            "weighted_overall_score": 0.5,
        },
        "schema_conformance": {
            "predictions_read": 2,
            "valid_json": 2,
            "valid_json_rate": None,
            "checked": 2,
            "schema_valid": 1,
            "schema_valid_rate": 0.5,
            "violations": 1,
        },
        "field_metrics": {HOSTILE_FIELD: dict(field, mean_score=0.4), "plain": field},
        "gates": [
            {"gate": IMG, "path": HOSTILE_FIELD, "metric": "cm_f1", "threshold": 0.9, "actual": 0.6, "status": "failed"}
        ],
        "score_histogram": {"bins": 20, "counts": [0] * 19 + [2]},
        "confidence_metrics": None,
        "worst_documents": [
            {"doc_id": TEXTAREA, "gt_line": 1, "pred_line": 1, "score": 0.1, "comparisons": comparisons}
        ],
        "errors": [{"source": "p.jsonl", "line": i, "doc_id": f"line {i}", "message": SCRIPT} for i in range(60)],
    }
    if confidence:
        report["confidence_metrics"] = {
            "overall": {
                "auroc": {"value": 0.7},
                "brier_score": {"value": None},
                "ece": {
                    "value": 0.1,
                    "bins": [
                        {"range": [0.0, 0.5], "count": 3, "accuracy": 0.3, "mean_confidence": 0.25},
                        {"range": [0.5, 1.0], "count": 0, "accuracy": 0.0, "mean_confidence": 0.0},
                    ],
                },
            },
            "review_curve": [{"budget": 0.5, "pct_errors_caught": 0.8}, {"budget": 1.0, "pct_errors_caught": 1.0}],
            "coverage": {"ratio": 0.5},
        }
    return report


class _Elements(HTMLParser):
    """Every element and attribute the browser would build from the page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def _parse(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser


def test_no_network_and_only_expected_elements() -> None:
    page = render_html(_report())
    assert "http://" not in page and "https://" not in page
    parsed = _parse(page)
    assert {tag for tag, _ in parsed.tags} <= TAGS
    for tag, attrs in parsed.tags:
        for name, value in attrs:
            assert name not in ("src", "href", "action", "srcdoc", "xlink:href") and not name.startswith("on"), tag
    assert len(parsed.scripts) == 1 and [t for t, _ in parsed.tags].count("script") == 1


def test_intervals_shown_beside_their_figures() -> None:
    report = _report()
    report["metrics"]["weighted_overall_score_ci"] = {"low": 0.1, "high": 0.9, "level": 0.95}
    path = next(iter(report["field_metrics"]))
    report["field_metrics"][path]["cm_f1_ci"] = {"low": 0.25, "high": 0.75, "level": 0.95}
    report["field_metrics"][path]["cm_recall_ci"] = None  # nothing to measure in some resample
    page = render_html(report)
    assert '<small class="ci">[0.100, 0.900]</small>' in page
    assert '<small class="ci">[0.250, 0.750]</small>' in page
    assert {tag for tag, _ in _parse(page).tags} <= TAGS


def test_invisible_characters_are_shown_as_replacement_marks() -> None:
    """Zero-width characters, U+061C and U+2028 would make two different values look the same."""
    from stickler_cli.reporters.html import clean

    assert clean("A\u200bB\u061cC\u2028D\ufeffE\U000e0041", 100) == "A\ufffdB\ufffdC\ufffdD\ufffdE\ufffd"
    assert clean("tab\tand\nline", 100) == "tab\tand\nline"  # HTML shows these as they are


def test_hostile_text_appears_only_escaped() -> None:
    page = render_html(_report())
    for payload in HOSTILE:
        assert payload not in page
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;" in page
    assert "&lt;/textarea&gt;" in page and "&quot;&gt;&lt;img src=x onerror=" in page
    assert "\x07" not in page and "\ufffd" in page  # the control character in a field name, replaced
    assert not re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f]", page)
    assert "x" * 400 not in page  # long values are cut
    assert str(2**70) in page  # beyond orjson's 64 bits: shown anyway


def test_run_warnings_are_shown_first_and_escaped() -> None:
    report = _report()
    report["warnings"] = [*HOSTILE, "2 ground-truth record(s) carry _confidence"]
    page = render_html(report)
    assert all(payload not in page for payload in HOSTILE)
    assert page.count("<p class=warning role=alert><b>Warning:</b> ") == len(HOSTILE) + 1
    assert page.index("2 ground-truth record(s) carry _confidence</p>") < page.index("<h2>")
    assert {tag for tag, _ in _parse(page).tags} <= TAGS
    assert "class=warning" not in render_html(_report())  # none without a warning


def test_csp_allows_only_the_page_script() -> None:
    page = render_html(_report())
    parsed = _parse(page)
    csp = next(dict(a)["content"] for t, a in parsed.tags if t == "meta" and dict(a).get("http-equiv"))
    digest = base64.b64encode(hashlib.sha256(parsed.scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp and "img-src data:" in csp


def test_sections_follow_the_data() -> None:
    page = render_html(_report(confidence=True))
    assert "Reliability diagram" in page and "Review-budget curve" in page and page.count('class="chart"') == 3
    assert 'class="failed"' in page and "… and 10 more" in page and 'class="FD"' in page
    bare = render_html(_report(confidence=False))
    assert "Reliability diagram" not in bare and "Review-budget curve" not in bare and "Confidence" not in bare
    empty = render_html({})
    assert "<h2>Summary</h2>" in empty and "Gates" not in empty and "Worst documents" not in empty


def test_partial_confidence_and_odd_values() -> None:
    report = _report()
    del report["confidence_metrics"]["overall"]["ece"]
    report["confidence_metrics"]["review_curve"] = [{"budget": None, "pct_errors_caught": float("nan")}]
    report["gates"] = None
    report["field_metrics"]["plain"]["tp"] = 10**5000  # too many digits for str()
    page = render_html(report)
    assert "Reliability diagram" not in page and "Review-budget curve" not in page and "AUROC" in page


# --- in a real browser ---------------------------------------------------------------------------------


def _cli_report(tmp_path: Path) -> dict[str, Any]:
    """A report from the real CLI, end to end, on predictions that carry script payloads and confidences."""
    hostile_field = 'x"><img src=x onerror=window.__pwned=1>'
    schema = {
        "type": "object",
        "x-aws-stickler-model-name": "Probe<script>window.__pwned=1</script>",
        "properties": {
            "name": {
                "type": "string",
                "x-aws-stickler-comparator": "LevenshteinComparator",
                "x-aws-stickler-threshold": 0.8,
            },
            "code": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
            "amount": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
            hostile_field: {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        },
    }
    gt, pred = [], []
    for i in range(12):
        gt.append({"name": f"Name {i}", "code": f"C{i}", "amount": i * 10.5, hostile_field: "k"})
        pred.append(
            {
                "name": {"_value": f"Name {i}" if i % 3 else f"Nmae {i}", "_confidence": (i * 7 % 10) / 10},
                "code": {"_value": f"C{i}" if i % 4 else "X", "_confidence": (i * 3 % 10) / 10},
                "amount": {"_value": i * 10.5 if i % 2 else i * 11.0, "_confidence": 0.05 + i / 13},
            }
        )
    pred[5] = {
        "name": SCRIPT,
        "code": IMG,
        "amount": "</script><script>window.__pwned=1</script>",
        hostile_field: TEXTAREA + "\x07",
    }
    paths = {name: tmp_path / name for name in ("schema.json", "gt.jsonl", "pred.jsonl", "report.json")}
    paths["schema.json"].write_text(json.dumps(schema))
    paths["gt.jsonl"].write_text("".join(json.dumps(r) + "\n" for r in gt))
    paths["pred.jsonl"].write_text("".join(json.dumps(r) + "\n" for r in pred))
    code = main(
        [
            "eval",
            str(paths["schema.json"]),
            str(paths["gt.jsonl"]),
            str(paths["pred.jsonl"]),
            "-f",
            "json",
            "-o",
            str(paths["report.json"]),
            "--no-progress",
        ]
    )
    assert code in (0, 1), code
    report = json.loads(paths["report.json"].read_text())
    assert report["confidence_metrics"] and hostile_field in report["field_metrics"]
    if not report.get("gates"):
        report["gates"] = [
            {"gate": IMG, "path": hostile_field, "metric": "cm_f1", "threshold": 0.9, "actual": 0.5, "status": "failed"}
        ]
    return report


def _column(page: Any, index: int) -> list[str]:
    return page.eval_on_selector_all(
        f"table.fields tbody tr td:nth-child({index})", "cells => cells.map(c => c.textContent)"
    )


def test_in_chromium(tmp_path: Path) -> None:
    report = _cli_report(tmp_path)
    html_path = tmp_path / "report.html"
    html_path.write_text(render_html(report), encoding="utf-8")
    screenshot = tmp_path / "report.png"
    with chromium() as browser:
        page, problems = open_page(browser, html_path, {"width": 1280, "height": 900})

        assert page.evaluate("window.__pwned") is None
        assert page.title() == "Probe<script>window.__pwned=1</script> — stickler report"  # as text, unchanged
        # histogram, reliability diagram, review curve, and each primitive field's F1-vs-threshold curve
        assert page.locator("svg.chart").count() == 3 + len(report["thresholds"]["fields"])
        assert page.get_by_text(SCRIPT).count() >= 1  # shown as text

        names = _column(page, 1)
        assert len(names) == 4
        header = page.locator("table.fields thead th", has_text="field").first.locator("button")
        header.click()
        assert _column(page, 1) == sorted(names, key=str.lower) != names
        header.click()
        assert _column(page, 1) == sorted(names, key=str.lower, reverse=True)

        before = _column(page, 3)  # TP, numeric
        tp = page.locator("table.fields thead th:nth-child(3) button")
        tp.press("Enter")  # headers are buttons: the keyboard sorts too
        after = _column(page, 3)
        assert [float(v) for v in after] == sorted(float(v) for v in before)
        tp.click()
        assert [float(v) for v in _column(page, 3)] == sorted((float(v) for v in before), reverse=True)

        page.screenshot(path=str(screenshot), full_page=True)
        assert page.evaluate("window.__pwned") is None
        assert problems == []
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


# --- error analysis in the browser: a field's failing comparisons, the filters, the search -------------------

CLICK_SCRIPT = "</script><script>window.__pwned=1;alert(1)</script>"


def _clicks_report(tmp_path: Path) -> dict[str, Any]:
    """Twenty documents: code wrong in the ten even ones (the fifth's prediction a script), name misspelt in
    documents 1, 5 and 9 (0.667, under its 0.8 threshold), amount missing in 3 and 7, note added in 11.
    The bound is 4 per field, so code keeps 4 of its 10. Scores: 0.75 for every document failing code,
    amount or note (13 of them), 0.917 for a misspelt name: the 10 worst are documents 0, 2, 3, 4, 6, 7, 8,
    10, 11 and 12, four comparisons each (40), one failing each (10), 9 TN (note absent on both sides)."""
    schema = {
        "type": "object",
        "x-aws-stickler-model-name": "Clicks",
        "properties": {
            "code": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
            "name": {
                "type": "string",
                "x-aws-stickler-comparator": "LevenshteinComparator",
                "x-aws-stickler-threshold": 0.8,
            },
            "amount": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
            "note": {"type": ["string", "null"], "x-aws-stickler-comparator": "ExactComparator"},
        },
    }
    gt, pred = [], []
    for i in range(20):
        g = {"code": f"C{i}", "name": f"Name {i}", "amount": i * 10.0 + 1}
        p = dict(g)
        if i % 2 == 0:
            p["code"] = CLICK_SCRIPT if i == 4 else f"X{i}"
        if i in (1, 5, 9):
            p["name"] = f"Nmae {i}"
        if i in (3, 7):
            del p["amount"]
        if i == 11:
            p["note"] = "extra"
        gt.append(g)
        pred.append(p)
    files = {name: tmp_path / name for name in ("s.json", "gt.jsonl", "pred.jsonl", "r.json")}
    files["s.json"].write_text(json.dumps(schema))
    files["gt.jsonl"].write_text("".join(json.dumps(r) + "\n" for r in gt))
    files["pred.jsonl"].write_text("".join(json.dumps(r) + "\n" for r in pred))
    code = main(
        [
            "eval",
            str(files["s.json"]),
            str(files["gt.jsonl"]),
            str(files["pred.jsonl"]),
            "-f",
            "json",
            "-o",
            str(files["r.json"]),
            "--no-progress",
            "--limit",
            "failures-per-field=4",
            "--html",
            str(tmp_path / "r.html"),
        ]
    )  # the samples are kept for --html (and --save-state)
    assert code == 0
    return json.loads(files["r.json"].read_text())


def test_field_failures_in_the_page_say_what_was_seen_and_what_is_shown(tmp_path: Path) -> None:
    report = _clicks_report(tmp_path)
    assert report["field_failures"]["kept_per_field"] == 4
    kept = report["field_failures"]["fields"]
    assert {p: len(rows) for p, rows in kept.items()} == {"code": 4, "name": 3, "amount": 2, "note": 1}
    assert [r["pred"] for r in kept["code"]] == ["X0", "X2", CLICK_SCRIPT, "X6"]
    page = render_html(report)
    assert "<b>10</b> failing (FD 10 · FA 0 · FN 0); showing <b>4</b>, the first 4 in input order" in page
    assert "<b>3</b> failing (FD 3 · FA 0 · FN 0); showing <b>3</b>, all of them." in page
    assert CLICK_SCRIPT not in page and "&lt;/script&gt;&lt;script&gt;window.__pwned=1;alert(1)&lt;/script&gt;" in page
    assert page.count('<section class="failures"') == 4 and page.count('class="field-link"') == 4


def test_the_page_names_the_budget_legends_violations_and_leaves_unknowns_out() -> None:
    report = _report()
    report["confidence_metrics"]["overall"]["error_capture_at_budget"] = {
        "value": 3.067,
        "budgets": {
            "0.10": {
                "fields_reviewed": 3,
                "errors_found": 2,
                "pct_errors_caught": 0.4,
                "pct_errors_random": 0.1,
                "gain": 4.0,
            },
            "0.30": {
                "fields_reviewed": 9,
                "errors_found": 4,
                "pct_errors_caught": 0.92,
                "pct_errors_random": 0.3,
                "gain": 3.067,
            },
            "0.50": {
                "fields_reviewed": 15,
                "errors_found": 5,
                "pct_errors_caught": 1.0,
                "pct_errors_random": 0.5,
                "gain": 2.0,
            },
        },
    }
    report["confidence_metrics"]["fields"] = {
        "plain": {
            "auroc": {"value": 0.625},
            "brier_score": {"value": 0.2},
            "ece": {"value": 0.05},
            "error_capture_at_budget": {"value": None},
        }
    }
    report["schema_violations"] = {"plain": {"type": 3, "maxLength": 1}, "$": {"required": 2}}
    report["errors"] = [
        {"source": "pred_err.jsonl", "line": 58, "doc_id": None, "message": "broken"},
        {"source": "pred.jsonl", "line": None, "doc_id": "D-42", "message": "missing"},
    ]
    page = render_html(report)
    assert "<b>3.067</b><span>error-capture gain reviewing the least confident 30% (× random)</span>" in page
    assert '<th><button type="button">Gain@30%</button></th>' in page.replace(' data-type="num"', "")
    assert '<td class="n" data-sort="0.625">0.625</td>' in page  # the per-field calibration row
    assert "TP: matched" in page and "FN: in the truth, not predicted" in page  # the bars' legend
    assert "bars, the share right per confidence bin" in page
    violations = re.findall(
        r'<tr><td>([^<]*)</td><td><code>([^<]*)</code></td><td class="n" data-sort="[^"]*">(\d+)<', page
    )
    assert violations == [("plain", "type", "3"), ("plain", "maxLength", "1"), ("$", "required", "2")]
    assert "<li>pred_err.jsonl:58: broken</li>" in page and "<li>pred.jsonl (D-42): missing</li>" in page
    assert "(null)" not in page


def test_confidence_and_default_marks_render_when_rows_carry_them() -> None:
    """Rows made by a version that marks confidences and filled-in defaults (the failures contract)."""
    report = _report()
    report["worst_documents"][0]["comparisons"].append(
        {
            "path": "currency",
            "type": "FD",
            "gt": "CAD",
            "pred": "USD",
            "similarity": 0.0,
            "score": 0.0,
            "threshold": 1.0,
            "comparator": "ExactComparator",
            "confidence": 0.93,
            "gt_default": False,
            "pred_default": True,
        }
    )
    report["field_failures"] = {
        "kept_per_field": 20,
        "fields": {
            "plain": [
                {
                    "doc_id": "d1",
                    "path": "plain",
                    "type": "FN",
                    "gt": "x" * 40,
                    "pred": None,
                    "similarity": 0.0,
                    "score": 0.0,
                    "threshold": 1.0,
                    "comparator": "ExactComparator",
                    "confidence": 0.25,
                },
                {
                    "doc_id": "d2",
                    "path": "plain",
                    "type": "FD",
                    "gt": '"' + "y" * 998 + "…",
                    "pred": "z",
                    "similarity": 0.1,
                    "score": 0.0,
                    "threshold": 1.0,
                    "comparator": "ExactComparator",
                    "cut": ["gt"],
                },
            ]
        },
    }
    page = render_html(report)
    assert '<td><code>&quot;USD&quot;</code><span class="dflt"' in page and ">default</span>" in page
    assert '<td class="n" data-sort="0.93">0.930</td>' in page and '<td class="n" data-sort="0.25">0.250</td>' in page
    assert "<code>&quot;yyy" in page and '<span class="cut">(cut)</span>' in page
    bare = render_html(_report())  # rows without the keys: a dash, no mark
    assert 'class="dflt"' not in bare and '<td class="n" data-sort="">—</td>' in bare


def _shown_rows(page: Any, selector: str) -> int:
    return page.eval_on_selector_all(
        selector, "rows => rows.filter(r => getComputedStyle(r).display !== 'none').length"
    )


def test_clicks_filters_and_search_in_chromium(tmp_path: Path) -> None:
    report = _clicks_report(tmp_path)
    kept = report["field_failures"]["fields"]
    worst = [d["doc_id"] for d in report["worst_documents"]]
    html_path = tmp_path / "clicks.html"
    html_path.write_text(render_html(report), encoding="utf-8")
    with chromium() as browser:
        page, problems = open_page(browser, html_path, {"width": 1280, "height": 900})
        assert page.locator("section.failures:visible").count() == 0  # no panel before a click

        def panel_after_clicking(field: str) -> Any:
            page.locator("table.fields button.field-link", has_text=field).first.click()
            assert page.locator("section.failures:visible").count() == 1  # the other panels are hidden
            return page.locator("section.failures:visible")

        def cells(panel: Any, column: int) -> list[str]:
            return panel.locator(f"tbody tr td:nth-child({column})").all_inner_texts()

        code = panel_after_clicking("code")
        assert code.locator("h3").inner_text() == "Failing comparisons of code"
        assert code.locator("p").inner_text() == (
            "10 failing (FD 10 · FA 0 · FN 0); showing 4, the first 4 in "
            "input order (--limit failures-per-field=N keeps more)."
        )
        assert cells(code, 1) == [r["doc_id"] for r in kept["code"]]
        assert cells(code, 3) == ["FD"] * 4
        assert cells(code, 4) == ['"C0"', '"C2"', '"C4"', '"C6"']
        assert cells(code, 5) == ['"X0"', '"X2"', json.dumps(CLICK_SCRIPT), '"X6"']  # a script, as text
        name = panel_after_clicking("name")
        assert name.locator("p").inner_text() == "3 failing (FD 3 · FA 0 · FN 0); showing 3, all of them."
        assert cells(name, 5) == ['"Nmae 1"', '"Nmae 5"', '"Nmae 9"']
        assert cells(name, 7) == ["0.667"] * 3  # similarity, under the 0.8 threshold
        amount = panel_after_clicking("amount")
        assert cells(amount, 3) == ["FN", "FN"] and cells(amount, 4) == ["31.0", "71.0"]
        assert cells(amount, 5) == ["null", "null"]
        note = panel_after_clicking("note")
        assert cells(note, 3) == ["FA"] and cells(note, 5) == ['"extra"']

        status = page.locator("#doc-status")
        rows = "#worst tbody tr"
        assert page.locator("#worst details.document").count() == 10
        assert status.inner_text() == "10 comparisons shown in 10 documents"  # TP and TN hidden at first
        assert _shown_rows(page, rows) == 10
        page.locator("#hide-ok").uncheck()
        assert status.inner_text() == "40 comparisons shown in 10 documents" and _shown_rows(page, rows) == 40
        page.locator("#hide-ok").check()
        assert status.inner_text() == "10 comparisons shown in 10 documents" and _shown_rows(page, rows) == 10

        search = page.locator("#doc-search")
        search.fill("x8")  # a predicted value, case folded
        assert status.inner_text() == "1 comparison shown in 1 document" and _shown_rows(page, rows) == 1
        assert page.locator("#worst details.document:visible").count() == 1
        assert page.locator(f"{rows}:visible").inner_text().split("\t")[:4] == ["code", "FD", '"C8"', '"X8"']
        page.locator("#hide-ok").uncheck()  # the right comparisons of that document do not match
        assert status.inner_text() == "1 comparison shown in 1 document"
        search.fill("amount")  # a path: every worst document has one
        assert status.inner_text() == "10 comparisons shown in 10 documents"
        page.locator("#hide-ok").check()
        assert status.inner_text() == "2 comparisons shown in 2 documents"  # the two missing amounts
        search.fill(worst[-1])  # a document: all its comparisons (document 12, its note added)
        assert status.inner_text() == "1 comparison shown in 1 document"
        page.locator("#hide-ok").uncheck()
        assert status.inner_text() == "4 comparisons shown in 1 document" and _shown_rows(page, rows) == 4
        search.fill("")
        assert status.inner_text() == "40 comparisons shown in 10 documents"

        assert page.evaluate("window.__pwned") is None
        assert problems == []


def test_the_summary_counts_schema_validity_over_the_records_read() -> None:
    """One denominator, as the terminal's "Schema-valid 0.929 (39 of 42)": a record that is not JSON is not valid."""
    report = {
        "schema_conformance": {
            "predictions_read": 42,
            "valid_json": 40,
            "valid_json_rate": 40 / 42,
            "checked": 40,
            "schema_valid": 39,
            "schema_valid_rate": 39 / 42,
            "violations": 3,
        }
    }
    page = render_html(report)
    assert "39 of 42 valid against the schema (92.9%;" in page
    assert "of 40 valid against" not in page


def test_a_field_table_of_long_paths_fits_a_1920_pixel_window(tmp_path: Path) -> None:
    """Every column of the field table (the breakdown bars too) is visible without scrolling, with
    field paths as long as real schemas have (the page was once capped at 1,240 pixels)."""
    leaf = {"type": "string", "x-aws-stickler-comparator": "LevenshteinComparator"}
    schema = {
        "type": "object",
        "properties": {
            "beneficiary_information_section": {
                "type": "object",
                "properties": {
                    "secondary_insurance_policy_holder_details": {
                        "type": "object",
                        "properties": {"employer_identification_number": leaf, "employer_name": leaf},
                    }
                },
            }
        },
    }
    paths = {name: tmp_path / name for name in ("s.json", "g.jsonl", "p.jsonl")}
    paths["s.json"].write_text(json.dumps(schema))
    value = lambda v: {  # noqa: E731
        "beneficiary_information_section": {
            "secondary_insurance_policy_holder_details": {
                "employer_identification_number": v,
                "employer_name": v,
            }
        }
    }
    paths["g.jsonl"].write_text("".join(json.dumps(value(f"v{i}")) + "\n" for i in range(5)))
    paths["p.jsonl"].write_text("".join(json.dumps(value(f"v{i % 2}")) + "\n" for i in range(5)))
    target = tmp_path / "r.html"
    main(["eval", *(str(paths[n]) for n in ("s.json", "g.jsonl", "p.jsonl")), "--html", str(target), "--no-progress"])
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1920, "height": 1000})
        page.goto(target.as_uri(), wait_until="load")
        width, shown = page.eval_on_selector(
            "table.fields", "t => [t.parentElement.scrollWidth, t.parentElement.clientWidth]"
        )
        assert width <= shown, (width, shown)


def test_document_names_and_paths_are_shown_whole_in_every_table() -> None:
    """A FILE:LINE name of 150 characters ends in its line number: the field panels once cut it at 120."""
    name = "s3-mirror/" + "claims-batch-2026-07/" * 6 + "gt.jsonl:1742"
    path = "beneficiary_information_section.secondary_insurance_policy_holder_details.employer_identification_number"
    row = {
        "doc_id": name,
        "path": path,
        "type": "FD",
        "gt": "a",
        "pred": "b",
        "similarity": 0.0,
        "score": 0.0,
        "threshold": 1.0,
        "comparator": "ExactComparator",
    }
    block = {
        "tp": 0,
        "fa": 0,
        "fd": 1,
        "fp": 1,
        "fn": 0,
        "tn": 0,
        "cm_precision": 0.0,
        "cm_recall": 0.0,
        "cm_f1": 0.0,
        "cm_accuracy": 0.0,
        "mean_score": 0.0,
        "weight": 1.0,
        "comparator": "ExactComparator",
    }
    page = render_html(
        {
            "field_metrics": {path: block},
            "field_failures": {"kept_per_field": 20, "fields": {path: [row]}},
            "worst_documents": [
                {"doc_id": name, "score": 0.0, "gt_line": 1742, "pred_line": 1742, "comparisons": [row]}
            ],
        }
    )
    assert len(name) > 120 and page.count(f"<td>{name}</td>") == 1  # the field panel
    assert f"<b>{name}</b>" in page  # the worst document
    assert page.count(f"<td>{path}</td>") == 2 and f"<code>{path}</code>" in page
