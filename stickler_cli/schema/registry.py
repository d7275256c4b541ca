"""Where a schema's references are looked up: one ``referencing.Registry`` per schema, nothing fetched.

jsonschema resolves every ``$ref``, ``$dynamicRef`` and ``$recursiveRef`` through a
registry; its default one downloads any URI it does not hold, once per record
checked. The registry built here holds the schema itself and the JSON Schema
metaschemas installed with jsonschema, and refuses every other URI: a schema
can never make stickler open a connection. ``stickler_cli.schema.audit`` resolves
every reference through it when the schema is loaded, so a reference that leads
outside is refused there (exit 2, naming its JSON pointer) rather than per record.
"""

from __future__ import annotations

import re
from typing import Any

REFUSED = "references are never fetched; copy the schema beside this one and refer to the file"
_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # http:, https:, urn:, file:…


def refused(ref: str) -> str:
    """The one line saying that ``ref`` leads outside the schema and will not be fetched."""
    if _REMOTE.match(ref):
        return f"remote reference {ref!r}: {REFUSED}"
    return f"reference {ref!r} names a document outside this schema: {REFUSED}"


def _refuse(uri: str) -> Any:
    """The registry's retrieve function: every URI it does not hold is refused, none fetched."""
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)


def validator_class(schema: Any) -> Any:
    """jsonschema's validator class for the draft the schema names in ``$schema`` (2020-12 when none)."""
    import jsonschema

    if isinstance(schema, dict) and not isinstance(schema.get("$schema", ""), str):
        return jsonschema.Draft202012Validator  # refused by the audit; never guessed from
    return jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)


def specification(schema: Any) -> Any:
    """The ``referencing`` specification (draft) the schema is read under."""
    import referencing.jsonschema

    cls = validator_class(schema)
    return referencing.jsonschema.specification_with(cls.ID_OF(cls.META_SCHEMA) or "",
                                                     default=referencing.jsonschema.DRAFT202012)


def registry(schema: Any) -> Any:
    """The registry of ``schema``: itself (under its ``$id``, or ``""``) and the metaschemas; nothing else."""
    import referencing
    from jsonschema_specifications import REGISTRY as METASCHEMAS

    resource = specification(schema).create_resource(schema)
    return referencing.Registry(retrieve=_refuse).with_resource(resource.id() or "", resource).combine(METASCHEMAS)
