"""A schema ``default`` stands in for a missing value in stickler-eval 1.0.0 as in stickler (issue 16,
item 13; docs/parity.md, "Schema defaults"): same counts and scores, the oracle run on the same files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import stickler_cli as st
from stickler_cli.run.evaluate import evaluate_files
from stickler_cli.report.build import build_report

pytestmark = pytest.mark.oracle

SCHEMA = {
    "type": "object",
    "properties": {
        # Exact in its strict form, as the oracle's (docs/parity.md, row 1): CAD against USD scores 0.0 in both.
        "currency": {
            "type": "string",
            "default": "USD",
            "x-aws-stickler-comparator": "ExactComparator",
            "x-aws-stickler-comparator-config": {"case_sensitive": True, "normalize": False},
        },
        "note": {"type": "string"},
    },
}
# CAD against a missing prediction; a missing value on both sides; USD given against a missing one.
GT = [{"currency": "CAD", "note": "a"}, {"note": "b"}, {"currency": "USD", "note": "c"}]
PRED = [{"note": "a"}, {"note": "b"}, {"note": "c"}]


def test_defaults_are_filled_as_the_oracle_fills_them(tmp_path: Path) -> None:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    schema, gt, pred = tmp_path / "s.json", tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    schema.write_text(json.dumps(SCHEMA))
    gt.write_text("".join(json.dumps(r) + "\n" for r in GT))
    pred.write_text("".join(json.dumps(r) + "\n" for r in PRED))
    runner = Path(__file__).with_name("oracle_runner.py")
    done = subprocess.run(
        [python, str(runner), str(schema), str(gt), str(pred), "--per-document"],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(done.stdout)
    ours = build_report(evaluate_files(st.load_schema(str(schema)), str(gt), str(pred)))
    currency = ours["field_metrics"]["currency"]
    # FD (CAD against the filled-in USD), TP (USD against USD: both filled), TP (USD given against USD filled)
    assert [currency[k] for k in ("tp", "fa", "fd", "fn", "tn")] == [2, 0, 1, 0, 0]
    assert [theirs["field_metrics"]["currency"][k] for k in ("tp", "fa", "fd", "fn", "tn")] == [2, 0, 1, 0, 0]
    assert [d["field_scores"]["currency"] for d in theirs["per_document"]] == [0.0, 1.0, 1.0]
    assert currency["mean_score"] == pytest.approx(theirs["field_metrics"]["currency"]["mean_score"], abs=1e-9)
