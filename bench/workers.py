"""Case 5 of `make bench`: one worker against two, by size of input (what `--workers` defaults to).

    python -m bench.workers [--sizes 1,4,8,16,32] [--rounds 3] [--markdown FILE] [--data DIR]

For each size (megabytes of ground truth, the invoice workload), `stickler eval --workers 1` and
`--workers 2` run end to end as a user runs them: a fresh process each, start-up, reading,
starting the pool, scoring and the report all on the clock. The two alternate, ``--rounds``
times (neighbouring runs see the same machine); each round gives a speed-up (the one-worker time
over the two-worker time) and the median of the rounds is the result, with the lowest and highest
round beside it: a second worker is worth starting where even the lowest round is a clear gain.
Every run's counts and weighted score are checked equal between the two.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import orjson

from bench import case_arguments, show
from bench.generate import write

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = str(ROOT / "bench" / "invoice.schema.json")
BYTES_PER_DOCUMENT = 920  # ground truth of the invoice workload, measured on 1,000 generated documents
SIZES_MB = (1, 4, 8, 16, 32)
ROUNDS = 3


def run_eval(gt: Path, pred: Path, workers: int) -> tuple[float, dict]:
    """Wall time of one `stickler eval` in a fresh process, and its metrics."""
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "stickler_cli",
            "eval",
            SCHEMA,
            str(gt),
            str(pred),
            "--workers",
            str(workers),
            "-f",
            "json",
            "--no-progress",
        ],
        capture_output=True,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench: stickler eval --workers {workers} failed:\n{done.stderr.decode()[-2000:]}")
    metrics = orjson.loads(done.stdout)["metrics"]
    return elapsed, {k: metrics[k] for k in ("tp", "fa", "fd", "fn", "tn", "weighted_overall_score")}


def measure(base: Path, sizes_mb: tuple[int, ...] = SIZES_MB, rounds: int = ROUNDS) -> list[dict]:
    """One row per size: documents, bytes, each round's times and speed-up, the median, and whether
    the metrics agreed."""
    rows = []
    for size in sizes_mb:
        documents = size * 2**20 // BYTES_PER_DOCUMENT
        folder = base / f"workers-{size}mb"
        if not (folder / "pred.jsonl").exists():
            write(folder, documents, seed=6)
        gt, pred = folder / "gt.jsonl", folder / "pred.jsonl"
        times: list[tuple[float, float]] = []
        same = True
        for _ in range(rounds):
            one, m1 = run_eval(gt, pred, 1)
            two, m2 = run_eval(gt, pred, 2)
            same = (
                same
                and m1["tp"] == m2["tp"]
                and m1["fd"] == m2["fd"]
                and m1["fn"] == m2["fn"]
                and m1["fa"] == m2["fa"]
                and abs(m1["weighted_overall_score"] - m2["weighted_overall_score"]) <= 1e-9
            )
            times.append((one, two))
        speedups = [one / two for one, two in times]
        rows.append(
            {
                "mb": size,
                "bytes": gt.stat().st_size,
                "documents": documents,
                "times": times,
                "speedups": speedups,
                "median": statistics.median(speedups),
                "identical": same,
            }
        )
    return rows


def table(rows: list[dict]) -> list[str]:
    lines = [
        "| ground truth | documents | 1 worker, s (median) | 2 workers, s (median) | speed-up: median (lowest–highest) | metrics |",
        "|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        one = statistics.median(t[0] for t in r["times"])
        two = statistics.median(t[1] for t in r["times"])
        lines.append(
            f"| {r['bytes'] / 2**20:.1f} MB | {r['documents']:,} | {one:.2f} | {two:.2f} | "
            f"{r['median']:.2f}× ({min(r['speedups']):.2f}–{max(r['speedups']):.2f}) | "
            f"{'identical' if r['identical'] else 'DIFFERENT'} |"
        )
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default=",".join(map(str, SIZES_MB)), help="megabytes of ground truth, comma-separated")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    args, base = case_arguments(ap, argv)
    started, load = time.perf_counter(), os.getloadavg()[0]
    lines = table(measure(base, tuple(int(s) for s in args.sizes.split(",")), args.rounds))
    lines.append("")
    lines.append(
        f"({args.rounds} interleaved rounds on {os.cpu_count()} cores; took {time.perf_counter() - started:.0f} s; "
        f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after)"
    )
    return show(lines, args.markdown)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
