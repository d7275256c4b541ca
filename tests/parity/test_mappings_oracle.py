"""Free-form mappings (an object property with no ``properties``) are scored as stickler-eval 1.0.0
scores them (issue 23, item 3): the same counts and scores, the oracle run on the same files."""

from __future__ import annotations

from pathlib import Path

import pytest

from .small_corpus import both_reports, counts

pytestmark = pytest.mark.oracle

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "attributes": {"type": "object"},
        "extra": {"type": "object", "additionalProperties": {"type": "number"}},
        "tags": {"type": "array", "items": {"type": "object"}},
        "lev": {"type": "object", "x-aws-stickler-comparator": "LevenshteinComparator"},
    },
}
GT = [
    {
        "name": "a",
        "attributes": {"x": 1, "y": "z"},
        "extra": {"p": 1.5},
        "tags": [{"k": 1}, {"k": 2}],
        "lev": {"q": "r"},
    },
    {"name": "b", "attributes": {"x": 1}, "extra": {}, "tags": [{"k": 1}], "lev": {"q": "r", "s": 1}},
    {"name": "c", "attributes": {"x": [1, 2]}, "tags": [], "lev": {"q": "r"}},
    {"name": "d", "attributes": {"x": "Hello"}, "extra": {"p": 2}},
]
PRED = [
    {
        "name": "a",
        "attributes": {"y": "z", "x": 1},
        "extra": {"p": 1.5},
        "tags": [{"k": 2}, {"k": 1}],
        "lev": {"q": "r"},
    },
    {"name": "b", "attributes": {"x": 2}, "extra": {}, "tags": [{"k": 1}, {"k": 3}], "lev": {"s": 1, "q": "r"}},
    {"name": "c", "attributes": {"x": [2, 1]}, "extra": {"p": 1}, "tags": [{"k": 1}]},
    {"name": "d", "attributes": {"x": "hello"}, "extra": {"p": 2.0}},
]


def test_mappings_scored_as_the_oracle_scores_them(tmp_path: Path) -> None:
    ours, theirs = both_reports(tmp_path, SCHEMA, GT, PRED)
    assert counts(ours) == counts(theirs)
    for path, block in theirs["field_metrics"].items():
        if "mean_score" in block:
            assert ours["field_metrics"][path]["mean_score"] == pytest.approx(block["mean_score"], abs=1e-12), path
    assert ours["metrics"]["weighted_overall_score"] == pytest.approx(
        theirs["metrics"]["weighted_overall_score"], abs=1e-12
    )
    # The figures themselves, worked by hand: attributes TP (keys reordered), FD, FD ([1,2] vs [2,1]), FD (case).
    assert counts(ours)["attributes"] == [1, 0, 3, 0, 0]
