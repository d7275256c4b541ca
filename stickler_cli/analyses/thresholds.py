"""Threshold sensitivity of each primitive field (issue 19, item 3): docs/why-it-fails.md, "Is a threshold set right?".

Every compared pair of a primitive field (both sides present, so the comparator was asked: a leaf,
an item pair of a primitive list, a leaf inside a matched list item) is counted in a histogram of its
similarity. The bins are fixed by the schema alone, so that states of workers, Dask tasks and
``stickler merge`` add up bin by bin: edges at every multiple of 0.01 from 0 to 1, plus the field's
configured threshold t0 and the ends of its window t0 - 0.05, t0 + 0.05 (clipped to [0, 1], in
decimal arithmetic on the threshold as written: 0.7 - 0.05 is 0.65). Bin 0 holds similarities below 0
and NaN, the last bin those at 1.0 or above. A pair is a TP when s >= t0, so with t0 an edge every bin
is all TP or all FD, and the number of pairs at or above any edge t is exact: F1 is exact at every
threshold on the 0.01 grid, at t0 and at the window's ends. The bins themselves (``Layout``) are the
engine's, which fills them (engine/bins.py).

Only the TP/FD split moves with the threshold (FA and FN are values missing on one side, decided
before any comparator). With N compared pairs of which C(t) have s >= t:

    precision(t) = C / (C + FA + (N - C)) = C / (N + FA)
    recall(t)    = C / (C + FN)
    F1(t)        = 2 C / (C + N + FA + FN)         (0 when C = 0)

which never falls as C grows, and C never grows as t rises: F1 never rises with the threshold, and
its unconstrained maximum is always "accept every pair the comparator saw". The best threshold is
therefore sought at or above the field's separation point (Otsu's split of its similarities, the
valley between low- and high-similarity pairs; see ``analyse``), so a threshold set too tight is
lowered to the valley and never below it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

# The bins live with the engine, which fills them; named here too for the analysis's readers.
from ..engine.bins import GRID, KINDS as _KINDS, WINDOW, Layout, edges, verdict_bin, window  # noqa: F401
from ..schema.keywords import escape
from .part import Collect, Part, ReportContext
from .state_check import bad, check_array, check_counts

if TYPE_CHECKING:
    from ..engine.batch import BatchResult
    from ..engine.result import DocResult
    from ..plan import Plan

# A threshold in a dense region (unstable verdicts): at least this share of the field's compared pairs,
# and at least UNSTABLE_MIN of them, lie within the window (twice what an even spread puts in 0.1 of [0, 1]).
UNSTABLE_SHARE = 0.2
UNSTABLE_MIN = 5
# TP and FD similarities overlap heavily: with at least OVERLAP_MIN pairs on each side, the TPs' lower
# quartile is less than OVERLAP_GAP above the FDs' upper quartile (the middle halves nearly touch).
OVERLAP_GAP = 0.1
OVERLAP_MIN = 5
# A suggestion differs meaningfully from the configured threshold when it raises the field's F1 by at
# least this much (and is not the configured threshold).
MIN_F1_GAIN = 0.01
EXTENSION = "x-aws-stickler-threshold"


def _f1(tp: np.ndarray, fa: int, fd: np.ndarray, fn: int) -> np.ndarray:
    """metrics.derived's F1, operation for operation, so that F1 at t0 equals the field's cm_f1 to the bit."""
    tp = tp.astype(float)
    fp = fa + fd
    precision = np.divide(tp, tp + fp, out=np.zeros_like(tp), where=(tp + fp) != 0)
    recall = np.divide(tp, tp + fn, out=np.zeros_like(tp), where=(tp + fn) != 0)
    total = precision + recall
    return np.divide(2 * precision * recall, total, out=np.zeros_like(tp), where=total != 0)


def _nearest(candidates: np.ndarray, thresholds: np.ndarray, threshold: float) -> int:
    """Among ``candidates`` (indexes into ``thresholds``), the one nearest ``threshold``, then the higher."""
    distance = np.abs(thresholds[candidates] - threshold)
    best = candidates[distance == distance.min()]
    return int(best[-1])


def _quantile_low_edge(counts: np.ndarray, lows: np.ndarray, q: float) -> float | None:
    """The lower edge of the bin holding the q-quantile of ``counts`` (the ceil(q n)-th value)."""
    n = int(counts.sum())
    if not n:
        return None
    rank = max(1, math.ceil(q * n))
    return float(lows[int(np.searchsorted(np.cumsum(counts), rank))])


def analyse(counts: Any, field_edges: tuple[float, ...], threshold: float, fa: int, fn: int) -> dict[str, Any] | None:
    """The threshold block of one field (docs/why-it-fails.md, "Is a threshold set right?"), or None without compared pairs.

    ``counts`` are the field's bins (``Layout``), ``fa``/``fn`` its counts (they do not move with t).
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if not n:
        return None
    thresholds = np.array(field_edges)  # candidate thresholds: every edge
    at_or_above = np.cumsum(counts[::-1])[::-1]  # at_or_above[j]: pairs in bins j..end
    tp = at_or_above[1:]  # threshold edges[i]: bins i+1.. are at or above it
    f1 = _f1(tp, fa, n - tp, fn)
    t0 = float(threshold)
    k0 = field_edges.index(t0)
    low, high = window(t0)
    k_low, k_high = field_edges.index(low), field_edges.index(high)
    to_tp = int(tp[k_low] - tp[k0])  # FDs at or above t0 - 0.05
    to_fd = int(tp[k0] - tp[k_high])  # TPs below t0 + 0.05 (none at 1.0 when t0 + 0.05 is clipped to 1)
    separation = _separation(counts, field_edges, thresholds, t0)
    floor = min(t0, separation)
    allowed = np.flatnonzero(thresholds >= floor)
    top = f1[allowed].max()
    best = _nearest(allowed[f1[allowed] == top], thresholds, t0)
    gain = float(f1[best] - f1[k0])
    lows = np.array([0.0, *field_edges])  # bin j's lower edge (bin 0: below 0 or NaN, read as 0)
    tp_count, fd_count = int(tp[k0]), n - int(tp[k0])
    tp_q1 = _quantile_low_edge(counts[k0 + 1 :], lows[k0 + 1 :], 0.25)
    fd_q3 = _quantile_low_edge(counts[: k0 + 1], lows[: k0 + 1], 0.75)
    flips = to_tp + to_fd
    warnings = []
    if flips >= max(UNSTABLE_MIN, UNSTABLE_SHARE * n):
        warnings.append(
            {
                "kind": "unstable",
                "message": (
                    f"{flips} of {n} verdicts ({flips / n:.0%}) flip when the threshold moves within ±{WINDOW}: "
                    f"the threshold sits where similarities are dense"
                ),
            }
        )
    if (
        tp_count >= OVERLAP_MIN
        and fd_count >= OVERLAP_MIN
        and tp_q1 is not None
        and fd_q3 is not None
        and tp_q1 - fd_q3 < OVERLAP_GAP
    ):
        warnings.append(
            {
                "kind": "overlap",
                "message": (
                    f"TP and FD similarities overlap: the TPs' lower quartile ({tp_q1:.2f}) is within {OVERLAP_GAP:g} of "
                    f"the FDs' upper quartile ({fd_q3:.2f}); the comparator barely separates them"
                ),
            }
        )
    return {
        "threshold": t0,
        "compared": n,
        "tp": tp_count,
        "fd": fd_count,
        "fa": fa,
        "fn": fn,
        "f1": float(f1[k0]),
        "best_threshold": float(thresholds[best]),
        "best_f1": float(f1[best]),
        "f1_gain": gain,
        "separation": separation,
        "suggest": best != k0 and gain >= MIN_F1_GAIN,
        "flips": {"low": low, "high": high, "to_tp": to_tp, "to_fd": to_fd, "total": flips},
        "tp_lower_quartile": tp_q1,
        "fd_upper_quartile": fd_q3,
        "warnings": warnings,
        "curve": {"thresholds": thresholds.tolist(), "f1": f1.tolist(), "tp": tp.tolist()},
        "bins": [
            [None if j == 0 else field_edges[j - 1], None if j == len(field_edges) else field_edges[j], int(c)]
            for j, c in enumerate(counts.tolist())
            if c
        ],
    }


def _separation(counts: np.ndarray, field_edges: tuple[float, ...], thresholds: np.ndarray, t0: float) -> float:
    """Otsu's threshold: the edge that splits the similarities into two groups of the largest
    between-group variance w0 w1 (m0 - m1)^2, each bin read at its middle (bin 0 at 0, the last at 1);
    ties (no pair between two edges) go to the edge nearest t0, then the higher."""
    middles = np.array([0.0, *((a + b) / 2 for a, b in zip(field_edges, field_edges[1:])), 1.0])
    n = counts.sum()
    above = np.cumsum(counts[::-1])[::-1][1:].astype(float)  # pairs at or above each edge
    weight_above = np.cumsum((counts * middles)[::-1])[::-1][1:]
    below = n - above
    total = float((counts * middles).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_above = np.where(above > 0, weight_above / np.where(above > 0, above, 1), 0.0)
        mean_below = np.where(below > 0, (total - weight_above) / np.where(below > 0, below, 1), 0.0)
    between = (above / n) * (below / n) * (mean_above - mean_below) ** 2
    best = np.flatnonzero(between == between.max())
    return float(thresholds[_nearest(best, thresholds, t0)])


def field_blocks(plan: "Plan", layout: Layout, counts: Any, tally: list[int]) -> dict[str, dict[str, Any]]:
    """The block of every primitive field with compared pairs, by path."""
    counts = np.asarray(counts)
    out: dict[str, dict[str, Any]] = {}
    for f in plan.fields:
        o = layout.offsets[f.index]
        if o < 0:
            continue
        e = layout.edges[f.index]
        block = analyse(counts[o : o + len(e) + 1], e, f.threshold, tally[5 * f.index + 1], tally[5 * f.index + 3])
        if block is not None:
            out[f.path] = block
    return out


def report_block(plan: "Plan", layout: Layout, counts: Any, tally: list[int]) -> dict[str, Any]:
    """``report["thresholds"]``: the definitions in force and each field's block."""
    return {
        "bin_width": 1 / GRID,
        "window": float(WINDOW),
        "unstable_share": UNSTABLE_SHARE,
        "unstable_min": UNSTABLE_MIN,
        "overlap_gap": OVERLAP_GAP,
        "overlap_min": OVERLAP_MIN,
        "min_f1_gain": MIN_F1_GAIN,
        "fields": field_blocks(plan, layout, counts, tally),
    }


def something_to_say(block: dict[str, Any]) -> bool:
    """Whether a field's block is shown in the compact sections: a warning or a suggestion."""
    return bool(block["warnings"]) or block["suggest"]


# -- the schema patch -----------------------------------------------------------------------------------


def _tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]] if pointer else []


def locate(schema: Any, pointer: str) -> str | None:
    """Where the node a plan pointer names is in the schema document: the pointer itself, or with the
    local references (``#/...``) on its way followed; None when it lies in another document."""
    node, path = schema, ""
    for token in _tokens(pointer):
        seen = 0
        while isinstance(node, dict) and token not in node and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if not ref.startswith("#") or seen > 64:
                return None
            seen += 1
            node, path = schema, ""
            for part in _tokens(ref[1:]):
                if not isinstance(node, dict) or part not in node:
                    return None
                node, path = node[part], f"{path}/{escape(part)}"
        if isinstance(node, dict) and token in node:
            node, path = node[token], f"{path}/{escape(token)}"
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node, path = node[int(token)], f"{path}/{token}"
        else:
            return None
    return path if isinstance(node, dict) else None


def _node(schema: Any, pointer: str) -> Any:
    node = schema
    for token in _tokens(pointer):
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def suggest_patch(plan: "Plan", blocks: dict[str, dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """(RFC 6902 operations setting each suggested threshold, the fields left out and why).

    A threshold already written on the property is tested, then replaced (the patch applies only to the
    schema it was made for); else added. A property reached through a definition that other fields
    use too, or kept in another document, is left out: its threshold is not this field's alone.
    """
    where = {f.index: locate(plan.schema, f.pointer) for f in plan.fields if f.kind in _KINDS}
    users: dict[str, int] = {}
    for path in where.values():
        if path is not None:
            users[path] = users.get(path, 0) + 1
    operations: list[dict[str, Any]] = []
    skipped: list[str] = []
    for f in plan.fields:
        block = blocks.get(f.path)
        if block is None or not block["suggest"]:
            continue
        path = where.get(f.index)
        if path is None:
            skipped.append(f"{f.path}: its schema lies in another document; set {EXTENSION} there by hand")
            continue
        if users[path] > 1:
            skipped.append(
                f"{f.path}: its schema ({path or '/'}) is shared by {users[path]} fields; set {EXTENSION} by hand"
            )
            continue
        target = f"{path}/{EXTENSION}"
        node = _node(plan.schema, path)
        if EXTENSION in node:
            operations.append({"op": "test", "path": target, "value": node[EXTENSION]})
            operations.append({"op": "replace", "path": target, "value": block["best_threshold"]})
        else:
            operations.append({"op": "add", "path": target, "value": block["best_threshold"]})
    return operations, skipped


# -- the part of the accumulated state (analyses/part.py) ----------------------------------------------------------


class SimilarityBins:
    """Each primitive field's compared similarities, counted in fixed bins (``layout``), flat in ``counts``."""

    def __init__(self, plan: "Plan") -> None:
        self.layout = Layout(plan)
        self.counts = np.zeros(self.layout.size, dtype=np.int64)


def new_store(plan: "Plan", collect: Collect) -> SimilarityBins:
    return SimilarityBins(plan)


def add_document(store: SimilarityBins, doc: DocResult, doc_id: Any) -> None:
    if doc.similarity_bins:
        np.add.at(store.counts, doc.similarity_bins, 1)


def add_batch(store: SimilarityBins, batch: BatchResult, doc_ids: Sequence[Any] | None) -> None:
    if len(batch.similarity_bin):
        store.counts += np.bincount(batch.similarity_bin, minlength=store.layout.size)


def state_of(store: SimilarityBins, as_arrays: bool) -> dict[str, Any]:
    return {"similarity_bins": store.layout.split(store.counts)}


def merge_state(store: SimilarityBins, state: dict[str, Any], offset: int) -> None:
    merged = [c for field in state["similarity_bins"] for c in field]
    if merged:
        store.counts += np.array(merged, dtype=np.int64)


def check_state(state: dict[str, Any], plan: "Plan") -> None:
    """A state's ``similarity_bins``, each primitive field's histogram (Layout): its bins at or above the
    threshold's edge hold exactly its TPs, those below exactly its FDs; other fields hold none."""
    rows, counts = state["similarity_bins"], state["counts"]
    layout = Layout(plan)
    for k, row in enumerate(check_array(rows, "/similarity_bins", len(counts))):
        pointer = f"/similarity_bins/{k}"
        bins_at = layout.edges[k]
        if bins_at is None:
            if check_array(row, pointer) != []:
                raise bad(pointer, f"must be empty: {plan.fields[k].path!r} is not compared by a comparator")
            continue
        check_counts(row, pointer, len(bins_at) + 1)
        first = verdict_bin(bins_at, plan.fields[k].threshold)
        tp, fd = sum(row[first:]), sum(row[:first])
        if (tp, fd) != (counts[k][0], counts[k][2]):
            raise bad(
                pointer,
                f"holds {tp} similarities at or above the threshold and {fd} below: the field "
                f"counts {counts[k][0]} TP and {counts[k][2]} FD",
            )


def report_of(store: SimilarityBins, context: ReportContext) -> dict[str, Any]:
    return {"thresholds": report_block(context.plan, store.layout, store.counts, context.tally)}


PART = Part("thresholds", new_store, state_of, merge_state, check_state, add_document, add_batch, report_of)
