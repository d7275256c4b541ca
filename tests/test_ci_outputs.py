"""Quality gates, exit codes, Markdown, JUnit XML, --show-errors and --non-matches."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import xmlschema

from stickler_cli.cli import main

XSD = Path(__file__).parent / "support" / "junit.xsd"
HOSTILE = 'x|y <script>alert(1)</script> *b* [l](http://e.vil) \x1b[2J'

SCHEMA = {
    "type": "object",
    "x-aws-stickler-model-name": "Doc",
    "properties": {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "name": {"type": "string", "x-aws-stickler-comparator": "LevenshteinComparator",
                 "x-aws-stickler-threshold": 0.8},
        "amount": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
        "extra": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
    },
}
GT = [{"id": "A", "name": "alpha", "amount": 1}, {"id": "B", "name": "beta", "amount": 2},
      {"id": "C", "name": "gamma", "amount": 3}, {"id": "D", "name": "delta", "amount": 4}]
PRED = [{"id": "A", "name": "alpha", "amount": 1},      # perfect: score 1
        {"id": "X", "name": "beta", "amount": 2},       # id FD: 3/4
        {"id": "Y", "name": "zzzzz", "amount": 300},    # three FDs: 1/4 (extra, empty on both sides, scores 1)
        {"id": "D", "amount": 4}]                       # name FN: 3/4
# "extra" is empty on both sides everywhere: nothing to measure for its recall or F1.


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"schema": tmp_path / "s.json", "gt": tmp_path / "gt.jsonl", "pred": tmp_path / "pred.jsonl"}
    paths["schema"].write_text(json.dumps(SCHEMA))
    paths["gt"].write_text("".join(json.dumps(r) + "\n" for r in GT))
    paths["pred"].write_text("".join(json.dumps(r) + "\n" for r in PRED))
    return {k: str(v) for k, v in paths.items()}


def run(files, *extra: str, capsys) -> tuple[int, str, str]:
    code = main(["eval", files["schema"], files["gt"], files["pred"], *extra])
    out, err = capsys.readouterr()
    return code, out, err


# -- gates ----------------------------------------------------------------------------------------

def test_overall_gate_passes_and_fails(files, capsys):
    # Document scores (four fields, "extra" empty on both sides scores 1): 1, 3/4, 1/4, 3/4;
    # weighted_overall_score = 2.75 / 4 = 0.6875
    code, out, _ = run(files, "-f", "json", "--fail-under", "weighted_overall_score=0.6875", capsys=capsys)
    assert code == 0
    gate = json.loads(out)["gates"][0]
    assert gate["status"] == "passed" and gate["actual"] == 0.6875
    code, out, err = run(files, "-f", "json", "--fail-under", "weighted_overall_score=0.69", capsys=capsys)
    assert code == 1
    assert json.loads(out)["gates"][0]["status"] == "failed"
    assert err == "stickler: 1 quality gate(s) failed\n"


def test_field_gate_and_glob(files, capsys):
    # precision = TP / (TP + FA + FD): id 2/4, name 2/3, amount 3/4; extra has no TP, FA or FD
    code, out, _ = run(files, "-f", "json", "--fail-under", "id.cm_precision=0.5", "--fail-under", "*.cm_precision=0.7",
                       capsys=capsys)
    assert code == 1
    gates = {g["gate"]: (g["status"], g["actual"]) for g in json.loads(out)["gates"]}
    assert gates == {
        "id.cm_precision >= 0.5": ("passed", 0.5),
        "id.cm_precision >= 0.7": ("failed", 0.5),
        "name.cm_precision >= 0.7": ("failed", 2 / 3),
        "amount.cm_precision >= 0.7": ("passed", 0.75),
        "extra.cm_precision >= 0.7": ("no data", None),
    }


def test_no_data_is_reported_not_failed(files, capsys):
    code, out, _ = run(files, "--fail-under", "extra.cm_f1=0.9", capsys=capsys)
    assert code == 0
    assert "no data" in out and "All 1 gate(s) passed" in out


def test_gates_from_pyproject_and_gates_file(files, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.stickler.fail-under]\nweighted_overall_score = 0.9\n"id.cm_f1" = 0.1\n')
    code, out, _ = run(files, "-f", "json", capsys=capsys)
    assert code == 1
    assert [g["gate"] for g in json.loads(out)["gates"]] == ["weighted_overall_score >= 0.9", "id.cm_f1 >= 0.1"]
    gates_file = tmp_path / "gates.toml"
    gates_file.write_text('[fail-under]\nweighted_overall_score = 0.5\n')
    code, out, _ = run(files, "-f", "json", "--gates", str(gates_file), capsys=capsys)
    assert code == 0  # the gates file's 0.5 replaces pyproject's 0.9
    # and the command line replaces both
    code, out, _ = run(files, "-f", "json", "--gates", str(gates_file), "--fail-under", "weighted_overall_score=0.99",
                       capsys=capsys)
    assert code == 1
    assert {g["gate"] for g in json.loads(out)["gates"]} == {"weighted_overall_score >= 0.99", "id.cm_f1 >= 0.1"}


@pytest.mark.parametrize("gate, message", [
    ("weighted_overall_scor=0.9", "did you mean 'weighted_overall_score'"),
    ("id.cm_f2=0.9", "unknown field metric 'cm_f2'"),
    ("id.cm_f1=1.5", "must be a number in [0, 1]"),
    ("id.cm_f1=high", "'high' is not a number"),
    ("nosuch.cm_f1=0.5", "matches no field path"),
    ("weighted_overall_score", "expected METRIC=VALUE"),
])
def test_bad_gates_are_usage_errors(files, capsys, gate, message):
    code, _, err = run(files, "--fail-under", gate, capsys=capsys)
    assert code == 2
    assert err.startswith("stickler: error: ") and err.count("\n") == 1 and message in err, err


def test_bad_gates_file(files, tmp_path, capsys):
    bad = tmp_path / "g.toml"
    bad.write_text("[fail-under\n")
    code, _, err = run(files, "--gates", str(bad), capsys=capsys)
    assert code == 2 and "not valid TOML" in err
    bad.write_text("[fail_under]\nweighted_overall_score = 0.5\n")
    code, _, err = run(files, "--gates", str(bad), capsys=capsys)
    assert code == 2 and "did you mean 'fail-under'" in err


def test_terminal_shows_failed_gates(files, capsys):
    code, out, _ = run(files, "--fail-under", "weighted_overall_score=0.9", capsys=capsys)
    assert code == 1
    assert "Quality gates" in out and "failed" in out and "1 of 1 gate(s) failed (exit code 1)" in out


# -- Markdown -------------------------------------------------------------------------------------

def test_markdown_report_and_step_summary(files, tmp_path, capsys, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, _ = run(files, "-f", "markdown", "--fail-under", "weighted_overall_score=0.9", capsys=capsys)
    assert code == 1
    assert out.startswith("## stickler · Doc · 4 documents\n")
    assert "**❌ 1 of 1 gates failed**" in out
    assert "| weighted\\_overall\\_score &gt;= 0.9 | 0.9 | 0.688 |" in out
    assert "| name | 1 | 0.500 | 2 | 0 | 1 | 1 | 0 | 0.667 | 0.667 | 0.667 | 0 |" in out
    assert "### Worst documents" in out
    # appended, not replaced; and written whatever --format is
    assert summary.read_text() == "earlier step\n" + out
    run(files, "-f", "json", capsys=capsys)
    assert summary.read_text().count("## stickler") == 2


def test_markdown_escapes_data(tmp_path, capsys):
    from stickler_cli.reporters.markdown import text

    cell = text(HOSTILE, 200)
    assert "<" not in cell and "\x1b" not in cell
    assert "\\|" in cell and "\\[l\\]" in cell and "\\*b\\*" in cell
    assert cell.count("|") == cell.count("\\|")  # every pipe escaped: the table cannot be split


# -- JUnit ----------------------------------------------------------------------------------------

def test_junit_validates_and_fails_the_right_cases(files, tmp_path, capsys):
    target = tmp_path / "junit.xml"
    code, _, _ = run(files, "--junit", str(target), "--fail-under", "name.cm_recall=0.7",
                     "--fail-under", "extra.cm_f1=0.5", "--fail-under", "id.cm_precision=0.5", capsys=capsys)
    assert code == 1
    xmlschema.XMLSchema(str(XSD)).validate(str(target))
    root = ET.parse(target).getroot()
    assert root.get("tests") == "7" and root.get("failures") == "2"
    gates = {c.get("name"): c for c in root.find("testsuite[@name='stickler.gates']")}
    assert gates["name.cm_recall >= 0.7"].find("failure").get("message") == "0.6667 < 0.7"
    assert gates["extra.cm_f1 >= 0.5"].find("skipped") is not None
    assert len(list(gates["id.cm_precision >= 0.5"])) == 0  # passed
    fields = {c.get("name"): c for c in root.find("testsuite[@name='stickler.fields']")}
    assert list(fields) == ["id", "name", "amount", "extra"]
    assert fields["name"].find("failure") is not None and fields["id"].find("failure") is None
    assert "TP 2 FA 0 FD 1 FN 1 TN 0" in fields["name"].find("system-out").text


def test_junit_escapes_hostile_names(tmp_path):
    from stickler_cli.reporters.junit import render_junit

    block = {"tp": 1, "fa": 0, "fd": 0, "fp": 0, "fn": 0, "tn": 0, "cm_precision": 1.0, "cm_recall": 1.0,
             "cm_f1": 1.0, "weight": 1.0}
    report = {"schema": {"model_name": HOSTILE}, "elapsed_seconds": 0.5, "field_metrics": {HOSTILE: block},
              "gates": [{"gate": HOSTILE, "path": HOSTILE, "metric": "cm_f1", "threshold": 0.9, "actual": 0.1,
                         "status": "failed"}]}
    target = tmp_path / "j.xml"
    target.write_bytes(render_junit(report))
    xmlschema.XMLSchema(str(XSD)).validate(str(target))
    names = [c.get("name") for c in ET.parse(target).getroot().iter("testcase")]
    assert names == [HOSTILE.replace("\x1b", "�")] * 2
    assert b"<script>" not in target.read_bytes()


# -- error analysis -------------------------------------------------------------------------------

def test_show_errors_lists_the_worst_documents(files, capsys):
    code, out, _ = run(files, "--show-errors", "2", capsys=capsys)
    assert code == 0
    worst = out[out.index("The 2 worst document(s)"):]
    assert worst.index("line 3 · score 0.250") < worst.index("line 2 · score 0.750")
    assert "line 4 · score" not in worst  # a tie with line 2: the earlier document first
    assert "zzzzz" in worst and "FD" in worst


@pytest.mark.parametrize("workers", ["1", "2"])
def test_worst_documents_in_the_report(files, capsys, workers):
    code, out, _ = run(files, "-f", "json", "--workers", workers, capsys=capsys)
    report = json.loads(out)
    assert [(d["doc_id"], round(d["score"], 4)) for d in report["worst_documents"]] == [
        ("line 3", 0.25), ("line 2", 0.75), ("line 4", 0.75), ("line 1", 1.0)]
    types = {c["path"]: c["type"] for c in report["worst_documents"][0]["comparisons"]}
    assert types == {"id": "FD", "name": "FD", "amount": "FD", "extra": "TN"}
    assert report["score_histogram"]["counts"] == [0] * 5 + [1] + [0] * 9 + [2] + [0] * 3 + [1]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_non_matches_file(files, tmp_path, capsys, workers):
    target = tmp_path / "misses.jsonl"
    code, out, _ = run(files, "--non-matches", str(target), "--workers", workers, capsys=capsys)
    assert code == 0 and "5 non-matching comparisons written" in out
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert [(r["doc_id"], r["path"], r["type"]) for r in rows] == [
        ("line 2", "id", "FD"), ("line 3", "id", "FD"), ("line 3", "name", "FD"), ("line 3", "amount", "FD"),
        ("line 4", "name", "FN")]
    assert rows[2]["gt"] == "gamma" and rows[2]["pred"] == "zzzzz" and rows[2]["score"] == 0.0
    assert set(rows[0]) == {"doc_id", "path", "type", "gt", "pred", "similarity", "score", "threshold", "comparator"}


def test_non_matches_is_not_left_half_written(files, tmp_path, capsys):
    target = tmp_path / "misses.jsonl"
    target.write_text("kept\n")
    Path(files["gt"]).write_text('{"id": "A"}\nnot json\n')
    code, _, _ = run(files, "--non-matches", str(target), capsys=capsys)
    assert code == 2
    assert target.read_text() == "kept\n" and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_output_files_must_differ(files, tmp_path, capsys):
    same = str(tmp_path / "out.xml")
    code, _, err = run(files, "--junit", same, "--html", same, capsys=capsys)
    assert code == 2 and "--junit and --html name the same file" in err
