"""How a command's run ends: every failure mapped to its exit code and one line on stderr, and the streams the run
writes to (closed ones, a reader that left). Without typer: the typer app (cli/app.py) and the light path of
``eval`` (cli/light.py) both end here, so that they end alike.

Exit codes (docs/ci/index.md, "Exit codes"): 0 success; 1 a quality gate failed;
2 usage or input error; 3 internal error; 128 + the signal number when
SIGINT (130), SIGTERM (143) or SIGHUP (129) stopped the run. Errors are one
line on stderr; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any, Callable

from ..errors import ExitCode, SticklerError
from ..run import interrupts
from . import output
from .output import GateFailed, to_devnull

# The exit code of an exception only the caller knows (typer's and click's), or None when it is not one of those.
Answer = Callable[[Exception], "int | None"]


def main(call: Callable[[], Any], debug: bool, answer: Answer | None = None) -> int:
    """Run ``call`` (a command: its return value, an int, is the exit code) and map what it raises to an exit
    code. SIGINT, SIGTERM and SIGHUP stop the run cleanly (interrupts.py): exit 128 + the signal number, one line."""
    stdout, stderr = sys.stdout, sys.stderr
    # A stream closed before the run (`>&-`, `2>&-`) is None to Python: the run goes on, writing it nowhere.
    closed = [open(os.devnull, "w") for stream in (stdout, stderr) if stream is None]
    if stdout is None:
        sys.stdout = closed[0]
        output.cut_stdout()
    sys.stderr = _ClosedTolerant(stderr if stderr is not None else closed[-1])  # type: ignore[assignment]
    try:
        with interrupts.handling():
            try:
                return _ended(call, debug, answer)
            except interrupts.Interrupted as exc:
                from ..run import atomic

                atomic.remove_temporaries()
                sys.stderr.write(f"stickler: interrupted by {exc.name}\n")
                return exc.exit_code
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        for devnull in closed:
            devnull.close()


class _ClosedTolerant:
    """Standard error for a run: a reader that closed it (``2>&1 | head``) hears no more, and the run goes on.
    A warning written to it raised BrokenPipeError, which click answers with exit 1 and ``_ended`` took for a
    closed standard output (exit 0): the run stopped before writing its reports and passed."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._closed()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed()

    def _closed(self) -> None:
        to_devnull(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _ended(call: Callable[[], Any], debug: bool, answer: Answer | None) -> int:
    try:
        code = call()
        sys.stdout.flush()  # a full disk behind a redirection shows here at the latest
    except interrupts.Interrupted:
        raise
    except SticklerError as exc:
        if debug:
            raise
        output.error(str(exc))
        return int(exc.exit_code)
    except GateFailed as exc:
        return exc.exit_code
    except KeyboardInterrupt:
        output.error("interrupted")
        return 130
    except BrokenPipeError:
        to_devnull(sys.stdout)
        return 0
    except SystemExit as exc:  # click's answer to a closed pipe (gates end a run by GateFailed, never this way)
        return 0 if exc.code == 1 else exc.code if isinstance(exc.code, int) else 0
    except Exception as exc:
        known = answer(exc) if answer is not None else None
        if known is not None:
            return known
        if interrupts.received() is not None:  # a failure the signal caused (a worker it ended)
            raise interrupts.Interrupted(interrupts.received() or 0) from None
        if isinstance(exc, OSError) and _stdout_refuses(exc):  # a full disk behind a redirection: as for any file
            output.error(f"standard output: cannot write: {exc.strerror or exc}")
            return int(ExitCode.USAGE_ERROR)
        if debug:
            raise
        output.error(f"internal error: {type(exc).__name__}: {exc} (run again with --debug for the traceback)")
        return int(ExitCode.INTERNAL_ERROR)
    return code if isinstance(code, int) else 0


_DISK_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def _stdout_refuses(exc: OSError) -> bool:
    """Whether ``exc`` is standard output refusing data (a full disk behind a redirection): every
    file stickler writes itself reports its own failures, so a disk-full error that reaches here was
    stdout's. Standard output is then pointed at /dev/null, so that Python's last flush stays quiet."""
    if exc.errno not in _DISK_FULL:
        return False
    to_devnull(sys.stdout)
    return True
