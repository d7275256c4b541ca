"""Run an evaluation: pairs in, accumulated state out. No printing, no files written.

A run's options (``RunOptions``: pairing, workers, Dask, plugins, limits, LLM settings, what to keep)
arrive whole and go whole to the pool (parallel.py) or to Dask (distributed.py). What the report makes
of the state (confidence metrics, intervals, ...) is not decided here: ``report.options.ReportOptions``.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from .accumulate import Accumulator, Collect
from .collector import held_back
from ..engine import Engine
from ..engine.result import GroundTruthProblem
from ..plan import Plan
from .options import RunOptions, for_plan
from .reader import DataError, Pair, PairingStats, blank_lines, check_pairing_outcome, ground_truth_lines

# The loop every process runs (scoring.py), below this module, the process pool and Dask.
from .scoring import BATCH, _analyse, _chunks, add_pairing_stats, read_pairs, score_pairs, score_shard
from .shards import Shard

__all__ = [
    "BATCH",
    "Evaluation",
    "Progress",
    "RunOptions",
    "add_pairing_stats",
    "evaluate_files",
    "evaluate_pairs",
    "evaluate_two",
    "read_pairs",
    "score_pairs",
    "score_shard",
]


@dataclass
class Evaluation:
    """The outcome of a run: the accumulator plus where the data came from (report.build makes the report
    of it, with the report's options)."""

    plan: Plan
    accumulator: Accumulator
    inputs: dict[str, Any] = field(default_factory=dict)
    elapsed_seconds: float = 0.0


def evaluate_pairs(
    plan: Plan, pairs: Iterable[tuple[dict, dict]], analysis: Collect = Collect(), judge_pairing: str = "full"
) -> Accumulator:
    """Score an iterable of (ground truth, prediction) dicts: the Python API's bulk entry."""
    engine = Engine(plan, judge_pairing)
    acc = Accumulator(plan, analysis)
    conformance = engine.conformance
    k = 0
    with held_back():  # collector.py
        for batch in _chunks(pairs):
            scored = engine.score_batch(batch)
            first = acc.document_count
            acc.add_batch(scored, [f"pair {k + d}" for d in range(1, len(batch) + 1)])
            if analysis.indexed:
                acc.index.add("<pairs>", [(gt, k + d) for d, (gt, _) in enumerate(batch, start=1)])
            acc.add_slices([gt for gt, _ in batch], scored)
            for d, (gt, pred) in enumerate(batch):
                k += 1
                for key in ("gt_lines", "pred_lines", "paired"):
                    acc.stats[key] += 1
                acc.add_conformance(conformance.violations(pred))
                for message in conformance.take_messages():  # a pattern that ran out of time, a record too deep
                    acc.add_error(DataError("<predictions>", None, None, message))
                for message in scored.errors.get(d, ()):  # each at the side it is in (engine.result.GroundTruthProblem)
                    side = "<ground truth>" if isinstance(message, GroundTruthProblem) else "<predictions>"
                    acc.add_error(DataError(side, None, None, message))
                if d in scored.list_errors:
                    acc.add_list_errors(scored.list_errors[d], f"pair {k}", first + d)
                _analyse(engine, acc, scored, d, first + d, Pair(f"pair {k}", gt, pred, k, k, []))
    return acc


def evaluate_two(
    plan: Plan, gt_path: str, pred_a: str, pred_b: str, options: RunOptions | None = None
) -> tuple[Evaluation, Evaluation]:
    """Score two prediction sets against one ground truth in one pass over it (``stickler diff``).

    The ground truth is read once and each of its lines handed to both pairings; the two sides
    are scored a batch at a time in turn, so the lines waiting for the slower side stay few.
    """
    started = time.perf_counter()
    options = options or RunOptions()
    pairing = for_plan(options.pairing, plan)
    engine = Engine(plan, options.judge_pairing)
    stats = (PairingStats(), PairingStats())
    accs = (Accumulator(plan, options.collect), Accumulator(plan, options.collect))
    shared = itertools.tee(_blank_runs(ground_truth_lines(gt_path, stats[0])), 2)
    streams = [
        read_pairs(Shard(gt_path, pred), side_stats, pairing, _lines_of(lines))
        for pred, side_stats, lines in zip((pred_a, pred_b), stats, shared)
    ]
    while True:
        chunks = [list(itertools.islice(stream, BATCH)) for stream in streams]
        if not any(chunks):
            break
        for acc, chunk, pred in zip(accs, chunks, (pred_a, pred_b)):
            score_pairs(engine, acc, chunk, Shard(gt_path, pred))
    elapsed = time.perf_counter() - started
    for acc, side_stats, pred in zip(accs, stats, (pred_a, pred_b)):
        add_pairing_stats(acc, side_stats)
        check_pairing_outcome(acc.stats, pairing, [pred])
    return tuple(
        Evaluation(
            plan,
            acc,
            {"ground_truth": gt_path, "predictions": pred, "id_field": pairing.id_field, **_judge_inputs(options)},
            elapsed,
        )
        for acc, pred in zip(accs, (pred_a, pred_b))
    )  # type: ignore[return-value]


def _judge_inputs(options: RunOptions) -> dict[str, str]:
    """What the report's ``inputs`` say of --judge-pairing: nothing for the default (full), else the mode, by which
    the report's worst documents are then explained too (report/build.py)."""
    return {} if options.judge_pairing == "full" else {"judge_pairing": options.judge_pairing}


class _BlankRun(tuple):
    """Consecutive blank ground-truth lines (first line number, how many), held as one item between the two sides
    of ``evaluate_two``: a batch of one side may read a million blank lines ahead of the other (which skips them as
    it does), and held line by line they took 1.6 GB for 15 million."""


def _blank_runs(lines: Iterator) -> Iterator:
    first = count = 0
    for line in lines:
        if type(line[2]) is bytes and not line[2]:
            first, count = (line[0], 1) if not count else (first, count + 1)
            continue
        if count:
            yield _BlankRun((first, count))
            count = 0
        yield line
    if count:
        yield _BlankRun((first, count))


def _lines_of(items: Iterator) -> Iterator:
    """``_blank_runs`` undone, lazily: each blank line in its place."""
    for item in items:
        if type(item) is _BlankRun:
            yield from blank_lines(*item)
        else:
            yield item


Progress = Callable[[int, int], None]  # (documents done, ground-truth bytes read)


def evaluate_files(
    plan: Plan,
    gt_path: str | Sequence[Shard],
    pred_path: str | None = None,
    options: RunOptions | None = None,
    progress: Progress | None = None,
    sinks: dict[str, Callable[[list[dict]], None]] | None = None,
) -> Evaluation:
    """Stream JSONL files (one pair, or a list of shards) through the engine, as ``options`` say.

    With ``options.workers`` > 1 the pairs are scored by a pool of processes, each rebuilding the plan
    from the schema (and the plugins, imported by name), and their states are merged in input order.
    With ``options.dask`` (a scheduler address, or "local" for a cluster of ``workers`` processes) each
    shard is a Dask task. ``options.collect`` says what to keep for error analysis; non-matching
    comparisons and per-document lines go to ``sinks`` as they are found (in input order). Paired by
    line, the files are checked for being out of step (``options.pairing``).
    """
    started = time.perf_counter()
    options = options or RunOptions()
    pairing = for_plan(options.pairing, plan)
    shards = [Shard(gt_path, pred_path or "")] if isinstance(gt_path, str) else list(gt_path)
    acc = Accumulator(plan, options.collect)
    acc.sinks = dict(sinks or {})
    inputs: dict[str, Any] = {
        "ground_truth": [s.ground_truth for s in shards],
        "predictions": [s.predictions for s in shards],
        "id_field": pairing.id_field,
    }
    inputs.update(_judge_inputs(options))
    if len(shards) == 1:
        inputs.update(ground_truth=shards[0].ground_truth, predictions=shards[0].predictions)
    answers = None
    if options.dask or options.workers > 1:  # one request per distinct pair per run, and one bound for the run
        from .judge_first import ask_first

        answers = ask_first(plan, shards, acc, options)
    if options.dask:
        from .distributed import score_on_dask

        score_on_dask(plan, shards, acc, options, answers)
        inputs["dask"] = options.dask
    elif options.workers > 1:
        from .parallel import score_in_pool

        score_in_pool(plan, shards, acc, options, progress, answers)
    else:
        engine = Engine(plan, options.judge_pairing)
        stats = PairingStats()  # shared: byte counts run on across shards
        for shard in shards:
            pairs = read_pairs(shard, stats, pairing)
            if progress is not None:
                pairs = _reporting(pairs, stats, acc, progress)
            score_pairs(engine, acc, pairs, shard)
        if progress is not None:  # the last batch is scored after the last pair was read
            progress(acc.document_count, stats.gt_bytes_read)
        add_pairing_stats(acc, stats)
    check_pairing_outcome(acc.stats, pairing, sorted({s.predictions for s in shards}))
    return Evaluation(plan, acc, inputs, time.perf_counter() - started)


def _reporting(pairs: Iterator[Pair], stats: PairingStats, acc: Accumulator, progress: Progress) -> Iterator[Pair]:
    """Pass pairs through, telling ``progress`` every 256 documents."""
    for k, pair in enumerate(pairs, start=1):
        yield pair
        if k % 256 == 0:
            progress(acc.document_count, stats.gt_bytes_read)
