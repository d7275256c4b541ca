"""Times stickler on a JSONL pair, in a process of its own (so its peak RSS is its own).

    python -m bench.measure SCHEMA GT PRED [--workers N] [--repeat R] [--seconds S] [--without-failure-analyses]
                                           [--slice-by PATH ...]

Timed, as in bench/oracle_bench.py for the reference library: reading both
files, scoring every pair and computing the report (confidence metrics
included). Start-up (imports, schema compilation) is outside the clock on
both sides. With --repeat the best of R runs is kept: these machines are
noisy, and the minimum is the least disturbed run. With --seconds the runs
repeat for at least S seconds and ``mean_docs_per_second`` is their total
documents over their total time: a throughput over a window as long as the
reference library's own run, so that both see the same kind of machine.
``floor_docs_per_second``: reading and parsing both files with orjson alone, timed in
the same process (bench/run.py prints each tool's throughput beside it). Prints one JSON line.
``--without-failure-analyses``: the two analyses of issue 19 that look at each failure (what went wrong
in a list, cosmetic or real) are switched off in this process, so that bench/run.py can say what
they cost; ``--slice-by`` slices the run as ``stickler eval --slice-by`` does (the third analysis, threshold
histograms, is always on). See docs/performance.md, "What the failure analyses cost".
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from typing import Any

import orjson


def parse_floor(gt: str, pred: str, seconds: float) -> float:
    """The fastest of repeated passes (for at least ``seconds``) that read both files line by line
    and parse each line with orjson: the floor of any JSONL evaluation, in this process."""
    best, spent = float("inf"), 0.0
    while spent < seconds or best == float("inf"):
        started = time.perf_counter()
        with open(gt, "rb") as g, open(pred, "rb") as p:
            for a, b in zip(g, p):
                orjson.loads(a)
                orjson.loads(b)
        elapsed = time.perf_counter() - started
        best, spent = min(best, elapsed), spent + elapsed
    return best


def without_failure_analyses() -> None:
    """Switch off, in this process only, the list classification and the cosmetic re-scoring: a
    measurement device for the bench (stickler itself has no such switch; its reports always hold both)."""
    from stickler_cli.analyses import cosmetic, list_errors
    from stickler_cli.engine import batch

    batch.BatchScorer.classify_lists = lambda self, *args: []  # type: ignore[method-assign]
    cosmetic.CosmeticTally.add = lambda self, *args: None  # type: ignore[method-assign]
    list_errors.ListErrors.add = lambda self, *args: None  # type: ignore[method-assign]


def prepare(schema: str, analyses: bool = True) -> Any:
    """What stays off the clock, as start-up does: the failure analyses switched off when asked, the modules
    ``evaluate`` uses imported, the schema compiled, scipy's solver loaded (the engine loads it on its first
    list). The compiled plan."""
    if not analyses:
        without_failure_analyses()
    import stickler_cli.run.accumulate  # noqa: F401  (evaluate's imports, made here)
    import stickler_cli.run.evaluate  # noqa: F401
    import stickler_cli.report.build  # noqa: F401
    from stickler_cli import load_schema
    from stickler_cli.engine import scipy_lsap

    plan = load_schema(schema)
    scipy_lsap.solver()
    return plan


def evaluate(plan: Any, gt: str, pred: str, workers: int = 1, slices: tuple[str, ...] = ()) -> dict:
    """What the clock times (and bench/instructions.py counts): reading both files, scoring every pair,
    computing the report. The report."""
    from stickler_cli.run.accumulate import Collect
    from stickler_cli import evaluate_files
    from stickler_cli.report.build import build_report

    return build_report(evaluate_files(plan, gt, pred, workers=workers, analysis=Collect(slices=slices)))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("schema")
    ap.add_argument("gt")
    ap.add_argument("pred")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=0.0)
    ap.add_argument("--without-failure-analyses", action="store_true")
    ap.add_argument("--slice-by", action="append", default=[])
    args = ap.parse_args(argv)
    plan = prepare(args.schema, analyses=not args.without_failure_analyses)
    best = best_cpu = float("inf")
    total = total_cpu = 0.0
    runs = 0
    report = None
    while runs < args.repeat or total < args.seconds:
        started, cpu_started = time.perf_counter(), time.process_time()
        report = evaluate(plan, args.gt, args.pred, args.workers, tuple(args.slice_by))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        best, best_cpu = min(best, elapsed), min(best_cpu, cpu)
        total, total_cpu, runs = total + elapsed, total_cpu + cpu, runs + 1
    assert report is not None
    metrics = report["metrics"]
    floor = parse_floor(args.gt, args.pred, max(0.5, args.seconds / 5))
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = {
        "documents": report["document_count"],
        "seconds": best,
        "docs_per_second": report["document_count"] / best,
        # CPU time of this process (not of workers): on a shared VM it leaves out the time the
        # hypervisor gave to others, so it varies less than wall-clock time.
        "cpu_seconds": best_cpu,
        "docs_per_cpu_second": report["document_count"] / best_cpu if best_cpu > 0 else None,
        "runs": runs,
        "mean_docs_per_second": runs * report["document_count"] / total,
        "mean_docs_per_cpu_second": runs * report["document_count"] / total_cpu if total_cpu > 0 else None,
        # Reading both files and parsing every line with orjson, nothing else: what no evaluation can beat.
        "floor_docs_per_second": report["document_count"] / floor,
        "max_rss_kb": own,
        "worker_max_rss_kb": children,
        "metrics": {k: metrics[k] for k in ("tp", "fa", "fd", "fn", "tn", "weighted_overall_score")},
    }
    sys.stdout.write(orjson.dumps(out).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
