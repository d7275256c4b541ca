"""Numbers equal within an absolute or relative tolerance (score 1.0 or 0.0).

Strings are parsed leniently: currency symbols and thousands separators are
dropped, ``(12.50)`` is the accounting spelling of ``-12.50``. Arithmetic is
decimal so that ``1247.50`` vs ``1247.48`` with tolerance ``0.02`` is inside,
as a person would expect (binary floats would put it a hair outside).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from .base import Comparator, Param, value_text

_NOT_NUMERIC = re.compile(r"[^0-9.\-]")


def parse_number(value: Any) -> Decimal | None:
    """A Decimal from a number or a loosely formatted numeric string, else None."""
    if isinstance(value, (bool, dict, list)):
        return None
    if isinstance(value, (int, float)):
        try:
            return Decimal(str(value))
        except (InvalidOperation, ValueError):  # ValueError: an integer beyond 4,300 digits
            return None
    text = value_text(value)
    if text is None:
        return None
    negative = len(text) >= 2 and text[0] == "(" and text[-1] == ")"
    if negative:
        text = text[1:-1]
    text = _NOT_NUMERIC.sub("", text)
    if not text or len(text) > 1000:
        return None
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return -number if negative else number


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

    def similarity(self, gt: Any, pred: Any) -> float:
        if self._exact and type(gt) in (int, float) and type(pred) in (int, float):
            return 1.0 if gt == pred else 0.0  # same verdict as Decimal(str(x)), far cheaper
        a, b = parse_number(gt), parse_number(pred)
        if a is None or b is None:
            return 0.0
        return 1.0 if self._agree(a, b) else 0.0

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
