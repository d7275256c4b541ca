"""Times stickler on a JSONL pair, in a process of its own (so its peak RSS is its own).

    python -m bench.measure SCHEMA GT PRED [--workers N] [--repeat R]

Timed, as in bench/oracle_bench.py for the reference library: reading both
files, scoring every pair and computing the report (confidence metrics
included). Start-up (imports, schema compilation) is outside the clock on
both sides. With --repeat the best of R runs is kept: these machines are
noisy, and the minimum is the least disturbed run. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import orjson


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("schema")
    ap.add_argument("gt")
    ap.add_argument("pred")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)

    import scipy.optimize  # noqa: F401  (imported lazily by the engine; keep it off the clock)

    from stickler_cli import load_schema
    from stickler_cli.evaluate import evaluate_files
    from stickler_cli.report import build_report

    plan = load_schema(args.schema)
    best = best_cpu = float("inf")
    report = None
    for _ in range(args.repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        report = build_report(evaluate_files(plan, args.gt, args.pred, workers=args.workers))
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu_started)
    assert report is not None
    metrics = report["metrics"]
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
        "max_rss_kb": own,
        "worker_max_rss_kb": children,
        "metrics": {k: metrics[k] for k in ("tp", "fa", "fd", "fn", "tn", "weighted_overall_score")},
    }
    sys.stdout.write(orjson.dumps(out).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
