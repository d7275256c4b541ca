"""What went wrong in one list of objects: each row left unmatched by the Hungarian pairing, labelled.

docs/why-it-fails.md, "What went wrong in a list", defines the labels; this module is the rule. A row is *open*
when it is not in a pair at or above the item model's match threshold (a TP pair). Every open row
gets exactly one label, by the first rule of this order that claims it (``CATEGORIES``):

1. merged: one predicted row whose text is like two adjacent truth rows joined;
2. split: two adjacent predicted rows whose texts joined are like one truth row;
3. duplicated: an open predicted row at or above the match threshold with a truth row already
   matched (TP) to another predicted row;
4. mismatched: a pair below the match threshold whose similarity is at least ``like`` (the row is
   there, its values are wrong);
5. truncated: the open truth rows that end the list, when there are at least ``tail_rows`` of them
   and some truth row before them is matched;
6. dropped: any other open truth row;
7. hallucinated: any other open predicted row.

Apart from those, a list whose matched rows are out of order has its Kendall tau reported (scoring
ignores the order). Only lists with an open row or an out-of-order match are classified: the
engine checks that from the assignment it has already made, so a list matched whole and in order
costs nothing here. A list of more than ``list-classify-cells`` item pairs is not classified: its
open rows are counted as unclassified.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from .. import limits
from ..plan import Kind, ModelPlan

# The labels, in their order of precedence (the first rule that claims an open row labels it).
CATEGORIES = ("merged", "split", "duplicated", "mismatched", "truncated", "dropped", "hallucinated")

Event = tuple[str, tuple[int, ...], tuple[int, ...]]  # (label, truth rows, predicted rows)
TEXT_TYPES = ("string", "mixed")  # the primitive fields (schema type) whose string values make a row's text
SMALL_TAU = 32  # Kendall tau of up to this many matched rows in Python, beyond in numpy (the same value)
_STRING_KEYS: dict[int, tuple[ModelPlan, tuple[str, ...]]] = {}  # per item model: its primitive fields' keys
_process: Any = None  # rapidfuzz.utils.default_process, imported on first use (start-up)
_ratio: Any = None  # rapidfuzz.fuzz.ratio, the same
_NOT_ALNUM = bytes(c for c in range(128) if not chr(c).isalnum())  # the ASCII characters default_process blanks


@dataclass(slots=True)
class ListFindings:
    """One list's labelled rows: ``events`` in precedence order; ``tau`` the Kendall tau of the matched
    rows' order when it is below 1 (None: in order, or fewer than two matched rows); ``unclassified``
    the open rows of a list beyond the bound (then nothing else is said of it)."""

    field: int  # the list field's index in the plan
    gt_rows: int
    pred_rows: int
    events: list[Event] = field(default_factory=list)
    tau: float | None = None
    unclassified: int = 0

    def __bool__(self) -> bool:
        """Whether there is anything to say of the list."""
        return bool(self.events or self.tau is not None or self.unclassified)


def in_order(pairs: Sequence[tuple[int, int]], tp: int, n: int, m: int) -> bool:
    """Whether a list needs no classification: every row of both sides matched (``tp`` TP pairs), in order.
    ``pairs`` are the assignment's, in truth-row order."""
    if not tp == n == m:
        return False
    return all(a[1] < b[1] for a, b in zip(pairs, pairs[1:]))


def kendall_tau(order: Sequence[int]) -> float:
    """Kendall's tau (tau-a; values are distinct) between positions and ``order``: (concordant − discordant)
    pairs over all pairs; 1.0 for fewer than two values. [2, 0, 1]: one concordant, two discordant, −1/3."""
    k = len(order)
    if k < 2:
        return 1.0
    if k <= SMALL_TAU:  # a few values: plain Python costs less than building arrays
        discordant = 0  # pairs out of order; the others concordant (plain loops: no generator per list)
        for p in range(1, k):
            x = order[p]
            for y in order[:p]:
                if y > x:
                    discordant += 1
        return (k * (k - 1) // 2 - 2 * discordant) / (k * (k - 1) / 2)
    a = np.asarray(order, dtype=np.int64)
    signs = np.sign(a[None, :] - a[:, None])  # row i, column j: +1 when a[j] > a[i]
    return float(np.triu(signs, 1).sum()) / (k * (k - 1) / 2)


def one_side(field_index: int, n: int, m: int) -> ListFindings:
    """A list null on one side: every truth row dropped (no prediction), or every predicted row hallucinated."""
    events: list[Event] = [("dropped", (i,), ()) for i in range(n)] + [("hallucinated", (), (j,)) for j in range(m)]
    return ListFindings(field_index, n, m, events)


def _text_keys(model: ModelPlan) -> tuple[str, ...]:
    """The keys of an item model's primitive fields whose values make a row's text (remembered per model)."""
    cached = _STRING_KEYS.get(id(model))
    if cached is None or cached[0] is not model:
        cached = _STRING_KEYS[id(model)] = (
            model,
            tuple(f.key for f in model.fields if f.kind is Kind.PRIMITIVE and f.json_type in TEXT_TYPES),
        )
    return cached[1]


def _text(keys: tuple[str, ...], row: Any) -> str:
    """A row's text for merged and split: the values of its primitive fields (``keys``) that are strings, in the
    schema's field order, joined by spaces (rich values unwrapped)."""
    if type(row) is not dict:
        return row if type(row) is str else ""
    parts = []
    for key in keys:
        value = row.get(key)
        if type(value) is not str:
            if type(value) is not dict:
                continue
            # values.unwrap, inlined: a call per row cost 2.3 M instructions (0.2%) on case 1
            value = value.get("_value")  # a rich value
            if type(value) is not str:
                continue
        parts.append(value)
    return " ".join(parts)


class _Texts:
    """The rows of one side of a list as merged and split read them, each row read when first asked for:
    ``raw`` its text (``_text``), ``words`` that text as the token-sort ratio reads it (lower case,
    non-alphanumerics as spaces: rapidfuzz's default_process; the words sorted and joined by single spaces).

    Two bounds of a row's words' length, cheaper than its words, let merged and split skip the rows too short
    or too long to matter: at most its raw text's length (default_process maps each character to one, and
    joining the words drops spaces only); at least, for an ASCII text, its count of letters and digits
    (default_process keeps exactly those; a row with none has no words)."""

    __slots__ = ("keys", "rows", "raw", "words", "lower")

    def __init__(self, keys: tuple[str, ...], rows: Sequence[Any]) -> None:
        self.keys, self.rows = keys, rows
        # Per row, None until read (lists by row index: a list's rows are few, and a hit is one subscript).
        self.raw: list[str | None] = [None] * len(rows)
        self.words: dict[int, str] = {}
        self.lower: list[int | None] = [None] * len(rows)  # least's answers: merged and split may both ask

    def raw_of(self, k: int) -> str:
        """Row ``k``'s text (``_text``), read on first use."""
        text = self.raw[k]
        if text is None:
            text = self.raw[k] = _text(self.keys, self.rows[k])
        return text

    def read_words(self, wanted: Iterable[int]) -> dict[int, str]:
        """``words``, holding at least the rows ``wanted``."""
        global _process
        if _process is None:
            from rapidfuzz.utils import default_process as _process
        words = self.words
        for k in wanted:
            if k not in words:
                text = self.raw_of(k)
                words[k] = " ".join(sorted(_process(text).split())) if text else ""
        return words

    def least(self, k: int) -> int:
        """A lower bound of the length of row ``k``'s words (0 exactly when it has none)."""
        found = self.lower[k]
        if found is None:
            text = self.raw[k]
            if text is None:  # raw_of, inlined
                text = self.raw[k] = _text(self.keys, self.rows[k])
            found = self.lower[k] = (
                len(text.encode().translate(None, _NOT_ALNUM)) if text.isascii() else len(self.read_words((k,))[k])
            )
        return found


def _claimable(open_two: list[int], size: int, tp_two: dict[int, int], open_one: list[int]) -> list[tuple[int, int]]:
    """The (single row ``a``, first row ``b`` of the adjacent pair b, b+1) that merged (``two``: truth rows) or split
    (``two``: predicted rows) could ever claim: the pair holds an open row, and each of its rows is open or
    matched to ``a``; ``a`` is then an open row (both open) or the partner of the pair's matched row."""
    if len(open_two) == 1:  # one open row r (the commonest case): the pairs r - 1, r and r, r + 1, where they exist
        r = open_two[0]
        one = [(tp_two[r - 1], r - 1)] if r else []
        if r < size - 1:
            one.append((tp_two[r + 1], r))
        return one
    out: list[tuple[int, int]] = []
    is_open = set(open_two)
    last = -1
    for r in open_two:  # ascending: the pairs' first rows r - 1, r come in order, each once
        for b in (r - 1, r):
            if b <= last or b < 0 or b >= size - 1:
                continue
            last = b
            if b in is_open:
                if b + 1 in is_open:
                    out.extend((a, b) for a in open_one)
                else:
                    out.append((tp_two[b + 1], b))
            else:  # b + 1 is open
                out.append((tp_two[b], b))
    return out


def classify(
    field_index: int,
    model: ModelPlan,
    gv: Sequence[Any],
    pv: Sequence[Any],
    sims: Any,
    pairs: Sequence[tuple[int, int]],
) -> ListFindings:
    """Label the open rows of one list: ``gv``/``pv`` its items, ``sims[i, j]`` the item model's similarity of
    truth row i and predicted row j (an array, or for a list beyond the matching bound a mapping of the
    pairs made), ``pairs`` the assignment."""
    bounds = limits.current()
    n, m = len(gv), len(pv)
    threshold = model.match_threshold
    pairs = sorted(pairs if not pairs or type(pairs[0][0]) is int else [(int(i), int(j)) for i, j in pairs])
    if n * m > bounds.list_classify_cells or not isinstance(sims, np.ndarray):
        tp = sum(1 for i, j in pairs if sims[i, j] >= threshold)
        return ListFindings(field_index, n, m, unclassified=n + m - 2 * tp)
    grid = sims.tolist()  # a small matrix read cell by cell: plain lists cost less than array indexing
    tp_g: dict[int, int] = {}  # the TP pairs both ways; tp_g in truth-row order (``pairs`` is)
    tp_p: dict[int, int] = {}
    for i, j in pairs:
        if grid[i][j] >= threshold:
            tp_g[i] = j
            tp_p[j] = i
    order = list(tp_g.values())
    ordered = order == sorted(order)  # in truth-row order, predicted rows (distinct) rising
    found = ListFindings(field_index, n, m, tau=None if ordered else kendall_tau(order))
    if len(tp_g) == n == m:
        return found
    open_g = [i for i in range(n) if i not in tp_g]
    open_p = [j for j in range(m) if j not in tp_p]
    events = found.events
    used_g: set[int] = set()
    used_p: set[int] = set()
    merges = _claimable(open_g, n, tp_g, open_p) if open_g else []
    splits = _claimable(open_p, m, tp_p, open_g) if open_p else []
    if merges or splits:
        keys = _text_keys(model)
        g_texts, p_texts = _Texts(keys, gv), _Texts(keys, pv)
        if merges:
            _joined(events, "merged", p_texts, g_texts, merges, used_p, used_g, bounds, flip=False)
        if splits:
            _joined(events, "split", g_texts, p_texts, splits, used_g, used_p, bounds, flip=True)
    is_open_g = set(open_g)
    if tp_g:
        matched_rows = list(tp_g)
        for j in open_p:  # duplicated: like a truth row another predicted row matched (the first of the most alike)
            if j in used_p:
                continue
            best = matched_rows[0]
            for i in matched_rows:
                if grid[i][j] > grid[best][j]:
                    best = i
            if grid[best][j] >= threshold:
                events.append(("duplicated", (best,), (j,)))
                used_p.add(j)
    like = bounds.list_like_similarity
    for i, j in pairs:  # mismatched: a pair below the match threshold, still alike
        if i in is_open_g and i not in used_g and j not in used_p and grid[i][j] >= like:
            events.append(("mismatched", (i,), (j,)))
            used_g.add(i)
            used_p.add(j)
    tail = []
    for i in range(n - 1, -1, -1):
        if i not in is_open_g or i in used_g:
            break
        tail.append(i)
    if len(tail) >= bounds.list_tail_rows and tp_g:  # every matched row lies before the tail
        for i in reversed(tail):
            events.append(("truncated", (i,), ()))
            used_g.add(i)
    for i in open_g:  # (loops, not generators: a list costs a few rows)
        if i not in used_g:
            events.append(("dropped", (i,), ()))
    for j in open_p:
        if j not in used_p:
            events.append(("hallucinated", (), (j,)))
    return found


def _joined(
    events: list[Event],
    label: str,
    one: _Texts,
    two: _Texts,
    claimable: list[tuple[int, int]],
    used_one: set[int],
    used_two: set[int],
    bounds: limits.Limits,
    flip: bool,
) -> None:
    """Merged (a predicted row's text ``one`` a like truth rows ``two`` b and b+1 joined, for (a, b) in
    ``claimable``) or, sides swapped (``flip``), split. Events are taken by text similarity, highest first (ties:
    the lower rows), each while its rows are not taken by an event before it.

    The similarity is rapidfuzz's token-sort ratio / 100 (``fuzz.ratio`` of the sorted words joined by
    spaces). It cannot exceed 2·min(la, lb) / (la + lb) for texts of la and lb characters, so pairs whose
    lengths rule them out are never compared. Below r·lb / (2 − r) characters a row is too short for a
    joined pair of lb, which the bounds of ``_Texts`` show before most words are made: a list costs a few
    comparisons of lengths unless some row is about as long as two rows of the other side."""
    global _ratio
    if _ratio is None:
        from rapidfuzz.fuzz import ratio as _ratio
    r = bounds.list_text_similarity
    shortest = r / (2 - r)
    # First with the bounds: the pair's joined words are at least its rows' least lengths and a space, the
    # single row's at most its raw text's length (each read only when the bounds before it leave the pair in).
    possible = []
    lower, least, raw, raw_of = two.lower, two.least, one.raw, one.raw_of
    for a, b in claimable:  # (the caches read in place: most pairs share rows with the one before)
        first = lower[b]
        if first is None:
            first = least(b)
        if first:
            second = lower[b + 1]
            if second is None:
                second = least(b + 1)
            if second:
                text = raw[a]
                if text is None:
                    text = raw_of(a)
                if len(text) >= (first + second + 1) * shortest - 1e-6:
                    possible.append((a, b))
    if not possible:
        return
    theirs = two.read_words(sorted({c for _, b in possible for c in (b, b + 1)}))
    joined_lengths = {b: len(theirs[b]) + len(theirs[b + 1]) + 1 for _, b in possible}
    possible = [(a, b) for a, b in possible if len(raw[a]) >= joined_lengths[b] * shortest - 1e-6]
    if not possible:
        return
    mine = one.read_words(sorted({a for a, _ in possible}))
    margin = bounds.list_text_margin
    candidates = []
    for a, b in possible:
        text = mine[a]
        la, lb = len(text), joined_lengths[b]
        if not la or 2 * min(la, lb) < r * (la + lb) - 1e-9:
            continue
        joined = _ratio(text, " ".join(sorted((theirs[b] + " " + theirs[b + 1]).split()))) / 100.0
        if joined < r:
            continue
        alone = max(_ratio(text, theirs[c]) / 100.0 for c in (b, b + 1))
        if joined >= alone + margin:
            candidates.append((-joined, a, b))
    for _, a, b in sorted(candidates):
        if a in used_one or b in used_two or b + 1 in used_two:
            continue
        used_one.add(a)
        used_two.update((b, b + 1))
        events.append((label, (b, b + 1), (a,)) if not flip else (label, (a,), (b, b + 1)))
