"""`stickler eval`: score predictions against ground truth, report, and gate."""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Any, Optional

import typer

from ..errors import UsageError
from .help import LIMITS, OUTPUTS, SCALE, STATISTICS
from .inputs import infer_from, looks_like_schema, schema_files, scoring_plan, warn_about_records
from .options import (
    ALLOW_NETWORK_OPTION,
    ASSERT_FORMATS_OPTION,
    AUTO_WORKERS_BYTES,
    AUTO_WORKERS_MIN_CORES,
    BOOTSTRAP_OPTION,
    BOX_FOUND_OPTION,
    BUDGETS_OPTION,
    CHECK_ID_OPTION,
    CI_OPTION,
    DEBUG_OPTION,
    ECE_BINS_OPTION,
    FAIL_UNDER_OPTION,
    FDR_OPTION,
    FORMAT_OPTION,
    GATES_OPTION,
    HTML_OPTION,
    ID_FIELD_OPTION,
    IOU_THRESHOLDS_OPTION,
    JUNIT_OPTION,
    LIMIT_OPTION,
    LLM_BASE_URL_OPTION,
    JUDGE_PAIRING_OPTION,
    LLM_CACHE_OPTION,
    LLM_KEY_ENV_OPTION,
    METRICS_OPTION,
    NO_DATA_PASSES_OPTION,
    OUTPUT_OPTION,
    PAIR_BY_LINE_OPTION,
    PLUGIN_OPTION,
    SCHEMA_RESOURCE_OPTION,
    SEED_OPTION,
    SHOW_ERRORS_OPTION,
    STRICT_OPTION,
    SUGGEST_THRESHOLDS_OPTION,
    collect_option,
    check_bootstrap,
    check_ci,
    check_fdr,
    check_format,
    llm_access,
    load_plugins,
    pairing_option,
    report_options,
    run_options,
    slice_paths,
    use_limits,
    workers_option,
)
from .output import emit_report, printable, write_threshold_patch

if TYPE_CHECKING:
    from ..plan import Plan


def eval_command(
    # Given two arguments, eval reads them as the data (eval_command): the schema is the optional one.
    schema: Optional[str] = typer.Argument(
        None, metavar="[SCHEMA]", help="Annotated JSON Schema; omit it to infer one from the data."
    ),
    ground_truth: Optional[str] = typer.Argument(
        None, metavar="GROUND_TRUTH", help="Ground-truth JSONL (.gz too), or a quoted glob pattern of shards."
    ),
    predictions: Optional[str] = typer.Argument(
        None,
        metavar="PREDICTIONS",
        help="Predictions JSONL, paired with the ground truth; a quoted glob pattern when the ground truth is one.",
    ),
    id_field: Optional[str] = ID_FIELD_OPTION,
    pair_by_line: bool = PAIR_BY_LINE_OPTION,
    check_id: Optional[list[str]] = CHECK_ID_OPTION,
    output_format: str = FORMAT_OPTION,
    output: Optional[str] = OUTPUT_OPTION,
    strict: bool = STRICT_OPTION,
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    confidence_metric_names: str = METRICS_OPTION,
    ece_bins: int = ECE_BINS_OPTION,
    budgets: str = BUDGETS_OPTION,
    workers: Optional[int] = typer.Option(
        None,
        "--workers",
        "-w",
        min=1,
        metavar="N",
        rich_help_panel=SCALE,
        help=f"Processes to score on (default 1; every core on {AUTO_WORKERS_MIN_CORES}+ cores for a ground "
        f"truth over {AUTO_WORKERS_BYTES // 2**20} MB); at most one a core (limit workers-per-core).",
    ),
    save_state: Optional[str] = typer.Option(
        None,
        "--save-state",
        metavar="FILE",
        rich_help_panel=SCALE,
        help="Also write the state here, for `stickler merge`.",
    ),
    dask: Optional[str] = typer.Option(
        None,
        "--dask",
        metavar="ADDRESS",
        rich_help_panel=SCALE,
        help="Score the shards on a Dask cluster: tcp://host:8786, or 'local'.",
    ),
    show_progress: bool = typer.Option(
        True, "--progress/--no-progress", rich_help_panel=SCALE, help="Progress bar on stderr (only on a terminal)."
    ),
    fail_under: Optional[list[str]] = FAIL_UNDER_OPTION,
    gates_file: Optional[str] = GATES_OPTION,
    no_data_passes: bool = NO_DATA_PASSES_OPTION,
    junit_path: Optional[str] = JUNIT_OPTION,
    html_path: Optional[str] = HTML_OPTION,
    suggest_thresholds: Optional[str] = SUGGEST_THRESHOLDS_OPTION,
    show_errors: int = SHOW_ERRORS_OPTION,
    non_matches: Optional[str] = typer.Option(
        None,
        "--non-matches",
        metavar="FILE",
        rich_help_panel=OUTPUTS,
        help="Write every FD/FA/FN comparison here as JSON lines (doc_id, path, gt, pred, score, type).",
    ),
    per_document: Optional[str] = typer.Option(
        None,
        "--per-document",
        metavar="FILE",
        rich_help_panel=OUTPUTS,
        help="Write one JSON line per document here (doc_id, lines, score, field scores, classification counts).",
    ),
    save_schema: Optional[str] = typer.Option(
        None,
        "--save-schema",
        metavar="FILE",
        rich_help_panel=OUTPUTS,
        help="Write the schema inferred (no SCHEMA given) here.",
    ),
    ci: Optional[float] = CI_OPTION,
    bootstrap: int = BOOTSTRAP_OPTION,
    seed: int = SEED_OPTION,
    iou_thresholds: str = IOU_THRESHOLDS_OPTION,
    box_found: str = BOX_FOUND_OPTION,
    slice_by: Optional[list[str]] = typer.Option(
        None,
        "--slice-by",
        metavar="PATH",
        rich_help_panel=STATISTICS,
        help="Figures per value of this ground-truth path.",
    ),
    fdr: float = FDR_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    assert_formats: bool = ASSERT_FORMATS_OPTION,
    llm_base_url: Optional[str] = LLM_BASE_URL_OPTION,
    llm_api_key_env: Optional[str] = LLM_KEY_ENV_OPTION,
    allow_network: Optional[list[str]] = ALLOW_NETWORK_OPTION,
    llm_cache: Optional[str] = LLM_CACHE_OPTION,
    dry_run: bool = typer.Option(
        False, "--dry-run", rich_help_panel=LIMITS, help="Count what the judges would be asked; ask nothing."
    ),
    judge_pairing: str = JUDGE_PAIRING_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Evaluate predictions against ground truth; print tables, JSON or Markdown; exit 1 when a gate fails."""
    from ..report import gates as quality_gates
    from ..run import state_file
    from ..run.accumulate import ROWS_NON_MATCHES, ROWS_PER_DOCUMENT
    from ..schema.compiler import check_ready
    from ..run.evaluate import evaluate_files
    from ..run.reader import STDIN, check_readable, file_size
    from ..report.build import build_report
    from ..run import atomic
    from ..reporters.progress import progress_bar
    from ..run.shards import resolve_shards

    use_limits(limit)
    pairing = pairing_option(id_field, strict, pair_by_line, check_id)
    check_format(output_format)
    check_ci(ci)
    check_bootstrap(bootstrap)
    check_fdr(fdr)
    if schema is None or ground_truth is None:  # not "missing argument 'ground_truth'" when the data is what lacks
        given = "" if schema is None else f" (given only {printable(schema)!r})"
        raise UsageError(
            f"eval needs the ground truth and the predictions: stickler eval [SCHEMA] GROUND_TRUTH PREDICTIONS{given}"
        )
    inferring = predictions is None  # GT PRED: no schema given, one is inferred from the data
    if inferring:
        schema, ground_truth, predictions = "", schema, ground_truth
    _check_inferring(inferring, ground_truth, predictions, save_schema, schema_resource)
    reporting = report_options(
        confidence_metric_names, ece_bins, budgets, iou_thresholds, box_found, ci, bootstrap, seed, fdr
    )
    plugin_files = load_plugins(plugin)
    llm = llm_access(llm_base_url, llm_api_key_env, allow_network, llm_cache)
    gates = quality_gates.collect(fail_under or [], gates_file)
    shards = resolve_shards(ground_truth, predictions)
    inputs = [p for shard in shards for p in (shard.ground_truth, shard.predictions)]
    if dask and STDIN in inputs:
        raise UsageError("--dask reads files on the cluster: standard input ('-') cannot be sent there")
    check_readable(*([] if inferring else [schema]), *inputs)
    if inferring:
        plan = _inferred_plan(
            shards,
            ground_truth,
            predictions,
            None if dry_run else save_schema,
            assert_formats,
            [*inputs, *(p for _, p in plugin_files)],
        )
    else:
        plan = scoring_plan(
            schema, schema_resource, assert_formats, [ground_truth, predictions], "SCHEMA GROUND_TRUTH PREDICTIONS"
        )
    check_ready(plan, install=not dry_run)  # a dry run resolves the judges' settings, opens nothing
    data_files = [
        (what, path)
        for shard in shards
        for what, path in (("ground truth", shard.ground_truth), ("predictions", shard.predictions))
    ]
    targets = {
        "--output": output,
        "--save-state": save_state,
        "--junit": junit_path,
        "--html": html_path,
        "--suggest-thresholds": suggest_thresholds,
        "--non-matches": non_matches,
        "--per-document": per_document,
        "--llm-cache": llm_cache,
    }
    atomic.check_targets(
        atomic.with_step_summary(targets),
        [*schema_files(plan), *data_files, *plugin_files, *quality_gates.sources(gates_file)],
    )
    quality_gates.check_paths(gates, plan)  # a gate naming no field is found now, not after the run
    if dry_run:
        from . import dry_run as dry

        docs, problems = dry.read(plan, shards, pairing, ground_truth)
        asked = {**targets, "--save-schema": save_schema}
        not_written = [f"{name} {path}" for name, path in asked.items() if path and name != "--llm-cache"]
        dry.report(dry.count(plan, docs, judge_pairing), len(docs), problems, output_format, not_written)
        return
    total_bytes = sum(file_size(s.ground_truth) for s in shards)
    options = run_options(
        pairing,
        workers_option(workers, dask, plan, total_bytes),
        dask,
        plugin,
        llm,
        collect_option(show_errors, targets, ci, slice_paths(slice_by, gates)),
        judge_pairing,
    )
    files = {ROWS_NON_MATCHES: non_matches, ROWS_PER_DOCUMENT: per_document}
    with contextlib.ExitStack() as stack:
        sinks = {kind: stack.enter_context(atomic.LineWriter(path)) for kind, path in files.items() if path}
        progress = stack.enter_context(progress_bar(total_bytes, show_progress and not dask))
        evaluation = evaluate_files(plan, shards, options=options, progress=progress, sinks=sinks)
    warn_about_records(evaluation.accumulator.stats, ground_truth)
    if save_state:
        state_file.save(save_state, evaluation.accumulator)
    notes = [_non_matches_note(sinks[ROWS_NON_MATCHES])] if non_matches else []
    if per_document:
        notes.append(f"{sinks[ROWS_PER_DOCUMENT].count} documents written to {per_document}")
    report = build_report(evaluation, reporting)
    if "slices" in report:  # the report's warnings hold these too
        from ..report.slices import unheld_paths

        for warning in unheld_paths(report["slices"], [f.path for f in plan.fields]):
            sys.stderr.write(f"stickler: warning: {printable(warning)}\n")
    if suggest_thresholds:
        notes.append(write_threshold_patch(suggest_thresholds, plan, report))
    emit_report(report, output_format, targets, gates, show_errors, notes, no_data_passes)


def _check_inferring(
    inferring: bool, ground_truth: str, predictions: str, save_schema: str | None, schema_resource: list[str] | None
) -> None:
    """The two-argument form of ``eval`` (GT PRED, a schema inferred) and the options that need it or refuse it."""
    from ..run.reader import STDIN

    if not inferring:
        if save_schema:
            raise UsageError("--save-schema keeps an inferred schema: give GROUND_TRUTH PREDICTIONS only to infer one")
        return
    if schema_resource:
        raise UsageError("--schema-resource maps a schema's references: no schema was given")
    if STDIN in (ground_truth, predictions):
        raise UsageError(
            "inferring a schema reads the data before scoring it: give files, not standard input "
            "('-'), or give a schema"
        )
    if looks_like_schema(ground_truth):
        raise UsageError(
            f"{ground_truth} looks like a schema: eval takes SCHEMA GROUND_TRUTH PREDICTIONS, or "
            f"GROUND_TRUTH PREDICTIONS to infer a schema; the predictions are missing"
        )


def _inferred_plan(
    shards: list[Any],
    ground_truth: str,
    predictions: str,
    save_schema: str | None,
    assert_formats: bool,
    inputs: list[str],
) -> Plan:
    """``eval GT PRED``: a schema inferred from the data, said in one line on stderr, kept with --save-schema."""
    from ..run import atomic
    from ..reporters import json_report
    from ..schema import compile_schema

    if save_schema:
        atomic.check_targets({"--save-schema": save_schema}, [("input", p) for p in inputs])
    inferred, notes = infer_from(
        [(ground_truth, [s.ground_truth for s in shards]), (predictions, [s.predictions for s in shards])]
    )
    plan = compile_schema(inferred.schema, source=save_schema or "<inferred>", assert_formats=assert_formats)
    if save_schema:
        atomic.write(save_schema, json_report.dumps(inferred.schema))
    kept = f"written to {save_schema}" if save_schema else "--save-schema FILE keeps it to edit"
    doubts = f", {len(notes)} note(s): `stickler schema infer` lists them" if notes else ""
    sys.stderr.write(
        f"stickler: no schema given: inferred one ({len(plan.fields)} fields) from {inferred.records:,} "
        f"ground-truth records{doubts}; {printable(kept)}\n"
    )
    return plan


def _non_matches_note(written: Any) -> str:
    """What --non-matches wrote (an atomic.LineWriter), and how many more its documents had past
    --limit explain-items (each such document's last line counts them)."""
    note = f"{written.count} non-matching comparisons written to {written.path}"
    if written.not_shown:
        note += f", and {written.not_shown:,} more counted there, not written (--limit explain-items)"
    return note
