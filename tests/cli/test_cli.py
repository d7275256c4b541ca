"""The command line as a user meets it: exit codes, one-line errors, reports."""

import subprocess
import sys

import jsonschema
import orjson
import pytest

from stickler_cli.cli.app import main

STICKLER = [sys.executable, "-m", "stickler_cli"]


def run(*args, cwd=None):
    return subprocess.run([*STICKLER, *map(str, args)], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def report_schema(root):
    return orjson.loads((root / "schemas/report.schema.json").read_bytes())


def test_eval_json_report_validates_and_counts(root, report_schema, tmp_path):
    out = tmp_path / "r.json"
    done = run(
        "eval",
        root / "schemas/invoice.json",
        root / "fixtures/invoice/gt.jsonl",
        root / "fixtures/invoice/pred.jsonl",
        "-o",
        out,
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    report = orjson.loads(out.read_bytes())
    assert orjson.loads(done.stdout) == report
    jsonschema.validate(report, report_schema)
    assert report["document_count"] == 24
    records = report["inputs"]["records"]
    assert records["gt_lines"] == report["document_count"]  # every ground truth is scored
    assert records["invalid_predictions"] == 1  # the truncated line 7
    assert [e["line"] for e in report["errors"]] == [7]
    m = report["metrics"]
    assert m["fp"] == m["fa"] + m["fd"]


def test_eval_tables_on_terminal(root):
    done = run(
        "eval",
        root / "schemas/shipment.json",
        root / "fixtures/shipment/gt.jsonl",
        root / "fixtures/shipment/pred.jsonl",
    )
    assert done.returncode == 0, done.stderr
    assert "Weighted score" in done.stdout and "packages" in done.stdout and "weight_kg" in done.stdout


def test_every_report_validates(root, report_schema, tmp_path):
    for name in ("invoice", "shipment", "employee", "transactions"):
        done = run(
            "eval",
            root / f"schemas/{name}.json",
            root / f"fixtures/{name}/gt.jsonl",
            root / f"fixtures/{name}/pred.jsonl",
            "--format",
            "json",
        )
        assert done.returncode == 0, done.stderr
        jsonschema.validate(orjson.loads(done.stdout), report_schema)


def write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "case, expected",
    [
        ("missing_file", "nope.jsonl: file not found"),
        ("bad_gt_line", "gt.jsonl:2: ground truth not valid JSON"),
        ("broken_schema", "schema.json: /: not valid JSON"),
        (
            "unknown_comparator",
            "/properties/a/x-aws-stickler-comparator: unknown comparator 'LevenshteinComparater' (did you mean 'LevenshteinComparator'?)",
        ),
        ("misspelled_key", "did you mean 'x-aws-stickler-threshold'?"),
        ("bad_threshold", "/properties/a/x-aws-stickler-threshold: must be a number from 0.0 to 1.0, got 1.5"),
        ("bad_weight", "/properties/a/x-aws-stickler-weight: must be a number from 0.000001 to 1,000,000, got 0"),
        (
            "bad_config_key",
            "/properties/a/x-aws-stickler-comparator-config/tolerence: NumericComparator takes no option 'tolerence' (did you mean 'tolerance'?)",
        ),
    ],
)
def test_input_errors_are_one_line_exit_2(tmp_path, case, expected):
    good_schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    schema = dict(good_schema)
    gt = write(tmp_path / "gt.jsonl", '{"a": "x"}\n{"a": "y"}\n')
    pred = write(tmp_path / "pred.jsonl", '{"a": "x"}\n{"a": "y"}\n')
    if case == "missing_file":
        pred = tmp_path / "nope.jsonl"
    if case == "bad_gt_line":
        write(gt, '{"a": "x"}\n{"a": "y\n')
    if case == "unknown_comparator":
        schema = {
            "type": "object",
            "properties": {"a": {"type": "string", "x-aws-stickler-comparator": "LevenshteinComparater"}},
        }
    if case == "misspelled_key":
        schema = {"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-treshold": 0.5}}}
    if case == "bad_threshold":
        schema = {"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-threshold": 1.5}}}
    if case == "bad_weight":
        schema = {"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-weight": 0}}}
    if case == "bad_config_key":
        schema = {
            "type": "object",
            "properties": {"a": {"type": "number", "x-aws-stickler-comparator-config": {"tolerence": 1}}},
        }
    schema_path = tmp_path / "schema.json"
    schema_path.write_bytes(b"{not json" if case == "broken_schema" else orjson.dumps(schema))
    done = run("eval", schema_path, gt, pred)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert expected in done.stderr


def test_debug_shows_the_traceback(tmp_path):
    done = run("eval", tmp_path / "missing.json", tmp_path / "a", tmp_path / "b", "--debug")
    assert done.returncode != 0 and "Traceback" in done.stderr


def test_truncated_prediction_is_scored_as_empty_and_strict_stops(tmp_path):
    schema = write(tmp_path / "s.json", '{"type": "object", "properties": {"a": {"type": "string"}}}')
    gt = write(tmp_path / "gt.jsonl", '{"a": "x"}\n{"a": "y"}\n')
    pred = write(tmp_path / "pred.jsonl", '{"a": "x"}\n{"a": "y\n')
    done = run("eval", schema, gt, pred, "--format", "json")
    assert done.returncode == 0
    report = orjson.loads(done.stdout)
    assert report["document_count"] == 2
    assert report["field_metrics"]["a"]["fn"] == 1  # the broken prediction counts as empty
    assert report["metrics"]["weighted_overall_score"] == 0.5
    assert report["errors"][0]["line"] == 2 and "scored as empty" in report["errors"][0]["message"]
    strict = run("eval", schema, gt, pred, "--strict")
    assert strict.returncode == 2 and "pred.jsonl:2: prediction not valid JSON" in strict.stderr


def test_report_path_checked_before_work_and_inputs_never_overwritten(tmp_path):
    schema = write(tmp_path / "s.json", '{"type": "object", "properties": {"a": {"type": "string"}}}')
    gt = write(tmp_path / "gt.jsonl", '{"a": "x"}\n')
    done = run("eval", schema, gt, gt, "-o", tmp_path / "no/such/dir/r.json")
    assert done.returncode == 2 and "does not exist" in done.stderr
    done = run("eval", schema, gt, gt, "-o", gt)
    assert done.returncode == 2 and "refusing to overwrite an input file" in done.stderr
    assert gt.read_text() == '{"a": "x"}\n'


def test_dash_as_an_output_is_refused_not_a_file_named_dash(tmp_path):
    schema = write(tmp_path / "s.json", '{"type": "object", "properties": {"a": {"type": "string"}}}')
    gt = write(tmp_path / "gt.jsonl", '{"a": "x"}\n')
    pred = write(tmp_path / "pred.jsonl", '{"a": "y"}\n')
    for option in ("--non-matches", "--per-document", "--output", "--html", "--junit", "--save-state"):
        done = run("eval", schema, gt, pred, option, "-", cwd=tmp_path)
        assert done.returncode == 2, option
        assert done.stderr.strip().splitlines() == [
            f"stickler: error: {option} -: standard output carries the printed report; name a file "
            "(/dev/stdout writes into that stream)"
        ], option
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gt.jsonl", "pred.jsonl", "s.json"]


def test_pairing_by_id(tmp_path):
    schema = write(
        tmp_path / "s.json", '{"type": "object", "properties": {"id": {"type": "string"}, "a": {"type": "string"}}}'
    )
    gt = write(tmp_path / "gt.jsonl", '{"id": "1", "a": "x"}\n{"id": "2", "a": "y"}\n{"id": "3", "a": "z"}\n')
    pred = write(tmp_path / "pred.jsonl", '{"id": "3", "a": "z"}\n{"id": "9", "a": "q"}\n{"id": "1", "a": "x"}\n')
    report = orjson.loads(run("eval", schema, gt, pred, "--id-field", "id", "--format", "json").stdout)
    assert report["document_count"] == 3
    assert report["field_metrics"]["a"]["tp"] == 2 and report["field_metrics"]["a"]["fn"] == 1
    records = report["inputs"]["records"]
    assert records["missing_predictions"] == 1 and records["unpaired_predictions"] == 1
    assert records["pred_lines"] == records["paired"] + records["unpaired_predictions"]
    dup = write(tmp_path / "dup.jsonl", '{"id": "1"}\n{"id": "1"}\n')
    done = run("eval", schema, gt, dup, "--id-field", "id")
    assert done.returncode == 2 and "dup.jsonl:2: duplicate id '1' (first on line 1)" in done.stderr


def test_compare_explains_every_field(root):
    done = run(
        "compare",
        root / "schemas/quickstart.json",
        root / "fixtures/quickstart/gt.json",
        root / "fixtures/quickstart/pred.json",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    payload = orjson.loads(done.stdout)
    assert payload["score"] == 0.693121693121693
    rows = {r["path"]: r for r in payload["comparisons"]}
    assert rows["amount"]["result"] == "FD"
    assert rows["line_items[1↔0].product"]["similarity"] == pytest.approx(5 / 9)


def test_schema_check_and_version(root, capsys):
    assert main(["schema", "check", str(root / "schemas/invoice.json")]) == 0
    assert "line_items" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("stickler ")


def test_shard_and_merge_reports_validate(root, report_schema, tmp_path):
    """Reports of glob shards and of `stickler merge` follow the report schema too."""
    gt_lines = (root / "fixtures/invoice/gt.jsonl").read_text().splitlines(keepends=True)
    pred_lines = (root / "fixtures/invoice/pred.jsonl").read_text().splitlines(keepends=True)
    for side, lines in (("gt", gt_lines), ("pred", pred_lines)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "part-1.jsonl").write_text("".join(lines[:10]))
        (tmp_path / side / "part-2.jsonl").write_text("".join(lines[10:]))
    schema = root / "schemas/invoice.json"
    sharded = run(
        "eval",
        schema,
        f"{tmp_path}/gt/*.jsonl",
        f"{tmp_path}/pred/*.jsonl",
        "--format",
        "json",
        "--save-state",
        tmp_path / "all.state.json",
    )
    assert sharded.returncode == 0, sharded.stderr
    report = orjson.loads(sharded.stdout)
    assert report["inputs"]["ground_truth"] == [f"{tmp_path}/gt/part-1.jsonl", f"{tmp_path}/gt/part-2.jsonl"]
    jsonschema.validate(report, report_schema)
    merged = run("merge", tmp_path / "all.state.json", "--format", "json")
    assert merged.returncode == 0, merged.stderr
    merged_report = orjson.loads(merged.stdout)
    assert merged_report["inputs"]["states"] == [str(tmp_path / "all.state.json")]
    assert merged_report["metrics"] == report["metrics"]
    jsonschema.validate(merged_report, report_schema)


# -- issue 37: arguments in the wrong order are named as such, exit 2 ----------------------------------------


def _swapped(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, err


def test_arguments_in_the_wrong_order_say_the_order(root, tmp_path, capsys):
    """`eval GT SCHEMA PRED` said `gt.jsonl: /: not valid JSON: unexpected content after document: line 2
    column 1`; each command taking a schema first now names what it saw and the order it takes."""
    schema, gt, pred = (
        root / "schemas/invoice.json",
        root / "fixtures/invoice/gt.jsonl",
        root / "fixtures/invoice/pred.jsonl",
    )
    swap = f"stickler: error: {gt} looks like JSON Lines and {schema} like a schema: the order is "
    for args, order in (
        (["eval", gt, schema, pred, "--no-progress"], "SCHEMA GROUND_TRUTH PREDICTIONS"),
        (["eval", gt, pred, schema, "--no-progress"], "SCHEMA GROUND_TRUTH PREDICTIONS"),
        (["compare", gt, schema, pred], "SCHEMA GROUND_TRUTH PREDICTION"),
        (["diff", gt, schema, pred, pred], "SCHEMA GROUND_TRUTH PREDICTIONS_A PREDICTIONS_B"),
    ):
        assert _swapped(capsys, *args) == (2, swap + order + "\n"), args
    # No schema among the arguments: the data where the schema belongs is said, not a JSON parse error.
    assert _swapped(capsys, "eval", gt, pred, pred, "--no-progress") == (
        2,
        f"stickler: error: {gt} looks like JSON Lines, not a schema: the order is SCHEMA GROUND_TRUTH PREDICTIONS\n",
    )
    assert _swapped(capsys, "compare", '{"a": 1}', schema, pred) == (
        2,
        f"stickler: error: the SCHEMA argument is JSON text and {schema} looks like a schema: the order is SCHEMA "
        "GROUND_TRUTH PREDICTION\n",
    )
    code, err = _swapped(capsys, "schema", "check", gt)
    assert (code, err) == (
        2,
        f"stickler: error: {gt} looks like JSON Lines, not a schema: `stickler schema check "
        "SCHEMA` checks a schema (`stickler schema infer` infers one from data)\n",
    )
    for args in (["schema", "infer", schema, gt], ["schema", "infer", gt, schema]):
        assert _swapped(capsys, *args) == (
            2,
            f"stickler: error: {schema} looks like a schema: schema infer takes "
            "GROUND_TRUTH [PREDICTIONS], the data to infer a schema from\n",
        ), args
    # A broken schema on one line is not data: its own error stands.
    broken = tmp_path / "broken.json"
    broken.write_text('{"properties": {"a": {"minimum": "5"}}}\n')
    code, err = _swapped(capsys, "eval", broken, gt, pred, "--no-progress")
    assert code == 2 and err == (
        f"stickler: error: {broken}: /properties/a/minimum: not a valid JSON Schema: '5' is not of type 'number'\n"
    )
    # The right order still runs.
    assert _swapped(capsys, "eval", schema, gt, pred, "--no-progress", "-f", "json")[0] == 0
