"""Confusion-matrix figures derived from summed counts (micro-averaged).

precision = tp / (tp + fp), recall = tp / (tp + fn), f1 = harmonic mean,
accuracy = (tp + tn) / (tp + tn + fp + fn), with fp = fa + fd, and recall with FD
= tp / (tp + fn + fd): stickler-eval's ``recall_with_fd=True`` recall, which counts
a wrong value where one was due as a miss too. Each is 0.0 when its denominator
is 0, as in stickler-eval.
"""

from __future__ import annotations


def derived(tp: int, fa: int, fd: int, fn: int, tn: int) -> dict[str, float]:
    fp = fa + fd
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    recall_with_fd = tp / (tp + fn + fd) if tp + fn + fd else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    total = tp + tn + fp + fn
    accuracy = (tp + tn) / total if total else 0.0
    return {
        "cm_precision": precision,
        "cm_recall": recall,
        "recall_with_fd": recall_with_fd,
        "cm_f1": f1,
        "cm_accuracy": accuracy,
    }


def count_block(counts: list[int]) -> dict[str, int | float]:
    """{tp, fa, fd, fp, tn, fn} plus the derived figures, from [tp, fa, fd, fn, tn]."""
    tp, fa, fd, fn, tn = counts
    return {"tp": tp, "fa": fa, "fd": fd, "fp": fa + fd, "tn": tn, "fn": fn, **derived(tp, fa, fd, fn, tn)}
