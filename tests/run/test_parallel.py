"""Scoring on several processes equals scoring on one; states merge in any order; progress."""

import itertools
import random
from pathlib import Path

import orjson
import pytest

import stickler_cli as st
from stickler_cli.run import parallel
from stickler_cli.run.accumulate import Accumulator
from stickler_cli.errors import InputError
from stickler_cli import evaluate_files
from stickler_cli.run.evaluate import Evaluation, evaluate_pairs
from stickler_cli.report.build import build_report
from tests.support.datagen import generate
from tests.support.reports import assert_same, assert_same_reordered, run

N_DOCS = 600  # several chunks of parallel.CHUNK_SIZE
BROKEN_PRED_LINES = (17, 233, 401)  # 0-based record positions whose prediction line is broken


def dataset(root, n=N_DOCS, seed=11):
    """Ground truth and predictions (with _confidence) plus a unique doc_id on both sides."""
    gts, preds = generate(str(root / "schemas/invoice.json"), n, seed, confidence=True)
    for i, (gt, pred) in enumerate(zip(gts, preds)):
        gt["doc_id"] = pred["doc_id"] = f"doc-{i:05d}"
    return gts, preds


def jsonl(rows):
    return [orjson.dumps(r).decode() for r in rows]


def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def messy_predictions(preds, shuffle_seed=None):
    """Prediction lines with broken lines, a blank line in place of one and one extra prediction."""
    lines = jsonl(preds)
    for k in BROKEN_PRED_LINES:
        lines[k] = lines[k][: len(lines[k]) // 2]  # truncated: not JSON
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(lines)
    lines[300] = ""  # a blank line: a missing prediction at that line (the lines after it stay in step)
    lines.append(orjson.dumps({"doc_id": "doc-extra", "invoice_id": "INV-0"}).decode())
    return lines


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from tests.conftest import ROOT

    d = tmp_path_factory.mktemp("parallel")
    gts, preds = dataset(ROOT)
    gt = write_lines(d / "gt.jsonl", jsonl(gts))
    pred = write_lines(d / "pred.jsonl", messy_predictions(preds))
    shuffled = write_lines(d / "pred_shuffled.jsonl", messy_predictions(preds, shuffle_seed=5))
    clean = write_lines(d / "pred_clean.jsonl", jsonl(preds))
    return {
        "dir": d,
        "schema": ROOT / "schemas/invoice.json",
        "gt": gt,
        "pred": pred,
        "shuffled": shuffled,
        "clean": clean,
        "gts": gts,
        "preds": preds,
    }


@pytest.fixture(scope="module")
def plan(files):
    return st.load_schema(files["schema"])


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    """In-process runs split the 600 documents into four chunks (the CLI's 500 still gives two)."""
    monkeypatch.setattr(parallel, "CHUNK_SIZE", 150)


def test_dataset_spans_several_chunks(files):
    assert N_DOCS > 2 * parallel.CHUNK_SIZE


@pytest.mark.parametrize("id_field, pred_key", [(None, "pred"), ("doc_id", "shuffled")])
def test_two_workers_equal_one(plan, files, id_field, pred_key):
    gt, pred = str(files["gt"]), str(files[pred_key])
    one = build_report(evaluate_files(plan, gt, pred, id_field=id_field, workers=1))
    two = build_report(evaluate_files(plan, gt, pred, id_field=id_field, workers=2))
    assert one["document_count"] == N_DOCS
    assert one["confidence_metrics"] is not None  # the floats compared include the confidence block
    assert one["errors"], "the data should produce recorded errors"
    assert len(one["errors"]) >= len(BROKEN_PRED_LINES) + 1  # broken lines + the extra prediction
    records = one["inputs"]["records"]
    assert records["unpaired_predictions"] >= 1
    if id_field is None:
        assert records["invalid_predictions"] == len(BROKEN_PRED_LINES)
    assert two["errors"] == one["errors"]
    assert two["inputs"]["records"] == records
    assert_same(one, two)


def test_bad_ground_truth_line_in_the_middle_names_file_and_line(plan, files, tmp_path):
    lines = files["gt"].read_text().splitlines()
    lines[349] = '{"invoice_id": "INV-1", not json'
    gt = write_lines(tmp_path / "gt.jsonl", lines)
    messages = []
    for workers in (1, 2):
        with pytest.raises(InputError) as caught:
            evaluate_files(plan, str(gt), str(files["clean"]), workers=workers)
        messages.append(str(caught.value))
    assert messages[0].startswith(f"{gt}:350: ground truth not valid JSON")
    assert messages[1] == messages[0]


def roundtrip(state):
    return orjson.loads(orjson.dumps(state))  # as on disk


def test_merge_order_does_not_matter_evaluate_pairs(plan, files):
    pairs = list(zip(files["gts"], files["preds"]))
    whole = build_report(Evaluation(plan, evaluate_pairs(plan, pairs)))
    assert whole["confidence_metrics"] is not None
    cuts = [pairs[:150], pairs[150:410], pairs[410:]]
    states = [roundtrip(evaluate_pairs(plan, part).get_state()) for part in cuts]
    for order in itertools.permutations(range(3)):
        acc = Accumulator(plan)
        for k in order:
            acc.merge_state(states[k])
        assert_same_reordered(build_report(Evaluation(plan, acc)), whole, in_order=False)


def test_merge_order_does_not_matter_evaluate_files(plan, files, tmp_path):
    """Parts with broken, blank and extra prediction lines: everything but error locations is equal."""
    gt_lines = files["gt"].read_text().splitlines()
    pred_lines = messy_predictions(files["preds"])  # its blank line stands in for a record: in step
    bounds = [(0, 200), (200, 450), (450, len(gt_lines))]
    states = []
    for k, (lo, hi) in enumerate(bounds):
        gt = write_lines(tmp_path / f"gt{k}.jsonl", gt_lines[lo:hi])
        pred = write_lines(tmp_path / f"pred{k}.jsonl", pred_lines[lo:hi] + (pred_lines[hi:] if k == 2 else []))
        states.append(roundtrip(evaluate_files(plan, str(gt), str(pred)).accumulator.get_state()))
    whole_gt = write_lines(tmp_path / "gt.jsonl", gt_lines)
    whole_pred = write_lines(tmp_path / "pred.jsonl", pred_lines)
    whole = build_report(evaluate_files(plan, str(whole_gt), str(whole_pred)))
    for order in itertools.permutations(range(3)):
        acc = Accumulator(plan)
        for k in order:
            acc.merge_state(states[k])
        merged = build_report(Evaluation(plan, acc))
        assert merged["inputs"]["records"] == whole["inputs"]["records"]
        assert sorted(e["message"] for e in merged["errors"]) == sorted(e["message"] for e in whole["errors"])
        assert_same_reordered(merged, whole, ignore=("elapsed_seconds", "inputs", "errors"), in_order=False)


def test_cli_two_workers_equal_one(files):
    reports = []
    for workers in ("1", "2"):
        done = run("eval", files["schema"], files["gt"], files["pred"], "--workers", workers, "--format", "json")
        assert done.returncode == 0, done.stderr
        reports.append(orjson.loads(done.stdout))
    assert reports[0]["document_count"] == N_DOCS
    assert_same(reports[0], reports[1])


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_callback(plan, files, workers):
    calls = []
    evaluation = evaluate_files(
        plan,
        str(files["gt"]),
        str(files["pred"]),
        workers=workers,
        progress=lambda docs, nbytes: calls.append((docs, nbytes)),
    )
    assert len(calls) >= 2
    docs = [c[0] for c in calls]
    nbytes = [c[1] for c in calls]
    assert docs == sorted(docs) and nbytes == sorted(nbytes)
    assert docs[-1] == evaluation.accumulator.document_count == N_DOCS
    assert nbytes[-1] == files["gt"].stat().st_size


@pytest.mark.parametrize("workers", ["1", "2"])
def test_no_stderr_output_when_not_a_terminal(files, workers):
    done = run("eval", files["schema"], files["gt"], files["clean"], "--workers", workers, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert orjson.loads(done.stdout)["document_count"] == N_DOCS


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_over_shards_with_gz(plan, files, tmp_path, workers):
    """Bytes read run on across shards and count a .gz file by its size on disk."""
    import gzip

    from stickler_cli.run.shards import Shard

    gt_lines = files["gt"].read_text().splitlines()
    pred_lines = files["clean"].read_text().splitlines()
    shards = []
    for k, (lo, hi) in enumerate(((0, 250), (250, 420), (420, N_DOCS))):
        gt, pred = tmp_path / f"gt{k}.jsonl", tmp_path / f"pred{k}.jsonl"
        gt_bytes = "".join(x + "\n" for x in gt_lines[lo:hi]).encode()
        if k == 1:
            gt = tmp_path / f"gt{k}.jsonl.gz"
            gt_bytes = gzip.compress(gt_bytes)
        gt.write_bytes(gt_bytes)
        write_lines(pred, pred_lines[lo:hi])
        shards.append(Shard(str(gt), str(pred)))
    calls = []
    evaluation = evaluate_files(plan, shards, workers=workers, progress=lambda d, b: calls.append((d, b)))
    docs, nbytes = [c[0] for c in calls], [c[1] for c in calls]
    assert docs == sorted(docs) and nbytes == sorted(nbytes)
    assert docs[-1] == evaluation.accumulator.document_count == N_DOCS
    assert nbytes[-1] == sum(Path(s.ground_truth).stat().st_size for s in shards)
    whole = build_report(evaluate_files(plan, str(files["gt"]), str(files["clean"])))
    assert_same_reordered(build_report(evaluation), whole, ignore=("elapsed_seconds", "inputs"))


def test_progress_with_id_field(plan, files):
    calls = []
    evaluation = evaluate_files(
        plan, str(files["gt"]), str(files["shuffled"]), id_field="doc_id", progress=lambda d, b: calls.append((d, b))
    )
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert calls[-1] == (evaluation.accumulator.document_count, files["gt"].stat().st_size)


def test_strict_stops_the_same_with_two_workers(plan, files):
    messages = []
    for workers in (1, 2):
        with pytest.raises(InputError) as caught:
            evaluate_files(plan, str(files["gt"]), str(files["pred"]), strict=True, workers=workers)
        messages.append(str(caught.value))
    assert messages[0].startswith(f"{files['pred']}:{BROKEN_PRED_LINES[0] + 1}: prediction not valid JSON")
    assert messages[1] == messages[0]


def test_plugin_comparator_in_worker_processes(root, tmp_path):
    """Workers rebuild the plan from the schema and import --plugin files themselves."""
    plugin = root / "tests/support/shout_plugin.py"
    schema = tmp_path / "s.json"
    node = {"type": "string", "x-aws-stickler-comparator": "ShoutComparator", "x-aws-stickler-threshold": 1.0}
    schema.write_bytes(orjson.dumps({"type": "object", "properties": {"code": node, "n": {"type": "integer"}}}))
    rng = random.Random(9)
    words = ["ab", "AB", "cd", "xyz", "XYz", "q"]
    gt = write_lines(
        tmp_path / "gt.jsonl", [orjson.dumps({"code": rng.choice(words), "n": i % 7}).decode() for i in range(500)]
    )
    pred = write_lines(
        tmp_path / "pred.jsonl", [orjson.dumps({"code": rng.choice(words), "n": i % 5}).decode() for i in range(500)]
    )
    reports = []
    for workers in ("1", "2"):
        done = run("eval", schema, gt, pred, "--plugin", plugin, "--workers", workers, "--format", "json")
        assert done.returncode == 0, done.stderr
        reports.append(orjson.loads(done.stdout))
    assert reports[0]["field_metrics"]["code"]["comparator"] == "ShoutComparator"
    assert reports[0]["field_metrics"]["code"]["tp"] > 0
    assert_same(reports[0], reports[1])


def test_the_comparer_itself():
    base = {"a": 1, "b": [0.5, {"c": True}], "elapsed_seconds": 1.0}
    assert_same(base, {"a": 1, "b": [0.5 + 1e-13, {"c": True}], "elapsed_seconds": 9.0})
    for other in (
        {"a": 2, "b": [0.5, {"c": True}]},
        {"a": 1, "b": [0.5 + 1e-9, {"c": True}]},
        {"a": 1, "b": [0.5, {"c": False}]},
        {"a": 1.0, "b": [0.5, {"c": True}]},
        {"a": 1, "b": [0.5]},
        {"a": 1, "b": [0.5, {"c": True}], "d": None},
    ):
        with pytest.raises(AssertionError):
            assert_same(base, other)


def test_the_default_number_of_workers_follows_the_measurement(root):
    """make bench, case 5: on 2 cores a second worker was no reliable gain at any size, so without
    --workers a run stays in one process there; elsewhere, every core from 32 MB of ground truth."""
    from stickler_cli.cli.option_values import AUTO_WORKERS_BYTES, AUTO_WORKERS_MIN_CORES, _auto_workers

    plan = st.load_schema(str(root / "schemas/invoice.json"))
    assert (AUTO_WORKERS_BYTES, AUTO_WORKERS_MIN_CORES) == (32 * 2**20, 3)
    assert _auto_workers(plan, 10**12, cores=2) == 1  # was 2: every core above 8 MB
    assert _auto_workers(plan, 16 * 2**20, cores=8) == 1  # was 8
    assert _auto_workers(plan, 32 * 2**20, cores=8) == 8
    assert _auto_workers(plan, 32 * 2**20, cores=1) == 1


@pytest.mark.parametrize("id_field", [None, "id"])
def test_records_nested_near_the_readers_bound_go_to_workers_and_back(tmp_path, id_field):
    """A value nested 500 deep stopped --workers with RecursionError while pickling (exit 3); the reader
    takes 1,024 levels, and workers now take what it takes, paired by line or by id (sent as records)."""
    import sys

    schema = tmp_path / "s.json"
    schema.write_text('{"type": "object", "properties": {"id": {"type": "string"}, "m": {"type": "object"}}}')
    gt, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    deep = lambda leaf: '{"k": ' + "[" * 1020 + leaf + "]" * 1020 + "}"  # noqa: E731
    gt.write_text("".join(f'{{"id": "{k}", "m": {deep("1")}}}\n' for k in range(3)))
    pred.write_text("".join(f'{{"id": "{k}", "m": {deep("1" if k else "2")}}}\n' for k in range(3)))
    before = sys.getrecursionlimit()
    plan = st.load_schema(str(schema))
    reports = [build_report(evaluate_files(plan, str(gt), str(pred), workers=w, id_field=id_field)) for w in (1, 2)]
    assert sys.getrecursionlimit() == before  # raised for the pool only
    for report in reports:
        assert report["errors"] == [] and report["document_count"] == 3
    assert reports[0]["metrics"] == reports[1]["metrics"]
    assert reports[0]["field_metrics"] == reports[1]["field_metrics"]


class _CountingPool(parallel.ProcessPoolExecutor):
    """The process pool, noting how many processes each run asked for."""

    sizes: list[int] = []

    def __init__(self, max_workers, **kwargs):
        _CountingPool.sizes.append(max_workers)
        super().__init__(max_workers, **kwargs)


def test_workers_are_capped_by_the_cores_and_by_the_work(files, monkeypatch, capsys, tmp_path):
    """Issue 37, item 14: --workers 64 on 2 documents spawned 64 processes (99,999 were killed). At most
    workers-per-core processes a core, and never more than the chunks of work."""
    from stickler_cli.cli.app import main

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", _CountingPool)
    monkeypatch.setattr(parallel, "available_cores", lambda: 3)
    _CountingPool.sizes = []
    args = ["eval", str(files["schema"]), str(files["gt"]), str(files["clean"]), "--format", "json"]
    assert main([*args, "--workers", "99999"]) == 0  # 600 documents: four chunks of 150
    out = capsys.readouterr()
    assert (
        "--workers 99,999 is more than 3 process(es) for the 3 core(s) this run may use "
        "(limit workers-per-core=1): scoring on 3" in out.err
    )
    assert orjson.loads(out.out)["document_count"] == N_DOCS
    assert main([*args, "--workers", "64", "--limit", "workers-per-core=2"]) == 0  # 6 allowed, 4 chunks
    assert "scoring on 6" in capsys.readouterr().err
    two = write_lines(tmp_path / "gt2.jsonl", jsonl(files["gts"][:2]))
    assert main(["eval", str(files["schema"]), str(two), str(two), "--workers", "3", "--format", "json"]) == 0
    assert capsys.readouterr().err == ""
    assert _CountingPool.sizes == [3, 4, 1]


def test_bootstrap_resamples_are_bounded(files, capsys):
    from stickler_cli.cli.app import main

    args = [str(files["schema"]), str(files["gt"]), str(files["clean"]), "--ci", "0.95"]
    assert main(["eval", *args, "--bootstrap", "10000000"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "stickler: error: --bootstrap 10,000,000: more resamples than the limit of 100,000 (raise it "
        "with --limit bootstrap-resamples=N)\n"
    )
    assert (
        main(
            [
                "diff",
                str(files["schema"]),
                str(files["gt"]),
                str(files["clean"]),
                str(files["clean"]),
                "--bootstrap",
                "100001",
            ]
        )
        == 2
    )
    assert "--bootstrap 100,001: more resamples than the limit of 100,000" in capsys.readouterr().err
    assert main(["eval", *args, "--bootstrap", "20", "--limit", "bootstrap-resamples=10", "--format", "json"]) == 2
    assert "limit of 10 " in capsys.readouterr().err
