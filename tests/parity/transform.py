"""Schema rewrites that make each documented default difference explicit.

Each rewrite corresponds to one entry of docs/parity.md, and nothing else is
changed, so that every remaining count and score must agree with the oracle.

- for_us: ExactComparator without explicit options gets stickler-eval's strict
  options (parity.md: "ExactComparator default"), also where it is the default
  (enum, const, format uri/uuid/time).
- for_oracle: our defaults written out (parity.md: "clip-under-threshold
  default"; not on a property whose configuration is inferred, where both sides
  infer the same clip), ``required`` dropped (parity.md: "Records missing a required
  property"), our own config keys removed.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

CLIP = "x-aws-stickler-clip-under-threshold"
COMPARATOR = "x-aws-stickler-comparator"
CONFIG = "x-aws-stickler-comparator-config"


def _properties(node: Any, visit: Callable[[dict], None]) -> None:
    """Call ``visit`` once on every property schema, at any depth, including $defs."""
    if isinstance(node, list):
        for item in node:
            _properties(item, visit)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            for sub in value.values():
                if isinstance(sub, dict):
                    visit(sub)
                _properties(sub, visit)
        else:
            _properties(value, visit)


def _is_object_list(prop: dict) -> bool:
    items = prop.get("items")
    return (
        prop.get("type") == "array"
        and isinstance(items, dict)
        and (items.get("type") == "object" or "properties" in items or "$ref" in items)
    )


def for_us(schema: dict) -> dict:
    out = copy.deepcopy(schema)

    def visit(prop: dict) -> None:
        items = prop.get("items") if isinstance(prop.get("items"), dict) else {}
        enum_like = any(k in node for node in (prop, items) for k in ("enum", "const"))
        enum_like = enum_like or prop.get("format") in ("uri", "uuid", "time")  # Exact by default too
        if prop.get(COMPARATOR) == "ExactComparator" or (enum_like and COMPARATOR not in prop):
            config = prop.setdefault(CONFIG, {})
            config.setdefault("case_sensitive", True)
            config.setdefault("normalize", False)

    _properties(out, visit)
    return out


INFER = "x-aws-stickler-infer-unspecified"


def _inferred(schema: dict) -> set[int]:
    """The ids of the property schemas whose comparator is inferred (x-aws-stickler-infer-unspecified in
    scope and no comparator named, or comparator "auto"). References are not followed."""
    found: set[int] = set()

    def model(node: Any, infer: bool) -> None:
        if not isinstance(node, dict):
            return
        infer = node.get(INFER, infer)
        for prop in (node.get("properties") or {}).values():
            if not isinstance(prop, dict):
                continue
            items = prop.get("items") if isinstance(prop.get("items"), dict) else None
            if prop.get("properties"):
                model(prop, infer)
            elif items is not None and items.get("properties"):
                model(items, infer)
            elif prop.get(COMPARATOR) == "auto" or (infer and COMPARATOR not in prop):
                found.add(id(prop))

    model(schema, False)
    return found


def for_oracle(schema: dict) -> dict:
    out = copy.deepcopy(schema)
    inferred = _inferred(out)

    def visit(prop: dict) -> None:
        if not _is_object_list(prop) and id(prop) not in inferred:
            prop.setdefault(CLIP, False)
        config = prop.get(CONFIG)
        if isinstance(config, dict) and prop.get(COMPARATOR) == "ExactComparator":
            config.pop("normalize", None)

    _properties(out, visit)

    def drop_required(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("required"), list):
                del node["required"]
            for value in node.values():
                drop_required(value)
        elif isinstance(node, list):
            for value in node:
                drop_required(value)

    drop_required(out)
    return out
