"""Quality gates, exit codes, Markdown, JUnit XML, --show-errors and --non-matches."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
import xmlschema

from stickler_cli.cli.app import main
from tests.support.case_files import write_case

XSD = Path(__file__).parents[1] / "support" / "junit.xsd"
HOSTILE = "x|y <script>alert(1)</script> *b* [l](http://e.vil) \x1b[2J"

SCHEMA = {
    "type": "object",
    "x-aws-stickler-model-name": "Doc",
    "properties": {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "name": {
            "type": "string",
            "x-aws-stickler-comparator": "LevenshteinComparator",
            "x-aws-stickler-threshold": 0.8,
        },
        "amount": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
        "extra": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
    },
}
GT = [
    {"id": "A", "name": "alpha", "amount": 1},
    {"id": "B", "name": "beta", "amount": 2},
    {"id": "C", "name": "gamma", "amount": 3},
    {"id": "D", "name": "delta", "amount": 4},
]
PRED = [
    {"id": "A", "name": "alpha", "amount": 1},  # perfect: score 1
    {"id": "X", "name": "beta", "amount": 2},  # id FD: 3/4
    {"id": "Y", "name": "zzzzz", "amount": 300},  # three FDs: 1/4 (extra, empty on both sides, scores 1)
    {"id": "D", "amount": 4},
]  # name FN: 3/4
# "extra" is empty on both sides everywhere: nothing to measure for its recall or F1.


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return write_case(tmp_path, SCHEMA, GT, PRED)


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
    code, out, _ = run(
        files, "-f", "json", "--fail-under", "id.cm_precision=0.5", "--fail-under", "*.cm_precision=0.7", capsys=capsys
    )
    assert code == 1
    gates = {g["gate"]: (g["status"], g["actual"]) for g in json.loads(out)["gates"]}
    assert gates == {
        "id.cm_precision >= 0.5": ("passed", 0.5),
        "id.cm_precision >= 0.7": ("failed", 0.5),
        "name.cm_precision >= 0.7": ("failed", 2 / 3),
        "amount.cm_precision >= 0.7": ("passed", 0.75),
        "extra.cm_precision >= 0.7": ("failed", None),  # nothing to measure: failed for lack of data
    }


def test_no_data_fails_unless_no_data_passes(files, capsys):
    """A gate with nothing to measure fails, said as such (no figure), unless --no-data-passes makes it a skip."""
    code, out, err = run(files, "--fail-under", "extra.cm_f1=0.9", capsys=capsys)
    assert code == 1
    row = next(line for line in out.splitlines() if "extra.cm_f1 >= 0.9" in line)
    assert row.split() == ["extra.cm_f1", ">=", "0.9", "0.9", "no", "data", "failed"]
    assert "1 of 1 gate(s) failed, 1 for lack of data (exit code 1)" in out
    assert "--no-data-passes" in err
    code, out, _ = run(files, "-f", "json", "--fail-under", "extra.cm_f1=0.9", capsys=capsys)
    (gate,) = json.loads(out)["gates"]
    assert code == 1 and (gate["status"], gate["actual"], gate["no_data"]) == ("failed", None, True)
    code, out, err = run(files, "--fail-under", "extra.cm_f1=0.9", "--no-data-passes", capsys=capsys)
    assert code == 0 and err == ""
    assert "no data" in out and "0 gate(s) passed, 1 without data" in out


def test_gates_from_pyproject_and_gates_file(files, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.stickler.fail-under]\nweighted_overall_score = 0.9\n"id.cm_f1" = 0.1\n'
    )
    code, out, _ = run(files, "-f", "json", capsys=capsys)
    assert code == 1
    assert [g["gate"] for g in json.loads(out)["gates"]] == ["weighted_overall_score >= 0.9", "id.cm_f1 >= 0.1"]
    gates_file = tmp_path / "gates.toml"
    gates_file.write_text("[fail-under]\nweighted_overall_score = 0.5\n")
    code, out, _ = run(files, "-f", "json", "--gates", str(gates_file), capsys=capsys)
    assert code == 0  # the gates file's 0.5 replaces pyproject's 0.9
    # and the command line replaces both
    code, out, _ = run(
        files, "-f", "json", "--gates", str(gates_file), "--fail-under", "weighted_overall_score=0.99", capsys=capsys
    )
    assert code == 1
    assert {g["gate"] for g in json.loads(out)["gates"]} == {"weighted_overall_score >= 0.99", "id.cm_f1 >= 0.1"}


@pytest.mark.parametrize(
    "gate, message",
    [
        ("weighted_overall_scor=0.9", "did you mean 'weighted_overall_score'"),
        ("id.cm_f2=0.9", "unknown field metric 'cm_f2'"),
        ("id.cm_f1=1.5", "must be a number in [0, 1]"),
        ("id.cm_f1=high", "'high' is not a number"),
        ("nosuch.cm_f1=0.5", "matches no field path"),
        ("weighted_overall_score", "expected METRIC=VALUE"),
    ],
)
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
    assert out.startswith("## stickler · `Doc` · 4 documents\n")
    assert "**❌ 1 of 1 gate(s) failed**" in out
    assert "| `weighted_overall_score >= 0.9` | 0.9 | 0.688 |" in out
    assert "| `name` | 1 | 0.500 | 2 | 0 | 1 | 1 | 0 | 0.667 | 0.667 | 0.667 | 0 |" in out
    assert "### Worst documents" in out
    # appended, not replaced; and written whatever --format is
    assert summary.read_text() == "earlier step\n" + out
    run(files, "-f", "json", capsys=capsys)
    assert summary.read_text().count("## stickler") == 2


def test_markdown_escapes_data():
    """Rendered as GitHub renders tables: the hostile text is one code cell, no HTML, no link."""
    from markdown_it import MarkdownIt

    from stickler_cli.reporters.markdown import render_markdown

    hostile = HOSTILE + " @octocat https://e.vil www.e.vil $x$ ``a`` `"
    block = {
        "tp": 1,
        "fa": 0,
        "fd": 1,
        "fp": 1,
        "fn": 0,
        "tn": 0,
        "cm_precision": 0.5,
        "cm_recall": 1.0,
        "recall_with_fd": 0.5,
        "cm_f1": 0.667,
        "cm_accuracy": 0.5,
        "weight": 1.0,
        "mean_score": 0.5,
        "schema_violations": 0,
    }
    report = {
        "schema": {"model_name": hostile},
        "document_count": 1,
        "metrics": {**block, "weighted_overall_score": 0.5},
        "field_metrics": {hostile: block, "plain": block},
        "gates": [],
        "confidence_metrics": None,
        "worst_documents": [
            {
                "doc_id": hostile,
                "score": 0.5,
                "gt_line": 1,
                "pred_line": 1,
                "comparisons": [
                    {"path": hostile, "type": "FD", "gt": hostile, "pred": hostile, "similarity": 0.0, "score": 0.0}
                ],
            }
        ],
        "errors": [{"source": hostile, "line": 1, "doc_id": None, "message": hostile}],
    }
    rendered = MarkdownIt("commonmark").enable("table").render(render_markdown(report))
    assert "<script" not in rendered and "<img" not in rendered and "<a " not in rendered
    assert "\x1b" not in rendered
    rows = [r for r in rendered.split("<tr>") if "plain" in r or "e.vil" in r]
    assert rows and all(r.count("<td") == 12 for r in rows if "<td" in r and "0.500" in r)
    # The field name is one code span holding the whole text (pipes included, backticks kept).
    assert "<td><code>x|y &lt;script&gt;alert(1)&lt;/script&gt;" in rendered


# -- JUnit ----------------------------------------------------------------------------------------


def _junit(files, tmp_path, capsys, *extra: str):
    """The JUnit XML of a run with three gates (validated), and its gate test cases by name."""
    target = tmp_path / "junit.xml"
    code, _, _ = run(
        files,
        "--junit",
        str(target),
        "--fail-under",
        "name.cm_recall=0.7",
        *extra,
        "--fail-under",
        "extra.cm_f1=0.5",
        "--fail-under",
        "id.cm_precision=0.5",
        capsys=capsys,
    )
    assert code == 1
    xmlschema.XMLSchema(str(XSD)).validate(str(target))
    root = ET.parse(target).getroot()
    return root, {c.get("name"): c for c in root.find("testsuite[@name='stickler.gates']")}


def test_junit_validates_and_fails_the_right_cases(files, tmp_path, capsys):
    root, gates = _junit(files, tmp_path, capsys)
    # name's gate and field, and extra's (nothing to measure: failed for lack of data, with no figure)
    assert root.get("tests") == "7" and root.get("failures") == "4"
    assert gates["name.cm_recall >= 0.7"].find("failure").get("message") == "0.6667 < 0.7"
    assert gates["extra.cm_f1 >= 0.5"].find("failure").get("message") == "no data (threshold 0.5)"
    assert "has nothing to measure" in gates["extra.cm_f1 >= 0.5"].find("failure").text
    assert len(list(gates["id.cm_precision >= 0.5"])) == 0  # passed
    fields = {c.get("name"): c for c in root.find("testsuite[@name='stickler.fields']")}
    assert list(fields) == ["id", "name", "amount", "extra"]
    assert fields["name"].find("failure") is not None and fields["id"].find("failure") is None
    assert "TP 2 FA 0 FD 1 FN 1 TN 0" in fields["name"].find("system-out").text
    # --no-data-passes: extra's gate is skipped, as a test with nothing to run.
    root, gates = _junit(files, tmp_path, capsys, "--no-data-passes")
    assert root.get("tests") == "7" and root.get("failures") == "2"
    assert gates["extra.cm_f1 >= 0.5"].find("skipped") is not None


def test_junit_escapes_hostile_names(tmp_path):
    from stickler_cli.reporters.junit import render_junit

    block = {
        "tp": 1,
        "fa": 0,
        "fd": 0,
        "fp": 0,
        "fn": 0,
        "tn": 0,
        "cm_precision": 1.0,
        "cm_recall": 1.0,
        "cm_f1": 1.0,
        "weight": 1.0,
    }
    report = {
        "schema": {"model_name": HOSTILE},
        "elapsed_seconds": 0.5,
        "field_metrics": {HOSTILE: block},
        "gates": [
            {"gate": HOSTILE, "path": HOSTILE, "metric": "cm_f1", "threshold": 0.9, "actual": 0.1, "status": "failed"}
        ],
    }
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
    worst = out[out.index("The 2 worst document(s)") :]
    # Documents are named by their ground truth's id (the records carry "id").
    assert worst.index("C · score 0.250") < worst.index("B · score 0.750")
    assert "D · score" not in worst  # a tie with B: the earlier document first
    assert "zzzzz" in worst and "FD" in worst


@pytest.mark.parametrize("workers", ["1", "2"])
def test_worst_documents_in_the_report(files, capsys, workers):
    code, out, _ = run(files, "-f", "json", "--workers", workers, capsys=capsys)
    report = json.loads(out)
    assert [(d["doc_id"], round(d["score"], 4)) for d in report["worst_documents"]] == [
        ("C", 0.25),
        ("B", 0.75),
        ("D", 0.75),
        ("A", 1.0),
    ]
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
        ("B", "id", "FD"),
        ("C", "id", "FD"),
        ("C", "name", "FD"),
        ("C", "amount", "FD"),
        ("D", "name", "FN"),
    ]
    assert rows[2]["gt"] == "gamma" and rows[2]["pred"] == "zzzzz" and rows[2]["score"] == 0.0
    assert set(rows[0]) == {
        "doc_id",
        "path",
        "type",
        "gt",
        "pred",
        "confidence",
        "similarity",
        "score",
        "threshold",
        "comparator",
        "gt_default",
        "pred_default",
    }
    assert (rows[0]["confidence"], rows[0]["gt_default"], rows[0]["pred_default"]) == (None, False, False)


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


# -- regressions found in review --------------------------------------------------------------------


def test_overall_gates_without_data_and_empty_runs(tmp_path, capsys):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    both_empty = tmp_path / "tn.jsonl"
    both_empty.write_text('{"a": null}\n')
    # Every comparison a TN: precision has nothing to measure, like a field's: failed for lack of data, or with
    # --no-data-passes "no data".
    for extra, status in (([], "failed"), (["--no-data-passes"], "no data")):
        code = main(
            [
                "eval",
                str(schema),
                str(both_empty),
                str(both_empty),
                "-f",
                "json",
                *extra,
                "--fail-under",
                "cm_precision=0.9",
                "--fail-under",
                "weighted_overall_score=0.9",
            ]
        )
        gates = {g["gate"]: g["status"] for g in json.loads(capsys.readouterr().out)["gates"]}
        assert code == (1 if extra == [] else 0)
        assert gates == {"cm_precision >= 0.9": status, "weighted_overall_score >= 0.9": "passed"}
    # No document at all: every gate fails (an empty artifact must not pass a pipeline), --no-data-passes or not.
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    for extra in ([], ["--no-data-passes"]):
        code = main(["eval", str(schema), str(empty), str(empty), "--fail-under", "a.cm_f1=0.5", *extra])
        out, err = capsys.readouterr()
        assert code == 1 and "1 of 1 gate(s) failed, 1 for lack of data" in out
        assert "--no-data-passes" not in err  # it would not help: the run scored nothing


def test_a_field_gate_typo_stops_before_the_run(files, tmp_path, capsys):
    report = tmp_path / "r.json"
    code, _, err = run(files, "--fail-under", "nmae.cm_f1=0.5", "-o", str(report), capsys=capsys)
    assert code == 2 and "did you mean 'name'" in err and not report.exists()


def test_pyproject_without_a_tool_table(files, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("tool = 3\n")
    code, _, err = run(files, capsys=capsys)
    assert code == 0, err


def test_state_files_hold_what_orjson_cannot_write(tmp_path, capsys):
    """The worst documents are kept whole in a state: a 30-digit integer and a value nested 300 deep."""
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"n": {"type": "integer"}, "d": {"type": "string"}}}))
    gt = tmp_path / "g.jsonl"
    gt.write_text('{"n": 1, "d": 1}\n')
    pred = tmp_path / "p.jsonl"
    pred.write_text('{"n": 123456789012345678901234567890, "d": ' + "[" * 300 + "]" * 300 + "}\n")
    state = tmp_path / "a.state"
    assert main(["eval", str(schema), str(gt), str(pred), "--save-state", str(state), "-f", "json"]) == 0
    capsys.readouterr()
    assert main(["merge", str(state), "-f", "json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    comparisons = {c["path"]: c for c in merged["worst_documents"][0]["comparisons"]}
    assert comparisons["n"]["pred"] == 123456789012345678901234567890 and comparisons["n"]["type"] == "FD"


def test_merge_shows_no_more_worst_documents_than_the_states_kept(files, tmp_path, capsys):
    many = [dict(GT[k % 4], id=f"x{k}") for k in range(30)]
    Path(files["gt"]).write_text("".join(json.dumps(r) + "\n" for r in many))
    Path(files["pred"]).write_text("".join(json.dumps(dict(r, name="zz")) + "\n" for r in many))
    state = tmp_path / "a.state"
    assert main(["eval", files["schema"], files["gt"], files["pred"], "--save-state", str(state), "-f", "json"]) == 0
    capsys.readouterr()
    copy = tmp_path / "b.state"  # the same bytes in another file: its documents shared, merged only when allowed
    copy.write_bytes(state.read_bytes())
    assert main(["merge", str(state), str(copy), "--show-errors", "15", "--allow-overlap", "-f", "json"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)["worst_documents"]) == 10
    assert "kept their 10 worst documents each" in err


def test_histogram_takes_scores_outside_the_unit_interval():
    from stickler_cli.run.accumulate import Accumulator
    from stickler_cli.engine.result import DocResult
    from stickler_cli.schema import compile_schema

    plan = compile_schema(SCHEMA)
    acc = Accumulator(plan)
    size = len(plan.fields)
    for score in (float("nan"), -0.5, 1.5, 0.5):
        acc.add(DocResult(score, {}, [0] * 5 * size, [0.0] * size, [0] * size))
    assert acc.score_histogram[0] == 2 and acc.score_histogram[-1] == 1 and acc.score_histogram[10] == 1


def test_outputs_keep_links_devices_and_permissions(files, tmp_path, capsys):
    real = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(real)
    code, _, _ = run(files, "-o", str(link), "--junit", "/dev/null", "--non-matches", "/dev/null", capsys=capsys)
    assert code == 0
    assert link.is_symlink() and json.loads(real.read_text())["document_count"] == 4
    assert (real.stat().st_mode & 0o777) == 0o666 & ~_umask()
    assert Path("/dev/null").is_char_device()


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask
