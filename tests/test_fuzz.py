"""The command line end to end on generated schemas and records: it never crashes, never loses a record.

Each example writes a schema (mostly valid, sometimes not), a ground-truth file
and a prediction file full of what language models produce (truncated lines,
wrong types, strings where numbers belong, NaN, deep nesting, stray bytes),
runs ``stickler eval`` in-process and asserts: the exit code is 0 or 2, no
traceback and no internal error, and when a report is written, its counts
reconcile. CI runs 2,000 examples (about a minute); STICKLER_FUZZ_EXAMPLES=20000 runs more.
"""

from __future__ import annotations

import json
import os

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stickler_cli.cli import main

EXAMPLES = int(os.environ.get("STICKLER_FUZZ_EXAMPLES", "2000"))

COMPARATORS = ["ExactComparator", "LevenshteinComparator", "NumericComparator", "FuzzyComparator",
               "DateComparator", "ExactComparator", "LevenshteinComparator", "Levenshtien"]
KEYS = st.sampled_from(["id", "name", "total", "items", "qty", "date", "a b", "é", "x-y", "_value", "tags", "nested"])


def primitive_schema():
    return st.fixed_dictionaries(
        {"type": st.sampled_from(["string"] * 4 + ["number"] * 3 + ["integer", "boolean", ["string", "null"], "nonsense"])},
        optional={
            "x-aws-stickler-comparator": st.sampled_from(COMPARATORS),
            "x-aws-stickler-threshold": st.sampled_from([0.0, 0.5, 0.9, 1.0] * 5 + [1.5, "high"]),
            "x-aws-stickler-weight": st.sampled_from([0.5, 1, 3] * 5 + [0, -1]),
            "x-aws-stickler-clip-under-threshold": st.booleans(),
            "format": st.sampled_from(["date", "uri", "email"]),
        })


def schemas():
    return st.recursive(
        primitive_schema(),
        lambda inner: st.one_of(
            st.builds(lambda props: {"type": "object", "properties": props}, st.dictionaries(KEYS, inner, min_size=1, max_size=4)),
            st.builds(lambda item: {"type": "array", "items": item}, inner),
        ),
        max_leaves=8,
    ).map(lambda s: s if s.get("type") == "object" else {"type": "object", "properties": {"value": s}})


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10 ** 30), max_value=10 ** 30)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)

RAW_LINES = st.sampled_from([
    b'{"id": "a", "total": NaN}', b'{"total": Infinity, "items": [{"qty": -Infinity}]}', b'{"id": "trunc',
    b"[1, 2, 3]", b'"just a string"', b"null", b"", b"   ", b'{"id": "\xff\xfe"}', b"\xef\xbb\xbf{}",
    b'{"nested": ' + b"[" * 1500 + b"]" * 1500 + b"}", b'{"items": {"_value": [{"qty": "12"}], "_confidence": 2}}',
    b'{"name": {"_value": "x", "_confidence": "high"}}', b'{"total": 1e400}', b'{"id": "\\ud800"}',
])


def lines(garbage: int = 1):
    """JSONL lines: mostly objects, then any JSON value, then what models really produce (1 in 5 + garbage)."""
    dump = lambda v: json.dumps(v, ensure_ascii=False).encode()  # noqa: E731  (integers beyond 64 bits too)
    record = st.dictionaries(KEYS, JSON_VALUES, max_size=6).map(dump)
    return st.lists(st.one_of(*[record] * 4, JSON_VALUES.map(dump), *[RAW_LINES] * garbage), max_size=6)


@pytest.mark.filterwarnings("ignore")
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=schemas(), gt=lines(garbage=0), pred=lines(garbage=3), id_field=st.sampled_from([None, None, "id"]))
def test_the_cli_never_crashes_and_never_loses_a_record(tmp_path_factory, capsys, schema, gt, pred, id_field):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "s.json").write_bytes(orjson.dumps(schema))
    (folder / "g.jsonl").write_bytes(b"\n".join(gt) + b"\n")
    (folder / "p.jsonl").write_bytes(b"\n".join(pred) + b"\n")
    args = ["eval", str(folder / "s.json"), str(folder / "g.jsonl"), str(folder / "p.jsonl"),
            "--format", "json", "-o", str(folder / "r.json"), "--no-progress"]
    if id_field:
        args += ["--id-field", id_field]
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 2), err
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        assert err.startswith("stickler: error: ") and err.count("\n") == 1, err
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
