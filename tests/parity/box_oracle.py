#!/usr/bin/env python3
"""Box mAP by stickler-eval (run with the oracle's python): the library's BBoxMAPAccumulator fed by
its BulkStructuredModelEvaluator, as a user of the library would.

Usage: box_oracle.py SCHEMA.json GT.jsonl PRED.jsonl [THRESHOLD ...]
Prints {"bbox_map_metrics": ..., "errors": ...} as JSON (threshold keys as strings).
"""

import json
import sys
import warnings

from stickler import StructuredModel
from stickler.structured_object_evaluator.bulk_structured_model_evaluator import BulkStructuredModelEvaluator
from stickler.structured_object_evaluator.models.bbox import BBoxMAPAccumulator


def main(argv):
    warnings.simplefilter("ignore")
    schema_path, gt_path, pred_path, *thresholds = argv
    with open(schema_path, encoding="utf-8") as f:
        model = StructuredModel.from_json_schema(json.load(f))
    kwargs = {"iou_thresholds": [float(t) for t in thresholds]} if thresholds else {}
    evaluator = BulkStructuredModelEvaluator(target_schema=model, accumulators=[BBoxMAPAccumulator(**kwargs)])
    with open(gt_path, encoding="utf-8") as g, open(pred_path, encoding="utf-8") as p:
        for k, (gt_line, pred_line) in enumerate(zip(g, p)):
            evaluator.update(
                model.from_json(json.loads(gt_line)), model.from_json(json.loads(pred_line)), doc_id=str(k)
            )
    result = evaluator.compute()
    print(
        json.dumps(
            {
                "bbox_map_metrics": result.accumulator_metrics.get("bbox_map_metrics"),
                "errors": [str(e) for e in result.errors],
            },
            default=str,
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
