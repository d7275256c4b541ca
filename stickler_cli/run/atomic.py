"""How every file stickler writes is written: checked before any work (it can be written, it is no
input of the run, no two options name it), then written whole or not at all (a temporary file
beside it, renamed), keeping an existing file's permissions; a full disk is a usage error naming
the file. The reports (reporters/), the state files (state_file.py) and the commands (cli/) all
write through here."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Sequence

from ..errors import UsageError
from ..json_text import dumps
from .reader import STDIN


def check_writable(path: str) -> None:
    """Fail before any work when a file could not be written where ``path`` says."""
    refuse_planted_links(path)
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


def with_step_summary(targets: dict[str, str | None]) -> dict[str, str | None]:
    """``targets`` and the file of ``$GITHUB_STEP_SUMMARY``, where the commands that append their Markdown
    to it (eval, merge, diff, split) write too: it is checked as any output is."""
    return {**targets, SUMMARY_VARIABLE: os.environ.get(SUMMARY_VARIABLE) or None}


SUMMARY_VARIABLE = "GITHUB_STEP_SUMMARY"


def check_targets(targets: dict[str, str | None], inputs: Sequence[tuple[str, str]]) -> None:
    """Fail before any work when a file to write (``{option or variable: path}``) could not be written, is one
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
            raise UsageError(
                f"{option} -: standard output carries the printed report; name a file "
                f"(/dev/stdout writes into that stream)"
            )
        check_writable(path)
        with contextlib.suppress(OSError):
            if stat.S_ISCHR(os.stat(path).st_mode):
                continue
        key = identity(path)
        named = f"{option} {path}" if option.startswith("-") else f"{option}={path}"  # an option, or a variable
        if key in read:
            what, given = read[key]
            same = "" if given == path else f" ({given})"
            raise UsageError(f"{named}: refusing to overwrite an input file with the report: it is the {what}{same}")
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


def refuse_planted_links(path: str) -> None:
    """UsageError when ``path`` goes through a symbolic link that another user planted in a shared sticky,
    world-writable directory (/tmp): stickler resolves links itself (to write beside the target), which
    would bypass the kernel's ``fs.protected_symlinks``, so the kernel's rule is applied here."""
    found = planted_link(path)
    if found is not None:
        link, directory = found
        raise UsageError(
            f"{path}: {link} is a symbolic link another user made in {directory}, a directory "
            "every user may write to: not followed (name the file it leads to instead)"
        )


_MOST_LINKS = 40  # links followed on one path before giving up, as the kernel does (ELOOP)


def planted_link(path: str) -> tuple[str, str] | None:
    """(link, its directory) for the first symbolic link on ``path`` that ``fs.protected_symlinks`` would
    not follow for this process: one in a sticky, world-writable directory whose owner is neither this
    process's user nor the directory's owner. None when there is none (or the path does not exist yet)."""
    current = "/" if path.startswith("/") else os.getcwd()
    parts = [p for p in reversed(path.split("/")) if p not in ("", ".")]
    followed = 0
    while parts:
        part = parts.pop()
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        try:
            info = os.lstat(candidate)
        except OSError:
            return None  # nothing there yet: no link to follow beyond it
        if not stat.S_ISLNK(info.st_mode):
            current = candidate
            continue
        followed += 1
        try:
            directory = os.stat(current)
            target = os.readlink(candidate)
        except OSError:
            return None
        if planted(info, directory):
            return candidate, current
        if followed > _MOST_LINKS:
            return None  # a loop: opening the file fails with the system's own error
        if target.startswith("/"):
            current = "/"
        parts.extend(reversed([p for p in target.split("/") if p not in ("", ".")]))
    return None


def planted(link: os.stat_result, directory: os.stat_result, user: int | None = None) -> bool:
    """The kernel's rule (``fs.protected_symlinks``): a link in a sticky, world-writable directory is
    followed only by its owner, or when the directory's owner owns it too."""
    shared = stat.S_ISVTX | stat.S_IWOTH
    user = os.geteuid() if user is None else user
    return (directory.st_mode & shared) == shared and link.st_uid not in (user, directory.st_uid)


def is_special(target: Path) -> bool:
    """An existing path that is not a regular file (a device, a pipe): never replaced."""
    return target.exists() and not target.resolve().is_file()


# Hidden temporary files made and not yet renamed or removed: an interrupted run removes them
# (remove_temporaries) even when the signal came between making one and guarding it.
_temporaries: set[str] = set()


# A partial output's name: hidden, beside its target, naming the process writing it. The writer holds an
# exclusive lock on it (flock) for as long as it writes, so a partial left by a writer that was killed
# (kill -9, a power cut) is known as one: unlocked, its process gone (or the file older than STALE_SECONDS).
PARTIAL_SUFFIX = ".partial"
STALE_SECONDS = 24 * 3600.0


def _partial_name(target: str) -> re.Pattern[str]:
    """What ``tempfile.mkstemp`` makes for ``target`` (``_temporary``): ``.NAME.PID.XXXXXXXX.partial``."""
    return re.compile(rf"\.{re.escape(target)}\.([0-9]+)\.[a-z0-9_]{{8}}{re.escape(PARTIAL_SUFFIX)}")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def remove_stale_partials(target: Path) -> list[str]:
    """Remove the partial outputs for ``target`` that an earlier run of this user left when it was killed:
    only files named as ``_temporary`` names them for this very target, owned by this user, that no live
    writer holds locked, and whose writing process is gone or that are older than STALE_SECONDS. A user's
    own file, another target's partial, a concurrent run's partial: never touched. Returns the removed."""
    pattern = _partial_name(target.name)
    removed: list[str] = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None:
            continue
        with contextlib.suppress(OSError):
            info = os.lstat(entry.path)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
                continue
            if _alive(int(match.group(1))) and time.time() - info.st_mtime < STALE_SECONDS:
                continue
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a live writer: BlockingIOError
                now = os.lstat(entry.path)
                if (now.st_dev, now.st_ino) == (os.fstat(fd).st_dev, os.fstat(fd).st_ino):
                    os.unlink(entry.path)
                    removed.append(entry.path)
            finally:
                os.close(fd)
    return removed


def _temporary(target: Path) -> tuple[int, str]:
    """A temporary file beside ``target`` (beside what a symbolic link points at), with the
    permissions (and, where the system allows, the owner) of the file it will replace, or those
    a new file gets: ``os.replace`` then swaps it in whole. Its name says whose it is, and it is
    locked while written (``remove_stale_partials``, which runs first)."""
    remove_stale_partials(target)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.{os.getpid()}.", suffix=PARTIAL_SUFFIX, dir=str(target.parent or ".")
    )
    _temporaries.add(tmp)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a new file no one else has opened: granted at once
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
    refuse_planted_links(path)  # checked before the run too; again now, just before writing
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
            try:  # on disk before it takes the target's name: a crash leaves the old file or the new one
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as exc:
                raise cannot_write(path, exc) from None
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise cannot_write(path, exc) from None
        _temporaries.discard(tmp)
        _sync_directory(target.parent)
    finally:
        if tmp in _temporaries:
            _discard(tmp)


def _sync_directory(directory: Path) -> None:
    """The rename on disk too (where the system lets a directory be synced)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


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
