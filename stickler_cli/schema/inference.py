"""Infer an annotated schema from records: no schema to write (``stickler schema infer``).

Pure: parsed records in, a schema (a dict ``compile_schema`` takes) and notes out; no files.
The ground truth's records alone choose the types and comparators: predictions only add notes
where they differ (a model's mistakes must not pick how it is judged). Each field's comparator
follows the rules stickler-eval 1.0.0's ``stickler.auto`` applies to a pydantic field, read
here from the values instead of a Python annotation, with more words that say identifier
(``DATA_RULES``: ``invoice_number``, ``iban`` -> strict Exact; docs/parity.md row 36):

- the type decides first: boolean, enum (a small set of repeated strings) and mixed types ->
  exact; integer -> numeric, exact; number -> numeric, relative tolerance 0.001, threshold 0.95;
  ISO date -> DateComparator 0.95 (ISO date-time: one minute of tolerance); string -> Levenshtein 0.7;
- a word of the field's name refines it where the type allows (``invoice_id`` -> exact,
  ``total_amount`` -> numeric with tolerance, ``phone`` -> PhoneComparator, ...); a name whose rule
  does not fit the values (``end_date`` holding "INV-2025-2070") keeps the type's choice;
- model-backed comparators (semantic, BERT, LLM) are never chosen, and a comparator this
  installation lacks (PhoneComparator without the ``phone`` extra) becomes Levenshtein, as there.

The library's rules alone (``RULES``) serve a schema that asks for them
(``x-aws-stickler-infer-unspecified``, or ``"x-aws-stickler-comparator": "auto"``), as stickler-eval does:
``choose_for_property`` reads the property's JSON type and format as the library's importer types them.
Every property says why in its ``description``; what the data made doubtful (mixed types, only nulls,
only empty lists, lines that are not objects, predictions unlike the ground truth) is returned as notes,
never raised.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..errors import InputError
from .conformance import ROOT

# A field is an enum when its string values are few, short and repeated: at most ENUM_MAX_VALUES
# distinct values of at most ENUM_VALUE_CHARS characters, each seen ENUM_MIN_REPEATS times on
# average. Distinct values are tracked only up to the bound, so a field costs bounded memory.
ENUM_MAX_VALUES = 10
ENUM_VALUE_CHARS = 40
ENUM_MIN_REPEATS = 3
# Strings longer than this are never tested for a format (a date or a UUID is far shorter).
FORMAT_CHARS = 100
# stickler-eval's tolerances for what it infers: numbers (relative), date-times (days: one minute).
RELATIVE_TOLERANCE = 0.001
DATETIME_TOLERANCE_DAYS = 1.0 / (24 * 60)
MATCH_THRESHOLD = 0.7  # lists of objects: Hungarian pairs at or above it are compared field by field
WHOLE_THRESHOLD = 0.7  # a structure scored as one value by ANLS* (as stickler-eval scores a dict)
MODEL_BACKED = frozenset({"SemanticComparator", "BERTComparator", "LLMComparator"})  # never chosen

STRINGY, NUMERIC, TEMPORAL = "string", "numeric", "temporal"


@dataclass(frozen=True)
class Choice:
    """A comparator choice and the reason for it, as written into the schema."""

    comparator: str
    config: dict[str, Any]
    threshold: float
    clip: bool
    reason: str


@dataclass(frozen=True)
class _Rule:
    label: str
    tokens: frozenset[str]  # a word anywhere in the name
    comparator: str
    config: dict[str, Any]
    threshold: float
    families: frozenset[str]
    heads: frozenset[str] = frozenset()  # the last word of a name of several words (invoice_no, not no_items)
    last: frozenset[str] = frozenset()  # the last word, alone too (vat, supplier_vat; not vat_amount)
    # Gives way to the next rule when it does not fit the values (the library's rules stop the search there):
    # a rule added to the library's must change nothing where it does not apply (vat_amount holding 19.5).
    yields: bool = False


def _rule(
    label: str,
    tokens: str,
    comparator: str,
    config: dict[str, Any],
    threshold: float,
    *families: str,
    heads: str = "",
    last: str = "",
    yields: bool = False,
) -> _Rule:
    return _Rule(
        label,
        frozenset(tokens.split()),
        comparator,
        config,
        threshold,
        frozenset(families),
        frozenset(heads.split()),
        frozenset(last.split()),
        yields,
    )


# Name-token rules, first match wins (stickler-eval's order: phone and postal codes before the
# identifier rule, whose "code" would otherwise take zip_code). Ambiguous words (type, state,
# number, key, level) are deliberately absent: such a field keeps its type's choice.
EXACT_STRICT = {"case_sensitive": True}
RULES: tuple[_Rule, ...] = (
    _rule("phone number", "phone", "PhoneComparator", {}, 1.0, STRINGY),
    _rule("postal code", "zip postal postcode", "ExactComparator", EXACT_STRICT, 1.0, STRINGY),
    _rule("identifier", "id uuid guid sku code ref isbn ssn", "ExactComparator", EXACT_STRICT, 1.0, STRINGY, NUMERIC),
    _rule("email or URL", "email url uri", "ExactComparator", {"case_sensitive": False}, 1.0, STRINGY),
    _rule(
        "money",
        "amount price total subtotal cost balance fee tax salary revenue",
        "NumericComparator",
        {"relative_tolerance": RELATIVE_TOLERANCE},
        0.95,
        NUMERIC,
    ),
    _rule("count", "quantity qty count units", "NumericComparator", {}, 1.0, NUMERIC),
    _rule("date", "date dob expiry expires created updated issued due birthdate", "DateComparator", {}, 0.95, TEMPORAL),
    _rule("name", "name customer vendor company contact author recipient", "LevenshteinComparator", {}, 0.85, STRINGY),
    _rule(
        "address", "address addr street city location", "FuzzyComparator", {"method": "token_sort_ratio"}, 0.8, STRINGY
    ),
    _rule(
        "free text",
        "description desc summary notes note comment comments remarks memo body text",
        "FuzzyComparator",
        {"method": "token_set_ratio"},
        0.6,
        STRINGY,
    ),
)

# What `stickler schema infer` (and `eval GT PRED`) read in a name beyond the library's rules (docs/parity.md row
# 36): more words that say identifier, compared strictly, for text values. Levenshtein 0.7 on `invoice_number`
# made A90698 against A9O698 a TP (issue 37). A word anywhere in the name: bank, product and security
# identifiers; the last word of a name of several words: number, no, nr, num, nbr (`po_number`, `invoice_no`;
# not `number_of_items`, nor `number` alone: a count as often as an identifier); the last word, alone too: vat,
# tin, ein (`vat`, `supplier_vat`; not `vat_amount` or `vat_rate`). Numbers keep the type's rule (integers are
# compared exactly already, and `vat_amount` holding 19.5 stays money). The schema's own inference
# (x-aws-stickler-infer-unspecified, comparator "auto") keeps the library's RULES.
IDENTIFIER_WORDS = "iban bic swift ean upc gtin isin cusip vin imei serial barcode"
IDENTIFIER_HEADS = "number no nr num nbr"
IDENTIFIER_LAST = "vat tin ein"
DATA_RULES: tuple[_Rule, ...] = (
    *RULES[:2],
    _rule(
        "identifier",
        IDENTIFIER_WORDS,
        "ExactComparator",
        EXACT_STRICT,
        1.0,
        STRINGY,
        heads=IDENTIFIER_HEADS,
        last=IDENTIFIER_LAST,
        yields=True,
    ),
    *RULES[2:],
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_DIGITS = re.compile(r"(?<=[a-zA-Z])(?=[0-9])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")


def name_words(name: str) -> list[str]:
    """The words of a field name in order, lower-cased: camelCase and snake_case split, digits split off."""
    spaced = _DIGITS.sub("_", _CAMEL.sub("_", name)).lower()
    return [w for w in _SEPARATORS.split(spaced) if w]


def _with_singulars(words: Iterable[str]) -> frozenset[str]:
    found = set(words)
    for w in list(found):
        if w.endswith("es") and len(w) > 3:
            found.add(w[:-2])
        if w.endswith("s") and len(w) > 2:
            found.add(w[:-1])
    return frozenset(found)


def name_tokens(name: str) -> frozenset[str]:
    """The words of a field name, lower-cased: camelCase and snake_case split, digits split off
    (``isbn13`` -> isbn), plurals also singular (``ids`` -> id, ``addresses`` -> address)."""
    return _with_singulars(name_words(name))


def _matching_rule(name: str, rules: tuple[_Rule, ...] = RULES, family: str | None = None) -> tuple[_Rule, str] | None:
    """The first rule a word of ``name`` names, and that word; a rule that ``yields`` is passed over when the
    values' ``family`` is not one of its own."""
    words = name_words(name)
    tokens = _with_singulars(words)
    last = _with_singulars(words[-1:])
    heads = last if len(words) > 1 else frozenset()
    for rule in rules:
        hit = tokens & rule.tokens or heads & rule.heads or last & rule.last
        if hit and not (rule.yields and family not in rule.families):
            return rule, min(hit)
    return None


# The type of a field's values, as stickler-eval's type rules see a Python annotation:
# kind -> (comparator, config, threshold, family the name rules may refine, reason).
_TYPE_RULES: dict[str, tuple[str, dict[str, Any], float, str | None, str]] = {
    "boolean": ("ExactComparator", {}, 1.0, None, "booleans"),
    "enum": ("ExactComparator", {}, 1.0, None, "a small set of repeated values"),
    "mixed": ("ExactComparator", {}, 1.0, None, "values of several types"),
    "integer": ("NumericComparator", {}, 1.0, NUMERIC, "integers"),
    "number": ("NumericComparator", {"relative_tolerance": RELATIVE_TOLERANCE}, 0.95, NUMERIC, "numbers"),
    "date": ("DateComparator", {}, 0.95, TEMPORAL, "ISO dates"),
    "date-time": ("DateComparator", {"tolerance": DATETIME_TOLERANCE_DAYS}, 0.95, TEMPORAL, "ISO date-times"),
    # Dates written out otherwise (15/03/2024, March 15, 2024): the library's rule for a date (stickler's reading).
    "written-date": ("DateComparator", {}, 0.95, TEMPORAL, "dates"),
    "string": ("LevenshteinComparator", {}, 0.7, STRINGY, "strings"),
    # Formats stickler-eval cannot see in a str annotation: the exact rule it gives the same names.
    "email": ("ExactComparator", {"case_sensitive": False}, 1.0, STRINGY, "email addresses"),
    "uri": ("ExactComparator", {"case_sensitive": False}, 1.0, STRINGY, "URLs"),
    "uuid": ("ExactComparator", EXACT_STRICT, 1.0, STRINGY, "UUIDs"),
}
KINDS = tuple(_TYPE_RULES)


def choose(name: str, kind: str, unavailable: frozenset[str] = frozenset(), rules: tuple[_Rule, ...] = RULES) -> Choice:
    """The comparator for a field called ``name`` whose values are of ``kind`` (one of KINDS):
    the type's choice, refined by the first name rule (of ``rules``: the library's, or DATA_RULES) that fits
    the type; a comparator in ``unavailable`` (or a model-backed one) becomes Levenshtein (Exact for dates),
    threshold kept."""
    return _decide(name, _TYPE_RULES[kind], unavailable, rules)


def _decide(
    name: str,
    type_rule: tuple[str, dict[str, Any], float, str | None, str],
    unavailable: frozenset[str],
    rules: tuple[_Rule, ...] = RULES,
) -> Choice:
    comparator, config, threshold, family, seen = type_rule
    clip = True
    reason = seen
    found = _matching_rule(name, rules, family)
    if found is not None:
        rule, token = found
        if family is not None and family in rule.families:
            comparator, config, threshold = rule.comparator, rule.config, rule.threshold
            reason = f"name token {token!r} ({rule.label}), {seen}"
            clip = rule.config.get("method") != "token_set_ratio"  # free text keeps partial credit
        else:
            reason = f"{seen} (name token {token!r} suggests {rule.label}, which does not fit them)"
    if comparator in unavailable or comparator in MODEL_BACKED:
        fallback = "ExactComparator" if comparator == "DateComparator" else "LevenshteinComparator"
        reason += f"; {comparator} is not installed here, so {fallback}"
        comparator, config = fallback, {}
    if comparator == "ExactComparator":  # stickler-eval's Exact: case-sensitive unless said, never normalised
        config = {"case_sensitive": config.get("case_sensitive", True), "normalize": False}
    return Choice(comparator, dict(config), threshold, clip, reason)


# -- a property of a schema (x-aws-stickler-infer-unspecified, "x-aws-stickler-comparator": "auto") --------
# stickler-eval reads a JSON Schema property through its Python type, then infers as above: format date and
# date-time are dates, email (and any other format) stays a string, while uri, uuid and time become types
# (URL, UUID, time) that no name rule refines and that are compared exactly, as are a union of several types
# and null. The kinds a schema property maps to, with the reason shown by `stickler schema check`:
_EXACT_TYPED = ("ExactComparator", {}, 1.0, None)
SCHEMA_RULES: dict[str, tuple[str, dict[str, Any], float, str | None, str]] = {
    "boolean": (*_TYPE_RULES["boolean"][:4], "type boolean"),
    "enum": (*_TYPE_RULES["enum"][:4], "enum or const"),
    "integer": (*_TYPE_RULES["integer"][:4], "type integer"),
    "number": (*_TYPE_RULES["number"][:4], "type number"),
    "date": (*_TYPE_RULES["date"][:4], "format date"),
    "date-time": (*_TYPE_RULES["date-time"][:4], "format date-time"),
    "string": (*_TYPE_RULES["string"][:4], "type string"),
    "uri": (*_EXACT_TYPED, "format uri (a URL: compared exactly, names not read)"),
    "uuid": (*_EXACT_TYPED, "format uuid (compared exactly, names not read)"),
    "time": (*_EXACT_TYPED, "format time (compared exactly, names not read)"),
    "union": (*_EXACT_TYPED, "several types (compared exactly, names not read)"),
    "null": (*_EXACT_TYPED, "type null (compared exactly)"),
}
SCHEMA_FORMATS = {"date": "date", "date-time": "date-time", "uri": "uri", "uuid": "uuid", "time": "time"}


def choose_for_property(name: str, kind: str, unavailable: frozenset[str] = frozenset()) -> Choice:
    """The inferred choice for a schema property named ``name`` of ``kind`` (a key of SCHEMA_RULES), as
    stickler-eval 1.0.0 infers it for a property of an object with ``x-aws-stickler-infer-unspecified``.
    The name read is the part after the last '.' (the library reads the field's path)."""
    return _decide(name.rsplit(".", 1)[-1] or "value", SCHEMA_RULES[kind], unavailable)


def choose_for_mapping(match_threshold: float) -> Choice:
    """A free-form mapping (an object schema without properties): one value for ANLS*, judged at the
    enclosing object's match threshold and not clipped, so a mapping mostly right keeps its partial score."""
    return Choice(
        "ANLSStarComparator",
        {},
        match_threshold,
        False,
        "a free-form mapping: one value for ANLS*, at the object's match threshold",
    )


def unavailable_comparators() -> frozenset[str]:
    """Built-in comparators whose optional extra is not installed here (inference never chooses them)."""
    from ..comparators.registry import lookup

    return frozenset(
        name for name in ("PhoneComparator", "FuzzyComparator", "DateComparator") if not lookup(name).available()
    )


# -- looking at the values ------------------------------------------------------------

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$")
_ZONED = re.compile(r"(Z|[+-]\d{2}:\d{2})$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s]+$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
FORMATS = ("date", "date-time", "email", "uri", "uuid")
# Dates in other common spellings, ISO's too (a mix of both is still dates): read by DateComparator, not a JSON
# Schema `format` (which means ISO 8601). Each must also read as one full calendar date (date.read_single).
WRITTEN_DATE = "written-date"
_MONTH_WORD = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?"
_DAY_AND_MONTH = re.compile(r"^(\d{1,2})([/.-])(\d{1,2})\2\d{4}$")  # 15/03/2024, 03-15-2024: order in question
_WRITTEN_DATES = (
    _DAY_AND_MONTH,
    _DATE,
    re.compile(r"^\d{4}([/.])\d{1,2}\1\d{1,2}$"),
    re.compile(rf"^\d{{1,2}}(?:st|nd|rd|th)?[ -]{_MONTH_WORD},?[ -]\d{{4}}$", re.IGNORECASE),
    re.compile(rf"^{_MONTH_WORD} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}$", re.IGNORECASE),
)
_CHECKED = (*FORMATS, WRITTEN_DATE)


def _is_format(name: str, text: str) -> bool:
    if name == "date":
        if not _DATE.match(text):
            return False
        try:
            datetime.date.fromisoformat(text)
        except ValueError:
            return False
        return True
    if name == "date-time":
        if not _DATETIME.match(text):
            return False
        try:
            datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return False
        return True
    if name == WRITTEN_DATE:
        return _is_written_date(text)
    pattern = {"email": _EMAIL, "uri": _URI, "uuid": _UUID}[name]
    return bool(pattern.match(text))


def _is_written_date(text: str) -> bool:
    if not any(pattern.match(text) for pattern in _WRITTEN_DATES):
        return False
    from ..comparators.date import read_single  # only here: inferring from data (dateutil is imported then)

    reading = read_single(text, False)
    return reading is not None and reading.has_year and reading.has_month and reading.has_day


@dataclass
class _Shape:
    """What was seen at one place of the records (a property, or the items of a list)."""

    present: int = 0  # values seen, null included
    nulls: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # JSON type -> count
    formats: set[str] | None = None  # the formats every string so far has; None before the first
    zoned: bool = True  # every date-time string so far carries its time zone
    day_first: set[bool] = field(default_factory=set)  # numeric dates with a day above 12: first (True), second
    numeric_dates: bool = False  # a date written with day and month in numbers was seen
    values: dict[str, int] | None = field(default_factory=dict)  # string -> count; None past the enum bounds
    objects: int = 0
    keys: dict[str, "_Shape"] = field(default_factory=dict)
    items: "_Shape | None" = None
    arrays: int = 0
    empty_arrays: int = 0
    too_deep: bool = False


def _kind(value: Any) -> str:
    kind = type(value)
    if kind is bool:
        return "boolean"
    if kind is int:
        return "integer"
    if kind is float:
        return "number"
    if kind is str:
        return "string"
    if kind is dict:
        return "object"
    return "array"


class _Observer:
    def __init__(self, max_depth: int, max_fields: int) -> None:
        self.max_depth = max_depth
        self.max_fields = max_fields
        self.fields = 0
        self.capped = False

    def see(self, shape: _Shape, value: Any, depth: int) -> None:
        shape.present += 1
        if type(value) is dict and "_value" in value:  # a value with its metadata (_confidence, _bbox)
            value = value["_value"]
        if value is None:
            shape.nulls += 1
            return
        kind = _kind(value)
        shape.kinds[kind] = shape.kinds.get(kind, 0) + 1
        if kind == "string":
            _see_string(shape, value)
        elif kind == "object":
            shape.objects += 1
            if depth >= self.max_depth:
                shape.too_deep = True
                return
            for key, sub in value.items():
                child = shape.keys.get(key)
                if child is None:
                    if self.fields >= self.max_fields:
                        self.capped = True
                        continue
                    self.fields += 1
                    child = shape.keys[key] = _Shape()
                self.see(child, sub, depth + 1)
        elif kind == "array":
            shape.arrays += 1
            if not value:
                shape.empty_arrays += 1
                return
            if depth >= self.max_depth:
                shape.too_deep = True
                return
            if shape.items is None:
                shape.items = _Shape()
            for item in value:
                self.see(shape.items, item, depth + 1)


def _see_string(shape: _Shape, text: str) -> None:
    if shape.formats is None:
        shape.formats = set(_CHECKED)
    if shape.formats:
        if len(text) > FORMAT_CHARS:
            shape.formats = set()
        else:
            shape.formats = {f for f in shape.formats if _is_format(f, text)}
            if "date-time" in shape.formats and not _ZONED.search(text):
                shape.zoned = False
            if WRITTEN_DATE in shape.formats and (numeric := _DAY_AND_MONTH.match(text)):
                shape.numeric_dates = True
                first, second = int(numeric[1]), int(numeric[3])
                if first > 12:
                    shape.day_first.add(True)
                if second > 12:
                    shape.day_first.add(False)
    if shape.values is not None:
        if len(text) > ENUM_VALUE_CHARS:
            shape.values = None
        else:
            shape.values[text] = shape.values.get(text, 0) + 1
            if len(shape.values) > ENUM_MAX_VALUES:
                shape.values = None


# -- writing the schema -----------------------------------------------------------------


@dataclass
class Inferred:
    """The inferred schema, the notes on what looked doubtful, and what was read."""

    schema: dict[str, Any]
    notes: list[str]
    records: int  # objects the schema was inferred from
    skipped: int  # records that were not JSON objects


@dataclass
class _Builder:
    unavailable: frozenset[str]
    notes: list[str] = field(default_factory=list)
    claimed: set[str] = field(default_factory=set)

    def note(self, path: str, message: str) -> None:
        self.notes.append(f"{path}: {message}")

    def choose(self, name: str, kind: str, shape: _Shape | None = None, path: str = "") -> Choice:
        """The choice for values of the data: the library's rules and the identifier words (DATA_RULES); dates
        written with day and month in numbers are read in the order the ground truth shows (``dayfirst``)."""
        choice = choose(name, kind, self.unavailable, DATA_RULES)
        if kind != WRITTEN_DATE or choice.comparator != "DateComparator" or shape is None:
            return choice
        if shape.day_first:
            first = next(iter(shape.day_first))
            return dataclasses.replace(
                choice,
                config={**choice.config, "dayfirst": first},
                reason=f"{choice.reason}, written {'day' if first else 'month'} first",
            )
        if shape.numeric_dates:
            self.note(
                path,
                "dates whose day and month are both 12 or less: read both ways (day first and month "
                "first, the better kept); set dayfirst in x-aws-stickler-comparator-config",
            )
        return choice

    def model(self, shape: _Shape, prefix: str) -> tuple[dict[str, Any], list[str]]:
        """(properties, required) of an object shape."""
        properties: dict[str, Any] = {}
        for key, child in shape.keys.items():
            path = f"{prefix}{key}"
            if path == ROOT or path in self.claimed or not key:
                self.note(
                    path or "''",
                    "left out: its name collides with another field's path (a '.' in a "
                    "name reads as nesting) or names the document itself",
                )
                continue
            self.claimed.add(path)
            properties[key] = self.property(key, child, path)
        required = [key for key, child in shape.keys.items() if key in properties and child.present == shape.objects]
        return properties, required

    def property(self, name: str, shape: _Shape, path: str) -> dict[str, Any]:
        kinds = set(shape.kinds)
        if kinds == {"integer", "number"}:
            kinds = {"number"}
        seen = _seen(shape)
        if not kinds:
            self.note(path, f"only null seen ({shape.nulls:,} values): typed null and compared exactly; give it a type")
            return _annotated({"type": "null"}, self.choose(name, "mixed"), seen, "no value to infer a type from")
        if len(kinds) > 1:
            listed = ", ".join(sorted(kinds))
            if kinds & {"object", "array"}:
                self.note(path, f"values of several types ({listed}): scored as one value by ANLS*")
                return self.whole(shape, sorted(kinds), seen, f"values of several types ({listed})")
            self.note(path, f"values of several types ({listed}): compared exactly")
            return _annotated({"type": _nullable(sorted(kinds), shape)}, self.choose(name, "mixed"), seen)
        kind = kinds.pop()
        if kind == "object":
            return self.object(shape, path, seen)
        if kind == "array":
            return self.array(name, shape, path, seen)
        node, value_kind = _primitive(name, kind, shape)
        node["type"] = _nullable([node["type"]], shape)
        return _annotated(node, self.choose(name, value_kind, shape, path), seen)

    def object(self, shape: _Shape, path: str, seen: str) -> dict[str, Any]:
        if shape.too_deep or not shape.keys:
            why = "nested deeper than the schema-depth limit" if shape.too_deep else "only empty objects seen"
            self.note(path, f"{why}: scored as one value by ANLS*")
            return self.whole(shape, ["object"], seen, why)
        properties, required = self.model(shape, f"{path}.")
        if not properties:
            self.note(path, "no field of its own left: scored as one value by ANLS*")
            return self.whole(shape, ["object"], seen, "no field of its own left")
        node = {
            "type": _nullable(["object"], shape),
            "description": f"object, compared field by field; seen: {seen}",
            "x-aws-stickler-weight": 1.0,
            "properties": properties,
        }
        if required:
            node["required"] = required
        return node

    def array(self, name: str, shape: _Shape, path: str, seen: str) -> dict[str, Any]:
        items = shape.items
        if items is None or shape.too_deep:
            why = "only empty lists seen" if items is None and not shape.too_deep else "nested too deeply"
            self.note(path, f"{why}: item type unknown, the list is scored as one value by ANLS*")
            return self.whole(shape, ["array"], seen, why)
        kinds = set(items.kinds)
        if kinds == {"integer", "number"}:
            kinds = {"number"}
        item_seen = f"{items.present - items.nulls:,} items" + (f" ({items.nulls:,} null)" if items.nulls else "")
        seen = _seen(shape, "lists")
        if kinds == {"object"} and items.keys and not items.too_deep:
            properties, required = self.model(items, f"{path}.")
            if not properties:
                self.note(path, "no field of its own left in its items: scored as one value by ANLS*")
                return self.whole(shape, ["array"], seen, "no field of its own left in its items")
            item_node: dict[str, Any] = {
                "type": _nullable(["object"], items),
                "properties": properties,
                "x-aws-stickler-match-threshold": MATCH_THRESHOLD,
            }
            if required:
                item_node["required"] = required
            return {
                "type": _nullable(["array"], shape),
                "items": item_node,
                "x-aws-stickler-weight": 1.0,
                "description": f"list of objects, paired by Hungarian matching; seen: {seen}, {item_seen}",
            }
        if len(kinds) != 1 or kinds & {"object", "array"}:
            listed = ", ".join(sorted(kinds)) or "null"
            self.note(path, f"list items of type {listed}: the list is scored as one value by ANLS*")
            return self.whole(shape, ["array"], seen, f"list items of type {listed}")
        kind = kinds.pop()
        node, value_kind = _primitive(name, kind, items)
        node["type"] = _nullable([node["type"]], items)
        prop = _annotated(
            {"type": _nullable(["array"], shape), "items": node},
            self.choose(name, value_kind, items, path),
            f"{seen}, {item_seen}",
        )
        prop["description"] = "list: " + prop["description"]
        return prop

    def whole(self, shape: _Shape, types: list[str], seen: str, why: str) -> dict[str, Any]:
        """A structure no field-by-field schema fits, scored as one value (as stickler-eval scores a dict)."""
        choice = Choice("ANLSStarComparator", {}, WHOLE_THRESHOLD, False, f"{why}: ANLS* scores it as one value")
        return _annotated({"type": _nullable(types, shape)}, choice, seen)


def _primitive(name: str, kind: str, shape: _Shape) -> tuple[dict[str, Any], str]:
    """(schema node, value kind for ``choose``) of a string, number, integer or boolean field."""
    node: dict[str, Any] = {"type": kind}
    if kind != "string":
        return node, kind
    formats = shape.formats or set()
    for name_of_format in FORMATS:
        if name_of_format in formats:
            if name_of_format != "date-time" or shape.zoned:  # RFC 3339 wants the zone
                node["format"] = name_of_format
            return node, name_of_format
    if WRITTEN_DATE in formats and len(shape.day_first) < 2:  # both orders seen: not one way of writing dates
        return node, WRITTEN_DATE
    values = shape.values
    strings = shape.kinds.get("string", 0)
    found = _matching_rule(name, DATA_RULES, STRINGY)
    named = found is not None and STRINGY in found[0].families  # a name rule for text beats a value set
    if values and len(values) * ENUM_MIN_REPEATS <= strings and not named:
        node["enum"] = sorted(values)
        return node, "enum"
    return node, "string"


def _nullable(types: list[str], shape: _Shape) -> Any:
    if shape.nulls:
        types = [*types, "null"]
    return types[0] if len(types) == 1 else types


def _seen(shape: _Shape, what: str = "values") -> str:
    parts = [f"{shape.present - shape.nulls:,} {what}"]
    if shape.nulls:
        parts.append(f"{shape.nulls:,} null")
    return ", ".join(parts)


def _annotated(node: dict[str, Any], choice: Choice, seen: str, reason: str | None = None) -> dict[str, Any]:
    node["description"] = f"{reason or choice.reason}; seen: {seen}"
    node["x-aws-stickler-comparator"] = choice.comparator
    if choice.config:
        node["x-aws-stickler-comparator-config"] = choice.config
    node["x-aws-stickler-threshold"] = choice.threshold
    node["x-aws-stickler-weight"] = 1.0
    node["x-aws-stickler-clip-under-threshold"] = choice.clip
    return node


def _observe(observer: _Observer, root: _Shape, records: Iterable[Any]) -> tuple[int, int]:
    """(objects seen, records skipped that are not JSON objects)."""
    read = skipped = 0
    for record in records:
        if type(record) is not dict:
            skipped += 1
            continue
        read += 1
        observer.see(root, record, 0)
    return read, skipped


def infer_schema(
    records: Iterable[Any],
    *,
    source: str = "the records",
    max_depth: int = 64,
    max_fields: int = 10_000,
    unavailable: Iterable[str] = (),
    predictions: Iterable[Any] = (),
    predictions_source: str = "the predictions",
) -> Inferred:
    """An annotated schema for ``records`` (parsed JSON values of the ground truth; those that are not
    objects are counted and skipped). ``predictions`` never choose a type or a comparator (a model's mistake
    must not pick how it is judged: a string in `total` made it Exact, issue 37): they only add notes where
    they differ from the ground truth. ``max_depth`` and ``max_fields`` bound what is looked at (the
    schema-depth and plan-fields limits); ``unavailable`` names comparators not installed here.
    Raises InputError when no record gives a field to compare."""
    observer = _Observer(max_depth, max_fields)
    root = _Shape()
    read, skipped = _observe(observer, root, records)
    builder = _Builder(frozenset(unavailable))
    if skipped:
        builder.notes.append(f"{skipped:,} records were not JSON objects: skipped")
    if observer.capped:
        builder.notes.append(f"more than {max_fields:,} fields: the rest left out (--limit plan-fields=N takes more)")
    properties, required = builder.model(root, "")
    if not properties:
        raise InputError("no field to infer a schema from: no record is a JSON object with a key", source)
    predicted = _Shape()
    _, pred_skipped = _observe(_Observer(max_depth, max_fields), predicted, predictions)
    if pred_skipped:
        builder.notes.append(f"{pred_skipped:,} records of {predictions_source} were not JSON objects")
    _differences(root, predicted, "", set(builder.claimed), builder.notes)
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Inferred by stickler schema infer",
        "description": f"Inferred from {read:,} records of {source}: check each field's comparator, threshold "
        "and weight before relying on the scores.",
        "type": "object",
        "x-aws-stickler-model-name": "Inferred",
        "x-aws-stickler-match-threshold": MATCH_THRESHOLD,
        "properties": properties,
    }
    if required:
        schema["required"] = required
    return Inferred(schema, builder.notes, read, skipped)


# -- what the predictions hold that the ground truth does not (notes only) -------------------------------

_FORMAT_LABELS = {
    "date": "ISO dates",
    "date-time": "ISO date-times",
    "email": "email addresses",
    "uri": "URLs",
    "uuid": "UUIDs",
}


def _differences(truth: _Shape, predicted: _Shape, prefix: str, schema_paths: set[str], notes: list[str]) -> None:
    """Notes on the keys of ``predicted`` (an object's shape) the ground truth's object has not, and on the
    values of each key both have that are of other types or formats (a field the schema left out is not named)."""
    for key, theirs in predicted.keys.items():
        path = f"{prefix}{key}"
        ours = truth.keys.get(key)
        if ours is None:
            values = theirs.present - theirs.nulls
            notes.append(
                f"{path}: only in the predictions ({values:,} value{'s' * (values != 1)}): not in the schema, "
                "not scored"
            )
        elif path in schema_paths:
            _value_differences(ours, theirs, path, schema_paths, notes)


def _value_differences(truth: _Shape, predicted: _Shape, path: str, schema_paths: set[str], notes: list[str]) -> None:
    ours, theirs = set(truth.kinds), set(predicted.kinds)
    if "number" in ours:
        theirs.discard("integer")  # a whole number where numbers are expected is one
    if ours and theirs - ours:
        other = ", ".join(f"{kind} ({predicted.kinds[kind]:,})" for kind in sorted(theirs - ours))
        notes.append(
            f"{path}: the predictions also hold {other} where the ground truth holds "
            f"{', '.join(sorted(ours))}: the comparator follows the ground truth"
        )
    chosen = next((f for f in FORMATS if f in (truth.formats or ())), None)  # as _primitive chooses it
    if ours == {"string"} and "string" in theirs and chosen and chosen not in (predicted.formats or ()):
        notes.append(f"{path}: not every predicted value is one of the {_FORMAT_LABELS[chosen]} the ground truth holds")
    if ours == {"object"} and theirs == {"object"}:
        _differences(truth, predicted, f"{path}.", schema_paths, notes)
    elif ours == {"array"} and truth.items is not None and predicted.items is not None:
        if set(truth.items.kinds) == {"object"}:
            _differences(truth.items, predicted.items, f"{path}.", schema_paths, notes)
        else:
            _value_differences(truth.items, predicted.items, path, schema_paths, notes)
