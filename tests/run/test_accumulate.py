"""Mergeable state: split runs merged in any order equal one run."""

import itertools

import orjson
import pytest

import stickler_cli as st
from stickler_cli.run.accumulate import Accumulator
from stickler_cli.errors import SticklerError
from stickler_cli.run.evaluate import evaluate_pairs
from stickler_cli.report.build import field_metrics, overall_metrics


def load_pairs(root, name):
    gts = [orjson.loads(line) for line in (root / f"fixtures/{name}/gt.jsonl").read_text().splitlines()]
    preds = [orjson.loads(line) for line in (root / f"fixtures/{name}/pred.jsonl").read_text().splitlines()]
    return list(zip(gts, preds))


def test_merge_of_split_runs_equals_one_run(root):
    plan = st.load_schema(root / "schemas/shipment.json")
    pairs = load_pairs(root, "shipment")
    whole = evaluate_pairs(plan, pairs)
    parts = [pairs[:5], pairs[5:11], pairs[11:]]
    for order in itertools.permutations(range(3)):
        merged = Accumulator(plan)
        for k in order:
            merged.merge_state(orjson.loads(orjson.dumps(evaluate_pairs(plan, parts[k]).get_state())))
        assert merged.counts == whole.counts and merged.overall == whole.overall
        assert merged.document_count == whole.document_count == len(pairs)
        a, b = overall_metrics(merged), overall_metrics(whole)
        assert a["weighted_overall_score"] == pytest.approx(b["weighted_overall_score"], abs=1e-12)
        fa, fb = field_metrics(merged), field_metrics(whole)
        for path in fb:
            assert fa[path].get("mean_score", 0) == pytest.approx(fb[path].get("mean_score", 0), abs=1e-12)


def test_states_of_different_schemas_do_not_merge(root):
    a = Accumulator(st.load_schema(root / "schemas/shipment.json"))
    b = Accumulator(st.load_schema(root / "schemas/invoice.json"))
    with pytest.raises(SticklerError, match="different schemas"):
        a.merge_state(b.get_state())
