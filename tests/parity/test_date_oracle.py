"""DateComparator against stickler-eval 1.0.0's, to 1e-9.

Where the oracle raises (OverflowError at the year 1/9999 edge, ValueError
for a UTC offset of 24 h or more) we score 0.0: the comparator contract
forbids raising. Those pairs are asserted explicitly below.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from stickler_cli.comparators import build
from tests.support.date_strategies import configs, value_pairs
from tests.comparators.test_comparator_date import CASES

pytestmark = pytest.mark.oracle

# Exceptions stickler-eval lets escape from compare(); we answer 0.0 instead.
ORACLE_RAISES = ("OverflowError", "ValueError: offset must be")

TRICKY = [
    "2024-01-15",
    "January 15, 2024",
    "15/01/2024",
    "01/15/2024",
    "01/02/2025",
    "02/01/2025",
    "2025-02-01",
    "2025-01-02",
    "Jan 2024",
    "2024-01-01",
    "Jan 1, 2024",
    "2024",
    "Oct 24",
    "10/24/16",
    "11/03",
    "11/03/2012",
    "Mar 11",
    "Feb 29",
    "Feb 29 2024",
    "12:30 PM",
    "2024-01-15T23:30:00-05:00",
    "2024-01-16T04:30:00Z",
    "2024-01-16",
    "2024-01-15T10:00:00",
    "2024-01-16T09:00:00",
    "2024-01-01 to 2024-01-10",
    "2024-01-05 to 2024-01-15",
    "2024-01-05",
    "Jan 1 - Jan 10",
    "Jan 5",
    "Dec 20 to Jan 5",
    "Dec 25",
    "Jan 3",
    "2023-12-20 through 2024-01-05",
    "2024-01-05 to 2024-01-05",
    "2024-01-10 to 2024-01-01",
    "- 10/24/16",
    "10/24/16 -",
    "Jan 2024 to Mar 2024",
    "Feb 2024",
    "2024-01-01T00:00Z to 2024-01-05",
    "Jan 5 10:00 UTC to Jan 7",
    "Jan 6",
    "N/A",
    "",
    20240115,
    2024,
    True,
    [2024],
    {"d": 1},
    "Tuesday Jan 2024",
    "Monday",
    "x" * 300,
    "9999-12-31T23:00:00-05:00",
    "9999-12-31",
    "2024-01-01 10:00+99:00",
    "10:00+99 2024",
]

CONFIGS = [
    {},
    {"dayfirst": True},
    {"dayfirst": False},
    {"allow_partial_year": True},
    {"allow_partial_year": True, "range_mode": "contains"},
    {"range_mode": "strict"},
    {"range_mode": "reject"},
    {"range_mode": "contains", "precision_mode": "overlap"},
    {"precision_mode": "gt_loose"},
    {"precision_mode": "overlap", "allow_partial_year": True},
    {"tolerance": 1},
    {"tolerance": 0.5},
    {"tolerance": 1.5, "dayfirst": True},
]


def _explained(error: str, got: float, gt: Any, pred: Any) -> bool:
    """Whether our answer to a pair the oracle raised on is the documented one."""
    if not error.startswith(ORACLE_RAISES):
        return False
    if got == 0.0:
        return True
    # The calendar-wheel walk past 9999-12-31 (see test_where_the_oracle_raises).
    return error.startswith("OverflowError") and "9999" in f"{gt}{pred}" and 0.0 <= got <= 1.0


def _assert_agree(oracle: Any, pairs: list[tuple[Any, Any]], config: dict[str, Any]) -> None:
    ours = build("DateComparator", config)
    theirs = oracle.scores("DateComparator", pairs, **config)
    problems = []
    for (gt, pred), expected in zip(pairs, theirs):
        got = ours.similarity(gt, pred)
        if isinstance(expected, dict):
            if not _explained(expected["error"], got, gt, pred):
                problems.append((gt, pred, got, expected))
        elif abs(got - expected) > 1e-9:
            problems.append((gt, pred, got, expected))
    assert not problems, f"config={config}: (gt, pred, ours, oracle) {problems[:10]}"


@pytest.mark.parametrize("config", CONFIGS, ids=repr)
def test_tricky_values_every_pair(oracle: Any, config: dict[str, Any]) -> None:
    _assert_agree(oracle, list(itertools.product(TRICKY, TRICKY)), config)


@settings(deadline=None, max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=hs.lists(value_pairs(), min_size=1, max_size=40), config=configs)
def test_generated_pairs(oracle: Any, pairs: list[tuple[Any, Any]], config: dict[str, Any]) -> None:
    _assert_agree(oracle, pairs, config)


def test_hand_worked_examples_are_the_oracles(oracle: Any) -> None:
    for config, gt, pred, expected in CASES:
        assert oracle.score("DateComparator", gt, pred, **config) == pytest.approx(expected, abs=1e-9), (
            config,
            gt,
            pred,
        )


@pytest.mark.parametrize(
    ("gt", "pred", "config", "raises", "ours"),
    [
        # astimezone(UTC) leaves datetime's range
        ("9999-12-31T23:00:00-05:00", "9999-12-31T23:00:00-05:00", {}, "OverflowError", 0.0),
        ("0001-01-01T01:00:00+05:00", "0001-01-01T01:00:00+05:00", {}, "OverflowError", 0.0),
        ("0001-01-01T01:00:00+05:00", "0001-01-01", {"range_mode": "strict"}, None, 1.0),
        # an offset of 24 h or more parses but cannot be converted to UTC
        ("2024-01-01 10:00+99:00", "2024-01-01 10:00+99:00", {}, "ValueError", 0.0),
        ("2024-01-01 10:00+99:00", "2024-01-01", {}, None, 1.0),
        # stickler-eval's calendar-wheel walk steps one day past 9999-12-31; ours
        # stops at the range's end and gives the honest partial-year credit
        ("Dec 30 to Dec 31", "9999-12-30 to 9999-12-31", {"allow_partial_year": True}, "OverflowError", 0.7),
    ],
)
def test_where_the_oracle_raises(
    oracle: Any, gt: str, pred: str, config: dict[str, Any], raises: str | None, ours: float
) -> None:
    theirs = oracle.score("DateComparator", gt, pred, **config)
    if raises is None:
        assert theirs == ours
    else:
        assert isinstance(theirs, dict) and theirs["error"].startswith(raises)
    assert build("DateComparator", config).similarity(gt, pred) == ours
