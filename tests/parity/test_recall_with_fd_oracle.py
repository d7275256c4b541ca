"""Our ``recall_with_fd`` of each fixture document equals what stickler-eval's own
``compare_with(include_confusion_matrix=True, recall_with_fd=True)`` reports for it (as
``cm_recall``), for the whole document and each top-level field.

run_parity compares the summed figure over whole files (the library's formula on its bulk
counts); this checks the library's own recall_with_fd path, document by document.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import orjson
import pytest

from .run_parity import FIXTURES, ROOT, ours
from .transform import for_oracle

pytestmark = pytest.mark.oracle
TOLERANCE = 1e-9


def _nonblank(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name, schema_path, folder", FIXTURES)
def test_each_document_equals_compare_with_recall_with_fd(tmp_path: Path, name, schema_path, folder) -> None:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    schema = orjson.loads((ROOT / schema_path).read_bytes())
    gt, pred = ROOT / folder / "gt.jsonl", ROOT / folder / "pred.jsonl"
    oracle_schema = tmp_path / "oracle-schema.json"
    oracle_schema.write_bytes(orjson.dumps(for_oracle(schema)))
    runner = Path(__file__).with_name("oracle_runner.py")
    done = subprocess.run(
        [python, str(runner), str(oracle_schema), str(gt), str(pred), "--per-document"],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(done.stdout)["per_document"]
    gt_lines, pred_lines = _nonblank(gt), _nonblank(pred)
    assert len(theirs) == len(gt_lines) > 0
    checked = 0
    for k, (doc, gt_line) in enumerate(zip(theirs, gt_lines)):
        one_gt, one_pred = tmp_path / f"gt{k}.jsonl", tmp_path / f"pred{k}.jsonl"
        one_gt.write_text(gt_line + "\n")
        one_pred.write_text((pred_lines[k] if k < len(pred_lines) else "") + "\n")
        mine = ours(schema, one_gt, one_pred)
        expected = doc["recall_with_fd"]
        assert abs(mine["metrics"]["recall_with_fd"] - expected["overall"]) <= TOLERANCE, (name, k)
        for field, value in expected["fields"].items():
            assert abs(mine["field_metrics"][field]["recall_with_fd"] - value) <= TOLERANCE, (name, k, field)
            checked += 1
    assert checked >= len(theirs)  # every document had fields to compare
