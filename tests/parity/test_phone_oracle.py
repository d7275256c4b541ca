"""PhoneComparator against stickler-eval 1.0.0's, exactly (scores are 0.0 or 1.0).

Both use libphonenumber (phonenumberslite 9.0.x in the oracle's venv and ours).
One deviation, asserted explicitly: an int too long for str() makes the oracle
raise ValueError; we score 0.0.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from stickler_cli.comparators import build

pytestmark = pytest.mark.oracle

REGIONS = ["US", "GB", "DE", "IN", "FR", "BR", "JP", "CA"]

TRICKY = [
    "206-555-0100",
    "(206) 555-0100",
    "+1-206-555-0100",
    "1 206 555 0100",
    "2065550100",
    "+12065550100",
    "206.555.0100",
    "206-555-0101",
    "206-555-0100 ext. 12",
    "206-555-0100 x12",
    "206-555-0100 ext 13",
    "555-123-4567",
    "(555) 123-4567",
    "0000000000",
    "1234567",
    "1111111111",
    "N/A",
    "unknown",
    "",
    " ",
    "+44 20 7946 0018",
    "020 7946 0018",
    "+49 30 901820",
    "030 901820",
    "+91 98765 43210",
    "98765 43210",
    "+33 1 42 68 53 00",
    "01 42 68 53 00",
    "+55 11 91234-5678",
    "+81 3-1234-5678",
    "tel:+1-206-555-0100",
    "+1 (206) 555-0100;ext=12",
    "２０６-５５５-０１００",
    "206-555-O100",
    "+",
    "++1 206 555 0100",
    "9" * 300,
    2065550100,
    12065550100,
    2065550100.0,
    True,
    [2065550100],
    {"n": "206-555-0100"},
]


def _assert_agree(oracle: Any, pairs: list[tuple[Any, Any]], region: str) -> None:
    ours = build("PhoneComparator", {"region": region})
    theirs = oracle.scores("PhoneComparator", pairs, region=region)
    problems = [
        (gt, pred, ours.similarity(gt, pred), expected)
        for (gt, pred), expected in zip(pairs, theirs)
        if ours.similarity(gt, pred) != expected
    ]
    assert not problems, f"region={region}: (gt, pred, ours, oracle) {problems[:10]}"


@pytest.mark.parametrize("region", ["US", "GB", "DE"])
def test_tricky_values_every_pair(oracle: Any, region: str) -> None:
    _assert_agree(oracle, list(itertools.product(TRICKY, TRICKY)), region)


def test_unknown_regions_are_refused_by_both(oracle: Any) -> None:
    for region in ("UK", "us", "XX", ""):
        with pytest.raises(RuntimeError, match="Unknown region"):
            oracle.scores("PhoneComparator", [("1", "1")], region=region)
        with pytest.raises(ValueError, match="unknown region"):
            build("PhoneComparator", {"region": region})


def test_deviation_int_too_long_for_text(oracle: Any) -> None:
    script = (
        "from stickler.comparators import PhoneComparator as C\n"
        "try:\n    C().compare(10**5000, 10**5000)\nexcept ValueError:\n    print('raised')"
    )
    run = subprocess.run([os.environ["STICKLER_ORACLE_PYTHON"], "-c", script], capture_output=True, text=True)
    assert run.stdout.strip() == "raised"
    assert build("PhoneComparator").similarity(10**5000, 10**5000) == 0.0


digits = hs.text(alphabet="0123456789", min_size=4, max_size=12)
separator = hs.sampled_from(["", " ", "-", ".", "  "])


@hs.composite
def written(draw: Any) -> str:
    """A digit string written with an optional +country code, grouping, brackets and extension."""
    number = draw(digits)
    cuts = sorted(draw(hs.lists(hs.integers(1, len(number) - 1), max_size=3, unique=True)))
    parts = [number[i:j] for i, j in zip([0, *cuts], [*cuts, len(number)])]
    if draw(hs.booleans()) and len(parts) > 1:
        parts[0] = f"({parts[0]})"
    text = draw(separator).join(parts)
    prefix = draw(hs.sampled_from(["", "+1 ", "+44 ", "+49 ", "+91 ", "1-", "0", "+"]))
    suffix = draw(hs.sampled_from(["", " ext. 12", " x7", ";ext=3"]))
    return prefix + text + suffix


@hs.composite
def phone_pairs(draw: Any) -> tuple[Any, Any]:
    gt = draw(written() | hs.text(max_size=8) | hs.integers(0, 10**12))
    # Half the time the prediction is the same digits written differently.
    if isinstance(gt, str) and draw(hs.booleans()):
        kept = "".join(ch for ch in gt if ch.isdigit() or ch == "+")
        pred = draw(hs.sampled_from([kept, f"({kept[:3]}) {kept[3:]}", kept.replace("+1", ""), gt.upper()]))
    else:
        pred = draw(written() | hs.text(max_size=8) | hs.integers(0, 10**12))
    return gt, pred


@settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=hs.lists(phone_pairs(), min_size=1, max_size=30), region=hs.sampled_from(REGIONS))
def test_generated_numbers(oracle: Any, pairs: list[tuple[Any, Any]], region: str) -> None:
    _assert_agree(oracle, pairs, region)
