"""Tiny deterministic embedding functions for SemanticComparator tests (no model needed).

Importing this module registers them (as ``--plugin tests.support.embeddings`` would):
schemas name them ``letter_counts`` and ``broken``.
"""

from __future__ import annotations

import string

from stickler_cli.comparators import register_embedding

CALLS: list[list[str]] = []  # every batch the comparator asked for, in order


@register_embedding("letter_counts")
def letter_counts(texts: list[str]) -> list[list[float]]:
    """One vector per text: how often each of a-z occurs (case-folded)."""
    CALLS.append(list(texts))
    return [[float(t.lower().count(c)) for c in string.ascii_lowercase] for t in texts]


@register_embedding("broken")
def broken(texts: list[str]) -> list[list[float]]:
    raise ConnectionError("embedding service unavailable")
