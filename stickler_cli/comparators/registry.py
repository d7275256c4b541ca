"""Comparator names -> classes, with config validation and did-you-mean hints.

Built-ins register here; plugins (entry-point group ``stickler.comparators`` or
``--plugin module``) call ``register`` with their own subclasses.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any, Iterable

from .base import Comparator, MissingExtraError

# Built-in comparator modules; every Comparator subclass with a name that a
# module defines is registered. Optional-extra comparators live here too: their
# modules import the heavy libraries only when a comparator is first used.
BUILTIN_MODULES = (
    "exact", "levenshtein", "numeric", "fuzzy", "llm", "date", "semantic", "bert",
    "bbox", "anls", "normalized", "phone", "structured",
)


class ComparatorConfigError(ValueError):
    """A comparator name or config value is wrong; ``key`` names the config key at fault."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


_BY_NAME: dict[str, type[Comparator]] = {}


def register(cls: type[Comparator]) -> type[Comparator]:
    """Make ``cls`` available under its ``name`` and ``aliases``; usable as a decorator.

    A name already taken by another class is an error: a plugin silently
    replacing a built-in would change scores without anyone asking for it.
    """
    if not (isinstance(cls, type) and issubclass(cls, Comparator)):
        raise TypeError(f"{cls!r} is not a Comparator subclass")
    if not cls.name:
        raise ValueError(f"{cls.__qualname__} needs a non-empty 'name'")
    for key in (cls.name, *cls.aliases):
        taken = _BY_NAME.get(key)
        if taken is not None and taken is not cls and _qualified(taken) != _qualified(cls):
            raise ValueError(
                f"comparator name {key!r} of {_qualified(cls)} is already taken by {_qualified(taken)}"
            )
    for key in (cls.name, *cls.aliases):
        _BY_NAME[key] = cls
    return cls


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def registered() -> list[type[Comparator]]:
    """Each registered class once (built-ins and installed plugins), in name order."""
    from .plugins import load_entry_points

    load_entry_points()
    return sorted(set(_BY_NAME.values()), key=lambda c: c.name)


def catalogue() -> list[dict[str, Any]]:
    """Every registered comparator with its options, for ``stickler comparators``."""
    entries = []
    for cls in registered():
        entries.append({
            "name": cls.name,
            "aliases": list(cls.aliases),
            "summary": cls.summary,
            "module": cls.__module__,
            "builtin": cls.__module__.startswith(__package__ + "."),
            "whole_value": cls.whole_value,
            "extra": cls.extra,
            "available": cls.available(),
            "options": [
                {"name": p.name, "type": getattr(p.kind, "__name__", str(p.kind)), "default": p.default,
                 "nullable": p.nullable, "choices": list(p.choices) if p.choices else None, "help": p.help}
                for p in cls.params
            ],
        })
    return entries


def suggest(word: str, options: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix when a close option exists, else ''."""
    match = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def lookup(name: str) -> type[Comparator]:
    """The class registered as ``name``; installed plugins are loaded on the first miss."""
    from .plugins import entry_point_failures, load_entry_points

    cls = _BY_NAME.get(name)
    if cls is None:
        load_entry_points()
        cls = _BY_NAME.get(name)
    if cls is None:
        names = sorted({c.name for c in _BY_NAME.values()})
        failures = "".join(f"; {failure}" for failure in entry_point_failures())
        raise ComparatorConfigError(
            f"unknown comparator {name!r}{suggest(name, _BY_NAME)}; known: {', '.join(names)}{failures}"
        )
    return cls


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
    except MissingExtraError as exc:
        raise ComparatorConfigError(str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise ComparatorConfigError(f"{cls.name}: {exc}") from None
    except Exception as exc:  # a plugin's constructor failing is still a configuration problem
        raise ComparatorConfigError(f"{cls.name} could not be set up: {type(exc).__name__}: {exc}") from None


def _register_builtins() -> None:
    from .plugins import comparator_classes

    for module_name in BUILTIN_MODULES:
        for cls in comparator_classes(importlib.import_module(f"{__package__}.{module_name}")):
            register(cls)


_register_builtins()
