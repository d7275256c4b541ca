"""Comparators (seed examples, hand-computed values) and the schema compiler's rules."""

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from rapidfuzz import fuzz

import stickler_cli as st
from stickler_cli.comparators import build
from stickler_cli.errors import SchemaError
from stickler_cli.plan import Kind


def test_exact_follows_the_seeds_by_default_and_strict_on_request():
    assert build("ExactComparator").similarity("hello, world!", "hello world") == 1.0
    assert build("ExactComparator").similarity("hello", "goodbye") == 0.0
    strict = build("ExactComparator", {"case_sensitive": True, "normalize": False})
    assert strict.similarity("SHP-2024-001", "SHP 2024 001") == 0.0
    assert strict.similarity("Hello", "hello") == 0.0
    assert build("ExactComparator", {"normalize": False}).similarity("STRASSE", "straße") == 1.0


@settings(deadline=None, max_examples=300)
@given(
    text=hs.text(alphabet=hs.characters(max_codepoint=127), max_size=16),
    case_sensitive=hs.booleans(),
    normalize=hs.booleans(),
)
def test_exact_keys_of_ascii_texts_are_the_general_rule(text, case_sensitive, normalize):
    """ASCII text takes a shortcut (lower case, bytes.translate): the same key as case folding and dropping
    string.punctuation and string.whitespace (not every str.isspace character: U+001C-U+001F stay)."""
    expected = text if case_sensitive else text.casefold()
    if normalize:
        expected = "".join(ch for ch in expected if ch not in string.punctuation + string.whitespace)
    assert build("ExactComparator", {"case_sensitive": case_sensitive, "normalize": normalize}).key(text) == expected
    assert build("ExactComparator").key("A\x1cB, c") == "a\x1cbc"


def test_levenshtein_is_one_minus_edits_over_length():
    lev = build("LevenshteinComparator")
    assert lev.similarity("USB Cable", "USB Cord") == pytest.approx(1 - 4 / 9)
    assert lev.similarity("  A  b ", "a b") == 1.0
    assert build("LevenshteinComparator", {"normalize": False}).similarity("A", "a") == 0.0


@pytest.mark.parametrize(
    "config, gt, pred, expected",
    [
        ({}, "123", "123.0", 1.0),
        ({}, "123", "124", 0.0),
        ({"relative_tolerance": 0.1}, "100", "109", 1.0),
        ({"relative_tolerance": 0.1}, "100", "111", 0.0),
        ({"tolerance": 0.02}, 1247.50, 1247.48, 1.0),
        ({"absolute_tolerance": 0.3}, 1.0, 1.3, 1.0),  # decimal, not binary: see docs/parity.md
        ({}, "$1,234.50", 1234.5, 1.0),
        ({}, "(12.50)", -12.5, 1.0),
        ({}, "abc", 1, 0.0),
        ({"relative_tolerance": 0.5, "absolute_tolerance": 0.01}, 0, 0.005, 1.0),
    ],
)
def test_numeric(config, gt, pred, expected):
    assert build("NumericComparator", config).similarity(gt, pred) == expected


@pytest.mark.parametrize("method", ["ratio", "partial_ratio", "token_sort_ratio", "token_set_ratio"])
def test_fuzzy_methods_match_rapidfuzz(method):
    a, b = "Acme Widget Corp", "widget acme corporation"
    expected = getattr(fuzz, method)(a.lower(), b.lower()) / 100
    assert build("FuzzyComparator", {"method": method}).similarity(a, b) == pytest.approx(expected)


def test_comparator_option_errors():
    with pytest.raises(ValueError, match="must be one of"):
        build("FuzzyComparator", {"method": "cosine"})
    with pytest.raises(ValueError, match="must be a boolean"):
        build("LevenshteinComparator", {"normalize": "yes"})
    with pytest.raises(ValueError, match="not both"):
        build("NumericComparator", {"tolerance": 0.1, "absolute_tolerance": 0.2})


def test_defaults_by_json_type():
    plan = st.compile_schema(
        {
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "n": {"type": "number"},
                "i": {"type": "integer"},
                "b": {"type": "boolean"},
                "e": {"type": "string", "enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "number"}},
                "o": {"type": "object", "properties": {"x": {"type": "string"}}},
                "l": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "string"}}}},
            },
        }
    )
    got = {f.path: (f.kind, f.comparator_name, f.threshold, f.weight, f.clip) for f in plan.fields}
    assert got["s"] == (Kind.PRIMITIVE, "LevenshteinComparator", 0.5, 1.0, False)
    assert got["n"][1:3] == ("NumericComparator", 0.5) and got["i"][1:3] == ("NumericComparator", 0.5)
    assert got["b"][1:3] == ("ExactComparator", 1.0)
    assert got["e"][1:3] == ("ExactComparator", 1.0)
    assert got["tags"][:3] == (Kind.PRIMITIVE_LIST, "NumericComparator", 0.5)
    assert got["o"][0] is Kind.OBJECT and got["o"][2] == 0.7
    assert got["l"][0] is Kind.OBJECT_LIST
    assert plan.root.field("l").model.match_threshold == 0.7
    assert plan.model_name == "DynamicModel"


def test_refs_nullable_and_anyof():
    plan = st.compile_schema(
        {
            "type": "object",
            "x-aws-stickler-model-name": "Doc",
            "$defs": {
                "Addr": {
                    "type": "object",
                    "x-aws-stickler-match-threshold": 0.6,
                    "properties": {"c": {"type": "string"}},
                }
            },
            "definitions": {"Code": {"type": "string"}},
            "properties": {
                "a": {"$ref": "#/$defs/Addr", "x-aws-stickler-weight": 3},
                "items": {"type": "array", "items": {"$ref": "#/$defs/Addr"}},
                "code": {"$ref": "#/definitions/Code", "x-aws-stickler-comparator": "ExactComparator"},
                "n": {"type": ["number", "null"]},
                "m": {"anyOf": [{"type": "integer"}, {"type": "null"}], "x-aws-stickler-threshold": 0.9},
            },
        }
    )
    f = {x.path: x for x in plan.fields}
    assert f["a"].kind is Kind.OBJECT and f["a"].weight == 3 and f["a.c"].path == "a.c"
    assert f["items"].model.match_threshold == 0.6
    assert f["code"].comparator_name == "ExactComparator"
    assert f["n"].json_type == "number" and f["n"].nullable
    assert f["m"].json_type == "integer" and f["m"].threshold == 0.9 and f["m"].nullable


@pytest.mark.parametrize(
    "schema, pointer, message",
    [
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/A"}}}},
            },
            "/properties/a/properties/b",
            "recursive reference",
        ),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}, "/properties/a/$ref", "points at nothing"),
        (
            {"type": "object", "properties": {"a": {"$ref": "other.json#/A"}}},
            "/properties/a/$ref",
            "names a document outside this schema",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-model-name": "X"}}},
            "/properties/a",
            "belongs on an object",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-clip-under-threshold": "yes"}}},
            "/properties/a/x-aws-stickler-clip-under-threshold",
            "must be true or false",
        ),
        (
            {
                "type": "object",
                "properties": {
                    "tags": {
                        "type": "array",
                        "items": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    }
                },
            },
            "/properties/tags/items",
            "'x-aws-stickler-comparator' belongs on the list field, not on its 'items'",
        ),
        (
            {
                "type": "object",
                "properties": {"rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}}},
                "$defs": {
                    "Row": {"type": "object", "x-aws-stickler-weight": 2, "properties": {"a": {"type": "string"}}}
                },
            },
            "/properties/rows/items",
            "'x-aws-stickler-weight' belongs on the list field",
        ),
        ({"type": "object", "properties": {}}, "/", "non-empty 'properties'"),
        ({"type": "object", "properties": {"a": {}}}, "/properties/a", "has no 'type'"),
    ],
)
def test_schema_errors_name_the_pointer(schema, pointer, message):
    with pytest.raises(SchemaError) as info:
        st.compile_schema(schema)
    assert info.value.pointer == pointer
    assert message in info.value.message


def test_pydantic_models_are_named_and_validate(root):
    import pydantic

    plan = st.load_schema(root / "schemas/invoice.json")
    Invoice = st.pydantic_model(plan)
    assert Invoice.__name__ == "Invoice"
    record = Invoice(
        invoice_id="INV-1",
        customer_name="Acme",
        total_amount=10.5,
        line_items=[{"description": "Bolt", "quantity": 2, "unit_price": 1.5}],
    )
    assert type(record.line_items[0]).__name__ == "LineItem"
    assert (
        Invoice(
            invoice_id={"_value": "INV-1", "_confidence": 0.9}, customer_name="A", total_amount=1, line_items=[]
        ).invoice_id.confidence
        == 0.9
    )
    with pytest.raises(pydantic.ValidationError):
        Invoice(invoice_id="INV-1", customer_name="Acme", total_amount="not a number", line_items=[])
    with pytest.raises(pydantic.ValidationError):
        Invoice(customer_name="Acme", total_amount=1, line_items=[])  # invoice_id is required
