"""Several acceptable values (``{"_value": v, "_alternatives": [...]}``, docs/ground-truth.md): the
best one decides, at any depth and in list cells; batch and per-document paths agree; predictions listing
alternatives are record problems; --limit alternatives; the prefetch walk sees every acceptable value."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import stickler_cli as st
from stickler_cli import limits
from stickler_cli.engine.compare import Engine
from stickler_cli.engine.prefetch import collect, models_needed
from stickler_cli.engine.result import FD, FN, TN, TP, ConfidencePair, GroundTruthProblem

PLAN = st.compile_schema(
    {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "strict": {"type": "string", "x-aws-stickler-threshold": 0.8},
            "amount": {"type": "number"},
            "addr": {"type": "object", "properties": {"street": {"type": "string"}, "zip": {"type": "string"}}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "number"}}},
            },
        },
    }
)
ENGINE = Engine(PLAN)
INDEX = {f.path: f.index for f in PLAN.fields}


def counts(result, path):
    return result.counts[INDEX[path]]


def one(label):
    out = [0, 0, 0, 0, 0]
    out[label] = 1
    return out


def rows(result):
    return {row.path: row for row in result.trace}


# --- hand-worked examples ---------------------------------------------------------------------------------


def test_a_leaf_scores_its_best_acceptable_value():
    # Levenshtein: "abcd" vs "abxx" is 2 edits over 4 (0.5); "abcx" vs "abxx" 1 edit over 4 (0.75).
    gt = {"name": {"_value": "abcd", "_alternatives": ["abcx", "wxyz"]}}
    result = ENGINE.compare(gt, {"name": "abxx"}, explain=True)
    assert result.field_scores["name"] == 0.75
    assert counts(result, "name") == one(TP)
    assert rows(result)["name"].gt == "abcx" and rows(result)["name"].alternative == 0
    assert result.alternatives == [(INDEX["name"], True)]
    # "wxyz" alone matches: the second alternative decides
    result = ENGINE.compare(gt, {"name": "wxyz"}, explain=True)
    assert result.field_scores["name"] == 1.0 and rows(result)["name"].alternative == 1
    # a tie goes to _value: "abcy" is 0.75 from "abcd" and from "abcx"
    result = ENGINE.compare(gt, {"name": "abcy"}, explain=True)
    assert result.field_scores["name"] == 0.75
    assert rows(result)["name"].gt == "abcd" and rows(result)["name"].alternative is None
    assert result.alternatives == [(INDEX["name"], False)]
    # without a prediction every value scores 0: FN, decided by _value
    result = ENGINE.compare(gt, {}, explain=True)
    assert counts(result, "name") == one(FN) and result.alternatives == [(INDEX["name"], False)]


def test_a_null_value_or_alternative_is_acceptable_too():
    gt = {"name": {"_value": None, "_alternatives": ["abcd"]}}
    assert counts(ENGINE.compare(gt, {}), "name") == one(TN)  # null against null: 1.0
    result = ENGINE.compare(gt, {"name": "abcd"})
    assert counts(result, "name") == one(TP) and result.alternatives == [(INDEX["name"], True)]
    gt = {"name": {"_value": "abcd", "_alternatives": [None]}}
    assert counts(ENGINE.compare(gt, {}), "name") == one(TN)
    # "wxyz" is 0.0 from "abcd" (FD) and 0.0 from null (FA): a tie, which _value wins
    assert counts(ENGINE.compare(gt, {"name": "wxyz"}), "name") == one(FD)


def test_the_verdict_confidence_and_fd_values_follow_the_winner():
    # strict's threshold is 0.8: "wxyq" is 0.75 from "wxyz", "abcd" 0.0
    gt = {"strict": {"_value": "abcd", "_alternatives": ["wxyq"]}}
    result = ENGINE.compare(gt, {"strict": {"_value": "wxyz", "_confidence": 0.8}})
    assert counts(result, "strict") == one(FD)
    assert result.fd_values == [(INDEX["strict"], "wxyq", "wxyz")]
    assert result.confidences == [ConfidencePair(INDEX["strict"], False, 0.8, 0.75)]
    result = ENGINE.compare(gt, {"strict": {"_value": "wxyq", "_confidence": 0.8}})
    assert counts(result, "strict") == one(TP) and result.fd_values is None
    assert result.confidences == [ConfidencePair(INDEX["strict"], True, 0.8, 1.0)]
    # the same prediction against _value alone: FD with similarity 0.0
    plain = ENGINE.compare({"strict": "abcd"}, {"strict": {"_value": "wxyq", "_confidence": 0.8}})
    assert plain.confidences == [ConfidencePair(INDEX["strict"], False, 0.8, 0.0)]


def test_an_object_alternative_is_its_whole_subtree():
    gt = {
        "addr": {
            "_value": {"street": "Main St", "zip": "12345"},
            "_alternatives": [{"street": "Main Street", "zip": "12345"}],
        }
    }
    pred = {"addr": {"street": "Main Street", "zip": "12345"}}
    result = ENGINE.compare(gt, pred, explain=True)
    # "main st" vs "main street": 4 edits over 11 (0.636...); the alternative is identical: 1.0
    assert result.field_scores["addr"] == 1.0
    assert rows(result)["addr"].alternative == 0
    assert rows(result)["addr.street"].gt == "Main Street" and rows(result)["addr.street"].similarity == 1.0
    assert counts(result, "addr") == one(TP) and counts(result, "addr.street") == one(TP)
    plain = ENGINE.compare({"addr": gt["addr"]["_value"]}, pred)
    assert plain.field_scores["addr"] == pytest.approx((1 - 4 / 11 + 1) / 2)


def test_a_primitive_list_item_is_paired_on_its_best_value():
    gt = {"tags": [{"_value": "red", "_alternatives": ["crimson"]}, "blue"]}
    result = ENGINE.compare(gt, {"tags": ["blue", "crimson"]}, explain=True)
    assert result.field_scores["tags"] == 1.0
    assert counts(result, "tags") == [2, 0, 0, 0, 0]
    assert rows(result)["tags[0↔1]"].gt == "crimson" and rows(result)["tags[0↔1]"].alternative == 0
    assert rows(result)["tags[1↔0]"].alternative is None
    assert result.alternatives == [(INDEX["tags"], True)]
    # "red" vs "crimson" alone: 6 edits over 7 (r kept), below 0.5: an FD pair
    plain = ENGINE.compare({"tags": ["red", "blue"]}, {"tags": ["blue", "crimson"]})
    assert counts(plain, "tags") == [1, 0, 1, 0, 0]
    assert plain.field_scores["tags"] == pytest.approx((1 + 1 / 7) / 2)


def test_an_object_list_item_is_a_hungarian_cell_of_its_best_value():
    gt = {
        "items": [
            {"_value": {"sku": "W-1", "qty": 2}, "_alternatives": [{"sku": "G-7", "qty": 2}]},
            {"sku": "B-5", "qty": 5},
        ]
    }
    pred = {"items": [{"sku": "B-5", "qty": 5}, {"sku": "G-7", "qty": 2}]}
    result = ENGINE.compare(gt, pred, explain=True)
    assert result.field_scores["items"] == 1.0
    assert counts(result, "items") == [2, 0, 0, 0, 0]
    assert counts(result, "items.sku") == [2, 0, 0, 0, 0]
    assert rows(result)["items[0↔1]"].alternative == 0 and rows(result)["items[0↔1].sku"].gt == "G-7"
    # Each cell is the best variant: against prediction 0 the gt item's variants score 0.5 (qty differs, sku
    # 1 of 3 characters...), against prediction 1 the alternative scores 1.0; the pairing takes that cell.
    gt = {"items": [{"_value": {"sku": "AAA", "qty": 1}, "_alternatives": [{"sku": "ZZZ", "qty": 9}]}]}
    pred = {"items": [{"sku": "AAA", "qty": 2}, {"sku": "ZZZ", "qty": 9}]}
    result = ENGINE.compare(gt, pred, explain=True)
    assert counts(result, "items") == [1, 1, 0, 0, 0]  # one pair TP, the other prediction FA
    assert rows(result)["items[0↔1]"].alternative == 0
    assert result.field_scores["items"] == 0.5  # 1.0 over two items
    assert result.alternatives == [(INDEX["items"], True)]


def test_alternatives_nested_in_list_items():
    gt = {"items": [{"sku": "B-5", "qty": {"_value": 5, "_alternatives": [6]}}]}
    result = ENGINE.compare(gt, {"items": [{"sku": "B-5", "qty": 6}]}, explain=True)
    assert counts(result, "items.qty") == one(TP) and result.field_scores["items"] == 1.0
    assert rows(result)["items[0↔0].qty"].alternative == 0
    assert result.alternatives == [(INDEX["items.qty"], True)]
    # the item's similarity, which pairs it, is scored with the best qty too: (1 + 1) / 2 >= 0.7
    plain = ENGINE.compare({"items": [{"sku": "B-5", "qty": 5}]}, {"items": [{"sku": "B-5", "qty": 6}]})
    assert plain.field_scores["items"] == 0.5 and counts(plain, "items.qty") == [0, 0, 0, 0, 0]


# --- record problems and the bound ---------------------------------------------------------------------------


def test_a_prediction_listing_alternatives_is_a_record_problem():
    message = (
        "{}: a prediction carries _alternatives (only the ground truth lists acceptable values); its _value is scored"
    )
    result = ENGINE.compare({"name": "abcd"}, {"name": {"_value": "abcd", "_alternatives": ["x"]}})
    assert result.errors == [message.format("name")] and counts(result, "name") == one(TP)
    result = ENGINE.compare({"tags": ["a"]}, {"tags": [{"_value": "a", "_alternatives": ["b"]}]})
    assert result.errors == [message.format("tags")] and counts(result, "tags") == one(TP)
    listed = [{"_value": "a", "_alternatives": ["b"]}, {"_value": "c", "_alternatives": ["d"]}]
    result = ENGINE.compare({"tags": ["a", "c"]}, {"tags": listed})
    assert result.errors == [message.format("tags")] and counts(result, "tags") == [2, 0, 0, 0, 0]  # once a list
    result = ENGINE.compare(
        {"items": [{"sku": "a"}]}, {"items": [{"_value": {"sku": "a"}, "_alternatives": [{"sku": "b"}]}]}
    )
    assert result.errors == [message.format("items")]
    batch = ENGINE.score_batch([({"name": "abcd"}, {"name": {"_value": "abcd", "_alternatives": ["x"]}})])
    assert batch.errors == {0: [message.format("name")]}


def test_an_empty_list_of_alternatives_is_none():
    result = ENGINE.compare({"name": {"_value": "abcd", "_alternatives": []}}, {"name": "abcd"})
    assert counts(result, "name") == one(TP) and result.alternatives is None and result.errors == []
    result = ENGINE.compare({"tags": [{"_value": "a", "_alternatives": []}]}, {"tags": ["a"]})
    assert counts(result, "tags") == one(TP) and result.alternatives is None


def test_malformed_alternatives_are_reported():
    result = ENGINE.compare({"name": {"_value": "abcd", "_alternatives": "wxyz"}}, {"name": "wxyz"})
    assert result.errors == [
        'name: the ground truth\'s _alternatives must be a list of values, got "wxyz"; its _value alone is scored'
    ]
    assert counts(result, "name") == one(FD)


def test_alternatives_without_a_value_are_reported_and_the_object_scored_as_written():
    """No ``_value``: nothing says which value is the ground truth's, so the listed ones are not read and the object
    is compared as it is: a string field against an object is an FD of similarity 0.0 (the problem says why)."""
    message = (
        "{}: the ground truth lists _alternatives without a _value; they are not read: the object is scored as written"
    )
    gt = {"name": {"_alternatives": ["abcd"]}}
    for result in (ENGINE.compare(gt, {"name": "abcd"}), ENGINE.score_batch([(gt, {"name": "abcd"})]).document(0)):
        assert result.errors == [message.format("name")] and counts(result, "name") == one(FD)
        assert isinstance(result.errors[0], GroundTruthProblem)
    # In a list, once for the list: the bare item is an FD, the rich one is paired on its alternative "y".
    listed = [{"_alternatives": ["abcd"]}, {"_alternatives": ["e"]}, {"_value": "x", "_alternatives": ["y"]}]
    result = ENGINE.compare({"tags": listed}, {"tags": ["abcd", "zz", "y"]})
    assert result.errors == [message.format("tags")] and counts(result, "tags") == [1, 0, 2, 0, 0]


def test_an_alternative_listing_alternatives_is_read_as_its_value():
    """Acceptable values do not nest: the alternative ``{"_value": "X", "_alternatives": ["St Louis"]}`` is "X".
    The prediction "St Louis" is then scored on "Saint Louis" (8 / 11, 3 edits over 11), not on the nested 1.0."""
    gt = {"name": {"_value": "Saint Louis", "_alternatives": [{"_value": "X", "_alternatives": ["St Louis"]}]}}
    message = (
        "name: an alternative lists _alternatives of its own; acceptable values do not nest: its _value alone is read"
    )
    result = ENGINE.compare(gt, {"name": "St Louis"})
    assert result.errors == [message] and result.field_scores["name"] == pytest.approx(8 / 11)
    result = ENGINE.compare(gt, {"name": "X"})
    assert result.errors == [message] and result.field_scores["name"] == 1.0 and result.alternatives == [(0, True)]


ANLS_PLAN = st.compile_schema(
    {
        "type": "object",
        "properties": {
            "doc": {
                "type": "object",
                "x-aws-stickler-comparator": "ANLSStarComparator",
                "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
            }
        },
    }
)


def test_problems_inside_an_anls_value_are_reported_at_its_field():
    """ANLSStarComparator reads the ``_alternatives`` inside its value itself; the engine still names what is wrong
    there, at the field, and ANLS* scores what the message says: a malformed list's ``_value`` alone, a prediction's
    ``_value``. name "J. Smith" against "John" is 0 (edit similarity 2 / 8, below tau 0.5), each tag 1: ANLS* of the
    object is the mean over its three leaves, 2 / 3 (anls-star on the plain values agrees)."""
    anls_star = pytest.importorskip("anls_star")
    engine = Engine(ANLS_PLAN)
    plain = {"name": "J. Smith", "tags": ["a", "c"]}
    pred = {"doc": {"name": "John", "tags": ["a", "c"]}}
    expected = anls_star.anls_score(plain, pred["doc"])
    assert expected == pytest.approx(2 / 3)
    malformed = {"doc": {"name": {"_value": "J. Smith", "_alternatives": "John"}, "tags": ["a", "c"]}}
    result = engine.compare(malformed, pred)
    assert result.errors == [
        'doc: the ground truth\'s _alternatives must be a list of values, got "John"; its _value alone is scored'
    ]
    assert isinstance(result.errors[0], GroundTruthProblem) and result.field_scores["doc"] == expected
    # A prediction carrying _alternatives: its _value "c" is scored, 1.0 as the plain prediction.
    predicted = {"doc": {"name": "J. Smith", "tags": ["a", {"_value": "c", "_alternatives": ["b"]}]}}
    result = engine.compare({"doc": plain}, predicted)
    assert result.errors == [
        "doc: a prediction carries _alternatives (only the ground truth lists acceptable values); its _value is scored"
    ]
    assert not isinstance(result.errors[0], GroundTruthProblem) and result.field_scores["doc"] == 1.0
    # Without a _value: the object is scored as written (an object against the text "J. Smith": 0), and reported.
    bare = {"doc": {"name": {"_alternatives": ["J. Smith"]}, "tags": ["a", "c"]}}
    result = engine.compare(bare, {"doc": plain})
    assert result.errors == [
        "doc: the ground truth lists _alternatives without a _value; they are not read: the object is scored as written"
    ]
    assert result.field_scores["doc"] == anls_star.anls_score({"name": {"x": "J. Smith"}, "tags": ["a", "c"]}, plain)


def test_limit_alternatives():
    gt = {"name": {"_value": "q", "_alternatives": ["w", "v", "target"]}}  # none of q, w, v is in "target"
    assert ENGINE.compare(gt, {"name": "target"}).field_scores["name"] == 1.0
    limits.use(limits.Limits(alternatives=2))
    try:
        result = ENGINE.compare(gt, {"name": "target"})
    finally:
        limits.use(limits.DEFAULT)
    assert result.errors == [
        "name: the ground truth lists 3 _alternatives, more than --limit alternatives (2): the first 2 are scored"
    ]
    assert result.field_scores["name"] == 0.0 and counts(result, "name") == one(FD)


def test_prefetch_sees_every_acceptable_value():
    wanted = {INDEX["name"], INDEX["tags"], INDEX["items.sku"]}
    gt = {
        "name": {"_value": "a", "_alternatives": ["b"]},
        "tags": [{"_value": "t", "_alternatives": ["u"]}],
        "items": [{"_value": {"sku": "s"}, "_alternatives": [{"sku": "r"}]}],
    }
    pred = {"name": "p", "tags": ["q"], "items": [{"sku": "k"}]}
    pairs = collect(PLAN.root, [(gt, pred)], wanted, models_needed(PLAN.root, wanted))
    assert pairs[INDEX["name"]] == [("a", "p"), ("b", "p")]
    assert pairs[INDEX["tags"]] == [("t", "q"), ("u", "q")]
    assert pairs[INDEX["items.sku"]] == [("s", "k"), ("r", "k")]


# --- the best of single ground truths, on generated data ----------------------------------------------------

texts = hs.sampled_from(["abcd", "abcx", "wxyz", "Main St", "x", "", None])
numbers = hs.sampled_from([1, 2, 2.5, 0, None])
objects = hs.none() | hs.fixed_dictionaries({}, optional={"street": texts, "zip": texts})
tag_lists = hs.lists(hs.sampled_from(["red", "crimson", "blue", "bleu", "x"]), max_size=3)
item_lists = hs.lists(hs.fixed_dictionaries({}, optional={"sku": texts, "qty": numbers}), max_size=3)
VALUES = {"name": texts, "strict": texts, "amount": numbers, "addr": objects, "tags": tag_lists, "items": item_lists}


@hs.composite
def documents(draw):
    """(ground truth listing alternatives on some top-level fields, prediction, {field: candidate values})."""
    gt, pred, candidates = {}, {}, {}
    for key, values in VALUES.items():
        value = draw(values)
        if draw(hs.booleans()):
            alternatives = draw(hs.lists(values, min_size=1, max_size=3))
            candidates[key] = [value, *alternatives]
            gt[key] = {"_value": value, "_alternatives": alternatives}
        elif draw(hs.booleans()):
            gt[key] = value
        pred_value = draw(values)
        if key in ("name", "strict") and pred_value is not None and draw(hs.booleans()):
            pred_value = {"_value": pred_value, "_confidence": draw(hs.sampled_from([0.1, 0.5, 0.9]))}
        if draw(hs.booleans()):
            pred[key] = pred_value
    return gt, pred, candidates


def same(a, b):
    assert a.score == b.score
    assert a.field_scores == b.field_scores
    assert a.tally == b.tally
    assert a.score_sum == b.score_sum and a.score_n == b.score_n
    assert a.confidences == b.confidences
    assert (a.fd_values or []) == (b.fd_values or [])
    assert sorted(a.similarity_bins) == sorted(b.similarity_bins)
    assert a.predicted_leaves == b.predicted_leaves
    assert a.list_errors == b.list_errors


@settings(deadline=None, max_examples=250)
@given(docs=hs.lists(documents(), min_size=1, max_size=4))
def test_alternatives_score_as_the_best_single_ground_truth(docs):
    """Each field listing alternatives scores exactly as the best of the runs with each value alone as the ground
    truth (the first best on a tie; every field here is unclipped, so its score is its similarity), per field and
    overall; the batch path gives the per-document path's numbers."""
    for gt, pred, candidates in docs:
        best = dict(gt)
        decided = []
        for key, values in candidates.items():
            scores = []
            for value in values:
                single = dict(gt)
                single[key] = value
                scores.append(ENGINE.compare(copy.deepcopy(single), copy.deepcopy(pred)).field_scores[key])
            k = scores.index(max(scores))
            best[key] = values[k]
            decided.append((INDEX[key], k > 0))
        result = ENGINE.compare(gt, pred)
        same(result, ENGINE.compare(best, pred))
        assert sorted(result.alternatives or []) == sorted(decided)
    batch = ENGINE.score_batch([(gt, pred) for gt, pred, _ in docs])
    for d, (gt, pred, _) in enumerate(docs):
        one_doc = ENGINE.compare(gt, pred)
        from_batch = batch.document(d)  # its FD values are the batch's, by document
        from_batch.fd_values = [(index, g, p) for at, index, g, p in batch.fd_values if at == d] or None
        same(from_batch, one_doc)
        assert batch.document(d).errors == one_doc.errors
        assert from_batch.alternatives == one_doc.alternatives


def test_an_anls_field_reads_alternatives_as_anls_star_reads_tuples():
    """ANLSStarComparator scores the whole value: alternatives inside it are anls-star's tuples, and alternatives
    of the whole value are the best of its scores (anls-star's tuple at the top)."""
    anls_star = pytest.importorskip("anls_star")
    plan = st.compile_schema(
        {
            "type": "object",
            "properties": {
                "doc": {
                    "type": "object",
                    "x-aws-stickler-comparator": "ANLSStarComparator",
                    "properties": {"a": {"type": "string"}, "c": {"type": "string"}},
                }
            },
        }
    )
    pred = {"doc": {"a": "hello!", "c": "wrld"}}
    inside = {"doc": {"a": {"_value": "world", "_alternatives": ["hello"]}, "c": "world"}}
    expected = anls_star.anls_score({"a": ("world", "hello"), "c": "world"}, pred["doc"])
    assert expected == pytest.approx((5 / 6 + 4 / 5) / 2)  # "hello" -> "hello!" 1 edit of 6, "world" -> "wrld" 1 of 5
    assert st.compare(plan, inside, pred).field_scores["doc"] == pytest.approx(expected, abs=1e-12)
    whole = {"doc": {"_value": {"a": "x", "c": "y"}, "_alternatives": [{"a": "hello", "c": "world"}]}}
    expected = anls_star.anls_score(({"a": "x", "c": "y"}, {"a": "hello", "c": "world"}), pred["doc"])
    result = st.compare(plan, whole, pred)
    assert result.field_scores["doc"] == pytest.approx(expected, abs=1e-12) and result.alternatives == [(0, True)]


def test_lists_prepared_for_a_batch_still_weigh_their_items_alternatives():
    """Engine.prepare scores a batch's object lists ahead, from their items' _value: a list whose items list
    alternatives (at any depth) is scored pair by pair instead, as a lone document is."""
    docs = [
        (
            {
                "items": [
                    {"_value": {"sku": "AAA", "qty": 1}, "_alternatives": [{"sku": "ZZZ", "qty": 9}]},
                    {"sku": "B"},
                ]
            },
            {"items": [{"sku": "ZZZ", "qty": 9}, {"sku": "B"}]},
        ),
        (
            {"items": [{"sku": "B-5", "qty": {"_value": 5, "_alternatives": [6]}}, {"sku": "C"}]},
            {"items": [{"sku": "C"}, {"sku": "B-5", "qty": 6}]},
        ),
        ({"items": [{"sku": "AAA"}, {"sku": "B"}]}, {"items": [{"sku": "B"}, {"sku": "AAB"}]}),
    ]
    prepared = Engine(PLAN)
    prepared.prepare(docs)
    assert prepared._prepared  # the lists were scored ahead
    scores = []
    for gt, pred in docs:
        expected = Engine(PLAN).compare(gt, pred)
        same(prepared.compare(gt, pred), expected)
        scores.append(expected.field_scores["items"])
    # the third: "AAA" vs "AAB" is 2/3 (below 0.7: an FD pair) whose score counts qty, null on both sides, as 1.0
    assert scores == [1.0, 1.0, pytest.approx((1 + (2 / 3 + 1) / 2) / 2)]


# --- with the list rules of x-aws-stickler-match-key / -match-order ------------------------------------------

RULED = st.compile_schema(
    {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-match-order": "position"},
            "items": {
                "type": "array",
                "x-aws-stickler-match-key": "sku",
                "items": {"type": "object", "properties": {"sku": {"type": "string"}, "name": {"type": "string"}}},
            },
        },
    }
)
RULED_ENGINE = Engine(RULED)
RULED_INDEX = {f.path: f.index for f in RULED.fields}


def test_items_paired_by_position_weigh_their_acceptable_values():
    # position 1: "x" against "crimson" alone is 0 (no letter shared): an FD; its alternative "crimson" is a TP
    gt = {"tags": ["blue", {"_value": "x", "_alternatives": ["crimson"]}]}
    pred = {"tags": ["blue", "crimson"]}
    result = RULED_ENGINE.compare(gt, pred, explain=True)
    assert result.counts[RULED_INDEX["tags"]] == [2, 0, 0, 0, 0] and result.field_scores["tags"] == 1.0
    assert {row.path: row.alternative for row in result.trace if row.path.startswith("tags[")} == {
        "tags[0↔0]": None,
        "tags[1↔1]": 0,
    }
    assert result.alternatives == [(RULED_INDEX["tags"], True)]
    plain = RULED_ENGINE.compare({"tags": ["blue", "x"]}, pred)
    assert plain.counts[RULED_INDEX["tags"]] == [1, 0, 1, 0, 0]
    # the reversed prediction: by position "blue"/"crimson" and "x"/"blue"; the alternative does not help there
    crossed = RULED_ENGINE.compare(gt, {"tags": ["crimson", "blue"]})
    assert crossed.counts[RULED_INDEX["tags"]] == [0, 0, 2, 0, 0]
    batch = RULED_ENGINE.score_batch([(gt, pred), (gt, {"tags": ["crimson", "blue"]})])
    same(_from_batch(batch, 0), result)
    same(_from_batch(batch, 1), crossed)


def test_items_paired_by_key_take_their_best_acceptable_value():
    # Keys pair item 0 with prediction 1 and item 1 with prediction 0 whatever the similarities; item 0's
    # alternative (name "Biro") is the one its pair matches: every field a TP.
    gt = {
        "items": [
            {"_value": {"sku": "A", "name": "Pen"}, "_alternatives": [{"sku": "A", "name": "Biro"}]},
            {"sku": "B", "name": "Ink"},
        ]
    }
    pred = {"items": [{"sku": "B", "name": "Ink"}, {"sku": "A", "name": "Biro"}]}
    result = RULED_ENGINE.compare(gt, pred, explain=True, pairings=True)
    assert result.counts[RULED_INDEX["items"]] == [2, 0, 0, 0, 0]
    assert result.counts[RULED_INDEX["items.name"]] == [2, 0, 0, 0, 0]
    assert result.alternatives == [(RULED_INDEX["items"], True)]
    plain = RULED_ENGINE.compare({"items": [{"sku": "A", "name": "Pen"}, {"sku": "B", "name": "Ink"}]}, pred)
    assert plain.counts[RULED_INDEX["items.name"]] == [1, 0, 1, 0, 0]  # "Pen" against "Biro": an FD, opened by key
    same(_from_batch(RULED_ENGINE.score_batch([(gt, pred)]), 0), result)
    assert [(p.gt_index, p.pred_index, p.rule, p.similarity) for p in result.pairings] == [
        (0, 1, "key", 1.0),
        (1, 0, "key", 1.0),
    ]


def _from_batch(batch, d):
    """Document d of a batch, with its FD values (the batch keeps them by document)."""
    result = batch.document(d)
    result.fd_values = [(index, g, p) for at, index, g, p in batch.fd_values if at == d] or None
    return result


def test_alternatives_that_take_a_list_beyond_the_matching_bound_are_named_as_the_cause(monkeypatch):
    """With a matching bound of 4 pairs, 2 x 2 tags fit; their acceptable values make 4 rows (a, b, c, then d), 4 x 2
    = 8 pairs: the message names the alternatives and the rows, not long texts. The alternatives are not read:
    "d" pairs with "d" first (identical), "a" with "b" by the Hungarian algorithm: an FD (Levenshtein 0); the same
    for the items of a list of objects."""
    from stickler_cli.engine import compare as compare_module
    from stickler_cli.engine import matching

    monkeypatch.setattr(matching, "MATCH_BOUND", 4)
    monkeypatch.setattr(compare_module, "MATCH_BOUND", 4)
    result = ENGINE.compare({"tags": [{"_value": "a", "_alternatives": ["b", "c"]}, "d"]}, {"tags": ["b", "d"]})
    assert result.errors == [
        "tags: 2 x 2 items and their _alternatives: 4 x 2 rows, more pairs than the matching bound (4): the items' "
        "_alternatives are not read; 1 identical item pairs matched first, the other 1 by the Hungarian algorithm"
    ]
    assert counts(result, "tags") == [1, 0, 1, 0, 0]
    gt = {"items": [{"_value": {"sku": "a"}, "_alternatives": [{"sku": "b"}, {"sku": "c"}]}, {"sku": "d"}]}
    result = ENGINE.compare(gt, {"items": [{"sku": "b"}, {"sku": "d"}]})
    assert result.errors == [
        "items: 2 x 2 items and their _alternatives: 4 x 2 rows, more pairs than the matching bound (4): the items' "
        "_alternatives are not read; 1 identical item pairs matched first, the other 1 by the Hungarian algorithm"
    ]
    assert counts(result, "items") == [1, 0, 1, 0, 0]
