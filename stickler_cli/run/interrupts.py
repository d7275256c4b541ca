"""Stopping cleanly on SIGINT (Ctrl-C), SIGTERM (a CI job cancelled) and SIGHUP (the terminal closed).

While the command runs, the first of these signals raises ``Interrupted`` in the main
thread, so that every ``finally`` and ``except BaseException`` on the way out runs:
worker processes are ended and the hidden temporary files of unfinished outputs are
removed. Further signals are ignored while that happens. The process then exits with
128 + the signal number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as a
shell reports a process the signal ended, after one line on stderr.

Worker processes leave signals to their parent: they ignore SIGINT (Ctrl-C reaches
the whole process group; the parent stops them), end at once on SIGTERM, and are
sent SIGTERM by the kernel if their parent dies without stopping them (Linux), so
that none is left behind even after SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Iterator

HANDLED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
_PR_SET_PDEATHSIG = 1  # prctl(2) option: a signal to receive when the parent thread dies

_received: int | None = None


class Interrupted(BaseException):
    """A signal asked the run to stop. A BaseException, like KeyboardInterrupt: no
    ``except Exception`` swallows it on the way out."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def received() -> int | None:
    """The signal that interrupted the command, if one did."""
    return _received


def _handler(signum: int, frame: object) -> None:
    global _received
    if _received is not None:
        return  # already stopping: let the clean-up finish
    _received = signum
    raise Interrupted(signum)


@contextlib.contextmanager
def handling() -> Iterator[None]:
    """Turn the signals into ``Interrupted`` while the block runs (in the main thread; elsewhere,
    nothing changes). A signal the caller ignores (``nohup``, a background job) stays ignored;
    the previous handlers are back afterwards (tests call the CLI in-process)."""
    global _received
    _received = None
    previous: dict[int, object] = {}
    try:
        for signum in HANDLED:
            current = signal.getsignal(signum)
            if current in (signal.SIG_DFL, signal.default_int_handler):
                previous[signum] = signal.signal(signum, _handler)
    except ValueError:  # not the main thread: signals cannot be handled here
        pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]


def in_worker(parent: int) -> None:
    """Set up a worker process (a pool's initializer): SIGINT ignored, SIGTERM and SIGHUP end it,
    and on Linux the kernel sends it SIGTERM when ``parent`` dies."""
    for signum in HANDLED:
        signal.signal(signum, signal.SIG_IGN if signum == signal.SIGINT else signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
    if os.getppid() != parent:  # the parent died before the line above: nobody wants this worker
        os._exit(1)
