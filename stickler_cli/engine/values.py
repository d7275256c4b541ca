"""What a JSON value means to the engine: rich values unwrapped, what counts as null."""

from __future__ import annotations

from typing import Any


def unwrap(value: Any) -> tuple[Any, Any]:
    """(value, confidence) of a possibly rich value ``{"_value": v, "_confidence": c}``."""
    if type(value) is dict and "_value" in value:
        return value["_value"], value.get("_confidence")
    return value, None


EMPTIABLE = (str, list, dict)  # the types whose empty value is null (the hot loops test it inline)


def is_null(value: Any) -> bool:
    """None, "", {} and [] are null (a whitespace string is a value)."""
    if value is None:
        return True
    t = type(value)
    return (t is str or t is list or t is dict) and not value


def is_null_list(value: Any) -> bool:
    return value is None or (type(value) is list and not value)


def as_list(value: Any) -> list:
    """A list field's items; a lone value where a list belongs is a one-item list."""
    return value if type(value) is list else [value]
