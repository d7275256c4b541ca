"""Unknown JSON Schema keywords: a likely typo of a real keyword is an error, anything else a warning.

JSON Schema ignores keywords it does not know, so ``"requird": ["id"]`` or
``"maxLenght": 10`` silently does nothing. ``stickler schema check`` walks
every subschema and reports each unknown keyword, with the keyword it
probably meant.
"""

from __future__ import annotations

import difflib
from typing import Any, Iterator


def escape(token: str) -> str:
    """A key as one JSON pointer token (RFC 6901: ``~`` as ``~0``, ``/`` as ``~1``)."""
    return token.replace("~", "~0").replace("/", "~1")


# Draft 7 and 2020-12, validation, applicators, annotations and core; draft 4's "id"; OpenAPI's
# "example" and "nullable", which schemas exported from OpenAPI carry.
KNOWN = frozenset(
    """
$schema $id $ref $anchor $dynamicRef $dynamicAnchor $vocabulary $comment $defs definitions $recursiveRef
$recursiveAnchor type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength
minLength pattern maxItems minItems uniqueItems maxContains minContains maxProperties minProperties required
dependentRequired dependencies properties patternProperties additionalProperties propertyNames items
prefixItems additionalItems contains unevaluatedItems unevaluatedProperties allOf anyOf oneOf not if then
else dependentSchemas format contentEncoding contentMediaType contentSchema title description default
deprecated readOnly writeOnly examples example nullable id
""".split()
)

# Draft 3's keywords, which later drafts dropped (a draft 3 `$schema` is refused: drafts.refused_draft): without
# one, a schema using them means what their successor says, and gets it as a "did you mean".
DRAFT3 = {"extends": "allOf", "divisibleBy": "multipleOf", "disallow": "not"}

REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")  # the keywords whose value is a reference to a schema

# Where subschemas sit, in any draft: in a keyword's object (by name), its array, or as its value.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_VALUES = (
    "items",
    "additionalProperties",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)


def subschemas(node: dict) -> Iterator[tuple[Any, str, str]]:
    """(child, its JSON pointer below ``node``, keyword) for every place of ``node`` a subschema may sit.

    The children are not checked: a child may be any JSON value (a draft 7 property
    dependency is an array of names)."""
    for name in _SCHEMA_MAPS:
        children = node.get(name)
        if isinstance(children, dict):
            for key, child in children.items():
                yield child, f"/{name}/{escape(key)}", name
    for name in _SCHEMA_LISTS:
        children = node.get(name)
        if isinstance(children, list):
            for k, child in enumerate(children):
                yield child, f"/{name}/{k}", name
    for name in _SCHEMA_VALUES:
        if name in node:
            child = node[name]
            if isinstance(child, list):  # draft 7 tuple items
                for k, c in enumerate(child):
                    yield c, f"/{name}/{k}", name
            else:
                yield child, f"/{name}", name


def unknown_keywords(schema: Any) -> Iterator[tuple[str, str, str | None]]:
    """(JSON pointer of the subschema, unknown keyword, the known keyword it is close to or None)."""
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, pointer = stack.pop()
        if not isinstance(node, dict):
            continue
        for key in node:
            if isinstance(key, str) and key not in KNOWN and not key.startswith("x-"):
                close = (
                    [DRAFT3[key]] if key in DRAFT3 else difflib.get_close_matches(key, sorted(KNOWN), n=1, cutoff=0.85)
                )
                yield pointer or "/", key, close[0] if close else None
        stack.extend((child, pointer + where) for child, where, _ in subschemas(node))
