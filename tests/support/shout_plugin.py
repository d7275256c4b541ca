"""A --plugin module: equal when equal after upper-casing; scores 0.5 for a length match."""

from typing import Any

from stickler_cli.comparators import Comparator


class ShoutComparator(Comparator):
    name = "ShoutComparator"
    summary = "1.0 when equal ignoring case, 0.5 when only the lengths agree"

    def similarity(self, gt: Any, pred: Any) -> float:
        a, b = str(gt), str(pred)
        if a.upper() == b.upper():
            return 1.0
        return 0.5 if len(a) == len(b) else 0.0
