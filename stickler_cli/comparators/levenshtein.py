"""Normalised Levenshtein similarity: 1 - distance / max(len)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein

from .base import MAX_TEXT, Comparator, Param, bounded, text_cells, text_matrix, value_text


def _text(value: Any, normalize: bool) -> str | None:
    text = value_text(value)
    if text is not None and normalize:
        text = " ".join(text.lower().split())
    return bounded(text)


def _has_dict(values: Sequence[Any]) -> bool:
    """Whether any value is a mapping (scored 0.0 against anything), found by type, not value by value."""
    return any(issubclass(kind, dict) for kind in set(map(type, values)))


class LevenshteinComparator(Comparator):
    name = "LevenshteinComparator"
    text_quadratic = True
    aliases = ("levenshtein", "Levenshtein")
    default_threshold = 0.7
    summary = "edit-distance similarity, 1 - edits / longer length"
    params = (Param("normalize", bool, True, "lower-case and collapse whitespace first"),)

    def similarity(self, gt: Any, pred: Any) -> float:
        if isinstance(gt, dict) or isinstance(pred, dict):
            return 0.0
        a, b = _text(gt, self.normalize), _text(pred, self.normalize)
        if a is None or b is None:
            return 0.0
        if not a and not b:
            return 1.0
        return Levenshtein.normalized_similarity(a, b)

    scores_cells = True

    def _texts(self, values: Sequence[Any]) -> list[str | None]:
        if self.normalize:  # strings inline: this runs for every value of a batch
            return [" ".join(v.lower().split())[:MAX_TEXT] if type(v) is str else _text(v, True) for v in values]
        return [v[:MAX_TEXT] if type(v) is str else _text(v, False) for v in values]

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> np.ndarray:
        if _has_dict(gts) or _has_dict(preds):
            return np.asarray(super().similarity_matrix(gts, preds), dtype=float).reshape(len(gts), len(preds))
        return text_matrix(Levenshtein.normalized_similarity, self._texts(gts), self._texts(preds))

    def similarity_cells(
        self, gts: Sequence[Any], preds: Sequence[Any], rows: Sequence[int], cols: Sequence[int]
    ) -> np.ndarray:
        if _has_dict(gts) or _has_dict(preds):
            return np.asarray(super().similarity_cells(gts, preds, list(rows), list(cols)), dtype=float)
        return text_cells(Levenshtein.normalized_similarity, self._texts(gts), self._texts(preds), rows, cols)
