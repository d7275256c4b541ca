"""The JSON report, and how every file stickler writes is written: checked before any work (it
can be written, it is no input of the run, no two options name it), then written whole or not at
all (a temporary file beside it, renamed), keeping an existing file's permissions; a full disk is a
usage error naming the file."""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Sequence

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
        # Compact as orjson writes it when not indented (a --non-matches file keeps one style throughout).
        return json.dumps(_finite(report), indent=2 if indent else None, separators=None if indent else (",", ":"),
                          ensure_ascii=False, default=str).encode() + b"\n"


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


def check_writable(path: str) -> None:
    """Fail before any work when a file could not be written where ``path`` says."""
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


def check_targets(targets: dict[str, str | None], inputs: Sequence[tuple[str, str]]) -> None:
    """Fail before any work when a file to write (``{option: path}``) could not be written, is one
    of the run's ``inputs`` (``(what it is, path)``), or is named by two options. Files are
    compared as the system sees them (device and inode), so a symbolic link, a hard link or
    another spelling of a path is the file it leads to; a character device (``/dev/null``, a
    terminal) is written in place and clobbers nothing."""
    read: dict[tuple, tuple[str, str]] = {}
    for what, given in inputs:
        if given != STDIN and (key := identity(given, existing=True)) is not None:
            read.setdefault(key, (what, given))
    written: dict[tuple, tuple[str, str]] = {}
    for option, path in targets.items():
        if not path:
            continue
        if path == STDIN:  # never a file named "-" beside the user's files
            raise UsageError(f"{option} -: standard output carries the printed report; name a file "
                             f"(/dev/stdout writes into that stream)")
        check_writable(path)
        with contextlib.suppress(OSError):
            if stat.S_ISCHR(os.stat(path).st_mode):
                continue
        key = identity(path)
        if key in read:
            what, given = read[key]
            same = "" if given == path else f" ({given})"
            raise UsageError(f"{option} {path}: refusing to overwrite an input file with the report: "
                             f"it is the {what}{same}")
        if key in written and not is_special(Path(path)):
            first, first_path = written[key]
            names = path if first_path == path else f"{first_path}, {path}"
            raise UsageError(f"{first} and {option} name the same file ({names})")
        written[key] = (option, path)


def identity(path: str, existing: bool = False) -> tuple | None:
    """What ``path`` names on disk: (device, inode) of an existing file; for a file still to be
    made, its directory's (device, inode) and its name, symbolic links followed. None for a
    file that does not exist when ``existing`` is asked for (or cannot be looked at)."""
    try:
        info = os.stat(path)
        return (info.st_dev, info.st_ino)
    except OSError:
        if existing:
            return None
    target = Path(path).resolve()
    try:
        info = os.stat(target.parent)
    except OSError:
        return (str(target),)
    return (info.st_dev, info.st_ino, target.name)


def is_special(target: Path) -> bool:
    """An existing path that is not a regular file (a device, a pipe): never replaced."""
    return target.exists() and not target.resolve().is_file()


# Hidden temporary files made and not yet renamed or removed: an interrupted run removes them
# (remove_temporaries) even when the signal came between making one and guarding it.
_temporaries: set[str] = set()


def _temporary(target: Path) -> tuple[int, str]:
    """A temporary file beside ``target`` (beside what a symbolic link points at), with the
    permissions (and, where the system allows, the owner) of the file it will replace, or those
    a new file gets: ``os.replace`` then swaps it in whole."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=str(target.parent or "."))
    _temporaries.add(tmp)
    try:
        try:
            existing: os.stat_result | None = os.stat(target)
        except OSError:
            existing = None
        if existing is not None and stat.S_ISREG(existing.st_mode):
            if (existing.st_uid, existing.st_gid) != (os.geteuid(), os.getegid()):
                with contextlib.suppress(OSError):  # another owner's file: kept as far as we may
                    os.fchown(fd, existing.st_uid, existing.st_gid)
            os.fchmod(fd, stat.S_IMODE(existing.st_mode) & 0o777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
    except BaseException:
        os.close(fd)
        _discard(tmp)
        raise
    return fd, tmp


def _discard(tmp: str) -> None:
    _temporaries.discard(tmp)
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def remove_temporaries() -> None:
    """Remove every temporary file not yet renamed into place (an interrupted run)."""
    for tmp in list(_temporaries):
        _discard(tmp)


def cannot_write(path: str, exc: OSError) -> UsageError:
    """A file that cannot be written (disk full, quota, I/O error): a usage error naming it."""
    return UsageError(f"{path}: cannot write: {exc.strerror or exc}")


@contextlib.contextmanager
def _closed_after(handle: BinaryIO, path: str) -> Iterator[BinaryIO]:
    """``handle`` closed when the block ends: quietly when the block failed (its error is the one
    to see), else with a failure to close (the last bytes not written) a UsageError naming ``path``."""
    try:
        yield handle
    except BaseException:
        with contextlib.suppress(OSError):
            handle.close()
        raise
    try:
        handle.close()
    except OSError as exc:
        raise cannot_write(path, exc) from None


@contextlib.contextmanager
def replacing(path: str) -> Iterator[BinaryIO]:
    """A handle whose content replaces ``path`` whole when the block completes (a temporary file
    beside it, renamed), and leaves ``path`` as it was when the block fails; a device or a pipe
    is written in place. Failing to finish the file (a full disk) is a UsageError naming it;
    writes inside the block are the caller's to guard (``cannot_write``)."""
    target = Path(path)
    if is_special(target):
        try:
            handle: BinaryIO = open(target, "wb")
        except OSError as exc:
            raise cannot_write(path, exc) from None
        with _closed_after(handle, path):
            yield handle
        return
    target = target.resolve()
    try:
        fd, tmp = _temporary(target)
    except OSError as exc:
        raise cannot_write(path, exc) from None
    try:
        with _closed_after(os.fdopen(fd, "wb"), path) as handle:
            yield handle
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise cannot_write(path, exc) from None
        _temporaries.discard(tmp)
    finally:
        if tmp in _temporaries:
            _discard(tmp)


def write(path: str, data: bytes) -> None:
    with replacing(path) as handle:
        try:
            handle.write(data)
        except OSError as exc:
            raise cannot_write(path, exc) from None


class LineWriter:
    """JSON lines written as they come (``--non-matches``, ``--per-document``), replacing ``path``
    only when the run completes: a failed run leaves nothing half written."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._file = replacing(path)
        self.count = 0
        # What lines counting comparisons past --limit explain-items ({"doc_id", "not_shown": {"count", ...}}) say.
        self.not_shown = 0

    def __call__(self, rows: list[dict[str, Any]]) -> None:
        try:
            for row in rows:
                self.handle.write(dumps(row, indent=False))
                if "not_shown" in row:
                    self.not_shown += row["not_shown"]["count"]
                    self.count -= 1
        except OSError as exc:
            raise cannot_write(self.path, exc) from None
        self.count += len(rows)

    def __enter__(self) -> "LineWriter":
        self.handle = self._file.__enter__()
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool | None:
        return self._file.__exit__(kind, error, trace)
