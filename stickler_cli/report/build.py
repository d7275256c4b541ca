"""Build the machine-readable report (a plain dict) from an Evaluation, as ReportOptions say.

Key names mirror stickler-eval's bulk result (``metrics``, ``field_metrics``,
``cm_precision`` …) so users can map one to one; schemas/report.schema.json
describes it.
"""

from __future__ import annotations

from typing import Any

from ..analyses import rollup
from ..analyses.part import ReportContext
from ..confidence.report import confidence_metrics
from ..run.accumulate import HISTOGRAM_BINS, Accumulator
from ..run.evaluate import Evaluation
from ..run.reader import record_warnings
from ..version import __version__
from .metrics import count_block
from .options import ReportOptions

REPORT_VERSION = "1.0"
# The analyses' blocks (Accumulator.report_blocks: each part's report block) in the order the report has always
# listed them, after the confidence metrics; a block not named here comes after them, before the errors.
REPORT_BLOCKS = (
    "localisation",
    "score_histogram",
    "thresholds",
    "worst_documents",
    "field_failures",
    "list_errors",
    "cosmetic_errors",
    "judge",
)


def aggregate_counts(acc: Accumulator) -> tuple[list[int], dict[int, list[int]]]:
    """The leaf roll-ups of a run (rollup.py): the document's, and each object's and list of objects' by
    field index, as [tp, fa, fd, fn, tn]."""
    return rollup.roll_up(acc.tally, acc.unopened, acc.nodes)


def field_metrics(acc: Accumulator, rolled_up: dict[int, list[int]] | None = None) -> dict[str, dict[str, Any]]:
    """Each field's figures; ``rolled_up``: each object's and list of objects' leaf roll-up, when the
    caller has it (aggregate_counts)."""
    if rolled_up is None:
        _, rolled_up = aggregate_counts(acc)
    out: dict[str, dict[str, Any]] = {}
    counts = acc.counts  # built from the flat tally once, not once per field
    for f in acc.plan.fields:
        block: dict[str, Any] = count_block(counts[f.index])
        if f.index in rolled_up:
            block["aggregate"] = count_block(rolled_up[f.index])
        n = acc.field_score_n[f.index]
        if n:
            block["mean_score"] = acc.field_score_sum[f.index] / n
        block["weight"] = f.weight
        block["threshold"] = f.deciding_threshold
        block["comparator"] = f.comparator_name or f.kind.value
        block["schema_violations"] = sum(acc.violations.get(f.path, {}).values())
        out[f.path] = block
    return out


def overall_metrics(acc: Accumulator, document: list[int] | None = None) -> dict[str, Any]:
    """The run's figures; ``document``: the leaf roll-up of the whole document, when the caller has it
    (aggregate_counts)."""
    block: dict[str, Any] = count_block(acc.overall)
    block["aggregate"] = count_block(aggregate_counts(acc)[0] if document is None else document)
    block["weighted_overall_score"] = acc.score_sum / acc.document_count if acc.document_count else 0.0
    return block


def schema_conformance(acc: Accumulator) -> dict[str, Any]:
    """What an extraction team watches first: how many predictions are there, parse, and obey the schema.

    The rates are shares of the predictions due, one per ground-truth document and one per prediction read
    without a ground truth (= predictions read + missing predictions): a missing prediction is neither valid
    JSON nor schema-valid, so a run does not read 1.000 on 60 predictions for 90 documents. ``coverage`` is the
    share of ground-truth documents paired with a prediction line. All come from the record counts, which add
    up across workers and merged states, so a merge gives one run's figures."""
    stats = acc.stats
    read, documents, paired = stats["pred_lines"], stats["gt_lines"], stats["paired"]
    due = read + stats["missing_predictions"]
    valid_json = read - stats["invalid_predictions"]
    return {
        "predictions_read": read,
        "predictions_due": due,
        "valid_json": valid_json,
        "valid_json_rate": valid_json / due if due else None,
        "checked": acc.schema_checked,
        "schema_valid": acc.schema_valid,
        "schema_valid_rate": acc.schema_valid / due if due else None,
        "violations": sum(n for counts in acc.violations.values() for n in counts.values()),
        "ground_truth_documents": documents,
        "paired": paired,
        "coverage": paired / documents if documents else None,
    }


def _confidence_block(evaluation: Evaluation, options: ReportOptions) -> dict[str, Any] | None:
    acc = evaluation.accumulator
    field, match, value, similarity, count = acc.confidences.columns()
    chosen = options.confidence_metrics
    return confidence_metrics(
        [f.path for f in evaluation.plan.fields],
        field,
        match,
        value,
        similarity,
        acc.predicted_leaves,
        None if chosen is None else list(chosen),
        count,
    )


def add_intervals(report: dict[str, Any], evaluation: Evaluation, options: ReportOptions) -> None:
    """``<figure>_ci`` = {low, high, level} beside the weighted score, the run's precision, recall, recall
    with FD and F1, and each field's precision, recall, recall with FD, F1 and mean score (None where some
    resample has nothing to measure); every one from the same resamples of documents."""
    from .statistics import document_rows, intervals

    acc, level = evaluation.accumulator, options.ci_level
    found = intervals(
        document_rows(acc.documents, acc.size), acc.size, level, options.bootstrap, options.seed, acc.top_level
    )

    def block(pair: tuple[float, float] | None) -> dict[str, float] | None:
        return None if pair is None else {"low": pair[0], "high": pair[1], "level": level}

    report["metrics"]["weighted_overall_score_ci"] = block(found["weighted_overall_score"])
    for name, pair in found["overall"].items():
        report["metrics"][f"{name}_ci"] = block(pair)
    for name, per_field in found["fields"].items():
        for f, pair in zip(evaluation.plan.fields, per_field):
            report["field_metrics"][f.path][f"{name}_ci"] = block(pair)
    report["bootstrap"] = {
        "level": level,
        "resamples": options.bootstrap,
        "seed": options.seed,
        "method": "percentile, documents resampled",
    }


def build_report(evaluation: Evaluation, options: ReportOptions = ReportOptions()) -> dict[str, Any]:
    """The report of ``evaluation`` under ``options`` (the defaults: the four built-in confidence metrics,
    COCO's IoU thresholds, no intervals)."""
    report = _report(evaluation, options)
    if options.ci_level is not None:
        add_intervals(report, evaluation, options)
    acc = evaluation.accumulator
    if acc.slices:
        from .slices import DEFAULT_LEVEL, analyse, unheld_paths

        paths = [f.path for f in acc.plan.fields]
        report["slices"] = analyse(
            acc.slices.state(), paths, acc.top_level, options.slice_fdr, options.ci_level or DEFAULT_LEVEL
        )
        report["warnings"] += unheld_paths(report["slices"], paths)
    if options.policy is not None:
        from . import policy

        report["policy"] = policy.build(acc, options.policy)
        report["warnings"] += policy.warnings(report["policy"], options.policy)
    return report


def _report(evaluation: Evaluation, options: ReportOptions) -> dict[str, Any]:
    acc = evaluation.accumulator
    plan = evaluation.plan
    document, rolled_up = aggregate_counts(acc)
    context = ReportContext(
        plan, acc.tally, options.iou_thresholds, options.box_rule, evaluation.inputs.get("judge_pairing", "full")
    )
    blocks = {
        "score_histogram": {"bins": HISTOGRAM_BINS, "counts": list(acc.score_histogram)},
        **acc.report_blocks(context),
    }
    placed = {key: blocks.pop(key) for key in REPORT_BLOCKS if key in blocks}
    return {
        "report_version": REPORT_VERSION,
        "tool": {"name": "stickler", "version": __version__},
        "schema": {
            "path": plan.source,
            "model_name": plan.model_name,
            "sha256": plan.sha256,
            **({"formats_asserted": True} if plan.assert_formats else {}),
        },
        "inputs": {**evaluation.inputs, "records": dict(acc.stats)},
        "document_count": acc.document_count,
        "metrics": overall_metrics(acc, document),
        "field_metrics": field_metrics(acc, rolled_up),
        "schema_conformance": schema_conformance(acc),
        "schema_violations": {path: dict(sorted(acc.violations[path].items())) for path in sorted(acc.violations)},
        "confidence_metrics": _confidence_block(evaluation, options),
        **placed,  # the analyses' blocks (and the score histogram, which has always stood among them)
        **blocks,
        "errors": list(acc.errors),
        "warnings": record_warnings(acc.stats),
        "elapsed_seconds": evaluation.elapsed_seconds,
    }
