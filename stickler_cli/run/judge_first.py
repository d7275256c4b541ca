"""A run on several processes asks its judges first, in the parent: one request per distinct pair per run,
and ``--limit judge-calls`` bounding the run, not each process.

Each process of a pool (``--workers``) or a Dask task would otherwise keep its own memory of the pairs it
asked, and its own count of requests: a pair met in two processes was asked twice, and a bound of N let
each process send N. So before the work is shared out, the parent reads the inputs as the run reads them
(the same reader and pairing), walks each batch as the engine's prefetch does and asks every judged
field's questions (engine/prefetch.py, ``Comparator.prefetch``: identical values skipped, each question
once, the answer cache read, the bound checked before a request is sent). The bill is the parent's; the
answers travel to every worker (``Comparator.adopt``), which answers from them and bills nothing the
parent billed. A run in one process does none of this: it asks as it scores.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..engine import Engine
from ..plan import Plan
from .accumulate import Accumulator
from .options import RunOptions, for_plan
from .reader import PairingStats
from .scoring import adopted_batches, read_pairs
from .shards import Shard

Answers = dict[int, dict[str, Any]]  # field index -> the field's answers (question key -> outcome)


def ask_first(plan: Plan, shards: Sequence[Shard], acc: Accumulator, options: RunOptions) -> Answers | None:
    """Put every judged question of the run, in this process, before it is shared out; the bill goes to
    ``acc``. The answers by field, for the workers (``adopt_answers``); None when no field keeps a bill."""
    fields = plan.judged_fields()
    if not fields:
        return None
    engine = Engine(plan, options.judge_pairing)
    pairing = for_plan(options.pairing, plan)
    for shard in shards:
        # the batches the run scores, read as it reads them (it counts their records, not this reading)
        for batch in adopted_batches(plan.root, read_pairs(shard, PairingStats(), pairing)):
            engine.prefetch([(p.gt, p.pred) for p in batch if p.gt is not None])
            acc.judge.add({f.index: bill for f in fields if (bill := f.comparator.drain_bill()) is not None})
    return {f.index: f.comparator.answers() for f in fields}


def adopt_answers(plan: Plan, answers: Answers | None) -> None:
    """A worker's judged comparators take the parent's answers (None: ask and bill as a single process does)."""
    for f in plan.judged_fields():
        f.comparator.adopt(None if answers is None else answers.get(f.index, {}))
