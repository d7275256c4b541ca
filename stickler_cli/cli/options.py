"""The options of the commands, declared once.

Each flag that several commands take is declared here once (typer ``Option`` objects, grouped into the help
panels of help.py); each command module lists the ones it takes. What their values are checked and built into
(``RunOptions``, ``ReportOptions``) is cli/option_values.py, which imports no typer: the command modules import
it themselves.
"""

from __future__ import annotations

import typer

from .help import CONFIDENCE, DECISIONS, GATES, INPUTS, LIMITS, OUTPUTS, STATISTICS

PLUGIN_HELP = "Import this module (or .py file) for its comparators; repeatable."


# Options that several commands take, declared once.
FORMAT_OPTION = typer.Option(
    "table",
    "--format",
    "-f",
    metavar="FORMAT",
    rich_help_panel=OUTPUTS,
    help="table (Rich tables), json (the report) or markdown, on stdout.",
)
TABLE_OR_JSON_OPTION = typer.Option(
    "table", "--format", "-f", metavar="FORMAT", rich_help_panel=OUTPUTS, help="table or json."
)
OUTPUT_OPTION = typer.Option(
    None, "--output", "-o", metavar="FILE", rich_help_panel=OUTPUTS, help="Also write the JSON report to this file."
)
PLUGIN_OPTION = typer.Option(None, "--plugin", metavar="MODULE", rich_help_panel=INPUTS, help=PLUGIN_HELP)
DEBUG_OPTION = typer.Option(False, "--debug", help="Show tracebacks.")
METRICS_OPTION = typer.Option(
    "auroc,brier_score,ece,error_capture_at_budget",
    "--confidence-metrics",
    metavar="NAMES",
    rich_help_panel=CONFIDENCE,
    help="Comma-separated confidence metrics, computed when predictions carry _confidence.",
)
ECE_BINS_OPTION = typer.Option(
    10,
    "--ece-bins",
    min=1,
    max=100,
    metavar="N",
    rich_help_panel=CONFIDENCE,
    help="Equal-width bins for ECE and the reliability diagram (1 to 100).",
)
BUDGETS_OPTION = typer.Option(
    "0.1,0.3,0.5",
    "--budgets",
    metavar="FRACTIONS",
    rich_help_panel=CONFIDENCE,
    help="Review budgets for error capture, fractions in (0, 1].",
)
FAIL_UNDER_OPTION = typer.Option(
    None,
    "--fail-under",
    metavar="METRIC=VALUE",
    rich_help_panel=GATES,
    help="Exit 1 when a metric is below VALUE: weighted_overall_score=0.9, 'line_items.*.cm_recall=0.8', "
    "vendor.aggregate.cm_f1=0.9; repeatable; also [tool.stickler.fail-under] in pyproject.toml.",
)
GATES_OPTION = typer.Option(
    None, "--gates", metavar="FILE", rich_help_panel=GATES, help="TOML file whose [fail-under] table holds gates."
)
NO_DATA_PASSES_OPTION = typer.Option(
    False, "--no-data-passes", rich_help_panel=GATES, help="A gate with no data passes (default: it fails)."
)
JUNIT_OPTION = typer.Option(
    None,
    "--junit",
    metavar="FILE",
    rich_help_panel=OUTPUTS,
    help="Also write JUnit XML here: a test case per gate and per field.",
)
HTML_OPTION = typer.Option(
    None, "--html", metavar="FILE", rich_help_panel=OUTPUTS, help="Also write a self-contained HTML report here."
)
SUGGEST_THRESHOLDS_OPTION = typer.Option(
    None,
    "--suggest-thresholds",
    metavar="FILE",
    rich_help_panel=OUTPUTS,
    help="Write suggested thresholds here (a JSON Patch).",
)
SHOW_ERRORS_OPTION = typer.Option(
    0,
    "--show-errors",
    min=0,
    metavar="N",
    rich_help_panel=OUTPUTS,
    help="Print the N worst documents with their failing fields (--limit explain-items bounds each; the rest counted).",
)
IOU_THRESHOLDS_OPTION = typer.Option(
    "0.5:0.95:0.05",
    "--iou-thresholds",
    metavar="RANGE",
    rich_help_panel=STATISTICS,
    show_default=False,
    help="Box mAP IoU thresholds [0.5:0.95:0.05], or a list.",
)
BOX_FOUND_OPTION = typer.Option(
    "value-and-iou",
    "--box-found",
    metavar="RULE",
    rich_help_panel=STATISTICS,
    show_default=False,
    help="Box mAP: found by value-and-iou [default] or iou.",
)
CI_OPTION = typer.Option(
    None,
    "--ci",
    metavar="LEVEL",
    rich_help_panel=STATISTICS,
    help="Bootstrap confidence intervals at this level (e.g. 0.95) on every score.",
)
BOOTSTRAP_OPTION = typer.Option(
    1000,
    "--bootstrap",
    min=10,
    metavar="N",
    rich_help_panel=STATISTICS,
    help="Bootstrap resamples for --ci (10 to the limit bootstrap-resamples).",
)
SEED_OPTION = typer.Option(
    0,
    "--seed",
    min=0,
    metavar="N",
    rich_help_panel=STATISTICS,
    help="Seed of the bootstrap resamples (same seed, same intervals).",
)
FDR_OPTION = typer.Option(
    0.05, "--fdr", metavar="RATE", rich_help_panel=STATISTICS, help="False-discovery rate of --slice-by and --baseline."
)
ID_FIELD_OPTION = typer.Option(
    None,
    "--id-field",
    metavar="FIELD",
    rich_help_panel=INPUTS,
    help="Pair records by this key instead of by line order.",
)
PAIR_BY_LINE_OPTION = typer.Option(
    False,
    "--pair-by-line",
    rich_help_panel=INPUTS,
    help="Pair by line even when the records' document ids (id, doc_id, file, ...) disagree.",
)
CHECK_ID_OPTION = typer.Option(
    None,
    "--check-id",
    metavar="FIELD",
    rich_help_panel=INPUTS,
    help="Pairing by line, stop when this field disagrees on more than 3 pairs (repeatable; "
    "default: the usual document-id names).",
)
STRICT_OPTION = typer.Option(
    False, "--strict", rich_help_panel=INPUTS, help="Stop (exit 2) on a prediction line that is not a JSON object."
)
LIMIT_OPTION = typer.Option(
    None,
    "--limit",
    metavar="NAME=VALUE",
    rich_help_panel=LIMITS,
    help="Raise a bound on what input may cost, e.g. line-bytes=256MiB; repeatable; also [tool.stickler.limits] "
    "in pyproject.toml.",
)
SCHEMA_RESOURCE_OPTION = typer.Option(
    None,
    "--schema-resource",
    metavar="URL=FILE",
    rich_help_panel=INPUTS,
    help="A $ref's URL read from FILE (URL/ from a directory), never fetched; repeatable.",
)
ASSERT_FORMATS_OPTION = typer.Option(
    False,
    "--assert-formats",
    rich_help_panel=INPUTS,
    help="Count `format` failures (date, email, uri, ...) as schema violations.",
)
# Where LLMComparator sends values, with which key, and where it keeps answers: the user's decision.
LLM_BASE_URL_OPTION = typer.Option(
    None,
    "--llm-base-url",
    metavar="URL",
    rich_help_panel=LIMITS,
    help="LLMComparator endpoint, e.g. http://localhost:11434/v1 (else $STICKLER_LLM_BASE_URL).",
)
LLM_KEY_ENV_OPTION = typer.Option(
    None,
    "--llm-api-key-env",
    metavar="NAME",
    rich_help_panel=LIMITS,
    help="The variable holding LLMComparator's API key (else $STICKLER_LLM_API_KEY, $OPENAI_API_KEY).",
)
ALLOW_NETWORK_OPTION = typer.Option(
    None,
    "--allow-network",
    metavar="HOST",
    rich_help_panel=LIMITS,
    help="Let a schema's LLMComparator base_url send values to this host (host or host:port); repeatable.",
)
LLM_CACHE_OPTION = typer.Option(
    None,
    "--llm-cache",
    metavar="PATH",
    rich_help_panel=LIMITS,
    help="LLMComparator answer cache file (default: llm.sqlite in $STICKLER_CACHE_DIR, else ~/.cache/stickler).",
)

# How a list whose items hold a judged field (LLM, embeddings) pairs its items: engine/proxy.py (JUDGE_PAIRINGS).
JUDGE_PAIRING_OPTION = typer.Option(
    "full",
    "--judge-pairing",
    metavar="MODE",
    show_default=False,
    rich_help_panel=LIMITS,
    help="Lists with judged fields: full (every pair) or proxy.",
)

# issue 41, policy: an auto-accept policy from the confidences (report/policy.py, docs/decisions.md)
TARGET_PRECISION_OPTION = typer.Option(
    None,
    "--target-precision",
    metavar="[FIELD=]P",
    rich_help_panel=DECISIONS,
    help="Fit an auto-accept policy: per field, the lowest confidence that reaches precision P.",
)
POLICY_LEVEL_OPTION = typer.Option(
    0.95,
    "--policy-level",
    metavar="LEVEL",
    rich_help_panel=DECISIONS,
    help="Level of the policy's lower bound and binomial test.",
)
WRITE_POLICY_OPTION = typer.Option(
    None,
    "--write-policy",
    metavar="FILE",
    rich_help_panel=DECISIONS,
    help="Write the fitted policy here as JSON.",
)
POLICY_OPTION = typer.Option(
    None,
    "--policy",
    metavar="FILE",
    rich_help_panel=DECISIONS,
    help="Check a written policy on this data: realised precision per field against its target.",
)
