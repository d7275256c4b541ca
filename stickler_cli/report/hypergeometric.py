"""The hypergeometric lower tail, P(X ≤ x), in arrays, without scipy.stats (whose import is ~0.4 s).

Fisher's exact test of a 2×2 table is this tail (slice_stats.py). Each probability is formed as
scipy's (Boost's) and R's ``phyper`` form it: the point probability of x by Loader's saddle-point
expansion (C. Loader, "Fast and accurate computation of binomial probabilities", 2000: Stirling's
remainder and the deviance ``bd0``, with no cancellation of large logarithms, so accurate to a few
units in the last place however many comparisons), times the sum of the ratios of its neighbours
down the tail. The tail summed is the one x sits in; for x above the mean, 1 − the upper tail. Agrees
with ``scipy.stats.hypergeom.cdf`` to ~1e-14 relative (tests/report/test_slices.py).
"""

from __future__ import annotations

import math

import numpy as np

_LN_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_EPSILON = np.finfo(np.float64).eps
_BLOCK = 64  # tail terms formed at a time, for every table still summing
# Stirling's remainder log(n!) − log(√(2πn) (n/e)ⁿ) for n = 1..15, where the series below is not yet
# accurate; from lgamma, whose absolute error (~1e-15) is what matters in a log-probability.
_SMALL = np.array([0.0] + [math.lgamma(n + 1) - (n + 0.5) * math.log(n) + n - _LN_SQRT_2PI for n in range(1, 16)])


def _stirling_remainder(n: np.ndarray) -> np.ndarray:
    """log(n!) − log(√(2πn) (n/e)ⁿ) for whole n ≥ 1: a table to 15, the asymptotic series above."""
    small = n <= 15
    safe = np.where(small, 16.0, n)
    nn = safe * safe
    series = np.where(
        safe > 500,
        (1 / 12 - (1 / 360) / nn) / safe,
        np.where(
            safe > 80,
            (1 / 12 - (1 / 360 - (1 / 1260) / nn) / nn) / safe,
            np.where(
                safe > 35,
                (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680) / nn) / nn) / nn) / safe,
                (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - (1 / 1188) / nn) / nn) / nn) / nn) / safe,
            ),
        ),
    )
    return np.where(small, _SMALL[np.where(small, n, 0).astype(np.int64)], series)


def _deviance(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """x log(x / mean) + mean − x (Loader's bd0), without cancellation when x is near the mean."""
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.abs(x - mean) < 0.1 * (x + mean)
        far = x * np.log(x / mean) + mean - x
        v = (x - mean) / (x + mean)
        total = (x - mean) * v
        term = 2 * x * v
        v2 = v * v
        for j in range(1, 40):  # |v| < 0.1: each term at most 1/100 of the one before
            term = term * v2
            step = total + term / (2 * j + 1)
            if np.array_equal(step[near], total[near]):
                break
            total = step
    return np.where(near, total, far)


def _binomial_point(x: np.ndarray, n: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """P(Binomial(n, p) = x), 0 ≤ x ≤ n, 0 < p < 1, q = 1 − p (Loader's dbinom_raw). One call of the
    deviance for all four of its uses."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inner = (x > 0) & (x < n)
        xs, ns = np.where(inner, x, 1.0), np.where(inner, n, 2.0)
        m = len(x)
        d = _deviance(np.concatenate((xs, ns - xs, n, n)), np.concatenate((ns * p, ns * q, n * q, n * p)))
        whole, part, rest = _stirling_remainder(np.concatenate((ns, xs, ns - xs))).reshape(3, m)
        log_inner = (
            whole - part - rest - d[:m] - d[m : 2 * m] - 0.5 * (np.log(2 * math.pi) + np.log(xs) + np.log1p(-xs / ns))
        )
        all_fail = np.where(p < 0.1, -d[2 * m : 3 * m] - n * p, n * np.log(q))  # x = 0
        all_succeed = np.where(q < 0.1, -d[3 * m :] - n * q, n * np.log(p))  # x = n
        log_point = np.where(inner, log_inner, np.where(x == 0, all_fail, all_succeed))
    return np.where(n == 0, 1.0, np.exp(log_point))


def _point(x: np.ndarray, good: np.ndarray, bad: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """P(X = x) drawing ``draws`` of ``good`` + ``bad`` without replacement, x in its support."""
    total = good + bad
    p = draws / total
    q = (total - draws) / total
    inside = (p > 0) & (q > 0)
    ps, qs = np.where(inside, p, 0.5), np.where(inside, q, 0.5)
    m = len(x)
    points = _binomial_point(
        np.concatenate((x, draws - x, draws)), np.concatenate((good, bad, total)), np.tile(ps, 3), np.tile(qs, 3)
    )
    return np.where(inside, points[:m] * points[m : 2 * m] / points[2 * m :], 1.0)  # else one outcome only


def _tail_factor(x: np.ndarray, good: np.ndarray, bad: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Σ_{k ≤ x} P(X = k) / P(X = x): 1 + r_x + r_x r_{x−1} + …, r_k = P(k − 1) / P(k), until the terms
    no longer change the sum or the support ends. x at or below the mean, so the terms fall past the mode
    (at most one step away) and the block loop ends."""
    total = np.ones(len(x))
    term = np.ones(len(x))
    left = np.arange(len(x))
    start = x.copy()
    steps = np.arange(_BLOCK)
    while len(left):
        k = start[left, None] - steps  # the k of each ratio in this block
        g, b, n = good[left, None], bad[left, None], draws[left, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(k > 0, k * (b - n + k) / ((n + 1 - k) * (g + 1 - k)), 0.0)
        ratio = np.where(ratio > 0, ratio, 0.0)  # below the support: no more terms
        terms = term[left, None] * np.cumprod(ratio, axis=1)
        total[left] += terms.sum(axis=1)
        term[left] = terms[:, -1]
        start[left] -= _BLOCK
        left = left[term[left] >= _EPSILON * total[left]]
    return total


def lower_tail(x: np.ndarray, good: np.ndarray, bad: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """P(X ≤ x) for X hypergeometric: ``draws`` taken without replacement from ``good`` successes and ``bad``
    failures (``scipy.stats.hypergeom.cdf(x, good + bad, good, draws)``), element-wise on whole-number arrays."""
    x, good, bad, draws = (np.asarray(a, dtype=np.float64) for a in (x, good, bad, draws))
    upper = x * (good + bad) > draws * good  # above the mean: the other tail, then its complement
    g, b = np.where(upper, bad, good), np.where(upper, good, bad)
    k = np.where(upper, draws - x - 1, x)
    below = (k < 0) | (k < draws - b)  # the tail summed is empty
    whole = (k >= g) | (k >= draws)  # the tail summed is everything
    ok = ~(below | whole)
    tail = np.zeros(len(x))
    if ok.any():
        ks, gs, bs, ns = k[ok], g[ok], b[ok], draws[ok]
        tail[ok] = _point(ks, gs, bs, ns) * _tail_factor(ks, gs, bs, ns)
    tail = np.where(below, 0.0, np.where(whole, 1.0, tail))
    return np.clip(np.where(upper, 1 - tail, tail), 0.0, 1.0)
