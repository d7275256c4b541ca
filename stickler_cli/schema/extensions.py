"""The x-aws-stickler-* vocabulary: names, where they belong, how their values are checked."""

from __future__ import annotations

import difflib
import math
from typing import Any

from ..errors import SchemaError
from ..json_text import as_written

PREFIX = "x-aws-stickler-"

FIELD_KEYS = {
    "comparator",
    "comparator-config",
    "threshold",
    "weight",
    "clip-under-threshold",
    "aggregate",
}
MODEL_KEYS = {"model-name", "match-threshold", "infer-unspecified"}
# How a list's items are paired: by the values of key properties (an array of objects), or by position (any array).
LIST_KEYS = {"match-key", "match-order"}
AUTO = "auto"  # "x-aws-stickler-comparator": "auto" asks for the inferred comparator (one property)
ALL_KEYS = {PREFIX + k for k in FIELD_KEYS | MODEL_KEYS | LIST_KEYS}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_keys(node: dict, pointer: str) -> None:
    """Reject misspelled extension keys, naming the likely intended one."""
    for key in node:
        if not isinstance(key, str) or not key.startswith("x-") or key in ALL_KEYS:
            continue
        close = difflib.get_close_matches(key, sorted(ALL_KEYS), n=1, cutoff=0.8)
        if key.startswith(PREFIX) or close:
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            known = ", ".join(sorted(ALL_KEYS))
            raise SchemaError(f"unknown extension {key!r}{hint}; known: {known}", pointer)


# A weight's bounds: ratios up to 10^12 between fields, and sums of them that float64 adds without overflow
# or underflow (5e-324 weights made every score 1.0, 1e308 weights made it NaN). docs/parity.md row 45.
WEIGHT_RANGE = (1e-6, 1e6)


def refuse_field_keys(pointer: str, where: str, *nodes: dict) -> None:
    """Refuse a property key (FIELD_KEYS) on a schema that is not a property, where it would not be read: the
    root object, a list's ``items``. ``where`` completes "belongs on …"; keys are tried in name order."""
    for key in sorted(FIELD_KEYS | LIST_KEYS):
        if any(PREFIX + key in node for node in nodes):
            raise SchemaError(f"'{PREFIX}{key}' belongs on {where}", pointer)


def get(node: dict, name: str, pointer: str) -> Any:
    """The checked value of extension ``name`` in ``node``, or None when absent."""
    key = PREFIX + name
    if key not in node:
        return None
    value = node[key]
    where = f"{pointer.rstrip('/')}/{key}"
    if name in ("threshold", "match-threshold"):
        if not _is_number(value) or not 0.0 <= value <= 1.0:
            raise SchemaError(f"must be a number from 0.0 to 1.0, got {as_written(value)}", where)
        return float(value)
    if name == "weight":
        if not _is_number(value) or not WEIGHT_RANGE[0] <= value <= WEIGHT_RANGE[1]:
            raise SchemaError(f"must be a number from 0.000001 to 1,000,000, got {as_written(value)}", where)
        return float(value)
    if name in ("clip-under-threshold", "aggregate", "infer-unspecified"):
        if not isinstance(value, bool):
            raise SchemaError(f"must be true or false, got {as_written(value)}", where)
        return value
    if name in ("comparator", "model-name"):
        if not isinstance(value, str) or not value.strip():
            raise SchemaError(f"must be a non-empty string, got {as_written(value)}", where)
        return value
    if name == "comparator-config":
        if not isinstance(value, dict):
            raise SchemaError(f"must be an object of comparator options, got {as_written(value)}", where)
        return value
    if name == "match-key":
        keys = [value] if isinstance(value, str) else value
        if (
            not isinstance(keys, list)
            or not keys
            or not all(isinstance(k, str) and k for k in keys)
            or len(set(keys)) != len(keys)
        ):
            raise SchemaError(
                f"must be a property name or a non-empty list of distinct property names, got {as_written(value)}",
                where,
            )
        return tuple(keys)
    if name == "match-order":
        if value != "position":
            raise SchemaError(f'must be "position", got {as_written(value)}', where)
        return value
    raise AssertionError(name)
