"""Every built-in comparator option is reachable from a schema, and a wrong one is a schema error there."""

from __future__ import annotations

from typing import Any

import pytest

from stickler_cli import compile_schema
from stickler_cli.comparators import registered
from stickler_cli.errors import SchemaError
from tests.support import embeddings  # noqa: F401 - registers the embedding function "letter_counts"

BUILTINS = [cls for cls in registered() if cls.__module__.startswith("stickler_cli.")]

# Options a comparator needs before it can be built at all.
BASE_CONFIG: dict[str, dict[str, Any]] = {
    "LLMComparator": {"base_url": "http://127.0.0.1:9/v1", "model": "judge", "cache": None},
}
# A valid value other than the default, where "flip the default" does not work.
VALID: dict[tuple[str, str], Any] = {
    ("BERTComparator", "model"): "sentence-transformers/all-MiniLM-L6-v2",
    ("SemanticComparator", "model"): "sentence-transformers/all-MiniLM-L6-v2",
    ("SemanticComparator", "model_id"): "sentence-transformers/all-MiniLM-L6-v2",
    ("SemanticComparator", "embedding_function"): "letter_counts",
    ("LLMComparator", "base_url"): "http://127.0.0.1:8/v1",
    ("LLMComparator", "model"): "another-judge",
    ("LLMComparator", "cache"): False,
    ("PhoneComparator", "region"): "GB",
    ("DateComparator", "tolerance"): 3,
}
WRONG_TYPE = {bool: "yes", int: "three", float: "0.5x", str: 12}


def _valid_value(cls, param) -> Any:
    if (cls.name, param.name) in VALID:
        return VALID[(cls.name, param.name)]
    if param.choices:
        return param.choices[-1]
    if param.kind is bool:
        return not param.default
    if param.kind is int:
        return (param.default or 1) + 1
    if param.kind is float:
        return (param.default or 0.25) * 2 if (param.default or 0.25) * 2 <= 1 else 0.5
    return "custom text"


def _schema(cls, config: dict) -> dict:
    node: dict[str, Any] = {
        "type": "array" if cls.whole_value else "string",
        "x-aws-stickler-comparator": cls.name,
        "x-aws-stickler-comparator-config": config,
    }
    if cls.whole_value:
        node["items"] = {"type": "number"}
    if cls.name == "StructuredModelComparator":  # strict_types allows objects only
        node.update(type="object", properties={"x": {"type": "string"}})
    return {"type": "object", "properties": {"f": node}}


OPTIONS = [(cls, p) for cls in BUILTINS for p in cls.params]


@pytest.mark.parametrize("cls, param", OPTIONS, ids=[f"{c.name}.{p.name}" for c, p in OPTIONS])
def test_option_reaches_the_comparator(cls, param):
    value = _valid_value(cls, param)
    schema = _schema(cls, {**BASE_CONFIG.get(cls.name, {}), param.name: value})
    compile_schema(schema)
    from stickler_cli.comparators import build

    comparator = build(cls.name, schema["properties"]["f"]["x-aws-stickler-comparator-config"])
    assert type(comparator) is cls
    assert comparator.config[param.name] == value


@pytest.mark.parametrize("cls, param", OPTIONS, ids=[f"{c.name}.{p.name}" for c, p in OPTIONS])
def test_wrongly_typed_option_is_a_schema_error_at_its_pointer(cls, param):
    with pytest.raises(SchemaError) as err:
        compile_schema(_schema(cls, {**BASE_CONFIG.get(cls.name, {}), param.name: WRONG_TYPE[param.kind]}))
    assert err.value.pointer == f"/properties/f/x-aws-stickler-comparator-config/{param.name}"
    assert f"option {param.name!r} must be" in str(err.value)


@pytest.mark.parametrize("cls", BUILTINS, ids=[c.name for c in BUILTINS])
def test_misspelled_option_is_a_schema_error_with_a_hint(cls):
    config = dict(BASE_CONFIG.get(cls.name, {}))
    if cls.params:
        misspelled = cls.params[0].name[:-1] + "x"
        config[misspelled] = 1
    else:
        misspelled = "threshold"
        config[misspelled] = 0.5
    with pytest.raises(SchemaError) as err:
        compile_schema(_schema(cls, config))
    assert err.value.pointer == f"/properties/f/x-aws-stickler-comparator-config/{misspelled}"
    assert f"takes no option {misspelled!r}" in str(err.value)
    if cls.params and len(cls.params[0].name) > 4:
        assert f"did you mean {cls.params[0].name!r}" in str(err.value)
