"""Wrong matches by normalisation (issue 37, items 5-7), each worked by hand and held in both engines.

5. Exact's lenient default (case folded, punctuation and whitespace removed) never makes two different
   numbers equal (numbers compare by value: 1 = 1.0, 1.5 != 15 != -15), nor two distinct values of the
   field's enum, nor the field's const and another value.
6. Numeric reads a text only when it is one number as amounts are written (number_text.py): "page 1 of 2"
   is not 12, "5 to 7" not 57, "1 0" not 10, "1e2" neither 12 nor 100.
7. An object whose schema declares ``_value`` (``_confidence``, ``_bbox``, ``_alternatives``) is data, not a
   rich value: both engines, the conformance check and the confidence pairs read it so.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from stickler_cli import compile_schema
from stickler_cli.comparators import build
from stickler_cli.engine import Engine
from stickler_cli.schema.conformance import Conformance

TP, FA, FD, FN, TN = range(5)


def both_engines(schema: dict, docs: list[tuple[dict, dict]]) -> list:
    """Each document's result from Engine.compare, after checking Engine.score_batch gives the same counts,
    field scores and confidence pairs (the two engines' contract, tests/engine/test_batch_engine.py)."""
    plan = compile_schema(schema)
    batch = Engine(plan).score_batch(docs)
    one = Engine(plan)
    results = []
    for d, (gt, pred) in enumerate(docs):
        doc = one.compare(gt, pred)
        columnar = batch.document(d)
        assert (columnar.tally, columnar.field_scores, columnar.score, sorted(columnar.confidences)) == (
            doc.tally,
            doc.field_scores,
            doc.score,
            sorted(doc.confidences),
        ), (gt, pred)
        results.append((plan, doc))
    return results


def counts(plan, doc, path: str) -> list[int]:
    f = next(f for f in plan.fields if f.path == path)
    return doc.tally[5 * f.index : 5 * f.index + 5]


# -- 5: Exact ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gt, pred, expected",
    [
        (1.5, -15, 0.0),
        (1.5, 15, 0.0),
        (-15, 15, 0.0),
        (-1, 1, 0.0),  # the digits alike, the numbers not
        (1, 1.0, 1.0),
        (100, 100.0, 1.0),  # one number, two spellings
        (10**29 + 1, 10**29 + 2, 0.0),
        (10**29 + 1, 10**29 + 1, 1.0),  # every digit, beyond Decimal's 28
        (1000, "1,000", 1.0),
        (1.5, "1.5", 1.0),
        (-12.5, "(12.50)", 1.0),  # a text spelling the same number
        (1.5, "$15", 0.0),
        (1.5, "15", 0.0),
        (12, "12 kg", 0.0),
        (True, 1, 0.0),
        ("Hello, World!", "hello world", 1.0),
        ("ACME Corp.", "acme corp", 1.0),  # free text: still lenient
    ],
)
def test_exact_compares_numbers_by_value(gt, pred, expected):
    exact = build("ExactComparator", {})
    assert exact.similarity(gt, pred) == expected
    assert np.asarray(exact.similarity_matrix([gt], [pred])).tolist() == [[expected]]
    assert exact.similarity_cells([gt, "x"], ["y", pred], [0], [1]).tolist() == [expected]


def test_strict_exact_is_unchanged():
    """The strict form is stickler-eval 1.0.0's: str() equality, so 1 and 1.0 differ there (docs/parity.md)."""
    strict = build("ExactComparator", {"case_sensitive": True, "normalize": False})
    assert [strict.similarity(a, b) for a, b in [(1, 1.0), (1.5, "1.5"), (1.5, -15), ("A+", "A-")]] == [
        0.0,
        1.0,
        0.0,
        0.0,
    ]


SCHEMA_5 = {
    "type": "object",
    "properties": {
        "rate": {"enum": [1.5, 15, -15]},
        "grade": {"type": "string", "enum": ["A+", "A-", "B"]},
        "status": {"type": "string", "const": "N/A"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["A+", "A-"]}},
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"grade": {"type": "string", "enum": ["A+", "A-"]}, "code": {"type": "string"}},
            },
        },
        "strict": {"type": "string", "enum": ["a", "A"], "x-aws-stickler-comparator-config": {"case_sensitive": False}},
    },
}


def test_distinct_enum_values_never_match_in_either_engine():
    """By hand: rate 1.5 vs -15, grade A+ vs A-, status N/A vs NA, strict a vs A (case-insensitive, yet two
    enum values) are FD. A value outside the enum is still compared leniently: grade a+ vs A+ is TP. The tag
    list [A+, A-] vs [A-, A-]: one pair A-/A- TP, the other A+/A- FD (score 1/2). The rows pair by the
    Hungarian algorithm on grade and code: (A+, x) vs (A-, x) is 0.5 < 0.7 (FD), (A-, y) vs (A-, y) TP."""
    gt = {
        "rate": 1.5,
        "grade": "A+",
        "status": "N/A",
        "tags": ["A+", "A-"],
        "rows": [{"grade": "A+", "code": "x"}, {"grade": "A-", "code": "y"}],
        "strict": "a",
    }
    pred = {
        "rate": -15,
        "grade": "A-",
        "status": "NA",
        "tags": ["A-", "A-"],
        "rows": [{"grade": "A-", "code": "x"}, {"grade": "A-", "code": "y"}],
        "strict": "A",
    }
    lenient = {**pred, "grade": "a+", "status": "N/A", "rate": 1.5, "strict": "a"}
    (plan, doc), (_, same) = both_engines(SCHEMA_5, [(gt, pred), (gt, lenient)])
    for path in ("rate", "grade", "status", "strict"):
        assert counts(plan, doc, path) == [0, 0, 1, 0, 0], path
        assert counts(plan, same, path) == [1, 0, 0, 0, 0], path
    assert counts(plan, doc, "tags") == [1, 0, 1, 0, 0] and doc.field_scores["tags"] == 0.5
    assert counts(plan, doc, "rows") == [1, 0, 1, 0, 0] and doc.field_scores["rows"] == 0.75
    assert counts(plan, doc, "rows.grade") == [1, 0, 0, 0, 0]  # only the matched pair is counted


def test_a_text_outside_the_enum_is_read_as_the_value_it_spells_but_for_case_and_space():
    """Found by review: "a+" (no enum value as written) against "A-" was TP, the lenient key of both being "a".
    By hand: "a+" and "A+ " are "A+" but for case and space, so FD against "A-" and TP against "A+"; "A" and
    "a-+" normalise to "a", the key of both "A+" and "A-" (ambiguous: FD against either); "b" is "B"; against
    the const "N/A", "n/a" is it but for case (TP) and "NA" is not (FD). Lists and rows alike."""
    cases = [("A-", "a+", 0), ("A+", "a+", 1), ("A-", "A+ ", 0), ("A+", "A", 0), ("A-", "a-+", 0), ("B", "b", 1)]
    docs = [
        (
            {"grade": g, "tags": [g] if g != "B" else [], "rows": [{"grade": g, "code": "x"}] if g != "B" else []},
            {"grade": p, "tags": [p] if g != "B" else [], "rows": [{"grade": p, "code": "x"}] if g != "B" else []},
        )
        for g, p, _ in cases
    ]
    docs += [({"status": "N/A"}, {"status": "n/a"}), ({"status": "N/A"}, {"status": "NA"})]
    results = both_engines(SCHEMA_5, docs)
    for (g, p, tp), (plan, doc) in zip(cases, results):
        assert counts(plan, doc, "grade") == ([1, 0, 0, 0, 0] if tp else [0, 0, 1, 0, 0]), (g, p)
        if g != "B":
            assert counts(plan, doc, "tags") == ([1, 0, 0, 0, 0] if tp else [0, 0, 1, 0, 0]), (g, p)
            assert counts(plan, doc, "rows.grade")[TP] == tp, (g, p)
    assert counts(*results[-2], "status") == [1, 0, 0, 0, 0]
    assert counts(*results[-1], "status") == [0, 0, 1, 0, 0]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_identical_nan_and_infinities_stay_equal_under_exact(value):
    """Found by review: comparing numbers by value made NaN and the infinities equal to nothing (their decimal
    text is none), FD against themselves; they are equal to themselves as written, as before (and in the strict
    form), never to another number."""
    exact = build("ExactComparator", {})
    assert exact.similarity(value, value) == 1.0
    assert np.asarray(exact.similarity_matrix([value, 1.0], [value])).tolist() == [[1.0], [0.0]]
    assert exact.similarity(value, -value if value == value else 1.0) == 0.0


# -- 6: Numeric ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gt, pred, expected",
    [
        ("page 1 of 2", 12, 0.0),
        ("5 to 7", 57, 0.0),
        ("1 0", 10, 0.0),
        ("1e2", 12, 0.0),
        ("1e2", 100, 0.0),
        ("12 34", 1234, 0.0),
        ("Box 12", 12, 0.0),
        ("1 000", 1000, 1.0),
        ("$1,234.50", 1234.5, 1.0),
        ("(12.50)", -12.5, 1.0),
        ("5%", 5, 1.0),
        ("USD 12", 12, 1.0),
        ("1.234,50", 1234.5, 1.0),
        (".5", 0.5, 1.0),
        ("  12 ", 12, 1.0),
        ("-15", -15, 1.0),
        ("12.", 12, 1.0),
        ("5²", 52, 0.0),
        ("10³ €", 103, 0.0),
        ("(-5)", 5, 0.0),
        ("(-5)", -5, 0.0),  # found by review
    ],
)
def test_numeric_reads_a_text_only_when_it_is_one_number(gt, pred, expected):
    numeric = build("NumericComparator", {})
    assert numeric.similarity(gt, pred) == expected
    assert numeric.similarity(pred, gt) == expected
    assert numeric.similarity_cells([gt], [pred], [0], [0]).tolist() == [expected]


def test_numeric_texts_are_fd_in_both_engines_and_a_type_violation():
    """By hand: every text below but "1,000" spells no number: FD; the number field holding a string is a type
    violation (conformance, as any string where a number belongs)."""
    schema = {
        "type": "object",
        "properties": {"total": {"type": "number"}, "pages": {"type": "array", "items": {"type": "number"}}},
    }
    docs = [
        ({"total": 12, "pages": [12, 57]}, {"total": "page 1 of 2", "pages": ["5 to 7", "1 0"]}),
        ({"total": 1000, "pages": [10]}, {"total": "1,000", "pages": ["1e2"]}),
    ]
    (plan, first), (_, second) = both_engines(schema, docs)
    assert counts(plan, first, "total") == [0, 0, 1, 0, 0] and counts(plan, first, "pages") == [0, 0, 2, 0, 0]
    assert counts(plan, second, "total") == [1, 0, 0, 0, 0] and counts(plan, second, "pages") == [0, 0, 1, 0, 0]
    assert Conformance.of(plan).violations(docs[0][1]) == [("total", "type"), ("pages", "type"), ("pages", "type")]


# -- 7: a schema declaring _value ----------------------------------------------------------------------------

WEIGHT = {
    "type": "object",
    "properties": {
        "_value": {"type": "number"},
        "unit": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
    },
}
SCHEMA_7 = {
    "type": "object",
    "properties": {
        "weight": WEIGHT,
        "parts": {"type": "array", "items": WEIGHT},
        "score": {"type": "object", "properties": {"_confidence": {"type": "number"}, "label": {"type": "string"}}},
        "plain": {"type": "number"},
    },
}
GT_7 = {
    "weight": {"_value": 5, "unit": "kg"},
    "parts": [{"_value": 5, "unit": "kg"}, {"_value": 7, "unit": "g"}],
    "score": {"_value": "x", "_confidence": 0.4, "label": "a"},
    "plain": 3,
}
PRED_7 = {
    "weight": {"_value": 5, "unit": "lb"},
    "parts": [{"_value": 5, "unit": "lb"}, {"_value": 7, "unit": "g"}],
    "score": {"_value": "x", "_confidence": 0.4, "label": "a"},
    "plain": {"_value": 3, "_confidence": 0.9},
}


def test_an_object_declaring_value_is_data_in_both_engines():
    """By hand: weight compares _value 5 = 5 (TP) and unit kg/lb (FD): similarity 0.5 < 0.7, FD, score 0.5.
    parts: (5, kg)/(5, lb) 0.5 below the match threshold (FD), (7, g)/(7, g) TP: (0.5 + 1) / 2 = 0.75. score
    declares _confidence: data, its _confidence compared as a number (TP), no confidence pair from it; plain
    is a rich value as ever (one confidence pair, 0.9)."""
    ((plan, doc),) = both_engines(SCHEMA_7, [(GT_7, PRED_7)])
    assert counts(plan, doc, "weight") == [0, 0, 1, 0, 0] and doc.field_scores["weight"] == 0.5
    assert counts(plan, doc, "weight._value") == [1, 0, 0, 0, 0]
    assert counts(plan, doc, "weight.unit") == [0, 0, 1, 0, 0]
    assert counts(plan, doc, "parts") == [1, 0, 1, 0, 0] and doc.field_scores["parts"] == 0.75
    assert counts(plan, doc, "score._confidence") == [1, 0, 0, 0, 0]
    assert [(plan.fields[c.field_index].path, c.confidence) for c in doc.confidences] == [("plain", 0.9)]
    assert Conformance.of(plan).violations(PRED_7) == []
    rows = {row.path: (row.label, row.gt, row.pred) for row in Engine(plan).compare(GT_7, PRED_7, explain=True).trace}
    assert rows["weight"] == ("FD", GT_7["weight"], PRED_7["weight"])  # shown as the object it is
    assert rows["parts[0↔0]"] == ("FD", GT_7["parts"][0], PRED_7["parts"][0])
    # where nothing declares _value, a rich value stays a rich value: the same object is a type violation
    other = compile_schema(
        {"type": "object", "properties": {"weight": {"type": "object", "properties": {"unit": {"type": "string"}}}}}
    )
    assert Conformance.of(other).violations({"weight": {"_value": 5, "unit": "kg"}}) == [("weight", "type")]


def test_eval_reads_a_declared_value_as_data(tmp_path):
    schema, gt, pred = tmp_path / "s.json", tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    schema.write_text(json.dumps(SCHEMA_7))
    gt.write_text(json.dumps(GT_7) + "\n")
    pred.write_text(json.dumps(PRED_7) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "eval", schema, gt, pred, "-f", "json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    metrics = report["field_metrics"]
    assert [metrics["weight"][k] for k in ("tp", "fd")] == [0, 1]
    assert [metrics["weight.unit"][k] for k in ("tp", "fd")] == [0, 1]
    assert (report["schema_conformance"]["violations"], report["schema_violations"]) == (0, {})
    # the ground truth's score._confidence is data the schema declares: no "arguments swapped?" warning
    assert report["warnings"] == [] and "swapped" not in done.stderr


def test_the_conformance_fallback_and_slices_read_a_declared_value_as_data(tmp_path):
    """Found by review: a keyword the compiled checker leaves to jsonschema (uniqueItems) sent every record down
    a path that unwrapped each {"_value": ...} (weight: a type violation, schema_valid_rate 0.0), and --slice-by
    weight.unit read weight as its _value 5 (every document "(missing)"). Both follow the schema now."""
    schema = {
        **SCHEMA_7,
        "properties": {
            **SCHEMA_7["properties"],
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        },
    }
    plan = compile_schema(schema)
    assert plan.data_paths() == frozenset({"weight", "parts", "score"})
    checker = Conformance.of(plan)
    assert checker.violations({**PRED_7, "tags": ["a", "b"]}) == []
    assert checker.violations({**PRED_7, "tags": ["a", "a"]}) == [("tags", "uniqueItems")]
    assert checker.violations({**PRED_7, "plain": {"_value": "x"}}) == [("plain", "type")]  # still rich there
    paths = (tmp_path / "s.json", tmp_path / "gt.jsonl", tmp_path / "pred.jsonl")
    for path, content in zip(paths, (schema, GT_7, PRED_7)):
        path.write_text(json.dumps(content) + "\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "stickler_cli",
            "eval",
            *map(str, paths),
            "-f",
            "json",
            "--slice-by",
            "weight.unit",
            "--slice-by",
            "plain",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["schema_conformance"]["violations"], report["schema_violations"]) == (0, {})
    sliced = report["slices"]["paths"]
    assert list(sliced["weight.unit"]["values"]) == ["kg"] and list(sliced["plain"]["values"]) == ["3"]
