"""Exceptions that carry a location, and the exit codes the CLI maps them to.

Every user-facing failure is one of these: the CLI prints ``str(error)`` as one
line and exits with ``error.exit_code``. Anything else is a bug and only then
does a traceback appear (or with ``--debug``).
"""

from __future__ import annotations

from enum import IntEnum

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Iterable


class ExitCode(IntEnum):
    """Stable process exit codes, documented in docs/ci/index.md, "Exit codes"."""

    OK = 0
    GATE_FAILED = 1  # reserved for quality gates
    USAGE_ERROR = 2  # bad arguments, unreadable files, invalid schema or ground truth
    INTERNAL_ERROR = 3  # a bug in stickler itself


class SticklerError(Exception):
    """Base class: a problem the user can fix, reported as one line."""

    exit_code: ExitCode = ExitCode.USAGE_ERROR


class SchemaError(SticklerError):
    """The schema, or one of its x-aws-stickler-* values, is invalid.

    ``pointer`` is the JSON pointer of the offending node (``/properties/total``).
    """

    def __init__(self, message: str, pointer: str = "", source: str | None = None) -> None:
        self.message = message
        self.pointer = pointer or "/"
        self.source = source
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.source}: " if self.source else ""
        return f"{where}{self.pointer}: {self.message}"

    def __reduce__(self):  # rebuilt from its parts when it crosses a process boundary
        return (SchemaError, (self.message, self.pointer, self.source))

    def with_source(self, source: str) -> "SchemaError":
        return SchemaError(self.message, self.pointer, source)


class InputError(SticklerError):
    """A data file problem, located as ``file:line``."""

    def __init__(self, message: str, source: str, line: int | None = None) -> None:
        self.message = message
        self.source = source
        self.line = line
        named = source or "'' (an empty argument)"  # never a message that starts with ": "
        where = f"{named}:{line}" if line is not None else named
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        return (InputError, (self.message, self.source, self.line))


class ComparatorSetupError(SticklerError):
    """A comparator cannot work at all (its model does not load): stop, rather than
    scoring every remaining record 0.0 with the same complaint."""


class UsageError(SticklerError):
    """Bad command-line usage that typer itself cannot catch."""


def suggest(word: str, options: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix when a close option exists, else ''."""
    import difflib

    match = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""
