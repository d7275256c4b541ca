"""Optimal one-to-one pairing of two lists (Hungarian algorithm, maximising similarity)."""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Hashable, NamedTuple, Sequence

import numpy as np
import orjson

from . import scipy_lsap
from ..comparators.base import MAX_TEXT
from ..plan import FieldPlan, Kind
from ..schema.json_values import json_key
from .items import field_value, items
from .result import HUNGARIAN, IDENTICAL, KEY, POSITION
from .values import unwrap

# Weight of the tie-breaking objective: far below any real difference in summed
# similarity, so it only chooses among pairings whose similarity totals are equal.
TIE_BREAK = 1e-9

# The most item pairs one list puts to the Hungarian algorithm (1,000 x 1,000 items: about a
# second and 40 MB). Longer lists are paired by ``bounded_pairs``.
MATCH_BOUND = 1_000_000
_LISTS = (Kind.PRIMITIVE_LIST, Kind.OBJECT_LIST)
# An item pair whose texts an edit distance compares costs more than one pair: 20,000 x 20,000 characters (the
# most a comparator reads) take about 25 ms, so a text pair counts as a x b / TEXT_PAIR pairs toward MATCH_BOUND.
# 40 items of 20,000 characters a side took 40 s, and 100 items 252 s: such lists are long lists. A list of fewer
# than TEXT_CHECKED_FROM pairs is measured only when lists of texts nest below its items (whose work multiplies:
# 63 x 63 edit distances took 108 s); alone, it costs at most about 1.6 s.
TEXT_PAIR = 16_000
TEXT_CHECKED_FROM = 64
# A comparator that takes a whole object or array (ANLS*) pairs its leaves too, about a microsecond a leaf pair
# (one MATCH_BOUND unit) up to its own budget: each leaf counts as at least this many characters, so that two such
# values of a and b leaves weigh at least a x b pairs (7 x 7 items of 6,000 leaves each took 83 s).
LEAF_CHARACTERS = 127  # about the square root of TEXT_PAIR


class ListCost(NamedTuple):
    """What a list field's matching may cost beyond its pairs (``list_cost``)."""

    weighs: bool  # an edit distance reads texts of its items (at any depth)
    nested: bool  # a list (or a whole value, ANLS*) whose texts an edit distance reads lies below its items


def list_cost(f: FieldPlan) -> ListCost:
    """The ListCost of field ``f`` (of a list, its items'; of an object, its fields'; of a leaf, its comparator's)."""
    if f.model is None:
        return ListCost(bool(f.comparator is not None and f.comparator.text_quadratic), False)
    below = [
        (list_cost(field), field.kind in _LISTS or (field.comparator is not None and field.comparator.whole_value))
        for field in f.model.fields
    ]  # a whole value's leaves are paired as a list's items are
    return ListCost(any(c.weighs for c, _ in below), any(c.nested or (c.weighs and is_list) for c, is_list in below))


def over_bound(gv: Sequence[Any], pv: Sequence[Any], f: FieldPlan, cost: ListCost | None = None) -> bool:
    """Whether matching list field ``f``'s items ``gv`` against ``pv`` is more work than MATCH_BOUND pairs, the
    texts an edit distance reads counted as more than one pair each (``cost``: ``list_cost(f)``, when known)."""
    pairs = len(gv) * len(pv)
    if pairs > MATCH_BOUND:
        return True
    weighs, nested = cost or list_cost(f)
    if not weighs or (pairs < TEXT_CHECKED_FROM and not nested):
        return False
    return pairs + _list_text(gv, f) * _list_text(pv, f) // TEXT_PAIR > MATCH_BOUND


def _list_text(values: Sequence[Any], f: FieldPlan) -> int:
    """The characters an edit distance reads in the items ``values`` of list field ``f``: texts at the fields
    whose comparator is one, at any depth (keys the schema does not read, and Exact's texts, cost no such work)."""
    if f.model is None:
        return sum(_value_text(v) for v in values) if f.comparator is not None and f.comparator.text_quadratic else 0
    return sum(_item_text(item, f.model.fields, f.rich) for item in values)


def _item_text(item: Any, fields: Sequence[FieldPlan], rich: bool) -> int:
    item = unwrap(item, rich)[0]  # each value read as the engine reads it (items, field_value)
    if type(item) is not dict:
        return 0
    total = 0
    for field in fields:
        value = field_value(item, field)
        if value is None:
            continue
        if field.model is None:
            if field.comparator is not None and field.comparator.text_quadratic:
                leaf = LEAF_CHARACTERS if field.comparator.whole_value else 0
                total += (
                    sum(_value_text(v) for v in value)
                    if field.kind is Kind.PRIMITIVE_LIST and type(value) is list
                    else _value_text(value, leaf)
                )
        elif field.kind is Kind.OBJECT_LIST:
            total += _list_text(items(value, field.rich), field)
        else:
            total += _item_text(value, field.model.fields, field.rich)
    return total


def _value_text(value: Any, leaf: int = 0) -> int:
    """The characters of every text in one value (at any depth: ANLS* reads a whole object), each as a
    comparator reads it, and every leaf as at least ``leaf`` characters."""
    total = 0
    stack = [value]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is dict:
            stack.extend(value.values())
        elif kind is list:
            stack.extend(value)
        else:
            total += max(min(len(value), MAX_TEXT), leaf) if kind is str else leaf
    return total


def assign(
    matrix: Sequence[Sequence[float]], tie_break: Sequence[Sequence[float]] | None = None
) -> list[tuple[int, int]]:
    """min(rows, cols) (row, col) pairs maximising the summed similarity.

    Every row or every column is paired, even at similarity 0: a poor pair is
    a false discovery, not a miss plus a false alarm. Among pairings with the
    same total, the one with the highest ``tie_break`` total wins, so that the
    order of the items never changes the outcome (docs/parity.md, "Tied pairings").
    """
    if len(matrix) == 1 and len(matrix[0]) == 1:
        return [(0, 0)]
    m = np.asarray(matrix, dtype=float)
    if tie_break is not None:
        m = m + TIE_BREAK * np.asarray(tie_break, dtype=float)
    rows, cols = maximise(m)
    return list(zip(rows.tolist(), cols.tolist()))


def maximise(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows and columns (index arrays) of the assignment with the largest sum of ``m``: scipy's compiled
    solver, loaded without the ``scipy.optimize`` package's import (scipy_lsap.py)."""
    return scipy_lsap.solver()(m, maximize=True)


def item_key(value: Any) -> Hashable | None:
    """What two items must share to be identical (None: never identical to anything). A string is its own key
    (no other key is a str: a million string items make no million tuples); a number or boolean goes with its
    type's name (1, 1.0 and True are equal in Python)."""
    kind = type(value)
    if kind is str:
        return value
    if kind in (int, float, bool):
        return kind.__name__, value
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None


class Bounded(NamedTuple):
    """A long list's pairing (``bounded_pairs``): the pairs, how they were made (a sentence), how many of the first
    pairs are identical items, and the rule of the others (HUNGARIAN, or POSITION beyond the bound)."""

    pairs: list[tuple[int, int]]
    how: str
    identical: int
    rest: str

    def rule(self, k: int) -> str:
        """The rule that made pair ``k`` (of ``pairs``)."""
        return IDENTICAL if k < self.identical else self.rest


def bounded_pairs(
    g_keys: Sequence[Hashable | None],
    p_keys: Sequence[Hashable | None],
    best: Callable[[list[int], list[int]], list[tuple[int, int]]],
    fits: Callable[[list[int], list[int]], bool],
) -> Bounded:
    """A pairing of two lists too long for one assignment (more work than MATCH_BOUND pairs), and how it was made.

    Identical items (equal keys) are paired first, in order; what remains is
    paired by ``best(rows, cols)`` (the Hungarian algorithm on those items)
    when ``fits(rows, cols)`` (within the bound), else by position. Time and
    memory grow with the number of items, not with their product.
    """
    waiting: dict[Hashable, deque[int]] = {}
    for j, key in enumerate(p_keys):
        if key is not None:
            waiting.setdefault(key, deque()).append(j)
    pairs: list[tuple[int, int]] = []
    rows: list[int] = []
    for i, key in enumerate(g_keys):
        queue = waiting.get(key) if key is not None else None
        if queue:
            pairs.append((i, queue.popleft()))
        else:
            rows.append(i)
    used = bytearray(len(p_keys))  # a byte an item, not a set of a million ints
    for _, j in pairs:
        used[j] = 1
    cols = [j for j in range(len(p_keys)) if not used[j]]
    identical = len(pairs)
    how = f"{identical:,} identical item pairs matched first"
    rest = HUNGARIAN
    if rows and cols:
        if fits(rows, cols):
            pairs.extend(best(rows, cols))
            how += f", the other {min(len(rows), len(cols)):,} by the Hungarian algorithm"
        else:
            pairs.extend(zip(rows, cols))
            how += f", the other {min(len(rows), len(cols)):,} paired by position"
            rest = POSITION
    return Bounded(pairs, how, identical, rest)


class KeyedPairs(NamedTuple):
    """What key pairing (``keyed_pairs``) leaves: the pairs of equal keys, the items left to Hungarian matching on
    each side, and the key values found more than once in one list (with the items holding each)."""

    pairs: list[tuple[int, int]]
    rows: list[int]
    cols: list[int]
    repeated: list[tuple[str, Any, list[int]]]  # (side "ground truth" / "prediction", key value, items)


def _key_of(item: Any, keys: Sequence[FieldPlan]) -> Hashable | None:
    """An item's key values as one hashable (JSON equality: 1 equals 1.0, "1" does not), each unwrapped from
    its rich value; None when the item is no object or a key is missing or null."""
    if type(item) is not dict:
        return None
    found = []
    for f in keys:
        value = unwrap(item.get(f.key), f.rich)[0]
        if value is None:
            return None
        try:
            found.append(json_key(value))
        except TypeError:  # not JSON: never equal to anything
            return None
    return found[0] if len(found) == 1 else tuple(found)


def key_values(item: Any, keys: Sequence[FieldPlan]) -> Any:
    """The key values of ``item`` as a record problem shows them: the value of a lone key, else a list."""
    values = [unwrap(item.get(f.key), f.rich)[0] for f in keys]
    return values[0] if len(values) == 1 else values


def keyed_pairs(f: FieldPlan, gv: Sequence[Any], pv: Sequence[Any]) -> KeyedPairs:
    """Pair list field ``f``'s items (``gv`` x ``pv``, unwrapped) whose key values (``f.match_key``) are equal.
    An item without its key values, or whose key values another item of its list holds too, is left to
    Hungarian matching (the repeated ones are returned, for a record problem). Pairs come in ground-truth order."""
    keys = [f.model.field(name) for name in f.match_key]
    sides = []
    repeated: list[tuple[str, Any, list[int]]] = []
    for side, values in (("ground truth", gv), ("prediction", pv)):
        where: dict[Hashable, list[int]] = {}
        for k, item in enumerate(values):
            key = _key_of(item, keys)
            if key is not None:
                where.setdefault(key, []).append(k)
        for key, at in where.items():
            if len(at) > 1:
                repeated.append((side, key_values(values[at[0]], keys), at))
        sides.append({key: at[0] for key, at in where.items() if len(at) == 1})
    g_keys, p_keys = sides
    pairs = sorted((i, p_keys[key]) for key, i in g_keys.items() if key in p_keys)
    used_g, used_p = {i for i, _ in pairs}, {j for _, j in pairs}
    return KeyedPairs(
        pairs,
        [i for i in range(len(gv)) if i not in used_g],
        [j for j in range(len(pv)) if j not in used_p],
        repeated,
    )


def paired_by_key(
    f: FieldPlan, gv: Sequence[Any], pv: Sequence[Any], rest: Callable[[list[int], list[int]], Any]
) -> tuple[list[tuple[int, int]], KeyedPairs, dict[tuple[int, int], str]]:
    """List field ``f``'s items paired by key (``keyed_pairs``) first, then ``rest(rows, cols)`` pairs the items
    left, gv[rows] x pv[cols] (as (a, b) positions in ``rows`` and ``cols``, or a long list's Bounded): (every
    pair in ground-truth order, the key pairing, each pair's rule but HUNGARIAN). Both engine paths pair so."""
    found = keyed_pairs(f, gv, pv)
    pairs = list(found.pairs)
    rules = dict.fromkeys(pairs, KEY)
    rows, cols = found.rows, found.cols
    if rows and cols:
        local = rest(rows, cols)
        if isinstance(local, Bounded):  # a long list's: its identical pairs first, the others by its rule
            for k, (a, b) in enumerate(local.pairs):
                rules[rows[a], cols[b]] = local.rule(k)
            local = local.pairs
        pairs += [(rows[a], cols[b]) for a, b in local]
    pairs.sort()
    return pairs, found, rules


def position_pairs(n: int, m: int) -> list[tuple[int, int]]:
    """Items paired by index (x-aws-stickler-match-order: "position"): the first min(n, m) of each list."""
    return [(k, k) for k in range(min(n, m))]
