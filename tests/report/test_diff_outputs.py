"""`stickler diff` names the figures that got worse, and writes Markdown, JUnit XML and HTML like eval."""

from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import pytest
import xmlschema

from stickler_cli.cli.app import main

XSD = Path(__file__).parents[1] / "support" / "junit.xsd"
HOSTILE = "n<script>alert(1)</script>|*b*"  # a field name from an untrusted schema


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """300 documents; B breaks the id of every third and the amount of every fourth: both significantly worse."""
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "x-aws-stickler-model-name": "Doc",
                "properties": {
                    "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    HOSTILE: {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
                    "note": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                },
            }
        )
    )
    rng = np.random.default_rng(0)
    gt = [{"id": f"d{k}", HOSTILE: k, "note": "x"} for k in range(300)]
    a = [{"id": r["id"] if rng.uniform() < 0.97 else "?", HOSTILE: r[HOSTILE], "note": "x"} for r in gt]
    b = [
        dict(r, id="?" if k % 3 == 0 else r["id"], **{HOSTILE: -1 if k % 4 == 0 else r[HOSTILE]})
        for k, r in enumerate(a)
    ]
    paths = {"schema": schema, "gt": tmp_path / "gt.jsonl", "a": tmp_path / "a.jsonl", "b": tmp_path / "b.jsonl"}
    for name, rows in (("gt", gt), ("a", a), ("b", b)):
        paths[name].write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {k: str(v) for k, v in paths.items()}


def _diff(files, *extra: str) -> list[str]:
    return ["diff", files["schema"], files["gt"], files["a"], files["b"], "--bootstrap", "300", *extra]


def test_the_verdict_names_the_watched_figures_that_got_worse(files, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    assert main(_diff(files, "--fail-on-regression")) == 1
    out, err = capsys.readouterr()
    assert (
        f"B is significantly worse on 3 watched figure(s): weighted_overall_score, id.cm_f1, {HOSTILE}.cm_f1"
    ) in out
    assert err == ""  # the table said it
    assert "better or worse: p < 0.05 and the 95% interval leaves out 0; anything else is noise" in out
    assert main(_diff(files, "--fail-on-regression", "-f", "json")) == 1
    out, err = capsys.readouterr()
    assert err == (
        "stickler: B is significantly worse on 3 watched figure(s): weighted_overall_score, id.cm_f1, "
        f"{HOSTILE}.cm_f1\n"
    )
    # A against itself: nothing named
    assert main(["diff", files["schema"], files["gt"], files["a"], files["a"]]) == 0
    assert "No significant difference on the watched figures" in capsys.readouterr().out


def test_markdown_and_the_step_summary(files, tmp_path, capsys, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    target = tmp_path / "diff.json"
    assert main(_diff(files, "-f", "markdown", "-o", str(target))) == 0
    out = capsys.readouterr().out
    report = json.loads(target.read_text())
    assert out.startswith("## stickler diff · `Doc` · 300 documents · 95% intervals\n")
    assert (
        f"**❌ B is significantly worse on 3 watched figure(s): `weighted_overall_score`, `id.cm_f1`, "
        f"`{HOSTILE.replace('|', chr(92) + '|')}.cm_f1`**"
    ) in out
    assert "<script>" not in out.replace(f"`{HOSTILE.replace('|', chr(92) + '|')}", "")  # only inside code spans
    f1 = next(r for r in report["comparisons"] if r["path"] == "id" and r["metric"] == "cm_f1")
    ci = f1["ci"]
    assert (
        f"| `id.cm_f1` | {f1['a']:.3f} | {f1['b']:.3f} | {f1['difference']:+.3f} | "
        f"[{ci['low']:+.3f}, {ci['high']:+.3f}] | {f1['p_value']:.3f} | **worse** (watched) |"
    ) in out
    assert "| `note.cm_f1` | 1.000 | 1.000 | +0.000 | [+0.000, +0.000] | 1.000 | noise (watched) |" in out
    assert (
        "\n_better or worse: p < 0.05 and the 95% interval leaves out 0; anything else is noise (both tests "
        "must agree)_\n" in out
    )
    # appended whatever --format says
    assert main(_diff(files)) == 0
    capsys.readouterr()
    text = summary.read_text()
    assert text.startswith("earlier step\n## stickler diff") and text.count("## stickler diff") == 2


def test_junit_has_a_case_per_watched_figure(files, tmp_path, capsys):
    junit = tmp_path / "diff.xml"
    assert main(_diff(files, "--junit", str(junit), "--metric", "*.cm_f1", "--metric", "*.cm_precision")) == 0
    assert "JUnit XML written to" in capsys.readouterr().out
    xmlschema.XMLSchema(str(XSD)).validate(str(junit))
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("name") == "stickler.diff"
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert sorted(cases) == sorted(f"{p}.{m}" for p in ("id", HOSTILE, "note") for m in ("cm_f1", "cm_precision"))
    failed = sorted(name for name, c in cases.items() if c.find("failure") is not None)
    assert failed == sorted(["id.cm_f1", "id.cm_precision", f"{HOSTILE}.cm_f1", f"{HOSTILE}.cm_precision"])
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("6", "4", "0")
    failure = cases["id.cm_f1"].find("failure")
    assert failure.get("type") == "Regression" and failure.get("message").startswith("B is significantly worse: -0.")
    assert re.fullmatch(
        r"A 0\.\d{4}, B 0\.\d{4}, B - A -0\.\d{4}, 95% interval \[-0\.\d{4}, -0\.\d{4}\], p 0\.\d{4}", failure.text
    )


def test_html_page_of_the_diff(files, tmp_path, capsys):
    page_path = tmp_path / "diff.html"
    assert main(_diff(files, "--html", str(page_path))) == 0
    capsys.readouterr()
    page = page_path.read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Content-Security-Policy" in page and "http" not in page.replace("http-equiv", "")
    assert (
        "B is significantly worse on 3 watched figure(s): <code>weighted_overall_score</code>, "
        "<code>id.cm_f1</code>, <code>n&lt;script&gt;"
    ) in page
    assert (
        page.count('<tr class="failed">') >= 3 and page.count("<tr") == 1 + 1 + 3 * 5
    )  # header, weighted, 3 fields × 5 figures


def test_html_page_of_the_diff_in_chromium(files, tmp_path, capsys):
    """The page loads with no console error (its script allowed by the policy) and sorts on a click."""
    from tests.support.browser import chromium, open_page

    page_path = tmp_path / "diff.html"
    assert main(_diff(files, "--html", str(page_path))) == 0
    capsys.readouterr()
    with chromium() as browser:
        page, problems = open_page(browser, page_path)
        figures = page.eval_on_selector_all("tbody tr td:nth-child(1)", "cells => cells.map(c => c.textContent)")
        assert len(figures) == 16 and figures[0] == "weighted_overall_score"
        page.locator("thead th", has_text="p").locator("button").click()
        p_values = page.eval_on_selector_all("tbody tr td:nth-child(7)", "cells => cells.map(c => c.textContent)")
        assert [float(v) for v in p_values if v != "—"] == sorted(float(v) for v in p_values if v != "—")
        assert page.evaluate("document.querySelectorAll('tr.failed').length") >= 3
        assert problems == []


def test_blank_ground_truth_lines_are_not_held_between_the_two_sides(tmp_path):
    """diff reads the ground truth once for both sides; a batch of one side read a run of blank lines ahead of
    the other, which held them line by line: 15 million took 1.6 GB (found by review). They are held as runs."""
    import tracemalloc

    from stickler_cli import compile_schema
    from stickler_cli.run.evaluate import evaluate_two

    plan = compile_schema({"type": "object", "properties": {"n": {"type": "string"}}})
    gt, one = tmp_path / "g.jsonl", tmp_path / "one.jsonl"
    gt.write_bytes(b'{"n": "0"}\n' + b"\n" * 200_000 + b'{"n": "1"}\n')
    one.write_bytes(b'{"n": "0"}\n' + b"\n" * 200_000 + b'{"n": "2"}\n')
    tracemalloc.start()
    a, b = evaluate_two(plan, str(gt), str(one), str(one))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert a.accumulator.document_count == b.accumulator.document_count == 2
    assert a.accumulator.stats["gt_lines"] == 2 and a.accumulator.stats["blank_lines"] == 400_000
    assert peak < 8 * 2**20, peak  # line by line: about 40 MB


@pytest.fixture
def troubled(tmp_path: Path) -> dict[str, str]:
    """Ten documents {id, n}. A is right everywhere but line 8, which is not JSON (scored as empty); B is right on
    line 8, wrong on n at lines 2 and 3, and lacks line 10 (a missing prediction, scored as empty)."""
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "x-aws-stickler-model-name": "Doc",
                "properties": {
                    "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "n": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
                },
            }
        )
    )
    gt = [json.dumps({"id": f"d{k}", "n": k}) for k in range(1, 11)]
    a = list(gt)
    a[7] = a[7][:-3]
    b = [json.dumps({"id": f"d{k}", "n": -1 if k in (2, 3) else k}) for k in range(1, 10)]
    paths = {"schema": schema, "gt": tmp_path / "gt.jsonl", "a": tmp_path / "a.jsonl", "b": tmp_path / "b.jsonl"}
    for name, rows in (("gt", gt), ("a", a), ("b", b)):
        paths[name].write_text("".join(r + "\n" for r in rows))
    return {k: str(v) for k, v in paths.items()}


def test_each_sides_record_problems_and_changed_documents_are_in_every_format(troubled, tmp_path, capsys, monkeypatch):
    """Issue 37: diff said nothing of A's unreadable line 8 nor of B's missing document, and named no document.
    Both problems, with their side, file and line, are in the JSON, the table, Markdown, HTML and JUnit; and per
    figure the documents B made worse and better. Worked out by hand: field n (1 when right, 0 when not or
    empty) is worse on lines 2, 3 and 10 (1 → 0), better on line 8 (0 → 1); id is worse on 10, better on 8;
    a document's score is the mean of its two fields' (weight 1 each): worse on 10 (1 → 0), then 2 and 3
    (1 → 0.5), better on 8 (0 → 1). The most changed come first, ties in input order."""
    monkeypatch.setenv("COLUMNS", "80")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out_json, junit, page = tmp_path / "d.json", tmp_path / "d.xml", tmp_path / "d.html"
    f = troubled
    assert (
        main(
            [
                "diff",
                f["schema"],
                f["gt"],
                f["a"],
                f["b"],
                "--bootstrap",
                "100",
                "-o",
                str(out_json),
                "--junit",
                str(junit),
                "--html",
                str(page),
            ]
        )
        == 0
    )
    table = capsys.readouterr().out
    report = json.loads(out_json.read_text())
    gt = f["gt"]
    assert [(e["side"], e["source"], e["line"], e["doc_id"], e["message"][:24]) for e in report["errors"]] == [
        ("A", f["a"], 8, "d8", "prediction not valid JSO"),
        ("B", f["b"], None, "d10", "no prediction for this g"),
    ]
    assert report["warnings"] == []
    changed = {e["path"]: e for e in report["changed_documents"]}
    assert list(changed) == [None, "id", "n"]

    def named(entry, kind):
        return [(d["document"].removeprefix(gt + ":"), d["a"], d["b"]) for d in entry[kind]]

    assert named(changed[None], "worse") == [("10", 1.0, 0.0), ("2", 1.0, 0.5), ("3", 1.0, 0.5)]
    assert named(changed[None], "better") == [("8", 0.0, 1.0)]
    assert named(changed["n"], "worse") == [("2", 1.0, 0.0), ("3", 1.0, 0.0), ("10", 1.0, 0.0)]  # ties: input order
    assert named(changed["n"], "better") == [("8", 0.0, 1.0)]
    assert named(changed["id"], "worse") == [("10", 1.0, 0.0)] and named(changed["id"], "better") == [("8", 0.0, 1.0)]
    assert (changed["n"]["worse_count"], changed["n"]["better_count"]) == (3, 1)
    # The table wraps at 80 columns, never cuts; read without white space (a long temporary path folds mid-word).
    flat = "".join(table.split())

    def shown(text: str) -> bool:
        return "".join(text.split()) in flat

    assert shown(f"A: {f['a']}:8 (d8): prediction not valid JSON")
    assert shown(f"B: {f['b']} (d10): no prediction for this ground truth")
    assert shown(
        f"n: worse in 3: {gt}:2 (1.000 → 0.000), {gt}:3 (1.000 → 0.000), {gt}:10 (1.000 → 0.000); better "
        f"in 1: {gt}:8 (0.000 → 1.000)"
    )
    markdown = summary.read_text()
    assert "2 record problem(s)" in markdown and f"- `A: {f['a']}:8 (d8)`: `prediction not valid JSON" in markdown
    assert f"- `B: {f['b']} (d10)`: `no prediction for this ground truth" in markdown
    assert f"- `n`: worse in 3: `{gt}:2` (1.000 → 0.000), `{gt}:3` (1.000 → 0.000), `{gt}:10` " in markdown
    html = page.read_text()
    assert "<h2>Errors (2)</h2>" in html and f"A: {f['a']}:8 (d8): prediction not valid JSON" in html
    assert f"B: {f['b']} (d10): no prediction" in html and "<h2>Documents B changed (score A → B)</h2>" in html
    xmlschema.XMLSchema(str(XSD)).validate(str(junit))
    err = ET.parse(junit).getroot().find("testsuite").find("system-err").text
    assert err.splitlines()[0].startswith(f"A: {f['a']}:8 (d8): prediction not valid JSON")
    assert err.splitlines()[1].startswith(f"B: {f['b']} (d10): no prediction for this ground truth")


def test_changed_documents_are_bounded_with_and_more(files, capsys):
    """100 of the 300 documents lose their id in B (and A got some right that B breaks): five are named per
    figure and direction, the rest counted."""
    assert main(_diff(files, "-f", "json")) == 0
    report = json.loads(capsys.readouterr().out)
    gt = [json.loads(line) for line in Path(files["gt"]).read_text().splitlines()]
    a = [json.loads(line) for line in Path(files["a"]).read_text().splitlines()]
    id_worse = sum(1 for k, (g, x) in enumerate(zip(gt, a)) if k % 3 == 0 and x["id"] == g["id"])
    entry = next(e for e in report["changed_documents"] if e["path"] == "id")
    assert entry["worse_count"] == id_worse and len(entry["worse"]) == 5 and entry["better_count"] == 0
    assert [d["document"] for d in entry["worse"]][:1] == [f"{files['gt']}:1"]
