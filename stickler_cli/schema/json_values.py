"""JSON values compared as JSON Schema compares them (``enum``, ``const``, ``uniqueItems``): 1 equals
1.0, true is no number, arrays and objects by value; and hashed so, so that a comparison against
many values costs one lookup, not one comparison per value."""

from __future__ import annotations

from typing import Any, Iterable


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema's enum and const mean it: 1 == 1.0, but true != 1."""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta is list or tb is list:
        return ta is tb and len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if ta is dict or tb is dict:
        return ta is tb and a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if ta is str or tb is str:
        return ta is tb and a == b
    return a == b


_BOOL, _LIST, _OBJECT = object(), object(), object()  # tags no JSON value can equal


def json_key(value: Any) -> Any:
    """A hashable stand-in for ``value``: two JSON values have equal keys exactly when ``json_equal``
    says they are equal (1 and 1.0 alike, true and 1 not, arrays and objects by value). TypeError
    for what is not JSON."""
    t = type(value)
    if t is str or t is int or value is None:
        return value
    if t is float:
        return value if value == value else object()  # NaN equals nothing, itself included
    if t is bool:
        return (_BOOL, value)
    if t is list:
        return (_LIST, tuple(json_key(v) for v in value))
    if t is dict:
        return (_OBJECT, frozenset((k, json_key(v)) for k, v in value.items()))
    raise TypeError(f"not a JSON value: {t.__name__}")


def unique_items(validator: Any, unique: Any, instance: Any, schema: dict) -> Iterable:
    """``uniqueItems`` by hash. jsonschema sorts the items, and when they cannot be sorted (mixed
    types, objects) compares them pair by pair: an enum of 30,000 mixed values in a draft-04 schema,
    whose metaschema asks for unique enum values, took minutes to check. Equal as ``json_equal`` says."""
    if not unique or not validator.is_type(instance, "array"):
        return
    import jsonschema

    seen: set = set()
    for position, item in enumerate(instance):
        try:
            key = json_key(item)
        except (TypeError, RecursionError):  # not JSON, or nested too deeply to hash: jsonschema's own way
            yield from jsonschema._keywords.uniqueItems(validator, unique, instance, schema)
            return
        if key in seen:
            shown = repr(item) if len(repr(item)) <= 80 else repr(item)[:79] + "…"
            yield jsonschema.exceptions.ValidationError(
                f"has non-unique elements (item {position}, {shown}, appears before it)"
            )
            return
        seen.add(key)
