"""ANLS*: average normalised Levenshtein similarity generalised to JSON trees.

The metric is from Peer et al., "ANLS* -- A Universal Document Processing
Metric for Generative Large Language Models" (arXiv:2402.03848; reference
implementation: the ``anls-star`` package). Every leaf is compared as
whitespace-collapsed, lower-cased text; a leaf similarity below
``leaf_threshold`` counts as 0. Objects are aligned by key, arrays by an
optimal one-to-one pairing of their items, and the score is the sum of leaf
similarities over the number of leaves the two sides could have matched, so
missing and extra items both cost.

stickler-eval pairs array items with the ``munkres`` 3.0 package. When several
pairings are equally good the one it picks can change the score, so
``assign_pairs`` below reproduces that package's choice: its pure-Python
solver below 16 cells and its compiled solver (the shortest-augmenting-path
method of Crouse, 2016) from 16 cells on, both after the same greedy start.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from .. import limits
from .assignment import shortest_paths as _shortest_paths  # the method munkres' compiled solver uses too
from .base import Comparator, Param, bounded, value_text

LEAF, NONE, LIST, DICT, ONE_OF = "leaf", "none", "list", "dict", "one of"

# A pairing whose prediction equals the ground truth outright outranks any
# merely similar one when array items are paired (stickler-eval's value).
EXACT_PAIR_PRIORITY = 1.0 + 1e-10


def exact_pair_profit(mean: float) -> float:
    """Pairing weight of an item pair that is equal outright, whatever its mean similarity.

    The anls-star package weights such a pair ``math.nextafter(mean, inf)``
    instead; the tests swap this function to check we then agree with it.
    """
    return EXACT_PAIR_PRIORITY


# Work allowed per comparison (about one unit per item pair compared); beyond
# it the values are too large to score and the comparison scores 0.0.
WORK_BUDGET = 2_000_000

_NATIVE_SOLVER_CELLS = 16  # munkres 3.0 switches solvers at this many cells
_NUMPY_CELLS = 400  # from here on array work is vectorised (same arithmetic, less overhead)


class _TooLarge(Exception):
    """The comparison would exceed WORK_BUDGET."""


class _Node:
    """One value of a JSON tree, with what the metric needs precomputed."""

    __slots__ = ("kind", "raw", "text", "size", "children")

    def __init__(self, kind: str, raw: Any, text: str | None, size: int, children: Any) -> None:
        self.kind = kind
        self.raw = raw
        self.text = text  # a leaf's normalised text; None when it has no text form
        self.size = size  # leaves below (a null counts as one leaf)
        self.children = children

    @property
    def blank(self) -> bool:
        """Null, "", [] or {}: what the metric treats as "no answer" (one of several values: when one of them is)."""
        if self.kind == NONE:
            return True
        if self.kind == ONE_OF:
            return any(option.blank for option in self.children)
        if self.kind == LEAF:
            return isinstance(self.raw, str) and self.raw == ""
        return not self.children


_ABSENT = _Node(NONE, None, None, 1, None)  # stands in for a key one side lacks


def leaf_text(value: Any) -> str | None:
    """Lower-cased text with runs of whitespace collapsed, its first MAX_TEXT characters (as Levenshtein and Fuzzy
    read a text: a leaf's edit distance costs the product of the lengths, hours for two 1 MB texts); None if the
    value has no text form."""
    text = value_text(value)
    return None if text is None else bounded(" ".join(text.lower().split()))


def build_tree(value: Any, gt: bool = False) -> _Node:
    """The tree of a JSON value; tuples are arrays, as in stickler-eval. In a ground truth (``gt``), an object
    ``{"_value": v, "_alternatives": [a, b]}`` is one of several acceptable values, ``v``, ``a`` or ``b``, as
    anls-star reads the tuple ``(v, a, b)`` (docs/ground-truth.md): at most --limit alternatives
    of them after ``v``, each read the same way (an alternative with alternatives of its own is a nested tuple, as
    anls-star nests them). Where ``_alternatives`` is not a list, and in a prediction, such an object is its
    ``_value``."""
    if isinstance(value, dict):
        if "_value" in value and "_alternatives" in value:
            listed = value["_alternatives"]
            if not (
                gt and type(listed) is list
            ):  # a malformed list, or a prediction's: its _value (the engine says so)
                return build_tree(value["_value"], gt)
            options = [build_tree(option, gt) for option in (value["_value"], *listed[: limits.current().alternatives])]
            return _Node(ONE_OF, value, None, max(o.size for o in options), options)
        children = {key: build_tree(item, gt) for key, item in value.items()}
        return _Node(DICT, value, None, sum(c.size for c in children.values()), children)
    if isinstance(value, (list, tuple)):
        items = [build_tree(item, gt) for item in value]
        return _Node(LIST, value, None, sum(c.size for c in items), items)
    if value is None:
        return _Node(NONE, None, None, 1, None)
    if isinstance(value, (str, int, float)):
        return _Node(LEAF, value, leaf_text(value), 1, None)
    return _Node(LEAF, value, None, 1, None)  # not a JSON value: scores 0.0 against anything


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _total(values: Sequence[float]) -> float:
    """Left-to-right float sum: the rounding of stickler-eval's sum() on Python 3.11.

    (From 3.12 on, sum() of floats compensates rounding errors, which could
    move a score by an ulp and so flip a tie between pairings.)
    """
    total = 0.0
    for value in values:
        total += value
    return total


class _Outcome(NamedTuple):
    values: list[float]  # leaf similarities, in stickler-eval's order
    length: int  # leaves the two sides could have matched
    exact: bool  # the prediction equals the ground truth as aligned


def _mean(outcome: _Outcome) -> float:
    return _total(outcome.values) / outcome.length if outcome.length > 0 else 1.0


class _Scoring:
    """One comparison: the leaf cutoff and the remaining work budget."""

    def __init__(self, leaf_threshold: float) -> None:
        self.leaf_threshold = leaf_threshold
        self.budget = WORK_BUDGET

    def spend(self, units: int) -> None:
        self.budget -= units
        if self.budget < 0:
            raise _TooLarge

    def leaf(self, gt: _Node, pred: _Node) -> float:
        a, b = gt.text, pred.text
        if a is None or b is None:
            return 0.0
        if a == b:
            return 1.0
        longest = max(len(a), len(b))
        self.spend(len(a) * len(b) // 200_000)
        similarity = 1.0 - float(Levenshtein.distance(a, b)) / float(longest)
        return 0.0 if similarity < self.leaf_threshold else similarity

    def compare(self, gt: _Node, pred: _Node) -> _Outcome:
        self.spend(1)
        if gt.kind == LEAF:
            if pred.kind != LEAF:
                return _Outcome([0.0], max(1, pred.size), False)
            return _Outcome([self.leaf(gt, pred)], 1, _equal(gt.raw, pred.raw))
        if gt.kind == NONE:
            hit = pred.blank
            return _Outcome([1.0 if hit else 0.0], max(1, pred.size), hit)
        if gt.kind == ONE_OF:
            return self.compare_one_of(gt, pred)
        if gt.kind != pred.kind:
            return _Outcome([0.0], max(gt.size, pred.size), False)
        if gt.kind == DICT:
            return self.compare_objects(gt, pred)
        return self.compare_arrays(gt, pred)

    def compare_one_of(self, gt: _Node, pred: _Node) -> _Outcome:
        """The best of several acceptable values, as anls-star chooses among a tuple's: the highest mean over
        its own length, then one equal to the prediction; the first on a tie."""
        best = None
        for option in gt.children:
            outcome = self.compare(option, pred)
            key = (_mean(outcome), outcome.exact)
            if best is None or key > best[0]:
                best = (key, outcome)
        return best[1]

    def compare_objects(self, gt: _Node, pred: _Node) -> _Outcome:
        values: list[float] = []
        length = 0
        exact = True
        for key, child in gt.children.items():
            present = key in pred.children
            outcome = self.compare(child, pred.children[key] if present else _ABSENT)
            values.extend(outcome.values)
            length += outcome.length
            # A key missing from the prediction is fine for equality when its
            # ground truth is blank; its score still counts it (as 0 for "").
            exact = exact and (outcome.exact if present else child.blank)
        for key, child in pred.children.items():
            if key in gt.children:
                continue
            exact = False
            length += max(1, child.size)
            if not child.blank:  # an extra blank key costs length but adds no value
                values.append(0.0)
        return _Outcome(values, length, exact)

    def compare_arrays(self, gt: _Node, pred: _Node) -> _Outcome:
        rows, cols = gt.children, pred.children
        if not rows or not cols:
            return _Outcome([], gt.size + pred.size, not rows and not cols)
        if len(rows) * len(cols) >= _NUMPY_CELLS // 4 and all(n.kind == LEAF for n in rows + cols):
            return self.compare_leaf_arrays(rows, cols)
        grid = [[self.compare(g, p) for p in cols] for g in rows]
        profit = [[exact_pair_profit(_mean(o)) if o.exact else _mean(o) for o in row] for row in grid]
        pairs = assign_pairs(profit, self.spend)
        values: list[float] = []
        length = 0
        for r, c in pairs:
            values.extend(grid[r][c].values)
            length += grid[r][c].length
        length += _unpaired_size(rows, cols, pairs)
        exact = len(rows) == len(cols) and all(grid[r][c].exact for r, c in pairs)
        return _Outcome(values, length, exact)

    def compare_leaf_arrays(self, rows: list[_Node], cols: list[_Node]) -> _Outcome:
        """compare_arrays for arrays of scalars, all pairs scored at once."""
        self.spend(len(rows) * len(cols) // 20 + 1)
        a = [n.text or "" for n in rows]
        b = [n.text or "" for n in cols]
        self.spend(sum(map(len, a)) * sum(map(len, b)) // 200_000)
        distance = cdist(a, b, scorer=Levenshtein.distance, dtype=np.int64, workers=1)
        longest = np.maximum(np.array([len(t) for t in a])[:, None], np.array([len(t) for t in b])[None, :])
        with np.errstate(invalid="ignore", divide="ignore"):
            similar = np.where(longest > 0, 1.0 - distance / longest, 1.0)  # same rounding as leaf()
        similar[similar < self.leaf_threshold] = 0.0
        scoreable = (
            np.array([n.text is not None for n in rows])[:, None]
            & np.array([n.text is not None for n in cols])[None, :]
        )
        similar[~scoreable] = 0.0
        exact = _equality_matrix([n.raw for n in rows], [n.raw for n in cols])
        profit = similar.copy()
        for r, c in zip(*np.nonzero(exact)):
            profit[r, c] = exact_pair_profit(float(similar[r, c]))
        pairs = assign_pairs(profit, self.spend)
        values = [float(similar[r, c]) for r, c in pairs]
        length = len(pairs) + _unpaired_size(rows, cols, pairs)
        return _Outcome(values, length, len(rows) == len(cols) and all(exact[r, c] for r, c in pairs))


def _unpaired_size(rows: list[_Node], cols: list[_Node], pairs: list[tuple[int, int]]) -> int:
    if len(pairs) == len(rows) == len(cols):
        return 0
    paired_rows = {r for r, _ in pairs}
    paired_cols = {c for _, c in pairs}
    return sum(n.size for i, n in enumerate(rows) if i not in paired_rows) + sum(
        n.size for j, n in enumerate(cols) if j not in paired_cols
    )


def _equality_matrix(a: list[Any], b: list[Any]) -> np.ndarray:
    """a[i] == b[j] for scalars, Python's way (1 == 1.0 == True), via equal-value ids."""
    ids: dict[Any, int] = {}
    unequal = itertools.count(-1, -1)  # ids for values equal to nothing (NaN)

    def ident(value: Any) -> int:
        if isinstance(value, float) and math.isnan(value):
            return next(unequal)
        try:
            return ids.setdefault(value, len(ids))
        except TypeError:  # unhashable, so not a JSON scalar
            return next(unequal)

    left = np.array([ident(v) for v in a])
    right = np.array([ident(v) for v in b])
    return left[:, None] == right[None, :]


def anls_star(gt: Any, pred: Any, leaf_threshold: float = 0.5) -> float:
    """The ANLS* score of ``pred`` against ``gt``; raises _TooLarge or RecursionError on huge input."""
    return _score_trees(build_tree(gt, True), build_tree(pred), leaf_threshold)


def _score_trees(gt: _Node, pred: _Node, leaf_threshold: float) -> float:
    outcome = _Scoring(leaf_threshold).compare(gt, pred)
    return _mean(outcome)


# --- pairing array items ----------------------------------------------------------


def assign_pairs(profit: Sequence[Sequence[float]] | np.ndarray, spend: Any = None) -> list[tuple[int, int]]:
    """(row, col) pairs, sorted by row, maximising total profit; min(rows, cols) pairs.

    Ties are broken the way munkres 3.0 breaks them (see the module docstring).
    ``spend`` is charged for the work done.
    """
    spend = spend or (lambda units: None)
    n, m = len(profit), len(profit[0])
    transposed = n > m
    if n * m >= _NUMPY_CELLS:
        matrix = np.asarray(profit, dtype=np.float64)
        cost = matrix.max() - matrix
        if transposed:
            cost = np.ascontiguousarray(cost.T)
        u, row_of_col, col_of_row = _greedy_start_array(cost)
        _shortest_paths_array(cost, u, row_of_col, col_of_row, spend)
    else:
        rows = profit.tolist() if isinstance(profit, np.ndarray) else profit
        top = max(max(row) for row in rows)
        cost = [[top - x for x in row] for row in rows]
        if transposed:
            cost = [list(column) for column in zip(*cost)]
        u, row_of_col, col_of_row = _greedy_start(cost)
        solve = _shortest_paths if n * m >= _NATIVE_SOLVER_CELLS else _hungarian_potentials
        solve(cost, u, row_of_col, col_of_row)
    pairs = list(enumerate(col_of_row))  # rows of the cost matrix, transposed or not
    return sorted((c, r) for r, c in pairs) if transposed else sorted(pairs)


def _greedy_start(cost: list[list[float]]) -> tuple[list[float], list[int], list[int]]:
    """Row minima as row potentials; each row takes the first free column at its minimum."""
    n, m = len(cost), len(cost[0])
    u = [0.0] * n
    row_of_col = [-1] * m
    col_of_row = [-1] * n
    for i, row in enumerate(cost):
        low = min(row)
        u[i] = low
        for j, value in enumerate(row):
            if row_of_col[j] == -1 and value == low:
                row_of_col[j] = i
                col_of_row[i] = j
                break
    return u, row_of_col, col_of_row


def _greedy_start_array(cost: np.ndarray) -> tuple[list[float], list[int], list[int]]:
    """_greedy_start for a large matrix."""
    n, m = cost.shape
    lows = cost.min(axis=1)
    free = np.ones(m, dtype=bool)
    row_of_col = [-1] * m
    col_of_row = [-1] * n
    for i in range(n):
        candidates = np.flatnonzero((cost[i] == lows[i]) & free)
        if len(candidates):
            j = int(candidates[0])
            free[j] = False
            row_of_col[j] = i
            col_of_row[i] = j
    return lows.tolist(), row_of_col, col_of_row


def _hungarian_potentials(
    cost: list[list[float]], u: list[float], row_of_col: list[int], col_of_row: list[int]
) -> None:
    """Complete the assignment in place: the potentials form of the Hungarian method.

    Each unmatched row grows a tree of tight edges (Dijkstra on reduced costs)
    until it reaches a free column, always extending to the first column of
    least slack, then flips the path.
    """
    n, m = len(cost), len(cost[0])
    inf = math.inf
    v = [0.0] * (m + 1)
    owner = row_of_col + [-1]  # owner[m]: the row being placed
    via = [0] * (m + 1)
    for start in range(n):
        if col_of_row[start] != -1:
            continue
        owner[m] = start
        col = m
        slack = [inf] * (m + 1)
        seen = [False] * (m + 1)
        while True:
            seen[col] = True
            row = owner[col]
            base = u[row]
            for j in range(m):
                if not seen[j]:
                    reduced = cost[row][j] - base - v[j]
                    if reduced < slack[j]:
                        slack[j] = reduced
                        via[j] = col
            step = inf
            nearest = -1
            for j in range(m):
                if not seen[j] and slack[j] < step:
                    step = slack[j]
                    nearest = j
            for j in range(m + 1):
                if seen[j]:
                    u[owner[j]] += step
                    v[j] -= step
                else:
                    slack[j] -= step
            col = nearest
            if owner[col] == -1:
                break
        while col != m:
            previous = via[col]
            owner[col] = owner[previous]
            col = previous
    for j in range(m):
        if owner[j] >= 0:
            col_of_row[owner[j]] = j
            row_of_col[j] = owner[j]


def _shortest_paths_array(
    cost: np.ndarray, u_start: list[float], row_of_col_start: list[int], col_of_row_start: list[int], spend: Any
) -> None:
    """_shortest_paths for a large matrix, each scan of the columns vectorised."""
    n, m = cost.shape
    u = np.asarray(u_start, dtype=np.float64)
    v = np.zeros(m, dtype=np.float64)
    row_of_col = np.asarray(row_of_col_start, dtype=np.int64)
    col_of_row = np.asarray(col_of_row_start, dtype=np.int64)
    for start in range(n):
        if col_of_row[start] != -1:
            continue
        path_cost = np.full(m, np.inf)
        came_from = np.full(m, -1, dtype=np.int64)
        rows_seen = np.zeros(n, dtype=bool)
        cols_seen = np.zeros(m, dtype=bool)
        order = np.arange(m - 1, -1, -1, dtype=np.int64)
        left = m
        reach = 0.0
        row = start
        sink = -1
        while sink == -1:
            spend(1 + m // 256)
            rows_seen[row] = True
            cols = order[:left]
            reduced = reach + cost[row, cols] - u[row] - v[cols]
            better = reduced < path_cost[cols]
            improved = cols[better]
            path_cost[improved] = reduced[better]
            came_from[improved] = row
            current = path_cost[cols]
            lowest = current.min()
            ties = np.flatnonzero(current == lowest)
            free = ties[row_of_col[cols[ties]] == -1]
            index = int(free[-1]) if len(free) else int(ties[0])
            reach = float(lowest)
            col = int(cols[index])
            if row_of_col[col] == -1:
                sink = col
            else:
                row = int(row_of_col[col])
            cols_seen[col] = True
            left -= 1
            order[index] = order[left]
        u[start] += reach
        others = np.flatnonzero(rows_seen)
        others = others[others != start]
        u[others] += reach - path_cost[col_of_row[others]]
        reached = np.flatnonzero(cols_seen)
        v[reached] -= reach - path_cost[reached]
        col = sink
        while True:
            row = int(came_from[col])
            row_of_col[col] = row
            col, col_of_row[row] = int(col_of_row[row]), col
            if row == start:
                break
    row_of_col_start[:] = row_of_col.tolist()
    col_of_row_start[:] = col_of_row.tolist()


class ANLSStarComparator(Comparator):
    name = "ANLSStarComparator"
    text_quadratic = True
    aliases = ("anls", "ANLS", "anls_star", "ANLSStar", "anls*", "ANLS*")
    default_threshold = 0.7
    summary = "ANLS* over whole JSON values: key-aligned objects, optimally paired arrays, fuzzy leaves"
    whole_value = True
    params = (Param("leaf_threshold", float, 0.5, "leaf similarity below this counts as 0 (tau)", minimum=0.0),)

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        if self.leaf_threshold > 1.0:
            raise ValueError(f"leaf_threshold must be between 0 and 1, got {self.leaf_threshold!r}")

    def similarity(self, gt: Any, pred: Any) -> float:
        try:
            return anls_star(gt, pred, self.leaf_threshold)
        except (_TooLarge, RecursionError):
            return 0.0

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        try:
            gt_trees = [build_tree(v, True) for v in gts]
            pred_trees = [build_tree(v) for v in preds]
        except RecursionError:
            return super().similarity_matrix(gts, preds)
        matrix = []
        for g in gt_trees:
            row = []
            for p in pred_trees:
                try:
                    row.append(_score_trees(g, p, self.leaf_threshold))
                except (_TooLarge, RecursionError):
                    row.append(0.0)
            matrix.append(row)
        return matrix
