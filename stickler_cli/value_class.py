"""Value equality, hashing, a repr and immutability for dataclasses, written once here.

Python 3.11's ``dataclass`` writes ``__repr__``, ``__eq__`` and, for a frozen class, ``__setattr__``,
``__delattr__`` and ``__hash__`` as source text and compiles them as each class is made: half a
millisecond to two a class, about half of what stickler's own modules cost a short command to import
(docs/performance.md, "Start-up"). A class declared ``@dataclass(repr=False, eq=False)`` on one of these
bases keeps what ``dataclass`` gives (fields, ``__init__``, ``dataclasses.replace``, slots when asked for)
and takes the rest from here: the same answers, from methods compiled once, with this module.

A frozen class here checks each field's first setting in Python, where ``dataclass(frozen=True)`` has its
``__init__`` set fields through ``object.__setattr__``: classes made thousands of times a run (comparison
rows, date readings, data errors) stay plain frozen dataclasses.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields
from typing import Any

# Per class: the names of its fields that equality and hashing compare (``field(compare=False)`` left out),
# and of those its repr shows (``field(repr=False)`` left out), found on first use.
_COMPARED: dict[type, tuple[str, ...]] = {}
_SHOWN: dict[type, tuple[str, ...]] = {}


def _compared(cls: type) -> tuple[str, ...]:
    names = _COMPARED.get(cls)
    if names is None:
        names = _COMPARED[cls] = tuple(f.name for f in fields(cls) if f.compare)
    return names


class ValueClass:
    """Equal when of the same class with equal fields (compared as one tuple, as ``dataclass`` compares them);
    unhashable, as a dataclass that compares and is not frozen."""

    __slots__ = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _compared(type(self)))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        cls = type(self)
        names = _SHOWN.get(cls)
        if names is None:
            names = _SHOWN[cls] = tuple(f.name for f in fields(cls) if f.repr)
        return f"{cls.__qualname__}({', '.join(f'{name}={getattr(self, name)!r}' for name in names)})"


class FrozenValueClass(ValueClass):
    """A ``ValueClass`` whose fields are set once (by ``__init__``, or by pickle and copy on a new object) and
    never again, hashed by its compared fields: what ``dataclass(frozen=True)`` gives."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            held = object.__getattribute__(self, "__dict__")
        except AttributeError:  # slotted: a slot not yet set raises on reading
            done = hasattr(self, name)
        else:  # a default may be a class attribute: only the instance's own are set
            done = name in held
        if done:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __hash__(self) -> int:
        return hash(self._values())
