"""A run on several processes asks its judges first, in the parent (run/judge_first.py): each distinct pair
is asked once per run, the bill equals a single process's, and ``--limit judge-calls`` bounds the whole
run. Against the local counting server (tests/support/chat_server.py)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from stickler_cli.cli.app import main
from tests.support.chat_server import clean_env, server  # noqa: F401 (fixtures)

# 1,200 documents: three chunks of work for a pool (run/parallel.py, CHUNK_SIZE 500), so both workers score
# documents holding the same pairs. Four distinct pairs of different texts, and one identical pair.
PAIRS = [("St. John", "st john"), ("ACME Ltd", "Acme Ltd."), ("Blue", "Green"), ("Main St", "Main Street"), ("x", "x")]
DOCUMENTS = 1200


def _files(tmp_path: Path, shards: int = 1) -> tuple[str, str, str]:
    leaf = {
        "type": "string",
        "x-aws-stickler-comparator": "LLMComparator",
        "x-aws-stickler-threshold": 1.0,
        "x-aws-stickler-comparator-config": {"model": "judge", "cache": False},
    }
    schema = tmp_path / "schema.json"
    schema.write_bytes(orjson.dumps({"type": "object", "properties": {"name": leaf}}))
    rows = [PAIRS[k % len(PAIRS)] for k in range(DOCUMENTS)]
    if shards == 1:
        gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
        gt.write_bytes(b"".join(orjson.dumps({"name": g}) + b"\n" for g, _ in rows))
        pred.write_bytes(b"".join(orjson.dumps({"name": p}) + b"\n" for _, p in rows))
        return str(schema), str(gt), str(pred)
    (tmp_path / "gt").mkdir()
    (tmp_path / "pred").mkdir()
    step = DOCUMENTS // shards
    for n in range(shards):
        part = rows[n * step : (n + 1) * step]
        (tmp_path / "gt" / f"part-{n}.jsonl").write_bytes(b"".join(orjson.dumps({"name": g}) + b"\n" for g, _ in part))
        (tmp_path / "pred" / f"part-{n}.jsonl").write_bytes(
            b"".join(orjson.dumps({"name": p}) + b"\n" for _, p in part)
        )
    return str(schema), f"{tmp_path}/gt/*", f"{tmp_path}/pred/*"


def _eval(server, capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["eval", *args, "--llm-base-url", server.url + "/v1", "--format", "json"])
    out = capsys.readouterr()
    return code, (orjson.loads(out.out) if code == 0 else None), out.err


# What one process asks and bills: 4 requests (one per distinct pair of different texts); of the 1,200 pairs,
# 240 identical ("x", "x") and the other 956 met again.
SINGLE_BILL = {"asked": 4, "cached": 0, "identical": 240, "deduplicated": 956, "failed": 0}


def test_a_pool_asks_each_distinct_pair_once_and_bills_as_one_process(server, tmp_path, capsys):
    schema, gt, pred = _files(tmp_path)
    code, single, _ = _eval(server, capsys, schema, gt, pred, "--workers", "1")
    assert code == 0 and server.count == 4
    assert single["judge"]["name"] == SINGLE_BILL

    code, pooled, _ = _eval(server, capsys, schema, gt, pred, "--workers", "2")
    assert code == 0
    assert server.count == 8  # 4 more: each distinct pair once in the run, not once in each worker
    assert pooled["judge"]["name"] == SINGLE_BILL
    assert pooled["field_metrics"]["name"] == single["field_metrics"]["name"]
    # The server's rule: same letters and digits -> true. "St. John"/"st john" and "ACME Ltd"/"Acme Ltd." are
    # equivalent, the two others not: 2 x 240 TP from the judge, 240 identical, and 2 x 240 FD.
    assert (pooled["field_metrics"]["name"]["tp"], pooled["field_metrics"]["name"]["fd"]) == (720, 480)


def test_a_pool_is_held_to_the_runs_bound_before_its_first_request(server, tmp_path, capsys):
    schema, gt, pred = _files(tmp_path)
    code, _, err = _eval(server, capsys, schema, gt, pred, "--workers", "2", "--limit", "judge-calls=3")
    assert code == 2 and server.count == 0
    assert err.count("\n") == 1 and "the run would send at least 4 requests" in err
    code, report, _ = _eval(server, capsys, schema, gt, pred, "--workers", "2", "--limit", "judge-calls=4")
    assert code == 0 and server.count == 4 and report["judge"]["name"] == SINGLE_BILL


def test_dask_shards_ask_each_distinct_pair_once(server, tmp_path, capsys):
    pytest.importorskip("distributed")
    schema, gt, pred = _files(tmp_path, shards=4)
    code, report, _ = _eval(server, capsys, schema, gt, pred, "--dask", "local", "--workers", "2")
    assert code == 0 and server.count == 4
    assert report["judge"]["name"] == SINGLE_BILL
    assert (report["field_metrics"]["name"]["tp"], report["field_metrics"]["name"]["fd"]) == (720, 480)
