"""Numbers equal within an absolute or relative tolerance (score 1.0 or 0.0).

A text is a number when it is one number as amounts are written (number_text.py:
currency, thousands groups, percent, ``(12.50)`` for ``-12.50``); any other text
(``page 1 of 2``, ``5 to 7``, ``1e2``) is none, and scores 0.0. Arithmetic is
decimal so that ``1247.50`` vs ``1247.48`` with tolerance ``0.02`` is inside,
as a person would expect (binary floats would put it a hair outside).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Sequence

import numpy as np

from ..number_text import read_decimal
from .base import Comparator, Param, value_text

_SHORT_TEXT = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")  # a plain decimal text: read by float() when short
SMALL_PAIRS = 64  # up to this many pairs, a Python loop beats array set-up
_EXACT_INT = 2**53  # integers up to this size are exact in float64
_FLOAT_MAX = Decimal("1e300")  # parsed numbers beyond this are decided by Decimal alone
_FLOAT_CUT = float(_FLOAT_MAX)
_ARRAY_KINDS = {float, int, type(None)}


def parse_number(value: Any) -> Decimal | None:
    """A Decimal from a number or a text spelling one number (number_text.read_decimal), else None."""
    if isinstance(value, (bool, dict, list)):
        return None
    if isinstance(value, (int, float)):
        try:
            return Decimal(str(value))
        except (InvalidOperation, ValueError):  # ValueError: an integer beyond 4,300 digits
            return None
    if type(value) is not str:  # a Python caller's own object (a Decimal…): read by its text
        value = value_text(value)
    return read_decimal(value)


def _short_decimal(text: str) -> bool:
    """A decimal of at most 15 digits ("-1130.14", "22", ".5"): float64 holds a distinct value for each such
    decimal (DBL_DIG), so its float's shortest repr is the same decimal, and it reads as that float."""
    digits = len(text) - (text[0] == "-") - ("." in text)
    return 0 < digits <= 15 and text.count(".") <= 1 and "-" not in text[1:]


class NumericComparator(Comparator):
    name = "NumericComparator"
    aliases = ("numeric", "Numeric", "NumericExactC")
    default_threshold = 1.0
    summary = "1.0 when the numbers agree within tolerance, else 0.0"
    params = (
        Param("relative_tolerance", float, 0.0, "allowed |gt - pred| / |gt|", minimum=0.0),
        Param("absolute_tolerance", float, 0.0, "allowed |gt - pred|", minimum=0.0),
        Param("tolerance", float, None, "alias of absolute_tolerance", nullable=True, minimum=0.0),
    )

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        if self.tolerance is not None:
            if self.absolute_tolerance:
                raise ValueError("give either 'tolerance' or 'absolute_tolerance', not both")
            self.absolute_tolerance = self.tolerance
        self._exact = not self.relative_tolerance and not self.absolute_tolerance
        # Tolerances as written: 0.3 means 0.3, not the binary float just below it.
        self._relative = Decimal(str(self.relative_tolerance))
        self._absolute = Decimal(str(self.absolute_tolerance))
        self._rel_float = float(self.relative_tolerance)
        self._abs_float = float(self.absolute_tolerance)

    def similarity(self, gt: Any, pred: Any) -> float:
        if _plain(gt) and _plain(pred):
            # Plain numbers: float arithmetic gives the Decimal verdict unless the
            # distance sits within 1e-9 (relative) of the tolerance.
            if gt == pred:
                return 1.0
            if self._exact:
                return 0.0
            diff = abs(gt - pred)
            limit = self._limit(gt)
            if abs(diff - limit) > 1e-9 * (abs(gt) + abs(pred) + 1.0):
                return 1.0 if diff <= limit else 0.0
        a, b = parse_number(gt), parse_number(pred)
        if a is None or b is None:
            return 0.0
        return 1.0 if self._agree(a, b) else 0.0

    scores_cells = True
    scores_number_values = True  # numbers and their texts are both read as Decimal(str(value)): see parse_number

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> np.ndarray | list[list[float]]:
        """Pairs decided in float64, and by ``similarity`` itself wherever that could differ.

        Up to SMALL_PAIRS pairs, pair by pair is cheaper; above, the cells of
        the whole grid (``similarity_cells``).
        """
        if len(gts) * len(preds) <= SMALL_PAIRS:
            return self._small_matrix(gts, preds)
        n, m = len(gts), len(preds)
        rows = np.repeat(np.arange(n), m)
        cols = np.tile(np.arange(m), n)
        return self.similarity_cells(gts, preds, rows, cols).reshape(n, m)

    def similarity_cells(
        self, gts: Sequence[Any], preds: Sequence[Any], rows: Sequence[int], cols: Sequence[int]
    ) -> np.ndarray:
        """Pairs decided in float64, and by ``similarity`` itself wherever that could differ.

        Plain numbers go straight into arrays; anything else (strings, huge or
        non-finite values) is parsed. Pairs that are float-equal, or whose
        distance sits within 1e-9 (relative) of the tolerance, are re-decided
        by the exact Decimal rule.
        """
        with np.errstate(over="ignore", invalid="ignore"):  # huge values overflow to inf: decided exactly below
            return self._cells(gts, preds, np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp))

    def _cells(self, gts: Sequence[Any], preds: Sequence[Any], rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        fa, plain_a = _floats(gts)
        fb, plain_b = _floats(preds)
        fa, plain_a, fb, plain_b = fa[rows], plain_a[rows], fb[cols], plain_b[cols]
        diff = np.abs(fa - fb)
        agree = diff == 0.0
        if self._exact and plain_a.all() and plain_b.all():
            return agree.astype(float)  # plain numbers: float equality is the exact verdict
        # Equal plain numbers are equal decimals (a float's repr is unique); other
        # equal pairs, and anything non-finite, are decided exactly.
        unsure = (agree & ~(plain_a & plain_b)) | np.isnan(diff)
        if not self._exact:
            # The larger of the two tolerances in force decides, relative to the gt value.
            absa = np.abs(fa)
            limit = np.maximum(np.where(fa == 0.0, self._rel_float, self._rel_float * absa), self._abs_float)
            agree |= diff <= limit
            unsure |= np.abs(diff - limit) <= 1e-9 * (absa + np.abs(fb) + 1.0)
        out = agree.astype(float)
        for k in np.flatnonzero(unsure).tolist():
            out[k] = self.similarity(gts[rows[k]], preds[cols[k]])
        return out

    def _small_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        """``similarity`` for every pair, its float fast path inlined (a few pairs: no arrays)."""
        plain = [_plain(b) for b in preds]
        if self._exact:
            return [
                [(1.0 if a == b else 0.0) if b_plain else self.similarity(a, b) for b, b_plain in zip(preds, plain)]
                if _plain(a)
                else [self.similarity(a, b) for b in preds]
                for a in gts
            ]
        sizes = [(b if b >= 0 else -b) if b_plain else 0.0 for b, b_plain in zip(preds, plain)]
        rows = []
        for a in gts:
            if not _plain(a):
                rows.append([self.similarity(a, b) for b in preds])
                continue
            limit = self._limit(a)
            slack = (a if a >= 0 else -a) + 1.0
            row = []
            for b, b_plain, b_size in zip(preds, plain, sizes):
                if b_plain:
                    if a == b:
                        row.append(1.0)
                        continue
                    diff = a - b if a >= b else b - a
                    margin = diff - limit if diff >= limit else limit - diff
                    if margin > 1e-9 * (slack + b_size):
                        row.append(1.0 if diff <= limit else 0.0)
                        continue
                row.append(self.similarity(a, b))
            rows.append(row)
        return rows

    def _limit(self, gt: float) -> float:
        """The largest allowed |gt - pred| for a plain number: the larger tolerance in force decides."""
        return max(self._rel_float * abs(gt) if gt else self._rel_float, self._abs_float)

    def _agree(self, a: Decimal, b: Decimal) -> bool:
        if a.is_nan() or b.is_nan():
            return False
        if a.is_infinite() or b.is_infinite():
            return a == b
        if a == b:
            return True
        diff = abs(a - b)
        if self._relative > 0:
            if a == 0:
                if abs(b) <= self._relative:
                    return True
            elif diff / abs(a) <= self._relative:
                return True
        return self._absolute > 0 and diff <= self._absolute


def _floats(values: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """(float64 of each value, which values are plain numbers that float64 holds exactly).

    A value that is not a plain finite number, or an integer beyond 2**53, is
    parsed (NaN when it has no finite float) and decided by Decimal, unless it reads
    as exactly a float within 2**53 (a numeric text, mostly): that float, plain.
    """
    kinds = set(map(type, values))
    if kinds <= _ARRAY_KINDS:
        # Straight into an array (None becomes NaN). Conservatively, only finite values
        # within 2**53 count as plain here; any other is decided by ``similarity``.
        try:
            out = np.array(values, dtype=float)
        except OverflowError:  # an integer beyond float64
            pass
        else:
            size = np.abs(out)
            plain = size < _EXACT_INT  # False for NaN, infinities and integers that rounded to 2**53
            out[~(size < _FLOAT_CUT)] = math.nan
            return out, plain
    out = np.empty(len(values))
    plain = np.ones(len(values), dtype=bool)
    for k, v in enumerate(values):
        if _plain(v):
            out[k] = v
            continue
        if type(v) is str and _SHORT_TEXT.fullmatch(v) and _short_decimal(v):
            out[k] = float(v)  # most numeric texts are short decimals: read as floats, without Decimal
            continue
        number = parse_number(v)
        if number is None or not number.is_finite() or abs(number) >= _FLOAT_MAX:
            out[k], plain[k] = math.nan, False
            continue
        out[k] = f = float(number)
        # A text that reads as a float's own decimal ("1,130.14" as 1130.14) is that float to the Decimal rule,
        # which sees only a value's Decimal (parse_number: Decimal(str(value)) for a float): plain, as the float is.
        plain[k] = abs(f) < _EXACT_INT and Decimal(repr(f)) == number
    return out, plain


def _plain(value: Any) -> bool:
    """A finite float, or an int that float64 holds exactly: safe for the float fast path."""
    t = type(value)
    return (t is float and math.isfinite(value)) or (t is int and -_EXACT_INT <= value <= _EXACT_INT)
