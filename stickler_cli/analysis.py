"""Error analysis: which documents and which comparisons failed, and how.

Scoring keeps only counts; a document is explained (every comparison with its
ground truth, prediction, similarity and classification) only when it is among
the worst kept, or when every non-match is asked for (``--non-matches``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

from .engine import Engine
from .engine.result import COUNT_NAMES, FA, FD, FN, DocResult, TraceRow
from .plan import Plan

MISSES = ("FD", "FA", "FN")


def has_misses(tally: list[int]) -> bool:
    """Whether a document's flat per-field counts hold any FD, FA or FN."""
    return any(tally[i + FA] or tally[i + FD] or tally[i + FN] for i in range(0, len(tally), 5))


def row(r: TraceRow) -> dict[str, Any]:
    """One comparison as the reports show it (README, "Which documents and fields failed"): plain
    values, the prediction's confidence at a leaf (else null), and whether a schema default stood
    in for a missing value on either side."""
    return {"path": r.path, "type": r.label, "gt": r.gt, "pred": r.pred, "confidence": r.confidence,
            "similarity": r.similarity, "score": r.score, "threshold": r.threshold, "comparator": r.comparator,
            "gt_default": r.gt_default, "pred_default": r.pred_default}


def explain(engine: Engine, gt: dict, pred: dict) -> list[dict[str, Any]]:
    """Every comparison made for one pair, as report rows."""
    return [row(r) for r in engine.compare(gt, pred, explain=True).trace or []]


def non_match_rows(engine: Engine, doc_id: str, gt: dict, pred: dict) -> list[dict[str, Any]]:
    """The FD/FA/FN comparisons of one pair, each naming its document (``--non-matches`` lines)."""
    return [{"doc_id": doc_id, **r} for r in explain(engine, gt, pred) if r["type"] in MISSES]


def imperfect(worst: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The worst documents that have something to show (a perfect document can be among the
    worst kept when there are few documents)."""
    return [d for d in worst if d["score"] < 1.0 or any(c["type"] in MISSES for c in d["comparisons"])]


def document_key(gt: dict) -> int:
    """A 64-bit digest of a ground-truth record (keys sorted): equal records, equal keys."""
    try:
        data = orjson.dumps(gt, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # integers beyond 64 bits, deep nesting
        try:
            data = json.dumps(gt, sort_keys=True, default=str).encode()
        except RecursionError:  # over ~1,000 levels: such records share one key
            data = b"<nested too deeply to digest>"
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def document_row(plan: Plan, doc: DocResult, doc_id: str, gt_line: int, pred_line: int | None) -> dict[str, Any]:
    """One ``--per-document`` line: the document's score, its top-level fields' scores and every
    field path's classifications (only the counts that are not zero)."""
    counts: dict[str, dict[str, int]] = {}
    tally = doc.tally
    for f in plan.fields:
        base = 5 * f.index
        found = {name: tally[base + k] for k, name in enumerate(COUNT_NAMES) if tally[base + k]}
        if found:
            counts[f.path] = found
    return {"doc_id": doc_id, "gt_line": gt_line, "pred_line": pred_line, "score": doc.score,
            "field_scores": doc.field_scores, "counts": counts}


def worst_documents(engine: Engine, worst: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The report's ``worst_documents``: each kept document with every comparison explained."""
    return [{"doc_id": d["doc_id"], "gt_line": d["gt_line"], "pred_line": d["pred_line"], "score": d["score"],
             "comparisons": explain(engine, d["gt"], d["pred"])} for d in worst]
