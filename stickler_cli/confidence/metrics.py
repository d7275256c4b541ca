"""Confidence metrics: each a small class with a ``name`` and ``compute(pairs) -> dict``.

A pair is one scored leaf whose prediction carried ``_confidence``: whether it
matched (similarity at or above the field's threshold), the confidence, and
the similarity. Pairs arrive column-wise as numpy arrays, because a run of a
million documents holds millions of them. Every result has a ``value``
(None when the metric is undefined) and may carry more (ECE bins, budgets),
in the shape stickler-eval reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np


def weighted_average_ranks(values: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The mean 1-based rank each row's pairs would have if every row were ``count`` equal pairs:
    scipy's ``rankdata(method="average")`` of the expanded pairs, without importing scipy.stats."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    group = np.cumsum(np.r_[True, ordered[1:] != ordered[:-1]]) - 1  # tie group of each sorted row
    group_size = np.bincount(group, weights=count[order]).astype(np.int64)
    group_end = np.cumsum(group_size)  # pairs up to and including the group
    mean_rank = (group_end - group_size + 1 + group_end) / 2.0
    ranks = np.empty(len(values), dtype=float)
    ranks[order] = mean_rank[group]
    return ranks


MAX_BINS = 100  # every field repeats the bin table; more bins than this is noise, not resolution


@dataclass(frozen=True)
class ConfidencePairs:
    """Parallel columns: ``is_match`` (bool), ``confidence`` and ``similarity`` (float64),
    and ``count`` (int64): how many pairs a row stands for.

    A long run keeps its pairs grouped by (field, confidence, outcome), so a
    row may stand for many pairs; its ``similarity`` is then their mean. Every
    length and sum here counts pairs, not rows. Metrics that declare
    ``grouped = True`` receive rows as they are; others receive ``expanded()``
    pairs, one row each.
    """

    is_match: np.ndarray
    confidence: np.ndarray
    similarity: np.ndarray
    count: np.ndarray

    @classmethod
    def from_columns(
        cls,
        is_match: Sequence[bool],
        confidence: Sequence[float],
        similarity: Sequence[float] | None = None,
        count: Sequence[int] | None = None,
    ) -> "ConfidencePairs":
        match = np.asarray(is_match, dtype=bool)
        conf = np.asarray(confidence, dtype=np.float64)
        sim = np.asarray(similarity if similarity is not None else match, dtype=np.float64)
        counts = np.ones(len(match), dtype=np.int64) if count is None else np.asarray(count, dtype=np.int64)
        if not (match.shape == conf.shape == sim.shape == counts.shape) or match.ndim != 1:
            raise ValueError("is_match, confidence, similarity and count must be 1-D and of equal length")
        return cls(match, conf, sim, counts)

    def __len__(self) -> int:
        """The number of pairs (rows weighted by their counts)."""
        return int(self.count.sum())

    def select(self, mask: np.ndarray) -> "ConfidencePairs":
        return ConfidencePairs(self.is_match[mask], self.confidence[mask], self.similarity[mask], self.count[mask])

    def expanded(self) -> "ConfidencePairs":
        """One row per pair (a grouped row repeated ``count`` times)."""
        if bool((self.count == 1).all()):
            return self
        c = self.count
        return ConfidencePairs(
            np.repeat(self.is_match, c),
            np.repeat(self.confidence, c),
            np.repeat(self.similarity, c),
            np.ones(int(c.sum()), dtype=np.int64),
        )


class ConfidenceMetric:
    """Subclass with a ``name`` and ``compute``; pass instances to the evaluation to add a metric."""

    name: ClassVar[str] = ""
    # True: ``compute`` honours ``pairs.count`` and may receive grouped rows (the
    # built-ins do, so memory stays flat); False: it receives one row per pair.
    grouped: ClassVar[bool] = False

    def compute(self, pairs: ConfidencePairs) -> dict[str, Any]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        """One class with the same settings is the same metric (report options compare equal once pickled)."""
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self), repr(sorted(vars(self).items()))))

    def compute_on(self, pairs: ConfidencePairs) -> dict[str, Any]:
        """``compute`` on the pairs in the form this metric takes."""
        return self.compute(pairs if self.grouped else pairs.expanded())


class AUROC(ConfidenceMetric):
    """Area under the ROC curve of confidence as a predictor of a match (ties get average ranks).

    None with fewer than two classes: a ranking of all-correct (or all-wrong)
    fields says nothing about discrimination.
    """

    name = "auroc"

    grouped = True

    def compute(self, pairs: ConfidencePairs) -> dict[str, Any]:
        positives = int(pairs.count[pairs.is_match].sum())
        negatives = len(pairs) - positives
        if not positives or not negatives:
            return {"value": None}
        ranks = weighted_average_ranks(pairs.confidence, pairs.count)
        u = float((ranks * pairs.count)[pairs.is_match].sum()) - positives * (positives + 1) / 2
        return {"value": u / (positives * negatives)}


class BrierScore(ConfidenceMetric):
    """Mean squared gap between confidence and the 0/1 outcome: 0 is perfect, 0.25 a coin."""

    name = "brier_score"

    grouped = True

    def compute(self, pairs: ConfidencePairs) -> dict[str, Any]:
        n = len(pairs)
        if not n:
            return {"value": None}
        gap = pairs.confidence - pairs.is_match.astype(np.float64)
        return {"value": float((gap * gap * pairs.count).sum() / n)}


class ECE(ConfidenceMetric):
    """Expected calibration error over ``n_bins`` equal-width bins, with the per-bin table.

    Bin i holds confidences in [i/n, (i+1)/n); the last bin also holds 1.0. ECE
    is the count-weighted mean of |accuracy - mean confidence| over the bins.
    """

    name = "ece"
    grouped = True

    def __init__(self, n_bins: int = 10) -> None:
        if isinstance(n_bins, bool) or not isinstance(n_bins, int) or not 1 <= n_bins <= MAX_BINS:
            raise ValueError(f"n_bins must be an integer from 1 to {MAX_BINS}, got {n_bins!r}")
        self.n_bins = n_bins

    def compute(self, pairs: ConfidencePairs) -> dict[str, Any]:
        if not len(pairs):
            return {"value": None, "bins": []}
        n = self.n_bins
        upper = np.array([(i + 1) / n for i in range(n)], dtype=np.float64)
        index = np.minimum(np.searchsorted(upper, pairs.confidence, side="right"), n - 1)
        weight = pairs.count.astype(np.float64)
        counts = np.rint(np.bincount(index, weights=weight, minlength=n)).astype(np.int64)
        matches = np.bincount(index, weights=pairs.is_match * weight, minlength=n)
        conf_sums = np.bincount(index, weights=pairs.confidence * weight, minlength=n)
        total = len(pairs)
        ece = 0.0
        bins = []
        for i in range(n):
            count = int(counts[i])
            accuracy = float(matches[i]) / count if count else 0.0
            mean_conf = float(conf_sums[i]) / count if count else 0.0
            if count:
                ece += (count / total) * abs(accuracy - mean_conf)
            bins.append(
                {"range": [i / n, float(upper[i])], "count": count, "accuracy": accuracy, "mean_confidence": mean_conf}
            )
        return {"value": ece, "bins": bins}


class ErrorCaptureAtBudget(ConfidenceMetric):
    """Review the lowest-confidence share of fields: what share of all errors does that catch?

    For each budget b the ``k = max(1, floor(n * b))`` least confident pairs
    are reviewed (among equal confidences, correct values first); ``gain`` is the share of
    errors caught over ``k / n``, the share a random review of k would catch.
    ``value`` is the gain at the middle budget. None when there are no errors.
    """

    name = "error_capture_at_budget"
    grouped = True

    def __init__(self, budgets: Sequence[float] = (0.1, 0.3, 0.5)) -> None:
        budgets = list(budgets)
        if not budgets:
            raise ValueError("budgets must not be empty")
        for b in budgets:
            if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0.0 < b <= 1.0:
                raise ValueError(f"each budget must be in (0, 1], got {b!r}")
        self.budgets = sorted(float(b) for b in budgets)
        keys = [f"{b:.2f}" for b in self.budgets]
        for a, b, key in zip(self.budgets, self.budgets[1:], keys[1:]):
            if f"{a:.2f}" == key:
                raise ValueError(f"budgets {a:g} and {b:g} are both reported as {key}; give budgets 0.01 apart")
        if keys[0] == "0.00":
            raise ValueError(f"budget {self.budgets[0]:g} is reported as 0.00; give at least 0.01")

    def compute(self, pairs: ConfidencePairs) -> dict[str, Any]:
        n = len(pairs)
        errors = ~pairs.is_match
        total_errors = int(pairs.count[errors].sum())
        if not n or not total_errors:
            return {"value": None, "budgets": {}}
        # Ties in confidence: correct values first, so the figure never depends on
        # the order pairs arrived (split runs merge to the same answer) and never
        # flatters the confidence.
        order = np.lexsort((errors, pairs.confidence))
        sizes = pairs.count[order]
        is_error = errors[order]
        reviewed_by_row = np.cumsum(sizes)  # pairs reviewed once a row is done
        errors_by_row = np.cumsum(sizes * is_error)
        table: dict[str, dict[str, Any]] = {}
        for budget in self.budgets:
            k = min(n, max(1, int(n * budget)))
            row = int(np.searchsorted(reviewed_by_row, k))  # the row the k-th pair falls in
            before = int(reviewed_by_row[row] - sizes[row])
            found = int(errors_by_row[row] - sizes[row] * is_error[row]) + (k - before if is_error[row] else 0)
            reviewed = k / n
            caught = found / total_errors
            table[f"{budget:.2f}"] = {
                "fields_reviewed": k,
                "errors_found": found,
                "pct_errors_caught": caught,
                "pct_errors_random": reviewed,
                "gain": caught / reviewed,
            }
        middle = f"{self.budgets[len(self.budgets) // 2]:.2f}"
        return {"value": table[middle]["gain"], "budgets": table}


METRICS: dict[str, type[ConfidenceMetric]] = {cls.name: cls for cls in (AUROC, BrierScore, ECE, ErrorCaptureAtBudget)}


def default_metrics(n_bins: int = 10, budgets: Sequence[float] = (0.1, 0.3, 0.5)) -> list[ConfidenceMetric]:
    """All four built-in metrics (stickler-eval's own default is AUROC alone)."""
    return [AUROC(), BrierScore(), ECE(n_bins), ErrorCaptureAtBudget(budgets)]
