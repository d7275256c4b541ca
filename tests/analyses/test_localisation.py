"""Localisation mAP of boxes (docs/numbers.md, "Localisation: box mAP"): the pure AP against hand-worked and
independent (pycocotools) figures, golden numbers from stickler-eval 1.0.0 on the box fixture, the
merge of split runs, and bad boxes reported, never a traceback."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest

from stickler_cli.analyses import localisation
from stickler_cli.run.evaluate import evaluate_pairs
from stickler_cli.analyses.localisation import BoxStore, average_precision, localisation_block, parse_thresholds
from stickler_cli.schema import compile_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA, GT, PRED = ROOT / "schemas/boxes.json", ROOT / "fixtures/boxes/gt.jsonl", ROOT / "fixtures/boxes/pred.jsonl"
ONE_FIELD = {
    "type": "object",
    "properties": {"vendor": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
}

# stickler-eval 1.0.0's BBoxMAPAccumulator on fixtures/boxes (tests/parity/box_oracle.py): (ap, ap_50, ap_75,
# mean_iou, ground-truth boxes, detections) per field, and mean_ap / map_50 / map_75. Its rule is IoU alone.
GOLDEN_FIELDS = {
    "vendor": (0.3747774777477749, 0.6597909790979101, 0.4694719471947197, 0.6276571762043912, 12, 12),
    "total": (0.6280956667095281, 0.9108910891089109, 0.7641764176417631, 0.8110878365462888, 12, 12),
    "line_items.description": (0.43330312436277946, 0.7968144640551009, 0.500825082508251, 0.7083474095140668, 25, 24),
    "line_items.amount": (0.36579443658651567, 0.6316595945308816, 0.41697312588401697, 0.6159212338671695, 25, 24),
}
GOLDEN_MEANS = (0.45049267635164947, 0.7497890316982008, 0.5378616433071877)


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stickler_cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def report(*args: str) -> dict:
    done = run("eval", *args, "-f", "json", "--no-progress")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# -- the pure computation ----------------------------------------------------------------------------


def test_ap_hand_worked() -> None:
    # Ranked hits T, F, T against 4 ground-truth boxes: recall 0.25, 0.25, 0.5; precision 1, 1/2, 2/3,
    # enveloped to 1, 2/3, 2/3. Recall points 0.00..0.25 (26) read 1.0, 0.26..0.50 (25) read 2/3, the rest 0.
    ap = average_precision(np.array([True, False, True]), 4)
    assert ap == pytest.approx((26 * 1.0 + 25 * 2 / 3) / 101, abs=1e-15)
    assert average_precision(np.array([], dtype=bool), 3) == 0.0
    assert average_precision(np.array([True]), 0) is None


def test_thresholds_parsed() -> None:
    assert parse_thresholds("0.5:0.95:0.05") == localisation.DEFAULT_IOU_THRESHOLDS
    assert parse_thresholds("0.75, 0.5") == (0.5, 0.75)
    for bad in ("0:1:0.1", "0.5:0.9", "a,b", "0.5:0.95:0", "1.5", "0.01:1:0.00001"):
        with pytest.raises(Exception) as caught:
            parse_thresholds(bad)
        assert "--iou-thresholds" in str(caught.value)


def _single_class(seed: int, n: int = 60) -> tuple[list[dict], list[dict]]:
    """One boxed field per document; some ground truth without prediction and the reverse; confidences distinct."""
    rng = random.Random(seed)
    gts, preds = [], []
    confidences = rng.sample(range(1, 10_000), n)
    for k in range(n):
        x, y, w, h = rng.uniform(0, 500), rng.uniform(0, 500), rng.uniform(5, 80), rng.uniform(5, 40)
        truth = [x, y, x + w, y + h]
        roll = rng.random()
        gt = {"vendor": {"_value": "ACME", "_bbox": truth}} if roll > 0.1 else {}
        if roll < 0.2 and gt:
            preds.append({})
        else:
            s = rng.uniform(0.0, 0.6)
            pred = [
                x + rng.uniform(-s, s) * w,
                y + rng.uniform(-s, s) * h,
                x + w + rng.uniform(-s, s) * w,
                y + h + rng.uniform(-s, s) * h,
            ]
            preds.append({"vendor": {"_value": "ACME", "_bbox": pred, "_confidence": confidences[k] / 10_000}})
        gts.append(gt)
    return gts, preds


def _coco_ap(gts: list[dict], preds: list[dict]) -> np.ndarray:
    """pycocotools' AP at each of its ten IoU thresholds (0.50:0.95), one category, all areas, 100 detections."""
    coco_module = pytest.importorskip("pycocotools.coco")
    from pycocotools.cocoeval import COCOeval

    def xywh(b: list[float]) -> list[float]:
        return [b[0], b[1], b[2] - b[0], b[3] - b[1]]

    images = [{"id": k + 1} for k in range(len(gts))]
    annotations = [
        {
            "id": k + 1,
            "image_id": k + 1,
            "category_id": 1,
            "bbox": xywh(g["vendor"]["_bbox"]),
            "area": xywh(g["vendor"]["_bbox"])[2] * xywh(g["vendor"]["_bbox"])[3],
            "iscrowd": 0,
        }
        for k, g in enumerate(gts)
        if g
    ]
    coco = coco_module.COCO()
    coco.dataset = {"images": images, "annotations": annotations, "categories": [{"id": 1, "name": "vendor"}]}
    coco.createIndex()
    detections = [
        {"image_id": k + 1, "category_id": 1, "bbox": xywh(p["vendor"]["_bbox"]), "score": p["vendor"]["_confidence"]}
        for k, p in enumerate(preds)
        if p
    ]
    found = coco.loadRes(detections)
    evaluation = COCOeval(coco, found, "bbox")
    evaluation.evaluate()
    evaluation.accumulate()
    precision = evaluation.eval["precision"][:, :, 0, 0, -1]  # thresholds x 101 recall points
    return precision.mean(axis=1)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_single_class_equals_pycocotools(seed: int, capsys) -> None:
    gts, preds = _single_class(seed)
    theirs = _coco_ap(gts, preds)
    capsys.readouterr()  # pycocotools prints its progress
    plan = compile_schema(ONE_FIELD)
    acc = evaluate_pairs(plan, list(zip(gts, preds)))
    for rule in localisation.RULES:  # every value matches: the two rules agree
        block = localisation_block([f.path for f in plan.fields], acc.boxes, rule=rule)
        ours = [
            block["fields"]["vendor"]["ap_by_threshold"][localisation._key(t)]
            for t in localisation.DEFAULT_IOU_THRESHOLDS
        ]
        assert ours == pytest.approx(list(theirs), abs=1e-12)
        assert block["map"] == pytest.approx(float(theirs.mean()), abs=1e-12)


# -- the library's figures ---------------------------------------------------------------------------


def test_fixture_equals_the_library_golden_numbers() -> None:
    block = report(str(SCHEMA), str(GT), str(PRED), "--box-found", "iou")["localisation"]
    assert (block["map"], block["map_50"], block["map_75"]) == pytest.approx(GOLDEN_MEANS, abs=1e-12)
    for path, (ap, ap_50, ap_75, mean_iou, gt_boxes, detections) in GOLDEN_FIELDS.items():
        f = block["fields"][path]
        assert (f["ap"], f["ap_50"], f["ap_75"], f["mean_iou"]) == pytest.approx(
            (ap, ap_50, ap_75, mean_iou), abs=1e-12
        )
        assert (f["gt_boxes"], f["detections"]) == (gt_boxes, detections)


def test_value_rule_counts_a_misread_value_as_not_found() -> None:
    # vendor: two values misread (FD) at boxes of IoU >= 0.5; the default rule counts them as false positives.
    both = report(str(SCHEMA), str(GT), str(PRED))["localisation"]
    iou = report(str(SCHEMA), str(GT), str(PRED), "--box-found", "iou")["localisation"]
    assert both["rule"] == "value-and-iou" and iou["rule"] == "iou"
    assert both["fields"]["vendor"]["true_positives_50"] == 7 < iou["fields"]["vendor"]["true_positives_50"] == 9
    assert both["fields"]["vendor"]["ap_50"] == pytest.approx(0.4265676567656767, abs=1e-12)
    assert both["fields"]["total"] == iou["fields"]["total"]  # no misread total
    assert both["map_50"] == pytest.approx(0.6914832011151426, abs=1e-12)


def test_no_block_without_boxes() -> None:
    done = (
        report(
            str(ROOT / "schemas/quickstart.json"),
            str(ROOT / "fixtures/quickstart/gt.jsonl"),
            str(ROOT / "fixtures/quickstart/pred.jsonl"),
        )
        if (ROOT / "fixtures/quickstart/gt.jsonl").exists()
        else report(
            str(ROOT / "schemas/invoice.json"),
            str(ROOT / "fixtures/invoice/gt.jsonl"),
            str(ROOT / "fixtures/invoice/pred.jsonl"),
        )
    )
    assert "localisation" not in done


# -- merged runs --------------------------------------------------------------------------------------


def test_workers_and_merge_give_the_same_figures(tmp_path: Path) -> None:
    one = report(str(SCHEMA), str(GT), str(PRED))["localisation"]
    two = report(str(SCHEMA), str(GT), str(PRED), "--workers", "2")["localisation"]
    assert two == one
    lines_gt, lines_pred = GT.read_text().splitlines(True), PRED.read_text().splitlines(True)
    states = []
    for k, (a, b) in enumerate(((0, 5), (5, 12))):
        (tmp_path / f"gt{k}.jsonl").write_text("".join(lines_gt[a:b]))
        (tmp_path / f"pred{k}.jsonl").write_text("".join(lines_pred[a:b]))
        states.append(str(tmp_path / f"s{k}.json"))
        done = run(
            "eval",
            str(SCHEMA),
            str(tmp_path / f"gt{k}.jsonl"),
            str(tmp_path / f"pred{k}.jsonl"),
            "--save-state",
            states[-1],
            "-f",
            "json",
            "-o",
            str(tmp_path / f"r{k}.json"),
            "--no-progress",
        )
        assert done.returncode == 0, done.stderr
    merged = run("merge", *states, "-f", "json")
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["localisation"] == one


def test_state_with_a_bad_box_block_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    assert (
        run(
            "eval",
            str(SCHEMA),
            str(GT),
            str(PRED),
            "--save-state",
            str(state),
            "-o",
            str(tmp_path / "r.json"),
            "-f",
            "json",
            "--no-progress",
        ).returncode
        == 0
    )
    data = orjson.loads(state.read_bytes())
    data["boxes"]["iou"][3] = 7.5
    state.write_bytes(orjson.dumps(data))
    done = run("merge", str(state))
    assert done.returncode == 2 and "/boxes/iou/3" in done.stderr and "Traceback" not in done.stderr


# -- bad input ----------------------------------------------------------------------------------------


def test_bad_boxes_are_reported_and_counted(tmp_path: Path) -> None:
    gt = [{"vendor": {"_value": "A", "_bbox": [0, 0, 10, 10]}}] * 4
    pred = [
        {"vendor": {"_value": "A", "_bbox": [0, 0, "ten", 10], "_confidence": 0.9}},
        {"vendor": {"_value": "A", "_bbox": [10, 0, 0, 10], "_confidence": 0.8}},
        {"vendor": {"_value": "A", "_bbox": [[0, 0], [10, 10]], "_confidence": 0.7}},
        {"vendor": {"_value": "A", "_bbox": [0, 0, 10, float("inf")], "_confidence": 0.6}},
    ]
    (tmp_path / "gt.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gt))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(r).replace("Infinity", "1e999") + "\n" for r in pred))
    (tmp_path / "s.json").write_text(json.dumps(ONE_FIELD))
    done = run(
        "eval",
        str(tmp_path / "s.json"),
        str(tmp_path / "gt.jsonl"),
        str(tmp_path / "pred.jsonl"),
        "-f",
        "json",
        "--no-progress",
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr
    out = json.loads(done.stdout)
    messages = [(e["line"], e["message"]) for e in out["errors"]]
    assert [line for line, _ in messages] == [1, 2, 4]
    assert "vendor: prediction _bbox is not a box" in messages[0][1]
    assert "x2 < x1" in messages[1][1]
    block = out["localisation"]
    assert block["boxes"] == {
        "gt_boxes": 4,
        "pred_boxes": 4,
        "gt_only": 0,
        "pred_only": 0,
        "not_a_box": 2,
        "reversed": 1,
    }
    # Ranked 0.9 (IoU 0), 0.8 (reordered: IoU 1), 0.7 (IoU 1), 0.6 (IoU 0): AP50 over 4 ground-truth boxes.
    assert block["fields"]["vendor"]["true_positives_50"] == 2
    assert block["fields"]["vendor"]["ap_50"] == pytest.approx(
        average_precision(np.array([False, True, True, False]), 4), abs=1e-15
    )


def test_boxes_on_one_side_only_are_counted_and_noted() -> None:
    # Ground-truth boxes, predictions as plain values (no metadata): the documents still reach the box collection.
    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "string"},
                "items": {"type": "array", "items": {"type": "object", "properties": {"c": {"type": "string"}}}},
            },
        }
    )
    gt = {
        "a": {"_value": "x", "_bbox": [0, 0, 1, 1]},
        "b": "y",
        "items": [{"c": {"_value": "p", "_bbox": [0, 0, 2, 2]}}, {"c": {"_value": "q", "_bbox": [0, 0, 3, 3]}}],
    }
    pred = {"a": "x", "b": {"_value": "y", "_bbox": [0, 0, 1, 1], "_confidence": 0.5}, "items": [{"c": "zzzzzz"}]}
    acc = evaluate_pairs(plan, [(gt, pred)])
    block = localisation_block([f.path for f in plan.fields], acc.boxes)
    assert block["fields"]["a"]["gt_only"] == 1 and block["fields"]["a"]["ap"] == 0.0
    assert block["fields"]["b"]["pred_only"] == 1 and block["fields"]["b"]["ap"] is None
    assert block["fields"]["items.c"]["gt_boxes"] == 2  # the unmatched items' boxes are misses
    assert block["notes"] == [
        "a: 1 ground-truth boxes and no predicted box: AP 0",
        "b: 1 predicted boxes and no ground-truth box: no AP (left out of the means)",
        "items.c: 2 ground-truth boxes and no predicted box: AP 0",
    ]
    assert block["fields_with_ground_truth"] == 2 and block["map"] == 0.0


def test_bound_on_detections_stops_with_the_limit_named() -> None:
    store = BoxStore(1, bound=2)
    record = localisation.BoxRecord(0, localisation.BOX, localisation.BOX, True, 1.0, 0.5)
    store.add([record, record])
    with pytest.raises(Exception, match="--limit box-detections"):
        store.add([record])


def test_bad_threshold_option_is_exit_2() -> None:
    done = run("eval", str(SCHEMA), str(GT), str(PRED), "--iou-thresholds", "0.5:1.5:0.5")
    assert done.returncode == 2 and "--iou-thresholds" in done.stderr and "Traceback" not in done.stderr
    done = run("eval", str(SCHEMA), str(GT), str(PRED), "--box-found", "box")
    assert done.returncode == 2 and "--box-found" in done.stderr


def test_terminal_table_keeps_figures_whole_at_80_columns() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "eval", str(SCHEMA), str(GT), str(PRED)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "80"},
    )
    text = done.stdout
    assert "Localisation: mAP@[0.50:0.95] 0.418, mAP50 0.691, mAP75 0.500" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    row = next(
        line for line in text.splitlines() if line.strip().startswith("line_items.description") and "0.797" in line
    )
    assert row.split()[1:] == ["0.433", "0.797", "0.501", "0.708", "25", "24", "20"]


def test_boxes_under_an_object_or_list_missing_on_one_side() -> None:
    """A nested object or a list null on one side: the other side's boxes are misses (ground truth) or false
    detections (prediction), never lost and never put on the wrong side."""
    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "party": {"type": "object", "properties": {"name": {"type": "string"}}},
                "items": {"type": "array", "items": {"type": "object", "properties": {"c": {"type": "string"}}}},
            },
        }
    )
    boxed = {"_value": "v", "_bbox": [0, 0, 4, 4]}
    docs = [
        ({"party": {"name": boxed}, "items": [{"c": boxed}]}, {}),
        ({}, {"party": {"name": {**boxed, "_confidence": 0.4}}, "items": [{"c": boxed}, {"c": boxed}]}),
    ]
    acc = evaluate_pairs(plan, docs)
    block = localisation_block([f.path for f in plan.fields], acc.boxes)
    name, c = block["fields"]["party.name"], block["fields"]["items.c"]
    assert (name["gt_only"], name["pred_only"], name["detections"]) == (1, 1, 1)
    assert (c["gt_only"], c["pred_only"], c["detections"]) == (1, 2, 2)
    assert name["ap"] == 0.0 and c["true_positives_50"] == 0


def test_a_box_key_is_found_in_the_raw_line_however_its_letters_are_escaped():
    """carries_boxes searches the raw line for "_bbox", and walks the parsed record only when the line escapes one
    of the key's letters (either case of hex digit); escaped accents alone never send it to the walk."""
    from stickler_cli.run.reader import carries_boxes

    for k, letter in enumerate("_bbox"):
        for code in (f"\\u{ord(letter):04x}", f"\\u{ord(letter):04X}"):
            line = '{"a": {"_value": "x", "' + "_bbox"[:k] + code + "_bbox"[k + 1 :] + '": [0, 0, 1, 1]}}'
            assert carries_boxes(line.encode(), json.loads(line)), line
    accents = json.dumps({"name": "Zoë", "_bbox_like": "b"}).encode()
    assert b"\\u00eb" in accents and not carries_boxes(accents, {"_bbox": 1})  # a walk would have found this
    spelt_in_a_value = '{"a": "\\u0062box"}'
    assert not carries_boxes(spelt_in_a_value.encode(), json.loads(spelt_in_a_value))  # walked, no key found
