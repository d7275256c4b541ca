"""The leaf roll-up of every node: stickler-eval's ``aggregate``.

Beside each object's and list of objects' own verdict, the counts of the leaf fields beneath it,
summed: for ``vendor`` = {name TP, city FD}, ``vendor`` is one FD and its roll-up TP 1, FD 1; the
document's roll-up sums every leaf (a micro-average over leaves).

Per document, as stickler-eval reckons it: a node that was opened (compared field by field: an
object present on both sides, a list with at least one item matched at its match threshold) adds
up its children's roll-ups; a node that was not opened (null on a side, no item matched) counts as
one leaf with its own verdicts. Items below the match threshold and unmatched items of a list that
has a match add nothing. A node is opened in a document exactly when some field beneath it has a
count there, so what a run needs beyond the per-field counts is, per node, its own counts from the
documents it was not opened in (``Accumulator.unopened``); everything else follows at report time
and adds up over documents, processes and merged states.
"""

from __future__ import annotations

from operator import add
from typing import TYPE_CHECKING, Any, Sequence

from ..engine.result import counts_by_field
from ..plan import Plan
from .part import Collect, Part
from .state_check import bad, check_array, check_counts, shown

if TYPE_CHECKING:
    from ..engine.batch import BatchResult
    from ..engine.result import DocResult

Node = tuple[int, int, int]  # (field index, lo, hi): tally[lo:hi] holds the counts of every field beneath it


def nodes(plan: Plan) -> list[Node]:
    """The objects and lists of objects that have fields beneath them (the compiler numbers fields depth
    first, so a subtree's counts are consecutive in a flat tally)."""
    out = []
    for f in plan.fields:
        below = [g.index for g in f.model.walk()] if f.model is not None else []
        if below:
            if below != list(range(f.index + 1, f.index + 1 + len(below))):
                raise AssertionError(f"the fields beneath {f.path} are not numbered consecutively")
            out.append((f.index, 5 * below[0], 5 * (below[-1] + 1)))
    return out


def add_unopened(unopened: list[int], tally: Sequence[int], found: list[Node]) -> None:
    """Add one document's flat ``tally`` to ``unopened``: each node's own counts where nothing beneath it counted."""
    for i, lo, hi in found:
        if not any(tally[lo:hi]):
            for k in range(5 * i, 5 * i + 5):
                unopened[k] += tally[k]


def add_unopened_batch(unopened: list[int], tally, found: list[Node]) -> None:
    """``add_unopened`` for every row of a batch's (documents × 5·fields) numpy tally."""
    for i, lo, hi in found:
        closed = ~tally[:, lo:hi].any(axis=1)
        if closed.any():
            own = tally[closed, 5 * i : 5 * i + 5].sum(axis=0).tolist()
            for k in range(5):
                unopened[5 * i + k] += own[k]


def roll_up(tally: Sequence[int], unopened: Sequence[int], found: list[Node]) -> tuple[list[int], dict[int, list[int]]]:
    """([tp, fa, fd, fn, tn] of the document, {node's field index: its roll-up}) from flat per-field counts
    and the nodes' ``unopened`` counts (of a run, or of one document)."""
    leaf = list(tally)
    for i, _, _ in found:
        leaf[5 * i : 5 * i + 5] = unopened[5 * i : 5 * i + 5]
    by_node = {i: [leaf[5 * i + k] + sum(leaf[lo + k : hi : 5]) for k in range(5)] for i, lo, hi in found}
    document = [sum(leaf[k::5]) for k in range(5)]
    return document, by_node


def of_document(tally: Sequence[int], found: list[Node]) -> tuple[list[int], dict[int, list[int]]]:
    """The roll-ups of one document from its flat tally."""
    unopened = [0] * len(tally)
    add_unopened(unopened, tally, found)
    return roll_up(tally, unopened, found)


# -- the part of the accumulated state (analyses/part.py) ----------------------------------------------------------


class Unopened:
    """Per object / list of objects, its own counts from the documents it was not opened in (nothing beneath
    it counted: null on a side, no list item matched), flat like a tally: what the roll-up needs beyond the
    counts."""

    def __init__(self, plan: Plan) -> None:
        self.nodes = nodes(plan)
        self.counts = [0] * (5 * len(plan.fields))


def new_store(plan: Plan, collect: Collect) -> Unopened:
    return Unopened(plan)


def add_document(store: Unopened, doc: DocResult, doc_id: Any) -> None:
    add_unopened(store.counts, doc.tally, store.nodes)


def add_batch(store: Unopened, batch: BatchResult, doc_ids: Sequence[Any] | None) -> None:
    add_unopened_batch(store.counts, batch.tally, store.nodes)


def state_of(store: Unopened, as_arrays: bool) -> dict[str, Any]:
    return {"unopened": counts_by_field(store.counts)}


def merge_state(store: Unopened, state: dict[str, Any], offset: int) -> None:
    store.counts = list(map(add, store.counts, (c for field in state["unopened"] for c in field)))


def check_state(state: dict[str, Any], plan: Plan) -> None:
    """A state's ``unopened``: each object's (list of objects') counts from the documents it was not opened in,
    part of its own counts, and none for a field with nothing beneath it."""
    rows, counts = state["unopened"], state["counts"]
    opened = {i for i, _, _ in nodes(plan)}
    for k, row in enumerate(check_array(rows, "/unopened", len(counts))):
        check_counts(row, f"/unopened/{k}", 5)
        if k not in opened and any(row):
            raise bad(f"/unopened/{k}", f"must be all zeros: {plan.fields[k].path!r} has no fields beneath it")
        if any(a > b for a, b in zip(row, counts[k])):
            raise bad(f"/unopened/{k}", f"cannot exceed the field's counts {counts[k]}, got {shown(row)}")


PART = Part("rollup", new_store, state_of, merge_state, check_state, add_document, add_batch)
