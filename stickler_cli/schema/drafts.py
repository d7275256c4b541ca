"""Schemas read without jsonschema: the drafts' facts a self-contained schema needs, written out.

Importing jsonschema, ``referencing`` and the metaschemas costs 35-45 ms, an eighth of a short
``stickler eval``. Most schemas need none of it: they name draft 7, 2019-09 or 2020-12 (or no draft)
and refer to nothing. Such a schema is *self-contained*: no object anywhere in it holds a key that
names or marks a location (``$ref``, ``$id``, ``$anchor``…, a ``$schema`` below the root). For it:

- there is nothing to gather beside it and no reference to resolve (registry.gather, audit's graph);
- the keywords each draft applies (``KEYWORDS``) and the drafts' URIs (``DRAFTS``) are known here;
- ``plainly_valid`` checks it against its draft's metaschema for the keywords schemas use in practice.
  It only ever says "valid" when the metaschema would: anything it is not sure of (a keyword's unusual
  form, an integer written 1.0) goes to jsonschema, whose error message the user then gets.

tests/schema/test_schema_drafts.py holds each table equal to jsonschema's, and ``plainly_valid`` to
jsonschema's verdict on the JSON Schema Test Suite's schemas and on generated ones.
"""

from __future__ import annotations

import re
from typing import Any

from .keywords import REFERENCES

# $schema URI -> the draft jsonschema reads it as (validators.validator_for); with no $schema, 2020-12.
DRAFTS = {
    "http://json-schema.org/draft-07/schema#": "draft7",
    "http://json-schema.org/draft-07/schema": "draft7",
    "https://json-schema.org/draft/2019-09/schema": "draft2019-09",
    "https://json-schema.org/draft/2019-09/schema#": "draft2019-09",
    "https://json-schema.org/draft/2020-12/schema": "draft2020-12",
    "https://json-schema.org/draft/2020-12/schema#": "draft2020-12",
}
DEFAULT = "draft2020-12"
# Drafts before 6 (3 and 4 in jsonschema, 0 to 2 never used): keywords of another meaning (boolean `required`,
# `extends`, `divisibleBy`, boolean `exclusiveMinimum`) that the compiler and the checkers do not read. Refused.
_BEFORE_SIX = re.compile(r"^https?://json-schema\.org/draft-0([0-4])/(?:hyper-)?schema#?$")
PLAIN_DEPTH = 64  # the default --limit schema-depth: a deeper schema is checked by jsonschema, as before

_COMMON = frozenset(
    """
$ref additionalProperties allOf anyOf const contains enum exclusiveMaximum exclusiveMinimum format if items
maxItems maxLength maxProperties maximum minItems minLength minProperties minimum multipleOf not oneOf pattern
patternProperties properties propertyNames required type uniqueItems
""".split()
)
_LATER = frozenset("dependentRequired dependentSchemas unevaluatedItems unevaluatedProperties".split())
# The keywords jsonschema applies under each draft (its validator class's VALIDATORS); the rest it ignores.
KEYWORDS = {
    "draft7": _COMMON | {"additionalItems", "dependencies"},
    "draft2019-09": _COMMON | _LATER | {"$recursiveRef", "additionalItems"},
    "draft2020-12": _COMMON | _LATER | {"$dynamicRef", "prefixItems"},
}
LEGACY = frozenset({"draft7"})  # drafts in which $ref hides the keywords beside it

# Keys that name or mark a location: a schema holding one anywhere is not self-contained.
LOCATING = frozenset({*REFERENCES, "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary", "$schema"})

# How the three metaschemas constrain each keyword's value (subschemas are checked as schemas again).
_SCHEMA = frozenset(
    """
additionalItems additionalProperties contains propertyNames if then else not unevaluatedItems
unevaluatedProperties contentSchema items
""".split()
)
_SCHEMA_MAP = frozenset("properties patternProperties definitions $defs dependentSchemas".split())
_SCHEMA_ARRAY = frozenset("allOf anyOf oneOf prefixItems".split())
_STRING = frozenset("$comment title description format contentMediaType contentEncoding pattern".split())
_NUMBER = frozenset("maximum exclusiveMaximum minimum exclusiveMinimum".split())
_COUNT = frozenset("maxLength minLength maxItems minItems maxProperties minProperties maxContains minContains".split())
_FLAG = frozenset("uniqueItems readOnly writeOnly deprecated".split())
_ANYTHING = frozenset("default const".split())
_SIMPLE_TYPES = frozenset("array boolean integer null number object string".split())
# Every keyword the metaschemas constrain, those above and these: a key outside all of them is free.
CONSTRAINED = (
    _SCHEMA
    | _SCHEMA_MAP
    | _SCHEMA_ARRAY
    | _STRING
    | _NUMBER
    | _COUNT
    | _FLAG
    | _ANYTHING
    | LOCATING
    | {"examples", "enum", "required", "type", "dependentRequired", "dependencies", "multipleOf"}
)


def draft(schema: dict) -> str | None:
    """The draft a schema is read under, when it is one of ``DRAFTS`` (or names none); else None."""
    if "$schema" not in schema:
        return DEFAULT
    uri = schema["$schema"]
    return DRAFTS.get(uri) if isinstance(uri, str) else None


def refused_draft(uri: Any) -> str | None:
    """Why a ``$schema`` naming a draft before 6 is refused (a one-line reason), None for any other value."""
    found = _BEFORE_SIX.match(uri) if isinstance(uri, str) else None
    if found is None:
        return None
    return f"names draft {found.group(1)}, which stickler does not read: drafts 6, 7, 2019-09 and 2020-12 only"


def self_contained(schema: Any) -> bool:
    """Whether ``schema`` (an object) names one of ``DRAFTS`` or none, and no object anywhere in it (values
    of ``enum`` and ``default`` included: looking everywhere is simpler and only ever more careful) holds a
    ``LOCATING`` key, the root's ``$schema`` aside."""
    if not isinstance(schema, dict) or draft(schema) is None:
        return False
    stack: list[Any] = [v for k, v in schema.items() if k != "$schema"]
    if not LOCATING.isdisjoint(k for k in schema if k != "$schema"):
        return False
    seen: set[int] = set()  # from Python, a value may be shared, or hold itself: each is looked at once
    while stack:
        node = stack.pop()
        if type(node) in (dict, list):
            if id(node) in seen:
                continue
            seen.add(id(node))
        if type(node) is dict:
            if not LOCATING.isdisjoint(node):
                return False
            stack.extend(node.values())
        elif type(node) is list:
            stack.extend(node)
        elif isinstance(node, (dict, list, tuple)):  # from Python: left to jsonschema, which may walk it
            return False
    return True


def plainly_valid(schema: dict) -> bool:
    """True when ``schema`` (self-contained) is certainly valid under its draft's metaschema; False when
    that is for jsonschema to say (it may still be valid). Subschemas nested deeper than ``PLAIN_DEPTH`` are
    jsonschema's too: it recurses, and says when a schema is too deep for Python's recursion limit."""
    stack: list[tuple[Any, int]] = [(schema, 0)]
    while stack:
        node, depth = stack.pop()
        if type(node) is bool:
            continue
        if type(node) is not dict or depth > PLAIN_DEPTH:
            return False
        below = depth + 1
        for key, value in node.items():
            if key in _SCHEMA:
                stack.append((value, below))
            elif key in _SCHEMA_MAP:
                if type(value) is not dict:
                    return False
                stack.extend((child, below) for child in value.values())
            elif key in _SCHEMA_ARRAY:
                if type(value) is not list or not value:
                    return False
                stack.extend((child, below) for child in value)
            elif key in _STRING:
                if type(value) is not str:
                    return False
            elif key in _NUMBER:
                if type(value) not in (int, float):
                    return False
            elif key == "multipleOf":
                if type(value) not in (int, float) or not value > 0:
                    return False
            elif key in _COUNT:
                if type(value) is not int or value < 0:
                    return False
            elif key in _FLAG:
                if type(value) is not bool:
                    return False
            elif key in ("enum", "examples"):
                if type(value) is not list:
                    return False
            elif key == "required":
                if not _names(value):
                    return False
            elif key == "dependentRequired":
                if type(value) is not dict or not all(_names(v) for v in value.values()):
                    return False
            elif key == "type":
                if not (
                    type(value) is str
                    and value in _SIMPLE_TYPES
                    or type(value) is list
                    and value
                    and _names(value)
                    and _SIMPLE_TYPES.issuperset(value)
                ):
                    return False
            elif key == "$schema":
                if node is not schema or type(value) is not str:
                    return False
            elif key in CONSTRAINED and key not in _ANYTHING:
                return False  # a keyword constrained in a way not written out here: jsonschema says
    return True


def _names(value: Any) -> bool:
    """A list of distinct strings (the metaschemas' ``stringArray``)."""
    return type(value) is list and all(type(v) is str for v in value) and len(set(value)) == len(value)
