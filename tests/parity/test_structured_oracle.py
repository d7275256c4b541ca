"""StructuredModelComparator on plain JSON values equals stickler-eval's."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stickler_cli.comparators import build

pytestmark = pytest.mark.oracle

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@settings(deadline=None, max_examples=40)
@given(st.lists(st.tuples(JSON, JSON).filter(lambda p: p[0] is not None and p[1] is not None), min_size=1, max_size=20))
def test_equality_semantics_match(oracle, pairs):
    pairs += [(a, a) for a, _ in pairs]  # equal pairs too, not only random ones
    ours = build("StructuredModelComparator")
    assert [ours.similarity(a, b) for a, b in pairs] == oracle.scores("StructuredModelComparator", pairs)
