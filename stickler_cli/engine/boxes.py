"""The boxes (``_bbox``) the engine finds on compared leaves, as records the localisation analysis reads.

``Engine.compare`` makes one ``BoxRecord`` per compared leaf that carries a box on either side
(analyses/localisation.py turns them into average precision); ``value_goes_alone`` tells which
documents ``Engine.score_batch`` must leave to ``Engine.compare`` for that, or to choose among acceptable
values (``_alternatives``) (the reader finds them in raw lines with ``json_text.BBOX_KEY`` and
``ALTERNATIVES_KEY``, without loading the engine: reader.goes_alone).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from ..json_text import ALTERNATIVES_KEY, BBOX_KEY, holds_key

# A box's state on one side of a record.
ABSENT, BOX, REVERSED, NOT_A_BOX = range(4)


class BoxRecord(NamedTuple):
    """One compared leaf with a box on either side (``gt``/``pred``: ABSENT, BOX, REVERSED or
    NOT_A_BOX); ``iou`` is 0.0 unless both are boxes; ``confidence`` None when not given."""

    field: int
    gt: int
    pred: int
    matched: bool
    iou: float
    confidence: float | None


def value_carries_alternatives(value: Any) -> bool:
    """Whether a value holds an ``_alternatives`` key at any depth (docs/ground-truth.md): in its
    orjson serialisation (C speed; keys written unescaped), walked only when orjson cannot serialise it."""
    try:
        return ALTERNATIVES_KEY in orjson.dumps(value)
    except TypeError:
        return holds_key(value, "_alternatives")


def value_goes_alone(value: Any) -> bool:
    """Whether ``Engine.score_batch`` leaves a value's document to ``Engine.compare``: it holds ``_bbox`` (boxes are
    collected there) or ``_alternatives`` (acceptable values are chosen there), both found in one serialisation."""
    try:
        text = orjson.dumps(value)
    except TypeError:
        return holds_key(value, "_bbox") or holds_key(value, "_alternatives")
    return BBOX_KEY in text or ALTERNATIVES_KEY in text
