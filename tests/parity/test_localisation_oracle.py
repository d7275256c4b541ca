"""Localisation mAP equals stickler-eval 1.0.0's BBoxMAPAccumulator (fed by its bulk evaluator) on generated
documents: flat and list fields, boxes in both shapes, boxes on one side only, at the default thresholds and
at a list of them. Run with `make parity` (STICKLER_ORACLE_PYTHON)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.oracle
ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "schemas/boxes.json"


def _box(rng: random.Random, two_points: bool) -> list:
    x, y, w, h = rng.uniform(0, 500), rng.uniform(0, 700), rng.uniform(10, 200), rng.uniform(8, 40)
    return [[x, y], [x + w, y + h]] if two_points else [x, y, x + w, y + h]


def _near(rng: random.Random, box: list) -> list:
    flat = [*box[0], *box[1]] if len(box) == 2 else box
    w, h = flat[2] - flat[0], flat[3] - flat[1]
    s = rng.uniform(0, 0.7)
    moved = [
        flat[0] + rng.uniform(-s, s) * w,
        flat[1] + rng.uniform(-s, s) * h,
        flat[2] + rng.uniform(-s, s) * w,
        flat[3] + rng.uniform(-s, s) * h,
    ]
    moved = [min(moved[0], moved[2]), min(moved[1], moved[3]), max(moved[0], moved[2]), max(moved[1], moved[3])]
    return moved if rng.random() < 0.5 else [moved[:2], moved[2:]]


def _documents(seed: int, n: int = 80) -> tuple[list[dict], list[dict]]:
    """Values always read right (the library's rule ignores the value: so do we with --box-found iou, and
    with matching values the two rules agree); list items kept in order, so every item pair matches."""
    rng = random.Random(seed)
    gts, preds = [], []
    for k in range(n):
        gt: dict = {"receipt_id": f"R{k}"}
        pred: dict = {"receipt_id": f"R{k}"}
        for key, value in (("vendor", f"Vendor {k % 7}"), ("total", round(rng.uniform(1, 99), 2))):
            truth = _box(rng, rng.random() < 0.3)
            if rng.random() < 0.9:
                gt[key] = {"_value": value, "_bbox": truth}
            else:
                gt[key] = value  # no box on the ground-truth side
            roll = rng.random()
            if roll < 0.1:
                continue
            pred[key] = {"_value": value, "_confidence": rng.random()}
            if roll < 0.95:
                pred[key]["_bbox"] = _near(rng, truth)
        items = []
        for _ in range(rng.randint(1, 3)):
            items.append(
                {
                    "description": {"_value": rng.choice(["Tea", "Coffee", "Water"]), "_bbox": _box(rng, False)},
                    "amount": {"_value": round(rng.uniform(1, 30), 2), "_bbox": _box(rng, True)},
                }
            )
        gt["line_items"] = items
        pred["line_items"] = [
            {
                key: {
                    "_value": item[key]["_value"],
                    "_bbox": _near(rng, item[key]["_bbox"]),
                    "_confidence": rng.random(),
                }
                for key in item
            }
            for item in items
        ]
        gts.append(gt)
        preds.append(pred)
    return gts, preds


@pytest.mark.parametrize("seed, thresholds", [(1, None), (2, None), (3, "0.3,0.5,0.75,0.9")])
def test_equal_to_the_library(tmp_path: Path, seed: int, thresholds: str | None) -> None:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    gts, preds = _documents(seed)
    gt_path, pred_path = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt_path.write_text("".join(json.dumps(d) + "\n" for d in gts))
    pred_path.write_text("".join(json.dumps(d) + "\n" for d in preds))
    extra = thresholds.split(",") if thresholds else []
    oracle = subprocess.run(
        [python, str(Path(__file__).with_name("box_oracle.py")), str(SCHEMA), str(gt_path), str(pred_path), *extra],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(oracle.stdout)["bbox_map_metrics"]
    for rule in ("iou", "value-and-iou"):
        args = ["--box-found", rule, *(["--iou-thresholds", thresholds] if thresholds else [])]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "stickler_cli",
                "eval",
                str(SCHEMA),
                str(gt_path),
                str(pred_path),
                "-f",
                "json",
                "--no-progress",
                *args,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert done.returncode == 0, done.stderr
        ours = json.loads(done.stdout)["localisation"]
        assert ours["map"] == pytest.approx(theirs["mean_ap"], abs=1e-12)
        for name in ("map_50", "map_75"):
            if theirs[name] is not None:
                assert ours[name] == pytest.approx(theirs[name], abs=1e-12)
        assert {p.replace("[]", "") for p in theirs["fields"]} == set(ours["fields"])
        for path, block in theirs["fields"].items():
            mine = ours["fields"][path.replace("[]", "")]
            for a, b in (
                ("ap", "ap"),
                ("mean_iou", "mean_iou"),
                ("gt_boxes", "num_gt"),
                ("detections", "num_detections"),
            ):
                assert mine[a] == pytest.approx(block[b], abs=1e-12), (rule, path, a)
            for name in ("ap_50", "ap_75"):
                if block[name] is not None:
                    assert mine[name] == pytest.approx(block[name], abs=1e-12), (rule, path, name)
