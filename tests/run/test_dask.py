"""Shards scored on a Dask cluster equal the single-process run."""

import orjson
import pytest

pytest.importorskip("distributed")

from tests.support.datagen import generate  # noqa: E402
from tests.support.reports import assert_same, run

N_DOCS = 240


@pytest.fixture(scope="module")
def cluster():
    from dask.distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    """Four shard pairs (one with a broken prediction line) under gt/ and pred/."""
    from tests.conftest import ROOT

    d = tmp_path_factory.mktemp("dask")
    gts, preds = generate(str(ROOT / "schemas/invoice.json"), N_DOCS, 41, confidence=True)
    gt_lines = [orjson.dumps(r).decode() for r in gts]
    pred_lines = [orjson.dumps(r).decode() for r in preds]
    pred_lines[100] = pred_lines[100][:-5]
    (d / "gt").mkdir()
    (d / "pred").mkdir()
    step = N_DOCS // 4
    for n in range(4):
        lo, hi = n * step, (n + 1) * step
        (d / "gt" / f"part-{n}.jsonl").write_text("".join(x + "\n" for x in gt_lines[lo:hi]))
        (d / "pred" / f"part-{n}.jsonl").write_text("".join(x + "\n" for x in pred_lines[lo:hi]))
    return {"schema": ROOT / "schemas/invoice.json", "gt": f"{d}/gt/*", "pred": f"{d}/pred/*"}


@pytest.fixture(scope="module")
def single(ds):
    done = run("eval", ds["schema"], ds["gt"], ds["pred"], "--workers", "1", "--format", "json")
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout)


def assert_equals_single(report, single, address):
    assert report["document_count"] == single["document_count"] == N_DOCS
    assert report["confidence_metrics"] is not None
    assert report["inputs"].pop("dask") == address
    assert report["inputs"] == single["inputs"]  # same shards, same records
    assert len(report["errors"]) == 1
    assert_same(report, single)


def test_dask_cluster_equals_single_process(cluster, ds, single):
    address = cluster.scheduler_address
    done = run("eval", ds["schema"], ds["gt"], ds["pred"], "--dask", address, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert_equals_single(orjson.loads(done.stdout), single, address)


def test_dask_local_equals_single_process(ds, single):
    done = run("eval", ds["schema"], ds["gt"], ds["pred"], "--dask", "local", "--workers", "2", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert_equals_single(orjson.loads(done.stdout), single, "local")


def test_unreachable_scheduler_is_one_line_exit_2(ds):
    done = run("eval", ds["schema"], ds["gt"], ds["pred"], "--dask", "tcp://127.0.0.1:1", timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "tcp://127.0.0.1:1" in done.stderr


def test_a_local_cluster_has_no_more_workers_than_shards(ds, monkeypatch, capsys):
    """Issue 37, item 14: --workers asks for at most one process a core (workers-per-core), and a local cluster
    never starts more worker processes than there are shards (each shard is one task)."""
    import dask.distributed

    from stickler_cli.run import parallel
    from stickler_cli.cli.app import main

    asked: list[dict] = []
    real = dask.distributed.LocalCluster

    def counting(**kwargs):
        asked.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(dask.distributed, "LocalCluster", counting)
    monkeypatch.setattr(parallel, "available_cores", lambda: 8)
    assert (
        main(["eval", str(ds["schema"]), ds["gt"], ds["pred"], "--dask", "local", "--workers", "6", "--format", "json"])
        == 0
    )
    assert orjson.loads(capsys.readouterr().out)["document_count"] == N_DOCS
    assert [(k["n_workers"], k["threads_per_worker"], k["processes"]) for k in asked] == [(4, 1, True)]  # 4 shards
