"""Mergeable run state: what survives of each DocResult once it has been scored.

``get_state()`` is JSON-serialisable and ``merge_state()`` adds another state
in, so one process, N workers or N machines reach the same totals (counts
exactly; float sums up to rounding). States carry the schema hash: merging
states of different schemas is refused.
"""

from __future__ import annotations

from array import array
from typing import Any

from .engine.result import DocResult
from .errors import SticklerError
from .plan import Plan
from .reader import DataError

STATE_VERSION = 1
_ZERO = [0, 0, 0, 0, 0]


class Accumulator:
    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.size = len(plan.fields)
        self.top_level = [f.index for f in plan.root.fields]
        self.document_count = 0
        self.score_sum = 0.0
        self.counts = [[0, 0, 0, 0, 0] for _ in range(self.size)]
        self.overall = [0, 0, 0, 0, 0]
        self.field_score_sum = [0.0] * self.size
        self.field_score_n = [0] * self.size
        # Confidence pairs, stored column-wise in typed arrays (21 bytes a pair):
        # they are the only state that grows with the number of documents.
        self.conf_field = array("i")
        self.conf_match = array("b")
        self.conf_value = array("d")
        self.conf_similarity = array("d")
        self.predicted_leaves = 0
        self.errors: list[dict[str, Any]] = []
        self.stats = {"gt_lines": 0, "pred_lines": 0, "paired": 0, "unpaired_predictions": 0,
                      "missing_predictions": 0, "invalid_predictions": 0}

    def add(self, doc: DocResult) -> None:
        self.document_count += 1
        self.score_sum += doc.score
        counts = self.counts
        for i, c in enumerate(doc.counts):
            if c != _ZERO:
                mine = counts[i]
                mine[0] += c[0]
                mine[1] += c[1]
                mine[2] += c[2]
                mine[3] += c[3]
                mine[4] += c[4]
        score_n = doc.score_n
        for i, n in enumerate(score_n):
            if n:
                self.field_score_sum[i] += doc.score_sum[i]
                self.field_score_n[i] += n
        overall = self.overall
        for i in self.top_level:
            c = doc.counts[i]
            for k in range(5):
                overall[k] += c[k]
        self.predicted_leaves += doc.predicted_leaves
        for pair in doc.confidences:
            self.conf_field.append(pair.field_index)
            self.conf_match.append(pair.is_match)
            self.conf_value.append(pair.confidence)
            self.conf_similarity.append(pair.similarity)

    def add_error(self, error: DataError) -> None:
        self.errors.append(error.as_dict())

    # -- state ------------------------------------------------------------------

    def get_state(self, with_schema: bool = True) -> dict[str, Any]:
        """Everything needed to merge this run into another; ``with_schema`` embeds
        the schema itself, so ``stickler merge`` can report without the file."""
        state: dict[str, Any] = {
            "state_version": STATE_VERSION,
            "schema_sha256": self.plan.sha256,
            "fields": [f.path for f in self.plan.fields],
            "document_count": self.document_count,
            "score_sum": self.score_sum,
            "overall": list(self.overall),
            "counts": [list(c) for c in self.counts],
            "field_score_sum": list(self.field_score_sum),
            "field_score_n": list(self.field_score_n),
            "confidence": {
                "field": self.conf_field.tolist(),
                "match": [bool(m) for m in self.conf_match],
                "value": self.conf_value.tolist(),
                "similarity": self.conf_similarity.tolist(),
                "predicted_leaves": self.predicted_leaves,
            },
            "errors": list(self.errors),
            "stats": dict(self.stats),
        }
        if with_schema:
            state["schema"] = self.plan.schema
            state["schema_source"] = self.plan.source
        return state

    def merge_state(self, state: dict[str, Any]) -> None:
        if state.get("state_version") != STATE_VERSION:
            raise SticklerError(f"unsupported state version {state.get('state_version')!r}")
        if state.get("schema_sha256") != self.plan.sha256:
            raise SticklerError("cannot merge states made with different schemas (schema hashes differ)")
        self.document_count += state["document_count"]
        self.score_sum += state["score_sum"]
        for k in range(5):
            self.overall[k] += state["overall"][k]
        for i in range(self.size):
            for k in range(5):
                self.counts[i][k] += state["counts"][i][k]
            self.field_score_sum[i] += state["field_score_sum"][i]
            self.field_score_n[i] += state["field_score_n"][i]
        conf = state["confidence"]
        self.conf_field.extend(conf["field"])
        self.conf_match.extend(conf["match"])
        self.conf_value.extend(conf["value"])
        self.conf_similarity.extend(conf["similarity"])
        self.predicted_leaves += conf.get("predicted_leaves", 0)
        self.errors.extend(state["errors"])
        for key, value in state["stats"].items():
            self.stats[key] = self.stats.get(key, 0) + value
