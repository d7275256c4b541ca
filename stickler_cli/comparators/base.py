"""The comparator contract: two present values in, a similarity in [0, 1] out.

Comparators declare their constructor parameters as ``Param`` records so the
schema compiler can validate ``x-aws-stickler-comparator-config`` up front and
``stickler comparators`` can list them. The missing-value policy (both absent
-> 1.0, one absent -> 0.0) lives in the engine, which knows what "absent"
means; ``similarity`` only ever sees two present values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

import numpy as np
from rapidfuzz.process import cdist, cpdist

from ..json_text import as_written


@dataclass(frozen=True)
class Param:
    """One constructor parameter a comparator accepts from comparator-config."""

    name: str
    kind: type  # bool, int, float or str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    nullable: bool = False
    minimum: float | None = None

    def check(self, value: Any) -> str | None:
        """Return why ``value`` is not acceptable, or None when it is."""
        if value is None:
            return None if self.nullable else "must not be null"
        if self.kind is bool:
            ok = isinstance(value, bool)
        elif self.kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            ok = ok and math.isfinite(value)
        elif self.kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, self.kind)
        if not ok:
            return f"must be {_kind_name(self.kind)}, got {as_written(value)}"
        if self.choices is not None and value not in self.choices:
            return f"must be one of {', '.join(map(as_written, self.choices))}, got {as_written(value)}"
        if self.minimum is not None and value < self.minimum:
            return f"must be >= {self.minimum}, got {as_written(value)}"
        return None


class ComparatorConfigError(ValueError):
    """A comparator name or config value is wrong; ``key`` names the config key at fault."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class MissingExtraError(ImportError):
    """A comparator needs an optional extra that is not installed."""

    def __init__(self, comparator: str, extra: str, missing: str | None = None) -> None:
        self.comparator = comparator
        self.extra = extra
        detail = f" ({missing} is not installed)" if missing else ""
        from ..extras import install_hint

        super().__init__(f"{comparator} needs the optional extra {extra!r}{detail}: {install_hint(extra)}")


def value_text(value: Any) -> str | None:
    """``str(value)``, or None for a value that has no text form Python will produce
    (an integer of more than 4,300 digits, nesting deeper than the recursion limit).
    Comparators score such a value 0.0 against anything."""
    if type(value) is str:
        return value
    try:
        return str(value)
    except Exception:  # ValueError, RecursionError, or an odd object's __str__ (Python API)
        return None


# Edit-distance scorers cost about len(a) * len(b): texts are cut to this many characters before
# scoring, so that one comparison stays under a few tens of milliseconds (docs/trust.md, "What counts
# as an error"). partial_ratio aligns every window and grows faster still.
MAX_TEXT = 20_000
MAX_PARTIAL_TEXT = 2_000


def bounded(text: str | None, limit: int = MAX_TEXT) -> str | None:
    """``text`` cut to its first ``limit`` characters."""
    return text[:limit] if text is not None and len(text) > limit else text


def text_matrix(
    scorer: Callable[..., float], a: Sequence[str | None], b: Sequence[str | None], scale: float = 1.0
) -> np.ndarray:
    """``scorer`` on every text of ``a`` against every text of ``b`` (rapidfuzz ``cdist``), over ``scale``.

    As the comparators' ``similarity`` says: a value with no text (None) scores
    0.0, two empty texts 1.0 (rapidfuzz's ratios say 0.0 there).
    """
    matrix = cdist(a, b, scorer=scorer, dtype=np.float64, workers=1)
    if scale != 1.0:
        matrix = matrix / scale
    if None in a or None in b:  # cdist leaves such rows and columns unset
        matrix[[i for i, t in enumerate(a) if t is None], :] = 0.0
        matrix[:, [j for j, t in enumerate(b) if t is None]] = 0.0
    if "" in a and "" in b:
        matrix[np.ix_([t == "" for t in a], [t == "" for t in b])] = 1.0
    return matrix


def text_cells(
    scorer: Callable[..., float],
    a: Sequence[str | None],
    b: Sequence[str | None],
    rows: Sequence[int],
    cols: Sequence[int],
    scale: float = 1.0,
    scores: np.ndarray | None = None,
) -> np.ndarray:
    """``scorer`` on the text pairs (a[rows[k]], b[cols[k]]) (rapidfuzz ``cpdist``), as ``text_matrix``.

    ``rows`` and ``cols`` may be integer arrays: the pairs are gathered in numpy, not one by one.
    ``scores``: the scorer's answers, already computed (the texts' rules below still apply).
    """
    left = gather(a, rows)
    right = gather(b, cols)
    out = cpdist(left, right, scorer=scorer, dtype=np.float64, workers=1) if scores is None else scores
    if scale != 1.0:
        out = out / scale
    if None in a or None in b:
        out[[k for k, (x, y) in enumerate(zip(left.tolist(), right.tolist())) if x is None or y is None]] = 0.0
    if "" in a and "" in b:
        out[[k for k, (x, y) in enumerate(zip(left.tolist(), right.tolist())) if x == "" and y == ""]] = 1.0
    return out


def gather(values: Sequence[Any], at: Sequence[int]) -> np.ndarray:
    """``[values[i] for i in at]`` as an object array (one C loop, not one Python step per item)."""
    column = np.empty(len(values), dtype=object)
    column[:] = values
    return column[np.asarray(at, dtype=np.intp)]


# What a judged comparator's bill counts per field (docs/comparators/llm.md, "The bill"): requests sent to the
# model, questions answered from the answer cache, pairs of identical values (not asked), pairs whose question
# was already put this run (not asked again), and questions that got no verdict (scored 0.0).
BILL = ("asked", "cached", "identical", "deduplicated", "failed")


def identical_values(gt: Any, pred: Any) -> bool:
    """Whether two values are the same JSON value, compared as parsed, before any normalisation a
    comparator makes: a judged (``costly``) comparator scores such a pair 1.0 without asking its model.

    Strings, booleans, null and numbers are equal when they are of one JSON type and equal; an integer
    and a float are not (``1`` and ``1.0`` are two spellings the model may be asked about: the engine
    gives a comparator the value as parsed, and the judge sees ``"1"`` and ``"1.0"``), nor is a boolean a
    number (``true`` is not ``1``). Arrays are equal item by item in order; objects when they hold the
    same keys with equal values, in any order. Iterative: records may nest deeper than Python recurses.
    """
    stack = [(gt, pred)]
    while stack:
        a, b = stack.pop()
        kind = type(a)
        if kind is not type(b):
            return False
        if kind is list:
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif kind is dict:
            if len(a) != len(b) or a.keys() != b.keys():
                return False
            stack.extend((a[k], b[k]) for k in a)
        elif a != b:  # str, int, float (NaN is never equal), bool, None; an odd object by its own ==
            return False
    return True


class NotASimilarity(ValueError):
    """A plugin comparator answered something that is not a similarity in [0, 1]."""


def _similarity(value: Any) -> float:
    """``value`` as a similarity, or NotASimilarity saying what it was."""
    if isinstance(value, (int, float, np.integer, np.floating, np.bool_)):  # a bool is 0 or 1
        number = float(value)
        if 0.0 <= number <= 1.0:
            return number
    shown = repr(value)
    raise NotASimilarity(f"returned {shown[:60]}{'...' if len(shown) > 60 else ''}, not a similarity in [0, 1]")


def _checked_one(method: Callable[..., Any]) -> Callable[..., float]:
    def similarity(self: "Comparator", gt: Any, pred: Any) -> float:
        return _similarity(method(self, gt, pred))

    similarity._checked = True  # type: ignore[attr-defined]
    similarity.__doc__ = method.__doc__
    return similarity


def _checked_many(method: Callable[..., Any]) -> Callable[..., Any]:
    """A matrix (or cells) answer checked whole: one bad value refuses it, and the engine then
    asks value by value, so only the bad comparisons score 0.0."""

    def many(self: "Comparator", *args: Any) -> Any:
        answer = method(self, *args)
        try:
            values = np.asarray(answer, dtype=float)
        except (TypeError, ValueError):
            raise NotASimilarity("returned values that are not numbers") from None
        if values.size and not (np.all(values >= 0.0) and np.all(values <= 1.0)):  # NaN fails both
            raise NotASimilarity("returned values outside [0, 1]")
        return answer

    many._checked = True  # type: ignore[attr-defined]
    many.__doc__ = method.__doc__
    return many


def _kind_name(kind: type) -> str:
    return {bool: "a boolean", float: "a number", int: "an integer", str: "a string"}.get(kind, kind.__name__)


class Comparator:
    """Base class: subclasses set ``name``, ``params`` and implement ``similarity``.

    ``default_threshold`` is the comparator's own notion of a match; the field's
    threshold (from the schema or the type default) is what classifies.
    """

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    params: ClassVar[tuple[Param, ...]] = ()
    default_threshold: ClassVar[float] = 0.7
    summary: ClassVar[str] = ""
    # True for comparators that take a whole array or object as one value (a
    # bounding box, an ANLS* tree): the compiler then treats such a property as
    # a single value instead of matching its items.
    whole_value: ClassVar[bool] = False
    # True for comparators that call a model (an LLM, an embedding model): a pair of identical values
    # (``identical_values``) scores 1.0 without a call, and their requests are billed (docs/comparators/llm.md).
    costly: ClassVar[bool] = False
    # True for comparators whose cost grows with the product of two texts' lengths (edit distances): the
    # matching of a list counts their long texts as more than one pair each (engine/matching.py).
    text_quadratic: ClassVar[bool] = False
    # The optional extra (extras.install_hint) the comparator needs,
    # and the modules that extra provides (checked without importing them).
    extra: ClassVar[str | None] = None
    requires: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def missing_module(cls, modules: Sequence[str] | None = None) -> str | None:
        """The first of ``modules`` (default: ``requires``) that is not installed, found without importing."""
        import importlib.util

        for module in cls.requires if modules is None else modules:
            if importlib.util.find_spec(module) is None:
                return module
        return None

    @classmethod
    def available(cls) -> bool:
        """Whether the modules this comparator needs are installed."""
        return cls.missing_module() is None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A comparator written outside stickler (a plugin) has its answers checked: a value that
        is not a number in [0, 1] (5.0, -3, NaN, a string) is refused for that comparison, which
        the engine then scores 0.0 and reports, rather than letting it push a weighted score past 1."""
        super().__init_subclass__(**kwargs)
        if cls.__module__.split(".", 1)[0] == __name__.split(".", 1)[0]:
            return  # built-ins are held to [0, 1] by their tests, at no cost per call
        for name, check in (
            ("similarity", _checked_one),
            ("similarity_matrix", _checked_many),
            ("similarity_cells", _checked_many),
        ):
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_checked", False):
                setattr(cls, name, check(method))

    def __init__(self, **config: Any) -> None:
        for param in self.params:
            setattr(self, param.name, config.get(param.name, param.default))
        self.config = {p.name: getattr(self, p.name) for p in self.params}

    def similarity(self, gt: Any, pred: Any) -> float:
        """Similarity of two present (non-None) values, in [0, 1]."""
        raise NotImplementedError

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]] | np.ndarray:
        """All pairwise similarities (lists, or a float array); comparators with a vectorised form override it."""
        return [[self.similarity(g, p) for p in preds] for g in gts]

    # True when ``similarity_cells`` is vectorised: the engine then scores the item
    # pairs of a whole batch of documents' lists in one call per field.
    scores_cells: ClassVar[bool] = False

    def similarity_cells(
        self, gts: Sequence[Any], preds: Sequence[Any], rows: Sequence[int], cols: Sequence[int]
    ) -> "list[float] | np.ndarray":
        """The similarities of the pairs (gts[rows[k]], preds[cols[k]]), in order (``rows`` and ``cols``:
        lists of ints, or integer arrays for the built-in comparators)."""
        return [self.similarity(gts[i], preds[j]) for i, j in zip(rows, cols)]

    # Engine hooks for comparators that call models. ``prefetch`` receives every
    # (gt, pred) pair of a batch of documents before they are scored, so work can
    # be batched or run concurrently; ``drain_failures`` hands over (and forgets)
    # messages about comparisons that could not be made, reported per field.
    prefetches: ClassVar[bool] = False
    reports_failures: ClassVar[bool] = False

    # True when two plain numbers (int or float) are scored by their values alone, so that any text
    # spelling the same values (cosmetic.read_number's canonical form) scores the same: the cosmetic
    # analysis then knows, without a call, that rewriting such a pair's numbers cannot make it match.
    scores_number_values: ClassVar[bool] = False

    def keep_apart(self, values: Sequence[Any], exclusive: bool) -> None:
        """Told by the schema compiler, once, the field's ``enum`` (or its ``const``, ``exclusive``): a
        comparator that normalises (ExactComparator) then never scores two distinct ones equal. The
        default ignores it."""

    def prefetch(self, pairs: Sequence[tuple[Any, Any]]) -> None:
        """Prepare for scoring ``pairs`` (present values only); the default does nothing."""

    def drain_failures(self) -> list[str]:
        return []

    # True for comparators that keep a bill (``BILL``, per field): ``drain_bill`` hands it over and forgets it.
    bills: ClassVar[bool] = False

    def drain_bill(self) -> list[int] | None:
        """The counts of ``BILL`` since the last drain (None when nothing happened); the default keeps none."""
        return None

    def answers(self) -> dict[str, Any]:
        """A billing comparator's answers got in this run (question key -> outcome), which a multi-process
        run's parent hands its workers (run/judge_first.py); the default has none."""
        return {}

    def adopt(self, answers: dict[str, Any] | None) -> None:
        """Take the parent's ``answers`` (None: this process asks and bills for itself); the default ignores them."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config.items())
        return f"{type(self).__name__}({args})"
