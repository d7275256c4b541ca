#!/usr/bin/env python3
"""Times the reference library (stickler-eval) on a JSONL pair, the way a user would run it.

Run with the reference library's python (stdlib + stickler only):

    /work/oracle/venv/bin/python bench/oracle_bench.py SCHEMA.json GT.jsonl PRED.jsonl

The model class is built before the clock starts. Timed: reading both files line by line,
``Model.from_json`` per document, ``BulkStructuredModelEvaluator.update`` per pair (with the
four confidence metrics) and ``compute()``. Prints one JSON line:
{"documents", "seconds", "docs_per_second", "cpu_seconds", "docs_per_cpu_second", "max_rss_kb", "metrics": {tp, fa, fd, fn, tn,
weighted_overall_score}}.
"""

import contextlib
import json
import os
import resource
import sys
import time
import warnings


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: oracle_bench.py SCHEMA.json GT.jsonl PRED.jsonl\n")
        return 2
    schema_path, gt_path, pred_path = argv

    from stickler import StructuredModel
    from stickler.structured_object_evaluator.bulk_structured_model_evaluator import (
        BulkStructuredModelEvaluator,
    )
    from stickler.structured_object_evaluator.models.confidence import (
        AUROCMetric,
        BrierScoreMetric,
        ECEMetric,
        ErrorCaptureAtBudgetMetric,
    )

    with open(schema_path, "r", encoding="utf-8") as f:
        schema = json.load(f)
    Model = StructuredModel.from_json_schema(schema)

    # The library print()s notices to stdout (e.g. "[Warning] Large matrix for Hungarian
    # algorithm" on long lists): they go to /dev/null so that stdout is the one JSON line.
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        start = time.perf_counter()
        cpu_start = time.process_time()
        evaluator = BulkStructuredModelEvaluator(
            target_schema=Model,
            confidence_metrics=[
                AUROCMetric(),
                BrierScoreMetric(),
                ECEMetric(),
                ErrorCaptureAtBudgetMetric(),
            ],
        )
        n = 0
        with open(gt_path, "r", encoding="utf-8") as fg, open(pred_path, "r", encoding="utf-8") as fp:
            for gt_line, pred_line in zip(fg, fp):
                if not gt_line.strip():
                    continue
                gt_model = Model.from_json(json.loads(gt_line))
                pred_model = Model.from_json(json.loads(pred_line))
                evaluator.update(gt_model, pred_model, doc_id=str(n))
                n += 1
        result = evaluator.compute()
        seconds = time.perf_counter() - start
        cpu_seconds = time.process_time() - cpu_start

    metrics = {k: result.metrics.get(k) for k in ("tp", "fa", "fd", "fn", "tn", "weighted_overall_score")}
    out = {
        "documents": n,
        "seconds": seconds,
        "docs_per_second": n / seconds if seconds > 0 else None,
        "cpu_seconds": cpu_seconds,
        "docs_per_cpu_second": n / cpu_seconds if cpu_seconds > 0 else None,
        "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "metrics": metrics,
    }
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.exit(main(sys.argv[1:]))
