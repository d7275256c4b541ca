"""A data value as compact JSON text, whatever the data holds: orjson writes it, and Python's json
writes what orjson cannot (integers beyond 64 bits, nesting past orjson's depth) or would write
wrongly (NaN and infinities, which orjson writes as null: "null against null, a mismatch" is not
what the data said). One rule for the reports, the failure samples and the state files, so that a
value reads the same everywhere."""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

# How JSON outputs, which have no such numbers, name the numbers the data may hold (as Python's json
# and stickler read them: docs/trust.md, "Trust").
NON_FINITE_NAMES = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}

# The largest integer a state file may hold anywhere (analyses.state_check, cosmetic.check_state): every integer up
# to it is exact in float64, in which counts are added and rates computed, and no run counts that far. A state is
# untrusted: 10^400 (Python's json reads it) was an OverflowError, exit 3.
MAX_INTEGER = 2**53

BBOX_KEY = b'"_bbox"'  # a box's key as a raw line writes it (unescaped): the reader and engine/boxes.py look for it
# The key of a ground truth's acceptable values (docs/ground-truth.md), looked for as BBOX_KEY is.
ALTERNATIVES_KEY = b'"_alternatives"'


def compact_json(value: Any) -> str | None:
    """``value`` as compact JSON (strings quoted; NaN and infinities as ``NaN``, ``Infinity`` and
    ``-Infinity``, as the data spelled them); None when it is nested too deeply for Python to write."""
    try:
        text = orjson.dumps(value, default=str)
    except TypeError:  # orjson.JSONEncodeError included
        return _python_json(value)
    if b"null" in text and holds_non_finite(value):
        return _python_json(value)
    return text.decode()


def as_written(value: Any, limit: int = 60) -> str:
    """A value from the user's JSON (a schema, a state file, a record) as JSON writes it, for a message: ``true``,
    ``"yes"``, ``Infinity``, not Python's ``True``, ``'yes'``, ``inf``; cut past ``limit`` characters."""
    text = compact_json(value)
    if text is None:
        return f"<{type(value).__name__} too large to show>"
    return text if len(text) <= limit else f"{text[:limit]}…"


def _python_json(value: Any) -> str | None:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, RecursionError):  # beyond 4,300 digits, or deeper than Python writes
        return None


def holds_non_finite(value: Any) -> bool:
    """Whether ``value`` holds NaN or an infinity at any depth (iterative: records nest 1,024 deep)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            if not math.isfinite(item):
                return True
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def named_non_finite(value: Any) -> Any:
    """``value`` with NaN and infinities at any depth as the strings "NaN", "Infinity" and "-Infinity":
    a data value as a JSON output carries it (JSON has no such numbers, and null would say "missing")."""
    if not holds_non_finite(value):
        return value
    out: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, out, 0)]
    while stack:
        item, into, at = stack.pop()
        kind = type(item)
        if kind is float and not math.isfinite(item):
            into[at] = NON_FINITE_NAMES[repr(item)]
        elif kind is dict:
            into[at] = copy = dict.fromkeys(item)
            stack.extend((v, copy, k) for k, v in item.items())
        elif kind is list:
            into[at] = copy = [None] * len(item)
            stack.extend((v, copy, k) for k, v in enumerate(item))
        else:
            into[at] = item
    return out[0]


# -- a whole report or state as JSON bytes -----------------------------------------------------------------------


def dumps(report: dict[str, Any], indent: bool = True) -> bytes:
    """JSON, indented unless asked not to be. Values read from the data may hold integers beyond
    64 bits, which orjson cannot write: Python's json writes those (exactly); NaN and infinities
    become null either way."""
    try:
        return orjson.dumps(report, option=(orjson.OPT_INDENT_2 if indent else 0) | orjson.OPT_NON_STR_KEYS) + b"\n"
    except TypeError:
        # Compact as orjson writes it when not indented (a --non-matches file keeps one style throughout).
        return (
            json.dumps(
                _finite(report),
                indent=2 if indent else None,
                separators=None if indent else (",", ":"),
                ensure_ascii=False,
                default=str,
            ).encode()
            + b"\n"
        )


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


def holds_key(value: Any, key: str) -> bool:
    """Whether a parsed value holds ``key`` in an object at any depth (iterative: records nest deep)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if key in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
