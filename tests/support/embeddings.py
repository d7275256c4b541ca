"""Tiny deterministic embedding functions for SemanticComparator tests (no model needed)."""

from __future__ import annotations

import string

CALLS: list[list[str]] = []  # every batch the comparator asked for, in order


def letter_counts(texts: list[str]) -> list[list[float]]:
    """One vector per text: how often each of a-z occurs (case-folded)."""
    CALLS.append(list(texts))
    return [[float(t.lower().count(c)) for c in string.ascii_lowercase] for t in texts]


def broken(texts: list[str]) -> list[list[float]]:
    raise ConnectionError("embedding service unavailable")
