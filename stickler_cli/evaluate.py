"""Run an evaluation: pairs in, accumulated state out. No printing, no files written."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from .accumulate import Accumulator
from .confidence import ConfidenceMetric
from .engine import Engine
from .plan import Plan
from .reader import DataError, PairingStats, pair_by_id, pair_by_line


@dataclass
class Evaluation:
    """The outcome of a run: the accumulator plus where the data came from."""

    plan: Plan
    accumulator: Accumulator
    inputs: dict[str, Any] = field(default_factory=dict)
    elapsed_seconds: float = 0.0
    confidence_metrics: list[ConfidenceMetric] | None = None  # None: all four built-ins


PREFETCH_BATCH = 256  # documents read ahead when model-backed comparators batch their calls


def _batched(items: Iterable[Any], engine: Engine, docs_of) -> Iterator[Any]:
    """Yield ``items`` unchanged; with model-backed comparators, a batch at a time after prefetching.

    ``docs_of(batch)`` gives the (gt, pred) dicts of a batch. Without such
    comparators the stream is passed straight through (no read-ahead).
    """
    if not engine.prefetches:
        yield from items
        return
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == PREFETCH_BATCH:
            engine.prefetch(docs_of(batch))
            yield from batch
            batch = []
    if batch:
        engine.prefetch(docs_of(batch))
        yield from batch


def evaluate_pairs(plan: Plan, pairs: Iterable[tuple[dict, dict]]) -> Accumulator:
    """Score an iterable of (ground truth, prediction) dicts: the Python API's bulk entry."""
    engine = Engine(plan)
    acc = Accumulator(plan)
    for gt, pred in _batched(pairs, engine, list):
        doc = engine.compare(gt, pred)
        for message in doc.errors:
            acc.add_error(DataError("<predictions>", None, None, message))
        acc.add(doc)
    return acc


def evaluate_files(
    plan: Plan,
    gt_path: str,
    pred_path: str,
    id_field: str | None = None,
    strict: bool = False,
) -> Evaluation:
    """Stream two JSONL files through the engine."""
    started = time.perf_counter()
    engine = Engine(plan)
    acc = Accumulator(plan)
    stats = PairingStats()
    if id_field:
        pairs = pair_by_id(gt_path, pred_path, id_field, stats, strict)
    else:
        pairs = pair_by_line(gt_path, pred_path, stats, strict)
    invalid = 0
    for pair in _batched(pairs, engine, lambda batch: [(p.gt, p.pred) for p in batch if p.gt is not None]):
        for error in pair.errors:
            acc.add_error(error)
        if pair.gt is None:
            continue
        invalid += pair.pred_invalid
        doc = engine.compare(pair.gt, pair.pred)
        for message in doc.errors:
            acc.add_error(DataError(pred_path, pair.pred_line, pair.doc_id, message))
        acc.add(doc)
    acc.stats.update(
        gt_lines=stats.gt_lines,
        pred_lines=stats.pred_lines,
        paired=stats.paired,
        unpaired_predictions=stats.unpaired_predictions,
        missing_predictions=stats.missing_predictions,
        invalid_predictions=invalid,
    )
    inputs = {"ground_truth": gt_path, "predictions": pred_path, "id_field": id_field}
    return Evaluation(plan, acc, inputs, time.perf_counter() - started)


