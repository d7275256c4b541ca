"""The pure comparison engine: a Plan and two JSON values in, a DocResult out.

Semantics (docs/numbers.md, "What the numbers mean"; worked examples in tests/engine/test_engine.py):
- A primitive field is null when it is None, missing, "", {} or [] (a bounding
  box is one value whose JSON type is an array); a list when None or
  []; an object when None or missing. Both null -> TN (score 1.0); gt null ->
  FA; pred null -> FN (score 0.0); else the comparator's similarity s: s >=
  threshold -> TP, below -> FD (score 0.0 when clip-under-threshold is on).
- An object's similarity is the weighted mean of its fields' raw
  similarities, leaving out fields null on both sides (a nested object field
  contributes its document-style score); the object itself is TP/FD against
  its threshold and its fields are always counted.
- Lists are paired by the Hungarian algorithm. Primitive lists pair on the
  comparator; object lists pair on the object similarity, a pair at or above
  the item model's match threshold is TP and only TP pairs are descended into.
  A list scores sum(pair scores) / max(len(gt), len(pred)); for object lists a
  pair's score is the item's document score (below 0.01 counts as 0).
- The document score is sum(score * weight) / sum(weight) over the top-level
  fields, where a field null on both sides scores 1.0.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable

import numpy as np

from ..comparators.bbox import box_iou, corners, parse_box
from ..errors import SticklerError
from .. import limits
from ..json_text import as_written, holds_key
from .boxes import ABSENT, BOX, NOT_A_BOX, REVERSED, BoxRecord, value_carries_alternatives, value_goes_alone
from ..plan import FieldPlan, Kind, ModelPlan, Plan
from ..schema.conformance import Conformance
from .batch import BatchResult, BatchScorer
from .items import (
    Cells,
    Matrix,
    ModelArrays,
    batch_routes,
    cell_grid,
    field_value,
    find_lists,
    item_cells,
    item_columns,
    items,
    model_arrays,
    weight_total,
)
from .matching import (
    MATCH_BOUND,
    Bounded,
    assign,
    bounded_pairs,
    item_key,
    list_cost,
    over_bound,
    paired_by_key,
    position_pairs,
)
from .prefetch import collect, models_needed, prefetching_fields
from . import row_errors
from .values import (
    EMPTIABLE,
    MISSING as _MISSING,
    as_list as _as_list,
    confidence_value,
    is_null as _null,
    is_null_list as _null_list,
    is_rich,
    unwrap,
    without_wrappers,
)
from .result import (
    FA,
    FD,
    FN,
    LABELS,
    POSITION,
    TN,
    TP,
    ConfidencePair,
    DocResult,
    GroundTruthProblem,
    problem_in,
    Pairings,
    Trace,
    TraceRow,
)
from .bins import Layout


PAIR_FLOOR = 0.01  # an object-list pair scoring below this contributes 0

# A lone item pair is scored directly; from two pairs up the batched path costs fewer
# instructions (docs/performance.md). Both give equal numbers (tests/engine/test_item_matrices.py).
SMALL_MATRIX = 2
# Lists of up to this many item pairs are scored with the rest of their batch (Engine.prepare);
# a longer list costs more per pair laid end to end than in its own matrix.
BATCH_PAIRS = 256

_PRIMITIVE = Kind.PRIMITIVE  # a module constant: looked up once per field in the hottest loop
_BUILT_IN = "stickler_cli."  # comparators of this package take index arrays in similarity_cells


class Engine:
    """Compares documents against one compiled plan. Stateless between calls.

    Two paths give the same numbers to the last bit: ``compare`` walks one document (the reference),
    ``score_batch`` scores a batch field by field in arrays (engine/batch.py). Both score the item
    pairs of object lists with one kernel (``items.item_cells``). The batch path uses the public
    interface below the "what the batch path uses" line (``items.ScoringEngine``), never the walk's privates.
    """

    def __init__(self, plan: Plan, judge_pairing: str = "full") -> None:
        self.plan = plan
        self.fields = plan.fields
        self.size = len(self.fields)
        self.layout = Layout(plan)  # the similarity bins of the threshold histograms
        self._prefetching = prefetching_fields(plan.root)
        self._wanted = {f.index for f in self._prefetching}
        self._needed = models_needed(plan.root, self._wanted)
        self._failing = [f for f in self.fields if f.comparator is not None and f.comparator.reports_failures]
        self._billing = plan.judged_fields()
        self._pending: list[str] = []  # comparator failures not yet handed to a DocResult
        self._arrays: dict[int, ModelArrays] = {}  # per item model, see _model_arrays
        # Per model, what the field loop reads of each field, unpacked in one step, and the
        # sum of the weights (added in field order, as the loop would add them).
        self._rows: dict[int, tuple[tuple, float]] = {}
        # --judge-pairing proxy: list field index -> the item model its pairing reads (engine/proxy.py).
        self._proxy: dict[int, ModelPlan] = {}
        if judge_pairing == "proxy":  # imported here: the default path loads nothing of it
            from .proxy import proxy_models

            self._proxy = proxy_models(plan.root)
        elif judge_pairing != "full":
            raise ValueError(f"judge_pairing must be 'full' or 'proxy', not {judge_pairing!r}")
        for top in (plan.root, *self._proxy.values()):
            for model in _models(top):
                self._rows[id(model)] = (
                    tuple((f.key, f.default, f.index, f.kind is _PRIMITIVE, f.weight, f) for f in model.fields),
                    weight_total(model),
                )
        self._routes = batch_routes(plan.root)
        # (list field index, id(gt list), id(pred list)) -> the lists and their item pairs'
        # scores, computed by ``prepare`` for the current batch of documents.
        self._prepared: dict[tuple[int, int, int], tuple] = {}
        # Whether the document being compared holds ``_alternatives`` somewhere (``compare``): only then do its
        # lists look for acceptable values among their items (docs/ground-truth.md).
        self._alts = False

    @functools.cached_property
    def conformance(self) -> Conformance:
        """The plan's schema as a checker of predictions (built on first use)."""
        return Conformance.of(self.plan)

    @property
    def prefetches(self) -> bool:
        """Whether ``prefetch`` does anything for this plan (model-backed comparators)."""
        return bool(self._prefetching)

    @property
    def judged(self) -> list[FieldPlan]:
        """The fields whose comparator keeps a judge's bill (comparators.base.BILL)."""
        return list(self._billing)

    @property
    def model_backed(self) -> bool:
        """Whether a comparator calls a model or a service (and may hold its threads or sockets)."""
        return bool(self._prefetching or self._failing)

    def prepare(self, docs: list[tuple[Any, Any]]) -> None:
        """Get ready to score a batch of documents (in any order, any number of times).

        Model-backed comparators prefetch; the item pairs of object lists are
        scored for the whole batch at once, one comparator call per field.
        """
        self.prefetch(docs)
        self._prepared.clear()
        for route, f in self._routes:
            found = find_lists(docs, route, f)
            if found:
                self._prepare_lists(f, found)

    def prefetch(self, docs: list[tuple[Any, Any]]) -> None:
        """Let model-backed comparators batch the work a batch of documents will need."""
        if not self._prefetching:
            return
        pairs = collect(self.plan.root, docs, self._wanted, self._needed, self.proxy_pairs if self._proxy else None)
        for f in self._prefetching:
            if pairs[f.index]:
                try:
                    f.comparator.prefetch(pairs[f.index])
                except SticklerError:
                    raise
                except Exception as exc:  # scoring will ask again, value by value
                    self._report(f, "could not prefetch", exc)

    @property
    def columnar(self) -> bool:
        """Whether ``score_batch`` scores in arrays (else document by document: model-backed comparators
        batch their own work in ``prefetch`` and report failures per document)."""
        return not self.model_backed

    def score_batch(
        self, docs: list[tuple[Any, Any]], boxed: list[int] | None = None, *, pairings: bool = False
    ) -> BatchResult:
        """Score a batch of documents: field by field in arrays (engine/batch.py), the same numbers as
        ``compare`` on each document, to the last bit. The documents carrying ``_bbox`` or ``_alternatives``
        somewhere are scored by ``compare``, which collects their boxes (boxes.py, for analyses/localisation.py)
        and chooses among acceptable values: ``boxed``, their positions, when the caller found them (the reader
        does, in the raw lines), else each document is looked at. With ``pairings``, each document's result says
        how its lists' items were paired (``compare(..., pairings=True)``'s)."""
        scorer = BatchScorer(self, docs, PAIR_FLOOR, BATCH_PAIRS, pairings=pairings)
        if self.columnar:
            if boxed is None:
                boxed = [d for d, (g, p) in enumerate(docs) if value_goes_alone(g) or value_goes_alone(p)]
            if boxed:
                scorer.odd[boxed] = True
            return scorer.run()
        self.prepare(docs)
        return scorer.one_by_one()

    def compare(
        self, gt: dict, pred: dict, explain: bool = False, alternatives: bool | None = None, pairings: bool = False
    ) -> DocResult:
        """Compare one pair of documents (plain dicts; rich values allowed anywhere).

        With ``explain`` the result's ``trace`` lists the comparisons made (the first --limit explain-items);
        with ``explain`` or ``pairings`` its ``pairings`` say how each list's items were paired (as many).
        ``alternatives``: whether either side holds ``_alternatives`` somewhere (None: looked for here).
        """
        res = DocResult(
            score=0.0,
            field_scores={},
            tally=[0] * (5 * self.size),
            score_sum=[0.0] * self.size,
            score_n=[0] * self.size,
            trace=Trace(limits.current().explain_items) if explain else None,
            pairings=Pairings(limits.current().explain_items) if explain or pairings else None,
        )
        self._alts = (
            value_carries_alternatives(gt) or value_carries_alternatives(pred) if alternatives is None else alternatives
        )
        try:
            score, _ = self._model(self.plan.root, gt, pred, res, top=True, where="")
        finally:
            self._alts = False
        res.score = score
        for f in self._failing:
            for message in f.comparator.drain_failures():
                self._pending.append(f"{f.path}: {message}")
        for f in self._billing:
            bill = f.comparator.drain_bill()
            if bill is not None:
                if res.judge is None:
                    res.judge = {}
                res.judge[f.index] = bill
        if self._pending:
            # A list pair is scored twice (matching, then counting): report each failure once.
            res.errors.extend(dict.fromkeys(self._pending))
            self._pending.clear()
        return res

    def similarity(self, f: FieldPlan, g: Any, p: Any) -> float:
        """The comparator's score; a comparator that raises scores 0.0 and is reported, never fatal."""
        try:
            return f.comparator.similarity(g, p)
        except SticklerError:
            raise
        except Exception as exc:
            self._report(f, "failed, scored 0.0", exc)
            return 0.0

    def similarity_matrix(self, f: FieldPlan, gv: list, pv: list, as_array: bool = False):
        """The comparator's matrix: plain floats in lists, or a float array with ``as_array``."""
        try:
            matrix = f.comparator.similarity_matrix(gv, pv)
        except SticklerError:
            raise
        except Exception:  # find the failing pairs: each scores 0.0 and is reported
            matrix = [[self.similarity(f, a, b) for b in pv] for a in gv]
        if as_array:
            return np.asarray(matrix, dtype=float).reshape(len(gv), len(pv))
        return matrix.tolist() if isinstance(matrix, np.ndarray) else matrix  # plain floats for reports

    def _report(self, f: FieldPlan, what: str, exc: Exception) -> None:
        """Keep a comparator's failure for the current document's errors."""
        text = str(exc)
        detail = f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
        self._pending.append(f"{f.path}: {f.comparator_name} {what}: {detail}")

    # -- what the batch path uses (items.ScoringEngine) ------------------------------

    def similarity_cells(self, f: FieldPlan, gts: list, preds: list, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Field ``f``'s similarities of the pairs (gts[rows[k]], preds[cols[k]]): one call when the
        comparator is vectorised, else pair by pair as ``_primitive`` asks (a failure is reported and
        scores 0.0; the caller, seeing ``failures_noted`` grow, scores its documents one by one)."""
        comparator = f.comparator
        if comparator.scores_cells:
            try:
                if type(comparator).__module__.startswith(_BUILT_IN):  # they take index arrays
                    return np.asarray(comparator.similarity_cells(gts, preds, rows, cols), dtype=float)
                return np.asarray(comparator.similarity_cells(gts, preds, rows.tolist(), cols.tolist()), dtype=float)
            except SticklerError:
                raise
            except Exception:  # find the failing pairs, each reported
                pass
        similarity = self.similarity
        return np.array([similarity(f, gts[i], preds[j]) for i, j in zip(rows.tolist(), cols.tolist())], dtype=float)

    def field_scores(self, f: FieldPlan, g: Any, p: Any) -> tuple[float, float, bool]:
        """(score, raw similarity, null on both sides) of one field's plain values, nothing recorded."""
        return self._field(f, g, p, None, None)

    def field_rows(self, model: ModelPlan) -> tuple[tuple, float]:
        """What the field loop reads of each of ``model``'s fields, (key, default, index, primitive, weight,
        field) a field, and the sum of the weights added in field order (``_model``'s loop, for the batch's)."""
        return self._rows[id(model)]

    def failures_noted(self) -> int:
        """How many comparator failures wait for the current document: a mark for ``forget_failures``."""
        return len(self._pending)

    def forget_failures(self, mark: int) -> bool:
        """Drop the comparator failures noted since ``mark`` (a batch that will be scored again document by
        document, each reporting its own); whether there were any."""
        if len(self._pending) > mark:
            del self._pending[mark:]
            return True
        return False

    # -- one object -------------------------------------------------------------

    def _model(
        self,
        model: ModelPlan,
        gt: Any,
        pred: Any,
        res: DocResult | None,
        top: bool = False,
        where: str = "",
        known: dict[int, list[float]] | None = None,
        cell: int = 0,
    ):
        """(document-style score, raw similarity) of two objects of ``model``.

        ``known[f.index][cell]`` is the already computed similarity of a
        primitive field (a matched list pair scored again for counting).
        """
        gt = gt if type(gt) is dict else {}
        pred = pred if type(pred) is dict else {}
        doc_num = sim_num = sim_den = 0.0
        recording = res is not None
        if recording:
            score_sums, score_ns, field_scores = res.score_sum, res.score_n, res.field_scores
        rows, total_weight = self._rows[id(model)]
        for key, default, index, primitive, weight, f in rows:
            g = gt.get(key, _MISSING)
            p = pred.get(key, _MISSING)
            gbox = pbox = alts = None  # a leaf's ``_bbox`` on each side (boxes.py); the gt's ``_alternatives``
            # values.unwrap, inlined (the hottest loop), reading a rich value's other keys on the way
            if g is _MISSING:
                g = default
                if default is not None and recording and res.trace is not None:
                    _filled(res, where + key, 0)
            elif type(g) is dict and "_value" in g and f.rich:
                if len(g) > 1:
                    gbox = g.get("_bbox")
                    alts = g.get("_alternatives") or None  # none listed: [] as if absent
                g = g["_value"]
            elif recording and self._alts and type(g) is dict and "_alternatives" in g and f.rich:
                _without_value(res, f)
            conf = None
            if p is _MISSING:
                p = default
                if default is not None and recording and res.trace is not None:
                    _filled(res, where + key, 1)
            elif type(p) is dict and "_value" in p and f.rich:
                conf = p.get("_confidence")
                if recording and len(p) > (2 if "_confidence" in p else 1):
                    _keep_metadata(res, f, p, where)
                    pbox = p.get("_bbox")
                    if "_alternatives" in p:
                        _predicted_alternatives(res, f)
                p = p["_value"]
            if alts is not None:  # several acceptable values: the best one is scored
                g, won, best = self._best_of(f, g, alts, p, res, where)
                start = len(res.trace) if recording and res.trace is not None else -1
            if primitive:
                if recording and self._alts and f.comparator.whole_value:  # ANLS*: alternatives inside the value
                    _whole_value_problems(res, f, g, p)
                if alts is not None:  # the winner's similarity, not asked of the comparator again
                    similarity = best
                else:
                    similarity = known[index][cell] if known is not None and index in known else None
                score, raw, both_null = self._primitive(f, g, p, conf, res, where, similarity)
                if recording and (gbox is not None or pbox is not None):
                    _box(res, f, gbox, pbox, not (_null(g) or _null(p)) and raw >= f.threshold, raw, conf, where + key)
            else:
                score, raw, both_null = self._field(f, g, p, conf, res, where)
            if alts is not None and recording:
                _decided(res, f, won, start, where + key)
            if recording:
                score_sums[index] += score
                score_ns[index] += 1
                if top:
                    field_scores[key] = score
            doc_num += score * weight
            if not both_null:
                sim_num += raw * weight
                sim_den += weight
        doc = doc_num / total_weight if total_weight else 1.0
        sim = sim_num / sim_den if sim_den else 1.0
        return doc, sim

    def _best_of(self, f: FieldPlan, value: Any, alternatives: Any, p: Any, res: DocResult | None, where: str):
        """(the acceptable value that decides, its position, its similarity) of a ground-truth value listing
        ``_alternatives``: the one of ``value`` (position 0) and each alternative (position k + 1 for
        ``alternatives[k]``) whose similarity to ``p`` is the highest, the first on a tie
        (docs/ground-truth.md)."""
        candidates = self._candidates(f, value, alternatives, res)
        best, won = self._similarity_of(f, value, p, where), 0  # _value's similarity as it is (NaN too)
        for k in range(1, len(candidates)):
            s = self._similarity_of(f, candidates[k], p, where)
            if s > best:
                best, won = s, k
        return candidates[won], won, best

    def _candidates(self, f: FieldPlan, value: Any, alternatives: Any, res: DocResult | None) -> list:
        """``value`` then its acceptable ``alternatives`` (rich ones unwrapped: their ``_value``), at most --limit
        alternatives of them; a malformed or overlong list is reported (when recording)."""
        alternatives = _acceptable(res, f, alternatives)
        return [value, *(unwrap(a)[0] for a in alternatives)]

    def _similarity_of(self, f: FieldPlan, g: Any, p: Any, where: str) -> float:
        """The similarity that decides field ``f``'s verdict on (g, p), nothing recorded: a leaf's comparator
        score, an object's weighted mean of its fields, a list's score (null on both sides: 1.0; on one: 0.0)."""
        if f.kind is Kind.OBJECT:
            if g is None or p is None:
                return 1.0 if g is None and p is None else 0.0
            return self._model(f.model, g, p, None)[1]
        return self._field(f, g, p, None, None, where)[1]

    def _item_variants(self, f: FieldPlan, g: Any, p: Any, res: DocResult | None) -> list[list] | None:
        """Each ground-truth item's acceptable values (its ``_value`` first) when the list ``g`` holds
        ``_alternatives`` at any depth, else None; a predicted item listing ``_alternatives`` is reported."""
        if res is not None and f.rich:
            for item in _as_list(p):
                if type(item) is dict and "_value" in item and "_alternatives" in item:
                    _predicted_alternatives(res, f)  # once for the list
                    break
        if not value_carries_alternatives(g):
            return None
        out = []
        for item in _as_list(g):
            if f.rich and type(item) is dict and "_value" in item:
                alternatives = item.get("_alternatives")
                value = item["_value"]
                out.append([value] if not alternatives else self._candidates(f, value, alternatives, res))
            else:
                if res is not None and f.rich and type(item) is dict and "_alternatives" in item:
                    _without_value(res, f)
                out.append([item])
        return out

    def _field(self, f: FieldPlan, g: Any, p: Any, conf: Any, res: DocResult | None, where: str = ""):
        """(score, raw similarity, null on both sides) of one field; records counts into ``res``.

        ``where`` is the display path of the enclosing object, used only when explaining.
        """
        kind = f.kind
        if kind is Kind.PRIMITIVE:
            return self._primitive(f, g, p, conf, res, where)
        where = where + f.key
        if kind is Kind.OBJECT:
            return self._object(f, g, p, res, where)
        if kind is Kind.PRIMITIVE_LIST:
            return self._primitive_list(f, g, p, res, where)
        return self._object_list(f, g, p, res, where)

    def _primitive(
        self,
        f: FieldPlan,
        g: Any,
        p: Any,
        conf: Any,
        res: DocResult | None,
        where: str,
        similarity: float | None = None,
    ):
        """One leaf; ``where`` is the enclosing object's display path (for explaining only)."""
        g_null = g is None or (type(g) in EMPTIABLE and not g)  # values.is_null, inlined: the hottest line
        p_null = p is None or (type(p) in EMPTIABLE and not p)
        if res is not None and (not p_null or conf is not None):
            res.predicted_leaves += 1
        if g_null or p_null:
            both = g_null and p_null
            if res is not None:
                label = TN if both else FA if g_null else FN
                res.tally[5 * f.index + label] += 1
                if conf is not None:
                    _confidence(res, f, both, conf, 1.0 if both else 0.0)
                if res.trace is not None:
                    _trace(res, f, label, g, p, float(both), float(both), path=where + f.key, conf=conf)
            return (1.0, 1.0, True) if both else (0.0, 0.0, False)
        raw = self.similarity(f, g, p) if similarity is None else similarity
        matched = raw >= f.threshold
        score = raw if matched or not f.clip else 0.0
        if res is not None:
            res.tally[5 * f.index + (TP if matched else FD)] += 1
            res.similarity_bins.append(self.layout.flat_one(f.index, raw))
            if not matched:
                _keep_fd(res, f, g, p)
            if conf is not None:
                _confidence(res, f, matched, conf, raw)
            if res.trace is not None:
                _trace(res, f, TP if matched else FD, g, p, raw, score, path=where + f.key, conf=conf)
        return score, raw, False

    def _object(self, f: FieldPlan, g: Any, p: Any, res: DocResult | None, where: str = ""):
        g_null, p_null = g is None, p is None
        if g_null or p_null:
            if res is not None:
                label = TN if g_null and p_null else FA if g_null else FN
                res.tally[5 * f.index + label] += 1
                if label != TN:
                    _lone_boxes(res, f.model, p if g_null else g, g_null, where + ".")
                if res.trace is not None:
                    _trace(res, f, label, g, p, float(g_null and p_null), float(g_null and p_null), path=where)
            if g_null and p_null:
                return 1.0, 1.0, True
            return 0.0, 0.0, False
        if res is not None and res.trace is not None:
            row = len(res.trace)
        doc, raw = self._model(f.model, g, p, res, where=where + ".")
        matched = raw >= f.threshold
        score = raw if matched or not f.clip else 0.0
        if res is not None:
            res.tally[5 * f.index + (TP if matched else FD)] += 1
            if res.trace is not None:
                _trace(res, f, TP if matched else FD, g, p, raw, score, path=where, at=row)
        # The object is classified on its similarity, but what it contributes to its
        # parent's similarity is its document-style score (both-null fields count 1.0).
        return score, doc, False

    def _list_null(self, f: FieldPlan, g: Any, p: Any, res: DocResult | None, where: str):
        """Result when either list is null, else None."""
        g_null, p_null = _null_list(g), _null_list(p)
        if not (g_null or p_null):
            return None
        if res is not None:
            at = 5 * f.index
            if g_null and p_null:
                res.tally[at + TN] += 1
            elif g_null:
                res.tally[at + FA] += len(_as_list(p))
            else:
                res.tally[at + FN] += len(_as_list(g))
            if f.kind is Kind.OBJECT_LIST and not (g_null and p_null):
                for k, item in enumerate(items(p if g_null else g, f.rich)):
                    _lone_boxes(res, f.model, item, g_null, f"{where}[{k}].")
                # every row on the other side went wrong
                n, m = (0, len(_as_list(p))) if g_null else (len(_as_list(g)), 0)
                res.list_errors.append(row_errors.one_side(f.index, n, m))
            if res.trace is not None:
                label = TN if g_null and p_null else FA if g_null else FN
                _trace(res, f, label, g, p, float(g_null and p_null), float(g_null and p_null), path=where)
            if res.pairings is not None and not (g_null and p_null):  # every item of the other side unmatched
                n, m = (0, len(_as_list(p))) if g_null else (len(_as_list(g)), 0)
                res.pairings.note(where, n, m, [], [], {}, None)
        return (1.0, 1.0, True) if g_null and p_null else (0.0, 0.0, False)

    def _primitive_list(self, f: FieldPlan, g: Any, p: Any, res: DocResult | None, where: str = ""):
        early = self._list_null(f, g, p, res, where)
        if early is not None:
            return early
        gv = items(g)
        pv, pconf = _values_and_confidences(_as_list(p))
        variants = self._item_variants(f, g, p, res) if self._alts else None
        flat = gv if variants is None else _flat(variants)  # each acceptable value a row of the matrix
        chosen = None
        bounded = None
        if f.match_order:  # by position: no matrix
            pairs = position_pairs(len(gv), len(pv))
            if variants is None:
                similarities = [self.similarity(f, gv[i], pv[j]) for i, j in pairs]
            else:  # each pair's best acceptable value
                chosen, similarities = self._positioned_variants(f, variants, pv, pairs)
        elif over_bound(flat, pv, f):
            rows = None if variants is None else len(flat)
            pairs, similarities, bounded = self._long_primitive_list(f, gv, pv, rows)
        else:
            if variants is None:
                matrix = self.similarity_matrix(f, gv, pv)
            else:  # each cell is the item's best acceptable value
                chosen, best = _best_variants(variants, self.similarity_matrix(f, flat, pv, as_array=True))
                matrix = best.tolist()
            pairs = self._primitive_pairs(f, matrix)
            similarities = [matrix[i][j] for i, j in pairs]
        won = None
        if chosen is not None:
            gv, won = _winners(res, f, variants, chosen, pairs)
        longest = max(len(gv), len(pv))
        score_sum = raw_sum = 0.0
        tp = 0
        for (i, j), s in zip(pairs, similarities):
            raw_sum += s
            if s >= f.threshold:
                tp += 1
                score_sum += s
            elif not f.clip:
                score_sum += s
            if res is not None:
                res.similarity_bins.append(self.layout.flat_one(f.index, s))
            if res is not None and not s >= f.threshold:
                _keep_fd(res, f, gv[i], pv[j])
            if res is not None and pconf is not None and pconf[j] is not None:
                _confidence(res, f, s >= f.threshold, pconf[j], s)
            if res is not None and res.trace is not None:
                label = TP if s >= f.threshold else FD
                _trace(
                    res,
                    f,
                    label,
                    gv[i],
                    pv[j],
                    s,
                    s if label == TP or not f.clip else 0.0,
                    path=f"{where}[{i}↔{j}]",
                    conf=pconf[j] if pconf is not None else None,
                    alternative=won.get(i) if won else None,
                )
        if res is not None:
            res.predicted_leaves += len(pv)
            _count_pairs(res, f, tp, len(pairs), len(gv), len(pv))
            if res.trace is not None:
                _trace_unpaired(res, f, gv, pv, pairs, where, pconf)
            if res.pairings is not None:
                rules = dict.fromkeys(pairs, POSITION) if f.match_order else {}
                res.pairings.note(where, len(gv), len(pv), pairs, similarities, rules, bounded)
        return score_sum / longest, raw_sum / longest, False

    def _positioned_variants(self, f: FieldPlan, variants: list[list], pv: list, pairs: list[tuple[int, int]]):
        """(chosen, similarities) of list items paired by position whose ground truth lists acceptable values: each
        pair's best value (the first on a tie, as ``_best_variants`` chooses), ``chosen[i, j]`` its position."""
        chosen = np.zeros((len(variants), len(pv)), dtype=np.intp)
        similarities = []
        for i, j in pairs:
            row = [self.similarity(f, value, pv[j]) for value in variants[i]]
            best, k = row[0], 0
            for t in range(1, len(row)):
                if row[t] > best:  # NaN never wins
                    best, k = row[t], t
            chosen[i, j] = k
            similarities.append(best)
        return chosen, similarities

    def _primitive_pairs(self, f: FieldPlan, matrix: list[list[float]]) -> list[tuple[int, int]]:
        # Ties are broken toward pairs that clear the threshold (then keep their score).
        return assign(matrix, [[1.0 + s if s >= f.threshold else 0.0 for s in row] for row in matrix])

    def _long_primitive_list(self, f: FieldPlan, gv: list, pv: list, rows: int | None = None):
        """(pairs, their similarities in the same order, how they were made) of lists beyond MATCH_BOUND pairs
        (``rows``: the matrix's rows, when the items' ``_alternatives`` made them more than the items)."""

        def best(rows: list[int], cols: list[int]) -> list[tuple[int, int]]:
            local = self._primitive_pairs(f, self.similarity_matrix(f, [gv[i] for i in rows], [pv[j] for j in cols]))
            return [(rows[a], cols[b]) for a, b in local]

        g_keys, p_keys = [item_key(v) for v in gv], [item_key(v) for v in pv]
        bounded = bounded_pairs(g_keys, p_keys, best, _fits(f, gv, pv))
        pairs = bounded.pairs
        # An identical pair's similarity depends on its value alone: asked once per value (the first SAME_VALUES
        # values), so a million repeats of a hundred strings make a hundred comparator calls, not a million.
        same: dict[Any, float] = {}
        similarities = []
        for i, j in pairs:
            key = g_keys[i]
            s = same.get(key) if key is not None and key == p_keys[j] else None
            if s is None:
                s = self.similarity(f, gv[i], pv[j])
                if key is not None and key == p_keys[j] and len(same) < SAME_VALUES:
                    same[key] = s
            similarities.append(s)
        self._note_long_list(f, gv, pv, bounded.how, rows)
        return pairs, similarities, bounded

    def _long_object_list(
        self,
        model: ModelPlan,
        f: FieldPlan,
        gv: list,
        pv: list,
        pairs_by: ModelPlan | None = None,
        rows: int | None = None,
    ):
        """(pair scores as docs[i, j], similarities as sims[i, j], pairs, how they were made) of lists beyond
        MATCH_BOUND pairs (paired by the item model ``pairs_by``, default ``model``; scored by ``model``; ``rows``:
        the matrix's rows, when the items' ``_alternatives`` made them more than the items)."""
        bounded = self._bounded_object_pairs(pairs_by or model, f, gv, pv)
        docs, sims = self._pair_scores(model, gv, pv, bounded.pairs)
        self._note_long_list(f, gv, pv, bounded.how, rows)
        return docs, sims, bounded.pairs, bounded

    def _bounded_object_pairs(self, model: ModelPlan, f: FieldPlan, gv: list, pv: list):
        """The pairing (matching.Bounded) of object lists beyond MATCH_BOUND pairs, by ``model``'s similarities."""

        def best(rows: list[int], cols: list[int]) -> list[tuple[int, int]]:
            docs, sims, _ = self.item_matrices(model, [gv[i] for i in rows], [pv[j] for j in cols])
            local = _assign_items(model, docs, sims)
            return [(rows[a], cols[b]) for a, b in local]

        def key(item: Any) -> Any:
            return item_key([field_value(item, field) for field in model.fields])

        return bounded_pairs([key(a) for a in gv], [key(b) for b in pv], best, _fits(f, gv, pv))

    def _pair_scores(self, model: ModelPlan, gv: list, pv: list, pairs: list[tuple[int, int]]):
        """(docs[i, j], sims[i, j]) of the chosen ``pairs`` only, as dicts."""
        docs: dict[tuple[int, int], float] = {}
        sims: dict[tuple[int, int], float] = {}
        for i, j in pairs:
            docs[i, j], sims[i, j] = self._model(model, gv[i], pv[j], None)
        return docs, sims

    def proxy_pairs(self, f: FieldPlan, gv: list, pv: list) -> list[tuple[int, int]]:
        """The pairs ``--judge-pairing proxy`` chooses for list field ``f``'s items ``gv`` x ``pv``: the
        Hungarian algorithm on the proxy item model (engine/proxy.py), as for any list; the judge is not asked.
        The prefetch walk and ``_object_list`` both pair by it, so that the judge is asked what is scored."""
        return self._proxy_ruled(f, gv, pv)[0]

    def _proxy_ruled(
        self, f: FieldPlan, gv: list, pv: list, res: DocResult | None = None, where: str = ""
    ) -> tuple[list[tuple[int, int]], set[tuple[int, int]], dict[tuple[int, int], str]]:
        """``proxy_pairs`` as ``_ruled_pairs``' triple: the key (or the position) pairs first, the proxy the items
        left; a key repeated within a list is a record problem of ``res``."""
        if f.match_key or f.match_order:
            return self._ruled_pairs(
                f, gv, pv, lambda rows, cols: self._proxy_pairs(f, *_sub(gv, pv, rows, cols)), res, where
            )
        return self._proxy_pairs(f, gv, pv), set(), {}

    def _proxy_pairs(self, f: FieldPlan, gv: list, pv: list) -> list[tuple[int, int]]:
        proxy = self._proxy[f.index]
        if over_bound(gv, pv, f):
            return self._bounded_object_pairs(proxy, f, gv, pv).pairs
        docs, sims, _ = self.item_matrices(proxy, gv, pv)
        return _assign_items(proxy, docs, sims)

    def _ruled_pairs(
        self,
        f: FieldPlan,
        gv: list,
        pv: list,
        rest: Callable[[list, list], list[tuple[int, int]] | Bounded],
        res: DocResult | None = None,
        where: str = "",
    ) -> tuple[list[tuple[int, int]], set[tuple[int, int]], dict[tuple[int, int], str]]:
        """(pairs in ground-truth order, the pairs the rule made, each pair's rule but HUNGARIAN) of list field
        ``f``'s items ``gv`` x ``pv`` paired by its rule: x-aws-stickler-match-order, by position (the extra items
        unpaired); -match-key, by equal key values, then ``rest(rows, cols)`` pairs the items left, gv[rows] x
        pv[cols], by today's matching (as (a, b) positions in ``rows`` and ``cols``, or a long list's Bounded).
        Key values repeated within one list are a record problem of ``res`` (at display path ``where``)."""
        if f.match_order:
            fixed = position_pairs(len(gv), len(pv))
            return fixed, set(fixed), dict.fromkeys(fixed, POSITION)
        pairs, found, rules = paired_by_key(f, gv, pv, rest)
        if res is not None:
            for side, value, at in found.repeated:
                message = (
                    f"{where}: key {'+'.join(f.match_key)}={as_written(value)} appears {len(at):,} times in the {side} "
                    f"(items {listed_indexes(at)}): paired by similarity"
                )
                res.errors.append(problem_in(side, message))
        return pairs, set(found.pairs), rules

    def _assigned(
        self, model: ModelPlan, f: FieldPlan, gv: list, pv: list, docs: Any, sims: Any, res: Any, where: str
    ) -> tuple[list[tuple[int, int]], set[tuple[int, int]], dict[tuple[int, int], str]]:
        """``_ruled_pairs``' triple for an object list whose item matrices (``docs``, ``sims``) are known: the list's
        rule pairs first and the items left by the same assignment on what they leave; without a rule, the
        Hungarian pairing (ties broken toward matched pairs, then higher pair scores)."""
        if f.match_key or f.match_order:
            return self._ruled_pairs(
                f,
                gv,
                pv,
                lambda rows, cols: _assign_items(model, docs[np.ix_(rows, cols)], sims[np.ix_(rows, cols)]),
                res,
                where,
            )
        return _assign_items(model, docs, sims), set(), {}

    def _note_long_list(
        self, f: FieldPlan, gv: list, pv: list, how: str, rows: int | None = None, what: str = "items"
    ) -> None:
        """Say that list field ``f``'s ``what`` ``gv`` x ``pv`` went beyond the matching bound, and why: too many
        pairs, long texts, or (``rows``: the matrix's rows) the items' ``_alternatives``, each acceptable value a
        row, which are then not read."""
        size = f"{len(gv):,} x {len(pv):,} {what}"
        if rows is not None:
            size += f" and their _alternatives: {rows:,} x {len(pv):,} rows"
        more = (
            "more pairs than the matching bound"
            if (len(gv) if rows is None else rows) * len(pv) > MATCH_BOUND
            else "long texts: more work than the matching bound"
        )
        unread = "" if rows is None else "the items' _alternatives are not read; "
        self._pending.append(f"{f.path}: {size}, {more} ({MATCH_BOUND:,}): {unread}{how}")

    def _object_list(self, f: FieldPlan, g: Any, p: Any, res: DocResult | None, where: str = ""):
        early = self._list_null(f, g, p, res, where)
        if early is not None:
            return early
        model = f.model
        entry = self._prepared.get((f.index, id(g), id(p))) if self._prepared else None
        if entry is not None and not (entry[0] is g and entry[1] is p):
            entry = None  # another list at a freed list's address
        variants = self._item_variants(f, g, p, res) if self._alts else None
        if variants is not None:
            entry = None  # scored pair by pair below, each item's acceptable values weighed
        if entry is not None:
            _, _, gv, pv, docs, sims, known, start = entry
        else:
            gv, pv = items(g, f.rich), items(p, f.rich)
            start = 0
        flat = gv if variants is None else _flat(variants)  # each acceptable value a row of the matrix
        proxy = self._proxy.get(f.index) if self._proxy else None
        chosen = won = None
        ruled = bool(f.match_key or f.match_order)
        fixed: set[tuple[int, int]] = set()  # the pairs the list's rule made: opened whatever their similarity
        rules: dict[tuple[int, int], str] = {}  # each pair's rule, but HUNGARIAN (for the pairings shown)
        bounded = None  # a long list's pairing (matching.Bounded), for the pairings shown
        if proxy is not None:  # paired by the proxy; the judge scores the chosen pairs alone
            pairs, fixed, rules = self._proxy_ruled(f, gv, pv, res, where)
            docs, sims = self._pair_scores(model, gv, pv, pairs)
            known = None
        elif variants is not None and not over_bound(flat, pv, f):
            # each cell is the item's best acceptable value, pair by pair
            cells = [[self._model(model, a, b, None) for b in pv] for a in flat]
            shape = (len(cells), len(pv))
            chosen, sims, docs = _best_variants(
                variants,
                np.array([[c[1] for c in row] for row in cells], dtype=float).reshape(shape),
                np.array([[c[0] for c in row] for row in cells], dtype=float).reshape(shape),
            )
            known = None
            pairs, fixed, rules = self._assigned(model, f, gv, pv, docs, sims, res, where)
            gv, won = _winners(res, f, variants, chosen, pairs)
        elif entry is None and over_bound(flat, pv, f):
            rows = None if variants is None else len(flat)
            if ruled:  # the rule's pairs first, the items left matched as any list's (long, or not)

                def rest(left_g: list[int], left_p: list[int]):
                    sub_g, sub_p = _sub(gv, pv, left_g, left_p)
                    if not over_bound(sub_g, sub_p, f):  # what the key left fits the matching
                        d, s, _ = self.item_matrices(model, sub_g, sub_p)
                        return _assign_items(model, d, s)
                    found = self._bounded_object_pairs(model, f, sub_g, sub_p)
                    self._note_long_list(f, sub_g, sub_p, found.how, None, "items left after pairing by key")
                    return found

                pairs, fixed, rules = self._ruled_pairs(f, gv, pv, rest, res, where)
                docs, sims = self._pair_scores(model, gv, pv, pairs)
                if rows is not None:
                    self._pending.append(
                        f"{f.path}: {len(gv):,} x {len(pv):,} items and their _alternatives: {rows:,} x {len(pv):,} "
                        f"rows, beyond the matching bound ({MATCH_BOUND:,}): the items' _alternatives are not read"
                    )
            else:
                docs, sims, pairs, bounded = self._long_object_list(model, f, gv, pv, rows=rows)
            known = None
        else:
            if entry is None:
                docs, sims, known_arrays = self.item_matrices(model, gv, pv)
                # Matched pairs are scored again for counting: from plain lists, indexing is cheap.
                known = (
                    {k: v.ravel().tolist() for k, v in known_arrays.items()}
                    if known_arrays and res is not None
                    else None
                )
            pairs, fixed, rules = self._assigned(model, f, gv, pv, docs, sims, res, where)
        hits = [sims[i, j] >= model.match_threshold for i, j in pairs]  # each pair matched, read once
        tp = hits.count(True)  # a plain int (hits may be numpy booleans)
        opened = [h or pair in fixed for pair, h in zip(pairs, hits)] if fixed else hits
        if res is not None:  # before the matched pairs are descended into: the order BatchScorer finds lists in
            if not row_errors.in_order(pairs, tp, len(gv), len(pv)):
                found = row_errors.classify(f.index, model, gv, pv, sims, pairs)
                if found:
                    res.list_errors.append(found)
            if res.pairings is not None:  # before the lists inside its items: kept from the top (explain-items)
                res.pairings.note(where, len(gv), len(pv), pairs, [sims[i, j] for i, j in pairs], rules, bounded)
        width = len(pv)
        first_row = len(res.trace) if res is not None and res.trace is not None else 0
        total = 0.0
        for (i, j), matched, descend in zip(pairs, hits, opened):
            pair_score = float(docs[i, j])
            if pair_score >= PAIR_FLOOR:
                total += pair_score
            if res is not None and res.trace is not None:
                _trace(
                    res,
                    f,
                    TP if matched else FD,
                    gv[i],
                    pv[j],
                    float(sims[i, j]),
                    pair_score,
                    path=f"{where}[{i}↔{j}]",
                    threshold=model.match_threshold,
                    alternative=won.get(i) if won else None,
                )
            if descend and res is not None:
                self._model(
                    model, gv[i], pv[j], res, where=f"{where}[{i}↔{j}].", known=known, cell=start + i * width + j
                )
        if res is not None:
            _count_pairs(res, f, tp, len(pairs), len(gv), len(pv))
            if tp < len(gv) or tp < len(pv):  # the boxes of items without a matched counterpart
                _unmatched_boxes(res, model, gv, pv, [pair for pair, h in zip(pairs, opened) if h], where)
            if res.trace is not None:
                _trace_unpaired(res, f, gv, pv, pairs, where)
        score = total / max(len(gv), len(pv))
        if res is not None and res.trace is not None:
            _trace(
                res,
                f,
                TP if tp == len(pairs) == len(gv) == len(pv) else FD,
                g,
                p,
                score,
                score,
                path=where,
                at=first_row,
            )
        return score, score, False

    # -- every item against every item ------------------------------------------

    def item_matrices(self, model: ModelPlan, gv: list, pv: list):
        """(document-style scores, raw similarities, known) of every gt item against every pred item.

        ``known`` maps a primitive field's index to its similarity matrix, so
        that matched pairs, scored again for counting, need no comparator call.

        The same numbers as ``_model`` on each pair, computed a field at a time
        by the cell kernel (``items.item_cells`` on a full ``Matrix``), to the last bit.
        """
        n, m = len(gv), len(pv)
        if n * m < SMALL_MATRIX:
            cells = [[self._model(model, a, b, None) for b in pv] for a in gv]
            docs = np.array([[c[0] for c in row] for row in cells], dtype=float).reshape(n, m)
            sims = np.array([[c[1] for c in row] for row in cells], dtype=float).reshape(n, m)
            return docs, sims, None
        columns = item_columns([a if type(a) is dict else {} for a in gv], [b if type(b) is dict else {} for b in pv])
        docs, sims, raw = item_cells(self, model, columns, Matrix(n, m))
        known = {f.index: raw[k].reshape(n, m) for k, f in enumerate(model.fields) if f.kind is _PRIMITIVE}
        return docs.reshape(n, m), sims.reshape(n, m), known

    def _prepare_lists(self, f: FieldPlan, found: list[tuple[Any, Any]]) -> None:
        """Score every item pair of the object lists ``found`` (field ``f``, a batch of documents) at once.

        A batch in which any comparison fails is left to the per-document path,
        so that each failure is reported with the document it belongs to.
        """
        model = f.model
        gvs, pvs, kept = [], [], []
        cost = list_cost(f)
        for g, p in found:
            gv, pv = items(g, f.rich), items(p, f.rich)
            if len(gv) * len(pv) <= BATCH_PAIRS and not over_bound(gv, pv, f, cost):  # else matched as a long list
                gvs.append(gv)
                pvs.append(pv)
                kept.append((g, p))
        if not kept:
            return
        found = kept
        rows, cols, starts = cell_grid(
            np.array([len(a) for a in gvs], dtype=np.intp), np.array([len(b) for b in pvs], dtype=np.intp)
        )
        starts = starts.tolist()
        reported = self.failures_noted()
        try:
            columns = item_columns(
                [a if type(a) is dict else {} for gv in gvs for a in gv],
                [b if type(b) is dict else {} for pv in pvs for b in pv],
            )
            docs, sims, raw = item_cells(self, model, columns, Cells(rows, cols))
        except Exception:
            docs = None
        if self.forget_failures(reported) or docs is None:
            return
        known = {field.index: raw[k].tolist() for k, field in enumerate(model.fields) if field.kind is _PRIMITIVE}
        for (g, p), gv, pv, start in zip(found, gvs, pvs, starts):
            end = start + len(gv) * len(pv)
            shape = (len(gv), len(pv))
            self._prepared[(f.index, id(g), id(p))] = (
                g,
                p,
                gv,
                pv,
                docs[start:end].reshape(shape),
                sims[start:end].reshape(shape),
                known,
                start,
            )

    def model_arrays(self, model: ModelPlan) -> ModelArrays:
        """The per-field constants of an item model as arrays (the cell kernel's), built once per model."""
        cached = self._arrays.get(id(model))
        if cached is None:
            cached = self._arrays[id(model)] = model_arrays(model)
        return cached


def _models(model: ModelPlan):
    """``model`` and every model below it."""
    yield model
    for f in model.fields:
        if f.model is not None:
            yield from _models(f.model)


def _count_pairs(res: DocResult, f: FieldPlan, tp: int, paired: int, gts: int, preds: int) -> None:
    """A list's counts: matched pairs TP, other pairs FD, unpaired gt items FN, unpaired predictions FA."""
    at = 5 * f.index
    res.tally[at + TP] += tp
    res.tally[at + FD] += paired - tp
    res.tally[at + FN] += gts - paired
    res.tally[at + FA] += preds - paired


def _flat(variants: list[list]) -> list:
    """The items' acceptable values one after the other (the rows of an expanded similarity matrix)."""
    return [value for values in variants for value in values]


def _best_variants(variants: list[list], decide: np.ndarray, *others: np.ndarray) -> tuple[np.ndarray, ...]:
    """(chosen, decide, *others) reduced from one row per acceptable value to one row per item: each cell (i, j)
    takes the row of item i's acceptable value most similar to prediction j (``decide``; the first on a tie),
    ``chosen[i, j]`` its position among item i's values (0: ``_value``)."""
    n, m = len(variants), decide.shape[1]
    rows = np.empty((n, m), dtype=np.intp)
    chosen = np.zeros((n, m), dtype=np.intp)
    first = 0
    for i, values in enumerate(variants):
        best = decide[first]
        for k in range(1, len(values)):  # as _best_of: a later value wins only if strictly more similar
            better = decide[first + k] > best
            best = np.where(better, decide[first + k], best)
            chosen[i][better] = k
        rows[i] = first + chosen[i]
        first += len(values)
    cols = np.arange(m)
    return (chosen, decide[rows, cols], *(other[rows, cols] for other in others))


def _winners(res: DocResult | None, f: FieldPlan, variants: list[list], chosen: np.ndarray, pairs: list) -> tuple:
    """(each item's deciding value, {item: alternative index} of the pairs an alternative decided) of a list
    whose items list acceptable values; each item that lists some is counted (``DocResult.alternatives``)."""
    values = [v[0] for v in variants]
    won: dict[int, int] = {}
    for i, j in pairs:
        k = int(chosen[i, j])
        if k:
            values[i] = variants[i][k]
            won[i] = k - 1
    if res is not None:
        found = [(f.index, i in won) for i, v in enumerate(variants) if len(v) > 1]
        if found:
            if res.alternatives is None:
                res.alternatives = []
            res.alternatives.extend(found)
    return values, won


def _decided(res: DocResult, f: FieldPlan, won: int, start: int, path: str) -> None:
    """Count a value that lists ``_alternatives`` (``won``: 0 when its ``_value`` decided, k for the k-th
    alternative) and, explaining, mark its comparison row (at ``start``) with the alternative that decided."""
    if res.alternatives is None:
        res.alternatives = []
    res.alternatives.append((f.index, won > 0))
    trace = res.trace
    if won and trace is not None and 0 <= start < len(trace) and trace[start].path == path:
        trace[start] = dataclasses.replace(trace[start], alternative=won - 1)


SHOWN_INDEXES = 10  # a record problem lists at most this many item indexes, then says how many more


def listed_indexes(at: list[int]) -> str:
    """Item indexes for a record problem: the first SHOWN_INDEXES, then how many more ("0, 1, ... and 2,990 more")."""
    shown = ", ".join(map(str, at[:SHOWN_INDEXES]))
    return shown if len(at) <= SHOWN_INDEXES else f"{shown} and {len(at) - SHOWN_INDEXES:,} more"


def _acceptable(res: DocResult | None, f: FieldPlan, alternatives: Any, nest: bool = False) -> list:
    """The ground truth's ``_alternatives`` of field ``f`` that are read: none of a value that is not a list, at most
    --limit alternatives of a list; what is not read, and an alternative listing ``_alternatives`` of its own (only its
    ``_value`` is read: acceptable values do not nest), is reported when recording. ``nest``: inside a value
    ANLSStarComparator scores whole, where they do nest, as anls-star's tuples do."""
    if type(alternatives) is not list:
        if res is not None:
            res.errors.append(
                GroundTruthProblem(
                    f"{f.path}: the ground truth's _alternatives must be a list of values, got "
                    f"{as_written(alternatives)[:80]}; its _value alone is scored"
                )
            )
        return []
    bound = limits.current().alternatives
    if len(alternatives) > bound:
        if res is not None:
            res.errors.append(
                GroundTruthProblem(
                    f"{f.path}: the ground truth lists {len(alternatives):,} _alternatives, more than "
                    f"--limit alternatives ({bound:,}): the first {bound:,} are scored"
                )
            )
        alternatives = alternatives[:bound]
    if res is not None and not nest:
        for a in alternatives:
            if type(a) is dict and "_value" in a and "_alternatives" in a:
                res.errors.append(
                    GroundTruthProblem(
                        f"{f.path}: an alternative lists _alternatives of its own; acceptable values do not nest: "
                        "its _value alone is read"
                    )
                )
                break
    return alternatives


def _without_value(res: DocResult, f: FieldPlan) -> None:
    message = GroundTruthProblem(
        f"{f.path}: the ground truth lists _alternatives without a _value; they are not read: "
        "the object is scored as written"
    )
    if message not in res.errors:  # once a field (a list's items, an ANLS* value's objects)
        res.errors.append(message)


def _whole_value_problems(res: DocResult, f: FieldPlan, g: Any, p: Any) -> None:
    """Within the values of a field whose comparator scores them whole (ANLS*, which reads the ground truth's
    ``_alternatives`` itself): the ground truth's malformed ``_alternatives`` and a prediction's, reported at the
    field as elsewhere."""
    stack = [g]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            if "_alternatives" in node:
                if "_value" not in node:
                    _without_value(res, f)
                else:
                    _acceptable(res, f, node["_alternatives"], nest=True)
            stack.extend(node.values())
        elif type(node) is list:
            stack.extend(node)
    if holds_key(p, "_alternatives"):
        _predicted_alternatives(res, f)


def _predicted_alternatives(res: DocResult, f: FieldPlan) -> None:
    res.errors.append(
        f"{f.path}: a prediction carries _alternatives (only the ground truth lists acceptable values); "
        "its _value is scored"
    )


def _keep_metadata(res: DocResult, f: FieldPlan, rich: dict, where: str) -> None:
    """Keep a rich value's other keys (``_bbox``, source spans…) for accumulators and reports."""
    extra = {k: v for k, v in rich.items() if k not in ("_value", "_confidence")}
    if extra:
        res.metadata.append((f.index, where + f.key, extra))


def _box(res: DocResult, f: FieldPlan, gbox: Any, pbox: Any, matched: bool, raw: float, conf: Any, path: str) -> None:
    """Record a leaf's boxes (localisation.py); a box that is not one, or has its corners reversed,
    is reported (and scored as the library scores it: IoU 0.0, corners reordered)."""
    g, a = _box_state(res, gbox, path, "ground truth")
    p, b = _box_state(res, pbox, path, "prediction")
    iou = box_iou(a, b) if a is not None and b is not None else 0.0
    # A malformed confidence is ranked as if none was given.
    res.boxes.append(BoxRecord(f.index, g, p, matched, iou, confidence_value(conf)))


def _box_state(res: DocResult, value: Any, path: str, side: str) -> tuple[int, Any]:
    if value is None:
        return ABSENT, None
    box = parse_box(value)
    if box is None:
        shown = repr(value)
        res.errors.append(
            problem_in(
                side,
                f"{path}: {side} _bbox is not a box (four finite numbers [x1, y1, x2, y2] or two "
                f"points [[x1, y1], [x2, y2]]): {shown[:80]}{'…' if len(shown) > 80 else ''}; IoU 0",
            )
        )
        return NOT_A_BOX, None
    raw = corners(value)  # a box parses, so these are its four coordinates
    if float(raw[2]) < float(raw[0]) or float(raw[3]) < float(raw[1]):
        message = f"{path}: {side} _bbox has x2 < x1 or y2 < y1 ({value!r}); its corners are reordered"
        res.errors.append(problem_in(side, message))
        return REVERSED, box
    return BOX, box


def _lone_boxes(res: DocResult, model: ModelPlan | None, obj: Any, predicted: bool, where: str) -> None:
    """Record the boxes of an object that has no matched counterpart: ground-truth boxes are missed,
    predicted ones false detections (the fields' verdicts are FN and FA)."""
    if model is None or type(obj) is not dict:
        return
    for f in model.fields:
        value = obj.get(f.key)
        if f.kind is Kind.PRIMITIVE:
            if is_rich(value) and value.get("_bbox") is not None:
                box, conf = value["_bbox"], value.get("_confidence")
                _box(
                    res,
                    f,
                    box if not predicted else None,
                    box if predicted else None,
                    False,
                    0.0,
                    conf if predicted else None,
                    where + f.key,
                )
        elif f.kind is Kind.OBJECT:
            _lone_boxes(res, f.model, unwrap(value, f.rich)[0], predicted, where + f.key + ".")
        elif f.kind is Kind.OBJECT_LIST and not _null_list(unwrap(value, f.rich)[0]):
            for k, item in enumerate(items(unwrap(value, f.rich)[0], f.rich)):
                _lone_boxes(res, f.model, item, predicted, f"{where}{f.key}[{k}].")


def _unmatched_boxes(res: DocResult, model: ModelPlan, gv: list, pv: list, matched: list, where: str) -> None:
    """The boxes of an object list's items left unpaired, or paired below the match threshold (``matched``: the
    pairs at or above it)."""
    paired_g = {i for i, _ in matched}
    paired_p = {j for _, j in matched}
    for i, item in enumerate(gv):
        if i not in paired_g:
            _lone_boxes(res, model, item, False, f"{where}[{i}].")
    for j, item in enumerate(pv):
        if j not in paired_p:
            _lone_boxes(res, model, item, True, f"{where}[{j}].")


def _sub(gv: list, pv: list, rows: list[int], cols: list[int]) -> tuple[list, list]:
    """The items gv[rows] and pv[cols]."""
    return [gv[i] for i in rows], [pv[j] for j in cols]


def _assign_items(model: ModelPlan, docs: np.ndarray, sims: np.ndarray) -> list[tuple[int, int]]:
    """The Hungarian pairing of a list of objects: the most summed similarity, ties broken toward matched pairs,
    then higher pair scores."""
    return assign(sims, (sims >= model.match_threshold) + docs)


def _fits(f: FieldPlan, gv: list, pv: list) -> Any:
    """``bounded_pairs``' test of what remains after identical items: within the matching bound."""
    cost = list_cost(f)
    return lambda rows, cols: not over_bound([gv[i] for i in rows], [pv[j] for j in cols], f, cost)


def _keep_fd(res: DocResult, f: FieldPlan, g: Any, p: Any) -> None:
    """Keep an FD's values for the cosmetic-or-real classification (cosmetic.py)."""
    if res.fd_values is None:
        res.fd_values = []
    res.fd_values.append((f.index, g, p))


def _confidence(res: DocResult, f: FieldPlan, matched: bool, conf: Any, similarity: float) -> None:
    """Record a confidence pair; malformed confidences are the confidence module's concern."""
    value = confidence_value(conf)
    if value is not None:
        res.confidences.append(ConfidencePair(f.index, matched, value, similarity))
    else:
        res.errors.append(f"{f.path}: _confidence must be a number from 0 to 1, got {as_written(conf)}")


def _filled(res: DocResult, path: str, side: int) -> None:
    """Note (explaining only) that the value at ``path`` was missing on ``side`` (0 gt, 1 pred) and
    the schema's default stands in for it."""
    if res.defaults is None:
        res.defaults = {}
    res.defaults.setdefault(path, [False, False])[side] = True


SAME_VALUES = 10_000  # identical item values whose similarity a long list remembers (_long_primitive_list)


def _values_and_confidences(listed: list) -> tuple[list, list | None]:
    """(plain values, each one's ``_confidence``) of a list's items; the list itself and None when no item is a
    rich value (the common case: a million plain items make no million pairs to take apart)."""
    for v in listed:
        if type(v) is dict:
            break
    else:
        return listed, None
    pairs = [unwrap(v) for v in listed]
    return [v for v, _ in pairs], [c for _, c in pairs]


def _trace(
    res: DocResult,
    f: FieldPlan,
    label: int,
    g: Any,
    p: Any,
    sim: float,
    score: float,
    path: str | None = None,
    threshold: float | None = None,
    at: int | None = None,
    conf: Any = None,
    alternative: int | None = None,
) -> None:
    """Add one comparison row: plain values, the prediction's confidence at a leaf (a number from 0
    to 1, else None: a malformed one is listed in ``errors``), and which sides a default filled in."""
    trace = res.trace
    if not trace.has_room(at, label):
        trace.more[label] += 1
        return
    path = path or f.path
    filled = None
    if res.defaults:
        filled = res.defaults.get(path)
        if filled is None and path.endswith("]"):  # an item of a list that a default filled in
            filled = res.defaults.get(path[: path.rindex("[")])
    if confidence_value(conf) is None:
        conf = None  # as the metrics ignore it (NaN fails the comparison too)
    row = TraceRow(
        path,
        LABELS[label],
        without_wrappers(g, f.rich),
        without_wrappers(p, f.rich),
        sim,
        score,
        f.deciding_threshold if threshold is None else threshold,
        f.comparator_name or "object",
        conf,
        bool(filled and filled[0]),
        bool(filled and filled[1]),
        alternative,
    )
    trace.add(row, label, at)


def _trace_unpaired(
    res: DocResult, f: FieldPlan, gv: list, pv: list, pairs: list, where: str, confidences: list | None = None
) -> None:
    paired_g, paired_p = bytearray(len(gv)), bytearray(len(pv))  # a byte an item, not sets of a million ints
    for i, j in pairs:
        paired_g[i] = paired_p[j] = 1
    for i, value in enumerate(gv):
        if not paired_g[i]:
            _trace(res, f, FN, value, None, 0.0, 0.0, path=f"{where}[{i}↔-]")
    for j, value in enumerate(pv):
        if not paired_p[j]:
            _trace(
                res, f, FA, None, value, 0.0, 0.0, path=f"{where}[-↔{j}]", conf=confidences[j] if confidences else None
            )
