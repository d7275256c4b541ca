"""NaN and infinities in the data are scored as stickler-eval 1.0.0 scores them (issue 23, item 5;
docs/parity.md row 35: NaN equals nothing, not even NaN), and a list of objects is decided by its
items' match threshold in both: the same counts and scores on the same files."""

from __future__ import annotations

from pathlib import Path

import pytest

from .small_corpus import both_reports, counts

pytestmark = pytest.mark.oracle

SCHEMA = {
    "type": "object",
    "properties": {
        "x": {"type": "number"},
        "y": {"type": "number"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "x-aws-stickler-match-threshold": 0.88,
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            },
        },
    },
}
NAN, INF = float("nan"), float("inf")
GT = [
    {"x": NAN, "y": INF, "items": [{"a": "x", "b": "abcd"}]},
    {"x": 1.0, "y": -INF, "items": [{"a": "x", "b": "abcd"}]},
    {"x": NAN, "y": 2.0, "items": [{"a": "q", "b": "r"}]},
]
PRED = [
    {"x": NAN, "y": INF, "items": [{"a": "x", "b": "abce"}]},  # the item: (1 + 0.75) / 2 = 0.875 < 0.88
    {"x": NAN, "y": -INF, "items": [{"a": "x", "b": "abcd"}]},
    {"x": 3.0, "y": 2.0, "items": [{"a": "q", "b": "r"}]},
]


def test_non_finite_numbers_and_item_thresholds_as_the_oracle_scores_them(tmp_path: Path) -> None:
    ours, theirs = both_reports(tmp_path, SCHEMA, GT, PRED)
    assert counts(ours) == counts(theirs)
    assert counts(ours)["x"] == [0, 0, 3, 0, 0]  # NaN/NaN, 1/NaN, NaN/3: all FD
    assert counts(ours)["y"] == [3, 0, 0, 0, 0]  # infinity equals infinity of its sign
    assert counts(ours)["items"] == [2, 0, 1, 0, 0]
    assert ours["metrics"]["weighted_overall_score"] == pytest.approx(
        theirs["metrics"]["weighted_overall_score"], abs=1e-12
    )
