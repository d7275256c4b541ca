"""Find documents whose list pairing is ambiguous (docs/parity.md: "Tied pairings").

When two pairings of a list have exactly the same total similarity, which one
wins is an accident of the solver: stickler-eval inherits the scan order of the
``munkres`` package, we use scipy's solver. Such documents are excluded from the
parity comparison, and counted. A tie is found by forbidding each chosen pair in
turn and solving again: if the best total stays the same, another optimal
pairing exists.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

import numpy as np
from scipy.optimize import linear_sum_assignment

import stickler_cli.engine.compare as engine_compare
from stickler_cli.engine import Engine
from stickler_cli.plan import Plan

_TOL = 1e-12
# The engine methods that pair primitive lists (the probe tells list kinds apart by the caller).
PRIMITIVE_PAIRING = {"_primitive_list", "_primitive_pairs"}


def is_ambiguous(matrix, primitive: bool = False) -> bool:
    """Whether another pairing reaches the same total similarity and could score differently.

    For a primitive list whose similarities are all 0 or 1, every optimal pairing
    has the same number of 1s, hence the same counts and score: not ambiguous.
    (For object lists a pair's score is not its similarity, so this does not hold.)
    """
    m = np.asarray(matrix, dtype=float)
    if m.size <= 1:
        return False
    if primitive and np.all((m == 0) | (m == 1)):
        return False
    rows, cols = linear_sum_assignment(m, maximize=True)
    best = m[rows, cols].sum()
    for r, c in zip(rows, cols):
        blocked = m.copy()
        blocked[r, c] = -1e9
        r2, c2 = linear_sum_assignment(blocked, maximize=True)
        if abs(blocked[r2, c2].sum() - best) <= _TOL:
            return True
    return False


@contextmanager
def probe() -> Iterator[list[bool]]:
    """Within the block, every assignment the engine solves is checked for ties."""
    seen: list[bool] = []
    original = engine_compare.assign

    def checked(matrix, tie_break=None):
        caller = sys._getframe(1).f_code.co_name  # which list kind is being paired
        if is_ambiguous(matrix, primitive=caller in PRIMITIVE_PAIRING):
            seen.append(True)
        return original(matrix, tie_break)

    engine_compare.assign = checked
    try:
        yield seen
    finally:
        engine_compare.assign = original


def ambiguous_documents(plan: Plan, gts: list[dict], preds: list[dict]) -> set[int]:
    engine = Engine(plan)
    out: set[int] = set()
    for i, (gt, pred) in enumerate(zip(gts, preds)):
        with probe() as seen:
            engine.compare(gt, pred)
        if seen:
            out.add(i)
    return out
