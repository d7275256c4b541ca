"""Missing predictions count against the record figures, and a gate with no data fails (issue 37, item 1).

``valid_json_rate`` and ``schema_valid_rate`` are shares of the predictions due: one per ground-truth document,
and one per prediction read without a ground truth (predictions read + missing predictions). ``coverage`` is
paired / ground-truth documents. A prediction file of 60 lines for 90 documents once passed
``valid_json_rate=0.99`` at 1.000, and an empty one passed every record gate as "no data". Every figure here is
worked out by hand from the records written.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import orjson
import pytest

from stickler_cli.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = {
    "type": "object",
    "x-aws-stickler-model-name": "Doc",
    "properties": {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "total": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
        "note": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
    },
}  # never present: no data


def _write(path: Path, rows: list) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return str(path)


@pytest.fixture
def case(tmp_path: Path) -> dict[str, str]:
    """90 ground-truth documents, predictions for the first 60 (each right), and the two halves of each file."""
    gt = [{"id": f"D{k}", "total": k} for k in range(90)]
    files = {
        "schema": tmp_path / "s.json",
        "gt": _write(tmp_path / "gt.jsonl", gt),
        "pred": _write(tmp_path / "pred.jsonl", gt[:60]),
        "empty": _write(tmp_path / "empty.jsonl", []),
        "gt1": _write(tmp_path / "gt1.jsonl", gt[:45]),
        "pred1": _write(tmp_path / "pred1.jsonl", gt[:45]),
        "gt2": _write(tmp_path / "gt2.jsonl", gt[45:]),
        "pred2": _write(tmp_path / "pred2.jsonl", gt[45:60]),
    }
    files["schema"].write_text(json.dumps(SCHEMA))
    return {k: str(v) for k, v in files.items()}


def _eval(case: dict[str, str], capsys, *extra: str, gt: str = "gt", pred: str = "pred") -> tuple[int, dict, str]:
    code = main(["eval", case["schema"], case[gt], case[pred], "-f", "json", "--no-progress", *extra])
    out, err = capsys.readouterr()
    return code, orjson.loads(out), err


SIXTY_OF_NINETY = {
    "predictions_read": 60,
    "predictions_due": 90,
    "valid_json": 60,
    "valid_json_rate": 60 / 90,
    "checked": 60,
    "schema_valid": 60,
    "schema_valid_rate": 60 / 90,
    "violations": 0,
    "ground_truth_documents": 90,
    "paired": 60,
    "coverage": 60 / 90,
}


def test_a_missing_prediction_is_neither_valid_json_nor_schema_valid(case, capsys) -> None:
    code, report, _ = _eval(
        case,
        capsys,
        "--fail-under",
        "valid_json_rate=0.99",
        "--fail-under",
        "coverage=0.95",
        "--fail-under",
        "schema_valid_rate=0.6",
    )
    assert report["schema_conformance"] == SIXTY_OF_NINETY
    assert code == 1
    assert [(g["gate"], g["actual"], g["status"]) for g in report["gates"]] == [
        ("valid_json_rate >= 0.99", 60 / 90, "failed"),
        ("coverage >= 0.95", 60 / 90, "failed"),
        ("schema_valid_rate >= 0.6", 60 / 90, "passed"),
    ]
    jsonschema.validate(report, orjson.loads((ROOT / "schemas/report.schema.json").read_bytes()))


def test_the_issue_command_on_empty_predictions_fails(case, capsys) -> None:
    """`eval schema gt empty --fail-under valid_json_rate=0.99 --fail-under schema_valid_rate=0.5` printed "0 gate(s)
    passed, 2 without data" and exited 0: 90 predictions were due and none came."""
    code = main(
        [
            "eval",
            case["schema"],
            case["gt"],
            case["empty"],
            "--fail-under",
            "valid_json_rate=0.99",
            "--fail-under",
            "schema_valid_rate=0.5",
            "--fail-under",
            "coverage=0.5",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and "3 of 3 gate(s) failed (exit code 1)" in out
    assert "Valid JSON        0.000  (0 of 90)" in out and "Coverage          0.000  (0 of 90)" in out
    code, report, _ = _eval(case, capsys, "--fail-under", "valid_json_rate=0.99", pred="empty")
    assert code == 1 and report["gates"][0]["actual"] == 0.0 and not report["gates"][0]["no_data"]
    assert (report["schema_conformance"]["predictions_due"], report["schema_conformance"]["coverage"]) == (90, 0.0)


def test_summaries_show_the_rates_over_the_predictions_due_and_coverage(case, tmp_path, capsys) -> None:
    page = tmp_path / "r.html"
    code = main(["eval", case["schema"], case["gt"], case["pred"], "-f", "markdown", "--html", str(page)])
    out = capsys.readouterr().out
    assert code == 0
    assert "| Valid JSON | 0.667 (60 of 90) |" in out and "| Schema-valid | 0.667 (60 of 90) |" in out
    assert "| Coverage | 0.667 (60 of 90 documents) |" in out
    html = page.read_text()
    assert "60 of 90 predictions due valid JSON (66.7%)" in html
    assert "Coverage: 60 of 90 ground-truth documents have a prediction (66.7%)" in html
    code = main(["eval", case["schema"], case["gt"], case["pred"]])
    out = capsys.readouterr().out
    assert "Valid JSON        0.667  (60 of 90)" in out and "Schema-valid      0.667  (60 of 90)" in out
    assert "Coverage          0.667  (60 of 90)" in out


def test_pairing_by_id_counts_the_unreadable_line_and_its_document(tmp_path, capsys) -> None:
    """By id, a line that is not JSON cannot be paired: it is an invalid record, and the document it was meant for
    (which the run cannot know) is a missing one. A: right; line 2 broken; C: total of the wrong type (schema
    violation); E: no ground truth, conforms; B and D missing. Due: 4 read + 2 missing = 6; valid JSON 3 (A, C, E);
    schema-valid 2 (A, E); paired 2 of 4 documents."""
    gt = _write(tmp_path / "gt.jsonl", [{"id": k, "total": 1} for k in "ABCD"])
    pred = _write(
        tmp_path / "pred.jsonl",
        [{"id": "A", "total": 1}, '{"id": "B", "total"', {"id": "C", "total": "one"}, {"id": "E", "total": 1}],
    )
    schema = _write(tmp_path / "s.json", [SCHEMA])
    assert main(["eval", schema, gt, pred, "--id-field", "id", "-f", "json"]) == 0
    conformance = orjson.loads(capsys.readouterr().out)["schema_conformance"]
    assert conformance == {
        "predictions_read": 4,
        "predictions_due": 6,
        "valid_json": 3,
        "valid_json_rate": 0.5,
        "checked": 3,
        "schema_valid": 2,
        "schema_valid_rate": 2 / 6,
        "violations": 1,
        "ground_truth_documents": 4,
        "paired": 2,
        "coverage": 0.5,
    }


def test_workers_and_merged_states_give_one_runs_record_figures(case, tmp_path, capsys) -> None:
    """The figures come from record counts that add up: 45 + 45 documents, 45 + 15 predictions."""
    assert _eval(case, capsys, "--workers", "2")[1]["schema_conformance"] == SIXTY_OF_NINETY
    states = [str(tmp_path / f"{k}.state") for k in (1, 2)]
    for k, state in zip(("1", "2"), states):
        _eval(case, capsys, "--save-state", state, gt="gt" + k, pred="pred" + k)
    assert main(["merge", *states, "-f", "json", "--fail-under", "coverage=0.7"]) == 1
    merged = orjson.loads(capsys.readouterr().out)
    assert merged["schema_conformance"] == SIXTY_OF_NINETY
    assert [(g["actual"], g["status"]) for g in merged["gates"]] == [(60 / 90, "failed")]


def test_a_gate_with_nothing_to_measure_fails_in_merge_unless_no_data_passes(case, tmp_path, capsys) -> None:
    state = str(tmp_path / "run.state")
    _eval(case, capsys, "--save-state", state)
    assert main(["merge", state, "--fail-under", "note.cm_f1=0.5"]) == 1
    out, err = capsys.readouterr()
    assert "1 of 1 gate(s) failed, 1 for lack of data (exit code 1)" in out
    assert "stickler: note: a gate with no data fails; --no-data-passes lets it pass\n" in err
    row = next(line for line in out.splitlines() if "note.cm_f1 >= 0.5" in line)
    assert "no data" in row and "failed" in row and not any(c.isdigit() for c in row.split("0.5", 2)[-1])
    assert main(["merge", state, "--fail-under", "note.cm_f1=0.5", "--no-data-passes"]) == 0
    assert "0 gate(s) passed, 1 without data" in capsys.readouterr().out


def test_markdown_names_a_gate_failed_for_lack_of_data_without_a_figure(case, capsys) -> None:
    code = main(
        [
            "eval",
            case["schema"],
            case["gt"],
            case["pred"],
            "-f",
            "markdown",
            "--fail-under",
            "note.cm_f1=0.5",
            "--fail-under",
            "coverage=0.5",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and "**❌ 1 of 2 gate(s) failed, 1 for lack of data**" in out
    assert "| `note.cm_f1 >= 0.5` | 0.5 | no data |" in out


def test_an_empty_ground_truth_fails_every_gate_even_with_no_data_passes(case, capsys) -> None:
    for extra in ([], ["--no-data-passes"]):
        code, report, err = _eval(case, capsys, "--fail-under", "valid_json_rate=0.5", *extra, gt="empty")
        # 60 predictions without a ground truth, each valid: a figure of 1.0, yet nothing was scored.
        assert code == 1 and report["gates"][0]["status"] == "failed" and report["gates"][0]["no_data"]
        assert report["schema_conformance"]["coverage"] is None
        assert "--no-data-passes" not in err
