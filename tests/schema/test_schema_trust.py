"""A schema is untrusted input: what it gets wrong is refused at load time (exit 2, naming the JSON
pointer), and nothing in it can make a run fetch a URL, hang on a pattern, blow up exponentially or
crash on a record (issue 15, items 5, 9, 10, 11, 12 and the enum of 18)."""

from __future__ import annotations

import dataclasses
import http.server
import json
import math
import threading
import re
import time
import tracemalloc
from collections import Counter

import orjson
import pytest

import stickler_cli as st
from stickler_cli import limits
from stickler_cli.cli.app import main
from stickler_cli.errors import SchemaError
from stickler_cli.schema import audit as audit_module
from stickler_cli.schema import compiler as compiler_module
from stickler_cli.schema import conformance as conformance_module
from stickler_cli.schema.conformance import ROOT, UNCHECKED, Conformance, EnumValues, json_equal, json_key


def _cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def write(tmp_path):
    def write(name: str, value) -> str:
        path = tmp_path / name
        path.write_bytes(value if isinstance(value, bytes) else json.dumps(value).encode())  # orjson: 254 levels
        return str(path)

    return write


@pytest.fixture
def bounds():
    """Set other bounds for one test (``bounds(regex_seconds=0.05)``); the defaults come back after."""

    def use(**changes):
        limits.use(dataclasses.replace(limits.DEFAULT, **changes))

    yield use
    limits.use(limits.DEFAULT)


def _refused(capsys, write, schema, pointer: str, message: str, commands=("schema check", "eval")) -> None:
    """``schema`` is refused by every command that loads it: exit 2, one line naming ``pointer``."""
    path = write("s.json", schema)
    data = write("d.jsonl", b'{"a": "x"}\n')
    for command in commands:
        args = ["schema", "check", path] if command == "schema check" else ["eval", path, data, data, "-f", "json"]
        code, _, err = _cli(capsys, *args)
        assert code == 2, (command, err)
        assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
        assert f"{path}: {pointer}: " in err and message in err, (command, err)


# -- item 5: two fields must never report under one path ---------------------------------------------


@pytest.mark.parametrize(
    "properties, first, second",
    [
        (
            {"a.b": {"type": "string"}, "a": {"type": "object", "properties": {"b": {"type": "string"}}}},
            "/properties/a.b",
            "/properties/a/properties/b",
        ),
        (
            {"a": {"type": "object", "properties": {"b": {"type": "string"}}}, "a.b": {"type": "string"}},
            "/properties/a/properties/b",
            "/properties/a.b",
        ),
        (
            {
                "a": {"type": "array", "items": {"type": "object", "properties": {"b.c": {"type": "number"}}}},
                "a.b": {"type": "object", "properties": {"c": {"type": "number"}}},
            },
            "/properties/a/items/properties/b.c",
            "/properties/a.b/properties/c",
        ),
    ],
)
def test_two_fields_on_one_report_path_are_refused(capsys, write, properties, first, second):
    schema = {"type": "object", "properties": properties}
    with pytest.raises(SchemaError) as info:
        st.compile_schema(schema)
    assert info.value.pointer == second
    assert first in info.value.message and second in info.value.message
    assert "two fields would report as" in info.value.message
    _refused(capsys, write, schema, second, "two fields would report as")


def test_a_property_named_like_the_document_row_is_refused(capsys, write):
    """Violations of the whole record are counted under '$'; a field there would show them as its own."""
    _refused(
        capsys,
        write,
        {"type": "object", "properties": {"$": {"type": "string"}}},
        "/properties/$",
        "would report as the document itself",
    )


def test_dotted_names_without_a_collision_keep_their_paths():
    plan = st.compile_schema(
        {
            "type": "object",
            "properties": {
                "a.b": {"type": "string"},
                "x[0]": {"type": "number"},
                "a": {"type": "object", "properties": {"c": {"type": "string"}}},
            },
        }
    )
    assert [f.path for f in plan.fields] == ["a.b", "x[0]", "a", "a.c"]


# -- item 9: nothing is ever fetched --------------------------------------------------------------------


@pytest.fixture
def server():
    """An HTTP server on 127.0.0.1 that counts the requests it gets (each would be a schema fetching a URL)."""
    requests: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            requests.append(self.path)
            body = orjson.dumps({"type": "integer"})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    httpd.timeout = 0.2
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", requests
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_the_server_would_count_a_fetch(server):
    """The fixture itself: jsonschema's default registry does fetch (what the schema's registry stops)."""
    import jsonschema

    url, requests = server
    with pytest.warns(DeprecationWarning):
        errors = list(jsonschema.Draft202012Validator({"$ref": f"{url}/s.json"}).iter_errors("x"))
    assert len(errors) == 1 and requests == ["/s.json"]


@pytest.mark.parametrize(
    "keyword, pointer",
    [
        ("$dynamicRef", "/properties/a/$dynamicRef"),
        ("$ref", "/properties/a/allOf/0/$ref"),
    ],
)
def test_references_to_urls_are_refused_at_load_time_and_never_fetched(capsys, write, server, keyword, pointer):
    url, requests = server
    target = {keyword: f"{url}/schema.json"}
    prop = {"type": "string", **target} if keyword == "$dynamicRef" else {"type": "string", "allOf": [target]}
    schema = {"type": "object", "properties": {"a": prop}}
    with pytest.raises(SchemaError) as info:
        st.compile_schema(schema)
    assert info.value.pointer == pointer and "references are never fetched" in info.value.message
    _refused(capsys, write, schema, pointer, f"remote reference '{url}/schema.json': references are never fetched")
    assert requests == []


def test_the_fallback_validator_itself_fetches_nothing(server):
    """Even on a schema that was never audited (the Python API), a record meets a refusing registry: one
    'unchecked' violation and a message, no request, no exception."""
    url, requests = server
    checker = Conformance({"properties": {"a": {"$dynamicRef": f"{url}/s.json"}}})
    assert not checker.compiled
    assert [checker.violations({"a": k}) for k in range(3)] == [[(ROOT, UNCHECKED)]] * 3
    messages = checker.take_messages()
    assert len(messages) == 3 and "could not be checked against the schema" in messages[0]
    assert requests == []


def test_identifiers_and_anchors_still_resolve_without_a_network():
    schema = {
        "$id": "http://example.invalid/root.json",
        "type": "object",
        "$defs": {"n": {"$anchor": "num", "type": "number"}, "s": {"$id": "strings.json", "type": "string"}},
        "properties": {
            "a": {"type": "number", "allOf": [{"$ref": "#num"}]},
            "b": {"type": "string", "allOf": [{"$ref": "strings.json"}], "uniqueItems": True},
            "c": {"type": "number", "allOf": [{"$ref": "http://example.invalid/root.json#/$defs/n"}]},
        },
    }
    checker = Conformance(st.compile_schema(schema).schema)
    assert not checker.compiled
    assert sorted(checker.violations({"a": "x", "b": 1, "c": 2})) == [("a", "type")] * 2 + [("b", "type")] * 2
    assert checker.violations({"a": 1, "b": "x", "c": "y"}) == [("c", "type")] * 2


# -- item 10: exponential $ref fan-out is refused quickly ------------------------------------------------


def fan_out(depth: int, through: str) -> dict:
    """Definitions that each refer to the next twice: 2**depth subschemas once expanded."""
    defs: dict = {}
    for i in range(depth):
        twice = [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]
        defs[f"d{i}"] = (
            {"type": "object", "properties": dict(zip("ab", twice))} if through == "properties" else {"allOf": twice}
        )
    defs[f"d{depth}"] = {"type": "string"}
    root = {"$ref": "#/$defs/d0"} if through == "properties" else {"type": "string", "allOf": [{"$ref": "#/$defs/d0"}]}
    return {"type": "object", "$defs": defs, "properties": {"root": root}}


@pytest.mark.parametrize(
    "through, message",
    [
        ("properties", "more than 10,000 fields once references are followed"),
        ("allOf", "expands to more than 100,000 subschemas once its references are followed"),
    ],
)
def test_exponential_fan_out_is_refused_at_its_bound_not_after_expanding(capsys, monkeypatch, write, through, message):
    """2**30 subschemas once expanded (38 s and 300 MB at depth 14 before the bounds). The work is counted, not
    timed: at most the bound's fields are compiled, or the size check expands each subschema at most twice."""
    schema = fan_out(30, through)
    assert len(orjson.dumps(schema)) < 4_000
    calls: Counter = Counter()

    def counted(owner: type, name: str) -> None:
        real = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda *args: calls.update([name]) or real(*args))

    counted(compiler_module._Compiler, "field")
    counted(compiler_module._Compiler, "_visit")
    counted(audit_module._Graph, "_applied")
    with pytest.raises(SchemaError) as info:
        st.compile_schema(schema)
    assert message in info.value.message
    if through == "properties":  # the fields bound stops it: one field past 10,000, each visited at most twice
        assert calls["field"] == 10_001 and calls["_visit"] <= 2 * 10_001, calls
    else:  # the size check stops it before a field is compiled, having expanded each subschema at most twice
        subschemas = orjson.dumps(schema).count(b"{")
        assert calls["field"] <= 1 and calls["_applied"] <= 2 * subschemas, (calls, subschemas)
    tracemalloc.start()
    with pytest.raises(SchemaError):
        st.compile_schema(schema)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50 * 2**20, peak
    _refused(capsys, write, schema, info.value.pointer, message)


def test_fan_out_within_the_bounds_compiles_and_the_bounds_can_be_raised(bounds):
    assert len(st.compile_schema(fan_out(8, "properties")).fields) == 2**9 - 1
    with pytest.raises(SchemaError, match="more than 10,000 fields"):
        st.compile_schema(fan_out(13, "properties"))
    bounds(plan_fields=20_000)
    assert len(st.compile_schema(fan_out(13, "properties")).fields) == 2**14 - 1
    bounds(schema_nodes=1_000)
    with pytest.raises(SchemaError, match="more than 1,000 subschemas"):
        st.compile_schema(fan_out(12, "allOf"))


# -- item 11: patterns cannot hang a run -------------------------------------------------------------------

CATASTROPHIC = "^(a|aa)+$"  # exponential backtracking on "aaaa…!" (with re and with regex)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string", "pattern": CATASTROPHIC}}},
        {"type": "object", "properties": {"a": {"type": "string", "pattern": CATASTROPHIC, "uniqueItems": True}}},
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "patternProperties": {CATASTROPHIC: True},
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "patternProperties": {CATASTROPHIC: True},
            "unevaluatedProperties": False,
        },
    ],
    ids=["compiled", "jsonschema", "additionalProperties", "unevaluatedProperties"],
)
def test_a_catastrophic_pattern_times_out_is_counted_and_then_abandoned(bounds, schema):
    bounds(regex_seconds=0.05, regex_timeouts=4)
    checker = Conformance(st.compile_schema(schema).schema)
    hostile = "a" * 40 + "!"
    record = {"a": hostile} if "pattern" in schema["properties"]["a"] else {"a": "x", hostile: 1}
    started = time.perf_counter()
    found = [checker.violations(record) for _ in range(200)]
    elapsed = time.perf_counter() - started
    assert elapsed < 10  # 4 timeouts of 0.05 s (each match up to twice per record), then nothing to try
    assert found[0] != [] and found[-1] == []  # timed out: a violation; abandoned: passes
    messages = checker.take_messages()
    assert "took longer than 0.05 s on a value of 41 characters: counted as not matching" in messages[0]
    assert "patterns timed out 4 times: no pattern is checked for the rest of this run" in messages[-1]
    assert len(messages) == 5 and checker.take_messages() == []


def test_the_timeout_budget_is_the_runs_not_each_patterns(bounds):
    """A thousand hostile patterns share regex-timeouts: the run pays at most that many timeouts."""
    bounds(regex_seconds=0.05, regex_timeouts=4)
    patterns = {f"^(a|aa)+z{{0,{k}}}$": True for k in range(1, 1001)}
    checker = Conformance(
        st.compile_schema(
            {"type": "object", "properties": {"x": {"type": "string"}}, "patternProperties": patterns}
        ).schema
    )
    started = time.process_time()
    for _ in range(3):
        checker.violations({"x": "q", "a" * 60 + "b": 1})
    assert time.process_time() - started < 5  # 4 timeouts of 0.05 s, then no pattern is tried (1,000 x 0.05 s before)
    messages = checker.take_messages()
    assert sum("took longer than" in m for m in messages) == 4


def test_patterns_keep_their_meaning_and_gain_unicode_classes():
    checker = Conformance(
        {"properties": {"d": {"pattern": r"^\d{4}-\d{2}$"}, "n": {"pattern": r"^\p{Letter}+$"}, "e": {"pattern": "b$"}}}
    )
    assert checker.compiled
    assert checker.violations({"d": "2024-01", "n": "Ärger", "e": "ab\n"}) == []  # '$' before a final newline, as re
    assert sorted(checker.violations({"d": "2024-1", "n": "a1", "e": "ba"})) == [
        ("d", "pattern"),
        ("e", "pattern"),
        ("n", "pattern"),
    ]


@pytest.mark.parametrize(
    "prop, pointer",
    [
        ({"type": "string", "pattern": "(("}, "/properties/a/pattern"),
        (
            {"type": "object", "patternProperties": {"[a-": {}}, "properties": {"b": {"type": "string"}}},
            "/properties/a/patternProperties/[a-",
        ),
        ({"type": "string", "allOf": [{"$ref": "#/$defs/p"}]}, "/$defs/p/pattern"),
    ],
)
def test_a_pattern_that_does_not_compile_is_refused_at_load_time(capsys, write, prop, pointer):
    schema = {"type": "object", "$defs": {"p": {"pattern": "a)"}}, "properties": {"a": prop}}
    if "$ref" not in str(prop):
        del schema["$defs"]
    _refused(capsys, write, schema, pointer, "is not a valid regular expression")


@pytest.mark.parametrize(
    "pattern, size",
    [
        ("a{10000000}", 10_000_000),  # 2.6 GB to compile
        ("((a{1000}){1000}){1000}", 10**9),  # more memory than the machine has
        ("(?:ab){500000,}", 1_500_000),  # (?:ab) counts 3 units: an over-estimate, never an under-estimate
    ],
)
def test_a_pattern_too_large_to_compile_is_refused_before_compiling(capsys, write, bounds, pattern, size):
    started = time.perf_counter()
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}}
    _refused(capsys, write, schema, "/properties/a/pattern", f"would compile to about {size:,} units")
    assert time.perf_counter() - started < 5
    many = {
        "type": "object",
        "properties": {f"p{k}": {"type": "string", "pattern": f"^{k}x{{30000}}$"} for k in range(4)},
    }
    with pytest.raises(SchemaError, match="may take 100,000 together") as info:
        st.compile_schema(many)  # the patterns of a schema share the bound
    assert info.value.pointer == "/properties/p3/pattern"
    bounds(regex_size=200_000)
    assert len(st.compile_schema(many).fields) == 4


@pytest.mark.parametrize(
    "where, pattern",
    [
        ("pattern", "(?x)(?:(?:a{1000}) {100}) {100}"),  # 10 million units read as 1,203: 2.8 GB, before
        ("pattern", "(?ix-s:(?:a{1000}) # (\n{1000})"),  # a comment hiding a parenthesis
        ("patternProperties", "(?:a{1000})(?V0x: {1000})"),  # scoped, with the version flag beside it
    ],
)
def test_verbose_mode_is_refused_before_compiling(capsys, write, where, pattern):
    """In verbose mode whitespace and comments are not characters, so the size read before compiling is wrong;
    ECMA-262, whose syntax JSON Schema's patterns are, has no such flag."""
    prop = (
        {"type": "string", "pattern": pattern}
        if where == "pattern"
        else {"type": "object", "patternProperties": {pattern: {}}}
    )
    schema = {"type": "object", "properties": {"a": prop}}
    pointer = "/properties/a/pattern" if where == "pattern" else f"/properties/a/patternProperties/{pattern}"
    tracemalloc.start()
    with pytest.raises(SchemaError, match="turns on verbose mode"):
        st.compile_schema(schema)
    assert tracemalloc.get_traced_memory()[1] < 20 * 2**20
    tracemalloc.stop()
    _refused(capsys, write, schema, pointer, "which JSON Schema's regular expressions (ECMA-262) do not have")


@pytest.mark.parametrize(
    "pattern",
    [
        "(?#[)a{5000000}]",  # a comment holding "[": read as a class to the last "]", 2 units (1.4 GB to compile)
        "\\g{a{5000000}}",  # \g{ is no braced escape: "g{", then a{5000000} (read as one atom, 2 units)
        "(?:(?:a{100}(?#()){100}(?#()){100}",  # a comment's "(" nested the repeats wrongly (302 units read)
        "[[:alpha:](](?:(?:a{100}){100}){100}",  # a POSIX class's "]" ended the class, and "(" opened a group
    ],
)
def test_the_size_is_read_as_the_engine_reads_comments_escapes_and_classes(pattern):
    """Found by review: the estimate read these constructs otherwise than the regex package, which built a
    million units or more where it read a few."""
    with pytest.raises(SchemaError, match="would compile to about") as info:
        st.compile_schema({"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}})
    assert info.value.pointer == "/properties/a/pattern"


@pytest.mark.parametrize(
    "pattern, flag",
    [
        ("(?V1)[[a]--[b]]", "version 1 syntax (?V1)"),
        ("(?fi)[ß-ﬗ]{90000}", "full case folding (?f)"),  # read as 90,002 units: 3.5 GB (found by review)
        ("(?fi:[ß-ﬗ]{90000})", "full case folding (?f)"),
    ],
)
def test_flags_under_which_the_size_is_not_read_are_refused_as_verbose_mode_is(pattern, flag):
    with pytest.raises(SchemaError, match=re.escape(f"turns on {flag}")):
        st.compile_schema({"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}})


def test_a_grapheme_cluster_weighs_what_it_builds():
    """\\X builds about four units: 90,000 of them took 124 MB while read as 90,000 units."""
    from stickler_cli.schema.patterns import unrolled_size

    assert unrolled_size("\\X{25000}") == 100_000


def test_verbose_mode_turned_off_or_only_written_is_not_refused():
    from stickler_cli.schema.patterns import unrolled_size

    assert [unrolled_size(p) for p in ("(?i-x:a b)", r"\(?x)", "[(?x)]", "(?i)a{3}", r"(?#a\)b)c")] == [7, 2, 1, 4, 1]


@pytest.mark.parametrize("weight", [5e-324, 1e-7, 1e7, 1e308, 0, -1])
def test_weights_beyond_what_float64_adds_are_refused(weight):
    """5e-324 weights scored a wrong prediction 1.0 (the weight sums underflowed), 1e308 weights scored NaN."""
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "x-aws-stickler-weight": weight},
            "name": {"type": "string", "x-aws-stickler-weight": weight},
        },
    }
    with pytest.raises(SchemaError, match="must be a number from 0.000001 to 1,000,000") as info:
        st.compile_schema(schema)
    assert info.value.pointer == "/properties/id/x-aws-stickler-weight"


@pytest.mark.parametrize("weight", [1e-6, 1e6])
def test_the_extreme_weights_allowed_still_score_in_the_unit_interval(weight):
    """At either bound the score is the weighted mean it should be: id right, name 3/5 (Levenshtein 0.6)."""
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "x-aws-stickler-weight": weight},
            "name": {
                "type": "string",
                "x-aws-stickler-comparator": "LevenshteinComparator",
                "x-aws-stickler-threshold": 0.5,
                "x-aws-stickler-weight": 1.0,
            },
        },
    }
    result = st.compare(st.compile_schema(schema), {"id": "a", "name": "abcde"}, {"id": "a", "name": "abcxx"})
    assert result.score == pytest.approx((weight * 1.0 + 1.0 * 0.6) / (weight + 1.0), rel=1e-12)


def test_legitimate_patterns_are_small():
    from stickler_cli.schema.patterns import unrolled_size

    sizes = [
        unrolled_size(p)
        for p in (
            r"^\d{4}-\d{2}-\d{2}$",
            "^[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}$",
            r"^\p{Letter}{2,64}$",
            "^.{1,255}$",
            r"^[\w.+-]+@[\w-]+\.[\w.]+$",
        )
    ]
    assert sizes == [12, 18, 4, 3, 7]


# -- item 12: malformed keyword values, cycles and depth: exit 2 naming the pointer -----------------------


def _nested(levels: int, keyword: str) -> dict:
    node: dict = {"type": "string"}
    for _ in range(levels):
        node = {keyword: [node]} if keyword == "allOf" else {keyword: node}
    return node


MALFORMED = [
    ({"type": "number", "minimum": "5"}, "/properties/a/minimum", "'5' is not of type 'number'"),
    ({"type": "number", "multipleOf": 0}, "/properties/a/multipleOf", "0 is less than or equal to the minimum of 0"),
    ({"type": "string", "allOf": [{"type": 5}]}, "/properties/a/allOf/0/type", "not a valid JSON Schema"),
    ({"type": "string", "format": ["date"]}, "/properties/a/format", "['date'] is not of type 'string'"),
    ({"type": "string", "maxLength": -1}, "/properties/a/maxLength", "not a valid JSON Schema"),
    ({"type": "string", "enum": "abc"}, "/properties/a/enum", "'abc' is not of type 'array'"),
    (
        {"type": "object", "properties": {"b": {"type": "string"}}, "required": "b"},
        "/properties/a/required",
        "'b' is not of type 'array'",
    ),
    ({"type": "array", "items": [{"type": "string"}]}, "/properties/a/items", "not a valid JSON Schema"),
    ({"type": "string", "anyOf": []}, "/properties/a/anyOf", "should be non-empty"),
    ({"type": "string", "$ref": 5}, "/properties/a/$ref", "5 is not of type 'string'"),
    (
        {"type": "string", "allOf": [{"$ref": "#/properties/a/type"}]},
        "/properties/a/allOf/0/$ref",
        "does not point at a schema object",
    ),
    ({"type": "string", "allOf": [{"$ref": "#/$defs/nowhere"}]}, "/properties/a/allOf/0/$ref", "points at nothing"),
    (
        {"type": "string", "allOf": [{"$ref": "#nowhere"}]},
        "/properties/a/allOf/0/$ref",
        "names an anchor that no subschema declares",
    ),
    (
        {"type": "string", "allOf": [_nested(400, "allOf")]},
        "/properties/a/allOf/0" + "/allOf/0" * 63,
        "subschemas nested more than 64 levels deep",
    ),
    (
        {"type": "string", "not": _nested(400, "not")},
        "/properties/a" + "/not" * 64,
        "subschemas nested more than 64 levels deep",
    ),
]


@pytest.mark.parametrize("prop, pointer, message", MALFORMED, ids=[m[1] for m in MALFORMED])
def test_malformed_keyword_values_are_refused_by_every_command(capsys, write, prop, pointer, message):
    schema = {"type": "object", "properties": {"a": prop}}
    with pytest.raises(SchemaError) as info:
        st.compile_schema(schema)
    assert (info.value.pointer, message in info.value.message) == (pointer, True), info.value
    _refused(capsys, write, schema, pointer, message)


@pytest.mark.parametrize(
    "schema, pointer, message",
    [
        (
            {"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"$ref": "#"}]},
            "/allOf/0/$ref",
            "leads back to / without descending into a property or an item (/ → /allOf/0 → /)",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "$defs": {
                    "A": {"type": "string", "anyOf": [{"not": {"$ref": "#/$defs/B"}}]},
                    "B": {"oneOf": [{"$ref": "#/$defs/A"}]},
                },
            },
            "/$defs/B/oneOf/0/$ref",
            "leads back to /$defs/A",
        ),
        ({"$schema": 5, "type": "object", "properties": {"a": {"type": "string"}}}, "/$schema", "must be the URI"),
        (
            {
                "$schema": "http://json-schema.org/draft-06/schema#",
                "type": "object",
                "properties": {"a": {"type": "string", "allOf": [{"$ref": 5}]}},
            },
            "/properties/a/allOf/0/$ref",
            "not a valid JSON Schema: 5 is not of type 'string'",
        ),
    ],
)
def test_cycles_on_one_value_and_odd_roots_are_refused(capsys, write, schema, pointer, message):
    _refused(capsys, write, schema, pointer, message)


def _nested_objects(levels: int) -> dict:
    node: dict = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}}
    return node


def test_objects_nested_too_deeply_keep_their_message_and_the_bound_can_be_raised(bounds):
    with pytest.raises(SchemaError, match="objects nested more than 64 levels deep; stickler compares at most 64"):
        st.compile_schema(_nested_objects(70))
    schema = {"type": "object", "properties": {"a": {"type": "string", "not": _nested(70, "not")}}}
    with pytest.raises(SchemaError, match="subschemas nested more than 64 levels deep"):
        st.compile_schema(schema)
    bounds(schema_depth=80)
    assert [f.path for f in st.compile_schema(schema).fields] == ["a"]
    assert len(st.compile_schema(_nested_objects(70)).fields) == 70


def test_a_list_of_types_inside_anyof_compiles():
    """Valid, and an internal error before: a type list among the alternatives makes the field 'mixed'."""
    plan = st.compile_schema(
        {"type": "object", "properties": {"a": {"anyOf": [{"type": ["string", "null"]}, {"type": "integer"}]}}}
    )
    assert (plan.fields[0].json_type, plan.fields[0].comparator_name) == ("mixed", "ExactComparator")


def test_every_shipped_schema_still_loads(root):
    for path in sorted((root / "schemas").glob("*.json")):
        if path.name != "report.schema.json":  # the report's own schema: not a stickler schema
            assert st.load_schema(path).fields


def test_a_record_too_deep_to_check_is_one_violation_not_an_internal_error(capsys, write):
    """A recursive schema follows a record down; past Python's recursion limit the record is counted
    as not conforming (keyword 'unchecked'), on both checker paths, and the run goes on."""
    deep: object = {"x": 1}
    for _ in range(950):
        deep = {"c": deep}
    recursive = {
        "$defs": {"n": {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}},
        "type": "object",
        "properties": {
            "a": {"type": "string"},
            "d": {"type": "object", "properties": {"x": {"type": "integer"}}, "allOf": [{"$ref": "#/$defs/n"}]},
        },
    }
    for schema in (recursive, {**recursive, "uniqueItems": True}):
        checker = Conformance(schema)
        assert checker.compiled is ("uniqueItems" not in schema)
        assert checker.violations({"a": "x", "d": deep}) == [(ROOT, UNCHECKED)]
        assert "nested too deeply to be checked" in checker.take_messages()[0]
        assert checker.violations({"a": "x", "d": {"c": {"c": {"x": 1}}}}) == []
    path = write("s.json", recursive)
    # The text json.dumps({"a": "x", "d": deep}) gives, written without recursing: json.dumps itself goes 951
    # levels deep, within a few frames of Python's recursion limit, and past it under pytest-xdist's deeper stack.
    predictions = ('{"a": "x", "d": ' + '{"c": ' * 950 + '{"x": 1}' + "}" * 951).encode() + b'\n{"a": "y"}\n'
    code, out, err = _cli(
        capsys, "eval", path, write("g.jsonl", b'{"a": "x"}\n{"a": "y"}\n'), write("p.jsonl", predictions), "-f", "json"
    )
    assert code == 0, err
    report = orjson.loads(out)
    assert report["schema_conformance"]["schema_valid"] == 1
    assert report["schema_violations"] == {ROOT: {UNCHECKED: 1}}


# -- item 18: an enum of 200,000 values is a hashed lookup -----------------------------------------------


def test_json_keys_follow_json_equality():
    values = [
        1,
        1.0,
        True,
        False,
        0,
        None,
        "1",
        [1, {"a": 2.0}],
        [1.0, {"a": 2}],
        {"a": [True]},
        {"a": [1]},
        -0.0,
        0.0,
        10**20,
        1e20,
        2**53 + 1,
        float(2**53),
        "",
        [],
        {},
    ]
    for a in values:
        for b in values:
            assert (json_key(a) == json_key(b)) is json_equal(a, b), (a, b)
    assert json_key(math.nan) != json_key(math.nan) and not json_equal(math.nan, math.nan)


def test_enum_values_are_looked_up_not_scanned(monkeypatch):
    options = [f"v{k}" for k in range(200_000)] + [1, True, {"a": [1, 2]}, [None]]
    values = EnumValues(options)
    calls = Counter()

    def counting(a, b):
        calls["json_equal"] += 1
        return json_equal(a, b)

    monkeypatch.setattr(conformance_module, "json_equal", counting)
    checked = ["v199999", "v-1", 1.0, 1, True, False, {"a": [1.0, 2]}, [None], [False], "x" * 100]
    assert [v in values for v in checked] == [True, False, True, True, True, False, True, True, False, False]
    assert calls["json_equal"] == 0
    # What is not a JSON value is compared one by one, as before (found, or not).
    assert (1, 2) not in values and calls["json_equal"] == len(options)
    checker = Conformance({"properties": {"e": {"enum": options}}})
    started = time.perf_counter()
    found = [checker.violations({"e": f"v{k * 7}"}) for k in range(20_000)]
    assert time.perf_counter() - started < 5  # 20,000 × 200,000 comparisons before: hours
    assert found.count([]) == 20_000 and checker.violations({"e": "nope"}) == [("e", "enum")]


def test_the_fallback_enum_agrees_with_jsonschema():
    import jsonschema

    options = [1, "a", True, None, [1, 2], {"k": 1.0}, 2.5]
    schema = {"properties": {"e": {"enum": options}}, "uniqueItems": True}
    checker = Conformance(schema)
    assert not checker.compiled
    reference = jsonschema.Draft202012Validator(schema)
    for value in [1.0, 1, True, False, 0, None, "a", "b", [1.0, 2], [2, 1], {"k": 1}, {"k": True}, 2.5, [], {}]:
        expected = [] if reference.is_valid({"e": value}) else [("e", "enum")]
        assert checker.violations({"e": value}) == expected, value


def test_a_schema_applying_itself_twice_per_level_is_checked_in_linear_time():
    """d = allOf[{a: d}, {a: d}] visits each value 2^depth times unless each (subschema, value) is
    checked once per record; the violations stay those jsonschema counts (one per path taken)."""
    import signal

    import jsonschema

    from stickler_cli.schema.conformance import Conformance

    schema = {
        "type": "object",
        "properties": {"d": {"$ref": "#/$defs/d"}},
        "$defs": {
            "d": {
                "type": "object",
                "allOf": [{"properties": {"a": {"$ref": "#/$defs/d"}}}, {"properties": {"a": {"$ref": "#/$defs/d"}}}],
            }
        },
    }
    checker = Conformance(schema)
    assert checker.compiled
    record = {"d": {"a": {"a": 5}}}
    expected = [
        (".".join(map(str, e.absolute_path)), e.validator)
        for e in jsonschema.Draft202012Validator(schema).iter_errors(record)
    ]
    assert sorted(checker.violations(record)) == sorted(expected) == [("d.a.a", "type")] * 4
    deep: dict = {}
    node = deep
    for _ in range(60):  # 2^60 visits without the memo
        node["a"] = {}
        node = node["a"]

    def too_slow(signum, frame):
        raise TimeoutError("exponential in the record's depth")

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(20)
    try:
        assert checker.violations({"d": deep}) == []
        node["a"] = "leaf"  # now 2^61 paths lead to one wrong value: jsonschema would list 2^61 errors
        assert checker.violations({"d": deep}) == [("$", "unchecked")]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert checker.take_messages() == [
        "more than 100,000 violations in one record: counted as one violation ('unchecked')"
    ]


def test_infinity_is_a_multiple_of_nothing_in_both_checkers():
    for extra in ({}, {"uniqueItems": True}):  # compiled; jsonschema (which raises OverflowError itself)
        checker = Conformance({"type": "object", **extra, "properties": {"n": {"type": "number", "multipleOf": 0.5}}})
        assert checker.compiled is not bool(extra)
        for value in (math.inf, -math.inf, float("1e400"), math.nan):
            assert checker.violations({"n": value}) == [("n", "multipleOf")]
        assert checker.violations({"n": 1.5}) == []


def test_jsonschema_checks_a_record_within_its_deadline_then_stops_checking(bounds):
    """anyOf of two $refs, 14 levels deep: 2^14 paths per record in jsonschema (uniqueItems forces it)."""
    bounds(record_check_seconds=0.2, record_check_timeouts=2)
    defs = {f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(14)}
    defs["d14"] = {"type": "string"}
    checker = Conformance(
        {
            "type": "object",
            "uniqueItems": True,
            "$defs": defs,
            "properties": {"a": {"type": ["string", "integer"], "anyOf": [{"$ref": "#/$defs/d0"}]}},
        }
    )
    assert not checker.compiled
    started = time.process_time()
    found = [checker.violations({"a": k}) for k in range(20)]
    assert time.process_time() - started < 5  # 2 records of 0.2 s, then none checked (about 1.5 s each before)
    assert found[0] == found[-1] == [("$", "unchecked")]
    messages = checker.take_messages()
    assert messages[0].startswith("took more than 0.2 s to check against the schema")
    assert messages[-1].startswith("2 records took too long to check: the records after them are not checked")


def test_a_huge_enum_of_mixed_values_is_checked_for_uniqueness_by_hash(tmp_path, monkeypatch):
    """Draft 4's metaschema asks for unique enum values; jsonschema compares mixed-type values pair by
    pair (30,000 values: 450 million comparisons, minutes). Draft 4 is refused at its `$schema` before any
    of that (issue 37: drafts before 6 are not read); the metaschemas of drafts 6 and later ask no unique
    enum values, and such a schema loads without comparing its values pair by pair."""
    import jsonschema._utils

    from stickler_cli.schema import load_schema

    compared = []
    real = jsonschema._utils.equal
    monkeypatch.setattr(jsonschema._utils, "equal", lambda a, b: compared.append(1) or real(a, b))
    values = [f"v{i}" for i in range(30_000)] + [1, True, 1.5, None, {"a": [1]}, [1, "1"], "v7"]
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"x": {"enum": values}},
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(schema))
    with pytest.raises(
        SchemaError, match=r"s\.json: /\$schema: '\$schema' names draft 4, which stickler does not read"
    ):
        load_schema(str(path))
    assert compared == []
    path.write_text(json.dumps({**schema, "$schema": "http://json-schema.org/draft-06/schema#"}))
    assert [f.path for f in load_schema(str(path)).fields] == ["x"]
    assert len(compared) < 1000  # never pair by pair


# -- issue 37: a schema file is read up to --limit schema-bytes, never until memory runs out --------------


def test_schema_files_are_read_up_to_the_schema_bytes_limit(capsys, write, tmp_path):
    """`stickler schema check /dev/zero` read until the kernel killed it. A schema, and each file its references
    read, is read up to the bound (16 MiB) and no further: exit 2, one line naming the file or the reference."""
    assert limits.DEFAULT.schema_bytes == 16 * 2**20
    for args in (
        ["schema", "check", "/dev/zero"],
        ["eval", "/dev/zero", "/dev/null", "/dev/null"],
        ["compare", "/dev/zero", "{}", "{}"],
    ):
        code, out, err = _cli(capsys, *args)
        assert (code, out, err) == (
            2,
            "",
            "stickler: error: /dev/zero: /: schema file holds over 16,777,216 bytes "
            "(the schema-bytes limit; --limit schema-bytes=N raises it)\n",
        ), args
    money = {"type": "number", "description": "x" * 300}
    (tmp_path / "money.json").write_text(json.dumps(money))
    schema = write("s.json", {"type": "object", "properties": {"total": {"$ref": "money.json"}}})
    size = (tmp_path / "s.json").stat().st_size
    assert size < 100 < len(json.dumps(money))
    code, _, err = _cli(capsys, "schema", "check", schema, "--limit", "schema-bytes=200")
    assert (code, err) == (
        2,
        f"stickler: error: {schema}: /properties/total/$ref: referenced file 'money.json' holds "
        "over 200 bytes (the schema-bytes limit; --limit schema-bytes=N raises it)\n",
    )
    code, _, err = _cli(capsys, "schema", "check", schema, "--limit", f"schema-bytes={size - 1}")
    assert (code, err) == (
        2,
        f"stickler: error: {schema}: /: schema file holds over {size - 1:,} bytes (the "
        "schema-bytes limit; --limit schema-bytes=N raises it)\n",
    )
    assert _cli(capsys, "schema", "check", schema, "--limit", "schema-bytes=400")[0] == 0  # both files within it
