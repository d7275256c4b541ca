"""The older rich-value shape ``{"value": v, "confidence": c}`` is read by stickler as stickler-eval
1.0.0 reads it (issue 23, item 2): the same counts, scores and confidence metrics on the same files.
Where the two differ on purpose (a third key beside them) is docs/parity.md's row on the older shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from .small_corpus import both_reports, counts

pytestmark = pytest.mark.oracle

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "city": {"type": "string"},
        "vendor": {"type": "object", "properties": {"city": {"type": "string"}}},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}
GT = [
    {"name": "Acme", "city": "Paris", "vendor": {"city": "X"}, "tags": ["a", "b"]},
    {"name": "Bob", "city": "Rome", "vendor": {"city": "Y"}, "tags": ["c"]},
    {"name": "Carl", "city": "Oslo", "vendor": {"city": "Z"}, "tags": ["d"]},
]
PRED = [
    {
        "name": {"value": "Acme", "confidence": 0.9},
        "city": {"value": "Berlin", "confidence": 0.8},
        "vendor": {"value": {"city": "X"}, "confidence": 0.4},
        "tags": [{"value": "a", "confidence": 0.5}, "b"],
    },
    {
        "name": {"value": "Bob", "confidence": 0.3},
        "city": {"_value": "Rome", "_confidence": 0.6},
        "vendor": {"city": {"value": "Q", "confidence": 0.7}},
        "tags": ["c"],
    },
    {"name": "Carl", "city": {"value": "Oslo", "confidence": 0.95}, "vendor": {"city": "Z"}, "tags": ["d"]},
]


def test_older_shape_read_as_the_oracle_reads_it(tmp_path: Path) -> None:
    ours, theirs = both_reports(tmp_path, SCHEMA, GT, PRED)
    assert counts(ours) == counts(theirs)
    assert ours["metrics"]["weighted_overall_score"] == pytest.approx(
        theirs["metrics"]["weighted_overall_score"], abs=1e-12
    )
    assert ours["confidence_metrics"]["coverage"] == theirs["confidence_metrics"]["coverage"]
    for name in ("auroc", "brier_score", "ece"):
        assert ours["confidence_metrics"]["overall"][name]["value"] == pytest.approx(
            theirs["confidence_metrics"]["overall"][name]["value"], abs=1e-12
        )
    assert ours["inputs"]["records"]["older_shape_records"] == 3
