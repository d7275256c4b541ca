"""The assignment solver in Python gives scipy's pairs exactly, ties included (assignment.py); the engine
solves with scipy's own compiled function, loaded without the scipy.optimize package (scipy_lsap.py).

The pairs decide which item is matched with which, hence counts and scores, and the parity corpus
compares them with the reference library: "the same optimum" is not enough, the same tie-breaking
is. So the Python solver (whose steps the ANLS comparator takes) is compared with
scipy.optimize.linear_sum_assignment on matrices full of ties, square and rectangular both ways,
including the kind of matrices the engine builds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as scipy_assignment

from stickler_cli.engine import scipy_lsap
from stickler_cli.comparators.assignment import shortest_paths
from stickler_cli.engine import matching

ROOT = Path(__file__).resolve().parents[2]


def linear_sum_assignment(cost: list[list[float]]) -> list[tuple[int, int]]:
    """The (row, column) pairs of least total ``cost`` (finite values) by ``shortest_paths``, sorted by row;
    min(rows, columns) pairs: what ``scipy.optimize.linear_sum_assignment(cost)`` returns.

    As in scipy, a matrix with more rows than columns is solved transposed.
    """
    if not cost or not cost[0]:
        return []
    transposed = len(cost) > len(cost[0])
    if transposed:
        cost = [list(column) for column in zip(*cost)]
    n, m = len(cost), len(cost[0])
    col_of_row = [-1] * n
    shortest_paths(cost, [0.0] * n, [-1] * m, col_of_row)
    if transposed:  # rows of the solved matrix are columns: sort by the original row
        return sorted((r, c) for c, r in enumerate(col_of_row))
    return list(enumerate(col_of_row))


def _matrices(seed: int, count: int):
    """Similarity matrices up to 10 x 10: small integers, tenths, halves, constants (ties everywhere) and
    uniform values."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        rows, cols = (int(n) for n in rng.integers(1, 11, 2))
        kind = k % 5
        if kind == 0:
            yield rng.integers(0, 3, (rows, cols)).astype(float)
        elif kind == 1:
            yield np.round(rng.random((rows, cols)), 1)
        elif kind == 2:
            yield rng.integers(0, 3, (rows, cols)) / 2
        elif kind == 3:
            yield np.full((rows, cols), float(rng.integers(0, 2)))
        else:
            yield rng.random((rows, cols))


def _scipy(matrix: np.ndarray) -> list[tuple[int, int]]:
    rows, cols = scipy_assignment(matrix, maximize=True)
    return list(zip(rows.tolist(), cols.tolist()))


def test_the_python_solver_pairs_as_scipy_does():
    for matrix in _matrices(seed=17, count=20_000):
        assert linear_sum_assignment((-matrix).tolist()) == _scipy(matrix), matrix.tolist()


def test_the_matrices_the_engine_solves_pair_as_scipy_does():
    """assign() adds the tie-breaking objective (pairs clearing the threshold, then higher scores) first."""
    for matrix in _matrices(seed=18, count=10_000):
        tie_break = (matrix >= 0.5) + matrix
        with_ties = matrix + matching.TIE_BREAK * tie_break
        assert linear_sum_assignment((-with_ties).tolist()) == _scipy(with_ties), matrix.tolist()


def test_a_constant_matrix_pairs_in_order():
    """scipy's choice for the most tied matrix of all (scipy issue 11602): the identity."""
    assert linear_sum_assignment([[0.0] * 4] * 4) == [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert linear_sum_assignment([[0.0] * 2] * 3) == _scipy(np.zeros((3, 2))) == [(0, 0), (1, 1)]


def test_the_engine_solves_with_scipys_own_function():
    """scipy_lsap loads the compiled module scipy.optimize's function lives in: the very function, not a copy
    (scipy.optimize, imported above, reuses the module it finds registered)."""
    assert scipy_lsap.solver() is scipy_assignment
    assert matching.assign([[0.2, 0.9], [0.8, 0.1]]) == [(0, 1), (1, 0)]


SCORE_SMALL_LISTS = """
import sys
from stickler_cli import compile_schema, compare
from stickler_cli.engine import scipy_lsap
{setup}
plan = compile_schema({{"type": "object", "properties": {{"items": {{"type": "array", "items": {{
    "type": "object", "properties": {{"sku": {{"type": "string"}}, "qty": {{"type": "number"}}}}}}}}}}}})
gt = {{"items": [{{"sku": "A-1", "qty": 1}}, {{"sku": "B-2", "qty": 2}}, {{"sku": "C-3", "qty": 3}}]}}
pred = {{"items": [{{"sku": "C-3", "qty": 3}}, {{"sku": "A-1", "qty": 5}}, {{"sku": "B-2", "qty": 2}}]}}
result = compare(plan, gt, pred)
print(result.score, "scipy.optimize" in sys.modules, "scipy.optimize._lsap" in sys.modules)
"""

# scipy_lsap cannot find the compiled module's file (a scipy laid out otherwise): the usual import serves.
NOT_FOUND = "import importlib.util; importlib.util.find_spec = lambda name, package=None: None"


@pytest.mark.parametrize(
    "setup, package_imported",
    [("", False), ("import scipy.optimize", True), (NOT_FOUND, True)],
    ids=["loaded alone", "package imported first", "file not found"],
)
def test_scoring_a_list_pair_needs_no_scipy_optimize_package(setup, package_imported):
    """Same score every way; the ``scipy.optimize`` package (0.3-0.4 s to import) is imported only when it
    already was, or when its compiled solver cannot be loaded from its file."""
    done = subprocess.run(
        [sys.executable, "-c", SCORE_SMALL_LISTS.format(setup=setup)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    score, package, solver = done.stdout.split()
    assert (score, package, solver) == ("0.8333333333333334", str(package_imported), "True")
