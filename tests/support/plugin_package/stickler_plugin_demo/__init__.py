"""Compares only the first ``length`` characters, case-insensitively (a demo plugin)."""

from typing import Any

from stickler_cli.comparators import Comparator, Param


class PrefixComparator(Comparator):
    name = "PrefixComparator"
    aliases = ("prefix",)
    summary = "1.0 when the first `length` characters agree (case-insensitive), else 0.0"
    params = (Param("length", int, 3, "how many leading characters must agree", minimum=1),)

    def similarity(self, gt: Any, pred: Any) -> float:
        a, b = str(gt).casefold(), str(pred).casefold()
        return 1.0 if a[: self.length] == b[: self.length] else 0.0


def vowel_counts(texts: list[str]) -> list[list[float]]:
    """An embedding function (entry point group ``stickler.embeddings``): counts of a, e, i, o, u."""
    return [[float(t.lower().count(v)) for v in "aeiou"] for t in texts]
