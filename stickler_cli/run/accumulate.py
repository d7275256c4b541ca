"""Mergeable run state: what survives of each DocResult once it has been scored.

``get_state()`` is JSON-serialisable and ``merge_state()`` adds another state
in, so one process, N workers or N machines reach the same totals (counts
exactly; float sums up to rounding). States carry the schema hash: merging
states of different schemas is refused.
"""

from __future__ import annotations

import hashlib
import math
import heapq
from array import array
from dataclasses import dataclass
from operator import add
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import orjson

from .. import limits
from ..confidence.store import ConfidenceStore
from ..analyses.localisation import BoxStore
from ..analyses.cosmetic import CosmeticTally
from ..analyses.failures import failure_field, has_misses, sample_row
from ..engine.result import FA, FD, FN, DocResult, counts_by_field, totals
from ..errors import SticklerError
from ..limits import DEFAULT as DEFAULT_LIMITS
from ..plan import Plan
from ..analyses import rollup
from ..analyses.slicing import Slices
from ..analyses.list_errors import ListErrors
from .reader import COUNTED, DataError
from ..analyses.thresholds import Layout
from .document_index import DocumentIndex

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
STATE_VERSION = 14
HISTOGRAM_BINS = 20  # document scores, in bins of 0.05
ROWS_NON_MATCHES, ROWS_PER_DOCUMENT = "non_matches", "per_document"


def schema_digest(schema: dict, resources: dict | None = None) -> str:
    """The sha256 of a schema as canonical JSON (keys sorted), with the documents read with it when there
    are any. A state carries it beside the schema it embeds; ``schema_sha256`` is the schema file's hash,
    which cannot be recomputed from the parsed schema, so loading a state checks this one."""
    embedded = {"schema": schema, "resources": resources} if resources else schema
    return hashlib.sha256(orjson.dumps(embedded, option=orjson.OPT_SORT_KEYS)).hexdigest()


@dataclass(frozen=True)
class Analysis:
    """What a run keeps for error analysis beyond the counts (sent to worker processes as is)."""

    worst: int = 10  # the documents with the lowest scores, kept whole for the report
    non_matches: bool = False  # every FD/FA/FN comparison, for --non-matches
    per_document: bool = False  # one line per document (score, field scores, counts), for --per-document
    documents: bool = False  # each document's score and per-field counts, for confidence intervals
    # The first failing comparisons (FD/FA/FN) of each field path kept, in input order (--limit failures-per-field):
    # for the HTML report. Each document explained for them costs about as much as scoring a hundred, so
    # none unless asked for (`stickler eval` asks when --html or --save-state is given).
    failures: int = 0
    # --slice-by: ground-truth paths whose values slice the counts (slicing.py), at most ``slice_values``
    # values per path kept (limits.Limits.slice_values), each cut to ``slice_chars`` characters.
    slices: tuple[str, ...] = ()
    slice_values: int = DEFAULT_LIMITS.slice_values
    slice_chars: int = DEFAULT_LIMITS.slice_value_chars
    # Each document's ground-truth digest and line (document_index.py), for a state that is saved (merge checks
    # that states share no document) or diffed (documents): about 14,000 instructions a document, so only then.
    index: bool = False

    @property
    def indexed(self) -> bool:
        """Whether the run keeps its document index."""
        return self.index or self.documents


class Accumulator:
    def __init__(self, plan: Plan, analysis: Analysis = Analysis()) -> None:
        self.plan = plan
        self.analysis = analysis
        self.size = len(plan.fields)
        self.top_level = [f.index for f in plan.root.fields]
        self.document_count = 0
        self.score_sum = 0.0
        self.tally = [0] * (5 * self.size)  # flat per-field counts, as in DocResult
        # Per object / list of objects, its own counts from the documents it was not opened in (nothing
        # beneath it counted: null on a side, no list item matched), flat like ``tally``: what the leaf
        # roll-up (rollup.py) needs beyond the counts.
        self.unopened = [0] * (5 * self.size)
        self.nodes = rollup.nodes(plan)
        self.field_score_sum = [0.0] * self.size
        self.field_score_n = [0] * self.size
        # Each primitive field's compared similarities, counted in fixed bins (thresholds.Layout), flat.
        self.layout = Layout(plan)
        self.similarity = np.zeros(self.layout.size, dtype=np.int64)
        # Confidence pairs: the only state that could grow with the number of
        # documents; grouped so that it does not (confidence/store.py).
        self.confidences = ConfidenceStore()
        self.predicted_leaves = 0
        self.boxes = BoxStore(self.size, limits.current().box_detections)  # localisation mAP
        self.errors: list[dict[str, Any]] = []
        # Schema conformance of the predictions read: how many were checked, how many
        # conform, and the violations as {field path: {keyword: count}}.
        self.schema_checked = 0
        self.schema_valid = 0
        self.violations: dict[str, dict[str, int]] = {}
        self.score_histogram = [0] * HISTOGRAM_BINS
        # The ``analysis.worst`` documents with the lowest (score, position in the input):
        # a heap of (-score, -position, sample), so that its top is the first to give way.
        self._worst: list[tuple[float, int, dict[str, Any]]] = []
        # How many of the worst are exactly known: states merged in may have kept fewer.
        self.worst_known = analysis.worst
        # Lines for files ("non_matches", "per_document"): handed to ``sinks[kind]`` as they come
        # (the CLI writes them out), else kept here (worker processes send them back in their state).
        self.sinks: dict[str, Callable[[list[dict[str, Any]]], None]] = {}
        self.lines: dict[str, list[dict[str, Any]]] = {ROWS_NON_MATCHES: [], ROWS_PER_DOCUMENT: []}
        # With ``analysis.documents``: one row per document (statistics.row_width), flat.
        self.documents = array("d")
        # Every document's ground-truth digest and line, in input order (DocumentIndex): merge refuses states that
        # share documents, diff compares runs of the same documents only.
        self.index = DocumentIndex()
        self.stats = dict.fromkeys(COUNTED, 0)
        # The first ``failures_known`` failing comparisons of each field (by field index), in input order: rows
        # of analysis.sample_row. A document is explained only while a field it fails on has room (``_open``).
        self.failures: dict[int, list[dict[str, Any]]] = {}
        self.failures_known = analysis.failures
        self._open = list(range(self.size)) if analysis.failures > 0 else []
        self._index = {f.path: f.index for f in plan.fields}
        self.slices = Slices(analysis.slices, self.size, analysis.slice_values, analysis.slice_chars,
                             plan.data_paths())
        # What went wrong in lists of objects: counts per list field and the worst lists (list_errors.py).
        self.list_errors = ListErrors(plan)
        # Each FD of a leaf re-scored under normalisations (cosmetic.py): counts, suggestions, examples.
        self.cosmetic = CosmeticTally(plan)

    @property
    def counts(self) -> list[list[int]]:
        """Per field ``[tp, fa, fd, fn, tn]``."""
        return counts_by_field(self.tally)

    @property
    def overall(self) -> list[int]:
        """Document-level counts: the top-level fields' counts added up."""
        return totals(self.tally, self.top_level)

    def add(self, doc: DocResult, doc_id: Any = None) -> None:
        if doc.fd_values:
            self.cosmetic.add([(0, index, g, p) for index, g, p in doc.fd_values], [doc_id])
        self.document_count += 1
        self.score_sum += doc.score
        score = doc.score
        # A plugin may return a score outside [0, 1], or NaN: counted at the nearer end.
        k = int(score * HISTOGRAM_BINS) if 0.0 <= score < 1.0 else HISTOGRAM_BINS - 1 if score >= 1.0 else 0
        self.score_histogram[k] += 1
        self.tally = list(map(add, self.tally, doc.tally))
        rollup.add_unopened(self.unopened, doc.tally, self.nodes)
        self.field_score_sum = list(map(add, self.field_score_sum, doc.score_sum))
        self.field_score_n = list(map(add, self.field_score_n, doc.score_n))
        self.predicted_leaves += doc.predicted_leaves
        self.confidences.extend(doc.confidences)
        if doc.boxes:
            self.boxes.add(doc.boxes)
        if doc.similarity_bins:
            np.add.at(self.similarity, doc.similarity_bins, 1)
        if self.analysis.documents:
            self.documents.append(score)
            self.documents.extend(doc.tally)
            self.documents.extend(doc.score_sum)
            self.documents.extend(doc.score_n)

    def add_batch(self, batch: BatchResult, doc_ids: list[Any] | None = None) -> None:
        """``add`` for every document of a batch, in arrays: the same totals to the last bit (floats
        are added document after document, as ``add`` adds them). ``doc_ids``: the documents' ids, for
        the examples of cosmetic FDs."""
        n = len(batch)
        if not n:
            return
        if batch.fd_values:
            self.cosmetic.add(batch.fd_values, doc_ids)
        scores = batch.scores
        self.document_count += n
        self.score_sum = float(np.cumsum(np.concatenate(([self.score_sum], scores)))[-1])
        bins = np.zeros(n, dtype=np.int64)
        inside = (scores >= 0.0) & (scores < 1.0)
        bins[inside] = (scores[inside] * HISTOGRAM_BINS).astype(np.int64)
        bins[scores >= 1.0] = HISTOGRAM_BINS - 1
        self.score_histogram = (np.bincount(bins, minlength=HISTOGRAM_BINS) + self.score_histogram).tolist()
        self.tally = (batch.tally.sum(axis=0) + self.tally).tolist()
        rollup.add_unopened_batch(self.unopened, batch.tally, self.nodes)
        self.field_score_sum = np.cumsum(np.vstack((self.field_score_sum, batch.score_sum)), axis=0)[-1].tolist()
        self.field_score_n = (batch.score_n.sum(axis=0) + self.field_score_n).tolist()
        self.predicted_leaves += int(batch.predicted_leaves.sum())
        if len(batch.similarity_bin):
            self.similarity += np.bincount(batch.similarity_bin, minlength=self.layout.size)
        self.confidences.extend_columns(batch.confidence_field, batch.confidence_match, batch.confidence_value,
                                        batch.confidence_similarity, batch.confidence_counts)
        for d in sorted(batch.boxes):  # in input order
            self.boxes.add(batch.boxes[d])
        if self.analysis.documents:
            rows = np.hstack((scores[:, None], batch.tally, batch.score_sum, batch.score_n)).astype(np.float64)
            self.documents.frombytes(rows.tobytes())

    def add_slices(self, records: list[Any], batch: BatchResult) -> None:
        """With ``--slice-by``: a scored batch's counts by slice value (``records[d]``: document d's ground truth)."""
        if self.slices:
            self.slices.add_batch(records, batch.tally, batch.scores)

    def is_among_worst(self, score: float) -> bool:
        """Whether a document of this score, the latest added, belongs among the worst kept."""
        worst = self._worst
        return len(worst) < self.analysis.worst or (bool(worst) and score < -worst[0][0])

    def worst_bound(self) -> float:
        """The score from which a document is not among the worst kept (``is_among_worst`` is False
        for any score at or above it)."""
        worst = self._worst
        if len(worst) < self.analysis.worst:
            return math.inf
        return -worst[0][0] if worst else -math.inf

    def keep_worst(self, score: float, sample: dict[str, Any], position: int | None = None) -> None:
        """Keep a document (``sample``: its id, lines, ground truth and prediction) at ``position`` in the
        input (default: the one just added)."""
        entry = (-score, -(self.document_count - 1 if position is None else position), sample)
        if len(self._worst) < self.analysis.worst:
            heapq.heappush(self._worst, entry)
        elif self._worst:
            heapq.heappushpop(self._worst, entry)

    @property
    def worst(self) -> list[dict[str, Any]]:
        """The worst documents kept, worst first (ties: earlier in the input first); never more
        than every merged state kept, so the list does not depend on how a run was split."""
        return [{**sample, "score": -score, "position": -position}
                for score, position, sample in sorted(self._worst, reverse=True)[:self.worst_known]]

    @property
    def samples_open(self) -> bool:
        """Whether some field's sample of failing comparisons still has room."""
        return bool(self._open)

    def wants_failures(self, tally: list[int]) -> bool:
        """Whether a document of these counts fails on a field whose sample still has room: only then is it
        explained for the sample."""
        if not self._open or not has_misses(tally):
            return False
        return any(tally[5 * i + FA] or tally[5 * i + FD] or tally[5 * i + FN] for i in self._open)

    def keep_failures(self, rows: list[dict[str, Any]]) -> None:
        """Keep a document's failing comparisons (``analysis.non_match_rows``) in the samples that have room."""
        full = False
        for row in rows:
            field = failure_field(self.plan, row["path"], row["type"])
            if field is None:
                continue
            kept = self.failures.setdefault(field.index, [])
            if len(kept) < self.failures_known:
                kept.append(sample_row(row))
                full = full or len(kept) >= self.failures_known
        if full:
            self._reopen()

    def full_fields(self) -> frozenset[int]:
        """The fields whose sample is full: a later part of the input (a worker's chunk) need not sample them."""
        return frozenset(range(self.size)) - frozenset(self._open)

    def close_fields(self, full: frozenset[int]) -> None:
        """Sample nothing for ``full`` fields (an earlier part of the input has filled them)."""
        self._open = [i for i in self._open if i not in full]

    def _reopen(self) -> None:
        self._open = [i for i in self._open if len(self.failures.get(i, ())) < self.failures_known]

    def failure_samples(self) -> dict[str, list[dict[str, Any]]]:
        """The kept failing comparisons by field path, in the plan's field order."""
        fields = self.plan.fields
        return {fields[i].path: rows[:self.failures_known] for i, rows in sorted(self.failures.items())
                if rows and self.failures_known}

    def add_lines(self, kind: str, rows: list[dict[str, Any]]) -> None:
        sink = self.sinks.get(kind)
        if sink is not None:
            sink(rows)
        else:
            self.lines[kind].extend(rows)

    def add_list_errors(self, found: list, doc_id: Any, position: int) -> None:
        """A scored document's imperfect lists (``BatchResult.list_errors``), the document at ``position``."""
        self.list_errors.add(found, doc_id, position)

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
            "unopened": counts_by_field(self.unopened),
            "similarity_bins": self.layout.split(self.similarity),
            "field_score_sum": list(self.field_score_sum),
            "field_score_n": list(self.field_score_n),
            "confidence": {**self.confidences.state(as_arrays), "predicted_leaves": self.predicted_leaves},
            "boxes": self.boxes.state(),
            "errors": list(self.errors),
            "stats": dict(self.stats),
            "conformance": {"checked": self.schema_checked, "valid": self.schema_valid,
                            "violations": {path: dict(counts) for path, counts in self.violations.items()}},
            "score_histogram": list(self.score_histogram),
            "worst": self.worst,
            "worst_kept": self.worst_known,
            "failures": self.failure_samples(),
            "failures_kept": self.failures_known,
            "lines": {kind: list(rows) for kind, rows in self.lines.items()},
            "documents": self.documents if as_arrays else self.documents.tolist(),
            "document_index": self.index.state(as_arrays),
            "slices": self.slices.state(),
            "list_errors": self.list_errors.state(),
            "cosmetic": self.cosmetic.state(),
        }
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
        if state.get("state_version") != STATE_VERSION:
            raise SticklerError(f"unsupported state version {state.get('state_version')!r}")
        if state.get("schema_sha256") != self.plan.sha256:
            raise SticklerError("cannot merge states made with different schemas (schema hashes differ)")
        offset = self.document_count  # the state's documents come after this one's
        self.document_count += state["document_count"]
        self.score_sum += state["score_sum"]
        self.tally = list(map(add, self.tally, (c for field in state["counts"] for c in field)))
        self.unopened = list(map(add, self.unopened, (c for field in state["unopened"] for c in field)))
        merged = [c for field in state["similarity_bins"] for c in field]
        if merged:
            self.similarity += np.array(merged, dtype=np.int64)
        self.field_score_sum = list(map(add, self.field_score_sum, state["field_score_sum"]))
        self.field_score_n = list(map(add, self.field_score_n, state["field_score_n"]))
        conf = state["confidence"]
        self.confidences.merge(conf)
        self.predicted_leaves += conf.get("predicted_leaves", 0)
        self.boxes.merge(state["boxes"])
        self.errors.extend(state["errors"])
        self.score_histogram = list(map(add, self.score_histogram, state["score_histogram"]))
        for entry in state["worst"]:
            sample = {k: v for k, v in entry.items() if k not in ("score", "position")}
            item = (-entry["score"], -(entry["position"] + offset), sample)
            heapq.heappush(self._worst, item)
        while len(self._worst) > self.analysis.worst:
            heapq.heappop(self._worst)
        self.worst_known = min(self.worst_known, state["worst_kept"])
        for kind, rows in state["lines"].items():
            if rows:
                self.add_lines(kind, rows)
        # The states come in input order and each kept its first failing comparisons: their concatenation, cut
        # to the smaller bound, is the first ones of the whole input.
        self.failures_known = min(self.failures_known, state["failures_kept"])
        for path, rows in state["failures"].items():
            kept = self.failures.setdefault(self._index[path], [])
            room = self.failures_known - len(kept)
            if room > 0:
                kept.extend(rows[:room])
        self._reopen()
        self.list_errors.merge(state["list_errors"], offset, state["document_count"])
        self.documents.extend(state["documents"])
        self.index.merge(state["document_index"])
        self.cosmetic.merge(state["cosmetic"])
        conformance = state["conformance"]
        self.schema_checked += conformance["checked"]
        self.schema_valid += conformance["valid"]
        for path, counts in conformance["violations"].items():
            for keyword, n in counts.items():
                self._count_violations(path, keyword, n)
        for key, value in state["stats"].items():
            self.stats[key] = self.stats.get(key, 0) + value
        self.slices.merge(state["slices"])
