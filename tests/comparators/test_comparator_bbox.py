"""BBoxIoUComparator: worked IoU values, accepted box shapes, and what scores 0.0."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from stickler_cli.comparators import build, lookup
from stickler_cli.comparators.bbox import BBoxIoUComparator, parse_box

IOU = BBoxIoUComparator()


@pytest.mark.parametrize(
    "gt, pred, expected",
    [
        ([[0, 0], [10, 10]], [[0, 0], [10, 10]], 1.0),
        ([0, 0, 10, 10], [5, 0, 15, 10], 50 / 150),  # half of each box overlaps
        ([[0, 0], [10, 10]], [5, 5, 15, 15], 25 / 175),
        ([0, 0, 10, 10], [2, 2, 4, 4], 4 / 100),  # one box inside the other
        ([0, 0, 4, 2], [0, 0, 2, 4], 4 / 12),
        ([[0, 0], [5, 5]], [[5, 5], [10, 10]], 0.0),  # touching corners share no area
        ([0, 0, 1, 1], [2, 2, 3, 3], 0.0),
        ([0.5, 0.5, 1.5, 1.5], [1, 1, 2, 2], 0.25 / 1.75),
        ([-10, -10, 0, 0], [-5, -5, 5, 5], 25 / 175),
    ],
)
def test_worked_values(gt, pred, expected):
    assert IOU.similarity(gt, pred) == pytest.approx(expected, abs=1e-12)
    assert IOU.similarity(pred, gt) == pytest.approx(expected, abs=1e-12)


def test_shapes_and_corner_order_do_not_matter():
    assert IOU.similarity([0, 0, 10, 10], [[0, 0], [10, 10]]) == 1.0
    assert IOU.similarity([10, 10, 0, 0], [0, 0, 10, 10]) == 1.0
    assert IOU.similarity([[10, 0], [0, 10]], [0, 0, 10, 10]) == 1.0
    assert IOU.similarity(((0, 0), (10, 10)), (0, 0, 10, 10)) == 1.0  # tuples from the Python API


def test_zero_area_boxes_score_zero_even_against_themselves():
    # stickler-eval's documented behaviour: a point has no area to intersect.
    assert IOU.similarity([[5, 5], [5, 5]], [[5, 5], [5, 5]]) == 0.0
    assert IOU.similarity([0, 0, 10, 0], [0, 0, 10, 0]) == 0.0
    assert IOU.similarity([0, 0, 10, 0], [0, 0, 10, 10]) == 0.0


@pytest.mark.parametrize(
    "box",
    [
        [0, 0, math.nan, 10],
        [0, 0, math.inf, 10],
        [-math.inf, 0, 1, 1],
        [[0, 0], [math.nan, 1]],
        [["0", "0"], ["nan", "1"]],
        [["0", "0"], ["1e999", "1"]],
        {"x1": 0, "y1": 0, "x2": 10, "y2": 10},
        [0, 0, 10],
        [0, 0, 10, 10, 10],
        [[0, 0], [10]],
        [[0, 0, 0], [10, 10]],
        ["0", "0", "10", "10"],
        [0, 0, None, 10],
        [[0, 0], [None, 10]],
        [[0, 0], [[1], 10]],
        "0,0,10,10",
        10,
        [],
        [[0, 0], [10, 10], [1, 1]],
        [10**400, 0, 1, 1],
        [[10**400, 0], [1, 1]],
    ],
)
def test_malformed_or_non_finite_boxes_score_zero(box):
    assert parse_box(box) is None
    assert IOU.similarity(box, [0, 0, 10, 10]) == 0.0
    assert IOU.similarity([0, 0, 10, 10], box) == 0.0


def test_corner_pairs_take_numeric_text_and_booleans_like_stickler_eval():
    # Corner pairs go through float(), so numeric strings work there (not in the flat form).
    assert IOU.similarity([["0", " 0 "], ["10", "1_0"]], [0, 0, 10, 10]) == 1.0
    assert IOU.similarity([True, False, 2, 2], [1, 0, 2, 2]) == 1.0


def test_coordinates_near_the_float_limit_still_score():
    huge = [-1e308, -1e308, 1e308, 1e308]
    assert IOU.similarity(huge, huge) == 1.0  # stickler-eval: nan (areas overflow)
    assert IOU.similarity(huge, [0, 0, 1e308, 1e308]) == pytest.approx(0.25)
    assert IOU.similarity([0, 0, 1.7e308, 1.7e308], [0, 0, 1.7e308, 1.0]) == pytest.approx(1 / 1.7e308, rel=1e-9)


finite = hs.floats(min_value=-1e6, max_value=1e6, allow_nan=False) | hs.integers(-1000, 1000)
coordinate = finite | hs.sampled_from([math.nan, math.inf, -math.inf, "5", True, None, 1e308, -1e308])
boxes = (
    hs.lists(finite, min_size=4, max_size=4)
    | hs.tuples(hs.tuples(finite, finite), hs.tuples(finite, finite)).map(lambda t: [list(t[0]), list(t[1])])
    | hs.lists(coordinate, min_size=3, max_size=5)
    | hs.lists(hs.lists(coordinate, min_size=1, max_size=3), min_size=1, max_size=3)
)


@settings(deadline=None, max_examples=300)
@given(gt=boxes, pred=boxes)
def test_scores_stay_in_range_symmetric_and_never_raise(gt, pred):
    score = IOU.similarity(gt, pred)
    assert 0.0 <= score <= 1.0
    assert score == IOU.similarity(pred, gt)


@settings(deadline=None, max_examples=100)
@given(gts=hs.lists(boxes, max_size=6), preds=hs.lists(boxes, max_size=6))
def test_matrix_equals_pairwise_scores_exactly(gts, preds):
    assert IOU.similarity_matrix(gts, preds) == [[IOU.similarity(g, p) for p in preds] for g in gts]


def test_registered_as_a_whole_value_comparator():
    assert lookup("bbox") is BBoxIoUComparator and lookup("BBoxIoUComparator") is BBoxIoUComparator
    assert BBoxIoUComparator.whole_value and BBoxIoUComparator.default_threshold == 0.5
    assert build("iou").similarity([0, 0, 2, 2], [0, 0, 2, 1]) == 0.5
    with pytest.raises(ValueError, match="takes no option"):
        build("bbox", {"threshold": 0.5})
