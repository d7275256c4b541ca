"""Text from the data or the schema, made safe to show on a terminal.

A prediction (or a schema) is untrusted: printed as it is, it could carry
escape sequences that move the cursor, retitle the window or clear the
screen, Rich markup, line breaks that forge extra lines, or Unicode marks
that make text read in another order than it is stored.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from rich.text import Text

# C0 and C1 controls (ESC, CSI, BEL, CR, LF, TAB…) and the Unicode marks that reorder text.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def plain(value: Any, limit: int = 60) -> str:
    """``safe`` as a plain string (for the Markdown and JUnit reports)."""
    return safe(value, limit).plain


def safe(value: Any, limit: int = 60) -> Text:
    """Printable, markup-free, length-limited text of a data value."""
    if isinstance(value, str):
        text = value
    elif value is None:
        text = "null"
    else:
        try:
            text = orjson.dumps(value, default=str).decode()
        except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits, deep nesting
            try:
                text = str(value)
            except (ValueError, RecursionError):  # beyond 4,300 digits, or deeper than Python prints
                text = f"<{type(value).__name__} too large to show>"
    text = _CONTROL.sub("�", text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return Text(text)
