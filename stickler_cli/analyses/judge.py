"""The judges' bill: per judged field (an ``LLMComparator`` field), what its comparisons cost.

For each field whose comparator keeps a bill (``Comparator.bills``), the counts of
``comparators.base.BILL``: requests sent to the model (``asked``), questions answered from the answer
cache (``cached``), pairs of identical values scored 1.0 without a question (``identical``), pairs
whose question was already put in this process's run (``deduplicated``), and questions that got no
verdict (``failed``, scored 0.0). The engine hands them over on ``DocResult.judge`` /
``BatchResult.judge``; they add up over documents, processes and merged states
(docs/comparators/llm.md, "The bill").

A plan without a judged field keeps no state key and no report block: its state and reports are
as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..comparators.base import BILL
from ..plan import Plan
from .part import Collect, Part
from ..schema.keywords import escape as token
from .state_check import check_array, check_count, check_object

if TYPE_CHECKING:
    from ..engine.batch import BatchResult
    from ..engine.result import DocResult

KEY = "judge"


class Bill:
    """The judged fields' paths, in plan order, and their counts (``BILL`` order) by field index."""

    def __init__(self, plan: Plan) -> None:
        judged = plan.judged_fields()
        self.paths = {f.index: f.path for f in judged}
        self.counts: dict[int, list[int]] = {f.index: [0] * len(BILL) for f in judged}

    def add(self, judge: dict[int, list[int]] | None) -> None:
        for index, bill in (judge or {}).items():
            kept = self.counts.get(index)
            if kept is not None:
                kept[:] = [a + b for a, b in zip(kept, bill)]


def new_store(plan: Plan, collect: Collect) -> Bill:
    return Bill(plan)


def add_document(bill: Bill, doc: DocResult, doc_id: Any) -> None:
    bill.add(doc.judge)


def add_batch(bill: Bill, batch: BatchResult, doc_ids: Sequence[Any] | None) -> None:
    bill.add(batch.judge)


def state_of(bill: Bill, as_arrays: bool) -> dict[str, Any]:
    """``{"judge": {path: [asked, cached, identical, deduplicated, failed]}}``; nothing without a judged field."""
    if not bill.counts:
        return {}
    return {KEY: {bill.paths[i]: list(counts) for i, counts in bill.counts.items()}}


def merge_state(bill: Bill, state: dict[str, Any], offset: int) -> None:
    if bill.counts:
        by_path = {path: i for i, path in bill.paths.items()}
        bill.add({by_path[path]: counts for path, counts in state[KEY].items()})


def check_state(state: dict[str, Any], plan: Plan) -> None:
    paths = list(Bill(plan).paths.values())
    if not paths:
        return
    given = check_object(state[KEY], f"/{KEY}", paths)
    for path in paths:
        pointer = f"/{KEY}/{token(path)}"
        for k, value in enumerate(check_array(given[path], pointer, len(BILL))):
            check_count(value, f"{pointer}/{k}")


def report_of(bill: Bill, context: Any) -> dict[str, Any]:
    """``{"judge": {path: {"asked": n, "cached": n, "identical": n, "deduplicated": n, "failed": n}}}``,
    only when the plan has a judged field."""
    if not bill.counts:
        return {}
    return {KEY: {bill.paths[i]: dict(zip(BILL, counts)) for i, counts in bill.counts.items()}}


PART = Part(KEY, new_store, state_of, merge_state, check_state, add_document, add_batch, report_of)
