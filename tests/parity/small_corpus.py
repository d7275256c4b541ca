"""A small corpus scored by both tools: the oracle (stickler-eval 1.0.0, through oracle_runner.py,
its schema through ``for_oracle``) and stickler, on the same JSON Lines files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import stickler_cli as st
from stickler_cli.run.evaluate import evaluate_files
from stickler_cli.report.build import build_report

from .transform import for_oracle


def both_reports(
    tmp_path: Path, schema: dict, gt: list[dict], pred: list[dict]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(stickler's report, the oracle's output) for ``gt`` and ``pred`` written one record a line."""
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    ours_schema, theirs_schema = tmp_path / "ours.json", tmp_path / "theirs.json"
    ours_schema.write_text(json.dumps(schema))
    theirs_schema.write_text(json.dumps(for_oracle(schema)))
    gt_file, pred_file = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt_file.write_text("".join(json.dumps(r) + "\n" for r in gt))
    pred_file.write_text("".join(json.dumps(r) + "\n" for r in pred))
    runner = Path(__file__).with_name("oracle_runner.py")
    done = subprocess.run(
        [python, str(runner), str(theirs_schema), str(gt_file), str(pred_file)],
        capture_output=True,
        text=True,
        check=True,
    )
    ours = build_report(evaluate_files(st.load_schema(str(ours_schema)), str(gt_file), str(pred_file)))
    return ours, json.loads(done.stdout)


def counts(report: dict[str, Any]) -> dict[str, list[int]]:
    """Each field path's TP, FA, FD, FN, TN."""
    return {path: [m[k] for k in ("tp", "fa", "fd", "fn", "tn")] for path, m in report["field_metrics"].items()}
