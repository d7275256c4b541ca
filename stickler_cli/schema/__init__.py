"""Schema compilation: JSON Schema with x-aws-stickler-* extensions -> Plan."""

from .compiler import compile_schema, load_schema

__all__ = ["compile_schema", "load_schema"]
