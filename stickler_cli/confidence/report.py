"""The report's ``confidence_metrics`` block from the accumulated pairs."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .metrics import ConfidenceMetric, ConfidencePairs, ErrorCaptureAtBudget, default_metrics

CURVE_BUDGETS = [k / 20 for k in range(1, 21)]  # the review-budget curve: every 5% of the values


def confidence_metrics(
    field_paths: Sequence[str],
    field_index: Sequence[int],
    is_match: Sequence[bool],
    confidence: Sequence[float],
    similarity: Sequence[float],
    fields_total: int,
    metrics: Sequence[ConfidenceMetric] | None = None,
    count: Sequence[int] | None = None,
) -> dict[str, Any] | None:
    """``{"overall", "fields", "coverage"}``, or None when no prediction carried a confidence.

    ``fields`` is keyed by the schema's dotted field path (``line_items.quantity``):
    every item of a list feeds the same entry. Rows may be grouped pairs with a
    ``count`` each (see ConfidencePairs).
    """
    if not len(field_index):
        return None
    metrics = list(metrics) if metrics is not None else default_metrics()
    pairs = ConfidencePairs.from_columns(is_match, confidence, similarity, count)
    index = np.asarray(field_index, dtype=np.int64)
    overall = {m.name: m.compute_on(pairs) for m in metrics}
    fields: dict[str, dict[str, Any]] = {}
    for i in sorted(set(index.tolist())):
        subset = pairs.select(index == i)
        fields[field_paths[i]] = {m.name: m.compute_on(subset) for m in metrics}
    with_confidence = len(pairs)
    curve = ErrorCaptureAtBudget(CURVE_BUDGETS).compute_on(pairs)["budgets"]
    return {
        "overall": overall,
        # Share of all errors caught when the least confident values are reviewed first, by
        # the share reviewed (empty when there are no errors): the HTML report draws it.
        "review_curve": [
            {"budget": float(b), "pct_errors_caught": row["pct_errors_caught"]} for b, row in curve.items()
        ],
        "fields": fields,
        "coverage": {
            "fields_with_confidence": with_confidence,
            "fields_total": fields_total,
            "ratio": with_confidence / fields_total if fields_total else 0.0,
        },
    }
