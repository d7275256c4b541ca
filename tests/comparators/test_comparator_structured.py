"""StructuredModelComparator: field by field on objects, equality elsewhere."""

import pytest

from stickler_cli import compile_schema
from stickler_cli.comparators import build
from stickler_cli.engine import Engine
from stickler_cli.errors import SchemaError
from stickler_cli.plan import Kind

VENDOR = {"type": "object", "properties": {"name": {"type": "string"}, "city": {"type": "string"}}}


def test_on_an_object_it_is_the_default_field_by_field_comparison():
    named = compile_schema(
        {
            "type": "object",
            "properties": {"vendor": {**VENDOR, "x-aws-stickler-comparator": "StructuredModelComparator"}},
        }
    )
    plain = compile_schema({"type": "object", "properties": {"vendor": VENDOR}})
    assert named.fields[0].kind is Kind.OBJECT
    gt, pred = {"vendor": {"name": "Acme", "city": "Paris"}}, {"vendor": {"name": "Acme", "city": "Lyon"}}
    a, b = Engine(named).compare(gt, pred), Engine(plain).compare(gt, pred)
    assert a.counts == b.counts and a.score == b.score
    # vendor similarity (1.0 + 0.0) / 2 = 0.5 < 0.7 -> FD, as stickler-eval reports it
    assert a.counts[0] == [0, 0, 1, 0, 0]


def test_on_a_list_of_objects_too():
    plan = compile_schema(
        {
            "type": "object",
            "properties": {"vendors": {"type": "array", "items": VENDOR, "x-aws-stickler-comparator": "structured"}},
        }
    )
    assert plan.fields[0].kind is Kind.OBJECT_LIST


def test_on_other_values_it_is_equality():
    comparator = build("StructuredModelComparator")
    assert comparator.similarity("AB", "AB") == 1.0
    assert comparator.similarity("AB", "ab") == 0.0
    assert comparator.similarity(1, 1.0) == 1.0
    assert comparator.similarity([1, 2], [1, 2]) == 1.0
    assert comparator.similarity({"a": 1}, {"a": 2}) == 0.0


def test_strict_types_allows_only_objects():
    compile_schema(
        {
            "type": "object",
            "properties": {
                "vendor": {
                    **VENDOR,
                    "x-aws-stickler-comparator": "StructuredModelComparator",
                    "x-aws-stickler-comparator-config": {"strict_types": True},
                }
            },
        }
    )
    with pytest.raises(SchemaError) as err:
        compile_schema(
            {
                "type": "object",
                "properties": {
                    "code": {
                        "type": "string",
                        "x-aws-stickler-comparator": "StructuredModelComparator",
                        "x-aws-stickler-comparator-config": {"strict_types": True},
                    }
                },
            }
        )
    assert err.value.pointer == "/properties/code/x-aws-stickler-comparator-config/strict_types"
    with pytest.raises(SchemaError) as err:
        compile_schema(
            {
                "type": "object",
                "properties": {
                    "vendor": {
                        **VENDOR,
                        "x-aws-stickler-comparator": "StructuredModelComparator",
                        "x-aws-stickler-comparator-config": {"strict": True},
                    }
                },
            }
        )
    assert "did you mean 'strict_types'" in str(err.value)


def test_other_comparators_on_objects_are_still_refused():
    with pytest.raises(SchemaError, match="has no effect here"):
        compile_schema(
            {
                "type": "object",
                "properties": {"vendor": {**VENDOR, "x-aws-stickler-comparator": "LevenshteinComparator"}},
            }
        )
