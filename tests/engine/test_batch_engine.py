"""The columnar engine (``Engine.score_batch``) equals the per-document engine (``Engine.compare``), bit for bit.

``stickler eval`` scores a batch of documents field by field in arrays; ``stickler compare``,
the traces and these tests walk one document at a time. Generated schemas (every field kind,
nesting, comparators vectorised or not, thresholds, weights, clipping, defaults) and generated
documents (nulls, empty values, stray types, rich values with valid and malformed confidences
and metadata, lone values where lists belong, duplicate items) must give each document the same
counts, field scores, document score, per-field sums and confidence pairs, floats compared by
their bits; and a run's accumulated state must be the same byte for byte.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from unittest import mock

import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stickler_cli import compile_schema, load_schema
from stickler_cli.run.accumulate import Accumulator, Collect
from stickler_cli.comparators import Comparator, register, registry
from stickler_cli.confidence import store as store_module
from stickler_cli.analyses.failures import non_match_rows
from stickler_cli.engine import Engine
from stickler_cli.engine import compare as compare_module
from stickler_cli.engine import matching as matching_module
from stickler_cli.engine.batch import sequential_sums
from stickler_cli.run.evaluate import evaluate_pairs
from stickler_cli.plan import FieldPlan, Kind, ModelPlan
from tests.support.datagen import Generator

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = 250

# -- schemas ---------------------------------------------------------------------------

STRING_COMPARATORS = [
    None,
    ("ExactComparator", {}),
    ("ExactComparator", {"case_sensitive": True, "normalize": False}),
    ("LevenshteinComparator", {}),
    ("LevenshteinComparator", {"normalize": False}),
    ("FuzzyComparator", {}),
    ("FuzzyComparator", {"method": "token_sort_ratio"}),
    ("FuzzyComparator", {"method": "partial_ratio"}),
    ("FuzzyComparator", {"method": "token_set_ratio", "normalize": False}),
    ("DateComparator", {}),
    ("NormalizedComparator", {}),  # not vectorised: scored pair by pair
]
NUMBER_COMPARATORS = [
    None,
    ("NumericComparator", {}),
    ("NumericComparator", {"absolute_tolerance": 0.01}),
    ("NumericComparator", {"relative_tolerance": 0.001}),
    ("ExactComparator", {}),
]
# "_value" as a property: its object is data, never unwrapped as a rich value (FieldPlan.rich)
KEYS = st.sampled_from(["a", "b", "c", "name", "sku", "qty", "price", "date", "tags", "x y", "_value"])
# enum/const values that normalise alike ("A+", "A-"; 1.5, 15, -15): Exact keeps distinct ones apart
STRING_ENUMS = [["A+", "A-", "B"], ["N/A", "NA", "Blue Widget", "blue widget"], ["Acme, Inc.", "acme inc", "x"]]
NUMBER_ENUMS = [[1.5, 15, -15], [1, 100, -3, 0.1], [0, 1]]


@st.composite
def leaf_schema(draw, json_type=None):
    json_type = json_type or draw(st.sampled_from(["string", "string", "number", "integer", "boolean", "nullable"]))
    node: dict = {"type": ["string", "null"] if json_type == "nullable" else json_type}
    if json_type in ("string", "nullable"):
        comparator = draw(st.sampled_from(STRING_COMPARATORS))
    elif json_type in ("number", "integer"):
        comparator = draw(st.sampled_from(NUMBER_COMPARATORS))
    else:
        comparator = draw(st.sampled_from([None, ("ExactComparator", {})]))
    if comparator is not None:
        node["x-aws-stickler-comparator"] = comparator[0]
        if comparator[1]:
            node["x-aws-stickler-comparator-config"] = comparator[1]
    _allowed_values(draw, node, json_type)
    _options(draw, node)
    if draw(st.integers(0, 9)) == 0:  # a default for a missing key (a dict one is never unwrapped)
        node["default"] = draw(st.sampled_from(["widget", 12.5, {"_value": "widget", "_confidence": 0.5}, None]))
    return node


def _allowed_values(draw, node: dict, json_type: str) -> None:
    """Now and then an enum or a const, of values that normalise alike."""
    roll = draw(st.integers(0, 5))
    if roll > 1 or json_type == "boolean":
        return
    values = draw(st.sampled_from(NUMBER_ENUMS if json_type in ("number", "integer") else STRING_ENUMS))
    if draw(st.booleans()):  # the default comparator of an enum: Exact
        node.pop("x-aws-stickler-comparator", None)
        node.pop("x-aws-stickler-comparator-config", None)
    if roll == 0:
        node["enum"] = values
    else:
        node["const"] = values[0]


def _options(draw, node: dict, threshold: bool = True) -> None:
    if threshold and draw(st.booleans()):
        node["x-aws-stickler-threshold"] = draw(st.sampled_from([0.0, 0.5, 0.7, 0.8, 0.95, 1.0]))
    if draw(st.booleans()):
        node["x-aws-stickler-weight"] = draw(st.sampled_from([0.5, 1, 1.1, 1.5, 3.0, 0.45, 1e-6, 1e6]))
    if draw(st.booleans()):
        node["x-aws-stickler-clip-under-threshold"] = draw(st.booleans())


@st.composite
def object_schema(draw, depth: int):
    keys = draw(st.lists(KEYS, min_size=1, max_size=4, unique=True))
    properties = {key: draw(field_schema(depth)) for key in keys}
    node: dict = {"type": "object", "properties": properties}
    if draw(st.booleans()):
        node["x-aws-stickler-match-threshold"] = draw(st.sampled_from([0.0, 0.5, 0.7, 1.0]))
    return node


@st.composite
def field_schema(draw, depth: int):
    kinds = ["leaf", "leaf", "leaf", "primitive_list", "bbox"] + (
        ["object", "object_list", "object_list"] if depth > 0 else []
    )
    kind = draw(st.sampled_from(kinds))
    if kind == "leaf":
        return draw(leaf_schema())
    if kind == "bbox":  # an array scored as one value (whole-value comparator)
        return {"type": "array", "items": {"type": "number"}, "x-aws-stickler-comparator": "BBoxIoUComparator"}
    if kind == "primitive_list":
        item = draw(st.sampled_from(["string", "number"]))
        node = {"type": "array", "items": {"type": item}}
        _allowed_values(draw, node["items"], item)
        comparator = draw(st.sampled_from(STRING_COMPARATORS if item == "string" else NUMBER_COMPARATORS))
        if comparator is not None:
            node["x-aws-stickler-comparator"] = comparator[0]
            if comparator[1]:
                node["x-aws-stickler-comparator-config"] = comparator[1]
        _options(draw, node)
        if draw(st.integers(0, 3)) == 0:  # items paired by position (issue 42)
            node["x-aws-stickler-match-order"] = "position"
        return node
    inner = draw(object_schema(depth - 1))
    if kind == "object":
        _options(draw, inner)
        return inner
    node = {"type": "array", "items": inner}
    _options(draw, node, threshold=False)
    rule = draw(st.integers(0, 5))  # items paired by key (one or two of their properties) or by position (issue 42)
    if rule < 2:
        keys = sorted(inner["properties"])
        node["x-aws-stickler-match-key"] = keys[0] if rule == 0 or len(keys) == 1 else keys[:2]
    elif rule == 2:
        node["x-aws-stickler-match-order"] = "position"
    return node


SCHEMAS = object_schema(depth=2)

# -- documents -------------------------------------------------------------------------

TEXTS = [
    "Blue Widget",
    "blue widget",
    "Blue  Widget!",
    "widget",
    "",
    " ",
    "Acme, Inc.",
    "acme inc",
    "2024-01-02",
    "01/02/2024",
    "Jan 2, 2024",
    "12.50",
    "é",
    "x",
    "widget blue",
    "A+",
    "A-",
    "a+",
    "N/A",
    "NA",
    "B",
    "1.5",
    "-15",
]
# Numbers that normalisation would confuse (1.5, 15, -15; -1, 1; 1, 1.0) and texts that are no one number.
NUMBERS = [
    0,
    1,
    1.5,
    100,
    100.01,
    100.001,
    -3,
    1e-5,
    12345678.91,
    2**53 + 1,
    "12.50",
    "$1,247.50",
    0.1,
    0.30000000000000004,
    True,
    15,
    -15,
    -1,
    1.0,
    "15",
    "1.5",
    "page 1 of 2",
    "1 0",
    "1e2",
    "1 000",
    "5%",
]
STRAYS = [None, "", [], {}, "n/a", [1, 2], {"a": 1}, 7]
GOOD_CONFIDENCES = [0.0, 0.5, 0.73, 0.999, 1.0, 1, 0, 0.25, 0.9, None]  # None: no confidence
BAD_CONFIDENCES = [1.5, -0.1, "high", True, math.nan, 10**400]
BOXES = [[0, 0, 10, 10], [0, 0, 10, 12], [1, 1, 5, 5], [0, 0, 0, 0], "box"]


LOOK_ALIKES = ["A+", "A-", "a+", "N/A", "NA", "n/a", "acme inc", 1.0, 15.0, -15, "1.5", "15"]


def allowed_values(f: FieldPlan) -> list:
    """The enum or const values the field's comparator was given (AllowedValues), as JSON values."""
    return [
        identity if type(identity) is str else float(identity[1]) if identity[0] is float else identity[1]
        for identity in f.comparator.allowed.ids
    ]


def scalar(f: FieldPlan):
    if getattr(f.comparator, "allowed", None) is not None:  # an enum or const: its values and look-alikes
        return st.one_of(
            st.sampled_from(allowed_values(f)),
            st.sampled_from(allowed_values(f)),
            st.sampled_from(LOOK_ALIKES),
            st.sampled_from(STRAYS),
        )
    elif f.json_type == "array":
        base = st.sampled_from(BOXES)
    elif f.json_type in ("number", "integer"):
        base = st.sampled_from(NUMBERS)
    elif f.json_type == "boolean":
        base = st.sampled_from([True, False, "true"])
    else:
        base = st.sampled_from(TEXTS)
    return st.one_of(base, base, base, st.sampled_from(STRAYS))


@st.composite
def rich(draw, value):
    """A value, or the same wrapped as a rich value: mostly with a well-formed confidence, now and then
    a malformed one, metadata or acceptable values (``_alternatives``; a record problem in a prediction):
    such documents go to Engine.compare, rare, so that most do not."""
    roll = draw(st.integers(0, 61))
    if roll < 30:
        return draw(value)
    if roll < 52:
        return {"_value": draw(value), "_confidence": draw(st.sampled_from(GOOD_CONFIDENCES))}
    if roll < 56:
        return {"_value": draw(value)}
    if roll < 58:
        return {"_value": draw(value), "_confidence": draw(st.sampled_from(BAD_CONFIDENCES))}
    if roll < 60:
        return {"_value": draw(value), "_alternatives": draw(st.lists(value, min_size=1, max_size=2))}
    return {"_value": draw(value), "_confidence": 0.5, "_bbox": [1, 2, 3, 4]}


def value_for(f: FieldPlan):
    if f.kind is Kind.PRIMITIVE:
        return rich(scalar(f))
    if f.kind is Kind.OBJECT:
        return rich(st.one_of(obj(f.model), obj(f.model), st.sampled_from([None, "not an object", {}])))
    item = (
        rich(scalar(f))
        if f.kind is Kind.PRIMITIVE_LIST
        else rich(st.one_of(obj(f.model), obj(f.model), obj(f.model), st.sampled_from([None, "stray", {}])))
    )
    return rich(st.one_of(st.lists(item, max_size=5), st.lists(item, max_size=5), item, st.sampled_from([None, []])))


def obj(model: ModelPlan):
    return st.fixed_dictionaries({}, optional={f.key: st.deferred(lambda f=f: value_for(f)) for f in model.fields})


@st.composite
def batches(draw, plan):
    docs = []
    for _ in range(draw(st.integers(1, 8))):
        gt = draw(obj(plan.root))
        roll = draw(st.integers(0, 5))
        pred = copy.deepcopy(gt) if roll == 0 else draw(obj(plan.root))
        if roll == 1:  # a near copy: each top-level value kept or redrawn
            pred = {k: v for k, v in gt.items() if draw(st.booleans())} | pred
        docs.append((gt, pred))
    return docs


# -- comparing ---------------------------------------------------------------------------


def bits(value):
    """Floats by their bits (-0.0 is not 0.0), everything else as it is."""
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (list, tuple)):
        return [bits(v) for v in value]
    if isinstance(value, dict):
        return {k: bits(v) for k, v in value.items()}
    return value


def outcome(doc):
    """What a document's result holds, confidence pairs field by field (their order within a field kept)."""
    return bits(
        [
            doc.score,
            doc.field_scores,
            doc.tally,
            doc.score_sum,
            doc.score_n,
            [tuple(p) for p in sorted(doc.confidences, key=lambda p: p.field_index)],
            doc.errors,
            doc.predicted_leaves,
            doc.metadata,
            sorted(doc.similarity_bins),
            [(f.field, f.gt_rows, f.pred_rows, f.events, f.tau, f.unclassified) for f in doc.list_errors],
            doc.alternatives,
        ]
    )


def assert_same(plan, docs):
    scored = Engine(plan).score_batch(docs)
    assert len(scored) == len(docs)
    reference = Engine(plan)
    for d, (gt, pred) in enumerate(docs):
        expected = reference.compare(gt, pred)
        assert outcome(scored.document(d)) == outcome(expected), (d, gt, pred)
        assert_histogram_is_the_verdicts(plan, expected)
        assert scored.document(d).pairings is None
    # Asked how the lists' items were paired (--per-document lines): the same pairings, in the same order.
    paired = Engine(plan).score_batch(docs, pairings=True)
    for d, (gt, pred) in enumerate(docs):
        expected = reference.compare(gt, pred, pairings=True)
        got = paired.document(d)
        assert outcome(got) == outcome(expected), (d, gt, pred)
        assert bits([tuple(p) for p in got.pairings]) == bits([tuple(p) for p in expected.pairings]), (d, gt, pred)
        assert got.pairings.more == expected.pairings.more
    return scored


def assert_histogram_is_the_verdicts(plan, doc):
    """Each primitive field's similarity bins hold its TPs at or above the threshold's edge, its FDs below."""
    from stickler_cli.analyses.thresholds import Layout, verdict_bin

    layout = Layout(plan)
    for f in plan.fields:
        o = layout.offsets[f.index]
        if o < 0:
            continue
        local = [b - o for b in doc.similarity_bins if o <= b < o + layout.bins(f.index)]
        first_tp = verdict_bin(layout.edges[f.index], f.threshold)
        assert sum(b >= first_tp for b in local) == doc.tally[5 * f.index + 0], f.path
        assert sum(b < first_tp for b in local) == doc.tally[5 * f.index + 2], f.path


def state_bytes(acc: Accumulator) -> bytes:
    return orjson.dumps(acc.get_state(), option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_SORT_KEYS)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_batch_scores_every_document_as_the_per_document_engine(data):
    plan = compile_schema(data.draw(SCHEMAS, label="schema"))
    docs = data.draw(batches(plan), label="documents")
    assert_same(plan, docs)


@settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_long_lists_keep_their_own_matrices_and_lists_beyond_the_bound_go_document_by_document(data):
    """BATCH_PAIRS 2: most lists are scored in their own matrices; MATCH_BOUND 6: some lists take the
    bounded matching, which the batch leaves to Engine.compare."""
    plan = compile_schema(data.draw(SCHEMAS, label="schema"))
    docs = data.draw(batches(plan), label="documents")
    with (
        mock.patch.object(compare_module, "BATCH_PAIRS", 2),
        mock.patch.object(compare_module, "MATCH_BOUND", 6),
        mock.patch.object(matching_module, "MATCH_BOUND", 6),
    ):
        assert_same(plan, docs)


@settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_run_adds_up_to_the_same_state_batch_by_batch(data):
    """Accumulator.add_batch against add per document: the same state, byte for byte, with the confidence
    store folding (a low FOLD_AT) at the same documents."""
    plan = compile_schema(data.draw(SCHEMAS, label="schema"))
    docs = data.draw(batches(plan), label="documents") + data.draw(batches(plan), label="more")
    analysis = Collect(documents=True)
    with mock.patch.object(store_module, "FOLD_AT", data.draw(st.sampled_from([1, 3, 8]), label="fold at")):
        one, batched = Accumulator(plan, analysis), Accumulator(plan, analysis)
        engine = Engine(plan)
        for gt, pred in docs:
            one.add(engine.compare(gt, pred))
        split = data.draw(st.integers(0, len(docs)), label="split")
        for part in (docs[:split], docs[split:]):
            batched.add_batch(engine.score_batch(part))
    assert state_bytes(batched) == state_bytes(one)


@pytest.mark.parametrize(
    "schema",
    [
        "schemas/invoice.json",
        "schemas/shipment.json",
        "schemas/transactions.json",
        "schemas/parity_comparators.json",
        "schemas/parity_mix.json",
        "bench/invoice.schema.json",
    ],
)
def test_realistic_documents_score_the_same_in_batches(schema):
    """The repository's schemas with the fixtures' generator (typos, drift, reordered and dropped items)."""
    plan = load_schema(ROOT / schema)
    gen = Generator(seed=31, confidence=True, null_rate=0.15)
    docs = []
    for _ in range(300):
        gt = gen.document(plan.root)
        docs.append((gt, gen.predict(plan.root, gt)))
    scored = assert_same(plan, docs)
    assert scored.slow == 0  # nothing odd here: every document took the columnar path


def test_the_bench_documents_take_the_columnar_path_and_add_up_alike(tmp_path):
    """``evaluate_pairs`` (batches) against its former loop (a document at a time), worst documents included."""
    from bench.generate import write

    plan = load_schema(ROOT / "bench/invoice.schema.json")
    write(tmp_path, 300, seed=7)
    gts = [orjson.loads(line) for line in (tmp_path / "gt.jsonl").read_bytes().splitlines()]
    preds = [orjson.loads(line) for line in (tmp_path / "pred.jsonl").read_bytes().splitlines()]
    docs = list(zip(gts, preds))
    assert assert_same(plan, docs).slow == 0
    one = Accumulator(plan)
    engine = Engine(plan)
    for k, (gt, pred) in enumerate(docs, start=1):
        for key in ("gt_lines", "pred_lines", "paired"):
            one.stats[key] += 1
        one.add_conformance(engine.conformance.violations(pred))
        doc = engine.compare(gt, pred)
        one.add(doc, f"pair {k}")  # the id names the examples of cosmetic FDs
        if doc.list_errors:  # what went wrong in its lists
            one.add_list_errors(doc.list_errors, f"pair {k}", k - 1)
        if one.is_among_worst(doc.score):
            one.keep_worst(
                doc.score,
                {
                    "doc_id": f"pair {k}",
                    "gt_source": None,
                    "gt_line": k,
                    "pred_source": None,
                    "pred_line": k,
                    "gt": gt,
                    "pred": pred,
                },
            )
        if one.wants_failures(doc.tally):  # the sample of failing comparisons per field
            one.keep_failures(non_match_rows(engine, f"pair {k}", gt, pred)[0])
    assert state_bytes(evaluate_pairs(plan, docs)) == state_bytes(one)


class Brittle(Comparator):
    """Equality with a vectorised form; raises on the value 'boom', like a comparator with a bug."""

    name = "TestBatchBrittle"
    scores_cells = True

    def similarity(self, gt, pred):
        if pred == "boom":
            raise ValueError("cannot score boom")
        return 1.0 if gt == pred else 0.0


def test_a_comparator_failure_is_reported_with_its_own_document():
    """A failure anywhere in the batch sends every document through Engine.compare: each reports its own."""
    register(Brittle)
    try:
        plan = compile_schema(
            {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "x-aws-stickler-comparator": "TestBatchBrittle"},
                    "items": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"sku": {"type": "string", "x-aws-stickler-comparator": "TestBatchBrittle"}},
                        },
                    },
                },
            }
        )
        docs = [
            ({"code": "a", "items": [{"sku": "s"}]}, {"code": "a", "items": [{"sku": "boom" if k == 1 else "s"}]})
            for k in range(3)
        ]
        scored = assert_same(plan, docs)
        assert scored.errors == {1: ["items.sku: TestBatchBrittle failed, scored 0.0: ValueError: cannot score boom"]}
        assert scored.slow == 3
    finally:
        registry._BY_NAME.pop("TestBatchBrittle", None)


def test_odd_documents_alone_go_document_by_document():
    """A malformed confidence or a rich value with metadata: that document is Engine.compare's, the others not."""
    plan = compile_schema({"type": "object", "properties": {"name": {"type": "string"}, "qty": {"type": "number"}}})
    docs = [
        ({"name": "a", "qty": 1}, {"name": {"_value": "a", "_confidence": 0.9}, "qty": 1}),
        ({"name": "a", "qty": 1}, {"name": {"_value": "a", "_confidence": "high"}, "qty": 1}),
        ({"name": "a", "qty": 1}, {"name": "b", "qty": {"_value": 1, "_bbox": [0, 0, 1, 1]}}),
        ({"name": "a", "qty": 1}, {"name": {"_value": "a", "_confidence": 1}, "qty": 2}),
    ]
    scored = assert_same(plan, docs)
    assert scored.slow == 2
    assert scored.errors == {1: ['name: _confidence must be a number from 0 to 1, got "high"']}
    assert scored.metadata == {2: [(plan.root.field("qty").index, "qty", {"_bbox": [0, 0, 1, 1]})]}
    assert scored.confidence_counts.tolist() == [1, 0, 0, 1]  # the integer 1 is a confidence of 1.0


def test_an_item_pair_scoring_under_the_floor_adds_nothing():
    """A matched-or-not pair whose score is above 0 but below PAIR_FLOOR (0.01) counts 0 in the list's score."""
    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "x-aws-stickler-match-threshold": 0.0,
                        "properties": {
                            "tiny": {
                                "type": "string",
                                "x-aws-stickler-comparator": "ExactComparator",
                                "x-aws-stickler-weight": 0.001,
                            },
                            "big": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                        },
                    },
                }
            },
        }
    )
    docs = [
        (
            {"items": [{"tiny": "a", "big": "b"}, {"tiny": "c", "big": "d"}]},
            {"items": [{"tiny": "a", "big": "x"}, {"tiny": "c", "big": "d"}]},
        )
    ]
    scored = assert_same(plan, docs)
    assert scored.scores.tolist() == [0.5]  # (0 for the pair at 0.000999, 1.0) / 2


def test_sequential_sums_add_in_order_not_pairwise():
    """Pairwise summation (numpy's sum, bincount) would round 1e16 + 1 + 1 ... differently."""
    values = np.array([1e16] + [1.0] * 9 + [0.1, 0.2, 0.3] + [1e-17] * 70)
    owner = np.array([0] * 10 + [1] * 3 + [2] * 70)
    expected = []
    for o in range(3):
        total = 0.0
        for v, w in zip(values.tolist(), owner.tolist()):
            if w == o:
                total += v
        expected.append(total)
    assert sequential_sums(values, owner, 4).tolist() == expected + [0.0]
    assert sequential_sums(values[:13], owner[:13], 2).tolist() == expected[:2]  # in columns of an array
    assert np.add.reduce(values[:10]) != expected[0]  # what pairwise adding gives


def test_an_empty_batch():
    plan = compile_schema({"type": "object", "properties": {"name": {"type": "string"}}})
    scored = Engine(plan).score_batch([])
    assert len(scored) == 0 and scored.tally.shape == (0, 5)
    acc = Accumulator(plan)
    acc.add_batch(scored)
    assert acc.document_count == 0


SPACES = [" ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0", "\u2005", "\u3000", "\u200b"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(st.sampled_from(list("abAB1!é") + ["Ā", "😀"] + SPACES), max_size=14), min_size=1, max_size=8),
    st.lists(st.text(st.sampled_from(list("abAB1!é") + ["Ā", "😀"] + SPACES), max_size=14), min_size=1, max_size=8),
    st.booleans(),
)
def test_token_sort_cells_sort_each_text_once_and_equal_the_scorer(gts, preds, normalize):
    """FuzzyComparator's token_sort_ratio cells sort an ASCII text's words once (Python's split), then
    score with ratio: the same floats as token_sort_ratio pair by pair, whatever the spaces; a text that
    is not ASCII (rapidfuzz splits those on fewer spaces) is scored by token_sort_ratio itself."""
    from stickler_cli.comparators.fuzzy import FuzzyComparator

    comparator = FuzzyComparator(method="token_sort_ratio", normalize=normalize)
    rows = np.repeat(np.arange(len(gts)), len(preds))
    cols = np.tile(np.arange(len(preds)), len(gts))
    cells = comparator.similarity_cells(gts, preds, rows, cols).tolist()
    assert bits(cells) == bits([comparator.similarity(gts[i], preds[j]) for i, j in zip(rows, cols)])


# -- the run around the engine ---------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["id", "ID", "doc_id", "docId", "name", "Document-ID", "uuid", "record_id", "x", "_id"]),
            st.just(1),
            max_size=5,
        ),
        min_size=1,
        max_size=12,
    )
)
def test_id_keys_by_shape_equal_the_search_record_by_record(records):
    """The reader finds each record's id field once per shape of record (its keys in order), not key by key; and
    the field a ground truth and a prediction share, names folded on both sides (``doc_id`` and ``docId``)."""
    from stickler_cli.run.reader import ID_FIELDS, _id_key, _IdKeys

    names = {name.replace("_", ""): rank for rank, name in enumerate(ID_FIELDS)}

    def rank(key):
        return names.get(key.lower().replace("_", "").replace("-", ""), len(ID_FIELDS))

    def shared(record, other):  # the best-ranked id key of record that other spells alike, else folded alike
        for _, _, key in sorted((rank(k), n, k) for n, k in enumerate(record) if rank(k) < len(ID_FIELDS)):
            if key in other:
                return key, key
            spelled = [o for o in other if rank(o) == rank(key)]
            if spelled:
                return key, spelled[0]
        return None

    keys, ranks = _IdKeys(), {}
    for record, other in zip(records, records[1:] + records[:1]):
        assert keys(record) == _id_key(record, ranks)
        assert keys.pair(record, other) == shared(record, other)


def test_worst_bound_says_which_scores_need_no_look():
    plan = compile_schema({"type": "object", "properties": {"name": {"type": "string"}}})
    for keep in (0, 1, 3):
        acc = Accumulator(plan, Collect(worst=keep))
        for k, score in enumerate([0.5, 0.9, 0.1, 0.7, 0.1, 1.0, 0.3]):
            bound = acc.worst_bound()
            for probe in (0.0, 0.1, 0.3, 0.5, 0.7, 1.0):
                assert acc.is_among_worst(probe) == (probe < bound)
            acc.document_count += 1
            if acc.is_among_worst(score):
                acc.keep_worst(score, {"k": k})


class _Text(str):
    """A str subclass: its exact type is not str, so null_mask must not take the mapped path for it."""


class _Items(list):
    pass


class _Object(dict):
    pass


_NULLABLE = st.one_of(
    st.none(),
    st.sampled_from(["", " ", "a", _Text(""), _Text("b")]),
    st.booleans(),
    st.sampled_from([0, 1, 0.0, -0.0, 2.5, math.nan, math.inf]),
    st.sampled_from([[], [0], {}, {"a": 1}, _Items(), _Items([1]), _Object(), _Object(a=1)]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_NULLABLE, max_size=12))
def test_null_mask_reads_null_as_each_kind_means_it(values: list) -> None:
    """items.null_mask, mapped in C or not, equals values.is_null / is_null_list / ``is None`` value by value,
    whatever types a column mixes (False, 0 and 0.0 are values; a str subclass is read by its own rules)."""
    from stickler_cli.engine.items import null_mask
    from stickler_cli.engine.values import is_null, is_null_list
    from stickler_cli.plan import Kind

    for kind, rule in (
        (Kind.PRIMITIVE, is_null),
        (Kind.PRIMITIVE_LIST, is_null_list),
        (Kind.OBJECT_LIST, is_null_list),
        (Kind.OBJECT, lambda v: v is None),
    ):
        expected = [rule(v) for v in values]
        assert null_mask(values, kind).tolist() == expected
        assert null_mask(values, kind, set(map(type, values))).tolist() == expected


def test_null_mask_maps_in_c_where_the_types_allow() -> None:
    """Worked by hand: strings with None and empties, numbers with None, lists with None."""
    from stickler_cli.engine.items import null_mask
    from stickler_cli.plan import Kind

    assert null_mask(["a", "", None, " ", [], {}]).tolist() == [False, True, True, False, True, True]
    assert null_mask([0, 0.0, None, False, 3]).tolist() == [False, False, True, False, False]
    assert null_mask([[], None, [1], "x", ""], Kind.PRIMITIVE_LIST).tolist() == [True, True, False, False, False]
    assert null_mask([{}, None, [], ""], Kind.OBJECT).tolist() == [False, True, False, False]
