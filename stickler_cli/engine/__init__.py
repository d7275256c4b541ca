"""The pure comparison engine (no I/O)."""

from .compare import Engine, unwrap
from .result import COUNT_NAMES, ConfidencePair, DocResult

__all__ = ["Engine", "unwrap", "DocResult", "ConfidencePair", "COUNT_NAMES"]
