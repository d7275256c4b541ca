"""Error analysis: which documents and which comparisons failed, and how.

Scoring keeps only counts; a document is explained (every comparison with its
ground truth, prediction, similarity and classification) only when it is among
the worst kept, when every non-match is asked for (``--non-matches``), or while
a field it fails on still has room among the failing comparisons kept per field
(``--limit failures-per-field``: the HTML report's field panels).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import re
from typing import TYPE_CHECKING, Any

import orjson

from ..json_text import compact_json, named_non_finite
from ..engine.result import COUNT_NAMES, FA, FD, FN, LABELS, DocResult, TraceRow
from ..plan import FieldPlan, Kind, ModelPlan, Plan
from . import rollup
from .part import Collect, Part, ReportContext
from ..schema.keywords import escape as _token
from .state_check import bad, check_array, check_count, check_number, check_object, check_scalar, shown

if TYPE_CHECKING:
    from ..engine import Engine

MISSES = ("FD", "FA", "FN")
# What a worst document without a miss says in place of its list (imperfect() keeps it for its score).
PARTIAL_ONLY = "no failing comparison: the score is below 1 by partial matches"


def has_misses(tally: list[int]) -> bool:
    """Whether a document's flat per-field counts hold any FD, FA or FN (three slices: in C)."""
    return any(tally[FA::5]) or any(tally[FD::5]) or any(tally[FN::5])


def row(r: TraceRow) -> dict[str, Any]:
    """One comparison as the reports show it (docs/why-it-fails.md, "Which documents and fields failed"): plain
    values, the prediction's confidence at a leaf (else null), whether a schema default stood
    in for a missing value on either side, and (only then) which of the ground truth's ``_alternatives`` decided."""
    shown = {
        "path": r.path,
        "type": r.label,
        "gt": named_non_finite(r.gt),
        "pred": named_non_finite(r.pred),
        "confidence": r.confidence,
        "similarity": r.similarity,
        "score": r.score,
        "threshold": r.threshold,
        "comparator": r.comparator,
        "gt_default": r.gt_default,
        "pred_default": r.pred_default,
    }
    if r.alternative is not None:  # the ground truth's acceptable value that decided (its index in _alternatives)
        shown["alternative"] = r.alternative
    return shown


def explain(engine: Engine, gt: dict, pred: dict) -> tuple[list[dict[str, Any]], list[int], dict[str, Any]]:
    """The comparisons made for one pair, as report rows: the first ``--limit explain-items`` of them, how
    many more of each type (TP, FA, FD, FN, TN) were made but not explained (``Trace.more``), and how its lists'
    items were paired (``pairings``)."""
    result = engine.compare(gt, pred, explain=True)
    return [row(r) for r in result.trace], result.trace.more, pairings(result)


def pairings(result: DocResult) -> dict[str, Any]:
    """How each list's items were paired, as the outputs carry it (docs/ground-truth.md, "Every pairing
    shown"): {"pairings": {list path: [{"gt_index", "pred_index", "rule", "similarity"}, ...]}} and
    "pairings_not_shown" (past --limit explain-items) when there are more; {} when the document has no list
    items (or the result was not asked for them)."""
    shown = result.pairings
    if not shown and not (shown is not None and shown.more):
        return {}
    out: dict[str, Any] = {"pairings": shown.by_list()}
    if shown.more:
        out["pairings_not_shown"] = {"count": shown.more, "limit": "explain-items"}
    return out


def with_pairs(rows: list[dict[str, Any]], paired: dict[str, Any]) -> list[dict[str, Any]]:
    """``rows`` with a "pair" ({"gt_index", "pred_index", "rule", "similarity"}) on each row of a list item pair
    (path ``items[0↔3]``, ``items[-↔4]``): how those items were paired."""
    by_path = {
        f"{path}[{'-' if p['gt_index'] is None else p['gt_index']}↔{'-' if p['pred_index'] is None else p['pred_index']}]": p
        for path, pairs in paired.get("pairings", {}).items()
        for p in pairs
    }
    if not by_path:
        return rows
    return [{**r, "pair": by_path[r["path"]]} if r["path"] in by_path else r for r in rows]


def not_shown(more: list[int], types: tuple[str, ...] = LABELS) -> dict[str, Any] | None:
    """What an output says of the comparisons past ``--limit explain-items`` (``more``: counts by type, as
    ``explain`` gives them), counting only ``types``: {"count": N, "by_type": {...}, "limit": ...}; None when
    there are none."""
    by_type = {name: more[k] for k, name in enumerate(LABELS) if name in types and more[k]}
    if not by_type:
        return None
    return {"count": sum(by_type.values()), "by_type": by_type, "limit": "explain-items"}


def non_match_rows(
    engine: Engine, doc_id: str, gt: dict, pred: dict
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The FD/FA/FN comparisons of one pair, each naming its document (``--non-matches`` lines; a list item
    pair's with its "pair"), and the line that counts those past ``--limit explain-items`` ({"doc_id",
    "not_shown": {...}}; None if none)."""
    rows, more, paired = explain(engine, gt, pred)
    beyond = not_shown(more, MISSES)
    return (
        [{"doc_id": doc_id, **r} for r in with_pairs(rows, paired) if r["type"] in MISSES],
        None if beyond is None else {"doc_id": doc_id, "not_shown": beyond},
    )


def more_line(count: int, what: str = "failing comparisons") -> str:
    """ "… and N more …": what an output says in place of the ``count`` comparisons past explain-items."""
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
    return [
        d
        for d in worst
        if d["score"] < 1.0 or any(c["type"] in MISSES for c in d["comparisons"]) or misses_not_shown(d)
    ]


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


def document_row(
    plan: Plan,
    doc: DocResult,
    doc_id: str,
    where: dict[str, Any],
    nodes: list[rollup.Node] | None = None,
    paired: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One ``--per-document`` line: the document's score, its top-level fields' scores, every
    field path's classifications and, with the plan's ``nodes`` (rollup.nodes), the leaf roll-up
    of the document and of each object and list of objects (only the counts that are not zero); then how its
    lists' items were paired (``paired``: ``pairings``' block)."""
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

        row["aggregate"] = {
            "document": shown(document),
            "fields": {fields[i].path: shown(c) for i, c in by_node.items() if any(c)},
        }
    if paired:
        row.update(paired)
    return row


def worst_documents(engine: Engine, worst: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The report's ``worst_documents``: each kept document with its comparisons explained (the first
    ``--limit explain-items``, long values cut as in the samples; the rest counted in ``comparisons_not_shown``)."""
    out = []
    for d in worst:
        rows, more, paired = explain(engine, d["gt"], d["pred"])
        doc = {
            "doc_id": d["doc_id"],
            "gt_source": d["gt_source"],
            "gt_line": d["gt_line"],
            "pred_source": d["pred_source"],
            "pred_line": d["pred_line"],
            "score": d["score"],
            "comparisons": [cut_values(r, WORST_VALUE_CHARS) for r in rows],
        }
        beyond = not_shown(more)
        if beyond is not None:
            doc["comparisons_not_shown"] = beyond
        doc.update(paired)
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
            out[side] = text[: chars - 1] + "…"
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
    return value.removesuffix("…")[: max(limit - len(note), 0)] + note


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
        rest, item = path[len(f.key) :], False
        if f.kind in _LISTS:
            match = _ITEM.match(rest)
            if match:
                rest, item = rest[match.end() :], True
        if not rest:
            return f, item
        if rest[0] == "." and f.model is not None:
            found = _field_at(f.model, rest[1:])
            if found is not None:
                return found
    return None


# -- the parts of the accumulated state (analyses/part.py) ---------------------------------------------------------


class WorstDocuments:
    """The ``kept`` documents with the lowest (score, position in the input): a heap of (-score, -position,
    sample), so that its top is the first to give way. ``known``: how many of them are exactly known (states
    merged in may have kept fewer)."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self.known = kept
        self.heap: list[tuple[float, int, dict[str, Any]]] = []

    def is_among(self, score: float) -> bool:
        """Whether a document of this score, the latest added, belongs among the worst kept."""
        heap = self.heap
        return len(heap) < self.kept or (bool(heap) and score < -heap[0][0])

    def bound(self) -> float:
        """The score from which a document is not among the worst kept (``is_among`` is False for any score at
        or above it)."""
        heap = self.heap
        if len(heap) < self.kept:
            return math.inf
        return -heap[0][0] if heap else -math.inf

    def keep(self, score: float, sample: dict[str, Any], position: int) -> None:
        """Keep a document (``sample``: its id, lines, ground truth and prediction) at ``position`` in the input."""
        entry = (-score, -position, sample)
        if len(self.heap) < self.kept:
            heapq.heappush(self.heap, entry)
        elif self.heap:
            heapq.heappushpop(self.heap, entry)

    def listed(self) -> list[dict[str, Any]]:
        """The worst documents kept, worst first (ties: earlier in the input first); never more than every merged
        state kept, so the list does not depend on how a run was split."""
        return [
            {**sample, "score": -score, "position": -position}
            for score, position, sample in sorted(self.heap, reverse=True)[: self.known]
        ]


def new_worst(plan: Plan, collect: Collect) -> WorstDocuments:
    return WorstDocuments(collect.worst)


def worst_state(store: WorstDocuments, as_arrays: bool) -> dict[str, Any]:
    return {"worst": store.listed(), "worst_kept": store.known}


def merge_worst(store: WorstDocuments, state: dict[str, Any], offset: int) -> None:
    for entry in state["worst"]:
        sample = {k: v for k, v in entry.items() if k not in ("score", "position")}
        heapq.heappush(store.heap, (-entry["score"], -(entry["position"] + offset), sample))
    while len(store.heap) > store.kept:
        heapq.heappop(store.heap)
    store.known = min(store.known, state["worst_kept"])


WORST_KEYS = ("doc_id", "gt_source", "gt_line", "pred_source", "pred_line", "gt", "pred", "score", "position")


def check_worst(state: dict[str, Any], plan: Plan) -> None:
    """A state's ``worst``: at most ``worst_kept`` of its documents, each whole, at a position within the run."""
    n, kept = state["document_count"], check_count(state["worst_kept"], "/worst_kept")
    worst = check_array(state["worst"], "/worst")
    if len(worst) > min(kept, n):
        raise bad("/worst", f"holds {len(worst)} documents, more than the {min(kept, n)} the state kept")
    for k, entry in enumerate(worst):
        where = f"/worst/{k}"
        check_object(entry, where, WORST_KEYS)
        check_scalar(entry["doc_id"], f"{where}/doc_id")
        check_count(entry["gt_line"], f"{where}/gt_line")
        for side in ("gt_source", "pred_source"):
            if entry[side] is not None and type(entry[side]) is not str:
                raise bad(
                    f"{where}/{side}", f"must be a file name (a string) or null, got {type(entry[side]).__name__}"
                )
        if entry["pred_line"] is not None:
            check_count(entry["pred_line"], f"{where}/pred_line")
        check_object(entry["gt"], f"{where}/gt")
        check_object(entry["pred"], f"{where}/pred")
        check_number(entry["score"], f"{where}/score", 0.0, 1.0)
        if check_count(entry["position"], f"{where}/position") >= n:
            raise bad(f"{where}/position", f"must be below the document count {n}, got {entry['position']}")


def worst_report(store: WorstDocuments, context: ReportContext) -> dict[str, Any]:
    from ..engine import Engine

    return {"worst_documents": worst_documents(Engine(context.plan, context.judge_pairing), store.listed())}


WORST = Part("worst_documents", new_worst, worst_state, merge_worst, check_worst, report=worst_report)


class FailureSamples:
    """The first ``known`` failing comparisons of each field (``rows``, by field index), in input order: rows of
    sample_row. A document is explained only while a field it fails on has room (``open``)."""

    def __init__(self, plan: Plan, kept: int) -> None:
        self.plan = plan
        self.rows: dict[int, list[dict[str, Any]]] = {}
        self.known = kept
        self.open = list(range(len(plan.fields))) if kept > 0 else []
        self.index = {f.path: f.index for f in plan.fields}

    def wants(self, tally: list[int]) -> bool:
        """Whether a document of these counts fails on a field whose sample still has room: only then is it
        explained for the sample."""
        if not self.open or not has_misses(tally):
            return False
        return any(tally[5 * i + FA] or tally[5 * i + FD] or tally[5 * i + FN] for i in self.open)

    def keep(self, rows: list[dict[str, Any]]) -> None:
        """Keep a document's failing comparisons (non_match_rows) in the samples that have room."""
        full = False
        for row in rows:
            field = failure_field(self.plan, row["path"], row["type"])
            if field is None:
                continue
            kept = self.rows.setdefault(field.index, [])
            if len(kept) < self.known:
                kept.append(sample_row(row))
                full = full or len(kept) >= self.known
        if full:
            self.reopen()

    def full_fields(self) -> frozenset[int]:
        """The fields whose sample is full: a later part of the input (a worker's chunk) need not sample them."""
        return frozenset(range(len(self.plan.fields))) - frozenset(self.open)

    def close(self, full: frozenset[int]) -> None:
        """Sample nothing for ``full`` fields (an earlier part of the input has filled them)."""
        self.open = [i for i in self.open if i not in full]

    def reopen(self) -> None:
        self.open = [i for i in self.open if len(self.rows.get(i, ())) < self.known]

    def by_path(self) -> dict[str, list[dict[str, Any]]]:
        """The kept failing comparisons by field path, in the plan's field order."""
        fields = self.plan.fields
        return {fields[i].path: rows[: self.known] for i, rows in sorted(self.rows.items()) if rows and self.known}


def new_samples(plan: Plan, collect: Collect) -> FailureSamples:
    return FailureSamples(plan, collect.failures)


def samples_state(store: FailureSamples, as_arrays: bool) -> dict[str, Any]:
    return {"failures": store.by_path(), "failures_kept": store.known}


def merge_samples(store: FailureSamples, state: dict[str, Any], offset: int) -> None:
    # The states come in input order and each kept its first failing comparisons: their concatenation, cut to the
    # smaller bound, is the first ones of the whole input.
    store.known = min(store.known, state["failures_kept"])
    for path, rows in state["failures"].items():
        kept = store.rows.setdefault(store.index[path], [])
        room = store.known - len(kept)
        if room > 0:
            kept.extend(rows[:room])
    store.reopen()


def check_samples(state: dict[str, Any], plan: Plan) -> None:
    """A state's ``failures``, the first failing comparisons of each field: at most ``failures_kept`` per field, each
    a row as the run keeps it (sample_row: known keys, values of their types, long values cut) whose path is of
    its field."""
    failures, kept = state["failures"], check_count(state["failures_kept"], "/failures_kept")
    paths = {f.path for f in plan.fields}
    for path, rows in check_object(failures, "/failures").items():
        where = f"/failures/{_token(path)}"
        if path not in paths:
            raise bad(where, "not a field of the schema")
        if len(check_array(rows, where)) > kept:
            raise bad(where, f"holds {len(rows)} comparisons, more than the {kept} per field the state kept")
        for k, row in enumerate(rows):
            at = f"{where}/{k}"
            check_object(row, at)
            for key in SAMPLE_REQUIRED:
                if key not in row:
                    raise bad(at, f"missing key {key!r}")
            for key in row:
                if key not in SAMPLE_KEYS and key != "cut":
                    raise bad(f"{at}/{_token(key)}", "unknown key")
            check_scalar(row["doc_id"], f"{at}/doc_id")
            for key in ("path", "comparator"):
                if not isinstance(row[key], str):
                    raise bad(f"{at}/{key}", f"must be a string, got {shown(row[key])}")
            if row["type"] not in MISSES:
                raise bad(f"{at}/type", f"must be one of {', '.join(MISSES)}, got {shown(row['type'])}")
            for key in ("similarity", "score", "threshold"):
                if row[key] is not None:
                    check_number(row[key], f"{at}/{key}")
            if row.get("confidence") is not None:
                check_number(row["confidence"], f"{at}/confidence")
            for key in ("gt_default", "pred_default"):
                if key in row and type(row[key]) is not bool:
                    raise bad(f"{at}/{key}", f"must be true or false, got {shown(row[key])}")
            cut = check_array(row.get("cut", []), f"{at}/cut")
            if any(side not in SIDES for side in cut) or len(set(cut)) != len(cut):
                raise bad(f"{at}/cut", f"must name gt and/or pred once each, got {shown(cut)}")
            for side in SIDES:
                value = row[side]
                if side in cut and not isinstance(value, str):
                    raise bad(f"{at}/{side}", "a cut value must be a string")
                text = value if side in cut else compact_json(value)
                if text is None:
                    raise bad(f"{at}/{side}", "nested too deeply (a state keeps such a value cut)")
                size = len(text)
                if size > SAMPLE_VALUE_CHARS:
                    raise bad(f"{at}/{side}", f"holds {size} characters, more than the {SAMPLE_VALUE_CHARS} kept")
            field = failure_field(plan, row["path"], row["type"])
            if field is None or field.path != path:
                raise bad(f"{at}/path", f"must be a comparison of field {shown(path)}, got {shown(row['path'])}")


def samples_report(store: FailureSamples, context: ReportContext) -> dict[str, Any]:
    return {"field_failures": {"kept_per_field": store.known, "fields": store.by_path()}}


SAMPLES = Part("field_failures", new_samples, samples_state, merge_samples, check_samples, report=samples_report)
