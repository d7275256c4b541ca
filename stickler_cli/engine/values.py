"""What a JSON value means to the engine: rich values unwrapped, what counts as null."""

from __future__ import annotations

from typing import Any, Iterable

from ..json_text import compact_json

MISSING = object()  # a key an object does not give (a default may stand in for it)


def confidence_value(conf: Any) -> float | None:
    """A ``_confidence`` as a figure: a number from 0 to 1 (a boolean is not one), as a float; None for
    anything else (none given, or malformed: each caller reports it or ranks the value as unconfident)."""
    if type(conf) is float:  # the usual case first
        return conf if 0.0 <= conf <= 1.0 else None
    if isinstance(conf, bool) or not isinstance(conf, (int, float)):
        return None
    try:
        number = float(conf)
    except OverflowError:  # an integer beyond float64: far above 1
        return None
    return number if 0.0 <= number <= 1.0 else None


def unwrap(value: Any, rich: bool = True) -> tuple[Any, Any]:
    """(value, confidence) of a possibly rich value ``{"_value": v, "_confidence": c}``; ``rich`` False (a field
    whose object declares ``_value``: FieldPlan.rich): the value as it is, data."""
    if rich and type(value) is dict and "_value" in value:
        return value["_value"], value.get("_confidence")
    return value, None


def unwrapped(values: Iterable, default: Any = MISSING) -> list:
    """Each value with its rich wrapper taken off (``{"_value": v, ...}`` gives v): ``unwrap`` of many
    values at C speed, the one the columns of both engine paths use. With ``default``, each ``MISSING``
    (a key not given) becomes the default, which is never unwrapped."""
    if default is MISSING:
        return [v["_value"] if type(v) is dict and "_value" in v else v for v in values]
    return [default if v is MISSING else v["_value"] if type(v) is dict and "_value" in v else v for v in values]


def is_rich(value: Any) -> bool:
    """Whether ``value`` is a rich value ``{"_value": v, ...}`` (for a field whose object declares ``_value``,
    FieldPlan.rich False, such an object is data: its callers ask the plan first)."""
    return type(value) is dict and "_value" in value


def without_wrappers(value: Any, rich: bool = True) -> Any:
    """``value`` with every rich value ``{"_value": v, ...}`` replaced by ``v``, at every depth:
    what a comparison row shows (explaining only; iterative, as records may nest 1,024 deep). ``rich``
    False (FieldPlan.rich: an object declaring ``_value``): the value itself, or a list's items, are data."""
    if type(value) is not dict and type(value) is not list:
        return value
    out: list[Any] = [None]
    data = () if rich else (id(value), *(id(v) for v in value)) if type(value) is list else (id(value),)
    stack: list[tuple[Any, Any, Any]] = [(value, out, 0)]
    while stack:
        item, into, at = stack.pop()
        while type(item) is dict and "_value" in item and id(item) not in data:
            item = item["_value"]
        if type(item) is dict:
            into[at] = copy = dict.fromkeys(item)  # keys in their order, values filled as they come
            stack.extend((v, copy, k) for k, v in item.items())
        elif type(item) is list:
            into[at] = copy = [None] * len(item)
            stack.extend((v, copy, k) for k, v in enumerate(item))
        else:
            into[at] = item
    return out[0]


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


# The older rich-value shape, {"value": v, "confidence": c}, which stickler-eval 1.0.0 still reads
# (deprecated there): exactly these two keys. An object with other keys beside them is data.
OLDER_KEYS = frozenset(("value", "confidence"))


def _older(value: Any) -> bool:
    return type(value) is dict and len(value) == 2 and value.keys() == OLDER_KEYS


def adopt_older_shape(model: Any, record: dict) -> int:
    """Rewrite in place each value of the older rich shape ``{"value": v, "confidence": c}`` that
    stands where ``model`` (a ModelPlan) puts a field, list item included, as the rich value
    ``{"_value": v, "_confidence": c}``; return how many were rewritten. Where the schema declares
    an object with a ``value`` or ``confidence`` property, such an object is that object's data."""
    from ..plan import Kind

    rewritten = 0
    stack = [(model, record)]
    while stack:
        plan, obj = stack.pop()
        for f in plan.fields:
            value = obj.get(f.key)
            if value is None:
                continue
            kind, inner = f.kind, f.model
            data = inner is not None and any(g.key in OLDER_KEYS for g in inner.fields)
            if _older(value) and not data:
                obj[f.key] = value = {"_value": value["value"], "_confidence": value["confidence"]}
                rewritten += 1
            value = unwrap(value, f.rich)[0]
            if kind is Kind.OBJECT:
                if type(value) is dict:
                    stack.append((inner, value))
            elif type(value) is list and kind is not Kind.PRIMITIVE:
                for i, item in enumerate(value):
                    if _older(item) and not data:
                        value[i] = item = {"_value": item["value"], "_confidence": item["confidence"]}
                        rewritten += 1
                    if kind is Kind.OBJECT_LIST:
                        item = unwrap(item, f.rich)[0]
                        if type(item) is dict:
                            stack.append((inner, item))
    return rewritten


def pair_key(a: Any, b: Any) -> str | None:
    """The distinct-pair key of a judged field's (gt, pred) values: both as compact JSON (json_text), so
    that ``1`` and ``"1"``, ``true`` and ``1`` stay apart; None when a value is nested too deeply to write."""
    return compact_json([a, b])
