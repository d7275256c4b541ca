"""The hypergeometric lower tail (hypergeometric.py) against scipy and against exact integer arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import hypergeom

from stickler_cli.report.hypergeometric import lower_tail


def _exact(x: int, good: int, bad: int, draws: int) -> Fraction:
    """P(X ≤ x) as a fraction: Σ C(good, k) C(bad, draws − k) / C(good + bad, draws)."""
    low = max(0, draws - bad)
    top = sum(math.comb(good, k) * math.comb(bad, draws - k) for k in range(low, x + 1))
    return Fraction(top, math.comb(good + bad, draws))


def test_small_tables_worked_by_hand() -> None:
    # 2 good, 2 bad, draw 2: P(0) = 1/6, P(1) = 4/6, P(2) = 1/6
    tails = lower_tail(np.array([0.0, 1.0, 2.0]), np.full(3, 2.0), np.full(3, 2.0), np.full(3, 2.0))
    assert tails.tolist() == pytest.approx([1 / 6, 5 / 6, 1.0], rel=1e-15)
    # one failure among 101 comparisons, drawn once: P(the draw is the failure) = 1/101
    assert lower_tail(np.array([0.0]), np.array([100.0]), np.array([1.0]), np.array([1.0]))[0] == pytest.approx(1 / 101)


def test_the_edges_of_the_support() -> None:
    x = np.array([-1.0, 0.0, 3.0, 5.0, 0.0, 0.0])
    good = np.array([5.0, 0.0, 3.0, 5.0, 4.0, 0.0])
    bad = np.array([5.0, 7.0, 4.0, 0.0, 4.0, 0.0])
    draws = np.array([4.0, 3.0, 6.0, 5.0, 0.0, 0.0])
    # below the support; no good balls; x at the most possible; every ball good; nothing drawn; an empty urn
    assert lower_tail(x, good, bad, draws).tolist() == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("scale", [5, 60, 600, 6_000])
def test_agrees_with_scipy(scale: int) -> None:
    rng = np.random.default_rng(scale)
    good, bad = (rng.integers(0, scale, 2_000).astype(float) for _ in range(2))
    draws = np.floor(rng.uniform(size=2_000) * (good + bad + 1))
    low, high = np.maximum(0, draws - bad), np.minimum(draws, good)
    x = np.floor(low + rng.uniform(size=2_000) * (high - low + 1))
    ours, theirs = lower_tail(x, good, bad, draws), hypergeom.cdf(x, good + bad, good, draws)
    shown = theirs > 1e-300  # scipy's tails underflow to 0 a little before ours
    assert ours[shown] == pytest.approx(theirs[shown], rel=1e-12)


def test_large_counts_against_exact_arithmetic() -> None:
    """Tens of thousands of comparisons: Loader's expansion keeps ~1e-14; (scipy drifts to ~1e-11 here)."""
    rng = np.random.default_rng(11)
    for _ in range(12):
        good, bad = int(rng.integers(1_000, 60_000)), int(rng.integers(1_000, 60_000))
        draws = int(rng.integers(100, 3_000))
        mean = draws * good / (good + bad)
        x = int(max(0, min(draws, round(mean + rng.normal() * math.sqrt(draws) / 2))))
        ours = lower_tail(np.array([x]), np.array([good]), np.array([bad]), np.array([draws]))[0]
        assert ours == pytest.approx(float(_exact(x, good, bad, draws)), rel=1e-13)
