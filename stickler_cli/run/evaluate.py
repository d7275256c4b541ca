"""Run an evaluation: pairs in, accumulated state out. No printing, no files written."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from .accumulate import Accumulator, Collect
from .collector import held_back
from ..confidence import ConfidenceMetric
from ..engine import Engine
from ..plan import Plan
from .reader import DataError, Pair, Pairing, PairingStats, blank_lines, check_pairing_outcome, ground_truth_lines
# The loop every process runs (scoring.py), below this module, the process pool and Dask.
from .scoring import BATCH, _analyse, _chunks, add_pairing_stats, read_pairs, score_pairs, score_shard
from .shards import Shard

__all__ = [
    "BATCH", "Evaluation", "Progress", "add_pairing_stats", "evaluate_files", "evaluate_pairs", "evaluate_two",
    "pairing_for", "read_pairs", "score_pairs", "score_shard",
]


@dataclass
class Evaluation:
    """The outcome of a run: the accumulator plus where the data came from."""

    plan: Plan
    accumulator: Accumulator
    inputs: dict[str, Any] = field(default_factory=dict)
    elapsed_seconds: float = 0.0
    confidence_metrics: list[ConfidenceMetric] | None = None  # None: all four built-ins
    ci_level: float | None = None  # bootstrap intervals at this level (needs Collect(documents=True))
    bootstrap: int = 1000  # resamples
    seed: int = 0
    iou_thresholds: tuple[float, ...] | None = None  # localisation mAP; None: COCO's 0.50:0.95
    box_rule: str = "value-and-iou"  # when a predicted box counts as found (localisation.RULES)
    slice_fdr: float = 0.05  # --fdr: the false-discovery rate at which slices are found worse (slice_stats.py)


def evaluate_pairs(plan: Plan, pairs: Iterable[tuple[dict, dict]], analysis: Collect = Collect()) -> Accumulator:
    """Score an iterable of (ground truth, prediction) dicts: the Python API's bulk entry."""
    engine = Engine(plan)
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
                for message in scored.errors.get(d, ()):
                    acc.add_error(DataError("<predictions>", None, None, message))
                if d in scored.list_errors:
                    acc.add_list_errors(scored.list_errors[d], f"pair {k}", first + d)
                _analyse(engine, acc, scored, d, first + d, f"pair {k}", gt, pred, k, k)
    return acc


def pairing_for(plan: Plan, id_field: str | None = None, strict: bool = False, pair_by_line: bool = False,
                check_ids: Sequence[str] | None = None) -> Pairing:
    """The pairing the user asked for: by ``id_field``; else by line, checked against the
    document ids ``check_ids`` (default ``reader.ID_FIELDS``) unless ``pair_by_line``."""
    scored = frozenset(f.key for f in plan.root.fields)
    if pair_by_line:
        return Pairing(id_field, strict, None, scored=scored)
    if check_ids:
        return Pairing(id_field, strict, tuple(check_ids), user_named=True, scored=scored)
    return Pairing(id_field, strict, scored=scored)


def evaluate_two(plan: Plan, gt_path: str, pred_a: str, pred_b: str, id_field: str | None = None,
                 strict: bool = False, analysis: Collect = Collect(),
                 pairing: Pairing | None = None) -> tuple[Evaluation, Evaluation]:
    """Score two prediction sets against one ground truth in one pass over it (``stickler diff``).

    The ground truth is read once and each of its lines handed to both pairings; the two sides
    are scored a batch at a time in turn, so the lines waiting for the slower side stay few.
    """
    started = time.perf_counter()
    pairing = pairing or pairing_for(plan, id_field, strict)
    engine = Engine(plan)
    stats = (PairingStats(), PairingStats())
    accs = (Accumulator(plan, analysis), Accumulator(plan, analysis))
    shared = itertools.tee(_blank_runs(ground_truth_lines(gt_path, stats[0])), 2)
    streams = [read_pairs(Shard(gt_path, pred), side_stats, pairing, _lines_of(lines))
               for pred, side_stats, lines in zip((pred_a, pred_b), stats, shared)]
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
    return tuple(Evaluation(plan, acc, {"ground_truth": gt_path, "predictions": pred, "id_field": id_field}, elapsed)
                 for acc, pred in zip(accs, (pred_a, pred_b)))  # type: ignore[return-value]


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
    id_field: str | None = None,
    strict: bool = False,
    workers: int = 1,
    plugins: Sequence[str] = (),
    progress: Progress | None = None,
    dask: str | None = None,
    analysis: Collect = Collect(),
    sinks: dict[str, Callable[[list[dict]], None]] | None = None,
    pair_by_line: bool = False,
    check_ids: Sequence[str] | None = None,
) -> Evaluation:
    """Stream JSONL files (one pair, or a list of shards) through the engine.

    With ``workers`` > 1 the pairs are scored by a pool of processes, each
    rebuilding the plan from the schema (and ``plugins``, imported by name),
    and their states are merged in input order. With ``dask`` (a scheduler
    address, or "local" for a cluster of ``workers`` processes) each shard is
    a Dask task. ``analysis`` says what to keep for error analysis; non-matching
    comparisons and per-document lines go to ``sinks`` as they are found (in input order).
    Paired by line, the files are checked for being out of step (``pairing_for``).
    """
    started = time.perf_counter()
    pairing = pairing_for(plan, id_field, strict, pair_by_line, check_ids)
    shards = [Shard(gt_path, pred_path or "")] if isinstance(gt_path, str) else list(gt_path)
    acc = Accumulator(plan, analysis)
    acc.sinks = dict(sinks or {})
    inputs: dict[str, Any] = {"ground_truth": [s.ground_truth for s in shards],
                              "predictions": [s.predictions for s in shards], "id_field": id_field}
    if len(shards) == 1:
        inputs.update(ground_truth=shards[0].ground_truth, predictions=shards[0].predictions)
    if dask:
        from .distributed import score_on_dask

        score_on_dask(plan, shards, dask, acc, pairing, plugins, workers)
        inputs["dask"] = dask
    elif workers > 1:
        from .parallel import score_in_pool

        score_in_pool(plan, plugins, shards, acc, workers, pairing, progress)
    else:
        engine = Engine(plan)
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
