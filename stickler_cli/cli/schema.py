"""`stickler schema check` and `stickler schema infer`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..errors import InputError, SchemaError, SticklerError, UsageError
from .inputs import infer_from, json_lines_records, looks_like_schema, warn_unread
from .option_values import load_plugins, schema_resources, use_limits
from .options import ASSERT_FORMATS_OPTION, DEBUG_OPTION, LIMIT_OPTION, PLUGIN_OPTION, SCHEMA_RESOURCE_OPTION
from .output import error, print_json, printable, stdout_console

if TYPE_CHECKING:
    from ..plan import Plan


def schema_check(
    schemas: list[str] = typer.Argument(
        ...,
        metavar="SCHEMA...",
        help="Schema files to validate: each is checked, and the exit code is 2 when any fails.",
    ),
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    assert_formats: bool = ASSERT_FORMATS_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Validate a schema and every x-aws-stickler-* value; list the compiled fields and, for each
    comparator inferred (x-aws-stickler-infer-unspecified, or comparator "auto"), what was chosen and why.

    An unknown keyword close to a JSON Schema keyword (a typo such as "requird") is an error
    (exit 2); other unknown keywords are listed as warnings on stderr. With --assert-formats, a `format`
    that this installation cannot check is a warning too. Given several schemas (as the pre-commit hook
    stickler-schema-check gives them), each failure is one error line naming its file, and a last line
    counts them.
    """
    use_limits(limit)
    load_plugins(plugin)
    resources = schema_resources(schema_resource)
    if len(schemas) == 1:
        _check_schema(schemas[0], resources, assert_formats)
        return
    failed = []
    for schema in schemas:
        try:
            _check_schema(schema, resources, assert_formats)
        except SticklerError as exc:
            if debug:
                raise
            error(str(exc))
            failed.append(schema)
    if failed:
        raise UsageError(
            f"{len(failed)} of {len(schemas)} schemas failed the check: {', '.join(printable(f) for f in failed)}"
        )


def _check_schema(schema: str, resources: dict[str, str], assert_formats: bool) -> None:
    """`schema check` of one file: an error raised, warnings on stderr, the compiled fields on stdout."""
    from rich.text import Text

    from ..reporters import terminal
    from ..schema import load_schema
    from ..schema.keywords import unknown_keywords

    try:
        plan = load_schema(schema, resources, assert_formats)
    except SchemaError:
        if json_lines_records(schema) > 1:  # only once it failed: a good schema pays nothing
            raise UsageError(
                f"{printable(schema)} looks like JSON Lines, not a schema: `stickler schema check "
                "SCHEMA` checks a schema (`stickler schema infer` infers one from data)"
            ) from None
        raise
    unknown = sorted(unknown_keywords(plan.schema))
    for pointer, key, meant in unknown:
        if meant:
            raise SchemaError(f"unknown keyword {key!r} (did you mean {meant!r}?)", pointer, schema)
    for pointer, key, _ in unknown:
        sys.stderr.write(
            f"stickler: warning: {printable(schema)}: {printable(pointer)}: "
            f"unknown keyword {printable(key)!r} is ignored\n"
        )
    warn_unread(schema, plan)
    if assert_formats:
        from ..schema.conformance import unchecked_formats

        for pointer, name in unchecked_formats(plan):
            sys.stderr.write(
                f"stickler: warning: {printable(schema)}: {printable(pointer)}: format "
                f"{printable(name)!r} is not checked here (jsonschema knows no checker for it, or "
                "the package it needs is not installed)\n"
            )
    console = stdout_console()
    console.print(terminal.safe(f"{schema}: OK — model {plan.model_name}, {len(plan.fields)} fields", 400))
    from ..reporters.fit import Column, fit

    rows = []
    for f in plan.fields:
        rows.append(
            [
                Text("  " * f.path.count(".")) + terminal.safe(f.key, terminal.NAME_LIMIT),
                f.kind.value,
                terminal.safe((f.comparator_name or "fields").removesuffix("Comparator"), 60)
                + ("*" if f.inferred else ""),
                f"{f.deciding_threshold:g}",
                f"{f.weight:g}",
                "yes" if f.clip else "no",
                terminal.safe(f.pairing, 60),
            ]
        )
    columns = [
        Column("Kind", "left"),
        Column("Comparator", "left"),
        Column("Threshold"),
        Column("Weight"),
        Column("Clip", "left"),
        Column("Pairing", "left"),
    ]
    for table in fit(None, "Field", columns, rows, console.width):
        console.print(table)
    _print_inferred(console, plan)


def _print_inferred(console: Any, plan: Plan) -> None:
    """Each inferred choice and why (x-aws-stickler-infer-unspecified, comparator "auto"), wrapped to the width."""
    import textwrap

    from rich.text import Text

    from ..reporters import terminal

    inferred = [f for f in plan.fields if f.inferred]
    if not inferred:
        return
    console.print(
        Text(f"* inferred from the name and type ({len(inferred)} field{'s' * (len(inferred) != 1)}), and why:")
    )
    for f in inferred:
        line = f"{terminal.safe(f.path, terminal.NAME_LIMIT).plain}: {f.inferred}"
        for part in textwrap.wrap(
            line, width=max(console.width, 40), initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
        ):
            console.print(Text(part), overflow="fold")


def schema_infer(
    ground_truth: str = typer.Argument(..., help="Ground-truth JSONL (.gz, a .json array too; - for standard input)."),
    predictions: Optional[str] = typer.Argument(
        None,
        help="Predictions JSONL: notes where they differ from the ground truth, which alone chooses the "
        "types and comparators.",
    ),
    output: Optional[str] = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write the schema here instead of standard output."
    ),
    limit: Optional[list[str]] = LIMIT_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Infer an annotated schema from the data: each field's type, comparator and threshold, with why.

    The ground truth chooses; notes on what looked doubtful (mixed types, only nulls, only empty lists,
    lines that are not objects, predictions that differ from the ground truth) go to stderr.
    `stickler schema check` passes on the output; edit it, then evaluate with it.
    """
    from ..run.reader import STDIN, check_readable
    from ..run import atomic
    from ..reporters import json_report
    from ..schema import compile_schema

    use_limits(limit)
    if predictions is not None and STDIN in (ground_truth, predictions) and ground_truth == predictions:
        raise UsageError("standard input ('-') can be read once: give one of the two as a file")
    files = [p for p in (ground_truth, predictions) if p is not None]
    check_readable(*files)
    atomic.check_targets({"--output": output}, [("input", p) for p in files])
    try:
        inferred, notes = infer_from([(p, [p]) for p in files])
    except InputError:
        if found := next((p for p in files if looks_like_schema(p)), None):  # only once it failed
            raise UsageError(
                f"{printable(found)} looks like a schema: schema infer takes GROUND_TRUTH "
                "[PREDICTIONS], the data to infer a schema from"
            ) from None
        raise
    compile_schema(inferred.schema, source="<inferred>")  # what is written compiles: `schema check` passes
    data = json_report.dumps(inferred.schema)
    for note in notes:
        sys.stderr.write(f"stickler: note: {printable(note)}\n")
    if output:
        atomic.write(output, data)
        sys.stderr.write(
            f"stickler: schema of {len(inferred.schema['properties'])} top-level fields inferred from "
            f"{inferred.records:,} records written to {printable(output)}\n"
        )
    else:
        print_json(data)
