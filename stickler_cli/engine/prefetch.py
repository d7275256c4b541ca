"""Which (gt, pred) value pairs a batch of documents will put to each model-backed comparator.

Comparators that call models (embeddings, LLMs) are far cheaper asked once for
a batch than once per comparison. Before scoring a batch, the engine walks the
documents along the plan and hands every such comparator the present value
pairs it may see. Inside lists every item pair is included, because list
matching scores every pair. The walk skips subtrees with no such comparator.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..plan import FieldPlan, Kind, ModelPlan
from .values import is_null, unwrap


def prefetching_fields(model: ModelPlan) -> list[FieldPlan]:
    return [f for f in model.walk() if f.comparator is not None and f.comparator.prefetches]


def collect(model: ModelPlan, docs: Iterable[tuple[Any, Any]], wanted: set[int]) -> dict[int, list[tuple[Any, Any]]]:
    """Field index -> value pairs, for the fields in ``wanted`` (indices)."""
    out: dict[int, list[tuple[Any, Any]]] = {i: [] for i in wanted}
    needed = _models_needed(model, wanted)
    for gt, pred in docs:
        _walk(model, [gt], [pred], out, wanted, needed)
    return out


def _models_needed(model: ModelPlan, wanted: set[int]) -> set[int]:
    """ids of the models whose subtree holds a wanted field."""
    needed: set[int] = set()

    def visit(m: ModelPlan) -> bool:
        hit = False
        for f in m.fields:
            if f.index in wanted:
                hit = True
            if f.model is not None and visit(f.model):
                hit = True
        if hit:
            needed.add(id(m))
        return hit

    visit(model)
    return needed


def _walk(model: ModelPlan, gs: Sequence[Any], ps: Sequence[Any], out, wanted, needed) -> None:
    gs = [g for g in gs if type(g) is dict]
    ps = [p for p in ps if type(p) is dict]
    if not gs or not ps:
        return
    for f in model.fields:
        g_values = [unwrap(g.get(f.key))[0] for g in gs]
        p_values = [unwrap(p.get(f.key))[0] for p in ps]
        if f.kind in (Kind.OBJECT, Kind.OBJECT_LIST):
            if id(f.model) in needed:
                if f.kind is Kind.OBJECT_LIST:
                    g_values = [unwrap(v)[0] for v in _items(g_values)]
                    p_values = [unwrap(v)[0] for v in _items(p_values)]
                _walk(f.model, g_values, p_values, out, wanted, needed)
            continue
        if f.index not in wanted:
            continue
        if f.kind is Kind.PRIMITIVE_LIST:
            g_values = [unwrap(v)[0] for v in _items(g_values)]
            p_values = [unwrap(v)[0] for v in _items(p_values)]
        pairs = out[f.index]
        present_p = [p for p in p_values if not is_null(p)]
        for g in g_values:
            if not is_null(g):
                pairs.extend((g, p) for p in present_p)


def _items(values: Sequence[Any]) -> list[Any]:
    items: list[Any] = []
    for value in values:
        if type(value) is list:
            items.extend(value)
        elif value is not None:
            items.append(value)
    return items
