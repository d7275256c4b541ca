"""Slices (``--slice-by PATH``): each field's counts per value of a ground-truth field, mergeable.

A document's slice value is read from its ground-truth record at a dotted path (``vendor.country``,
``_meta.template``: the schema need not declare it). Per slicing path and per value this keeps the
same per-field tallies the accumulator keeps (TP, FA, FD, FN, TN), plus three sums over documents
of each field's decided comparisons x (TP + FA + FD + FN) and successes y (TP): Σx², Σxy, Σy²,
which give the design effect of comparisons clustered in documents (slice_stats.py). All integers:
one run, workers, Dask and ``stickler merge`` reach the same numbers.

Memory is bounded: at most ``cap`` values per path are kept, and which ones does not depend on how
the input was split: the ``cap`` smallest labels in code-point order (a bottom-k rule). A value
that gives way has its counts added to ``(other)``. A value among the cap smallest of the whole
input is among the cap smallest of every part of it, so no part ever pools it: merging parts in any
order keeps exactly what one run keeps. The special labels ``(missing)``, ``(object)``, ``(list)``
and ``(other)`` are outside the cap.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..json_text import NON_FINITE_NAMES
from ..schema.keywords import escape as _token
from .part import Collect, Part
from .state_check import bad, check_array, check_count, check_counts, check_number, check_object, shown

if TYPE_CHECKING:
    from ..plan import Plan

MISSING, OBJECT, LIST, OTHER = "(missing)", "(object)", "(list)", "(other)"
SPECIAL = (MISSING, OBJECT, LIST, OTHER)
LARGE_INTEGER = "(large integer)"  # an integer of more digits than Python writes: one value for all of them
MOMENTS = 3  # Σx², Σxy, Σy² per field


def label(record: Any, keys: Sequence[str], chars: int, rich: Sequence[bool] | None = None) -> str:
    """The slice value of a ground-truth record at ``keys``: a string as it is (cut to ``chars``), a
    number or boolean as JSON writes it, ``(missing)`` for an absent key, null or an empty string (or a
    step through something that is not an object), ``(object)`` / ``(list)`` for non-scalar values.
    A rich value ``{"_value": v}`` counts as ``v``, except where ``rich[i]`` (the record at 0, the value
    after the i-th key) is False: there the schema declares ``_value`` as a property, and the object is data."""
    value = record
    for step, key in enumerate(keys):
        if rich is None or rich[step]:
            while type(value) is dict and "_value" in value:
                value = value["_value"]
        if type(value) is not dict:
            return MISSING
        value = value.get(key)
    if rich is None or rich[len(keys)]:
        while type(value) is dict and "_value" in value:
            value = value["_value"]
    kind = type(value)
    if kind is str:
        return value[:chars] if value else MISSING
    if value is None:
        return MISSING
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        try:
            return str(value)[:chars]
        except ValueError:  # beyond the 4,300 digits Python writes
            return LARGE_INTEGER
    if kind is float:
        text = repr(value)
        return NON_FINITE_NAMES.get(text, text)[:chars]
    if kind is dict:
        return OBJECT
    if kind is list:
        return LIST
    return str(value)[:chars]


def document_rows(tally: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Per document of a batch: 1, its flat tally, then per field x², xy, y² (int64), written in place into
    the first rows of ``out`` (reused batch after batch: a fresh array of this size costs more in page faults
    than the sums)."""
    n, width = tally.shape
    fields = width // 5
    rows = out[:n]
    rows[:, 0] = 1
    rows[:, 1 : 1 + width] = tally
    counts = tally.reshape(n, fields, 5)
    x = counts[:, :, 0] + counts[:, :, 1] + counts[:, :, 2] + counts[:, :, 3]
    y = counts[:, :, 0]
    moments = rows[:, 1 + width :].reshape(n, fields, MOMENTS)  # a view: the products land in rows
    np.multiply(x, x, out=moments[:, :, 0])
    np.multiply(x, y, out=moments[:, :, 1])
    np.multiply(y, y, out=moments[:, :, 2])
    return rows


class SliceTable:
    """One slicing path's rows (``document_rows``) and score sums, by label, capped as the module says."""

    def __init__(self, path: str, fields: int, cap: int, chars: int, data: frozenset[str] = frozenset()) -> None:
        self.path = path
        self.keys = path.split(".")
        # Where along the path a {"_value": ...} object is a rich value (label): not at a path of ``data``.
        self.rich = [".".join(self.keys[:i]) not in data for i in range(len(self.keys) + 1)]
        self.fields = fields
        self.cap = cap
        self.chars = chars
        self.rows: dict[str, np.ndarray] = {}
        self.scores: dict[str, float] = {}
        self._kept: list[str] = []  # the ordinary values kept, sorted

    def add(self, records: Sequence[Any], rows: np.ndarray, scores: np.ndarray, scratch: np.ndarray) -> None:
        """Add a batch: document d (``records[d]``, its row ``rows[d]`` and score ``scores[d]``). The rows are
        summed by value in arrays (sorted by value into ``scratch``, at least as large as ``rows``, then
        ``np.add.reduceat``); Python only reads each label."""
        codes: dict[str, int] = {}
        keys, chars, rich = self.keys, self.chars, self.rich
        index = np.fromiter(
            (codes.setdefault(label(r, keys, chars, rich), len(codes)) for r in records),
            dtype=np.int64,
            count=len(records),
        )
        if len(codes) == 1:
            self._add(next(iter(codes)), rows.sum(axis=0), float(scores.sum()))
            return
        order = np.argsort(index, kind="stable")
        grouped = index[order]
        starts = np.flatnonzero(np.concatenate(([True], grouped[1:] != grouped[:-1])))
        sums = np.add.reduceat(np.take(rows, order, axis=0, out=scratch[: len(rows)]), starts, axis=0)
        score_sums = np.add.reduceat(scores[order], starts).tolist()
        values = list(codes)
        for j, code in enumerate(grouped[starts].tolist()):
            self._add(values[code], sums[j], score_sums[j])

    def _add(self, value: str, row: np.ndarray, score: float) -> None:
        kept = self._kept
        if value not in self.rows and value not in SPECIAL and len(kept) >= self.cap and value > kept[-1]:
            value = OTHER  # a new value beyond the cap: pooled at once
        if value in self.rows:
            self.rows[value] += row
            self.scores[value] += score
            return
        self.rows[value] = row.astype(np.int64, copy=True)
        self.scores[value] = float(score)
        if value not in SPECIAL:
            bisect.insort(kept, value)
            self._trim()

    def _trim(self) -> None:
        """Pool the values beyond the cap (the largest labels) into ``(other)``."""
        kept = self._kept
        while len(kept) > self.cap:
            value = kept.pop()
            row, score = self.rows.pop(value), self.scores.pop(value)
            if OTHER in self.rows:
                self.rows[OTHER] += row
                self.scores[OTHER] += score
            else:
                self.rows[OTHER], self.scores[OTHER] = row, score

    def state(self) -> dict[str, Any]:
        """``{label: {documents, score_sum, counts: [[5] per field], moments: [[3] per field]}}``, labels sorted."""
        out = {}
        size = self.fields
        for value in sorted(self.rows):
            row = self.rows[value].tolist()
            out[value] = {
                "documents": row[0],
                "score_sum": self.scores[value],
                "counts": [row[1 + 5 * i : 6 + 5 * i] for i in range(size)],
                "moments": [row[1 + 5 * size + MOMENTS * i : 1 + 5 * size + MOMENTS * (i + 1)] for i in range(size)],
            }
        return out

    def merge(self, values: dict[str, Any], cap: int) -> None:
        """Add another part's ``state()`` (kept under ``cap`` values: the smaller cap wins)."""
        self.cap = min(self.cap, cap)
        self._trim()
        for value, block in values.items():
            row = np.array(
                [
                    block["documents"],
                    *(c for f in block["counts"] for c in f),
                    *(m for f in block["moments"] for m in f),
                ],
                dtype=np.int64,
            )
            self._add(value, row, float(block["score_sum"]))


class Slices:
    """Every slicing path of a run."""

    def __init__(
        self, paths: Sequence[str], fields: int, cap: int, chars: int, data: frozenset[str] = frozenset()
    ) -> None:
        """``data``: the field paths where an object holding ``_value`` is data ("" for the record itself)."""
        self.tables = [SliceTable(p, fields, cap, chars, data) for p in paths]
        self.cap = cap
        self._rows = self._sorted = np.empty((0, 0), dtype=np.int64)  # buffers reused batch after batch

    def __bool__(self) -> bool:
        return bool(self.tables)

    def add_batch(self, records: Sequence[Any], tally: np.ndarray, scores: np.ndarray) -> None:
        if not len(records):
            return
        if len(self._rows) < len(records):
            shape = (len(records), 1 + tally.shape[1] + MOMENTS * (tally.shape[1] // 5))
            self._rows, self._sorted = np.empty(shape, dtype=np.int64), np.empty(shape, dtype=np.int64)
        rows = document_rows(tally, self._rows)
        for table in self.tables:
            table.add(records, rows, scores, self._sorted)

    def state(self) -> dict[str, Any]:
        """``{"max_values": cap, "paths": {path: SliceTable.state()}}``."""
        return {"max_values": self.cap, "paths": {t.path: t.state() for t in self.tables}}

    def merge(self, state: dict[str, Any]) -> None:
        paths = [t.path for t in self.tables]
        if list(state["paths"]) != paths:
            from ..errors import SticklerError

            raise SticklerError(
                f"cannot merge states sliced by {list(state['paths']) or 'nothing'} into one sliced "
                f"by {paths or 'nothing'}: give every run the same --slice-by"
            )
        self.cap = min(self.cap, state["max_values"])
        for table in self.tables:
            table.merge(state["paths"][table.path], self.cap)


def is_slice_path(path: str) -> bool:
    """Whether ``path`` is a dotted path of ground-truth keys (``vendor.country``): no key empty."""
    return all(path.split("."))


# -- the part of the accumulated state (analyses/part.py): fed by the accumulator's add_slices ----------------------


def new_store(plan: Plan, collect: Collect) -> Slices:
    return Slices(collect.slices, len(plan.fields), collect.slice_values, collect.slice_chars, plan.data_paths())


def state_of(store: Slices, as_arrays: bool) -> dict[str, Any]:
    return {"slices": store.state()}


def merge_state(store: Slices, state: dict[str, Any], offset: int) -> None:
    store.merge(state["slices"])


def check_state(state: dict[str, Any], plan: Plan) -> None:
    """A state's ``slices``: per slicing path, its values' counts, each a partition of the run's documents, so the
    documents and counts add up to the state's; at most ``max_values`` ordinary values; moments that some
    documents could have (0 ≤ y ≤ x per document: Σy² ≤ Σxy ≤ Σx², Σx ≤ Σx² ≤ (Σx)², as for y)."""
    block, n, counts = state["slices"], state["document_count"], state["counts"]
    block = check_object(block, "/slices", ("max_values", "paths"))
    cap = check_count(block["max_values"], "/slices/max_values")
    if cap < 1:
        raise bad("/slices/max_values", "must be at least 1")
    size = len(counts)
    for path, values in check_object(block["paths"], "/slices/paths").items():
        where = f"/slices/paths/{_token(path)}"
        if not is_slice_path(path):
            raise bad(where, "must be a dotted path of ground-truth keys")
        ordinary = [v for v in check_object(values, where) if v not in SPECIAL]
        if len(ordinary) > cap:
            raise bad(where, f"holds {len(ordinary)} values, more than the {cap} the state kept (max_values)")
        documents, total = 0, [[0] * 5 for _ in range(size)]
        for value, entry in values.items():
            at = f"{where}/{_token(value)}"
            check_object(entry, at, ("documents", "score_sum", "counts", "moments"))
            k = check_count(entry["documents"], f"{at}/documents")
            if k < 1:
                raise bad(f"{at}/documents", "a slice holds at least one document")
            documents += k
            check_number(entry["score_sum"], f"{at}/score_sum", 0.0, float(k))
            rows = check_array(entry["counts"], f"{at}/counts", size)
            moments = check_array(entry["moments"], f"{at}/moments", size)
            for i, (row, moment) in enumerate(zip(rows, moments)):
                check_counts(row, f"{at}/counts/{i}", 5)
                sxx, sxy, syy = check_counts(moment, f"{at}/moments/{i}", MOMENTS)
                x, y = sum(row[:4]), row[0]
                if not (syy <= sxy <= sxx and x <= sxx <= x * x and y <= syy <= y * y):
                    raise bad(
                        f"{at}/moments/{i}",
                        f"cannot be the sums x², xy, y² of documents whose decided "
                        f"comparisons add up to {x} and TPs to {y}, got {shown(moment)}",
                    )
                total[i] = [a + b for a, b in zip(total[i], row)]
        if documents != n:
            raise bad(where, f"counts {documents} documents, the state {n}")
        if total != counts:
            raise bad(where, "the slices' counts do not add up to the state's counts")


# The slices' report block is report/slices.py's (slice statistics, with the report's FDR and CI level).
PART = Part("slices", new_store, state_of, merge_state, check_state)
