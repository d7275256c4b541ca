"""Several acceptable values: how many ground-truth values list ``_alternatives``, and how many of them an
alternative decided (docs/ground-truth.md).

The engine hands over, per document, one ``(field index, decided by an alternative)`` for each compared
ground-truth value that lists acceptable values (``DocResult.alternatives`` / ``BatchResult.alternatives``).
The counts are kept per field path and in total, with the documents holding any; they add up over batches,
processes and merged states (a merge adds another run's documents, never the same ones twice:
run/state_file.check_overlap refuses states that share a document).

A run whose ground truth lists no alternative keeps no state key and no report block: its state and reports
are as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..plan import Plan
from ..schema.keywords import escape as token
from .part import Collect, Part
from .state_check import bad, check_array, check_count, check_object

if TYPE_CHECKING:
    from ..engine.batch import BatchResult
    from ..engine.result import DocResult

KEY = "alternatives"
TOTALS = ("documents", "values", "decided_by_alternative")


class Alternatives:
    """The documents holding values with ``_alternatives``, and per field path ``[values, decided]``."""

    def __init__(self, plan: Plan) -> None:
        self.paths = [f.path for f in plan.fields]
        self.documents = 0
        self.fields: dict[str, list[int]] = {}

    def add(self, found: list[tuple[int, bool]] | None) -> None:
        if not found:
            return
        self.documents += 1
        paths, fields = self.paths, self.fields
        for index, decided in found:
            kept = fields.get(paths[index])
            if kept is None:
                kept = fields[paths[index]] = [0, 0]
            kept[0] += 1
            kept[1] += decided

    @property
    def values(self) -> int:
        return sum(kept[0] for kept in self.fields.values())

    @property
    def decided(self) -> int:
        return sum(kept[1] for kept in self.fields.values())


def new_store(plan: Plan, collect: Collect) -> Alternatives:
    return Alternatives(plan)


def add_document(store: Alternatives, doc: DocResult, doc_id: Any) -> None:
    store.add(doc.alternatives)


def add_batch(store: Alternatives, batch: BatchResult, doc_ids: Sequence[Any] | None) -> None:
    for d in sorted(batch.alternatives):
        store.add(batch.alternatives[d])


def _in_plan_order(store: Alternatives) -> list[str]:
    return [path for path in store.paths if path in store.fields]


def state_of(store: Alternatives, as_arrays: bool) -> dict[str, Any]:
    """``{"alternatives": {"documents": n, "fields": {path: [values, decided_by_alternative]}}}``; nothing when no
    ground-truth value listed alternatives."""
    if not store.documents:
        return {}
    fields = {path: list(store.fields[path]) for path in _in_plan_order(store)}
    return {KEY: {"documents": store.documents, "fields": fields}}


def merge_state(store: Alternatives, state: dict[str, Any], offset: int) -> None:
    given = state.get(KEY)
    if not given:
        return
    store.documents += given["documents"]
    for path, (values, decided) in given["fields"].items():
        kept = store.fields.setdefault(path, [0, 0])
        kept[0] += values
        kept[1] += decided


def check_state(state: dict[str, Any], plan: Plan) -> None:
    if KEY not in state:
        return
    given = check_object(state[KEY], f"/{KEY}", ("documents", "fields"))
    documents = check_count(given["documents"], f"/{KEY}/documents")
    fields = check_object(given["fields"], f"/{KEY}/fields")
    known = {f.path for f in plan.fields}
    values = 0
    for path, counts in fields.items():
        pointer = f"/{KEY}/fields/{token(path)}"
        if path not in known:
            raise bad(pointer, "is no field of the schema")
        pair = check_array(counts, pointer, 2)
        check_count(pair[0], f"{pointer}/0")
        check_count(pair[1], f"{pointer}/1")
        if pair[1] > pair[0]:
            raise bad(f"{pointer}/1", f"must be at most the values counted ({pair[0]}), got {pair[1]}")
        values += pair[0]
    most = min(values, state["document_count"])
    if not 1 <= documents <= most:
        raise bad(
            f"/{KEY}/documents", f"must be from 1 to {most} (the values and the documents counted), got {documents}"
        )


def report_of(store: Alternatives, context: Any) -> dict[str, Any]:
    """``{"alternatives": {"documents": n, "values": n, "decided_by_alternative": n, "fields": {path: {"values": n,
    "decided_by_alternative": n}}}}``, only when some ground-truth value listed alternatives."""
    if not store.documents:
        return {}
    fields = {
        path: {"values": store.fields[path][0], "decided_by_alternative": store.fields[path][1]}
        for path in _in_plan_order(store)
    }
    return {
        KEY: {
            "documents": store.documents,
            "values": store.values,
            "decided_by_alternative": store.decided,
            "fields": fields,
        }
    }


PART = Part(KEY, new_store, state_of, merge_state, check_state, add_document, add_batch, report_of)
