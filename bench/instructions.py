"""What the failure analyses cost, counted in instructions (valgrind's callgrind) rather than timed.

    python -m bench.instructions GT PRED [--slice-by PATH ...] [--no-failures]

The clock on this shared machine moves by ±25% from minute to minute, which is as large as the cost being
measured (issue 19 allows 1.3×). Instructions executed barely move between identical runs (about ±1%
here). Each count is of one process running ``bench.measure``'s evaluation, with callgrind's
instrumentation switched on just before the first evaluation and off just after the last
(``callgrind_control -i``): interpreter start-up, imports and schema compilation are not counted, as they
are outside the clock in ``bench.measure``. Four processes: analyses off and on (all four: lists, cosmetic,
thresholds, sliced by PATH), each running the evaluation once and twice. Then

- single run: on(1) / off(1), what one ``stickler eval`` pays, first-use imports and cold caches included;
- steady: (on(2) − on(1)) / (off(2) − off(1)), a repeated run, what ``make bench``'s throughput measures.

Before counting, each side runs once without valgrind, so that every module the runs import lazily is
compiled outside the count; hashing is seeded (PYTHONHASHSEED=0). ``callgrind_control`` reaches the process
through valgrind's gdb server (ptrace); where that is refused, its call fails within a minute and this says so.
The few instructions of its own ``subprocess.run`` on each side are counted too (well under 0.1% of a run of
1,000 documents).

``--no-failures`` counts the same again with the truth as the predictions (``no_failures`` in the line): nothing
fails, so the analyses have nothing to look at, and both ratios should be 1.00 within the count's noise (what
"a list matched whole and in order, and a field without FDs, pay nothing" means, counted).

Prints one JSON line; exits 2 (and prints why) when valgrind is not installed (``apt-get install valgrind``).
Each process runs about fifty times slower under callgrind: about a minute and a half for the four on two
cores. Not a timing: instruction counts leave out what the time also holds (cache misses, the collector's
walks), so the clock's ratio is usually a little higher.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = str(ROOT / "bench" / "invoice.schema.json")
_COLLECTED = re.compile(r"Collected : (\d+)")

# The child: bench/measure.py's set-up (from the checkout named first), ``warm`` evaluations, then the timed
# evaluation ``runs`` times; under callgrind ("instrument"), with instrumentation on around those evaluations alone
# (callgrind_control, bounded in time).
CHILD = """
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
from bench.measure import evaluate, prepare
schema, gt, pred, analyses, runs, warm, instrumented, *slices = sys.argv[2:]
plan = prepare(schema, analyses=analyses == "on")
for _ in range(int(warm)):
    evaluate(plan, gt, pred, slices=tuple(slices))
def instrument(state):
    if instrumented == "instrument":
        subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=True, timeout=60,
                       stdout=subprocess.DEVNULL)
instrument("on")
for _ in range(int(runs)):
    evaluate(plan, gt, pred, slices=tuple(slices))
instrument("off")
"""
# Each process's time limit: fifty times the evaluations' own time, and the imports', with room to spare.
SECONDS = 1800


def available() -> str | None:
    """None when valgrind and callgrind_control are installed, else what is missing."""
    missing = [tool for tool in ("valgrind", "callgrind_control") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not installed (apt-get install valgrind)" if missing else None


def _child(
    gt: str,
    pred: str,
    analyses: bool,
    runs: int,
    slices: tuple[str, ...],
    instrumented: bool,
    schema: str = SCHEMA,
    code: str = str(ROOT),
    warm: int = 0,
) -> list[str]:
    return [
        sys.executable,
        "-c",
        CHILD,
        code,
        schema,
        gt,
        pred,
        "on" if analyses else "off",
        str(runs),
        str(warm),
        "instrument" if instrumented else "plain",
        *(slices if analyses else ()),
    ]


# Bytecode written (lazily imported modules compiled outside the count) and string hashing fixed (the same
# instructions from run to run).
_ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONHASHSEED": "0"}


def count(
    gt: str,
    pred: str,
    analyses: bool,
    runs: int,
    slices: tuple[str, ...] = (),
    schema: str = SCHEMA,
    code: str = str(ROOT),
    warm: int = 0,
) -> int:
    """Instructions executed by ``runs`` evaluations of the pair of files in one process, after ``warm`` evaluations
    not counted, by the stickler checkout in ``code``."""
    with tempfile.TemporaryDirectory(prefix="stickler-callgrind-") as folder:
        out = os.path.join(folder, "callgrind.out")
        try:
            done = subprocess.run(
                [
                    "valgrind",
                    "--tool=callgrind",
                    "--instr-atstart=no",
                    f"--callgrind-out-file={out}",
                    *_child(gt, pred, analyses, runs, slices, True, schema, code, warm),
                ],
                capture_output=True,
                text=True,
                env=_ENV,
                cwd=ROOT,
                timeout=SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise SystemExit(f"bench.instructions: a callgrind run took over {SECONDS} s") from None
        found = _COLLECTED.findall(done.stderr)
        if done.returncode != 0 or not found:
            raise SystemExit(f"bench.instructions: callgrind run failed:\n{done.stderr[-2000:]}")
        return int(found[-1])


def compile_first(
    gt: str, pred: str, analyses: bool, slices: tuple[str, ...] = (), schema: str = SCHEMA, code: str = str(ROOT)
) -> None:
    """One evaluation without valgrind, so that every module the counted runs import is compiled to bytecode first."""
    subprocess.run(
        _child(gt, pred, analyses, 1, slices, False, schema, code),
        check=True,
        env=_ENV,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        timeout=SECONDS,
    )


def measure(gt: str, pred: str, slices: tuple[str, ...]) -> dict:
    """The four counts and the two ratios (see the module's docstring)."""
    for analyses in (False, True):
        compile_first(gt, pred, analyses, slices)
    plan = [(analyses, runs) for analyses in (False, True) for runs in (1, 2)]
    with ThreadPoolExecutor(max_workers=max(1, min(4, len(os.sched_getaffinity(0))))) as pool:
        counts = dict(zip(plan, pool.map(lambda p: count(gt, pred, p[0], p[1], slices), plan)))
    off1, off2, on1, on2 = counts[(False, 1)], counts[(False, 2)], counts[(True, 1)], counts[(True, 2)]
    return {
        "off_1": off1,
        "off_2": off2,
        "on_1": on1,
        "on_2": on2,
        "single": on1 / off1,
        "steady": (on2 - on1) / (off2 - off1),
    }


def measure_no_failures(gt: str, slices: tuple[str, ...]) -> dict:
    """``measure`` with the truth as the predictions: every document matches whole, nothing is left to analyse."""
    return measure(gt, gt, slices)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("gt")
    ap.add_argument("pred")
    ap.add_argument("--slice-by", action="append", default=[])
    ap.add_argument("--no-failures", action="store_true", help="also count the truth against itself")
    args = ap.parse_args(argv)
    missing = available()
    if missing:
        print(f"bench.instructions: {missing}", file=sys.stderr)
        return 2
    counted = measure(args.gt, args.pred, tuple(args.slice_by))
    if args.no_failures:
        counted["no_failures"] = measure_no_failures(args.gt, tuple(args.slice_by))
    print(json.dumps(counted))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
