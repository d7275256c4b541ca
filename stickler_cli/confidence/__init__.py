"""Is the model's self-reported confidence trustworthy? Metrics over (match, confidence) pairs."""

from .metrics import (
    AUROC,
    ECE,
    METRICS,
    BrierScore,
    ConfidenceMetric,
    ConfidencePairs,
    ErrorCaptureAtBudget,
    default_metrics,
)

__all__ = [
    "AUROC",
    "ECE",
    "METRICS",
    "BrierScore",
    "ConfidenceMetric",
    "ConfidencePairs",
    "ErrorCaptureAtBudget",
    "default_metrics",
]
