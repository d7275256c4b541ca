"""`stickler eval --save-baseline` / `--baseline` (issue 41, item 2): a small file CI ratchets against.

The data (``_write``), worked by hand: 40 documents with three exact fields, ``id``, ``name`` and ``code``. The
shipped model gets ``name`` wrong in the 8 documents k % 5 == 0 and ``code`` wrong in the 10 documents
k % 4 == 0; every wrong value is an FD scored 0, every right one a TP scored 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import orjson
import pytest
from scipy.stats import binomtest

from stickler_cli.report.baseline import QUANTUM, load, mcnemar_p, quantise

ROOT = Path(__file__).parents[2]
N = 40
SCHEMA = {
    "type": "object",
    "x-aws-stickler-model-name": "Record",
    "properties": {
        name: {"type": "string", "x-aws-stickler-comparator": "ExactComparator"} for name in ("id", "name", "code")
    },
}


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "stickler_cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "COLUMNS": "120", "NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


def _truth(k: int) -> dict:
    return {"id": f"d{k}", "name": f"name{k}", "code": f"c{k}"}


def _prediction(k: int, name_wrong: bool, code_wrong: bool) -> dict:
    record = _truth(k)
    if name_wrong:
        record["name"] = "wrong"
    if code_wrong:
        record["code"] = "wrong"
    return record


def _write(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def data(tmp_path):
    """schema, ground truth, the shipped predictions and the baseline written from them."""
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    gt = _write(tmp_path / "gt.jsonl", [_truth(k) for k in range(N)])
    shipped = _write(tmp_path / "shipped.jsonl", [_prediction(k, k % 5 == 0, k % 4 == 0) for k in range(N)])
    baseline = tmp_path / "baseline.json"
    done = run("eval", schema, gt, shipped, "--save-baseline", baseline, "-f", "json")
    assert done.returncode == 0, done.stderr
    return tmp_path, schema, gt, shipped, baseline


def _compare(data, predictions, *more, gt=None):
    tmp_path, schema, truth, _, baseline = data
    out = tmp_path / "report.json"
    done = run("eval", schema, gt or truth, predictions, "--baseline", baseline, "-f", "json", "-o", out, *more)
    block = orjson.loads(out.read_bytes())["baseline"] if out.exists() else None
    return done, block


def _fields(block) -> dict:
    return {f["path"]: f for f in block["fields"]}


def test_the_same_predictions_are_the_same_on_every_field(data):
    _, _, _, shipped, _ = data
    done, block = _compare(data, shipped, "--fail-on-regression")
    assert done.returncode == 0, done.stderr
    assert block["documents"] == {
        "common": 40,
        "baseline_only": 0,
        "run_only": 0,
        "baseline_only_listed": [],
        "run_only_listed": [],
    }
    fields = _fields(block)
    assert set(fields) == {"id", "name", "code"}
    assert {f["verdict"] for f in fields.values()} == {"same"}
    assert fields["name"]["baseline_correct"] == fields["name"]["run_correct"] == 32  # 40 − 8
    assert fields["code"]["baseline_correct"] == 30  # 40 − 10
    assert fields["code"]["baseline_mean_score"] == fields["code"]["run_mean_score"] == 0.75
    assert fields["name"]["score_difference"] == 0.0
    assert block["notices"] == [] and block["worse"] == [] and block["better"] == []


def test_a_model_made_worse_on_one_field_fails_on_that_field_only(data):
    tmp_path, *_ = data
    # name wrong in 16 more documents (k < 20, k % 5 != 0); code as shipped
    worse = _write(tmp_path / "worse.jsonl", [_prediction(k, k % 5 == 0 or k < 20, k % 4 == 0) for k in range(N)])
    done, block = _compare(data, worse, "--fail-on-regression")
    assert done.returncode == 1
    assert "Against the baseline, the run is significantly worse on 1 field(s): name" in done.stderr
    fields = _fields(block)
    name = fields["name"]
    assert (name["worse"], name["better"], name["documents"]) == (16, 0, 40)
    assert name["mcnemar_p"] == pytest.approx(2 * 0.5**16, rel=1e-12)  # binomtest(0, 16): both tails of 1/2^16
    assert name["baseline_mean_score"] == 0.8 and name["run_mean_score"] == 0.4
    assert name["score_difference"] == pytest.approx(-0.4)
    assert name["verdict"] == "worse"
    assert fields["id"]["verdict"] == fields["code"]["verdict"] == "same"
    assert block["worse"] == ["name"] and block["better"] == []
    # without --fail-on-regression the run passes, and says so all the same
    done, block = _compare(data, worse)
    assert done.returncode == 0 and block["worse"] == ["name"]


def test_a_model_made_better_passes_and_says_so(data):
    tmp_path, *_ = data
    better = _write(tmp_path / "better.jsonl", [_prediction(k, k % 5 == 0, False) for k in range(N)])
    done, block = _compare(data, better, "--fail-on-regression")
    assert done.returncode == 0, done.stderr
    code = _fields(block)["code"]
    assert (code["worse"], code["better"]) == (0, 10)
    assert code["mcnemar_p"] == pytest.approx(2 * 0.5**10, rel=1e-12)
    assert code["verdict"] == "better" and block["better"] == ["code"] and block["worse"] == []
    assert (
        block["verdict"] == "Against the baseline, the run is significantly better on 1 field(s), worse on none: code"
    )
    table = run("eval", *[str(p) for p in data[1:3]], better, "--baseline", data[4])
    assert "Against the baseline, the run is significantly better on 1 field(s), worse on none: code" in table.stdout
    assert " code " in table.stdout and "better" in table.stdout


@pytest.mark.parametrize("worse, better", [(0, 16), (16, 0), (7, 2), (2, 7), (5, 5), (1, 0), (30, 12), (0, 0)])
def test_mcnemar_is_the_exact_binomial_test_on_the_discordant_documents(worse, better):
    expected = 1.0 if worse + better == 0 else binomtest(worse, worse + better, 0.5).pvalue
    assert mcnemar_p(worse, better) == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_mcnemar_by_hand():
    # 7 worse, 2 better: P(X <= 2) for X ~ Bin(9, 1/2) = (1 + 9 + 36) / 512; two-sided: twice that
    assert mcnemar_p(7, 2) == pytest.approx(92 / 512, rel=1e-12)
    assert mcnemar_p(3, 0) == pytest.approx(0.25, rel=1e-12)  # 2 × 1/8


def test_the_tests_are_adjusted_together_at_fdr(data):
    tmp_path, *_ = data
    # name: 3 more wrong (McNemar p = 0.25): not significant at any usual rate
    few = _write(tmp_path / "few.jsonl", [_prediction(k, k % 5 == 0 or k in (1, 2, 3), k % 4 == 0) for k in range(N)])
    done, block = _compare(data, few, "--fail-on-regression")
    assert done.returncode == 0, done.stderr
    name = _fields(block)["name"]
    assert name["mcnemar_p"] == pytest.approx(0.25) and name["verdict"] == "same"
    assert name["mcnemar_q"] >= name["mcnemar_p"]
    assert block["fdr"] == 0.05


def test_documents_on_one_side_only_are_counted_and_listed(data):
    tmp_path, *_ = data
    # the run drops the last 2 documents of the baseline and scores 3 new ones
    ks = [*range(N - 2), 100, 101, 102]
    gt = _write(tmp_path / "gt2.jsonl", [_truth(k) for k in ks])
    pred = _write(tmp_path / "pred2.jsonl", [_prediction(k, k % 5 == 0, k % 4 == 0) for k in ks])
    done, block = _compare(data, pred, "--fail-on-regression", gt=gt)
    assert done.returncode == 0, done.stderr
    d = block["documents"]
    assert (d["common"], d["baseline_only"], d["run_only"]) == (38, 2, 3)
    assert d["baseline_only_listed"] == [f"{tmp_path / 'gt.jsonl'}:39", f"{tmp_path / 'gt.jsonl'}:40"]
    assert d["run_only_listed"] == [f"{gt}:39", f"{gt}:40", f"{gt}:41"]
    table = run("eval", data[1], gt, pred, "--baseline", data[4])
    assert "2 document(s) in the baseline only" in table.stdout and "3 document(s) in this run only" in table.stdout


def test_no_document_in_common_fails_the_regression_check(data):
    tmp_path, *_ = data
    gt = _write(tmp_path / "other.jsonl", [_truth(k) for k in range(200, 210)])
    done, block = _compare(data, gt, "--fail-on-regression", gt=gt)
    assert done.returncode == 1
    assert "No document in common with the baseline" in done.stderr
    assert block["documents"]["common"] == 0 and block["documents"]["baseline_only"] == 40


def test_another_schema_is_refused_unless_asked(data):
    tmp_path, _, gt, shipped, baseline = data
    other = {**SCHEMA, "properties": {**SCHEMA["properties"], "extra": {"type": "string"}}}
    schema2 = tmp_path / "schema2.json"
    schema2.write_text(json.dumps(other))
    done = run("eval", schema2, gt, shipped, "--baseline", baseline)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"stickler: error: {baseline}: was written with another schema")
    out = tmp_path / "r.json"
    done = run("eval", schema2, gt, shipped, "--baseline", baseline, "--baseline-any-schema", "-o", out)
    assert done.returncode == 0, done.stderr
    block = orjson.loads(out.read_bytes())["baseline"]
    assert block["schema_differs"] is True
    assert [f["path"] for f in block["fields"]] == ["id", "name", "code"]
    assert block["not_compared"] == [{"path": "extra", "comparator": "LevenshteinComparator", "side": "run"}]
    assert block["notices"] == [
        "the baseline was written with another schema: a change in the evaluator is not a change in the model"
    ]
    assert "Not compared: extra (LevenshteinComparator, run only)" in done.stdout
    first = done.stdout.splitlines()[0]  # said first, before the figures
    assert first.startswith("Note: the baseline was written with another schema")


def test_another_version_is_said_first(data, tmp_path):
    _, schema, gt, shipped, baseline = data
    header = orjson.loads(baseline.read_bytes())
    header["stickler"] = "0.0.1"
    older = tmp_path / "older.json"
    older.write_bytes(orjson.dumps(header))
    done = run("eval", schema, gt, shipped, "--baseline", older, "-f", "markdown")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[2].startswith("> **Note:** `the baseline was written by stickler 0.0.1")
    assert "a change in the evaluator is not a change in the model" in lines[2]


def _edited(baseline: Path, tmp_path: Path, change) -> Path:
    header = orjson.loads(baseline.read_bytes())
    change(header)
    path = tmp_path / "edited.json"
    path.write_bytes(orjson.dumps(header))
    return path


@pytest.mark.parametrize(
    "change, said",
    [
        (lambda h: h.update(documents=41), "'sources' must be"),
        (lambda h: h["sources"][0].__setitem__(1, 41) or h.update(documents=41), "holds"),
        (lambda h: h["arrays"].update(score=h["arrays"]["score"][:-8]), "baseline field 'score'"),
        (lambda h: h["arrays"]["counts"].update(dtype="<f8"), "'arrays.counts' must be"),
        (lambda h: h.update(format="other"), "not a stickler baseline file"),
        (lambda h: h.update(documents=10**12), "'sources' must be"),
        (lambda h: h.pop("schema"), "'schema.digest' is missing"),
    ],
)
def test_an_edited_baseline_is_a_one_line_error(data, tmp_path, change, said):
    _, schema, gt, shipped, baseline = data
    edited = _edited(baseline, tmp_path, change)
    done = run("eval", schema, gt, shipped, "--baseline", edited)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"stickler: error: {edited}: ") and said in done.stderr


def test_a_truncated_or_huge_baseline_is_a_one_line_error(data, tmp_path):
    _, schema, gt, shipped, baseline = data
    cut = tmp_path / "cut.json"
    cut.write_bytes(baseline.read_bytes()[:200])
    done = run("eval", schema, gt, shipped, "--baseline", cut)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"stickler: error: {cut}: not a baseline file: not JSON")
    done = run("eval", schema, gt, shipped, "--baseline", baseline, "--limit", "state-bytes=500")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{baseline}: holds over 500 bytes (the state-bytes limit" in done.stderr


def test_the_file_keeps_outcomes_and_quantised_scores_not_values(data):
    *_, baseline = data
    text = baseline.read_text()
    assert "name1" not in text and "wrong" not in text  # no value of the data
    read = load(str(baseline))
    assert read.rows.shape == (40, 1 + 5 * 3 + 2 * 3)
    tp, fd = read.rows[:, 1 + 5 * 1], read.rows[:, 1 + 5 * 1 + 2]  # name's TP and FD columns
    assert list(fd.nonzero()[0]) == list(range(0, 40, 5)) and tp.sum() == 32
    assert read.header["figures"]["fields"]["code"]["cm_precision"] == 0.75
    # a score is kept to within half a quantum
    assert abs(quantise(__import__("numpy").array([1 / 3]))[0] * QUANTUM - 1 / 3) <= QUANTUM / 2


def test_workers_write_the_baseline_one_process_writes(tmp_path):
    folder = tmp_path / "bench"
    subprocess.run([sys.executable, "-m", "bench.generate", folder, "300"], check=True, cwd=ROOT, capture_output=True)
    schema, gt, pred = ROOT / "bench/invoice.schema.json", folder / "gt.jsonl", folder / "pred.jsonl"
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    for target, workers in ((one, "1"), (two, "2")):
        done = run("eval", schema, gt, pred, "--workers", workers, "--save-baseline", target, "-f", "json")
        assert done.returncode == 0, done.stderr
    assert one.read_bytes() == two.read_bytes()
    out = tmp_path / "r.json"
    done = run("eval", schema, gt, pred, "--workers", "2", "--baseline", one, "-f", "json", "-o", out)
    assert done.returncode == 0, done.stderr
    block = orjson.loads(out.read_bytes())["baseline"]
    assert block["documents"]["common"] == 300 and {f["verdict"] for f in block["fields"]} == {"same"}


def test_the_file_is_smaller_than_a_tenth_of_the_predictions_on_the_bench_workload(tmp_path):
    folder = tmp_path / "bench"
    subprocess.run([sys.executable, "-m", "bench.generate", folder, "1000"], check=True, cwd=ROOT, capture_output=True)
    pred = folder / "pred.jsonl"
    baseline = tmp_path / "baseline.json"
    done = run(
        "eval", ROOT / "bench/invoice.schema.json", folder / "gt.jsonl", pred, "--save-baseline", baseline, "-f", "json"
    )
    assert done.returncode == 0, done.stderr
    assert baseline.stat().st_size < pred.stat().st_size / 10
    assert load(str(baseline)).rows.shape[0] == 1000


def test_the_report_block_validates_in_every_format(data):
    tmp_path, schema, gt, shipped, baseline = data
    out, junit, html = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.html"
    worse = _write(tmp_path / "worse.jsonl", [_prediction(k, k % 5 == 0 or k < 20, k % 4 == 0) for k in range(N)])
    done = run("eval", schema, gt, worse, "--baseline", baseline, "-o", out, "--junit", junit, "--html", html)
    assert done.returncode == 0, done.stderr
    report = orjson.loads(out.read_bytes())
    jsonschema.validate(report, orjson.loads((ROOT / "schemas/report.schema.json").read_bytes()))
    assert "Against the baseline, the run is significantly worse on 1 field(s): name" in done.stdout
    xml = junit.read_text()
    assert 'testsuite name="stickler.baseline"' in xml and 'tests="3" failures="1"' in xml
    assert "Against the baseline" in html.read_text()
    markdown = run("eval", schema, gt, worse, "--baseline", baseline, "-f", "markdown").stdout
    assert "### Against the baseline" in markdown and "| `name` | 40 | 16 | 0 | 0.800 | 0.400 |" in markdown
    # Said at the top (a PR comment's first lines), though no gate failed.
    assert (
        markdown.splitlines()[2] == "**❌ `Against the baseline, the run is significantly worse on 1 field(s): name`**"
    )
    same = run("eval", schema, gt, shipped, "--baseline", baseline, "-f", "markdown").stdout
    assert same.splitlines()[2].startswith("**✅ ")


def test_options_that_need_a_baseline_say_so(data):
    _, schema, gt, shipped, _ = data
    done = run("eval", schema, gt, shipped, "--fail-on-regression")
    assert done.returncode == 2 and "give --baseline FILE" in done.stderr


def test_without_the_options_the_report_has_no_baseline_block(data):
    tmp_path, schema, gt, shipped, _ = data
    out = tmp_path / "plain.json"
    assert run("eval", schema, gt, shipped, "-o", out).returncode == 0
    assert "baseline" not in orjson.loads(out.read_bytes())


def test_dask_writes_the_baseline_one_process_writes(tmp_path):
    pytest.importorskip("distributed")
    folder = tmp_path / "bench"
    subprocess.run([sys.executable, "-m", "bench.generate", folder, "200"], check=True, cwd=ROOT, capture_output=True)
    lines = {name: (folder / f"{name}.jsonl").read_text().splitlines(keepends=True) for name in ("gt", "pred")}
    for name, records in lines.items():  # two shards of each: a.jsonl and b.jsonl
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.jsonl").write_text("".join(records[:120]))
        (tmp_path / name / "b.jsonl").write_text("".join(records[120:]))
    schema, gt, pred = ROOT / "bench/invoice.schema.json", f"{tmp_path}/gt/*", f"{tmp_path}/pred/*"
    one, dask = tmp_path / "one.json", tmp_path / "dask.json"
    done = run("eval", schema, gt, pred, "--workers", "1", "--save-baseline", one, "-f", "json")
    assert done.returncode == 0, done.stderr
    done = run("eval", schema, gt, pred, "--dask", "local", "--workers", "2", "--save-baseline", dask, "-f", "json")
    assert done.returncode == 0, done.stderr
    assert one.read_bytes() == dask.read_bytes()
    assert load(str(one)).header["sources"] == [[f"{tmp_path}/gt/a.jsonl", 120], [f"{tmp_path}/gt/b.jsonl", 80]]


def test_no_field_in_common_fails_the_regression_check(data):
    tmp_path, _, gt, shipped, baseline = data
    other = {"type": "object", "properties": {"other": {"type": "string"}}}
    schema2 = tmp_path / "other-schema.json"
    schema2.write_text(json.dumps(other))
    out = tmp_path / "r.json"
    args = ("eval", schema2, gt, shipped, "--baseline", baseline, "--baseline-any-schema", "-o", out)
    done = run(*args, "--fail-on-regression")
    assert done.returncode == 1
    assert "No field in common with the baseline" in done.stdout  # the tables say it; stderr need not
    block = orjson.loads(out.read_bytes())["baseline"]
    assert block["fields"] == [] and block["regressed"] is True and block["documents"]["common"] == 40
    assert run(*args).returncode == 0  # said, not failed, without --fail-on-regression


def test_the_receipts_example_adjusts_four_tests_as_the_docs_work_them_out(tmp_path):
    folder = ROOT / "fixtures/baseline"
    baseline, out = tmp_path / "receipts.json", tmp_path / "r.json"
    assert (
        run(
            "eval",
            folder / "schema.json",
            folder / "gt.jsonl",
            folder / "shipped.jsonl",
            "--save-baseline",
            baseline,
            "-f",
            "json",
        ).returncode
        == 0
    )
    done = run(
        "eval",
        folder / "schema.json",
        folder / "gt.jsonl",
        folder / "candidate.jsonl",
        "--baseline",
        baseline,
        "-o",
        out,
        "-f",
        "json",
    )
    assert done.returncode == 0, done.stderr
    fields = _fields(orjson.loads(out.read_bytes())["baseline"])
    total, date = fields["total"], fields["date"]
    assert (total["worse"], total["better"], date["worse"], date["better"]) == (8, 0, 0, 4)
    assert total["mcnemar_p"] == pytest.approx(2 / 2**8) and date["mcnemar_p"] == pytest.approx(2 / 2**4)
    # the permutation p-values are (k + 1) / 1001 for some count k of the 1,000 permutations
    for p in (total["score_p"], date["score_p"]):
        assert round(p * 1001) == pytest.approx(p * 1001)
    # Benjamini-Hochberg by hand over the four tests that moved (receipt_id and vendor make none)
    p = sorted([total["mcnemar_p"], total["score_p"], date["mcnemar_p"], date["score_p"]])
    scaled = [p[k] * 4 / (k + 1) for k in range(4)]
    q = [min(scaled[k:]) for k in range(4)]
    by_p = dict(zip(p, q))
    assert total["mcnemar_q"] == pytest.approx(by_p[total["mcnemar_p"]])
    assert total["score_q"] == pytest.approx(by_p[total["score_p"]])
    assert date["mcnemar_q"] == pytest.approx(by_p[date["mcnemar_p"]])
    assert total["mcnemar_q"] <= 0.05 and date["mcnemar_q"] > 0.05
    assert total["verdict"] == "worse" and date["verdict"] == "same"
    assert fields["receipt_id"]["mcnemar_q"] is None and fields["vendor"]["score_q"] is None
