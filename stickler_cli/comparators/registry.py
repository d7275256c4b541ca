"""Comparator names -> classes, with config validation and did-you-mean hints.

Built-ins register here; plugins (entry-point group ``stickler.comparators`` or
``--plugin module``) call ``register`` with their own subclasses.
"""

from __future__ import annotations

import difflib
from typing import Any, Iterable

from .base import Comparator
from .exact import ExactComparator
from .fuzzy import FuzzyComparator
from .levenshtein import LevenshteinComparator
from .numeric import NumericComparator


class ComparatorConfigError(ValueError):
    """A comparator name or config value is wrong; ``key`` names the config key at fault."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


_BY_NAME: dict[str, type[Comparator]] = {}


def register(cls: type[Comparator]) -> type[Comparator]:
    """Make ``cls`` available under its ``name`` and ``aliases``; usable as a decorator."""
    if not cls.name:
        raise ValueError(f"{cls.__qualname__} needs a non-empty 'name'")
    for key in (cls.name, *cls.aliases):
        _BY_NAME[key] = cls
    return cls


def registered() -> list[type[Comparator]]:
    """Each registered class once, in name order."""
    return sorted(set(_BY_NAME.values()), key=lambda c: c.name)


def suggest(word: str, options: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix when a close option exists, else ''."""
    match = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def lookup(name: str) -> type[Comparator]:
    try:
        return _BY_NAME[name]
    except KeyError:
        names = sorted({c.name for c in _BY_NAME.values()})
        raise ComparatorConfigError(
            f"unknown comparator {name!r}{suggest(name, _BY_NAME)}; known: {', '.join(names)}"
        ) from None


def build(name: str, config: dict[str, Any] | None = None) -> Comparator:
    """Instantiate comparator ``name`` after checking every config key and value."""
    cls = lookup(name)
    config = dict(config or {})
    accepted = {p.name: p for p in cls.params}
    for key, value in config.items():
        param = accepted.get(key)
        if param is None:
            known = ", ".join(accepted) or "none"
            raise ComparatorConfigError(
                f"{cls.name} takes no option {key!r}{suggest(key, accepted)}; options: {known}",
                key,
            )
        problem = param.check(value)
        if problem:
            raise ComparatorConfigError(f"{cls.name} option {key!r} {problem}", key)
    try:
        return cls(**config)
    except (TypeError, ValueError) as exc:
        raise ComparatorConfigError(f"{cls.name}: {exc}") from None


for _cls in (ExactComparator, LevenshteinComparator, NumericComparator, FuzzyComparator):
    register(_cls)
