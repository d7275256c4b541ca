r"""The regular expressions of a schema (``pattern``, ``patternProperties``): one engine, every match bounded.

Patterns are compiled with the ``regex`` package, which reads Python's ``re`` syntax
(so every pattern means what it meant before) plus ECMA-262's ``\p{Letter}`` and
friends, and takes a timeout per match. Both the compiled conformance checker and
jsonschema (for the keywords the checker leaves to it) match through here.

A pattern such as ``^(a|aa)+$`` backtracks exponentially: on a 40-character value
one match would take minutes. A match that runs past ``regex-seconds`` counts as not
matching (a violation) and is reported; after ``regex-timeouts`` of them in a run (all
patterns together), no pattern is tried for the rest of the run, and that is reported
too, so that hostile patterns, however many, cannot make a run slow by timing out on
every record.

Compiling is bounded too: the engine writes a repeat out as many times as its
minimum count (``a{10000000}`` takes 2.6 GB, ``((a{1000}){1000}){1000}`` more than
any machine has), so the size of every pattern is estimated first and a schema's
patterns together may take at most ``regex-size`` units (about 260 bytes each).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .. import limits
from ..errors import SchemaError


class Pattern:
    """One compiled pattern, with the count of its timed-out matches."""

    __slots__ = ("text", "pointer", "_search", "_seconds", "_allowed", "_owner", "abandoned")

    def __init__(self, text: str, pointer: str, search: Callable, owner: "Patterns") -> None:
        self.text = text
        self.pointer = pointer
        self._search = search
        self._seconds = owner.seconds
        self._allowed = owner.allowed_timeouts
        self._owner = owner
        self.abandoned = False  # the run's patterns timed out too often: no longer tried (every value passes)

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
        owner = self._owner
        owner.timeouts += 1
        owner.messages.append(
            f"pattern {_shown(self.text)} at {self.pointer} took longer than {self._seconds:g} s on a value of "
            f"{length:,} characters: counted as not matching (limit regex-seconds)"
        )
        if owner.timeouts >= self._allowed:  # a budget for the run, not per pattern: a schema may hold thousands
            for pattern in owner._compiled.values():
                pattern.abandoned = True
            owner.messages.append(
                f"patterns timed out {owner.timeouts} times: no pattern is checked for the rest of this run, every "
                "value passes them (limit regex-timeouts)"
            )


class Patterns:
    """Every pattern of one schema, compiled once; the messages of timed-out matches, for the run's errors."""

    def __init__(self, bounds: limits.Limits | None = None) -> None:
        bounds = bounds or limits.current()
        self.seconds = bounds.regex_seconds
        self.allowed_timeouts = bounds.regex_timeouts
        self.timeouts = 0  # timed-out matches in this run (this process), all patterns together
        self.size_limit = bounds.regex_size
        self.room = bounds.regex_size  # units the patterns still to be compiled may take
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
            size = unrolled_size(text)
        except VerboseMode as exc:
            raise SchemaError(str(exc), pointer) from None
        if size > self.room:
            raise SchemaError(
                f"pattern {_shown(text)} would compile to about {size:,} units (a repeat is written out "
                f"its minimum number of times); the patterns of a schema may take {self.size_limit:,} "
                "together (--limit regex-size=N raises it)",
                pointer,
            )
        self.room -= size
        try:
            search = regex.compile(text).search
        except (regex.error, ValueError, OverflowError, RecursionError, MemoryError) as exc:
            raise SchemaError(f"pattern {_shown(text)} is not a valid regular expression ({exc})", pointer) from None
        found = self._compiled[text] = Pattern(text, pointer, search, self)
        found.abandoned = self.timeouts >= self.allowed_timeouts
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


_COUNT = re.compile(r"\{(\d*)(,?)(\d*)\}")  # {m}, {m,}, {m,n}, {,n}
_FLAGS = re.compile(r"\(\?([a-zA-Z0-9]*)(?:-[a-zA-Z0-9]*)?[:)]")  # (?x), (?V1x), (?x-i:…): the flags turned on
# Flags under which the size estimate's reading of the pattern is not the engine's: verbose mode, where whitespace
# and # comments are not characters (``(?x)(?:a{1000}) {1000}`` repeats the group: a million units, read as a
# thousand), version 1, where a class may hold nested sets, and full case folding. ECMA-262 has none of them.
_UNREAD_FLAGS = {
    "x": "verbose mode (?x)",
    "V1": "version 1 syntax (?V1)",
    # under full case folding with (?i), a class of letters that fold to several builds some 38 KB a
    # copy, not one unit: (?fi)[ß-ﬗ]{90000} read as 90,002 units took 3.5 GB
    "f": "full case folding (?f)",
}


class VerboseMode(ValueError):
    """A pattern turns on a flag (_UNREAD_FLAGS) under which its size cannot be read before compiling; such a
    pattern is refused (JSON Schema's regular expressions, ECMA-262, have no such flag)."""

    def __init__(self, pattern: str, flag: str) -> None:
        super().__init__(
            f"pattern {_shown(pattern)} turns on {_UNREAD_FLAGS[flag]}, which JSON Schema's regular "
            "expressions (ECMA-262) do not have"
        )


_BRACED_ESCAPES = frozenset("pPN")  # \p{Letter}, \P{Lu}, \N{name}: one atom up to the brace (\g{, \x{… are not read so)
_BRACED_NAME = re.compile(r"\{[^{}()\[\]\\]*\}")  # what such a brace may hold: a name, not a pattern
_ESCAPE_UNITS = {"X": 4}  # \X, a grapheme cluster, builds about four units
_POSIX_CLASS = re.compile(r"\[:\^?\w+:\]")  # [:alpha:] in a class: one item of it, its "]" not the class's
_LARGEST_COUNT = 10**9  # a count beyond this is as good as infinite (and int() of 5,000 digits fails)


def unrolled_size(pattern: str) -> int:
    """About how many units the regex engine builds for ``pattern``: one per atom, a repeated atom or
    group counted as many times as its minimum count (``(?:a{1000}){1000}``: a million).

    Never below the engine's real size: alternatives add up, a character class ends at its first
    possible ``]``, and anything not understood (group syntax, comments) counts as atoms. A pattern under a
    flag where that would not hold (verbose mode, version 1, full case folding) raises VerboseMode."""
    groups = [[0, 0]]  # per open group: [its size so far, the size of its last atom]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        atom = 1
        if c == "\\":
            atom = _ESCAPE_UNITS.get(pattern[i + 1 : i + 2], 1)
            i += 2
            if i < n and pattern[i - 1] in _BRACED_ESCAPES and (name := _BRACED_NAME.match(pattern, i)):
                i = name.end()
        elif c == "[":
            i = _class_end(pattern, i)
        elif c == "(":
            if pattern.startswith("(?#", i):  # a comment, to its first unescaped ")": nothing in it is read
                i = _comment_end(pattern, i + 3)
                continue
            if flags := _FLAGS.match(pattern, i):
                for flag in _UNREAD_FLAGS:
                    if flag in flags.group(1):
                        raise VerboseMode(pattern, flag)
            groups.append([0, 0])
            i += 1
            continue
        elif c == ")":
            i += 1
            if len(groups) > 1:
                atom = groups.pop()[0]
            else:
                continue
        elif c == "{" and (count := _COUNT.match(pattern, i)) and (count.group(1) or count.group(3)):
            low = count.group(1)
            times = min(int(low), _LARGEST_COUNT) if low and len(low) <= 10 else (_LARGEST_COUNT if low else 0)
            group = groups[-1]
            if times > 1:
                group[0] += group[1] * (times - 1)
                group[1] *= times
            i = count.end()
            continue
        elif c in "*+?|":
            i += 1
            continue
        else:
            i += 1
        groups[-1][0] += atom
        groups[-1][1] = atom
    while len(groups) > 1:  # unclosed groups (the engine refuses the pattern anyway)
        size = groups.pop()[0]
        groups[-1][0] += size
    return groups[0][0]


def _class_end(pattern: str, start: int) -> int:
    """Where the character class opened at ``start`` ends at the earliest (a ``]`` first in the class is
    a character of it)."""
    i = start + 1
    if pattern.startswith("^", i):
        i += 1
    if pattern.startswith("]", i):
        i += 1
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
        elif posix := _POSIX_CLASS.match(pattern, i):
            i = posix.end()
        elif pattern[i] == "]":
            return i + 1
        else:
            i += 1
    return len(pattern)


def _comment_end(pattern: str, i: int) -> int:
    """Just past the ``)`` that ends a ``(?#…)`` comment whose text starts at ``i`` (a backslash escapes it)."""
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
        elif pattern[i] == ")":
            return i + 1
        else:
            i += 1
    return len(pattern)


def _shown(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
