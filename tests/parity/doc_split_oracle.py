"""Run under the oracle's python (stickler-eval 1.0.0 with pandas, its `docsplit` extra): the
library's doc_split figures for the packets read as JSON on stdin, as JSON on stdout.

Input: {"packets": [{"gt": [sections], "pred": [sections], "rows": [page rows]}], "weights": [{...}],
"csv": [paths]}. Output: per packet, the classical figures and evaluate_packet's per weights; per
CSV path, evaluate_packet(path) per weights.
"""

import json
import logging
import sys
import warnings

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

from stickler.doc_split import DocSplitClassificationMetrics, evaluate_packet  # noqa: E402


def graded(data, weights):
    out = []
    for w in weights:
        r = evaluate_packet(
            data,
            v_measure_weight=w["v_measure_weight"],
            alpha=w["alpha"],
            beta=w["beta"],
            strict_clustering=w["strict"],
        )
        out.append(
            {
                k: float(r[k])
                for k in ("final_score", "clustering_score", "v_measure", "rand_index", "avg_ordering_score")
            }
        )
    return out


def main():
    request = json.load(sys.stdin)
    packets = []
    for p in request["packets"]:
        m = DocSplitClassificationMetrics()
        m.load_sections(p["gt"], p["pred"])
        r = m.calculate_all_metrics()
        packets.append(
            {
                "page_accuracy": r["page_level_accuracy"]["accuracy"],
                "split_accuracy_without_order": r["split_accuracy_without_order"]["accuracy"],
                "split_accuracy_with_order": r["split_accuracy_with_order"]["accuracy"],
                "graded": graded(p["rows"], request["weights"]),
            }
        )
    tables = [graded(path, request["weights"]) for path in request.get("csv", [])]
    json.dump({"packets": packets, "csv": tables}, sys.stdout)


main()
