"""`stickler merge`: the states of sharded runs merged into one report."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from .. import limits
from .help import INPUTS, SCALE
from .option_values import (
    check_bootstrap,
    check_ci,
    check_fdr,
    check_format,
    check_policy_options,
    llm_access,
    load_plugins,
    report_options,
    use_limits,
    with_policy,
)
from .options import (
    BOOTSTRAP_OPTION,
    BOX_FOUND_OPTION,
    BUDGETS_OPTION,
    CI_OPTION,
    DEBUG_OPTION,
    ECE_BINS_OPTION,
    FAIL_UNDER_OPTION,
    FDR_OPTION,
    FORMAT_OPTION,
    GATES_OPTION,
    HTML_OPTION,
    IOU_THRESHOLDS_OPTION,
    JUNIT_OPTION,
    LIMIT_OPTION,
    METRICS_OPTION,
    NO_DATA_PASSES_OPTION,
    OUTPUT_OPTION,
    PLUGIN_OPTION,
    SEED_OPTION,
    SHOW_ERRORS_OPTION,
    SUGGEST_THRESHOLDS_OPTION,
    POLICY_LEVEL_OPTION,
    POLICY_OPTION,
    TARGET_PRECISION_OPTION,
    WRITE_POLICY_OPTION,
)
from .output import emit_report, write_policy, write_threshold_patch


def merge_command(
    states: list[str] = typer.Argument(..., help="State files written by `stickler eval --save-state`."),
    output_format: str = FORMAT_OPTION,
    output: Optional[str] = OUTPUT_OPTION,
    save_state: Optional[str] = typer.Option(
        None, "--save-state", metavar="FILE", rich_help_panel=SCALE, help="Also write the merged state here."
    ),
    allow_overlap: bool = typer.Option(
        False,
        "--allow-overlap",
        rich_help_panel=INPUTS,
        help="Add states that share documents (the same ground-truth record in two states: a shard and the whole "
        "run, one ground truth scored twice) anyway, with a warning; without it such a merge stops (exit 2) "
        "naming the first shared document, which would be counted twice.",
    ),
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
    # issue 41, policy (from the states' per-document rows: saved by `eval --target-precision` or `--policy`)
    target_precision: Optional[list[str]] = TARGET_PRECISION_OPTION,
    policy_level: float = POLICY_LEVEL_OPTION,
    write_policy_path: Optional[str] = WRITE_POLICY_OPTION,
    policy: Optional[str] = POLICY_OPTION,
) -> None:
    """Merge the states of sharded runs into one report, as if it had been one run; states that share documents
    are refused (exit 2) unless --allow-overlap."""
    from ..report import gates as quality_gates
    from ..run import state_file
    from ..run.accumulate import Collect
    from ..report.build import build_report
    from ..run import atomic

    use_limits(limit)
    check_format(output_format)
    check_ci(ci)
    check_bootstrap(bootstrap)
    check_fdr(fdr)
    check_policy_options(target_precision, policy_level, write_policy_path, policy)
    reporting = report_options(
        confidence_metric_names, ece_bins, budgets, iou_thresholds, box_found, ci, bootstrap, seed, fdr
    )
    plugin_files = load_plugins(plugin)
    llm_access(calls=False)  # re-explaining the worst documents sends nothing anywhere
    gates = quality_gates.collect(fail_under or [], gates_file)
    targets = {
        "--output": output,
        "--save-state": save_state,
        "--junit": junit_path,
        "--html": html_path,
        "--suggest-thresholds": suggest_thresholds,
        "--write-policy": write_policy_path,
    }
    inputs = [*(("state file", path) for path in states), *plugin_files, *quality_gates.sources(gates_file)]
    atomic.check_targets(atomic.with_step_summary(targets), inputs)
    evaluation = state_file.merge(
        states,
        plugin or [],
        Collect(worst=max(Collect.worst, show_errors), failures=limits.current().failures_per_field),
        allow_overlap,
    )
    reporting = with_policy(reporting, target_precision, policy_level, policy, evaluation.plan, gates)
    if ci is not None:
        state_file.check_documents(evaluation.accumulator, states)
    kept = evaluation.accumulator.worst_known
    if show_errors > kept:
        sys.stderr.write(
            f"stickler: warning: the states kept their {kept} worst documents each: "
            f"--show-errors shows at most {kept} (give --show-errors to `stickler eval` too)\n"
        )
    if save_state:
        state_file.save(save_state, evaluation.accumulator)
    report = build_report(evaluation, reporting)
    notes = [write_threshold_patch(suggest_thresholds, evaluation.plan, report)] if suggest_thresholds else []
    if write_policy_path:
        notes.append(write_policy(write_policy_path, report, [("state file", path) for path in states]))
    emit_report(report, output_format, targets, gates, show_errors, notes, no_data_passes)
