"""The engine's main path: a batch of documents scored field by field, in arrays.

``Engine.compare`` walks one document at a time and calls a comparator once per
value. Here the unit is a batch: each field's (ground truth, prediction) values
are gathered over every document of the batch (list items included, once
matched), compared in one vectorised call (``similarity_cells``: rapidfuzz's
``cpdist``, numpy for numbers, keys for Exact), and classified, counted and
summed with numpy. Python still walks the JSON (reading each field's values
once per object) and does what belongs to one document: the Hungarian
assignment of each list.

The numbers are ``Engine.compare``'s to the last bit, by construction: every
float is made by the same operation on the same operands in the same order
(sums of a document's values are added one after the other, never pairwise),
and tests hold the two paths equal on generated schemas and documents
(tests/engine/test_batch_engine.py). What the fast path leaves out, a document gets
from ``Engine.compare`` itself: a malformed ``_confidence``, a rich value
carrying metadata (``_bbox``...), a list beyond the matching bound; and when a
comparator fails anywhere in the batch, every document of the batch is scored
one by one, so that each failure is reported with its own document.

A batch is a tree of frames. A frame is a set of rows, each a (ground truth
object, predicted object) pair of one model and the document it belongs to:
the documents themselves at the top; the objects found under an object field;
the matched item pairs of an object list. Objects are held in tables (one per
side), whose columns (a field's values, nulls, confidences) are read once per
object, however many pairs the object is in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import repeat
from itertools import chain
from typing import Any, Sequence

import numpy as np

from .. import limits
from ..plan import FieldPlan, Kind, ModelPlan
from .items import Cells, Column, ScoringEngine, cell_grid, item_cells, null_mask, vectorised_model
from .matching import TIE_BREAK, assign, list_cost, maximise, over_bound, paired_by_key
from . import row_errors
from .result import FA, FD, FN, KEY, POSITION, TN, TP, ConfidencePair, DocResult, Pairings
from .values import MISSING as _MISSING, confidence_value, is_rich, unwrapped

_PRIMITIVE, _OBJECT, _PRIMITIVE_LIST = Kind.PRIMITIVE, Kind.OBJECT, Kind.PRIMITIVE_LIST

# Per-document sums of up to this many values a document (list item pairs) are added in
# arrays, column after column; beyond it, in a Python loop (same order, same floats).
SUM_COLUMNS = 64


@dataclass
class BatchResult:
    """What ``Engine.score_batch`` gives for n documents: ``DocResult``'s content, one row per document.

    ``tally[d]``, ``score_sum[d]``, ``score_n[d]`` are document d's flat
    counts and per-field sums as in ``DocResult``; the confidence pairs of all
    documents are in columns, document after document (``confidence_counts[d]``
    of them for document d), field after field, each field's in the order
    ``Engine.compare`` lists them (it lists a document's fields interleaved).
    """

    scores: np.ndarray  # (n,) document scores
    top_keys: tuple[str, ...]
    top_scores: np.ndarray  # (n, top-level fields)
    tally: np.ndarray  # (n, 5 * fields) int64
    score_sum: np.ndarray  # (n, fields) float64
    score_n: np.ndarray  # (n, fields) int64
    predicted_leaves: np.ndarray  # (n,) int64
    confidence_field: np.ndarray  # int32
    confidence_match: np.ndarray  # bool
    confidence_value: np.ndarray  # float64
    confidence_similarity: np.ndarray  # float64
    confidence_counts: np.ndarray  # (n,) int64
    # The flat similarity bins (bins.Layout) of the compared pairs of primitive fields, document after
    # document (``similarity_counts[d]`` of them for document d), each document's in no particular order.
    similarity_bin: np.ndarray
    similarity_counts: np.ndarray
    errors: dict[int, list[str]] = field(default_factory=dict)  # by document, only where there are some
    metadata: dict[int, list[tuple[int, str, dict]]] = field(default_factory=dict)
    boxes: dict[int, list] = field(default_factory=dict)  # boxes.BoxRecord lists, by document
    # By document, only where there are some: the lists not matched whole and in order (row_errors.ListFindings).
    list_errors: dict[int, list] = field(default_factory=dict)
    slow: int = 0  # documents scored by Engine.compare (malformed confidences, metadata, failures)
    # (document, field index, gt value, pred value) of each FD of a leaf or list of leaves (DocResult.fd_values)
    fd_values: list[tuple[int, int, Any, Any]] = field(default_factory=list)
    # The judges' bill of the batch (DocResult.judge, summed): field index -> comparators.base.BILL counts.
    judge: dict[int, list[int]] = field(default_factory=dict)
    # By document, only where there are some: DocResult.alternatives (values listing acceptable values, all scored
    # by Engine.compare).
    alternatives: dict[int, list[tuple[int, bool]]] = field(default_factory=dict)
    # By document, how its lists' items were paired (DocResult.pairings), when asked (score_batch's pairings).
    pairings: dict[int, Pairings] | None = None

    def __len__(self) -> int:
        return len(self.scores)

    def document(self, d: int) -> DocResult:
        """Document d's result as ``Engine.compare`` gives it (the trace excepted)."""
        start = int(self.confidence_counts[:d].sum())
        end = start + int(self.confidence_counts[d])
        counts = self.similarity_counts
        first = int(counts[:d].sum())
        bins = self.similarity_bin[first : first + int(counts[d])].tolist()
        pairs = [
            ConfidencePair(f, m, v, s)
            for f, m, v, s in zip(
                self.confidence_field[start:end].tolist(),
                self.confidence_match[start:end].tolist(),
                self.confidence_value[start:end].tolist(),
                self.confidence_similarity[start:end].tolist(),
            )
        ]
        return DocResult(
            score=float(self.scores[d]),
            field_scores=dict(zip(self.top_keys, self.top_scores[d].tolist())),
            tally=self.tally[d].tolist(),
            score_sum=self.score_sum[d].tolist(),
            score_n=self.score_n[d].tolist(),
            confidences=pairs,
            errors=list(self.errors.get(d, ())),
            predicted_leaves=int(self.predicted_leaves[d]),
            metadata=list(self.metadata.get(d, ())),
            boxes=list(self.boxes.get(d, ())),
            similarity_bins=bins,
            list_errors=list(self.list_errors.get(d, ())),
            alternatives=list(self.alternatives[d]) if d in self.alternatives else None,
            pairings=None if self.pairings is None else self.pairings[d],
        )


class _Table:
    """Objects of one model on one side (ground truth or prediction), columns read on first use."""

    __slots__ = ("objects", "predicted", "_columns")

    def __init__(self, objects: list[dict], predicted: bool) -> None:
        self.objects = objects
        self.predicted = predicted
        self._columns: dict[int, Column] = {}

    def __len__(self) -> int:
        return len(self.objects)

    def column(self, f: FieldPlan) -> Column:
        found = self._columns.get(f.index)
        if found is None:
            found = self._columns[f.index] = _read(self.objects, f, self.predicted)
        return found


def _read(objects: list[dict], f: FieldPlan, predicted: bool) -> Column:
    """``f``'s column: a missing key takes the default (never unwrapped), rich values are unwrapped;
    for predictions also each value's confidence and whether it carries metadata."""
    key, default = f.key, f.default
    if not f.rich:  # an object declaring _value: data, never unwrapped (nor a confidence read from it)
        values = list(map(dict.get, objects, repeat(key), repeat(default)))
        return Column(values, null_mask(values, f.kind))
    # Every object of a table is a dict (_Table's callers make it so): dict.get mapped over them, in C, costs
    # four fifths of a comprehension calling d.get.
    if type(default) is dict:  # a default is never unwrapped: keep missing keys apart
        given = list(map(dict.get, objects, repeat(key), repeat(_MISSING)))
        values = unwrapped(given, default)
    else:
        given = values = list(map(dict.get, objects, repeat(key), repeat(default)))
    types = set(map(type, given))
    rich = dict in types
    kind = f.kind
    confidences: list | None = None
    odd: bool | None = None
    if rich and predicted:  # one pass: values, confidences (NaN: none; -1.0: malformed), metadata
        values, confidences, odd = _unwrap_predictions(given, default, kind is _PRIMITIVE)
    elif rich and values is given:
        values = unwrapped(given)
    if values is not given:
        types = set(map(type, values))
    column = Column(values, null_mask(values, kind, types))
    if odd is None:
        return column
    flagged = np.zeros(len(values), dtype=bool)
    if odd:  # metadata beyond _value and _confidence: Engine.compare keeps it
        flagged[
            [k for k, v in enumerate(given) if is_rich(v) and (len(v) > 2 or (len(v) == 2 and "_confidence" not in v))]
        ] = True
    if confidences:  # only leaves record confidences
        value = np.array(confidences, dtype=float)
        column.has_confidence = ~np.isnan(value)
        column.confidence = value
        flagged |= value < 0.0
    column.odd = flagged if flagged.any() else None
    return column


def _unwrap_predictions(given: list, default: Any, leaf: bool) -> tuple[list, list, bool]:
    """(values, confidences, whether any rich value carries metadata) of a prediction column with rich
    values; confidences (of leaves only) as floats, NaN where none, -1.0 where malformed. ``values.unwrapped``
    and the confidences in one pass (the test of a rich value inlined: a loop over every prediction)."""
    values: list = []
    confidences: list = []
    keep, note = values.append, confidences.append
    odd = False
    nan = math.nan
    if leaf:
        for v in given:
            if type(v) is dict and "_value" in v:
                keep(v["_value"])
                c = v.get("_confidence")
                if c is None or len(v) != 2:
                    odd = odd or len(v) > 2 or (len(v) == 2 and "_confidence" not in v)
                note(c if type(c) is float and 0.0 <= c <= 1.0 else _as_confidence(c))
            else:
                keep(default if v is _MISSING else v)
                note(nan)
    else:
        for v in given:
            if type(v) is dict and "_value" in v:
                keep(v["_value"])
                odd = odd or len(v) > 2 or (len(v) == 2 and "_confidence" not in v)
            else:
                keep(default if v is _MISSING else v)
    return values, confidences, odd


def _confidences(confidences: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(given, value as a float, malformed) of each ``_confidence`` (None: not given)."""
    value = np.array(
        [c if type(c) is float and 0.0 <= c <= 1.0 else _as_confidence(c) for c in confidences], dtype=float
    )
    has = ~np.isnan(value)
    return has, value, value < 0.0


def _as_confidence(c: Any) -> float:
    """A ``_confidence`` as ``compare._confidence`` takes it: NaN when there is none, -1.0 when it is
    malformed (not a number from 0 to 1; Engine.compare reports it)."""
    if c is None:
        return math.nan
    number = confidence_value(c)
    return -1.0 if number is None else number


def _take(mask: np.ndarray, at: np.ndarray | None) -> np.ndarray:
    return mask if at is None else mask[at]


def _values(values: list, at: np.ndarray | None) -> list:
    return values if at is None else [values[i] for i in at.tolist()]


def sequential_sums(values: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """Per owner (0..n-1), the sum of its values added one after the other from 0.0, in order.

    ``owner`` is non-decreasing. Not ``np.add.reduceat`` or ``bincount``: those
    may add in another order (pairwise), which changes the last bit.
    """
    out = np.zeros(n)
    if not len(values):
        return out
    counts = np.bincount(owner, minlength=n)
    width = int(counts.max())
    if width <= SUM_COLUMNS:
        rank = np.arange(len(owner)) - (np.cumsum(counts) - counts)[owner]
        grid = np.zeros((width, n))
        grid[rank, owner] = values  # a shorter owner's row ends in zeros: x + 0.0 is x
        for row in grid:
            out += row
        return out
    sums = out.tolist()
    for o, v in zip(owner.tolist(), values.tolist()):
        sums[o] += v
    return np.array(sums)


class BatchScorer:
    """Scores one batch for ``Engine.score_batch``: the frames' counts and sums, per document."""

    def __init__(
        self,
        engine: ScoringEngine,
        docs: Sequence[tuple[Any, Any]],
        pair_floor: float,
        batch_pairs: int,
        pairings: bool = False,
    ) -> None:
        self.engine = engine
        self.docs = docs
        self.pair_floor = pair_floor  # compare.PAIR_FLOOR
        self.batch_pairs = batch_pairs  # compare.BATCH_PAIRS: longer lists keep their own matrices
        n = self.n = len(docs)
        size = engine.size
        self.tally = np.zeros((n, 5 * size), dtype=np.int64)
        self.score_sum = np.zeros((n, size))
        self.score_n = np.zeros((n, size), dtype=np.int64)
        self.leaves = np.zeros(n, dtype=np.int64)
        self.odd = np.zeros(n, dtype=bool)  # documents left to Engine.compare
        self.top: list[np.ndarray] = []
        self.list_errors: dict[int, list] = {}  # by document: row_errors.ListFindings of its imperfect lists
        # (owner documents, field index, is_match, confidence, similarity), a chunk per field and frame
        self.pairs: list[tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]] = []
        self.layout = engine.layout
        # (owner documents, flat similarity bins) of the compared pairs, a chunk per primitive field and frame
        self.similar: list[tuple[np.ndarray, np.ndarray]] = []
        # (owner documents, field index, gt values, pred values) of the FDs of leaves, a chunk per field and frame
        self.fd: list[tuple[np.ndarray, int, list, list]] = []
        # By document, how its lists' items were paired, when asked (None: not asked, nothing paid): lists below a
        # list's items (``in_items``) have item indexes in their paths, their documents go to Engine.compare.
        self.noted: dict[int, Pairings] | None = None
        if pairings:
            cap = limits.current().explain_items
            self.noted = {d: Pairings(cap) for d in range(n)}
        self.in_items = 0

    def run(self) -> BatchResult:
        engine, n = self.engine, self.n
        root = engine.plan.root
        if not n:
            return self.result(np.zeros(0), np.zeros((0, len(root.fields))), _no_pairs(0))
        gt = _Table([g if type(g) is dict else {} for g, _ in self.docs], False)
        pred = _Table([p if type(p) is dict else {} for _, p in self.docs], True)
        reported = engine.failures_noted()
        scores, _ = self.frame(root, gt, pred, None, None, np.arange(n), True, None, top=True)
        if engine.forget_failures(reported):  # a comparator failed: each document reports its own
            return self.one_by_one()
        result = self.result(scores, np.stack(self.top, axis=1), self.confidence_columns())
        result.fd_values = [
            (d, index, g, p)
            for owner, index, gs, ps in self.fd
            for d, g, p in zip(owner.tolist(), gs, ps)
            if not self.odd[d]
        ]
        result.pairings = self.noted
        odd = np.flatnonzero(self.odd).tolist()
        if odd:
            _replace(result, {d: engine.compare(*self.docs[d], pairings=self.noted is not None) for d in odd})
        return result

    def one_by_one(self) -> BatchResult:
        """Every document of the batch through ``Engine.compare``."""
        self.similar.clear()  # what a failed columnar pass gathered
        result = self.result(np.zeros(self.n), np.zeros((self.n, len(self.engine.plan.root.fields))), _no_pairs(self.n))
        asked = self.noted is not None
        if asked:
            result.pairings = {}
        _replace(result, {d: self.engine.compare(g, p, pairings=asked) for d, (g, p) in enumerate(self.docs)})
        return result

    def result(self, scores: np.ndarray, top: np.ndarray, pairs: tuple[np.ndarray, ...]) -> BatchResult:
        bins, counts = self.similarity_columns()
        return BatchResult(
            scores,
            tuple(f.key for f in self.engine.plan.root.fields),
            top,
            self.tally,
            self.score_sum,
            self.score_n,
            self.leaves,
            *pairs,
            similarity_bin=bins,
            similarity_counts=counts,
            list_errors=self.list_errors,
        )

    def similarity_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """The similarity bins, document after document, without the documents left to Engine.compare."""
        if not self.similar:
            return np.zeros(0, dtype=np.int64), np.zeros(self.n, dtype=np.int64)
        owner = np.concatenate([c[0] for c in self.similar])
        bins = np.concatenate([c[1] for c in self.similar]).astype(np.int64)
        order = np.argsort(owner, kind="stable")
        if self.odd.any():
            order = order[~self.odd[owner[order]]]
        return bins[order], np.bincount(owner[order], minlength=self.n).astype(np.int64)

    def confidence_columns(self) -> tuple[np.ndarray, ...]:
        """The confidence pairs, document after document, field after field (each field's in its walk
        order), without the documents left to Engine.compare."""
        if not self.pairs:
            return _no_pairs(self.n)
        owner = np.concatenate([p[0] for p in self.pairs])
        fields = np.concatenate([np.full(len(p[0]), p[1], dtype=np.int32) for p in self.pairs])
        match = np.concatenate([p[2] for p in self.pairs])
        value = np.concatenate([p[3] for p in self.pairs])
        similarity = np.concatenate([p[4] for p in self.pairs])
        order = np.lexsort((fields, owner))  # stable: each field's pairs stay in their walk order
        if self.odd.any():
            order = order[~self.odd[owner[order]]]
        return (
            fields[order],
            match[order],
            value[order],
            similarity[order],
            np.bincount(owner[order], minlength=self.n).astype(np.int64),
        )

    # -- recording ------------------------------------------------------------------

    def count(self, index: int, owner: np.ndarray, label: np.ndarray, amount: np.ndarray | None = None) -> None:
        """Add ``amount`` (default 1) of ``label`` to field ``index``'s counts, row by row, to each row's document."""
        counts = np.bincount(owner * 5 + label, weights=amount, minlength=5 * self.n)
        self.tally[:, 5 * index : 5 * index + 5] += counts.reshape(self.n, 5).astype(np.int64)

    def add_scores(self, index: int, score: np.ndarray, owner: np.ndarray, unique: bool) -> None:
        if unique:  # a row per document at most: each document's sum is its one score
            self.score_sum[owner, index] += score
            self.score_n[owner, index] += 1
        else:
            self.score_sum[:, index] += sequential_sums(score, owner, self.n)
            self.score_n[:, index] += np.bincount(owner, minlength=self.n)

    def flag(self, owner: np.ndarray, odd: np.ndarray | None, at: np.ndarray | None) -> None:
        """Leave to Engine.compare the documents of the rows whose objects are odd."""
        if odd is not None:
            rows = _take(odd, at)
            if rows.any():
                self.odd[owner[rows]] = True

    # -- a frame: rows of (gt object, pred object) of one model ---------------------------

    def frame(
        self,
        model: ModelPlan,
        gt: _Table,
        pred: _Table,
        gi: np.ndarray | None,
        pi: np.ndarray | None,
        owner: np.ndarray,
        unique: bool,
        known: dict[int, np.ndarray] | None,
        top: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(document-style scores, raw similarities) of each row, as ``Engine._model``; counts recorded.

        Row r pairs ``gt`` object ``gi[r]`` with ``pred`` object ``pi[r]`` (None: the
        tables' objects in order) for document ``owner[r]``; ``unique`` when no
        document has two rows. ``known[f.index][r]`` is primitive field f's
        already computed similarity (matched list items).
        """
        rows = len(owner)
        fields, total_weight = self.engine.field_rows(model)
        doc_num = np.zeros(rows)
        sim_num = np.zeros(rows)
        sim_den = np.zeros(rows)
        for _key, _default, index, primitive, weight, f in fields:
            if primitive:
                score, raw, both = self.primitive(f, gt, pred, gi, pi, owner, known)
            elif f.kind is _OBJECT:
                score, raw, both = self.object(f, gt, pred, gi, pi, owner, unique)
            elif f.kind is _PRIMITIVE_LIST:
                score, raw, both = self.primitive_list(f, gt, pred, gi, pi, owner)
            else:
                score, raw, both = self.object_list(f, gt, pred, gi, pi, owner)
            self.add_scores(index, score, owner, unique)
            if top:
                self.top.append(score)
            doc_num += score * weight
            if both is None:
                sim_num += raw * weight
                sim_den += weight
            else:  # fields null on both sides are left out (adding 0.0 changes nothing)
                sim_num += np.where(both, 0.0, raw * weight)
                sim_den += np.where(both, 0.0, weight)
        doc = doc_num / total_weight if total_weight else np.ones(rows)
        sim = np.divide(sim_num, sim_den, out=np.ones(rows), where=sim_den != 0)
        return doc, sim

    def primitive(self, f: FieldPlan, gt: _Table, pred: _Table, gi, pi, owner, known):
        """``Engine._primitive`` for every row: (score, raw similarity, null on both sides or None)."""
        gc, pc = gt.column(f), pred.column(f)
        self.flag(owner, pc.odd, pi)
        g_null, p_null = _take(gc.null, gi), _take(pc.null, pi)
        both = g_null & p_null
        raw = both.astype(float)  # null on both sides: 1.0; on one side: 0.0
        label = np.where(both, TN, np.where(g_null, FA, FN))
        matched = both.copy()
        score = raw
        present = np.flatnonzero(~(g_null | p_null))
        if len(present):
            if known is not None and f.index in known:
                sim = known[f.index][present]
            else:
                sim = self.engine.similarity_cells(
                    f,
                    gc.values,
                    pc.values,
                    present if gi is None else gi[present],
                    present if pi is None else pi[present],
                )
            hit = sim >= f.threshold
            self.similar.append((owner[present], self.layout.flat(f.index, sim)))
            raw[present] = sim
            matched[present] = hit
            label[present] = np.where(hit, TP, FD)
            if not hit.all():  # the FDs' values, for cosmetic.py
                miss = present[~hit]
                self.fd.append(
                    (
                        owner[miss],
                        f.index,
                        _values(gc.values, miss if gi is None else gi[miss]),
                        _values(pc.values, miss if pi is None else pi[miss]),
                    )
                )
            if f.clip and not hit.all():
                score = raw.copy()
                score[present[~hit]] = 0.0
        self.count(f.index, owner, label)
        if pc.has_confidence is None:
            self.leaves += np.bincount(owner[~p_null], minlength=self.n)
        else:
            has = _take(pc.has_confidence, pi)
            self.leaves += np.bincount(owner[~p_null | has], minlength=self.n)
            at = np.flatnonzero(has)
            if len(at):
                self.pairs.append((owner[at], f.index, matched[at], _take(pc.confidence, pi)[at], raw[at]))
        return score, raw, both if both.any() else None

    def object(self, f: FieldPlan, gt: _Table, pred: _Table, gi, pi, owner, unique: bool):
        """``Engine._object`` for every row: the objects present on both sides are a frame of their own."""
        gc, pc = gt.column(f), pred.column(f)
        self.flag(owner, pc.odd, pi)
        g_null, p_null = _take(gc.null, gi), _take(pc.null, pi)
        both = g_null & p_null
        score = both.astype(float)
        raw = score.copy()
        label = np.where(both, TN, np.where(g_null, FA, FN))
        present = np.flatnonzero(~(g_null | p_null))
        if len(present):
            g_objects = [
                v if type(v) is dict else {} for v in _values(gc.values, present if gi is None else gi[present])
            ]
            p_objects = [
                v if type(v) is dict else {} for v in _values(pc.values, present if pi is None else pi[present])
            ]
            doc, sim = self.frame(
                f.model, _Table(g_objects, False), _Table(p_objects, True), None, None, owner[present], unique, None
            )
            hit = sim >= f.threshold
            label[present] = np.where(hit, TP, FD)
            score[present] = np.where(hit, sim, 0.0) if f.clip else sim
            raw[present] = doc  # what an object adds to its parent's similarity: its document-style score
        self.count(f.index, owner, label)
        return score, raw, both if both.any() else None

    def list_values(self, f: FieldPlan, gt: _Table, pred: _Table, gi, pi, owner):
        """A list field's rows: (gt items, pred items, rows with both lists, score, null on both sides or None,
        the rows null on one side only as (row, whether the ground truth is the null one, the other side's
        item count)); the rows where a list is null are counted (``Engine._list_null``). Items are unwrapped,
        a lone value where a list belongs is one item; lists beyond the matching bound are left to
        Engine.compare (here they stand as their first items)."""
        gc, pc = gt.column(f), pred.column(f)
        self.flag(owner, pc.odd, pi)
        g_null, p_null = _take(gc.null, gi), _take(pc.null, pi)
        both = g_null & p_null
        score = both.astype(float)
        g_values, p_values = _values(gc.values, gi), _values(pc.values, pi)
        nulls = np.flatnonzero(g_null | p_null)
        one_side = []
        if len(nulls):
            amount = []
            for r, b, g in zip(nulls.tolist(), both[nulls].tolist(), g_null[nulls].tolist()):
                other = None if b else p_values[r] if g else g_values[r]
                size = 1 if b or type(other) is not list else len(other)
                amount.append(size)
                if not b:
                    one_side.append((r, g, size))
                    if self.noted is not None:  # every item of the other side unmatched
                        self.note(
                            f,
                            owner[r : r + 1],
                            [],
                            [],
                            [],
                            [],
                            np.array([0 if g else size]),
                            np.array([size if g else 0]),
                        )
            label = np.where(both[nulls], TN, np.where(g_null[nulls], FA, FN))
            self.count(f.index, owner[nulls], label, np.array(amount, dtype=float))
        present = np.flatnonzero(~(g_null | p_null))
        g_lists, p_lists = [], []
        cost = list_cost(f)
        for r in present.tolist():
            g, p = g_values[r], p_values[r]
            g_lists.append(g if type(g) is list else [g])
            p_lists.append(p if type(p) is list else [p])
            if over_bound(g_lists[-1], p_lists[-1], f, cost):
                self.odd[owner[r]] = True
                g_lists[-1], p_lists[-1] = g_lists[-1][:1], p_lists[-1][:1]
        return g_lists, p_lists, present, score, both if both.any() else None, one_side

    def primitive_list(self, f: FieldPlan, gt: _Table, pred: _Table, gi, pi, owner):
        """``Engine._primitive_list`` for every row: the item pairs of every list in one comparator call,
        then each list's assignment; pairs counted in arrays."""
        g_lists, p_lists, present, score, both, _ = self.list_values(f, gt, pred, gi, pi, owner)
        raw = score.copy()
        if not len(present):
            return score, raw, both
        g_items = unwrapped(chain.from_iterable(g_lists))
        p_given = list(chain.from_iterable(p_lists))
        p_items = unwrapped(p_given)
        n_items = np.array([len(a) for a in g_lists], dtype=np.intp)
        m_items = np.array([len(b) for b in p_lists], dtype=np.intp)
        cells = n_items * m_items
        rows, cols, starts = cell_grid(n_items, m_items)
        sims = np.empty(len(rows))
        batched = cells <= self.batch_pairs if f.comparator.scores_cells else np.zeros(len(cells), dtype=bool)
        in_batch = np.repeat(batched, cells)
        if in_batch.all():
            sims[:] = self.engine.similarity_cells(f, g_items, p_items, rows, cols)
        elif in_batch.any():
            sims[in_batch] = self.engine.similarity_cells(f, g_items, p_items, rows[in_batch], cols[in_batch])
        g_start = np.cumsum(n_items) - n_items
        p_start = np.cumsum(m_items) - m_items
        for k in np.flatnonzero(~batched).tolist():  # a long list, or a comparator with its own matrix
            a, b = int(g_start[k]), int(p_start[k])
            matrix = self.engine.similarity_matrix(
                f, g_items[a : a + n_items[k]], p_items[b : b + m_items[k]], as_array=True
            )
            sims[starts[k] : starts[k] + cells[k]] = matrix.ravel()
        full = sims + TIE_BREAK * np.where(sims >= f.threshold, 1.0 + sims, 0.0)  # matching.assign's objective
        if f.match_order:  # item k with item k (Engine._primitive_list)
            lists, pair_i, pair_j = _positions(n_items, m_items)
        else:
            lists, pair_i, pair_j = _assign(full, n_items, m_items, starts)
        s = sims[starts[lists] + pair_i * m_items[lists] + pair_j]
        if self.noted is not None:
            fixed = np.ones(len(lists), dtype=bool) if f.match_order else None
            self.note(f, owner[present], lists, pair_i, pair_j, s, n_items, m_items, fixed)
        hit = s >= f.threshold
        n = len(present)
        self.similar.append((owner[present][lists], self.layout.flat(f.index, s)))
        if not hit.all():  # the FDs' values, for cosmetic.py
            miss = np.flatnonzero(~hit)
            self.fd.append(
                (
                    owner[present][lists[miss]],
                    f.index,
                    _values(g_items, g_start[lists[miss]] + pair_i[miss]),
                    _values(p_items, p_start[lists[miss]] + pair_j[miss]),
                )
            )
        raw_sum = sequential_sums(s, lists, n)
        score_sum = sequential_sums(np.where(hit, s, 0.0), lists, n) if f.clip else raw_sum
        longest = np.maximum(n_items, m_items)
        score[present] = score_sum / longest
        raw[present] = raw_sum / longest
        list_owner = owner[present]
        self.count_pairs(
            f.index, list_owner, np.bincount(lists[hit], minlength=n), np.bincount(lists, minlength=n), n_items, m_items
        )
        self.leaves += np.bincount(list_owner, weights=m_items, minlength=self.n).astype(np.int64)
        if dict in set(map(type, p_given)):
            confidences = [v.get("_confidence") if is_rich(v) else None for v in p_given]
            has, value, bad = _confidences(confidences)
            if bad.any():
                self.odd[np.repeat(list_owner, m_items)[bad]] = True
            item = p_start[lists] + pair_j
            at = np.flatnonzero(has[item])
            if len(at):
                self.pairs.append((list_owner[lists[at]], f.index, hit[at], value[item[at]], s[at]))
        return score, raw, both

    def count_pairs(
        self, index: int, owner: np.ndarray, tp: np.ndarray, paired: np.ndarray, n: np.ndarray, m: np.ndarray
    ) -> None:
        """Lists' counts (``compare._count_pairs``): matched pairs TP, other pairs FD, unpaired FN and FA."""
        amounts = np.stack([tp, m - paired, paired - tp, n - paired], axis=1)  # TP, FA, FD, FN
        self.count(
            index, np.repeat(owner, 4), np.tile(np.array([TP, FA, FD, FN]), len(owner)), amounts.ravel().astype(float)
        )

    def object_list(self, f: FieldPlan, gt: _Table, pred: _Table, gi, pi, owner):
        """``Engine._object_list`` for every row: the item pairs of every list scored a field at a time,
        each list's assignment, then the matched pairs counted as a frame of their own."""
        g_lists, p_lists, present, score, both, one_side = self.list_values(f, gt, pred, gi, pi, owner)
        raw = score.copy()
        # Lists null on one side: each truth row dropped, or each predicted row hallucinated (row_errors.one_side).
        found = [
            (r, row_errors.one_side(f.index, 0 if missing else size, size if missing else 0))
            for r, missing, size in one_side
        ]
        if not len(present):
            self.keep_list_errors(found, owner)
            return score, raw, both
        model = f.model
        if f.rich:
            g_items, p_items = unwrapped(chain.from_iterable(g_lists)), unwrapped(chain.from_iterable(p_lists))
        else:  # items whose object declares _value: data
            g_items, p_items = list(chain.from_iterable(g_lists)), list(chain.from_iterable(p_lists))
        g_table = _Table([a if type(a) is dict else {} for a in g_items], False)
        p_table = _Table([b if type(b) is dict else {} for b in p_items], True)
        n_items = np.array([len(a) for a in g_lists], dtype=np.intp)
        m_items = np.array([len(b) for b in p_lists], dtype=np.intp)
        g_start = np.cumsum(n_items) - n_items
        p_start = np.cumsum(m_items) - m_items
        cells = n_items * m_items
        rows, cols, starts = cell_grid(n_items, m_items)
        # Lists laid end to end: those of at most batch_pairs pairs when every comparator of the
        # items is vectorised (a lone pair always); the others keep their own matrices (cdist).
        batched = (cells <= self.batch_pairs) & (vectorised_model(model) | (cells == 1))
        in_batch = np.repeat(batched, cells)
        primitive = [(k, field_.index) for k, field_ in enumerate(model.fields) if field_.kind is _PRIMITIVE]
        if in_batch.all():
            docs, sims, by_field = self.item_cells(model, g_table, p_table, rows, cols)
            known = {index: by_field[k] for k, index in primitive}
        else:
            docs, sims = np.empty(len(rows)), np.empty(len(rows))
            known = {index: np.empty(len(rows)) for _, index in primitive}
            if in_batch.any():
                b_docs, b_sims, by_field = self.item_cells(model, g_table, p_table, rows[in_batch], cols[in_batch])
                docs[in_batch], sims[in_batch] = b_docs, b_sims
                for k, index in primitive:
                    known[index][in_batch] = by_field[k]
            for k in np.flatnonzero(~batched).tolist():
                a, b = int(g_start[k]), int(p_start[k])
                k_docs, k_sims, k_known = self.engine.item_matrices(
                    model, g_items[a : a + n_items[k]], p_items[b : b + m_items[k]]
                )
                span = slice(starts[k], starts[k] + cells[k])
                docs[span], sims[span] = k_docs.ravel(), k_sims.ravel()
                for index, matrix in k_known.items():
                    known[index][span] = matrix.ravel()
        threshold = model.match_threshold
        full = sims + TIE_BREAK * ((sims >= threshold) + docs)  # matching.assign's objective
        fixed = None  # per pair, whether the list's rule made it (always opened)
        if f.match_key or f.match_order:
            lists, pair_i, pair_j, fixed = self.ruled_assign(
                f, full, g_items, p_items, n_items, m_items, g_start, p_start, starts, owner[present]
            )
        else:
            lists, pair_i, pair_j = _assign(full, n_items, m_items, starts)
        cell = starts[lists] + pair_i * m_items[lists] + pair_j
        if self.noted is not None:
            self.note(f, owner[present], lists, pair_i, pair_j, sims[cell], n_items, m_items, fixed)
        pair_score = docs[cell]
        n = len(present)
        totals = sequential_sums(np.where(pair_score >= self.pair_floor, pair_score, 0.0), lists, n)
        hit = sims[cell] >= threshold
        list_owner = owner[present]
        tp, paired = np.bincount(lists[hit], minlength=n), np.bincount(lists, minlength=n)
        self.count_pairs(f.index, list_owner, tp, paired, n_items, m_items)
        found += self.classify_lists(
            f,
            g_items,
            p_items,
            sims,
            lists,
            pair_i,
            pair_j,
            tp,
            paired,
            n_items,
            m_items,
            g_start,
            p_start,
            starts,
            present,
        )
        self.keep_list_errors(found, owner)
        list_score = totals / np.maximum(n_items, m_items)
        score[present] = list_score
        raw[present] = list_score
        matched = np.flatnonzero(hit if fixed is None else hit | fixed)  # the pairs opened
        if len(matched):
            at = lists[matched]
            self.in_items += 1
            self.frame(
                model,
                g_table,
                p_table,
                g_start[at] + pair_i[matched],
                p_start[at] + pair_j[matched],
                list_owner[at],
                False,
                {index: values[cell[matched]] for index, values in known.items()},
            )
            self.in_items -= 1
        return score, raw, both

    def note(
        self,
        f: FieldPlan,
        owners: np.ndarray,
        lists: Any,
        pair_i: Any,
        pair_j: Any,
        similarities: Any,
        n: np.ndarray,
        m: np.ndarray,
        fixed: np.ndarray | None = None,
    ) -> None:
        """Note how list field ``f``'s items were paired, list k (of document ``owners[k]``, ``n[k]`` x ``m[k]``
        items) by the pairs ``(pair_i, pair_j)`` where ``lists`` is k, in order (Pairings.note, as
        ``Engine.compare`` notes them), those ``fixed`` by the list's rule (key or position) named so. Below a
        list's items, the documents go to Engine.compare instead."""
        if self.in_items:
            self.odd[owners] = True
            return
        counts = np.bincount(np.asarray(lists, dtype=np.intp), minlength=len(owners)).tolist()
        rows = np.asarray(pair_i, dtype=np.intp).tolist()
        cols = np.asarray(pair_j, dtype=np.intp).tolist()
        sims = np.asarray(similarities, dtype=float).tolist()
        ruled = [] if fixed is None else np.asarray(fixed, dtype=bool).tolist()
        rule = POSITION if f.match_order else KEY
        at = 0
        for d, c, a, b in zip(owners.tolist(), counts, n.tolist(), m.tolist()):
            pairs = list(zip(rows[at : at + c], cols[at : at + c]))
            rules = {pair: rule for pair, by_rule in zip(pairs, ruled[at : at + c]) if by_rule} if ruled else None
            self.noted[d].note(f.path, a, b, pairs, sims[at : at + c], rules)
            at += c

    def ruled_assign(
        self,
        f: FieldPlan,
        full: np.ndarray,
        g_items: list,
        p_items: list,
        n: np.ndarray,
        m: np.ndarray,
        g_start: np.ndarray,
        p_start: np.ndarray,
        starts: np.ndarray,
        owners: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``_assign`` for lists paired by a rule (Engine._ruled_pairs): by position, or equal keys first and the
        items left by the same assignment on what they leave; then whether each pair is the rule's. A list
        whose key values repeat is left to Engine.compare (its record problem is named there)."""
        if f.match_order:
            lists, pair_i, pair_j = _positions(n, m)
            return lists, pair_i, pair_j, np.ones(len(lists), dtype=bool)
        gis, pjs, fixed = [], [], []
        for k, (a, b, s, g0, p0) in enumerate(
            zip(n.tolist(), m.tolist(), starts.tolist(), g_start.tolist(), p_start.tolist())
        ):
            cells = full[s : s + a * b].reshape(a, b)  # the tie-break is in ``full`` already
            pairs, found, _ = paired_by_key(
                f, g_items[g0 : g0 + a], p_items[p0 : p0 + b], lambda rows, cols: assign(cells[np.ix_(rows, cols)])
            )
            if found.repeated:
                self.odd[owners[k]] = True
            keyed = set(found.pairs)
            gis.append([i for i, _ in pairs])
            pjs.append([j for _, j in pairs])
            fixed += [pair in keyed for pair in pairs]
        lists = np.repeat(np.arange(len(n)), [len(i) for i in gis])
        pair_i = np.fromiter(chain.from_iterable(gis), dtype=np.intp, count=len(lists))
        pair_j = np.fromiter(chain.from_iterable(pjs), dtype=np.intp, count=len(lists))
        return lists, pair_i, pair_j, np.array(fixed, dtype=bool)

    def keep_list_errors(self, found: list[tuple[int, "row_errors.ListFindings"]], owner: np.ndarray) -> None:
        """Each document's imperfect lists of one field, in the frame's row order (``Engine.compare``'s walk)."""
        for r, finding in sorted(found, key=lambda item: item[0]):
            self.list_errors.setdefault(int(owner[r]), []).append(finding)

    def classify_lists(
        self,
        f: FieldPlan,
        g_items: list,
        p_items: list,
        sims: np.ndarray,
        lists: np.ndarray,
        pair_i: np.ndarray,
        pair_j: np.ndarray,
        tp: np.ndarray,
        paired: np.ndarray,
        n: np.ndarray,
        m: np.ndarray,
        g_start: np.ndarray,
        p_start: np.ndarray,
        starts: np.ndarray,
        rows_of: np.ndarray,
    ) -> list:
        """(row, findings) of each list not matched whole and in order (row_errors.classify), found from the
        assignment in arrays: the other lists cost nothing more. List k is the frame's row ``rows_of[k]``; its
        items start at ``g_start[k]`` and ``p_start[k]``, its pairs' similarities at ``starts[k]``."""
        complete = (tp == n) & (n == m)  # every row of both sides matched
        whole = complete.copy()
        if len(lists) > 1:  # each list's pairs come in truth-row order: a predicted row going back is out of order
            back = (lists[1:] == lists[:-1]) & (pair_j[1:] < pair_j[:-1])
            whole[lists[1:][back]] = False
        imperfect = np.flatnonzero(~whole)
        found: list = []
        if not len(imperfect):
            return found
        first, count = (np.cumsum(paired) - paired).tolist(), paired.tolist()
        rows_of, sizes = rows_of.tolist(), list(zip(n.tolist(), m.tolist()))
        columns = pair_j.tolist()
        # Every row matched, out of order: nothing to label, only the order's tau (row_errors.classify's
        # finding for such a list, without its walk; nearly half the imperfect lists of a typical run).
        reordered = complete[imperfect]
        for k in imperfect[reordered].tolist():
            tau = row_errors.kendall_tau(columns[first[k] : first[k] + count[k]])
            found.append((rows_of[k], row_errors.ListFindings(f.index, *sizes[k], tau=tau)))
        imperfect = imperfect[~reordered]
        if not len(imperfect):
            return found
        g_at, p_at, at = g_start.tolist(), p_start.tolist(), starts.tolist()
        pairs = list(zip(pair_i.tolist(), columns))
        for k in imperfect.tolist():
            a, b, (rows, cols) = g_at[k], p_at[k], sizes[k]
            matrix = sims[at[k] : at[k] + rows * cols].reshape(rows, cols)
            finding = row_errors.classify(
                f.index,
                f.model,
                g_items[a : a + rows],
                p_items[b : b + cols],
                matrix,
                pairs[first[k] : first[k] + count[k]],
            )
            if finding:
                found.append((rows_of[k], finding))
        return found

    def item_cells(
        self, model: ModelPlan, gt: _Table, pred: _Table, rows: np.ndarray, cols: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(document-style scores, similarities, per-field similarities) of the item pairs
        (gt[rows[k]], pred[cols[k]]): the cell kernel (``items.item_cells``) reading the tables' columns."""
        return item_cells(self.engine, model, lambda f: (gt.column(f), pred.column(f)), Cells(rows, cols))


def _assign(
    full: np.ndarray, n: np.ndarray, m: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(list, gt item, pred item) of the pairs each list's assignment chooses (``matching.assign`` on
    ``full``: similarities plus their tie-break), list after list, each list's pairs in row order."""
    gis, pjs = [], []
    one = np.zeros(1, dtype=np.intp)
    for a, b, s in zip(n.tolist(), m.tolist(), starts.tolist()):
        if a == 1 and b == 1:  # matching.assign's own shortcut
            gis.append(one)
            pjs.append(one)
            continue
        i, j = maximise(full[s : s + a * b].reshape(a, b))
        gis.append(i)
        pjs.append(j)
    lists = np.repeat(np.arange(len(n)), [len(i) for i in gis])
    return lists, np.concatenate(gis).astype(np.intp), np.concatenate(pjs).astype(np.intp)


def _positions(n: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(list, gt item, pred item) of lists paired by position (matching.position_pairs): item k with item k."""
    shared = np.minimum(n, m)
    lists = np.repeat(np.arange(len(n)), shared)
    first = np.cumsum(shared) - shared
    index = np.arange(len(lists)) - np.repeat(first, shared)
    return lists, index.astype(np.intp), index.astype(np.intp)


def _no_pairs(n: int) -> tuple[np.ndarray, ...]:
    return (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=bool), np.zeros(0), np.zeros(0), np.zeros(n, dtype=np.int64))


def _replace(result: BatchResult, docs: dict[int, DocResult]) -> None:
    """Put ``Engine.compare``'s results for some documents in place of the fast path's."""
    counts = result.confidence_counts
    ends = np.cumsum(counts)
    pieces: list[tuple[int, list[ConfidencePair]]] = []
    similar: list[tuple[int, list[int]]] = []
    similar_ends = np.cumsum(result.similarity_counts)
    for d, doc in docs.items():
        result.scores[d] = doc.score
        result.top_scores[d] = [doc.field_scores[k] for k in result.top_keys]
        result.tally[d] = doc.tally
        result.score_sum[d] = doc.score_sum
        result.score_n[d] = doc.score_n
        result.predicted_leaves[d] = doc.predicted_leaves
        if doc.errors:
            result.errors[d] = list(doc.errors)
        if doc.metadata:
            result.metadata[d] = list(doc.metadata)
        if doc.boxes:
            result.boxes[d] = doc.boxes
        if doc.similarity_bins:  # the fast path left them out too
            similar.append((int(similar_ends[d]), doc.similarity_bins))
            result.similarity_counts[d] = len(doc.similarity_bins)
        result.list_errors.pop(d, None)
        if result.pairings is not None and doc.pairings is not None:
            result.pairings[d] = doc.pairings
        if doc.list_errors:
            result.list_errors[d] = list(doc.list_errors)
        if doc.alternatives:
            result.alternatives[d] = doc.alternatives
        if doc.judge:
            for index, bill in doc.judge.items():
                kept = result.judge.setdefault(index, [0] * len(bill))
                kept[:] = [a + b for a, b in zip(kept, bill)]
        if doc.fd_values:  # the fast path left this document's out
            result.fd_values.extend((d, index, g, p) for index, g, p in doc.fd_values)
        if doc.confidences:  # the fast path left this document's pairs out
            pieces.append((int(ends[d]), doc.confidences))
            counts[d] = len(doc.confidences)
    result.slow += len(docs)
    if similar:
        at = np.concatenate([np.full(len(bins), position) for position, bins in similar])
        result.similarity_bin = np.insert(
            result.similarity_bin, at, np.array([b for _, bins in similar for b in bins], dtype=np.int64)
        )
    if not pieces:
        return
    at = np.concatenate([np.full(len(pairs), position) for position, pairs in pieces])
    rows = [pair for _, pairs in pieces for pair in pairs]
    field_, match, value, similarity = (list(column) for column in zip(*rows))
    result.confidence_field = np.insert(result.confidence_field, at, np.array(field_, dtype=np.int32))
    result.confidence_match = np.insert(result.confidence_match, at, np.array(match, dtype=bool))
    result.confidence_value = np.insert(result.confidence_value, at, np.array(value, dtype=float))
    result.confidence_similarity = np.insert(result.confidence_similarity, at, np.array(similarity, dtype=float))
