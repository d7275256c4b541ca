"""Scoring on several processes: chunks of pairs out, accumulator states back.

The parent reads and pairs the records (cheap) and sends chunks of pairs to a
pool of processes, which score them (costly) and answer with the mergeable
state of each chunk. States are merged in input order, so counts equal a
single process's and float sums agree to rounding. Workers rebuild the plan
from the schema, so comparators holding models, locks or sockets are never
pickled; they are forked (fast to start) unless the plan has model-backed
comparators, whose threads must not be forked: then they are spawned.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import sys
import threading
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from .accumulate import Accumulator
from ..engine import Engine
from ..errors import SticklerError
from ..plan import Plan
from .judge_first import Answers, adopt_answers
from .options import RunOptions, for_plan
from .reader import ALIGNMENT_BLOCK, Pairing, PairingStats, check_alignment, line_pairs, pair_lines
from .scoring import add_pairing_stats, read_pairs, score_pairs
from .shards import Shard

CHUNK_SIZE = 500  # pairs per task: large enough to amortise pickling and merging, small enough to balance
# Paired by line, a chunk must hold whole blocks of lines for the out-of-step check to find what one process finds.
assert CHUNK_SIZE % ALIGNMENT_BLOCK == 0


@dataclass(frozen=True)
class PlanSource:
    """What another process needs to rebuild a plan: the schema (and the documents read with it), its hash
    and the plugins to import. The bounds and LLM settings it is compiled under are the run's
    (``RunOptions.install``, once per process, before it is built)."""

    schema: dict
    source: str
    sha256: str
    plugins: tuple[str, ...] = ()
    resources: Any = None  # URI -> document: what the schema's references name beyond it (Plan.resources)
    assert_formats: bool = False  # --assert-formats

    @classmethod
    def of(cls, plan: Plan, plugins: Sequence[str] = ()) -> "PlanSource":
        return cls(plan.schema, plan.source, plan.sha256, tuple(plugins), plan.resources, plan.assert_formats)

    def build(self) -> Plan:
        from ..comparators.plugins import load_module
        from ..schema import compile_schema

        for spec in self.plugins:
            load_module(spec)
        return compile_schema(
            self.schema,
            source=self.source,
            sha256=self.sha256,
            resources=self.resources,
            assert_formats=self.assert_formats,
        )


_worker: tuple[Engine, Plan, Pairing] | None = None  # this pool worker's engine, plan and the run's pairing
_built: dict[str, tuple[Engine, Plan]] = {}


def _key(source: PlanSource, llm: Any = None, judge_pairing: str = "full") -> str:
    return (
        source.sha256
        + "\0"
        + "\0".join(source.plugins)
        + "\0"
        + repr(llm)
        + "\0"
        + str(source.assert_formats)
        + "\0"
        + judge_pairing
    )


def built(source: PlanSource, llm: Any = None, judge_pairing: str = "full") -> tuple[Engine, Plan]:
    """This thread's engine for ``source`` under the LLM settings ``llm`` (installed) and ``--judge-pairing``,
    built on first use (workers score many chunks).

    Per thread: an engine keeps the batch it is scoring, and Dask may run tasks in threads.
    """
    key = f"{_key(source, llm, judge_pairing)}\0{threading.get_ident()}"
    if key not in _built:
        plan = source.build()
        _built[key] = (Engine(plan, judge_pairing), plan)
    return _built[key]


# Records nest up to 1,024 levels (the reader refuses deeper ones), and pickle counts about two levels of Python's
# recursion for each, so at the default limit of 1,000 a record nested 500 deep could not be sent to a worker or
# come back in its state (RecursionError, exit 3). Pickling this deep takes well under the C stack's 8 MB.
PICKLE_RECURSION = 4_000


def _allow_deep_pickling() -> int:
    """Python's recursion limit raised to PICKLE_RECURSION (never lowered); the limit it was."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, PICKLE_RECURSION))
    return before


@contextlib.contextmanager
def _pickle_depth() -> Iterator[None]:
    """``_allow_deep_pickling`` while records go to workers and come back, in the parent."""
    before = _allow_deep_pickling()
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def _init_worker(source: PlanSource, options: RunOptions, parent: int, answers: Answers | None = None) -> None:
    """A pool worker's start: the run's options installed once (limits, LLM settings), then its plan built,
    its judges given the answers the parent got (run/judge_first.py)."""
    from .interrupts import in_worker

    global _worker
    in_worker(parent)  # signals are the parent's to handle; end with it
    _allow_deep_pickling()  # its states are pickled
    options.install()
    engine, plan = built(source, options.llm, options.judge_pairing)
    adopt_answers(plan, answers)
    _worker = engine, plan, for_plan(options.pairing, plan)


def _score_chunk(chunk: list, shard: Shard, options: RunOptions, full: frozenset[int] = frozenset()) -> dict[str, Any]:
    """Score one chunk: raw line pairs (parsed and paired here) or, paired by id, ready pairs. ``full``: the
    fields whose sample of failing comparisons the chunks before this one filled (none is explained for them)."""
    assert _worker is not None, "worker not initialised"
    engine, plan, pairing = _worker
    acc = Accumulator(plan, options.collect)
    acc.close_fields(full)
    if pairing.id_field:
        score_pairs(engine, acc, chunk, shard)
    else:
        stats = PairingStats()
        # Out-of-step pairs are counted here; the parent stops the run on the count over every chunk.
        pairs = pair_lines(chunk, shard.ground_truth, shard.predictions, stats, pairing, stop_out_of_step=False)
        score_pairs(engine, acc, pairs, shard)
        add_pairing_stats(acc, stats)
    return acc.get_state(with_schema=False, as_arrays=True)


def _chunks(shards: Sequence[Shard], stats: PairingStats, pairing: Pairing) -> Iterator[tuple[list, Shard]]:
    """Chunks of work in input order. Pairing by line sends raw lines, so the parent
    only splits lines and the workers do all the parsing; pairing by id needs the
    parent to parse (to find each prediction), so it sends paired records."""
    for shard in shards:
        items: Iterator[Any]
        if pairing.id_field:
            items = read_pairs(shard, stats, pairing)
        else:
            items = line_pairs(shard.ground_truth, shard.predictions, stats)
        chunk: list = []
        for item in items:
            chunk.append(item)
            if len(chunk) == CHUNK_SIZE:
                yield chunk, shard
                chunk = []
        if chunk:
            yield chunk, shard


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _start_method(engine: Engine) -> str:
    """``fork`` where it is safe and available (workers start at once, with this process's
    imports, plan and registered comparators); ``spawn`` when a comparator may hold model
    threads or sockets, which must not be forked."""
    if engine.model_backed or "fork" not in multiprocessing.get_all_start_methods():
        return "spawn"
    return "fork"


def score_in_pool(
    plan: Plan,
    shards: Sequence[Shard],
    acc: Accumulator,
    options: RunOptions,
    progress: Callable[[int, int], None] | None = None,
    answers: Answers | None = None,
) -> None:
    """Score every shard's pairs into ``acc`` on ``options.workers`` processes, each given ``options`` whole
    (and ``answers``, the judges' answers the parent got first: run/judge_first.py).

    At most ``4 * workers`` chunks are in flight, so memory stays flat however
    long the input. An error in the reader (bad ground truth) or in a worker
    (a comparator that cannot start) stops the run and is raised here.
    """
    options = options.shipped()
    source = PlanSource.of(plan, options.plugins)
    pairing = for_plan(options.pairing, plan)
    workers = options.workers
    engine = _built.setdefault(
        _key(source, options.llm, options.judge_pairing), (Engine(plan, options.judge_pairing), plan)
    )[0]  # forked workers inherit it
    stats = PairingStats()  # pairing by id counts here; by line, the workers count
    context = multiprocessing.get_context(_start_method(engine))
    pending: deque[Future] = deque()
    chunks = _chunks(shards, stats, pairing)
    first = list(itertools.islice(chunks, workers))  # read ahead: no more processes than chunks of work
    workers = max(1, len(first))
    with (
        _pickle_depth(),
        ProcessPoolExecutor(
            workers, mp_context=context, initializer=_init_worker, initargs=(source, options, os.getpid(), answers)
        ) as pool,
    ):
        try:
            for chunk, shard in itertools.chain(first, chunks):
                pending.append(pool.submit(_score_chunk, chunk, shard, options, acc.full_fields()))
                while len(pending) >= 4 * workers or (pending and pending[0].done()):
                    acc.merge_state(pending.popleft().result())
                    check_alignment(acc.stats, acc.errors)
                    if progress is not None:
                        progress(acc.document_count, stats.gt_bytes_read)
            while pending:
                acc.merge_state(pending.popleft().result())
                check_alignment(acc.stats, acc.errors)
                if progress is not None:
                    progress(acc.document_count, stats.gt_bytes_read)
        except BrokenProcessPool:  # a worker killed from outside (the out-of-memory killer, kill -9)
            _stop_workers(pool)
            raise SticklerError(
                "a worker process ended before finishing its work (killed from outside: out of "
                f"memory?); nothing was reported: run again with fewer --workers than {workers}"
            ) from None
        except BaseException:  # an input error, a worker's error, an interrupt: nothing more is wanted
            _stop_workers(pool)  # the chunks still pending fail with the pool (cancelled, Python 3.11 would complain)
            raise
    add_pairing_stats(acc, stats)


STOP_SECONDS = 5.0  # how long a worker is given to end on SIGTERM before it is killed


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool's processes now, rather than let the chunks in flight finish (minutes, with
    a slow comparator); the pool's shutdown then finds them ended."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public handle before 3.14
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(STOP_SECONDS)
            if process.is_alive():
                process.kill()
                process.join(STOP_SECONDS)
