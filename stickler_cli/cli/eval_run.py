"""What `stickler eval` does once its options are read: score predictions against ground truth, report, and gate.

The options arrive as one ``EvalArgs``, from typer (cli/eval.py, the command as its help page declares it) or
from cli/light.py (the same options read without typer, for the JSON and Markdown outputs). Nothing here imports
typer or Rich: the terminal's tables and progress bar import Rich where they are drawn.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..errors import UsageError
from .inputs import infer_from, looks_like_schema, schema_files, scoring_plan, warn_about_records
from .option_values import (
    check_bootstrap,
    check_ci,
    check_fdr,
    check_format,
    check_policy_options,
    collect_option,
    llm_access,
    load_plugins,
    pairing_option,
    report_options,
    run_options,
    slice_paths,
    use_limits,
    with_policy,
    workers_option,
)
from .output import emit_report, printable, write_policy, write_threshold_patch

if TYPE_CHECKING:
    from ..plan import Plan


@dataclass(frozen=True)
class EvalArgs:
    """The options of ``stickler eval``, one field per parameter of ``eval.eval_command`` (same name, same
    default: tests/cli/test_light.py holds them equal)."""

    schema: Optional[str] = None
    ground_truth: Optional[str] = None
    predictions: Optional[str] = None
    id_field: Optional[str] = None
    pair_by_line: bool = False
    check_id: Optional[list[str]] = None
    output_format: str = "table"
    output: Optional[str] = None
    strict: bool = False
    plugin: Optional[list[str]] = None
    confidence_metric_names: str = "auroc,brier_score,ece,error_capture_at_budget"
    ece_bins: int = 10
    budgets: str = "0.1,0.3,0.5"
    workers: Optional[int] = None
    save_state: Optional[str] = None
    dask: Optional[str] = None
    show_progress: bool = True
    fail_under: Optional[list[str]] = None
    gates_file: Optional[str] = None
    no_data_passes: bool = False
    junit_path: Optional[str] = None
    html_path: Optional[str] = None
    suggest_thresholds: Optional[str] = None
    show_errors: int = 0
    non_matches: Optional[str] = None
    per_document: Optional[str] = None
    save_schema: Optional[str] = None
    ci: Optional[float] = None
    bootstrap: int = 1000
    seed: int = 0
    iou_thresholds: str = "0.5:0.95:0.05"
    box_found: str = "value-and-iou"
    slice_by: Optional[list[str]] = None
    fdr: float = 0.05
    limit: Optional[list[str]] = None
    schema_resource: Optional[list[str]] = None
    assert_formats: bool = False
    llm_base_url: Optional[str] = None
    llm_api_key_env: Optional[str] = None
    allow_network: Optional[list[str]] = None
    llm_cache: Optional[str] = None
    dry_run: bool = False
    judge_pairing: str = "full"
    debug: bool = False
    # issue 41, baseline
    save_baseline: Optional[str] = None
    baseline: Optional[str] = None
    baseline_any_schema: bool = False
    fail_on_regression: bool = False
    # issue 41, policy
    target_precision: Optional[list[str]] = None
    policy_level: float = 0.95
    write_policy: Optional[str] = None
    policy: Optional[str] = None
    # issue 42, item 4: the noise ceiling
    ceiling: Optional[str] = None


def run_eval(args: EvalArgs) -> None:
    """Evaluate predictions against ground truth; print tables, JSON or Markdown; exit 1 when a gate fails."""
    from ..report import gates as quality_gates

    use_limits(args.limit)
    check_format(args.output_format)
    gates = quality_gates.collect(args.fail_under or [], args.gates_file)
    outcome = evaluate(args, gates)
    if outcome is None:  # a dry run: its bill is printed
        return
    emit_report(
        outcome.report,
        args.output_format,
        outcome.targets,
        gates,
        args.show_errors,
        outcome.notes,
        args.no_data_passes,
        args.fail_on_regression,
    )


@dataclass
class Outcome:
    """What a run of ``evaluate`` leaves to print: the report, the notes on the files it wrote, and the files the
    report's outputs go to (by option)."""

    report: dict[str, Any]
    notes: list[str]
    targets: dict[str, Optional[str]]


def evaluate(
    args: EvalArgs,
    gates: list[Any],
    what: str = "SCHEMA GROUND_TRUTH PREDICTIONS",
    spelled: Callable[[str], str] = str,
) -> Optional[Outcome]:
    """The run of ``stickler eval`` and of the pytest plugin's ``stickler.eval`` (cli/pytest_plugin.py): the
    options checked, the inputs read and checked, the run, the files it writes (state, rows, baseline, policy,
    thresholds) and the report with its baseline and ceiling blocks. ``gates`` are checked against the plan
    before the run; the limits are the caller's (``use_limits``). None after a dry run, which prints its bill.
    ``what`` names the three inputs in a schema's error messages, ``spelled`` the options of the files to write
    in theirs (``--save-baseline`` is the plugin's ``save_baseline=``)."""
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

    pairing = pairing_option(args.id_field, args.strict, args.pair_by_line, args.check_id)
    check_ci(args.ci)
    check_bootstrap(args.bootstrap)
    check_fdr(args.fdr)
    check_policy_options(args.target_precision, args.policy_level, args.write_policy, args.policy)
    schema, ground_truth, predictions = args.schema, args.ground_truth, args.predictions
    if schema is None or ground_truth is None:  # not "missing argument 'ground_truth'" when the data is what lacks
        given = "" if schema is None else f" (given only {printable(schema)!r})"
        raise UsageError(
            f"eval needs the ground truth and the predictions: stickler eval [SCHEMA] GROUND_TRUTH PREDICTIONS{given}"
        )
    inferring = predictions is None  # GT PRED: no schema given, one is inferred from the data
    if inferring:
        schema, ground_truth, predictions = "", schema, ground_truth
    _check_inferring(inferring, ground_truth, predictions, args.save_schema, args.schema_resource)
    reporting = report_options(
        args.confidence_metric_names,
        args.ece_bins,
        args.budgets,
        args.iou_thresholds,
        args.box_found,
        args.ci,
        args.bootstrap,
        args.seed,
        args.fdr,
    )
    plugin_files = load_plugins(args.plugin)
    llm = llm_access(args.llm_base_url, args.llm_api_key_env, args.allow_network, args.llm_cache)
    shards = resolve_shards(ground_truth, predictions)
    inputs = [p for shard in shards for p in (shard.ground_truth, shard.predictions)]
    if args.dask and STDIN in inputs:
        raise UsageError("--dask reads files on the cluster: standard input ('-') cannot be sent there")
    read_too = [p for p in (args.baseline, args.ceiling) if p]
    check_readable(*([] if inferring else [schema]), *inputs, *read_too)
    if (args.fail_on_regression or args.baseline_any_schema) and not args.baseline:
        raise UsageError("--fail-on-regression and --baseline-any-schema compare with a baseline: give --baseline FILE")
    if inferring:
        plan = _inferred_plan(
            shards,
            ground_truth,
            predictions,
            None if args.dry_run else args.save_schema,
            args.assert_formats,
            [*inputs, *(p for _, p in plugin_files)],
        )
    else:
        plan = scoring_plan(
            schema,
            args.schema_resource,
            args.assert_formats,
            [ground_truth, predictions],
            what,
        )
    check_ready(plan, install=not args.dry_run)  # a dry run resolves the judges' settings, opens nothing
    data_files = [
        (what, path)
        for shard in shards
        for what, path in (("ground truth", shard.ground_truth), ("predictions", shard.predictions))
    ]
    targets = {
        "--output": args.output,
        "--save-state": args.save_state,
        "--junit": args.junit_path,
        "--html": args.html_path,
        "--suggest-thresholds": args.suggest_thresholds,
        "--non-matches": args.non_matches,
        "--per-document": args.per_document,
        "--llm-cache": args.llm_cache,
        "--save-baseline": args.save_baseline,
        "--write-policy": args.write_policy,
    }
    atomic.check_targets(
        atomic.with_step_summary({spelled(option): path for option, path in targets.items()}),
        [
            *schema_files(plan),
            *data_files,
            *plugin_files,
            *quality_gates.sources(args.gates_file),
            *([("baseline", args.baseline)] if args.baseline else []),
            *([("policy", args.policy)] if args.policy else []),
            *([("agree report", args.ceiling)] if args.ceiling else []),
        ],
    )
    held_to = read_baseline(args, plan)  # a bad baseline, or one of another schema, is refused before the run
    ceiling = read_ceiling(args.ceiling, plan)  # so is a bad agree report, or one of other fields
    quality_gates.check_paths(gates, plan)  # a gate naming no field is found now, not after the run
    reporting = with_policy(reporting, args.target_precision, args.policy_level, args.policy, plan, gates)
    if args.dry_run:
        from . import dry_run as dry

        reading = dry.Reading(plan)
        counts, documents = dry.count(plan, dry.read(plan, shards, pairing, ground_truth, reading), args.judge_pairing)
        asked = {**targets, "--save-schema": args.save_schema}
        not_written = [f"{name} {path}" for name, path in asked.items() if path and name != "--llm-cache"]
        dry.report(counts, documents, reading.problems, args.output_format, not_written)
        return None
    total_bytes = sum(file_size(s.ground_truth) for s in shards)
    options = run_options(
        pairing,
        workers_option(args.workers, args.dask, plan, total_bytes),
        args.dask,
        args.plugin,
        llm,
        collect_option(
            args.show_errors,
            targets,
            args.ci,
            slice_paths(args.slice_by, gates),
            reporting.policy is not None,
            bool(args.save_baseline or args.baseline),
        ),
        args.judge_pairing,
    )
    files = {ROWS_NON_MATCHES: args.non_matches, ROWS_PER_DOCUMENT: args.per_document}
    with contextlib.ExitStack() as stack:
        sinks = {kind: stack.enter_context(atomic.LineWriter(path)) for kind, path in files.items() if path}
        progress = stack.enter_context(progress_bar(total_bytes, args.show_progress and not args.dask))
        evaluation = evaluate_files(plan, shards, options=options, progress=progress, sinks=sinks)
    warn_about_records(evaluation.accumulator.stats, ground_truth)
    if args.save_state:
        state_file.save(args.save_state, evaluation.accumulator)
    notes = [_non_matches_note(sinks[ROWS_NON_MATCHES])] if args.non_matches else []
    if args.per_document:
        notes.append(f"{sinks[ROWS_PER_DOCUMENT].count} documents written to {args.per_document}")
    if args.save_baseline:
        from ..report import baseline as baselines

        atomic.write(args.save_baseline, baselines.build(evaluation))
        notes.append(f"Baseline of {evaluation.accumulator.document_count} documents written to {args.save_baseline}")
    report = build_report(evaluation, reporting)
    if held_to is not None:
        report["baseline"] = compare_with_baseline(args, evaluation, held_to)
    if ceiling is not None:
        from ..report.ceiling import block

        report["ceiling"] = block(ceiling, plan, report["field_metrics"])
    if "slices" in report:  # the report's warnings hold these too
        from ..report.slices import unheld_paths

        for warning in unheld_paths(report["slices"], [f.path for f in plan.fields]):
            sys.stderr.write(f"stickler: warning: {printable(warning)}\n")
    if args.suggest_thresholds:
        notes.append(write_threshold_patch(args.suggest_thresholds, plan, report))
    if args.write_policy:
        notes.append(write_policy(args.write_policy, report, data_files))
    return Outcome(report, notes, targets)


def read_baseline(args: EvalArgs, plan: Plan) -> Any:
    """The baseline of ``--baseline``, read and checked (its schema too) before anything is scored; None without."""
    if not args.baseline:
        return None
    from ..report import baseline as baselines

    held_to = baselines.load(args.baseline)
    baselines.check_schema(held_to, plan, args.baseline, args.baseline_any_schema)
    return held_to


def read_ceiling(path: str | None, plan: Plan) -> Any:
    """The agree report of ``--ceiling``, read and checked against the plan's fields before anything is scored."""
    if not path:
        return None
    from ..report.ceiling import load

    return load(path, plan)


def compare_with_baseline(args: EvalArgs, evaluation: Any, held_to: Any) -> dict[str, Any]:
    from ..report import baseline as baselines

    level = args.ci if args.ci is not None else 0.95
    return baselines.compare(evaluation, held_to, args.baseline or "", args.fdr, level, args.bootstrap, args.seed)


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
