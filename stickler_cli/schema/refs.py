"""Local ``$ref`` resolution (``#/$defs/...``, ``#/definitions/...``, any ``#/`` pointer).

Never touches the network or the file system. Cycles are reported with the chain
of references that forms them, because a recursive schema cannot be compiled
into a finite plan.
"""

from __future__ import annotations

from typing import Any

from ..errors import SchemaError


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def follow(root: dict, ref: str, pointer: str) -> tuple[dict, str]:
    """The node ``ref`` points at, and its JSON pointer."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise SchemaError(
            f"only local references ('#/$defs/Name') are supported, got {ref!r}", pointer + "/$ref"
        )
    target: Any = root
    path = ref[1:]
    for token in [t for t in path.split("/") if t] if path else []:
        key = _unescape(token)
        if isinstance(target, dict) and key in target:
            target = target[key]
        elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
            target = target[int(key)]
        else:
            raise SchemaError(f"reference {ref!r} points at nothing", pointer + "/$ref")
    if not isinstance(target, dict):
        raise SchemaError(f"reference {ref!r} does not point at a schema object", pointer + "/$ref")
    return target, path or "/"


def resolve(root: dict, node: dict, pointer: str, seen: tuple[str, ...] = ()) -> tuple[dict, str]:
    """Merge ``node`` with whatever its ``$ref`` chain points at.

    Keywords written beside ``$ref`` win over the referenced ones, so a property
    can reuse a definition and still set its own weight or threshold.
    """
    if "$ref" not in node:
        return node, pointer
    ref = node["$ref"]
    if ref in seen:
        chain = " -> ".join((*seen, ref))
        raise SchemaError(f"reference cycle: {chain}; recursive schemas cannot be compared", pointer)
    target, target_pointer = follow(root, ref, pointer)
    resolved, _ = resolve(root, target, target_pointer, (*seen, ref))
    merged = {**resolved, **{k: v for k, v in node.items() if k != "$ref"}}
    return merged, pointer
