"""What the report makes of an accumulated state: one frozen object, built once at the boundary.

The command line builds a ``ReportOptions`` from its flags (cli/options.py) and gives it to
``report.build.build_report`` with the run's ``Evaluation``; the Python API takes the defaults or builds
one. None of these settings changes what a run accumulates (that is ``run.options.RunOptions``): a state
saved once can be reported under other options (``stickler merge``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..confidence import ConfidenceMetric
    from .policy import PolicyOptions


@dataclass(frozen=True)
class ReportOptions:
    """Confidence metrics, localisation mAP's IoU thresholds and box rule, bootstrap intervals (level,
    resamples, seed) and the false-discovery rate of slices."""

    confidence_metrics: tuple[ConfidenceMetric, ...] | None = None  # None: all four built-ins
    iou_thresholds: tuple[float, ...] | None = None  # localisation mAP; None: COCO's 0.50:0.95
    box_rule: str = "value-and-iou"  # when a predicted box counts as found (localisation.RULES)
    ci_level: float | None = None  # bootstrap intervals at this level (needs Collect(documents=True))
    bootstrap: int = 1000  # resamples
    seed: int = 0
    slice_fdr: float = 0.05  # --fdr: the false-discovery rate at which slices are found worse (report/slices.py)
    # issue 41, policy: --target-precision / --policy (report/policy.py; needs Collect(policy=True))
    policy: PolicyOptions | None = None
