"""`stickler compare`: one pair, every field's score and classification explained."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from .help import INPUTS
from .inputs import scoring_plan, warn_about_records
from .option_values import TABLE_OR_JSON, check_format, check_judge_pairing, llm_access, load_plugins, use_limits
from .options import (
    ALLOW_NETWORK_OPTION,
    DEBUG_OPTION,
    LIMIT_OPTION,
    LLM_BASE_URL_OPTION,
    JUDGE_PAIRING_OPTION,
    LLM_CACHE_OPTION,
    LLM_KEY_ENV_OPTION,
    PLUGIN_OPTION,
    SCHEMA_RESOURCE_OPTION,
    TABLE_OR_JSON_OPTION,
)
from .output import stdout_console, printable


def compare_command(
    schema: str = typer.Argument(..., help="JSON Schema with x-aws-stickler-* annotations."),
    ground_truth: str = typer.Argument(
        ...,
        help="Ground truth: JSON text, a .json file, or a JSON Lines file (- for standard input) with --id or --line.",
    ),
    prediction: str = typer.Argument(
        ...,
        help="Prediction: JSON text, a .json file, or a JSON Lines file (- for standard input) with --id or --line.",
    ),
    record_id: Optional[str] = typer.Option(
        None,
        "--id",
        metavar="VALUE",
        rich_help_panel=INPUTS,
        help="Compare the records whose document id is VALUE (in --id-field, else in the first of doc_id, "
        "document_id, id, file, ... each record has).",
    ),
    id_field: Optional[str] = typer.Option(
        None, "--id-field", metavar="FIELD", rich_help_panel=INPUTS, help="The field --id is looked up in."
    ),
    line: Optional[int] = typer.Option(
        None,
        "--line",
        min=1,
        metavar="N",
        rich_help_panel=INPUTS,
        help="Compare line N of each file (blank lines counted, as eval counts them).",
    ),
    output_format: str = TABLE_OR_JSON_OPTION,
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    limit: Optional[list[str]] = LIMIT_OPTION,
    schema_resource: Optional[list[str]] = SCHEMA_RESOURCE_OPTION,
    llm_base_url: Optional[str] = LLM_BASE_URL_OPTION,
    llm_api_key_env: Optional[str] = LLM_KEY_ENV_OPTION,
    allow_network: Optional[list[str]] = ALLOW_NETWORK_OPTION,
    llm_cache: Optional[str] = LLM_CACHE_OPTION,
    judge_pairing: str = JUDGE_PAIRING_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Compare one pair and explain every field's score and classification.

    The pair is given as two JSON objects, or chosen from two JSON Lines files by --id or --line.
    """

    from ..analyses.failures import not_shown, pairings, row
    from ..schema.compiler import check_ready
    from ..run.compare_input import Selector, choose_pair, id_disagreement
    from ..engine import Engine
    from ..engine.values import adopt_older_shape
    from ..reporters import json_report, terminal

    use_limits(limit)
    check_format(output_format, TABLE_OR_JSON)
    check_judge_pairing(judge_pairing)
    selector = Selector(line, record_id, id_field)
    selector.check()
    load_plugins(plugin)
    llm_access(llm_base_url, llm_api_key_env, allow_network, llm_cache)
    plan = scoring_plan(
        schema, schema_resource, others=[ground_truth, prediction], order="SCHEMA GROUND_TRUTH PREDICTION"
    )
    check_ready(plan)
    gt, pred = choose_pair(ground_truth, prediction, selector)
    if selector.line is not None and (disagreement := id_disagreement(gt, pred)):
        sys.stderr.write(f"stickler: warning: {printable(disagreement)}\n")
    older = sum(adopt_older_shape(plan.root, chosen.record) > 0 for chosen in (gt, pred))
    warn_about_records({"older_shape_records": older}, f"{ground_truth}, {prediction}")
    result = Engine(plan, judge_pairing).compare(gt.record, pred.record, explain=True)
    if output_format == "json":
        # The report's comparison rows, "type" named "result" as this output always had it.
        rows = [
            {("result" if key == "type" else key): value for key, value in row(r).items()} for r in result.trace or []
        ]
        payload = {
            "score": result.score,
            "field_scores": result.field_scores,
            "comparisons": rows,
            "errors": result.errors,
            "inputs": {"ground_truth": gt.as_dict(), "prediction": pred.as_dict()},
        }
        beyond = not_shown(result.trace.more)  # past --limit explain-items
        if beyond is not None:
            payload["comparisons_not_shown"] = beyond
        payload.update(pairings(result))  # how each list's items were paired
        sys.stdout.buffer.write(json_report.dumps(payload))
        return
    console = stdout_console()
    if gt.line is not None or pred.line is not None:
        console.print(terminal.safe(f"{gt.where()} against {pred.where()}", 2 * terminal.NAME_LIMIT), style="dim")
    terminal.render_trace(result.score, result.field_scores, result.trace or [], console, result.trace.not_shown)
    terminal.render_pairings(pairings(result), console)
    for message in result.errors:
        console.print(terminal.safe(f"error: {message}", limit=400), style="yellow")
