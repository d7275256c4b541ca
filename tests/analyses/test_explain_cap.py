"""One document's explanation is capped (issue 37, item 11; --limit explain-items): the worst documents, the
failing comparisons of --show-errors, Markdown, HTML, --non-matches and `stickler compare` hold the first N
comparisons of a document and say how many more there were, by type. A prediction holding a list of a million
strings made a million rows (1.5 GB, a 352 MB report)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

import stickler_cli as st
from stickler_cli import limits
from stickler_cli.engine import Engine

ROOT = Path(__file__).resolve().parents[2]

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "tags": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-comparator": "ExactComparator"},
    },
}
# 1 + 3 + 27 = 31 comparisons: id (TP), three item pairs (each FD: no predicted tag is a ground-truth one), then
# the 27 predicted tags left without a partner (FA), in that order.
GT = {"id": "a", "tags": ["x", "y", "z"]}
PRED = {"id": "a", "tags": [f"p{k}" for k in range(30)]}
CAP = 5  # kept: id, the three pairs, the first unpaired tag; not shown: the other 26 FAs


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"schema": tmp_path / "s.json", "gt": tmp_path / "gt.jsonl", "pred": tmp_path / "pred.jsonl"}
    paths["schema"].write_text(json.dumps(SCHEMA))
    paths["gt"].write_text(json.dumps(GT) + "\n")
    paths["pred"].write_text(json.dumps(PRED) + "\n")
    return {k: str(v) for k, v in paths.items()}


@pytest.fixture
def capped():
    before = limits.current()
    limits.use(limits.parse([f"explain-items={CAP}"]))
    yield
    limits.use(before)


def _run(files: dict[str, str], *extra: str) -> subprocess.CompletedProcess:
    """The CLI as a pipeline runs it: a fresh process, stdout piped, 80 columns."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "stickler_cli",
            "eval",
            files["schema"],
            files["gt"],
            files["pred"],
            "--no-progress",
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT)},
    )


def test_the_json_report_keeps_the_first_comparisons_and_counts_the_rest(files, tmp_path):
    report_path = tmp_path / "r.json"
    done = _run(files, "--limit", f"explain-items={CAP}", "-o", str(report_path))
    assert done.returncode == 0, done.stderr
    report = json.loads(report_path.read_text())
    jsonschema.validate(report, json.loads((ROOT / "schemas/report.schema.json").read_text()))
    doc = report["worst_documents"][0]
    # The first CAP comparisons, then the next CAP failing ones: 10 of 31.
    assert [(c["path"], c["type"]) for c in doc["comparisons"]] == [
        ("id", "TP"),
        ("tags[0↔0]", "FD"),
        ("tags[1↔1]", "FD"),
        ("tags[2↔2]", "FD"),
        ("tags[-↔3]", "FA"),
        *((f"tags[-↔{j}]", "FA") for j in range(4, 9)),
    ]
    assert doc["comparisons_not_shown"] == {"count": 21, "by_type": {"FA": 21}, "limit": "explain-items"}
    # The figures are those of every comparison, as without the cap (parity).
    whole_path = tmp_path / "whole.json"
    assert _run(files, "-o", str(whole_path)).returncode == 0
    whole = json.loads(whole_path.read_text())
    assert len(whole["worst_documents"][0]["comparisons"]) == 31
    assert "comparisons_not_shown" not in whole["worst_documents"][0]
    assert report["metrics"] == whole["metrics"] and report["field_metrics"] == whole["field_metrics"]
    assert report["field_metrics"]["tags"]["fa"] == 27 and report["field_metrics"]["tags"]["fd"] == 3


def test_show_errors_at_80_columns_piped_says_how_many_more(files):
    done = _run(files, "--limit", f"explain-items={CAP}", "--show-errors", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "    … and 21 more failing comparisons not shown (--limit explain-items)" in lines
    shown = [line for line in lines if re.match(r" tags\[", line)]
    assert [line.split()[0] for line in shown] == [
        "tags[0↔0]",
        "tags[1↔1]",
        "tags[2↔2]",
        *(f"tags[-↔{j}]" for j in range(3, 9)),
    ]


def test_markdown_html_and_non_matches_say_it_too(files, tmp_path):
    misses, html = tmp_path / "nm.jsonl", tmp_path / "r.html"
    done = _run(
        files, "--limit", f"explain-items={CAP}", "-f", "markdown", "--non-matches", str(misses), "--html", str(html)
    )
    assert done.returncode == 0, done.stderr
    assert "… and 21 more failing comparisons not shown (--limit explain-items)" in done.stdout
    assert "30 failing comparison(s)" in done.stdout  # 9 shown + 21 not
    assert "… and 21 more comparisons not shown (--limit explain-items)" in html.read_text()
    lines = [json.loads(line) for line in misses.read_text().splitlines()]
    assert [r["path"] for r in lines[:-1]] == [
        "tags[0↔0]",
        "tags[1↔1]",
        "tags[2↔2]",
        *(f"tags[-↔{j}]" for j in range(3, 9)),
    ]
    assert lines[-1] == {
        "doc_id": lines[0]["doc_id"],
        "not_shown": {"count": 21, "by_type": {"FA": 21}, "limit": "explain-items"},
    }
    done = _run(files, "--limit", f"explain-items={CAP}", "--non-matches", str(misses))
    assert done.returncode == 0, done.stderr
    # The note without its white space, however it folds at 80 columns (a long temporary path breaks mid-word).
    note = "".join(done.stdout.split())
    assert (
        "".join(
            (
                f"9 non-matching comparisons written to {misses}, and 21 more counted there, not written "
                "(--limit explain-items)"
            ).split()
        )
        in note
    )


def test_compare_says_how_many_more(files):
    base = [
        sys.executable,
        "-m",
        "stickler_cli",
        "compare",
        files["schema"],
        json.dumps(GT),
        json.dumps(PRED),
        "--limit",
        f"explain-items={CAP}",
    ]
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*base, "-f", "json"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert len(payload["comparisons"]) == 2 * CAP  # the first CAP, then CAP failing ones
    assert payload["comparisons_not_shown"] == {"count": 21, "by_type": {"FA": 21}, "limit": "explain-items"}
    done = subprocess.run(base, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "… and 21 more comparisons not shown (--limit explain-items)" in done.stdout.splitlines()


NESTED = {
    "type": "object",
    "properties": {
        "o": {"type": "object", "properties": {k: {"type": "string"} for k in "abc"}},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "qty": {"type": "integer"},
                },
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}
NESTED_GT = {
    "o": {"a": "1", "b": "2", "c": "3"},
    "items": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2}],
    "tags": ["x"],
}
NESTED_PRED = {
    "o": {"a": "1", "b": "9"},
    "items": [{"sku": "B", "qty": 2}, {"sku": "C", "qty": 5}],
    "tags": ["x", "y", "z"],
}


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12])
def test_a_capped_trace_is_the_first_rows_of_the_whole_and_counts_the_rest(cap):
    """An object's row and a list of objects' row are placed before their fields' rows once those are made: the
    capped trace is still the whole trace's first ``cap`` rows followed by the first ``cap`` failing rows of the
    rest (a document whose first comparisons match still shows how it fails), and ``more`` counts the others
    by type."""
    plan = st.compile_schema(NESTED)
    whole = Engine(plan).compare(NESTED_GT, NESTED_PRED, explain=True).trace
    assert len(whole) == 12 and whole.not_shown == 0  # o and its 3 fields; items, 2 pairs, 2 fields; tags: 3
    before = limits.current()
    limits.use(limits.parse([f"explain-items={cap}"]))
    try:
        trace = Engine(plan).compare(NESTED_GT, NESTED_PRED, explain=True).trace
    finally:
        limits.use(before)
    # The first cap rows, then the failing ones among the rest, up to cap more.
    after = [r for r in list(whole)[cap:] if r.label in ("FA", "FD", "FN")][:cap]
    kept = list(whole)[:cap] + after
    assert list(trace) == kept
    rest = Counter(r.label for r in list(whole)) - Counter(r.label for r in kept)
    assert {label: trace.more[k] for k, label in enumerate(("TP", "FA", "FD", "FN", "TN")) if trace.more[k]} == rest
    assert trace.not_shown == len(whole) - len(kept)


def test_a_long_list_is_explained_in_bounded_memory(tmp_path):
    """200,000 predicted strings (a 1.2 MB line) against three: the run held one row a comparison (550 MB and a
    69 MB report, measured before the cap); now the first 1,000 and 1,000 failing ones (checked under 250 MB, the report
    under 1 MB). Not a timing: a bound on the peak resident memory of the whole process."""
    n = 200_000
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "gt.jsonl").write_text(json.dumps({"id": "a", "tags": ["x", "y", "z"]}) + "\n")
    (tmp_path / "pred.jsonl").write_text(json.dumps({"id": "a", "tags": [f"{k % 100:02d}" for k in range(n)]}) + "\n")
    # The child's own peak (VmHWM): its ru_maxrss would count the pytest process it was forked from too.
    script = (
        "import sys\nfrom stickler_cli.cli.app import main\n"
        "code = main(sys.argv[1:])\n"
        "hwm = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "print(hwm.split()[1], code)\n"
    )
    report, html = tmp_path / "r.json", tmp_path / "r.html"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            "eval",
            str(tmp_path / "s.json"),
            str(tmp_path / "gt.jsonl"),
            str(tmp_path / "pred.jsonl"),
            "--no-progress",
            "-o",
            str(report),
            "--html",
            str(html),
            "--show-errors",
            "1",
            "-f",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    peak_kb, code = map(int, done.stdout.split()[-2:])
    assert code == 0
    assert peak_kb < 250 * 1024, f"peak RSS {peak_kb / 1024:.0f} MB"
    assert report.stat().st_size < 2**20 and html.stat().st_size < 2**20
    doc = json.loads(report.read_text())["worst_documents"][0]
    assert len(doc["comparisons"]) == 2000  # the first 1,000, then 1,000 failing ones
    assert doc["comparisons_not_shown"]["count"] == 1 + 3 + (n - 3) - 2000  # id, 3 pairs, the unpaired tags


def test_a_value_over_10000_characters_is_kept_cut_and_said_so(tmp_path):
    """A worst document's value longer than 10,000 characters of JSON is kept as that text cut, named in "cut";
    the terminal and Markdown say it was cut rather than count the characters left out of the part kept."""
    schema = {
        "type": "object",
        "properties": {"notes": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
    }
    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "gt.jsonl").write_text(json.dumps({"notes": "short"}) + "\n")
    (tmp_path / "pred.jsonl").write_text(json.dumps({"notes": "m" * 20_000}) + "\n")
    files = {"schema": str(tmp_path / "s.json"), "gt": str(tmp_path / "gt.jsonl"), "pred": str(tmp_path / "pred.jsonl")}
    done = _run(files, "-o", str(tmp_path / "r.json"), "--show-errors", "1")
    assert done.returncode == 0, done.stderr
    row = json.loads((tmp_path / "r.json").read_text())["worst_documents"][0]["comparisons"][0]
    assert row["gt"] == "short" and row["cut"] == ["pred"]
    assert row["pred"] == '"' + "m" * 9_998 + "…"  # its JSON text, 10,000 characters
    assert "characters of JSON)" in " ".join(done.stdout.split()) and "(+" not in done.stdout
    markdown = _run(files, "-f", "markdown").stdout
    assert "… (cut: over 10,000 characters of JSON)`" in markdown and "(+" not in markdown


def test_identical_items_of_a_long_list_are_compared_once_per_value(monkeypatch):
    """Past the matching bound identical items are paired first; each identical pair's similarity depends on its
    value alone, so the comparator is asked once per value (7 here), not once per pair (1,200), and every figure
    is the same: 1,200 TPs of similarity 1.0, the extra predicted item an FA."""
    plan = st.compile_schema({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}})
    field = plan.root.field("tags")
    calls: list[tuple[str, str]] = []
    real = field.comparator.similarity
    monkeypatch.setattr(field.comparator, "similarity", lambda a, b: calls.append((a, b)) or real(a, b))
    gt = [f"v{k % 7}" for k in range(1_200)]
    pred = gt[::-1] + ["extra"]  # 1,200 x 1,201 pairs: past the matching bound (1,000,000)
    doc = Engine(plan).compare({"tags": gt}, {"tags": pred})
    assert sorted(calls) == [(f"v{k}", f"v{k}") for k in range(7)]
    assert doc.counts[field.index] == [1_200, 1, 0, 0, 0]
    assert doc.score == pytest.approx(1_200 / 1_201)
