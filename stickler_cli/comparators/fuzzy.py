"""rapidfuzz ratios (ratio, partial_ratio, token_sort_ratio, token_set_ratio) / 100."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from rapidfuzz import fuzz

from .base import MAX_PARTIAL_TEXT, MAX_TEXT, Comparator, Param, bounded, text_cells, text_matrix, value_text

METHODS = {
    "ratio": fuzz.ratio,
    "partial_ratio": fuzz.partial_ratio,
    "token_sort_ratio": fuzz.token_sort_ratio,
    "token_set_ratio": fuzz.token_set_ratio,
}


class FuzzyComparator(Comparator):
    name = "FuzzyComparator"
    aliases = ("fuzzy", "Fuzzy", "Fuzz")
    default_threshold = 0.7
    summary = "rapidfuzz string ratio; token methods ignore word order"
    params = (
        Param("method", str, "ratio", "which rapidfuzz scorer", choices=tuple(METHODS)),
        Param("normalize", bool, True, "strip and lower-case first"),
    )

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._scorer = METHODS[self.method]
        self._limit = MAX_PARTIAL_TEXT if self.method == "partial_ratio" else MAX_TEXT

    def _text(self, value: Any) -> str | None:
        text = value_text(value)
        return bounded(text.strip().lower() if self.normalize and text is not None else text, self._limit)

    def similarity(self, gt: Any, pred: Any) -> float:
        a, b = self._text(gt), self._text(pred)
        if a is None or b is None:
            return 0.0
        if not a and not b:
            return 1.0
        return self._scorer(a, b) / 100.0

    scores_cells = True

    def _texts(self, values: Sequence[Any]) -> list[str | None]:
        limit = self._limit
        if self.normalize:  # strings inline: this runs for every item of a batch
            return [v.strip().lower()[:limit] if type(v) is str else self._text(v) for v in values]
        return [v[:limit] if type(v) is str else self._text(v) for v in values]

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> np.ndarray:
        return text_matrix(self._scorer, self._texts(gts), self._texts(preds), 100.0)

    def similarity_cells(self, gts: Sequence[Any], preds: Sequence[Any], rows: Sequence[int],
                         cols: Sequence[int]) -> np.ndarray:
        return text_cells(self._scorer, self._texts(gts), self._texts(preds), rows, cols, 100.0)
