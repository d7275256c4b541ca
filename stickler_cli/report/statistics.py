"""Bootstrap confidence intervals from per-document sufficient statistics.

A run that asks for intervals keeps, per document, its score and each field's
confusion counts and score sums (``Accumulator.documents``). A resample of
documents is then only a weighted sum of those rows: every figure of the report
(weighted score; each field's precision, recall, F1 and mean score) is
recomputed for a thousand resamples with a few numpy operations, and no
comparison is ever made again.

Resamples are drawn as ``scipy.stats.bootstrap`` draws them (``integers(0, n,
(batch, n))`` from one seeded generator, batch after batch), and the interval is
its percentile interval, so the two agree on the same resamples.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..run.accumulate import COUNTS, row_width

BATCH = 100  # resamples drawn and summed at a time (fewer for long runs: see MAX_CELLS)
MAX_CELLS = 4_000_000  # resamples × documents held at once (32 MB of weights)


def _batch(n: int) -> int:
    return max(1, min(BATCH, MAX_CELLS // max(n, 1)))


def document_rows(documents: Any, fields: int) -> np.ndarray:
    """The accumulator's flat per-document figures (``Accumulator.documents``) as documents × columns."""
    return np.frombuffer(documents, dtype=np.float64).reshape(-1, row_width(fields))


def resampled_sums(rows: np.ndarray, n_resamples: int, seed: int):
    """The column sums of each bootstrap resample of ``rows`` (documents × columns), a batch at a
    time: each resample as how many times it drew each document, times the rows (memory grows with
    the documents, not documents × columns × resamples). The draws do not depend on the batch size."""
    rng = np.random.default_rng(seed)
    n = len(rows)
    batch = _batch(n)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        index = rng.integers(0, n, (size, n))
        weights = np.empty((size, n))
        for k in range(size):
            weights[k] = np.bincount(index[k], minlength=n)
        yield weights @ rows


OVERALL_FIGURES = ("cm_precision", "cm_recall", "recall_with_fd", "cm_f1")  # the run's, from its top-level counts


def _count_figures(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Precision, recall, recall with FD and F1 from counts whose last axis is [tp, fa, fd, fn, tn]: NaN
    where a denominator is empty. One formula for each field's and the run's figures."""
    tp, fa, fd, fn = counts[..., 0], counts[..., 1], counts[..., 2], counts[..., 3]
    fp = fa + fd
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "cm_precision": np.where(tp + fp > 0, tp / (tp + fp), np.nan),
            # measured wherever the ground truth held a value, as gates.py measures it: all FD is 0.0
            "cm_recall": np.where(tp + fn + fd > 0, tp / np.maximum(tp + fn, 1), np.nan),
            "recall_with_fd": np.where(tp + fn + fd > 0, tp / (tp + fn + fd), np.nan),
            "cm_f1": np.where(tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), np.nan),
        }


def figures(sums: np.ndarray, n_documents: int, fields: int, top: list[int] | None = None) -> dict[str, np.ndarray]:
    """Every figure of the report from column sums (one row per resample): NaN where a
    denominator is empty, which the report writes as a figure without an interval. With ``top``
    (the top-level fields' indices), also the run's own ``overall_<figure>``: its counts are the
    top-level fields' summed, as report.overall_metrics sums them."""
    counts = sums[:, 1 : 1 + COUNTS * fields].reshape(len(sums), fields, COUNTS)
    score_sum = sums[:, 1 + COUNTS * fields : 1 + (COUNTS + 1) * fields]
    score_n = sums[:, 1 + (COUNTS + 1) * fields :]
    with np.errstate(divide="ignore", invalid="ignore"):
        found = {
            "weighted_overall_score": sums[:, 0] / n_documents,
            **_count_figures(counts),
            "mean_score": np.where(score_n > 0, score_sum / score_n, np.nan),
        }
    if top is not None:
        overall = _count_figures(counts[:, top, :].sum(axis=1))
        found.update((f"overall_{name}", overall[name]) for name in OVERALL_FIGURES)
    return found


def intervals(
    rows: np.ndarray,
    fields: int,
    level: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    top: list[int] | None = None,
) -> dict[str, Any]:
    """Percentile intervals: ``{"weighted_overall_score": (low, high), "overall": {name: (low, high) | None},
    "fields": {name: [(low, high) | None per field]}}``; "overall" (the run's precision, recall, recall with
    FD and F1, from the same resamples) when ``top`` names the top-level fields."""
    n = len(rows)
    if n == 0:
        return {
            "weighted_overall_score": None,
            "overall": dict.fromkeys(OVERALL_FIGURES) if top is not None else {},
            "fields": {},
        }
    parts = [figures(sums, n, fields, top) for sums in resampled_sums(rows, n_resamples, seed)]
    merged = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    cut = _percentiles(level)
    out: dict[str, Any] = {
        "weighted_overall_score": _interval(merged["weighted_overall_score"], cut),
        "overall": {},
        "fields": {},
    }
    if top is not None:
        out["overall"] = {name: _interval(merged[f"overall_{name}"], cut) for name in OVERALL_FIGURES}
    for name in ("cm_precision", "cm_recall", "recall_with_fd", "cm_f1", "mean_score"):
        out["fields"][name] = [_interval(merged[name][:, f], cut) for f in range(fields)]
    return out


def _percentiles(level: float) -> list[float]:
    """The percentiles that bound the central ``level`` share (the percentile method)."""
    return [100 * (1 - level) / 2, 100 * (1 + level) / 2]


def _interval(values: np.ndarray, cut: list[float]) -> tuple[float, float] | None:
    """The percentile interval; None when the figure is undefined in any resample (a field so
    rare that some resamples have nothing to measure: no honest interval)."""
    if np.isnan(values).any():
        return None
    low, high = np.percentile(values, cut)
    return float(low), float(high)


def observed(rows: np.ndarray, fields: int) -> dict[str, np.ndarray]:
    """The run's own figures (one 'resample': every document once)."""
    return figures(rows.sum(axis=0, keepdims=True), len(rows), fields)


def paired_comparison(
    rows_a: np.ndarray, rows_b: np.ndarray, fields: int, level: float = 0.95, n_resamples: int = 1000, seed: int = 0
) -> dict[str, dict[str, np.ndarray]]:
    """B against A on the same documents (row k of each is document k).

    For each figure: A, B, the difference B − A, its paired-bootstrap percentile interval (both
    sets resampled with the same documents) and a two-sided p-value from a paired permutation
    test (each document's A and B swapped at random, ``n_resamples`` times): the share of
    permutations whose difference is at least as far from 0 as the one observed. Identical sets
    give differences of 0 everywhere and p = 1.
    """
    n = len(rows_a)
    a, b = observed(rows_a, fields), observed(rows_b, fields)
    difference = {name: b[name][0] - a[name][0] for name in a}
    both = np.concatenate([rows_a, rows_b], axis=1)
    width = rows_a.shape[1]
    boot: dict[str, list[np.ndarray]] = {name: [] for name in a}
    for sums in resampled_sums(both, n_resamples, seed):
        fa, fb = figures(sums[:, :width], n, fields), figures(sums[:, width:], n, fields)
        for name in boot:
            boot[name].append(fb[name] - fa[name])
    delta = rows_b - rows_a
    total_a, total_b = rows_a.sum(axis=0), rows_b.sum(axis=0)
    rng = np.random.default_rng(seed + 1)
    extreme = {name: np.zeros_like(difference[name]) for name in a}
    batch = _batch(n)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        swapped = rng.integers(0, 2, (size, n)).astype(np.float64) @ delta  # what the swaps move from B to A
        pa, pb = figures(total_a + swapped, n, fields), figures(total_b - swapped, n, fields)
        for name in extreme:
            with np.errstate(invalid="ignore"):
                extreme[name] += (np.abs(pb[name] - pa[name]) >= np.abs(difference[name]) - 1e-12).sum(axis=0)
    cut = _percentiles(level)
    out: dict[str, dict[str, np.ndarray]] = {}
    for name in a:
        values = np.concatenate(boot[name])
        undefined = np.isnan(values).any(axis=0)
        low, high = np.percentile(np.where(np.isnan(values), 0.0, values), cut, axis=0)
        out[name] = {
            "a": a[name][0],
            "b": b[name][0],
            "difference": difference[name],
            "low": np.where(undefined, np.nan, low),
            "high": np.where(undefined, np.nan, high),
            "p_value": np.where(np.isnan(difference[name]), np.nan, (extreme[name] + 1) / (n_resamples + 1)),
        }
    return out
