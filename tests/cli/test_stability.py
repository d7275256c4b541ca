"""`stickler stability`: the figures of docs/stability.md worked out by hand on fixtures/stability (four invoices,
three runs, the third missing d4), gates, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stickler_cli.cli.app import main

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "stability"
SCHEMA, GT = str(HERE / "schema.json"), str(HERE / "gt.jsonl")
RUNS = [str(HERE / f"run{k}.jsonl") for k in (1, 2, 3)]


def _report(capsys, *args: str) -> tuple[int, dict]:
    code = main(["stability", SCHEMA, GT, *RUNS, "--id-field", "id", "-f", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_three_runs_by_hand(capsys):
    code, report = _report(capsys)
    assert code == 0
    assert report["runs"] == 3 and report["document_count"] == 4
    # invoice_id right (no FD/FA/FN) per document, runs 1-3: d1 TTT, d2 TTT, d3 TTF (X3), d4 TTF (missing)
    inv = report["fields"]["invoice_id"]
    assert inv["pass_k"] == 2 / 4 and inv["pass_at_k"] == 4 / 4 and inv["flip_rate"] == 2 / 4
    assert inv["stability"] == 1 - 2 / 4
    assert inv["mean_score_per_run"] == [1.0, 1.0, 2 / 4]
    assert inv["mean_score"] == pytest.approx((1 + 1 + 0.5) / 3)
    # amount: d1 TTT, d2 TFT (21), d3 FFT (31, 31, 30), d4 TTF (missing)
    tot = report["fields"]["amount"]
    assert tot["pass_k"] == 1 / 4 and tot["pass_at_k"] == 4 / 4 and tot["flip_rate"] == 3 / 4
    assert tot["mean_score_per_run"] == [3 / 4, 2 / 4, 3 / 4]
    # the whole document: right when both fields are: d1 TTT, d2 TFT, d3 FFF, d4 TTF
    whole = report["total"]
    assert (whole["pass_k"], whole["pass_at_k"], whole["flip_rate"]) == (1 / 4, 3 / 4, 2 / 4)
    assert (whole["right_in_every_run"], whole["right_in_some_run"], whole["flipped"]) == (1, 3, 2)
    # document scores (the mean of two equally weighted fields): run 1 1, 1, .5, 1; run 2 1, .5, .5, 1;
    # run 3 1, 1, .5, 0 (missing)
    assert whole["mean_score_per_run"] == [3.5 / 4, 3 / 4, 2.5 / 4]
    assert report["flaky_fields"] == ["invoice_id", "amount"]


def test_a_missing_document_is_counted_not_dropped(capsys):
    _, report = _report(capsys)
    assert report["missing_per_run"] == [0, 0, 1]
    assert report["document_count"] == 4  # d4, absent from run 3, still counts
    # pairing by line, run 3 (three lines) leaves line 4 without a prediction: the same figures
    code = main(["stability", SCHEMA, GT, *RUNS, "-f", "json"])
    by_line = json.loads(capsys.readouterr().out)
    assert code == 0 and by_line["missing_per_run"] == [0, 0, 1] and by_line["total"] == report["total"]


def test_each_runs_mean_is_evals(capsys):
    """A run's mean scores are what `stickler eval` reports for that run alone."""
    _, report = _report(capsys)
    for k, run in enumerate(RUNS):
        assert main(["eval", SCHEMA, GT, run, "--id-field", "id", "-f", "json"]) == 0
        evaluated = json.loads(capsys.readouterr().out)
        assert report["total"]["mean_score_per_run"][k] == pytest.approx(evaluated["metrics"]["weighted_overall_score"])
        for path in ("invoice_id", "amount"):
            expected = evaluated["field_metrics"][path]["mean_score"]
            assert report["fields"][path]["mean_score_per_run"][k] == pytest.approx(expected)


def test_flaky_threshold(capsys):
    _, report = _report(capsys, "--flaky", "0.6")
    assert report["flaky_fields"] == ["amount"]  # 0.75 > 0.6; invoice_id's 0.5 is not


@pytest.mark.parametrize(
    ("gate", "code", "status", "actual"),
    [
        ("total.pass_k=0.9", 1, "failed", 0.25),
        ("total.pass_k=0.25", 0, "passed", 0.25),
        ("invoice_id.pass_at_k=1", 0, "passed", 1.0),
        ("total.stability=0.5", 0, "passed", 0.5),
        ("amount.stability=0.3", 1, "failed", 0.25),  # 1 - 0.75
    ],
)
def test_gates(capsys, gate, code, status, actual):
    got, report = _report(capsys, "--fail-under", gate)
    assert got == code
    [result] = report["gates"]
    assert result["status"] == status and result["actual"] == actual


def test_a_glob_gate_checks_each_field(capsys):
    code, report = _report(capsys, "--fail-under", "*.pass_k=0.5")
    assert code == 1
    assert [(r["path"], r["status"]) for r in report["gates"]] == [("invoice_id", "passed"), ("amount", "failed")]


def test_no_documents_fails_every_gate(capsys, tmp_path):
    empty = tmp_path / "gt.jsonl"
    empty.write_text("")
    runs = []
    for k in (1, 2):  # a prediction each, which has no ground truth: unpaired, not scored
        run = tmp_path / f"run{k}.jsonl"
        run.write_text("{}\n")
        runs.append(str(run))
    args = ["stability", SCHEMA, str(empty), *runs, "-f", "json", "--fail-under", "total.pass_at_k=0"]
    assert main([*args, "--no-data-passes"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["document_count"] == 0 and report["total"]["pass_k"] is None
    assert report["unpaired_per_run"] == [1, 1] and report["error_count"] == 2
    assert report["gates"][0]["status"] == "failed" and report["gates"][0]["no_data"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fail-under", "total.flip_rate=0.1"], "gate its stability, 1 - flip rate"),
        (["--fail-under", "total.pass_k=1.5"], "in [0, 1]"),
        (["--fail-under", "pass_k=0.5"], "expected total.METRIC=VALUE"),
        (["--fail-under", "vendor.pass_k=0.5"], "matches no field path"),
    ],
)
def test_bad_gates_are_usage_errors(capsys, args, message):
    assert main(["stability", SCHEMA, GT, *RUNS, "--id-field", "id", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_one_run_is_not_enough(capsys):
    assert main(["stability", SCHEMA, GT, RUNS[0]]) == 2
    assert "two runs or more" in capsys.readouterr().err


def test_a_bad_line_names_file_and_line(capsys, tmp_path):
    broken = tmp_path / "run.jsonl"
    broken.write_text('{"id": "d1", "invoice_id": "A1", "amount": 10}\n{"id": \n')
    assert main(["stability", SCHEMA, GT, RUNS[0], str(broken), "--id-field", "id", "--strict"]) == 2
    err = capsys.readouterr().err
    assert str(broken) in err and ":2" in err


def test_table_and_markdown(capsys):
    assert main(["stability", SCHEMA, GT, *RUNS, "--id-field", "id"]) == 0
    table = capsys.readouterr().out
    assert "Flaky fields: invoice_id, amount" in table and "0.750" in table
    assert max(len(line) for line in table.splitlines()) <= 80
    assert (
        main(["stability", SCHEMA, GT, *RUNS, "--id-field", "id", "-f", "markdown", "--fail-under", "total.pass_k=0.9"])
        == 1
    )
    page = capsys.readouterr().out
    assert "| (total) | 0.750 | 0.250 | 0.750 | 0.500 |  |" in page
    assert "| `amount` | 0.667 | 0.250 | 1.000 | 0.750 | flaky |" in page
    assert "### Failed gates" in page


def test_the_page_shows_what_the_command_prints(capsys, monkeypatch):
    """docs/stability.md's worked example: its output block is the command's output, piped (80 columns)."""
    root = HERE.parents[1]
    monkeypatch.chdir(root)
    runs = [f"fixtures/stability/run{k}.jsonl" for k in (1, 2, 3)]
    args = ["fixtures/stability/schema.json", "fixtures/stability/gt.jsonl", *runs]
    assert main(["stability", *args, "--id-field", "id", "--fail-under", "total.pass_k=0.9"]) == 1
    printed = "\n".join(line.rstrip() for line in capsys.readouterr().out.splitlines())
    page = (root / "docs" / "stability.md").read_text(encoding="utf-8")
    assert f"```\n{printed}\n```" in page
    for figure in ("pass^k = 2/4 = 0.5", "flip rate = 3/4 = 0.75", "their mean is 0.75", "(mean 0.833)"):
        assert figure in page


def test_a_field_named_total_is_gated_through_a_glob(capsys, tmp_path):
    """``total.METRIC`` is the whole document's; a field named ``total`` is reached as ``tota[l].METRIC``."""
    schema = tmp_path / "schema.json"
    schema.write_text(
        json.dumps({"type": "object", "properties": {"total": {"type": "number"}, "note": {"type": "string"}}})
    )
    gt = tmp_path / "gt.jsonl"
    gt.write_text('{"total": 1, "note": "a"}\n{"total": 2, "note": "b"}\n')
    (tmp_path / "r1.jsonl").write_text('{"total": 1, "note": "a"}\n{"total": 2, "note": "x"}\n')
    (tmp_path / "r2.jsonl").write_text('{"total": 9, "note": "a"}\n{"total": 2, "note": "b"}\n')
    runs = [str(tmp_path / "r1.jsonl"), str(tmp_path / "r2.jsonl")]
    gates = ["--fail-under", "tota[l].pass_k=0.5", "--fail-under", "total.pass_k=0"]
    assert main(["stability", str(schema), str(gt), *runs, "-f", "json", *gates]) == 0
    field, whole = json.loads(capsys.readouterr().out)["gates"]
    # the field total: right in both runs on line 2 only (line 1: run 2 says 9): 1/2; the whole document: line 1
    # is wrong in run 2 (total), line 2 in run 1 (note): right in every run on no line, 0/2
    assert (field["path"], field["actual"]) == ("total", 0.5)
    assert (whole["path"], whole["actual"]) == (None, 0.0)


def test_every_report_is_valid_under_its_schema(capsys, tmp_path):
    """schemas/stability-report.schema.json describes what stability writes: with gates, without documents; and it
    refuses a share out of range."""
    import jsonschema

    schema = json.loads((HERE.parents[1] / "schemas" / "stability-report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    _, report = _report(capsys, "--fail-under", "total.pass_k=0.9", "--fail-under", "*.mean_score=0.5")
    validator.validate(report)
    empty, unpaired = tmp_path / "empty.jsonl", tmp_path / "unpaired.jsonl"
    empty.write_text("")
    unpaired.write_text("{}\nnot json\n")  # no ground truth for either: 2 unpaired, 2 record problems each run
    assert main(["stability", SCHEMA, str(empty), str(unpaired), str(unpaired), "-f", "json"]) == 0
    validator.validate(json.loads(capsys.readouterr().out))
    report["fields"]["amount"]["pass_k"] = 1.25
    assert not validator.is_valid(report)


def test_a_field_never_scored_has_no_mean_score_and_its_gate_no_data(capsys, tmp_path):
    """Empty lists everywhere: items.name is never compared, so it has no mean score; a gate on it fails for lack of
    data, or with --no-data-passes is "no data". Its pass^k is 1 (no FD, FA or FN: it is right)."""
    schema = tmp_path / "schema.json"
    item = {"type": "object", "properties": {"name": {"type": "string"}}}
    schema.write_text(json.dumps({"type": "object", "properties": {"items": {"type": "array", "items": item}}}))
    gt = tmp_path / "gt.jsonl"
    gt.write_text('{"items": []}\n')
    args = [
        "stability",
        str(schema),
        str(gt),
        str(gt),
        str(gt),
        "-f",
        "json",
        "--fail-under",
        "items.name.mean_score=0.5",
    ]
    assert main(args) == 1
    report = json.loads(capsys.readouterr().out)
    block = report["fields"]["items.name"]
    assert block["mean_score_per_run"] == [None, None] and block["mean_score"] is None and block["pass_k"] == 1.0
    assert report["gates"][0]["status"] == "failed" and report["gates"][0]["no_data"] is True
    assert main([*args, "--no-data-passes"]) == 0
    assert json.loads(capsys.readouterr().out)["gates"][0]["status"] == "no data"


def _keyed(tmp_path: Path) -> str:
    """A list of objects paired by key k, its items' fields k and n compared exactly."""
    item = {"type": "object", "properties": {"k": {"type": "string"}, "n": {"type": "string"}}}
    schema = {"type": "object", "properties": {"a": {"type": "array", "x-aws-stickler-match-key": "k", "items": item}}}
    (tmp_path / "s.json").write_text(json.dumps(schema))
    return str(tmp_path / "s.json")


def _write(tmp_path: Path, name: str, *lines: object) -> str:
    (tmp_path / name).write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return str(tmp_path / name)


def test_record_problems_are_named_as_eval_names_them(capsys, tmp_path):
    """A key repeated in the ground truth (named at the ground truth's line, once, where a run's list is paired with
    it: run 1; run 2's document is missing, no list to pair), a prediction carrying _alternatives and a line that is
    not JSON: 3 record problems, in the JSON report, on stderr (the first) and in the table and Markdown."""
    schema = _keyed(tmp_path)
    gt = _write(tmp_path, "g.jsonl", {"a": [{"k": "A", "n": "x"}, {"k": "A", "n": "y"}]})
    run1 = _write(tmp_path, "r1.jsonl", {"a": [{"k": "A", "n": {"_value": "y", "_alternatives": ["x"]}}]})
    run2 = _write(tmp_path, "r2.jsonl", "not json")
    assert main(["stability", schema, gt, run1, run2, "-f", "json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    messages = [(e["source"], e["line"], e["message"].split(":")[0]) for e in report["errors"]]
    assert report["error_count"] == 3 and len(messages) == 3
    assert (gt, 1, "a") in messages and (run1, 1, "a.n") in messages  # the repeated key; the alternatives
    assert (run2, 1, "prediction not valid JSON (invalid literal, expected 'null'") in messages
    assert 'a: key k="A" appears 2 times in the ground truth (items 0, 1)' in err and err.count("\n") == 1
    assert err.startswith(f"stickler: warning: 3 record problem(s); the first: {gt}:1: a: key")
    assert main(["stability", schema, gt, run1, run2, "-f", "markdown"]) == 0
    page = capsys.readouterr().out
    assert "\n3 record problem(s):\n" in page and "a prediction carries _alternatives" in page
    assert main(["stability", schema, gt, run1, run2]) == 0
    assert "3 record problem(s):" in capsys.readouterr().out
    # The reader's problems of the ground truth (a key twice in one object) too: once, not once per run.
    twice = tmp_path / "twice.jsonl"
    twice.write_text('{"a": [], "a": []}\n')
    assert main(["stability", schema, str(twice), run1, run1, "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(e["source"], e["line"]) for e in report["errors"] if e["source"] == str(twice)] == [(str(twice), 1)]
    # Two runs that both pair the list: the ground truth's problem is said once, not once per run.
    assert main(["stability", schema, gt, run1, run1, "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted((e["source"], e["message"].split(":")[0]) for e in report["errors"]) == [
        (gt, "a"),
        (run1, "a.n"),
        (run1, "a.n"),
    ]


def test_a_missing_run_counts_0_in_nested_fields_too(capsys, tmp_path):
    """One document, two items matched by key. Run 1 is right (every field 1.0); run 2's line is not JSON, so the
    document is missing: 0 in every field, a.k and a.n too (0 of 2 comparisons, as many as run 1 made), so each
    field's per-run means are [1.0, 0.0], mean 0.5, and each flips: flip rate 1."""
    schema = _keyed(tmp_path)
    record = {"a": [{"k": "A", "n": "x"}, {"k": "B", "n": "y"}]}
    gt, ok = _write(tmp_path, "g.jsonl", record), _write(tmp_path, "ok.jsonl", record)
    bad = _write(tmp_path, "bad.jsonl", "not json")
    assert main(["stability", schema, gt, ok, bad, "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for path in ("a", "a.k", "a.n"):
        field = report["fields"][path]
        assert (field["mean_score_per_run"], field["mean_score"], field["flip_rate"]) == ([1.0, 0.0], 0.5, 1.0)
    assert report["total"]["mean_score_per_run"] == [1.0, 0.0] and report["missing_per_run"] == [0, 1]


def test_an_empty_run_is_refused_and_unpaired_predictions_are_shown(capsys, tmp_path):
    """An empty run file: exit 2, one line. A run with a prediction no ground truth has: Unpaired 1."""
    empty = _write(tmp_path, "empty.jsonl")
    assert main(["stability", SCHEMA, GT, RUNS[0], empty]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"stickler: error: {empty}: holds no record: a run's file must hold its predictions\n"
    extra = _write(tmp_path, "extra.jsonl", *(Path(RUNS[0]).read_text().splitlines()), {"id": "d9"})
    assert main(["stability", SCHEMA, GT, RUNS[0], extra, "--id-field", "id", "-f", "markdown"]) == 0
    page = capsys.readouterr().out
    assert "| Run | File | Mean score | Missing | Unpaired |" in page
    assert f"| 2 | `{extra}` | 0.875 | 0 | 1 |" in page
