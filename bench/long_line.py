"""Case 8 of `make bench`: one long line, whole `stickler eval` runs (issue 37, item 11).

    python -m bench.long_line [--strings 1000000] [--markdown FILE] [--data DIR]

One document whose prediction holds a list of short strings (1,000,000 of them: a 5 MB line), against
three ground truths: a short list (three strings), an empty list, and the same strings shuffled (a second
5 MB line). Each runs as a user runs it, in a fresh process, with every output that explains documents:
`stickler eval … -o report.json --html report.html --show-errors 3`. Measured: the peak resident memory
of that process (its own ``VmHWM``, read from /proc at its exit: ``ru_maxrss`` would also count the
memory of the process it was forked from), its wall time and the size of each report. The target:
under 400 MB and a report under 5 MB for the 5 MB line.

The factor: the same at a quarter of the strings, and the slope between the two sizes, in bytes of peak
memory per byte of the longest line (what docs/performance.md "One long line" documents); the intercept
is the process's own start (imports, the compiled plan).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from bench import case_arguments, show

ROOT = Path(__file__).resolve().parent.parent
STRINGS = 1_000_000
SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
}
VARIANTS = ("short", "empty", "shuffled")  # the ground truth's list: three strings, none, the same shuffled
TARGET_MB, REPORT_TARGET_MB = 400, 5
# `python -m stickler_cli ARGS`, then the process's own peak resident memory (kB) on standard error.
PEAK = (
    "import runpy, sys\n"
    "sys.argv[0] = 'stickler'\n"
    "try:\n"
    "    runpy.run_module('stickler_cli', run_name='__main__', alter_sys=True)\n"
    "finally:\n"
    "    with open('/proc/self/status') as status:\n"
    "        hwm = next(line for line in status if line.startswith('VmHWM:'))\n"
    "    sys.stderr.write('\\n' + hwm)\n"
)


def write(folder: Path, strings: int) -> dict[str, Path]:
    """The schema, the prediction (one line of ``strings`` two-character strings) and a ground truth per variant."""
    folder.mkdir(parents=True, exist_ok=True)
    tags = [f"{k % 100:02d}" for k in range(strings)]
    files = {"schema": folder / "schema.json", "pred": folder / "pred.jsonl"}
    files["schema"].write_text(json.dumps(SCHEMA))
    line = lambda values: json.dumps({"id": "a", "tags": values}, separators=(",", ":")) + "\n"  # noqa: E731
    files["pred"].write_text(line(tags))
    shuffled = tags[:]
    random.Random(37).shuffle(shuffled)
    for name, values in (("short", ["x", "y", "z"]), ("empty", []), ("shuffled", shuffled)):
        files[name] = folder / f"gt-{name}.jsonl"
        files[name].write_text(line(values))
    return files


def run(files: dict[str, Path], variant: str, out: Path) -> dict:
    """One whole `stickler eval` of ``variant``: peak RSS (KB), seconds, the reports' sizes, the counts."""
    report, html = out / f"{variant}.json", out / f"{variant}.html"
    args = [
        "eval",
        str(files["schema"]),
        str(files[variant]),
        str(files["pred"]),
        "--no-progress",
        "-o",
        str(report),
        "--html",
        str(html),
        "--show-errors",
        "3",
    ]
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PEAK, *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1) or "VmHWM" not in done.stderr:
        raise SystemExit(f"bench: stickler eval ({variant}) failed:\n{done.stderr[-2000:]}")
    peak_kb = int(done.stderr.rsplit("VmHWM:", 1)[1].split()[0])
    doc = json.loads(report.read_text())["worst_documents"][0]
    return {
        "variant": variant,
        "line_bytes": max(files[variant].stat().st_size, files["pred"].stat().st_size),
        "input_bytes": files[variant].stat().st_size + files["pred"].stat().st_size,
        "max_rss_kb": peak_kb,
        "seconds": elapsed,
        "report_bytes": report.stat().st_size,
        "html_bytes": html.stat().st_size,
        "rows": len(doc["comparisons"]),
        "not_shown": (doc.get("comparisons_not_shown") or {}).get("count", 0),
    }


def measure(base: Path, strings: int = STRINGS, variants: tuple[str, ...] = VARIANTS) -> list[dict]:
    """Each variant at ``strings`` and at a quarter of it (the slope between them is the factor)."""
    rows = []
    for n in (strings // 4, strings):
        files = write(base / f"long-line-{n}", n)
        out = base / f"long-line-{n}" / "out"
        out.mkdir(exist_ok=True)
        rows += [{"strings": n, **run(files, v, out)} for v in variants]
    return rows


def factor(rows: list[dict], variant: str) -> float:
    """Bytes of peak memory per byte of the longest line, between the two sizes of ``variant``."""
    small, large = sorted((r for r in rows if r["variant"] == variant), key=lambda r: r["strings"])
    return (large["max_rss_kb"] - small["max_rss_kb"]) * 1024 / (large["line_bytes"] - small["line_bytes"])


def table(rows: list[dict]) -> list[str]:
    lines = [
        "| ground truth | strings | longest line | peak RSS | time | report.json | report.html | rows kept (+ more) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['strings']:,} | {r['line_bytes'] / 1e6:.1f} MB | "
            f"{r['max_rss_kb'] / 1024:.0f} MB | {r['seconds']:.1f} s | {r['report_bytes'] / 1e6:.2f} MB | "
            f"{r['html_bytes'] / 1e6:.2f} MB | {r['rows']:,} (+{r['not_shown']:,}) |"
        )
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    if len({r["strings"] for r in rows}) == 2:
        lines += [
            "",
            "Peak memory per byte of the longest line (the slope between the two sizes): "
            + ", ".join(f"{v} {factor(rows, v):.0f}" for v in variants)
            + ".",
        ]
    largest = max(r["strings"] for r in rows)
    worst = max((r for r in rows if r["strings"] == largest), key=lambda r: r["max_rss_kb"])
    ok = worst["max_rss_kb"] / 1024 < TARGET_MB and all(
        r["report_bytes"] / 1e6 < REPORT_TARGET_MB for r in rows if r["strings"] == largest
    )
    lines += [
        "",
        f"Worst: {worst['variant']}, {worst['max_rss_kb'] / 1024:.0f} MB (target: under {TARGET_MB} MB, "
        f"each report under {REPORT_TARGET_MB} MB): {'met' if ok else 'NOT MET'}.",
    ]
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--strings", type=int, default=STRINGS, help="strings in the prediction's list")
    args, base = case_arguments(ap, argv)
    return show(table(measure(base, args.strings)), args.markdown)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
