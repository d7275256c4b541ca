"""``--judge-pairing proxy``: pair a list's items by a cheap stand-in for its judged fields, then ask the judge.

A judged comparator (one that calls a model: ``LLMComparator``, ``SemanticComparator``, ``BERTComparator``;
its ``costly`` attribute says so) costs a request per value pair. Matching a list of n x m items
by the judge asks n x m of them per judged field. With proxy pairing, the Hungarian algorithm runs on a copy
of the item model in which every judged comparator is replaced by ``ProxyComparator`` (a normalised edit
distance); the judge is then asked only for the pairs chosen, and their scores are the judge's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

import numpy as np
import orjson

from ..comparators.levenshtein import LevenshteinComparator
from ..plan import FieldPlan, Kind, ModelPlan


def proxy_text(value: Any) -> Any:
    """What the proxy compares: a string as it is, any other value as its compact JSON text (keys sorted)."""
    if type(value) is str:
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return value  # LevenshteinComparator reads it as str(value), or scores it 0.0


class ProxyComparator(LevenshteinComparator):
    """rapidfuzz's normalised Levenshtein similarity (lower-cased, whitespace collapsed) of the proxy texts."""

    name = "proxy (normalised edit distance)"
    aliases = ()

    def __init__(self) -> None:
        super().__init__(normalize=True)

    def similarity(self, gt: Any, pred: Any) -> float:
        return super().similarity(proxy_text(gt), proxy_text(pred))

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> np.ndarray:
        return super().similarity_matrix([proxy_text(v) for v in gts], [proxy_text(v) for v in preds])

    def similarity_cells(
        self, gts: Sequence[Any], preds: Sequence[Any], rows: Sequence[int], cols: Sequence[int]
    ) -> np.ndarray:
        return super().similarity_cells([proxy_text(v) for v in gts], [proxy_text(v) for v in preds], rows, cols)


def judged(f: FieldPlan) -> bool:
    """Whether field ``f``'s comparator calls a model (its ``costly`` attribute): the fields proxy pairing
    stands in for and ``--dry-run`` counts."""
    return f.comparator is not None and f.comparator.costly


def proxy_models(root: ModelPlan) -> dict[int, ModelPlan]:
    """List field index -> the item model its pairing reads, for every list of objects (at any depth) whose
    items hold a judged field (at any depth): the item model with each judged comparator replaced by the proxy."""
    comparator = ProxyComparator()
    made: dict[int, ModelPlan] = {}

    def proxied(model: ModelPlan) -> ModelPlan:
        done = made.get(id(model))
        if done is None:
            fields = []
            for f in model.fields:
                if judged(f):
                    f = replace(f, comparator=comparator, comparator_name=ProxyComparator.name)
                elif f.model is not None and any(judged(g) for g in f.model.walk()):
                    f = replace(f, model=proxied(f.model))
                fields.append(f)
            done = made[id(model)] = replace(model, fields=tuple(fields))
        return done

    return {
        f.index: proxied(f.model)
        for f in root.walk()
        if f.kind is Kind.OBJECT_LIST and f.model is not None and any(judged(g) for g in f.model.walk())
    }
