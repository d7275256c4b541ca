"""The DocSplit metrics of one document packet (arXiv:2602.15958), as stickler-eval 1.0.0's
``stickler.doc_split`` defines them: pure functions, no I/O.

A packet is a sequence of pages split into documents ("sections"), each with a class and its pages
in reading order. Two sets of figures compare a predicted split with the ground truth:

- exact-match figures over sections (``classify``): page accuracy over every page either side
  names (a page one side lacks counts as wrong), and split accuracy, the share of ground-truth
  sections some predicted section reproduces with the same class and the same pages, as a set
  (without order) or as the same sequence (with order);
- graded figures over a page table (``score_pages``): V-measure and Rand index of the page
  clustering, Kendall's tau-b of the page order within each ground-truth document, combined as
  ``alpha * clustering + beta * ordering`` where ``clustering = w * V + (1 - w) * RI``.

Edge cases, as the library has them: an empty page table scores 0.0 on every graded figure; a
packet of one page clusters perfectly (V = RI = 1.0); a one-page document is in order (tau 1.0);
a document whose order is undefined (every page tied on one side) scores tau 0.0; no page at all
is page accuracy 0.0, and no ground-truth section is split accuracy 0.0.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Hashable, Sequence

UNKNOWN_CLASS = "Unknown"  # the class of a section that names none (the library's word)


@dataclass(frozen=True)
class Section:
    """One document of a packet: its class and its pages (page indices, in reading order)."""

    document_class: str
    pages: tuple[int, ...]


@dataclass(frozen=True)
class PageRow:
    """One page of the page-table form: its document and position on each side, and its class
    on each side (None when the table carries no classes)."""

    group: Hashable
    group_predicted: Hashable
    number: float
    number_predicted: float
    label: str | None = None
    label_predicted: str | None = None


@dataclass(frozen=True)
class Weights:
    """How the graded figures combine; the library's parameters and defaults."""

    alpha: float = 0.5  # weight of clustering in the packet score
    beta: float = 0.5  # weight of ordering in the packet score
    v_measure_weight: float = 0.5  # weight of V-measure (against Rand index) in clustering
    strict: bool = False  # a misclassified page gets no clustering credit (a cluster of its own)

    def check(self) -> None:
        if not 0.0 <= self.v_measure_weight <= 1.0:
            raise ValueError(f"the V-measure weight must be in [0, 1], got {self.v_measure_weight:g}")
        for name in ("alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name} must be a finite number")


@dataclass(frozen=True)
class Classification:
    """The exact-match figures of one packet, with their counts."""

    total_pages: int  # pages named by either side
    correct_pages: int  # pages of the same class on both sides
    total_sections: int  # ground-truth sections
    split_without_order: int  # of them, reproduced as a set of pages with the same class
    split_with_order: int  # of them, reproduced page for page, in order, with the same class
    # (ground-truth class, predicted class) -> pages; None where the page is missing on that side
    confusion: dict[tuple[str | None, str | None], int]

    @property
    def page_accuracy(self) -> float:
        return self.correct_pages / self.total_pages if self.total_pages else 0.0

    @property
    def split_accuracy_without_order(self) -> float:
        return self.split_without_order / self.total_sections if self.total_sections else 0.0

    @property
    def split_accuracy_with_order(self) -> float:
        return self.split_with_order / self.total_sections if self.total_sections else 0.0


@dataclass(frozen=True)
class Graded:
    """The graded figures of one packet's page table."""

    pages: int
    v_measure: float
    rand_index: float
    clustering: float
    ordering: float  # mean Kendall's tau over the ground-truth documents
    packet_score: float
    document_taus: tuple[float, ...]  # one per ground-truth document


def classify(gt: Sequence[Section], pred: Sequence[Section]) -> Classification:
    """Page accuracy, split accuracy with and without order, and the page confusion counts."""
    gt_class = {page: s.document_class for s in gt for page in s.pages}
    pred_class = {page: s.document_class for s in pred for page in s.pages}
    confusion: Counter[tuple[str | None, str | None]] = Counter(
        (gt_class.get(page), pred_class.get(page)) for page in gt_class.keys() | pred_class.keys()
    )
    correct = sum(n for (g, p), n in confusion.items() if g is not None and g == p)
    as_sets = {(s.document_class, frozenset(s.pages)) for s in pred}
    as_lists = {(s.document_class, s.pages) for s in pred}
    return Classification(
        total_pages=sum(confusion.values()),
        correct_pages=correct,
        total_sections=len(gt),
        split_without_order=sum((s.document_class, frozenset(s.pages)) in as_sets for s in gt),
        split_with_order=sum((s.document_class, s.pages) in as_lists for s in gt),
        confusion=dict(confusion),
    )


def page_table(gt: Sequence[Section], pred: Sequence[Section]) -> list[PageRow]:
    """The page-table rows of two splits: one per page both sides name (a page one side lacks has no
    row), its document the index of its section, its position that within the section. The
    library's sections and page table are separate inputs; this is how the IDP accelerator bridges
    them, and how ``stickler split`` does."""
    placed = {
        page: (k, position, s.document_class) for k, s in enumerate(pred) for position, page in enumerate(s.pages)
    }
    rows = []
    for k, section in enumerate(gt):
        for position, page in enumerate(section.pages):
            if page in placed:
                group, number, label = placed[page]
                rows.append(PageRow(k, group, position, number, section.document_class, label))
    return rows


def score_pages(rows: Sequence[PageRow], weights: Weights = Weights()) -> Graded:
    """V-measure, Rand index, ordering and the packet score of a page table."""
    weights.check()
    if not rows:
        return Graded(0, 0.0, 0.0, 0.0, 0.0, 0.0, ())
    if weights.strict and any(r.label is None or r.label_predicted is None for r in rows):
        raise ValueError("strict clustering needs the class of every page on both sides")
    truth = [r.group for r in rows]
    # Strict: a misclassified page is a cluster of its own, a label no real cluster can carry.
    predicted = [
        (_OWN_CLUSTER, k) if weights.strict and r.label != r.label_predicted else r.group_predicted
        for k, r in enumerate(rows)
    ]
    v = v_measure(truth, predicted)[2]
    ri = rand_index(truth, predicted)
    clustering = weights.v_measure_weight * v + (1 - weights.v_measure_weight) * ri
    documents: dict[Hashable, list[PageRow]] = {}
    for r in rows:
        documents.setdefault(r.group, []).append(r)
    taus = tuple(_document_tau(pages) for pages in documents.values())
    ordering = sum(taus) / len(taus)
    return Graded(len(rows), v, ri, clustering, ordering, weights.alpha * clustering + weights.beta * ordering, taus)


_OWN_CLUSTER = object()  # marks the cluster of one misclassified page (strict clustering)


def _document_tau(pages: Sequence[PageRow]) -> float:
    if len(pages) <= 1:
        return 1.0
    tau = kendall_tau_b([p.number for p in pages], [p.number_predicted for p in pages])
    return 0.0 if math.isnan(tau) else tau


def rand_index(labels_true: Sequence[Hashable], labels_pred: Sequence[Hashable]) -> float:
    """Share of page pairs on which the two clusterings agree (together in both, or apart in both);
    1.0 when there is no pair. Equals scikit-learn's ``rand_score``."""
    _check_lengths(labels_true, labels_pred)
    n = len(labels_true)
    pairs = n * (n - 1) // 2
    if not pairs:
        return 1.0
    together_both = _pairs(Counter(zip(labels_true, labels_pred)).values())
    together_true = _pairs(Counter(labels_true).values())
    together_pred = _pairs(Counter(labels_pred).values())
    apart_both = pairs - together_true - together_pred + together_both
    return (together_both + apart_both) / pairs


def v_measure(labels_true: Sequence[Hashable], labels_pred: Sequence[Hashable]) -> tuple[float, float, float]:
    """(homogeneity, completeness, V-measure): mutual information over each side's entropy, and
    their harmonic mean. A side with one cluster has entropy 0 and its ratio is 1.0; no sample at
    all is (1.0, 1.0, 1.0). Equals scikit-learn's ``homogeneity_completeness_v_measure``."""
    _check_lengths(labels_true, labels_pred)
    n = len(labels_true)
    if not n:
        return 1.0, 1.0, 1.0
    true_counts, pred_counts = Counter(labels_true), Counter(labels_pred)
    joint = Counter(zip(labels_true, labels_pred))
    # Ratios of exact integers, and entropy written as the same terms: identical clusterings give
    # mutual information equal to the entropy bit for bit, so V-measure is exactly 1.0.
    information = math.fsum(c / n * math.log(c * n / (true_counts[t] * pred_counts[p])) for (t, p), c in joint.items())
    true_entropy, pred_entropy = _entropy(true_counts.values(), n), _entropy(pred_counts.values(), n)
    homogeneity = 1.0 if true_entropy == 0 else information / true_entropy
    completeness = 1.0 if pred_entropy == 0 else information / pred_entropy
    total = homogeneity + completeness
    return homogeneity, completeness, (2 * homogeneity * completeness / total if total else 0.0)


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (ties corrected): (concordant - discordant) / sqrt(pairs untied in x *
    pairs untied in y); NaN when either side has every pair tied. Equals
    ``scipy.stats.kendalltau``. Quadratic in the pages of one document, vectorised by numpy."""
    import numpy as np

    _check_lengths(x, y)
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    balance = untied_x = untied_y = 0
    for k in range(len(xs) - 1):
        sx, sy = np.sign(xs[k + 1 :] - xs[k]), np.sign(ys[k + 1 :] - ys[k])
        balance += int(np.dot(sx, sy))
        untied_x += int(np.count_nonzero(sx))
        untied_y += int(np.count_nonzero(sy))
    denominator = math.sqrt(untied_x * untied_y)
    return balance / denominator if denominator else math.nan


def _pairs(counts) -> int:
    return sum(c * (c - 1) // 2 for c in counts)


def _entropy(counts, n: int) -> float:
    return math.fsum(c / n * math.log(n / c) for c in counts if c)


def _check_lengths(a: Sequence, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(f"the two labelings must have the same length, got {len(a)} and {len(b)}")
