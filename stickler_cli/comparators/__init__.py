"""Comparators: similarity functions selected per field by the schema."""

from .base import Comparator, Param
from .registry import (
    ComparatorConfigError,
    build,
    catalogue,
    lookup,
    register,
    register_embedding,
    register_model,
    registered,
)

__all__ = [
    "Comparator",
    "Param",
    "ComparatorConfigError",
    "build",
    "catalogue",
    "lookup",
    "register",
    "register_embedding",
    "register_model",
    "registered",
]
