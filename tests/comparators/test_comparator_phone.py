"""PhoneComparator: same number however written; the optional 'phone' extra."""

from __future__ import annotations

import sys

import pytest

from stickler_cli.comparators import ComparatorConfigError, build, lookup
from stickler_cli.comparators.base import MissingExtraError
from stickler_cli.comparators.phone import PhoneComparator

pytest.importorskip("phonenumbers")
PHONE = PhoneComparator()


@pytest.mark.parametrize(
    "gt, pred, expected",
    [
        ("206-555-0100", "(206) 555-0100", 1.0),
        ("+1-206-555-0100", "2065550100", 1.0),
        ("1 (206) 555-0100", "206.555.0100", 1.0),
        (2065550100, "206-555-0100", 1.0),
        ("206-555-0100", "206-555-0101", 0.0),
        ("206-555-0100 ext. 12", "206-555-0100 x12", 1.0),
        ("206-555-0100 ext. 12", "206-555-0100", 0.0),  # E.164 drops extensions; we do not
        ("N/A", "N/A", 1.0),  # neither is a number: identical text matches
        ("N/A", "unknown", 0.0),
        ("555-123-4567", "555-123-4567", 1.0),  # area code 555 is not valid: text equality
        ("555-123-4567", "(555) 123-4567", 0.0),
        ("0000000000", "0000000000", 1.0),
        ("206-555-0100", "N/A", 0.0),  # one side a number, the other not
        ("+44 20 7946 0018", "020 7946 0018", 0.0),  # read as a US number, the second is invalid
    ],
)
def test_us_region(gt, pred, expected):
    assert PHONE.similarity(gt, pred) == expected
    assert PHONE.similarity(pred, gt) == expected


def test_other_region():
    uk = build("PhoneComparator", {"region": "GB"})
    assert uk.similarity("+44 20 7946 0018", "020 7946 0018") == 1.0
    assert uk.similarity("020 7946 0018", "020 7946 0019") == 0.0
    assert uk.similarity("+1 206 555 0100", "(206) 555-0100") == 0.0  # national form read as British


def test_unknown_region_is_a_config_error_with_a_hint():
    with pytest.raises(ComparatorConfigError, match="United Kingdom is 'GB'"):
        build("phone", {"region": "UK"})
    with pytest.raises(ComparatorConfigError, match="unknown region 'usa'"):
        build("phone", {"region": "usa"})
    with pytest.raises(ComparatorConfigError, match="must be a string"):
        build("phone", {"region": 1})


def test_never_raises():
    assert PHONE.similarity(10**5000, 10**5000) == 0.0
    assert PHONE.similarity("9" * 10_000, "9" * 10_000) == 1.0  # too long to parse: text equality
    assert PHONE.similarity({"n": 1}, [1]) == 0.0


def test_missing_extra_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "phonenumbers", None)  # makes `import phonenumbers` fail
    with pytest.raises(MissingExtraError) as caught:
        PhoneComparator()
    error = caught.value
    assert isinstance(error, ImportError)
    assert error.extra == "phone" and error.comparator == "PhoneComparator"
    assert "PhoneComparator needs the optional extra" in str(error)
    assert str(error).endswith(
        ": pip install 'phonenumberslite>=8.13' (or, in the stickler clone, pip install '.[phone]')"
    )
    with pytest.raises(ComparatorConfigError, match=r"pip install '\.\[phone\]'"):
        build("phone")
    assert not PhoneComparator.available()


def test_registered_with_the_extra():
    assert lookup("phone") is PhoneComparator and lookup("PhoneComparator") is PhoneComparator
    assert PhoneComparator.extra == "phone" and PhoneComparator.available()
    assert PhoneComparator.default_threshold == 1.0
