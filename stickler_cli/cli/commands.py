"""The ``stickler`` command: wires readers, the engine and reporters together.

Exit codes (README, "Exit codes"): 0 success; 1 a quality gate failed;
2 usage or input error; 3 internal error; 128 + the signal number when
SIGINT (130), SIGTERM (143) or SIGHUP (129) stopped the run. Errors are one
line on stderr; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import contextlib
import copy
import errno
import inspect
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, NoReturn, Optional, Sequence

import typer

# Only what --help needs is imported here: each command imports what it uses when it runs
# (docs/performance.md, "Start-up"; tests/test_startup.py checks that --help imports no engine).
from ..run import interrupts
from .. import limits
from .help import CONFIDENCE, GATES, INPUTS, LIMITS, OUTPUTS, SCALE, STATISTICS, HelpTyper
from ..errors import ExitCode, InputError, SchemaError, SticklerError, UsageError
from ..version import __version__

if TYPE_CHECKING:
    from rich.console import Console

    from ..confidence import ConfidenceMetric
    from ..report.gates import Gate
    from ..plan import Plan

app = HelpTyper(
    add_completion=False,
    no_args_is_help=True,
    help="Evaluate structured AI outputs field by field against ground truth, driven by a JSON Schema.",
    pretty_exceptions_enable=False,
)
schema_app = HelpTyper(help="Inspect and validate schemas.", no_args_is_help=True)
app.add_typer(schema_app, name="schema")


# Without --workers, a run scores in one process unless both hold (make bench, case 5,
# docs/performance.md): on 2 cores a second worker was no reliable gain at any size measured (1 to
# 32 MB; the parent reads and pairs while the workers score), and 32 MB was the smallest size whose
# median gain passed 1.3×. --workers N overrides both.
AUTO_WORKERS_BYTES = 32 * 2**20
AUTO_WORKERS_MIN_CORES = 3


PLUGIN_HELP = "Import this module (or .py file) for its comparators; repeatable."

# Options that several commands take, declared once.
FORMAT_OPTION = typer.Option("table", "--format", "-f", metavar="FORMAT", rich_help_panel=OUTPUTS,
                             help="table (Rich tables), json (the report) or markdown, on stdout.")
TABLE_OR_JSON_OPTION = typer.Option("table", "--format", "-f", metavar="FORMAT", rich_help_panel=OUTPUTS,
                                    help="table or json.")
OUTPUT_OPTION = typer.Option(None, "--output", "-o", metavar="FILE", rich_help_panel=OUTPUTS,
                             help="Also write the JSON report to this file.")
PLUGIN_OPTION = typer.Option(None, "--plugin", metavar="MODULE", rich_help_panel=INPUTS, help=PLUGIN_HELP)
DEBUG_OPTION = typer.Option(False, "--debug", help="Show tracebacks.")
METRICS_OPTION = typer.Option("auroc,brier_score,ece,error_capture_at_budget", "--confidence-metrics",
                              metavar="NAMES", rich_help_panel=CONFIDENCE,
                              help="Comma-separated confidence metrics, computed when predictions carry _confidence.")
ECE_BINS_OPTION = typer.Option(10, "--ece-bins", min=1, max=100, metavar="N", rich_help_panel=CONFIDENCE,
                               help="Equal-width bins for ECE and the reliability diagram (1 to 100).")
BUDGETS_OPTION = typer.Option("0.1,0.3,0.5", "--budgets", metavar="FRACTIONS", rich_help_panel=CONFIDENCE,
                              help="Review budgets for error capture, fractions in (0, 1].")
FAIL_UNDER_OPTION = typer.Option(
    None, "--fail-under", metavar="METRIC=VALUE", rich_help_panel=GATES,
    help="Exit 1 when a metric is below VALUE: weighted_overall_score=0.9, 'line_items.*.cm_recall=0.8', "
         "vendor.aggregate.cm_f1=0.9; repeatable; also [tool.stickler.fail-under] in pyproject.toml.")
GATES_OPTION = typer.Option(None, "--gates", metavar="FILE", rich_help_panel=GATES,
                            help="TOML file whose [fail-under] table holds gates.")
NO_DATA_PASSES_OPTION = typer.Option(
    False, "--no-data-passes", rich_help_panel=GATES,
    help="A gate with no data passes (default: it fails).")
JUNIT_OPTION = typer.Option(None, "--junit", metavar="FILE", rich_help_panel=OUTPUTS,
                            help="Also write JUnit XML here: a test case per gate and per field.")
HTML_OPTION = typer.Option(None, "--html", metavar="FILE", rich_help_panel=OUTPUTS,
                           help="Also write a self-contained HTML report here.")
SUGGEST_THRESHOLDS_OPTION = typer.Option(
    None, "--suggest-thresholds", metavar="FILE", rich_help_panel=OUTPUTS,
    help="Write suggested thresholds here (a JSON Patch).")
SHOW_ERRORS_OPTION = typer.Option(0, "--show-errors", min=0, metavar="N", rich_help_panel=OUTPUTS,
                                  help="Print the N worst documents with their failing fields (--limit "
                                       "explain-items bounds each; the rest counted).")
IOU_THRESHOLDS_OPTION = typer.Option(
    "0.5:0.95:0.05", "--iou-thresholds", metavar="RANGE", rich_help_panel=STATISTICS, show_default=False,
    help="Box mAP IoU thresholds [0.5:0.95:0.05], or a list.")
BOX_FOUND_OPTION = typer.Option(
    "value-and-iou", "--box-found", metavar="RULE", rich_help_panel=STATISTICS, show_default=False,
    help="Box mAP: found by value-and-iou [default] or iou.")
CI_OPTION = typer.Option(None, "--ci", metavar="LEVEL", rich_help_panel=STATISTICS,
                         help="Bootstrap confidence intervals at this level (e.g. 0.95) on every score.")
BOOTSTRAP_OPTION = typer.Option(1000, "--bootstrap", min=10, metavar="N", rich_help_panel=STATISTICS,
                                help="Bootstrap resamples for --ci (10 to the limit bootstrap-resamples).")
SEED_OPTION = typer.Option(0, "--seed", min=0, metavar="N", rich_help_panel=STATISTICS,
                           help="Seed of the bootstrap resamples (same seed, same intervals).")
FDR_OPTION = typer.Option(0.05, "--fdr", metavar="RATE", rich_help_panel=STATISTICS,
                          help="False-discovery rate of --slice-by.")
ID_FIELD_OPTION = typer.Option(None, "--id-field", metavar="FIELD", rich_help_panel=INPUTS,
                               help="Pair records by this key instead of by line order.")
PAIR_BY_LINE_OPTION = typer.Option(
    False, "--pair-by-line", rich_help_panel=INPUTS,
    help="Pair by line even when the records' document ids (id, doc_id, file, ...) disagree.")
CHECK_ID_OPTION = typer.Option(
    None, "--check-id", metavar="FIELD", rich_help_panel=INPUTS,
    help="Pairing by line, stop when this field disagrees on more than 3 pairs (repeatable; "
         "default: the usual document-id names).")
STRICT_OPTION = typer.Option(False, "--strict", rich_help_panel=INPUTS,
                             help="Stop (exit 2) on a prediction line that is not a JSON object.")
LIMIT_OPTION = typer.Option(
    None, "--limit", metavar="NAME=VALUE", rich_help_panel=LIMITS,
    help="Raise a bound on what input may cost, e.g. line-bytes=256MiB; repeatable; also [tool.stickler.limits] "
         "in pyproject.toml.")
SCHEMA_RESOURCE_OPTION = typer.Option(
    None, "--schema-resource", metavar="URL=FILE", rich_help_panel=INPUTS,
    help="A $ref's URL read from FILE (URL/ from a directory), never fetched; repeatable.")
ASSERT_FORMATS_OPTION = typer.Option(
    False, "--assert-formats", rich_help_panel=INPUTS,
    help="Count `format` failures (date, email, uri, ...) as schema violations.")
# Where LLMComparator sends values, with which key, and where it keeps answers: the user's decision.
LLM_BASE_URL_OPTION = typer.Option(
    None, "--llm-base-url", metavar="URL", rich_help_panel=LIMITS,
    help="LLMComparator endpoint, e.g. http://localhost:11434/v1 (else $STICKLER_LLM_BASE_URL).")
LLM_KEY_ENV_OPTION = typer.Option(
    None, "--llm-api-key-env", metavar="NAME", rich_help_panel=LIMITS,
    help="The variable holding LLMComparator's API key (else $STICKLER_LLM_API_KEY, $OPENAI_API_KEY).")
ALLOW_NETWORK_OPTION = typer.Option(
    None, "--allow-network", metavar="HOST", rich_help_panel=LIMITS,
    help="Let a schema's LLMComparator base_url send values to this host (host or host:port); repeatable.")
LLM_CACHE_OPTION = typer.Option(
    None, "--llm-cache", metavar="PATH", rich_help_panel=LIMITS,
    help="LLMComparator answer cache file (default: llm.sqlite in $STICKLER_CACHE_DIR, else ~/.cache/stickler).")

FORMATS = ("table", "json", "markdown")
TABLE_OR_JSON = ("table", "json")


def _check_bootstrap(bootstrap: int) -> None:
    """--bootstrap within its named bound: each resample is a pass over every document and keeps a row of
    figures per field (10,000,000 would take hours and gigabytes)."""
    most = limits.current().bootstrap_resamples
    if bootstrap > most:
        raise UsageError(f"--bootstrap {bootstrap:,}: more resamples than the limit of {most:,} (raise it with "
                         "--limit bootstrap-resamples=N)")


def _within_cores(workers: int) -> int:
    """--workers, at most ``workers-per-core`` processes for each core this process may run on: more only
    compete for the cores (64 on 2 cores spawned 64 processes; 99,999 were killed). Said on stderr."""
    if workers <= 1:
        return workers
    from ..run.parallel import available_cores

    cores = available_cores()
    per_core = limits.current().workers_per_core
    most = cores * per_core
    if workers > most:
        sys.stderr.write(f"stickler: warning: --workers {workers:,} is more than {most} process(es) for the {cores} "
                         f"core(s) this run may use (limit workers-per-core={per_core}): scoring on {most}\n")
        return most
    return workers


def _check_ci(level: float | None) -> None:
    if level is not None and not 0.0 < level < 1.0:
        raise UsageError(f"--ci must be a level between 0 and 1, such as 0.95; got {level:g}")


def _check_fdr(fdr: float) -> None:
    if not 0.0 < fdr < 1.0:
        raise UsageError(f"--fdr must be a rate between 0 and 1, such as 0.05; got {fdr:g}")


def _slice_paths(given: list[str] | None, gates: list[Gate]) -> tuple[str, ...]:
    """The --slice-by paths, then those the gates name (a slice gate slices by its path), each once."""
    from ..report.gates import is_slice_path

    paths: list[str] = []
    for path in [*(given or []), *(g.slice[0] for g in gates if g.slice)]:
        if not is_slice_path(path):
            raise UsageError(f"--slice-by {path!r}: expected a dotted path of ground-truth keys, such as vendor.country")
        if path not in paths:
            paths.append(path)
    return tuple(paths)


def _check_format(output_format: str, allowed: tuple[str, ...] = FORMATS) -> None:
    if output_format not in allowed:
        raise UsageError(f"--format must be {', '.join(map(repr, allowed[:-1]))} or {allowed[-1]!r}, got {output_format!r}")


def _confidence_metrics(names: str, ece_bins: int, budgets: str) -> list[ConfidenceMetric]:
    """The metric objects the options ask for; a wrong name or value is a usage error."""
    from ..confidence import ECE, METRICS, ErrorCaptureAtBudget
    from ..errors import suggest

    try:
        budget_values = [float(b) for b in budgets.split(",") if b.strip()]
        chosen: list[ConfidenceMetric] = []
        for name in [n.strip() for n in names.split(",") if n.strip()]:
            if name not in METRICS:
                known = ", ".join(METRICS)
                raise UsageError(f"--confidence-metrics: unknown metric {name!r}{suggest(name, METRICS)}; known: {known}")
            if name == "ece":
                chosen.append(ECE(ece_bins))
            elif name == "error_capture_at_budget":
                chosen.append(ErrorCaptureAtBudget(budget_values))
            else:
                chosen.append(METRICS[name]())
    except ValueError as exc:
        raise UsageError(f"confidence options: {exc}") from None
    if not chosen:
        raise UsageError("--confidence-metrics names no metric; known: " + ", ".join(METRICS))
    return chosen


def _box_settings(iou_thresholds: str, box_found: str) -> tuple[tuple[float, ...], str]:
    """(IoU thresholds, rule) of localisation mAP, checked before any work."""
    from ..analyses.localisation import check_rule, parse_thresholds

    return parse_thresholds(iou_thresholds), check_rule(box_found)


def _llm_access(base_url: str | None = None, api_key_env: str | None = None, hosts: list[str] | None = None,
                cache: str | None = None, calls: bool = True) -> None:
    """Adopt the user's LLM endpoint, key variable, allowed hosts and cache file for this run
    (``calls=False``: none is made, answers come from the cache only)."""
    if (calls and base_url is None and api_key_env is None and not hosts and cache is None
            and "stickler_cli.comparators.llm" not in sys.modules):
        return  # the defaults, in force until the module is first imported (by a schema naming LLMComparator)
    from ..comparators.llm import configure

    configure(base_url=base_url, api_key_env=api_key_env, allow_network=tuple(hosts or ()), cache=cache,
              calls=calls)


def _load_plugins(specs: list[str] | None) -> list[tuple[str, str]]:
    """Import each ``--plugin``; the files its comparators came from (no output may overwrite them)."""
    from ..comparators.plugins import PluginError, load_module

    files: list[tuple[str, str]] = []
    for spec in specs or []:
        try:
            classes = load_module(spec)
        except PluginError as exc:
            raise UsageError(str(exc)) from None
        modules = [sys.modules.get(spec), *(sys.modules.get(c.__module__) for c in classes)]
        found = {spec} if Path(spec).is_file() else set()
        found.update(f for f in (getattr(m, "__file__", None) for m in modules) if f)
        files.extend(("--plugin file", f) for f in sorted(found))
    return files


def _schema_files(plan: Plan) -> list[tuple[str, str]]:
    """The schema and every file its $refs name, as inputs no output may overwrite."""
    return [("schema" if k == 0 else "file the schema references", f) for k, f in enumerate(plan.source_files)]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"stickler {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    """Evaluate structured AI outputs field by field."""


@app.command("eval")
def eval_command(
    # Given two arguments, eval reads them as the data (cli.eval_command): the schema is the optional one.
    schema: Optional[str] = typer.Argument(None, metavar="[SCHEMA]",
                                           help="Annotated JSON Schema; omit it to infer one from the data."),
    ground_truth: Optional[str] = typer.Argument(None, metavar="GROUND_TRUTH",
                                                 help="Ground-truth JSONL (.gz too), or a quoted glob pattern of shards."),
    predictions: Optional[str] = typer.Argument(
        None, metavar="PREDICTIONS",
        help="Predictions JSONL, paired with the ground truth; a quoted glob pattern when the ground truth is one."),
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
        None, "--workers", "-w", min=1, metavar="N", rich_help_panel=SCALE,
        help=f"Processes to score on (default 1; every core on {AUTO_WORKERS_MIN_CORES}+ cores for a ground "
             f"truth over {AUTO_WORKERS_BYTES // 2**20} MB); at most one a core (limit workers-per-core)."),
    save_state: Optional[str] = typer.Option(None, "--save-state", metavar="FILE", rich_help_panel=SCALE,
                                             help="Also write the run's mergeable state here (see `stickler merge`)."),
    dask: Optional[str] = typer.Option(None, "--dask", metavar="ADDRESS", rich_help_panel=SCALE,
                                       help="Score the shards on a Dask cluster: tcp://host:8786, or 'local'."),
    show_progress: bool = typer.Option(True, "--progress/--no-progress", rich_help_panel=SCALE,
                                       help="Progress bar on stderr (only on a terminal)."),
    fail_under: Optional[list[str]] = FAIL_UNDER_OPTION,
    gates_file: Optional[str] = GATES_OPTION,
    no_data_passes: bool = NO_DATA_PASSES_OPTION,
    junit_path: Optional[str] = JUNIT_OPTION,
    html_path: Optional[str] = HTML_OPTION,
    suggest_thresholds: Optional[str] = SUGGEST_THRESHOLDS_OPTION,
    show_errors: int = SHOW_ERRORS_OPTION,
    non_matches: Optional[str] = typer.Option(
        None, "--non-matches", metavar="FILE", rich_help_panel=OUTPUTS, help="Write every FD/FA/FN comparison here as JSON lines (doc_id, path, gt, pred, score, type)."),
    per_document: Optional[str] = typer.Option(
        None, "--per-document", metavar="FILE", rich_help_panel=OUTPUTS,
        help="Write one JSON line per document here (doc_id, lines, score, field scores, classification counts)."),
    save_schema: Optional[str] = typer.Option(
        None, "--save-schema", metavar="FILE", rich_help_panel=OUTPUTS,
        help="Write the schema inferred (no SCHEMA given) here."),
    ci: Optional[float] = CI_OPTION,
    bootstrap: int = BOOTSTRAP_OPTION,
    seed: int = SEED_OPTION,
    iou_thresholds: str = IOU_THRESHOLDS_OPTION,
    box_found: str = BOX_FOUND_OPTION,
    slice_by: Optional[list[str]] = typer.Option(
        None, "--slice-by", metavar="PATH", rich_help_panel=STATISTICS,
        help="Figures per value of this ground-truth path; weak slices."),
    fdr: float = FDR_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    assert_formats: bool = ASSERT_FORMATS_OPTION,
    llm_base_url: Optional[str] = LLM_BASE_URL_OPTION,
    llm_api_key_env: Optional[str] = LLM_KEY_ENV_OPTION,
    allow_network: Optional[list[str]] = ALLOW_NETWORK_OPTION,
    llm_cache: Optional[str] = LLM_CACHE_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Evaluate predictions against ground truth; print tables, JSON or Markdown; exit 1 when a gate fails."""
    from ..report import gates as quality_gates
    from ..run import state_file
    from ..run.accumulate import ROWS_NON_MATCHES, ROWS_PER_DOCUMENT, Analysis
    from ..schema.compiler import check_ready
    from ..run.evaluate import evaluate_files
    from ..run.reader import STDIN, check_readable, file_size
    from ..report.build import build_report
    from ..reporters import json_report
    from ..reporters.progress import progress_bar
    from ..run.shards import resolve_shards

    _use_limits(limit)
    _check_pairing(id_field, pair_by_line, check_id)
    _check_format(output_format)
    _check_ci(ci)
    _check_bootstrap(bootstrap)
    _check_fdr(fdr)
    if schema is None or ground_truth is None:  # not "missing argument 'ground_truth'" when the data is what lacks
        given = "" if schema is None else f" (given only {_printable(schema)!r})"
        raise UsageError(f"eval needs the ground truth and the predictions: stickler eval [SCHEMA] GROUND_TRUTH "
                         f"PREDICTIONS{given}")
    inferring = predictions is None  # GT PRED: no schema given, one is inferred from the data
    if inferring:
        schema, ground_truth, predictions = "", schema, ground_truth
    _check_inferring(inferring, ground_truth, predictions, save_schema, schema_resource)
    metrics = _confidence_metrics(confidence_metric_names, ece_bins, budgets)
    boxes = _box_settings(iou_thresholds, box_found)
    plugin_files = _load_plugins(plugin)
    _llm_access(llm_base_url, llm_api_key_env, allow_network, llm_cache)
    gates = quality_gates.collect(fail_under or [], gates_file)
    shards = resolve_shards(ground_truth, predictions)
    inputs = [p for shard in shards for p in (shard.ground_truth, shard.predictions)]
    if dask and STDIN in inputs:
        raise UsageError("--dask reads files on the cluster: standard input ('-') cannot be sent there")
    check_readable(*([] if inferring else [schema]), *inputs)
    if inferring:
        plan = _inferred_plan(shards, ground_truth, predictions, save_schema, assert_formats,
                              [*inputs, *(p for _, p in plugin_files)])
    else:
        plan = _scoring_plan(schema, schema_resource, assert_formats, [ground_truth, predictions],
                             "SCHEMA GROUND_TRUTH PREDICTIONS")
    check_ready(plan)
    data_files = [(what, path) for shard in shards
                  for what, path in (("ground truth", shard.ground_truth), ("predictions", shard.predictions))]
    json_report.check_targets(json_report.with_step_summary(
        {"--output": output, "--save-state": save_state, "--junit": junit_path, "--html": html_path,
         "--suggest-thresholds": suggest_thresholds, "--non-matches": non_matches, "--per-document": per_document,
         "--llm-cache": llm_cache}),
        [*_schema_files(plan), *data_files, *plugin_files, *quality_gates.sources(gates_file)])
    for gate in gates:  # a gate naming no field is found now, not after the run
        if gate.pattern is not None:
            quality_gates.matching(gate, quality_gates.candidates(gate, plan))
    total_bytes = sum(file_size(s.ground_truth) for s in shards)
    if workers is not None:
        workers = _within_cores(workers)
    elif dask:
        from ..run.parallel import available_cores

        workers = available_cores()
    elif workers is None:
        workers = _auto_workers(plan, total_bytes)
    bounds = limits.current()
    analysis = Analysis(worst=max(Analysis.worst, show_errors), non_matches=bool(non_matches),
                        per_document=bool(per_document), documents=ci is not None, index=bool(save_state),
                        # Explaining documents for the samples costs time: kept for the outputs that show them.
                        failures=bounds.failures_per_field if html_path or save_state else 0,
                        slices=_slice_paths(slice_by, gates), slice_values=bounds.slice_values,
                        slice_chars=bounds.slice_value_chars)
    files = {ROWS_NON_MATCHES: non_matches, ROWS_PER_DOCUMENT: per_document}
    with contextlib.ExitStack() as stack:
        sinks = {kind: stack.enter_context(json_report.LineWriter(path)) for kind, path in files.items() if path}
        progress = stack.enter_context(progress_bar(total_bytes, show_progress and not dask))
        evaluation = evaluate_files(plan, shards, id_field=id_field, strict=strict, workers=workers,
                                    plugins=plugin or [], progress=progress, dask=dask, analysis=analysis,
                                    sinks=sinks, pair_by_line=pair_by_line, check_ids=check_id)
    _warn_about_records(evaluation.accumulator.stats, ground_truth)
    evaluation.confidence_metrics = metrics
    evaluation.iou_thresholds, evaluation.box_rule = boxes
    evaluation.ci_level, evaluation.bootstrap, evaluation.seed = ci, bootstrap, seed
    evaluation.slice_fdr = fdr
    if save_state:
        state_file.save(save_state, evaluation.accumulator)
    notes = [_non_matches_note(sinks[ROWS_NON_MATCHES])] if non_matches else []
    if per_document:
        notes.append(f"{sinks[ROWS_PER_DOCUMENT].count} documents written to {per_document}")
    report = build_report(evaluation)
    if "slices" in report:  # the report's warnings hold these too
        from ..report.slices import unheld_paths

        for warning in unheld_paths(report["slices"], [f.path for f in plan.fields]):
            sys.stderr.write(f"stickler: warning: {_printable(warning)}\n")
    if suggest_thresholds:
        notes.append(_write_threshold_patch(suggest_thresholds, plan, report))
    _emit(report, output_format, output, gates, junit_path, html_path, show_errors, notes, no_data_passes)


def _scoring_plan(schema: str, schema_resource: list[str] | None, assert_formats: bool = False,
                  others: Sequence[str] = (), order: str = "") -> Plan:
    """The schema compiled for ``eval``, ``diff`` and ``compare``. A keyword that looks like a misspelt JSON Schema
    keyword (``propertiess``), which ``schema check`` refuses, is a warning here: the run scores the schema as
    written, without what the keyword meant, and a run's numbers should not change unannounced. A schema that
    does not load while the arguments look swapped (``others``: the data arguments) says so, and the ``order``."""
    from ..schema import load_schema
    from ..schema.keywords import unknown_keywords

    try:
        plan = load_schema(schema, _schema_resources(schema_resource), assert_formats)
    except SchemaError:
        if order and (swapped := _misplaced_schema(schema, others, order)):
            raise swapped from None
        raise
    for pointer, key, meant in sorted(unknown_keywords(plan.schema)):
        if meant:
            sys.stderr.write(f"stickler: warning: {_printable(schema)}: {_printable(pointer)}: unknown keyword "
                             f"{_printable(key)!r} (did you mean {meant!r}?) is ignored; `stickler schema check` "
                             "refuses it\n")
    _warn_unread(schema, plan)
    return plan


def _warn_unread(schema: str, plan: Plan) -> None:
    for pointer, why in plan.unread:
        sys.stderr.write(f"stickler: warning: {_printable(schema)}: {_printable(pointer)}: {why}\n")


def _write_threshold_patch(path: str, plan: Plan, report: dict[str, Any]) -> str:
    """Write the schema patch of ``--suggest-thresholds``; the fields it cannot patch are named on stderr."""
    from ..reporters import json_report
    from ..analyses.thresholds import suggest_patch

    operations, skipped = suggest_patch(plan, report["thresholds"]["fields"])
    json_report.write(path, json_report.dumps(operations))  # type: ignore[arg-type]
    for reason in skipped:
        sys.stderr.write(f"stickler: warning: --suggest-thresholds: {_printable(reason)}\n")
    fields = sum(op["op"] != "test" for op in operations)
    return f"Threshold patch ({fields} field{'s' if fields != 1 else ''}) written to {path}"


def _check_inferring(inferring: bool, ground_truth: str, predictions: str, save_schema: str | None,
                     schema_resource: list[str] | None) -> None:
    """The two-argument form of ``eval`` (GT PRED, a schema inferred) and the options that need it or refuse it."""
    from ..run.reader import STDIN

    if not inferring:
        if save_schema:
            raise UsageError("--save-schema keeps an inferred schema: give GROUND_TRUTH PREDICTIONS only to infer one")
        return
    if schema_resource:
        raise UsageError("--schema-resource maps a schema's references: no schema was given")
    if STDIN in (ground_truth, predictions):
        raise UsageError("inferring a schema reads the data before scoring it: give files, not standard input "
                         "('-'), or give a schema")
    if _looks_like_schema(ground_truth):
        raise UsageError(f"{ground_truth} looks like a schema: eval takes SCHEMA GROUND_TRUTH PREDICTIONS, or "
                         f"GROUND_TRUTH PREDICTIONS to infer a schema; the predictions are missing")


SCHEMA_SNIFF_BYTES = 4 * 2**20  # a first argument up to this size is looked at: is it a schema rather than data?
LINES_SNIFF_BYTES = 2**20  # the first lines of an argument looked at: is it JSON Lines rather than a schema?


def _head(path: str, size: int) -> bytes | None:
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


def _looks_like_schema(path: str) -> bool:
    """Whether ``path`` holds one JSON object that reads as a schema ($schema, or an object type with
    properties): ``eval schema.json gt.jsonl`` missing its predictions, not ground truth to infer from."""
    import orjson

    head = _head(path, SCHEMA_SNIFF_BYTES)
    if head is None or len(head) > SCHEMA_SNIFF_BYTES or not head.lstrip().startswith(b"{"):
        return False
    try:
        value = orjson.loads(head)
    except ValueError:
        return False
    return isinstance(value, dict) and (
        "$schema" in value or (value.get("type") == "object" and isinstance(value.get("properties"), dict)))


def _json_lines_records(path: str) -> int:
    """How many of the first two non-blank lines of ``path`` each hold one JSON object (records of JSON Lines),
    0 when it reads as a schema: ground truth or predictions given where the schema belongs."""
    import orjson

    lines = [line for line in (_head(path, LINES_SNIFF_BYTES) or b"").splitlines()[:1000] if line.strip()][:2]
    found = 0
    for line in lines:
        try:
            if not isinstance(orjson.loads(line), dict):
                break
        except ValueError:
            break
        found += 1
    return found if found and not _looks_like_schema(path) else 0


def _misplaced_schema(schema: str, others: Sequence[str], order: str) -> UsageError | None:
    """The error a schema that does not load gets when the arguments look swapped (``eval GT SCHEMA PRED``):
    the SCHEMA argument is JSON Lines (or JSON text) and another argument a schema. Only looked at once the
    schema has failed to load: a good run pays nothing for it."""
    if schema.lstrip().startswith(("{", "[")) and not os.path.exists(schema):
        subject, likeness, alone = "the SCHEMA argument is JSON text", "looks like", True
    elif records := _json_lines_records(schema):
        # Alone, a one-line schema with an error could read as one record: two records are asked for.
        subject, likeness, alone = f"{_printable(schema)} looks like JSON Lines", "like", records > 1
    else:
        return None
    found = next((other for other in others if other != schema and _looks_like_schema(other)), None)
    if found is None:
        return UsageError(f"{subject}, not a schema: the order is {order}") if alone else None
    return UsageError(f"{subject} and {_printable(found)} {likeness} a schema: the order is {order}")


def _infer(sides: list[tuple[str, list[str]]]) -> tuple[Any, list[str]]:
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
                    notes.append(f"read the first {bounds.infer_records:,} records (--limit infer-records=N reads more)")
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
    inferred = infer_schema(read[0], source=sides[0][0], max_depth=bounds.schema_depth, max_fields=bounds.plan_fields,
                            unavailable=unavailable_comparators(), predictions=[r for side in read[1:] for r in side],
                            predictions_source=" and ".join(name for name, _ in sides[1:]) or "the predictions")
    return inferred, [*notes, *inferred.notes]


def _inferred_plan(shards: list[Any], ground_truth: str, predictions: str, save_schema: str | None,
                   assert_formats: bool, inputs: list[str]) -> Plan:
    """``eval GT PRED``: a schema inferred from the data, said in one line on stderr, kept with --save-schema."""
    from ..reporters import json_report
    from ..schema import compile_schema

    if save_schema:
        json_report.check_targets({"--save-schema": save_schema}, [("input", p) for p in inputs])
    inferred, notes = _infer([(ground_truth, [s.ground_truth for s in shards]),
                              (predictions, [s.predictions for s in shards])])
    plan = compile_schema(inferred.schema, source=save_schema or "<inferred>", assert_formats=assert_formats)
    if save_schema:
        json_report.write(save_schema, json_report.dumps(inferred.schema))
    kept = f"written to {save_schema}" if save_schema else "--save-schema FILE keeps it to edit"
    doubts = f", {len(notes)} note(s): `stickler schema infer` lists them" if notes else ""
    sys.stderr.write(f"stickler: no schema given: inferred one ({len(plan.fields)} fields) from {inferred.records:,} "
                     f"ground-truth records{doubts}; {_printable(kept)}\n")
    return plan


@app.command("merge")
def merge_command(
    states: list[str] = typer.Argument(..., help="State files written by `stickler eval --save-state`."),
    output_format: str = FORMAT_OPTION,
    output: Optional[str] = OUTPUT_OPTION,
    save_state: Optional[str] = typer.Option(None, "--save-state", metavar="FILE", rich_help_panel=SCALE,
                                             help="Also write the merged state here."),
    allow_overlap: bool = typer.Option(
        False, "--allow-overlap", rich_help_panel=INPUTS,
        help="Add states that share documents (the same ground-truth record in two states: a shard and the whole "
             "run, one ground truth scored twice) anyway, with a warning; without it such a merge stops (exit 2) "
             "naming the first shared document, which would be counted twice."),
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    confidence_metric_names: str = METRICS_OPTION,
    ece_bins: int = ECE_BINS_OPTION,
    budgets: str = BUDGETS_OPTION,
    fail_under: Optional[list[str]] = FAIL_UNDER_OPTION,
    gates_file: Optional[str] = GATES_OPTION,
    no_data_passes: bool = NO_DATA_PASSES_OPTION,
    junit_path: Optional[str] = JUNIT_OPTION,
    html_path: Optional[str] = HTML_OPTION,
    suggest_thresholds: Optional[str] = SUGGEST_THRESHOLDS_OPTION,
    show_errors: int = SHOW_ERRORS_OPTION,
    ci: Optional[float] = CI_OPTION,
    bootstrap: int = BOOTSTRAP_OPTION,
    seed: int = SEED_OPTION,
    iou_thresholds: str = IOU_THRESHOLDS_OPTION,
    box_found: str = BOX_FOUND_OPTION,
    fdr: float = FDR_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Merge the states of sharded runs into one report, as if it had been one run; states that share documents
    are refused (exit 2) unless --allow-overlap."""
    from ..report import gates as quality_gates
    from ..run import state_file
    from ..run.accumulate import Analysis
    from ..report.build import build_report
    from ..reporters import json_report

    _use_limits(limit)
    _check_format(output_format)
    _check_ci(ci)
    _check_bootstrap(bootstrap)
    _check_fdr(fdr)
    metrics = _confidence_metrics(confidence_metric_names, ece_bins, budgets)
    boxes = _box_settings(iou_thresholds, box_found)
    plugin_files = _load_plugins(plugin)
    _llm_access(calls=False)  # re-explaining the worst documents sends nothing anywhere
    gates = quality_gates.collect(fail_under or [], gates_file)
    json_report.check_targets(json_report.with_step_summary(
        {"--output": output, "--save-state": save_state, "--junit": junit_path, "--html": html_path,
         "--suggest-thresholds": suggest_thresholds}),
        [*(("state file", path) for path in states), *plugin_files, *quality_gates.sources(gates_file)])
    evaluation = state_file.merge(states, plugin or [], Analysis(worst=max(Analysis.worst, show_errors),
                                                                 failures=limits.current().failures_per_field),
                                  allow_overlap)
    if ci is not None:
        state_file.check_documents(evaluation.accumulator, states)
        evaluation.ci_level, evaluation.bootstrap, evaluation.seed = ci, bootstrap, seed
    kept = evaluation.accumulator.worst_known
    if show_errors > kept:
        sys.stderr.write(f"stickler: warning: the states kept their {kept} worst documents each: "
                         f"--show-errors shows at most {kept} (give --show-errors to `stickler eval` too)\n")
    evaluation.confidence_metrics = metrics
    evaluation.iou_thresholds, evaluation.box_rule = boxes
    evaluation.slice_fdr = fdr
    if save_state:
        state_file.save(save_state, evaluation.accumulator)
    report = build_report(evaluation)
    notes = [_write_threshold_patch(suggest_thresholds, evaluation.plan, report)] if suggest_thresholds else []
    _emit(report, output_format, output, gates, junit_path, html_path, show_errors, notes, no_data_passes)


def _tool_table(name: str, shape: str, pyproject: str = "pyproject.toml") -> dict | None:
    """The working directory's ``[tool.stickler.NAME]`` table of ``shape`` entries; None when there is none."""
    if not Path(pyproject).is_file():
        return None
    import tomllib

    try:
        tool = tomllib.loads(Path(pyproject).read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{pyproject}: cannot read [tool.stickler.{name}]: {exc}") from None
    table = tool.get("stickler", {}).get(name) if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise UsageError(f"{pyproject}: [tool.stickler.{name}] must be a table of {shape}")
    return table


def _use_limits(items: list[str] | None) -> None:
    """Put the bounds in force: the defaults, raised by pyproject.toml's [tool.stickler.limits], then by --limit."""
    limits.use(limits.parse(items, _tool_table("limits", "NAME = VALUE")))


def _schema_resources(items: list[str] | None) -> dict[str, str]:
    """The URLs mapped to files: pyproject.toml's [tool.stickler.schema-resources], then --schema-resource."""
    from ..schema.registry import mapping

    table = _tool_table("schema-resources", '"URL" = "FILE"')
    return mapping(items, table, "pyproject.toml [tool.stickler.schema-resources]")


def _check_pairing(id_field: str | None, pair_by_line: bool, check_id: list[str] | None) -> None:
    if id_field is not None and not id_field.strip():
        raise UsageError("--id-field needs a field name (omit it to pair by line)")
    if id_field is not None and (pair_by_line or check_id):
        raise UsageError("--id-field pairs by id: --pair-by-line and --check-id are for pairing by line")
    if pair_by_line and check_id:
        raise UsageError("--pair-by-line turns the id check off; --check-id names the fields it compares: give one")
    for name in check_id or []:
        if not name.strip():
            raise UsageError("--check-id needs a field name")


def _warn_about_records(stats: dict[str, int | None], inputs: str) -> None:
    """What the record counts of a run warn of (reader.record_warnings), on stderr, naming the inputs."""
    from ..run.reader import record_warnings

    for warning in record_warnings(stats):
        sys.stderr.write(f"stickler: warning: {_printable(inputs)}: {warning}\n")


def _auto_workers(plan: Plan, total_bytes: int, cores: int | None = None) -> int:
    """All cores for large inputs on a machine of at least AUTO_WORKERS_MIN_CORES cores; else one,
    and always one for model-backed comparators (each process would load its own model)."""
    if total_bytes < AUTO_WORKERS_BYTES:  # most runs: the process pool's module is not even imported
        return 1
    from ..engine import Engine
    from ..run.parallel import available_cores

    cores = available_cores() if cores is None else cores
    if cores < AUTO_WORKERS_MIN_CORES or Engine(plan).model_backed:
        return 1
    return cores


def _emit(report: dict[str, Any], output_format: str, output: str | None,
          gates: list[Gate] | None = None, junit_path: str | None = None, html_path: str | None = None,
          show_errors: int = 0, notes: list[str] | None = None, no_data_passes: bool = False) -> None:
    """Check the gates, write every file asked for, print the report; exit 1 when a gate failed."""
    from ..report import gates as quality_gates
    from ..reporters import json_report, markdown

    report["gates"] = quality_gates.check(gates or [], report, no_data_passes)
    data = json_report.dumps(report)
    written: list[str] = []
    if output:
        json_report.write(output, data)
        written.append(f"JSON report written to {output}")
    if junit_path:
        from ..reporters import junit

        json_report.write(junit_path, junit.render_junit(report))
        written.append(f"JUnit XML written to {junit_path}")
    if html_path:
        from ..reporters.html import render_html

        json_report.write(html_path, render_html(report).encode())
        written.append(f"HTML report written to {html_path}")
    written.extend(notes or [])
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    shown = show_errors or markdown.WORST_SHOWN
    page = markdown.render_markdown(report, shown) if summary_file or output_format == "markdown" else ""
    if summary_file:
        _append(summary_file, page)
    with _printing():
        if output_format == "json":
            _print_json(data)
        elif output_format == "markdown":
            sys.stdout.write(page)
            sys.stdout.flush()
        else:
            from rich.text import Text

            from ..reporters import terminal
            from ..reporters.gate_table import render_gates

            console = _console()
            terminal.render_report(report, console)
            if show_errors:
                terminal.render_worst(report["worst_documents"][:show_errors], console)
            render_gates(report["gates"], console)
            for line in written:
                console.print(Text(line, style="dim"))
    _fail_gates(report["gates"], not report["document_count"], shown=output_format == "table")


def _print_json(data: bytes) -> None:
    with _printing():
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


@contextlib.contextmanager
def _printing() -> Iterator[None]:
    """Standard output that refuses data (a full disk behind a redirection) is a usage error, as
    for any file. A reader that closed the pipe (``| head``) has read what it wanted: printing stops
    there, and the exit code is still the gates' (1 would say a gate failed). Either way standard output
    is then pointed at /dev/null, so that Python's last flush stays quiet."""
    global _stdout_cut
    try:
        yield
    except BrokenPipeError:
        _stdout_cut = True
        _to_devnull(sys.stdout)
    except OSError as exc:
        _to_devnull(sys.stdout)
        raise UsageError(f"standard output: cannot write: {exc.strerror or exc}") from None


_stdout_cut = False  # set when a reader closed the pipe: what the tables said did not reach it


def _to_devnull(stream: Any) -> None:
    """Point ``stream``'s descriptor at /dev/null: what is still written to it, Python's last flush included,
    goes nowhere quietly."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def _console() -> Console:
    """Rich's console on standard output, except that a closed pipe is a BrokenPipeError for ``_printing``
    to take: Rich's own answer is SystemExit(1), the exit code of a failed gate."""
    from rich.console import Console

    console = Console()
    console.on_broken_pipe = _closed_pipe  # type: ignore[method-assign]
    return console


def _closed_pipe() -> NoReturn:
    raise BrokenPipeError(errno.EPIPE, "the reader closed standard output")


def _fail_gates(results: list[dict[str, Any]], empty: bool, shown: bool) -> None:
    """Exit 1 when a gate failed, saying how many failed for lack of data (and, in a run that scored something,
    that --no-data-passes lets such a gate pass); return when none failed."""
    from ..report.gates import failed, lack_of_data, no_data_hint

    bad = failed(results)
    if not bad:
        return
    hint = no_data_hint(results, empty)
    if hint:
        sys.stderr.write(f"stickler: note: {hint}\n")
    _fail(f"{len(bad)} quality gate(s) failed{lack_of_data(bad)}", shown)


def _fail(reason: str, shown: bool) -> NoReturn:
    """Exit 1 (a gate failed); the reason on stderr unless the tables on stdout already said it."""
    if not shown or _stdout_cut:
        sys.stderr.write(f"stickler: {reason}\n")
    raise typer.Exit(int(ExitCode.GATE_FAILED))


def _append(path: str, text: str) -> None:
    """Add to a file another tool owns (GitHub's step summary): never replace it."""
    from ..reporters.json_report import refuse_planted_links

    refuse_planted_links(path)
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(f"GITHUB_STEP_SUMMARY={path}: cannot append the Markdown summary: {exc.strerror or exc}") from None


@app.command("diff")
def diff_command(
    paths: list[str] = typer.Argument(
        ..., metavar="SCHEMA GT PRED_A PRED_B | STATE_A STATE_B",
        help="A schema, the ground truth and the predictions of A (the baseline) and B (the candidate); "
             "or two states saved by `stickler eval --ci LEVEL --save-state` on the same ground truth."),
    id_field: Optional[str] = ID_FIELD_OPTION,
    pair_by_line: bool = PAIR_BY_LINE_OPTION,
    check_id: Optional[list[str]] = CHECK_ID_OPTION,
    output_format: str = FORMAT_OPTION,
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE", rich_help_panel=OUTPUTS,
                                         help="Also write the JSON diff report to this file."),
    junit_path: Optional[str] = typer.Option(None, "--junit", metavar="FILE", rich_help_panel=OUTPUTS,
                                             help="Also write JUnit XML here: a test case per watched figure, "
                                                  "failing when B is significantly worse on it."),
    html_path: Optional[str] = typer.Option(None, "--html", metavar="FILE", rich_help_panel=OUTPUTS,
                                            help="Also write a self-contained HTML page of every comparison here."),
    level: float = typer.Option(0.95, "--ci", metavar="LEVEL", rich_help_panel=STATISTICS, help="Confidence level of the intervals; significance is p < 1 - LEVEL."),
    bootstrap: int = BOOTSTRAP_OPTION,
    seed: int = SEED_OPTION,
    metric: Optional[list[str]] = typer.Option(
        None, "--metric", metavar="KEY", rich_help_panel=GATES, help="Figures --fail-on-regression watches, as gates name them (repeatable; "
                               "default: weighted_overall_score and '*.cm_f1')."),
    fail_on_regression: bool = typer.Option(False, "--fail-on-regression", rich_help_panel=GATES,
                                            help="Exit 1 when B is significantly worse than A on a watched figure."),
    strict: bool = STRICT_OPTION,
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    assert_formats: bool = ASSERT_FORMATS_OPTION,
    llm_base_url: Optional[str] = LLM_BASE_URL_OPTION,
    llm_api_key_env: Optional[str] = LLM_KEY_ENV_OPTION,
    allow_network: Optional[list[str]] = ALLOW_NETWORK_OPTION,
    llm_cache: Optional[str] = LLM_CACHE_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Compare two prediction sets on the same ground truth: differences, intervals, p-values, the documents B
    made worse and better, and each side's record problems."""
    from ..report import diff
    from ..run import state_file
    from ..run.accumulate import Analysis
    from ..schema.compiler import check_ready
    from ..run.evaluate import evaluate_two, pairing_for
    from ..run.reader import STDIN, check_readable
    from ..reporters import json_report

    _use_limits(limit)
    _check_pairing(id_field, pair_by_line, check_id)
    _check_format(output_format)
    _check_ci(level)
    _check_bootstrap(bootstrap)
    plugin_files = _load_plugins(plugin)
    _llm_access(llm_base_url, llm_api_key_env, allow_network, llm_cache)
    targets = json_report.with_step_summary({"--output": output, "--junit": junit_path, "--html": html_path,
                                             "--llm-cache": llm_cache})
    if len(paths) not in (2, 4):
        raise UsageError(f"diff takes SCHEMA GT PRED_A PRED_B, or STATE_A STATE_B; got {len(paths)} arguments")
    if paths.count(STDIN) > 1 or (len(paths) == 2 and STDIN in paths):
        raise UsageError("standard input ('-') can be one of the ground truth and the prediction files, once")
    if (bootstrap + 1) * (1 - level) <= 1:
        raise UsageError(f"with --bootstrap {bootstrap}, no p-value can go below 1/{bootstrap + 1}, so nothing could be "
                         f"significant at --ci {level:g}: give more resamples")
    check_readable(*paths)
    watched = tuple(metric or diff.DEFAULT_WATCHED)
    if len(paths) == 2:
        if schema_resource or assert_formats:
            raise UsageError("--schema-resource and --assert-formats apply to a schema: two states carry theirs")
        json_report.check_targets(targets, [*(("state file", p) for p in paths), *plugin_files])
        runs = [state_file.merge([path], plugin or [], Analysis(worst=0)) for path in paths]
        diff.check_same_documents(runs[0], runs[1], paths)
    else:
        schema, ground_truth, predictions_a, predictions_b = paths
        plan = _scoring_plan(schema, schema_resource, assert_formats, paths[1:],
                             "SCHEMA GROUND_TRUTH PREDICTIONS_A PREDICTIONS_B")
        check_ready(plan)
        json_report.check_targets(targets, [
            *_schema_files(plan), ("ground truth", ground_truth), ("predictions of A", predictions_a),
            ("predictions of B", predictions_b), *plugin_files])
        pairing = pairing_for(plan, id_field, strict, pair_by_line, check_id)
        runs = list(evaluate_two(plan, ground_truth, predictions_a, predictions_b,
                                 analysis=Analysis(worst=0, documents=True), pairing=pairing))
        _warn_about_records(runs[0].accumulator.stats, f"{ground_truth}, {predictions_a}")
        # The ground truth was read twice: its own warnings are given once.
        _warn_about_records({**runs[1].accumulator.stats, "gt_with_confidence": 0, "gt_lines": None},
                            f"{ground_truth}, {predictions_b}")
    report = diff.compare(runs[0], runs[1], level, bootstrap, seed, watched)
    _emit_diff(report, output_format, output, junit_path, html_path)
    if fail_on_regression and not report["document_count"]:
        _fail("no document was compared: nothing shows that B is not worse", shown=False)
    if fail_on_regression and report["regressions"]:
        _fail(_printable(diff.verdict(report)), shown=output_format == "table")


def _emit_diff(report: dict[str, Any], output_format: str, output: str | None, junit_path: str | None,
               html_path: str | None) -> None:
    """Write every file asked for, append the Markdown to $GITHUB_STEP_SUMMARY, print the diff."""
    from rich.text import Text

    from ..reporters import json_report, junit, markdown, terminal

    data = json_report.dumps(report)
    if output:
        json_report.write(output, data)
    if junit_path:
        json_report.write(junit_path, junit.render_diff_junit(report))
    if html_path:
        from ..reporters.html import render_diff_html

        json_report.write(html_path, render_diff_html(report).encode())
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        _append(summary_file, markdown.render_diff_markdown(report))
    with _printing():
        if output_format == "json":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        elif output_format == "markdown":
            sys.stdout.write(markdown.render_diff_markdown(report))
            sys.stdout.flush()
        else:
            console = _console()
            terminal.render_diff(report, console)
            for flag, path in (("JUnit XML", junit_path), ("HTML page", html_path)):
                if path:
                    console.print(Text(f"{flag} written to {path}", style="dim"))


@app.command("compare")
def compare_command(
    schema: str = typer.Argument(..., help="JSON Schema with x-aws-stickler-* annotations."),
    ground_truth: str = typer.Argument(..., help="Ground truth: JSON text, a .json file, or a JSON Lines file "
                                                 "(- for standard input) with --id or --line."),
    prediction: str = typer.Argument(..., help="Prediction: JSON text, a .json file, or a JSON Lines file "
                                               "(- for standard input) with --id or --line."),
    record_id: Optional[str] = typer.Option(
        None, "--id", metavar="VALUE", rich_help_panel=INPUTS,
        help="Compare the records whose document id is VALUE (in --id-field, else in the first of doc_id, "
             "document_id, id, file, ... each record has)."),
    id_field: Optional[str] = typer.Option(None, "--id-field", metavar="FIELD", rich_help_panel=INPUTS,
                                           help="The field --id is looked up in."),
    line: Optional[int] = typer.Option(None, "--line", min=1, metavar="N", rich_help_panel=INPUTS,
                                       help="Compare line N of each file (blank lines counted, as eval counts them)."),
    output_format: str = TABLE_OR_JSON_OPTION,
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    llm_base_url: Optional[str] = LLM_BASE_URL_OPTION,
    llm_api_key_env: Optional[str] = LLM_KEY_ENV_OPTION,
    allow_network: Optional[list[str]] = ALLOW_NETWORK_OPTION,
    llm_cache: Optional[str] = LLM_CACHE_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Compare one pair and explain every field's score and classification.

    The pair is given as two JSON objects, or chosen from two JSON Lines files by --id or --line.
    """

    from ..analyses.failures import not_shown, row
    from ..schema.compiler import check_ready
    from ..run.compare_input import Selector, choose_pair, id_disagreement
    from ..engine import Engine
    from ..engine.values import adopt_older_shape
    from ..reporters import json_report, terminal

    _use_limits(limit)
    _check_format(output_format, TABLE_OR_JSON)
    selector = Selector(line, record_id, id_field)
    selector.check()
    _load_plugins(plugin)
    _llm_access(llm_base_url, llm_api_key_env, allow_network, llm_cache)
    plan = _scoring_plan(schema, schema_resource, others=[ground_truth, prediction],
                         order="SCHEMA GROUND_TRUTH PREDICTION")
    check_ready(plan)
    gt, pred = choose_pair(ground_truth, prediction, selector)
    if selector.line is not None and (disagreement := id_disagreement(gt, pred)):
        sys.stderr.write(f"stickler: warning: {_printable(disagreement)}\n")
    older = sum(adopt_older_shape(plan.root, chosen.record) > 0 for chosen in (gt, pred))
    _warn_about_records({"older_shape_records": older}, f"{ground_truth}, {prediction}")
    result = Engine(plan).compare(gt.record, pred.record, explain=True)
    if output_format == "json":
        # The report's comparison rows, "type" named "result" as this output always had it.
        rows = [{("result" if key == "type" else key): value for key, value in row(r).items()}
                for r in result.trace or []]
        payload = {"score": result.score, "field_scores": result.field_scores, "comparisons": rows,
                   "errors": result.errors, "inputs": {"ground_truth": gt.as_dict(), "prediction": pred.as_dict()}}
        beyond = not_shown(result.trace.more)  # past --limit explain-items
        if beyond is not None:
            payload["comparisons_not_shown"] = beyond
        sys.stdout.buffer.write(json_report.dumps(payload))
        return
    console = _console()
    if gt.line is not None or pred.line is not None:
        console.print(terminal.safe(f"{gt.where()} against {pred.where()}", 2 * terminal.NAME_LIMIT), style="dim")
    terminal.render_trace(result.score, result.field_scores, result.trace or [], console, result.trace.not_shown)
    for message in result.errors:
        console.print(terminal.safe(f"error: {message}", limit=400), style="yellow")


def _non_matches_note(written: Any) -> str:
    """What --non-matches wrote (a json_report.LineWriter), and how many more its documents had past
    --limit explain-items (each such document's last line counts them)."""
    note = f"{written.count} non-matching comparisons written to {written.path}"
    if written.not_shown:
        note += f", and {written.not_shown:,} more counted there, not written (--limit explain-items)"
    return note


@app.command("split")
def split_command(
    paths: list[str] = typer.Argument(
        ..., metavar="GT.jsonl PRED.jsonl | PAGES.csv",
        help="Packets of sections as JSON Lines (ground truth, predictions; paired by packet_id), or one "
             "page-table CSV (group_id, group_id_predicted, page_number, page_number_predicted[, class_label, "
             "class_label_predicted][, packet_id])."),
    output_format: str = FORMAT_OPTION,
    output: Optional[str] = OUTPUT_OPTION,
    junit_path: Optional[str] = typer.Option(None, "--junit", metavar="FILE", rich_help_panel=OUTPUTS,
                                             help="Also write JUnit XML here: a test case per gate and per figure."),
    html_path: Optional[str] = HTML_OPTION,
    fail_under: Optional[list[str]] = typer.Option(
        None, "--fail-under", metavar="METRIC=VALUE", rich_help_panel=GATES,
        help="Exit 1 when a figure is below VALUE: page_accuracy, split_accuracy_without_order, "
             "split_accuracy_with_order, v_measure, rand_index, clustering_score, ordering_score, "
             "packet_score. Repeatable."),
    no_data_passes: bool = NO_DATA_PASSES_OPTION,
    worst: int = typer.Option(5, "--worst", min=0, metavar="N", rich_help_panel=OUTPUTS,
                              help="List the N worst packets (by packet score)."),
    alpha: float = typer.Option(0.5, "--alpha", metavar="W", help="Weight of clustering in the packet score."),
    beta: float = typer.Option(0.5, "--beta", metavar="W", help="Weight of ordering in the packet score."),
    v_measure_weight: float = typer.Option(0.5, "--v-measure-weight", metavar="W",
                                           help="Weight of V-measure against Rand index in clustering, in [0, 1]."),
    strict_clustering: bool = typer.Option(False, "--strict-clustering",
                                           help="A misclassified page gets no clustering credit."),
    max_pages: Optional[int] = typer.Option(None, "--max-pages", min=1, metavar="N", rich_help_panel=LIMITS,
                                            help="Pages one packet may hold (default 10,000)."),
    limit: Optional[list[str]] = LIMIT_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Score how packets of pages were split into documents and classified (the DocSplit metrics)."""
    import math

    from ..run import packets as packet_reader
    from ..report import packets as packet_report
    from ..packets.metrics import Weights
    from ..run.reader import STDIN, check_readable
    from ..reporters import json_report
    from ..reporters.packets import render_markdown

    _use_limits(limit)
    _check_format(output_format)
    gates = [packet_report.parse_gate(text) for text in fail_under or []]
    weights = Weights(alpha, beta, v_measure_weight, strict_clustering)
    try:
        weights.check()
    except ValueError as exc:
        raise UsageError(f"--alpha/--beta/--v-measure-weight: {exc}") from None
    if not math.isclose(alpha + beta, 1.0):
        sys.stderr.write(f"stickler: warning: --alpha + --beta = {alpha + beta:g}, not 1: packet scores leave "
                         "their range [-0.5, 1]\n")
    is_table = len(paths) == 1 and paths[0].lower().endswith(".csv")
    if not is_table and len(paths) != 2:
        raise UsageError(f"split takes GT.jsonl PRED.jsonl, or one PAGES.csv; got {len(paths)} argument(s)")
    if paths.count(STDIN) > 1:
        raise UsageError("standard input ('-') can be one of the two files, once")
    check_readable(*paths)
    json_report.check_targets(json_report.with_step_summary({"--output": output, "--junit": junit_path,
                                                             "--html": html_path}),
                              [(what, p) for what, p in zip(("ground truth", "predictions"), paths)])
    pages = max_pages or packet_reader.MAX_PAGES_PER_PACKET
    reading = packet_reader.Reading()
    if is_table:
        pairs = packet_reader.read_page_table(paths[0], reading, pages)
    else:
        pairs = packet_reader.read_pairs(paths[0], paths[1], reading, pages)
    report = {"tool": {"name": "stickler split", "version": __version__}, "source": paths[0],
              "inputs": {"form": "page table" if is_table else "sections", "files": list(paths),
                         "max_pages": pages}}
    report.update(packet_report.build(pairs, reading, weights, worst))
    report["gates"] = packet_report.check_gates(gates, report, no_data_passes)
    data = json_report.dumps(report)
    if output:
        json_report.write(output, data)
    if junit_path:
        from ..reporters import junit

        json_report.write(junit_path, junit.render_split_junit(report))
    if html_path:
        from ..reporters.html import render_split_html

        json_report.write(html_path, render_split_html(report).encode())
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    markdown = render_markdown(report, worst) if summary_file or output_format == "markdown" else ""
    if summary_file:
        _append(summary_file, markdown)
    with _printing():
        if output_format == "json":
            sys.stdout.buffer.write(data)
        elif output_format == "markdown":
            sys.stdout.write(markdown)
        else:
            from rich.text import Text

            from ..reporters.packets import render_terminal

            console = _console()
            render_terminal(report, console, worst)
            for what, path in (("JSON report", output), ("JUnit XML", junit_path), ("HTML report", html_path)):
                if path:
                    console.print(Text(f"{what} written to {path}", style="dim"))
        sys.stdout.flush()
    _fail_gates(report["gates"], not report["packet_count"], shown=output_format == "table")


@schema_app.command("check")
def schema_check(
    schema: str = typer.Argument(..., help="Schema file to validate."),
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
    that this installation cannot check is a warning too.
    """
    from rich.text import Text

    from ..reporters import terminal
    from ..schema import load_schema
    from ..schema.keywords import unknown_keywords

    _use_limits(limit)
    _load_plugins(plugin)
    try:
        plan = load_schema(schema, _schema_resources(schema_resource), assert_formats)
    except SchemaError:
        if _json_lines_records(schema) > 1:  # only once it failed: a good schema pays nothing
            raise UsageError(f"{_printable(schema)} looks like JSON Lines, not a schema: `stickler schema check "
                             "SCHEMA` checks a schema (`stickler schema infer` infers one from data)") from None
        raise
    unknown = sorted(unknown_keywords(plan.schema))
    for pointer, key, meant in unknown:
        if meant:
            raise SchemaError(f"unknown keyword {key!r} (did you mean {meant!r}?)", pointer, schema)
    for pointer, key, _ in unknown:
        sys.stderr.write(f"stickler: warning: {_printable(schema)}: {_printable(pointer)}: "
                         f"unknown keyword {_printable(key)!r} is ignored\n")
    _warn_unread(schema, plan)
    if assert_formats:
        from ..schema.conformance import unchecked_formats

        for pointer, name in unchecked_formats(plan):
            sys.stderr.write(f"stickler: warning: {_printable(schema)}: {_printable(pointer)}: format "
                             f"{_printable(name)!r} is not checked here (jsonschema knows no checker for it, or "
                             "the package it needs is not installed)\n")
    console = _console()
    console.print(terminal.safe(f"{schema}: OK — model {plan.model_name}, {len(plan.fields)} fields", 400))
    from ..reporters.fit import Column, fit

    rows = []
    for f in plan.fields:
        rows.append([
            Text("  " * f.path.count(".")) + terminal.safe(f.key, terminal.NAME_LIMIT), f.kind.value,
            terminal.safe((f.comparator_name or "fields").removesuffix("Comparator"), 60) + ("*" if f.inferred else ""),
            f"{f.deciding_threshold:g}", f"{f.weight:g}", "yes" if f.clip else "no",
        ])
    columns = [Column("Kind", "left"), Column("Comparator", "left"), Column("Threshold"), Column("Weight"),
               Column("Clip", "left")]
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
    console.print(Text(f"* inferred from the name and type ({len(inferred)} field{'s' * (len(inferred) != 1)}), and why:"))
    for f in inferred:
        line = f"{terminal.safe(f.path, terminal.NAME_LIMIT).plain}: {f.inferred}"
        for part in textwrap.wrap(line, width=max(console.width, 40), initial_indent="  ", subsequent_indent="    ",
                                  break_on_hyphens=False):
            console.print(Text(part), overflow="fold")


@schema_app.command("infer")
def schema_infer(
    ground_truth: str = typer.Argument(..., help="Ground-truth JSONL (.gz, a .json array too; - for standard input)."),
    predictions: Optional[str] = typer.Argument(
        None, help="Predictions JSONL: notes where they differ from the ground truth, which alone chooses the "
                   "types and comparators."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE",
                                         help="Write the schema here instead of standard output."),
    limit: Optional[list[str]] = LIMIT_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Infer an annotated schema from the data: each field's type, comparator and threshold, with why.

    The ground truth chooses; notes on what looked doubtful (mixed types, only nulls, only empty lists,
    lines that are not objects, predictions that differ from the ground truth) go to stderr.
    `stickler schema check` passes on the output; edit it, then evaluate with it.
    """
    from ..run.reader import STDIN, check_readable
    from ..reporters import json_report
    from ..schema import compile_schema

    _use_limits(limit)
    if predictions is not None and STDIN in (ground_truth, predictions) and ground_truth == predictions:
        raise UsageError("standard input ('-') can be read once: give one of the two as a file")
    files = [p for p in (ground_truth, predictions) if p is not None]
    check_readable(*files)
    json_report.check_targets({"--output": output}, [("input", p) for p in files])
    try:
        inferred, notes = _infer([(p, [p]) for p in files])
    except InputError:
        if found := next((p for p in files if _looks_like_schema(p)), None):  # only once it failed
            raise UsageError(f"{_printable(found)} looks like a schema: schema infer takes GROUND_TRUTH "
                             "[PREDICTIONS], the data to infer a schema from") from None
        raise
    compile_schema(inferred.schema, source="<inferred>")  # what is written compiles: `schema check` passes
    data = json_report.dumps(inferred.schema)
    for note in notes:
        sys.stderr.write(f"stickler: note: {_printable(note)}\n")
    if output:
        json_report.write(output, data)
        sys.stderr.write(f"stickler: schema of {len(inferred.schema['properties'])} top-level fields inferred from "
                         f"{inferred.records:,} records written to {_printable(output)}\n")
    else:
        _print_json(data)


@app.command("comparators")
def comparators_command(
    output_format: str = TABLE_OR_JSON_OPTION,
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """List every comparator (built-in and plugin) with its options and defaults."""
    import orjson

    from .. import comparators
    from ..reporters import terminal

    _check_format(output_format, TABLE_OR_JSON)
    _load_plugins(plugin)
    catalogue = comparators.catalogue()
    if output_format == "json":
        sys.stdout.buffer.write(orjson.dumps(catalogue, option=orjson.OPT_INDENT_2, default=repr) + b"\n")
        return
    terminal.render_comparators(catalogue, _console())


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run the app and map errors to exit codes. SIGINT, SIGTERM and
    SIGHUP stop the run cleanly (interrupts.py): exit 128 + the signal number, one line."""
    global _stdout_cut
    args = list(sys.argv[1:] if argv is None else argv)
    stdout, stderr = sys.stdout, sys.stderr
    # A stream closed before the run (`>&-`, `2>&-`) is None to Python: the run goes on, writing it nowhere.
    closed = [open(os.devnull, "w") for stream in (stdout, stderr) if stream is None]
    if stdout is None:
        sys.stdout, _stdout_cut = closed[0], True
    sys.stderr = _ClosedTolerant(stderr if stderr is not None else closed[-1])  # type: ignore[assignment]
    try:
        with interrupts.handling():
            try:
                return _run(args)
            except interrupts.Interrupted as exc:
                from ..reporters import json_report

                json_report.remove_temporaries()
                sys.stderr.write(f"stickler: interrupted by {exc.name}\n")
                return exc.exit_code
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        for devnull in closed:
            devnull.close()


class _ClosedTolerant:
    """Standard error for a run: a reader that closed it (``2>&1 | head``) hears no more, and the run goes on.
    A warning written to it raised BrokenPipeError, which click answers with exit 1 and ``_run`` took for a
    closed standard output (exit 0): the run stopped before writing its reports and passed."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._closed()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed()

    def _closed(self) -> None:
        _to_devnull(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _app_for(args: list[str]) -> typer.Typer:
    """The app as ``args`` need it. typer builds the parameters of every command it holds on each call
    (signatures, type hints: 10-15 ms for all of them), so a command named first is built alone. When no
    argument names a command, none can run: the help page and the usage errors only list the commands, so
    each is given as a ``_listing`` (its name and help, no parameters). Anything else (an option before the
    command) gets the whole app. The copies keep the root callback (``_root``), which is what makes typer
    build a group even of one command, so the first word is still read as the command's name."""
    name = args[0] if args else None
    commands = [c for c in app.registered_commands if c.name == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not (commands or groups):
        named = {c.name for c in app.registered_commands} | {g.name for g in app.registered_groups}
        return app if named.intersection(args) else _listing(app)
    alone = copy.copy(app)
    alone.registered_commands, alone.registered_groups = commands, groups
    return alone


def _listing(full: typer.Typer) -> typer.Typer:
    """A copy of ``full`` whose commands (its groups' too) keep their names, help and flags, with callbacks
    that take no parameters and are never called."""
    listed = copy.copy(full)
    listed.registered_commands = []
    for command in full.registered_commands:
        stub = copy.copy(command)
        stub.callback = _never_called
        stub.help = command.help if command.help is not None else inspect.getdoc(command.callback)
        listed.registered_commands.append(stub)
    listed.registered_groups = []
    for group in full.registered_groups:
        stub_group = copy.copy(group)
        stub_group.typer_instance = _listing(group.typer_instance)
        listed.registered_groups.append(stub_group)
    return listed


def _never_called() -> None:
    raise AssertionError("a listed command was run: cli._app_for must give the whole app when a command is named")


def _run(args: list[str]) -> int:
    debug = "--debug" in args
    try:
        code = _app_for(args)(args=args, prog_name="stickler", standalone_mode=False)  # typer.Exit(n) returns n
        sys.stdout.flush()  # a full disk behind a redirection shows here at the latest
    except interrupts.Interrupted:
        raise
    except SticklerError as exc:
        if debug:
            raise
        _error(str(exc))
        return int(exc.exit_code)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.Abort:
        _error("aborted")
        return int(ExitCode.USAGE_ERROR)
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:
        _to_devnull(sys.stdout)
        return 0
    except SystemExit as exc:  # click's answer to a closed pipe (gates end a run by typer.Exit, never this way)
        return 0 if exc.code == 1 else exc.code if isinstance(exc.code, int) else 0
    except Exception as exc:
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):  # a usage error found by click: one line, as ours
            ctx, message = getattr(exc, "ctx", None), exc.format_message()
            if message:
                _error(f"{message} (see '{ctx.command_path if ctx else 'stickler'} --help')")
            else:  # a group named without a command: its help page is the answer
                exc.show()
            return int(ExitCode.USAGE_ERROR)
        if interrupts.received() is not None:  # a failure the signal caused (a worker it ended)
            raise interrupts.Interrupted(interrupts.received() or 0) from None
        if isinstance(exc, OSError) and _stdout_refuses(exc):  # a full disk behind a redirection: as for any file
            _error(f"standard output: cannot write: {exc.strerror or exc}")
            return int(ExitCode.USAGE_ERROR)
        if debug:
            raise
        _error(f"internal error: {type(exc).__name__}: {exc} (run again with --debug for the traceback)")
        return int(ExitCode.INTERNAL_ERROR)
    return code if isinstance(code, int) else 0


_DISK_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def _stdout_refuses(exc: OSError) -> bool:
    """Whether ``exc`` is standard output refusing data (a full disk behind a redirection): every
    file stickler writes itself reports its own failures, so a disk-full error that reaches here was
    stdout's. Standard output is then pointed at /dev/null, so that Python's last flush stays quiet."""
    if exc.errno not in _DISK_FULL:
        return False
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return True


def _error(message: str) -> None:
    sys.stderr.write(f"stickler: error: {_printable(message)}\n")


def _printable(text: str) -> str:
    """One line of inert text: messages quote the schema and the data."""
    from ..reporters.sanitize import safe

    return safe(text, 2000).plain


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
