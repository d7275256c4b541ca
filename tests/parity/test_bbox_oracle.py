"""BBoxIoUComparator against stickler-eval 1.0.0's, to 1e-9.

Deviations, asserted explicitly: where the oracle raises (OverflowError on an
integer coordinate beyond the float range) we score 0.0, and where its areas
overflow (coordinates near 1e308; it answers NaN or 0.0) we compute the IoU on
rescaled coordinates.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from stickler_cli.comparators import build

pytestmark = pytest.mark.oracle

TRICKY = [
    [[0, 0], [10, 10]],
    [0, 0, 10, 10],
    [10, 10, 0, 0],
    [[10, 0], [0, 10]],
    [5, 5, 15, 15],
    [0, 0, 5, 5],
    [[5, 5], [10, 10]],
    [[5, 5], [5, 5]],
    [0, 0, 10, 0],
    [2, 2, 4, 4],
    [0.5, 0.25, 3.75, 9.5],
    [-3, -3, 3, 3],
    [True, False, 3, 3],
    [[True, True], [False, False]],
    [["0", "0"], ["10", "10"]],
    [[" 1_0 ", "0"], ["0", "10"]],
    ["0", "0", "10", "10"],
    [0, 0, math.nan, 10],
    [0, 0, math.inf, 10],
    [["0", "0"], ["nan", "1"]],
    [["0", "0"], ["inf", "1"]],
    {"x1": 0, "y1": 0, "x2": 10, "y2": 10},
    [0, 0, 10],
    [0, 0, 10, 10, 1],
    [[0, 0], [10]],
    [[0, 0, 0], [10, 10]],
    [0, 0, None, 10],
    [[0, 0], [None, 10]],
    [[0, 0], [[1], 1]],
    "0,0,10,10",
    10,
    "",
    [],
    [[0, 0], [10, 10], [1, 1]],
    [[0, 0], "ab"],
    ["ab", "cd"],
    [1e-300, 0, 2e-300, 1],
    [0, 0, 1e150, 1e150],
    [0, 0, 1, 1e-5],
]


def _assert_agree(oracle: Any, pairs: list[tuple[Any, Any]]) -> None:
    ours = build("BBoxIoUComparator")
    theirs = oracle.scores("BBoxIoUComparator", pairs)
    problems = [
        (gt, pred, ours.similarity(gt, pred), expected)
        for (gt, pred), expected in zip(pairs, theirs)
        if isinstance(expected, dict) or abs(ours.similarity(gt, pred) - expected) > 1e-9
    ]
    assert not problems, f"(gt, pred, ours, oracle) {problems[:10]}"


def test_tricky_boxes_every_pair(oracle: Any) -> None:
    _assert_agree(oracle, list(itertools.product(TRICKY, TRICKY)))


def test_matrix_agrees_too(oracle: Any) -> None:
    ours = build("BBoxIoUComparator").similarity_matrix(TRICKY, TRICKY)
    theirs = oracle.scores("BBoxIoUComparator", list(itertools.product(TRICKY, TRICKY)))
    flat = [score for row in ours for score in row]
    assert flat == pytest.approx(theirs, abs=1e-9)


def test_deviation_integer_beyond_float_range_scores_zero_instead_of_raising(oracle: Any) -> None:
    ours = build("BBoxIoUComparator")
    for box in ([10**400, 0, 1, 1], [[10**400, 0], [1, 1]]):
        theirs = oracle.score("BBoxIoUComparator", box, [0, 0, 1, 1])
        assert theirs["error"].startswith("OverflowError")
        assert ours.similarity(box, [0, 0, 1, 1]) == 0.0


def test_deviation_overflowing_areas_are_rescaled(oracle: Any) -> None:
    ours = build("BBoxIoUComparator")
    huge = [-1e308, -1e308, 1e308, 1e308]
    assert math.isnan(oracle.score("BBoxIoUComparator", huge, huge))
    assert ours.similarity(huge, huge) == 1.0
    wide = [0, 0, 1.7e308, 1.7e308]
    assert oracle.score("BBoxIoUComparator", wide, [0, 0, 1.7e308, 1.0]) == 0.0
    assert ours.similarity(wide, [0, 0, 1.7e308, 1.0]) == pytest.approx(1 / 1.7e308, rel=1e-9)


# Coordinates stay well inside the float range: the overflow deviation is tested above.
small = hs.integers(-20, 20) | hs.floats(min_value=-20, max_value=20).map(lambda x: round(x, 1))
number = small | hs.floats(min_value=-1e100, max_value=1e100, allow_nan=False)
odd = hs.sampled_from([math.nan, math.inf, -math.inf, "3", "x", "nan", True, False, None, [], {}])
coordinate = number | odd
flat = hs.lists(number, min_size=4, max_size=4)
corners = hs.tuples(number, number, number, number).map(lambda c: [[c[0], c[1]], [c[2], c[3]]])
box = (
    flat
    | corners
    | hs.lists(coordinate, min_size=3, max_size=5)
    | hs.lists(hs.lists(coordinate, min_size=1, max_size=3), min_size=1, max_size=3)
    | hs.dictionaries(hs.sampled_from(["x1", "y1", "x2", "y2"]), number)
)


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=hs.lists(hs.tuples(box, box), min_size=1, max_size=40))
def test_generated_boxes(oracle: Any, pairs: list[tuple[Any, Any]]) -> None:
    _assert_agree(oracle, pairs)


@settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(
    boxes=hs.lists(
        hs.lists(small, min_size=4, max_size=4)
        | hs.tuples(small, small, small, small).map(lambda c: [[c[0], c[1]], [c[2], c[3]]]),
        min_size=2,
        max_size=8,
    )
)
def test_generated_overlapping_boxes(oracle: Any, boxes: list[Any]) -> None:
    # Boxes from one small pool overlap often, so IoU is exercised away from 0.
    _assert_agree(oracle, list(itertools.product(boxes, boxes)))
