"""Pydantic models built from a compiled plan, for record validation and the Python API.

Never used in the scoring loop (the engine works on plain dicts); built on
demand (call once and keep the class). Every property is optional unless the schema
requires it, and rich values (``{"_value": …}``) are accepted wherever a value
is, because predictions may carry confidence.
"""

from __future__ import annotations

from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, create_model

from ..plan import FieldPlan, Kind, ModelPlan, Plan

_SCALARS: dict[str, Any] = {"string": str, "number": float, "integer": int, "boolean": bool}


class RichValue(BaseModel):
    """A value with metadata: ``{"_value": v, "_confidence": c, ...}``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    value: Any = None
    confidence: Optional[float] = None

    def __init__(self, **data: Any) -> None:
        if "_value" in data:
            data["value"] = data.pop("_value")
        if "_confidence" in data:
            data["confidence"] = data.pop("_confidence")
        super().__init__(**data)


def _annotation(f: FieldPlan) -> Any:
    if f.kind is Kind.OBJECT:
        inner: Any = _model(f.model)
    elif f.kind is Kind.OBJECT_LIST:
        inner = list[_model(f.model)]  # type: ignore[misc]
    elif f.kind is Kind.PRIMITIVE_LIST:
        item = _SCALARS.get(f.json_type, Any)
        inner = list[Union[item, RichValue]]  # type: ignore[valid-type]
    else:
        inner = _SCALARS.get(f.json_type, Any)
    return Optional[Union[inner, RichValue]]


def _model(model: ModelPlan) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for f in model.fields:
        default = ... if f.required else f.default
        fields[f.key] = (_annotation(f), default)
    return create_model(model.name, __config__=ConfigDict(extra="allow"), **fields)


def pydantic_model(plan: Plan) -> type[BaseModel]:
    """The root model, named by ``x-aws-stickler-model-name``."""
    return _model(plan.root)
