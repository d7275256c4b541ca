"""What comparing one document produces: plain data, no behaviour beyond small accessors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

# Order of the per-field confusion counts in DocResult.counts.
TP, FA, FD, FN, TN = range(5)
COUNT_NAMES = ("tp", "fa", "fd", "fn", "tn")
LABELS = ("TP", "FA", "FD", "FN", "TN")  # a comparison row's type, by count index
LABEL_INDEX = {name: k for k, name in enumerate(LABELS)}


class GroundTruthProblem(str):
    """A record problem found in the ground truth's record, not in the prediction's (a key repeated in a ground-truth
    list, a malformed ``_alternatives``...): a message of ``DocResult.errors`` like any other, that the run reports
    at the ground truth's file and line (run/scoring.py) rather than at the prediction's."""

    __slots__ = ()


def problem_in(side: str, message: str) -> str:
    """``message`` as a problem of the record on ``side`` ("ground truth" or "prediction")."""
    return GroundTruthProblem(message) if side == "ground truth" else message


class ConfidencePair(NamedTuple):
    """A scored leaf whose prediction carried ``_confidence`` (a tuple: cheap to make by the million)."""

    field_index: int
    is_match: bool
    confidence: float
    similarity: float


@dataclass(frozen=True, slots=True)
class NonMatch:
    path: str
    kind: str  # "FD", "FA" or "FN"
    gt: object
    pred: object
    score: float


@dataclass(frozen=True, slots=True)
class TraceRow:
    """One comparison made while explaining a pair (``stickler compare``, failure lists).

    ``gt`` and ``pred`` are plain values (rich ``{"_value": …}`` wrappers removed at every depth);
    ``confidence`` is the prediction's ``_confidence`` at a leaf (None elsewhere, or when it gave
    none); ``gt_default``/``pred_default`` say that side's value was missing and the schema's
    ``default`` was compared in its place; ``alternative`` is, when the ground truth lists ``_alternatives``
    and one of them decided the comparison, its index in that list (None when ``_value`` decided, or there
    are none).
    """

    path: str
    label: str  # TP, FA, FD, FN or TN
    gt: object
    pred: object
    similarity: float
    score: float
    threshold: float
    comparator: str
    confidence: float | None = None
    gt_default: bool = False
    pred_default: bool = False
    alternative: int | None = None


_FAILING = frozenset(("FA", "FD", "FN"))


class Trace(list):
    """The rows of one explained pair, at most twice ``cap`` of them: the first ``cap`` in the order they are
    listed, and after them failing rows (FD, FA, FN) only, up to ``cap`` more, so that a document whose first
    comparisons all match still shows how it fails (--limit explain-items). Rows beyond are not made, only
    counted by label in ``more`` (TP, FA, FD, FN, TN, as the counts), so that explaining a document of a
    million comparisons holds at most ``2 * cap`` rows. Every row past the first ``cap`` is a failing one."""

    __slots__ = ("cap", "more")

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap
        self.more = [0, 0, 0, 0, 0]

    def has_room(self, at: int | None, label: int) -> bool:
        """Whether a row of count index ``label`` added at ``at`` (None: at the end) would be kept; counted if
        not."""
        if len(self) < self.cap or (at is not None and at < self.cap):
            return True
        return LABELS[label] in _FAILING and len(self) < 2 * self.cap

    def add(self, row: "TraceRow", label: int, at: int | None) -> None:
        """Add ``row`` (of count index ``label``) at ``at`` or at the end. A row inserted before rows already
        kept (an object's before its fields) pushes the row at the window's edge past the first ``cap``: a
        passing one is then dropped, and a row past ``2 * cap`` too (both counted)."""
        if at is None:
            self.append(row)
            return
        self.insert(at, row)
        cap = self.cap
        if len(self) > cap and self[cap].label not in _FAILING:
            self.more[LABEL_INDEX[self.pop(cap).label]] += 1
        if len(self) > 2 * cap:
            self.more[LABEL_INDEX[self.pop().label]] += 1

    @property
    def not_shown(self) -> int:
        """Rows counted beyond the cap."""
        return sum(self.more)


# How an item pair was made (DocResult.pairings; docs/ground-truth.md): by equal key values, by position, as
# identical items of a long list, by the Hungarian algorithm; an item left without a counterpart is "unmatched".
KEY, POSITION, IDENTICAL, HUNGARIAN, UNMATCHED = "key", "position", "identical", "hungarian", "unmatched"


class Pairing(NamedTuple):
    """How one item of a list was paired (issue 42, "Every pairing shown"): ``path`` the list's display path,
    the items' indexes (None on the side an unmatched item has no counterpart), the rule that paired them
    (matching.KEY, POSITION, IDENTICAL, HUNGARIAN, or UNMATCHED) and the pair's similarity (None if unmatched)."""

    path: str
    gt_index: int | None
    pred_index: int | None
    rule: str
    similarity: float | None


class Pairings(list):
    """The pairings of one explained pair: the first ``cap`` made (--limit explain-items), the others only
    counted in ``more``, so that a document of a million items holds at most ``cap`` of them."""

    __slots__ = ("cap", "more")

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap
        self.more = 0

    def add(self, pairing: Pairing) -> None:
        if len(self) < self.cap:
            self.append(pairing)
        else:
            self.more += 1

    def note(
        self,
        where: str,
        n: int,
        m: int,
        pairs: list[tuple[int, int]],
        similarities: list,
        rules: dict[tuple[int, int], str] | None = None,
        bounded: Any = None,
    ) -> None:
        """Add one list's pairings (``n`` x ``m`` items, at display path ``where``): each pair with its rule (from
        ``rules``, else as a long list's ``bounded`` pairing (matching.Bounded) made it, else HUNGARIAN) and
        similarity, then each item left unmatched. What both engine paths call, so that they note alike."""
        paired_g, paired_p = bytearray(n), bytearray(m)
        for k, ((i, j), s) in enumerate(zip(pairs, similarities)):
            paired_g[i] = paired_p[j] = 1
            if len(self) >= self.cap:
                self.more += 1
                continue
            if rules and (i, j) in rules:
                how = rules[i, j]
            elif bounded is not None and bounded.pairs is pairs:
                how = bounded.rule(k)
            else:
                how = HUNGARIAN
            self.append(Pairing(where, i, j, how, float(s)))
        for i in range(n):
            if not paired_g[i]:
                self.add(Pairing(where, i, None, UNMATCHED, None))
        for j in range(m):
            if not paired_p[j]:
                self.add(Pairing(where, None, j, UNMATCHED, None))

    def by_list(self) -> dict[str, list[dict]]:
        """{list path: [{"gt_index", "pred_index", "rule", "similarity"}, ...]}, lists in the order walked."""
        out: dict[str, list[dict]] = {}
        for p in self:
            out.setdefault(p.path, []).append(
                {"gt_index": p.gt_index, "pred_index": p.pred_index, "rule": p.rule, "similarity": p.similarity}
            )
        return out


@dataclass(slots=True)
class DocResult:
    """Scores and confusion counts of one ground-truth/prediction pair.

    ``counts[i]`` is the ``[tp, fa, fd, fn, tn]`` of field index ``i`` (see
    ``Plan.fields``), kept flat in ``tally`` (``tally[5 * i + TP]``…) so that
    adding a document up is one pass; ``score_sum[i] / score_n[i]`` is that
    field's mean score within this document (list children are scored once
    per matched pair).
    """

    score: float
    field_scores: dict[str, float]
    tally: list[int]
    score_sum: list[float]
    score_n: list[int]
    confidences: list[ConfidencePair] = field(default_factory=list)
    non_matches: list[NonMatch] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    trace: Trace | None = None  # filled only when explaining one pair
    # Explaining only: the paths whose value a schema default stood in for, as [gt, pred] flags.
    defaults: dict[str, list[bool]] | None = None
    # Scored leaf values the prediction gave (or gave a confidence for): the
    # denominator of confidence coverage.
    predicted_leaves: int = 0
    # (field index, path, metadata) of rich prediction values with keys beyond
    # _value and _confidence, e.g. {"_bbox": [...]}: kept for accumulators.
    metadata: list[tuple[int, str, dict]] = field(default_factory=list)
    # Leaves with a ``_bbox`` on either side, for localisation mAP (boxes.BoxRecord tuples).
    boxes: list = field(default_factory=list)

    # The similarity bin (bins.Layout, flat) of every compared pair of a primitive field: the
    # threshold histograms (docs/why-it-fails.md, "Is a threshold set right?").
    similarity_bins: list[int] = field(default_factory=list)

    # What went wrong in each list of objects not matched whole and in order (engine/row_errors.ListFindings).
    list_errors: list = field(default_factory=list)

    # (field index, gt value, pred value) of each FD of a leaf or of a list of leaves (a matched item pair
    # below the threshold), in walk order; None when there is none: what cosmetic.py classifies.
    fd_values: list[tuple[int, object, object]] | None = None

    # The judges' bill (comparators.base.BILL counts) by field index, for the fields whose comparator keeps
    # one and counted something since the last document: a batch's prefetch walk lands on its first document.
    judge: dict[int, list[int]] | None = None

    # (field index, decided by an alternative) of each compared ground-truth value listing ``_alternatives``
    # (docs/ground-truth.md), in walk order; None when there is none: what analyses/alternatives.py counts.
    alternatives: list[tuple[int, bool]] | None = None

    # How each list's items were paired (Pairing tuples), when asked (``Engine.compare(..., pairings=True)``, or
    # explaining): None otherwise, and nothing is paid for it.
    pairings: Pairings | None = None

    @property
    def counts(self) -> list[list[int]]:
        """Per field ``[tp, fa, fd, fn, tn]`` (a copy of ``tally``, shaped)."""
        return counts_by_field(self.tally)

    def totals(self, top_level: list[int]) -> list[int]:
        """Document-level [tp, fa, fd, fn, tn]: the sum over the top-level fields."""
        return totals(self.tally, top_level)


def counts_by_field(tally: list[int]) -> list[list[int]]:
    return [tally[i : i + 5] for i in range(0, len(tally), 5)]


def totals(tally: list[int], fields: list[int]) -> list[int]:
    """[tp, fa, fd, fn, tn] summed over ``fields``."""
    out = [0, 0, 0, 0, 0]
    for i in fields:
        for k in range(5):
            out[k] += tally[5 * i + k]
    return out
