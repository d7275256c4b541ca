"""report/agreement.py: Cohen's kappa equal to scikit-learn's, Krippendorff's alpha worked by hand, intervals
drawn as report/statistics.py draws them, and which fields are categorical (issue 42, item 4)."""

import json

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from stickler_cli.engine import Engine
from stickler_cli.errors import UsageError
from stickler_cli.report import agreement
from stickler_cli.schema import load_schema

SCHEMA = {
    "type": "object",
    "properties": {
        "category": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "vendor": {
            "type": "string",
            "x-aws-stickler-comparator": "LevenshteinComparator",
            "x-aws-stickler-threshold": 0.8,
        },
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
            },
        },
    },
}


def _plan(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCHEMA))
    return load_schema(str(path), {}, False)


def _documents(plan, annotations):
    found = agreement.leaves(plan)
    engine = Engine(plan)
    docs = [
        agreement.document(f"d{k}", records, found, engine.compare)
        for k, records in enumerate(zip(*annotations), start=1)
    ]
    return found, docs


def _by_field(result):
    return {entry["field"]: entry for entry in result}


def test_categorical_fields_are_exact_comparator_fields_outside_lists(tmp_path):
    found = agreement.leaves(_plan(tmp_path))
    assert [(leaf.path, leaf.categorical, leaf.keys) for leaf in found] == [
        ("category", True, ("category",)),
        ("vendor", False, ("vendor",)),
        ("items", False, ("items",)),  # a list of objects: a row of its own (its items, matched or not)
        ("items.sku", False, ("items",)),  # inside a list: not categorical; shown as the whole list
    ]


@pytest.mark.parametrize("seed", range(5))
def test_kappa_equals_scikit_learns_on_random_labels(tmp_path, seed):
    rng = np.random.default_rng(seed)
    plan = _plan(tmp_path)
    choices = ["food", "travel", "office", None]
    a = [{"category": choices[k]} for k in rng.integers(0, 4, 40)]
    b = [dict(r) if rng.random() < 0.6 else {"category": choices[k]} for r, k in zip(a, rng.integers(0, 4, 40))]
    found, docs = _documents(plan, [a, b])
    kappa = _by_field(agreement.figures(docs, found, 2))["category"]["kappa"]
    labels = [[str(r["category"]) for r in side] for side in (a, b)]
    assert kappa == pytest.approx(cohen_kappa_score(*labels), abs=1e-12)


def test_kappa_of_one_category_is_undefined_as_scikit_learns(tmp_path):
    found, docs = _documents(_plan(tmp_path), [[{"category": "food"}] * 3, [{"category": "food"}] * 3])
    entry = _by_field(agreement.figures(docs, found, 2))["category"]
    assert entry["agreement"] == 1.0 and entry["kappa"] is None
    with pytest.warns(Warning):
        assert np.isnan(cohen_kappa_score(["food"] * 3, ["food"] * 3))


def test_alpha_and_agreement_of_three_annotators_worked_by_hand(tmp_path):
    """Four documents, three annotators (f food, t travel, o office):
    d1 f f f, d2 f t f, d3 o o t, d4 t t t. Coincidences (each ordered pair of a unit's values, weight
    1/(3-1)): ff 3+1 = 4, ft = tf = 1, oo 1, ot = to = 1, tt 3. n_f = 5, n_t = 5, n_o = 2, n = 12.
    alpha = 1 - (n-1) * (off-diagonal 4) / (n^2 - sum n_c^2 = 144 - 54 = 90) = 1 - 44/90 = 23/45.
    Agreement: 6 ordered pairs a document, agreeing 6, 2, 2, 6: 16/24."""
    rows = [("food", "food", "food"), ("food", "travel", "food"), ("office", "office", "travel")]
    rows.append(("travel", "travel", "travel"))
    annotations = [[{"category": row[k]} for row in rows] for k in range(3)]
    found, docs = _documents(_plan(tmp_path), annotations)
    entry = _by_field(agreement.figures(docs, found, 3))["category"]
    assert entry["alpha"] == pytest.approx(23 / 45, abs=1e-12)
    assert entry["agreement"] == pytest.approx(16 / 24, abs=1e-12)
    assert "kappa" not in entry and entry["comparisons"] == 24


def test_agreement_counts_list_items_and_nulls(tmp_path):
    """d1 items [A, B] against [A]: in each direction the engine matches one item pair (TP) and leaves one item
    unmatched (FN, then FA): 2 of 4 on the list's row; the items' field, sku, counts the matched pair only:
    2 of 2. d2 has no items on either side: a TN of the list, 2 of 2 more. vendor: both null in d1 (TN,
    agreement), one null in d2 (FN, then FA): 2 of 4."""
    a = [{"items": [{"sku": "A"}, {"sku": "B"}], "vendor": None}, {"vendor": "Acme"}]
    b = [{"items": [{"sku": "A"}], "vendor": None}, {"vendor": None}]
    found, docs = _documents(_plan(tmp_path), [a, b])
    fields = _by_field(agreement.figures(docs, found, 2))
    assert (fields["items"]["agreement"], fields["items"]["comparisons"]) == (4 / 6, 6)
    assert (fields["items.sku"]["agreement"], fields["items.sku"]["comparisons"]) == (1.0, 2)
    assert (fields["vendor"]["agreement"], fields["vendor"]["comparisons"]) == (2 / 4, 4)
    shown, more = agreement.disagreements(docs, found, 1)
    assert shown == [{"document": "d1", "field": "items", "values": [a[0]["items"], b[0]["items"]]}]
    assert more == 1  # d2's vendor, counted, not listed


def test_intervals_are_percentiles_of_the_same_resamples_as_statistics_draws(tmp_path):
    """The agreement interval recomputed here from the documents the seeded generator draws."""
    rng = np.random.default_rng(7)
    a = [{"category": ["x", "y"][k]} for k in rng.integers(0, 2, 30)]
    b = [{"category": ["x", "y"][k]} for k in rng.integers(0, 2, 30)]
    found, docs = _documents(_plan(tmp_path), [a, b])
    entry = _by_field(agreement.figures(docs, found, 2, level=0.9, n_resamples=200, seed=3))["category"]
    same = np.array([r["category"] == s["category"] for r, s in zip(a, b)], dtype=float)
    draws = np.random.default_rng(3).integers(0, 30, (200, 30))
    expected = np.percentile(same[draws].mean(axis=1), [5, 95])
    assert entry["ci"]["agreement"] == pytest.approx(list(expected), abs=1e-12)
    low, high = entry["ci"]["kappa"]
    assert low <= entry["kappa"] <= high


def test_gates_parse_check_and_refuse(tmp_path):
    found, docs = _documents(_plan(tmp_path), [[{"category": "a"}, {"category": "b"}], [{"category": "a"}] * 2])
    result = agreement.figures(docs, found, 2)
    gates = [agreement.parse_gate(g) for g in ("category.agreement=0.5", "category.kappa=0.1", "*.kappa=0")]
    outcome = [(r["gate"], r["actual"], r["status"]) for r in agreement.check_gates(gates, result)]
    # kappa: po 1/2, pe 1/2 * 1 = 1/2: kappa 0. vendor is not categorical: the glob *.kappa skips it.
    assert outcome == [
        ("category.agreement >= 0.5", 0.5, "passed"),
        ("category.kappa >= 0.1", 0.0, "failed"),
        ("category.kappa >= 0", 0.0, "passed"),
    ]
    agreement.check_gate_fields(gates, found, 2)  # each can be measured
    with pytest.raises(UsageError, match="'vendor.kappa': vendor has no kappa: kappa and alpha are measured on"):
        agreement.check_gate_fields([agreement.parse_gate("vendor.kappa=0")], found, 2)
    with pytest.raises(UsageError, match="kappa .* compares two annotators and there are 3; gate alpha instead"):
        agreement.check_gate_fields([agreement.parse_gate("category.kappa=0")], found, 3)
    with pytest.raises(UsageError, match="matches no categorical field"):
        agreement.check_gate_fields([agreement.parse_gate("vend*.alpha=0")], found, 2)
    # one category only (every value "a"): kappa is undefined, a failed gate for lack of data
    found, docs = _documents(_plan(tmp_path), [[{"category": "a"}] * 2] * 2)
    alone = agreement.check_gates(gates[1:2], agreement.figures(docs, found, 2))
    assert [(r["actual"], r["status"]) for r in alone] == [(None, "failed")]
    passing = agreement.check_gates(gates[1:2], agreement.figures(docs, found, 2), no_data_passes=True)
    assert passing[0]["status"] == "no data"
    for bad in ("category.f1=0.5", "category=0.5", "category.kappa=x", "category.kappa=2"):
        with pytest.raises(UsageError):
            agreement.parse_gate(bad)
    with pytest.raises(UsageError, match="matches no field"):
        agreement.check_gates([agreement.parse_gate("nothing.kappa=0.5")], result)


def test_no_document_gives_no_figure(tmp_path):
    found = agreement.leaves(_plan(tmp_path))
    result = _by_field(agreement.figures([], found, 2, level=0.9))
    assert result["category"]["agreement"] is None and result["category"]["kappa"] is None
    assert result["category"]["ci"] == {"agreement": None, "kappa": None, "alpha": None}


def test_categories_are_the_comparators_so_kappa_and_agreement_agree(tmp_path):
    """ExactComparator folds case and drops punctuation by default: "Food" and "food." are one category, as the
    agreement counts them. Labels a: food food travel office, b: Food. food office office; as categories
    (food, food, travel, office) and (food, food, office, office): scikit-learn's kappa of those."""
    a = [{"category": v} for v in ("food", "food", "travel", "office")]
    b = [{"category": v} for v in ("Food.", "food", "office", "office")]
    found, docs = _documents(_plan(tmp_path), [a, b])
    entry = _by_field(agreement.figures(docs, found, 2))["category"]
    expected = cohen_kappa_score(["food", "food", "travel", "office"], ["food", "food", "office", "office"])
    assert entry["agreement"] == 3 / 4 and entry["kappa"] == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx((3 / 4 - (2 * 2 + 1 * 0 + 1 * 2) / 16) / (1 - 6 / 16))
