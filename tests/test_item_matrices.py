"""The batched object-list matrices equal pair-by-pair scoring to the last bit.

The engine scores every gt item against every pred item a field at a time
(``Engine._item_matrices``); small lists go pair by pair through ``_model``.
Both must give identical floats, or results would depend on list length.
Numeric comparators decide pairs in float64 and fall back to Decimal near a
tolerance: their matrix must equal their pair-by-pair similarity too.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from stickler_cli import load_schema
from stickler_cli.comparators.numeric import NumericComparator
from stickler_cli.engine import Engine
from stickler_cli.engine import compare as compare_module
from stickler_cli.engine.values import unwrap
from stickler_cli.plan import Kind
from tests.support.datagen import Generator

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ["schemas/invoice.json", "schemas/shipment.json", "schemas/transactions.json", "schemas/parity_comparators.json",
           "schemas/parity_mix.json", "bench/invoice.schema.json"]


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
            docs, sims, _ = engine._item_matrices(f.model, gv, pv)
            for i, a in enumerate(gv):
                for j, b in enumerate(pv):
                    doc, sim = engine._model(f.model, a, b, None)
                    assert docs[i, j] == doc and sims[i, j] == sim, (schema, f.path, a, b)
                    checked += 1
    assert checked > 500


def _number(rng: random.Random):
    base = rng.choice([0, 1, 100, 1247.5, 1e-5, 12345678.91, -3, 2 ** 60, 2 ** 53 + 1, 0.1])
    roll = rng.random()
    if roll < 0.2:
        return base
    if roll < 0.4:
        return round(base + rng.choice([0.01, -0.01, 0.02, 0.001, 0.0001, 0.1, 0.3]), 6)
    if roll < 0.5:
        return str(base)
    if roll < 0.55:
        return rng.choice(["n/a", None, "", "$1,247.50", "(12.50)", "1e400", "nan", "inf", True, [1], {"a": 1},
                           float("inf"), float("nan"), 10 ** 400])
    if roll < 0.7:
        return base * (1 + rng.choice([0.001, -0.001, 0.0011, 0.3, 1e-12]))
    return rng.uniform(-10, 10)


@pytest.mark.parametrize("config", [{}, {"absolute_tolerance": 0.01}, {"relative_tolerance": 0.001},
                                    {"absolute_tolerance": 0.02, "relative_tolerance": 0.3}, {"tolerance": 0.3}])
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


def test_numeric_edge_cases_by_hand():
    """Decimal semantics survive the float fast path: 1247.50 vs 1247.48 with tolerance 0.02 is inside."""
    near = NumericComparator(absolute_tolerance=0.02)
    assert near.similarity(1247.50, 1247.48) == 1.0
    assert near.similarity(1247.50, 1247.47) == 0.0
    assert NumericComparator(relative_tolerance=0.1).similarity(10, 11) == 1.0  # exactly 10 %
    assert NumericComparator().similarity(2 ** 53 + 1, float(2 ** 53)) == 0.0  # beyond float precision
    big = [float(i) for i in range(12)]
    assert np.asarray(near.similarity_matrix(big, [x + 0.02 for x in big])).diagonal().tolist() == [1.0] * 12
