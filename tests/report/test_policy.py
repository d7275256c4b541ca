"""The auto-accept policy's rule (report/policy.py), on hand-worked groups and by simulation.

The bounds are worked out here with scipy.stats.beta.ppf, one threshold at a time (the module computes them for
every threshold at once); a threshold is the lowest observed confidence whose accepted values reach the target.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import beta

from stickler_cli.report.policy import choose, curve, lower_bound


def _fit(value, match, count, target, level=0.95):
    t, n, k = curve(np.asarray(value, float), np.asarray(match, bool), np.asarray(count, np.int64))
    at = choose(n, k, target, level)
    return None if at is None else (float(t[at]), int(n[at]), int(k[at]))


def test_the_bound_is_clopper_pearson_one_sided():
    assert lower_bound(16, 16, 0.95) == pytest.approx(0.05 ** (1 / 16), abs=1e-12)  # k = n: alpha ** (1/n)
    assert lower_bound(17, 18, 0.95) == pytest.approx(beta.ppf(0.05, 17, 2), abs=1e-12)
    assert lower_bound(8, 20, 0.9) == pytest.approx(beta.ppf(0.10, 8, 13), abs=1e-12)
    assert lower_bound(0, 5, 0.95) == 0.0  # nothing right: the bound is 0


def test_a_hand_worked_threshold():
    # 16 right values at 0.99 .. 0.84, then a wrong and a right one at 0.80 (a tie), a wrong one at 0.60.
    value = [round(0.99 - 0.01 * i, 2) for i in range(16)] + [0.80, 0.80, 0.60]
    match = [True] * 16 + [False, True, False]
    # at 0.84: 16 of 16, bound 0.05 ** (1/16) = 0.8293 >= 0.8; at 0.80 (both tied values): 17 of 18,
    # beta.ppf(0.05, 17, 2) = 0.7623 < 0.8; at 0.60: 17 of 19, 0.7042 < 0.8. The lowest passing: 0.84.
    assert beta.ppf(0.05, 17, 2) < 0.8 < 0.05 ** (1 / 16)
    assert _fit(value, match, [1] * 19, 0.8) == (0.84, 16, 16)
    # At a target of 0.75, 0.80 passes (0.7623) and 0.60 does not (0.7042): both tied values are accepted.
    assert _fit(value, match, [1] * 19, 0.75) == (0.80, 18, 17)
    # Nothing reaches 0.9 (16 of 16 gives 0.8293 at most): review always.
    assert _fit(value, match, [1] * 19, 0.9) is None


def test_ties_are_accepted_together_from_groups():
    # The store's groups: (confidence, right?, count). At 0.9: 20 right and 2 wrong, all accepted at once.
    got = _fit([0.95, 0.9, 0.9, 0.5], [True, True, False, False], [10, 20, 2, 30], 0.8)
    # at 0.95: 10 of 10, bound 0.05 ** 0.1 = 0.741 < 0.8; at 0.9: 30 of 32, beta.ppf(0.05, 30, 3) = 0.8186.
    assert beta.ppf(0.05, 30, 3) > 0.8 > 0.05**0.1
    assert got == (0.9, 32, 30)


def test_the_lowest_passing_threshold_is_taken_even_after_a_dip():
    # At 0.9: 20 of 20 (0.861); at 0.8: 20 of 23 (0.695, below 0.8); at 0.7: 60 of 63 (0.882). The rule takes the
    # lowest observed confidence that reaches the target: 0.7.
    got = _fit([0.9, 0.8, 0.7], [True, False, True], [20, 3, 40], 0.8)
    assert beta.ppf(0.05, 20, 4) < 0.8 < beta.ppf(0.05, 60, 4)
    assert got == (0.7, 63, 60)


def _true_precision(t: float, a: float) -> float:
    """Confidence c ~ U(0, 1), P(right | c) = c ** a: the precision of the values with c >= t."""
    return (1 - t ** (a + 1)) / ((a + 1) * (1 - t))


def test_realised_precision_below_target_at_most_5_percent_over_200_seeds():
    # 200 data sets of 2,000 values (confidences in steps of 0.001, so ties happen); the true precision at the
    # chosen threshold is known in closed form. A 95% lower bound falls below the target in at most 5% of the
    # runs, plus noise: 10 of 200 expected, 16 is two standard deviations above (sqrt(200 * .05 * .95) = 3.1).
    target, a, below, fitted = 0.9, 0.3, 0, 0
    for seed in range(200):
        rng = np.random.default_rng(seed)
        c = np.round(rng.random(2000), 3)
        right = rng.random(2000) < c**a
        got = _fit(c, right, np.ones(2000, np.int64), target)
        if got is None:
            continue
        fitted += 1
        below += _true_precision(got[0], a) < target
    assert fitted == 200  # the target is reachable: every run finds a threshold
    assert below <= 16, below
    assert below >= 1  # the bound is not far too cautious either (it would never be below)
