"""A reader that closes standard output early (``stickler eval … | head``) ends the printing, not the run:
the exit code is still the gates' (1 only when a gate failed), with no traceback. Rich and click answer a
closed pipe with exit code 1, which in a pipeline with ``pipefail`` reads as a failed gate."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INVOICE = [str(ROOT / p) for p in ("schemas/invoice.json", "fixtures/invoice/gt.jsonl", "fixtures/invoice/pred.jsonl")]
QUICKSTART = [str(ROOT / p) for p in ("schemas/quickstart.json", "fixtures/quickstart/gt.json",
                                      "fixtures/quickstart/pred.json")]


def closed(*args: str) -> tuple[int, str]:
    """(exit code, stderr) of stickler writing to a pipe whose reader is already gone: every write fails."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "stickler_cli", *args], stdout=write, stderr=subprocess.PIPE,
                              cwd=ROOT, timeout=120)
    finally:
        os.close(write)
    return done.returncode, done.stderr.decode()


@pytest.mark.parametrize("args", [
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
], ids=lambda args: " ".join(a if "/" not in a else Path(a).name for a in args))
def test_a_closed_pipe_is_not_a_failure(args):
    code, err = closed(*args)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("output", ["table", "json", "markdown"])
def test_a_failed_gate_still_decides_the_exit_code(output):
    code, err = closed("eval", *INVOICE, "-f", output, "--fail-under", "weighted_overall_score=0.99")
    assert (code, err) == (1, "stickler: 1 quality gate(s) failed\n")  # the tables that said so went nowhere
