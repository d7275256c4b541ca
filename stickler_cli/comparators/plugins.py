"""Code the user chose to load: ``--plugin`` modules and installed entry points.

A plugin is a module (or a class) that defines ``Comparator`` subclasses, or
registers embedding functions and models (``register_embedding``,
``register_model``). Every subclass with a ``name`` that the module defines is
registered; modules may also call ``register`` themselves. The entry-point
groups ``stickler.comparators`` (modules or classes) and ``stickler.embeddings``
(functions, registered under the entry point's name) are loaded on first need
(an unknown name, or a listing), so installed plugins cost nothing when a
schema uses only built-ins. The groups are fixed here: nothing a schema says
chooses which code is loaded, only which of the loaded names is used.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import Comparator

ENTRY_POINT_GROUP = "stickler.comparators"
EMBEDDING_ENTRY_POINT_GROUP = "stickler.embeddings"


class PluginError(Exception):
    """A plugin could not be imported or does not define any comparator."""


_entry_points_loaded = False
_entry_point_failures: dict[str, str] = {}
_embedding_entry_points_loaded = False
_embedding_entry_point_failures: dict[str, str] = {}


def comparator_classes(module: ModuleType) -> list[type[Comparator]]:
    """Named Comparator subclasses defined in ``module`` itself (not imported into it)."""
    return [
        value for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Comparator)
        and value.__module__ == module.__name__ and value.name
    ]


def register_object(obj: Any, origin: str) -> list[type[Comparator]]:
    """Register a Comparator subclass, or every comparator a module defines."""
    from .registry import register

    if isinstance(obj, type) and issubclass(obj, Comparator):
        classes = [obj]
    elif isinstance(obj, ModuleType):
        classes = comparator_classes(obj)
    else:
        raise PluginError(f"{origin}: expected a Comparator subclass or a module, got {type(obj).__name__}")
    for cls in classes:
        register(cls)
    return classes


def load_module(spec: str) -> list[type[Comparator]]:
    """Import ``--plugin`` ``spec`` (a module name or a .py path) and register its comparators
    (and whatever embedding functions and models it registers itself)."""
    from .registry import registered_by

    try:
        if spec.endswith(".py") or "/" in spec or "\\" in spec:
            path = Path(spec)
            if not path.is_file():
                raise PluginError(f"plugin file not found: {spec}")
            module_name = f"stickler_plugin_{path.stem}"
            loader_spec = importlib.util.spec_from_file_location(module_name, path)
            if loader_spec is None or loader_spec.loader is None:
                raise PluginError(f"cannot load plugin file {spec}")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[module_name] = module
            loader_spec.loader.exec_module(module)
        else:
            if "" not in sys.path and str(Path.cwd()) not in sys.path:
                sys.path.insert(0, str(Path.cwd()))  # like `python -m`: local modules are found
            module = importlib.import_module(spec)
    except PluginError:
        raise
    except Exception as exc:  # a plugin's own failure, whatever it is, is a usage error
        raise PluginError(f"cannot import plugin {spec!r}: {type(exc).__name__}: {exc}") from None
    try:
        classes = register_object(module, spec)
    except (TypeError, ValueError) as exc:
        raise PluginError(f"plugin {spec!r}: {exc}") from None
    if not classes and not registered_by(module.__name__):
        raise PluginError(f"plugin {spec!r} defines no Comparator subclass with a 'name' and registers no "
                          "embedding function or model")
    return classes


def load_entry_points() -> None:
    """Register the comparators of every installed ``stickler.comparators`` entry point, once.

    A broken plugin does not stop runs that do not need it; its failure is kept
    and shown when a schema names a comparator nobody provides.
    """
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        origin = f"entry point {entry.name!r} ({entry.value})"
        try:
            register_object(entry.load(), origin)
        except Exception as exc:
            _entry_point_failures[entry.name] = f"{origin} failed to load: {type(exc).__name__}: {exc}"


def entry_point_failures() -> list[str]:
    return list(_entry_point_failures.values())


def load_embedding_entry_points() -> None:
    """Register the function of every installed ``stickler.embeddings`` entry point under the
    entry point's name, once. A broken one is kept and shown when a schema names a function
    nobody provides."""
    from .registry import register_embedding

    global _embedding_entry_points_loaded
    if _embedding_entry_points_loaded:
        return
    _embedding_entry_points_loaded = True
    for entry in metadata.entry_points(group=EMBEDDING_ENTRY_POINT_GROUP):
        origin = f"embedding entry point {entry.name!r} ({entry.value})"
        try:
            register_embedding(entry.name, entry.load())
        except Exception as exc:
            _embedding_entry_point_failures[entry.name] = f"{origin} failed to load: {type(exc).__name__}: {exc}"


def embedding_entry_point_failures() -> list[str]:
    return list(_embedding_entry_point_failures.values())


def reset_entry_points() -> None:
    """Forget that entry points were loaded (tests install plugins mid-session)."""
    global _entry_points_loaded, _embedding_entry_points_loaded
    _entry_points_loaded = _embedding_entry_points_loaded = False
    _entry_point_failures.clear()
    _embedding_entry_point_failures.clear()
