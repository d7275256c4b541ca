"""rapidfuzz ratios (ratio, partial_ratio, token_sort_ratio, token_set_ratio) / 100."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cpdist

from .base import MAX_PARTIAL_TEXT, MAX_TEXT, Comparator, Param, bounded, gather, text_cells, text_matrix, value_text

METHODS = {
    "ratio": fuzz.ratio,
    "partial_ratio": fuzz.partial_ratio,
    "token_sort_ratio": fuzz.token_sort_ratio,
    "token_set_ratio": fuzz.token_set_ratio,
}


class FuzzyComparator(Comparator):
    name = "FuzzyComparator"
    text_quadratic = True
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

    def similarity_cells(
        self, gts: Sequence[Any], preds: Sequence[Any], rows: Sequence[int], cols: Sequence[int]
    ) -> np.ndarray:
        a, b = self._texts(gts), self._texts(preds)
        scores = _token_sort_cells(a, b, rows, cols) if self.method == "token_sort_ratio" else None
        return text_cells(self._scorer, a, b, rows, cols, 100.0, scores)


def _sorted_words(text: str | None) -> str | None:
    """A text's words sorted and joined by one space, as rapidfuzz's token_sort_ratio sorts them; None for a text
    of one-byte characters holding U+0085 or U+00A0, which Python's split takes for spaces and rapidfuzz, in such a
    text alone, does not (it splits on Python's spaces otherwise: tests/engine/test_item_matrices.py checks every one, at
    every width of text)."""
    if text is None or not text.isascii() and ("\xa0" in text or "\x85" in text) and max(text) <= "\xff":
        return None
    return " ".join(sorted(text.split()))


def _token_sort_cells(
    a: Sequence[str | None], b: Sequence[str | None], rows: Sequence[int], cols: Sequence[int]
) -> np.ndarray:
    """token_sort_ratio of the pairs (a[rows[k]], b[cols[k]]): the words of each text sorted once, not
    once per pair, then ``ratio`` (rapidfuzz's own definition; the same floats, tests/engine/test_item_matrices.py);
    pairs with a text where rapidfuzz and Python split words differently are left to token_sort_ratio itself.
    When each text is in about one pair (a field's values, document by document), sorting once saves nothing:
    token_sort_ratio does it all, in C++, in half the time."""
    if len(rows) <= len(a) + len(b):
        rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
        return cpdist(gather(a, rows), gather(b, cols), scorer=fuzz.token_sort_ratio, dtype=np.float64, workers=1)
    left, right = gather([_sorted_words(t) for t in a], rows), gather([_sorted_words(t) for t in b], cols)
    sorted_pair = (left != None) & (right != None)  # noqa: E711  (elementwise)
    if sorted_pair.all():
        return cpdist(left, right, scorer=fuzz.ratio, dtype=np.float64, workers=1)
    # Only the other pairs (a text split otherwise, or with no text form) go to token_sort_ratio: one such
    # description in a batch would otherwise send every pair there, and then sort its words again.
    out = np.empty(len(sorted_pair), dtype=np.float64)
    out[sorted_pair] = cpdist(left[sorted_pair], right[sorted_pair], scorer=fuzz.ratio, dtype=np.float64, workers=1)
    other = ~sorted_pair
    rows, cols = np.asarray(rows, dtype=np.intp)[other], np.asarray(cols, dtype=np.intp)[other]
    out[other] = cpdist(gather(a, rows), gather(b, cols), scorer=fuzz.token_sort_ratio, dtype=np.float64, workers=1)
    return out
