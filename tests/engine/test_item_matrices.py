"""The batched object-list matrices equal pair-by-pair scoring to the last bit.

The engine scores every gt item against every pred item a field at a time:
for one list (``Engine.item_matrices``) or for all the lists of a batch of
documents (``Engine.prepare``); small lists go pair by pair through
``_model``. All must give identical floats, or results would depend on list
length or on which documents were read together. Comparators' vectorised
forms (matrices, cells) must equal their pair-by-pair similarity too.
"""

from __future__ import annotations

import math
import random
import sys
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from rapidfuzz import fuzz

from stickler_cli import load_schema
from stickler_cli.comparators import Comparator, register, registry
from stickler_cli.comparators.exact import ExactComparator
from stickler_cli.comparators.fuzzy import FuzzyComparator, _sorted_words
from stickler_cli.comparators.levenshtein import LevenshteinComparator
from stickler_cli.comparators.numeric import NumericComparator, parse_number, _floats as numeric_floats
from stickler_cli import compile_schema
from stickler_cli.engine import Engine
from stickler_cli.engine import compare as compare_module
from stickler_cli.engine.values import unwrap
from stickler_cli.plan import Kind
from tests.support.datagen import Generator

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = [
    "schemas/invoice.json",
    "schemas/shipment.json",
    "schemas/transactions.json",
    "schemas/parity_comparators.json",
    "schemas/parity_mix.json",
    "bench/invoice.schema.json",
]


def _object_lists(model):
    for f in model.fields:
        if f.kind is Kind.OBJECT_LIST:
            yield f
        if f.model is not None:
            yield from _object_lists(f.model)


@pytest.mark.parametrize("schema", SCHEMAS)
def test_item_matrices_equal_pair_by_pair(schema, monkeypatch):
    monkeypatch.setattr(compare_module, "SMALL_MATRIX", 0)  # always the batched path
    plan = load_schema(ROOT / schema)
    engine = Engine(plan)
    lists = list(_object_lists(plan.root))
    assert lists, schema
    gen = Generator(seed=11, confidence=True, null_rate=0.15)
    checked = 0
    for f in lists:
        for _ in range(60):
            n, m = gen.rng.randint(1, 9), gen.rng.randint(1, 9)
            gt_items = [gen.document(f.model) for _ in range(n)]
            pred_items = [gen.predict(f.model, gen.rng.choice(gt_items)) for _ in range(m)]
            if gen.rng.random() < 0.2:
                pred_items[0] = "not an object"  # a stray value where an item belongs
            gv = [unwrap(v)[0] for v in gt_items]
            pv = [unwrap(v)[0] for v in pred_items]
            docs, sims, _ = engine.item_matrices(f.model, gv, pv)
            for i, a in enumerate(gv):
                for j, b in enumerate(pv):
                    doc, sim = engine._model(f.model, a, b, None)
                    assert docs[i, j] == doc and sims[i, j] == sim, (schema, f.path, a, b)
                    checked += 1
    assert checked > 500


def _every_pair(n: int, m: int) -> tuple[list[int], list[int]]:
    """(rows, cols) of every pair of an n × m grid, row by row."""
    return [i for i in range(n) for _ in range(m)], [j for _ in range(n) for j in range(m)]


def _number(rng: random.Random):
    base = rng.choice([0, 1, 100, 1247.5, 1e-5, 12345678.91, -3, 2**60, 2**53 + 1, 0.1])
    roll = rng.random()
    if roll < 0.2:
        return base
    if roll < 0.4:
        return round(base + rng.choice([0.01, -0.01, 0.02, 0.001, 0.0001, 0.1, 0.3]), 6)
    if roll < 0.5:
        return str(base)
    if roll < 0.55:
        return rng.choice(
            [
                "n/a",
                None,
                "",
                "$1,247.50",
                "(12.50)",
                "1e400",
                "nan",
                "inf",
                True,
                [1],
                {"a": 1},
                float("inf"),
                float("nan"),
                10**400,
            ]
        )
    if roll < 0.7:
        return base * (1 + rng.choice([0.001, -0.001, 0.0011, 0.3, 1e-12]))
    return rng.uniform(-10, 10)


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"absolute_tolerance": 0.01},
        {"relative_tolerance": 0.001},
        {"absolute_tolerance": 0.02, "relative_tolerance": 0.3},
        {"tolerance": 0.3},
    ],
)
def test_numeric_matrix_equals_pair_by_pair(config):
    """Both the small (pair by pair) and the array path, on values that sit on tolerance edges."""
    comparator = NumericComparator(**config)
    rng = random.Random(5)
    for _ in range(300):
        gts = [_number(rng) for _ in range(rng.randint(1, 14))]
        preds = [_number(rng) for _ in range(rng.randint(1, 14))]
        matrix = np.asarray(comparator.similarity_matrix(gts, preds))
        for i, g in enumerate(gts):
            for j, p in enumerate(preds):
                assert matrix[i, j] == comparator.similarity(g, p), (config, g, p)


def test_numeric_texts_that_read_as_a_float_are_that_float():
    """A numeric text whose Decimal is a float's own ("1,130.14", "(12.5)", "22") takes the float fast path as that
    float; one that is not ("0.1000000000000000000001", an integer beyond 2**53) stays with the Decimal rule. Either
    way every cell is the pair's own similarity, on tolerance edges written as texts."""
    values, plain = numeric_floats(
        ["1,130.14", "(12.5)", "22", "-0", "0.1000000000000000000001", "9007199254740993", "1" + "0" * 400, "n/a", 0.1]
    )
    assert plain.tolist() == [True, True, True, True, False, False, False, False, True]
    assert values[:4].tolist() == [1130.14, -12.5, 22.0, 0.0] and math.isnan(values[6]) and math.isnan(values[7])
    rng = random.Random(9)
    bases = [0, 1, 100, 1247.5, 1e-5, 12345678.91, -3, 0.1, 2**53 - 1]
    steps = [0.0, 0.01, -0.01, 0.02, 0.001, 0.3, 1e-12, 0.0011]
    for config in ({}, {"absolute_tolerance": 0.01}, {"relative_tolerance": 0.001}, {"tolerance": 0.3}):
        comparator = NumericComparator(**config)
        for _ in range(40):
            drawn = [
                round(rng.choice(bases) * (1 + rng.choice(steps)) + rng.choice(steps), rng.choice([2, 6, 12]))
                for _ in range(24)
            ]
            texts = [
                rng.choice([v, repr(v), f"{v:,}", f"${v:,.2f}", f"{v:.20f}", f"({-v})" if v < 0 else str(v)])
                for v in drawn
            ]
            gts, preds = texts[:12], texts[12:]
            rows, cols = _every_pair(12, 12)
            cells = comparator.similarity_cells(gts, preds, rows, cols).tolist()
            assert cells == [comparator.similarity(gts[i], preds[j]) for i, j in zip(rows, cols)], config


def test_short_decimal_texts_are_read_without_decimal_as_decimal_reads_them():
    """_floats reads a numeric text of at most 15 digits with float() alone; on random texts over the characters a
    number's text holds, each value and its plainness are what Decimal's reading gives (parse_number, then plain
    when the Decimal is its float's own)."""
    rng = random.Random(13)
    texts = ["".join(rng.choice("0123456789.-,()$ ") for _ in range(rng.randint(1, 22))) for _ in range(20000)]
    texts += [
        "-0",
        "(0)",
        "(-5)",
        "5.",
        ".5",
        "-.5",
        "999999999999999",
        "9999999999999999",
        "0.00000000000001",
        "0.000000000000001",
        "123456789012.345",
        "1234567890123.456",
    ]
    values, plain = numeric_floats(texts)
    for text, value, is_plain in zip(texts, values.tolist(), plain.tolist()):
        number = parse_number(text)
        if number is None or not number.is_finite():
            assert math.isnan(value) and not is_plain, text
        else:
            assert value == float(number) and is_plain == (abs(value) < 2**53 and Decimal(repr(value)) == number), text


def test_numeric_edge_cases_by_hand():
    """Decimal semantics survive the float fast path: 1247.50 vs 1247.48 with tolerance 0.02 is inside."""
    near = NumericComparator(absolute_tolerance=0.02)
    assert near.similarity(1247.50, 1247.48) == 1.0
    assert near.similarity(1247.50, 1247.47) == 0.0
    assert NumericComparator(relative_tolerance=0.1).similarity(10, 11) == 1.0  # exactly 10 %
    assert NumericComparator().similarity(2**53 + 1, float(2**53)) == 0.0  # beyond float precision
    big = [float(i) for i in range(12)]
    assert np.asarray(near.similarity_matrix(big, [x + 0.02 for x in big])).diagonal().tolist() == [1.0] * 12


def _documents(plan, gen: Generator, count: int) -> list[tuple[dict, dict]]:
    docs = []
    for k in range(count):
        gt = gen.document(plan.root)
        pred = gen.predict(plan.root, gt)
        if k % 17 == 5:  # stray values where lists and objects belong
            for f in plan.root.fields:
                if f.kind is Kind.OBJECT_LIST and f.key in pred:
                    pred[f.key] = pred[f.key][0] if pred[f.key] else "not a list"
                elif f.kind is Kind.OBJECT and f.key in gt:
                    gt[f.key] = "not an object"
        docs.append((gt, pred))
    return docs


def _outcome(doc):
    return (
        doc.score,
        doc.field_scores,
        doc.tally,
        doc.score_sum,
        doc.score_n,
        doc.confidences,
        doc.errors,
        doc.predicted_leaves,
    )


@pytest.mark.parametrize("batch_pairs", [compare_module.BATCH_PAIRS, 4])
@pytest.mark.parametrize("schema", SCHEMAS)
def test_a_prepared_batch_scores_exactly_as_document_by_document(schema, batch_pairs, monkeypatch):
    """Lists scored a batch at a time (one comparator call per field for all documents) change nothing;
    with a low BATCH_PAIRS longer lists are left to their own matrices within the same batch."""
    monkeypatch.setattr(compare_module, "BATCH_PAIRS", batch_pairs)
    plan = load_schema(ROOT / schema)
    docs = _documents(plan, Generator(seed=23, confidence=True, null_rate=0.15), 120)
    alone = Engine(plan)
    expected = [_outcome(alone.compare(gt, pred)) for gt, pred in docs]
    batched = Engine(plan)
    batched.prepare(docs)
    if batched._routes:
        assert batched._prepared, "the batch path was not taken"
    assert [_outcome(batched.compare(gt, pred)) for gt, pred in docs] == expected
    batched.prepare(docs[::-1][:40])  # a new batch replaces the old one
    assert [_outcome(batched.compare(gt, pred)) for gt, pred in docs] == expected


def test_the_bench_schema_batches_its_line_items():
    plan = load_schema(ROOT / "bench/invoice.schema.json")
    assert [f.path for _, f in Engine(plan)._routes] == ["line_items"]


def _text_value(rng: random.Random):
    return rng.choice(
        [
            "Blue Widget",
            "blue widget",
            "Blue  Widget!",
            "",
            " ",
            "widget blue",
            "Bolt",
            "BOLT-7",
            "Acme, Inc.",
            12,
            12.5,
            True,
            10**5000,
            {"a": 1},
            [1, 2],
            "é",
            "Ünïcode",
        ]
    )


@pytest.mark.parametrize(
    "comparator",
    [
        ExactComparator(),
        ExactComparator(case_sensitive=True, normalize=False),
        LevenshteinComparator(),
        LevenshteinComparator(normalize=False),
        FuzzyComparator(),
        FuzzyComparator(method="token_sort_ratio"),
        FuzzyComparator(method="partial_ratio", normalize=False),
        FuzzyComparator(method="token_set_ratio"),
        NumericComparator(),
        NumericComparator(absolute_tolerance=0.01),
        NumericComparator(relative_tolerance=0.001),
    ],
    ids=repr,
)
def test_cells_and_matrices_equal_pair_by_pair(comparator):
    """Including values with no text form (a 5,000-digit integer), empty strings, objects and arrays."""
    rng = random.Random(3)
    draw = _number if isinstance(comparator, NumericComparator) else _text_value
    for _ in range(150):
        gts = [draw(rng) for _ in range(rng.randint(1, 6))]
        preds = [draw(rng) for _ in range(rng.randint(1, 6))]
        expected = [[comparator.similarity(g, p) for p in preds] for g in gts]
        assert np.asarray(comparator.similarity_matrix(gts, preds)).tolist() == expected
        rows = [rng.randrange(len(gts)) for _ in range(10)]
        cols = [rng.randrange(len(preds)) for _ in range(10)]
        cells = np.asarray(comparator.similarity_cells(gts, preds, rows, cols), dtype=float).tolist()
        assert cells == [expected[i][j] for i, j in zip(rows, cols)]


def test_token_sort_cells_agree_however_many_pairs_a_text_is_in():
    """token_sort_ratio cells are made two ways (_token_sort_cells): texts in about one pair each go to
    rapidfuzz's token_sort_ratio whole; texts in many pairs have their words sorted once first. Both give each
    pair's own similarity, non-ASCII text, values with no text and empty strings included."""
    comparator = FuzzyComparator(method="token_sort_ratio")
    rng = random.Random(5)
    gts = [_text_value(rng) for _ in range(12)]
    preds = [_text_value(rng) for _ in range(12)]
    expected = [[comparator.similarity(g, p) for p in preds] for g in gts]
    one_each = list(range(12))  # 12 pairs of 24 texts: the first way
    for rows, cols in ((one_each, one_each[::-1]), _every_pair(12, 12)):  # then 144 pairs of 24 texts: the second
        cells = np.asarray(comparator.similarity_cells(gts, preds, rows, cols), dtype=float).tolist()
        assert cells == [expected[i][j] for i, j in zip(rows, cols)]
    # The second way with every text sorted (accents too), with none (a no-break space in each one-byte text), and a
    # single value that has no text among many pairs (only its own pairs go to token_sort_ratio).
    ascii_texts = ["Blue Widget", "widget blue", "Bolt  7", "Acme, Inc.", "inc acme"]
    for gts, preds in (
        (ascii_texts, ascii_texts[::-1]),
        (["é b a", "Ünï", "ça va"], ["a b é", "ïnÜ"]),
        (["é\xa0b a", "b\xa0a", "ça\xa0va"], ["a b\xa0é", "a\xa0b"]),
        (ascii_texts, ascii_texts[:2] + [10**5000] + ascii_texts[3:]),
    ):
        rows, cols = _every_pair(len(gts), len(preds))
        cells = np.asarray(comparator.similarity_cells(gts, preds, rows, cols), dtype=float).tolist()
        assert cells == [comparator.similarity(gts[i], preds[j]) for i, j in zip(rows, cols)]
    assert comparator.similarity_cells(["Blue Widget"], ["widget blue", 10**5000], [0, 0, 0], [0, 1, 0]).tolist() == [
        1.0,
        0.0,
        1.0,
    ]


def test_words_are_sorted_as_rapidfuzz_sorts_them_at_every_width_of_text():
    """_sorted_words splits as token_sort_ratio does for every text it accepts: texts of one-byte, two-byte and
    four-byte characters, with each of Python's spaces. rapidfuzz reads U+0085 and U+00A0 as letters in a text of
    one-byte characters only: such texts holding them are refused, and their pairs scored by token_sort_ratio."""
    spaces = [c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace()]
    assert {"\x85", "\xa0"} < set(spaces)
    assert fuzz.token_sort_ratio("b\xa0a", "a b") < 100 and _sorted_words("b\xa0a") is None
    assert fuzz.token_sort_ratio("b\xa0aĀ", "aĀ b") == 100 and _sorted_words("b\xa0aĀ") == "aĀ b"
    one_byte = list("abAB éßÿ\x00\x7f") + [c for c in spaces if c <= "\xff"]
    wide = one_byte + list("€日本Ā") + ["\U0001f600"] + spaces
    rng = random.Random(11)
    texts = ["".join(rng.choice(rng.choice([one_byte, wide])) for _ in range(rng.randint(0, 10))) for _ in range(4000)]
    refused = 0
    for a, b in zip(texts[::2], texts[1::2]):
        left, right = _sorted_words(a), _sorted_words(b)
        for text, words in ((a, left), (b, right)):
            assert (words is None) == (bool({"\x85", "\xa0"} & set(text)) and max(text) <= "\xff"), text
        if left is None or right is None:
            refused += 1
        else:
            assert fuzz.ratio(left, right) == fuzz.token_sort_ratio(a, b), (a, b)
    assert 100 < refused < 1000  # both ways were taken
    comparator = FuzzyComparator(method="token_sort_ratio", normalize=False)
    gts, preds = texts[:30], texts[30:60]
    rows, cols = _every_pair(30, 30)
    cells = np.asarray(comparator.similarity_cells(gts, preds, rows, cols), dtype=float).tolist()
    assert cells == [comparator.similarity(gts[i], preds[j]) for i, j in zip(rows, cols)]


def test_a_value_with_no_text_scores_zero_in_a_matrix():
    """rapidfuzz leaves a None row of a cdist matrix unset; the comparators must not read it."""
    for comparator in (LevenshteinComparator(), FuzzyComparator()):
        assert np.asarray(comparator.similarity_matrix([10**5000, "ab"], ["ab", 10**5000])).tolist() == [
            [0.0, 0.0],
            [1.0, 0.0],
        ]


class Brittle(Comparator):
    """Equality with a vectorised form; raises on the value 'boom', like a comparator with a bug."""

    name = "TestBrittle"
    scores_cells = True

    def similarity(self, gt, pred):
        if pred == "boom":
            raise ValueError("cannot score boom")
        return 1.0 if gt == pred else 0.0


def test_a_failure_in_a_prepared_batch_is_reported_with_its_own_document():
    register(Brittle)
    try:
        plan = compile_schema(
            {
                "type": "object",
                "properties": {
                    "items": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "sku": {"type": "string", "x-aws-stickler-comparator": "TestBrittle"},
                                "qty": {"type": "number"},
                            },
                        },
                    }
                },
            }
        )
        docs = [
            (
                {"items": [{"sku": f"s{k}", "qty": k}, {"sku": "x", "qty": 1}]},
                {"items": [{"sku": "boom" if k == 2 else f"s{k}", "qty": k}]},
            )
            for k in range(4)
        ]
        engine = Engine(plan)
        engine.prepare(docs)
        assert not engine._prepared  # the batch gave up: the per-document path reports
        results = [engine.compare(gt, pred) for gt, pred in docs]
        assert [r.errors for r in results] == [
            [],
            [],
            ["items.sku: TestBrittle failed, scored 0.0: ValueError: cannot score boom"],
            [],
        ]
        assert [r.tally[5 * plan.root.field("items").index] for r in results] == [1, 1, 0, 1]  # TP pairs
    finally:
        registry._BY_NAME.pop("TestBrittle", None)


def test_a_batch_of_one_item_pair_adds_fields_in_order():
    """Nine fields and a single item pair: numpy's sum would add pairwise and change the last bit,
    turning a similarity of exactly 0.5 minus one ulp into 0.5 (found in review)."""
    weights = [1.1, 1.3, 0.45, 1.3, 0.45, 1.1, 1.1, 0.7, 0.1]
    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "x-aws-stickler-match-threshold": 0.5,
                        "properties": {
                            f"f{k}": {
                                "type": "string",
                                "x-aws-stickler-comparator": "ExactComparator",
                                "x-aws-stickler-weight": w,
                            }
                            for k, w in enumerate(weights)
                        },
                    },
                }
            },
        }
    )
    gt = {"items": [{f"f{k}": "a" for k in range(9)}]}
    pred = {"items": [{f"f{k}": "b" if k in (1, 3, 6, 8) else "a" for k in range(9)}]}
    alone = Engine(plan).compare(gt, pred)
    batched = Engine(plan)
    batched.prepare([(gt, pred)])
    assert batched._prepared
    assert _outcome(batched.compare(gt, pred)) == _outcome(alone)
    items = plan.root.field("items").index
    assert alone.tally[5 * items : 5 * items + 2] == [0, 0] and alone.tally[5 * items + 2] == 1  # FD: below 0.5
