"""The JSON report: the report dict as indented JSON (``json_text.dumps``: what orjson cannot write,
Python's json writes). Files are written by run/atomic.py (checked before any work, written whole or
not at all)."""

from __future__ import annotations

from ..json_text import dumps

__all__ = ["dumps"]
