"""The similarity bins of the threshold histograms: where each primitive field's compared pairs are counted.

The engine puts every compared pair of a primitive field in a bin (``Layout.flat``, ``Layout.flat_one``);
the threshold analysis (analyses/thresholds.py) reads the counts. The bins are fixed by the schema alone,
so that states of workers, Dask tasks and ``stickler merge`` add up bin by bin: edges at every multiple
of 0.01 from 0 to 1, plus the field's threshold t0 and the ends of its window t0 - 0.05, t0 + 0.05
(clipped to [0, 1], in decimal arithmetic on the threshold as written). Bin 0 holds similarities below 0
and NaN, the last bin those at 1.0 or above.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np

from ..plan import Kind

if TYPE_CHECKING:
    from ..plan import Plan

GRID = 100  # bins of 1/GRID = 0.01: thresholds in steps of 0.01 (and 0.05) are bin edges
WINDOW = Decimal("0.05")  # verdicts that flip when the threshold moves this far either way

KINDS = (Kind.PRIMITIVE, Kind.PRIMITIVE_LIST)
_GRID_EDGES = tuple(k / GRID for k in range(GRID + 1))  # k / 100 is the float a user writes as 0.kk


def window(threshold: float) -> tuple[float, float]:
    """(t0 - 0.05, t0 + 0.05) clipped to [0, 1], computed on the threshold's decimal spelling."""
    written = Decimal(repr(float(threshold)))
    return float(max(Decimal(0), written - WINDOW)), float(min(Decimal(1), written + WINDOW))


@functools.lru_cache(maxsize=1024)
def edges(threshold: float) -> tuple[float, ...]:
    """The bin edges of a field of this threshold: the 0.01 grid, the threshold and its window's ends."""
    low, high = window(threshold)
    return tuple(sorted({*_GRID_EDGES, float(threshold), low, high}))


@functools.lru_cache(maxsize=1024)
def _edge_array(threshold: float) -> np.ndarray:
    return np.array(edges(threshold))


class Layout:
    """Where each primitive field's bins sit in one flat array of counts (``offsets[i]``, -1: none)."""

    def __init__(self, plan: "Plan") -> None:
        offsets, field_edges, arrays = [], [], []
        size = 0
        for f in plan.fields:
            if f.kind in KINDS:
                e = edges(f.threshold)
                offsets.append(size)
                field_edges.append(e)
                arrays.append(_edge_array(f.threshold))
                size += len(e) + 1
            else:
                offsets.append(-1)
                field_edges.append(None)
                arrays.append(None)
        self.offsets: tuple[int, ...] = tuple(offsets)
        self.edges: tuple[tuple[float, ...] | None, ...] = tuple(field_edges)
        self.arrays = tuple(arrays)
        self.size = size

    def bins(self, index: int) -> int:
        """How many bins field ``index`` has (0: none)."""
        e = self.edges[index]
        return 0 if e is None else len(e) + 1

    def flat(self, index: int, similarities: np.ndarray) -> np.ndarray:
        """The flat bin of each similarity of field ``index`` (searchsorted: s >= edge exactly)."""
        at = np.searchsorted(self.arrays[index], similarities, side="right")
        nan = np.isnan(similarities)
        if nan.any():
            at[nan] = 0
        return at + self.offsets[index]

    def flat_one(self, index: int, similarity: Any) -> int:
        """``flat`` for one similarity (the per-document engine)."""
        s = float(similarity)
        return self.offsets[index] + (0 if s != s else bisect_right(self.edges[index], s))

    def split(self, counts: Any) -> list[list[int]]:
        """The flat counts as one list per field ([] for a field without bins): the state's shape."""
        counts = np.asarray(counts)
        return [[] if o < 0 else counts[o : o + len(e) + 1].tolist() for o, e in zip(self.offsets, self.edges)]


def verdict_bin(field_edges: tuple[float, ...], threshold: float) -> int:
    """The first bin of the TPs: bins from here on hold similarities at or above ``threshold``."""
    return field_edges.index(float(threshold)) + 1


# -- the figures of one field -------------------------------------------------------------------------
