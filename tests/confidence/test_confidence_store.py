"""Grouped confidence pairs: flat memory without changing a single metric value.

The accumulator folds pairs into groups of equal (field, confidence, outcome).
Every built-in metric computed on the groups must equal the same metric on the
pairs one by one (checked against the ungrouped computation, which is itself
checked against scikit-learn in test_confidence_metrics.py).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from stickler_cli.confidence import store as store_module
from stickler_cli.confidence.metrics import (
    AUROC,
    ECE,
    BrierScore,
    ConfidenceMetric,
    ConfidencePairs,
    ErrorCaptureAtBudget,
)
from stickler_cli.confidence.report import confidence_metrics
from stickler_cli.confidence.store import ConfidenceStore


def _random_pairs(seed: int, n: int, decimals: int):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        field = rng.randrange(4)
        conf = round(rng.random(), decimals)
        match = rng.random() < 0.3 + 0.6 * conf  # informative, with ties galore
        rows.append((field, match, conf, rng.choice([0.0, 1.0, rng.random()])))
    return rows


def _close(a, b, path=""):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float):
        assert b is not None and abs(a - b) <= 1e-12, (path, a, b)
    else:
        assert a == b, (path, a, b)


@pytest.mark.parametrize("decimals", [1, 2, 3, 12])
def test_grouped_store_keeps_every_pair(decimals, monkeypatch):
    monkeypatch.setattr(store_module, "FOLD_AT", 7)  # fold often, including into earlier folds
    rows = _random_pairs(decimals, 2000, decimals)
    store = ConfidenceStore()
    for row in rows:
        store.add(*row)
    field, match, value, mean_sim, count = store.columns()
    assert int(count.sum()) == len(rows) == len(store)
    if decimals <= 2:  # the point: groups are bounded by fields x distinct confidences x outcomes
        assert len(count) <= 4 * (10**decimals + 1) * 2
    expanded = sorted(
        zip(np.repeat(field, count).tolist(), np.repeat(match, count).tolist(), np.repeat(value, count).tolist())
    )
    assert expanded == sorted((f, m, c) for f, m, c, _ in rows)
    sums: dict = {}
    for f, m, c, s in rows:
        sums[(f, m, c)] = sums.get((f, m, c), 0.0) + s
    for f, m, c, sim, k in zip(field.tolist(), match.tolist(), value.tolist(), mean_sim.tolist(), count.tolist()):
        assert sim * k == pytest.approx(sums[(f, m, c)], abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_every_builtin_metric_equals_its_value_on_single_pairs(seed, monkeypatch):
    monkeypatch.setattr(store_module, "FOLD_AT", 50)
    rows = _random_pairs(seed, 1500, decimals=seed % 3 + 1)
    store = ConfidenceStore()
    for row in rows:
        store.add(*row)
    metrics = [AUROC(), BrierScore(), ECE(7), ErrorCaptureAtBudget([0.05, 0.1, 0.3, 0.5, 0.77, 1.0])]
    paths = ["a", "b", "c", "d"]
    field, match, value, sim, count = store.columns()
    grouped = confidence_metrics(paths, field, match, value, sim, 5000, metrics, count)
    one_by_one = confidence_metrics(
        paths, [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows], 5000, metrics
    )
    _close(grouped, one_by_one)
    assert grouped["coverage"]["fields_with_confidence"] == 1500


def test_merging_groups_in_any_order_gives_the_same_groups():
    rows = _random_pairs(9, 900, decimals=2)
    parts = [rows[:300], rows[300:600], rows[600:]]
    results = []
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        merged = ConfidenceStore()
        for k in order:
            part = ConfidenceStore()
            for row in parts[k]:
                part.add(*row)
            merged.merge(part.state())
        results.append([c.tolist() for c in merged.columns()[:3]] + [merged.count.tolist()])
    assert results[0] == results[1] == results[2]


def test_a_metric_that_does_not_declare_grouped_gets_one_row_per_pair():
    seen = []

    class RowCounter(ConfidenceMetric):
        name = "rows"

        def compute(self, pairs: ConfidencePairs) -> dict:
            seen.append((len(pairs.confidence), float(np.mean(pairs.confidence))))
            return {"value": len(pairs.confidence)}

    pairs = ConfidencePairs.from_columns([True, False], [0.9, 0.2], [1.0, 0.0], count=[3, 1])
    assert RowCounter().compute_on(pairs) == {"value": 4}
    assert seen == [(4, pytest.approx((0.9 * 3 + 0.2) / 4))]
    assert len(pairs) == 4 and AUROC().compute_on(pairs) == {"value": 1.0}


def test_error_capture_counts_inside_a_group_by_hand():
    """10 pairs: conf 0.1 x4 (2 right, 2 wrong), 0.5 x6 (all right). Reviewing 3 of 10:
    the 0.1 group, right ones first: 2 right, then 1 wrong -> 1 of 2 errors caught."""
    pairs = ConfidencePairs.from_columns([True, False, True], [0.1, 0.1, 0.5], [1.0, 0.0, 1.0], count=[2, 2, 6])
    result = ErrorCaptureAtBudget([0.3]).compute(pairs)
    assert result["budgets"]["0.30"]["errors_found"] == 1
    assert result["budgets"]["0.30"]["gain"] == pytest.approx(0.5 / 0.3)
