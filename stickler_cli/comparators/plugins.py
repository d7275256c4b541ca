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
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

from ..errors import suggest
from .base import Comparator, ComparatorConfigError
from .names import _EMBEDDINGS, EmbeddingFunction, register, register_embedding, registered_by

if TYPE_CHECKING:
    from importlib import metadata

ENTRY_POINT_GROUP = "stickler.comparators"
EMBEDDING_ENTRY_POINT_GROUP = "stickler.embeddings"


class PluginError(Exception):
    """A plugin could not be imported or does not define any comparator."""


class _EntryPoints:
    """The installed entry points of one group, registered once. A broken one does not stop runs
    that do not need it: its failure is kept and shown when a schema names something nobody provides."""

    def __init__(self, group: str, what: str, register: Callable[[metadata.EntryPoint, str], Any]) -> None:
        self.group, self.what, self.register = group, what, register
        self.loaded = False
        self.failures: dict[str, str] = {}

    def load(self) -> None:
        if self.loaded:
            return
        self.loaded = True
        from importlib import metadata  # ~20 ms, and a scan of every installed distribution: only when needed

        for entry in metadata.entry_points(group=self.group):
            origin = f"{self.what} {entry.name!r} ({entry.value})"
            try:
                self.register(entry, origin)
            except Exception as exc:
                self.failures[entry.name] = f"{origin} failed to load: {type(exc).__name__}: {exc}"

    def reset(self) -> None:
        self.loaded = False
        self.failures.clear()


def _register_embedding(entry: metadata.EntryPoint, origin: str) -> None:
    register_embedding(entry.name, entry.load())


_comparator_entry_points = _EntryPoints(
    ENTRY_POINT_GROUP, "entry point", lambda entry, origin: register_object(entry.load(), origin)
)
_embedding_entry_points = _EntryPoints(EMBEDDING_ENTRY_POINT_GROUP, "embedding entry point", _register_embedding)


def comparator_classes(module: ModuleType) -> list[type[Comparator]]:
    """Named Comparator subclasses defined in ``module`` itself (not imported into it)."""
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Comparator)
        and value.__module__ == module.__name__
        and value.name
    ]


def register_object(obj: Any, origin: str) -> list[type[Comparator]]:
    """Register a Comparator subclass, or every comparator a module defines."""
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
        raise PluginError(
            f"plugin {spec!r} defines no Comparator subclass with a 'name' and registers no embedding function or model"
        )
    return classes


def load_entry_points() -> None:
    """Register the comparators of every installed ``stickler.comparators`` entry point, once."""
    _comparator_entry_points.load()


def entry_point_failures() -> list[str]:
    return list(_comparator_entry_points.failures.values())


def load_embedding_entry_points() -> None:
    """Register the function of every installed ``stickler.embeddings`` entry point under the
    entry point's name, once."""
    _embedding_entry_points.load()


def embedding_entry_point_failures() -> list[str]:
    return list(_embedding_entry_points.failures.values())


def reset_entry_points() -> None:
    """Forget that entry points were loaded (tests install plugins mid-session)."""
    _comparator_entry_points.reset()
    _embedding_entry_points.reset()


def embedding_function(name: str) -> EmbeddingFunction:
    """The embedding function registered as ``name``; installed packages are loaded on the first miss.

    An unknown name is a ComparatorConfigError at the ``embedding_function`` option: a
    schema cannot name code, only pick among what the user loaded.
    """
    function = _EMBEDDINGS.get(name)
    if function is None:
        load_embedding_entry_points()
        function = _EMBEDDINGS.get(name)
    if function is None:
        raise ComparatorConfigError(
            f"embedding_function {name!r} is not registered{suggest(name, _EMBEDDINGS)}: a schema names no code, "
            "only a function the user registered (register_embedding in a --plugin module, or a "
            f"stickler.embeddings entry point); registered: {', '.join(sorted(_EMBEDDINGS)) or 'none'}"
            + "".join(f"; {failure}" for failure in embedding_entry_point_failures()),
            "embedding_function",
        )
    return function
