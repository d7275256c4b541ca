"""NormalizedComparator: binary equality after NFC, case folding and removing space/punctuation."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from stickler_cli.comparators import build, lookup
from stickler_cli.comparators.normalized import NormalizedComparator

DEFAULT = NormalizedComparator()


@pytest.mark.parametrize(
    "gt, pred, expected",
    [
        ("Hello, World!", "hello world", 1.0),
        ("SHP-2024-001", "shp 2024 001", 1.0),
        ("e\u0301cole", "\u00e9cole", 1.0),  # decomposed and precomposed accents agree (NFC)
        ("STRASSE", "straße", 1.0),  # full case folding
        ("«Bonjour»", "bonjour", 1.0),  # Unicode punctuation, not just ASCII
        ("¿Qué tal?", "qué tal", 1.0),
        ("a\u2013b", "ab", 1.0),  # en dash is punctuation (Pd)
        ("a\u00a0b\u3000c\n", "abc", 1.0),  # no-break and ideographic spaces are whitespace
        ("$5", "5", 0.0),  # symbols (Sc, Sm, So) are kept
        ("5%", "5", 1.0),  # but % is punctuation (Po) in Unicode
        ("5°", "5", 0.0),
        ("1+1", "11", 0.0),
        ("a\u0301", "a", 0.0),  # combining marks are kept
        ("hello", "help", 0.0),
        (1.0, "10", 1.0),  # str(1.0) is "1.0" and the dot is punctuation
        (True, "true", 1.0),
        ("", " .,!", 1.0),
    ],
)
def test_default_options(gt, pred, expected):
    assert DEFAULT.similarity(gt, pred) == expected
    assert DEFAULT.similarity(pred, gt) == expected


def test_each_option_can_be_turned_off():
    strict_case = build("NormalizedComparator", {"case_sensitive": True})
    assert strict_case.similarity("Hello", "hello") == 0.0
    assert strict_case.similarity("Hello,", "Hello") == 1.0
    assert strict_case.similarity("STRASSE", "straße") == 0.0
    keep_space = build("NormalizedComparator", {"ignore_whitespace": False})
    assert keep_space.similarity("a b", "ab") == 0.0
    assert keep_space.similarity("A b!", "a b") == 1.0
    keep_punct = build("NormalizedComparator", {"ignore_punctuation": False})
    assert keep_punct.similarity("a-b", "ab") == 0.0
    assert keep_punct.similarity("A - B", "a-b") == 1.0
    raw = build(
        "NormalizedComparator", {"case_sensitive": True, "ignore_whitespace": False, "ignore_punctuation": False}
    )
    assert raw.similarity("e\u0301", "\u00e9") == 1.0  # NFC still applies
    assert raw.similarity("a b", "a  b") == 0.0


def test_never_raises_on_values_without_text():
    assert DEFAULT.similarity(10**5000, 10**5000) == 0.0  # str() refuses ints this long
    assert DEFAULT.similarity({"a": 1}, {"a": 1}) == 1.0
    assert DEFAULT.similarity([1, 2], "12") == 1.0  # "[1, 2]" without brackets, comma, space


texts = hs.text(alphabet=hs.characters(codec="utf-8"), max_size=12) | hs.sampled_from(
    ["Hello, World!", "hello world", "e\u0301", "\u00e9", "ß", "SS", "a\u00a0b", "$5", "5"]
)


@settings(deadline=None, max_examples=200)
@given(
    gts=hs.lists(texts, max_size=5),
    preds=hs.lists(texts, max_size=5),
    flags=hs.tuples(hs.booleans(), hs.booleans(), hs.booleans()),
)
def test_matrix_equals_pairwise_and_scores_are_binary(gts, preds, flags):
    comparator = NormalizedComparator(**dict(zip(("case_sensitive", "ignore_whitespace", "ignore_punctuation"), flags)))
    matrix = comparator.similarity_matrix(gts, preds)
    assert matrix == [[comparator.similarity(g, p) for p in preds] for g in gts]
    assert set(itertools.chain.from_iterable(matrix)) <= {0.0, 1.0}


@settings(deadline=None, max_examples=300)
@given(
    text=hs.text(alphabet=hs.characters(max_codepoint=127), max_size=16),
    flags=hs.tuples(hs.booleans(), hs.booleans(), hs.booleans()),
)
def test_ascii_keys_are_the_unicode_rule(text, flags):
    """ASCII text takes a shortcut (bytes.translate): the same key as NFC, case folding and dropping
    str.isspace and Unicode P* characters one by one."""
    case_sensitive, whitespace, punctuation = flags
    comparator = NormalizedComparator(
        case_sensitive=case_sensitive, ignore_whitespace=whitespace, ignore_punctuation=punctuation
    )
    expected = unicodedata.normalize("NFC", text if case_sensitive else text.casefold())
    expected = "".join(
        ch
        for ch in expected
        if not (whitespace and ch.isspace()) and not (punctuation and unicodedata.category(ch).startswith("P"))
    )
    assert comparator.key(text) == expected


def test_registered_with_its_options():
    assert lookup("normalized") is NormalizedComparator
    assert NormalizedComparator.default_threshold == 1.0
    assert [p.name for p in NormalizedComparator.params] == [
        "case_sensitive",
        "ignore_whitespace",
        "ignore_punctuation",
    ]
    with pytest.raises(ValueError, match="must be a boolean"):
        build("normalized", {"case_sensitive": "yes"})
