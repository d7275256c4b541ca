"""Confidence pairs kept flat in memory: grouped by (field, confidence, outcome).

A run of millions of documents yields tens of millions of pairs, but
confidences are usually written with two or three decimals: grouping pairs
that share field, confidence and outcome (counting them, summing their
similarity) keeps every built-in metric exact while memory stays bounded by
the number of distinct groups. New pairs go to typed buffers first and are
folded into the groups when the buffers fill; the fold threshold grows with
the groups, so continuous confidences (nothing to group) cost amortised
O(n log n) and about 30 bytes a pair.
"""

from __future__ import annotations

from array import array
from typing import Any, Sequence

import numpy as np

FOLD_AT = 1 << 16  # buffered pairs before the first fold


class ConfidenceStore:
    def __init__(self) -> None:
        self._field = array("i")
        self._match = array("b")
        self._value = array("d")
        self._similarity = array("d")
        self.field = np.empty(0, dtype=np.int32)
        self.match = np.empty(0, dtype=bool)
        self.value = np.empty(0, dtype=np.float64)
        self.count = np.empty(0, dtype=np.int64)
        self.similarity_sum = np.empty(0, dtype=np.float64)
        self._blocks: list[tuple[np.ndarray, ...]] = []  # merged-in groups not yet folded
        self._block_rows = 0

    def add(self, field: int, match: bool, value: float, similarity: float) -> None:
        self.extend(((field, match, value, similarity),))

    def extend(self, pairs: Sequence[tuple[int, bool, float, float]]) -> None:
        """Add (field, is_match, confidence, similarity) tuples: a document's pairs at once."""
        if not pairs:
            return
        field, match, value, similarity = zip(*pairs)
        self._field.extend(field)
        self._match.extend(match)
        self._value.extend(value)
        self._similarity.extend(similarity)
        if len(self._field) >= FOLD_AT and len(self._field) >= len(self.field):
            self.fold()

    def extend_columns(
        self, field: np.ndarray, match: np.ndarray, value: np.ndarray, similarity: np.ndarray, per_document: np.ndarray
    ) -> None:
        """Add the pairs of several documents at once (``per_document[d]`` of them for document d, in
        order), folding exactly where ``extend`` called once per document would: the groups' sums
        are then the same to the last bit."""
        ends = np.cumsum(per_document)
        done = 0
        while done < len(field):
            # ``extend`` folds after the first document that brings the buffer to the threshold.
            threshold = max(FOLD_AT, len(self.field))
            reach = done + max(threshold - len(self._field), 1)
            d = int(np.searchsorted(ends, reach))
            end = int(ends[d]) if d < len(ends) else len(field)
            self._field.frombytes(field[done:end].astype(np.int32).tobytes())
            self._match.frombytes(match[done:end].astype(np.int8).tobytes())
            self._value.frombytes(value[done:end].astype(np.float64).tobytes())
            self._similarity.frombytes(similarity[done:end].astype(np.float64).tobytes())
            done = end
            if len(self._field) >= FOLD_AT and len(self._field) >= len(self.field):
                self.fold()

    def __len__(self) -> int:
        """Pairs held (grouped or not)."""
        return int(self.count.sum()) + len(self._field) + sum(int(b[3].sum()) for b in self._blocks)

    def fold(self) -> None:
        """Group the buffered pairs and merged-in groups with the groups already held."""
        blocks = self._blocks
        if len(self._field):
            blocks.append(
                (
                    np.asarray(self._field, dtype=np.int32),
                    np.frombuffer(self._match, dtype=np.int8).astype(bool),
                    np.frombuffer(self._value, dtype=np.float64).copy(),
                    np.ones(len(self._field), dtype=np.int64),
                    np.frombuffer(self._similarity, dtype=np.float64).copy(),
                )
            )
            self._field, self._match = array("i"), array("b")
            self._value, self._similarity = array("d"), array("d")
        if not blocks:
            return
        self._blocks, self._block_rows = [], 0
        held = (self.field, self.match, self.value, self.count, self.similarity_sum)
        field, match, value, count, similarity_sum = (np.concatenate(column) for column in zip(held, *blocks))
        order = np.lexsort((match, value, field))
        field, match, value = field[order], match[order], value[order]
        new_group = np.r_[True, (field[1:] != field[:-1]) | (value[1:] != value[:-1]) | (match[1:] != match[:-1])]
        starts = np.flatnonzero(new_group)
        self.field, self.match, self.value = field[starts], match[starts], value[starts]
        self.count = np.add.reduceat(count[order], starts) if len(starts) else count[:0]
        self.similarity_sum = np.add.reduceat(similarity_sum[order], starts) if len(starts) else similarity_sum[:0]

    # -- state ------------------------------------------------------------------

    def state(self, as_arrays: bool = False) -> dict[str, Any]:
        """The groups as JSON lists, or (``as_arrays``, for another process) as numpy arrays."""
        self.fold()
        columns = {
            "field": self.field,
            "match": self.match,
            "value": self.value,
            "count": self.count,
            "similarity_sum": self.similarity_sum,
        }
        return columns if as_arrays else {key: column.tolist() for key, column in columns.items()}

    def merge(self, block: dict[str, Any]) -> None:
        """Take in another store's ``state()``; folded later, when enough has come in."""
        if not len(block["field"]):
            return
        self._blocks.append(
            (
                np.asarray(block["field"], dtype=np.int32),
                np.asarray(block["match"], dtype=bool),
                np.asarray(block["value"], dtype=np.float64),
                np.asarray(block["count"], dtype=np.int64),
                np.asarray(block["similarity_sum"], dtype=np.float64),
            )
        )
        self._block_rows += len(block["field"])
        if self._block_rows >= FOLD_AT and self._block_rows >= len(self.field):
            self.fold()

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(field, is_match, confidence, mean similarity, count) of every group."""
        self.fold()
        mean = self.similarity_sum / np.maximum(self.count, 1)
        return self.field, self.match, self.value, mean, self.count
