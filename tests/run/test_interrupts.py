"""SIGINT, SIGTERM and SIGHUP stop a run cleanly: workers end, no hidden temporary file is left,
one line on stderr, exit 128 + the signal number (docs/ci/index.md, "Exit codes")."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

psutil = pytest.importorskip("psutil")

STICKLER = [sys.executable, "-m", "stickler_cli"]
SLOW_PLUGIN = '''
import time

from stickler_cli.comparators import Comparator


class SlowComparator(Comparator):
    """Sleeps on every comparison: a run that lasts long enough to be interrupted."""

    name = "SlowComparator"

    def similarity(self, gt, pred):
        time.sleep(0.02)
        return 1.0 if gt == pred else 0.0
'''
SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "string", "x-aws-stickler-comparator": "SlowComparator"}, "n": {"type": "integer"}},
}
DOCUMENTS = 3000  # a minute of sleeping comparisons: far longer than any test waits
DEADLINE = 60.0  # seconds for any one step; each test is bounded by a few of them


@pytest.fixture
def slow(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "slow_plugin.py").write_text(SLOW_PLUGIN)
    (tmp_path / "s.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "gt.jsonl").write_text("".join(json.dumps({"id": f"d{k}", "n": k}) + "\n" for k in range(DOCUMENTS)))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps({"id": f"d{k}x", "n": k}) + "\n" for k in range(DOCUMENTS)))
    (tmp_path / "out").mkdir()
    return {"dir": tmp_path, "out": tmp_path / "out"}


def as_in_a_terminal() -> None:
    """The child's SIGINT, SIGTERM and SIGHUP as a terminal's foreground job has them. A test run started in the
    background (``make test &`` in a script) inherits SIGINT ignored, which stickler rightly keeps ignored
    (``test_a_signal_the_caller_ignores_stays_ignored``); these tests are of a run that can be stopped."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def start(slow: dict[str, Path], *options: str) -> subprocess.Popen:
    """A run writing every kind of file into ``out``, in a session of its own (so that the whole
    group can be signalled, and cleaned up whatever happens)."""
    out = slow["out"]
    return subprocess.Popen(
        [
            *STICKLER,
            "eval",
            "s.json",
            "gt.jsonl",
            "pred.jsonl",
            "--plugin",
            "slow_plugin.py",
            *options,
            "--non-matches",
            str(out / "misses.jsonl"),
            "--per-document",
            str(out / "docs.jsonl"),
            "-o",
            str(out / "report.json"),
            "--save-state",
            str(out / "run.state"),
        ],
        cwd=slow["dir"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=as_in_a_terminal,
    )


def wait_until(condition, what: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"the run ended before {what}: {process.communicate()}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} after {DEADLINE:.0f} s")
        time.sleep(0.05)


def scoring(process: subprocess.Popen, slow: dict[str, Path], workers: int) -> list:
    """Wait until the run is scoring (its side files' temporaries exist, its workers are up); its
    descendant processes then."""
    parent = psutil.Process(process.pid)
    wait_until(
        lambda: len([p for p in slow["out"].iterdir() if p.name.startswith(".")]) == 2, "temporary side files", process
    )
    if workers > 1:
        wait_until(lambda: len(parent.children()) >= workers, "worker processes", process)
    time.sleep(0.5)  # well inside the work
    return parent.children(recursive=True)


def end_group(process: subprocess.Popen) -> None:
    """Whatever happened, nothing of the run outlives the test (orphans keep their process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.poll() is None:
        process.communicate()


def stopped(process: subprocess.Popen, descendants: list) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        end_group(process)
        pytest.fail("the run did not stop")
    _, alive = psutil.wait_procs(descendants, timeout=DEADLINE)
    for leftover in alive:
        leftover.kill()
    assert alive == [], f"processes left behind: {alive}"
    return process.returncode, err


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_stops_the_run_cleanly(slow, workers, signum, code):
    process = start(slow, "--workers", str(workers))
    try:
        descendants = scoring(process, slow, workers)
        assert len(descendants) >= workers - (workers == 1)
        started = time.monotonic()
        process.send_signal(signum)
        returncode, err = stopped(process, descendants)
        assert time.monotonic() - started < 15
    finally:
        end_group(process)
    assert returncode == code, err
    assert err == f"stickler: interrupted by {signal.Signals(signum).name}\n"
    assert sorted(p.name for p in slow["out"].iterdir()) == []  # no output, no hidden temporary file


def test_ctrl_c_reaches_the_whole_group_and_still_one_line(slow):
    """A terminal's Ctrl-C signals every process of the group: workers leave it to their parent."""
    process = start(slow, "--workers", "2")
    try:
        descendants = scoring(process, slow, 2)
        os.killpg(process.pid, signal.SIGINT)
        returncode, err = stopped(process, descendants)
    finally:
        end_group(process)
    assert returncode == 130 and err == "stickler: interrupted by SIGINT\n"
    assert sorted(p.name for p in slow["out"].iterdir()) == []


def test_workers_end_with_a_parent_killed_outright(slow):
    """SIGKILL cannot be handled: the kernel ends the workers with their parent (Linux)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("parent-death signals are Linux's")
    process = start(slow, "--workers", "2")
    try:
        descendants = scoring(process, slow, 2)
        process.kill()
        process.communicate(timeout=DEADLINE)
        _, alive = psutil.wait_procs(descendants, timeout=DEADLINE)
        for leftover in alive:
            leftover.kill()
        assert alive == []
    finally:
        end_group(process)


def test_a_signal_stops_a_local_dask_cluster(slow):
    pytest.importorskip("dask.distributed")
    process = start(slow, "--dask", "local", "--workers", "2")
    try:
        parent = psutil.Process(process.pid)
        wait_until(lambda: len(parent.children()) >= 2, "Dask worker processes", process)
        time.sleep(3)  # the cluster up and the task running
        descendants = parent.children(recursive=True)
        process.send_signal(signal.SIGTERM)
        returncode, err = stopped(process, descendants)
    finally:
        end_group(process)
    assert returncode == 143, err
    assert err.endswith("stickler: interrupted by SIGTERM\n")
    assert sorted(p.name for p in slow["out"].iterdir()) == []


def test_a_signal_the_caller_ignores_stays_ignored(slow):
    """``nohup`` and background jobs ignore SIGHUP or SIGINT: stickler does not undo that."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
            "from stickler_cli.cli.app import main; sys.exit(main(sys.argv[1:]))",
            "eval",
            "s.json",
            "gt.jsonl",
            "pred.jsonl",
            "--plugin",
            "slow_plugin.py",
            "--non-matches",
            str(slow["out"] / "misses.jsonl"),
            "--per-document",
            str(slow["out"] / "docs.jsonl"),
        ],
        cwd=slow["dir"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        scoring(process, slow, 1)
        process.send_signal(signal.SIGINT)
        time.sleep(1.0)
        assert process.poll() is None  # still scoring
        process.send_signal(signal.SIGTERM)
        returncode, err = stopped(process, [])
    finally:
        end_group(process)
    assert returncode == 143 and err == "stickler: interrupted by SIGTERM\n"
    assert sorted(p.name for p in slow["out"].iterdir()) == []


def test_in_process_calls_restore_the_signal_handlers(tmp_path):
    """Tests and notebooks call main() in-process: their handlers are theirs again afterwards."""
    from stickler_cli.cli.app import main

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    assert main(["comparators", "-f", "json"]) == 0
    assert {s: signal.getsignal(s) for s in before} == before
