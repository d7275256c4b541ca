"""A reader that closes standard output early (``stickler eval … | head``) ends the printing, not the run:
the exit code is still the gates' (1 only when a gate failed), with no traceback. Rich and click answer a
closed pipe with exit code 1, which in a pipeline with ``pipefail`` reads as a failed gate."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INVOICE = [str(ROOT / p) for p in ("schemas/invoice.json", "fixtures/invoice/gt.jsonl", "fixtures/invoice/pred.jsonl")]
QUICKSTART = [
    str(ROOT / p) for p in ("schemas/quickstart.json", "fixtures/quickstart/gt.json", "fixtures/quickstart/pred.json")
]


def closed(*args: str) -> tuple[int, str]:
    """(exit code, stderr) of stickler writing to a pipe whose reader is already gone: every write fails."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "stickler_cli", *args], stdout=write, stderr=subprocess.PIPE, cwd=ROOT, timeout=120
        )
    finally:
        os.close(write)
    return done.returncode, done.stderr.decode()


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--help"],
        ["eval", "--help"],
        ["eval", *INVOICE],
        ["eval", *INVOICE, "-f", "json"],
        ["eval", *INVOICE, "-f", "markdown"],
        ["eval", *INVOICE, "--fail-under", "weighted_overall_score=0.5"],  # 0.594: passes
        ["compare", *QUICKSTART],
        ["schema", "check", INVOICE[0]],
        ["comparators"],
    ],
    ids=lambda args: " ".join(a if "/" not in a else Path(a).name for a in args),
)
def test_a_closed_pipe_is_not_a_failure(args):
    code, err = closed(*args)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("output", ["table", "json", "markdown"])
def test_a_failed_gate_still_decides_the_exit_code(output):
    code, err = closed("eval", *INVOICE, "-f", output, "--fail-under", "weighted_overall_score=0.99")
    assert (code, err) == (1, "stickler: 1 quality gate(s) failed\n")  # the tables that said so went nowhere


def both_closed(*args: str) -> int:
    """stickler's exit code with standard output and standard error both a pipe nobody reads (``2>&1 | head``)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "stickler_cli", *args], stdout=write, stderr=write, cwd=ROOT, timeout=120
        ).returncode
    finally:
        os.close(write)


def test_with_standard_error_closed_too_a_failed_gate_is_still_exit_1():
    """Saying the gate failed on a closed stderr raised BrokenPipeError, which click made exit 1 and the closed
    stdout's rule made 0: a failed gate passed."""
    assert both_closed("eval", *INVOICE, "--fail-under", "weighted_overall_score=0.99") == 1
    assert both_closed("eval", *INVOICE, "--fail-under", "weighted_overall_score=0.5") == 0


def test_a_warning_on_a_closed_standard_error_does_not_stop_the_run(tmp_path):
    """The warning's write stopped the run before its reports were written, with exit 0."""
    schema = tmp_path / "typo.json"
    schema.write_text(Path(INVOICE[0]).read_text().replace('"required"', '"requird"'))
    assert '"requird"' in schema.read_text()
    report = tmp_path / "report.json"
    assert both_closed("eval", str(schema), *INVOICE[1:], "-o", str(report)) == 0
    assert report.read_bytes().startswith(b"{")


def closed_descriptor(fd: int, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """stickler run with descriptor ``fd`` closed before it starts (``>&-``, ``2>&-``): Python's stream is None."""
    return subprocess.run(
        [sys.executable, "-m", "stickler_cli", *args],
        cwd=cwd,
        timeout=120,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: os.close(fd),
    )


def test_closed_descriptors_are_streams_nobody_reads(tmp_path):
    """Found by review: with 2>&- a run exited 1 (AttributeError on None) and wrote none of its reports; with >&-
    every command exited 3, --version with a traceback."""
    reports = [tmp_path / name for name in ("r.json", "j.xml", "h.html")]
    done = closed_descriptor(
        2, "eval", *INVOICE, "-o", str(reports[0]), "--junit", str(reports[1]), "--html", str(reports[2])
    )
    assert done.returncode == 0 and all(path.stat().st_size > 0 for path in reports)
    assert closed_descriptor(2, "eval", "--bogus").returncode == 2
    assert closed_descriptor(1, "eval", *INVOICE).returncode == 0
    assert closed_descriptor(1, "eval", *INVOICE, "--fail-under", "weighted_overall_score=0.99").returncode == 1
    for args in (["--version"], ["eval", "--help"], ["schema", "check", INVOICE[0]], ["compare", *QUICKSTART]):
        assert closed_descriptor(1, *args).returncode == 0, args


PACKETS = [str(ROOT / p) for p in ("fixtures/packets/gt.jsonl", "fixtures/packets/pred.jsonl")]


@pytest.mark.parametrize(
    "args",
    [
        ["eval", INVOICE[0], "-", INVOICE[2]],
        ["eval", INVOICE[0], INVOICE[1], "-", "--workers", "2"],
        ["compare", INVOICE[0], "-", INVOICE[2], "--line", "1"],
        ["compare", QUICKSTART[0], QUICKSTART[1], "-"],
        ["diff", INVOICE[0], "-", INVOICE[2], INVOICE[2]],
        ["split", "-", PACKETS[1]],
        ["schema", "infer", "-"],
        ["schema", "infer", INVOICE[1], "-"],
    ],
    ids=lambda args: " ".join(a if "/" not in a else Path(a).name for a in args),
)
def test_dash_with_standard_input_closed_is_exit_2(args):
    """``-`` names standard input; closed (``<&-``), Python sets sys.stdin to None and the read was an
    AttributeError (exit 3). ``stdin=DEVNULL`` is an open, empty input: the descriptor is closed in the child."""
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", *args],
        preexec_fn=lambda: os.close(0),
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert (done.returncode, done.stderr.decode()) == (
        2,
        "stickler: error: -: standard input is closed: nothing to read ('-' names standard input)\n",
    )
