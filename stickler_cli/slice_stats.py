"""Which slices are significantly worse (README, "Slices"): from the mergeable counts of slicing.py.

The measure. A field's *TP share* is TP / (TP + FA + FD + FN): of its decided comparisons (TN, absent on
both sides, left out), the share that matched. It is the Jaccard index of the field's confusion counts,
and cm_f1 = 2·J / (1 + J) is increasing in it: a slice with a lower TP share has a lower cm_f1, and the
other way round.

The test, per (slice, field): is the slice's TP share lower than the rest's (every other document)?
Fisher's exact test, one-sided, on the 2×2 table [TP, not TP] × [slice, rest]: the exact permutation
test of that comparison (each arrangement of the comparisons between slice and rest, given the
margins), valid at any size, where a normal approximation is not (one failed comparison in a slice
of one is not evidence). Fisher's test takes comparisons as independent. Comparisons of one field in
one document (the items of a list) are not: a model that misreads a table misreads every row. So the
counts are first divided by the field's *design effect* d (Kish's effective sample size; the ratio of
the variance of the TP share with documents as clusters to its variance with independent comparisons,
estimated within slices and pooled over them), rounded to whole comparisons. d ≥ 1, and d = 1 exactly
when every document holds at most one comparison of the field: then the p-value is
``scipy.stats.fisher_exact``'s.

Many (slice, field) tests are made at once: the Benjamini–Hochberg procedure keeps the expected share
of false findings among the findings at most ``fdr``. A test is made when slice and rest both hold a
comparison and the field has both a success and a failure somewhere (else no arrangement could make
the slice worse). The effect size is the difference of TP shares, slice minus rest, with Newcombe's
hybrid score interval (his method 10: from the two Wilson intervals), on the effective counts.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .metrics import count_block

DEFAULT_FDR = 0.05
DEFAULT_LEVEL = 0.95  # of the intervals on the differences (--ci LEVEL sets it)
_EXACT = 1e-9  # a design effect this close to 1 is 1 (float rounding of an exact equality)


def tp_share(counts: Sequence[int]) -> float | None:
    decided = counts[0] + counts[1] + counts[2] + counts[3]
    return counts[0] / decided if decided else None


def design_effects(values: dict[str, Any], fields: int) -> np.ndarray:
    """Per field, d = Σ_g Σ_{i∈g} (y_i − R_g x_i)² / Σ_g X_g R_g (1 − R_g) over the slices g of one path
    (x_i, y_i: document i's decided comparisons and TPs; R_g = Y_g / X_g), at least 1; 1 when no slice
    has both successes and failures."""
    num, den = np.zeros(fields), np.zeros(fields)
    for block in values.values():
        counts = np.asarray(block["counts"], dtype=np.float64)
        sxx, sxy, syy = np.asarray(block["moments"], dtype=np.float64).T
        x = counts[:, :4].sum(axis=1)
        y = counts[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(x > 0, y / np.where(x > 0, x, 1), 0.0)
        num += syy - 2 * r * sxy + r * r * sxx
        den += x * r * (1 - r)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(den > 0, num / np.where(den > 0, den, 1), 1.0)
    return np.where(d <= 1 + _EXACT, 1.0, d)


def fisher_less(a: np.ndarray, b: np.ndarray, c: np.ndarray, e: np.ndarray) -> np.ndarray:
    """One-sided p-values of Fisher's exact test that the first row's share of the first column is
    lower: ``scipy.stats.fisher_exact([[a, b], [c, e]], alternative="less")``, vectorised."""
    from scipy.stats import hypergeom

    return np.minimum(1.0, hypergeom.cdf(a, a + b + c + e, a + c, a + b))


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    """Adjusted p-values (q-values) of the Benjamini–Hochberg step-up procedure: a test is a finding at
    FDR α exactly when its q ≤ α."""
    m = len(p)
    if not m:
        return p
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    q = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(q, 1.0)
    return out


def _wilson(p: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def newcombe(p1: np.ndarray, n1: np.ndarray, p2: np.ndarray, n2: np.ndarray,
             level: float) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval (1998, method 10) for p1 − p2, with sample sizes n1, n2 (which may
    be fractional: effective sizes)."""
    from scipy.stats import norm

    z = float(norm.ppf((1 + level) / 2))
    l1, u1 = _wilson(p1, n1, z)
    l2, u2 = _wilson(p2, n2, z)
    delta = p1 - p2
    return (delta - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), delta + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def _number(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def analyse(state: dict[str, Any], field_paths: Sequence[str], top_level: Sequence[int], fdr: float = DEFAULT_FDR,
            level: float = DEFAULT_LEVEL) -> dict[str, Any]:
    """The report's ``slices`` section from ``Slices.state()``: every slice's figures, each (slice, field)
    test, and the findings (q ≤ fdr), worst first."""
    size = len(field_paths)
    tests: list[tuple[str, str, int, dict[str, Any], list[int]]] = []  # (path, value, field, its block, rest's counts)
    inputs: list[tuple[float, ...]] = []
    paths_out: dict[str, Any] = {}
    for path, values in state["paths"].items():
        d = design_effects(values, size)
        total = np.zeros((size, 5), dtype=np.int64)
        for block in values.values():
            total += np.asarray(block["counts"], dtype=np.int64).reshape(size, 5)
        shown: dict[str, Any] = {}
        for value, block in values.items():
            counts = np.asarray(block["counts"], dtype=np.int64).reshape(size, 5)
            overall = counts[list(top_level)].sum(axis=0).tolist()
            n = block["documents"]
            fields_out: dict[str, Any] = {}
            for i, field in enumerate(field_paths):
                own = counts[i].tolist()
                rest = (total[i] - counts[i]).tolist()
                entry: dict[str, Any] = {**count_block(own), "tp_share": tp_share(own)}
                fields_out[field] = entry
                xs, ys = own[0] + own[1] + own[2] + own[3], own[0]
                xr, yr = rest[0] + rest[1] + rest[2] + rest[3], rest[0]
                a, b = round(ys / d[i]), round((xs - ys) / d[i])
                c, e = round(yr / d[i]), round((xr - yr) / d[i])
                if a + b and c + e and a + c and b + e:
                    tests.append((path, value, i, entry, rest))
                    inputs.append((a, b, c, e, ys / xs, xs / d[i], yr / xr, xr / d[i]))
            shown[value] = {"documents": n, "weighted_overall_score": block["score_sum"] / n if n else None,
                            "metrics": count_block(overall), "field_metrics": fields_out}
        paths_out[path] = {"pooled": "(other)" in values, "values": shown,
                           "design_effect": {field: float(d[i]) for i, field in enumerate(field_paths)}}
    findings: list[dict[str, Any]] = []
    if inputs:
        a, b, c, e, p1, n1, p2, n2 = (np.asarray(column, dtype=np.float64) for column in zip(*inputs))
        p = fisher_less(a, b, c, e)
        q = benjamini_hochberg(p)
        low, high = newcombe(p1, n1, p2, n2, level)
        for k, (path, value, i, entry, rest) in enumerate(tests):
            entry["test"] = {"rest_tp_share": float(p2[k]), "difference": float(p1[k] - p2[k]),
                             "low": _number(low[k]), "high": _number(high[k]), "p_value": float(p[k]),
                             "q_value": float(q[k]), "significant": bool(q[k] <= fdr)}
            if q[k] <= fdr:
                block = paths_out[path]["values"][value]
                findings.append({
                    "path": path, "value": value, "field": field_paths[i], "documents": block["documents"],
                    "comparisons": entry["tp"] + entry["fp"] + entry["fn"], "tp_share": entry["tp_share"],
                    "rest_tp_share": float(p2[k]), "difference": float(p1[k] - p2[k]), "low": _number(low[k]),
                    "high": _number(high[k]), "cm_f1": entry["cm_f1"], "rest_cm_f1": count_block(rest)["cm_f1"],
                    "p_value": float(p[k]), "q_value": float(q[k]), "design_effect": paths_out[path]["design_effect"][field_paths[i]],
                })
    findings.sort(key=lambda f: (f["q_value"], f["difference"], f["path"], f["value"], f["field"]))
    return {"fdr": fdr, "level": level, "max_values": state["max_values"],
            "measure": "tp_share = tp / (tp + fa + fd + fn)",
            "test": "Fisher's exact test, one-sided (slice worse than the rest), on counts divided by the design "
                    "effect; Benjamini-Hochberg q-values; Newcombe hybrid score interval on the difference",
            "tests": len(inputs), "significant": findings, "paths": paths_out}

