"""``$ref`` resolution, by ``referencing`` through the schema's one registry (schema/registry.py).

``References`` is what the scoring plan (compiler.py), the compiled conformance checker
(conformance.py) and the load-time audit (audit.py) look references up with; jsonschema
resolves through the same registry. A reference therefore means what the JSON Schema
specification says, wherever it is followed: pointer tokens percent-decoded (RFC 6901 in a
URI fragment) and empty tokens kept, ``$id`` bases (absolute, relative, URNs), ``$anchor``,
draft 6/7 ``$id`` fragments, the drafts' own metaschemas, files beside the schema.

Each subschema is looked up with the resolver in force where it sits (its base URI), found by
walking every document once from where it is entered; the walk is iterative.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import SchemaError
from .keywords import escape, subschemas

__all__ = ["References", "escape", "lookup"]
MESSAGE_CHARACTERS = 300


def lookup(resolver: Any, ref: str, via: str) -> Any:
    """``resolver.lookup(ref)``, every failure a SchemaError at ``via`` (the keyword's pointer)."""
    from referencing.exceptions import NoSuchAnchor, PointerToNowhere, Unresolvable

    from .registry import refused, unreadable

    try:
        resolved = resolver.lookup(ref)
    except PointerToNowhere:
        raise SchemaError(f"reference {ref!r} points at nothing", via) from None
    except NoSuchAnchor:
        raise SchemaError(f"reference {ref!r} names an anchor that no subschema declares", via) from None
    except Unresolvable as exc:
        problem = unreadable(exc)
        raise SchemaError(problem.message(ref) if problem else refused(ref), via) from None
    except (LookupError, ValueError, TypeError, AttributeError):  # a pointer through a value that has no such part
        raise SchemaError(f"reference {ref!r} points at nothing", via) from None
    if not isinstance(resolved.contents, (dict, bool)):
        raise SchemaError(f"reference {ref!r} does not point at a schema object", via)
    return resolved


class References:
    """One schema's references: its registry, and the resolver and location of each subschema.

    A self-contained schema (schema/drafts.py) has no reference to follow: its registry, which imports
    jsonschema and ``referencing``, is built only if something asks for it (jsonschema checking a
    keyword the compiled checker lacks)."""

    def __init__(self, schema: dict, resources: Mapping[str, Any] | None = None, name: str | None = None) -> None:
        from .drafts import self_contained

        self.schema = schema
        self.resources: dict[str, Any] = dict(resources or {})
        self.name = name
        self.contained = not self.resources and self_contained(schema)
        self._at: dict[int, tuple[Any, str]] | None = None  # id(subschema) -> (its resolver, where it is)
        if not self.contained:
            self._build()

    spec: Any  # the ``referencing`` specification (draft) the schema is read under
    registry: Any
    base: str  # the URI the schema's own references resolve against (registry.base_uri)
    root: Any  # the resolver at the schema's root
    _BUILT = frozenset({"spec", "registry", "base", "root"})

    def __getattr__(self, name: str) -> Any:
        """``spec``, ``registry``, ``base`` and ``root``, built on first use."""
        if name not in self._BUILT:
            raise AttributeError(name)
        self._build()
        return self.__dict__[name]

    def _build(self) -> dict[int, tuple[Any, str]]:
        from .registry import base_uri, registry, specification

        if self._at is None:
            self.spec = specification(self.schema)
            self.registry = registry(self.schema, self.resources, self.name)
            self.base = base_uri(self.schema, self.name)
            self.root = self.registry.resolver(base_uri=self.base)
            self._at = {}
            self._enter(self.schema, self.root, "")
        return self._at

    @property
    def entry(self) -> Any:
        """The schema to give jsonschema: the schema itself when its base URI is the one jsonschema
        would take (its ``$id``, else ``""``); else a reference to it, so that jsonschema starts from
        the base URI the schema is held under here."""
        from .registry import own_id

        own = own_id(self.schema)
        if self.base == (own or ""):
            return self.schema
        entry: dict[str, Any] = {"$ref": self.base}
        if "$schema" in self.schema:
            entry["$schema"] = self.schema["$schema"]
        return entry

    def _enter(self, node: Any, resolver: Any, where: str) -> None:
        """Record the resolver and location of ``node`` and of every subschema below it not yet seen."""
        at = self._build()
        stack = [(node, resolver, where)]
        while stack:
            current, resolver, where = stack.pop()
            if not isinstance(current, dict) or id(current) in at:
                continue
            at[id(current)] = (resolver, where)
            for child, below, _ in subschemas(current):
                if isinstance(child, dict):
                    try:
                        inner = resolver.in_subresource(self.spec.create_resource(child))
                    except (TypeError, ValueError, AttributeError):  # an $id that is no URI (refused by the audit)
                        inner = resolver
                    stack.append((child, inner, where + below))

    def resolver(self, node: Any) -> Any:
        """The resolver in force at ``node`` (the root's for a subschema made up by merging)."""
        found = self._build().get(id(node))
        return self.root if found is None else found[0]

    def where(self, node: Any) -> str | None:
        """Where ``node`` is: a JSON pointer into the schema, or ``document#pointer``; None if never met."""
        found = self._build().get(id(node))
        return None if found is None else (found[1] or "/")

    def follow(self, node: dict, keyword: str = "$ref", pointer: str | None = None) -> tuple[Any, str]:
        """(the subschema ``node[keyword]`` refers to, where it is); a SchemaError at the keyword's pointer
        (``pointer``, else where ``node`` is) when it refers to nothing."""
        from .registry import locate

        ref = node[keyword]
        at = self._build().get(id(node))
        here = at[1] if at is not None else ""
        via = f"{here if pointer is None else pointer}/{keyword}"
        if not isinstance(ref, str):
            raise SchemaError(f"'{keyword}' must be a string, got {ref!r}"[:MESSAGE_CHARACTERS], via)
        resolved = lookup(self.resolver(node), ref, via)
        target = resolved.contents
        self._enter(target, resolved.resolver, locate(here, ref))
        return target, (self.where(target) or locate(here, ref))

    def merged(self, node: dict, pointer: str) -> dict:
        """``node`` merged with whatever its ``$ref`` chain points at.

        Keywords written beside ``$ref`` win over the referenced ones, so a property can reuse a
        definition and still set its own weight or threshold. The chain is followed in a loop: a
        chain of a thousand references is no deeper than one.
        """
        if "$ref" not in node:
            return node
        chain = [node]
        refs: list[str] = []
        targets: set[int] = set()
        current, where = node, pointer
        while isinstance(current, dict) and "$ref" in current:
            ref = current["$ref"]
            target, location = self.follow(current, "$ref", where)
            refs.append(str(ref))
            if id(target) in targets:
                raise SchemaError(f"reference cycle: {' -> '.join(refs)}; recursive schemas cannot be compared", where)
            if not isinstance(target, dict):
                raise SchemaError(f"reference {ref!r} does not point at a schema object", where + "/$ref")
            targets.add(id(target))
            chain.append(target)
            current, where = target, location
        merged = chain[-1]
        for outer in reversed(chain[:-1]):  # the innermost target first, each referring node's own keywords over it
            merged = {**merged, **{k: v for k, v in outer.items() if k != "$ref"}}
        return merged
