"""The schema and data arguments as several commands read them: the scoring plan (with its warnings), a
schema inferred from data, and what an argument given in the wrong place looks like."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Sequence

from .. import limits
from ..errors import SchemaError, UsageError
from .option_values import schema_resources
from .output import printable

if TYPE_CHECKING:
    from ..plan import Plan


def schema_files(plan: Plan) -> list[tuple[str, str]]:
    """The schema and every file its $refs name, as inputs no output may overwrite."""
    return [("schema" if k == 0 else "file the schema references", f) for k, f in enumerate(plan.source_files)]


def scoring_plan(
    schema: str,
    schema_resource: list[str] | None,
    assert_formats: bool = False,
    others: Sequence[str] = (),
    order: str = "",
) -> Plan:
    """The schema compiled for ``eval``, ``diff`` and ``compare``. A keyword that looks like a misspelt JSON Schema
    keyword (``propertiess``), which ``schema check`` refuses, is a warning here: the run scores the schema as
    written, without what the keyword meant, and a run's numbers should not change unannounced. A schema that
    does not load while the arguments look swapped (``others``: the data arguments) says so, and the ``order``."""
    from ..schema import load_schema
    from ..schema.keywords import unknown_keywords

    try:
        plan = load_schema(schema, schema_resources(schema_resource), assert_formats)
    except SchemaError:
        if order and (swapped := misplaced_schema(schema, others, order)):
            raise swapped from None
        raise
    for pointer, key, meant in sorted(unknown_keywords(plan.schema)):
        if meant:
            sys.stderr.write(
                f"stickler: warning: {printable(schema)}: {printable(pointer)}: unknown keyword "
                f"{printable(key)!r} (did you mean {meant!r}?) is ignored; `stickler schema check` "
                "refuses it\n"
            )
    warn_unread(schema, plan)
    return plan


def warn_unread(schema: str, plan: Plan) -> None:
    for pointer, why in plan.unread:
        sys.stderr.write(f"stickler: warning: {printable(schema)}: {printable(pointer)}: {why}\n")


SCHEMA_SNIFF_BYTES = 4 * 2**20  # a first argument up to this size is looked at: is it a schema rather than data?

LINES_SNIFF_BYTES = 2**20  # the first lines of an argument looked at: is it JSON Lines rather than a schema?


def head_of(path: str, size: int) -> bytes | None:
    """Up to ``size`` + 1 first bytes of a regular file (never standard input, a pipe or a device: looking
    must not consume an input); None when there is none to look at."""
    from ..run.reader import STDIN

    try:
        if path == STDIN or not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            return handle.read(size + 1)
    except OSError:
        return None


def looks_like_schema(path: str) -> bool:
    """Whether ``path`` holds one JSON object that reads as a schema ($schema, or an object type with
    properties): ``eval schema.json gt.jsonl`` missing its predictions, not ground truth to infer from."""
    import orjson

    head = head_of(path, SCHEMA_SNIFF_BYTES)
    if head is None or len(head) > SCHEMA_SNIFF_BYTES or not head.lstrip().startswith(b"{"):
        return False
    try:
        value = orjson.loads(head)
    except ValueError:
        return False
    return isinstance(value, dict) and (
        "$schema" in value or (value.get("type") == "object" and isinstance(value.get("properties"), dict))
    )


def json_lines_records(path: str) -> int:
    """How many of the first two non-blank lines of ``path`` each hold one JSON object (records of JSON Lines),
    0 when it reads as a schema: ground truth or predictions given where the schema belongs."""
    import orjson

    lines = [line for line in (head_of(path, LINES_SNIFF_BYTES) or b"").splitlines()[:1000] if line.strip()][:2]
    found = 0
    for line in lines:
        try:
            if not isinstance(orjson.loads(line), dict):
                break
        except ValueError:
            break
        found += 1
    return found if found and not looks_like_schema(path) else 0


def misplaced_schema(schema: str, others: Sequence[str], order: str) -> UsageError | None:
    """The error a schema that does not load gets when the arguments look swapped (``eval GT SCHEMA PRED``):
    the SCHEMA argument is JSON Lines (or JSON text) and another argument a schema. Only looked at once the
    schema has failed to load: a good run pays nothing for it."""
    if schema.lstrip().startswith(("{", "[")) and not os.path.exists(schema):
        subject, likeness, alone = "the SCHEMA argument is JSON text", "looks like", True
    elif records := json_lines_records(schema):
        # Alone, a one-line schema with an error could read as one record: two records are asked for.
        subject, likeness, alone = f"{printable(schema)} looks like JSON Lines", "like", records > 1
    else:
        return None
    found = next((other for other in others if other != schema and looks_like_schema(other)), None)
    if found is None:
        return UsageError(f"{subject}, not a schema: the order is {order}") if alone else None
    return UsageError(f"{subject} and {printable(found)} {likeness} a schema: the order is {order}")


def infer_from(sides: list[tuple[str, list[str]]]) -> tuple[Any, list[str]]:
    """Infer a schema from the first ``--limit infer-records`` records of each side (its files in order): the
    first side (the ground truth) chooses the types and comparators, the others (predictions) only add notes.
    (Inferred, notes on what was read and what looked doubtful)."""
    from ..run.reader import sample
    from ..schema.inference import infer_schema, unavailable_comparators

    bounds = limits.current()
    notes: list[str] = []
    read: list[list[Any]] = []
    for _, paths in sides:
        records: list[Any] = []
        read.append(records)
        left = bounds.infer_records
        for path in paths:
            bad, first = 0, ""
            for number, value, problem in sample(path, left + 1):
                if left == 0:
                    notes.append(
                        f"read the first {bounds.infer_records:,} records (--limit infer-records=N reads more)"
                    )
                    break
                left -= 1
                if problem:
                    bad += 1
                    first = first or f"{path}:{number}: {problem}"
                    continue
                records.append(value)
            if bad:
                notes.append(f"{first}" + (f" ({bad:,} such lines skipped)" if bad > 1 else " (skipped)"))
            if left == 0:
                break
    inferred = infer_schema(
        read[0],
        source=sides[0][0],
        max_depth=bounds.schema_depth,
        max_fields=bounds.plan_fields,
        unavailable=unavailable_comparators(),
        predictions=[r for side in read[1:] for r in side],
        predictions_source=" and ".join(name for name, _ in sides[1:]) or "the predictions",
    )
    return inferred, [*notes, *inferred.notes]


def warn_about_records(stats: dict[str, int | None], inputs: str) -> None:
    """What the record counts of a run warn of (reader.record_warnings), on stderr, naming the inputs."""
    from ..run.reader import record_warnings

    for warning in record_warnings(stats):
        sys.stderr.write(f"stickler: warning: {printable(inputs)}: {warning}\n")
