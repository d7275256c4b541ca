"""Annotators' agreement (``stickler agree``): pure figures, records in, figures out, no I/O.

Per leaf field (``vendor``, ``line_items.sku``: the paths of eval's field metrics), and per list of objects
(``line_items``: its items, matched or not):

- ``agreement``: the share of comparisons in which two annotators agree, over every ordered pair of
  annotators and every document. A comparison agrees when the engine counts it TP (the field's comparator,
  at its threshold, calls the two values a match: eval's rule) or TN (both null or missing); FD, FA and FN
  disagree. Each pair of annotators is compared both ways (A as the ground truth, then B), and per field the
  direction with the larger share of agreeing comparisons counts for both orders (``document``): an
  annotator's ``_alternatives``, which the engine reads on the ground-truth side only, count either way. In a list of primitives, each
  item pair the engine matches is one comparison and each unmatched item one more (an FA or an FN). In a
  list of objects, a field of the items counts the matched item pairs only (as eval counts it); the list's
  own row counts each item pair the engine matched (TP, or FD below the list's match threshold) and each
  unmatched item.
- ``kappa`` (two annotators) and ``alpha`` (nominal Krippendorff's alpha, any number): for the
  categorical fields only, ExactComparator fields outside lists. Two values are one category when the
  field's comparator calls them equal, or when the two annotators agree by the rule above (``categories``);
  null and missing are one category, "null".

Intervals are percentile bootstrap intervals over documents, drawn as ``report/statistics.py`` draws
them: every figure is a ratio of per-document sums, so a resample is a weighted sum of rows.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from itertools import combinations, permutations
from typing import Any, Callable, Sequence

import numpy as np

from ..plan import FieldPlan, Kind, ModelPlan, Plan
from ..errors import UsageError
from .gates import Gate, matching, metric_gate
from .gates import result as result_of
from .statistics import _interval, _percentiles, resampled_sums

METRICS = ("agreement", "kappa", "alpha")
CATEGORICAL_COMPARATOR = "ExactComparator"
NULL = "null"


@dataclass(frozen=True)
class Leaf:
    """A leaf field: its plan, the keys from the record down to its value (to the outermost list holding it,
    for a field inside a list: the value shown in a disagreement), and whether it is categorical."""

    field: FieldPlan
    keys: tuple[str, ...]
    categorical: bool

    @property
    def path(self) -> str:
        return self.field.path


def leaves(plan: Plan) -> list[Leaf]:
    """The plan's leaf fields (primitives and lists of primitives, at any depth), in the plan's order."""
    found: list[Leaf] = []

    def walk(model: ModelPlan, keys: tuple[str, ...], in_list: bool) -> None:
        for f in model.fields:
            here = keys if in_list else (*keys, f.key)
            if f.kind is Kind.OBJECT_LIST:  # a row of its own: its items' pairing (an unmatched item is its FA/FN)
                found.append(Leaf(f, here, False))
            if f.kind in (Kind.OBJECT, Kind.OBJECT_LIST) and f.model is not None:
                walk(f.model, here, in_list or f.kind is Kind.OBJECT_LIST)
            elif f.kind in (Kind.PRIMITIVE, Kind.PRIMITIVE_LIST):
                categorical = not in_list and f.kind is Kind.PRIMITIVE and f.comparator_name == CATEGORICAL_COMPARATOR
                found.append(Leaf(f, here, categorical))

    walk(plan.root, (), False)
    return sorted(found, key=lambda leaf: leaf.field.index)


def value_at(record: Any, keys: Sequence[str]) -> Any:
    """The value under ``keys`` (None when missing); a rich ``{"_value": v}`` gives ``v``."""
    value = record
    for key in keys:
        if isinstance(value, dict) and "_value" in value and key not in value:
            value = value["_value"]
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    if isinstance(value, dict) and "_value" in value:
        value = value["_value"]
    return value


def categories(
    leaf: Leaf, rows: Sequence[Sequence[Any]], agreed: Sequence[Sequence[bool]] | None = None
) -> list[list[str]]:
    """Each value's category, under the field's own comparator: the JSON text of the first value met that the
    comparator, at the field's threshold, calls equal to it (ExactComparator folds case by default: "Food" and
    "food" are one category, as they are one in agreement). Null and missing are the category ``null``.
    ``agreed`` (per row, per pair of annotators in ``combinations`` order: ``Document.agreed``, empty where the
    two disagree, else the annotators read as the ground truth in a direction where they agree): two annotators
    who agree take one category, that of the one read as the ground truth (of both: the first in sorted order),
    so that a value matched through an ``_alternatives`` entry is one category with it, as it is one in
    agreement, whichever annotator comes first."""
    comparator, threshold = leaf.field.comparator, leaf.field.threshold
    seen: list[tuple[Any, str]] = []

    def label(value: Any) -> str:
        if value is None:
            return NULL
        for first, text in seen:
            if comparator is not None and comparator.similarity(first, value) >= threshold:
                return text
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        seen.append((value, text))
        return text

    out = []
    for r, row in enumerate(rows):
        labels = [label(value) for value in row]
        for (a, b), leaders in zip(combinations(range(len(row)), 2), agreed[r] if agreed is not None else ()):
            if leaders:
                leader = min(leaders, key=lambda i: labels[i])
                labels[a] = labels[b] = labels[leader]
        out.append(labels)
    return out


@dataclass
class Document:
    """One document as every annotator labelled it: per leaf, agreeing and all comparisons over the ordered
    pairs of annotators, each annotator's value, and whether each pair of annotators (in ``combinations``
    order) agrees on it, and in which direction; ``problems``: the engine's record problems, (annotator read as the ground truth, the
    other annotator, message)."""

    name: str
    agree: list[int]
    total: list[int]
    values: list[list[Any]]  # per leaf, per annotator
    # per leaf, per pair of annotators: () where they disagree, else who was the ground truth where they agree
    agreed: list[list[tuple[int, ...]]] = dataclass_field(default_factory=list)
    problems: list[tuple[int, int, str]] = dataclass_field(default_factory=list)


# The engine's problem with a prediction that carries _alternatives: agree reads each annotator's alternatives in
# the direction where that annotator is the ground truth, so the other direction's complaint is no problem here.
PREDICTED_ALTERNATIVES = "a prediction carries _alternatives"


def document(name: str, records: Sequence[dict], found: list[Leaf], compare: Callable[[dict, dict], Any]) -> Document:
    """Compare each pair of annotators' records of one document both ways (``compare(gt, pred)``: the engine's
    DocResult, its ``counts`` per field index [tp, fa, fd, fn, tn] and its ``errors``). A field agrees between A
    and B in the direction that agrees more (A as the ground truth, or B; a tie: A), and that direction's
    comparisons count for both ordered pairs (A, B) and (B, A): an annotator's ``_alternatives`` are read where
    it is the ground truth, and agreement is the same whichever annotator comes first."""
    agree = [0] * len(found)
    total = [0] * len(found)
    agreed: list[list[tuple[int, ...]]] = [[] for _ in found]
    problems: list[tuple[int, int, str]] = []
    for a, b in combinations(range(len(records)), 2):
        one, other = compare(records[a], records[b]), compare(records[b], records[a])
        for gt, pred, result in ((a, b, one), (b, a, other)):
            problems += [(gt, pred, m) for m in result.errors if PREDICTED_ALTERNATIVES not in m]
        for k, leaf in enumerate(found):
            ab, ba = _agreeing(one.counts[leaf.field.index]), _agreeing(other.counts[leaf.field.index])
            first, second = ab[0] * ba[1], ba[0] * ab[1]  # the two shares, cross-multiplied (no 0/0)
            chosen = ab if first >= second else ba
            agree[k] += 2 * chosen[0]
            total[k] += 2 * chosen[1]
            # who was the ground truth where they agree: the one whose category both take (``categories``)
            leaders = (a, b) if first == second else (a,) if first > second else (b,)
            agreed[k].append(leaders if chosen[0] == chosen[1] else ())
    values = [[value_at(r, leaf.keys) for r in records] for leaf in found]
    return Document(name, agree, total, values, agreed, problems)


def _agreeing(counts: Sequence[int]) -> tuple[int, int]:
    """(agreeing, all) comparisons of one field's [tp, fa, fd, fn, tn]: TP and TN agree."""
    tp, fa, fd, fn, tn = counts
    return tp + tn, tp + fa + fd + fn + tn


def kappa_of(table: np.ndarray) -> np.ndarray:
    """Cohen's kappa of contingency tables (..., C, C) (rows: annotator A's category, columns: B's); NaN where
    chance agreement is 1 (one category only: kappa undefined, as scikit-learn's cohen_kappa_score)."""
    n = table.sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = np.trace(table, axis1=-2, axis2=-1) / n
        expected = (table.sum(axis=-1) * table.sum(axis=-2)).sum(axis=-1) / (n * n)
        return np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)


def alpha_of(coincidences: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha (nominal) of coincidence matrices (..., C, C): 1 - (n - 1) D_o / D_e with D_o the
    off-diagonal coincidences and D_e the sum over c != k of n_c n_k; NaN where every value is one category."""
    marginals = coincidences.sum(axis=-1)
    n = marginals.sum(axis=-1)
    off = n - np.trace(coincidences, axis1=-2, axis2=-1)
    expected = n * n - (marginals * marginals).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1 - (n - 1) * off / expected, np.nan)


def _contingency(labels: Sequence[str], cats: dict[str, int]) -> np.ndarray:
    table = np.zeros((len(cats), len(cats)))
    table[cats[labels[0]], cats[labels[1]]] = 1
    return table


def _coincidence(labels: Sequence[str], cats: dict[str, int]) -> np.ndarray:
    """One unit's coincidences: each ordered pair of its values, weighted 1 / (m - 1)."""
    table = np.zeros((len(cats), len(cats)))
    for a, b in permutations(range(len(labels)), 2):
        table[cats[labels[a]], cats[labels[b]]] += 1 / (len(labels) - 1)
    return table


def figures(
    documents: Sequence[Document],
    found: list[Leaf],
    annotators: int,
    level: float | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Per leaf: {"field", "documents", "comparisons", "agreement", "kappa" (two annotators), "alpha", and with
    ``level`` "ci": {metric: [low, high] | None}}; a figure with nothing to measure is None."""
    blocks: list[np.ndarray] = []  # per-document columns, one block per figure's sufficient statistics
    shapes: list[tuple[int, str, int]] = []  # (leaf, metric, categories)
    for k, leaf in enumerate(found):
        blocks.append(
            np.array([[d.agree[k], d.total[k]] for d in documents], dtype=np.float64).reshape(len(documents), 2)
        )
        shapes.append((k, "agreement", 0))
        if not leaf.categorical:
            continue
        labels = categories(leaf, [d.values[k] for d in documents], [d.agreed[k] for d in documents])
        cats = {c: i for i, c in enumerate(sorted({c for row in labels for c in row}))}
        size = len(cats)
        if annotators == 2:
            blocks.append(
                np.array([_contingency(row, cats).ravel() for row in labels]).reshape(len(labels), size * size)
            )
            shapes.append((k, "kappa", size))
        blocks.append(np.array([_coincidence(row, cats).ravel() for row in labels]).reshape(len(labels), size * size))
        shapes.append((k, "alpha", size))
    rows = np.concatenate(blocks, axis=1) if blocks else np.zeros((len(documents), 0))

    def measure(sums: np.ndarray) -> list[np.ndarray]:
        """Each figure of ``shapes`` from column sums (resamples x columns)."""
        out, at = [], 0
        for _, metric, size in shapes:
            if metric == "agreement":
                with np.errstate(divide="ignore", invalid="ignore"):
                    out.append(sums[:, at] / sums[:, at + 1])
                at += 2
                continue
            table = sums[:, at : at + size * size].reshape(len(sums), size, size)
            out.append(kappa_of(table) if metric == "kappa" else alpha_of(table))
            at += size * size
        return out

    point = measure(rows.sum(axis=0, keepdims=True))
    result = [
        {
            "field": leaf.path,
            "comparator": leaf.field.comparator_name,
            "threshold": leaf.field.threshold,
            "categorical": leaf.categorical,
            "documents": len(documents),
            "comparisons": sum(d.total[k] for d in documents),
        }
        for k, leaf in enumerate(found)
    ]
    for (k, metric, _), value in zip(shapes, point):
        result[k][metric] = _number(value[0])
    for k, leaf in enumerate(found):
        if leaf.categorical and annotators == 2:
            result[k].setdefault("kappa", None)
    if level is not None:
        for entry in result:
            entry["ci"] = {m: None for m in METRICS if m in entry}
        if documents:
            parts = [measure(sums) for sums in resampled_sums(rows, n_resamples, seed)]
            cut = _percentiles(level)
            for j, (k, metric, _) in enumerate(shapes):
                found_interval = _interval(np.concatenate([p[j] for p in parts]), cut)
                result[k]["ci"][metric] = None if found_interval is None else list(found_interval)
    return result


def _number(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def disagreements(documents: Sequence[Document], found: list[Leaf], limit: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``limit`` (document, field) cells where some pair of annotators disagrees, in document order
    then field order, with each annotator's value; and how many more there are."""
    shown: list[dict[str, Any]] = []
    more = 0
    for d in documents:
        for k, leaf in enumerate(found):
            if d.agree[k] == d.total[k]:
                continue
            if len(shown) < limit:
                shown.append({"document": d.name, "field": leaf.path, "values": [_bounded(v) for v in d.values[k]]})
            else:
                more += 1
    return shown, more


VALUE_KEPT = 10_000  # characters of a disagreeing value the JSON report keeps (its JSON text, for a non-string)


def _bounded(value: Any) -> Any:
    """``value``, or past VALUE_KEPT characters its text cut there, saying how many more there were (a string)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= VALUE_KEPT:
        return value
    return f"{text[:VALUE_KEPT]}… (+{len(text) - VALUE_KEPT:,} characters)"


def chance_metric(report: dict[str, Any]) -> str:
    """kappa for two annotators, alpha for more: the chance-corrected figure of an agree report."""
    return "kappa" if len(report["annotators"]) == 2 else "alpha"


def parse_gate(text: str, origin: str = "--fail-under") -> Gate:
    """``FIELD.METRIC=VALUE`` with METRIC one of ``METRICS`` (FIELD may be a glob: ``*.kappa``)."""
    return metric_gate(text, METRICS, "FIELD.METRIC=VALUE", "vendor.kappa=0.8", origin)


def check_gates(
    gates: Sequence[Gate], result: list[dict[str, Any]], no_data_passes: bool = False
) -> list[dict[str, Any]]:
    """One result per gate and field it matches (a gate matching no field is a usage error), as eval's gates
    report them (``gates.result``): a figure that cannot be measured (kappa of a field with one category) fails
    the gate unless ``no_data_passes``; no document fails it always. A kappa or alpha gate applies to the
    categorical fields it matches only: a non-categorical field never has one (``check_gate_fields``)."""
    by_path = {entry["field"]: entry for entry in result}
    out = []
    for gate in gates:
        # kappa and alpha: the categorical fields only (a glob skips the others; check_gate_fields refused a name)
        having = [path for path, entry in by_path.items() if gate.metric == "agreement" or entry["categorical"]]
        for path in matching(gate, having):
            entry = by_path[path]
            out.append(result_of(gate, path, entry.get(gate.metric), entry["documents"] == 0, no_data_passes))
    return out


def check_gate_fields(gates: Sequence[Gate], found: list[Leaf], annotators: int) -> None:
    """Before any scoring: a kappa or alpha gate must name a field that can have one. Kappa and alpha are
    measured on categorical fields only (kappa for two annotators only), so a glob (``*.kappa``) gates the
    categorical fields it matches, and naming another field (``total.kappa``) is a usage error saying why; a
    gate that matches no field at all is one too (``gates.matching``)."""
    paths = [leaf.path for leaf in found]
    categorical = [leaf.path for leaf in found if leaf.categorical]
    for gate in gates:
        if gate.metric == "agreement":
            matching(gate, paths)
            continue
        if gate.metric == "kappa" and annotators != 2:
            raise UsageError(
                f"{gate.origin} {gate.key!r}: kappa (Cohen's) compares two annotators and there are {annotators}; "
                f"gate alpha instead, e.g. {gate.pattern}.alpha"
            )
        if not any(ch in (gate.pattern or "") for ch in "*?["):
            matching(gate, paths)  # a field of the schema (else a usage error naming the fields)
            if gate.pattern not in categorical:
                raise UsageError(
                    f"{gate.origin} {gate.key!r}: {gate.pattern} has no {gate.metric}: kappa and alpha are measured "
                    "on categorical fields only (ExactComparator, outside lists); gate its agreement instead"
                )
        elif not any(fnmatch.fnmatchcase(path, gate.pattern or "") for path in categorical):
            raise UsageError(
                f"{gate.origin} {gate.key!r}: matches no categorical field (kappa and alpha are measured on "
                f"ExactComparator fields outside lists); those: {', '.join(categorical) or 'none'}"
            )


ERRORS_KEPT = 100  # record problems the JSON report lists (all are counted)


def record_problems(errors: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The report's record problems (reader.DataError.as_dict()'s shape): the first ``ERRORS_KEPT`` and the count."""
    return {"errors": list(errors[:ERRORS_KEPT]), "error_count": len(errors)}
