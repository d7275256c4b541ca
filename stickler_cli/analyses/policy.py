"""What an auto-accept policy needs per document: the straight-through part (docs/decisions.md).

The per-field part of a policy (threshold, coverage, precision) comes from the confidence groups every run keeps
(confidence/store.py). Whether a *document* goes straight through needs per-document data: a document goes
straight through when every predicted value of every policy field is accepted, that is when, for each policy
field, the lowest confidence among the document's values of that field reaches the field's threshold. The
thresholds are known only once the run is over, so the run keeps, for every (document, field) that holds a
predicted value or a confidence, one row:

- ``document``: the document's number in the run (merged states: counted after the states before them);
- ``field``: the field's index in the plan;
- ``low``: the lowest confidence among the document's values of that field, or -1.0 when one of its predicted
  values carries no confidence (that value can never be accepted: the document goes to review);
- ``values`` and ``correct``: how many of its values carry a confidence, and how many of those are right.

That is 24 bytes a (document, field) row, none for a field the document leaves empty; rows are kept only when a
policy is asked for (``Collect.policy``: ``--target-precision`` or ``--policy``). Rows merge by concatenation (the
documents of a merged state are numbered after this one's), so one process, workers, Dask and ``stickler merge``
hold the same rows and give the same straight-through rate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..engine.result import FA, FD, TP
from ..plan import Plan
from .part import Collect, Part
from .state_check import bad, check_array, check_count, check_counts, check_floats, check_object

if TYPE_CHECKING:
    from ..engine.batch import BatchResult
    from ..engine.result import DocResult

KEY = "policy"
COLUMNS = ("document", "field", "low", "values", "correct")
NO_CONFIDENCE = -1.0  # ``low`` of a (document, field) with a predicted value that carries no confidence
ROW_BYTES = 8 + 4 + 8 + 4 + 4  # memory per (document, field) row


class Rows:
    """The (document, field) rows of the module docstring, in chunks of numpy columns."""

    def __init__(self, plan: Plan, active: bool) -> None:
        self.active = active
        self.fields = len(plan.fields)
        self.documents = 0  # documents counted (the next one's number)
        self._chunks: list[tuple[np.ndarray, ...]] = []

    def add(
        self,
        tally: np.ndarray,
        field: np.ndarray,
        match: np.ndarray,
        value: np.ndarray,
        per_document: np.ndarray,
    ) -> None:
        """Rows of ``len(tally)`` documents: their flat counts (n, 5 * fields) and their confidence pairs, document
        after document (``per_document[d]`` of them for document d)."""
        n, width = len(tally), self.fields
        start = self.documents
        self.documents += n
        if not self.active or not n or not width:
            return
        tally = np.asarray(tally, dtype=np.int64).reshape(n, 5 * width)
        predicted = (tally[:, TP::5] + tally[:, FA::5] + tally[:, FD::5]).ravel()  # non-empty predicted values
        key = np.repeat(np.arange(n, dtype=np.int64), per_document) * width + np.asarray(field, dtype=np.int64)
        size = n * width
        values = np.bincount(key, minlength=size)
        correct = np.bincount(key, weights=np.asarray(match, dtype=np.float64), minlength=size).astype(np.int64)
        low = np.full(size, np.inf)
        np.minimum.at(low, key, np.asarray(value, dtype=np.float64))
        low[predicted > values] = NO_CONFIDENCE  # a predicted value without a confidence
        kept = np.flatnonzero((values > 0) | (predicted > 0))
        self._chunks.append(
            (
                kept // width + start,
                (kept % width).astype(np.int32),
                low[kept],
                values[kept].astype(np.int32),
                correct[kept].astype(np.int32),
            )
        )

    def columns(self) -> tuple[np.ndarray, ...]:
        """(document, field, low, values, correct) of every row, in document order."""
        if len(self._chunks) != 1:
            empty = (np.int64, np.int32, np.float64, np.int32, np.int32)
            self._chunks = [
                tuple(
                    np.concatenate([c[k] for c in self._chunks]) if self._chunks else np.empty(0, dtype=empty[k])
                    for k in range(len(COLUMNS))
                )
            ]
        return self._chunks[0]


def new_store(plan: Plan, collect: Collect) -> Rows:
    return Rows(plan, collect.policy)


def add_document(rows: Rows, doc: DocResult, doc_id: Any) -> None:
    pairs = doc.confidences
    rows.add(
        np.asarray([doc.tally], dtype=np.int64),
        np.fromiter((p.field_index for p in pairs), dtype=np.int64, count=len(pairs)),
        np.fromiter((p.is_match for p in pairs), dtype=bool, count=len(pairs)),
        np.fromiter((p.confidence for p in pairs), dtype=np.float64, count=len(pairs)),
        np.asarray([len(pairs)], dtype=np.int64),
    )


def add_batch(rows: Rows, batch: BatchResult, doc_ids: Sequence[Any] | None) -> None:
    rows.add(
        batch.tally, batch.confidence_field, batch.confidence_match, batch.confidence_value, batch.confidence_counts
    )


def state_of(rows: Rows, as_arrays: bool) -> dict[str, Any]:
    """``{"policy": {"documents": n, "document": [...], "field": [...], "low": [...], "values": [...],
    "correct": [...]}}``; nothing when no policy was asked for (the state is then as it was)."""
    if not rows.active:
        return {}
    columns = rows.columns()
    block: dict[str, Any] = {"documents": rows.documents}
    for name, column in zip(COLUMNS, columns):
        block[name] = column if as_arrays else column.tolist()
    return {KEY: block}


def merge_state(rows: Rows, state: dict[str, Any], offset: int) -> None:
    """Another run's rows, its documents numbered from ``offset``. A state saved without a policy's rows makes
    this run's rows incomplete: the store then holds none (the report says the straight-through rate cannot be
    known)."""
    block = state.get(KEY)
    count = state.get("document_count", 0)
    if block is None:
        if rows.active and count:
            rows.active = False
            rows._chunks = []
        rows.documents = offset + count
        return
    if not rows.active and rows.documents == 0 and offset == 0:
        rows.active = True  # a merge: the first state's rows decide
    rows.documents = offset
    if rows.active:
        n = len(block["document"])
        rows._chunks.append(
            (
                np.asarray(block["document"], dtype=np.int64).reshape(n) + offset,
                np.asarray(block["field"], dtype=np.int32).reshape(n),
                np.asarray(block["low"], dtype=np.float64).reshape(n),
                np.asarray(block["values"], dtype=np.int32).reshape(n),
                np.asarray(block["correct"], dtype=np.int32).reshape(n),
            )
        )
    rows.documents = offset + block["documents"]


def check_state(state: dict[str, Any], plan: Plan) -> None:
    if KEY not in state:
        return
    pointer = f"/{KEY}"
    block = check_object(state[KEY], pointer, ("documents", *COLUMNS))
    documents = check_count(block["documents"], f"{pointer}/documents")
    if documents != state["document_count"]:
        raise bad(f"{pointer}/documents", f"must equal document_count ({state['document_count']}), got {documents}")
    n = len(check_array(block["document"], f"{pointer}/document"))
    for name in ("document", "field", "values", "correct"):
        column = check_counts(block[name], f"{pointer}/{name}", n)
        bound = documents if name == "document" else len(plan.fields) if name == "field" else None
        if bound is not None and column and max(column) >= bound:
            k = column.index(max(column))
            raise bad(f"{pointer}/{name}/{k}", f"must be below {bound}, got {column[k]}")
    low = check_floats(check_array(block["low"], f"{pointer}/low", n), f"{pointer}/low")
    outside = np.flatnonzero(~(((low >= 0.0) & (low <= 1.0)) | (low == NO_CONFIDENCE)))
    if len(outside):
        k = int(outside[0])
        raise bad(f"{pointer}/low/{k}", f"must be a confidence from 0 to 1 or -1, got {block['low'][k]!r}")
    if any(c > v for c, v in zip(block["correct"], block["values"])):
        k = next(k for k, (c, v) in enumerate(zip(block["correct"], block["values"])) if c > v)
        raise bad(f"{pointer}/correct/{k}", "must be at most the row's values")


PART = Part(KEY, new_store, state_of, merge_state, check_state, add_document, add_batch, None)
