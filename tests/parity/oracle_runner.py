#!/usr/bin/env python3
"""Oracle runner: evaluates JSONL ground truth vs predictions with stickler-eval.

Usage (with the oracle venv's python):
    oracle_runner.py SCHEMA.json GT.jsonl PRED.jsonl [--id-field NAME] [--per-document]

Prints one JSON object to stdout (keys sorted, floats unrounded):
    {"document_count", "metrics", "field_metrics", "confidence_metrics",
     "errors", "invalid_predictions", ["per_document"]}
With --per-document, each document's record holds compare_with's scores and its
recall with FD ({"overall", "fields": {top-level field: value}}).

"aggregate" is the library's leaf roll-up (the "aggregate" compare_with reports at every
node of its confusion matrix), summed over the documents: {"overall": counts of the
root, "fields": {dotted path: counts}} for every node the documents' matrices hold
(a leaf's is its own counts). It is taken from the compare_with call the bulk evaluator makes
itself (captured, not repeated); per document with --per-document.

"recall_with_fd" in "metrics" and in each field block is the library's own
recall with FD (MetricsHelper.calculate_derived_metrics with recall_with_fd=True,
what compare_with(recall_with_fd=True) reports as cm_recall) applied to the
bulk counts: the bulk evaluator sums the counts but computes only the
traditional recall itself.

Runner conventions (not library behaviour, see NOTES_BULK.md):
  * blank lines in either JSONL file are skipped;
  * pairing is by (non-blank) line order, or by the value of --id-field;
    a ground-truth doc with no prediction is evaluated against {};
    predictions with no ground-truth partner are ignored;
  * the --id-field key is removed from both sides before model construction
    unless it is a property of the schema (stickler counts every key that
    is not a schema property as a hallucinated field: +1 fa, +1 fp);
  * a prediction line that is not valid JSON, is not a JSON object, or that
    StructuredModel.from_json rejects is replaced by {} and listed in
    "invalid_predictions";
  * a ground-truth line that is invalid is a fatal error (exit status 2).
"""

import argparse
import json
import sys
import warnings

from stickler import StructuredModel
from stickler.structured_object_evaluator.bulk_structured_model_evaluator import (
    BulkStructuredModelEvaluator,
)
from stickler.structured_object_evaluator.models.metrics_helper import MetricsHelper
from stickler.structured_object_evaluator.models.confidence import (
    AUROCMetric,
    BrierScoreMetric,
    ECEMetric,
    ErrorCaptureAtBudgetMetric,
)

CM_KEYS = ("tp", "fa", "fd", "fp", "tn", "fn")
DERIVED_KEYS = ("cm_precision", "cm_recall", "cm_f1", "cm_accuracy")


def recall_with_fd(counts):
    """The library's recall with FD in the denominator, from one block of summed counts
    (a count the bulk evaluator never saw for a field is 0)."""
    block = {k: counts.get(k, 0) for k in CM_KEYS}
    return MetricsHelper().calculate_derived_metrics(block, recall_with_fd=True)["cm_recall"]


def aggregates(cm, into, path=""):
    """Add each node's "aggregate" counts of one document's confusion matrix to ``into``:
    {"overall": the root's, "fields": {dotted path: counts}} (leaves too: theirs are their own counts)."""
    node = cm.get("aggregate")
    if isinstance(node, dict):
        if path:
            target = into.setdefault("fields", {}).setdefault(path, dict.fromkeys(CM_KEYS, 0))
        else:
            target = into.setdefault("overall", dict.fromkeys(CM_KEYS, 0))
        for k in CM_KEYS:
            target[k] += node.get(k, 0)
    for name, sub in (cm.get("fields") or {}).items():
        if isinstance(sub, dict):
            aggregates(sub, into, f"{path}.{name}" if path else name)
    return into


def read_jsonl(path):
    """Return list of raw (non-blank) lines."""
    with open(path, "r", encoding="utf-8") as f:
        return [line for line in f if line.strip()]


def parse_obj(line):
    """Parse a JSON line; return dict or None if invalid / not an object."""
    try:
        obj = json.loads(line)
    except (ValueError, TypeError):
        return None
    return obj if isinstance(obj, dict) else None


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("schema")
    ap.add_argument("gt")
    ap.add_argument("pred")
    ap.add_argument("--id-field", default=None)
    ap.add_argument("--per-document", action="store_true")
    args = ap.parse_args(argv)

    with open(args.schema, "r", encoding="utf-8") as f:
        schema = json.load(f)
    Model = StructuredModel.from_json_schema(schema)
    schema_props = set((schema.get("properties") or {}).keys())
    strip_id = args.id_field is not None and args.id_field not in schema_props

    # ---- ground truth -------------------------------------------------
    gt_docs = []  # list of (doc_id, dict)
    for i, line in enumerate(read_jsonl(args.gt)):
        obj = parse_obj(line)
        if obj is None:
            sys.stderr.write(f"ground truth line {i} is not a JSON object\n")
            return 2
        if args.id_field is not None:
            if args.id_field not in obj:
                sys.stderr.write(f"ground truth line {i} lacks id field\n")
                return 2
            doc_id = str(obj[args.id_field])
        else:
            doc_id = str(i)
        gt_docs.append((doc_id, obj))

    # ---- predictions --------------------------------------------------
    pred_lines = read_jsonl(args.pred)
    pred_parsed = [parse_obj(line) for line in pred_lines]
    invalid = []
    if args.id_field is not None:
        by_id = {}
        for obj in pred_parsed:
            if obj is not None and args.id_field in obj:
                by_id.setdefault(str(obj[args.id_field]), obj)  # first wins
        preds = [by_id.get(doc_id) for doc_id, _ in gt_docs]
        for (doc_id, _), p in zip(gt_docs, preds):
            if p is None:
                invalid.append(doc_id)  # missing or unparseable
    else:
        preds = []
        for i, (doc_id, _) in enumerate(gt_docs):
            p = pred_parsed[i] if i < len(pred_parsed) else None
            if p is None:
                invalid.append(doc_id)
            preds.append(p)

    def strip(d):
        if strip_id and args.id_field in d:
            d = dict(d)
            del d[args.id_field]
        return d

    # ---- evaluation ---------------------------------------------------
    evaluator = BulkStructuredModelEvaluator(
        target_schema=Model,
        confidence_metrics=[
            AUROCMetric(),
            BrierScoreMetric(),
            ECEMetric(),  # n_bins=10
            ErrorCaptureAtBudgetMetric(),  # budgets 0.10/0.30/0.50
        ],
    )
    per_document = []
    captured = []  # compare_with's results: the bulk evaluator's own calls, seen as they return
    compare_with = Model.compare_with

    def capturing(self, *a, **k):
        result = compare_with(self, *a, **k)
        captured.append(result)
        return result

    Model.compare_with = capturing
    summed_aggregate = {"overall": dict.fromkeys(CM_KEYS, 0), "fields": {}}
    for (doc_id, gt_obj), pred_obj in zip(gt_docs, preds):
        try:
            gt_model = Model.from_json(strip(gt_obj))
        except Exception as e:  # noqa: BLE001
            sys.stderr.write(f"ground truth {doc_id} rejected: {e}\n")
            return 2
        pred_model = None
        if pred_obj is not None:
            try:
                pred_model = Model.from_json(strip(pred_obj))
            except Exception:  # noqa: BLE001
                if doc_id not in invalid:
                    invalid.append(doc_id)
        if pred_model is None:
            pred_model = Model.from_json({})
        captured.clear()
        evaluator.update(gt_model, pred_model, doc_id=doc_id)
        doc_aggregate = aggregates(captured[-1]["confusion_matrix"], {}) if captured else {}
        aggregates(captured[-1]["confusion_matrix"], summed_aggregate) if captured else None
        if args.per_document:
            r = gt_model.compare_with(pred_model, include_confusion_matrix=True, recall_with_fd=True)
            cm = r["confusion_matrix"]
            per_document.append(
                {
                    "doc_id": doc_id,
                    "aggregate": doc_aggregate,
                    "overall_score": r["overall_score"],
                    "field_scores": r["field_scores"],
                    # compare_with's own recall_with_fd=True recall (its cm_recall then), as it reports it
                    "recall_with_fd": {
                        "overall": cm["overall"]["derived"]["cm_recall"],
                        "fields": {
                            name: f["overall"]["derived"]["cm_recall"]
                            for name, f in cm["fields"].items()
                            if isinstance(f.get("overall"), dict) and "derived" in f["overall"]
                        },
                    },
                }
            )

    result = evaluator.compute()

    metrics = {}
    for k in CM_KEYS + DERIVED_KEYS + ("weighted_overall_score",):
        if k in result.metrics:
            metrics[k] = result.metrics[k]
    metrics["recall_with_fd"] = recall_with_fd(result.metrics)
    field_metrics = {}
    for path, fm in (result.field_metrics or {}).items():
        # keep every key the oracle provides (tp..fn, cm_*, mean_score if any)
        field_metrics[path] = {**fm, "recall_with_fd": recall_with_fd(fm)}

    out = {
        "document_count": result.document_count,
        "metrics": metrics,
        "field_metrics": field_metrics,
        "confidence_metrics": result.confidence_metrics,
        "errors": result.errors,
        "invalid_predictions": invalid,
        "aggregate": summed_aggregate,
    }
    if args.per_document:
        out["per_document"] = per_document
    sys.stdout.write(json.dumps(out, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.exit(main())
