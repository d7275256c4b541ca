import pytest

from stickler_cli.comparators import build

pytestmark = pytest.mark.oracle


def test_levenshtein_agrees(oracle):
    pairs = [("kitten", "sitting"), ("", ""), ("abc", "abc"), ("Hello", "hello")]
    ours = build("LevenshteinComparator")
    theirs = oracle.scores("LevenshteinComparator", pairs)
    assert [ours.similarity(a, b) for a, b in pairs] == pytest.approx(theirs, abs=1e-9)
