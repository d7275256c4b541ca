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

BATCH = 100  # resamples drawn and summed at a time: memory stays at BATCH × documents indices
COUNTS = 5  # tp, fa, fd, fn, tn per field, as in DocResult.tally


def row_width(fields: int) -> int:
    """A document's row: its score, then per field five counts, then score sums, then score counts."""
    return 1 + COUNTS * fields + 2 * fields


def resampled_sums(rows: np.ndarray, n_resamples: int, seed: int, batch: int = BATCH):
    """The column sums of each bootstrap resample of ``rows`` (documents × columns), batch by batch."""
    rng = np.random.default_rng(seed)
    n = len(rows)
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        index = rng.integers(0, n, (size, n))
        yield rows[index].sum(axis=1)


def figures(sums: np.ndarray, n_documents: int, fields: int) -> dict[str, np.ndarray]:
    """Every figure of the report from column sums (one row per resample): NaN where a
    denominator is empty, which the report writes as a figure without an interval."""
    with np.errstate(divide="ignore", invalid="ignore"):
        counts = sums[:, 1:1 + COUNTS * fields].reshape(len(sums), fields, COUNTS)
        tp, fa, fd, fn = counts[..., 0], counts[..., 1], counts[..., 2], counts[..., 3]
        fp = fa + fd
        score_sum = sums[:, 1 + COUNTS * fields:1 + (COUNTS + 1) * fields]
        score_n = sums[:, 1 + (COUNTS + 1) * fields:]
        return {
            "weighted_overall_score": sums[:, 0] / n_documents,
            "cm_precision": np.where(tp + fp > 0, tp / (tp + fp), np.nan),
            "cm_recall": np.where(tp + fn > 0, tp / (tp + fn), np.nan),
            "cm_f1": np.where(tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), np.nan),
            "mean_score": np.where(score_n > 0, score_sum / score_n, np.nan),
        }


def intervals(rows: np.ndarray, fields: int, level: float = 0.95, n_resamples: int = 1000,
              seed: int = 0) -> dict[str, Any]:
    """Percentile intervals: ``{"weighted_overall_score": (low, high), "fields": {name: [(low, high) | None per field]}}``."""
    n = len(rows)
    if n == 0:
        return {"weighted_overall_score": None, "fields": {}}
    parts = [figures(sums, n, fields) for sums in resampled_sums(rows, n_resamples, seed)]
    merged = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    cut = [100 * (1 - level) / 2, 100 * (1 + level) / 2]
    out: dict[str, Any] = {"weighted_overall_score": _interval(merged["weighted_overall_score"], cut), "fields": {}}
    for name in ("cm_precision", "cm_recall", "cm_f1", "mean_score"):
        out["fields"][name] = [_interval(merged[name][:, f], cut) for f in range(fields)]
    return out


def _interval(values: np.ndarray, cut: list[float]) -> tuple[float, float] | None:
    """The percentile interval; None when the figure is undefined in any resample (a field so
    rare that some resamples have nothing to measure: no honest interval)."""
    if np.isnan(values).any():
        return None
    low, high = np.percentile(values, cut)
    return float(low), float(high)
