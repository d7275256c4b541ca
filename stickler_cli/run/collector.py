"""The cyclic garbage collector held back while documents are scored.

Scoring allocates and frees many short-lived containers (parsed records, per-list findings) that
reference counting alone frees: none of them forms a cycle. CPython's collector still walks them,
and every so often walks the whole heap, where the imported modules (numpy, scipy, rich) and the
compiled plan are tens of thousands of objects that will live as long as the process. Measured on
``make bench`` case 1, that walking was ~16% of a run's time (docs/performance.md, "The garbage
collector").

So, while a run scores, the objects that existed before it are frozen (``gc.freeze``: left out of
every collection, as CPython's documentation suggests for long-lived state) and the youngest
generation is collected every ``YOUNG`` allocations rather than every 700. Cycles made during the run
are still collected. Both are undone when the run ends, and nothing is done when the caller has
frozen objects itself or switched the collector off: that is their policy, not ours.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

YOUNG = 10_000  # allocations between collections of the youngest generation while scoring (CPython: 700)


@contextmanager
def held_back() -> Iterator[None]:
    """Freeze what exists and collect the young less often for the duration of the block."""
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(threshold[0], YOUNG), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()
