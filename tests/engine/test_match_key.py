"""List items paired by key (``x-aws-stickler-match-key``) or by position (``x-aws-stickler-match-order``), worked
by hand, on both engine paths (``Engine.compare`` and the batch path, which hands such documents to it), in every
order of the items where the result must not depend on it. docs/ground-truth.md, "List items paired by key".
"""

from __future__ import annotations

import copy
import json
import itertools

import pytest

import stickler_cli as st
from stickler_cli.engine import Engine
from stickler_cli.engine.prefetch import collect
from stickler_cli.engine.result import FA, FD, FN, TN, TP
from stickler_cli.errors import SchemaError

EXACT = {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}


def _schema(rule: dict, **item_properties: dict) -> dict:
    props = item_properties or {"sku": EXACT, "name": {"type": "string"}, "qty": {"type": "integer"}}
    return {
        "type": "object",
        "properties": {"items": {"type": "array", **rule, "items": {"type": "object", "properties": props}}},
    }


def _both_paths(engine: Engine, gt: dict, pred: dict) -> list:
    """The per-document result and the batch path's result of one document."""
    return [engine.compare(gt, pred), engine.score_batch([(gt, pred)]).document(0)]


# The key says which item is which; the contents say otherwise (Levenshtein on name, threshold 0.5; numbers
# exactly; the items' match threshold 0.7).
PENS_GT = {"items": [{"sku": "A-1", "name": "red pen", "qty": 2}, {"sku": "B-2", "name": "blue pen", "qty": 5}]}
PENS_PRED = {"items": [{"sku": "B-2", "name": "red pen", "qty": 2}, {"sku": "A-1", "name": "blue pen", "qty": 5}]}


def test_items_with_equal_keys_pair_and_are_opened_below_the_match_threshold() -> None:
    """By key, A-1 pairs with the second prediction and B-2 with the first. Each pair: sku 1.0 (TP), name
    "red pen" / "blue pen" 1 - 4/8 = 0.5 (TP at 0.5), qty 2 / 5 0.0 (FD): similarity (1 + 0.5 + 0) / 3 = 0.5,
    below 0.7, so the list counts 2 FD, yet both pairs are opened: sku 2 TP, name 2 TP, qty 2 FD. Each pair
    scores 0.5: the list (0.5 + 0.5) / 2 = 0.5.

    Without the key, the Hungarian matching pairs by content (sku 0, name 1.0, qty 1.0: 2/3 each), 2 FD, and
    opens nothing: score 2/3, nothing counted below the list."""
    keyed = Engine(st.compile_schema(_schema({"x-aws-stickler-match-key": "sku"})))
    for result in _both_paths(keyed, PENS_GT, PENS_PRED):
        assert result.score == 0.5
        assert result.counts == [[0, 0, 2, 0, 0], [2, 0, 0, 0, 0], [2, 0, 0, 0, 0], [0, 0, 2, 0, 0]]
        assert result.errors == []
    assert keyed.score_batch([(PENS_GT, PENS_PRED)]).slow == 0  # paired by key in the batch's arrays
    plain = Engine(st.compile_schema(_schema({})))
    for result in _both_paths(plain, PENS_GT, PENS_PRED):
        assert result.score == pytest.approx(2 / 3)
        assert result.counts == [[0, 0, 2, 0, 0], [0] * 5, [0] * 5, [0] * 5]


# Duplicate and missing keys (every field ExactComparator, the items' match threshold 0.7):
#   gt 0 {A, x}   gt 1 {A, y}   gt 2 {null, z}   gt 3 {C, w}
#   pred 0 {C, q} pred 1 {A, y} pred 2 {-, z}    pred 3 {D, x}
DUP_GT = [
    {"sku": "A", "name": "x"},
    {"sku": "A", "name": "y"},
    {"sku": None, "name": "z"},
    {"sku": "C", "name": "w"},
]
DUP_PRED = [{"sku": "C", "name": "q"}, {"sku": "A", "name": "y"}, {"name": "z"}, {"sku": "D", "name": "x"}]


def _dup_engine() -> Engine:
    return Engine(st.compile_schema(_schema({"x-aws-stickler-match-key": "sku"}, sku=EXACT, name=EXACT)))


def test_duplicate_and_missing_keys_are_left_to_hungarian_matching_and_named() -> None:
    """Key A is held twice in the ground truth: gt 0 and 1 go to the Hungarian matching, and so does gt 2 (its
    key is null). Only C pairs by key: gt 3 / pred 0, sku 1, name 0: similarity 0.5, FD, opened (sku TP, name FD).
    Left: gt 0, 1, 2 against pred 1, 2, 3. Similarities (the mean of the fields not null on both sides):
    gt 1 / pred 1 1.0, gt 2 / pred 2 1.0 (sku null on both sides leaves the mean), gt 0 / pred 3 0.5 (name x):
    total 2.5, the best. List: 2 TP, 2 FD (gt 0 / pred 3 and the key pair). Opened: the two TP (sku TP, name TP;
    sku TN, name TP) and the key pair: sku 2 TP 1 TN, name 2 TP 1 FD. Pair scores 1 + 1 + 0.5 + 0.5 = 3 over 4
    items: 0.75."""
    for result in _both_paths(_dup_engine(), {"items": DUP_GT}, {"items": DUP_PRED}):
        assert result.score == 0.75
        assert result.counts == [[2, 0, 2, 0, 0], [2, 0, 0, 0, 1], [2, 0, 1, 0, 0]]
        assert result.errors == [
            'items: key sku="A" appears 2 times in the ground truth (items 0, 1): paired by similarity'
        ]
    # The batch leaves such a document to Engine.compare, which names the problem.
    assert _dup_engine().score_batch([({"items": DUP_GT}, {"items": DUP_PRED})]).slow == 1


@pytest.mark.parametrize("order", list(itertools.permutations(range(4)))[::5])
def test_key_pairing_does_not_depend_on_the_items_order(order: tuple) -> None:
    """The same lists shuffled (ground truth in ``order``, prediction in the reverse of it): the same figures."""
    gt = [DUP_GT[k] for k in order]
    pred = [DUP_PRED[k] for k in reversed(order)]
    for result in _both_paths(_dup_engine(), {"items": gt}, {"items": pred}):
        assert result.score == 0.75
        assert result.counts == [[2, 0, 2, 0, 0], [2, 0, 0, 0, 1], [2, 0, 1, 0, 0]]
        assert len(result.errors) == 1 and "appears 2 times in the ground truth" in result.errors[0]


def test_a_key_repeated_in_the_prediction_is_named_with_its_items() -> None:
    """pred 0 and pred 2 both say B: neither pairs by key; gt 0 (B, name b) then pairs with pred 0 (B, b) by
    similarity 1.0 and gt 1 (A, a) with pred 1 by key (1.0): 2 TP, 1 FA (pred 2), score 2 / 3."""
    engine = _dup_engine()
    gt = {"items": [{"sku": "B", "name": "b"}, {"sku": "A", "name": "a"}]}
    pred = {"items": [{"sku": "B", "name": "b"}, {"sku": "A", "name": "a"}, {"sku": "B", "name": "zz"}]}
    for result in _both_paths(engine, gt, pred):
        assert result.score == pytest.approx(2 / 3)
        assert result.counts[0] == [2, 1, 0, 0, 0]
        assert result.errors == [
            'items: key sku="B" appears 2 times in the prediction (items 0, 2): paired by similarity'
        ]


def test_composite_keys_compare_as_json_values() -> None:
    """Keys (sku, line): line 2.0 equals 2 as a JSON value, "1" is no 1. So gt 1 (A, 2, y) pairs with pred 0
    (A, 2.0, x) by key; gt 0 and pred 1 (line "1") are left, and pair as the only pair. Each pair: sku 1.0,
    line 1.0 (the numeric comparator reads "1" as 1), name 0: 2/3, FD. Only the key pair is opened (sku TP,
    line TP, name FD). Score (2/3 + 2/3) / 2."""
    schema = _schema({"x-aws-stickler-match-key": ["sku", "line"]}, sku=EXACT, line={"type": "integer"}, name=EXACT)
    engine = Engine(st.compile_schema(schema))
    gt = {"items": [{"sku": "A", "line": 1, "name": "x"}, {"sku": "A", "line": 2, "name": "y"}]}
    pred = {"items": [{"sku": "A", "line": 2.0, "name": "x"}, {"sku": "A", "line": "1", "name": "y"}]}
    for result in _both_paths(engine, gt, pred):
        assert result.score == pytest.approx(2 / 3)
        assert result.counts == [[0, 0, 2, 0, 0], [1, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 1, 0, 0]]
    trace = engine.compare(gt, pred, explain=True).trace
    assert [row.path for row in trace if row.path.startswith("items[")][:2] == ["items[0↔1]", "items[1↔0]"]
    assert [row.path for row in trace if "." in row.path] == ["items[1↔0].sku", "items[1↔0].line", "items[1↔0].name"]


def test_rich_key_values_are_unwrapped() -> None:
    """A key given as a rich value {"_value": "A-1", "_confidence": 0.9} is the key A-1: the same figures as
    the plain example."""
    pred = copy.deepcopy(PENS_PRED)
    pred["items"][1]["sku"] = {"_value": "A-1", "_confidence": 0.9}
    engine = Engine(st.compile_schema(_schema({"x-aws-stickler-match-key": "sku"})))
    for result in _both_paths(engine, PENS_GT, pred):
        assert result.score == 0.5
        assert result.counts[0] == [0, 0, 2, 0, 0]


def test_items_paired_by_position_are_opened_and_the_extra_ones_are_unmatched() -> None:
    """match-order position: gt 0 / pred 0 and gt 1 / pred 1, whatever their contents; pred 2 is an FA.
    Pair 0 (A-1 red pen 2 / B-2 red pen 2): sku 0, name 1.0, qty 1.0: 2/3, FD; pair 1 (B-2 blue pen 5 / A-1 blue
    pen 5): 2/3 too, FD. Both opened: sku 2 FD, name 2 TP, qty 2 TP. Pair scores 2/3 + 2/3 over 3 items: 4/9."""
    engine = Engine(st.compile_schema(_schema({"x-aws-stickler-match-order": "position"})))
    pred = {"items": [*PENS_PRED["items"][:1], {"sku": "A-1", "name": "blue pen", "qty": 5}, {"sku": "Z"}]}
    assert engine.score_batch([(PENS_GT, pred)]).slow == 0
    for result in _both_paths(engine, PENS_GT, pred):
        assert result.score == pytest.approx(4 / 9)
        assert result.counts == [[0, 1, 2, 0, 0], [0, 0, 2, 0, 0], [2, 0, 0, 0, 0], [2, 0, 0, 0, 0]]


def test_a_list_of_strings_paired_by_position() -> None:
    """["a", "b"] against ["b", "a", "c"] by position: a/b 0.0 and b/a 0.0 (ExactComparator): 2 FD, 1 FA, score 0.
    The Hungarian matching would pair a/a and b/b: 2 TP, score 2/3."""
    tags = {"type": "array", "items": {"type": "string"}, "x-aws-stickler-comparator": "ExactComparator"}
    positioned = {"type": "object", "properties": {"tags": {**tags, "x-aws-stickler-match-order": "position"}}}
    for schema, score, counts in (
        (positioned, 0.0, [0, 1, 2, 0, 0]),
        ({"type": "object", "properties": {"tags": tags}}, 2 / 3, [2, 1, 0, 0, 0]),
    ):
        for result in _both_paths(Engine(st.compile_schema(schema)), {"tags": ["a", "b"]}, {"tags": ["b", "a", "c"]}):
            assert result.score == pytest.approx(score)
            assert result.counts[0] == counts


def test_a_keyed_list_below_a_list_item_is_paired_by_key_on_both_paths() -> None:
    """Orders, each with keyed lines. Two orders of the same id against each other (the outer list pairs by
    the Hungarian matching, the inner by key): the batch path sends the document to compare, equal figures."""
    line = _schema({"x-aws-stickler-match-key": "sku"})["properties"]["items"]
    schema = {
        "type": "object",
        "properties": {
            "orders": {
                "type": "array",
                "items": {"type": "object", "properties": {"id": EXACT, "items": line}},
            }
        },
    }
    engine = Engine(st.compile_schema(schema))
    gt = {"orders": [{"id": "o1", **PENS_GT}, {"id": "o2", "items": PENS_GT["items"][:1]}]}
    pred = {"orders": [{"id": "o2", "items": PENS_PRED["items"][1:]}, {"id": "o1", **PENS_PRED}]}
    one, batch = _both_paths(engine, gt, pred)
    assert one.score == batch.score and one.counts == batch.counts
    # o1's lines: the pens example (2 FD, opened); o2's one line: A-1 / A-1 "red pen" / "blue pen" 0.5, 2 / 5:
    # (1 + 0.5 + 0) / 3 = 0.5, FD, opened. Orders: id 1.0 and the lines' score 0.5: 0.75, TP both.
    assert one.counts[0] == [2, 0, 0, 0, 0]
    assert one.counts[2] == [0, 0, 3, 0, 0]
    assert one.counts[3] == [3, 0, 0, 0, 0]


# --judge-pairing proxy pairs by key first too: the judge is handed the key pairs.
JUDGED = _schema(
    {"x-aws-stickler-match-key": "code"},
    code={"type": "integer"},
    name={
        "type": "string",
        "x-aws-stickler-comparator": "LLMComparator",
        "x-aws-stickler-comparator-config": {"model": "judge"},
    },
)


def test_proxy_pairing_pairs_by_key_first() -> None:
    """The proxy (edit distance) would pair Apple pie / apple-pie; the key pairs code 1 with code 1."""
    plan = st.compile_schema(JUDGED)
    name = plan.root.fields[0].model.field("name")
    gt = {"items": [{"code": 1, "name": "Apple pie"}, {"code": 2, "name": "Orange juice"}]}
    pred = {"items": [{"code": 2, "name": "apple-pie"}, {"code": 1, "name": "orange juice"}]}
    engine = Engine(plan, "proxy")
    assert engine.proxy_pairs(plan.root.fields[0], gt["items"], pred["items"]) == [(0, 1), (1, 0)]
    handed = collect(plan.root, [(gt, pred)], {name.index}, engine._needed, engine.proxy_pairs)
    assert sorted(handed[name.index]) == [("Apple pie", "orange juice"), ("Orange juice", "apple-pie")]


@pytest.mark.parametrize(
    "rule, properties, message",
    [
        (
            {"x-aws-stickler-match-key": "skus"},
            None,
            "names 'skus', which is no property of the items (did you mean 'sku'?)",
        ),
        ({"x-aws-stickler-match-key": []}, None, "must be a property name or a non-empty list"),
        ({"x-aws-stickler-match-key": ["sku", "sku"]}, None, "non-empty list of distinct property names"),
        ({"x-aws-stickler-match-order": "index"}, None, 'must be "position", got "index"'),
        (
            {"x-aws-stickler-match-key": "sku", "x-aws-stickler-match-order": "position"},
            None,
            "both say how this list's items pair: keep one",
        ),
    ],
)
def test_bad_pairing_keywords_are_schema_errors(rule: dict, properties: dict | None, message: str) -> None:
    with pytest.raises(SchemaError, match=None) as raised:
        st.compile_schema(_schema(rule))
    assert message in str(raised.value)


@pytest.mark.parametrize(
    "node, message",
    [
        (
            {"type": "string", "x-aws-stickler-match-key": "a"},
            "'x-aws-stickler-match-key' belongs on an array of objects, not on a string",
        ),
        (
            {"type": "string", "x-aws-stickler-match-order": "position"},
            "'x-aws-stickler-match-order' belongs on an array, not on a string",
        ),
        (
            {"type": "array", "items": {"type": "string"}, "x-aws-stickler-match-key": "a"},
            "'x-aws-stickler-match-key' belongs on an array of objects, not on an array of strings",
        ),
        (
            {"type": "object", "properties": {"a": EXACT}, "x-aws-stickler-match-key": "a"},
            "'x-aws-stickler-match-key' belongs on an array of objects, not on an object",
        ),
        (
            {"type": "array", "items": {"type": "object", "properties": {"a": EXACT}, "x-aws-stickler-match-key": "a"}},
            "'x-aws-stickler-match-key' belongs on the list field, not on its 'items'",
        ),
        (
            {
                "type": "array",
                "items": {"type": "object"},
                "x-aws-stickler-comparator": "ANLSStarComparator",
                "x-aws-stickler-match-order": "position",
            },
            "belongs on an array, not on an array compared as one value by its comparator",
        ),
    ],
)
def test_pairing_keywords_out_of_place_are_schema_errors(node: dict, message: str) -> None:
    with pytest.raises(SchemaError) as raised:
        st.compile_schema({"type": "object", "properties": {"f": node}})
    assert message in str(raised.value)


def test_the_plan_names_each_lists_rule() -> None:
    """FieldPlan.pairing, the Pairing column of `stickler schema check`."""
    for rule, shown in (
        ({"x-aws-stickler-match-key": "sku"}, "key sku"),
        ({"x-aws-stickler-match-key": ["sku", "qty"]}, "key sku+qty"),
        ({"x-aws-stickler-match-order": "position"}, "position"),
        ({}, "hungarian"),
    ):
        fields = st.compile_schema(_schema(rule)).fields
        assert [f.pairing for f in fields] == [shown, "-", "-", "-"]
    assert TP == 0 and (FA, FD, FN, TN) == (1, 2, 3, 4)  # the count order the figures above are written in


def test_a_key_repeated_in_the_ground_truth_is_reported_at_the_ground_truths_line(tmp_path, capsys) -> None:
    """The ground truth's record problems name the ground truth's file and line, the prediction's the prediction's:
    document z is on line 3 of the ground truth and line 1 of the predictions (paired by id), its list holds key A
    twice in the ground truth; document y's prediction (line 3) holds key B twice."""
    from stickler_cli.cli.app import main
    from stickler_cli.engine.result import GroundTruthProblem

    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({**_schema({"x-aws-stickler-match-key": "sku"}, sku=EXACT), "required": []}))
    schema_doc = json.loads(schema.read_text())
    schema_doc["properties"]["id"] = {"type": "string"}
    schema.write_text(json.dumps(schema_doc))
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text(
        '{"id": "x", "items": []}\n{"id": "y", "items": [{"sku": "B"}]}\n'
        '{"id": "z", "items": [{"sku": "A"}, {"sku": "A"}]}\n'
    )
    pred.write_text(
        '{"id": "z", "items": [{"sku": "A"}]}\n{"id": "x", "items": []}\n'
        '{"id": "y", "items": [{"sku": "B"}, {"sku": "B"}]}\n'
    )
    for workers in ("1", "2"):
        assert (
            main(["eval", str(schema), str(gt), str(pred), "--id-field", "id", "-f", "json", "--workers", workers]) == 0
        )
        errors = json.loads(capsys.readouterr().out)["errors"]
        assert sorted((e["source"], e["line"], e["doc_id"], e["message"]) for e in errors) == [
            (
                str(gt),
                3,
                "z",
                'items: key sku="A" appears 2 times in the ground truth (items 0, 1): paired by similarity',
            ),
            (
                str(pred),
                3,
                "y",
                'items: key sku="B" appears 2 times in the prediction (items 0, 1): paired by similarity',
            ),
        ]
    # Both engine paths tell the sides apart the same way.
    engine = Engine(st.compile_schema(schema_doc))
    doc_gt, doc_pred = json.loads(gt.read_text().splitlines()[2]), json.loads(pred.read_text().splitlines()[0])
    for result in _both_paths(engine, doc_gt, doc_pred):
        assert [isinstance(message, GroundTruthProblem) for message in result.errors] == [True]


def test_a_key_repeated_many_times_lists_its_first_ten_items() -> None:
    """3,000 items with one key: the message names items 0 to 9 and says how many more, not all 3,000."""
    engine = _dup_engine()
    gt = {"items": [{"sku": "K", "name": str(k)} for k in range(3000)]}
    (message,) = engine.compare(gt, {"items": [{"sku": "K", "name": "0"}]}).errors
    assert message == (
        'items: key sku="K" appears 3,000 times in the ground truth (items 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 2,990 more):'
        " paired by similarity"
    )


def _small_bound(monkeypatch) -> None:
    """A matching bound of 4 item pairs (matching.MATCH_BOUND, as the engine reads it)."""
    from stickler_cli.engine import compare as compare_module
    from stickler_cli.engine import matching

    monkeypatch.setattr(matching, "MATCH_BOUND", 4)
    monkeypatch.setattr(compare_module, "MATCH_BOUND", 4)


def test_a_long_keyed_list_whose_items_all_pair_by_key_says_nothing(monkeypatch) -> None:
    """3 x 3 items is beyond a bound of 4 pairs, but every item pairs by key: nothing is left to the matching, so
    nothing is said, and each pair is the key's."""
    _small_bound(monkeypatch)
    gt = {"items": [{"sku": k, "name": k.lower()} for k in "ABC"]}
    pred = {"items": [{"sku": k, "name": k.lower()} for k in "CAB"]}
    result = _dup_engine().compare(gt, pred, pairings=True)
    assert result.errors == [] and result.counts[0] == [3, 0, 0, 0, 0]
    assert [(p.gt_index, p.pred_index, p.rule) for p in result.pairings if p.path == "items"] == [
        (0, 1, "key"),
        (1, 2, "key"),
        (2, 0, "key"),
    ]


def test_what_the_key_leaves_within_the_bound_is_matched_as_any_list(monkeypatch) -> None:
    """5 x 5 items (25 pairs, beyond 4): A, B, C pair by key; the two items without a key, 2 x 2 = 4 pairs, fit the
    bound and go to the Hungarian algorithm: "p" with "p", "q" with "q" (2 TP), nothing said."""
    _small_bound(monkeypatch)
    keyed = [{"sku": k, "name": k.lower()} for k in "ABC"]
    gt = {"items": [*keyed, {"name": "p"}, {"name": "q"}]}
    pred = {"items": [*keyed[::-1], {"name": "q"}, {"name": "p"}]}
    result = _dup_engine().compare(gt, pred, pairings=True)
    assert result.errors == [] and result.counts[0] == [5, 0, 0, 0, 0]
    assert [(p.gt_index, p.pred_index, p.rule) for p in result.pairings if p.path == "items"][3:] == [
        (3, 4, "hungarian"),
        (4, 3, "hungarian"),
    ]


def test_what_the_key_leaves_beyond_the_bound_is_counted_in_the_message(monkeypatch) -> None:
    """A pairs by key; the 3 x 3 items left (9 pairs) are beyond 4: the message counts those, not the 4 x 4 lists,
    and they pair by position (no identical items): x-u, y-v, z-w, 3 FD."""
    _small_bound(monkeypatch)
    gt = {"items": [{"sku": "A", "name": "a"}, *({"name": n} for n in "xyz")]}
    pred = {"items": [{"sku": "A", "name": "a"}, *({"name": n} for n in "uvw")]}
    result = _dup_engine().compare(gt, pred)
    assert result.errors == [
        "items: 3 x 3 items left after pairing by key, more pairs than the matching bound (4): "
        "0 identical item pairs matched first, the other 3 paired by position"
    ]
    assert result.counts[0] == [1, 0, 3, 0, 0]


def test_alternatives_that_take_a_keyed_list_beyond_the_bound_are_named(monkeypatch) -> None:
    """2 x 2 items fit a bound of 4 pairs; item A's two alternatives make 4 rows, 8 pairs: the items pair by key
    alone, their alternatives not read, and the message says so with the rows. A pairs with A on its _value (name
    "a" against "b": sku TP, name FD, pair similarity 0.5, an FD opened), B with B (TP)."""
    _small_bound(monkeypatch)
    a = {"_value": {"sku": "A", "name": "a"}, "_alternatives": [{"sku": "A", "name": "b"}, {"sku": "A", "name": "c"}]}
    gt = {"items": [a, {"sku": "B", "name": "b"}]}
    pred = {"items": [{"sku": "B", "name": "b"}, {"sku": "A", "name": "b"}]}
    result = _dup_engine().compare(gt, pred)
    assert result.errors == [
        "items: 2 x 2 items and their _alternatives: 4 x 2 rows, beyond the matching bound (4): "
        "the items' _alternatives are not read"
    ]
    assert result.counts == [[1, 0, 1, 0, 0], [2, 0, 0, 0, 0], [1, 0, 1, 0, 0]]
