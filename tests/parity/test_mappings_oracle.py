"""Free-form mappings (an object property with no ``properties``) are scored as stickler-eval 1.0.0
scores them (issue 23, item 3): the same counts and scores, the oracle run on the same files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import stickler_cli as st
from stickler_cli.evaluate import evaluate_files
from stickler_cli.report import build_report

from .transform import for_oracle

pytestmark = pytest.mark.oracle

SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string"},
    "attributes": {"type": "object"},
    "extra": {"type": "object", "additionalProperties": {"type": "number"}},
    "tags": {"type": "array", "items": {"type": "object"}},
    "lev": {"type": "object", "x-aws-stickler-comparator": "LevenshteinComparator"},
}}
GT = [{"name": "a", "attributes": {"x": 1, "y": "z"}, "extra": {"p": 1.5}, "tags": [{"k": 1}, {"k": 2}], "lev": {"q": "r"}},
      {"name": "b", "attributes": {"x": 1}, "extra": {}, "tags": [{"k": 1}], "lev": {"q": "r", "s": 1}},
      {"name": "c", "attributes": {"x": [1, 2]}, "tags": [], "lev": {"q": "r"}},
      {"name": "d", "attributes": {"x": "Hello"}, "extra": {"p": 2}}]
PRED = [{"name": "a", "attributes": {"y": "z", "x": 1}, "extra": {"p": 1.5}, "tags": [{"k": 2}, {"k": 1}], "lev": {"q": "r"}},
        {"name": "b", "attributes": {"x": 2}, "extra": {}, "tags": [{"k": 1}, {"k": 3}], "lev": {"s": 1, "q": "r"}},
        {"name": "c", "attributes": {"x": [2, 1]}, "extra": {"p": 1}, "tags": [{"k": 1}]},
        {"name": "d", "attributes": {"x": "hello"}, "extra": {"p": 2.0}}]


def test_mappings_scored_as_the_oracle_scores_them(tmp_path: Path) -> None:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    ours_schema, theirs_schema = tmp_path / "ours.json", tmp_path / "theirs.json"
    ours_schema.write_text(json.dumps(SCHEMA))
    theirs_schema.write_text(json.dumps(for_oracle(SCHEMA)))
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text("".join(json.dumps(r) + "\n" for r in GT))
    pred.write_text("".join(json.dumps(r) + "\n" for r in PRED))
    runner = Path(__file__).with_name("oracle_runner.py")
    done = subprocess.run([python, str(runner), str(theirs_schema), str(gt), str(pred)],
                          capture_output=True, text=True, check=True)
    theirs = json.loads(done.stdout)
    ours = build_report(evaluate_files(st.load_schema(str(ours_schema)), str(gt), str(pred)))
    keys = ("tp", "fa", "fd", "fn", "tn")
    assert {p: [m[k] for k in keys] for p, m in ours["field_metrics"].items()} == \
        {p: [m[k] for k in keys] for p, m in theirs["field_metrics"].items()}
    for path, block in theirs["field_metrics"].items():
        if "mean_score" in block:
            assert ours["field_metrics"][path]["mean_score"] == pytest.approx(block["mean_score"], abs=1e-12), path
    assert ours["metrics"]["weighted_overall_score"] == pytest.approx(theirs["metrics"]["weighted_overall_score"], abs=1e-12)
    # The figures themselves, worked by hand: attributes TP (keys reordered), FD, FD ([1,2] vs [2,1]), FD (case).
    assert [ours["field_metrics"]["attributes"][k] for k in keys] == [1, 0, 3, 0, 0]
