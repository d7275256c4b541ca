"""Names -> code: comparator classes, embedding functions and embedding models.

Built-ins register here; plugins (entry-point groups ``stickler.comparators`` and
``stickler.embeddings``, or ``--plugin module``) call ``register``,
``register_embedding`` and ``register_model`` with their own. A schema (and the
schema a state file embeds) only ever *names* what is registered: no string read
from it is imported, looked up as an attribute or loaded as a path to code.

The tables themselves are in names.py, below both this module and plugins.py, so that
the arrows run one way: registry -> plugins -> names (a name not registered yet is
looked for among the installed entry points by this module and plugins.py, never by names.py).
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import suggest
from .base import Comparator, ComparatorConfigError, MissingExtraError
from .names import (  # the tables, filled by register*: re-exported, as this module always offered them
    _BY_NAME,
    _EMBEDDINGS,  # noqa: F401 (tests patch it here)
    _MODELS,  # noqa: F401 (tests patch it here)
    BUILTIN_NAMES,
    BUILTINS,
    EmbeddingFunction,
    register,
    register_embedding,
    register_model,
    registered_by,
    registered_model,
    unknown_model,
)
from .plugins import comparator_classes, embedding_function, entry_point_failures, load_entry_points

# Built-in comparator modules (names.BUILTINS); every Comparator subclass with a name that a module
# defines is registered when the module is imported: on the first lookup of one of its names.
BUILTIN_MODULES = tuple(BUILTINS)

__all__ = [
    "BUILTIN_MODULES",
    "BUILTIN_NAMES",
    "BUILTINS",
    "ComparatorConfigError",
    "EmbeddingFunction",
    "build",
    "catalogue",
    "embedding_function",
    "lookup",
    "register",
    "register_embedding",
    "register_model",
    "registered",
    "registered_by",
    "registered_model",
    "suggest",
    "unknown_model",
]


def registered() -> list[type[Comparator]]:
    """Each registered class once (built-ins and installed plugins), in name order."""
    _register_builtins()
    load_entry_points()
    return sorted(set(_BY_NAME.values()), key=lambda c: c.name)


def catalogue() -> list[dict[str, Any]]:
    """Every registered comparator with its options, for ``stickler comparators``."""
    entries = []
    for cls in registered():
        entries.append(
            {
                "name": cls.name,
                "aliases": list(cls.aliases),
                "summary": cls.summary,
                "module": cls.__module__,
                "builtin": cls.__module__.startswith(__package__ + "."),
                "whole_value": cls.whole_value,
                "extra": cls.extra,
                "available": cls.available(),
                "options": [
                    {
                        "name": p.name,
                        "type": getattr(p.kind, "__name__", str(p.kind)),
                        "default": p.default,
                        "nullable": p.nullable,
                        "choices": list(p.choices) if p.choices else None,
                        "help": p.help,
                    }
                    for p in cls.params
                ],
            }
        )
    return entries


def lookup(name: str) -> type[Comparator]:
    """The class registered as ``name``; installed plugins are loaded on the first miss."""
    cls = _BY_NAME.get(name)
    if cls is None and name in BUILTIN_NAMES:
        _register_builtin(BUILTIN_NAMES[name][0])
        cls = _BY_NAME.get(name)
    if cls is None:
        load_entry_points()
        cls = _BY_NAME.get(name)
    if cls is None:
        _register_builtins()  # the message lists every name
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
    refused: dict[str, str] = getattr(cls, "refused_options", {})
    for key, value in list(config.items()):
        if key in refused:
            if value is not None:
                raise ComparatorConfigError(f"{cls.name} option {key!r}: {refused[key]}", key)
            del config[key]  # null says nothing: accepted, and not passed on
            continue
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
    except ComparatorConfigError:
        raise
    except MissingExtraError as exc:
        raise ComparatorConfigError(str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise ComparatorConfigError(f"{cls.name}: {exc}") from None
    except Exception as exc:  # a plugin's constructor failing is still a configuration problem
        raise ComparatorConfigError(f"{cls.name} could not be set up: {type(exc).__name__}: {exc}") from None


def _register_builtin(module_name: str) -> None:
    """Import one built-in comparator module (a name of BUILTIN_MODULES) and register its comparators."""
    for cls in comparator_classes(importlib.import_module(f"{__package__}.{module_name}")):
        register(cls)


def _register_builtins() -> None:
    for module_name in BUILTIN_MODULES:
        _register_builtin(module_name)
