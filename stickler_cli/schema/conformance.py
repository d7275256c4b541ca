"""Schema conformance: which parts of a prediction break its JSON Schema.

An extraction team watches this first: a model that returns ``"12.50"`` where
the schema says ``number`` is scored leniently by the comparators, but the
record is still not what the contract promised. ``Conformance.violations``
lists every violation as (field path, keyword), with the field path written as
the reports write it (``line_items.unit_price``: list positions dropped, the
document itself ``$``). A ``required`` violation is reported at the missing
property's path, so a field table can show it on the field's own row.

Rich values (``{"_value": v, "_confidence": c}``) are checked as ``v`` (unwrapped once
where the checker descends into a value, as the engine unwraps them), except where the
schema there declares ``_value`` (or another of ``plan.RICH_KEYS``) as a property: such an
object is data (``declares_rich_keys``; the plan's ``FieldPlan.rich``).

jsonschema takes about 430 µs for a typical invoice, more than the whole
comparison, so the keywords schemas use in practice are compiled here into
closures (about 20 µs); a schema using any other validation keyword is checked
by jsonschema itself, whose results these closures are tested against.

References are followed through the schema's one registry (``refs.References``, the one
the scoring plan was compiled with), by the closures and by jsonschema alike; a recursive
schema is followed as deep as the record goes.

``format`` is an annotation unless formats are asserted (``--assert-formats``, or a
metaschema declaring the 2020-12 format-assertion vocabulary): then each string is checked
with the draft's ``jsonschema.FormatChecker``, a failure counted under keyword ``format``.

Nothing a record holds can hang or crash the check: patterns are matched by one
engine with a time bound (schema/patterns.py), in the closures and in jsonschema
alike; jsonschema resolves references through a registry that fetches nothing
(schema/registry.py); a record nested too deeply to check is counted as a
violation (keyword ``unchecked``). What went wrong is kept as messages
(``take_messages``) for the run's errors.
"""

from __future__ import annotations

import math
import time
import types
from fractions import Fraction
from typing import Any, Callable, Iterable

from .. import limits
from ..errors import SchemaError
from ..plan import RICH_KEYS
from . import audit, drafts
from .patterns import Patterns
from .refs import References
from .json_values import json_equal, json_key, unique_items  # noqa: F401  (json_equal, json_key: re-exported)

Violation = tuple[str, str]  # (field path, keyword)
_Errors = list[tuple[tuple, str]]  # (path inside the checked value, keyword)
_Check = Callable[[Any], "_Errors | None"]

ROOT = "$"  # the field path of the document itself
MAX_VIOLATIONS = 100_000  # in one record: a recursive schema can list one violation 2^depth times
UNCHECKED = "unchecked"  # the keyword of a record that could not be checked (nested deeper than Python recurses)

_COMPILED = frozenset(
    """
type properties required additionalProperties items enum const minimum maximum exclusiveMinimum
exclusiveMaximum minLength maxLength pattern minItems maxItems anyOf oneOf allOf $ref multipleOf
minProperties maxProperties
""".split()
)
# What jsonschema would check that the closures do not; unknown keywords are ignored by both.
_OTHER = frozenset(
    """
uniqueItems maxContains minContains dependentRequired dependencies
patternProperties propertyNames prefixItems additionalItems contains unevaluatedItems unevaluatedProperties
not if then else dependentSchemas $dynamicRef $recursiveRef contentSchema
""".split()
)
FORMAT_ASSERTION = "https://json-schema.org/draft/2020-12/vocab/format-assertion"


def field_path(path: tuple | list) -> str:
    """A location inside a record as a report's field path: keys joined by dots, positions dropped."""
    keys = [k for k in path if type(k) is str]
    return ".".join(keys) if keys else ROOT


def unwrap_all(value: Any, top: bool = True, data: frozenset[str] = frozenset()) -> Any:
    """A copy of ``value`` with every rich value replaced by its ``_value`` (once at each place, as
    the engine unwraps; ``top=False``: below ``value`` only), except at the field paths of ``data`` (keys joined
    by dots, positions dropped: the plan's fields whose object declares ``_value``, FieldPlan.rich), where such
    an object is data. Iterative: a record may nest 1,000 levels."""

    def strip(v: Any, path: str) -> Any:
        return v["_value"] if type(v) is dict and "_value" in v and path not in data else v

    def below(path: str, key: Any) -> str:
        if type(key) is not str:
            return path  # a list's position: the field path of its items is the list's
        return f"{path}.{key}" if path else key

    root = [strip(value, "") if top else value]
    stack: list[tuple[Any, Any, str]] = [(root, 0, "")]
    while stack:
        holder, key, path = stack.pop()
        item = holder[key]
        if type(item) is dict:
            holder[key] = copy = {k: strip(v, below(path, k)) for k, v in item.items()}
            stack.extend((copy, k, below(path, k)) for k in copy)
        elif type(item) is list:
            holder[key] = copy = [strip(v, path) for v in item]
            stack.extend((copy, k, path) for k in range(len(copy)))
    return root[0]


class EnumValues:
    """The values of an ``enum``, looked up by hash: an enum of 200,000 values costs one lookup per value
    checked, not 200,000 comparisons. What cannot be hashed is compared one by one, as before."""

    __slots__ = ("options", "keys", "others")

    def __init__(self, options: list) -> None:
        self.options = options
        self.keys: set = set()
        self.others: list = []
        for option in options:
            try:
                self.keys.add(json_key(option))
            except (TypeError, RecursionError):
                self.others.append(option)

    def __contains__(self, value: Any) -> bool:
        try:
            key = json_key(value)
        except (TypeError, RecursionError):
            return any(json_equal(value, option) for option in self.options)
        return key in self.keys or any(json_equal(value, option) for option in self.others)


class _TooSlow(Exception):
    """A record's check by jsonschema ran past its deadline (a schema that revisits values exponentially)."""


class _TooMany(Exception):
    """A record's violations outgrew MAX_VIOLATIONS (a recursive schema that reaches one value many ways)."""


class Conformance:
    """Checks records against one schema (compiled once, used for every prediction)."""

    def __init__(
        self,
        schema: dict,
        references: References | None = None,
        assert_formats: bool = False,
        data_paths: frozenset[str] = frozenset(),
    ) -> None:
        self.draft = _draft(schema.get("$schema"))
        self.schema = schema
        self.references = references if references is not None else References(schema)
        self.patterns: Patterns = audit.check_document(schema)  # every pattern compiled (and nesting bounded)
        for uri, document in self.references.resources.items():
            if isinstance(document, dict):
                audit.check_document(document, patterns=self.patterns, where=f"{uri}#")
        asserting = _asserting_metaschemas(self.references)  # of the 2020-12 format-assertion vocabulary
        self._messages: list[str] = []
        checker = _format_checker(schema, self.references, self._messages) if assert_formats or asserting else None
        self.format_checker = checker if assert_formats or schema.get("$schema") in asserting else None
        self.compiled = bool(self.draft) and _compilable(schema, self.references, asserting)
        self._fallback: Any = None
        self._check: _Check | None = None
        self._deadline = [0.0]  # the current record's, for jsonschema's applicators (see _bounded)
        self._slow_records = 0  # records jsonschema could not check in time
        self._root_data = declares_rich_keys(self.references, schema, "")  # a record with _value is data
        self._data_paths = data_paths  # field paths where an object holding _value is data (the fallback's unwrap)
        if self.compiled:
            self._compiled: dict[int, _Check] = {}
            self._building: set[int] = set()  # subschemas being compiled: reached again, they are recursive
            self._recursive: set[int] = set()
            # Results of recursive subschemas on the values of the record being checked: a schema that
            # applies itself twice to one value (allOf of two $refs back) would otherwise cost 2^depth.
            self._memo: dict[tuple[int, int], _Errors | None] = {}
            self._check = self._compile(schema, "")
        else:
            from .registry import validator_class

            cls = _bounded(validator_class(schema), self.patterns, self._deadline, asserting=asserting, checker=checker)
            self._fallback = cls(
                self.references.entry, registry=self.references.registry, format_checker=self.format_checker
            )

    @classmethod
    def of(cls, plan: Any) -> "Conformance":
        """The checker of a compiled plan: its schema, through the registry the plan was compiled with."""
        return cls(plan.schema, plan.references, plan.assert_formats, plan.data_paths())

    def violations(self, record: Any) -> list[Violation]:
        """Every violation in ``record``; empty when it conforms."""
        try:
            if self._check is not None:
                if type(record) is dict and "_value" in record and not self._root_data:
                    record = record["_value"]
                if self._memo:
                    self._memo.clear()
                if self.format_checker is not None and not self._start_clock():  # format checks are timed
                    return [(ROOT, UNCHECKED)]
                errors = self._check(record)
                return [(field_path(path), keyword) for path, keyword in errors] if errors else []
            return self._jsonschema_violations(unwrap_all(record, not self._root_data, self._data_paths))
        except _TooSlow:
            bounds = limits.current()
            self._slow_records += 1
            self._messages.append(
                f"took more than {bounds.record_check_seconds:g} s to check against the schema "
                f"(--limit record-check-seconds): counted as one violation ({UNCHECKED!r})"
            )
            if self._slow_records == bounds.record_check_timeouts:
                self._messages.append(
                    f"{self._slow_records} records took too long to check: the records after them "
                    f"are not checked, each counted as one violation ({UNCHECKED!r}; limit "
                    "record-check-timeouts)"
                )
        except _TooMany:
            self._messages.append(
                f"more than {MAX_VIOLATIONS:,} violations in one record: counted as one violation ({UNCHECKED!r})"
            )
        except RecursionError:
            self._messages.append(
                "nested too deeply to be checked against the schema within Python's recursion "
                f"limit: counted as one violation ({UNCHECKED!r})"
            )
        except Exception as exc:  # a reference jsonschema could not resolve (all resolve at load time)
            from referencing.exceptions import Unresolvable

            if not isinstance(exc, Unresolvable):
                raise
            self._messages.append(
                f"could not be checked against the schema ({exc}): counted as one violation ({UNCHECKED!r})"
            )
        return [(ROOT, UNCHECKED)]

    def take_messages(self) -> list[str]:
        """What went wrong while checking the records since the last call (a pattern that timed out, a
        record too deep to check): one line each, for the run's errors."""
        taken, self._messages = self._messages, []
        return taken + self.patterns.take_messages()

    def _start_clock(self) -> bool:
        """Start the record's ``record-check-seconds``; False when ``record-check-timeouts`` records already
        ran out of time (no more are checked)."""
        bounds = limits.current()
        if self._slow_records >= bounds.record_check_timeouts:
            return False
        self._deadline[0] = time.monotonic() + bounds.record_check_seconds
        return True

    def _jsonschema_violations(self, record: Any) -> list[Violation]:
        if not self._start_clock():
            return [(ROOT, UNCHECKED)]
        out: list[Violation] = []
        missing: dict[tuple, list[str]] = {}
        for error in self._fallback.iter_errors(record):
            path = list(error.absolute_path)
            keyword = error.validator if isinstance(error.validator, str) else "false"
            if keyword == "required":  # one error per missing property, in the keyword's order
                key = (id(error.schema), id(error.instance), tuple(path))
                if not missing.get(key):  # (again when one subschema applies twice to one value)
                    missing[key] = [p for p in error.validator_value if p not in error.instance]
                names = missing[key]
                path.append(names.pop(0) if names else "")
            out.append((field_path(path), keyword))
        return out

    # -- compilation ----------------------------------------------------------------

    def _compile(self, node: Any, pointer: str) -> _Check:
        """One subschema as a closure; ``$ref`` targets are compiled once and may be recursive."""
        if node is True or node == {}:
            return _valid
        if node is False:
            return _always_false
        key = id(node)
        if key in self._compiled:
            if key in self._building:
                self._recursive.add(key)
            return self._compiled[key]
        slot: list[_Check] = []
        self._compiled[key] = lambda value: slot[0](value)  # a reference back to this node while it compiles
        self._building.add(key)
        check = self._build(node, pointer)
        self._building.discard(key)
        if key in self._recursive:
            check = self._memoized(key, check)
        slot.append(check)
        self._compiled[key] = check
        return check

    def _memoized(self, key: int, check: _Check) -> _Check:
        """``check`` remembering its result per value of the record being checked (by identity: every
        value lives as long as the record), so that each (subschema, value) is checked once."""
        memo = self._memo

        def memoized(value: Any) -> _Errors | None:
            where = (key, id(value))
            if where in memo:
                found = memo[where]
                return list(found) if found else found  # callers extend the lists they are given
            found = check(value)
            if found and len(found) > MAX_VIOLATIONS:
                raise _TooMany
            memo[where] = list(found) if found else found
            return found

        return memoized

    def _build(self, node: dict, pointer: str) -> _Check:
        keywords = node
        if "$ref" in node and self.draft <= 7:  # before 2019-09, $ref's siblings are ignored
            keywords = {"$ref": node["$ref"]}
        fused = None if self.format_checker is not None and "format" in keywords else self._fused(keywords, pointer)
        if fused is not None:
            return fused
        checks: list[_Check] = []
        for name, value in keywords.items():
            maker = _format if name == "format" and self.format_checker is not None else _MAKERS.get(name)
            if maker is not None:  # (the node itself: a reference is looked up where the node sits)
                checks.append(maker(self, value, node if name == "$ref" else keywords, f"{pointer}/{name}"))
        checks = [c for c in checks if c is not _valid]
        if not checks:
            return _valid
        return checks[0] if len(checks) == 1 else _all(checks)

    def _fused(self, keywords: dict, pointer: str) -> _Check | None:
        """One closure for the commonest nodes (an object's type, properties and required; an
        array's type and items) instead of one per keyword: a third fewer calls per document."""
        validating = {name for name in keywords if name in _MAKERS}
        type_check = _type(self, keywords["type"], keywords, pointer) if "type" in keywords else None
        allowed = type_check.types[0] if type_check is not None else None  # type: ignore[attr-defined]
        if (
            "properties" in validating
            and validating <= {"type", "properties", "required"}
            and isinstance(keywords["properties"], dict)
            and (allowed is None or dict in allowed)
        ):
            required = keywords.get("required")
            return _object(
                self,
                keywords["properties"],
                required if isinstance(required, list) else [],
                type_check,
                f"{pointer}/properties",
            )
        if "items" in validating and validating <= {"type", "items"} and (allowed is None or list in allowed):
            return _array(
                self._compile(keywords["items"], f"{pointer}/items"),
                type_check,
                declares_rich_keys(self.references, keywords["items"], f"{pointer}/items"),
            )
        return None

    def _ref(self, ref: str, node: dict, pointer: str) -> _Check:
        target, where = self.references.follow(node, "$ref", pointer.rsplit("/", 1)[0])
        return self._compile(target, where)


def _draft(uri: Any) -> int:
    """The draft a ``$schema`` names (2020-12 when it names none, as jsonschema assumes); 0 for
    drafts 3 and 4, which the closures do not implement."""
    text = uri if isinstance(uri, str) else ""
    for marker, draft in (("draft-03", 0), ("draft-04", 0), ("draft-06", 6), ("draft-07", 7), ("2019-09", 2019)):
        if marker in text:
            return draft
    return 2020


_TYPE: _Errors = [((), "type")]
_REQUIRED: _Errors = [((), "required")]


def _below(errors: _Errors | None, key: Any, found: _Errors) -> _Errors:
    """``errors`` (made when None) with ``found``, errors inside the value at ``key``, added in place:
    a record with thousands of violations is collected in linear time."""
    if errors is None:
        errors = []
    if len(found) == 1:  # most often a leaf's one error (_TYPE, _REQUIRED): no generator for it
        path, keyword = found[0]
        errors.append(((key, *path), keyword))
    else:
        errors.extend(((key, *path), keyword) for path, keyword in found)
    return errors


def _all(checks: list[_Check]) -> _Check:
    """Every check on the same value (a subschema's keywords, allOf's branches): all their errors."""

    def check(value: Any) -> _Errors | None:
        errors = None
        for c in checks:
            found = c(value)
            if found:
                if errors is None:
                    errors = found
                else:
                    errors.extend(found)
        return errors

    return check


def _valid(value: Any) -> None:
    return None


def _always_false(value: Any) -> _Errors:
    return [((), "false")]


def _compilable(schema: Any, references: References, asserting: frozenset[str] = frozenset()) -> bool:
    """Whether every subschema reachable from the root (references followed, through the registry)
    uses only keywords the closures implement, under the root's draft (jsonschema switches to the
    draft a subschema's own ``$schema`` names, and a metaschema of ``asserting`` asserts formats
    there: those are left to it)."""
    stack = [(schema, True)]
    seen: set[int] = set()
    draft = schema.get("$schema") if isinstance(schema, dict) else None
    while stack:
        node, is_root = stack.pop()
        if isinstance(node, bool) or id(node) in seen:
            continue
        seen.add(id(node))
        if not isinstance(node, dict):
            return False
        if (
            not is_root
            and "$schema" in node
            and node["$schema"] != draft
            and (node["$schema"] in asserting or not _same_draft(node, schema))
        ):
            return False
        for name, value in node.items():
            if name in _OTHER:
                return False
            if name == "$ref":
                try:
                    stack.append((references.follow(node, "$ref")[0], False))
                except SchemaError:
                    return False
            if name in ("exclusiveMinimum", "exclusiveMaximum") and type(value) is bool:
                return False  # draft 4's form
            if name == "items" and not isinstance(value, (dict, bool)):
                return False  # draft 7's tuple form
        for name in ("properties", "$defs", "definitions"):
            if isinstance(node.get(name), dict):
                stack.extend((child, False) for child in node[name].values())
        for name in ("anyOf", "oneOf", "allOf"):
            if isinstance(node.get(name), list):
                stack.extend((child, False) for child in node[name])
        for name in ("items", "additionalProperties"):
            if isinstance(node.get(name), (dict, bool)):
                stack.append((node[name], False))
    return True


def _same_draft(node: dict, schema: dict) -> bool:
    """Whether jsonschema checks ``node`` (which names its own ``$schema``) with the class it checks the
    root with, and the closures may too."""
    from .registry import validator_class

    return validator_class(node) is validator_class(schema)


def _asserting_metaschemas(references: References) -> frozenset[str]:
    """The ``$schema`` URIs, in the schema and the documents read with it, of metaschemas (documents read
    with it) that declare the 2020-12 format-assertion vocabulary: a schema resource naming one asserts
    ``format``, whatever the vocabulary's value (true: required; false: optional, understood here)."""
    from .keywords import subschemas

    named: set[str] = set()
    stack: list[Any] = [references.schema, *references.resources.values()]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$schema"), str):
                named.add(node["$schema"])
            stack.extend(child for child, _, _ in subschemas(node))
    found = set()
    for uri in named - drafts.DRAFTS.keys():  # the drafts' own metaschemas assert no format
        try:
            metaschema = references.root.lookup(uri).contents
        except Exception:  # noqa: BLE001  # not held: a draft's own metaschema, or one refused by the audit
            continue
        vocabularies = metaschema.get("$vocabulary") if isinstance(metaschema, dict) else None
        if isinstance(vocabularies, dict) and FORMAT_ASSERTION in vocabularies:
            found.add(uri)
    return frozenset(found)


def _format_checker(schema: dict, references: References, messages: list[str] | None = None) -> Any:
    """The draft's ``jsonschema.FormatChecker`` (the formats it knows depend on the optional packages
    installed: docs/schema.md, "Schema conformance"), its ``regex`` check bounded as the schema's own patterns are:
    a value such as ``a{10000000}`` would take gigabytes to compile, and is not conforming here. The
    ``iri`` and ``iri-reference`` checks (a general parser, about a millisecond a character) read at most
    ``iri-check-chars`` characters: a longer value is not conforming, said in ``messages``."""
    import copy
    import re

    from .. import limits
    from .patterns import unrolled_size
    from .registry import validator_class

    checker = copy.copy(validator_class(schema).FORMAT_CHECKER)
    checker.checkers = dict(checker.checkers)
    if "regex" in checker.checkers:
        room = limits.current().regex_size

        def is_regex(instance: object) -> bool:
            if not isinstance(instance, str):
                return True
            if unrolled_size(instance) > room:
                return False
            re.compile(instance)
            return True

        checker.checkers["regex"] = (is_regex, (re.error, ValueError, OverflowError, RecursionError))
    most = limits.current().iri_check_chars
    for name in SLOW_FORMATS & checker.checkers.keys():
        checker.checkers[name] = _within_chars(name, *checker.checkers[name], most, messages)
    return checker


SLOW_FORMATS = frozenset({"iri", "iri-reference"})  # their checkers' time grows steeply with the value


def _within_chars(
    name: str, check: Callable[[object], Any], raises: Any, most: int, messages: list[str] | None
) -> tuple[Callable[[object], Any], Any]:
    """``check`` for values of at most ``most`` characters; a longer one does not conform, and is reported."""

    def bounded(instance: object) -> Any:
        if isinstance(instance, str) and len(instance) > most:
            if messages is not None:
                messages.append(
                    f"a value of {len(instance):,} characters was not checked as format {name!r}, "
                    f"which reads at most {most:,} (--limit iri-check-chars): counted as not conforming"
                )
            return False
        return check(instance)

    return bounded, raises


# -- one maker per keyword: (conformance, keyword value, the subschema, pointer) -> check ---------


def _type(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    names = [value] if isinstance(value, str) else list(value)
    exact = {_JSON_TYPES[n] for n in names if n in _JSON_TYPES}
    if "number" in names:
        exact |= {int, float}
    integer = "integer" in names and "number" not in names
    if integer:
        exact.add(int)
    lenient_integer = integer and c.draft >= 6
    frozen = frozenset(exact)
    error: _Errors = [((), "type")]

    def check(v: Any) -> _Errors | None:
        t = type(v)
        if t in frozen or (lenient_integer and t is float and v.is_integer()):
            return None
        return list(error)

    check.types = (frozen, lenient_integer)  # type: ignore[attr-defined]  # read by _object and _array
    return check


_JSON_TYPES = {"string": str, "boolean": bool, "null": type(None), "array": list, "object": dict}


def _properties(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    return _object(c, value, [], None, pointer) if isinstance(value, dict) else _valid


def declares_rich_keys(references: References, node: Any, pointer: str) -> bool:
    """Whether ``node`` describes an object declaring a key of RICH_KEYS (``_value``…) as a property: itself,
    through its ``$ref``, or one of its ``anyOf``/``oneOf``/``allOf`` options. Such an object is data: a value
    there is never unwrapped as a rich value (as the plan's FieldPlan.rich, for the engine)."""
    nodes = [(node, pointer)]
    if isinstance(node, dict):
        for combinator in ("anyOf", "oneOf", "allOf"):
            options = node.get(combinator)
            if isinstance(options, list):
                nodes.extend((option, f"{pointer}/{combinator}/{i}") for i, option in enumerate(options))
    for option, where in nodes:
        if not isinstance(option, dict):
            continue
        try:
            option = references.merged(option, where)
        except Exception:  # a broken reference is reported where it is checked
            continue
        properties = option.get("properties")
        if isinstance(properties, dict) and not RICH_KEYS.isdisjoint(properties):
            return True
    return False


def _object(c: Conformance, properties: dict, required: list, type_check: _Check | None, pointer: str) -> _Check:
    """An object's properties (and, fused, its required names and its type) in one closure."""
    compiled = [(key, c._compile(sub, f"{pointer}/{key}")) for key, sub in properties.items()]
    compiled = [(key, check) for key, check in compiled if check is not _valid]
    # Most properties only have a type: checked here inline, a function call saved per value.
    typed = [(key, *check.types) for key, check in compiled if hasattr(check, "types")]
    # (key, check, whether its schema declares _value: then a value there is data, not unwrapped)
    children = [
        (key, check, declares_rich_keys(c.references, properties[key], f"{pointer}/{key}"))
        for key, check in compiled
        if not hasattr(check, "types")
    ]
    names = [name for name in required if isinstance(name, str)]
    if not compiled and not names and type_check is None:
        return _valid

    def check(v: Any) -> _Errors | None:
        if type(v) is not dict:
            return type_check(v) if type_check is not None else None
        errors = None
        for name in names:
            if name not in v:
                errors = _below(errors, name, _REQUIRED)
        for key, allowed, lenient in typed:
            if key in v:
                item = v[key]
                t = type(item)
                if t is dict and "_value" in item:
                    item = item["_value"]
                    t = type(item)
                if t not in allowed and not (lenient and t is float and item.is_integer()):
                    errors = _below(errors, key, _TYPE)
        for key, sub, data in children:
            if key in v:
                item = v[key]
                if type(item) is dict and "_value" in item and not data:
                    item = item["_value"]
                found = sub(item)
                if found:
                    errors = _below(errors, key, found)
        return errors

    return check


def _array(sub: _Check, type_check: _Check | None, data: bool = False) -> _Check:
    """An array's type and items in one closure; ``data``: the items' schema declares ``_value`` (items are
    then never unwrapped)."""
    if sub is _valid:
        return type_check or _valid
    if hasattr(sub, "types"):  # a list of strings, numbers…: the items' type checked inline
        allowed, lenient = sub.types

        def check_typed(v: Any) -> _Errors | None:
            if type(v) is not list:
                return type_check(v) if type_check is not None else None
            errors = None
            for k, item in enumerate(v):
                t = type(item)
                if t is dict and "_value" in item:
                    item = item["_value"]
                    t = type(item)
                if t not in allowed and not (lenient and t is float and item.is_integer()):
                    errors = _below(errors, k, _TYPE)
            return errors

        return check_typed

    def check(v: Any) -> _Errors | None:
        if type(v) is not list:
            return type_check(v) if type_check is not None else None
        return _each(enumerate(v), sub, not data)

    return check


def _required(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    names = list(value) if isinstance(value, list) else []

    def check(v: Any) -> _Errors | None:
        if type(v) is not dict:
            return None
        missing = [((name,), "required") for name in names if name not in v]
        return missing or None

    return check if names else _valid


def _additional(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    known = set(node.get("properties") or ())
    if value is True:
        return _valid
    if value is False:

        def refuse(v: Any) -> _Errors | None:
            if type(v) is dict and any(k not in known for k in v):
                return [((), "additionalProperties")]
            return None

        return refuse
    sub = c._compile(value, pointer)

    def check(v: Any) -> _Errors | None:
        if type(v) is not dict:
            return None
        return _each(((key, item) for key, item in v.items() if key not in known), sub)

    return check


def _each(entries: Iterable[tuple[Any, Any]], sub: _Check, rich: bool = True) -> _Errors | None:
    """``sub`` on each (key or position, value), rich values unwrapped (unless not ``rich``); errors located
    below the key."""
    errors = None
    for key, item in entries:
        if rich and type(item) is dict and "_value" in item:
            item = item["_value"]
        found = sub(item)
        if found:
            errors = _below(errors, key, found)
    return errors


def _items(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    return _array(c._compile(value, pointer), None, declares_rich_keys(c.references, value, pointer))


def _enum(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    options = EnumValues(list(value) if isinstance(value, list) else [])

    def check(v: Any) -> _Errors | None:
        if type(v) is dict or type(v) is list:  # rich values inside, unwrapped as the fallback unwraps them
            v = unwrap_all(v, top=False)
        return None if v in options else [((), "enum")]

    return check


def _const(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    def check(v: Any) -> _Errors | None:
        if type(v) is dict or type(v) is list:
            v = unwrap_all(v, top=False)
        return None if json_equal(v, value) else [((), "const")]

    return check


def _bound(keyword: str, fails: Callable[[Any, Any], bool]) -> Callable[..., _Check]:
    def maker(c: Conformance, limit: Any, node: dict, pointer: str) -> _Check:
        def check(v: Any) -> _Errors | None:
            t = type(v)
            if (t is int or t is float) and fails(v, limit):
                return [((), keyword)]
            return None

        return check

    return maker


def _size(keyword: str, kind: type, fails: Callable[[int, Any], bool]) -> Callable[..., _Check]:
    def maker(c: Conformance, limit: Any, node: dict, pointer: str) -> _Check:
        def check(v: Any) -> _Errors | None:
            if type(v) is kind and fails(len(v), limit):
                return [((), keyword)]
            return None

        return check

    return maker


def _multiple_of(c: Conformance, divisor: Any, node: dict, pointer: str) -> _Check:
    """As jsonschema decides it: a float divisor by float division, an integer one by remainder."""

    def check(v: Any) -> _Errors | None:
        t = type(v)
        if t is not int and t is not float:
            return None
        if t is float and not math.isfinite(v):  # Infinity, 1e400, NaN: a multiple of nothing
            failed = True
        elif isinstance(divisor, float):
            try:
                quotient = v / divisor
                failed = int(quotient) != quotient
            except OverflowError:
                failed = (Fraction(v) / Fraction(divisor)).denominator != 1
        else:
            failed = bool(v % divisor)
        return [((), "multipleOf")] if failed else None

    return check


def _pattern(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    matches = c.patterns.compile(value, pointer).matches  # bounded in time; a timeout counts as no match

    def check(v: Any) -> _Errors | None:
        if type(v) is str and not matches(v):
            return [((), "pattern")]
        return None

    return check


def _branches(keyword: str) -> Callable[..., _Check]:
    def maker(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
        subs = [c._compile(sub, f"{pointer}/{k}") for k, sub in enumerate(value)]
        if keyword == "allOf":
            return _all(subs)
        if keyword == "anyOf":

            def any_of(v: Any) -> _Errors | None:
                return None if any(not sub(v) for sub in subs) else [((), "anyOf")]

            return any_of

        def one_of(v: Any) -> _Errors | None:
            return None if sum(1 for sub in subs if not sub(v)) == 1 else [((), "oneOf")]

        return one_of

    return maker


def _reference(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    return c._ref(value, node, pointer)


def _format(c: Conformance, value: Any, node: dict, pointer: str) -> _Check:
    """``format`` asserted: the value must conform, as jsonschema's FormatChecker says (a format it does
    not know passes, as in jsonschema)."""
    conforms = c.format_checker.conforms
    if not isinstance(value, str) or value not in c.format_checker.checkers:
        return _valid
    deadline = c._deadline  # the record's, set by violations(): a checker may be slow (iri)

    def check(v: Any) -> _Errors | None:
        if time.monotonic() > deadline[0]:
            raise _TooSlow
        return None if conforms(v, value) else [((), "format")]

    return check


_MAKERS: dict[str, Callable[..., _Check]] = {
    "type": _type,
    "properties": _properties,
    "required": _required,
    "additionalProperties": _additional,
    "items": _items,
    "enum": _enum,
    "const": _const,
    "minimum": _bound("minimum", lambda v, m: v < m),
    "maximum": _bound("maximum", lambda v, m: v > m),
    "exclusiveMinimum": _bound("exclusiveMinimum", lambda v, m: v <= m),
    "exclusiveMaximum": _bound("exclusiveMaximum", lambda v, m: v >= m),
    "minLength": _size("minLength", str, lambda n, m: n < m),
    "maxLength": _size("maxLength", str, lambda n, m: n > m),
    "minItems": _size("minItems", list, lambda n, m: n < m),
    "maxItems": _size("maxItems", list, lambda n, m: n > m),
    "minProperties": _size("minProperties", dict, lambda n, m: n < m),
    "maxProperties": _size("maxProperties", dict, lambda n, m: n > m),
    "multipleOf": _multiple_of,
    "pattern": _pattern,
    "anyOf": _branches("anyOf"),
    "oneOf": _branches("oneOf"),
    "allOf": _branches("allOf"),
    "$ref": _reference,
}
assert set(_MAKERS) == _COMPILED


# -- jsonschema, for the keywords the closures leave to it: the same pattern engine, hashed enums ----------

APPLICATORS = (
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "items",
    "prefixItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "dependentSchemas",
    "dependencies",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)


def _bounded(
    cls: Any,
    patterns: Patterns,
    deadline: list[float],
    made: dict | None = None,
    asserting: frozenset[str] = frozenset(),
    checker: Any = None,
) -> Any:
    """``cls`` (a jsonschema validator class) matching every pattern through ``patterns`` (bounded in
    time) and looking enum values up by hash. Where jsonschema's own keyword functions call ``re``
    (additionalProperties, unevaluatedProperties with patternProperties), the same functions run with
    ``re`` replaced, so that no pattern is ever matched without a bound. A subschema naming another
    draft in its ``$schema`` is checked by that draft's class (as jsonschema does), bounded alike; one
    naming a metaschema of ``asserting`` (format-assertion vocabulary) has its formats checked."""
    import attrs
    import jsonschema

    invalid = jsonschema.exceptions.ValidationError

    class BoundedRe:  # the one part of ``re`` those functions use
        @staticmethod
        def search(pattern: str, string: str) -> bool:
            return patterns.search(pattern, string)

    def pattern(validator: Any, text: str, instance: Any, schema: dict) -> Iterable:
        if validator.is_type(instance, "string") and not patterns.search(text, instance):
            yield invalid(f"does not match {text!r}")

    def pattern_properties(validator: Any, by_pattern: dict, instance: Any, schema: dict) -> Iterable:
        if not validator.is_type(instance, "object"):
            return
        for text, subschema in by_pattern.items():
            for key, value in instance.items():
                if patterns.search(text, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=text)

    def additional_keys(instance: dict, schema: dict) -> Iterable:
        known = schema.get("properties", {})
        names = list(schema.get("patternProperties", {}))
        for key in instance:
            if key not in known and not any(patterns.search(text, key) for text in names):
                yield key

    enums: dict[int, EnumValues] = {}

    def enum(validator: Any, options: list, instance: Any, schema: dict) -> Iterable:
        values = enums.get(id(options))
        if values is None:
            values = enums[id(options)] = EnumValues(list(options))
        if instance not in values:
            yield invalid("is not one of the enum's values")

    multiple_of = cls.VALIDATORS["multipleOf"]

    def finite_multiple_of(validator: Any, divisor: Any, instance: Any, schema: dict) -> Iterable:
        if isinstance(instance, float) and not math.isfinite(instance):  # jsonschema raises OverflowError
            yield invalid(f"{instance!r} is not a multiple of {divisor!r}")
            return
        yield from multiple_of(validator, divisor, instance, schema)

    def before_deadline(keyword: Callable[..., Iterable]) -> Callable[..., Iterable]:
        def checked(validator: Any, value: Any, instance: Any, schema: dict) -> Iterable:
            if time.monotonic() > deadline[0]:
                raise _TooSlow
            yield from keyword(validator, value, instance, schema)

        return checked

    overrides = {
        "pattern": pattern,
        "patternProperties": pattern_properties,
        "enum": enum,
        "uniqueItems": unique_items,
        "multipleOf": finite_multiple_of,
        "additionalProperties": _rebound(
            cls.VALIDATORS["additionalProperties"], find_additional_properties=additional_keys
        ),
    }
    unevaluated = cls.VALIDATORS.get("unevaluatedProperties")
    if unevaluated is not None:
        name = "find_evaluated_property_keys_by_schema"
        finder = _rebound(unevaluated.__globals__[name], re=BoundedRe)
        finder.__globals__[name] = finder  # it calls itself for subschemas
        overrides["unevaluatedProperties"] = _rebound(unevaluated, **{name: finder})
    # Applicators can revisit one value many times (anyOf of two $refs, level after level): each
    # call first checks the record's deadline (``deadline[0]``, set per record by the caller).
    for keyword in APPLICATORS:
        if keyword in cls.VALIDATORS:
            overrides[keyword] = before_deadline(overrides.get(keyword, cls.VALIDATORS[keyword]))
    bounded = jsonschema.validators.extend(cls, overrides)
    made = {} if made is None else made
    made[cls] = bounded
    standard_evolve = bounded.evolve

    def evolve(self: Any, **changes: Any) -> Any:
        schema = changes.get("schema", self.schema)
        if asserting and isinstance(schema, dict) and schema.get("$schema") in asserting:
            changes["format_checker"] = checker
        evolved = standard_evolve(self, **changes)
        kind = type(evolved)
        if kind in made.values():
            return evolved
        mine = made.get(kind) or _bounded(
            kind, patterns, deadline, made, asserting, checker
        )  # the class of another draft
        return mine(**{f.alias: getattr(evolved, f.name) for f in attrs.fields(kind) if f.init})

    bounded.evolve = evolve
    return bounded


def _rebound(function: Any, **names: Any) -> Any:
    """``function`` with some of the globals it reads replaced: the same code, other collaborators."""
    unused = [name for name in names if name not in function.__code__.co_names]
    if unused:  # a jsonschema release restructured its keywords: fail loudly, never match without a bound
        raise RuntimeError(f"jsonschema's {function.__name__} no longer reads {', '.join(unused)}")
    namespace = {**function.__globals__, **names}
    return types.FunctionType(
        function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__
    )


def unchecked_formats(plan: Any) -> list[tuple[str, str]]:
    """(pointer, format) for every ``format`` of the plan's schema (and the documents read with it) that
    asserted formats would not check: jsonschema's FormatChecker has no checker for it here (an unknown
    format, or one whose optional package is not installed)."""
    from .keywords import subschemas

    checkers = _format_checker(plan.schema, plan.references or References(plan.schema)).checkers
    found = []
    documents = [("", plan.schema), *((f"{uri}#", document) for uri, document in plan.resources.items())]
    for start, document in documents:
        stack = [(document, start)]
        while stack:
            node, pointer = stack.pop()
            if not isinstance(node, dict):
                continue
            name = node.get("format")
            if isinstance(name, str) and name not in checkers:
                found.append((f"{pointer}/format", name))
            stack.extend((child, pointer + where) for child, where, _ in subschemas(node))
    return sorted(found)
