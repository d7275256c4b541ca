"""Dropping characters from ASCII texts: ``bytes.translate`` does it five to eight times faster than
``str.translate`` with a table (a dictionary looked up per character). The comparators' keys and the
cosmetic steps run it on every value they normalise."""

from __future__ import annotations

import unicodedata

WHITESPACE = "".join(chr(c) for c in range(128) if chr(c).isspace())  # str.isspace on ASCII
PUNCTUATION = "".join(chr(c) for c in range(128) if unicodedata.category(chr(c)).startswith("P"))  # Unicode P*


def deleting(chars: str) -> bytes:
    """``chars`` (ASCII) as the deletion argument of ``without``."""
    return chars.encode("ascii")


def without(text: str, dropped: bytes) -> str:
    """An ASCII ``text`` without the characters ``dropped`` (from ``deleting``)."""
    return text.encode("ascii").translate(None, dropped).decode("ascii")
