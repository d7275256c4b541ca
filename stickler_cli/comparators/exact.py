"""Exact equality, by default after case folding and removing punctuation/space.

The seeds specify the forgiving default (``"hello, world!"`` equals
``"hello world"``); ``case_sensitive=true`` plus ``normalize=false`` gives the
strict comparison of stickler-eval 1.0.0 (see docs/parity.md).
"""

from __future__ import annotations

import string
from typing import Any, Sequence

import numpy as np
import orjson

from ..ascii_text import deleting, without
from .base import Comparator, Param, gather, value_text

_STRIPPED = string.punctuation + string.whitespace
_STRIP = str.maketrans("", "", _STRIPPED)
_STRIP_ASCII = deleting(_STRIPPED)


def _canonical(value: Any) -> str | None:
    """Text form of a value (mappings canonicalised so key order never matters); None when it has none."""
    if isinstance(value, dict):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
        except (TypeError, orjson.JSONEncodeError):  # nesting deeper than orjson allows
            return None
    return value_text(value)


class ExactComparator(Comparator):
    name = "ExactComparator"
    aliases = ("exact", "Exact")
    default_threshold = 1.0
    summary = "1.0 when equal, else 0.0 (case-insensitive, ignores punctuation and spaces by default)"
    params = (
        Param("case_sensitive", bool, False, "distinguish upper and lower case"),
        Param("normalize", bool, True, "remove punctuation and whitespace before comparing"),
    )

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._fold = not self.case_sensitive
        self._strict = not self._fold and not self.normalize

    def key(self, value: Any) -> str | None:
        """The normalised text two values must share to be equal (None: equal to nothing)."""
        text = _canonical(value)
        if text is None:
            return None
        if text.isascii():  # case folding is lower case; the same deletion, by bytes
            if self._fold:
                text = text.lower()
            return without(text, _STRIP_ASCII) if self.normalize else text
        if self._fold:
            text = text.casefold()
        if self.normalize:
            text = text.translate(_STRIP)
        return text

    def similarity(self, gt: Any, pred: Any) -> float:
        if self._strict and type(gt) is str and type(pred) is str:
            return 1.0 if gt == pred else 0.0  # nothing to normalise: the key is the text
        a = self.key(gt)
        return 1.0 if a is not None and a == self.key(pred) else 0.0

    scores_cells = True

    def _keys(self, values: Sequence[Any]) -> list[str | None]:
        if self._strict:  # a string is its own key
            return [v if type(v) is str else self.key(v) for v in values]
        return [self.key(v) for v in values]

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        """Each value normalised once, then compared by key."""
        pred_keys = self._keys(preds)
        return [[1.0 if a is not None and a == b else 0.0 for b in pred_keys] for a in self._keys(gts)]

    def similarity_cells(self, gts: Sequence[Any], preds: Sequence[Any], rows: Sequence[int],
                         cols: Sequence[int]) -> np.ndarray:
        left, right = gather(self._keys(gts), rows), gather(self._keys(preds), cols)
        equal = (left == right) & (left != None)  # noqa: E711  (elementwise: a key of None equals nothing)
        return equal.astype(float)
