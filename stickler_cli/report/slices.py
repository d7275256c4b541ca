"""Which slices are significantly worse (docs/why-it-fails.md, "Slices"): from the mergeable counts of slicing.py.

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
from statistics import NormalDist
from typing import Any, Sequence

import numpy as np

from .hypergeometric import lower_tail
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
    counts, moments = _arrays(values, fields)
    return _design_effects(counts, moments)


def _arrays(values: dict[str, Any], fields: int) -> tuple[np.ndarray, np.ndarray]:
    """One path's counts (values × fields × 5) and moments (values × fields × 3) from its state."""
    blocks = values.values()
    counts = np.array([block["counts"] for block in blocks], dtype=np.int64).reshape(len(values), fields, 5)
    moments = np.array([block["moments"] for block in blocks], dtype=np.int64).reshape(len(values), fields, 3)
    return counts, moments


def _design_effects(counts: np.ndarray, moments: np.ndarray) -> np.ndarray:
    sxx, sxy, syy = np.moveaxis(moments.astype(np.float64), 2, 0)
    x = counts[..., :4].sum(axis=2).astype(np.float64)
    y = counts[..., 0].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x > 0, y / np.where(x > 0, x, 1), 0.0)
        num = (syy - 2 * r * sxy + r * r * sxx).sum(axis=0)
        den = (x * r * (1 - r)).sum(axis=0)
        d = np.where(den > 0, num / np.where(den > 0, den, 1), 1.0)
    return np.where(d <= 1 + _EXACT, 1.0, d)


def fisher_less(a: np.ndarray, b: np.ndarray, c: np.ndarray, e: np.ndarray) -> np.ndarray:
    """One-sided p-values of Fisher's exact test that the first row's share of the first column is
    lower: ``scipy.stats.fisher_exact([[a, b], [c, e]], alternative="less")``, vectorised (the
    hypergeometric lower tail of hypergeometric.py, without importing scipy.stats)."""
    return lower_tail(a, a + c, b + e, a + b)


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


def newcombe(
    p1: np.ndarray, n1: np.ndarray, p2: np.ndarray, n2: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval (1998, method 10) for p1 − p2, with sample sizes n1, n2 (which may
    be fractional: effective sizes)."""
    z = NormalDist().inv_cdf((1 + level) / 2)
    l1, u1 = _wilson(p1, n1, z)
    l2, u2 = _wilson(p2, n2, z)
    delta = p1 - p2
    return (delta - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), delta + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def unheld_paths(block: dict[str, Any], field_paths: Sequence[str]) -> list[str]:
    """A warning per slicing path that no ground-truth record holds (every document ``(missing)``): a misspelt
    ``--slice-by`` would otherwise report "no field significantly worse" and pass as good news."""
    from ..errors import suggest
    from ..analyses.slicing import MISSING

    found = []
    for path, sliced in block["paths"].items():
        values = sliced["values"]
        if list(values) == [MISSING]:
            found.append(
                f"--slice-by {path}: no ground-truth record holds a value there (all {values[MISSING]['documents']:,} "
                f"documents are {MISSING}){suggest(path, field_paths)}"
            )
    return found


def analyse(
    state: dict[str, Any],
    field_paths: Sequence[str],
    top_level: Sequence[int],
    fdr: float = DEFAULT_FDR,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Any]:
    """The report's ``slices`` section from ``Slices.state()``: every slice's figures, each (slice, field)
    test, and the findings (q ≤ fdr), worst first. The tests of every path are formed in arrays, one
    (value, field) grid a path; Python only writes the entries."""
    size = len(field_paths)
    top = list(top_level)
    tests: list[tuple[str, str, int, dict[str, Any], list[int]]] = []  # (path, value, field, its block, rest's counts)
    inputs: list[np.ndarray] = []  # per path: the tested cells' a, b, c, e, p1, n1, p2, n2 (rows)
    paths_out: dict[str, Any] = {}
    for path, values in state["paths"].items():
        counts, moments = _arrays(values, size)
        d = _design_effects(counts, moments)
        rest = counts.sum(axis=0) - counts
        xs, ys = counts[..., :4].sum(axis=2), counts[..., 0]
        xr, yr = rest[..., :4].sum(axis=2), rest[..., 0]
        a, b, c, e = np.round(ys / d), np.round((xs - ys) / d), np.round(yr / d), np.round((xr - yr) / d)
        tested = (a + b > 0) & (c + e > 0) & (a + c > 0) & (b + e > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            cells = np.stack((a, b, c, e, ys / xs, xs / d, yr / xr, xr / d))
        inputs.append(cells[:, tested])
        own_lists, rest_lists, tested_lists = counts.tolist(), rest.tolist(), tested.tolist()
        overall = counts[:, top].sum(axis=1).tolist()
        shown: dict[str, Any] = {}
        for v, (value, block) in enumerate(values.items()):
            fields_out: dict[str, Any] = {}
            for i, field in enumerate(field_paths):
                own = own_lists[v][i]
                entry = fields_out[field] = {**count_block(own), "tp_share": tp_share(own)}
                if tested_lists[v][i]:
                    tests.append((path, value, i, entry, rest_lists[v][i]))
            n = block["documents"]
            shown[value] = {
                "documents": n,
                "weighted_overall_score": block["score_sum"] / n if n else None,
                "metrics": count_block(overall[v]),
                "field_metrics": fields_out,
            }
        paths_out[path] = {
            "pooled": "(other)" in values,
            "values": shown,
            "design_effect": {field: float(d[i]) for i, field in enumerate(field_paths)},
        }
    findings: list[dict[str, Any]] = []
    if tests:
        a, b, c, e, p1, n1, p2, n2 = np.concatenate(inputs, axis=1)
        p = fisher_less(a, b, c, e)
        q = benjamini_hochberg(p)
        low, high = newcombe(p1, n1, p2, n2, level)
        columns = zip(tests, p2.tolist(), (p1 - p2).tolist(), low.tolist(), high.tolist(), p.tolist(), q.tolist())
        for (path, value, i, entry, rest), rest_share, difference, lo, hi, p_k, q_k in columns:
            lo_k, hi_k = (x if math.isfinite(x) else None for x in (lo, hi))
            entry["test"] = {
                "rest_tp_share": rest_share,
                "difference": difference,
                "low": lo_k,
                "high": hi_k,
                "p_value": p_k,
                "q_value": q_k,
                "significant": q_k <= fdr,
            }
            if q_k <= fdr:
                block = paths_out[path]["values"][value]
                findings.append(
                    {
                        "path": path,
                        "value": value,
                        "field": field_paths[i],
                        "documents": block["documents"],
                        "comparisons": entry["tp"] + entry["fp"] + entry["fn"],
                        "tp_share": entry["tp_share"],
                        "rest_tp_share": rest_share,
                        "difference": difference,
                        "low": lo_k,
                        "high": hi_k,
                        "cm_f1": entry["cm_f1"],
                        "rest_cm_f1": count_block(rest)["cm_f1"],
                        "p_value": p_k,
                        "q_value": q_k,
                        "design_effect": paths_out[path]["design_effect"][field_paths[i]],
                    }
                )
    findings.sort(key=lambda f: (f["q_value"], f["difference"], f["path"], f["value"], f["field"]))
    return {
        "fdr": fdr,
        "level": level,
        "max_values": state["max_values"],
        "measure": "tp_share = tp / (tp + fa + fd + fn)",
        "test": "Fisher's exact test, one-sided (slice worse than the rest), on counts divided by the design "
        "effect; Benjamini-Hochberg q-values; Newcombe hybrid score interval on the difference",
        "tests": len(tests),
        "significant": findings,
        "paths": paths_out,
    }
