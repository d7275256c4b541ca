"""Glob-pattern shards and .gz files: the same report as one plain file, and clear errors."""

import gzip
import random

import orjson
import pytest

from stickler_cli.run.shards import resolve_shards
from stickler_cli.errors import InputError
from tests.support.datagen import generate
from tests.support.reports import assert_same_reordered, run

N_DOCS = 450
CUTS = ((0, 140), (140, 330), (330, N_DOCS))  # shard 1, 2 (gzip-compressed) and 3
BROKEN = (25, 180, 400)  # one broken prediction line in each shard


def put(path, lines, compress=False):
    data = "".join(line + "\n" for line in lines).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    """Three shard pairs under gt/ and pred/ (part-2 gzip-compressed) and their concatenation."""
    from tests.conftest import ROOT

    d = tmp_path_factory.mktemp("shards")
    gts, preds = generate(str(ROOT / "schemas/invoice.json"), N_DOCS, 31, confidence=True)
    for i, (gt, pred) in enumerate(zip(gts, preds)):
        gt["doc_id"] = pred["doc_id"] = f"doc-{i:05d}"
    gt_lines = [orjson.dumps(r).decode() for r in gts]
    pred_lines = [orjson.dumps(r).decode() for r in preds]
    for k in BROKEN:
        pred_lines[k] = pred_lines[k][:-9]
    for n, (lo, hi) in enumerate(CUTS, start=1):
        suffix = ".jsonl.gz" if n == 2 else ".jsonl"
        put(d / "gt" / f"part-{n}{suffix}", gt_lines[lo:hi], compress=n == 2)
        put(d / "pred" / f"part-{n}{suffix}", pred_lines[lo:hi], compress=n == 2)
    whole = {"gt": put(d / "whole" / "gt.jsonl", gt_lines), "pred": put(d / "whole" / "pred.jsonl", pred_lines)}
    shuffled = pred_lines[:]
    random.Random(3).shuffle(shuffled)
    whole["shuffled"] = put(d / "whole" / "pred_shuffled.jsonl", shuffled)
    whole["shuffled_gz"] = put(d / "whole" / "pred_shuffled.jsonl.gz", shuffled, compress=True)
    return {"dir": d, "schema": ROOT / "schemas/invoice.json", **whole}


def eval_json(*args):
    done = run("eval", *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout)


@pytest.fixture(scope="module")
def single(ds):
    return eval_json(ds["schema"], ds["gt"], ds["pred"], "--workers", "1")


def assert_equals_single(sharded, single):
    assert sharded["document_count"] == single["document_count"] == N_DOCS
    assert sharded["confidence_metrics"] is not None
    assert sharded["inputs"]["records"] == single["inputs"]["records"]
    assert single["inputs"]["records"]["invalid_predictions"] == len(BROKEN)
    # Errors name the shard and its own line numbers; their messages are the same, in order.
    assert [e["message"] for e in sharded["errors"]] == [e["message"] for e in single["errors"]]
    assert_same_reordered(sharded, single, ignore=("elapsed_seconds", "inputs", "errors"))


def test_shard_pairing_ignores_gz(ds):
    shards = resolve_shards(str(ds["dir"] / "gt/*"), str(ds["dir"] / "pred/*"))
    assert [(s.ground_truth.rsplit("/", 2)[-2:], s.predictions.rsplit("/", 2)[-2:]) for s in shards] == [
        (["gt", "part-1.jsonl"], ["pred", "part-1.jsonl"]),
        (["gt", "part-2.jsonl.gz"], ["pred", "part-2.jsonl.gz"]),
        (["gt", "part-3.jsonl"], ["pred", "part-3.jsonl"]),
    ]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_glob_shards_equal_one_file(ds, single, workers):
    sharded = eval_json(ds["schema"], f"{ds['dir']}/gt/*", f"{ds['dir']}/pred/*", "--workers", workers)
    assert sharded["inputs"]["ground_truth"] == [
        str(ds["dir"] / "gt" / n) for n in ("part-1.jsonl", "part-2.jsonl.gz", "part-3.jsonl")
    ]
    assert_equals_single(sharded, single)


def test_gz_pairs_only_with_gz_via_name(ds, tmp_path, single):
    """part-2 compressed on one side only still pairs (the name ignores .gz)."""
    for n, (lo, hi) in enumerate(CUTS, start=1):
        src_gt = ds["dir"] / "gt" / (f"part-{n}.jsonl.gz" if n == 2 else f"part-{n}.jsonl")
        src_pred = ds["dir"] / "pred" / (f"part-{n}.jsonl.gz" if n == 2 else f"part-{n}.jsonl")
        (tmp_path / "gt").mkdir(exist_ok=True)
        (tmp_path / "pred").mkdir(exist_ok=True)
        (tmp_path / "gt" / src_gt.name).write_bytes(src_gt.read_bytes())
        plain = gzip.decompress(src_pred.read_bytes()) if n == 2 else src_pred.read_bytes()
        (tmp_path / "pred" / f"part-{n}.jsonl").write_bytes(plain)
    sharded = eval_json(ds["schema"], f"{tmp_path}/gt/*", f"{tmp_path}/pred/*")
    assert_equals_single(sharded, single)


def test_pattern_matching_nothing(ds):
    pattern = f"{ds['dir']}/nothing/*.jsonl"
    done = run("eval", ds["schema"], pattern, f"{ds['dir']}/pred/*")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert pattern in done.stderr and "matches no file" in done.stderr


def test_ground_truth_shard_without_prediction_shard(ds, tmp_path):
    for side in ("gt", "pred"):
        (tmp_path / side).mkdir()
        for src in sorted((ds["dir"] / side).iterdir()):
            (tmp_path / side / src.name).write_bytes(src.read_bytes())
    (tmp_path / "pred" / "part-3.jsonl").unlink()
    done = run("eval", ds["schema"], f"{tmp_path}/gt/*", f"{tmp_path}/pred/*")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "part-3.jsonl" in done.stderr and "no prediction shard" in done.stderr
    # and the other way round
    (tmp_path / "pred" / "part-3.jsonl").write_text("{}\n")
    (tmp_path / "gt" / "part-1.jsonl").unlink()
    done = run("eval", ds["schema"], f"{tmp_path}/gt/*", f"{tmp_path}/pred/*")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "part-1.jsonl" in done.stderr and "no ground-truth shard" in done.stderr


@pytest.mark.parametrize("pattern_side", ["gt", "pred"])
def test_only_one_side_a_pattern(ds, pattern_side):
    gt = f"{ds['dir']}/gt/*" if pattern_side == "gt" else ds["gt"]
    pred = f"{ds['dir']}/pred/*" if pattern_side == "pred" else ds["pred"]
    done = run("eval", ds["schema"], gt, pred)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "glob patterns" in done.stderr


def test_resolve_shards_errors_directly(ds):
    with pytest.raises(InputError, match="matches no file"):
        resolve_shards(str(ds["dir"] / "none/*"), str(ds["dir"] / "pred/*"))
    with pytest.raises(InputError, match="or neither"):
        resolve_shards(str(ds["gt"]), str(ds["dir"] / "pred/*"))


@pytest.mark.parametrize("side", ["gt", "pred"])
@pytest.mark.parametrize("workers", ["1", "2"])
def test_truncated_gz_is_one_line_exit_2(ds, tmp_path, side, workers):
    data = gzip.compress(ds["gt" if side == "gt" else "pred"].read_bytes())
    broken = tmp_path / f"{side}.jsonl.gz"
    broken.write_bytes(data[: len(data) // 2])
    gt = broken if side == "gt" else ds["gt"]
    pred = broken if side == "pred" else ds["pred"]
    done = run("eval", ds["schema"], gt, pred, "--workers", workers)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(broken) in done.stderr


def test_id_field_with_gz_predictions(ds, single):
    plain = eval_json(ds["schema"], ds["gt"], ds["shuffled"], "--id-field", "doc_id")
    gz = eval_json(ds["schema"], ds["gt"], ds["shuffled_gz"], "--id-field", "doc_id")
    assert plain["document_count"] == N_DOCS
    assert plain["inputs"]["records"]["unpaired_predictions"] == len(BROKEN)  # their ids cannot be read
    assert gz["inputs"]["records"] == plain["inputs"]["records"]
    # Same errors, apart from the prediction file's name.
    assert [dict(e, source=None) for e in gz["errors"]] == [dict(e, source=None) for e in plain["errors"]]
    assert_same_reordered(gz, plain, ignore=("elapsed_seconds", "inputs", "errors"))


def test_id_field_with_gz_shards_equals_plain(ds, tmp_path):
    """--id-field over glob shards (one pair compressed) equals --id-field over the plain files."""
    plain = eval_json(ds["schema"], ds["gt"], ds["shuffled"], "--id-field", "doc_id")
    sharded = eval_json(ds["schema"], f"{ds['dir']}/gt/*", f"{ds['dir']}/pred/*", "--id-field", "doc_id")
    assert sharded["document_count"] == plain["document_count"]
    assert sharded["inputs"]["records"] == plain["inputs"]["records"]
    assert sorted(e["message"] for e in sharded["errors"]) == sorted(e["message"] for e in plain["errors"])
    assert_same_reordered(sharded, plain, ignore=("elapsed_seconds", "inputs", "errors"))


def test_truncated_gz_predictions_with_id_field(ds, tmp_path):
    data = ds["shuffled_gz"].read_bytes()
    broken = tmp_path / "pred.jsonl.gz"
    broken.write_bytes(data[: len(data) * 2 // 3])
    done = run("eval", ds["schema"], ds["gt"], broken, "--id-field", "doc_id")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(broken) in done.stderr and "compressed" in done.stderr


def test_documents_from_shards_and_merges_are_named_by_file_and_line(tmp_path):
    """Issue 16, item 8: records without an id are named FILE:LINE, so that the first line of each
    shard (and of each merged state) is not "line 1" three times."""
    import json

    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"x": {"type": "string"}}}))
    for n in (1, 2):
        put(tmp_path / "gt" / f"part-{n}.jsonl", ['{"x": "a"}', '{"x": "b"}'])
        put(tmp_path / "pred" / f"part-{n}.jsonl", ['{"x": "z"}', '{"x": "b"}'])  # line 1 of each shard wrong
    gt, pred = tmp_path / "gt" / "*.jsonl", tmp_path / "pred" / "*.jsonl"
    report = eval_json(schema, gt, pred)
    named = sorted((d["doc_id"], d["score"]) for d in report["worst_documents"])
    assert named == [
        (f"{tmp_path}/gt/part-1.jsonl:1", 0.0),
        (f"{tmp_path}/gt/part-1.jsonl:2", 1.0),
        (f"{tmp_path}/gt/part-2.jsonl:1", 0.0),
        (f"{tmp_path}/gt/part-2.jsonl:2", 1.0),
    ]
    states = []
    for n in (1, 2):
        state = tmp_path / f"state-{n}.json"
        done = run(
            "eval",
            schema,
            tmp_path / "gt" / f"part-{n}.jsonl",
            tmp_path / "pred" / f"part-{n}.jsonl",
            "--save-state",
            state,
            "--format",
            "json",
        )
        assert done.returncode == 0, done.stderr
        states.append(state)
    # The two shards hold identical records without an id: one document to merge's index (docs/scale.md, "Overlap"),
    # different documents here, which --allow-overlap says.
    assert run("merge", *states, "--format", "json").returncode == 2
    done = run("merge", *states, "--allow-overlap", "--format", "json")
    assert done.returncode == 0, done.stderr
    merged = orjson.loads(done.stdout)
    assert sorted(d["doc_id"] for d in merged["worst_documents"]) == [d for d, _ in named]
    # In the terminal, each is named as a file and line a user can open.
    table = run("eval", "s.json", "gt/*.jsonl", "pred/*.jsonl", "--show-errors", "2", cwd=tmp_path).stdout
    # Each says where the document is: its files and lines (a line alone says nothing of which shard).
    assert "gt/part-1.jsonl:1 · score 0.000 · gt/part-1.jsonl:1, pred/part-1.jsonl:1" in table
    assert "gt/part-2.jsonl:1 · score 0.000 · gt/part-2.jsonl:1, pred/part-2.jsonl:1" in table
    assert sorted((d["doc_id"], d["gt_source"], d["pred_source"]) for d in merged["worst_documents"]) == [
        (f"{tmp_path}/gt/part-{n}.jsonl:{line}", f"{tmp_path}/gt/part-{n}.jsonl", f"{tmp_path}/pred/part-{n}.jsonl")
        for n in (1, 2)
        for line in (1, 2)
    ]
