"""Engine semantics on small cases; expected numbers by hand and from stickler-eval 1.0.0."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import stickler_cli as st
from stickler_cli.engine.result import FA, FD, FN, TN, TP


def plan_of(properties, **root):
    return st.compile_schema({"type": "object", "properties": properties, **root})


def counts(plan, result):
    return {f.path: result.counts[f.index] for f in plan.fields}


FLAT = plan_of(
    {
        "s": {"type": "string", "x-aws-stickler-clip-under-threshold": True},
        "sc": {"type": "string"},
        "st": {"type": "string", "x-aws-stickler-threshold": 0.8},
        "n": {"type": "number"},
        "b": {"type": "boolean"},
        "i": {"type": "integer"},
    }
)


@pytest.mark.parametrize(
    "field, gt, pred, score, label",
    [
        ("s", "abcde", "abcdx", 0.8, TP),
        ("s", "abcde", "abxyz", 0.0, FD),  # clipped below threshold 0.5
        ("sc", "abcde", "abxyz", 0.4, FD),  # our default: not clipped
        ("s", "abcd", "abxy", 0.5, TP),  # >= threshold is a match
        ("st", "abcd", "abxy", 0.5, FD),
        ("s", "ABC ", "abc", 1.0, TP),  # Levenshtein normalises case and space
        ("s", None, "x", 0.0, FA),
        ("s", "", None, 1.0, TN),  # "" is null
        ("s", "   ", "x", 0.0, FD),  # whitespace is a value
        ("n", 0, None, 0.0, FN),
        ("n", None, 0, 0.0, FA),
        ("n", 0, 0, 1.0, TP),
        ("b", True, False, 0.0, FD),
        ("n", 1, 1.0000001, 0.0, FD),  # numeric default is exact equality
    ],
)
def test_primitive_classification(field, gt, pred, score, label):
    result = st.compare(FLAT, {field: gt}, {field: pred})
    assert result.field_scores[field] == pytest.approx(score)
    expected = [0, 0, 0, 0, 0]
    expected[label] = 1
    assert counts(FLAT, result)[field] == expected
    # the five other fields are null on both sides and score 1.0 each
    assert result.score == pytest.approx((5 + score) / 6)


LISTS = plan_of(
    {
        "t": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-clip-under-threshold": True},
        "tc": {"type": "array", "items": {"type": "string"}},
        "nums": {"type": "array", "items": {"type": "number"}},
    }
)


@pytest.mark.parametrize(
    "field, gt, pred, score, tp_fa_fd_fn_tn",
    [
        ("t", ["apple", "banana", "cherry"], ["cherry", "apple", "banana"], 1.0, [3, 0, 0, 0, 0]),
        ("t", ["apple", "banana", "cherry"], ["apple", "banana"], 2 / 3, [2, 0, 0, 1, 0]),
        ("t", ["apple", "banana"], ["apple", "banana", "cherry"], 2 / 3, [2, 1, 0, 0, 0]),
        ("t", ["apple", "banana", "cherry"], ["appel", "banan", "xyz"], (0.6 + 5 / 6) / 3, [2, 0, 1, 0, 0]),
        ("t", ["abcde", "vwxyz"], ["abcdq", "qqqqq", "rrrrr"], 0.8 / 3, [1, 1, 1, 0, 0]),
        ("tc", ["abcde", "fghij"], ["abxyz", "fghij"], 0.7, [1, 0, 1, 0, 0]),
        ("t", [], [], 1.0, [0, 0, 0, 0, 1]),
        ("t", None, ["a", "b"], 0.0, [0, 2, 0, 0, 0]),
        ("t", ["a", "b"], [], 0.0, [0, 0, 0, 2, 0]),
        ("t", ["a", "a"], ["a"], 0.5, [1, 0, 0, 1, 0]),
        ("nums", [1, 2, 3], [1.0, 2.0, 4], 2 / 3, [2, 0, 1, 0, 0]),
    ],
)
def test_primitive_lists(field, gt, pred, score, tp_fa_fd_fn_tn):
    result = st.compare(LISTS, {field: gt}, {field: pred})
    assert result.field_scores[field] == pytest.approx(score)
    assert counts(LISTS, result)[field] == tp_fa_fd_fn_tn


ADDRESS = plan_of(
    {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "addr": {
            "type": "object",
            "x-aws-stickler-weight": 2,
            "x-aws-stickler-clip-under-threshold": True,
            "properties": {
                "street": {"type": "string", "x-aws-stickler-weight": 3},
                "city": {"type": "string", "x-aws-stickler-threshold": 0.9},
                "zip": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                "note": {"type": "string"},
            },
        },
    }
)


def test_nested_object_similarity_and_counts():
    gt = {"id": "A", "addr": {"street": "123 Main Street", "city": "Springfield", "zip": "12345"}}
    pred = {"id": "A", "addr": {"street": "123 Main St", "city": "Springfeld", "zip": "12346"}}
    result = st.compare(ADDRESS, gt, pred)
    c = counts(ADDRESS, result)
    # addr similarity = (3*(1-4/15) + 1*(1-1/11) + 1*0) / 5, note (null on both sides) left out
    sim = (3 * (1 - 4 / 15) + (1 - 1 / 11) + 0) / 5
    assert sim == pytest.approx(0.621818, abs=1e-6)
    assert c["addr"] == [0, 0, 1, 0, 0]  # below 0.7: FD
    assert result.field_scores["addr"] == 0.0  # clipped
    assert c["addr.street"] == [1, 0, 0, 0, 0]
    assert c["addr.city"] == [1, 0, 0, 0, 0]
    assert c["addr.zip"] == [0, 0, 1, 0, 0]
    assert c["addr.note"] == [0, 0, 0, 0, 1]
    assert result.score == pytest.approx(1 / 3)


def test_missing_object_gives_no_child_counts():
    result = st.compare(ADDRESS, {"id": "A", "addr": {"street": "x"}}, {"id": "A"})
    c = counts(ADDRESS, result)
    assert c["addr"] == [0, 0, 0, 1, 0]
    assert all(c[p] == [0, 0, 0, 0, 0] for p in ("addr.street", "addr.city", "addr.zip", "addr.note"))


ITEMS = plan_of(
    {
        "id": {"type": "string"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "x-aws-stickler-threshold": 0.8},
                    "code": {
                        "type": "string",
                        "x-aws-stickler-comparator": "ExactComparator",
                        "x-aws-stickler-weight": 2,
                    },
                    "opt": {"type": "string"},
                },
            },
        },
    }
)
A, B, C = {"name": "alpha", "code": "A1"}, {"name": "bravo", "code": "B2"}, {"name": "charlie", "code": "C3"}


@pytest.mark.parametrize(
    "gt, pred, score, list_counts, name_counts",
    [
        ([A, B, C], [C, A, B], 1.0, [3, 0, 0, 0, 0], [3, 0, 0, 0, 0]),
        ([A, B], [{"name": "alpha", "code": "ZZ"}, B], 0.75, [1, 0, 1, 0, 0], [1, 0, 0, 0, 0]),
        ([A, B, C], [B, A], 2 / 3, [2, 0, 0, 1, 0], [2, 0, 0, 0, 0]),
        ([A], [{"name": "zzzzz", "code": "Q"}], 0.25, [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]),
        ([], [A, B], 0.0, [0, 2, 0, 0, 0], [0, 0, 0, 0, 0]),
        ([], None, 1.0, [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]),
    ],
)
def test_object_lists(gt, pred, score, list_counts, name_counts):
    result = st.compare(ITEMS, {"id": "x", "items": gt}, {"id": "x", "items": pred})
    c = counts(ITEMS, result)
    assert result.field_scores["items"] == pytest.approx(score)
    assert c["items"] == list_counts
    assert c["items.name"] == name_counts  # only pairs at or above the match threshold are descended into


def test_rich_values_are_unwrapped_and_confidences_kept():
    result = st.compare(
        FLAT,
        {"s": "abcde", "n": 3},
        {"s": {"_value": "abcde", "_confidence": 0.9}, "n": {"_value": 4, "_confidence": 0.2}},
    )
    assert result.field_scores["s"] == 1.0 and result.field_scores["n"] == 0.0
    pairs = sorted((FLAT.fields[p.field_index].path, p.is_match, p.confidence) for p in result.confidences)
    assert pairs == [("n", False, 0.2), ("s", True, 0.9)]


def test_properties_not_in_schema_are_not_scored():
    result = st.compare(FLAT, {"s": "a", "extra": 1}, {"s": "a", "extra": 2, "other": "x"})
    assert result.score == 1.0
    assert sum(sum(c) for c in result.counts) == 6  # one count per schema field


# -- properties --------------------------------------------------------------------------

words = hs.text(alphabet="abcdefgh ", min_size=0, max_size=8)
item = hs.fixed_dictionaries({"name": words, "code": hs.sampled_from(["A1", "B2", "C3", ""])})


@settings(max_examples=150, deadline=None)
@given(hs.lists(item, max_size=5), hs.text(alphabet="xyz", max_size=4))
def test_identical_documents_score_one_without_errors(items, ident):
    doc = {"id": ident, "items": items}
    result = st.compare(ITEMS, doc, doc)
    assert result.score == pytest.approx(1.0)
    for c in result.counts:
        assert c[FA] == c[FD] == c[FN] == 0


@settings(max_examples=150, deadline=None)
@given(hs.lists(item, max_size=5), hs.lists(item, max_size=5), hs.randoms(use_true_random=False))
def test_list_order_never_changes_the_score(gt_items, pred_items, rnd):
    shuffled = list(pred_items)
    rnd.shuffle(shuffled)
    a = st.compare(ITEMS, {"items": gt_items}, {"items": pred_items})
    b = st.compare(ITEMS, {"items": gt_items}, {"items": shuffled})
    assert a.field_scores["items"] == pytest.approx(b.field_scores["items"], abs=1e-9)
