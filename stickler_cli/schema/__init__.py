"""Schema compilation: JSON Schema with x-aws-stickler-* extensions -> Plan."""

from .compiler import compile_schema, load_schema
from .models import pydantic_model

__all__ = ["compile_schema", "load_schema", "pydantic_model"]
