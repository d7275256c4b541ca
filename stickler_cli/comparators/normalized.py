"""Equality after explicit, Unicode-aware normalisation: 1.0 or 0.0, never in between.

Both values become text (``str``), NFC-composed so that precomposed and
decomposed accents agree, case-folded unless ``case_sensitive``, and stripped
of whitespace (``str.isspace``) and of punctuation (Unicode categories P*) as
configured. Symbols such as ``$``, ``%`` and emoji are kept: ``"$5"`` is not
``"5"``.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Sequence

from ..ascii_text import PUNCTUATION, WHITESPACE, deleting, without
from .base import Comparator, Param, value_text


class NormalizedComparator(Comparator):
    name = "NormalizedComparator"
    aliases = ("normalized", "Normalized", "normalised", "Normalised")
    default_threshold = 1.0
    summary = "1.0 when equal after NFC, case folding and removing whitespace and punctuation, else 0.0"
    params = (
        Param("case_sensitive", bool, False, "keep case differences (otherwise case-fold)"),
        Param("ignore_whitespace", bool, True, "remove every Unicode whitespace character"),
        Param("ignore_punctuation", bool, True, "remove every Unicode punctuation character (categories P*)"),
    )

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        # The ASCII characters ``_dropped`` drops (the same test per character), for ``key``'s ASCII path.
        self._ascii_dropped = deleting(
            (WHITESPACE if self.ignore_whitespace else "") + (PUNCTUATION if self.ignore_punctuation else "")
        )

    def key(self, value: Any) -> str | None:
        """The normalised text two values must share to be equal; None if there is no text."""
        text = value_text(value)
        if text is None:
            return None
        if text.isascii():  # NFC changes no ASCII text, and case folding is lower case: the same key, by bytes
            if not self.case_sensitive:
                text = text.lower()
            return without(text, self._ascii_dropped)
        text = unicodedata.normalize("NFC", text)
        if not self.case_sensitive:
            text = text.casefold()
        if self.ignore_whitespace or self.ignore_punctuation:
            text = "".join(ch for ch in text if not self._dropped(ch))
        return text

    def _dropped(self, ch: str) -> bool:
        if self.ignore_whitespace and ch.isspace():
            return True
        return self.ignore_punctuation and unicodedata.category(ch).startswith("P")

    def similarity(self, gt: Any, pred: Any) -> float:
        key = self.key(gt)
        return 1.0 if key is not None and key == self.key(pred) else 0.0

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        pred_keys = [self.key(p) for p in preds]
        return [
            [1.0 if key is not None and key == pred_key else 0.0 for pred_key in pred_keys]
            for key in map(self.key, gts)
        ]
