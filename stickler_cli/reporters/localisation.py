"""Terminal view of the report's ``localisation`` block: box mAP per field, the boxes seen, notes."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from .fit import Column, fit
from .sanitize import NAME_LIMIT, figure, figure_cell, safe

COLUMNS = (
    Column("AP", group=0),
    Column("AP50", group=0),
    Column("AP75", group=0),
    Column("IoU", group=0),
    Column("GT", group=1),
    Column("Pred", group=1),
    Column("TP50", group=1),
)


RULE_TEXT = {
    "value-and-iou": "A box is found when its value matched and its IoU clears the threshold",
    "iou": "A box is found when its IoU clears the threshold (--box-found iou)",
}


def thresholds_label(thresholds: list[float]) -> str:
    """``0.50:0.95`` for an even range of more than two thresholds, else the list."""
    if len(thresholds) > 2:
        steps = {round(b - a, 9) for a, b in zip(thresholds, thresholds[1:])}
        if len(steps) == 1:
            return f"{thresholds[0]:.2f}:{thresholds[-1]:.2f}"
    return ",".join(f"{t:.2f}" for t in thresholds)


def render_localisation(block: dict[str, Any] | None, console: Console) -> None:
    """Print the localisation tables; nothing when no value carried a box."""
    if not block:
        return
    boxes = block["boxes"]
    console.print()
    console.print(
        Text(
            f"Localisation: mAP@[{thresholds_label(block['iou_thresholds'])}] {figure(block['map'])}, "
            f"mAP50 {figure(block['map_50'])}, mAP75 {figure(block['map_75'])}",
            style="bold",
        )
    )
    console.print(Text(RULE_TEXT.get(block["rule"], block["rule"]), style="dim"))
    console.print(
        Text(
            f"Boxes: {boxes['gt_boxes']} ground truth, {boxes['pred_boxes']} predicted "
            f"({boxes['gt_only']} ground truth only, {boxes['pred_only']} prediction only)",
            style="dim",
        )
    )
    if boxes["not_a_box"] or boxes["reversed"]:
        console.print(
            Text(
                f"Bad boxes: {boxes['not_a_box']} not a box (IoU 0), {boxes['reversed']} reversed "
                "(reordered); listed below",
                style="yellow",
            )
        )
    rows = [
        [
            safe(path, NAME_LIMIT),
            figure_cell(f["ap"]),
            figure_cell(f["ap_50"]),
            figure_cell(f["ap_75"]),
            figure_cell(f["mean_iou"]),
            str(f["gt_boxes"]),
            str(f["pred_boxes"]),
            str(f["true_positives_50"]),
        ]
        for path, f in block["fields"].items()
    ]
    for table in fit(
        "Where were the values found? (AP by field, ranked by confidence)", "Field", COLUMNS, rows, console.width
    ):
        console.print(table)
    for note in block["notes"]:
        console.print(Text("  ") + safe(note, NAME_LIMIT), style="yellow")
