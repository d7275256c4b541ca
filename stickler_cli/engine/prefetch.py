"""Which (gt, pred) value pairs a batch of documents will put to each model-backed comparator.

Comparators that call models (embeddings, LLMs) are far cheaper asked once for
a batch than once per comparison. Before scoring a batch, the engine walks the
documents along the plan and hands every such comparator the present value
pairs it may see. Inside lists every item pair is included, because list
matching scores every pair; with ``--judge-pairing proxy`` (engine/proxy.py),
a list of objects whose items hold a judged field hands only the item pairs the
proxy chose (``pair``: the engine's ``proxy_pairs``). A ground-truth value
listing ``_alternatives`` hands each of its acceptable values too, as the engine
scores each (docs/ground-truth.md). The walk skips subtrees
with no such comparator.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from .. import limits
from ..plan import FieldPlan, Kind, ModelPlan
from .items import field_value, items
from .values import MISSING, as_list, is_null, is_null_list, unwrap


def prefetching_fields(model: ModelPlan) -> list[FieldPlan]:
    """The fields, at any depth, whose comparator wants to see a batch's pairs first."""
    return [f for f in model.walk() if f.comparator is not None and f.comparator.prefetches]


Pairer = Callable[[FieldPlan, list, list], "list[tuple[int, int]]"]  # (list field, gt items, pred items) -> pairs


def collect(
    model: ModelPlan,
    docs: Iterable[tuple[Any, Any]],
    wanted: set[int],
    needed: set[int],
    pair: Pairer | None = None,
) -> dict[int, list[tuple[Any, Any]]]:
    """Field index -> value pairs, for the fields in ``wanted`` (indices); ``needed`` is
    ``models_needed(model, wanted)``, worked out once per plan. ``pair``, when given, chooses the item
    pairs of the object lists holding a judged field (--judge-pairing proxy)."""
    out: dict[int, list[tuple[Any, Any]]] = {i: [] for i in wanted}
    for gt, pred in docs:
        _walk(model, [gt], [pred], out, wanted, needed, pair)
    return out


def models_needed(model: ModelPlan, wanted: set[int]) -> set[int]:
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


def _walk(
    model: ModelPlan,
    gs: Sequence[Any],
    ps: Sequence[Any],
    out: dict[int, list[tuple[Any, Any]]],
    wanted: set[int],
    needed: set[int],
    pair: Pairer | None = None,
) -> None:
    """Add to ``out`` every pair the engine may score for ``model``'s objects ``gs`` x ``ps``.

    Mirrors the engine: a non-object where an object belongs is ``{}``, a missing
    key takes the field's default, a lone value where a list belongs is one item.
    """
    gs = [g if type(g) is dict else {} for g in gs]
    ps = [p if type(p) is dict else {} for p in ps]
    if not gs or not ps:
        return
    for f in model.fields:
        g_values = [v for g in gs for v in _acceptable(g.get(f.key, MISSING), f)]
        p_values = [field_value(p, f) for p in ps]
        if f.kind is Kind.OBJECT:
            if id(f.model) in needed:
                _walk(
                    f.model,
                    [v for v in g_values if v is not None],
                    [v for v in p_values if v is not None],
                    out,
                    wanted,
                    needed,
                    pair,
                )
            continue
        if f.kind is Kind.OBJECT_LIST:
            if id(f.model) not in needed:
                continue
            if pair is None:
                _walk(f.model, _items(g_values, f.rich, True), _items(p_values, f.rich), out, wanted, needed)
                continue
            for g in g_values:  # each list against each list, as the engine compares them: its chosen pairs
                gv = _items([g], f.rich)
                for p in p_values:
                    pv = _items([p], f.rich)
                    if gv and pv:
                        for i, j in pair(f, gv, pv):
                            _walk(f.model, [gv[i]], [pv[j]], out, wanted, needed, pair)
            continue
        if f.index not in wanted:
            continue
        pairs = out[f.index]
        if f.kind is Kind.PRIMITIVE_LIST:
            g_items, p_items = _items(g_values, True, True), _items(p_values)
            for g in g_items:
                pairs.extend((g, p) for p in p_items)
            continue
        present_p = [p for p in p_values if not is_null(p)]
        for g in g_values:
            if not is_null(g):
                pairs.extend((g, p) for p in present_p)


def _items(values: Sequence[Any], rich: bool = True, acceptable: bool = False) -> list[Any]:
    """The items of every non-null list among ``values``, unwrapped unless ``rich`` is False (FieldPlan.rich); with
    ``acceptable`` (ground truth), each item's ``_alternatives`` after it."""
    if acceptable and rich:
        return [v for value in values if not is_null_list(value) for item in as_list(value) for v in _listed(item)]
    return [item for value in values if not is_null_list(value) for item in items(value, rich)]


def _acceptable(value: Any, f: FieldPlan) -> list[Any]:
    """A ground-truth value of field ``f`` as the engine reads it (``field_value``), and its acceptable
    ``_alternatives`` after it (at most --limit alternatives)."""
    if value is MISSING:
        return [f.default]
    if not f.rich:
        return [value]
    return _listed(value)


def _listed(value: Any) -> list[Any]:
    """A possibly rich value unwrapped, followed by its ``_alternatives`` (each unwrapped) when it lists some."""
    if type(value) is not dict or "_value" not in value:
        return [value]
    alternatives = value.get("_alternatives")
    if type(alternatives) is not list:
        return [value["_value"]]
    return [value["_value"], *(unwrap(a)[0] for a in alternatives[: limits.current().alternatives])]
