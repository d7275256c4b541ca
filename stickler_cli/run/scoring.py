"""Scoring paired records into an accumulator: the loop every process runs.

One process (evaluate.py), each worker of the process pool (parallel.py) and each Dask task
(distributed.py) read pairs and score them with these functions. The arrows run one way:
evaluate -> parallel, distributed -> scoring -> engine, accumulate, reader; nothing here
imports the modules above it.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Iterator

from .accumulate import ROWS_NON_MATCHES, ROWS_PER_DOCUMENT, Accumulator
from ..analyses.failures import document_row, has_misses, non_match_rows, pairings
from .collector import held_back
from ..engine import Engine
from ..engine.batch import BatchResult
from ..engine.result import FA, FD, FN, GroundTruthProblem
from ..engine.values import adopt_older_shape
from .reader import COUNTED, DataError, Pair, Pairing, PairingStats, pair_by_id, pair_by_line
from .shards import Shard

BATCH = 256  # documents scored together (Engine.score_batch): one comparator call per field for all of them


def _chunks(items: Iterable[Any]) -> Iterator[list[Any]]:
    """``items`` in lists of BATCH."""
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, BATCH)):
        yield batch


def _analyse(
    engine: Engine, acc: Accumulator, scored: BatchResult, d: int, position: int, pair: Pair, shard: Shard | None = None
) -> None:
    """What a scored document adds beyond the totals (``Accumulator.add_batch``): kept whole if it is
    among the worst, its misses explained if asked for (``--non-matches``) or while a field it fails
    on has room in its sample of failing comparisons, its line of ``--per-document``."""
    analysis = acc.collect
    doc_id, gt, pred, gt_line, pred_line = pair.doc_id, pair.gt, pair.pred, pair.gt_line, pair.pred_line
    score = float(scored.scores[d])
    if acc.is_among_worst(score):
        acc.keep_worst(score, {"doc_id": doc_id, **_lines(shard, gt_line, pred_line), "gt": gt, "pred": pred}, position)
    lines = sample = False
    if analysis.non_matches or acc.samples_open:
        tally = scored.tally[d].tolist()
        lines = analysis.non_matches and has_misses(tally)
        sample = acc.wants_failures(tally)
    if lines or sample:  # explained once for both
        rows, beyond = non_match_rows(engine, doc_id, gt, pred)
        if lines:
            acc.add_lines(ROWS_NON_MATCHES, rows if beyond is None else [*rows, beyond])
        if sample:
            acc.keep_failures(rows)
    if analysis.per_document:
        doc = scored.document(d)
        where = _lines(shard, gt_line, pred_line)
        acc.add_lines(ROWS_PER_DOCUMENT, [document_row(acc.plan, doc, doc_id, where, acc.nodes, pairings(doc))])


def _with_misses(scored: BatchResult) -> list[bool]:
    """Per document of a batch, whether any field counts an FA, FD or FN."""
    tally = scored.tally
    if not len(tally):  # a batch of only unpaired predictions
        return []
    return (tally.reshape(len(tally), -1, 5)[:, :, [FA, FD, FN]] > 0).any(axis=(1, 2)).tolist()


def _lines(shard: Shard | None, gt_line: int, pred_line: int | None) -> dict[str, Any]:
    """Where a document is: its lines and their files (of several shards, the line alone says little)."""
    return {
        "gt_source": shard.ground_truth if shard else None,
        "gt_line": gt_line,
        "pred_source": shard.predictions if shard else None,
        "pred_line": pred_line,
    }


def score_pairs(engine: Engine, acc: Accumulator, pairs: Iterable[Pair], shard: Shard) -> None:
    """Score paired records of one shard into ``acc``: the loop every process runs, serial or not.

    A batch at a time (``Engine.score_batch``): its totals are added at once, then each pair's
    problems, schema conformance and error analysis in input order.
    """
    pred_path = shard.predictions
    check = engine.conformance.violations
    take_messages = engine.conformance.take_messages
    analysis = acc.collect
    plain = not (analysis.documents or analysis.non_matches or analysis.per_document)
    root = engine.plan.root
    with held_back():  # collector.py: the collector would walk the whole heap again and again
        for batch in adopted_batches(root, pairs, acc):
            scored_pairs = [p for p in batch if p.gt is not None]
            scored = engine.score_batch(
                [(p.gt, p.pred) for p in scored_pairs],
                [d for d, p in enumerate(scored_pairs) if p.alone],
                pairings=analysis.per_document,  # its lines say how each list's items were paired
            )
            first = acc.document_count
            acc.add_batch(scored, [p.doc_id for p in scored_pairs])
            if analysis.indexed:
                acc.index.add(shard.ground_truth, [(p.gt, p.gt_line) for p in scored_pairs])
            if acc.slices:
                acc.add_slices([p.gt for p in scored_pairs], scored)
            scores = scored.scores.tolist()
            errors = scored.errors
            worst = acc.worst_bound()
            listed = scored.list_errors  # the documents with a list not matched whole and in order
            # Which documents could add to an open sample of failing comparisons: those with a miss.
            missing = _with_misses(scored) if plain and acc.samples_open else None
            d = 0
            for pair in batch:
                if pair.errors:
                    for error in pair.errors:
                        acc.add_error(error)
                if pair.pred_read:
                    acc.add_conformance(check(pair.pred))
                    for message in take_messages():  # a pattern that ran out of time, a record too deep
                        acc.add_error(DataError(pred_path, pair.pred_line, pair.doc_id, message))
                if pair.gt is None:
                    continue
                if errors and d in errors:
                    for message in errors[d]:
                        acc.add_error(located(message, shard.ground_truth, pred_path, pair))
                if listed and d in listed:
                    acc.add_list_errors(listed[d], pair.doc_id, first + d)
                if plain and scores[d] >= worst and (missing is None or not missing[d]):  # nothing to keep of it
                    d += 1
                    continue
                _analyse(engine, acc, scored, d, first + d, pair, shard)
                worst = acc.worst_bound()
                d += 1


def located(message: str, ground_truth: str, predictions: str, pair: Pair) -> DataError:
    """An engine's record problem at the record it is in: the ground truth's file and line for a
    ``GroundTruthProblem`` (engine/result.py), else the prediction's."""
    if isinstance(message, GroundTruthProblem):
        return DataError(ground_truth, pair.gt_line, pair.doc_id, message)
    return DataError(predictions, pair.pred_line, pair.doc_id, message)


def adopted_batches(root: Any, pairs: Iterable[Pair], acc: Any = None) -> Iterator[list[Pair]]:
    """``pairs`` in the batches a run scores, their values of the older rich shape read as rich values; the
    records that hold any are counted in ``acc.stats`` when ``acc`` is given. The run, the parent that asks
    judges first and ``--dry-run`` read through this, so they read alike."""
    for batch in _chunks(pairs):
        for pair in batch:
            if pair.older_shape:
                for record in (pair.gt, pair.pred):
                    if record and adopt_older_shape(root, record) and acc is not None:
                        acc.stats["older_shape_records"] += 1
        yield batch


def read_pairs(shard: Shard, stats: PairingStats, pairing: Pairing, gt_lines: Iterator | None = None) -> Iterator[Pair]:
    if pairing.id_field:
        return pair_by_id(shard.ground_truth, shard.predictions, stats, pairing, gt_lines)
    return pair_by_line(shard.ground_truth, shard.predictions, stats, pairing, gt_lines)


def add_pairing_stats(acc: Accumulator, stats: PairingStats) -> None:
    """Add a reading's record counts to ``acc``. Ground truth carrying ``_confidence`` hints at swapped
    arguments, unless the schema declares ``_confidence`` as a property (then it is data): not counted."""
    declared = any(f.key == "_confidence" for f in acc.plan.fields)
    for key in COUNTED:
        if not (declared and key == "gt_with_confidence"):
            acc.stats[key] += getattr(stats, key)


def score_shard(engine: Engine, acc: Accumulator, shard: Shard, pairing: Pairing = Pairing()) -> None:
    """Read one shard pair and score all of it into ``acc`` (one process)."""
    stats = PairingStats()
    score_pairs(engine, acc, read_pairs(shard, stats, pairing), shard)
    add_pairing_stats(acc, stats)
