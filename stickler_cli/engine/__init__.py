"""The pure comparison engine (no I/O).

``Engine`` and ``unwrap`` (engine/compare.py, which brings numpy) are imported on first use, so that
modules needing only the engine's result types (``engine.result``) do not load the engine with them.
"""

from __future__ import annotations

from typing import Any

from .result import COUNT_NAMES, ConfidencePair, DocResult

__all__ = ["Engine", "unwrap", "DocResult", "ConfidencePair", "COUNT_NAMES"]


def __getattr__(name: str) -> Any:
    if name in ("Engine", "unwrap"):
        from . import compare

        return getattr(compare, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
