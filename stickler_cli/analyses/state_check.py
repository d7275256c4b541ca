"""What the checks of a state file are built from: a bad value is a ``BadState`` at a JSON pointer.

A state file is untrusted input (run/state_file.py); each part of the state checks its own values
(``Part.check``, beside its analysis) with these, so that every refusal reads alike: the pointer of
the value, then what it must be and what it is.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from ..json_text import MAX_INTEGER, as_written
from ..schema.keywords import escape as token

SLACK = 1e-9  # relative rounding allowed where float sums of the same figures are compared


class BadState(Exception):
    """A value of a state file that cannot be right, at a JSON pointer."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(message)
        self.pointer = pointer or "/"
        self.message = message


def bad(pointer: str, message: str) -> BadState:
    return BadState(pointer, message)


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def is_int(value: Any) -> bool:
    return type(value) is int


def is_number(value: Any) -> bool:
    kind = type(value)
    return (kind is float and math.isfinite(value)) or (kind is int and -MAX_INTEGER <= value <= MAX_INTEGER)


def check_count(value: Any, pointer: str) -> int:
    """A non-negative integer, at most MAX_INTEGER."""
    if not is_int(value) or value < 0:
        raise bad(pointer, f"must be a non-negative integer, got {shown(value)}")
    if value > MAX_INTEGER:
        raise bad(pointer, f"must be at most 2^53 (9,007,199,254,740,992), got {shown(value)}")
    return value


def check_floats(values: list, pointer: str) -> Any:
    """``values`` (ints and floats, already typed) as a float64 array; an integer too large for one is located."""
    import numpy as np

    try:
        return np.asarray(values, dtype=np.float64)
    except OverflowError:
        k = next(k for k, v in enumerate(values) if not is_number(v))
        raise bad(f"{pointer}/{k}", f"must be a finite number, got {shown(values[k])}") from None


def check_number(value: Any, pointer: str, low: float | None = None, high: float | None = None) -> float:
    """A finite number, within [low, high] when given (with rounding slack)."""
    if not is_number(value):
        raise bad(pointer, f"must be a finite number, got {shown(value)}")
    slack = SLACK * max(1.0, abs(high or 0.0))
    if (low is not None and value < low - slack) or (high is not None and value > high + slack):
        raise bad(pointer, f"must be between {low:g} and {high:g}, got {as_written(value)}")
    return value


def check_object(value: Any, pointer: str, keys: Sequence[str] | None = None) -> dict:
    """A JSON object; with ``keys``, holding exactly those."""
    if not isinstance(value, dict):
        raise bad(pointer, f"must be an object, got {type(value).__name__}")
    if keys is not None:
        for key in keys:
            if key not in value:
                raise bad(pointer, f"missing key {key!r}")
        for key in value:
            if key not in keys:
                raise bad(f"{pointer}/{token(key)}", "unknown key")
    return value


def check_array(value: Any, pointer: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        raise bad(pointer, f"must be an array, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise bad(pointer, f"must hold {length} values, holds {len(value)}")
    return value


def check_counts(values: Any, pointer: str, length: int | None = None) -> list[int]:
    """An array of non-negative integers (checked in one pass, located only when one is bad)."""
    values = check_array(values, pointer, length)
    if not all(type(v) is int and 0 <= v <= MAX_INTEGER for v in values):
        for k, v in enumerate(values):
            check_count(v, f"{pointer}/{k}")
    return values


def check_numbers(
    values: Any, pointer: str, length: int | None = None, low: float | None = None, high: float | None = None
) -> list[float]:
    values = check_array(values, pointer, length)
    for k, v in enumerate(values):
        check_number(v, f"{pointer}/{k}", low, high)
    return values


def check_scalar(value: Any, pointer: str) -> None:
    """A document id: a string, a number, a boolean or null."""
    if value is not None and type(value) not in (str, int, float, bool):
        raise bad(pointer, f"must be a string, a number or null, got {type(value).__name__}")
