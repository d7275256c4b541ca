r"""The regular expressions of a schema (``pattern``, ``patternProperties``): one engine, every match bounded.

Patterns are compiled with the ``regex`` package, which reads Python's ``re`` syntax
(so every pattern means what it meant before) plus ECMA-262's ``\p{Letter}`` and
friends, and takes a timeout per match. Both the compiled conformance checker and
jsonschema (for the keywords the checker leaves to it) match through here.

A pattern such as ``^(a|aa)+$`` backtracks exponentially: on a 40-character value
one match would take minutes. A match that runs past ``regex-seconds`` counts as not
matching (a violation) and is reported; after ``regex-timeouts`` of them a pattern
is no longer tried for the rest of the run, and that is reported too, so that a
hostile pattern cannot make a run slow by timing out on every record.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import limits
from ..errors import SchemaError


class Pattern:
    """One compiled pattern, with the count of its timed-out matches."""

    __slots__ = ("text", "pointer", "_search", "_seconds", "_allowed", "_owner", "timeouts", "abandoned")

    def __init__(self, text: str, pointer: str, search: Callable, owner: "Patterns") -> None:
        self.text = text
        self.pointer = pointer
        self._search = search
        self._seconds = owner.seconds
        self._allowed = owner.allowed_timeouts
        self._owner = owner
        self.timeouts = 0
        self.abandoned = False  # timed out too often: no longer tried (every value passes)

    def matches(self, value: str) -> bool:
        """Whether ``value`` contains a match; a match that runs out of time counts as none."""
        if self.abandoned:
            return True
        try:
            return self._search(value, None, None, None, False, self._seconds) is not None
        except TimeoutError:
            self._timed_out(len(value))
            return False

    def _timed_out(self, length: int) -> None:
        self.timeouts += 1
        where = f"pattern {_shown(self.text)} at {self.pointer}"
        self._owner.messages.append(
            f"{where} took longer than {self._seconds:g} s on a value of {length:,} characters: "
            "counted as not matching (limit regex-seconds)")
        if self.timeouts >= self._allowed:
            self.abandoned = True
            self._owner.messages.append(
                f"{where} timed out {self.timeouts} times: no longer checked for the rest of this run, every value "
                "passes it (limit regex-timeouts)")


class Patterns:
    """Every pattern of one schema, compiled once; the messages of timed-out matches, for the run's errors."""

    def __init__(self, bounds: limits.Limits | None = None) -> None:
        bounds = bounds or limits.current()
        self.seconds = bounds.regex_seconds
        self.allowed_timeouts = bounds.regex_timeouts
        self._compiled: dict[str, Pattern] = {}
        self.messages: list[str] = []

    def compile(self, text: Any, pointer: str) -> Pattern:
        """The compiled ``text``; a pattern that does not compile is a SchemaError at ``pointer``."""
        if isinstance(text, str) and text in self._compiled:
            return self._compiled[text]
        import regex

        if not isinstance(text, str):
            raise SchemaError(f"a pattern must be a string, got {_shown(text)}", pointer)
        try:
            search = regex.compile(text).search
        except (regex.error, ValueError, OverflowError, RecursionError, MemoryError) as exc:
            raise SchemaError(f"pattern {_shown(text)} is not a valid regular expression ({exc})", pointer) from None
        found = self._compiled[text] = Pattern(text, pointer, search, self)
        return found

    def search(self, text: str, value: str) -> bool:
        """``re.search``'s shape, bounded: what jsonschema's keyword functions call instead of ``re``."""
        found = self._compiled.get(text)
        if found is None:  # every pattern of the schema was compiled at load time; this is a safety net
            found = self.compile(text, "(a pattern met while checking)")
        return found.matches(value)

    def take_messages(self) -> list[str]:
        """The messages gathered since the last call (timed-out matches, abandoned patterns)."""
        taken, self.messages = self.messages, []
        return taken


def _shown(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"
