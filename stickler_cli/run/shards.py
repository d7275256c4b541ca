"""Input arguments to shard pairs: one file each, or quoted glob patterns paired by file name.

``stickler eval s.json 'gt/*.jsonl.gz' 'pred/*.jsonl.gz'`` pairs ``gt/part-7.jsonl.gz``
with ``pred/part-7.jsonl.gz``. A shard of one side without a partner of the same
name on the other is an input error: silently scoring half a dataset would
report numbers about data nobody chose.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .reader import STDIN

GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Shard:
    """One ground-truth file and the prediction file scored against it."""

    ground_truth: str
    predictions: str


def is_pattern(argument: str) -> bool:
    """A glob pattern, unless a file of that very name exists (``gt[v2].jsonl`` is a name)."""
    return any(c in GLOB_CHARS for c in argument) and not Path(argument).exists()


def shard_name(path: str) -> str:
    """The name two shards are paired by: the file name without ``.gz``."""
    return Path(path).name.removesuffix(".gz")


def resolve_shards(ground_truth: str, predictions: str) -> list[Shard]:
    """The shard pairs two arguments name, in file-name order."""
    if ground_truth == STDIN and predictions == STDIN:
        raise InputError("only one of ground truth and predictions can be read from standard input", STDIN)
    if not is_pattern(ground_truth) and not is_pattern(predictions):
        return [Shard(ground_truth, predictions)]
    if not (is_pattern(ground_truth) and is_pattern(predictions)):
        raise InputError(
            "give both ground truth and predictions as glob patterns, or neither",
            ground_truth if not is_pattern(ground_truth) else predictions,
        )
    gt_files = _expand(ground_truth)
    pred_files = _expand(predictions)
    pred_by_name = {shard_name(p): p for p in pred_files}
    gt_by_name = {shard_name(g): g for g in gt_files}
    for files, pattern in ((gt_files, ground_truth), (pred_files, predictions)):
        if len({shard_name(f) for f in files}) != len(files):
            raise InputError("two matched files share a name (paired by file name, .gz ignored)", pattern)
    lonely_gt = sorted(set(gt_by_name) - set(pred_by_name))
    lonely_pred = sorted(set(pred_by_name) - set(gt_by_name))
    if lonely_gt:
        raise InputError(f"no prediction shard named {_names(lonely_gt)}", predictions)
    if lonely_pred:
        raise InputError(f"no ground-truth shard named {_names(lonely_pred)}", ground_truth)
    return [Shard(gt_by_name[name], pred_by_name[name]) for name in sorted(gt_by_name)]


def _expand(pattern: str) -> list[str]:
    files = sorted(p for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
    if not files:
        raise InputError("the pattern matches no file", pattern)
    return files


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:3])
    return shown + (f" (and {len(names) - 3} more)" if len(names) > 3 else "")
