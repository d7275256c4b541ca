"""The command line end to end on generated schemas and records: it never crashes, never loses a record.

Each example writes a schema (mostly valid, sometimes not), a ground-truth file
and a prediction file full of what language models produce (truncated lines,
wrong types, strings where numbers belong, NaN, deep nesting, stray bytes),
runs ``stickler eval`` in-process and asserts: the exit code is 0 or 2, no
traceback and no internal error, and when a report is written, its counts
reconcile. CI runs 2,000 examples (about a minute); STICKLER_FUZZ_EXAMPLES=20000 runs more.

The schema side: generated hostile schemas (keyword values of the wrong type, $ref graphs with
cycles, fan-out, dangling and remote targets, catastrophic and invalid patterns) are loaded and
score a few records, each within CASE_SECONDS, with no network connection; exit 0 or 2, never 3.
STICKLER_FUZZ_SCHEMA_EXAMPLES sets how many (400 by default).
"""

from __future__ import annotations

import json
import os
import sys

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stickler_cli.cli.app import main

EXAMPLES = int(os.environ.get("STICKLER_FUZZ_EXAMPLES", "2000"))

COMPARATORS = [
    "ExactComparator",
    "LevenshteinComparator",
    "NumericComparator",
    "FuzzyComparator",
    "DateComparator",
    "ExactComparator",
    "LevenshteinComparator",
    "Levenshtien",
]
KEYS = st.sampled_from(["id", "name", "total", "items", "qty", "date", "a b", "é", "x-y", "_value", "tags", "nested"])


def primitive_schema():
    return st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["string"] * 4 + ["number"] * 3 + ["integer", "boolean", ["string", "null"], "nonsense"]
            )
        },
        optional={
            "x-aws-stickler-comparator": st.sampled_from(COMPARATORS),
            "x-aws-stickler-threshold": st.sampled_from([0.0, 0.5, 0.9, 1.0] * 5 + [1.5, "high"]),
            "x-aws-stickler-weight": st.sampled_from([0.5, 1, 3] * 5 + [0, -1]),
            "x-aws-stickler-clip-under-threshold": st.booleans(),
            "format": st.sampled_from(["date", "uri", "email"]),
            # values that normalise alike (issue 37, item 5): kept apart by Exact
            "enum": st.sampled_from([[1.5, 15, -15], ["A+", "A-"], ["N/A", "NA", None], "not a list"]),
            "const": st.sampled_from(["N/A", -1, None]),
        },
    )


def schemas():
    return st.recursive(
        primitive_schema(),
        lambda inner: st.one_of(
            st.builds(
                lambda props: {"type": "object", "properties": props},
                st.dictionaries(KEYS, inner, min_size=1, max_size=4),
            ),
            st.builds(lambda item: {"type": "array", "items": item}, inner),
        ),
        max_leaves=8,
    ).map(lambda s: s if s.get("type") == "object" else {"type": "object", "properties": {"value": s}})


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)

RAW_LINES = st.sampled_from(
    [
        b'{"id": "a", "total": NaN}',
        b'{"total": Infinity, "items": [{"qty": -Infinity}]}',
        b'{"id": "trunc',
        b"[1, 2, 3]",
        b'"just a string"',
        b"null",
        b"",
        b"   ",
        b'{"id": "\xff\xfe"}',
        b"\xef\xbb\xbf{}",
        b'{"nested": ' + b"[" * 1500 + b"]" * 1500 + b"}",
        b'{"items": {"_value": [{"qty": "12"}], "_confidence": 2}}',
        b'{"name": {"_value": "x", "_confidence": "high"}}',
        b'{"total": 1e400}',
        b'{"id": "\\ud800"}',
        # texts that are no one number, and objects holding _value beside data (issue 37, items 6 and 7)
        b'{"total": "page 1 of 2", "qty": "1e2", "items": ["5 to 7", "1 0"]}',
        b'{"nested": {"_value": 5, "unit": "kg"}, "items": [{"_value": 5, "_confidence": 0.5, "qty": 1}]}',
    ]
)


def lines(garbage: int = 1):
    """JSONL lines: mostly objects, then any JSON value, then what models really produce (1 in 5 + garbage)."""
    dump = lambda v: json.dumps(v, ensure_ascii=False).encode()  # noqa: E731  (integers beyond 64 bits too)
    record = st.dictionaries(KEYS, JSON_VALUES, max_size=6).map(dump)
    return st.lists(st.one_of(*[record] * 4, JSON_VALUES.map(dump), *[RAW_LINES] * garbage), max_size=6)


def run_checked(args: list[str], capsys) -> tuple[int, str]:
    """``stickler ARGS`` in this process: exit 0, or 2 with exactly one error line; never a traceback
    or an internal error. (exit code, standard output)"""
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 2), err
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert err.startswith("stickler: error: ") and err.count("\n") == 1, err
    return code, out


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=schemas(), gt=lines(garbage=0), pred=lines(garbage=3), id_field=st.sampled_from([None, None, "id"]))
def test_the_cli_never_crashes_and_never_loses_a_record(tmp_path_factory, capsys, schema, gt, pred, id_field):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "s.json").write_bytes(orjson.dumps(schema))
    (folder / "g.jsonl").write_bytes(b"\n".join(gt) + b"\n")
    (folder / "p.jsonl").write_bytes(b"\n".join(pred) + b"\n")
    args = [
        "eval",
        str(folder / "s.json"),
        str(folder / "g.jsonl"),
        str(folder / "p.jsonl"),
        "--format",
        "json",
        "-o",
        str(folder / "r.json"),
        "--no-progress",
    ]
    if id_field:
        args += ["--id-field", id_field]
    if run_checked(args, capsys)[0] == 2:
        return
    report = orjson.loads((folder / "r.json").read_bytes())
    records = report["inputs"]["records"]
    assert records["gt_lines"] == report["document_count"]
    assert records["pred_lines"] == records["paired"] + records["unpaired_predictions"]
    # Every prediction read is either not a JSON object or checked against the schema.
    conformance = report["schema_conformance"]
    assert records["invalid_predictions"] + conformance["checked"] == records["pred_lines"]
    assert conformance["schema_valid"] <= conformance["checked"]
    non_blank = [line for line in pred if line.strip() and line.strip() != b"\xef\xbb\xbf"]
    try:  # a file that is one JSON array on one line is read as a .json file: a record per element
        whole = json.loads(non_blank[0].removeprefix(b"\xef\xbb\xbf")) if len(non_blank) == 1 else None
    except ValueError:
        whole = None
    assert records["pred_lines"] <= (len(whole) if isinstance(whole, list) else len(non_blank))


# -- schema-side fuzzing: hostile keyword values, $ref graphs, patterns ----------------------------------

SCHEMA_EXAMPLES = int(os.environ.get("STICKLER_FUZZ_SCHEMA_EXAMPLES", "400"))  # about 10 s
CASE_SECONDS = 5  # per generated schema: load it (twice: schema check, eval) and score a few records

VALID_PATTERNS = st.sampled_from(
    [
        "^(a|aa)+$",
        "(x+x+)+y",
        "^(a+)+$",
        r"^\p{Letter}+$",
        "(?<=a+)b",
        "a{1000}",
        r"^\d+$",
        "(?i)abc",
        "(?P<n>a)(?P=n)",
        ".*.*.*=.*",
        "^[A-Z]{3}-[0-9]+$",
        "",
        "(a|b|ab)*c",
        "a{50000}",
        "((a{1000}){1000}){1000}",  # valid, but larger than any machine once compiled: refused by its estimated size
    ]
)
INVALID_PATTERNS = st.sampled_from(["((", "[", "\\", "(?", "a{2,1}"])
DEFINITIONS = st.sampled_from(["#/$defs/d0", "#/$defs/d1", "#/$defs/d2", "#/$defs/d3"])
LOCAL_REFS = st.one_of(
    DEFINITIONS, DEFINITIONS, DEFINITIONS, st.sampled_from(["#", "#/$defs/d0/allOf/0", "#/properties/a"])
)
ODD_REFS = st.sampled_from(
    [
        "#/$defs/nope",
        "#/properties",
        "#/properties/a/type",
        "#anchor",
        "http://127.0.0.1:9/s.json",
        "https://json-schema.org/draft/2020-12/schema",
        "other.json",
        "urn:x",
        "",
        5,
        None,
    ]
)
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0, 1e308, -1e308, 10**30, 0.5, -0.0]),
    st.sampled_from(["", "5", "string", "object", "array", "#", "null", "nonsense", "date"]),
    VALID_PATTERNS,
    INVALID_PATTERNS,
    ODD_REFS,
    st.lists(st.sampled_from(["string", "a", 1, None, {}, []]), max_size=3),
    st.dictionaries(
        st.sampled_from(["a", "b", "type", "$ref", "^(a|aa)+$"]), st.sampled_from([{}, True, 1, "x", []]), max_size=2
    ),
)
KEYWORDS = st.sampled_from(
    [
        "type",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "required",
        "enum",
        "const",
        "items",
        "properties",
        "additionalProperties",
        "patternProperties",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "format",
        "uniqueItems",
        "minItems",
        "contains",
        "dependentRequired",
        "propertyNames",
        "$ref",
        "$dynamicRef",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$schema",
        "unevaluatedProperties",
        "prefixItems",
        "dependentSchemas",
        "dependencies",
        "x-aws-stickler-threshold",
        "x-aws-stickler-comparator",
        "extends",
        "divisibleBy",
        "disallow",  # draft 3's (issue 37: its schemas crashed eval)
    ]
)


def graph_node():
    """A subschema of a $ref graph among the definitions (cycles, fan-out) or one with a pattern, an enum."""
    ref = st.builds(lambda r: {"$ref": r}, LOCAL_REFS)
    return st.one_of(
        st.just({"type": "string"}),
        ref,
        st.builds(lambda r: {"$dynamicRef": r}, LOCAL_REFS),
        st.builds(lambda refs: {"allOf": refs}, st.lists(ref, min_size=1, max_size=3)),
        st.builds(lambda a, b: {"type": "object", "properties": {"a": a, "b": b}}, ref, ref),
        st.builds(lambda r: {"type": "array", "items": r}, ref),
        st.builds(lambda p: {"type": "string", "pattern": p}, VALID_PATTERNS),
        st.builds(lambda p, r: {"patternProperties": {p: r}, "additionalProperties": False}, VALID_PATTERNS, ref),
        st.builds(lambda p: {"patternProperties": {p: True}, "unevaluatedProperties": False}, VALID_PATTERNS),
        st.builds(lambda n: {"enum": [f"v{k}" for k in range(n)] + [1, True, {"a": [1]}]}, st.sampled_from([3, 5000])),
    )


def a_property():
    typed = st.sampled_from(
        [
            {"type": "string"},
            {"type": "string"},
            {"type": "number"},
            {"type": "integer"},
            {"type": "object", "properties": {"x": {"type": "string"}}},
            {"type": "array", "items": {"type": "string"}},
        ]
    )
    extra = st.one_of(
        st.just({}),
        st.builds(lambda p: {"pattern": p}, VALID_PATTERNS),
        st.builds(lambda r: {"allOf": [{"$ref": r}]}, LOCAL_REFS),
        graph_node(),
    )
    return st.builds(lambda base, more: {**base, **more}, typed, extra)


MUTATIONS = st.one_of(  # one defect (or none) put into one subschema: a keyword with an odd value, an odd reference
    st.none(),
    st.none(),
    st.tuples(st.integers(0, 6), KEYWORDS, HOSTILE),
    st.tuples(st.integers(0, 6), st.sampled_from(["$ref", "$dynamicRef"]), ODD_REFS),
    st.tuples(st.integers(0, 6), st.sampled_from(["pattern"]), INVALID_PATTERNS),
)


def _mutated(schema: dict, mutation) -> dict:
    if mutation is not None:
        where, keyword, value = mutation
        places = [schema, *schema["properties"].values(), *schema["$defs"].values()]
        places[where % len(places)][keyword] = value
    return schema


def hostile_schemas():
    names = st.sampled_from(["a", "b", "c", "a", "b", "a.b", "é"])
    schema = st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.dictionaries(names, a_property(), min_size=1, max_size=3),
            "$defs": st.fixed_dictionaries({f"d{k}": graph_node() for k in range(4)}),
        },
        optional={
            "allOf": st.lists(graph_node(), min_size=1, max_size=2),
            "$schema": st.sampled_from(
                [
                    "http://json-schema.org/draft-07/schema#",
                    "https://json-schema.org/draft/2019-09/schema",
                    "http://json-schema.org/draft-04/schema#",
                    "http://127.0.0.1:9/meta",
                    "https://json-schema.org/draft/2020-12/schema",
                    "http://json-schema.org/draft-03/schema#",  # issue 37: refused, exit 2
                    "http://json-schema.org/draft-06/schema#",
                ]
            ),
            "$id": st.sampled_from(["http://example.invalid/root.json", "urn:root", "relative.json"]),
            "additionalProperties": st.one_of(st.booleans(), graph_node()),
        },
    )
    return st.builds(_mutated, schema, MUTATIONS)


HOSTILE_STRINGS = st.sampled_from(["a" * 40 + "!", "x" * 40, "Ärger", "2024-01-05", "", "v4999", "aaaa"])
RECORD_VALUES = st.one_of(
    HOSTILE_STRINGS,
    st.integers(-5, 5),
    st.none(),
    st.booleans(),
    st.lists(HOSTILE_STRINGS, max_size=3),
    st.dictionaries(HOSTILE_STRINGS, st.integers(0, 2), max_size=2),
)


class CaseTooSlow(BaseException):
    """Raised by the per-case timer (a BaseException: the CLI's handlers must not turn it into an exit code)."""


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=SCHEMA_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    schema=hostile_schemas(),
    records=st.lists(
        st.dictionaries(st.sampled_from(["a", "b", "a.b", "c", "a" * 40 + "!"]), RECORD_VALUES, max_size=3),
        min_size=1,
        max_size=3,
    ),
)
def test_hostile_schemas_load_or_are_refused_in_bounded_time_and_never_reach_out(
    tmp_path_factory, capsys, schema, records
):
    """Every generated schema either loads and scores a few records (exit 0) or is refused with one line
    (exit 2): never an internal error, never more than CASE_SECONDS, never a network connection."""
    import faulthandler
    import signal
    import socket
    from unittest import mock

    folder = tmp_path_factory.mktemp("hostile")
    (folder / "s.json").write_text(json.dumps(schema))
    (folder / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    connections: list = []

    def connect(sock, address):
        connections.append(address)
        raise OSError("network access during a test")

    def too_slow(signum, frame):
        raise CaseTooSlow(f"more than {CASE_SECONDS} s on {json.dumps(schema)[:2000]}")

    previous = signal.signal(signal.SIGALRM, too_slow)
    # A hang in C, where no signal handler runs, ends the run with every thread's traceback.
    faulthandler.dump_traceback_later(CASE_SECONDS * 12, exit=True, file=sys.__stderr__)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        with mock.patch.object(socket.socket, "connect", connect):
            for args in (
                ["schema", "check", str(folder / "s.json")],
                [
                    "eval",
                    str(folder / "s.json"),
                    str(folder / "r.jsonl"),
                    str(folder / "r.jsonl"),
                    "--format",
                    "json",
                    "--no-progress",
                ],
            ):
                if run_checked(args, capsys)[0] == 2:
                    break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        faulthandler.cancel_dump_traceback_later()
    assert connections == []


INDEX_EXAMPLES = int(os.environ.get("STICKLER_FUZZ_INDEX_EXAMPLES", "200"))
_INDEX_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.text(max_size=40),
    st.binary(max_size=48).map(lambda b: __import__("base64").b64encode(b).decode()),
    st.lists(st.one_of(st.text(max_size=8), st.integers(-3, 2**65)), max_size=3),
)


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=INDEX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=st.sampled_from(["sources", "digests", "lines", "document_index"]), value=_INDEX_VALUES, extra=st.booleans())
def test_a_tampered_document_index_is_refused_in_one_line(tmp_path_factory, capsys, key, value, extra):
    """A state's document index (issue 37: what merge finds shared documents by) is untrusted: any value in
    any of its keys, or in place of it, is merged (when it is right by chance) or refused with one line."""
    folder = tmp_path_factory.mktemp("index")
    (folder / "s.json").write_text(json.dumps({"type": "object", "properties": {"id": {"type": "string"}}}))
    (folder / "r.jsonl").write_text("".join(json.dumps({"id": f"d{k}"}) + "\n" for k in range(3)))
    state_path = folder / "a.state.json"
    assert (
        main(
            [
                "eval",
                str(folder / "s.json"),
                str(folder / "r.jsonl"),
                str(folder / "r.jsonl"),
                "--format",
                "json",
                "--save-state",
                str(state_path),
            ]
        )
        == 0
    )
    capsys.readouterr()
    state = orjson.loads(state_path.read_bytes())
    if key == "document_index":
        state[key] = value
    else:
        state["document_index"][key] = value
    if extra and isinstance(state["document_index"], dict):
        state["document_index"]["more"] = 1
    state_path.write_text(json.dumps(state))  # integers beyond 64 bits too
    code, _ = run_checked(["merge", str(state_path), "--format", "json"], capsys)
    assert code == 2 or (not extra and key != "document_index")  # a whole index replaced is never right


# -- record gates: a missing prediction counts, a gate without data fails (issue 37) ----------------------

RECORD_EXAMPLES = int(os.environ.get("STICKLER_FUZZ_RECORD_EXAMPLES", "300"))
RECORD_GATES = {"valid_json_rate": 1.0, "schema_valid_rate": 0.0, "coverage": 1.0, "name.cm_recall": 0.5}


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=RECORD_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    gt=lines(garbage=0),
    pred=st.one_of(st.just([]), lines(garbage=3)),
    id_field=st.sampled_from([None, "id"]),
    no_data_passes=st.booleans(),
)
def test_missing_predictions_count_and_gates_never_pass_on_missing_data(
    tmp_path_factory, capsys, gt, pred, id_field, no_data_passes
):
    """Any ground truth against any predictions (none at all too): the record figures are shares of what was due,
    a gate whose figure is missing fails unless --no-data-passes (and always when nothing was scored), and the
    exit code is 1 exactly when a gate failed."""
    folder = tmp_path_factory.mktemp("records")
    (folder / "s.json").write_text(
        json.dumps(
            {"type": "object", "properties": {"id": {"type": ["string", "integer"]}, "name": {"type": "string"}}}
        )
    )
    (folder / "g.jsonl").write_bytes(b"\n".join(gt) + b"\n")
    (folder / "p.jsonl").write_bytes(b"\n".join(pred) + (b"\n" if pred else b""))
    args = [
        "eval",
        str(folder / "s.json"),
        str(folder / "g.jsonl"),
        str(folder / "p.jsonl"),
        "--format",
        "json",
        "-o",
        str(folder / "r.json"),
        "--no-progress",
        "--pair-by-line" if id_field is None else "--id-field=id",
        *(f"--fail-under={k}={v}" for k, v in RECORD_GATES.items()),
        *(["--no-data-passes"] * no_data_passes),
    ]
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 1, 2) and "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert err.startswith("stickler: error: ") and err.count("\n") == 1, err
        return
    report = orjson.loads((folder / "r.json").read_bytes())
    records, conformance = report["inputs"]["records"], report["schema_conformance"]
    assert records["gt_lines"] == records["paired"] + records["missing_predictions"] == report["document_count"]
    due = records["pred_lines"] + records["missing_predictions"]
    assert conformance["predictions_due"] == due == records["gt_lines"] + records["unpaired_predictions"]
    share = lambda part, whole: part / whole if whole else None  # noqa: E731
    assert conformance["valid_json_rate"] == share(conformance["valid_json"], due)
    assert conformance["schema_valid_rate"] == share(conformance["schema_valid"], due)
    assert conformance["coverage"] == share(records["paired"], records["gt_lines"])
    if records["missing_predictions"]:  # a missing record is not a valid one
        assert conformance["valid_json_rate"] < 1 and conformance["coverage"] < 1
    for gate in report["gates"]:
        if not report["document_count"]:
            expected = "failed"
        elif gate["actual"] is None:
            expected = "no data" if no_data_passes else "failed"
        else:
            expected = "passed" if gate["actual"] >= gate["threshold"] else "failed"
        assert gate["status"] == expected and gate["no_data"] == (
            gate["actual"] is None or not report["document_count"]
        )
    assert code == (1 if any(g["status"] == "failed" for g in report["gates"]) else 0)


# -- issue 37, item 14: a key written twice in one object ------------------------------------------------------


def _object_text(pairs: list[tuple[str, bytes]]) -> bytes:
    """A JSON object written pair by pair (values already JSON text), so that a key may come twice."""
    return b"{" + b", ".join(json.dumps(k).encode() + b": " + v for k, v in pairs) + b"}"


def _has_duplicate(line: bytes) -> bool:
    """Whether Python's json sees a key twice in any one object of ``line`` (the independent count)."""
    found: list[bool] = []

    def pairs(items: list) -> dict:
        found.append(len(items) != len({k for k, _ in items}))
        return dict(items)

    json.loads(line, object_pairs_hook=pairs)
    return any(found)


DUPLICABLE_KEYS = st.sampled_from(["id", "name", "total", "a:b", "é", 'x"y'])
RAW_VALUES = st.recursive(
    JSON_VALUES.map(lambda v: json.dumps(v).encode()),
    lambda inner: st.one_of(
        st.lists(st.tuples(DUPLICABLE_KEYS, inner), max_size=4).map(_object_text),
        st.lists(inner, max_size=3).map(lambda items: b"[" + b", ".join(items) + b"]"),
    ),
    max_leaves=12,
)


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=min(EXAMPLES, 300), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    lines=st.lists(
        st.lists(st.tuples(DUPLICABLE_KEYS, RAW_VALUES), max_size=5).map(_object_text), min_size=1, max_size=5
    )
)
def test_every_record_with_a_key_written_twice_is_listed(tmp_path_factory, capsys, lines):
    """Each record holding a key twice in one object (at any depth) is one record problem on each side;
    a record without is none (counted independently here, by Python's json)."""
    folder = tmp_path_factory.mktemp("twice")
    (folder / "s.json").write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"name": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
            }
        )
    )
    (folder / "r.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    code, out = run_checked(
        [
            "eval",
            str(folder / "s.json"),
            str(folder / "r.jsonl"),
            str(folder / "r.jsonl"),
            "--format",
            "json",
            "--no-progress",
        ],
        capsys,
    )
    assert code == 0
    listed = [e for e in orjson.loads(out)["errors"] if "twice in one object" in e["message"]]
    assert len(listed) == 2 * sum(_has_duplicate(line) for line in lines)


# -- one document's explanation capped (issue 37, item 11) ------------------------------------------------

CAP_EXAMPLES = int(os.environ.get("STICKLER_FUZZ_CAP_EXAMPLES", "150"))


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=CAP_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=schemas(), gt=lines(garbage=0), pred=lines(garbage=1), cap=st.integers(1, 4))
def test_a_capped_explanation_is_the_first_rows_and_counts_the_rest(tmp_path_factory, capsys, schema, gt, pred, cap):
    """With --limit explain-items=N every worst document holds at most 2N comparisons, the first N of the uncapped
    run's and then its next N failing ones, and its comparisons_not_shown counts the others by type; the figures
    are the uncapped run's."""
    folder = tmp_path_factory.mktemp("cap")
    (folder / "s.json").write_bytes(orjson.dumps(schema))
    (folder / "g.jsonl").write_bytes(b"\n".join(gt) + b"\n")
    (folder / "p.jsonl").write_bytes(b"\n".join(pred) + b"\n")
    base = [
        "eval",
        str(folder / "s.json"),
        str(folder / "g.jsonl"),
        str(folder / "p.jsonl"),
        "--format",
        "json",
        "--no-progress",
        "--show-errors",
        "2",
    ]
    if run_checked([*base, "-o", str(folder / "whole.json")], capsys)[0] == 2:
        return
    assert run_checked([*base, "-o", str(folder / "cut.json"), "--limit", f"explain-items={cap}"], capsys)[0] == 0
    whole, cut = (orjson.loads((folder / name).read_bytes()) for name in ("whole.json", "cut.json"))
    assert cut["metrics"] == whole["metrics"] and cut["field_metrics"] == whole["field_metrics"]
    assert len(cut["worst_documents"]) == len(whole["worst_documents"])
    for capped, full in zip(cut["worst_documents"], whole["worst_documents"]):
        rows = full["comparisons"]
        kept = rows[:cap] + [r for r in rows[cap:] if r["type"] in ("FA", "FD", "FN")][:cap]
        assert capped["comparisons"] == kept
        rest: dict[str, int] = {}
        for row in rows:
            rest[row["type"]] = rest.get(row["type"], 0) + 1
        for row in kept:
            rest[row["type"]] -= 1
        assert capped.get("comparisons_not_shown", {}).get("by_type", {}) == {k: v for k, v in rest.items() if v}
