"""Names -> code: comparator classes, embedding functions and embedding models.

Built-ins register here; plugins (entry-point groups ``stickler.comparators`` and
``stickler.embeddings``, or ``--plugin module``) call ``register``,
``register_embedding`` and ``register_model`` with their own. A schema (and the
schema a state file embeds) only ever *names* what is registered: no string read
from it is imported, looked up as an attribute or loaded as a path to code.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from .base import Comparator, MissingExtraError

if TYPE_CHECKING:
    from ..plan import Plan

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


def _qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__qualname__)}"


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


# -- embedding functions and models: registered by code the user loaded ----------------

EmbeddingFunction = Callable[[list[str]], Sequence[Any]]
_EMBEDDINGS: dict[str, EmbeddingFunction] = {}
_MODELS: dict[str, str] = {}
_REGISTERING_MODULES: set[str] = set()  # modules that registered one, so a plugin loader sees that it did


def _check_name(name: Any, what: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{what} name must be a non-empty string, got {name!r}")
    if ":" in name:  # "module:function" is how code was once named; a name never looks like it
        raise ValueError(f"{what} name {name!r} must not contain ':'")


def register_embedding(name: str, function: EmbeddingFunction | None = None) -> Any:
    """Make ``function`` (a list of texts -> one vector per text) the embedding function a
    schema names ``name`` (SemanticComparator's ``embedding_function``).

    Call it from a ``--plugin`` module or an installed package, or use it as a decorator:
    ``@register_embedding("titan")``. A name taken by another function is an error, as for
    comparators: silently replacing one would change scores nobody asked to change.
    """
    if function is None:
        def decorate(fn: EmbeddingFunction) -> EmbeddingFunction:
            register_embedding(name, fn)
            return fn
        return decorate
    _check_name(name, "embedding function")
    if not callable(function):
        raise TypeError(f"embedding function {name!r} must be callable, got {type(function).__name__}")
    taken = _EMBEDDINGS.get(name)
    if taken is not None and taken is not function and _qualified(taken) != _qualified(function):
        raise ValueError(f"embedding function name {name!r} of {_qualified(function)} is already taken by "
                         f"{_qualified(taken)}")
    _EMBEDDINGS[name] = function
    _REGISTERING_MODULES.add(_caller_module())
    return function


def register_model(name: str, location: str) -> None:
    """Let schemas name the sentence-transformers model at ``location`` (a local model directory,
    or a model already in the Hugging Face cache) as ``name`` (the ``model`` option of
    SemanticComparator and BERTComparator). The user decides which directories are loaded: a
    model directory's configuration names Python classes to import."""
    from .embedding import BUNDLED_NAMES

    _check_name(name, "model")
    if name in BUNDLED_NAMES:
        raise ValueError(f"model name {name!r} is the bundled model's")
    location = str(location)
    if not location:
        raise ValueError(f"model {name!r}: the location must not be empty")
    taken = _MODELS.get(name)
    if taken is not None and taken != location:
        raise ValueError(f"model name {name!r} ({location}) is already taken by {taken}")
    _MODELS[name] = location
    _REGISTERING_MODULES.add(_caller_module())


def _caller_module() -> str:
    """The module whose code called into this one (a decorator's caller included)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    return str(frame.f_globals.get("__name__")) if frame is not None else ""


def registered_by(module: str) -> bool:
    """Whether code of ``module`` registered an embedding function or a model."""
    return module in _REGISTERING_MODULES


def embedding_function(name: str) -> EmbeddingFunction:
    """The embedding function registered as ``name``; installed packages are loaded on the first miss.

    An unknown name is a ComparatorConfigError at the ``embedding_function`` option: a
    schema cannot name code, only pick among what the user loaded.
    """
    from .plugins import embedding_entry_point_failures, load_embedding_entry_points

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


def registered_model(name: str) -> str | None:
    """The location registered for model ``name``, or None."""
    return _MODELS.get(name)


def unknown_model(name: str, key: str, bundled: Sequence[str]) -> ComparatorConfigError:
    """The error for a ``model`` that is neither bundled nor registered."""
    known = [*bundled, *sorted(_MODELS)]
    return ComparatorConfigError(
        f"model {name!r} is not one stickler knows{suggest(name, known)}: a schema names the bundled model or "
        f"one the user registered (stickler_cli.comparators.register_model in a --plugin module), never a "
        f"directory of its own choosing; known: {', '.join(known)}",
        key,
    )


def check_ready(plan: "Plan") -> None:
    """Before scoring: every comparator has what only the user can give it (an LLM endpoint).

    Compiling a schema (``schema check``, ``merge``) needs none of it; scoring does, and a
    comparator that lacks it stops the run here, before any data is read, naming the
    field's JSON pointer.
    """
    from ..errors import SchemaError
    from ..schema.extensions import PREFIX
    from .llm import AccessError, LLMComparator

    for f in plan.fields:
        if not isinstance(f.comparator, LLMComparator):
            continue
        try:
            f.comparator.ready()
        except AccessError as exc:
            if exc.key is None:  # the user's own setting (a key variable, a cache file): no schema pointer
                raise
            where = f"{f.pointer}/{PREFIX}comparator" + (f"-config/{exc.key}" if exc.key else "")
            raise SchemaError(str(exc), where, plan.source) from None


def _register_builtins() -> None:
    from .plugins import comparator_classes

    for module_name in BUILTIN_MODULES:
        for cls in comparator_classes(importlib.import_module(f"{__package__}.{module_name}")):
            register(cls)


_register_builtins()
