"""value_class.py gives a dataclass declared ``repr=False, eq=False`` the repr, equality, hashing and
immutability ``dataclass`` would have compiled for it: each checked here against a twin declared the
usual way, on the same values."""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any

import pytest

from stickler_cli import limits
from stickler_cli.accumulate import Analysis
from stickler_cli.reader import Pairing
from stickler_cli.shards import Shard
from stickler_cli.value_class import FrozenValueClass, ValueClass


@dataclass(frozen=True)
class FrozenTwin:
    a: int
    b: Any = ()
    c: float = 0.5
    hidden: Any = field(default=None, compare=False, repr=False)
    notes: list = field(default_factory=list, compare=False)


@dataclass(repr=False, eq=False)
class Frozen(FrozenValueClass):
    a: int
    b: Any = ()
    c: float = 0.5
    hidden: Any = field(default=None, compare=False, repr=False)
    notes: list = field(default_factory=list, compare=False)


@dataclass(repr=False, eq=False, slots=True)
class FrozenSlotted(FrozenValueClass):
    a: int
    b: Any = ()
    c: float = 0.5
    hidden: Any = field(default=None, compare=False, repr=False)
    notes: list = field(default_factory=list, compare=False)


@dataclass
class MutableTwin:
    a: int
    c: float = 0.5


@dataclass(repr=False, eq=False, slots=True)
class Mutable(ValueClass):
    a: int
    c: float = 0.5


NAN = math.nan
CASES = [((1,), (1,)), ((1,), (2,)), ((1, (1,)), (1, (1,))), ((1, [1]), (1, [1])), ((1, [1]), (1, [2])),
         ((1, (), NAN), (1, (), NAN)), ((1, (), 0.5, "x"), (1, (), 0.5, "y")), ((1, (), -0.0), (1, (), 0.0))]


@pytest.mark.parametrize("cls", [Frozen, FrozenSlotted])
@pytest.mark.parametrize("left, right", CASES)
def test_frozen_answers_as_a_frozen_dataclass(cls, left, right):
    """repr, ==, != and hash as the twin's: compare=False and repr=False fields left out, NaN equal only as the
    same object (tuples compare items by identity first), -0.0 equal to 0.0, a list field unhashable."""
    ours, theirs = (cls(*left), cls(*right)), (FrozenTwin(*left), FrozenTwin(*right))
    assert repr(ours[0]).replace(cls.__qualname__, "T") == repr(theirs[0]).replace("FrozenTwin", "T")
    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
    assert (ours[0] != ours[1]) == (theirs[0] != theirs[1])
    if not any(isinstance(v, list) for v in left):
        assert hash(ours[0]) == hash(theirs[0])
    else:
        with pytest.raises(TypeError):  # a list field: unhashable, as the dataclass is
            hash(ours[0])
    assert ours[0] != theirs[0] and ours[0] != (left[0],)  # another class is never equal


@pytest.mark.parametrize("cls", [Frozen, FrozenSlotted])
def test_frozen_fields_are_set_once(cls):
    """Assigning or deleting a field raises FrozenInstanceError, as a frozen dataclass does; __init__ sets each
    field once, class-level defaults (an unslotted dataclass keeps them on the class) included."""
    value = cls(1)
    assert (value.a, value.b, value.c, value.notes) == (1, (), 0.5, [])
    assert cls(1).notes is not value.notes  # a default_factory makes one list per instance
    with pytest.raises(FrozenInstanceError):
        value.a = 2
    with pytest.raises(FrozenInstanceError):
        value.c = 0.25  # a field whose default the class holds
    with pytest.raises(FrozenInstanceError):
        del value.a
    assert value.a == 1 and value.c == 0.5
    changed = dataclasses.replace(value, c=0.25)
    assert (changed.a, changed.c, value.c) == (1, 0.25, 0.5)
    with pytest.raises(FrozenInstanceError):
        changed.c = 0.5


@pytest.mark.parametrize("cls", [Frozen, FrozenSlotted])
def test_frozen_survive_pickle_and_copy(cls):
    value = cls(3, (1, 2), 0.75, hidden="kept")
    for back in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
        assert back == value and back.hidden == "kept" and type(back) is cls
        with pytest.raises(FrozenInstanceError):
            back.a = 4


def test_mutable_answers_as_a_dataclass():
    assert repr(Mutable(1)).replace("Mutable", "T") == repr(MutableTwin(1)).replace("MutableTwin", "T")
    assert Mutable(1) == Mutable(1) and Mutable(1) != Mutable(1, 0.25)
    with pytest.raises(TypeError):  # eq without frozen: unhashable, as a dataclass
        hash(Mutable(1))
    value = Mutable(1)
    value.a = 2
    assert value == Mutable(2)


def test_the_classes_declared_so_keep_their_defaults_and_cross_processes():
    """Defaults read from the class stay values (eval reads Analysis.worst), and what is sent to a worker
    process or written by pickle comes back equal."""
    assert Analysis.worst == 10 and isinstance(limits.Limits.line_bytes, int)
    for value in (Analysis(slices=("currency",)), Pairing(id_field="id"), Shard("gt.jsonl", "pred.jsonl"),
                  limits.DEFAULT):
        back = pickle.loads(pickle.dumps(value))
        assert back == value and hash(back) == hash(value)
