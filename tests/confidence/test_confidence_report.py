"""confidence_metrics in reports: shape, per-field keys, coverage, custom metrics, merged states."""

from __future__ import annotations

import numpy as np
import pytest

import stickler_cli as st
from stickler_cli.run.accumulate import Accumulator
from stickler_cli.run.evaluate import Evaluation, evaluate_pairs
from stickler_cli.report.build import build_report

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "amount": {"type": "number"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}},
    },
}


def c(value, confidence):
    return {"_value": value, "_confidence": confidence}


DOCS = [
    (
        {"name": "Acme", "amount": 10, "items": [{"sku": "A1"}]},
        {"name": c("Acme", 0.9), "amount": c(12, 0.2), "items": [{"sku": c("A1", 0.8)}]},
    ),
    (
        {"name": "Beta", "amount": 5, "items": [{"sku": "B2"}, {"sku": "C3"}]},
        {"name": c("Zeta Corp", 0.6), "amount": 5, "items": [{"sku": c("C3", 0.7)}, {"sku": c("B2", 0.95)}]},
    ),
]


def test_report_block_by_hand():
    report = st.evaluate(st.compile_schema(SCHEMA), DOCS)
    conf = report["confidence_metrics"]
    # pairs: name (match .9), amount (miss .2), items.sku (match .8), name (miss .6), sku (.7, .95 matches)
    overall = conf["overall"]
    assert overall["brier_score"]["value"] == pytest.approx(
        ((0.9 - 1) ** 2 + 0.2**2 + (0.8 - 1) ** 2 + 0.6**2 + (0.7 - 1) ** 2 + (0.95 - 1) ** 2) / 6
    )
    # AUROC: misses at .2 and .6; matches .7 .8 .9 .95 all above both -> 1.0
    assert overall["auroc"]["value"] == 1.0
    assert set(conf["fields"]) == {"name", "amount", "items.sku"}
    assert conf["fields"]["items.sku"]["brier_score"]["value"] == pytest.approx((0.04 + 0.09 + 0.0025) / 3)
    assert conf["fields"]["name"]["auroc"]["value"] == 1.0
    assert conf["fields"]["amount"]["auroc"]["value"] is None  # one class
    # 7 predicted leaf values: 2 names, 2 amounts, 3 skus; 6 carry a confidence
    assert conf["coverage"] == {"fields_with_confidence": 6, "fields_total": 7, "ratio": 6 / 7}


def test_no_confidence_means_no_block():
    plain = [({"name": "a"}, {"name": "a"})]
    assert st.evaluate(st.compile_schema(SCHEMA), plain)["confidence_metrics"] is None


def test_a_custom_metric():
    class MeanConfidence(st.ConfidenceMetric):
        name = "mean_confidence"

        def compute(self, pairs: st.ConfidencePairs) -> dict:
            return {"value": float(np.mean(pairs.confidence)) if len(pairs) else None}

    report = st.evaluate(st.compile_schema(SCHEMA), DOCS, confidence_metrics=[MeanConfidence()])
    assert list(report["confidence_metrics"]["overall"]) == ["mean_confidence"]
    assert report["confidence_metrics"]["overall"]["mean_confidence"]["value"] == pytest.approx(
        (0.9 + 0.2 + 0.8 + 0.6 + 0.7 + 0.95) / 6
    )


def test_split_runs_merged_give_the_same_metrics():
    plan = st.compile_schema(SCHEMA)
    whole = st.evaluate(plan, DOCS)["confidence_metrics"]
    merged = Accumulator(plan)
    for part in ([DOCS[1]], [DOCS[0]]):  # any order
        merged.merge_state(evaluate_pairs(plan, part).get_state())
    report = build_report(Evaluation(plan, merged, {}))
    assert report["confidence_metrics"]["coverage"] == whole["coverage"]
    merged_conf = report["confidence_metrics"]
    for block, whole_block in [
        (merged_conf["overall"], whole["overall"]),
        *[(merged_conf["fields"][p], whole["fields"][p]) for p in whole["fields"]],
    ]:
        for name in ("auroc", "brier_score", "ece", "error_capture_at_budget"):
            a, b = block[name]["value"], whole_block[name]["value"]
            assert (a is None and b is None) or a == pytest.approx(b, abs=1e-12), name


def test_a_bad_confidence_is_a_record_error_and_the_record_is_still_scored():
    bad = [({"name": "Acme"}, {"name": c("Acme", 1.5)}), ({"name": "Beta"}, {"name": c("Beta", "high")})]
    acc = evaluate_pairs(st.compile_schema(SCHEMA), bad)
    assert [e["message"] for e in acc.errors] == [
        "name: _confidence must be a number from 0 to 1, got 1.5",
        'name: _confidence must be a number from 0 to 1, got "high"',
    ]
    assert acc.get_state()["counts"][0][0] == 2  # both names still TP


def test_the_documented_custom_metric_example_runs():
    """The custom metric of docs/confidence.md, as the page shows it."""
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "confidence.md").read_text()
    start = page.index("import numpy as np\nimport stickler_cli as st\n\n\nclass MeanConfidence")
    code = page[start : page.index("```", start)]
    namespace = {"plan": st.compile_schema(SCHEMA), "pairs": DOCS}
    exec(compile(code, "docs/confidence.md", "exec"), namespace)
    overall = namespace["report"]["confidence_metrics"]["overall"]
    assert list(overall) == ["mean_confidence", "auroc"] and overall["auroc"]["value"] == 1.0


def test_rich_values_keep_their_other_metadata():
    plan = st.compile_schema(SCHEMA)
    pred = {
        "name": {"_value": "Acme", "_confidence": 0.9, "_bbox": [1, 2, 3, 4]},
        "amount": {"_value": 10, "_source": "p.2"},
        "items": [{"sku": {"_value": "A1", "_bbox": [0, 0, 1, 1]}}],
    }
    result = st.compare(plan, {"name": "Acme", "amount": 10, "items": [{"sku": "A1"}]}, pred)
    assert result.metadata == [
        (0, "name", {"_bbox": [1, 2, 3, 4]}),
        (1, "amount", {"_source": "p.2"}),
        (3, "items[0↔0].sku", {"_bbox": [0, 0, 1, 1]}),
    ]
    assert result.counts[0][0] == result.counts[1][0] == 1  # still compared by _value


def test_terminal_shows_the_calibration_tables(root):
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "stickler_cli",
            "eval",
            str(root / "schemas/invoice.json"),
            str(root / "fixtures/invoice/gt.jsonl"),
            str(root / "fixtures/invoice/pred.jsonl"),
            "--budgets",
            "0.1,0.5",
        ],
        capture_output=True,
        env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    for text in (
        "Confidence: 97 of 141 predicted values carry one (69%)",
        "AUROC",
        "Brier",
        "ECE",
        "Reliability",
        "Review the least confident first",
        "10%",
        "50%",
        "× ",
    ):
        assert text in out, text
    assert out.count("█") > 20  # the bars of the reliability diagram


def test_empty_metric_list_is_a_usage_error(root, capsys):
    from stickler_cli.cli.app import main

    args = [
        "eval",
        str(root / "schemas/invoice.json"),
        str(root / "fixtures/invoice/gt.jsonl"),
        str(root / "fixtures/invoice/pred.jsonl"),
    ]
    assert main([*args, "--confidence-metrics", ""]) == 2
    assert "names no metric" in capsys.readouterr().err
    assert main([*args, "--ece-bins", "1000"]) == 2
    # The option's bounds are the metric's own, named by the option (not the API's n_bins).
    from stickler_cli.cli.options import ECE_BINS_OPTION
    from stickler_cli.confidence.metrics import MAX_BINS

    assert (ECE_BINS_OPTION.min, ECE_BINS_OPTION.max) == (1, MAX_BINS)
    capsys.readouterr()
    assert main([*args, "--ece-bins", "0"]) == 2
    err = capsys.readouterr().err
    assert "'--ece-bins'" in err and "n_bins" not in err
    assert main([*args, "--budgets", "0.125,0.12"]) == 2


def test_unmatched_list_item_confidence():
    """An unpaired predicted tag is an FA in the counts and gives no confidence pair,
    whether the truth's list is empty or null (parity.md row 27)."""
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}
    plan = st.compile_schema(schema)
    for truth in ([], None, ["paid"]):
        pred = {"tags": ["paid", c("extra", 0.9)]} if truth == ["paid"] else {"tags": [c("extra", 0.9)]}
        result = st.compare(plan, {"tags": truth}, pred)
        pairs = [(p.confidence, p.is_match) for p in result.confidences]
        assert pairs == [], (truth, pairs)
        assert result.counts[0][1] == 1  # one FA: the extra tag
