"""A schema and its JSON Lines pair written to a folder: the inputs of a `stickler eval` run in a test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable


def write_case(
    folder: Path, schema: dict[str, Any], gt: Iterable[dict[str, Any]], pred: Iterable[dict[str, Any]]
) -> dict[str, str]:
    """``s.json``, ``gt.jsonl`` and ``pred.jsonl`` in ``folder`` (a record a line); their paths by name."""
    paths = {"schema": folder / "s.json", "gt": folder / "gt.jsonl", "pred": folder / "pred.jsonl"}
    paths["schema"].write_text(json.dumps(schema))
    paths["gt"].write_text("".join(json.dumps(r) + "\n" for r in gt))
    paths["pred"].write_text("".join(json.dumps(r) + "\n" for r in pred))
    return {k: str(v) for k, v in paths.items()}
