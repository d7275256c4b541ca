"""The ``stickler split`` report: each packet scored, the figures added up over packets, gates.

Over a run, the exact-match figures are pooled: page accuracy is correct pages over every page
either side names, in all packets; split accuracy is reproduced ground-truth sections over all of
them. The graded figures (V-measure, Rand index, clustering, ordering, packet score) belong to one
packet's clustering, so a run reports their mean over packets. A packet whose prediction is
missing or unreadable is scored against an empty split (0.0 on each figure), and counted.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from typing import Any, Iterable

from . import gates as quality_gates
from ..errors import UsageError, suggest
from ..packets.metrics import Classification, Graded, Weights, classify, page_table, score_pages
from ..run.packets import PacketPair, Reading

# The run's figures, by the name --fail-under uses.
POOLED = ("page_accuracy", "split_accuracy_without_order", "split_accuracy_with_order")
MEANS = ("v_measure", "rand_index", "clustering_score", "ordering_score", "packet_score")
METRICS = POOLED + MEANS
WORST_KEPT = 5  # packets listed as the worst, by default (--worst N)
GATE_RANGE = (-1.0, 1.0)  # ordering and packet scores go below 0 (tau of a reversed document is -1)


def score_packet(pair: PacketPair, weights: Weights) -> tuple[Classification | None, Graded]:
    """One packet's exact-match figures (None for a page table, which holds no sections) and graded ones."""
    if pair.rows is not None:
        if weights.strict and not pair.has_classes:
            raise UsageError(
                f"--strict-clustering needs the classes of the pages: {pair.where.rsplit(':', 1)[0]} "
                "has no class_label and class_label_predicted columns"
            )
        return None, score_pages(pair.rows, weights)
    return classify(pair.gt, pair.pred), score_pages(page_table(pair.gt, pair.pred), weights)


def build(pairs: Iterable[PacketPair], reading: Reading, weights: Weights, worst: int = WORST_KEPT) -> dict[str, Any]:
    """Score every packet and add the figures up; the packets are read as they are scored."""
    sums = dict.fromkeys(MEANS, 0.0)
    counts = Counter[str]()
    confusion = Counter[tuple[Any, Any]]()
    kept: list[tuple[float, float, int, dict[str, Any]]] = []  # a max-heap (negated) of the worst packets
    packets = 0
    classified = False  # a page class was seen (JSON Lines, or a CSV with class columns)
    sectioned = False  # sections were read (JSON Lines)
    for seq, pair in enumerate(pairs):
        classes, graded = score_packet(pair, weights)
        packets += 1
        for name, value in zip(
            MEANS, (graded.v_measure, graded.rand_index, graded.clustering, graded.ordering, graded.packet_score)
        ):
            sums[name] += value
        if classes is None and pair.rows is not None and pair.has_classes:
            classes = _row_classes(pair)
        entry = _entry(pair, classes, graded)
        if classes is not None:
            classified = True
            counts["pages"] += classes.total_pages
            counts["correct_pages"] += classes.correct_pages
            confusion.update(classes.confusion)
            if pair.rows is None:
                sectioned = True
                counts["sections"] += classes.total_sections
                counts["sections_split_without_order"] += classes.split_without_order
                counts["sections_split_with_order"] += classes.split_with_order
        counts["table_pages"] += graded.pages
        if _perfect(entry):
            continue
        rank = (-graded.packet_score, -(entry["page_accuracy"] if entry["page_accuracy"] is not None else 1.0), -seq)
        if worst and (len(kept) < worst or rank > kept[0][:3]):
            item = (*rank, entry)
            if len(kept) < worst:
                heapq.heappush(kept, item)
            else:
                heapq.heapreplace(kept, item)
    metrics: dict[str, float | None] = {
        "page_accuracy": _share(counts["correct_pages"], counts["pages"]) if classified else None,
        "split_accuracy_without_order": _share(counts["sections_split_without_order"], counts["sections"])
        if sectioned
        else None,
        "split_accuracy_with_order": _share(counts["sections_split_with_order"], counts["sections"])
        if sectioned
        else None,
        **{name: (sums[name] / packets if packets else None) for name in MEANS},
    }
    return {
        "packet_count": packets,
        "metrics": metrics,
        "counts": dict(counts),
        "settings": {
            "alpha": weights.alpha,
            "beta": weights.beta,
            "v_measure_weight": weights.v_measure_weight,
            "strict_clustering": weights.strict,
        },
        "classes": _classes(confusion),
        "confusion": [
            {"ground_truth": g, "predicted": p, "pages": n}
            for (g, p), n in sorted(confusion.items(), key=lambda c: (-c[1], str(c[0][0]), str(c[0][1])))
        ],
        "worst_packets": [item[3] for item in sorted(kept, reverse=True)],
        "records": reading.counts(),
        "problems": reading.problems,
    }


def _perfect(entry: dict[str, Any]) -> bool:
    """Nothing to show among the worst packets: every figure at its best."""
    return (
        entry["packet_score"] >= 1.0
        and entry["page_accuracy"] in (None, 1.0)
        and entry["split_with_order"] == entry["sections"]
    )


def _row_classes(pair: PacketPair) -> Classification:
    """The page accuracy of a page table with classes: each row is one page, on both sides."""
    confusion = Counter((r.label, r.label_predicted) for r in pair.rows or ())
    correct = sum(n for (g, p), n in confusion.items() if g == p)
    return Classification(len(pair.rows or ()), correct, 0, 0, 0, dict(confusion))


def _entry(pair: PacketPair, classes: Classification | None, graded: Graded) -> dict[str, Any]:
    only_gt = only_pred = None
    if pair.rows is None and classes is not None:
        only_gt = sum(n for (g, p), n in classes.confusion.items() if p is None)
        only_pred = sum(n for (g, p), n in classes.confusion.items() if g is None)
    sectioned = pair.rows is None and classes is not None
    return {
        "packet_id": pair.packet_id,
        "where": pair.where,
        "pages": classes.total_pages if classes is not None else graded.pages,
        "page_accuracy": classes.page_accuracy if classes is not None else None,
        "sections": classes.total_sections if sectioned else None,
        "split_without_order": classes.split_without_order if sectioned else None,
        "split_with_order": classes.split_with_order if sectioned else None,
        "pages_missing": only_gt,
        "pages_extra": only_pred,
        "v_measure": graded.v_measure,
        "rand_index": graded.rand_index,
        "clustering_score": graded.clustering,
        "ordering_score": graded.ordering,
        "packet_score": graded.packet_score,
    }


def _classes(confusion: Counter) -> list[dict[str, Any]]:
    gt, pred, correct = Counter[Any](), Counter[Any](), Counter[Any]()
    for (g, p), n in confusion.items():
        if g is not None:
            gt[g] += n
        if p is not None:
            pred[p] += n
        if g is not None and g == p:
            correct[g] += n
    rows = []
    for name in sorted(gt.keys() | pred.keys()):
        precision, recall = _share(correct[name], pred[name]), _share(correct[name], gt[name])
        f1 = _share(2 * correct[name], gt[name] + pred[name])  # harmonic mean of the two; 0.0 when either is
        rows.append(
            {
                "class": name,
                "gt_pages": gt[name],
                "pred_pages": pred[name],
                "correct_pages": correct[name],
                "precision": precision,
                "recall": recall,
                "f1": f1,
            }
        )
    return rows


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def parse_gate(text: str) -> quality_gates.Gate:
    """``METRIC=VALUE`` for one of ``METRICS``, VALUE in [-1, 1]."""
    key, sep, value = text.rpartition("=")
    key = key.strip()
    if not sep or not key:
        raise UsageError(f"--fail-under {text!r}: expected METRIC=VALUE, e.g. packet_score=0.8")
    if key not in METRICS:
        raise UsageError(
            f"--fail-under {text!r}: unknown metric {key!r}{suggest(key, METRICS)}; known: {', '.join(METRICS)}"
        )
    try:
        threshold = float(value)
    except ValueError:
        raise UsageError(f"--fail-under {text!r}: {value.strip()!r} is not a number") from None
    low, high = GATE_RANGE
    if not (math.isfinite(threshold) and low <= threshold <= high):
        raise UsageError(f"--fail-under {text!r}: the threshold must be a number in [{low:g}, {high:g}]")
    return quality_gates.Gate(key, threshold, "--fail-under")


def check_gates(
    gates: list[quality_gates.Gate], report: dict[str, Any], no_data_passes: bool = False
) -> list[dict[str, Any]]:
    """One result per gate, in the shape ``stickler eval`` reports them (gates.result): a run that scored
    no packet fails every gate; a figure the input cannot give (split accuracy of a page table) fails for lack
    of data, or with ``no_data_passes`` is "no data"."""
    return [
        quality_gates.result(gate, None, report["metrics"][gate.key], not report["packet_count"], no_data_passes)
        for gate in gates
    ]
