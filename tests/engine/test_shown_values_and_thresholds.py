"""What a comparison shows is what decided it (issue 23, item 5): NaN and infinities as themselves,
never as null; and the threshold that decided a verdict (a list of objects: its items' match
threshold, not the list property's own threshold, which decides nothing)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import stickler_cli as st
from stickler_cli.json_text import compact_json, named_non_finite

LIST_SCHEMA = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "x-aws-stickler-threshold": 0.7,
            "items": {
                "type": "object",
                "x-aws-stickler-match-threshold": 0.88,
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            },
        }
    },
}


def _run(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "stickler_cli", *map(str, args)], capture_output=True, text=True)


def test_a_list_of_objects_shows_its_items_match_threshold(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(LIST_SCHEMA))
    # a: 1.0; b: "abcd" against "abce", Levenshtein 1 - 1/4 = 0.75; the item: (1 + 0.75) / 2 = 0.875 < 0.88.
    gt, pred = json.dumps({"items": [{"a": "x", "b": "abcd"}]}), json.dumps({"items": [{"a": "x", "b": "abce"}]})
    done = _run("compare", schema, gt, pred, "-f", "json")
    assert done.returncode == 0, done.stderr
    rows = {r["path"]: r for r in json.loads(done.stdout)["comparisons"]}
    assert (rows["items"]["result"], rows["items"]["similarity"], rows["items"]["threshold"]) == ("FD", 0.875, 0.88)
    assert (rows["items[0↔0]"]["result"], rows["items[0↔0]"]["threshold"]) == ("FD", 0.88)
    (tmp_path / "gt.jsonl").write_text(gt + "\n")
    (tmp_path / "pred.jsonl").write_text(pred + "\n")
    report = json.loads(_run("eval", schema, tmp_path / "gt.jsonl", tmp_path / "pred.jsonl", "-f", "json").stdout)
    assert report["field_metrics"]["items"]["threshold"] == 0.88
    assert report["field_metrics"]["items.b"]["threshold"] == st.compile_schema(LIST_SCHEMA).fields[2].threshold
    table = _run("schema", "check", schema).stdout
    assert any(line.split()[:2] == ["items", "object_list"] and "0.88" in line.split() for line in table.splitlines())


def test_nan_and_infinities_are_shown_as_themselves(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "x": {"type": "number"},
                    "y": {"type": "number"},
                    "o": {"type": "object", "properties": {"v": {"type": "number"}}},
                },
            }
        )
    )
    gt, pred = tmp_path / "gt.json", tmp_path / "pred.json"
    gt.write_text('{"x": NaN, "y": Infinity, "o": {"v": -Infinity}}')
    pred.write_text('{"x": NaN, "y": 1e400, "o": {"v": 1}}')
    done = _run("compare", schema, gt, pred, "-f", "json")
    rows = {r["path"]: r for r in json.loads(done.stdout)["comparisons"]}
    # NaN equals nothing, not even NaN (stickler-eval 1.0.0 too; docs/parity.md row 35); 1e400 is infinity.
    assert (rows["x"]["result"], rows["x"]["gt"], rows["x"]["pred"]) == ("FD", "NaN", "NaN")
    assert (rows["y"]["result"], rows["y"]["gt"], rows["y"]["pred"]) == ("TP", "Infinity", "Infinity")
    assert (rows["o"]["gt"], rows["o.v"]["gt"], rows["o.v"]["pred"]) == ({"v": "-Infinity"}, "-Infinity", 1)
    table = _run("compare", schema, gt, pred, "--format", "table").stdout
    x_line = next(line for line in table.splitlines() if line.split()[:1] == ["x"])
    assert x_line.split()[1:4] == ["FD", "NaN", "NaN"]
    assert '{"v": -Infinity}' in table and "null" not in table  # folding between members: a space
    (tmp_path / "gt.jsonl").write_text(gt.read_text() + "\n")
    (tmp_path / "pred.jsonl").write_text(pred.read_text() + "\n")
    misses = tmp_path / "misses.jsonl"
    _run("eval", schema, tmp_path / "gt.jsonl", tmp_path / "pred.jsonl", "--non-matches", misses)
    lines = [json.loads(line) for line in misses.read_text().splitlines()]
    assert [(r["path"], r["gt"], r["pred"]) for r in lines] == [
        ("x", "NaN", "NaN"),
        ("o", {"v": "-Infinity"}, {"v": 1}),
        ("o.v", "-Infinity", 1),
    ]


@pytest.mark.parametrize(
    "value, text",
    [
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (-float("inf"), "-Infinity"),
        ({"a": [1, float("nan")]}, '{"a":[1,NaN]}'),
        (None, "null"),
        ({"a": None}, '{"a":null}'),
        (10**30, str(10**30)),
    ],
)
def test_compact_json_spells_non_finite_numbers(value, text):
    assert compact_json(value) == text


def test_named_non_finite_copies_only_what_holds_them():
    plain = {"a": [1, 2]}
    assert named_non_finite(plain) is plain
    given = {"a": [1, float("nan")], "b": "NaN"}
    assert named_non_finite(given) == {"a": [1, "NaN"], "b": "NaN"} and given["a"][1] != given["a"][1]


@pytest.mark.parametrize(
    "given, expected",
    [
        (0.5, 0.5),
        (1, 1.0),
        (0, 0.0),
        (True, None),
        (1.5, None),
        (-0.1, None),
        (float("nan"), None),
        ("0.5", None),
        (None, None),
        (10**400, None),
    ],
)
def test_one_rule_reads_a_confidence(given, expected):
    """Engine.compare's pairs, its traces, its box ranking and the batch's columns read a _confidence alike."""
    from stickler_cli.engine.values import confidence_value

    assert confidence_value(given) == expected


def test_a_numpy_float_confidence_ranks_a_box_as_it_counts_as_a_confidence():
    """The box ranking refused float subclasses (numpy's float64, from the Python API) that the
    confidence pairs took: the same value now means the same in both."""
    import numpy as np

    plan = st.compile_schema({"type": "object", "properties": {"v": {"type": "string"}}})
    box = [0, 0, 10, 10]
    result = st.compare(
        plan,
        {"v": {"_value": "a", "_bbox": box}},
        {"v": {"_value": "a", "_bbox": box, "_confidence": np.float64(0.25)}},
    )
    assert [c.confidence for c in result.confidences] == [0.25]
    assert [b.confidence for b in result.boxes] == [0.25]
