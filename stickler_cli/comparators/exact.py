"""Exact equality, by default after case folding and removing punctuation/space.

The seeds specify the forgiving default (``"hello, world!"`` equals
``"hello world"``); ``case_sensitive=true`` plus ``normalize=false`` gives the
strict comparison of stickler-eval 1.0.0 (see docs/parity.md). Normalisation
never makes two different JSON numbers equal: with it, a JSON number is compared
by value (``1`` equals ``1.0``; ``1.5`` is not ``15``), against a text that
spells it (number_text.py) or another number (two texts stay free text: ``"1.5"``
equals ``"15"``); and in every form, two distinct values of the field's ``enum``
(or a value and the field's ``const``) are never equal (``AllowedValues``,
compiled into the plan by the schema compiler).
"""

from __future__ import annotations

import string
from typing import Any, Sequence

import numpy as np
import orjson

from ..ascii_text import deleting, without
from ..number_text import read_number
from .base import Comparator, Param, gather, value_text

_STRIPPED = string.punctuation + string.whitespace
_STRIP = str.maketrans("", "", _STRIPPED)
_STRIP_ASCII = deleting(_STRIPPED)


def _canonical(value: Any) -> str | None:
    """Text form of a value (mappings canonicalised so key order never matters); None when it has none."""
    if isinstance(value, dict):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
        except (TypeError, orjson.JSONEncodeError):  # nesting deeper than orjson allows
            return None
    return value_text(value)


def _number_key(value: Any) -> str | None:
    """What a number and anything compared with it must share: its value as canonical decimal text (a text that
    spells it, number_text.py), or for NaN and the infinities their names, equal only to themselves as written
    (``nan`` to ``nan``, as Exact read them before numbers were compared by value)."""
    key = read_number(value)
    if key is None and type(value) is float:
        return repr(value)  # "nan", "inf", "-inf": no decimal text is spelled so
    return key


_NUMBERS = (int, float)  # JSON numbers (bool is not one)
_NUMBER_TYPES = frozenset(_NUMBERS)


def _allowed_identity(value: Any) -> Any:
    """A value as the field's ``enum``/``const`` names it (JSON equality: 1 and 1.0 are one number, true is not
    1); None for a value that is no string, number or boolean."""
    kind = type(value)
    if kind is str:
        return value
    if kind is bool:
        return (bool, value)
    if kind is int or kind is float:
        return (float, _number_key(value))
    return None


AMBIGUOUS = -2  # AllowedValues.id of a text that normalises to several allowed values ("a" of "A+" and "A-")


class AllowedValues:
    """A field's ``enum`` or ``const`` values, compiled once: two distinct values of an enum are never
    equal, and a value other than the const never equals it, whatever the normalisation. A text that is no
    allowed value as written is read as the one it spells but for case and white space (``"a+ "`` is
    ``"A+"``, never ``"A-"``); one whose normalised key several allowed values share equals none of them."""

    __slots__ = ("ids", "exclusive", "_form", "_key", "_forms", "_keys")

    def __init__(self, values: Sequence[Any], exclusive: bool, form: Any, key: Any) -> None:
        self.ids: dict[Any, int] = {}
        for value in values:
            identity = _allowed_identity(value)
            if identity is not None:
                self.ids.setdefault(identity, len(self.ids))
        self.exclusive = exclusive  # a const: one side being it is enough
        self._form, self._key = form, key  # the comparator's: case and space folded; its whole normalisation
        self._forms: dict[str, set[int]] = {}
        self._keys: dict[str, set[int]] = {}
        for identity, place in self.ids.items():
            if type(identity) is str:
                self._forms.setdefault(form(identity), set()).add(place)
                self._keys.setdefault(key(identity), set()).add(place)

    def id(self, value: Any) -> int:
        """The value's place among the allowed values; -1 when it is none of them, AMBIGUOUS when its
        normalised key is several's."""
        identity = _allowed_identity(value)
        if identity is None:
            return -1
        place = self.ids.get(identity)
        if place is not None:
            return place
        if type(value) is not str:
            return -1
        found = self._forms.get(self._form(value))
        if found:
            return next(iter(found)) if len(found) == 1 else AMBIGUOUS
        found = self._keys.get(self._key(value))
        return AMBIGUOUS if found and len(found) > 1 else -1

    def apart(self, a: int, b: int) -> bool:
        """Whether two values (by ``id``) must score 0.0: distinct enum values, a text several of them share and
        one of them, or the const and another value."""
        if self.exclusive:
            return (a >= 0) != (b >= 0)
        if a >= 0 and b >= 0:
            return a != b
        return (a == AMBIGUOUS and b >= 0) or (b == AMBIGUOUS and a >= 0)


class ExactComparator(Comparator):
    name = "ExactComparator"
    aliases = ("exact", "Exact")
    default_threshold = 1.0
    summary = (
        "1.0 when equal, else 0.0 (case-insensitive, ignores punctuation and spaces by default; "
        "numbers by value; distinct enum values never equal)"
    )
    params = (
        Param("case_sensitive", bool, False, "distinguish upper and lower case"),
        Param("normalize", bool, True, "remove punctuation and whitespace before comparing (not from numbers)"),
    )

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._fold = not self.case_sensitive
        self._strict = not self._fold and not self.normalize
        # Normalised, two numbers compare by value: the cosmetic analysis then knows rewriting them changes nothing.
        self.scores_number_values = bool(self.normalize)
        self.allowed: AllowedValues | None = None  # the field's enum/const (keep_apart), set by the schema compiler

    def keep_apart(self, values: Sequence[Any], exclusive: bool) -> None:
        """Never score two distinct values of the field's enum ``values`` as equal, nor (``exclusive``: its
        const) the const and another value."""
        self.allowed = AllowedValues(values, exclusive, self._form, self.key)

    def _form(self, text: str) -> str:
        """A text as this comparator reads it but for punctuation: case folded and white space removed as
        configured (how a value outside the enum is matched to one in it)."""
        if self._fold:
            text = text.casefold()
        return "".join(text.split()) if self.normalize else text

    def key(self, value: Any) -> str | None:
        """The normalised text two values must share to be equal (None: equal to nothing)."""
        text = _canonical(value)
        if text is None:
            return None
        if text.isascii():  # case folding is lower case; the same deletion, by bytes
            if self._fold:
                text = text.lower()
            return without(text, _STRIP_ASCII) if self.normalize else text
        if self._fold:
            text = text.casefold()
        if self.normalize:
            text = text.translate(_STRIP)
        return text

    def similarity(self, gt: Any, pred: Any) -> float:
        allowed = self.allowed
        if allowed is not None and allowed.apart(allowed.id(gt), allowed.id(pred)):
            return 0.0
        if self._strict and type(gt) is str and type(pred) is str:
            return 1.0 if gt == pred else 0.0  # nothing to normalise: the key is the text
        if self.normalize and (type(gt) in _NUMBER_TYPES or type(pred) in _NUMBER_TYPES):
            a = _number_key(gt)  # by value, the other side read as a number: 1.5 is not 15, nor "-15"
            return 1.0 if a is not None and a == _number_key(pred) else 0.0
        a = self.key(gt)
        return 1.0 if a is not None and a == self.key(pred) else 0.0

    scores_cells = True

    def _keys(self, values: Sequence[Any], numbers: bool) -> list[str | None]:
        """Each value's key; with ``numbers``, a JSON number's is "#" and its value (no text key holds "#")."""
        if self._strict:  # a string is its own key
            return [v if type(v) is str else self.key(v) for v in values]
        if numbers:
            return [
                (None if (n := _number_key(v)) is None else "#" + n) if type(v) in _NUMBER_TYPES else self.key(v)
                for v in values
            ]
        return [self.key(v) for v in values]

    def _numbers(self, values: Sequence[Any]) -> bool:
        """Whether ``values`` hold a JSON number that normalisation must not touch."""
        return bool(self.normalize) and not _NUMBER_TYPES.isdisjoint(set(map(type, values)))

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]] | np.ndarray:
        """Each value normalised once, then compared by key."""
        g_numbers, p_numbers = self._numbers(gts), self._numbers(preds)
        if self.allowed is not None or g_numbers or p_numbers:
            n, m = len(gts), len(preds)
            return self._cells(
                gts, preds, np.repeat(np.arange(n), m), np.tile(np.arange(m), n), g_numbers, p_numbers
            ).reshape(n, m)
        pred_keys = self._keys(preds, False)
        return [[1.0 if a is not None and a == b else 0.0 for b in pred_keys] for a in self._keys(gts, False)]

    def similarity_cells(
        self, gts: Sequence[Any], preds: Sequence[Any], rows: Sequence[int], cols: Sequence[int]
    ) -> np.ndarray:
        return self._cells(gts, preds, rows, cols, self._numbers(gts), self._numbers(preds))

    def _cells(
        self,
        gts: Sequence[Any],
        preds: Sequence[Any],
        rows: Sequence[int],
        cols: Sequence[int],
        g_numbers: bool,
        p_numbers: bool,
    ) -> np.ndarray:
        numbers = g_numbers or p_numbers
        left, right = gather(self._keys(gts, numbers), rows), gather(self._keys(preds, numbers), cols)
        equal = (left == right) & (left != None)  # noqa: E711  (elementwise: a key of None equals nothing)
        out = equal.astype(float)
        if numbers:  # a number against anything else: the other side read as a number, pair by pair (rare)
            mixed = (
                _is_number(gts)[np.asarray(rows, dtype=np.intp)] != _is_number(preds)[np.asarray(cols, dtype=np.intp)]
            )
            for k in np.flatnonzero(mixed).tolist():
                out[k] = self.similarity(gts[rows[k]], preds[cols[k]])
        allowed = self.allowed
        if allowed is not None:
            a = np.array([allowed.id(v) for v in gts], dtype=np.intp)[np.asarray(rows, dtype=np.intp)]
            b = np.array([allowed.id(v) for v in preds], dtype=np.intp)[np.asarray(cols, dtype=np.intp)]
            apart = np.fromiter((allowed.apart(x, y) for x, y in zip(a.tolist(), b.tolist())), bool, len(a))
            out[apart] = 0.0
        return out


def _is_number(values: Sequence[Any]) -> np.ndarray:
    """Which values are JSON numbers."""
    return np.fromiter((type(v) in _NUMBER_TYPES for v in values), bool, len(values))
