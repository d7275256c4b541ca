"""The options objects (issue 38, item 2): a run's options and a report's, frozen and picklable, built once and
passed whole; no function of ``run/`` takes more than seven parameters."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest

from stickler_cli import limits
from stickler_cli.confidence import ECE, ErrorCaptureAtBudget
from stickler_cli.report.build import build_report
from stickler_cli.report.options import ReportOptions
from stickler_cli.run import parallel
from stickler_cli.run.accumulate import Collect
from stickler_cli.run.evaluate import evaluate_files
from stickler_cli.run.options import RunOptions, asked_pairing
from stickler_cli.schema import load_schema
from tests.support.reports import assert_same

ROOT = Path(__file__).resolve().parents[2]


def _run_options() -> RunOptions:
    return RunOptions(
        asked_pairing(None, True, False, ["invoice_id"]),
        workers=2,
        dask="local",
        plugins=("my_plugin",),
        limits=dataclasses.replace(limits.DEFAULT, failures_per_field=7),
        collect=Collect(worst=3, documents=True, slices=("vendor",)),
    )


def _report_options() -> ReportOptions:
    return ReportOptions((ECE(12), ErrorCaptureAtBudget([0.2, 0.4])), (0.5, 0.75), "iou", 0.9, 200, 4, 0.1)


@pytest.mark.parametrize(
    "make, name, value",
    [
        (_run_options, "workers", 3),
        (_report_options, "seed", 1),
        (RunOptions, "pairing", None),
        (ReportOptions, "ci_level", 0.5),
    ],
)
def test_the_options_are_frozen(make, name, value):
    options = make()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(options, name, value)


@pytest.mark.parametrize("make", [_run_options, _report_options, RunOptions, ReportOptions])
def test_the_options_round_trip_through_pickle(make):
    options = make()
    assert pickle.loads(pickle.dumps(options)) == options


class _WatchedPool(parallel.ProcessPoolExecutor):
    """The process pool, noting what its workers are started with and what each chunk is sent with."""

    started: list[tuple] = []
    sent: list[tuple] = []

    def __init__(self, max_workers, **kwargs):
        _WatchedPool.started.append(kwargs["initargs"])
        super().__init__(max_workers, **kwargs)

    def submit(self, fn, /, *args, **kwargs):
        _WatchedPool.sent.append(args)
        return super().submit(fn, *args, **kwargs)


def test_the_pool_gets_the_options_whole_and_scores_as_one_process(monkeypatch):
    """Each worker is started with the run's options (it installs them: limits, LLM settings) and each chunk
    is sent with them; the figures are the in-process run's (tests/run/test_parallel.py compares more inputs)."""
    plan = load_schema(str(ROOT / "schemas" / "invoice.json"))
    gt, pred = str(ROOT / "fixtures" / "invoice" / "gt.jsonl"), str(ROOT / "fixtures" / "invoice" / "pred.jsonl")
    monkeypatch.setattr(parallel, "ProcessPoolExecutor", _WatchedPool)
    monkeypatch.setattr(parallel, "CHUNK_SIZE", 2 * parallel.ALIGNMENT_BLOCK)
    _WatchedPool.started, _WatchedPool.sent = [], []
    bounds = dataclasses.replace(limits.current(), failures_per_field=3)
    options = RunOptions(asked_pairing(), workers=2, limits=bounds, collect=Collect(worst=4, failures=3))
    pooled = evaluate_files(plan, gt, pred, options)
    alone = evaluate_files(plan, gt, pred, dataclasses.replace(options, workers=1))
    assert len(_WatchedPool.started) == 1 and _WatchedPool.sent
    shipped = _WatchedPool.started[0][1]
    assert isinstance(shipped, RunOptions) and dataclasses.replace(shipped, llm=None) == options
    assert all(args[2] is shipped for args in _WatchedPool.sent)
    assert_same(build_report(alone), build_report(pooled))
    assert limits.current() is not bounds  # the options were installed in the workers, not here
