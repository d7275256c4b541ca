"""BERTScore F1: greedy matching of contextual token embeddings.

Each token of one text is matched to its most similar token of the other
(cosine); recall averages over the ground truth's tokens, precision over the
prediction's, and the score is their harmonic mean. It rewards paraphrases
that share meaning token by token. Uses the same offline MiniLM weights as
SemanticComparator; raw BERTScore is not rescaled, so unrelated texts still
score around 0.3-0.6 and thresholds should be set high (0.8-0.9).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import ComparatorSetupError
from .embedding import EmbeddingComparator, check_model, load_model, require_extra, shared_cache, text_of, unit_rows


def _token_encoder(model: str):
    def encode(texts: list[str]) -> list[np.ndarray]:
        outputs = load_model(model).encode(texts, batch_size=len(texts), output_value="token_embeddings")
        return [unit_rows(out.float().cpu().numpy()) for out in outputs]

    return encode


def bertscore_f1(gt_tokens: np.ndarray, pred_tokens: np.ndarray) -> float:
    """F1 of greedy cosine matching between two texts' unit token vectors.

    Rows include the [CLS] first and [SEP] last vectors. As in the reference
    bert-score package, a text's own tokens are averaged without them, but a
    token's best match may be the other text's [CLS] or [SEP].
    """
    sims = gt_tokens @ pred_tokens.T
    recall = float(sims[1:-1].max(axis=1).mean())
    precision = float(sims[:, 1:-1].max(axis=0).mean())
    if recall + precision <= 0:
        return 0.0
    return min(1.0, max(0.0, 2 * precision * recall / (precision + recall)))


class BERTComparator(EmbeddingComparator):
    name = "BERTComparator"
    aliases = ("BertComparator", "bert", "BERT", "bertscore")
    default_threshold = 0.7
    summary = "BERTScore F1 over contextual token embeddings (all-MiniLM-L6-v2 offline)"

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        require_extra(type(self), self.model)
        check_model(self.model)
        self._cache = shared_cache(("tokens", self.model), lambda: _token_encoder(self.model))

    def prefetch(self, pairs: Sequence[tuple[Any, Any]]) -> None:
        self._embed(self.values_to_embed(pairs))

    def _embed(self, values: Sequence[Any]) -> None:
        texts = [t.strip() for v in values if (t := text_of(v)) is not None]
        self._fill(self._cache, texts, "token embedding failed")

    def similarity(self, gt: Any, pred: Any) -> float:
        a, b = text_of(gt), text_of(pred)
        if a is None or b is None:
            return 0.0
        a, b = a.strip(), b.strip()
        if a == b:
            return 1.0
        try:
            left, right = self._cache.get([a, b], self.batch_size)
        except ComparatorSetupError:
            raise
        except Exception as exc:
            self._failed("token embedding failed, scored 0.0", exc)
            return 0.0
        if len(left) <= 2 or len(right) <= 2:  # nothing but [CLS] and [SEP]: no tokens to match
            return 0.0
        return bertscore_f1(left, right)

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        self._embed([*gts, *preds])
        return [[self.similarity(g, p) for p in preds] for g in gts]
