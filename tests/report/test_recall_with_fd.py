"""``recall_with_fd`` = TP / (TP + FN + FD): stickler-eval's recall with FD in the denominator,
beside ``cm_recall`` in every metrics block, gate-able, compared by ``diff`` and kept by merges.

The figures here are worked by hand; tests/parity/test_recall_with_fd_oracle.py checks them
against the library itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import orjson
import pytest

from stickler_cli.report import gates
from stickler_cli.cli.app import main
from stickler_cli.report.metrics import count_block

# name: 3 right (TP 3), 1 left out (FN 1), 2 wrong (FD 2); note: predicted once where the ground
# truth has none (FA 1), otherwise absent on both sides (TN 5).
GT = [{"name": "a"}, {"name": "a"}, {"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "c"}]
PRED = [{"name": "a", "note": "z"}, {"name": "a"}, {"name": "a"}, {}, {"name": "x"}, {"name": "x"}]


def test_the_formula_worked_by_hand() -> None:
    block = count_block([3, 0, 2, 1, 0])  # tp, fa, fd, fn, tn
    assert block["recall_with_fd"] == 3 / 6 == 0.5
    assert block["cm_recall"] == 0.75  # the traditional recall leaves the 2 FD out
    assert count_block([3, 4, 2, 1, 7])["recall_with_fd"] == 0.5  # FA and TN are not in it
    assert count_block([0, 0, 5, 0, 0])["recall_with_fd"] == 0.0 and count_block([0, 0, 5, 0, 0])["cm_recall"] == 0.0


def test_a_zero_denominator_is_0_as_in_the_library_and_no_data_for_a_gate() -> None:
    block = count_block([0, 4, 0, 0, 2])  # only FA and TN: nothing was due
    assert block["recall_with_fd"] == 0.0  # stickler-eval's MetricsHelper gives 0.0 too
    report = {
        "document_count": 6,
        "metrics": {**block, "weighted_overall_score": 1.0},
        "field_metrics": {"note": block},
        "schema_conformance": {},
    }
    both = [gates.parse("note.recall_with_fd=0.9"), gates.parse("recall_with_fd=0.9")]
    results = gates.check(both, report, no_data_passes=True)
    assert [(r["actual"], r["status"]) for r in results] == [(None, gates.NO_DATA), (None, gates.NO_DATA)]
    # Without --no-data-passes a gate with nothing to measure fails, for lack of data (no figure).
    assert [(r["actual"], r["status"], r["no_data"]) for r in gates.check(both, report)] == [
        (None, gates.FAILED, True),
        (None, gates.FAILED, True),
    ]


def test_a_field_whose_every_value_is_wrong_fails_a_recall_gate() -> None:
    """Recall leaves FD out of its denominator, so every value wrong (FD 5) is 0/0: the report says 0.0, as the
    library does, and the gate used to say "no data" and pass. The ground truth held values: measured, failed."""
    wrong, absent = count_block([0, 0, 5, 0, 0]), count_block([0, 4, 0, 0, 2])
    report = {
        "document_count": 5,
        "metrics": {**wrong, "weighted_overall_score": 0.0},
        "field_metrics": {"total": wrong, "note": absent},
        "schema_conformance": {},
    }
    results = gates.check(
        [gates.parse("total.cm_recall=0.9"), gates.parse("cm_recall=0.9"), gates.parse("note.cm_recall=0.9")],
        report,
        no_data_passes=True,
    )
    assert [(r["actual"], r["status"], r["no_data"]) for r in results] == [
        (0.0, gates.FAILED, False),
        (0.0, gates.FAILED, False),
        (None, gates.NO_DATA, True),
    ]  # note: nothing was due


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "x-aws-stickler-model-name": "Doc",
                "properties": {
                    "name": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "note": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                },
            }
        )
    )
    paths = {"schema": schema, "gt": tmp_path / "gt.jsonl", "pred": tmp_path / "pred.jsonl"}
    for name, rows in (("gt", GT), ("pred", PRED)):
        paths[name].write_text("".join(json.dumps(r) + "\n" for r in rows))
    for part, (lo, hi) in (("1", (0, 3)), ("2", (3, 6))):
        for name, rows in (("gt", GT), ("pred", PRED)):
            paths[name + part] = tmp_path / f"{name}{part}.jsonl"
            paths[name + part].write_text("".join(json.dumps(r) + "\n" for r in rows[lo:hi]))
    return {k: str(v) for k, v in paths.items()}


def _eval(files: dict[str, str], capsys, *extra: str, gt: str = "gt", pred: str = "pred") -> tuple[int, dict]:
    code = main(["eval", files["schema"], files[gt], files[pred], "--format", "json", "--no-progress", *extra])
    out = capsys.readouterr().out
    return code, orjson.loads(out)


def test_every_metrics_block_carries_it(root: Path, files, capsys) -> None:
    code, report = _eval(files, capsys)
    assert code == 0
    jsonschema.validate(report, orjson.loads((root / "schemas/report.schema.json").read_bytes()))
    name, note, overall = report["field_metrics"]["name"], report["field_metrics"]["note"], report["metrics"]
    assert [name[k] for k in ("tp", "fa", "fd", "fn")] == [3, 0, 2, 1]
    assert name["recall_with_fd"] == 0.5 and name["cm_recall"] == 0.75
    assert [note[k] for k in ("tp", "fa", "fd", "fn", "tn")] == [0, 1, 0, 0, 5] and note["recall_with_fd"] == 0.0
    assert [overall[k] for k in ("tp", "fa", "fd", "fn")] == [3, 1, 2, 1] and overall["recall_with_fd"] == 0.5


def test_the_report_schema_requires_it(root: Path, files, capsys) -> None:
    _, report = _eval(files, capsys)
    del report["field_metrics"]["name"]["recall_with_fd"]
    with pytest.raises(jsonschema.ValidationError, match="recall_with_fd"):
        jsonschema.validate(report, orjson.loads((root / "schemas/report.schema.json").read_bytes()))


def test_gates_on_a_field_on_a_glob_and_on_the_run(files, capsys) -> None:
    code, report = _eval(files, capsys, "--fail-under", "name.recall_with_fd=0.6")
    assert code == 1
    [gate] = report["gates"]
    assert (gate["gate"], gate["actual"], gate["status"]) == ("name.recall_with_fd >= 0.6", 0.5, "failed")
    assert _eval(files, capsys, "--fail-under", "name.recall_with_fd=0.5")[0] == 0
    # cm_recall passes the same bar: the FD are what fail it
    assert _eval(files, capsys, "--fail-under", "name.cm_recall=0.6")[0] == 0
    code, report = _eval(files, capsys, "--fail-under", "*.recall_with_fd=0.5", "--fail-under", "recall_with_fd=0.8")
    assert code == 1
    assert [(g["gate"], g["actual"], g["status"]) for g in report["gates"]] == [
        ("name.recall_with_fd >= 0.5", 0.5, "passed"),
        ("note.recall_with_fd >= 0.5", None, "failed"),  # nothing was due in note: failed for lack of data
        ("recall_with_fd >= 0.8", 0.5, "failed"),
    ]


def test_a_misspelt_gate_is_a_usage_error_naming_it(files, capsys) -> None:
    code = main(["eval", files["schema"], files["gt"], files["pred"], "--fail-under", "name.recall_with_df=0.5"])
    err = capsys.readouterr().err
    assert code == 2
    assert "unknown field metric 'recall_with_df'" in err and "recall_with_fd" in err


def test_glob_gates_on_the_invoice_fixture(root: Path, capsys) -> None:
    code = main(
        [
            "eval",
            str(root / "schemas/invoice.json"),
            str(root / "fixtures/invoice/gt.jsonl"),
            str(root / "fixtures/invoice/pred.jsonl"),
            "--format",
            "json",
            "--no-progress",
            "--fail-under",
            "line_items.*.recall_with_fd=0.8",
            "--fail-under",
            "recall_with_fd=0.5",
        ]
    )
    report = orjson.loads(capsys.readouterr().out)
    fields = report["field_metrics"]
    results = {g["path"]: g for g in report["gates"]}
    assert sorted(p for p in results if p) == sorted(p for p in fields if p.startswith("line_items."))
    for path, g in results.items():
        block = fields[path] if path else report["metrics"]
        assert g["actual"] == block["recall_with_fd"] == block["tp"] / (block["tp"] + block["fn"] + block["fd"])
    assert report["metrics"]["recall_with_fd"] == 75 / (75 + 17 + 46)  # cm_recall 75 / (75 + 17)
    assert [(results[p]["actual"], results[p]["status"]) for p in ("line_items.description", None)] == [
        (13 / (13 + 2 + 2), "failed"),
        (75 / 138, "passed"),
    ]
    assert code == 1


def test_merged_states_give_the_same_figure(files, tmp_path, capsys) -> None:
    states = []
    for part in ("1", "2"):
        target = tmp_path / f"{part}.state.json"
        assert _eval(files, capsys, "--save-state", str(target), gt="gt" + part, pred="pred" + part)[0] == 0
        states.append(str(target))
    assert main(["merge", *states, "--format", "json", "--fail-under", "name.recall_with_fd=0.6"]) == 1
    merged = orjson.loads(capsys.readouterr().out)
    assert merged["field_metrics"]["name"]["recall_with_fd"] == 0.5 and merged["metrics"]["recall_with_fd"] == 0.5
    assert merged["gates"][0]["actual"] == 0.5


def test_intervals_cover_it(files, capsys) -> None:
    _, report = _eval(files, capsys, "--ci", "0.9", "--bootstrap", "200")
    ci = report["field_metrics"]["name"]["recall_with_fd_ci"]
    assert ci["level"] == 0.9 and 0.0 <= ci["low"] <= 0.5 <= ci["high"] <= 1.0
    assert report["field_metrics"]["note"]["recall_with_fd_ci"] is None  # nothing due in any resample


def test_diff_compares_it(files, tmp_path, capsys) -> None:
    """B gets the 2 wrong names right: recall with FD goes 0.5 → 5/6, cm_recall only 0.75 → 5/6."""
    better = tmp_path / "b.jsonl"
    better.write_text(
        "".join(json.dumps(dict(p, name=g["name"]) if p.get("name") == "x" else p) + "\n" for g, p in zip(GT, PRED))
    )
    code = main(
        [
            "diff",
            files["schema"],
            files["gt"],
            files["pred"],
            str(better),
            "--bootstrap",
            "200",
            "--metric",
            "name.recall_with_fd",
            "-f",
            "json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    rows = {(r["path"], r["metric"]): r for r in report["comparisons"]}
    row = rows[("name", "recall_with_fd")]
    assert (row["a"], row["b"], row["watched"]) == (0.5, 5 / 6, True)
    assert row["difference"] == pytest.approx(1 / 3)
    assert (rows[("name", "cm_recall")]["a"], rows[("name", "cm_recall")]["b"]) == (0.75, 5 / 6)
    assert rows[("note", "recall_with_fd")]["verdict"] == "no data"


def test_the_summaries_show_it(files, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["eval", files["schema"], files["gt"], files["pred"], "--no-progress"]) == 0
    assert any(line.split() == ["Recall", "with", "FD", "0.500"] for line in capsys.readouterr().out.splitlines())
    assert main(["eval", files["schema"], files["gt"], files["pred"], "--format", "markdown", "--no-progress"]) == 0
    assert "| Recall with FD | 0.500 |" in capsys.readouterr().out


def test_the_parity_harness_compares_it(root: Path) -> None:
    """expected.json holds the library's recall_with_fd (tests/parity/golden.py), and a difference
    in it, overall or per field, is one the harness reports."""
    from tests.parity.run_parity import FIXTURES, differences, inside_object_list, ours

    name, schema_path, folder = FIXTURES[0]
    schema = orjson.loads((root / schema_path).read_bytes())
    expected = orjson.loads((root / folder / "expected.json").read_bytes())
    assert expected["metrics"]["recall_with_fd"] == 74 / (74 + 17 + 47)
    report = ours(schema, root / folder / "gt.jsonl", root / folder / "pred.jsonl")
    report["confidence_metrics"] = expected["confidence_metrics"] = None
    assert differences(name, report, expected, inside_object_list(schema)) == []
    report["metrics"]["recall_with_fd"] += 1e-6
    report["field_metrics"]["invoice_id"]["recall_with_fd"] = report["field_metrics"]["invoice_id"]["cm_recall"]
    found = differences(name, report, expected, inside_object_list(schema))
    assert [line.split(" ")[1] for line in found] == ["metrics.recall_with_fd", "invoice_id.recall_with_fd"]


def test_intervals_and_diff_measure_an_all_wrong_field_as_gates_do() -> None:
    """statistics.figures (the --ci intervals and diff's comparisons) agrees with the gates: all FD is a recall
    of 0.0, only FA and TN is nothing to measure."""
    import numpy as np

    from stickler_cli.report.statistics import COUNTS, figures

    assert COUNTS == 5
    # one row: the score, then (tp, fa, fd, fn, tn) per field, then score sums and counts per field
    sums = np.array([[0.0, 0, 0, 5, 0, 0, 0, 4, 0, 0, 2, 0.0, 0.0, 5, 0]], dtype=float)
    recall = figures(sums, 5, 2)["cm_recall"][0]
    assert recall[0] == 0.0 and np.isnan(recall[1])
