"""The Markdown confidence sentence is read off AUROC and ECE (issue 16, item 7): it was a constant
that called a confidence with AUROC 0.506 trustworthy."""

from __future__ import annotations

import json

import pytest

from stickler_cli.cli.app import main
from stickler_cli.confidence.trust import trust_sentence


def _overall(auroc=None, ece=None, **others):
    block = {name: {"value": value} for name, value in others.items()}
    if auroc != "absent":
        block["auroc"] = {"value": auroc}
    if ece != "absent":
        block["ece"] = {"value": ece}
    return block


@pytest.mark.parametrize(
    "auroc, ece, expected",
    [
        (
            0.506,
            0.302,
            "No: AUROC 0.506 (below 0.6; 0.5 is chance): it does not tell right values from wrong ones; "
            "ECE 0.302 (above 0.15): its values are not probabilities.",
        ),
        (
            0.93,
            0.031,
            "Yes: AUROC 0.930 (at least 0.8): higher confidence goes with right values, so reviewing the least "
            "confident first catches errors early; ECE 0.031 (at most 0.05): its values read as probabilities.",
        ),
        (0.8, 0.2, "In part: AUROC 0.800 (at least 0.8)"),
        (
            0.7,
            0.05,
            "In part: AUROC 0.700 (between 0.6 and 0.8): it ranks errors first only weakly; ECE 0.050 (at most 0.05)",
        ),
        (0.59, 0.01, "No: AUROC 0.590 (below 0.6"),
        (
            0.9,
            0.1,
            "In part: AUROC 0.900 (at least 0.8): higher confidence goes with right values, so reviewing the least "
            "confident first catches errors early; ECE 0.100 (between 0.05 and 0.15): its values are rough "
            "probabilities only.",
        ),
        (None, 0.02, "In part: AUROC is undefined"),
        # Neither ranking (undefined, or weak) nor a probability: no, not "in part" (review of issue 16).
        (None, 0.5, "No: AUROC is undefined"),
        (0.7, 0.2, "No: AUROC 0.700 (between 0.6 and 0.8): it ranks errors first only weakly; ECE 0.200 (above 0.15)"),
        ("absent", 0.2, "No: ECE 0.200 (above 0.15): its values are not probabilities."),
        ("absent", 0.02, "Yes: ECE 0.020 (at most 0.05)"),
    ],
)
def test_the_sentence_follows_the_figures(auroc, ece, expected):
    assert trust_sentence(_overall(auroc, ece)).startswith("Can the confidence be trusted? " + expected)


def test_no_sentence_without_auroc_or_ece():
    assert trust_sentence(_overall("absent", "absent", brier_score=0.1)) is None


def test_markdown_of_the_invoice_fixture_says_no(root, capsys):
    fixtures = root / "fixtures" / "invoice"
    assert (
        main(
            [
                "eval",
                str(root / "schemas" / "invoice.json"),
                str(fixtures / "gt.jsonl"),
                str(fixtures / "pred.jsonl"),
                "-f",
                "markdown",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "the confidence can be trusted" not in out
    assert (
        "97 of 141 predicted values carry a confidence (69%). Can the confidence be trusted? No: AUROC 0.506 "
        "(below 0.6; 0.5 is chance)"
    ) in out


def test_markdown_of_a_trustworthy_confidence_says_yes(tmp_path, capsys):
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {"type": "object", "properties": {"id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}}}
        )
    )
    gt = [{"id": f"d{k}"} for k in range(100)]
    pred = [
        {"id": {"_value": r["id"], "_confidence": 0.97}} if k % 10 else {"id": {"_value": "?", "_confidence": 0.03}}
        for k, r in enumerate(gt)
    ]
    (tmp_path / "gt.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gt))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pred))
    assert main(["eval", str(schema), str(tmp_path / "gt.jsonl"), str(tmp_path / "pred.jsonl"), "-f", "markdown"]) == 0
    assert (
        "Can the confidence be trusted? Yes: AUROC 1.000 (at least 0.8): higher confidence goes with right values, "
        "so reviewing the least confident first catches errors early; ECE 0.030 (at most 0.05): its values read "
        "as probabilities."
    ) in capsys.readouterr().out
