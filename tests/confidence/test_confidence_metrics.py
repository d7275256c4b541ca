"""Confidence metrics against scikit-learn and by-hand computations."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, roc_auc_score

from stickler_cli.confidence import AUROC, ECE, BrierScore, ConfidencePairs, ErrorCaptureAtBudget


def _pairs(match, conf):
    return ConfidencePairs.from_columns(match, conf)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("tied", [False, True])
def test_auroc_and_brier_equal_scikit_learn(seed, tied):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    conf = rng.random(n)
    if tied:
        conf = np.round(conf, 1)  # many exact ties
    match = rng.random(n) < conf  # confidence carries some signal
    if match.all() or not match.any():
        match[0] = not match[0]
    pairs = _pairs(match, conf)
    assert AUROC().compute(pairs)["value"] == pytest.approx(roc_auc_score(match, conf), abs=1e-12)
    assert BrierScore().compute(pairs)["value"] == pytest.approx(brier_score_loss(match, conf), abs=1e-12)


def test_edge_cases():
    one_class = _pairs([True, True, True], [0.2, 0.5, 0.9])
    assert AUROC().compute(one_class) == {"value": None}
    assert BrierScore().compute(one_class)["value"] == pytest.approx((0.64 + 0.25 + 0.01) / 3)
    assert ErrorCaptureAtBudget().compute(one_class) == {"value": None, "budgets": {}}
    empty = _pairs([], [])
    for metric in (AUROC(), BrierScore()):
        assert metric.compute(empty) == {"value": None}
    assert ECE().compute(empty) == {"value": None, "bins": []}
    assert ErrorCaptureAtBudget().compute(empty) == {"value": None, "budgets": {}}
    identical = _pairs([True, False, True, False], [0.7, 0.7, 0.7, 0.7])
    assert AUROC().compute(identical)["value"] == 0.5  # all tied: no discrimination
    # ECE: one bin [0.7, 0.8) with accuracy 0.5, mean confidence 0.7 -> 0.2
    assert ECE().compute(identical)["value"] == pytest.approx(0.2)


def test_ece_by_hand():
    # bins of width 0.25: [0,.25) .1 miss; [.25,.5) .3 hit, .4 miss; [.5,.75) -; [.75,1] .8 hit, .9 hit, 1.0 miss
    pairs = _pairs([False, True, False, True, True, False], [0.1, 0.3, 0.4, 0.8, 0.9, 1.0])
    result = ECE(n_bins=4).compute(pairs)
    expected = (1 / 6) * abs(0 - 0.1) + (2 / 6) * abs(0.5 - 0.35) + (3 / 6) * abs(2 / 3 - 0.9)
    assert result["value"] == pytest.approx(expected, abs=1e-12)
    assert [b["count"] for b in result["bins"]] == [1, 2, 0, 3]
    assert result["bins"][1] == {"range": [0.25, 0.5], "count": 2, "accuracy": 0.5, "mean_confidence": 0.35}
    assert result["bins"][2] == {"range": [0.5, 0.75], "count": 0, "accuracy": 0.0, "mean_confidence": 0.0}
    # an edge value belongs to the bin it opens: 0.25 -> bin 1; 1.0 -> the last bin
    assert [b["count"] for b in ECE(4).compute(_pairs([True, True], [0.25, 1.0]))["bins"]] == [0, 1, 0, 1]
    with pytest.raises(ValueError):
        ECE(0)


def test_error_capture_by_hand():
    # 10 pairs, 4 errors at confidences .05 .1 .2 .9; hits elsewhere
    conf = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    match = [False, False, False, True, True, True, True, True, True, False]
    result = ErrorCaptureAtBudget([0.5, 0.1, 0.3]).compute(_pairs(match, conf))
    assert list(result["budgets"]) == ["0.10", "0.30", "0.50"]
    b10, b30, b50 = (result["budgets"][k] for k in ("0.10", "0.30", "0.50"))
    assert b10 == {
        "fields_reviewed": 1,
        "errors_found": 1,
        "pct_errors_caught": 0.25,
        "pct_errors_random": 0.1,
        "gain": pytest.approx(2.5),
    }
    assert (b30["errors_found"], b30["gain"]) == (3, pytest.approx(0.75 / 0.3))
    assert (b50["errors_found"], b50["gain"]) == (3, pytest.approx(1.5))
    assert result["value"] == pytest.approx(0.75 / 0.3)  # the middle budget, 0.30
    # a small set still reviews one pair: n=3, budget 0.1 -> k=1, random share 1/3
    small = ErrorCaptureAtBudget([0.1]).compute(_pairs([False, True, True], [0.1, 0.5, 0.9]))
    assert small["budgets"]["0.10"]["gain"] == pytest.approx(3.0)
    with pytest.raises(ValueError):
        ErrorCaptureAtBudget([0.0])
    with pytest.raises(ValueError):
        ErrorCaptureAtBudget([])


def test_error_capture_does_not_depend_on_arrival_order_of_ties():
    # 5 right and 5 wrong, all at 0.5: among ties, right values are reviewed first
    match = [True] * 5 + [False] * 5
    forward = ErrorCaptureAtBudget([0.1, 0.6]).compute(_pairs(match, [0.5] * 10))
    backward = ErrorCaptureAtBudget([0.1, 0.6]).compute(_pairs(match[::-1], [0.5] * 10))
    assert forward == backward
    assert forward["budgets"]["0.10"]["errors_found"] == 0  # the first reviewed is a right one
    assert forward["budgets"]["0.60"]["errors_found"] == 1  # 5 right, then 1 wrong


def test_budgets_that_print_alike_are_refused():
    with pytest.raises(ValueError, match="both reported as 0.12"):
        ErrorCaptureAtBudget([0.125, 0.12])
    with pytest.raises(ValueError, match="reported as 0.00"):
        ErrorCaptureAtBudget([0.001])
    with pytest.raises(ValueError, match="from 1 to 100"):
        ECE(101)


@pytest.mark.parametrize("n_bins", [1, 3, 7, 10, 15])
def test_ece_matches_a_plain_loop_at_any_bin_count(n_bins):
    rng = np.random.default_rng(n_bins)
    conf = np.concatenate([rng.random(300), [0.0, 1.0, 0.8999999999999999, 1 / 3, 2 / 3]])
    match = rng.random(conf.size) < conf
    edges = [(i + 1) / n_bins for i in range(n_bins)]
    groups: dict[int, list[int]] = {}
    for k, c in enumerate(conf):
        b = sum(1 for e in edges if e <= c)  # how many upper edges lie at or below it
        groups.setdefault(min(b, n_bins - 1), []).append(k)
    expected = sum(len(ix) / conf.size * abs(np.mean(match[ix]) - np.mean(conf[ix])) for ix in groups.values())
    result = ECE(n_bins).compute(_pairs(match, conf))
    assert result["value"] == pytest.approx(expected, abs=1e-12)
    assert [b["count"] for b in result["bins"]] == [len(groups.get(i, [])) for i in range(n_bins)]


def test_weighted_average_ranks_equal_scipy_on_the_expanded_pairs():
    from scipy.stats import rankdata

    from stickler_cli.confidence.metrics import weighted_average_ranks

    rng = np.random.default_rng(3)
    for n in (1, 2, 7, 300):
        values = rng.integers(0, 6, n) / 5
        count = rng.integers(1, 4, n)
        ranks = weighted_average_ranks(values, count)
        expanded = rankdata(np.repeat(values, count), method="average")
        assert np.array_equal(np.repeat(ranks, count), expanded)
        assert np.array_equal(weighted_average_ranks(values, np.ones(n, dtype=np.int64)), rankdata(values))
