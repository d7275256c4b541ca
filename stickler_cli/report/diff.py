"""``stickler diff``: is prediction set B really better than A on the same ground truth?

Both sets are scored against the same documents, keeping each document's row
(accumulate.row_width); ``statistics.paired_comparison`` then gives, for every
figure, the difference B − A with a paired-bootstrap interval and a paired
permutation p-value. A change is significant when p < 1 − level and the
interval leaves out 0: an improvement or a regression. Everything else is noise.
"""

from __future__ import annotations

import fnmatch
from typing import Any, Callable

import numpy as np

from . import gates as quality_gates
from ..errors import UsageError
from ..run.evaluate import Evaluation
from ..run.reader import record_warnings
from .statistics import COUNTS, document_rows, paired_comparison
from ..version import __version__

IMPROVED, REGRESSED, UNCHANGED, NO_DATA = "improved", "regressed", "no significant change", "no data"
DEFAULT_WATCHED = ("weighted_overall_score", "*.cm_f1")
FIGURES = ("cm_precision", "cm_recall", "recall_with_fd", "cm_f1", "mean_score")
NAMED = 10  # watched figures the verdict line names; the tables (and -f json) list every one
DOCUMENTS_NAMED = 5  # documents named per figure and direction of change, in every format ("and N more")
FIELDS_SHOWN = 10  # figures whose changed documents the terminal, Markdown and HTML list (-f json: every one)
LABELS = {IMPROVED: "better", REGRESSED: "worse", UNCHANGED: "noise", NO_DATA: "no data"}


def rule(level: float) -> str:
    """The rule the verdicts follow, said under the table (a p above the bar with an interval that
    leaves out 0 is noise, and a reader should not have to guess why)."""
    return (
        f"better or worse: p < {1 - level:g} and the {level * 100:g}% interval leaves out 0; anything else is "
        "noise (both tests must agree)"
    )


def check_same_documents(a: Evaluation, b: Evaluation, paths: list[str]) -> None:
    """Two saved states can be compared only document by document: same schema, every document's
    row kept (``--ci``), and the same ground truth at every position."""
    from ..run.accumulate import schema_digest
    from ..errors import InputError
    from ..run.state_file import check_documents

    if schema_digest(a.plan.schema, a.plan.resources) != schema_digest(b.plan.schema, b.plan.resources):
        raise InputError(f"made with a different schema than {paths[0]}; only runs of one schema compare", paths[1])
    for run, path in zip((a, b), paths):
        check_documents(run.accumulator, [path])
    keys_a, keys_b = a.accumulator.index.digests, b.accumulator.index.digests
    if len(keys_a) != len(keys_b):
        raise InputError(
            f"scored {len(keys_b)} documents, {paths[0]} {len(keys_a)}: not the same ground truth", paths[1]
        )
    if keys_a != keys_b:
        k = next(k for k, (x, y) in enumerate(zip(keys_a, keys_b)) if x != y)
        raise InputError(
            f"document {k + 1} is not the ground truth {paths[0]} scored there "
            "(runs must read the same ground truth in the same order)",
            paths[1],
        )
    a.inputs["predictions"], b.inputs["predictions"] = paths


def _number(value: Any) -> float | None:
    value = float(value)
    return None if np.isnan(value) else value


def compare(
    a: Evaluation, b: Evaluation, level: float, resamples: int, seed: int, watched: tuple[str, ...] = DEFAULT_WATCHED
) -> dict[str, Any]:
    """The diff report: every figure of A and B, their difference, interval, p-value and verdict;
    ``watched`` (metric keys as gates write them, globs allowed) are the ones --fail-on-regression reads."""
    plan = a.plan
    fields = len(plan.fields)
    found = paired_comparison(
        document_rows(a.accumulator.documents, fields),
        document_rows(b.accumulator.documents, fields),
        fields,
        level,
        resamples,
        seed,
    )
    alpha = 1 - level
    keys = [quality_gates.make(key, 0.0, "--metric") for key in watched]
    for gate in keys:  # only the figures a diff computes
        if gate.metric not in ("weighted_overall_score", *FIGURES) or (gate.pattern is None) != (
            gate.metric == "weighted_overall_score"
        ):
            raise UsageError(
                f"--metric {gate.key!r}: a diff compares weighted_overall_score and, per field, "
                f"{', '.join(FIGURES)} (e.g. 'line_items.*.cm_recall')"
            )
    paths = [f.path for f in plan.fields]
    for gate in keys:
        if gate.pattern is not None:
            quality_gates.matching(gate, paths)

    def entry(metric: str, path: str | None, k: int | None) -> dict[str, Any]:
        block = found[metric]
        pick = (lambda v: v) if k is None else (lambda v: v[k])
        diff, low, high, p = (_number(pick(block[x])) for x in ("difference", "low", "high", "p_value"))
        if diff is None or low is None or high is None or p is None:
            verdict = NO_DATA
        elif p < alpha and (low > 0 or high < 0):
            verdict = IMPROVED if diff > 0 else REGRESSED
        else:
            verdict = UNCHANGED
        key = metric if path is None else f"{path}.{metric}"
        return {
            "metric": metric,
            "path": path,
            "a": _number(pick(block["a"])),
            "b": _number(pick(block["b"])),
            "difference": diff,
            "ci": None if low is None else {"low": low, "high": high, "level": level},
            "p_value": p,
            "verdict": verdict,
            "watched": any(fnmatch.fnmatchcase(key, g.key) for g in keys),
        }

    rows = [entry("weighted_overall_score", None, None)]
    rows += [entry(metric, f.path, f.index) for f in plan.fields for metric in FIGURES]
    errors, warnings = record_problems(a, b)
    return {
        "report_version": "1.0",
        "tool": {"name": "stickler", "version": __version__},
        "schema": {"path": plan.source, "model_name": plan.model_name, "sha256": plan.sha256},
        "inputs": {
            "ground_truth": a.inputs.get("ground_truth"),
            "a": a.inputs.get("predictions"),
            "b": b.inputs.get("predictions"),
        },
        "document_count": a.accumulator.document_count,
        "bootstrap": {
            "level": level,
            "resamples": resamples,
            "seed": seed,
            "method": "paired bootstrap (percentile) and paired permutation test",
        },
        "comparisons": rows,
        "regressions": [r for r in rows if r["verdict"] == REGRESSED and r["watched"]],
        "improvements": [r for r in rows if r["verdict"] == IMPROVED and r["watched"]],
        "changed_documents": changed_documents(a, b),
        "errors": errors,
        "warnings": warnings,
    }


def record_problems(a: Evaluation, b: Evaluation) -> tuple[list[dict[str, Any]], list[str]]:
    """Each side's record problems (an unreadable line, a missing prediction), as eval lists them, with the side
    (``A``, ``B``) they belong to; the warnings of the ground truth (read once for both) and of each side."""
    errors = [{"side": side, **error} for side, run in (("A", a), ("B", b)) for error in run.accumulator.errors]
    stats = a.accumulator.stats
    warnings = record_warnings(
        {"gt_lines": stats.get("gt_lines"), "gt_with_confidence": stats.get("gt_with_confidence", 0)}
    )
    for side, run in (("A", a), ("B", b)):
        own = record_warnings({"older_shape_records": run.accumulator.stats.get("older_shape_records", 0)})
        warnings += [f"{side}: {warning}" for warning in own]
    return errors, warnings


def changed_documents(a: Evaluation, b: Evaluation) -> list[dict[str, Any]]:
    """Per figure (the document score, then each field's mean score in a document), the documents whose score
    B lowered and raised: how many, and the first DOCUMENTS_NAMED of each, most changed first, named by ground-truth
    file and line. A field counts in a document only where both sides compared it. Figures nothing changed on are
    left out."""
    size = len(a.plan.fields)
    rows_a, rows_b = document_rows(a.accumulator.documents, size), document_rows(b.accumulator.documents, size)
    where = a.accumulator.index.where
    found = []

    def changes(path: str | None, score_a: np.ndarray, score_b: np.ndarray, compared: np.ndarray) -> None:
        delta = np.where(compared, score_b - score_a, 0.0)
        entry: dict[str, Any] = {"path": path}
        for name, picked in (("worse", delta < -1e-12), ("better", delta > 1e-12)):
            ks = np.flatnonzero(picked)
            ks = ks[np.argsort(-np.abs(delta[ks]), kind="stable")]  # most changed first, then in input order
            entry[f"{name}_count"] = int(len(ks))
            entry[name] = [
                {"document": where(int(k)), "a": float(score_a[k]), "b": float(score_b[k])}
                for k in ks[:DOCUMENTS_NAMED]
            ]
        if entry["worse_count"] or entry["better_count"]:
            found.append(entry)

    if len(rows_a) and len(rows_a) == len(rows_b):
        changes(None, rows_a[:, 0], rows_b[:, 0], np.ones(len(rows_a), dtype=bool))
        sums, counts = 1 + COUNTS * size, 1 + (COUNTS + 1) * size
        with np.errstate(divide="ignore", invalid="ignore"):
            for f in a.plan.fields:
                n_a, n_b = rows_a[:, counts + f.index], rows_b[:, counts + f.index]
                changes(f.path, rows_a[:, sums + f.index] / n_a, rows_b[:, sums + f.index] / n_b, (n_a > 0) & (n_b > 0))
    return found


def documents_line(entry: dict[str, Any], name: Callable[[str], str] = str) -> str:
    """One figure's changed documents in a line: ``worse in 12: gt.jsonl:4 (1.000 → 0.000), … and 7 more``."""
    parts = []
    for kind in ("worse", "better"):
        total = entry[f"{kind}_count"]
        if not total:
            continue
        listed = ", ".join(f"{name(d['document'])} ({d['a']:.3f} → {d['b']:.3f})" for d in entry[kind])
        more = f" and {total - len(entry[kind])} more" if total > len(entry[kind]) else ""
        parts.append(f"{kind} in {total}: {listed}{more}")
    return "; ".join(parts)


def figure_name(entry: dict[str, Any]) -> str:
    """The figure a changed-documents entry is about."""
    return "document score" if entry["path"] is None else entry["path"]


def key(row: dict[str, Any]) -> str:
    """A comparison's figure as gates and --metric write it: ``invoice_id.cm_f1``, ``weighted_overall_score``."""
    return row["metric"] if row["path"] is None else f"{row['path']}.{row['metric']}"


def shown(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The comparisons a table shows: the watched figures and every significant change."""
    return [r for r in report["comparisons"] if r["watched"] or r["verdict"] in (IMPROVED, REGRESSED)]


def verdict(report: dict[str, Any], name: Callable[[str], str] = str) -> str:
    """The one-line answer, naming the watched figures that changed (``name`` quotes each for its format):
    ``B is significantly worse on 2 watched figure(s): invoice_id.cm_f1, weighted_overall_score``."""
    if not report["document_count"]:
        return "No document was compared"
    worse, better = ([name(key(r)) for r in report[k][: NAMED + 1]] for k in ("regressions", "improvements"))
    counts = len(report["regressions"]), len(report["improvements"])
    return changes_line("B is", "watched figure(s)", worse, better, counts) or (
        "No significant difference on the watched figures: the gap is within the noise"
    )


def changes_line(
    subject: str, unit: str, worse: list[str], better: list[str], counts: tuple[int, int] | None = None
) -> str | None:
    """``{subject} significantly worse on N {unit}: a, b; better on M: c`` (NAMED named at most, then "and K
    more"), or ``… better on M {unit}, worse on none: …``; None when nothing changed. ``counts``: how many are
    worse and better when the lists hold only the first ones."""
    n_worse, n_better = counts or (len(worse), len(better))

    def names(items: list[str], total: int) -> str:
        return ", ".join(items[:NAMED]) + (f" and {total - NAMED} more" if total > NAMED else "")

    if n_worse:
        line = f"{subject} significantly worse on {n_worse} {unit}: {names(worse, n_worse)}"
        return line + (f"; better on {n_better}: {names(better, n_better)}" if n_better else "")
    if n_better:
        return f"{subject} significantly better on {n_better} {unit}, worse on none: {names(better, n_better)}"
    return None
