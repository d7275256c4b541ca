"""`stickler diff`: two prediction sets (or two saved states) on one ground truth, compared."""

from __future__ import annotations

from typing import Any, Optional

import typer

from ..errors import UsageError
from .help import GATES, OUTPUTS, STATISTICS
from .inputs import schema_files, scoring_plan, warn_about_records
from .option_values import (
    check_bootstrap,
    check_ci,
    check_format,
    llm_access,
    load_plugins,
    pairing_option,
    run_options,
    use_limits,
)
from .options import (
    ALLOW_NETWORK_OPTION,
    ASSERT_FORMATS_OPTION,
    BOOTSTRAP_OPTION,
    CHECK_ID_OPTION,
    DEBUG_OPTION,
    FORMAT_OPTION,
    ID_FIELD_OPTION,
    LIMIT_OPTION,
    LLM_BASE_URL_OPTION,
    JUDGE_PAIRING_OPTION,
    LLM_CACHE_OPTION,
    LLM_KEY_ENV_OPTION,
    PAIR_BY_LINE_OPTION,
    PLUGIN_OPTION,
    SCHEMA_RESOURCE_OPTION,
    SEED_OPTION,
    STRICT_OPTION,
)
from .output import Written, emit, fail, printable


def diff_command(
    paths: list[str] = typer.Argument(
        ...,
        metavar="SCHEMA GT PRED_A PRED_B | STATE_A STATE_B",
        help="A schema, the ground truth and the predictions of A (the baseline) and B (the candidate); "
        "or two states saved by `stickler eval --ci LEVEL --save-state` on the same ground truth.",
    ),
    id_field: Optional[str] = ID_FIELD_OPTION,
    pair_by_line: bool = PAIR_BY_LINE_OPTION,
    check_id: Optional[list[str]] = CHECK_ID_OPTION,
    output_format: str = FORMAT_OPTION,
    output: Optional[str] = typer.Option(
        None,
        "--output",
        "-o",
        metavar="FILE",
        rich_help_panel=OUTPUTS,
        help="Also write the JSON diff report to this file.",
    ),
    junit_path: Optional[str] = typer.Option(
        None,
        "--junit",
        metavar="FILE",
        rich_help_panel=OUTPUTS,
        help="Also write JUnit XML here: a test case per watched figure, failing when B is significantly worse on it.",
    ),
    html_path: Optional[str] = typer.Option(
        None,
        "--html",
        metavar="FILE",
        rich_help_panel=OUTPUTS,
        help="Also write a self-contained HTML page of every comparison here.",
    ),
    level: float = typer.Option(
        0.95,
        "--ci",
        metavar="LEVEL",
        rich_help_panel=STATISTICS,
        help="Confidence level of the intervals; significance is p < 1 - LEVEL.",
    ),
    bootstrap: int = BOOTSTRAP_OPTION,
    seed: int = SEED_OPTION,
    metric: Optional[list[str]] = typer.Option(
        None,
        "--metric",
        metavar="KEY",
        rich_help_panel=GATES,
        help="Figures --fail-on-regression watches, as gates name them (repeatable; "
        "default: weighted_overall_score and '*.cm_f1').",
    ),
    fail_on_regression: bool = typer.Option(
        False,
        "--fail-on-regression",
        rich_help_panel=GATES,
        help="Exit 1 when B is significantly worse than A on a watched figure.",
    ),
    strict: bool = STRICT_OPTION,
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    assert_formats: bool = ASSERT_FORMATS_OPTION,
    llm_base_url: Optional[str] = LLM_BASE_URL_OPTION,
    llm_api_key_env: Optional[str] = LLM_KEY_ENV_OPTION,
    allow_network: Optional[list[str]] = ALLOW_NETWORK_OPTION,
    llm_cache: Optional[str] = LLM_CACHE_OPTION,
    judge_pairing: str = JUDGE_PAIRING_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Compare two prediction sets on the same ground truth: differences, intervals, p-values, the documents B
    made worse and better, and each side's record problems."""
    from ..report import diff
    from ..run import state_file
    from ..run.accumulate import Collect
    from ..schema.compiler import check_ready
    from ..run.evaluate import evaluate_two
    from ..run.reader import STDIN, check_readable
    from ..run import atomic

    use_limits(limit)
    pairing = pairing_option(id_field, strict, pair_by_line, check_id)
    check_format(output_format)
    check_ci(level)
    check_bootstrap(bootstrap)
    plugin_files = load_plugins(plugin)
    llm = llm_access(llm_base_url, llm_api_key_env, allow_network, llm_cache)
    targets = atomic.with_step_summary(
        {"--output": output, "--junit": junit_path, "--html": html_path, "--llm-cache": llm_cache}
    )
    if len(paths) not in (2, 4):
        raise UsageError(f"diff takes SCHEMA GT PRED_A PRED_B, or STATE_A STATE_B; got {len(paths)} arguments")
    if paths.count(STDIN) > 1 or (len(paths) == 2 and STDIN in paths):
        raise UsageError("standard input ('-') can be one of the ground truth and the prediction files, once")
    if (bootstrap + 1) * (1 - level) <= 1:
        raise UsageError(
            f"with --bootstrap {bootstrap}, no p-value can go below 1/{bootstrap + 1}, so nothing could be "
            f"significant at --ci {level:g}: give more resamples"
        )
    check_readable(*paths)
    watched = tuple(metric or diff.DEFAULT_WATCHED)
    if len(paths) == 2:
        if schema_resource or assert_formats:
            raise UsageError("--schema-resource and --assert-formats apply to a schema: two states carry theirs")
        atomic.check_targets(targets, [*(("state file", p) for p in paths), *plugin_files])
        runs = [state_file.merge([path], plugin or [], Collect(worst=0)) for path in paths]
        diff.check_same_documents(runs[0], runs[1], paths)
    else:
        schema, ground_truth, predictions_a, predictions_b = paths
        plan = scoring_plan(
            schema, schema_resource, assert_formats, paths[1:], "SCHEMA GROUND_TRUTH PREDICTIONS_A PREDICTIONS_B"
        )
        check_ready(plan)
        atomic.check_targets(
            targets,
            [
                *schema_files(plan),
                ("ground truth", ground_truth),
                ("predictions of A", predictions_a),
                ("predictions of B", predictions_b),
                *plugin_files,
            ],
        )
        options = run_options(pairing, 1, None, plugin, llm, Collect(worst=0, documents=True), judge_pairing)
        runs = list(evaluate_two(plan, ground_truth, predictions_a, predictions_b, options))
        warn_about_records(runs[0].accumulator.stats, f"{ground_truth}, {predictions_a}")
        # The ground truth was read twice: its own warnings are given once.
        warn_about_records(
            {**runs[1].accumulator.stats, "gt_with_confidence": 0, "gt_lines": None}, f"{ground_truth}, {predictions_b}"
        )
    report = diff.compare(runs[0], runs[1], level, bootstrap, seed, watched)
    emit_diff(report, output_format, output, junit_path, html_path, fail_on_regression)


def emit_diff(
    report: dict[str, Any],
    output_format: str,
    output: str | None,
    junit_path: str | None,
    html_path: str | None,
    fail_on_regression: bool,
) -> None:
    """``emit`` for the diff: its JSON, JUnit and HTML files, its Markdown and tables; exit 1 when
    ``fail_on_regression`` and B is significantly worse (or nothing was compared)."""
    from ..report.diff import verdict
    from ..reporters import json_report, junit, markdown, terminal

    def html() -> bytes:
        from ..reporters.html import render_diff_html

        return render_diff_html(report).encode()

    def regressed(shown: bool) -> None:
        if fail_on_regression and not report["document_count"]:
            fail("no document was compared: nothing shows that B is not worse", shown=False)
        if fail_on_regression and report["regressions"]:
            fail(printable(verdict(report)), shown=shown)

    data = json_report.dumps(report)
    files = [
        Written(output, None, lambda: data),  # the table names the other two files only, as it always did
        Written(junit_path, "JUnit XML", lambda: junit.render_diff_junit(report)),
        Written(html_path, "HTML page", html),
    ]
    emit(
        data,
        output_format,
        files,
        lambda: markdown.render_diff_markdown(report),
        lambda console: terminal.render_diff(report, console),
        verdict=regressed,
    )
