"""A --plugin module for threshold tests: the similarity is the prediction read as a number, so a test
chooses every similarity exactly (0.8 is the float 0.8; "0.7999999999999999" the one just below it)."""

from typing import Any

from stickler_cli.comparators import Comparator


class GivenSimilarityComparator(Comparator):
    name = "GivenSimilarityComparator"
    summary = "the prediction read as a number (tests)"

    def similarity(self, gt: Any, pred: Any) -> float:
        return float(pred)
