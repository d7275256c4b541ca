"""`stickler agree`: how far annotators agree, field by field, under the schema's comparators."""

from __future__ import annotations

from typing import Any, Optional

import typer

from .help import GATES, OUTPUTS
from .options import (
    BOOTSTRAP_OPTION,
    CI_OPTION,
    HTML_OPTION,
    ID_FIELD_OPTION,
    LIMIT_OPTION,
    NO_DATA_PASSES_OPTION,
    OUTPUT_OPTION,
    SCHEMA_RESOURCE_OPTION,
    SEED_OPTION,
)

FORMATS = ("table", "json", "markdown")
SHOWN_DEFAULT = 20  # disagreements listed unless --disagreements says otherwise


def agree_command(
    schema: str = typer.Argument(..., help="JSON Schema with x-aws-stickler-* annotations."),
    annotations: list[str] = typer.Argument(
        ...,
        metavar="ANNOTATOR_A ANNOTATOR_B [MORE]...",
        help="Two or more JSON Lines files (or .json arrays), one per annotator, of the same documents.",
    ),
    id_field: Optional[str] = ID_FIELD_OPTION,
    output_format: str = typer.Option(
        "table", "--format", "-f", metavar="FORMAT", rich_help_panel=OUTPUTS, help="table, json or markdown."
    ),
    output: Optional[str] = OUTPUT_OPTION,
    html_path: Optional[str] = HTML_OPTION,
    fail_under: Optional[list[str]] = typer.Option(
        None,
        "--fail-under",
        metavar="FIELD.METRIC=VALUE",
        rich_help_panel=GATES,
        help="Exit 1 when a field's agreement, kappa or alpha is below VALUE: vendor.kappa=0.8, '*.agreement=0.9'; "
        "repeatable.",
    ),
    no_data_passes: bool = NO_DATA_PASSES_OPTION,
    ci: Optional[float] = CI_OPTION,
    bootstrap: int = BOOTSTRAP_OPTION,
    seed: int = SEED_OPTION,
    shown: int = typer.Option(
        SHOWN_DEFAULT,
        "--disagreements",
        min=0,
        metavar="N",
        rich_help_panel=OUTPUTS,
        help="List at most N disagreements (document, field, each annotator's value); the rest are counted.",
    ),
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
) -> None:
    """Measure how far annotators agree: per field, observed agreement, Cohen's kappa, Krippendorff's alpha.

    Two annotations of a field agree when the field's comparator, at its threshold, calls them a match
    (eval's rule for a TP), or both are null.
    """
    from ..errors import UsageError
    from ..report import agreement
    from ..reporters import json_report
    from ..run import atomic
    from ..run.accumulate import schema_digest
    from ..schema.compiler import check_ready
    from ..version import __version__
    from .inputs import schema_files, scoring_plan
    from .option_values import check_bootstrap, check_ci, use_limits
    from .output import Written, emit, fail_gates

    if output_format not in FORMATS:
        raise UsageError(
            f"--format {output_format!r}: expected one of {', '.join(FORMATS)} (--html FILE writes the HTML page)"
        )
    if len(annotations) < 2:
        raise UsageError("give at least two annotators' files: stickler agree SCHEMA ANNOTATOR_A ANNOTATOR_B")
    use_limits(limit)
    check_ci(ci)
    check_bootstrap(bootstrap)
    gates = [agreement.parse_gate(text) for text in fail_under or []]
    plan = scoring_plan(schema, schema_resource, others=annotations, order="SCHEMA ANNOTATOR_A ANNOTATOR_B")
    check_ready(plan)
    # eval's rules for the files written: never an input, never two options naming one file (nor the step summary)
    atomic.check_targets(
        atomic.with_step_summary({"--output": output, "--html": html_path}),
        [*schema_files(plan), *((f"file of annotator {k + 1}", path) for k, path in enumerate(annotations))],
    )
    found = agreement.leaves(plan)
    documents = paired(annotations, id_field)

    from ..engine import Engine

    engine = Engine(plan)
    docs = [
        agreement.document(name, records, found, lambda gt, pred: engine.compare(gt, pred).counts)
        for name, records in documents
    ]
    fields = agreement.figures(docs, found, len(annotations), ci, bootstrap, seed)
    listed, more = agreement.disagreements(docs, found, shown)
    results = agreement.check_gates(gates, fields, no_data_passes)
    report = {
        "tool": {"name": "stickler agree", "version": __version__},
        "schema": {"path": plan.source, "digest": schema_digest(plan.schema, plan.resources)},
        "annotators": list(annotations),
        "documents": len(docs),
        "ci_level": ci,
        "fields": fields,
        "disagreements": listed,
        "disagreements_not_shown": more,
        "gates": results,
    }
    data = json_report.dumps(report)

    def html() -> bytes:
        from ..reporters.agreement import render_html

        return render_html(report).encode()

    def markdown() -> str:
        from ..reporters.agreement import markdown

        return markdown(report)

    def table(console: Any) -> None:
        from ..reporters.agreement import table

        console.out(table(report), end="", highlight=False)

    emit(
        data,
        output_format,
        [Written(output, "JSON report", lambda: data), Written(html_path, "HTML report", html)],
        markdown,
        table,
        verdict=lambda _: fail_gates(results, not docs, shown=output_format != "json"),
    )


def paired(paths: list[str], id_field: str | None) -> list[tuple[str, list[dict]]]:
    """(document name, each annotator's record) per document, in the first file's order. By --id-field, every
    file must hold each id once, and the same ids; by line, the same number of records at the same lines.
    Anything else is an input error naming the file and line."""
    from ..errors import InputError
    from ..run.reader import record_id

    files = [_records(path) for path in paths]
    if id_field is None:
        first = files[0]
        for path, records in zip(paths[1:], files[1:]):
            if [line for line, _ in records] != [line for line, _ in first]:
                mine, theirs = {line for line, _ in records}, {line for line, _ in first}
                odd = min(mine ^ theirs)
                has, lacks = (paths[0], path) if odd in theirs else (path, paths[0])
                raise InputError(
                    f"a record, and none on line {odd} of {lacks} (paired by line; --id-field pairs by id)", has, odd
                )
        return [
            (record_id(first[k][1]) or f"line {first[k][0]}", [records[k][1] for records in files])
            for k in range(len(first))
        ]
    keyed = []
    for path, records in zip(paths, files):
        by_id: dict[str, dict] = {}
        for line, record in records:
            name = record_id(record, id_field)
            if name is None:
                raise InputError(f"the record has no {id_field!r} (--id-field)", path, line)
            if name in by_id:
                raise InputError(f"a second record with {id_field} {name!r}", path, line)
            by_id[name] = record
        keyed.append(by_id)
    for path, by_id in zip(paths[1:], keyed[1:]):
        missing = [name for name in keyed[0] if name not in by_id] or [n for n in by_id if n not in keyed[0]]
        if missing:
            where = path if missing[0] in keyed[0] else paths[0]
            raise InputError(f"no record with {id_field} {missing[0]!r}, which another annotator's file has", where)
    return [(name, [by_id[name] for by_id in keyed]) for name in keyed[0]]


def _records(path: str) -> list[tuple[int, dict]]:
    """(line, record) of each non-blank line of an annotator's file (a .json array: by position)."""
    import os

    from ..errors import InputError
    from ..run.reader import PairingStats, ground_truth_lines, parse_record

    if not os.path.isfile(path):
        raise InputError("no such file", path)
    out = []
    for number, _, content in ground_truth_lines(path, PairingStats()):
        if type(content) is bytes and not content.strip():
            continue
        record, problem = parse_record(content)
        if problem:
            raise InputError(problem, path, number)
        out.append((number, record))
    if not out:
        raise InputError("holds no record: an annotator's file must hold the documents", path)
    return out
