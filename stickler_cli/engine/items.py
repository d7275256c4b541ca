"""Every gt item against every pred item of object lists, a field at a time, in arrays: the cell kernel.

Matching an object list needs the similarity of every item pair. Scored pair
by pair, that is one comparator call per pair and field; here it is one call
per field, for the pairs of one list (``Engine.item_matrices``), of all the
lists of a batch of documents (``Engine.prepare``) or of a frame of the batch
path (``BatchScorer.object_list``). All three call one kernel, ``item_cells``,
given a column reader (how to get a field's values and nulls for the items of
each side), a grid (which item pairs: ``Cells`` or a full ``Matrix``) and the
engine's public ``ScoringEngine`` interface. The arithmetic that turns per-field
similarities into an item pair's scores is ``combine``: the scalar path's
(``Engine._model``) operation for operation, so that the results are equal to
the last bit (tests/engine/test_item_matrices.py, tests/engine/test_batch_engine.py).
"""

from __future__ import annotations

import operator
from itertools import repeat
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple, Protocol, Sequence

import numpy as np

from ..plan import FieldPlan, Kind, ModelPlan
from .values import EMPTIABLE, MISSING, as_list, is_null_list, unwrap, unwrapped

if TYPE_CHECKING:
    from ..plan import Plan
    from .bins import Layout
    from .result import DocResult

_PRIMITIVE = Kind.PRIMITIVE


class ModelArrays(NamedTuple):
    """An item model's field constants, for scoring many item pairs at once."""

    weights: np.ndarray
    thresholds: np.ndarray
    clips: np.ndarray  # clip-under-threshold, primitive fields only
    primitive: np.ndarray  # which fields are primitive (others are scored by their own comparison)
    total_weight: float
    all_primitive: bool
    any_clip: bool


def model_arrays(model: ModelPlan) -> ModelArrays:
    """``model``'s ``ModelArrays`` (``ScoringEngine.model_arrays`` keeps one per model)."""
    primitive = np.array([f.kind is Kind.PRIMITIVE for f in model.fields], dtype=bool)
    clips = np.array([f.clip for f in model.fields], dtype=bool) & primitive
    return ModelArrays(
        weights=np.array([f.weight for f in model.fields], dtype=float),
        thresholds=np.array([f.threshold for f in model.fields], dtype=float),
        clips=clips,
        primitive=primitive,
        total_weight=weight_total(model),
        all_primitive=bool(primitive.all()),
        any_clip=bool(clips.any()),
    )


def weight_total(model: ModelPlan) -> float:
    """The sum of the fields' weights, added in field order as ``Engine._model`` adds them
    (not ``sum()``, which adds floats with compensation from Python 3.12)."""
    total = 0.0
    for f in model.fields:
        total += f.weight
    return total


def plain_values(f: FieldPlan, items: list[dict]) -> list:
    """Each item's value for ``f`` as ``Engine._model`` reads it: the default when missing, rich values unwrapped."""
    key, default = f.key, f.default
    if not f.rich:  # an object declaring _value: data, never unwrapped
        return [d.get(key, default) for d in items]
    if type(default) is dict:  # a default is never unwrapped
        return unwrapped([d.get(key, MISSING) for d in items], default)
    values = [d.get(key, default) for d in items]
    if dict in set(map(type, values)):  # rich values (or objects) among them
        values = unwrapped(values)
    return values


_EMPTY_IS_NULL = frozenset((type(None), *EMPTIABLE))  # a column of only these types: null exactly where not v
_NONE_OR_LIST = frozenset((type(None), list))


def null_mask(values: list, kind: Kind = Kind.PRIMITIVE, types: set[type] | None = None) -> np.ndarray:
    """Which values are null as a field of ``kind`` reads them: ``values.is_null`` (None, "", [] or {}),
    ``is_null_list``, or None alone for an object. Mapped in C (``not v``, ``v is None``) when the values'
    exact types (``types``: found when not given) allow; a comprehension otherwise."""
    n = len(values)
    if kind is Kind.OBJECT:
        return np.fromiter(map(operator.is_, values, repeat(None)), bool, n)
    if types is None:
        types = set(map(type, values))
    if kind is Kind.PRIMITIVE:
        if types <= _EMPTY_IS_NULL:
            return np.fromiter(map(operator.not_, values), bool, n)
        if types.isdisjoint(EMPTIABLE):  # numbers, booleans: only None is null
            return np.fromiter(map(operator.is_, values, repeat(None)), bool, n)
        return np.array([v is None or (type(v) in EMPTIABLE and not v) for v in values], dtype=bool)
    if types <= _NONE_OR_LIST:
        return np.fromiter(map(operator.not_, values), bool, n)
    return np.array([v is None or (type(v) is list and not v) for v in values], dtype=bool)


def combine(
    arrays: ModelArrays, raw: np.ndarray, both: np.ndarray, score: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """(document-style scores, raw similarities) of item pairs from their fields' numbers.

    Arrays are (fields, *pairs): ``raw`` holds primitive fields' similarities
    (0.0 where one side is null) and nested fields' raw similarities, ``both``
    marks fields null on both sides, ``score`` holds nested fields' own scores
    (None when every field is primitive). ``raw`` is changed in place.
    """
    # Primitive fields: a clipped field below its threshold scores 0.0; null on
    # both sides scores (and is similar) 1.0; null on one side was left at 0.0.
    raw[both] = 1.0
    along = (slice(None),) + (None,) * (raw.ndim - 1)  # a per-field constant against every pair
    if arrays.any_clip:
        gated = np.where(arrays.clips[along] & (raw < arrays.thresholds[along]), 0.0, raw)
    else:
        gated = raw
    if score is None:
        score = gated  # raw itself when nothing clips: setting both-null cells to 1.0 changes nothing
    else:
        score[arrays.primitive] = gated[arrays.primitive]
    score[both] = 1.0
    weights = arrays.weights[along]
    doc_num = _field_sum(score * weights)
    sim_num = _field_sum(np.where(both, 0.0, raw * weights))
    sim_den = _field_sum(np.where(both, 0.0, weights))
    shape = raw.shape[1:]
    docs = doc_num / arrays.total_weight if arrays.total_weight else np.ones(shape)
    sims = np.divide(sim_num, sim_den, out=np.ones(shape), where=sim_den != 0)
    return docs, sims


def _field_sum(values: np.ndarray) -> np.ndarray:
    """The sum over the field axis, field after field, as the scalar path adds.

    Not ``values.sum(axis=0)``: numpy may add pairwise (it does for 8 fields
    or more when there is a single pair), which changes the last bit.
    """
    total = values[0].copy()
    for row in values[1:]:
        total += row
    return total


def cell_grid(n: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, cols, starts) of the item pairs of several lists laid end to end.

    List k has ``n[k]`` gt items and ``m[k]`` pred items (integer arrays); its
    gt items are numbered from the sum of the earlier n, its pred items
    likewise, and its n[k] x m[k] pairs, row by row, start at ``starts[k]``.
    """
    cells = n * m
    starts = np.cumsum(cells) - cells
    owner = np.repeat(np.arange(len(n)), cells)
    local = np.arange(int(cells.sum())) - starts[owner]
    width = m[owner]
    rows = (np.cumsum(n) - n)[owner] + local // width
    cols = (np.cumsum(m) - m)[owner] + local % width
    return rows, cols, starts


# -- the cell kernel ------------------------------------------------------------------------------


class ScoringEngine(Protocol):
    """What the cell kernel and the batch path (engine/batch.py) need of the engine: ``Engine``'s public
    interface for them (named here, below both, so that neither imports the other's module for it). The
    per-document path's own walk stays private to ``Engine``."""

    plan: "Plan"
    size: int  # the plan's number of fields
    layout: "Layout"  # the similarity bins of the threshold histograms

    def compare(self, gt: dict, pred: dict, explain: bool = False) -> "DocResult":
        """One document by the per-document path (the reference)."""

    def item_matrices(self, model: ModelPlan, gv: list, pv: list) -> tuple[np.ndarray, np.ndarray, Any]:
        """(document-style scores, raw similarities, each primitive field's similarities) of every gt
        item against every pred item of one list, as (n, m) matrices."""

    def field_rows(self, model: ModelPlan) -> tuple[tuple, float]:
        """What the field loop reads of each of ``model``'s fields, and the sum of their weights."""

    def similarity_cells(self, f: FieldPlan, gts: list, preds: list, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Field ``f``'s similarities of the pairs (gts[rows[k]], preds[cols[k]]); a comparator's failure
        scores 0.0 and is noted (``failures_noted``)."""

    def similarity_matrix(self, f: FieldPlan, gv: list, pv: list, as_array: bool = False) -> Any:
        """Field ``f``'s similarities of every gt value against every pred value."""

    def field_scores(self, f: FieldPlan, g: Any, p: Any) -> tuple[float, float, bool]:
        """(score, raw similarity, null on both sides) of one field's plain values, nothing recorded."""

    def model_arrays(self, model: ModelPlan) -> ModelArrays:
        """The item model's field constants as arrays, built once per model."""

    def failures_noted(self) -> int:
        """How many comparator failures wait for the current document (a mark for ``forget_failures``)."""

    def forget_failures(self, mark: int) -> bool:
        """Drop the failures noted since ``mark``; whether there were any."""


class Column:
    """One field's values over the items (or objects) of one side, read as ``Engine._model`` reads them."""

    __slots__ = ("values", "null", "confidence", "has_confidence", "odd")

    def __init__(
        self,
        values: list,
        null: np.ndarray | None,
        confidence: np.ndarray | None = None,
        has_confidence: np.ndarray | None = None,
        odd: np.ndarray | None = None,
    ) -> None:
        self.values = values
        self.null = null  # null as the field's kind means it (None: not needed, a nested field's column)
        self.confidence = confidence  # float64, NaN where none (predictions of primitive fields)
        self.has_confidence = has_confidence
        self.odd = odd  # objects the batch path leaves to Engine.compare (metadata, malformed confidence)


ColumnReader = Callable[[FieldPlan], "tuple[Column, Column]"]  # a field's (gt column, pred column)


def item_columns(gds: list[dict], pds: list[dict]) -> ColumnReader:
    """The column reader of the per-document path: items given as dicts, each field read once per side."""

    def columns(f: FieldPlan) -> tuple[Column, Column]:
        gvals, pvals = plain_values(f, gds), plain_values(f, pds)
        if f.kind is _PRIMITIVE:
            return Column(gvals, null_mask(gvals)), Column(pvals, null_mask(pvals))
        return Column(gvals, None), Column(pvals, None)

    return columns


class Cells:
    """The item pairs (gt item rows[k], pred item cols[k]), k = 0, 1, ...: lists laid end to end."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray) -> None:
        self.rows, self.cols = rows, cols
        self.size = len(rows)

    def fill(
        self, scoring: ScoringEngine, f: FieldPlan, gc: Column, pc: Column, raw: np.ndarray, both: np.ndarray
    ) -> None:
        """A primitive field's raw similarities (0.0 where a side is null) and both-null mask, pair by pair."""
        rows, cols = self.rows, self.cols
        g_null = gc.null[rows]
        p_null = pc.null[cols]
        both[:] = g_null & p_null
        present = np.flatnonzero(~(g_null | p_null))
        if len(present) == len(rows):
            raw[:] = scoring.similarity_cells(f, gc.values, pc.values, rows, cols)
        else:
            raw[:] = 0.0
            if len(present):
                raw[present] = scoring.similarity_cells(f, gc.values, pc.values, rows[present], cols[present])

    def pairs(self) -> Iterable[tuple[int, int]]:
        return zip(self.rows.tolist(), self.cols.tolist())


class Matrix:
    """Every gt item (n) against every pred item (m), row by row: one list, compared with the comparator's
    matrix (one call for the items present on both sides)."""

    def __init__(self, n: int, m: int) -> None:
        self.n, self.m = n, m
        self.size = n * m

    def fill(
        self, scoring: ScoringEngine, f: FieldPlan, gc: Column, pc: Column, raw: np.ndarray, both: np.ndarray
    ) -> None:
        """A primitive field's raw similarities (0.0 where a side is null) and both-null mask, as matrices."""
        raw, both = raw.reshape(self.n, self.m), both.reshape(self.n, self.m)  # views: filled in place
        g_null, p_null = gc.null, pc.null
        gvals, pvals = gc.values, pc.values
        if not g_null.any() and not p_null.any():
            raw[:] = scoring.similarity_matrix(f, gvals, pvals, as_array=True)
            return
        raw[:] = 0.0
        rows = np.flatnonzero(~g_null).tolist()
        cols = np.flatnonzero(~p_null).tolist()
        if rows and cols:
            raw[np.ix_(rows, cols)] = scoring.similarity_matrix(
                f, [gvals[i] for i in rows], [pvals[j] for j in cols], as_array=True
            )
        both[:] = np.outer(g_null, p_null)

    def pairs(self) -> Iterable[tuple[int, int]]:
        return ((i, j) for i in range(self.n) for j in range(self.m))


def item_cells(
    scoring: ScoringEngine, model: ModelPlan, columns: ColumnReader, grid: "Cells | Matrix"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document-style scores, raw similarities, per-field similarities) of the item pairs of ``grid``.

    The same numbers as ``Engine._model`` on each pair, computed a field at a
    time: one batched comparator call per primitive field (``grid.fill``),
    nested fields pair by pair (``scoring.field_scores``); ``combine`` adds
    them up. Every array is flat over the grid's pairs; the per-field
    similarities are (fields, pairs), a primitive field's row being its
    similarity of each pair (what matched pairs, scored again, reuse).
    """
    arrays = scoring.model_arrays(model)
    count = len(model.fields)
    raw = np.empty((count, grid.size))
    both = np.zeros((count, grid.size), dtype=bool)
    score = None if arrays.all_primitive else np.empty((count, grid.size))
    for k, f in enumerate(model.fields):
        gc, pc = columns(f)
        if f.kind is _PRIMITIVE:
            grid.fill(scoring, f, gc, pc, raw[k], both[k])
        else:
            g_values, p_values, field_scores = gc.values, pc.values, scoring.field_scores
            cells = [field_scores(f, g_values[i], p_values[j]) for i, j in grid.pairs()]
            raw[k] = [c[1] for c in cells]
            both[k] = [c[2] for c in cells]
            # A nested field's own score is not gated: combine leaves it as it is.
            score[k] = [c[0] for c in cells]
    docs, sims = combine(arrays, raw, both, score)
    return docs, sims, raw


def batch_routes(root: ModelPlan) -> list[tuple[tuple[FieldPlan, ...], FieldPlan]]:
    """The object lists ``Engine.prepare`` scores a batch at a time: (objects leading to it, the list).

    Lists reached through objects only (not inside other lists), whose item
    model has vectorised comparators on all its primitive fields and no
    model-backed comparator at any depth (their failures belong to one document).
    """
    found: list[tuple[tuple[FieldPlan, ...], FieldPlan]] = []

    def visit(model: ModelPlan, route: tuple[FieldPlan, ...]) -> None:
        for f in model.fields:
            if f.kind is Kind.OBJECT:
                visit(f.model, route + (f,))
            elif f.kind is Kind.OBJECT_LIST and vectorised_model(f.model):
                found.append((route, f))

    visit(root, ())
    return found


def vectorised_model(model: ModelPlan) -> bool:
    """Whether every primitive field of ``model`` has a vectorised comparator and none below calls a model."""
    for f in model.fields:
        if f.kind is Kind.PRIMITIVE and not f.comparator.scores_cells:
            return False
    return not any(
        f.comparator is not None and (f.comparator.prefetches or f.comparator.reports_failures) for f in model.walk()
    )


def find_lists(docs: Sequence[tuple[Any, Any]], route: Sequence[FieldPlan], f: FieldPlan) -> list[tuple[Any, Any]]:
    """The (gt, pred) values of list field ``f`` in each document, where neither is null.

    Read as the engine reads them: through ``route``'s objects (a null object
    has no lists; a non-object where an object belongs has only defaults), a
    missing key taking the default, rich values unwrapped.
    """
    found = []
    for gt, pred in docs:
        for step in route:
            gt, pred = field_value(gt, step), field_value(pred, step)
            if gt is None or pred is None:
                break
        else:
            g, p = field_value(gt, f), field_value(pred, f)
            if not (is_null_list(g) or is_null_list(p)):
                found.append((g, p))
    return found


def items(value: Any, rich: bool = True) -> list:
    """A list field's items, unwrapped (a lone value is one item); ``rich`` False (FieldPlan.rich: items whose
    object declares ``_value``), as they are."""
    return [unwrap(v)[0] for v in as_list(value)] if rich else as_list(value)


def field_value(obj: Any, f: FieldPlan) -> Any:
    """``f``'s value in ``obj`` as the engine reads it: the default when missing (or not an object), unwrapped."""
    value = obj.get(f.key, MISSING) if type(obj) is dict else MISSING
    return f.default if value is MISSING else unwrap(value, f.rich)[0]
