"""ANLSStarComparator against stickler-eval 1.0.0's, to 1e-9.

Array items are paired as the oracle's munkres 3.0 pairs them, ties included,
so generated arrays here are small (its pure-Python solver), mid-sized (its
compiled solver, from 16 cells) and large (our vectorised path, from 400).

Deviations, asserted explicitly: the oracle's private "unscoreable" marker
text scores 0.0 there and like any text here; inputs over our work budget
score 0.0 here (the oracle computes them, slowly); an int too long for str()
makes the oracle raise, and scores 0.0 here.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from stickler_cli.comparators import anls as anls_module
from stickler_cli.comparators import build

pytestmark = pytest.mark.oracle

TRICKY = [
    "Hello World",
    "Hello Wrold",
    "hello  world",
    "How are you?",
    ["Hello", "World"],
    ["World", "Hello"],
    ["Hello"],
    {"a": "Hello", "b": "World"},
    {"b": "World", "a": "Hello"},
    {"a": "Hello"},
    {"a": "Hello", "c": "Great"},
    {"a": "Hello", "b": ["w", "r", "l", "d"]},
    {"a": "Hello", "b": ["w", "r", "d"]},
    0.2,
    0.199999,
    1,
    1.0,
    True,
    "true",
    "1",
    0,
    False,
    "false",
    [0, "false"],
    [False],
    [True, "1"],
    [1, "1"],
    "31.12.2023",
    "31. Dec 2023",
    {"a": None},
    {},
    [],
    {"a": []},
    {"a": ""},
    {"a": "x", "b": None},
    {"a": "x"},
    {"a": ["a", "b", "c"]},
    {"a": ["b", "c"]},
    {"a": "b"},
    [None, ""],
    [None],
    [[], {}],
    [{}, []],
    "",
    " ",
    [""],
    [[""]],
    {"vendor": "Acme Corporation", "total": "100.00"},
    {"vendor": "Acme Corp", "total": "100.00"},
    {"k1": 1, "k2": "mock", "line_items": [{"a": "b", "c": "d"}, {"e": "f"}]},
    {"k1": 1, "k2": "kcom", "line_items": [{"e": "f"}, {"a": "y", "c": "d"}]},
    {"x": {"y": {"z": ["p", "q", {"r": None}]}}},
    {"x": {"y": {"z": ["q", {"r": ""}, "p"]}}},
    1e16,
    "1e+16",
    float("inf"),
    "inf",
    -0.0,
    "0.0",
]
LEAF_THRESHOLDS = [0.5, 0.0, 0.3, 0.85, 1.0]


def _assert_agree(oracle: Any, pairs: list[tuple[Any, Any]], leaf_threshold: float = 0.5) -> None:
    ours = build("ANLSStarComparator", {"leaf_threshold": leaf_threshold})
    theirs = oracle.scores("ANLSStarComparator", pairs, leaf_threshold=leaf_threshold)
    problems = [
        (gt, pred, ours.similarity(gt, pred), expected)
        for (gt, pred), expected in zip(pairs, theirs)
        if isinstance(expected, dict) or abs(ours.similarity(gt, pred) - expected) > 1e-9
    ]
    assert not problems, f"leaf_threshold={leaf_threshold}: (gt, pred, ours, oracle) {problems[:5]}"


@pytest.mark.parametrize("leaf_threshold", LEAF_THRESHOLDS)
def test_tricky_values_every_pair(oracle: Any, leaf_threshold: float) -> None:
    _assert_agree(oracle, list(itertools.product(TRICKY, TRICKY)), leaf_threshold)


def test_deviation_unscoreable_marker_text(oracle: Any) -> None:
    marker = "\x00stickler:unscoreable\x00"
    assert oracle.score("ANLSStarComparator", marker, marker) == 0.0
    assert build("ANLSStarComparator").similarity(marker, marker) == 1.0


def test_deviation_over_the_work_budget(oracle: Any, monkeypatch: Any) -> None:
    wide = [[f"w{i}", f"v{i}"] for i in range(30)]
    assert oracle.score("ANLSStarComparator", wide, wide[::-1]) == 1.0
    assert build("ANLSStarComparator").similarity(wide, wide[::-1]) == 1.0
    monkeypatch.setattr(anls_module, "WORK_BUDGET", 1000)
    assert build("ANLSStarComparator").similarity(wide, wide[::-1]) == 0.0


def test_deviation_int_too_long_for_text(oracle: Any) -> None:
    script = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from stickler.comparators import ANLSStarComparator as C\n"
        "try:\n    C().compare([10**5000], [10**5000])\nexcept ValueError:\n    print('raised')"
    )
    run = subprocess.run([os.environ["STICKLER_ORACLE_PYTHON"], "-c", script], capture_output=True, text=True)
    assert run.stdout.strip() == "raised"
    assert build("ANLSStarComparator").similarity([10**5000], [10**5000]) == 0.0


# Few distinct leaves, so equal and near-equal items (and tied pairings) are common.
leaves = (
    hs.sampled_from(["", " ", "a", "b", "ab", "abc", "Hello", "hello", "helo", "x y", "1", "1.0", "true", "false"])
    | hs.text(alphabet="abcAB 1.", max_size=5)
    | hs.sampled_from([0, 1, 2, 1.0, 0.5, True, False, None])
)
json_values = hs.recursive(
    leaves,
    lambda inner: hs.lists(inner, max_size=6) | hs.dictionaries(hs.sampled_from("abcde"), inner, max_size=4),
    max_leaves=16,
)


@hs.composite
def edited(draw: Any, value: Any, depth: int = 0) -> Any:
    """``value`` with some items dropped, added, shuffled or replaced."""
    if depth > 3 or draw(hs.integers(0, 9)) == 0:
        return draw(json_values)
    if isinstance(value, list):
        items = [draw(edited(v, depth + 1)) for v in value if draw(hs.integers(0, 4))]
        items += draw(hs.lists(leaves, max_size=2))
        return draw(hs.permutations(items)) if items else items
    if isinstance(value, dict):
        edited_dict = {k: draw(edited(v, depth + 1)) for k, v in value.items() if draw(hs.integers(0, 4))}
        edited_dict.update(draw(hs.dictionaries(hs.sampled_from("abcdef"), leaves, max_size=2)))
        return edited_dict
    return value if draw(hs.booleans()) else draw(leaves)


@hs.composite
def value_pairs(draw: Any) -> tuple[Any, Any]:
    gt = draw(json_values.filter(lambda v: v is not None))
    pred = draw(edited(gt) | json_values)
    return gt, (pred if pred is not None else "")


@settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=hs.lists(value_pairs(), min_size=1, max_size=25), leaf_threshold=hs.sampled_from(LEAF_THRESHOLDS))
def test_generated_values(oracle: Any, pairs: list[tuple[Any, Any]], leaf_threshold: float) -> None:
    _assert_agree(oracle, pairs, leaf_threshold)


item = hs.sampled_from(["a", "b", "ab", "abc", "ba", "Hello", "hello", "helo", "1", "1.0", 1, True, None, ""])
record = hs.dictionaries(hs.sampled_from("abc"), item, max_size=3)


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(gt=hs.lists(item | record, min_size=4, max_size=14), data=hs.data())
def test_generated_mid_sized_arrays(oracle: Any, gt: list[Any], data: Any) -> None:
    """4..14 items a side: 16 cells and more go through munkres' compiled solver."""
    pred = data.draw(hs.permutations(gt)).copy()
    for index in data.draw(hs.lists(hs.integers(0, len(pred) - 1), max_size=4)):
        pred[index] = data.draw(item | record)
    pred = pred[: data.draw(hs.integers(len(pred) - 3, len(pred)))] + data.draw(hs.lists(item, max_size=3))
    _assert_agree(oracle, [(gt, pred), (pred, gt), ({"items": gt, "n": len(gt)}, {"items": pred, "n": len(pred)})])


@settings(deadline=None, max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(gt=hs.lists(item, min_size=20, max_size=40), data=hs.data())
def test_generated_large_arrays_of_scalars(oracle: Any, gt: list[Any], data: Any) -> None:
    """400 cells and more: our vectorised leaf scoring and pairing."""
    pred = data.draw(hs.permutations(gt)).copy()
    for index in data.draw(hs.lists(hs.integers(0, len(pred) - 1), max_size=10)):
        pred[index] = data.draw(item)
    pred = pred[: data.draw(hs.integers(len(pred) - 5, len(pred)))] + data.draw(hs.lists(item, max_size=5))
    _assert_agree(oracle, [(gt, pred), (pred, gt)])
