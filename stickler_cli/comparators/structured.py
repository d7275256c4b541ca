"""StructuredModelComparator: the name stickler-eval gives to "compare this as a model".

On an object (or a list of objects) it names what the engine does anyway:
compare field by field with the nested schema, so the compiler accepts it
there and changes nothing. On any other value it is plain equality, as in
stickler-eval: ``1 == 1.0``, but ``"AB" != "ab"``.
"""

from __future__ import annotations

from typing import Any

from .base import Comparator, Param


class StructuredModelComparator(Comparator):
    name = "StructuredModelComparator"
    aliases = ("structured", "Structured", "StructuredModel")
    default_threshold = 0.7
    summary = "objects: field by field with the nested schema (the default); other values: 1.0 when equal"
    params = (
        Param(
            "strict_types", bool, False, "allow it only on objects: naming it on any other property is a schema error"
        ),
    )

    def similarity(self, gt: Any, pred: Any) -> float:
        try:
            return 1.0 if gt == pred else 0.0
        except Exception:  # comparing exotic values must not end the run
            return 0.0
