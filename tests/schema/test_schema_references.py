"""Schemas as their authors wrote them (issue 22): every `$ref` form of drafts 6 to 2020-12, resolved by
`referencing` through the schema's one registry; `\\p{…}` patterns; `format` asserted on request.

Each test reproduces what went wrong before: a reference that resolved to the wrong definition, or was
refused though valid; a pattern that stopped a run with exit 3; a date that no schema-valid rate caught.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonschema
import orjson
import pytest

from stickler_cli.cli.app import main
from stickler_cli.errors import SchemaError
from stickler_cli.schema import compile_schema, load_schema
from stickler_cli.schema.conformance import Conformance

DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"


def write(path: Path, value) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(value))
    return path


def jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def evaluate(capsys, schema: Path, gt: list, pred: list, *extra: str) -> tuple[int, dict]:
    """``stickler eval -f json`` in-process: (exit code, report)."""
    code = main(
        [
            "eval",
            str(schema),
            str(jsonl(schema.parent / "gt.jsonl", gt)),
            str(jsonl(schema.parent / "pred.jsonl", pred)),
            "-f",
            "json",
            "--no-progress",
            *extra,
        ]
    )
    out = capsys.readouterr().out
    return code, (json.loads(out) if out else {})


def checkers(schema: dict) -> list[Conformance]:
    """The compiled checker, and jsonschema behind the same registry (a keyword the closures leave to it)."""
    compiled = Conformance(schema)
    fallback = Conformance({**schema, "uniqueItems": False})
    assert compiled.compiled and not fallback.compiled
    return [compiled, fallback]


# -- 1. a reference never resolves to the wrong place ----------------------------------------------------

PERCENT = {
    "type": "object",
    "properties": {"p": {"$ref": "#/$defs/a%25b"}},
    "$defs": {"a%25b": {"type": "string"}, "a%b": {"type": "integer"}},
}


def test_pointer_tokens_are_percent_decoded_in_the_plan_and_both_checkers(tmp_path, capsys):
    """``#/$defs/a%25b`` is the definition named ``a%b`` (the integer one): before, the string one was used
    to score and check, and ``{"p": "str"}`` came back schema-valid."""
    field = compile_schema(PERCENT).fields[0]
    assert (field.json_type, field.comparator_name) == ("integer", "NumericComparator")
    for checker in checkers(PERCENT):
        assert checker.violations({"p": "str"}) == [("p", "type")]
        assert checker.violations({"p": 5}) == []
    code, report = evaluate(capsys, write(tmp_path / "s.json", PERCENT), [{"p": 5}, {"p": 5}], [{"p": 5}, {"p": "str"}])
    assert code == 0 and report["schema_conformance"]["schema_valid"] == 1
    assert report["schema_violations"] == {"p": {"type": 1}}


def test_a_definition_with_a_space_in_its_name(tmp_path, capsys):
    """``#/$defs/Line%20Item`` for ``Line Item`` (refused before: "points at nothing", exit 2)."""
    schema = write(
        tmp_path / "s.json",
        {
            "type": "object",
            "properties": {"line": {"$ref": "#/$defs/Line%20Item"}},
            "$defs": {
                "Line Item": {
                    "type": "object",
                    "properties": {"sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
                }
            },
        },
    )
    assert [f.path for f in load_schema(schema).fields] == ["line", "line.sku"]
    code, report = evaluate(capsys, schema, [{"line": {"sku": "A"}}], [{"line": {"sku": 7}}])
    assert code == 0 and report["schema_violations"] == {"line.sku": {"type": 1}}


def test_empty_pointer_tokens_are_kept():
    """``#/$defs//x`` goes through the definition named "" (before, the empty token was dropped and
    ``#/$defs/x`` was used)."""
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs//$defs/x"}},
        "$defs": {"": {"$defs": {"x": {"type": "integer"}}}, "x": {"type": "string"}},
    }
    assert compile_schema(schema).fields[0].json_type == "integer"
    for checker in checkers(schema):
        assert checker.violations({"p": 1}) == [] and checker.violations({"p": "s"}) == [("p", "type")]


def test_a_ref_inside_enum_is_data_not_a_reference(tmp_path, capsys):
    """A file read with the schema is registered as written: an ``enum`` holding ``{"$ref": …}`` is a value
    (before, the file's references were rewritten, the enum's too, and the value no longer matched)."""
    write(tmp_path / "common.json", {"$defs": {"choice": {"enum": [{"$ref": "#/$defs/choice"}, "x"]}}})
    schema = write(tmp_path / "s.json", {"type": "object", "properties": {"c": {"$ref": "common.json#/$defs/choice"}}})
    code, report = evaluate(capsys, schema, [{"c": "x"}] * 2, [{"c": {"$ref": "#/$defs/choice"}}, {"c": "y"}])
    assert code == 0 and report["schema_violations"] == {"c": {"enum": 1}}


# -- 2. references resolved by `referencing`, through one registry ------------------------------------


@pytest.mark.parametrize(
    "root_id, ref",
    [
        ("https://example.com/invoice.json", "https://example.com/invoice.json#/$defs/money"),
        ("urn:example:invoice", "urn:example:invoice#/$defs/money"),
        (None, "#money"),
        ("https://example.com/invoice.json", "https://example.com/invoice.json#money"),
        ("draft 7", "#money"),
    ],
)
def test_ids_urns_and_anchors_inside_the_document(root_id, ref):
    """Refused before ("only local references", or "points at nothing" for an anchor)."""
    schema = {
        "type": "object",
        "properties": {"total": {"$ref": ref}},
        "$defs": {"money": {"$anchor": "money", "type": "number", "x-aws-stickler-threshold": 0.9}},
    }
    if root_id == "draft 7":  # an $id that is a fragment names the subschema
        schema = {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"total": {"$ref": ref}},
            "definitions": {"money": {"$id": "#money", "type": "number", "x-aws-stickler-threshold": 0.9}},
        }
    elif root_id:
        schema["$id"] = root_id
    field = compile_schema(schema).fields[0]
    assert (field.comparator_name, field.threshold) == ("NumericComparator", 0.9)
    for checker in checkers(schema):
        assert checker.violations({"total": "12"}) == [("total", "type")]


def test_relative_references_resolve_against_the_id_base_not_files_beside(tmp_path):
    """``"$ref": "foo.json"`` where a nested ``$id`` names foo.json is that subschema; a file foo.json beside
    the schema (what was read before) is never opened."""
    write(tmp_path / "foo.json", {"type": "string"})
    schema = write(
        tmp_path / "s.json",
        {
            "$id": "https://example.com/schemas/root.json",
            "type": "object",
            "properties": {"n": {"$ref": "foo.json"}},
            "$defs": {"foo": {"$id": "foo.json", "type": "integer"}},
        },
    )
    plan = load_schema(schema)
    assert plan.fields[0].json_type == "integer" and plan.source_files == (str(schema),) and not plan.resources
    assert Conformance.of(plan).violations({"n": "x"}) == [("n", "type")]


def test_the_drafts_own_metaschema_can_be_referenced():
    """A property holding a JSON Schema, checked against the draft's metaschema (shipped with jsonschema)."""
    schema = {"type": "object", "properties": {"rule": {"$ref": DRAFT_2020}}}
    assert compile_schema(schema).fields[0].comparator_name == "ExactComparator"
    checker = Conformance(schema)
    assert checker.violations({"rule": {"type": "string"}}) == []
    assert checker.violations({"rule": {"type": 5}}) != []


WHOLE = {"x-aws-stickler-comparator": "ANLSStarComparator"}  # a tree scored as one value
DYNAMIC = {
    "$schema": DRAFT_2020,
    "$id": "https://example.com/tree",
    "$dynamicAnchor": "node",
    "type": "object",
    "properties": {
        "value": {"type": "number"},
        "children": {"type": "array", "items": {"$dynamicRef": "#node"}, **WHOLE},
    },
}
RECURSIVE = {
    "$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://example.com/tree",
    "$recursiveAnchor": True,
    "type": "object",
    "properties": {
        "value": {"type": "number"},
        "children": {"type": "array", "items": {"$recursiveRef": "#"}, **WHOLE},
    },
}


@pytest.mark.parametrize("schema", [DYNAMIC, RECURSIVE], ids=["$dynamicRef", "$recursiveRef"])
def test_dynamic_and_recursive_references_are_followed_as_deep_as_the_record(schema):
    """Scored field by field (children as one value), checked as jsonschema checks it (refused before)."""
    plan = compile_schema(schema)
    assert [f.path for f in plan.fields] == ["value", "children"]
    record = {"value": 1, "children": [{"value": 2, "children": [{"value": "deep"}]}]}
    assert Conformance.of(plan).violations(record) == [("children.children.value", "type")]
    assert not jsonschema.validators.validator_for(schema)(schema).is_valid(record)


def test_a_recursive_schema_is_refused_for_scoring_and_followed_for_conformance(tmp_path, capsys):
    """Across two files: scoring it cannot be a finite plan (today's message); scored as one value, the
    record is checked all the way down."""
    write(
        tmp_path / "node.json",
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "node.json"}}},
        },
    )
    looped = write(tmp_path / "s.json", {"type": "object", "properties": {"root": {"$ref": "node.json"}}})
    with pytest.raises(SchemaError, match="recursive reference node.json -> node.json: recursive schemas cannot be"):
        load_schema(looped)
    whole = write(
        tmp_path / "w.json",
        {
            "type": "object",
            "properties": {"root": {"$ref": "node.json", "x-aws-stickler-comparator": "ANLSStarComparator"}},
        },
    )
    tree = {"name": "a", "children": [{"name": "b", "children": [{"name": 3}]}]}
    code, report = evaluate(capsys, whole, [{"root": tree}], [{"root": tree}])
    assert code == 0 and report["schema_violations"] == {"root.children.children.name": {"type": 1}}


def test_files_beside_the_schema_travel_with_the_plan_to_workers_and_states(tmp_path, capsys):
    """The documents read at load are part of the plan: a worker process and ``stickler merge`` in another
    directory (the files gone) resolve as the loader did."""
    write(
        tmp_path / "defs" / "money.json",
        {
            "$defs": {
                "amount": {
                    "type": "number",
                    "x-aws-stickler-comparator": "NumericComparator",
                    "x-aws-stickler-comparator-config": {"absolute_tolerance": 0.01},
                }
            }
        },
    )
    schema = write(
        tmp_path / "s.json",
        {
            "type": "object",
            "properties": {"total": {"$ref": "defs/money.json#/$defs/amount"}, "code": {"type": "string"}},
        },
    )
    gt = [{"total": 10 + k, "code": "A"} for k in range(6)]
    pred = [{"total": 10 + k + 0.005, "code": "A" if k % 2 else 7} for k in range(6)]
    _, alone = evaluate(capsys, schema, gt, pred, "--save-state", str(tmp_path / "a.state.json"))
    _, workers = evaluate(capsys, schema, gt, pred, "--workers", "2")
    assert alone["field_metrics"] == workers["field_metrics"] and alone["field_metrics"]["total"]["cm_f1"] == 1.0
    assert workers["schema_violations"] == alone["schema_violations"] == {"code": {"type": 3}}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    state = elsewhere / "a.state.json"
    state.write_bytes((tmp_path / "a.state.json").read_bytes())
    assert "defs/money.json" in orjson.loads(state.read_bytes())["schema_resources"]
    assert main(["merge", str(state), "-f", "json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["field_metrics"] == alone["field_metrics"] and merged["schema"]["sha256"] == alone["schema"]["sha256"]


# -- --schema-resource URL=FILE ----------------------------------------------------------------------

VENDOR = {
    "$id": "https://schemas.acme.com/money.json",
    "$defs": {
        "amount": {"type": "number", "x-aws-stickler-comparator": "NumericComparator", "x-aws-stickler-threshold": 0.8}
    },
}
USES_VENDOR = {"type": "object", "properties": {"total": {"$ref": "https://schemas.acme.com/money.json#/$defs/amount"}}}


def test_a_url_is_read_from_the_file_the_user_maps_it_to(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "vendor" / "money.json", VENDOR)
    schema = write(tmp_path / "s.json", USES_VENDOR)
    assert main(["schema", "check", str(schema)]) == 2
    assert "remote reference 'https://schemas.acme.com/money.json#/$defs/amount': references are never fetched" in (
        capsys.readouterr().err
    )
    for mapping in ("https://schemas.acme.com/money.json=vendor/money.json", "https://schemas.acme.com/=vendor"):
        plan = load_schema(schema, resources=dict([mapping.split("=")]))
        assert plan.fields[0].threshold == 0.8
        assert [Path(f).resolve() for f in plan.source_files[1:]] == [tmp_path / "vendor" / "money.json"]
        assert main(["schema", "check", str(schema), "--schema-resource", mapping]) == 0
        capsys.readouterr()
    (tmp_path / "pyproject.toml").write_text(
        '[tool.stickler.schema-resources]\n"https://schemas.acme.com/" = "vendor"\n'
    )
    code, report = evaluate(capsys, schema, [{"total": 1}], [{"total": "1"}])
    assert code == 0 and report["schema_violations"] == {"total": {"type": 1}}


@pytest.mark.parametrize(
    "item, message",
    [
        ("https://x.org/a.json", "--schema-resource takes URL=FILE"),
        ("common.json=vendor/money.json", "is not an absolute URL"),
        ("https://x.org/a.json=missing.json", "no such file"),
        ("https://x.org/a=vendor", "is a directory: map it to a URL ending in '/'"),
    ],
)
def test_a_bad_mapping_is_one_line_exit_2(tmp_path, capsys, monkeypatch, item, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "vendor" / "money.json", VENDOR)
    schema = write(tmp_path / "s.json", USES_VENDOR)
    assert main(["schema", "check", str(schema), "--schema-resource", item]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_mapped_directory_keeps_its_files_inside(tmp_path, capsys, monkeypatch):
    """The directory rule of files beside the schema holds for a mapped directory too (symbolic links resolved)."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "secret.json", {"type": "string"})
    write(tmp_path / "vendor" / "money.json", {"$defs": {"amount": {"$ref": "link.json"}}})
    (tmp_path / "vendor" / "link.json").symlink_to(tmp_path / "secret.json")
    schema = write(
        tmp_path / "s.json",
        {"type": "object", "properties": {"total": {"$ref": "https://schemas.acme.com/money.json#/$defs/amount"}}},
    )
    assert main(["schema", "check", str(schema), "--schema-resource", "https://schemas.acme.com/=vendor"]) == 2
    assert "reference to 'link.json' leaves" in capsys.readouterr().err


@pytest.mark.parametrize("ref", ["%2e%2e/secret.json", "file:///etc/passwd", "/secret.json"])
def test_no_spelling_of_a_reference_reads_outside_the_schemas_directory(tmp_path, ref):
    """Percent-encoded dots are decoded before the directory rule is applied; a file: URI or an absolute
    path leaves the directory too. The schema's own $id stands for its directory, nothing above it."""
    write(tmp_path / "secret.json", {"type": "string"})
    for root_id in (None, "https://example.com/schemas/s.json"):
        schema = {"type": "object", "properties": {"a": {"$ref": ref}}}
        if root_id:
            schema["$id"] = root_id
        path = write(tmp_path / "schemas" / "s.json", schema)
        with pytest.raises(SchemaError) as info:
            load_schema(path)
        assert info.value.pointer == "/properties/a/$ref"
        assert "leaves the schema's directory" in info.value.message or "never fetched" in info.value.message


# -- 3. patterns: \p{…} everywhere, one engine ------------------------------------------------------------


def test_unicode_property_patterns_work_in_eval_schema_check_and_both_checkers(tmp_path, capsys):
    """``patternProperties: {"^\\\\p{Letter}+$": …}`` stopped a run with exit 3 ("bad escape \\p") at the first
    prediction holding such an object, while ``schema check`` said the schema was fine."""
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "pattern": "^\\p{Lu}"}},
        "patternProperties": {"^\\p{Letter}+$": {"type": "string"}},
    }
    path = write(tmp_path / "s.json", schema)
    assert main(["schema", "check", str(path)]) == 0
    capsys.readouterr()
    code, report = evaluate(capsys, path, [{"name": "Émile"}] * 2, [{"name": "émile", "été": 1}, {"name": "Émile"}])
    assert code == 0 and report["schema_violations"] == {"name": {"pattern": 1}, "été": {"type": 1}}
    compiled = Conformance({"properties": schema["properties"]})
    assert compiled.compiled and compiled.violations({"name": "émile"}) == [("name", "pattern")]


def test_a_subschema_of_another_draft_still_matches_through_the_bounded_engine():
    """jsonschema checks a subschema naming another ``$schema`` with that draft's own class, which matched
    patterns with Python's ``re``: ``\\p{…}`` was an internal error there, and no match had a time bound."""
    schema = {
        "$schema": DRAFT_2020,
        "properties": {"tag": {"$ref": "#/$defs/tag"}},
        "$defs": {
            "tag": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "patternProperties": {"^\\p{Letter}+$": {"type": "string"}},
            }
        },
    }
    checker = Conformance(schema)
    assert not checker.compiled
    assert checker.violations({"tag": {"été": 1, "1": 1}}) == [("tag.été", "type")]


def test_a_pattern_that_does_not_compile_in_a_referenced_file_names_its_pointer(tmp_path, capsys):
    write(tmp_path / "common.json", {"$defs": {"code": {"type": "string", "pattern": "(["}}})
    schema = write(tmp_path / "s.json", {"type": "object", "properties": {"c": {"$ref": "common.json#/$defs/code"}}})
    assert main(["schema", "check", str(schema)]) == 2
    err = capsys.readouterr().err
    assert f"{schema}: common.json#/$defs/code/pattern: pattern '([' is not a valid regular expression" in err


# -- 4. format, when the user wants it checked ----------------------------------------------------------

FORMATS = {
    "type": "object",
    "properties": {
        "date": {"type": "string", "format": "date"},
        "email": {"type": "string", "format": "email"},
        "ip": {"type": "string", "format": "ipv4"},
        "id": {"type": "string", "format": "uuid"},
    },
}
GOOD = {"date": "2020-01-31", "email": "a@b.c", "ip": "10.0.0.1", "id": "2eb8aa08-aa98-11ea-b4aa-73b441d16380"}
BAD = {"date": "2020-01-32", "email": "nobody", "ip": "10.0.0.256", "id": "2eb8aa08"}


def test_formats_are_annotations_unless_asserted(tmp_path, capsys):
    """An extraction model writing 2020-01-32 is caught with --assert-formats, one `format` violation per field."""
    schema = write(tmp_path / "s.json", FORMATS)
    code, annotated = evaluate(capsys, schema, [GOOD] * 2, [GOOD, BAD])
    assert code == 0 and annotated["schema_conformance"]["schema_valid"] == 2 and annotated["schema_violations"] == {}
    code, asserted = evaluate(capsys, schema, [GOOD] * 2, [GOOD, BAD], "--assert-formats")
    assert code == 0 and asserted["schema_conformance"]["schema_valid"] == 1
    assert asserted["schema_violations"] == {key: {"format": 1} for key in GOOD}
    assert asserted["schema"]["formats_asserted"] is True and "formats_asserted" not in annotated["schema"]
    report_schema = json.loads((Path(__file__).parents[2] / "schemas" / "report.schema.json").read_text())
    jsonschema.Draft202012Validator(report_schema).validate(asserted)

    def scores(report: dict) -> dict:
        return {
            path: {k: v for k, v in row.items() if k != "schema_violations"}
            for path, row in report["field_metrics"].items()
        }

    assert scores(asserted) == scores(annotated)  # the scores themselves do not change


def test_asserted_formats_in_the_compiled_checker_equal_jsonschemas_format_checker():
    compiled = Conformance(FORMATS, assert_formats=True)
    fallback = Conformance({**FORMATS, "uniqueItems": False}, assert_formats=True)
    reference = jsonschema.Draft202012Validator(FORMATS, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    assert compiled.compiled and not fallback.compiled
    for record in (GOOD, BAD, {**GOOD, "date": 20200131}):
        expected = Counter((e.absolute_path[0], e.validator) for e in reference.iter_errors(record))
        assert Counter(compiled.violations(record)) == Counter(fallback.violations(record)) == expected


def test_a_metaschema_declaring_format_assertion_asserts_formats(tmp_path):
    """The 2020-12 format-assertion vocabulary, declared by a metaschema read with the schema."""
    write(
        tmp_path / "meta.json",
        {
            "$schema": DRAFT_2020,
            "$id": "https://example.com/meta",
            "$vocabulary": {
                "https://json-schema.org/draft/2020-12/vocab/core": True,
                "https://json-schema.org/draft/2020-12/vocab/format-assertion": False,
            },
            "allOf": [{"$ref": "https://json-schema.org/draft/2020-12/meta/core"}],
        },
    )
    schema = write(tmp_path / "s.json", {**FORMATS, "$schema": "https://example.com/meta"})
    plan = load_schema(schema, resources={"https://example.com/meta": str(tmp_path / "meta.json")})
    assert Counter(Conformance.of(plan).violations(BAD)) == Counter((key, "format") for key in GOOD)


def test_a_regex_format_value_cannot_take_gigabytes_to_compile():
    """``format: regex`` compiles the value: ``a{10000000}`` would take 2.6 GB; over ``regex-size`` it does
    not conform."""
    checker = Conformance({"properties": {"r": {"type": "string", "format": "regex"}}}, assert_formats=True)
    assert checker.violations({"r": "a{10000000}"}) == [("r", "format")]
    assert checker.violations({"r": "^a+$"}) == [] and checker.violations({"r": "("}) == [("r", "format")]


@pytest.fixture
def slow_iri(monkeypatch):
    """An ``iri`` checker that costs what rfc3987-syntax costs (jsonschema's checker when the `format` extra is
    installed): a millisecond a character, here measured by the characters it was given."""
    import time as clock

    seen: list[int] = []

    def is_iri(instance: object) -> bool:
        if isinstance(instance, str):
            seen.append(len(instance))
            clock.sleep(len(instance) / 1000)
        return isinstance(instance, str) and instance.startswith("http")

    for draft in (jsonschema.Draft202012Validator, jsonschema.Draft7Validator):
        monkeypatch.setitem(draft.FORMAT_CHECKER.checkers, "iri", (is_iri, ()))
        monkeypatch.setitem(draft.FORMAT_CHECKER.checkers, "iri-reference", (is_iri, ()))
    return seen


@pytest.mark.parametrize("fallback", [False, True])
def test_an_iri_format_check_reads_a_bounded_value(slow_iri, fallback):
    """Issue 37, item 14: ``format: iri`` took 42 s and 1.3 GB on a 180 KB value, outside record-check-seconds.
    A value over iri-check-chars (1,000) is not given to the checker: it does not conform, and is reported."""
    schema = {
        "type": "object",
        "properties": {"u": {"type": "string", "format": "iri"}, "r": {"type": "string", "format": "iri-reference"}},
    }
    checker = Conformance({**schema, "uniqueItems": False} if fallback else schema, assert_formats=True)
    assert checker.compiled is not fallback
    long = "http://example.com/" + "a" * 180_000
    assert checker.violations({"u": long, "r": "http://x/" + "b" * 991}) == [("u", "format")]
    assert slow_iri == [1_000]  # only the value within the bound was read
    assert checker.take_messages() == [
        "a value of 180,019 characters was not checked as format 'iri', which reads "
        "at most 1,000 (--limit iri-check-chars): counted as not conforming"
    ]


def test_format_checks_count_against_record_check_seconds(slow_iri):
    """Many values each within the bound: the record's format checks stop at record-check-seconds (1 s), and
    the record counts one `unchecked` violation, as a slow jsonschema check does."""
    schema = {
        "type": "object",
        "properties": {"links": {"type": "array", "items": {"type": "string", "format": "iri"}}},
    }
    checker = Conformance(schema, assert_formats=True)
    assert checker.compiled
    import time as clock

    started = clock.monotonic()
    assert checker.violations({"links": ["http://example.com/" + "a" * 381] * 20}) == [("$", "unchecked")]
    assert len(slow_iri) == 3 and clock.monotonic() - started < 2.0  # 3 x 0.4 s, not 20 x 0.4 s
    assert "took more than 1 s to check against the schema" in checker.take_messages()[0]
    assert checker.violations({"links": ["http://example.com/"]}) == []


def test_states_of_asserted_and_annotated_formats_are_not_merged(tmp_path, capsys):
    schema = write(tmp_path / "s.json", FORMATS)
    evaluate(capsys, schema, [GOOD], [BAD], "--assert-formats", "--save-state", str(tmp_path / "a.state.json"))
    evaluate(capsys, schema, [GOOD], [BAD], "--save-state", str(tmp_path / "b.state.json"))
    assert main(["merge", str(tmp_path / "a.state.json"), "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["schema_conformance"]["schema_valid"] == 0
    assert main(["merge", str(tmp_path / "a.state.json"), str(tmp_path / "b.state.json")]) == 2
    assert "was saved with --assert-formats" in capsys.readouterr().err


def test_schema_check_lists_the_formats_it_cannot_check(tmp_path, capsys):
    schema = write(
        tmp_path / "s.json",
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "format": "x-invoice-number"},
                "b": {"type": "string", "format": "date"},
            },
        },
    )
    assert main(["schema", "check", str(schema), "--assert-formats"]) == 0
    err = capsys.readouterr().err
    assert "/properties/a/format: format 'x-invoice-number' is not checked here" in err and "'date'" not in err


@pytest.mark.parametrize(
    "schema, pointer, value",
    [
        ({"type": "object", "properties": {"a": {"type": "string"}}, "$id": False}, "/$id", "False"),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "$defs": {"d": {"$id": 7}}}, "/$defs/d/$id", "7"),
        (
            {
                "$schema": "http://json-schema.org/draft-06/schema#",
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "$id": ["x"],
            },
            "/$id",
            "['x']",
        ),
    ],
)
def test_an_id_that_is_not_a_string_is_refused_in_one_line(tmp_path, capsys, schema, pointer, value):
    """Found by the hostile-schema fuzzer: referencing reads an id with str methods, so an id of another type
    was an internal error (exit 3). It is refused as the metaschema refuses it, naming where it is."""
    path = write(tmp_path / "s.json", schema)
    for args in (
        ["schema", "check", str(path)],
        [
            "eval",
            str(path),
            str(jsonl(tmp_path / "g.jsonl", [{"a": "x"}])),
            str(jsonl(tmp_path / "p.jsonl", [{"a": "x"}])),
            "-f",
            "json",
        ],
    ):
        assert main(args) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"stickler: error: {path}: {pointer}: not a valid JSON Schema: {value} is not of type 'string'"]
