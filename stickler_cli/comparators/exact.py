"""Exact equality, by default after case folding and removing punctuation/space.

The seeds specify the forgiving default (``"hello, world!"`` equals
``"hello world"``); ``case_sensitive=true`` plus ``normalize=false`` gives the
strict comparison of stickler-eval 1.0.0 (see docs/parity.md).
"""

from __future__ import annotations

import string
from typing import Any

import orjson

from .base import Comparator, Param

_STRIP = str.maketrans("", "", string.punctuation + string.whitespace)


def _canonical(value: Any) -> str:
    """Text form of a value; mappings are canonicalised so key order never matters."""
    if isinstance(value, dict):
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    return str(value)


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

    def key(self, value: Any) -> str:
        """The normalised text two values must share to be equal."""
        text = _canonical(value)
        if self._fold:
            text = text.casefold()
        if self.normalize:
            text = text.translate(_STRIP)
        return text

    def similarity(self, gt: Any, pred: Any) -> float:
        return 1.0 if self.key(gt) == self.key(pred) else 0.0
