"""The JSON Lines decoder (run/reader.decode): orjson, and Python's json module for the lines orjson refuses or
rounds (NaN, Infinity, numbers beyond float64, integers beyond 64 bits).

The reference is Python's json module, which reads integers exactly: every line must give the value (and the
types) json gives, and a line that is not JSON must get orjson's message.
"""

from __future__ import annotations

import json
import math

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stickler_cli.run.reader import decode, why_not_json


def _same(a: object, b: object) -> bool:
    """Equal as JSON values, types included (``1`` is not ``1.0``, ``True`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)  # type: ignore[index]
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))  # type: ignore[arg-type]
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)  # type: ignore[arg-type]
    return a == b


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**60), max_value=10**60)  # beyond 64 bits: read exactly, as json reads them
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.booleans())
def test_every_value_reads_as_the_json_module_reads_it(value: object, ascii_only: bool) -> None:
    line = json.dumps(value, ensure_ascii=ascii_only).encode()
    assert _same(decode(line), json.loads(line))


NUMBER_TEXTS = st.builds(
    lambda sign, whole, fraction, exponent: f"{sign}{whole}{fraction}{exponent}",
    st.sampled_from(["", "-"]),
    st.from_regex(r"0|[1-9][0-9]{0,40}", fullmatch=True),
    st.sampled_from([""]) | st.from_regex(r"\.[0-9]{1,40}", fullmatch=True),
    st.sampled_from([""]) | st.from_regex(r"[eE][+-]?[0-9]{1,3}", fullmatch=True),
)


@settings(max_examples=500, deadline=None)
@given(NUMBER_TEXTS)
def test_every_number_text_reads_as_the_json_module_reads_it(text: str) -> None:
    """Long integers exactly, floats correctly rounded, beyond float64 infinity (read by json), as before."""
    line = f'{{"n": {text}}}'.encode()
    assert _same(decode(line), json.loads(line))


def test_integers_beyond_64_bits_are_exact_and_beyond_4300_digits_refused() -> None:
    assert decode(b'{"id": 123456789012345678901234567890}') == {"id": 123456789012345678901234567890}
    assert decode(b"-18446744073709551617") == -18446744073709551617
    assert decode(b"1" * 4300) == int("1" * 4300)
    with pytest.raises(ValueError, match="an integer of more than 4,300 digits, more than Python reads"):
        decode(b"1" * 4301)


def test_nan_and_infinity_read_as_the_json_module_reads_them() -> None:
    value = decode(b'{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e400}')
    assert math.isnan(value["a"]) and value["b"] == math.inf and value["c"] == -math.inf and value["d"] == math.inf


@pytest.mark.parametrize(
    "line",
    [b"[1,]", b'{"a": 1,}', b"01", b"tru", b'{"a": 1} x', b"", b'"a\tb"', b'"\\ud800x"', b'"\xff"', b"\xef\xbb\xbf{}"],
)
def test_a_line_that_is_not_json_gets_orjsons_message(line: bytes) -> None:
    with pytest.raises(ValueError) as refused:
        decode(line)
    with pytest.raises(orjson.JSONDecodeError) as reference:
        orjson.loads(line)
    assert str(refused.value) == str(reference.value)
    assert why_not_json(refused.value, line) == why_not_json(reference.value, line)


def test_lone_surrogates_are_refused() -> None:
    with pytest.raises(ValueError, match="no low surrogate|lone surrogate"):
        decode(b'["\\ud800"]')
    with pytest.raises(ValueError, match="surrogate"):
        decode(b'["\\udc00"]')


def test_nesting_up_to_1024_levels_is_read_and_deeper_refused() -> None:
    """orjson reads up to 1,024 levels, as stickler always has; deeper is refused, and named so."""
    deep = b"[" * 1024 + b"]" * 1024
    value = decode(deep)
    for _ in range(1023):
        value = value[0]
    assert value == []
    deeper = b"[" * 1025 + b"]" * 1025
    with pytest.raises(ValueError) as refused:
        decode(deeper)
    assert why_not_json(refused.value, deeper) == "nested deeper than 1,024 levels"


def test_duplicate_keys_keep_the_last_value() -> None:
    assert decode(b'{"a": 1, "a": 2}') == {"a": 2}
