"""What Rich would make of standard output, found without importing Rich (~30 ms of a short command).

A help page piped into a file or a CI log is plain text: Rich adds no style there, so the page can be
written without it. These two functions answer as ``rich.console.Console()`` does, by the same rules
(tests/cli/test_help.py holds them equal to Rich's under each environment variable it reads); where Rich
could answer otherwise for reasons not read here (a notebook, Windows' legacy console), ``styled`` says
True and the caller uses Rich itself.
"""

from __future__ import annotations

import os
import sys


def styled() -> bool:
    """Whether Rich may write styles to standard output (it takes it for a terminal), or cannot be
    second-guessed here: Windows, a notebook."""
    if os.name == "nt" or "IPython" in sys.modules:
        return True
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return False if isatty is None else bool(isatty())
    except ValueError:  # a closed file
        return False


def width() -> int:
    """The width Rich gives an unstyled standard output: ``$COLUMNS``, else the first of standard input,
    output and error that is a terminal, else 80."""
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    found = 0
    for descriptor in (0, 1, 2):
        try:
            found = os.get_terminal_size(descriptor).columns
        except (AttributeError, ValueError, OSError):
            continue
        break
    return found or 80
