"""Error analysis: which documents and which comparisons failed, and how.

Scoring keeps only counts; a document is explained (every comparison with its
ground truth, prediction, similarity and classification) only when it is among
the worst kept, when every non-match is asked for (``--non-matches``), or while
a field it fails on still has room among the failing comparisons kept per field
(``--limit failures-per-field``: the HTML report's field panels).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import TYPE_CHECKING, Any

import orjson

from ..json_text import compact_json, named_non_finite
from ..engine.result import COUNT_NAMES, FA, FD, FN, LABELS, DocResult, TraceRow
from ..plan import FieldPlan, Kind, ModelPlan, Plan
from . import rollup

if TYPE_CHECKING:
    from ..engine import Engine

MISSES = ("FD", "FA", "FN")
# What a worst document without a miss says in place of its list (imperfect() keeps it for its score).
PARTIAL_ONLY = "no failing comparison: the score is below 1 by partial matches"


def has_misses(tally: list[int]) -> bool:
    """Whether a document's flat per-field counts hold any FD, FA or FN (three slices: in C)."""
    return any(tally[FA::5]) or any(tally[FD::5]) or any(tally[FN::5])


def row(r: TraceRow) -> dict[str, Any]:
    """One comparison as the reports show it (README, "Which documents and fields failed"): plain
    values, the prediction's confidence at a leaf (else null), and whether a schema default stood
    in for a missing value on either side."""
    return {"path": r.path, "type": r.label, "gt": named_non_finite(r.gt), "pred": named_non_finite(r.pred),
            "confidence": r.confidence,
            "similarity": r.similarity, "score": r.score, "threshold": r.threshold, "comparator": r.comparator,
            "gt_default": r.gt_default, "pred_default": r.pred_default}


def explain(engine: Engine, gt: dict, pred: dict) -> tuple[list[dict[str, Any]], list[int]]:
    """The comparisons made for one pair, as report rows: the first ``--limit explain-items`` of them, and
    how many more of each type (TP, FA, FD, FN, TN) were made but not explained (``Trace.more``)."""
    trace = engine.compare(gt, pred, explain=True).trace
    return [row(r) for r in trace], trace.more


def not_shown(more: list[int], types: tuple[str, ...] = LABELS) -> dict[str, Any] | None:
    """What an output says of the comparisons past ``--limit explain-items`` (``more``: counts by type, as
    ``explain`` gives them), counting only ``types``: {"count": N, "by_type": {...}, "limit": ...}; None when
    there are none."""
    by_type = {name: more[k] for k, name in enumerate(LABELS) if name in types and more[k]}
    if not by_type:
        return None
    return {"count": sum(by_type.values()), "by_type": by_type, "limit": "explain-items"}


def non_match_rows(engine: Engine, doc_id: str, gt: dict,
                   pred: dict) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The FD/FA/FN comparisons of one pair, each naming its document (``--non-matches`` lines), and the
    line that counts those past ``--limit explain-items`` ({"doc_id", "not_shown": {...}}; None if none)."""
    rows, more = explain(engine, gt, pred)
    beyond = not_shown(more, MISSES)
    return ([{"doc_id": doc_id, **r} for r in rows if r["type"] in MISSES],
            None if beyond is None else {"doc_id": doc_id, "not_shown": beyond})


def more_line(count: int, what: str = "failing comparisons") -> str:
    """"… and N more …": what an output says in place of the ``count`` comparisons past explain-items."""
    return f"… and {count:,} more {what} not shown (--limit explain-items)"


def misses_not_shown(doc: dict[str, Any]) -> int:
    """The failing comparisons (FD, FA, FN) of a worst document past explain-items (its
    ``comparisons_not_shown``); 0 when none, or when a report read back holds no such block."""
    block = doc.get("comparisons_not_shown")
    by_type = block.get("by_type") if isinstance(block, dict) else None
    if not isinstance(by_type, dict):
        return 0
    return sum(n for name, n in by_type.items() if name in MISSES and type(n) is int)


def where(doc: dict[str, Any]) -> str:
    """Where a kept document is, for a reader: "gt/part-2.jsonl:6, pred/part-2.jsonl:6" (or, without
    file names, as the Python API scores dicts: "ground truth line 6, prediction line 6")."""
    gt, pred = doc.get("gt_source"), doc.get("pred_source")
    found = f"{gt}:{doc.get('gt_line')}" if gt else f"ground truth line {doc.get('gt_line')}"
    if doc.get("pred_line"):
        found += f", {pred}:{doc['pred_line']}" if pred else f", prediction line {doc['pred_line']}"
    elif pred:
        found += f", no line of {pred}"
    return found


def imperfect(worst: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The worst documents that have something to show (a perfect document can be among the
    worst kept when there are few documents)."""
    return [d for d in worst
            if d["score"] < 1.0 or any(c["type"] in MISSES for c in d["comparisons"]) or misses_not_shown(d)]


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


def document_row(plan: Plan, doc: DocResult, doc_id: str, where: dict[str, Any],
                 nodes: list[rollup.Node] | None = None) -> dict[str, Any]:
    """One ``--per-document`` line: the document's score, its top-level fields' scores, every
    field path's classifications and, with the plan's ``nodes`` (rollup.nodes), the leaf roll-up
    of the document and of each object and list of objects (only the counts that are not zero)."""
    counts: dict[str, dict[str, int]] = {}
    tally = doc.tally
    fields = plan.fields
    for f in fields:
        base = 5 * f.index
        found = {name: tally[base + k] for k, name in enumerate(COUNT_NAMES) if tally[base + k]}
        if found:
            counts[f.path] = found
    row = {"doc_id": doc_id, **where, "score": doc.score, "field_scores": doc.field_scores, "counts": counts}
    if nodes:
        document, by_node = rollup.of_document(tally, nodes)

        def shown(c: list[int]) -> dict[str, int]:
            return {name: c[k] for k, name in enumerate(COUNT_NAMES) if c[k]}

        row["aggregate"] = {"document": shown(document),
                            "fields": {fields[i].path: shown(c) for i, c in by_node.items() if any(c)}}
    return row


def worst_documents(engine: Engine, worst: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The report's ``worst_documents``: each kept document with its comparisons explained (the first
    ``--limit explain-items``, long values cut as in the samples; the rest counted in ``comparisons_not_shown``)."""
    out = []
    for d in worst:
        rows, more = explain(engine, d["gt"], d["pred"])
        doc = {"doc_id": d["doc_id"], "gt_source": d["gt_source"], "gt_line": d["gt_line"],
               "pred_source": d["pred_source"], "pred_line": d["pred_line"], "score": d["score"],
               "comparisons": [cut_values(r, WORST_VALUE_CHARS) for r in rows]}
        beyond = not_shown(more)
        if beyond is not None:
            doc["comparisons_not_shown"] = beyond
        out.append(doc)
    return out


# -- failing comparisons kept per field (the HTML report's field panels) ---------------------------

# Characters of a value's JSON that a kept failing comparison holds; a longer value is kept as its JSON text
# cut to this length (and named in the row's "cut"), so that the sample's memory does not follow the data's
# (the HTML report shows 300 characters of a value; --non-matches writes whole values).
SAMPLE_VALUE_CHARS = 1000
# The same for the worst documents' rows: every report shows 300 characters of a value, a longer one is cut here
# so that a report does not hold a whole long line once per level of nesting above it (docs/performance.md).
WORST_VALUE_CHARS = 10_000
# What a kept failing comparison holds: its document, then a comparison row's keys (confidence and the
# default marks when the rows carry them). Other keys are dropped, so that a state's rows can be checked.
SAMPLE_REQUIRED = ("doc_id", "path", "type", "gt", "pred", "similarity", "score", "threshold", "comparator")
SAMPLE_KEYS = (*SAMPLE_REQUIRED, "confidence", "gt_default", "pred_default")
SIDES = ("gt", "pred")
_ITEM = re.compile(r"\[(?:[0-9]+|-)↔(?:[0-9]+|-)\]")
_LISTS = (Kind.PRIMITIVE_LIST, Kind.OBJECT_LIST)


def sample_row(row: dict[str, Any]) -> dict[str, Any]:
    """A failing comparison as the run keeps it: the sample's keys only, long values cut (see SAMPLE_VALUE_CHARS)."""
    out = {key: row[key] for key in SAMPLE_KEYS if key in row}
    confidence = out.get("confidence")
    if confidence is not None and not (type(confidence) in (int, float) and math.isfinite(confidence)):
        out["confidence"] = None  # a malformed _confidence (listed in errors) is no figure to show
    return cut_values(out)


def cut_values(out: dict[str, Any], chars: int = SAMPLE_VALUE_CHARS) -> dict[str, Any]:
    """``out`` (a comparison row, changed in place) with each value whose JSON is longer than ``chars`` kept as
    that text cut, the sides cut named in "cut": what a kept row holds, whatever the data's size."""
    cut = []
    for side in SIDES:
        value = out.get(side)
        if value is None or type(value) in (bool, float) or (type(value) is str and len(value) < chars // 6):
            continue  # short: its JSON is within ``chars`` (at most 6 characters a code point), none made
        text = compact_json(value)
        if text is None:
            out[side] = "<nested too deeply to show>"
            cut.append(side)
        elif len(text) > chars:
            out[side] = text[:chars - 1] + "…"
            cut.append(side)
    if cut:
        out["cut"] = cut
    return out


def listed_value(row: dict[str, Any], side: str, limit: int) -> Any:
    """A row's ``side`` value as a failure list of ``limit`` characters shows it: a value the run kept cut (its
    JSON text, named in "cut") as its first characters and the word that it was cut, within ``limit``, so that
    no count of the characters left out is made up from the part kept."""
    value = row.get(side)
    if side not in (row.get("cut") or ()) or not isinstance(value, str):
        return value
    note = f"… (cut: over {WORST_VALUE_CHARS:,} characters of JSON)"
    return value.removesuffix("…")[:max(limit - len(note), 0)] + note


def failure_field(plan: Plan, path: str, kind: str) -> FieldPlan | None:
    """The field a comparison row belongs to, from its display path (``items[0↔1].name`` is ``items.name``);
    None for a row that is not one of its field's counted comparisons (a list of objects compared as a whole:
    its pairs are the counted ones) or for a path the plan does not have."""
    found = _field_at(plan.root, path)
    if found is None:
        return None
    field, item = found
    if field.kind is Kind.OBJECT_LIST and not item and kind == "FD":
        return None
    return field


def _field_at(model: ModelPlan, path: str) -> tuple[FieldPlan, bool] | None:
    """(field, whether the path names one of its list items) of a display path below ``model``. Keys may hold
    dots and brackets themselves: every field whose key starts the path is tried."""
    for f in model.fields:
        if not path.startswith(f.key):
            continue
        rest, item = path[len(f.key):], False
        if f.kind in _LISTS:
            match = _ITEM.match(rest)
            if match:
                rest, item = rest[match.end():], True
        if not rest:
            return f, item
        if rest[0] == "." and f.model is not None:
            found = _field_at(f.model, rest[1:])
            if found is not None:
                return found
    return None
