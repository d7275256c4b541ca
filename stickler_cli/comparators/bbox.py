"""Bounding-box overlap: intersection over union of two axis-aligned boxes.

A box arrives as the whole JSON value of its field, in one of two shapes:
corner pairs ``[[x1, y1], [x2, y2]]`` or a flat ``[x1, y1, x2, y2]``. Corners
may come in either order. Anything else (objects, wrong lengths, text in the
flat form, NaN or infinite coordinates) is not a box and scores 0.0.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .base import Comparator

Box = tuple[float, float, float, float]


def _coordinate(value: Any) -> float | None:
    """A finite float, or None; corner pairs go through ``float()``, as stickler-eval's do."""
    if isinstance(value, (list, tuple, dict)) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def corners(value: Any) -> list[Any] | None:
    """The four raw coordinates of either accepted shape, or None."""
    if not isinstance(value, (list, tuple)):
        return None
    if len(value) == 2 and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        return [value[0][0], value[0][1], value[1][0], value[1][1]]
    if len(value) == 4 and all(isinstance(v, (int, float)) for v in value):
        # The flat form takes numbers only (bool counts, being an int).
        return list(value)
    return None


def parse_box(value: Any) -> Box | None:
    """``(left, top, right, bottom)`` with left <= right and top <= bottom, or None if not a box."""
    raw = corners(value)
    if raw is None:
        return None
    coords = [_coordinate(v) for v in raw]
    if any(c is None for c in coords):
        return None
    x1, y1, x2, y2 = coords  # type: ignore[misc]
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def _iou_unscaled(a: Box, b: Box) -> float:
    """IoU in stickler-eval's order of operations; NaN when an intermediate overflowed."""
    inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    union = area_a + area_b - inter
    if not (math.isfinite(area_a) and math.isfinite(area_b) and math.isfinite(union)):
        return math.nan
    return inter / union if union > 0 else 0.0


def box_iou(a: Box, b: Box) -> float:
    """IoU of two parsed boxes; a box without area overlaps nothing, even itself."""
    score = _iou_unscaled(a, b)
    if math.isnan(score):
        # Areas overflowed (coordinates near 1e308). IoU does not change with
        # scale, and scaling by a power of two is exact, so retry scaled down.
        shift = -math.frexp(max(abs(c) for c in (*a, *b)))[1]
        scaled_a = tuple(math.ldexp(c, shift) for c in a)
        scaled_b = tuple(math.ldexp(c, shift) for c in b)
        score = _iou_unscaled(scaled_a, scaled_b)  # type: ignore[arg-type]
        if math.isnan(score):
            return 0.0
    return min(max(score, 0.0), 1.0)


class BBoxIoUComparator(Comparator):
    name = "BBoxIoUComparator"
    aliases = ("bbox", "BBox", "bbox_iou", "BBoxIoU", "iou", "IoU")
    default_threshold = 0.5
    summary = "intersection over union of two bounding boxes ([[x1,y1],[x2,y2]] or [x1,y1,x2,y2])"
    whole_value = True

    def similarity(self, gt: Any, pred: Any) -> float:
        a, b = parse_box(gt), parse_box(pred)
        if a is None or b is None:
            return 0.0
        return box_iou(a, b)

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        if not gts or not preds:
            return [[] for _ in gts]
        a, a_ok = _box_array(gts)
        b, b_ok = _box_array(preds)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            # The operations of _iou_unscaled, elementwise, so results agree bit for bit.
            inter = np.maximum(
                0.0, np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
            ) * np.maximum(0.0, np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]))
            area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
            area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
            union = area_a[:, None] + area_b[None, :] - inter
            scores = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)
        both = a_ok[:, None] & b_ok[None, :]
        matrix = np.where(both, np.clip(scores, 0.0, 1.0), 0.0).tolist()
        overflowed = both & ~(np.isfinite(area_a)[:, None] & np.isfinite(area_b)[None, :] & np.isfinite(union))
        for i, j in zip(*np.nonzero(overflowed)):
            matrix[i][j] = self.similarity(gts[i], preds[j])
        return matrix


def _box_array(values: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Parsed boxes as an (n, 4) float array plus a mask of which values were boxes."""
    boxes = np.zeros((len(values), 4), dtype=np.float64)
    ok = np.zeros(len(values), dtype=bool)
    for i, value in enumerate(values):
        box = parse_box(value)
        if box is not None:
            boxes[i] = box
            ok[i] = True
    return boxes, ok
