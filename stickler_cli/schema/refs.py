"""``$ref`` resolution: local pointers, and files beside the schema inlined first.

``resolve`` follows local references (``#/$defs/...``, ``#/definitions/...``,
any ``#/`` pointer). ``bundle``, for a schema read from a file, inlines the
files its references name (``common.json#/$defs/Address``), so that only local
references remain. A reference never fetches anything over the network, and a
file reference must stay inside the schema's directory (symbolic links
resolved). Cycles, within a file or across files, are reported with the chain of
references that forms them: a recursive schema cannot be compiled into a
finite plan.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from ..errors import SchemaError

_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # http:, https:, urn:, file:…
FILES = "$defs"  # where bundled files go, under "file:<path relative to the schema's directory>"


def bundle(schema: dict, directory: Path) -> tuple[dict, tuple[Path, ...]]:
    """(``schema`` with every file it references inlined under ``$defs``, the files read)."""
    top = directory.resolve()
    files: dict[str, Any] = {}

    def load(name: str, here: Path, pointer: str) -> str:
        target = (here / name).resolve()
        if not target.is_relative_to(top):
            raise SchemaError(f"reference to {name!r} leaves the schema's directory; "
                              "only files beside the schema (or below it) are read", pointer)
        key = "file:" + target.relative_to(top).as_posix()
        if key not in files:
            try:
                document = orjson.loads(target.read_bytes())
            except FileNotFoundError:
                raise SchemaError(f"referenced file {name!r} not found", pointer) from None
            except OSError as exc:
                raise SchemaError(f"referenced file {name!r} cannot be read: {exc.strerror}", pointer) from None
            except orjson.JSONDecodeError as exc:
                raise SchemaError(f"referenced file {name!r} is not valid JSON: {exc}", pointer) from None
            if not isinstance(document, dict):
                raise SchemaError(f"referenced file {name!r} does not hold a schema object", pointer)
            files[key] = document  # before its own references: a cycle of files loads each once
            rewrite(document, key, target.parent)
        return key

    def rewrite(document: Any, key: str | None, here: Path) -> None:
        stack: list[tuple[Any, str]] = [(document, "")]
        while stack:
            node, pointer = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str):
                    node["$ref"] = local(ref, key, here, pointer)
                stack.extend((value, f"{pointer}/{escape(name)}") for name, value in node.items() if name != "$ref")
            elif isinstance(node, list):
                stack.extend((value, f"{pointer}/{k}") for k, value in enumerate(node))

    def local(ref: str, key: str | None, here: Path, pointer: str) -> str:
        where = f"{pointer}/$ref" if key is None else f"{key[5:]}: {pointer}/$ref"
        if _REMOTE.match(ref):
            raise SchemaError(f"remote reference {ref!r}: references are never fetched; "
                              "copy the schema beside this one and refer to the file", where)
        name, _, fragment = ref.partition("#")
        if name:
            key = load(name, here, where)
        if key is None:
            return ref
        return f"#/{FILES}/{escape(key)}{fragment}"

    rewrite(schema, None, top)
    if files:
        existing = schema.get(FILES)
        schema[FILES] = {**(existing if isinstance(existing, dict) else {}), **files}
    return schema, tuple(top / key.removeprefix("file:") for key in files)


def escape(token: str) -> str:
    """A key as one JSON pointer token (RFC 6901: ``~`` as ``~0``, ``/`` as ``~1``)."""
    return token.replace("~", "~0").replace("/", "~1")


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
    can reuse a definition and still set its own weight or threshold. The chain is
    followed in a loop: a chain of a thousand references is no deeper than one.
    """
    if "$ref" not in node:
        return node, pointer
    chain = [node]
    refs = list(seen)
    current, where = node, pointer
    while "$ref" in current:
        ref = current["$ref"]
        if ref in refs:
            cycle = " -> ".join(map(str, (*refs, ref)))
            raise SchemaError(f"reference cycle: {cycle}; recursive schemas cannot be compared", where)
        refs.append(ref)
        current, where = follow(root, ref, where)
        chain.append(current)
    merged = chain[-1]
    for outer in reversed(chain[:-1]):  # the innermost target first, each referring node's own keywords over it
        merged = {**merged, **{k: v for k, v in outer.items() if k != "$ref"}}
    return merged, pointer
