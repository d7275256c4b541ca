"""schema/drafts.py: what a self-contained schema needs, known without jsonschema, held equal to jsonschema.

The tables are jsonschema's (its validator classes, its metaschemas); ``plainly_valid`` may only say
"valid" where jsonschema's metaschema check agrees: checked on every schema and every object of data in the
JSON Schema Test Suite (each read under drafts 7, 2019-09 and 2020-12), on each constrained keyword with
good and bad values, and on generated schemas.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema_specifications import REGISTRY as METASCHEMAS

from stickler_cli.schema import compile_schema, drafts
from stickler_cli.schema.refs import References
from tests.support import json_schema_suite as suite

CLASSES = {
    "draft7": jsonschema.Draft7Validator,
    "draft2019-09": jsonschema.Draft201909Validator,
    "draft2020-12": jsonschema.Draft202012Validator,
}
URIS = {
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
}


def _valid(schema: dict) -> bool:
    """jsonschema's verdict: ``schema`` valid under the metaschema of the draft it names."""
    cls = jsonschema.validators.validator_for(schema)
    return cls(cls.META_SCHEMA).is_valid(schema)


def test_each_draft_uri_is_read_as_jsonschema_reads_it():
    for uri, name in drafts.DRAFTS.items():
        assert jsonschema.validators.validator_for({"$schema": uri}, default=None) is CLASSES[name], uri
    assert jsonschema.validators.validator_for({}) is CLASSES[drafts.DEFAULT]
    assert drafts.draft({}) == "draft2020-12" and drafts.draft({"$schema": 7}) is None
    assert drafts.draft({"$schema": "http://json-schema.org/draft-04/schema#"}) is None  # left to jsonschema


def test_each_drafts_keywords_are_those_jsonschema_applies():
    for name, cls in CLASSES.items():
        assert drafts.KEYWORDS[name] == frozenset(cls.VALIDATORS), name
    assert drafts.LEGACY == {"draft7"}


def _metaschema_properties(uri: str) -> set[str]:
    """Every property name the metaschema at ``uri`` constrains, its vocabularies' metaschemas included."""
    found: set[str] = set()
    metaschema = METASCHEMAS.contents(uri)
    found |= set(metaschema.get("properties", {}))
    for part in metaschema.get("allOf", []):
        found |= _metaschema_properties(str(jsonschema.validators.urljoin(uri, part["$ref"])))
    return found


def test_every_keyword_a_metaschema_constrains_is_known_as_constrained():
    """A key outside CONSTRAINED is free under all three metaschemas, so plainly_valid may pass it unchecked."""
    for name, uri in URIS.items():
        properties = _metaschema_properties(uri)
        assert len(properties) > 30, name
        assert properties <= drafts.CONSTRAINED, (name, sorted(properties - drafts.CONSTRAINED))
    for name in ("x-aws-stickler-comparator", "x-aws-stickler-weight", "examplez", "nullable"):
        assert name not in drafts.CONSTRAINED


def test_self_contained_means_no_key_that_locates_anywhere():
    assert drafts.self_contained({"type": "object", "properties": {"a": {"type": "string"}}})
    assert drafts.self_contained({"$schema": "http://json-schema.org/draft-07/schema", "properties": {}})
    for located in (
        {"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {}}},
        {"$id": "https://example.com/s"},
        {"items": [{"$anchor": "x"}]},
        {"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}}},
        {"enum": [{"$ref": "#"}]},  # not a subschema, but looked at all the same
        {"$schema": "http://json-schema.org/draft-04/schema#"},
        {"$schema": "https://example.com/my-metaschema"},
        {"allOf": ({"type": "string"},)},
    ):  # a tuple, from Python: jsonschema's to judge
        assert not drafts.self_contained(located), located


def _objects(value: Any) -> list[dict]:
    """Every JSON object in ``value`` (itself included)."""
    found, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@pytest.fixture(scope="module")
def suite_root():
    return suite.suite_or_skip()


def test_plainly_valid_agrees_with_jsonschema_on_the_test_suite(suite_root):
    """Every object in the suite's schemas and data, read as a schema of each draft: where plainly_valid
    says valid, so does jsonschema; and it says so for most of those jsonschema finds valid."""
    candidates: list[dict] = []
    for name in ("draft7", "draft2019-09", "draft2020-12"):
        for _, group in suite.groups(suite_root, name):
            candidates += _objects(group["schema"])
            for test in group["tests"]:
                candidates += _objects(test["data"])
    plain = valid = both = 0
    for candidate in candidates:
        for uri in URIS.values():
            schema = {**candidate, "$schema": uri}
            if not drafts.self_contained(schema):
                continue
            fast, slow = drafts.plainly_valid(schema), _valid(schema)
            assert slow or not fast, schema
            plain, valid, both = plain + fast, valid + slow, both + (fast and slow)
    assert plain > 3000 and both / valid > 0.9, (plain, valid)


GOOD = {
    "type": ["string", ["string", "null"], ["integer"]],
    "enum": [[], [1, "a", None]],
    "const": [None, {"a": 1}],
    "required": [[], ["a", "b"]],
    "properties": [{}, {"a": {}, "b": True}],
    "items": [{}, False],
    "minimum": [0, -1.5, 10**30],
    "multipleOf": [0.01, 3],
    "minLength": [0, 5],
    "maxItems": [0, 2],
    "pattern": ["^a+$"],
    "format": ["date"],
    "title": [""],
    "uniqueItems": [True],
    "allOf": [[{}], [True, {}]],
    "default": [None, [1]],
    "examples": [[], [1]],
    "dependentRequired": [{"a": ["b"]}],
    "$defs": [{"a": {}}],
    "x-aws-stickler-threshold": ["anything", 5, None],
}
BAD = {
    "type": ["text", 5, [], ["string", "string"], ["strin"], None],
    "enum": [5, {}, "a"],
    "required": ["a", [1], ["a", "a"]],
    "properties": [[], {"a": 5}, {"a": "string"}],
    "items": [5, "a", []],
    "minimum": ["5", None, True],
    "multipleOf": [0, -1, "1"],
    "minLength": [-1, 1.5, "2", True],
    "maxItems": [-3],
    "pattern": [5, None],
    "format": [5],
    "title": [None, 3],
    "uniqueItems": ["yes", 1],
    "allOf": [[], {}, [5]],
    "anyOf": [[]],
    "oneOf": [[1]],
    "not": [5, "x"],
    "examples": [5, {}],
    "dependentRequired": [{"a": "b"}, {"a": [1]}, []],
    "$defs": [[], {"a": 1}],
    "additionalProperties": ["no", 1],
    "readOnly": [0],
    "maxContains": [-1],
}


@pytest.mark.parametrize("uri", list(URIS.values()))
def test_each_keyword_good_and_bad(uri):
    """Good values of the keywords schemas use are passed here without jsonschema; every bad one, in place
    or in a subschema, is left to jsonschema (and jsonschema refuses it where its draft constrains it)."""
    for keyword, values in GOOD.items():
        for value in values:
            for schema in (
                {"$schema": uri, keyword: value},
                {"$schema": uri, "properties": {"a": {"items": {keyword: value}}}},
            ):
                assert _valid(schema), schema
                if keyword != "$defs" or "2019" in uri or "2020" in uri:
                    assert drafts.plainly_valid(schema), schema
    for keyword, values in BAD.items():
        for value in values:
            for schema in (
                {"$schema": uri, keyword: value},
                {"$schema": uri, "anyOf": [{}, {"not": {keyword: value}}]},
            ):
                assert not drafts.plainly_valid(schema), schema


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2, allow_nan=False)
    | st.sampled_from(["string", "a", "object", "integer", "^x$", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)
KEYS = st.sampled_from(sorted(drafts.CONSTRAINED - drafts.LOCATING) + ["x-aws-stickler-weight", "free"])


def _schemas(depth: int) -> st.SearchStrategy:
    values = (
        JSON
        if depth == 0
        else st.one_of(
            JSON,
            _schemas(depth - 1),
            st.lists(_schemas(depth - 1), max_size=2),
            st.dictionaries(st.sampled_from(["a", "b"]), _schemas(depth - 1), max_size=2),
        )
    )
    return st.booleans() | st.dictionaries(KEYS, values, max_size=4)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=st.dictionaries(KEYS, _schemas(2), max_size=5), uri=st.sampled_from(sorted(URIS.values())))
def test_plainly_valid_implies_jsonschema_valid_on_generated_schemas(schema, uri):
    schema = {**schema, "$schema": uri}
    if drafts.plainly_valid(schema):
        assert _valid(schema)


def test_a_self_contained_schema_builds_no_registry_unless_asked():
    """Compiled without ``referencing``'s registry; the registry is built when something asks for it, and
    then resolves as an eager one does."""
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}}}
    plan = compile_schema(copy.deepcopy(schema))
    references = plan.references
    assert references.contained and references._at is None
    assert references.where(schema["properties"]) is None  # asking builds it
    assert references._at is not None and references.base == ""
    assert references.resolver(references.schema).lookup("#/properties/a").contents == schema["properties"]["a"]
    held = References(schema, {"common.json": {"type": "string"}}, "s.json")  # documents beside it: built at once
    assert not held.contained and held._at is not None


def test_a_metaschema_error_is_still_jsonschemas():
    from stickler_cli.errors import SchemaError

    with pytest.raises(SchemaError, match=r"not a valid JSON Schema: -1 is less than the minimum of 0") as caught:
        compile_schema({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}})
    assert caught.value.pointer == "/properties/a/minLength"


def test_a_schema_nested_past_the_default_depth_is_left_to_jsonschema():
    """Past the default --limit schema-depth, jsonschema checks the schema, as before: when it is too deep for
    Python's recursion limit, that is the error (plainly_valid, a loop, would have passed it, and every record
    would then have gone unchecked)."""
    import dataclasses

    from stickler_cli import limits
    from stickler_cli.errors import SchemaError

    def nested(levels: int) -> dict:
        inner: dict = {"type": "string"}
        for _ in range(levels):
            inner = {"not": inner}
        return {"type": "object", "properties": {"a": {"type": "string", "allOf": [inner]}}}

    assert drafts.plainly_valid(nested(drafts.PLAIN_DEPTH - 3))
    assert not drafts.plainly_valid(nested(drafts.PLAIN_DEPTH))
    limits.use(dataclasses.replace(limits.DEFAULT, schema_depth=5000))
    try:
        with pytest.raises(SchemaError, match="nested too deeply to be checked against its metaschema"):
            compile_schema(nested(1500))
    finally:
        limits.use(limits.DEFAULT)


def test_a_value_that_holds_itself_or_shares_parts_is_looked_at_once():
    """From Python, a default may hold itself and an enum may share one list many times over (2^40 paths):
    each is walked once."""
    looped: dict = {}
    looped["a"] = looped
    assert drafts.self_contained({"type": "object", "default": looped})
    shared: list = []
    for _ in range(40):
        shared = [shared, shared]
    assert drafts.self_contained({"enum": shared})
    assert not drafts.self_contained({"enum": [shared, {"$ref": "#"}]})


# -- drafts before 6: refused at load (issue 37) ------------------------------------------------------------

DRAFT3 = "http://json-schema.org/draft-03/schema#"
DRAFT4 = "http://json-schema.org/draft-04/schema#"


def _files(tmp_path, schema: dict, **others: dict) -> list[str]:
    import json

    for name, document in others.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(document))
    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "gt.jsonl").write_text('{"a": 4}\n')
    (tmp_path / "pred.jsonl").write_text('{"a": 5}\n')
    return [str(tmp_path / n) for n in ("s.json", "gt.jsonl", "pred.jsonl")]


@pytest.mark.parametrize(
    "schema, others, pointer, number",
    [
        # divisibleBy passed `schema check` and was KeyError 'multipleOf' in eval (exit 3)
        (
            {"$schema": DRAFT3, "type": "object", "properties": {"a": {"type": "number", "divisibleBy": 2}}},
            {},
            "/$schema",
            3,
        ),
        # extends: AttributeError in every command
        (
            {
                "$schema": DRAFT3,
                "type": "object",
                "properties": {"a": {"type": "number", "extends": {"type": "number"}}},
            },
            {},
            "/$schema",
            3,
        ),
        (
            {
                "$schema": "http://json-schema.org/draft-03/schema",
                "type": "object",
                "properties": {"a": {"type": "number", "required": True}},
            },
            {},
            "/$schema",
            3,
        ),
        (
            {
                "$schema": DRAFT4,
                "type": "object",
                "properties": {"a": {"type": "number", "minimum": 0, "exclusiveMinimum": True}},
            },
            {},
            "/$schema",
            4,
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/n"}},
                "$defs": {"n": {"$id": "urn:n", "$schema": DRAFT3, "type": "number", "divisibleBy": 2}},
            },
            {},
            "/$defs/n/$schema",
            3,
        ),
        (
            {"type": "object", "properties": {"a": {"$ref": "n.json"}}},
            {"n": {"$schema": DRAFT4, "type": "number"}},
            "n.json#/$schema",
            4,
        ),
    ],
    ids=["divisibleBy", "extends", "boolean required", "draft 4", "embedded", "referenced file"],
)
def test_drafts_before_6_are_refused_by_every_command_in_one_line(tmp_path, capsys, schema, others, pointer, number):
    from stickler_cli.cli.app import main

    schema_path, gt, pred = _files(tmp_path, schema, **others)
    expected = (
        f"stickler: error: {schema_path}: {pointer}: '$schema' names draft {number}, which stickler does "
        "not read: drafts 6, 7, 2019-09 and 2020-12 only\n"
    )
    for args in (
        ["schema", "check", schema_path],
        ["eval", schema_path, gt, pred, "--no-progress"],
        ["compare", schema_path, '{"a": 4}', '{"a": 5}'],
        ["diff", schema_path, gt, pred, pred],
    ):
        assert main(args) == 2, args
        assert capsys.readouterr().err == expected, args


def test_draft_6_and_later_are_read_and_draft_3_keywords_without_its_uri_are_named(tmp_path, capsys):
    from stickler_cli.cli.app import main

    for uri in (
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
        "https://example.com/draft-04/schema#",
    ):  # not json-schema.org's draft 4: read as jsonschema reads it
        schema_path, gt, pred = _files(
            tmp_path, {"$schema": uri, "type": "object", "properties": {"a": {"type": "number", "exclusiveMinimum": 0}}}
        )
        assert main(["schema", "check", schema_path]) == 0, uri
        assert main(["eval", schema_path, gt, pred, "--no-progress", "-f", "json"]) == 0, uri
        capsys.readouterr()
    # Without a draft 3 $schema, its keywords are unknown to later drafts: a likely mistake, named with the keyword
    # that replaced it (schema check refuses it; eval warns and scores the schema as written).
    for keyword, meant in (("extends", "allOf"), ("divisibleBy", "multipleOf"), ("disallow", "not")):
        schema_path, gt, pred = _files(
            tmp_path,
            {
                "type": "object",
                "properties": {"a": {"type": "number", keyword: {"type": "number"} if keyword != "divisibleBy" else 2}},
            },
        )
        assert main(["schema", "check", schema_path]) == 2
        assert capsys.readouterr().err == (
            f"stickler: error: {schema_path}: /properties/a: unknown keyword {keyword!r} (did you mean {meant!r}?)\n"
        )
        assert main(["eval", schema_path, gt, pred, "--no-progress", "-f", "json"]) == 0
        assert f"unknown keyword {keyword!r} (did you mean {meant!r}?) is ignored" in capsys.readouterr().err
