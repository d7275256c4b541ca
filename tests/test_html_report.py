"""The HTML report: self-contained, escaped everywhere, and working in a real headless Chromium."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from stickler_cli.cli import main
from stickler_cli.reporters.html import render_html

SCRIPT = "<script>document.title='pwned';window.__pwned=1</script>"
IMG = '"><img src=x onerror="window.__pwned=1">'
TEXTAREA = "</textarea><svg onload=window.__pwned=1>"
HOSTILE = [SCRIPT, IMG, TEXTAREA]
HOSTILE_FIELD = 'x"><img src=x onerror=window.__pwned=1>\x07'
TAGS = {"html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "p", "div", "b", "span", "table",
        "thead", "tbody", "tr", "th", "td", "button", "code", "details", "summary", "caption", "ul", "li", "script",
        "svg", "rect", "line", "text", "circle", "polyline", "small"}


def _report(confidence: bool = True) -> dict[str, Any]:
    """A report with every section, hostile text wherever the data can put text."""
    comparisons = [
        {"path": HOSTILE_FIELD, "type": "FD", "gt": "a", "pred": SCRIPT, "similarity": 0.1, "score": 0.1,
         "threshold": 1.0, "comparator": "ExactComparator"},
        {"path": "b", "type": "FA", "gt": None, "pred": {"_value": IMG, "_confidence": 0.9}, "similarity": 0.0},
        {"path": "c", "type": "FN", "gt": [TEXTAREA, 2**70], "pred": None, "similarity": 0.0},
        {"path": "d", "type": "TP", "gt": "x" * 5000, "pred": "x" * 5000, "similarity": 1.0},
    ]
    field = {"tp": 3, "fa": 1, "fd": 2, "fp": 3, "fn": 1, "tn": 0, "cm_precision": 0.5, "cm_recall": 0.75,
             "cm_f1": 0.6, "cm_accuracy": 0.43, "weight": 1.0, "threshold": 1.0, "comparator": SCRIPT,
             "schema_violations": 0}
    report: dict[str, Any] = {
        "tool": {"name": "stickler", "version": "0.1.0"},
        "schema": {"path": "s.json", "model_name": SCRIPT},
        "inputs": {"records": {"gt_lines": 2, "pred_lines": 2, "paired": 2, "unpaired_predictions": 0,
                               "missing_predictions": 0, "invalid_predictions": 0}},
        "document_count": 2,
        "metrics": {"tp": 3, "fa": 1, "fd": 2, "fp": 3, "fn": 1, "tn": 0, "cm_precision": 0.5, "cm_recall": 0.75,
                    "cm_f1": 0.6, "cm_accuracy": 0.43, "weighted_overall_score": 0.5},
        "schema_conformance": {"predictions_read": 2, "valid_json": 2, "valid_json_rate": None, "checked": 2,
                               "schema_valid": 1, "schema_valid_rate": 0.5, "violations": 1},
        "field_metrics": {HOSTILE_FIELD: dict(field, mean_score=0.4), "plain": field},
        "gates": [{"gate": IMG, "path": HOSTILE_FIELD, "metric": "cm_f1", "threshold": 0.9, "actual": 0.6,
                   "status": "failed"}],
        "score_histogram": {"bins": 20, "counts": [0] * 19 + [2]},
        "confidence_metrics": None,
        "worst_documents": [{"doc_id": TEXTAREA, "gt_line": 1, "pred_line": 1, "score": 0.1,
                             "comparisons": comparisons}],
        "errors": [{"source": "p.jsonl", "line": i, "doc_id": f"line {i}", "message": SCRIPT} for i in range(60)],
    }
    if confidence:
        report["confidence_metrics"] = {
            "overall": {"auroc": {"value": 0.7}, "brier_score": {"value": None},
                        "ece": {"value": 0.1, "bins": [{"range": [0.0, 0.5], "count": 3, "accuracy": 0.3,
                                                        "mean_confidence": 0.25},
                                                       {"range": [0.5, 1.0], "count": 0, "accuracy": 0.0,
                                                        "mean_confidence": 0.0}]}},
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
    assert "Reliability diagram" not in page and "Review-budget curve" not in page and "auroc" in page


# --- in a real browser ---------------------------------------------------------------------------------

CHROMIUM = os.environ.get("STICKLER_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def _no_browser(reason: str) -> None:
    if os.environ.get("STICKLER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"STICKLER_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def _cli_report(tmp_path: Path) -> dict[str, Any]:
    """A report from the real CLI, end to end, on predictions that carry script payloads and confidences."""
    hostile_field = 'x"><img src=x onerror=window.__pwned=1>'
    schema = {"type": "object", "x-aws-stickler-model-name": "Probe<script>window.__pwned=1</script>", "properties": {
        "name": {"type": "string", "x-aws-stickler-comparator": "LevenshteinComparator", "x-aws-stickler-threshold": 0.8},
        "code": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "amount": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
        hostile_field: {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}}}
    gt, pred = [], []
    for i in range(12):
        gt.append({"name": f"Name {i}", "code": f"C{i}", "amount": i * 10.5, hostile_field: "k"})
        pred.append({"name": {"_value": f"Name {i}" if i % 3 else f"Nmae {i}", "_confidence": (i * 7 % 10) / 10},
                     "code": {"_value": f"C{i}" if i % 4 else "X", "_confidence": (i * 3 % 10) / 10},
                     "amount": {"_value": i * 10.5 if i % 2 else i * 11.0, "_confidence": 0.05 + i / 13}})
    pred[5] = {"name": SCRIPT, "code": IMG, "amount": "</script><script>window.__pwned=1</script>",
               hostile_field: TEXTAREA + "\x07"}
    paths = {name: tmp_path / name for name in ("schema.json", "gt.jsonl", "pred.jsonl", "report.json")}
    paths["schema.json"].write_text(json.dumps(schema))
    paths["gt.jsonl"].write_text("".join(json.dumps(r) + "\n" for r in gt))
    paths["pred.jsonl"].write_text("".join(json.dumps(r) + "\n" for r in pred))
    code = main(["eval", str(paths["schema.json"]), str(paths["gt.jsonl"]), str(paths["pred.jsonl"]),
                 "-f", "json", "-o", str(paths["report.json"]), "--no-progress"])
    assert code in (0, 1), code
    report = json.loads(paths["report.json"].read_text())
    assert report["confidence_metrics"] and hostile_field in report["field_metrics"]
    if not report.get("gates"):
        report["gates"] = [{"gate": IMG, "path": hostile_field, "metric": "cm_f1", "threshold": 0.9,
                            "actual": 0.5, "status": "failed"}]
    return report


def _column(page: Any, index: int) -> list[str]:
    return page.eval_on_selector_all(f"table.fields tbody tr td:nth-child({index})", "cells => cells.map(c => c.textContent)")


def test_in_chromium(tmp_path: Path) -> None:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        _no_browser("playwright is not installed (pip install playwright; no `playwright install` needed)")
    if not Path(CHROMIUM).exists():
        _no_browser(f"no Chromium at {CHROMIUM} (apt-get install chromium, or set STICKLER_CHROMIUM)")
    report = _cli_report(tmp_path)
    html_path = tmp_path / "report.html"
    html_path.write_text(render_html(report), encoding="utf-8")
    screenshot = tmp_path / "report.png"
    with sync_playwright() as driver:
        try:
            browser = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        except Error as exc:
            _no_browser(f"Chromium at {CHROMIUM} did not start: {exc}")
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            problems: list[str] = []
            page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.goto(html_path.as_uri(), wait_until="load")

            assert page.evaluate("window.__pwned") is None
            assert page.title() == "Probe<script>window.__pwned=1</script> — stickler report"  # as text, unchanged
            assert page.locator("svg.chart").count() == 3  # histogram, reliability diagram, review curve
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
        finally:
            browser.close()
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
