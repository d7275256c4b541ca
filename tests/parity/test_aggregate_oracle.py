"""Our leaf roll-up (``aggregate``) equals stickler-eval 1.0.0's, document by document and summed over
a corpus: the ``aggregate`` compare_with reports at the root and at every object and list of objects.

The cases are the ones where a leaf sum alone would be wrong: a node null on a side (one leaf), a list
with no item matched (its own counts), a list whose unmatched and below-threshold items add nothing, an
object inside list items opened in one item and null in another, a list inside list items. The
fixtures are checked document by document too (run_parity sums them on generated data).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import orjson
import pytest

from ..analyses.test_aggregate import CORPUS_GT, CORPUS_PRED, ONE_GT, ONE_PRED, SCHEMA
from .run_parity import FIXTURES, ROOT, ours
from .transform import for_oracle

pytestmark = pytest.mark.oracle
COUNTS = ("tp", "fa", "fd", "fn", "tn")

VENDOR = {"type": "object", "properties": {"name": {"type": "string"}, "city": {"type": "string"}}}
PARTS = {
    "type": "array",
    "items": {"type": "object", "properties": {"code": {"type": "string"}, "n": {"type": "number"}}},
}
NESTED = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"sku": {"type": "string"}, "vendor": VENDOR, "parts": PARTS}},
        }
    },
}
ACME = {"name": "Acme", "city": "Paris"}


def _item(sku: str, vendor: dict | None, parts: list[dict]) -> dict:
    return {"sku": sku, "vendor": vendor, "parts": parts}


NESTED_GT = [
    {
        "items": [
            _item("AAAA", None, [{"code": "p1", "n": 1}]),
            _item("BBBB", ACME, [{"code": "q1", "n": 1}, {"code": "q2", "n": 2}]),
        ]
    },
    {"items": [_item("AAAA", None, []), _item("BBBB", None, [{"code": "p1", "n": 1}])]},
    {"items": [_item("AAAA", ACME, [{"code": "p1", "n": 1}])]},
    {"items": []},
]
NESTED_PRED = [
    {
        "items": [
            _item("AAAA", {"name": "X", "city": "Y"}, [{"code": "zzzz", "n": 9}]),
            _item("BBBB", {"name": "Acme", "city": "Lyon"}, [{"code": "q1", "n": 1}]),
        ]
    },
    {"items": [_item("AAAA", {"name": "X", "city": "Y"}, [{"code": "q1", "n": 1}]), _item("BBBB", None, [])]},
    {"items": [_item("zzzzzzzz", {"name": "Q", "city": "R"}, [])]},
    {"items": [_item("AAAA", ACME, [])]},
]

CASES = {
    "vendor and items": (SCHEMA, [ONE_GT, *CORPUS_GT], [ONE_PRED, *CORPUS_PRED]),
    "objects and lists in list items": (NESTED, NESTED_GT, NESTED_PRED),
}


def _oracle(python: str, schema: dict, gt: Path, pred: Path, tmp: Path) -> dict:
    path = tmp / "oracle-schema.json"
    path.write_bytes(orjson.dumps(for_oracle(schema)))
    runner = Path(__file__).with_name("oracle_runner.py")
    done = subprocess.run(
        [python, str(runner), str(path), str(gt), str(pred), "--per-document"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def _python() -> str:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    return python


def _ours(report: dict) -> dict[str, list[int]]:
    out = {"(document)": [report["metrics"]["aggregate"][k] for k in COUNTS]}
    out.update({p: [f["aggregate"][k] for k in COUNTS] for p, f in report["field_metrics"].items() if "aggregate" in f})
    return out


def _theirs(aggregate: dict, paths: list[str]) -> dict[str, list[int]]:
    out = {"(document)": [aggregate["overall"][k] for k in COUNTS]}
    out.update({p: [aggregate.get("fields", {}).get(p, {}).get(k, 0) for k in COUNTS] for p in paths})
    return out


def _documents(schema: dict, gt_lines: list[str], pred_lines: list[str], theirs: list[dict], tmp: Path) -> int:
    """Each document alone through our report: its roll-ups equal the oracle's for that document."""
    assert len(theirs) == len(gt_lines) > 0
    for k, (doc, gt_line) in enumerate(zip(theirs, gt_lines)):
        gt, pred = tmp / f"gt{k}.jsonl", tmp / f"pred{k}.jsonl"
        gt.write_text(gt_line + "\n")
        pred.write_text((pred_lines[k] if k < len(pred_lines) else "") + "\n")
        mine = _ours(ours(schema, gt, pred))
        assert mine == _theirs(doc["aggregate"], [p for p in mine if p != "(document)"]), (k, gt_line)
    return len(theirs)


@pytest.mark.parametrize("name", list(CASES))
def test_hand_made_cases_per_document_and_summed(tmp_path: Path, name: str) -> None:
    schema, gts, preds = CASES[name]
    gt_lines, pred_lines = [json.dumps(r) for r in gts], [json.dumps(r) for r in preds]
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text("\n".join(gt_lines) + "\n")
    pred.write_text("\n".join(pred_lines) + "\n")
    theirs = _oracle(_python(), schema, gt, pred, tmp_path)
    mine = _ours(ours(schema, gt, pred))
    assert mine == _theirs(theirs["aggregate"], [p for p in mine if p != "(document)"])
    assert _documents(schema, gt_lines, pred_lines, theirs["per_document"], tmp_path) == len(gts)


@pytest.mark.parametrize("name, schema_path, folder", FIXTURES)
def test_fixtures_per_document(tmp_path: Path, name, schema_path, folder) -> None:
    schema = orjson.loads((ROOT / schema_path).read_bytes())
    gt, pred = ROOT / folder / "gt.jsonl", ROOT / folder / "pred.jsonl"
    theirs = _oracle(_python(), schema, gt, pred, tmp_path)["per_document"]
    lines = [[line for line in p.read_text(encoding="utf-8").splitlines() if line.strip()] for p in (gt, pred)]
    _documents(schema, lines[0], lines[1], theirs, tmp_path)
