"""Schema compilation: JSON Schema with x-aws-stickler-* extensions -> Plan."""

from __future__ import annotations

from typing import Any

from .compiler import compile_schema, load_schema

__all__ = ["compile_schema", "load_schema", "pydantic_model"]


def __getattr__(name: str) -> Any:
    """``pydantic_model`` is imported on first use: pydantic costs ~30 ms that only the Python API needs."""
    if name == "pydantic_model":
        from .models import pydantic_model

        return pydantic_model
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
