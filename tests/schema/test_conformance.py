"""Schema conformance: the compiled checker against jsonschema, and the counts in the report."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stickler_cli.cli.app import main
from stickler_cli.errors import SchemaError
from stickler_cli.schema.conformance import ROOT, Conformance, json_equal


def jsonschema_violations(schema: dict, record) -> Counter:
    """The reference: jsonschema's own validator, through the fallback's path mapping."""
    checker = Conformance(schema)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    checker._check = None
    checker._fallback = cls(schema)
    return Counter(checker.violations(record))


# -- generated schemas and records --------------------------------------------------------------

KEYS = ("a", "b", "c")
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.0, 2.5, -1.5]),
    st.sampled_from(["", "x", "ab", "abc", "A1"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
        st.builds(lambda v, c: {"_value": v, "_confidence": c}, inner, st.floats(0, 1)),
    ),
    max_leaves=8,
)
types = st.sampled_from(["string", "number", "integer", "boolean", "null", "array", "object"])


def schemas(depth: int = 2):
    leaf = st.fixed_dictionaries(
        {},
        optional={
            "type": st.one_of(types, st.lists(types, min_size=1, max_size=3, unique=True)),
            "enum": st.lists(scalars, min_size=1, max_size=3),
            "const": scalars,
            "minimum": st.integers(-2, 2),
            "maximum": st.integers(-2, 2),
            "exclusiveMinimum": st.integers(-2, 2),
            "exclusiveMaximum": st.sampled_from([0, 1.5, 3]),
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 3),
            "pattern": st.sampled_from(["^a", "[0-9]", "b$"]),
            "minItems": st.integers(0, 2),
            "maxItems": st.integers(0, 2),
            "minProperties": st.integers(0, 2),
            "maxProperties": st.integers(0, 2),
            "multipleOf": st.sampled_from([2, 3, 0.5, 0.1, 1.5]),
            "required": st.lists(st.sampled_from(KEYS), max_size=3, unique=True),
        },
    )
    if depth == 0:  # false subschemas: see test_false_subschema
        return st.one_of(leaf, st.just(True))
    child = schemas(depth - 1)
    return st.one_of(
        leaf,
        st.builds(
            lambda base, extra: {**base, **extra},
            leaf,
            st.fixed_dictionaries(
                {},
                optional={
                    "properties": st.dictionaries(st.sampled_from(KEYS), child, max_size=3),
                    "additionalProperties": child,
                    "items": child,
                    "anyOf": st.lists(child, min_size=1, max_size=3),
                    "oneOf": st.lists(child, min_size=1, max_size=3),
                    "allOf": st.lists(child, min_size=1, max_size=2),
                },
            ),
        ),
    )


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    schemas(),
    values,
    st.sampled_from(["https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"]),
)
def test_compiled_checker_agrees_with_jsonschema(schema, record, draft):
    schema = {"$schema": draft, **schema} if isinstance(schema, dict) else schema
    if not isinstance(schema, dict):
        return
    checker = Conformance(schema)
    assert checker.compiled
    assert Counter(checker.violations(record)) == jsonschema_violations(schema, record)


@settings(max_examples=300, deadline=None)
@given(values)
def test_refs_follow_the_draft(record):
    """Before 2019-09 a $ref's siblings are ignored; from 2019-09 on they apply too."""
    body = {"$defs": {"n": {"type": "number"}}, "properties": {"a": {"$ref": "#/$defs/n", "minimum": 1}}}
    for draft in ("http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"):
        schema = {"$schema": draft, **body}
        assert Counter(Conformance(schema).violations(record)) == jsonschema_violations(schema, record)


# -- references in every form: the scoring plan, the compiled checker and jsonschema pick the same definition --

NAMES = st.text(alphabet="a%/~ é", max_size=3)  # names that need escaping (~0 ~1) and percent-encoding, and ""


@st.composite
def referenced_definitions(draw):
    """(schema, {property: the definition it refers to}) where each definition holds a const of its own and a
    threshold of its own, and each property refers to one by a JSON pointer (its tokens escaped, percent-encoded
    or not, empty ones kept, through a definition named ""), an ``$anchor``, a definition's own ``$id``, or
    the root's ``$id`` or URN as base."""
    from urllib.parse import quote

    root_id = draw(st.sampled_from([None, "https://example.com/root.json", "urn:example:root"]))
    names = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    nested = draw(st.booleans())  # the definitions under {"$defs": {"": {"$defs": ...}}}: an empty token inside
    definitions, forms = {}, []
    for k, name in enumerate(names):
        node = {"type": "string", "const": f"d{k}", "x-aws-stickler-threshold": round(0.11 + k / 10, 2)}
        own = draw(st.sampled_from([None, f"https://example.com/d{k}.json", f"urn:example:d{k}"]))
        anchor = draw(st.booleans())
        if own:
            node["$id"] = own
        if anchor:
            node["$anchor"] = f"A{k}"
        definitions[name] = node
        tokens = (["$defs", "", "$defs"] if nested else ["$defs"]) + [name]
        minimal = "".join("/" + t.replace("~", "~0").replace("/", "~1").replace("%", "%25") for t in tokens)
        encoded = "".join("/" + quote(t.replace("~", "~0").replace("/", "~1"), safe="") for t in tokens)
        options = [f"#{minimal}", f"#{encoded}"]
        if root_id:
            options.append(f"{root_id}#{encoded}")
        if own:
            options.append(own)
            if anchor:
                options.append(f"{own}#A{k}")
        elif anchor:
            options.append(f"#A{k}")
            if root_id:
                options.append(f"{root_id}#A{k}")
        forms.append(options)
    chosen = draw(st.lists(st.integers(0, len(names) - 1), min_size=1, max_size=4))
    properties, picks = {}, {}
    for i, k in enumerate(chosen):
        properties[f"p{i}"] = {"$ref": draw(st.sampled_from(forms[k]))}
        picks[f"p{i}"] = k
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "$defs": {"": {"$defs": definitions}} if nested else definitions,
    }
    if root_id:
        schema["$id"] = root_id
    return schema, picks, len(names)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(referenced_definitions(), st.data())
def test_every_reference_form_picks_the_definition_jsonschema_picks(case, data):
    """Each property is scored with the threshold of the definition jsonschema resolves its $ref to, and the
    compiled checker accepts exactly the value jsonschema accepts there."""
    from stickler_cli.schema import compile_schema

    schema, picks, count = case
    plan = compile_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    checker = Conformance(schema)
    assert checker.compiled
    for field in plan.fields:
        accepted = [k for k in range(count) if validator.is_valid({field.key: f"d{k}"})]
        assert accepted == [picks[field.key]], (field.key, schema["properties"][field.key])
        assert field.threshold == round(0.11 + picks[field.key] / 10, 2)
    record = {key: f"d{data.draw(st.integers(0, count - 1))}" for key in picks}
    assert Counter(checker.violations(record)) == jsonschema_violations(schema, record)


def test_known_violations_by_hand():
    schema = {
        "type": "object",
        "required": ["id", "total"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string"},
            "total": {"type": "number", "minimum": 0},
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["sku"],
                    "properties": {"sku": {"type": "string", "pattern": "^S"}},
                },
            },
        },
    }
    checker = Conformance(schema)
    assert checker.compiled
    assert checker.violations({"id": "A", "total": 1.5, "items": [{"sku": "S1"}]}) == []
    assert sorted(checker.violations({"total": "12.50", "items": [{"sku": "X"}, {}], "note": 1})) == [
        (ROOT, "additionalProperties"),
        ("id", "required"),
        ("items.sku", "pattern"),
        ("items.sku", "required"),
        ("total", "type"),
    ]
    # Rich values are checked as their _value; a negative total breaks the minimum.
    assert checker.violations(
        {"id": {"_value": "A", "_confidence": 0.9}, "total": {"_value": -1, "_confidence": 1}}
    ) == [("total", "minimum")]
    assert checker.violations([1]) == [(ROOT, "type")]


def test_false_subschema():
    """A property whose subschema is false must be absent; reported at the property's path
    (jsonschema reports it at the parent object's)."""
    checker = Conformance({"properties": {"a": False}, "items": False})
    assert checker.violations({"a": None, "b": 1}) == [("a", "false")]
    assert checker.violations([]) == [] and checker.violations([1]) == [(ROOT, "false")]


def test_integer_rules_per_draft():
    """2.0 is an integer from draft 6 on; drafts 3 and 4 (where it is not) are refused (issue 37)."""
    for draft in ("http://json-schema.org/draft-06/schema#", "http://json-schema.org/draft-07/schema#", None):
        checker = Conformance({**({"$schema": draft} if draft else {}), "properties": {"n": {"type": "integer"}}})
        assert checker.violations({"n": 2.0}) == []
        assert checker.violations({"n": True}) == [("n", "type")]
    for draft in ("http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-03/schema"):
        with pytest.raises(SchemaError, match="names draft [34], which stickler does not read"):
            Conformance({"$schema": draft, "properties": {"n": {"type": "integer"}}})


def test_other_keywords_are_checked_by_jsonschema():
    schema = {
        "type": "object",
        "properties": {"tags": {"type": "array", "uniqueItems": True}, "qty": {"type": "number", "not": {"const": 7}}},
        "required": ["qty", "tags"],
    }
    checker = Conformance(schema)
    assert not checker.compiled
    assert sorted(checker.violations({"tags": ["a", "a"], "qty": {"_value": 7, "_confidence": 0.5}})) == [
        ("qty", "not"),
        ("tags", "uniqueItems"),
    ]
    assert sorted(checker.violations({})) == [("qty", "required"), ("tags", "required")]


def test_json_equal_matches_json_schema():
    assert json_equal(1, 1.0) and not json_equal(True, 1) and not json_equal(0, False)
    assert json_equal([1, {"a": 2.0}], [1.0, {"a": 2}]) and not json_equal([1], [True])
    assert not json_equal("1", 1) and not json_equal(None, False)


def test_invalid_pattern_is_a_schema_error():
    from stickler_cli.errors import SchemaError

    with pytest.raises(SchemaError, match="not a valid regular expression"):
        Conformance({"properties": {"a": {"type": "string", "pattern": "("}}})


# -- end to end: the report's rates and counts --------------------------------------------------

SCHEMA = {
    "type": "object",
    "required": ["id", "total"],
    "properties": {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "total": {"type": "number", "minimum": 0, "x-aws-stickler-comparator": "NumericComparator"},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["sku"],
                "properties": {"sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
            },
        },
    },
}
GT = [{"id": "A", "total": 1, "lines": [{"sku": "S"}]}] * 4
PRED_LINES = [
    '{"id": "A", "total": 1, "lines": [{"sku": "S"}]}',  # conforms
    '{"id": "A", "total": "1", "lines": [{}]}',  # total: type; lines.sku: required
    '{"id": 7, "total": -2}',  # id: type; total: minimum
    '{"id": "A", "total": 1',  # not JSON
    '{"total": 1}',  # no ground truth left; id: required
]


def _run(tmp_path: Path, extra: list[str], capsys) -> dict:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA))
    gt = tmp_path / "gt.jsonl"
    gt.write_text("".join(json.dumps(r) + "\n" for r in GT))
    pred = tmp_path / "pred.jsonl"
    pred.write_text("\n".join(PRED_LINES) + "\n")
    assert main(["eval", str(schema), str(gt), str(pred), "-f", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("extra", [[], ["--workers", "2"]])
def test_report_counts_conformance(tmp_path, capsys, extra):
    report = _run(tmp_path, extra, capsys)
    # 4 documents, each paired; the fifth prediction has no ground truth: 5 predictions due, none missing.
    assert report["schema_conformance"] == {
        "predictions_read": 5,
        "predictions_due": 5,
        "valid_json": 4,
        "valid_json_rate": 0.8,
        "checked": 4,
        "schema_valid": 1,
        "schema_valid_rate": 0.2,
        "violations": 5,
        "ground_truth_documents": 4,
        "paired": 4,
        "coverage": 1.0,
    }
    assert report["schema_violations"] == {
        "id": {"required": 1, "type": 1},
        "lines.sku": {"required": 1},
        "total": {"minimum": 1, "type": 1},
    }
    fields = report["field_metrics"]
    assert [fields[p]["schema_violations"] for p in ("id", "total", "lines", "lines.sku")] == [2, 2, 0, 1]
    # Scoring stays lenient: the string "1" still matches the number 1.
    assert fields["total"]["tp"] == 2


def test_terminal_shows_the_rates(tmp_path, capsys):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({**SCHEMA, "additionalProperties": False}))
    gt = tmp_path / "gt.jsonl"
    gt.write_text(json.dumps(GT[0]) + "\n")
    pred = tmp_path / "pred.jsonl"
    pred.write_text('{"id": "A", "total": 1, "extra": true}\n')
    assert main(["eval", str(schema), str(gt), str(pred)]) == 0
    out = capsys.readouterr().out
    assert "Valid JSON" in out and "1.000  (1 of 1)" in out
    assert "Schema-valid" in out and "0.000  (0 of 1)" in out
    assert "$: additionalProperties ×1" in out


def test_pairing_by_id_checks_unpaired_predictions_too(tmp_path, capsys):
    """By id, a line that is not JSON cannot be paired: still counted as invalid JSON; a
    prediction without ground truth is still checked."""
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA))
    gt = tmp_path / "gt.jsonl"
    gt.write_text(json.dumps({"id": "A", "total": 1}) + "\n")
    pred = tmp_path / "pred.jsonl"
    pred.write_text('{"id": "B", "total": "x"}\n{"id": "A"\n{"id": "A", "total": 1}\n')
    assert main(["eval", str(schema), str(gt), str(pred), "--id-field", "id", "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    conformance = report["schema_conformance"]
    assert (
        conformance["predictions_read"],
        conformance["valid_json"],
        conformance["checked"],
        conformance["schema_valid"],
    ) == (3, 2, 2, 1)
    assert report["schema_violations"] == {"total": {"type": 1}}
    assert report["inputs"]["records"]["invalid_predictions"] == 1


# -- regressions found in review ----------------------------------------------------------------


def test_references_to_unvisited_places_are_followed():
    """A $ref into a place no keyword walks (here an x- extension) must still be checked in full."""
    schema = {
        "x-lib": {"odd": {"type": "integer", "not": {"multipleOf": 2}}},
        "properties": {"a": {"$ref": "#/x-lib/odd"}},
    }
    checker = Conformance(schema)
    assert not checker.compiled  # "not": jsonschema's job
    assert checker.violations({"a": 4}) == [("a", "not")]


def test_one_subschema_applied_twice_reports_required_twice():
    schema = {
        "$defs": {"Base": {"required": ["id"], "uniqueItems": True}},  # uniqueItems: jsonschema's path
        "properties": {"a": {"allOf": [{"$ref": "#/$defs/Base"}, {"$ref": "#/$defs/Base"}]}},
    }
    assert Counter(Conformance(schema).violations({"a": {}})) == Counter({("a.id", "required"): 2})


def test_deep_values_and_many_violations():
    deep: object = 1
    for _ in range(950):
        deep = [deep]
    fallback = Conformance({"properties": {"n": {"type": "number", "uniqueItems": True}}})
    assert fallback.violations({"n": "x", "other": deep}) == [("n", "type")]
    compiled = Conformance(
        {
            "properties": {
                "items": {"type": "array", "items": {"type": "object", "properties": {"q": {"type": "number"}}}}
            }
        }
    )
    found = compiled.violations({"items": [{"q": "1"}] * 20_000})
    assert found == [("items.q", "type")] * 20_000


def test_enum_of_objects_with_rich_values_inside():
    """Compiled and jsonschema paths agree when a rich value sits inside an enum's object."""
    schema = {"properties": {"a": {"enum": [{"b": 1}]}}}
    record = {"a": {"b": {"_value": 1, "_confidence": 0.5}}}
    assert Conformance(schema).compiled
    assert Conformance(schema).violations(record) == [] == list(jsonschema_violations(schema, record))
