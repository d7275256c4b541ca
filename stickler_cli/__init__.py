"""stickler: field-by-field evaluation of structured AI outputs.

The Python API is what the CLI uses::

    import stickler_cli as st
    plan = st.load_schema("schemas/invoice.json")     # or st.compile_schema(dict)
    result = st.compare(plan, gt_dict, pred_dict)     # one pair -> DocResult
    report = st.evaluate(plan, [(gt, pred), ...])     # many pairs -> report dict
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .confidence import ConfidenceMetric, ConfidencePairs
from .engine import DocResult, Engine
from .errors import ExitCode, InputError, SchemaError, SticklerError
from .evaluate import Evaluation, evaluate_files, evaluate_pairs
from .plan import Plan
from .report import build_report
from .schema import compile_schema, load_schema, pydantic_model
from .version import __version__


def compare(plan: Plan, gt: dict, pred: dict, explain: bool = False) -> DocResult:
    """Score one ground-truth/prediction pair."""
    return Engine(plan).compare(gt, pred, explain=explain)


def evaluate(plan: Plan, pairs: Iterable[tuple[dict, dict]],
             confidence_metrics: Sequence[ConfidenceMetric] | None = None) -> dict:
    """Score many pairs and return the report dict (same shape as ``--format json``).

    ``confidence_metrics`` replaces the four built-in metrics; a metric is any
    ``ConfidenceMetric`` subclass with a ``name`` and ``compute(pairs)``.
    """
    inputs = {"ground_truth": None, "predictions": None, "id_field": None}
    metrics = list(confidence_metrics) if confidence_metrics is not None else None
    return build_report(Evaluation(plan, evaluate_pairs(plan, pairs), inputs, confidence_metrics=metrics))


__all__ = [
    "__version__", "load_schema", "compile_schema", "pydantic_model", "compare", "evaluate", "evaluate_files",
    "Plan", "DocResult", "Engine", "SticklerError", "SchemaError", "InputError", "ExitCode",
    "ConfidenceMetric", "ConfidencePairs",
]
