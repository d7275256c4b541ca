"""Start-up: whole-process times of short commands, against the reference library's in the same run.

    python -m bench.startup [--oracle-python PYTHON] [--rounds N]

Each command runs as a user runs it, in a fresh process, start-up included: stickler through its
console script (pyproject.toml's ``[project.scripts]``), the reference library as bench/oracle_bench.py
runs it. Rounds are interleaved (each round runs every command once, in turn), so that both tools see
the same moments of a shared, noisy machine; the median and the spread (fastest-slowest) of the rounds
are reported. Disks are warm and bytecode is cached, as after an install: one untimed run of each
command first, with bytecode written to a cache of this run's own (PYTHONPYCACHEPREFIX), for both tools.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from bench.generate import write

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = str(ROOT / "bench" / "invoice.schema.json")
ORACLE_SCRIPT = str(ROOT / "bench" / "oracle_bench.py")
ROUNDS = 15
DOCUMENTS = 10
# The targets (whole process, warm disk), in milliseconds.
TARGETS = {"--version": 100, "--help": 100, "eval": 300, "eval --format json": 300, "compare": 300}


def _script() -> list[str]:
    """The `stickler` command: the console script's function, run as the generated script runs it."""
    module, _, function = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"][
        "stickler"
    ].partition(":")
    return [
        sys.executable,
        "-c",
        f"import sys; sys.argv[0] = 'stickler'; from {module} import {function}; {function}()",
    ]


def commands(folder: Path, oracle_python: str | None, documents: int = DOCUMENTS) -> dict[str, list[str]]:
    """Label -> command line: stickler's commands, the interpreters' floor, the reference library."""
    gt, pred = write(folder, documents, seed=1)
    (folder / "gt.json").write_text(gt.read_text().splitlines()[0])
    (folder / "pred.json").write_text(pred.read_text().splitlines()[0])
    stickler = _script()
    found = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "--version": [*stickler, "--version"],
        "--help": [*stickler, "--help"],
        "eval": [*stickler, "eval", SCHEMA, str(gt), str(pred)],
        # What a CI job or a script runs: the JSON report, no tables, read without typer or Rich (cli/light.py).
        "eval --format json": [*stickler, "eval", SCHEMA, str(gt), str(pred), "--format", "json"],
        "compare": [*stickler, "compare", SCHEMA, str(folder / "gt.json"), str(folder / "pred.json")],
    }
    if oracle_python:
        found.update(
            {
                "stickler-eval: python -c pass": [oracle_python, "-c", "pass"],
                "stickler-eval: import": [oracle_python, "-c", "import stickler"],
                "stickler-eval: eval": [oracle_python, ORACLE_SCRIPT, SCHEMA, str(gt), str(pred)],
            }
        )
    return found


def measure(
    oracle_python: str | None = None,
    rounds: int = ROUNDS,
    documents: int = DOCUMENTS,
    labels: tuple[str, ...] | None = None,
) -> dict[str, list[float]]:
    """Label -> the whole-process seconds of each round (only ``labels``, when given, and the
    reference library's commands)."""
    if oracle_python:  # the commands run in a folder of their own: a relative path would name nothing there
        oracle_python = os.path.abspath(oracle_python)
    with tempfile.TemporaryDirectory(prefix="stickler-startup-") as work:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "GITHUB_STEP_SUMMARY")}
        env["PYTHONPYCACHEPREFIX"] = str(Path(work) / "pycache")
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
        found = commands(Path(work) / "data", oracle_python, documents)
        if labels is not None:
            found = {k: v for k, v in found.items() if k in labels or k.startswith("stickler-eval: eval")}
        times: dict[str, list[float]] = {label: [] for label in found}
        for k in range(rounds + 1):  # round 0 writes the bytecode caches and is not counted
            for label, command in found.items():
                started = time.perf_counter()
                done = subprocess.run(command, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                elapsed = time.perf_counter() - started
                if done.returncode not in (0, 1):
                    raise SystemExit(f"bench: {label} failed:\n{done.stderr.decode(errors='replace')[-2000:]}")
                if k:
                    times[label].append(elapsed)
        return times


def table(times: dict[str, list[float]]) -> list[str]:
    """Markdown rows: each command's median and spread, its target, and the reference library beside it."""

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.0f} ms ({min(values) * 1000:.0f}–{max(values) * 1000:.0f})"

    rounds = len(next(iter(times.values())))
    lines = [
        f"Whole process, warm disk, bytecode cached; median of {rounds} interleaved rounds (fastest–slowest); "
        f"eval and compare on the invoice workload ({DOCUMENTS} documents; compare: its first pair).",
        "",
        "| command | stickler | target |",
        "|---|---:|---:|",
    ]
    for label in ("python -c pass", "--version", "--help", "eval", "eval --format json", "compare"):
        target = f"≤ {TARGETS[label]} ms" if label in TARGETS else ""
        lines.append(
            f"| `{label if label.startswith('python') else 'stickler ' + label}` | {ms(times[label])} | {target} |"
        )
    if "stickler-eval: eval" in times:
        ours, theirs = statistics.median(times["eval"]), statistics.median(times["stickler-eval: eval"])
        lines += [
            "",
            "| reference library (stickler-eval 1.0.0) | whole process |",
            "|---|---:|",
            f"| `python -c pass` | {ms(times['stickler-eval: python -c pass'])} |",
            f"| `import stickler` | {ms(times['stickler-eval: import'])} |",
            f"| {DOCUMENTS} documents (bench/oracle_bench.py) | {ms(times['stickler-eval: eval'])} |",
            "",
            f"`stickler eval` on the same {DOCUMENTS} documents, whole process: **{theirs / ours:.1f}×** "
            "faster than the reference library's (medians).",
        ]
    return lines


WHOLE_DOCUMENTS = 1500  # the whole-process case: a CI-sized run, start-up included on both sides
WHOLE_TARGET = 40  # × the reference library, whole process (issue 40)
WHOLE_LABELS = ("eval", "eval --format json")  # tables (a terminal, a CI log) and the machine's path (cli/light.py)


def whole_table(times: dict[str, list[float]], documents: int) -> list[str]:
    """Markdown rows: ``stickler eval`` (tables, and ``--format json``) against the reference library, whole
    process, each round's ratios."""
    theirs = times["stickler-eval: eval"]
    ours = [times[label] for label in WHOLE_LABELS]
    lines = [
        f"`stickler eval` and the reference library (bench/oracle_bench.py) as whole processes on the same "
        f"{documents:,} documents, start-up, imports and schema included on both sides; interleaved rounds. "
        "Tables: what a terminal or a CI log gets; `--format json`: the machine's path, without typer or Rich.",
        "",
        "| round | stickler-eval | stickler, tables | ratio | stickler, `--format json` | ratio |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for k, t in enumerate(theirs):
        cells = " | ".join(f"{o[k]:.3f} s | {t / o[k]:.1f}×" for o in ours)
        lines.append(f"| {k + 1} | {t:.2f} s | {cells} |")
    medians = " | ".join(
        f"{statistics.median(o):.3f} s | **{statistics.median([t / x for t, x in zip(theirs, o)]):.1f}×**" for o in ours
    )
    lines.append(f"| **median** | {statistics.median(theirs):.2f} s | {medians} |")
    lines.append("")
    lines.append(f"Target: ≥ {WHOLE_TARGET}× (issue 40).")
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle-python", help="python of a venv with stickler-eval==1.0.0")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    args = ap.parse_args(argv)
    print("\n".join(table(measure(args.oracle_python, args.rounds))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
