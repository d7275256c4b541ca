"""Scoring paired records into an accumulator: the loop every process runs.

One process (evaluate.py), each worker of the process pool (parallel.py) and each Dask task
(distributed.py) read pairs and score them with these functions. The arrows run one way:
evaluate -> parallel, distributed -> scoring -> engine, accumulate, reader; nothing here
imports the modules above it.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from .accumulate import ROWS_NON_MATCHES, ROWS_PER_DOCUMENT, Accumulator
from .analysis import document_key, document_row, has_misses, non_match_rows
from .engine import Engine
from .reader import COUNTED, DataError, Pair, Pairing, PairingStats, pair_by_id, pair_by_line
from .shards import Shard

BATCH = 256  # documents read ahead, so that list items and model-backed comparators are scored a batch at a time


def _batched(items: Iterable[Any], engine: Engine, docs_of) -> Iterator[Any]:
    """Yield ``items`` unchanged, a batch at a time after ``engine.prepare``.

    ``docs_of(batch)`` gives the (gt, pred) dicts of a batch. When the plan
    has nothing to prepare, the stream is passed straight through (no read-ahead).
    """
    if not engine.prepares:
        yield from items
        return
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) == BATCH:
            engine.prepare(docs_of(batch))
            yield from batch
            batch = []
    if batch:
        engine.prepare(docs_of(batch))
        yield from batch


def _add(engine: Engine, acc: Accumulator, doc, doc_id: str, gt: dict, pred: dict, gt_line: int,
         pred_line: int | None, shard: Shard | None = None) -> None:
    """Add a scored document, keeping it whole if it is among the worst, explaining its misses if asked for
    (``--non-matches``) or while a field it fails on has room in its sample of failing comparisons."""
    acc.add(doc)
    if acc.analysis.documents:
        acc.document_keys.append(document_key(gt))
    if acc.is_among_worst(doc.score):
        acc.keep_worst(doc.score, {"doc_id": doc_id, **_lines(shard, gt_line, pred_line), "gt": gt, "pred": pred})
    lines = acc.analysis.non_matches and has_misses(doc.tally)
    sample = acc.wants_failures(doc.tally)
    if lines or sample:  # explained once for both
        rows = non_match_rows(engine, doc_id, gt, pred)
        if lines:
            acc.add_lines(ROWS_NON_MATCHES, rows)
        if sample:
            acc.keep_failures(rows)
    if acc.analysis.per_document:
        acc.add_lines(ROWS_PER_DOCUMENT, [document_row(acc.plan, doc, doc_id, _lines(shard, gt_line, pred_line))])


def _lines(shard: Shard | None, gt_line: int, pred_line: int | None) -> dict[str, Any]:
    """Where a document is: its lines and their files (of several shards, the line alone says little)."""
    return {"gt_source": shard.ground_truth if shard else None, "gt_line": gt_line,
            "pred_source": shard.predictions if shard else None, "pred_line": pred_line}


def score_pairs(engine: Engine, acc: Accumulator, pairs: Iterable[Pair], shard: Shard) -> None:
    """Score paired records of one shard into ``acc``: the loop every process runs, serial or not."""
    pred_path = shard.predictions
    docs_of = lambda batch: [(p.gt, p.pred) for p in batch if p.gt is not None]  # noqa: E731
    conformance = engine.conformance
    for pair in _batched(pairs, engine, docs_of):
        for error in pair.errors:
            acc.add_error(error)
        if pair.pred_read:
            acc.add_conformance(conformance.violations(pair.pred))
            for message in conformance.take_messages():  # a pattern that ran out of time, a record too deep
                acc.add_error(DataError(pred_path, pair.pred_line, pair.doc_id, message))
        if pair.gt is None:
            continue
        doc = engine.compare(pair.gt, pair.pred)
        for message in doc.errors:
            acc.add_error(DataError(pred_path, pair.pred_line, pair.doc_id, message))
        _add(engine, acc, doc, pair.doc_id, pair.gt, pair.pred, pair.gt_line, pair.pred_line, shard)


def read_pairs(shard: Shard, stats: PairingStats, pairing: Pairing, gt_lines: Iterator | None = None) -> Iterator[Pair]:
    if pairing.id_field:
        return pair_by_id(shard.ground_truth, shard.predictions, stats, pairing, gt_lines)
    return pair_by_line(shard.ground_truth, shard.predictions, stats, pairing, gt_lines)


def add_pairing_stats(acc: Accumulator, stats: PairingStats) -> None:
    for key in COUNTED:
        acc.stats[key] += getattr(stats, key)


def score_shard(engine: Engine, acc: Accumulator, shard: Shard, pairing: Pairing = Pairing()) -> None:
    """Read one shard pair and score all of it into ``acc`` (one process)."""
    stats = PairingStats()
    score_pairs(engine, acc, read_pairs(shard, stats, pairing), shard)
    add_pairing_stats(acc, stats)
