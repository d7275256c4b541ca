"""Semantic similarity: cosine of sentence embeddings, offline by default.

The embedding function is pluggable: the bundled all-MiniLM-L6-v2 model (the
``semantic`` extra), a sentence-transformers model the user registered
(``register_model``), or a function ``texts -> vectors`` the user registered
(``register_embedding``, from a ``--plugin`` module or an installed package),
named in the schema by its registered name; the Python API also takes the
callable itself. Cosine similarity lies in [-1, 1]; opposite meanings are no
match, so negative values score 0.0.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..errors import ComparatorSetupError
from .base import Param, identical_values
from .embedding import (
    EmbeddingComparator,
    check_model,
    load_model,
    require_extra,
    shared_cache,
    text_of,
    unit_rows,
)


def _model_encoder(model: str) -> Callable[[list[str]], Sequence[Any]]:
    def encode(texts: list[str]) -> Sequence[Any]:
        return load_model(model).encode(texts, batch_size=len(texts), convert_to_numpy=True)

    return encode


def _embedding(function: Any) -> Callable[[list[str]], Sequence[Any]]:
    """A registered name (schemas) is looked up, never imported; a callable (Python API) is used as it is."""
    from .plugins import embedding_function

    if isinstance(function, str):
        return embedding_function(function)
    if callable(function):
        return function
    raise ValueError(f"embedding_function must be a registered name or a callable, got {type(function).__name__}")


class SemanticComparator(EmbeddingComparator):
    name = "SemanticComparator"
    aliases = ("semantic", "Semantic")
    default_threshold = 0.7
    summary = "cosine similarity of sentence embeddings (all-MiniLM-L6-v2 offline by default)"
    params = (
        EmbeddingComparator.params[0],
        Param("model_id", str, None, "stickler-eval's name for 'model'", nullable=True),
        Param(
            "embedding_function",
            str,
            None,
            "registered name of a function taking a list of texts, returning one vector each "
            "(register_embedding in a --plugin module, or a stickler.embeddings entry point)",
            nullable=True,
        ),
        Param("sim_function", str, "cosine_similarity", "similarity of two embeddings", choices=("cosine_similarity",)),
        EmbeddingComparator.params[1],
    )

    def __init__(self, **config: Any) -> None:
        function = config.pop("embedding_function", None)
        super().__init__(**config)
        if self.model_id is not None:
            if "model" in config:
                raise ValueError("give either 'model' or 'model_id', not both")
            self.model = self.model_id
        self.embedding_function = function
        self.config["embedding_function"] = (
            function if function is None or isinstance(function, str) else repr(function)
        )
        if function is not None:
            encode = _embedding(function)
            self._cache = shared_cache(("function", encode), lambda: encode)
        else:
            require_extra(type(self), self.model)
            check_model(self.model, "model_id" if self.model_id is not None else "model")
            self._cache = shared_cache(("sentence", self.model), lambda: _model_encoder(self.model))

    def prefetch(self, pairs: Sequence[tuple[Any, Any]]) -> None:
        texts = [t for v in self.values_to_embed(pairs) if (t := text_of(v)) is not None]
        self._fill(self._cache, texts, "embedding failed")

    def similarity(self, gt: Any, pred: Any) -> float:
        if identical_values(gt, pred) and text_of(gt) is not None:  # the same text: 1.0, as the matrix says
            return 1.0
        return self.similarity_matrix([gt], [pred])[0][0]

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        a = [text_of(v) for v in gts]
        b = [text_of(v) for v in preds]
        try:
            left = unit_rows(self._cache.get([t or "" for t in a], self.batch_size))
            right = unit_rows(self._cache.get([t or "" for t in b], self.batch_size))
        except ComparatorSetupError:
            raise
        except Exception as exc:
            # Like stickler-eval: fall back to plain equality, but say so.
            self._failed("embedding failed, compared by equality", exc)
            return [[1.0 if x is not None and x == y else 0.0 for y in b] for x in a]
        matrix = np.clip(left @ right.T, 0.0, 1.0)
        # The same text is the same meaning, exactly (not 0.9999999); no text, no similarity.
        columns: dict[str, list[int]] = {}
        for j, y in enumerate(b):
            if y is None:
                matrix[:, j] = 0.0
            else:
                columns.setdefault(y, []).append(j)
        for i, x in enumerate(a):
            if x is None:
                matrix[i, :] = 0.0
            else:
                matrix[i, columns.get(x, [])] = 1.0
        return matrix.tolist()
