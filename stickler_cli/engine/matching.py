"""Optimal one-to-one pairing of two lists (Hungarian algorithm, maximising similarity)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

# Weight of the tie-breaking objective: far below any real difference in summed
# similarity, so it only chooses among pairings whose similarity totals are equal.
TIE_BREAK = 1e-9


def assign(
    matrix: Sequence[Sequence[float]], tie_break: Sequence[Sequence[float]] | None = None
) -> list[tuple[int, int]]:
    """min(rows, cols) (row, col) pairs maximising the summed similarity.

    Every row or every column is paired, even at similarity 0: a poor pair is
    a false discovery, not a miss plus a false alarm. Among pairings with the
    same total, the one with the highest ``tie_break`` total wins, so that the
    order of the items never changes the outcome (docs/parity.md, "Tied pairings").
    """
    if len(matrix) == 1 and len(matrix[0]) == 1:
        return [(0, 0)]
    from scipy.optimize import linear_sum_assignment  # imported on first use: 0.4 s of start-up

    m = np.asarray(matrix, dtype=float)
    if tie_break is not None:
        m = m + TIE_BREAK * np.asarray(tie_break, dtype=float)
    rows, cols = linear_sum_assignment(m, maximize=True)
    return list(zip(rows.tolist(), cols.tolist()))
