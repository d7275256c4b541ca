"""`stickler agree`: how far annotators agree, field by field, under the schema's comparators."""

from __future__ import annotations

from typing import Any, Optional

import typer

from .help import GATES, OUTPUTS
from .options import (
    ALLOW_NETWORK_OPTION,
    BOOTSTRAP_OPTION,
    CI_OPTION,
    HTML_OPTION,
    ID_FIELD_OPTION,
    LIMIT_OPTION,
    LLM_BASE_URL_OPTION,
    LLM_CACHE_OPTION,
    LLM_KEY_ENV_OPTION,
    NO_DATA_PASSES_OPTION,
    OUTPUT_OPTION,
    PAIR_BY_LINE_OPTION,
    PLUGIN_OPTION,
    SCHEMA_RESOURCE_OPTION,
    SEED_OPTION,
)

SHOWN_DEFAULT = 20  # disagreements listed unless --disagreements says otherwise


def agree_command(
    schema: str = typer.Argument(..., help="JSON Schema with x-aws-stickler-* annotations."),
    annotations: list[str] = typer.Argument(
        ...,
        metavar="ANNOTATOR_A ANNOTATOR_B [MORE]...",
        help="Two or more JSON Lines files (or .json arrays), one per annotator, of the same documents.",
    ),
    id_field: Optional[str] = ID_FIELD_OPTION,
    pair_by_line: bool = PAIR_BY_LINE_OPTION,
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
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    llm_base_url: Optional[str] = LLM_BASE_URL_OPTION,
    llm_api_key_env: Optional[str] = LLM_KEY_ENV_OPTION,
    allow_network: Optional[list[str]] = ALLOW_NETWORK_OPTION,
    llm_cache: Optional[str] = LLM_CACHE_OPTION,
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
    from .option_values import FORMATS, check_bootstrap, check_ci, llm_access, load_plugins, use_limits
    from .output import Written, emit, fail_gates, warn_about_problems

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
    plugin_files = load_plugins(plugin)  # comparators of the user's, and a judge's endpoint: the command line's
    llm_access(llm_base_url, llm_api_key_env, allow_network, llm_cache)
    plan = scoring_plan(schema, schema_resource, others=annotations, order="SCHEMA ANNOTATOR_A ANNOTATOR_B")
    check_ready(plan)
    # eval's rules for the files written: never an input, never two options naming one file (nor the step summary)
    atomic.check_targets(
        atomic.with_step_summary({"--output": output, "--html": html_path, "--llm-cache": llm_cache}),
        [
            *schema_files(plan),
            *((f"file of annotator {k + 1}", path) for k, path in enumerate(annotations)),
            *plugin_files,
        ],
    )
    found = agreement.leaves(plan)
    agreement.check_gate_fields(gates, found, len(annotations))  # a kappa no field can have: refused up front
    documents, pairing_problems = paired(annotations, id_field, plan, pair_by_line)

    from ..engine import Engine

    engine = Engine(plan)
    docs = [agreement.document(name, records, found, engine.compare) for name, records in documents]
    problems = [error.as_dict() for error in pairing_problems]
    for d in docs:
        problems += [
            {
                "source": f"{annotations[gt]} as the ground truth, {annotations[pred]} as the prediction",
                "line": None,
                "doc_id": d.name,
                "message": message,
            }
            for gt, pred, message in d.problems
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
        **agreement.record_problems(problems),
    }
    data = json_report.dumps(report)
    warn_about_problems(report["error_count"], (report["errors"] or [None])[0])

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


def paired(
    paths: list[str], id_field: str | None, plan: Any, pair_by_line: bool = False
) -> tuple[list[tuple[str, list[dict]]], list[Any]]:
    """(document name, each annotator's record) per document, in the first file's order,
    and the record problems of the pairing (reader.DataError). The first annotator's file is paired with each
    other one as eval pairs ground truth and predictions (run/reader.py): by --id-field, else by line with the
    id check (ids that show the files out of step stop the run, unless --pair-by-line; up to three such pairs are
    record problems).
    A document one file lacks, or a line that is not a JSON object, is an input error naming the file and line."""
    from ..errors import InputError, UsageError
    from ..run import reader
    from ..run.options import for_plan
    from ..run.scoring import adopted_batches, read_pairs
    from ..run.shards import Shard
    from .option_values import pairing_option

    if paths.count(reader.STDIN) > 1:
        raise UsageError("standard input ('-') can be read once: give it for one annotator at most")
    reader.check_readable(*paths)
    pairing = for_plan(pairing_option(id_field, False, pair_by_line, None), plan)
    first_lines = list(reader.ground_truth_lines(paths[0], reader.PairingStats()))  # read once: '-' is read once
    documents: dict[int, tuple[str, list[dict]]] = {}
    problems: list[Any] = []
    said: set[tuple[Any, str]] = set()  # the first file's problems, said once however many files pair with it
    for path in paths[1:]:
        stats = reader.PairingStats()
        read = read_pairs(Shard(paths[0], path), stats, pairing, iter(first_lines))  # as the run reads
        pairs = [pair for batch in adopted_batches(plan.root, read) for pair in batch]
        if not stats.gt_lines:
            raise InputError("holds no record: an annotator's file must hold the documents", paths[0])
        if not stats.pred_lines:
            raise InputError("holds no record: an annotator's file must hold the documents", path)
        for pair in pairs:
            _check_pair(pair, paths[0], path, id_field)
            documents.setdefault(pair.gt_line, (pair.doc_id, [pair.gt]))[1].append(pair.pred)
            for error in pair.errors:
                if error.source == paths[0]:
                    if (error.line, error.message) in said:
                        continue
                    said.add((error.line, error.message))
                problems.append(error)
    return [documents[line] for line in sorted(documents)], problems


def _check_pair(pair: Any, first: str, path: str, id_field: str | None) -> None:
    """A pair the reader could not complete: an input error (eval scores such a document as empty; annotators'
    files must hold the same documents)."""
    from ..errors import InputError

    if pair.gt is None:  # a record of ``path`` with no counterpart in the first file
        if id_field is None:
            why = f"a record, and none on line {pair.pred_line} of {first} (paired by line; --id-field pairs by id)"
        elif pair.pred is None:  # not JSON: its id could not be read
            why = pair.errors[0].message.removeprefix("prediction ").split("; ")[0]
        elif pair.doc_id:
            why = f"a record with {id_field} {pair.doc_id!r}; {first} has none"
        else:
            why = f"the record has no {id_field!r} (--id-field)"
        raise InputError(why, path, pair.pred_line)
    if pair.pred_line is None:
        if id_field is None:
            why = f"a record, and none on line {pair.gt_line} of {path} (paired by line; --id-field pairs by id)"
            raise InputError(why, first, pair.gt_line)
        raise InputError(f"no record with {id_field} {pair.doc_id!r}, which {first} has (line {pair.gt_line})", path)
    if pair.pred_invalid:
        raise InputError(pair.errors[-1].message.removeprefix("prediction ").rsplit("; ", 1)[0], path, pair.pred_line)
