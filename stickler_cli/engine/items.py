"""Every gt item against every pred item of object lists, a field at a time, in arrays.

Matching an object list needs the similarity of every item pair. Scored pair
by pair, that is one comparator call per pair and field; here it is one call
per field, for the pairs of one list (``Engine._item_matrices``) or of all the
lists of a batch of documents (``Engine.prepare``). The arithmetic that turns
per-field similarities into an item pair's scores is ``combine``: the scalar
path's (``Engine._model``) operation for operation, so that the results are
equal to the last bit (tests/test_item_matrices.py).
"""

from __future__ import annotations

import operator
from itertools import repeat
from typing import Any, NamedTuple, Sequence

import numpy as np

from ..plan import FieldPlan, Kind, ModelPlan
from .values import EMPTIABLE, as_list, is_null_list, unwrap

_MISSING = object()


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
    primitive = np.array([f.kind is Kind.PRIMITIVE for f in model.fields], dtype=bool)
    clips = np.array([f.clip for f in model.fields], dtype=bool) & primitive
    return ModelArrays(
        weights=np.array([f.weight for f in model.fields], dtype=float),
        thresholds=np.array([f.threshold for f in model.fields], dtype=float),
        clips=clips, primitive=primitive, total_weight=weight_total(model),
        all_primitive=bool(primitive.all()), any_clip=bool(clips.any()))


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
        return [default if (v := d.get(key, _MISSING)) is _MISSING
                else v["_value"] if type(v) is dict and "_value" in v else v for d in items]
    values = [d.get(key, default) for d in items]
    if dict in set(map(type, values)):  # rich values (or objects) among them
        values = [v["_value"] if type(v) is dict and "_value" in v else v for v in values]
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


def combine(arrays: ModelArrays, raw: np.ndarray, both: np.ndarray,
            score: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
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


def cell_grid(sizes: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(rows, cols, starts) of the item pairs of several lists laid end to end.

    List d has ``sizes[d] = (n, m)`` items; its gt items are numbered from the
    sum of the earlier n, its pred items likewise, and its n * m pairs, row by
    row, start at ``starts[d]``.
    """
    ns = np.array([n for n, _ in sizes], dtype=np.intp)
    ms = np.array([m for _, m in sizes], dtype=np.intp)
    cells = ns * ms
    starts = np.concatenate(([0], np.cumsum(cells)[:-1]))
    owner = np.repeat(np.arange(len(sizes)), cells)
    local = np.arange(int(cells.sum())) - starts[owner]
    width = ms[owner]
    rows = (np.cumsum(ns) - ns)[owner] + local // width
    cols = (np.cumsum(ms) - ms)[owner] + local % width
    return rows, cols, starts.tolist()


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
    return not any(f.comparator is not None and (f.comparator.prefetches or f.comparator.reports_failures)
                   for f in model.walk())


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
    value = obj.get(f.key, _MISSING) if type(obj) is dict else _MISSING
    return f.default if value is _MISSING else unwrap(value, f.rich)[0]
