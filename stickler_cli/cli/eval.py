"""`stickler eval`: its arguments and options, as typer reads them and its help page shows them.

The work is cli/eval_run.py's (``run_eval``), which takes them as one ``EvalArgs``. For ``--format json`` and
``markdown`` the console script reads the same options without typer (cli/light.py), then calls the same function.
"""

from __future__ import annotations

from typing import Optional

import typer

from .eval_run import EvalArgs, run_eval
from .help import DECISIONS, LIMITS, OUTPUTS, SCALE, STATISTICS
from .option_values import AUTO_WORKERS_BYTES, AUTO_WORKERS_MIN_CORES
from .options import (
    ALLOW_NETWORK_OPTION,
    ASSERT_FORMATS_OPTION,
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
    POLICY_LEVEL_OPTION,
    POLICY_OPTION,
    TARGET_PRECISION_OPTION,
    WRITE_POLICY_OPTION,
    OUTPUT_OPTION,
    PAIR_BY_LINE_OPTION,
    PLUGIN_OPTION,
    SCHEMA_RESOURCE_OPTION,
    SEED_OPTION,
    SHOW_ERRORS_OPTION,
    STRICT_OPTION,
    SUGGEST_THRESHOLDS_OPTION,
)


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
    # issue 41, baseline
    save_baseline: Optional[str] = typer.Option(
        None,
        "--save-baseline",
        metavar="FILE",
        rich_help_panel=DECISIONS,
        help="Write a small baseline here: each document's outcome and score per field, not the values.",
    ),
    baseline: Optional[str] = typer.Option(
        None,
        "--baseline",
        metavar="FILE",
        rich_help_panel=DECISIONS,
        help="Compare the run with this baseline, document by document: per field better, worse or same at --fdr.",
    ),
    baseline_any_schema: bool = typer.Option(
        False,
        "--baseline-any-schema",
        rich_help_panel=DECISIONS,
        help="Accept a baseline of another schema: compare the fields of the same path and comparator.",
    ),
    fail_on_regression: bool = typer.Option(
        False,
        "--fail-on-regression",
        rich_help_panel=DECISIONS,
        help="Exit 1 when a field is significantly worse than --baseline (or no document is in common).",
    ),
    # issue 41, policy
    target_precision: Optional[list[str]] = TARGET_PRECISION_OPTION,
    policy_level: float = POLICY_LEVEL_OPTION,
    write_policy: Optional[str] = WRITE_POLICY_OPTION,
    policy: Optional[str] = POLICY_OPTION,
    # issue 42, item 4: the noise ceiling
    ceiling: Optional[str] = typer.Option(
        None,
        "--ceiling",
        metavar="AGREE_REPORT",
        rich_help_panel=STATISTICS,
        help="Each field's accuracy beside annotators' agreement.",
    ),
) -> None:
    """Evaluate predictions against ground truth; print tables, JSON or Markdown; exit 1 when a gate fails."""
    run_eval(EvalArgs(**locals()))
