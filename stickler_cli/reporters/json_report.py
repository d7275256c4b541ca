"""The JSON report, written atomically so a crash never leaves half a file."""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Iterator

import orjson

from ..errors import UsageError
from ..reader import STDIN


def dumps(report: dict[str, Any], indent: bool = True) -> bytes:
    """JSON, indented unless asked not to be. Values read from the data may hold integers beyond
    64 bits, which orjson cannot write: Python's json writes those (exactly); NaN and infinities
    become null either way."""
    try:
        return orjson.dumps(report, option=(orjson.OPT_INDENT_2 if indent else 0) | orjson.OPT_NON_STR_KEYS) + b"\n"
    except TypeError:
        return json.dumps(_finite(report), indent=2 if indent else None, ensure_ascii=False, default=str).encode() + b"\n"


DEEPEST = 200  # levels written by the fallback; deeper values are replaced by a note


def _finite(value: Any, depth: int = 0) -> Any:
    """``value`` with NaN and infinities as None (as orjson writes them) and nothing nested
    deeper than DEEPEST levels, which Python's json could not write."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (dict, list, tuple)) and depth >= DEEPEST:
        return f"<nested deeper than {DEEPEST} levels>"
    if isinstance(value, dict):
        return {k: _finite(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v, depth + 1) for v in value]
    return value


def check_writable(path: str, inputs: list[str]) -> None:
    """Fail before any work when the report could not be written, or would clobber an input."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{path}: is a directory; give a file name for the report")
    if is_special(target):  # /dev/null, /dev/stdout, a named pipe: written in place
        if not os.access(target, os.W_OK):
            raise UsageError(f"{path}: not writable")
        return
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{path}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise UsageError(f"{path}: not writable")
    resolved = target.resolve()
    for given in inputs:
        if given != STDIN and Path(given).exists() and Path(given).resolve() == resolved:
            raise UsageError(f"{path}: refusing to overwrite an input file with the report")


def is_special(target: Path) -> bool:
    """An existing path that is not a regular file (a device, a pipe): never replaced."""
    return target.exists() and not target.resolve().is_file()


def _temporary(target: Path) -> tuple[int, str]:
    """A temporary file beside ``target`` (beside what a symbolic link points at), with the
    permissions a new file would get: ``os.replace`` then swaps it in whole."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=str(target.parent or "."))
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)
    return fd, tmp


@contextlib.contextmanager
def replacing(path: str) -> Iterator[BinaryIO]:
    """A handle whose content replaces ``path`` whole when the block completes (a temporary file
    beside it, renamed), and leaves ``path`` as it was when the block fails; a device or a pipe
    is written in place."""
    target = Path(path)
    if is_special(target):
        with open(target, "wb") as handle:
            yield handle
        return
    target = target.resolve()
    fd, tmp = _temporary(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write(path: str, data: bytes) -> None:
    with replacing(path) as handle:
        handle.write(data)


class LineWriter:
    """JSON lines written as they come (``--non-matches``, ``--per-document``), replacing ``path``
    only when the run completes: a failed run leaves nothing half written."""

    def __init__(self, path: str) -> None:
        self._file = replacing(path)
        self.count = 0

    def __call__(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self.handle.write(dumps(row, indent=False))
        self.count += len(rows)

    def __enter__(self) -> "LineWriter":
        self.handle = self._file.__enter__()
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool | None:
        return self._file.__exit__(kind, error, trace)
