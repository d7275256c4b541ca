"""Localisation: COCO-style average precision of the boxes (``_bbox``) that values were found at.

Pure: records in, figures out, no I/O. The engine (``Engine.compare``) makes one ``BoxRecord``
(engine/boxes.py) per compared leaf that carries a box on either side; ``BoxStore`` keeps them as mergeable
state; ``localisation_block`` turns a store into the report's ``localisation`` block.

Definitions (docs/numbers.md, "Localisation: box mAP"; measured against stickler-eval 1.0.0's
``MAPCalculator``, docs/parity.md for where they differ):
- Per field path (list indices folded), every predicted box is a detection, ranked by the
  prediction's ``_confidence`` (1.0 when it gives none), highest first, ties in input order.
- Under the rule ``value-and-iou`` (default) a detection is a true positive at IoU threshold t
  when its value was matched (the field's verdict is TP) and IoU(pred box, gt box) >= t; under
  ``iou`` (the library's rule) the IoU alone decides. Every other detection is a false positive.
- The ground-truth boxes of the field are the recall denominator.
- AP at t: precision made non-increasing from the right (the envelope), read at the first
  rank whose recall reaches each of 101 recall points 0.00, 0.01, …, 1.00 (0 past the highest
  recall reached), averaged. None when the field has no ground-truth box.
- A field's ``ap`` is the mean of its AP over the thresholds; ``map`` the mean over thresholds
  of the mean over fields (fields with a ground-truth box); ``map_50``/``map_75`` at 0.50/0.75.
"""

from __future__ import annotations

import math
from array import array
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .. import limits
from ..errors import SticklerError, UsageError

# The records the engine makes, named here too for the analysis's readers.
from ..engine.boxes import ABSENT, BOX, NOT_A_BOX, REVERSED, BoxRecord  # noqa: F401
from .part import Collect, Part, ReportContext
from .state_check import bad, check_array, check_counts, check_numbers, check_object, is_number, shown

if TYPE_CHECKING:
    from ..engine.batch import BatchResult
    from ..engine.result import DocResult
    from ..plan import Plan

DEFAULT_IOU_THRESHOLDS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))  # COCO's 0.50:0.95
DEFAULT_THRESHOLDS_TEXT = "0.5:0.95:0.05"
RECALL_POINTS = tuple(round(0.01 * i, 2) for i in range(101))  # COCO's 101-point interpolation
RULES = ("value-and-iou", "iou")
MAX_THRESHOLDS = 100  # an --iou-thresholds range such as 0:1:1e-9 would be a billion APs per field

# Per-field counts kept by BoxStore, in this order.
COUNT_NAMES = ("gt_boxes", "pred_boxes", "gt_only", "pred_only", "not_a_box", "reversed")


def parse_thresholds(text: str) -> tuple[float, ...]:
    """``START:STOP:STEP`` (both ends included) or a comma-separated list, each in (0, 1]; sorted, distinct."""
    text = text.strip()
    try:
        if ":" in text:
            parts = [float(p) for p in text.split(":")]
            if len(parts) != 3:
                raise ValueError
            start, stop, step = parts
            if not (math.isfinite(step) and step > 0 and math.isfinite(start) and math.isfinite(stop)):
                raise ValueError
            count = math.floor((stop - start) / step + 1e-9) + 1
            if count > MAX_THRESHOLDS:
                raise UsageError(f"--iou-thresholds {text!r}: {count:,} thresholds, at most {MAX_THRESHOLDS}")
            # Rounded as the library writes its defaults (0.5 + 0.05 * 3 is 0.6500000000000001).
            values = [round(start + step * i, 10) for i in range(max(count, 0))]
        else:
            values = [float(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise UsageError(
            f"--iou-thresholds takes START:STOP:STEP (e.g. {DEFAULT_THRESHOLDS_TEXT}) or a list "
            f"(0.5,0.75), got {text!r}"
        ) from None
    if not values or len(values) > MAX_THRESHOLDS:
        raise UsageError(f"--iou-thresholds {text!r}: give from 1 to {MAX_THRESHOLDS} thresholds")
    bad = [v for v in values if not 0.0 < v <= 1.0]
    if bad:
        raise UsageError(f"--iou-thresholds {text!r}: each threshold must be above 0 and at most 1, got {bad[0]}")
    return tuple(sorted(set(values)))


def check_rule(rule: str) -> str:
    if rule not in RULES:
        raise UsageError(f"--box-found must be one of {', '.join(RULES)}, got {rule!r}")
    return rule


# -- average precision -----------------------------------------------------------------------------


def precision_envelope(hits: np.ndarray, num_gt: int) -> np.ndarray:
    """Interpolated precision at the 101 recall points of ranked detections (``hits[k]``: the k-th
    best is a true positive): COCO's curve, whose mean is the AP."""
    out = np.zeros(len(RECALL_POINTS))
    if not len(hits) or num_gt <= 0:
        return out
    tp = np.cumsum(hits, dtype=np.int64)
    ranks = np.arange(1, len(hits) + 1, dtype=np.int64)
    recall = tp / num_gt
    precision = np.maximum.accumulate((tp / ranks)[::-1])[::-1]
    at = np.searchsorted(recall, RECALL_POINTS, side="left")
    inside = at < len(hits)
    out[inside] = precision[at[inside]]
    return out


def average_precision(hits: np.ndarray, num_gt: int) -> float | None:
    """COCO 101-point AP of ranked detections; None without ground truth, 0.0 without detections."""
    if num_gt <= 0:
        return None
    return _mean(precision_envelope(hits, num_gt).tolist())


def _mean(values: Sequence[float]) -> float | None:
    """Added one after the other (the library's order of operations), then divided."""
    if not values:
        return None
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


# -- the records, kept --------------------------------------------------------------------------------


class BoxStore:
    """Per field the box counts, and every detection (a predicted box) in input order as columns.

    Detections are what AP ranks, so they are all kept (about 21 bytes each), up to ``bound``:
    past it the run stops with a message naming ``--limit box-detections``.
    """

    def __init__(self, size: int, bound: int) -> None:
        self.size = size
        self.bound = bound
        self.counts: list[list[int]] | None = None  # per field, COUNT_NAMES; None until a box is seen
        self.field = array("i")
        self.confidence = array("d")  # 1.0 where none was given
        self.iou = array("d")
        self.match = array("b")

    @property
    def seen(self) -> bool:
        return self.counts is not None

    def add(self, records: Sequence[BoxRecord]) -> None:
        if not records:
            return
        if self.counts is None:
            self.counts = [[0] * len(COUNT_NAMES) for _ in range(self.size)]
        for r in records:
            row = self.counts[r.field]
            row[0] += r.gt != ABSENT
            row[1] += r.pred != ABSENT
            row[2] += r.gt != ABSENT and r.pred == ABSENT
            row[3] += r.pred != ABSENT and r.gt == ABSENT
            row[4] += (r.gt == NOT_A_BOX) + (r.pred == NOT_A_BOX)
            row[5] += (r.gt == REVERSED) + (r.pred == REVERSED)
            if r.pred != ABSENT:
                self.field.append(r.field)
                self.confidence.append(1.0 if r.confidence is None else r.confidence)
                self.iou.append(r.iou)
                self.match.append(r.matched)
        self._check_bound()

    def _check_bound(self) -> None:
        if len(self.field) > self.bound:
            raise SticklerError(
                f"more than {self.bound:,} predicted boxes kept for localisation mAP: raise "
                f"--limit box-detections=N (about 21 bytes each)"
            )

    def state(self) -> dict[str, Any]:
        return {
            "counts": [list(row) for row in self.counts] if self.counts is not None else [],
            "field": self.field.tolist(),
            "confidence": self.confidence.tolist(),
            "iou": self.iou.tolist(),
            "match": [bool(m) for m in self.match],
        }

    def merge(self, state: dict[str, Any]) -> None:
        """Add a state's boxes after this store's (states come in input order)."""
        counts = state["counts"]
        if counts:
            if self.counts is None:
                self.counts = [[0] * len(COUNT_NAMES) for _ in range(self.size)]
            for row, more in zip(self.counts, counts):
                for k, n in enumerate(more):
                    row[k] += n
        self.field.extend(state["field"])
        self.confidence.extend(state["confidence"])
        self.iou.extend(state["iou"])
        self.match.extend(state["match"])
        self._check_bound()


# -- the report block ---------------------------------------------------------------------------------


def _field_figures(
    confidence: np.ndarray, iou: np.ndarray, match: np.ndarray, num_gt: int, thresholds: Sequence[float], rule: str
) -> tuple[dict[float, float | None], np.ndarray, int]:
    """(AP by threshold, the 0.50 curve, the detections that find a box at 0.50) of one field's detections, in
    input order."""
    order = np.argsort(-confidence, kind="stable")  # highest first, ties in input order
    ranked_iou, ranked_match = iou[order], match[order]

    def found(t: float) -> np.ndarray:
        """The ranked detections that find a box at IoU threshold ``t`` under ``rule``."""
        hits = ranked_iou >= t
        return hits & ranked_match if rule == "value-and-iou" else hits

    by_threshold = {t: average_precision(found(t), num_gt) for t in sorted({*thresholds, 0.5, 0.75})}
    at_half = found(0.5)
    return by_threshold, precision_envelope(at_half, num_gt), int(at_half.sum())


def localisation_block(
    paths: Sequence[str], store: BoxStore, thresholds: Sequence[float] = DEFAULT_IOU_THRESHOLDS, rule: str = RULES[0]
) -> dict[str, Any] | None:
    """The report's ``localisation`` block (None when no box was seen); ``paths[i]`` is field i's path."""
    if not store.seen:
        return None
    assert store.counts is not None
    field = np.frombuffer(store.field, dtype=np.int32) if len(store.field) else np.zeros(0, dtype=np.int32)
    confidence = np.asarray(store.confidence, dtype=float)
    iou = np.asarray(store.iou, dtype=float)
    match = np.asarray(store.match, dtype=bool)
    thresholds = tuple(sorted(thresholds))
    fields: dict[str, Any] = {}
    per_threshold: dict[float, list[float]] = {t: [] for t in {*thresholds, 0.5, 0.75}}
    notes: list[str] = []
    for index, row in enumerate(store.counts):
        if not any(row[:2]):
            continue
        mine = field == index
        num_gt = row[0]
        by_threshold, curve, found_50 = _field_figures(
            confidence[mine], iou[mine], match[mine], num_gt, thresholds, rule
        )
        for t, ap in by_threshold.items():
            if ap is not None:
                per_threshold[t].append(ap)
        detections = int(mine.sum())
        ious = iou[mine].tolist()
        counts = dict(zip(COUNT_NAMES, row))
        fields[paths[index]] = {
            "ap": _mean([a for t in thresholds if (a := by_threshold[t]) is not None]),
            "ap_50": by_threshold[0.5],
            "ap_75": by_threshold[0.75],
            "ap_by_threshold": {_key(t): by_threshold[t] for t in thresholds},
            "mean_iou": _mean(ious) if detections else None,
            "detections": detections,
            "true_positives_50": found_50,
            **counts,
            "pr_curve_50": [round(p, 6) for p in curve.tolist()] if num_gt else None,
        }
        if num_gt and not row[1]:
            notes.append(f"{paths[index]}: {num_gt:,} ground-truth boxes and no predicted box: AP 0")
        elif row[1] and not num_gt:
            notes.append(
                f"{paths[index]}: {row[1]:,} predicted boxes and no ground-truth box: no AP (left out of the means)"
            )
    means = {t: _mean(aps) for t, aps in per_threshold.items()}
    totals = [sum(row[k] for row in store.counts) for k in range(len(COUNT_NAMES))]
    return {
        "rule": rule,
        "iou_thresholds": list(thresholds),
        "map": _mean([m for t in thresholds if (m := means[t]) is not None]),
        "map_50": means[0.5],
        "map_75": means[0.75],
        "map_by_threshold": {_key(t): means[t] for t in thresholds},
        "fields_with_ground_truth": sum(1 for row in store.counts if row[0]),
        "boxes": dict(zip(COUNT_NAMES, totals)),
        "fields": fields,
        "notes": notes,
    }


def _key(t: float) -> str:
    """A threshold as a JSON key: 0.5 -> "0.50", 0.55 -> "0.55"."""
    text = f"{t:.2f}"
    return text if float(text) == t else repr(t)


# -- the part of the accumulated state (analyses/part.py) ----------------------------------------------------------


def new_store(plan: Plan, collect: Collect) -> BoxStore:
    return BoxStore(len(plan.fields), limits.current().box_detections)


def add_document(store: BoxStore, doc: DocResult, doc_id: Any) -> None:
    if doc.boxes:
        store.add(doc.boxes)


def add_batch(store: BoxStore, batch: BatchResult, doc_ids: Sequence[Any] | None) -> None:
    for d in sorted(batch.boxes):  # in input order
        store.add(batch.boxes[d])


def state_of(store: BoxStore, as_arrays: bool) -> dict[str, Any]:
    return {"boxes": store.state()}


def merge_state(store: BoxStore, state: dict[str, Any], offset: int) -> None:
    store.merge(state["boxes"])


def check_state(state: dict[str, Any], plan: Plan) -> None:
    """A state's ``boxes`` (BoxStore.state): per-field box counts, then the detections as columns of one length,
    each value of its type and range."""
    block, size = state["boxes"], len(plan.fields)
    columns = ("field", "confidence", "iou", "match")
    block = check_object(block, "/boxes", ("counts", *columns))
    counts = check_array(block["counts"], "/boxes/counts")
    if counts:
        check_array(counts, "/boxes/counts", size)
        for k, row in enumerate(counts):
            check_counts(row, f"/boxes/counts/{k}", len(COUNT_NAMES))
    length = len(check_array(block["field"], "/boxes/field"))
    for name in columns:
        check_array(block[name], f"/boxes/{name}", length)
    if length and not counts:
        raise bad("/boxes/counts", "must count the boxes of the detections listed")
    for k, v in enumerate(block["field"]):
        if type(v) is not int or not 0 <= v < size:
            raise bad(f"/boxes/field/{k}", f"must be a field index from 0 to {size - 1}, got {shown(v)}")
    if not all(is_number(v) and 0.0 <= v <= 1.0 for c in ("confidence", "iou") for v in block[c]):
        for name in ("confidence", "iou"):
            check_numbers(block[name], f"/boxes/{name}", None, 0.0, 1.0)
    for k, v in enumerate(block["match"]):
        if type(v) is not bool:
            raise bad(f"/boxes/match/{k}", f"must be true or false, got {shown(v)}")
    detections = [0] * size
    for v in block["field"]:
        detections[v] += 1
    for k, row in enumerate(counts):
        if row[1] != detections[k]:
            raise bad(
                f"/boxes/counts/{k}/1",
                f"must be the number of detections of field {k}, {detections[k]}, got {shown(row[1])}",
            )


def report_of(store: BoxStore, context: ReportContext) -> dict[str, Any]:
    """The report's ``localisation``, only when boxes were seen."""
    if not store.seen:
        return {}
    return {
        "localisation": localisation_block(
            [f.path for f in context.plan.fields],
            store,
            context.iou_thresholds or DEFAULT_IOU_THRESHOLDS,
            context.box_rule,
        )
    }


PART = Part("boxes", new_store, state_of, merge_state, check_state, add_document, add_batch, report_of)
