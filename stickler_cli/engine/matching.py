"""Optimal one-to-one pairing of two lists (Hungarian algorithm, maximising similarity)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment


def assign(matrix: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """min(rows, cols) (row, col) pairs maximising the summed similarity.

    Every row or every column is paired, even at similarity 0: a poor pair is
    a false discovery, not a miss plus a false alarm.
    """
    if len(matrix) == 1 and len(matrix[0]) == 1:
        return [(0, 0)]
    rows, cols = linear_sum_assignment(np.asarray(matrix, dtype=float), maximize=True)
    return list(zip(rows.tolist(), cols.tolist()))
