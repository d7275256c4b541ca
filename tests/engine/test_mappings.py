"""An object property with no ``properties`` is a free-form mapping (issue 23, item 3), as a
``Dict[str, Any]`` field is in stickler-eval 1.0.0: compared as one value, by default equal or not
as JSON (keys in any order), classified at 1.0; a comparator named on it is the one used."""

from __future__ import annotations

import json

import pytest

import stickler_cli as st
from stickler_cli.plan import Kind
from tests.support.case_files import write_case

MAPPING = {"type": "object", "properties": {"v": {"type": "object"}, "n": {"type": "string"}}}


def _score(schema: dict, gt: dict, pred: dict) -> tuple[float, str, float]:
    result = st.compare(st.compile_schema(schema), gt, pred, explain=True)
    row = next(r for r in result.trace if r.path == "v")
    return result.field_scores["v"], row.label, row.threshold


@pytest.mark.parametrize(
    "gt, pred, expected",
    [
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, (1.0, "TP")),  # key order never matters
        ({"a": 1, "b": 2}, {"b": 2, "a": 3}, (0.0, "FD")),
        ({"a": 1}, {"a": 1.0}, (0.0, "FD")),  # numbers as written, as the library compares them
        ({"a": "hello"}, {"a": "Hello"}, (0.0, "FD")),  # strict: the forgiving Exact would mangle JSON text
        ({"a": [1, 2]}, {"a": [2, 1]}, (0.0, "FD")),  # lists inside keep their order
        ({}, {}, (1.0, "TN")),
        ({"a": 1}, None, (0.0, "FN")),
        (None, {"a": 1}, (0.0, "FA")),
    ],
)
def test_a_mapping_is_one_value_equal_or_not_as_json(gt, pred, expected):
    score, label, threshold = _score(MAPPING, {"v": gt, "n": "x"}, {"v": pred, "n": "x"})
    assert (score, label) == expected and threshold == 1.0


def test_the_plan_says_what_it_is():
    plan = st.compile_schema(
        {
            "type": "object",
            "properties": {
                "v": {"type": "object", "additionalProperties": {"type": "number"}},
                "w": {"type": "object", "properties": {}},
                "l": {"type": "array", "items": {"type": "object"}},
            },
        }
    )
    kinds = {f.path: (f.kind, f.json_type, f.comparator_name, f.threshold, f.comparator.config) for f in plan.fields}
    strict = {"case_sensitive": True, "normalize": False}
    assert kinds == {
        "v": (Kind.PRIMITIVE, "object", "ExactComparator", 1.0, strict),
        "w": (Kind.PRIMITIVE, "object", "ExactComparator", 1.0, strict),
        "l": (Kind.PRIMITIVE_LIST, "object", "ExactComparator", 1.0, strict),
    }


def test_a_named_comparator_is_used_and_its_options_too():
    schema = {
        "type": "object",
        "properties": {
            "v": {"type": "object", "x-aws-stickler-comparator": "ExactComparator", "x-aws-stickler-threshold": 0.5}
        },
    }
    # Named without options, Exact takes its own defaults (case folded): {"a":"Hello"} equals {"a":"hello"}.
    assert _score(schema, {"v": {"a": "hello"}}, {"v": {"a": "Hello"}}) == (1.0, "TP", 0.5)
    # Levenshtein scores no mapping (stickler-eval 1.0.0 alike): 0.0 even against an equal one.
    lev = {
        "type": "object",
        "properties": {"v": {"type": "object", "x-aws-stickler-comparator": "LevenshteinComparator"}},
    }
    assert _score(lev, {"v": {"a": 1}}, {"v": {"a": 1}}) == (0.0, "FD", 1.0)


def test_a_list_of_mappings_pairs_items_by_equality(tmp_path):
    plan = st.compile_schema({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "object"}}}})
    report = st.evaluate(
        plan,
        [({"l": [{"a": 1}, {"b": 2}]}, {"l": [{"b": 3}, {"a": 1}]}), ({"l": [{"a": 1}]}, {"l": [{"a": 1}, {"c": 1}]})],
    )
    counts = report["field_metrics"]["l"]
    assert [counts[k] for k in ("tp", "fa", "fd", "fn", "tn")] == [2, 1, 1, 0, 0]
    assert report["metrics"]["weighted_overall_score"] == 0.5  # 1/2 and 1/2


def test_the_root_still_needs_properties():
    with pytest.raises(st.SchemaError, match="non-empty 'properties'"):
        st.compile_schema({"type": "object"})


def test_eval_reads_mappings_end_to_end(tmp_path):
    import subprocess
    import sys

    case = write_case(
        tmp_path,
        MAPPING,
        [{"v": {"a": 1, "b": 2}, "n": "x"}, {"v": {"a": 1}, "n": "y"}],
        [{"v": {"b": 2, "a": 1}, "n": "x"}, {"v": {"a": 2}, "n": "y"}],
    )
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "eval", case["schema"], case["gt"], case["pred"], "-f", "json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    v = json.loads(done.stdout)["field_metrics"]["v"]
    assert (v["tp"], v["fd"], v["threshold"], v["comparator"]) == (1, 1, 1.0, "ExactComparator")
