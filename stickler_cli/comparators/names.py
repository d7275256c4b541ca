"""The tables of registered names: comparator classes, embedding functions and embedding models.

``register``, ``register_embedding`` and ``register_model`` fill them; built-ins (registry.py),
``--plugin`` modules and installed entry points (plugins.py) all call these. Nothing here imports
or looks anything up beyond the tables: finding a name that is not registered yet (an installed
entry point) is registry.py's job, which sits above both this module and plugins.py.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

from ..errors import suggest
from .base import Comparator, ComparatorConfigError

# The model the ``semantic`` extra ships (comparators/embedding.py loads it); its names are never
# the user's to register.
BUNDLED_MODEL = "all-MiniLM-L6-v2"
BUNDLED_NAMES = {BUNDLED_MODEL, f"sentence-transformers/{BUNDLED_MODEL}"}

# The built-in comparators: module (under stickler_cli.comparators) -> (class, its aliases). A
# module is imported when a schema first names one of its comparators (registry.lookup), so a run
# imports only the comparators it uses; until then its names are reserved here. Optional-extra
# comparators are here too: their modules import the heavy libraries only when one is first used.
# tests/project/test_startup.py checks this table against the classes.
BUILTINS: dict[str, tuple[str, tuple[str, ...]]] = {
    "exact": ("ExactComparator", ("exact", "Exact")),
    "levenshtein": ("LevenshteinComparator", ("levenshtein", "Levenshtein")),
    "numeric": ("NumericComparator", ("numeric", "Numeric", "NumericExactC")),
    "fuzzy": ("FuzzyComparator", ("fuzzy", "Fuzzy", "Fuzz")),
    "llm": ("LLMComparator", ("llm", "LLM")),
    "date": ("DateComparator", ("date", "Date")),
    "semantic": ("SemanticComparator", ("semantic", "Semantic")),
    "bert": ("BERTComparator", ("BertComparator", "bert", "BERT", "bertscore")),
    "bbox": ("BBoxIoUComparator", ("bbox", "BBox", "bbox_iou", "BBoxIoU", "iou", "IoU")),
    "anls": ("ANLSStarComparator", ("anls", "ANLS", "anls_star", "ANLSStar", "anls*", "ANLS*")),
    "normalized": ("NormalizedComparator", ("normalized", "Normalized", "normalised", "Normalised")),
    "phone": ("PhoneComparator", ("phone", "Phone")),
    "structured": ("StructuredModelComparator", ("structured", "Structured", "StructuredModel")),
}
# Each built-in name -> (its module, the qualified name of its class).
BUILTIN_NAMES: dict[str, tuple[str, str]] = {
    key: (module, f"{__package__}.{module}.{cls}")
    for module, (cls, aliases) in BUILTINS.items()
    for key in (cls, *aliases)
}

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
        owner = _qualified(taken) if taken is not None else BUILTIN_NAMES.get(key, ("", None))[1]
        if owner is not None and taken is not cls and owner != _qualified(cls):
            raise ValueError(f"comparator name {key!r} of {_qualified(cls)} is already taken by {owner}")
    for key in (cls.name, *cls.aliases):
        _BY_NAME[key] = cls
    return cls


def _qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__qualname__)}"


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
        raise ValueError(
            f"embedding function name {name!r} of {_qualified(function)} is already taken by {_qualified(taken)}"
        )
    _EMBEDDINGS[name] = function
    _REGISTERING_MODULES.add(_caller_module())
    return function


def register_model(name: str, location: str) -> None:
    """Let schemas name the sentence-transformers model at ``location`` (a local model directory,
    or a model already in the Hugging Face cache) as ``name`` (the ``model`` option of
    SemanticComparator and BERTComparator). The user decides which directories are loaded: a
    model directory's configuration names Python classes to import."""
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
