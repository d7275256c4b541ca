"""Mergeable run state: what survives of each DocResult once it has been scored.

``get_state()`` is JSON-serialisable and ``merge_state()`` adds another state
in, so one process, N workers or N machines reach the same totals (counts
exactly; float sums up to rounding). States carry the schema hash: merging
states of different schemas is refused. The counts are kept here; everything
else is a part (analyses/part.py, listed in analyses/registry.py) that the
accumulator adds to, saves and merges by looping over ``PARTS``.
"""

from __future__ import annotations

import hashlib
from array import array
from operator import add
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import orjson

from ..analyses.cosmetic import CosmeticTally
from ..analyses.failures import FailureSamples, WorstDocuments
from ..analyses.list_errors import ListErrors
from ..analyses.localisation import BoxStore
from ..analyses.part import Collect, Part, ReportContext
from ..analyses.registry import PARTS as ANALYSES
from ..analyses.rollup import Node, Unopened
from ..analyses.slicing import Slices
from ..analyses.thresholds import Layout, SimilarityBins
from ..confidence.store import ConfidenceStore
from ..engine.result import DocResult, counts_by_field, totals
from ..errors import SticklerError
from ..plan import Plan
from . import document_index
from .document_index import DocumentIndex
from .reader import COUNTED, DataError

if TYPE_CHECKING:
    from ..engine.batch import BatchResult

# 2: confidence pairs grouped, with counts; 3: schema conformance, error analysis; 4: documents, lines;
# 5: schema_digest (the embedded schema's own hash, recomputed when a state file is loaded);
# 6: failures, failures_kept (the first failing comparisons of each field, for the HTML report);
# 7: older_shape_records; 8: unopened (the counts behind each node's leaf roll-up, report.aggregate_counts);
# 9: boxes (localisation.BoxStore: per-field box counts and every predicted box's detection)
# 10: similarity_bins (each primitive field's histogram of compared similarities, thresholds.py)
# 11: slices (--slice-by: per slicing path and value, the fields' counts and moments, slicing.py)
# 12: list_errors (what went wrong in each list of objects, list_errors.py)
# 13: cosmetic (each FD of a leaf classified by the first normalisation that would match it, cosmetic.py)
# 14: document_index (every document's ground-truth digest and line, so that merge finds documents counted twice;
#     it replaces document_keys, which only --ci runs kept)
# 15: judge (the judges' bill per LLMComparator field: asked, cached, identical, deduplicated, failed; judge.py),
#     present only when the plan has such a field
# 16: policy (each document's lowest confidence per field, for an auto-accept policy's straight-through rate;
#     analyses/policy.py), present only when a policy was asked for
# 17: alternatives (ground-truth values listing acceptable values, and those an alternative decided, per field;
#     analyses/alternatives.py), present only when the ground truth lists some
STATE_VERSION = 17
# The keys of a saved state in the order version 16 writes them (the counts' and the parts' interleaved); a part's
# key not listed here comes after them, before the embedded schema.
STATE_KEYS = (
    "state_version",
    "schema_sha256",
    "fields",
    "document_count",
    "score_sum",
    "overall",
    "counts",
    "unopened",
    "similarity_bins",
    "field_score_sum",
    "field_score_n",
    "confidence",
    "boxes",
    "errors",
    "stats",
    "conformance",
    "score_histogram",
    "worst",
    "worst_kept",
    "failures",
    "failures_kept",
    "lines",
    "documents",
    "document_index",
    "slices",
    "list_errors",
    "cosmetic",
    "judge",
    "policy",
)
HISTOGRAM_BINS = 20  # document scores, in bins of 0.05
ROWS_NON_MATCHES, ROWS_PER_DOCUMENT = "non_matches", "per_document"
COUNTS = 5  # tp, fa, fd, fn, tn per field, as in DocResult.tally
# The parts of the state besides the counts: the analyses, then the index of the documents (merge's and diff's).
PARTS: tuple[Part, ...] = (*ANALYSES, document_index.PART)


def row_width(fields: int) -> int:
    """A document's row (``Collect.documents``): its score, then per field five counts, then score sums, then
    score counts."""
    return 1 + COUNTS * fields + 2 * fields


def schema_digest(schema: dict, resources: dict | None = None) -> str:
    """The sha256 of a schema as canonical JSON (keys sorted), with the documents read with it when there
    are any. A state carries it beside the schema it embeds; ``schema_sha256`` is the schema file's hash,
    which cannot be recomputed from the parsed schema, so loading a state checks this one."""
    embedded = {"schema": schema, "resources": resources} if resources else schema
    return hashlib.sha256(orjson.dumps(embedded, option=orjson.OPT_SORT_KEYS)).hexdigest()


class Accumulator:
    """A run's mergeable state: the counts, kept here, and one store per part (``PARTS``), each held as the
    attribute its part names (``acc.cosmetic``, ``acc.slices``, …).

    Scored documents come in one at a time (``add``) or a batch at a time (``add_batch``), reaching the same
    totals to the last bit; ``get_state`` / ``merge_state`` move a run between processes and files. The counts
    are the per-field ``tally`` (flat, five a field, as in DocResult), the document scores (their sum and
    histogram), the per-field score sums, the confidence pairs, the records read and the conformance of the
    predictions; with ``Collect.documents`` one row per document (``row_width``) for intervals.
    """

    rollup: Unopened
    thresholds: SimilarityBins
    boxes: BoxStore
    worst_documents: WorstDocuments
    field_failures: FailureSamples
    slices: Slices
    list_errors: ListErrors
    cosmetic: CosmeticTally
    index: DocumentIndex

    def __init__(self, plan: Plan, collect: Collect = Collect()) -> None:
        self.plan, self.collect, self.size = plan, collect, len(plan.fields)
        self.top_level = [f.index for f in plan.root.fields]
        self.document_count, self.score_sum = 0, 0.0
        self.score_histogram = [0] * HISTOGRAM_BINS
        self.tally = [0] * (COUNTS * self.size)
        self.field_score_sum, self.field_score_n = [0.0] * self.size, [0] * self.size
        # Confidence pairs: grouped, so that they do not grow with the documents (confidence/store.py).
        self.confidences, self.predicted_leaves = ConfidenceStore(), 0
        self.errors: list[dict[str, Any]] = []
        self.stats = dict.fromkeys(COUNTED, 0)
        # Schema conformance of the predictions read: how many were checked, how many conform, and the violations
        # as {field path: {keyword: count}}.
        self.schema_checked, self.schema_valid = 0, 0
        self.violations: dict[str, dict[str, int]] = {}
        # Lines for files ("non_matches", "per_document"): handed to ``sinks[kind]`` as they come (the CLI writes
        # them out), else kept here (worker processes send them back in their state).
        self.sinks: dict[str, Callable[[list[dict[str, Any]]], None]] = {}
        self.lines: dict[str, list[dict[str, Any]]] = {ROWS_NON_MATCHES: [], ROWS_PER_DOCUMENT: []}
        self.documents = array("d")  # with collect.documents: one row per document (row_width), flat
        self.parts = [(part, part.new(plan, collect)) for part in PARTS]
        for part, store in self.parts:
            setattr(self, part.name, store)
        self._document_adders = [(part.add, store) for part, store in self.parts if part.add is not None]
        self._batch_adders = [(part.add_batch, store) for part, store in self.parts if part.add_batch is not None]

    @property
    def counts(self) -> list[list[int]]:
        """Per field ``[tp, fa, fd, fn, tn]``."""
        return counts_by_field(self.tally)

    @property
    def overall(self) -> list[int]:
        """Document-level counts: the top-level fields' counts added up."""
        return totals(self.tally, self.top_level)

    # The parts' stores, as the report and the tests read them.

    @property
    def unopened(self) -> list[int]:
        """Per object / list of objects, its own counts from the documents it was not opened in (rollup.py)."""
        return self.rollup.counts

    @property
    def nodes(self) -> list[Node]:
        return self.rollup.nodes

    @property
    def layout(self) -> Layout:
        return self.thresholds.layout

    @property
    def similarity(self) -> np.ndarray:
        """Each primitive field's compared similarities, counted in the bins of ``layout``, flat."""
        return self.thresholds.counts

    def add(self, doc: DocResult, doc_id: Any = None) -> None:
        """One scored document (``doc_id``: its id, for the examples some parts keep)."""
        self.document_count += 1
        self.score_sum += doc.score
        score = doc.score
        # A plugin may return a score outside [0, 1], or NaN: counted at the nearer end.
        k = int(score * HISTOGRAM_BINS) if 0.0 <= score < 1.0 else HISTOGRAM_BINS - 1 if score >= 1.0 else 0
        self.score_histogram[k] += 1
        self.tally = list(map(add, self.tally, doc.tally))
        self.field_score_sum = list(map(add, self.field_score_sum, doc.score_sum))
        self.field_score_n = list(map(add, self.field_score_n, doc.score_n))
        self.predicted_leaves += doc.predicted_leaves
        self.confidences.extend(doc.confidences)
        if self.collect.documents:
            self.documents.append(score)
            self.documents.extend(doc.tally)
            self.documents.extend(doc.score_sum)
            self.documents.extend(doc.score_n)
        for add_document, store in self._document_adders:
            add_document(store, doc, doc_id)

    def add_batch(self, batch: BatchResult, doc_ids: list[Any] | None = None) -> None:
        """``add`` for every document of a batch, in arrays: the same totals to the last bit (floats
        are added document after document, as ``add`` adds them). ``doc_ids``: the documents' ids, for
        the examples some parts keep."""
        n = len(batch)
        if not n:
            return
        scores = batch.scores
        self.document_count += n
        self.score_sum = float(np.cumsum(np.concatenate(([self.score_sum], scores)))[-1])
        bins = np.zeros(n, dtype=np.int64)
        inside = (scores >= 0.0) & (scores < 1.0)
        bins[inside] = (scores[inside] * HISTOGRAM_BINS).astype(np.int64)
        bins[scores >= 1.0] = HISTOGRAM_BINS - 1
        self.score_histogram = (np.bincount(bins, minlength=HISTOGRAM_BINS) + self.score_histogram).tolist()
        self.tally = (batch.tally.sum(axis=0) + self.tally).tolist()
        self.field_score_sum = np.cumsum(np.vstack((self.field_score_sum, batch.score_sum)), axis=0)[-1].tolist()
        self.field_score_n = (batch.score_n.sum(axis=0) + self.field_score_n).tolist()
        self.predicted_leaves += int(batch.predicted_leaves.sum())
        self.confidences.extend_columns(
            batch.confidence_field,
            batch.confidence_match,
            batch.confidence_value,
            batch.confidence_similarity,
            batch.confidence_counts,
        )
        if self.collect.documents:
            rows = np.hstack((scores[:, None], batch.tally, batch.score_sum, batch.score_n)).astype(np.float64)
            self.documents.frombytes(rows.tobytes())
        for add_scored, store in self._batch_adders:
            add_scored(store, batch, doc_ids)

    def add_slices(self, records: list[Any], batch: BatchResult) -> None:
        """With ``--slice-by``: a scored batch's counts by slice value (``records[d]``: document d's ground truth)."""
        if self.slices:
            self.slices.add_batch(records, batch.tally, batch.scores)

    def add_list_errors(self, found: list, doc_id: Any, position: int) -> None:
        """A scored document's imperfect lists (``BatchResult.list_errors``), the document at ``position``."""
        self.list_errors.add(found, doc_id, position)

    # The worst documents (failures.WorstDocuments) and the failing comparisons kept per field
    # (failures.FailureSamples), as scoring one shard asks for them.

    def is_among_worst(self, score: float) -> bool:
        """Whether a document of this score, the latest added, belongs among the worst kept."""
        return self.worst_documents.is_among(score)

    def worst_bound(self) -> float:
        """The score from which a document is not among the worst kept."""
        return self.worst_documents.bound()

    def keep_worst(self, score: float, sample: dict[str, Any], position: int | None = None) -> None:
        """Keep a document (``sample``: its id, lines, ground truth and prediction) at ``position`` in the
        input (default: the one just added)."""
        self.worst_documents.keep(score, sample, self.document_count - 1 if position is None else position)

    @property
    def worst(self) -> list[dict[str, Any]]:
        """The worst documents kept, worst first."""
        return self.worst_documents.listed()

    @property
    def worst_known(self) -> int:
        return self.worst_documents.known

    @property
    def samples_open(self) -> bool:
        """Whether some field's sample of failing comparisons still has room."""
        return bool(self.field_failures.open)

    def wants_failures(self, tally: list[int]) -> bool:
        """Whether a document of these counts fails on a field whose sample still has room."""
        return self.field_failures.wants(tally)

    def keep_failures(self, rows: list[dict[str, Any]]) -> None:
        """Keep a document's failing comparisons (``failures.non_match_rows``) in the samples that have room."""
        self.field_failures.keep(rows)

    def full_fields(self) -> frozenset[int]:
        """The fields whose sample is full: a later part of the input (a worker's chunk) need not sample them."""
        return self.field_failures.full_fields()

    def close_fields(self, full: frozenset[int]) -> None:
        """Sample nothing for ``full`` fields (an earlier part of the input has filled them)."""
        self.field_failures.close(full)

    def failure_samples(self) -> dict[str, list[dict[str, Any]]]:
        """The kept failing comparisons by field path, in the plan's field order."""
        return self.field_failures.by_path()

    @property
    def failures(self) -> dict[int, list[dict[str, Any]]]:
        return self.field_failures.rows

    @property
    def failures_known(self) -> int:
        return self.field_failures.known

    # The records read.

    def add_lines(self, kind: str, rows: list[dict[str, Any]]) -> None:
        sink = self.sinks.get(kind)
        if sink is not None:
            sink(rows)
        else:
            self.lines[kind].extend(rows)

    def add_conformance(self, violations: list[tuple[str, str]]) -> None:
        self.schema_checked += 1
        if not violations:
            self.schema_valid += 1
            return
        for path, keyword in violations:
            self._count_violations(path, keyword, 1)

    def _count_violations(self, path: str, keyword: str, n: int) -> None:
        counts = self.violations.setdefault(path, {})
        counts[keyword] = counts.get(keyword, 0) + n

    def add_error(self, error: DataError) -> None:
        self.errors.append(error.as_dict())

    # -- state ------------------------------------------------------------------

    def get_state(self, with_schema: bool = True, as_arrays: bool = False) -> dict[str, Any]:
        """Everything needed to merge this run into another; ``with_schema`` embeds
        the schema itself, so ``stickler merge`` can report without the file;
        ``as_arrays`` keeps the confidence groups as numpy arrays (cheaper to pickle
        to another process; not JSON)."""
        state: dict[str, Any] = {
            "state_version": STATE_VERSION,
            "schema_sha256": self.plan.sha256,
            "fields": [f.path for f in self.plan.fields],
            "document_count": self.document_count,
            "score_sum": self.score_sum,
            "overall": list(self.overall),
            "counts": self.counts,
            "field_score_sum": list(self.field_score_sum),
            "field_score_n": list(self.field_score_n),
            "confidence": {**self.confidences.state(as_arrays), "predicted_leaves": self.predicted_leaves},
            "errors": list(self.errors),
            "stats": dict(self.stats),
            "conformance": {
                "checked": self.schema_checked,
                "valid": self.schema_valid,
                "violations": {path: dict(counts) for path, counts in self.violations.items()},
            },
            "score_histogram": list(self.score_histogram),
            "lines": {kind: list(rows) for kind, rows in self.lines.items()},
            "documents": self.documents if as_arrays else self.documents.tolist(),
        }
        for part, store in self.parts:
            state.update(part.state(store, as_arrays))
        state = {**{key: state.pop(key) for key in STATE_KEYS if key in state}, **state}
        if with_schema:
            state["schema"] = self.plan.schema
            state["schema_source"] = self.plan.source
            if self.plan.resources:  # the documents its references name: a merge reads no file
                state["schema_resources"] = self.plan.resources
            if self.plan.assert_formats:
                state["schema_formats_asserted"] = True
            state["schema_digest"] = schema_digest(self.plan.schema, self.plan.resources)
        return state

    def merge_state(self, state: dict[str, Any]) -> None:
        """Add another run's state (``get_state``), whose documents come after this one's."""
        if state.get("state_version") != STATE_VERSION:
            raise SticklerError(f"unsupported state version {state.get('state_version')!r}")
        if state.get("schema_sha256") != self.plan.sha256:
            raise SticklerError("cannot merge states made with different schemas (schema hashes differ)")
        offset = self.document_count  # the state's documents come after this one's
        self.document_count += state["document_count"]
        self.score_sum += state["score_sum"]
        self.tally = list(map(add, self.tally, (c for field in state["counts"] for c in field)))
        self.field_score_sum = list(map(add, self.field_score_sum, state["field_score_sum"]))
        self.field_score_n = list(map(add, self.field_score_n, state["field_score_n"]))
        conf = state["confidence"]
        self.confidences.merge(conf)
        self.predicted_leaves += conf.get("predicted_leaves", 0)
        self.errors.extend(state["errors"])
        self.score_histogram = list(map(add, self.score_histogram, state["score_histogram"]))
        for kind, rows in state["lines"].items():
            if rows:
                self.add_lines(kind, rows)
        self.documents.extend(state["documents"])
        conformance = state["conformance"]
        self.schema_checked += conformance["checked"]
        self.schema_valid += conformance["valid"]
        for path, counts in conformance["violations"].items():
            for keyword, n in counts.items():
                self._count_violations(path, keyword, n)
        for key, value in state["stats"].items():
            self.stats[key] = self.stats.get(key, 0) + value
        for part, store in self.parts:
            part.merge(store, state, offset)

    def report_blocks(self, context: ReportContext) -> dict[str, Any]:
        """The parts' blocks of the report (report/build.py places them)."""
        blocks: dict[str, Any] = {}
        for part, store in self.parts:
            if part.report is not None:
                blocks.update(part.report(store, context))
        return blocks
