"""`stickler stability`: the same ground truth, several runs of one system: how much do its answers change?"""

from __future__ import annotations

from typing import Any, Optional

import typer

from ..errors import UsageError
from ..version import __version__
from .help import GATES, OUTPUTS
from .option_values import check_format, llm_access, load_plugins, pairing_option, use_limits
from .options import (
    ALLOW_NETWORK_OPTION,
    CHECK_ID_OPTION,
    DEBUG_OPTION,
    FORMAT_OPTION,
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
    STRICT_OPTION,
)
from .output import Written, emit, fail_gates, warn_about_problems


def stability_command(
    schema: str = typer.Argument(..., help="JSON Schema with x-aws-stickler-* annotations."),
    ground_truth: str = typer.Argument(..., help="Ground truth, JSON Lines."),
    runs: list[str] = typer.Argument(
        ..., metavar="RUN_1 RUN_2 [RUN_3...]", help="Two or more runs' predictions, JSON Lines, paired as eval pairs."
    ),
    output_format: str = FORMAT_OPTION,
    output: Optional[str] = OUTPUT_OPTION,
    fail_under: Optional[list[str]] = typer.Option(
        None,
        "--fail-under",
        metavar="METRIC=VALUE",
        rich_help_panel=GATES,
        help="Exit 1 when a figure is below VALUE: total.METRIC or FIELD.METRIC (a glob), METRIC one of pass_k, "
        "pass_at_k, stability (1 - flip rate), mean_score; e.g. total.pass_k=0.9. Repeatable.",
    ),
    no_data_passes: bool = NO_DATA_PASSES_OPTION,
    flaky: float = typer.Option(
        0.05,
        "--flaky",
        min=0.0,
        max=1.0,
        metavar="RATE",
        rich_help_panel=OUTPUTS,
        help="A field is flaky when its flip rate is above RATE.",
    ),
    id_field: Optional[str] = ID_FIELD_OPTION,
    pair_by_line: bool = PAIR_BY_LINE_OPTION,
    check_id: Optional[list[str]] = CHECK_ID_OPTION,
    strict: bool = STRICT_OPTION,
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    llm_base_url: Optional[str] = LLM_BASE_URL_OPTION,
    llm_api_key_env: Optional[str] = LLM_KEY_ENV_OPTION,
    allow_network: Optional[list[str]] = ALLOW_NETWORK_OPTION,
    llm_cache: Optional[str] = LLM_CACHE_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Score several runs of one system against one ground truth: pass^k, pass@k, flip rate, flaky fields.

    A field is right in a document when it has no FD, FA or FN there; a document missing from a run is right
    in no field of that run. pass^k is the share of documents right in every run, pass@k in at least one, the
    flip rate the share whose verdict changes between runs. See docs/stability.md.
    """
    from ..engine import Engine
    from ..errors import InputError
    from ..report import stability as figures
    from ..report.agreement import record_problems
    from ..run import atomic
    from ..run import reader
    from ..run.options import for_plan
    from ..run.scoring import adopted_batches, located, read_pairs
    from ..run.shards import Shard
    from ..reporters import json_report
    from ..schema.compiler import check_ready
    from .inputs import scoring_plan

    use_limits(limit)
    check_format(output_format)
    if len(runs) < 2:
        raise UsageError(f"stability needs two runs or more to compare; got {len(runs)}")
    if reader.STDIN in (ground_truth, *runs):
        raise UsageError("stability reads each file once per run: standard input ('-') cannot be one of them")
    gates = [figures.parse_gate(text) for text in fail_under or []]
    pairing = pairing_option(id_field, strict, pair_by_line, check_id)
    reader.check_readable(ground_truth, *runs)
    plugin_files = load_plugins(plugin)  # comparators of the user's, and a judge's endpoint: the command line's
    llm_access(llm_base_url, llm_api_key_env, allow_network, llm_cache)
    atomic.check_targets(
        atomic.with_step_summary({"--output": output, "--llm-cache": llm_cache}),
        [("ground truth", ground_truth), *((f"run {k + 1}", path) for k, path in enumerate(runs)), *plugin_files],
    )
    plan = scoring_plan(schema, schema_resource, others=[ground_truth, *runs], order="SCHEMA GROUND_TRUTH RUN_1 RUN_2")
    check_ready(plan)
    paths = [f.path for f in plan.fields]
    figures.check_gate_paths(gates, paths)  # a gate naming no field: a usage error before any scoring
    pairing = for_plan(pairing, plan)  # as eval: an id the model extracts may simply be wrong
    engine = Engine(plan)
    scored_runs: list[list[figures.Scored]] = []
    unpaired: list[int] = []
    documents: list[int] = []
    problems: list[dict[str, Any]] = []  # the record problems eval names: the reader's and the engine's
    seen: set[tuple[Any, str]] = set()  # the ground truth's own problems said: (line, message)
    for path in runs:
        stats = reader.PairingStats()
        run: list[tuple[int, figures.Scored]] = []  # by ground-truth line: the same documents in every run
        # read as the run reads (scoring.read_pairs, adopted_batches); a judge asked a batch at a time, as there
        for batch in adopted_batches(plan.root, read_pairs(Shard(ground_truth, path), stats, pairing)):
            engine.prefetch([(pair.gt, pair.pred) for pair in batch if pair.gt is not None])
            for pair in batch:
                found = [error.as_dict() for error in pair.errors]
                if pair.gt is not None:  # else a prediction without a ground truth: counted, not scored
                    result = engine.compare(pair.gt, pair.pred or {})
                    found += [located(message, ground_truth, path, pair).as_dict() for message in result.errors]
                for problem in found:  # a problem of the ground truth's own once, not once per run
                    if problem["source"] == ground_truth:
                        if (problem["line"], problem["message"]) in seen:
                            continue
                        seen.add((problem["line"], problem["message"]))
                    problems.append(problem)
                if pair.gt is None:
                    continue
                missing = pair.pred_line is None or pair.pred_invalid
                scored = figures.Scored(result.score, result.counts, result.score_sum, result.score_n, missing)
                run.append((pair.gt_line, scored))
        if not stats.pred_lines:  # as agree refuses an empty file: a run that answered nothing is no run
            raise InputError("holds no record: a run's file must hold its predictions", path)
        run.sort(key=lambda item: item[0])
        if scored_runs and [line for line, _ in run] != documents:
            raise RuntimeError(f"{path}: the ground truth's documents were not all scored")  # an internal error
        documents = [line for line, _ in run]
        scored_runs.append([scored for _, scored in run])
        unpaired.append(stats.unpaired_predictions)
    report: dict[str, Any] = {
        "tool": {"name": "stickler stability", "version": __version__},
        "inputs": {"schema": schema, "ground_truth": ground_truth, "runs": list(runs), "id_field": id_field},
    }
    report.update(figures.build(paths, scored_runs, flaky))
    report["unpaired_per_run"] = unpaired
    report["gates"] = figures.check_gates(gates, report, no_data_passes)
    report.update(record_problems(problems))
    data = json_report.dumps(report)
    warn_about_problems(report["error_count"], (report["errors"] or [None])[0])

    def markdown() -> str:
        from ..reporters.stability import render_markdown

        return render_markdown(report)

    def table(console: Any) -> None:
        from ..reporters.stability import render_terminal

        render_terminal(report, console)

    emit(
        data,
        output_format,
        [Written(output, "JSON report", lambda: data)],
        markdown,
        table,
        verdict=lambda shown: fail_gates(report["gates"], not report["document_count"], shown),
    )
