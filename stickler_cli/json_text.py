"""A data value as compact JSON text, whatever the data holds: orjson writes it, and Python's json
writes what orjson cannot (integers beyond 64 bits, nesting past orjson's depth). One rule for the
reports, the failure samples and the state files, so that a value reads the same everywhere."""

from __future__ import annotations

import json
from typing import Any

import orjson


def compact_json(value: Any) -> str | None:
    """``value`` as compact JSON (strings quoted); None when it is nested too deeply for Python to write."""
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:  # orjson.JSONEncodeError included
        try:
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
        except (ValueError, RecursionError):  # beyond 4,300 digits, or deeper than Python writes
            return None
