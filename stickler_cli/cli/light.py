"""``stickler eval … --format json`` (or ``markdown``) without typer, click or Rich: nothing is drawn for a terminal,
so what they take to import (35–45 ms of a whole run, measured) is left out (docs/performance.md, "Start-up").

The console script (cli/__init__.py) hands every ``stickler eval`` here first. ``parse`` reads the command line
only when it understands all of it: eval's options as typer declares them (cli/eval.py; ``OPTIONS`` below, which
tests/cli/test_light.py holds equal to typer's declaration), spelled as typer reads them, with a format that
prints no table. On anything else (``--help``, an unknown option or command, a short option run together with its
value, a value typer would have to check, ``--``, a missing value, the table format) it answers None and the
command goes to the typer app, which gives today's page or message. Once read, the options are the same
``EvalArgs`` typer builds, run by the same ``run_eval`` and ended by the same ``exits.main``: the outputs, messages
and exit codes are the typer path's, byte for byte (tests/cli/test_light.py runs both on a matrix of command lines).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .option_values import _UNSURE, plain_value

if TYPE_CHECKING:
    from typing import Any

    from .eval_run import EvalArgs

# The formats whose output draws nothing: the JSON report and the Markdown page.
FORMATS = ("json", "markdown")
ARGUMENTS = ("schema", "ground_truth", "predictions")
COMPLETION = "_STICKLER_COMPLETE"  # the variable click reads, by the program's name, to complete a command line


class Option:
    """One option of ``stickler eval``: its ``EvalArgs`` field, its spellings (typer's ``opts``; a flag's
    off spellings in ``off``), the type of its value (bool: a flag; list: repeatable text) and its bounds
    (``min``, ``max`` and ``clamp``, as ``plain_value`` reads them of a typer declaration)."""

    __slots__ = ("field", "spellings", "kind", "min", "max", "off")
    clamp = False

    def __init__(
        self,
        field: str,
        spellings: tuple[str, ...],
        kind: type,
        min: int | None = None,
        max: int | None = None,
        off: tuple[str, ...] = (),
    ) -> None:
        self.field, self.spellings, self.kind, self.min, self.max, self.off = field, spellings, kind, min, max, off


OPTIONS = (
    Option("id_field", ("--id-field",), str),
    Option("pair_by_line", ("--pair-by-line",), bool),
    Option("check_id", ("--check-id",), list),
    Option("output_format", ("--format", "-f"), str),
    Option("output", ("--output", "-o"), str),
    Option("strict", ("--strict",), bool),
    Option("plugin", ("--plugin",), list),
    Option("confidence_metric_names", ("--confidence-metrics",), str),
    Option("ece_bins", ("--ece-bins",), int, 1, 100),
    Option("budgets", ("--budgets",), str),
    Option("workers", ("--workers", "-w"), int, 1),
    Option("save_state", ("--save-state",), str),
    Option("dask", ("--dask",), str),
    Option("show_progress", ("--progress",), bool, off=("--no-progress",)),
    Option("fail_under", ("--fail-under",), list),
    Option("gates_file", ("--gates",), str),
    Option("no_data_passes", ("--no-data-passes",), bool),
    Option("junit_path", ("--junit",), str),
    Option("html_path", ("--html",), str),
    Option("suggest_thresholds", ("--suggest-thresholds",), str),
    Option("show_errors", ("--show-errors",), int, 0),
    Option("non_matches", ("--non-matches",), str),
    Option("per_document", ("--per-document",), str),
    Option("save_schema", ("--save-schema",), str),
    Option("ci", ("--ci",), float),
    Option("bootstrap", ("--bootstrap",), int, 10),
    Option("seed", ("--seed",), int, 0),
    Option("iou_thresholds", ("--iou-thresholds",), str),
    Option("box_found", ("--box-found",), str),
    Option("slice_by", ("--slice-by",), list),
    Option("fdr", ("--fdr",), float),
    Option("limit", ("--limit",), list),
    Option("schema_resource", ("--schema-resource",), list),
    Option("assert_formats", ("--assert-formats",), bool),
    Option("llm_base_url", ("--llm-base-url",), str),
    Option("llm_api_key_env", ("--llm-api-key-env",), str),
    Option("allow_network", ("--allow-network",), list),
    Option("llm_cache", ("--llm-cache",), str),
    Option("dry_run", ("--dry-run",), bool),
    Option("judge_pairing", ("--judge-pairing",), str),
    Option("debug", ("--debug",), bool),
    # issue 41, baseline
    Option("save_baseline", ("--save-baseline",), str),
    Option("baseline", ("--baseline",), str),
    Option("baseline_any_schema", ("--baseline-any-schema",), bool),
    Option("fail_on_regression", ("--fail-on-regression",), bool),
    # issue 41, policy
    Option("target_precision", ("--target-precision",), list),
    Option("policy_level", ("--policy-level",), float),
    Option("write_policy", ("--write-policy",), str),
    Option("policy", ("--policy",), str),
    # issue 42, item 4: the noise ceiling
    Option("ceiling", ("--ceiling",), str),
)
_SPELLINGS = {spelling: option for option in OPTIONS for spelling in (*option.spellings, *option.off)}


def main(args: list[str]) -> int | None:
    """``stickler ARGS`` run here when ``parse`` reads them (the exit code), else None: the typer app's to run."""
    if COMPLETION in os.environ:  # a shell asks for completions: typer's to answer
        return None
    read = parse(args)
    if read is None:
        return None
    from . import exits
    from .eval_run import run_eval

    return exits.main(lambda: run_eval(read), "--debug" in args)  # as cli/app.py's main judges --debug


def parse(args: list[str]) -> EvalArgs | None:
    """``eval``'s ``EvalArgs`` from ``args`` (the command line after ``stickler``, ``eval`` first) as typer would
    read them, when the format asked for draws nothing; None on anything that typer should judge."""
    if args[:1] != ["eval"]:
        return None
    values: dict[str, Any] = {}
    given: list[str] = []
    rest = args[1:]
    k = 0
    while k < len(rest):
        token = rest[k]
        k += 1
        if token == "-" or not token.startswith("-"):
            given.append(token)
            continue
        name, equals, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        option = _SPELLINGS.get(name)
        if option is None:  # --help, --, an unknown option, a short one run together with its value (-fjson)
            return None
        if option.kind is bool:
            if equals:  # typer: "Option '--strict' does not take a value."
                return None
            values[option.field] = name not in option.off
            continue
        if not equals:
            if k == len(rest):  # typer: "Option '--format' requires an argument."
                return None
            inline = rest[k]
            k += 1
        if inline.startswith("-") and inline != "-":  # the value, or an option? typer's to say
            return None
        if option.kind is list:
            values.setdefault(option.field, []).append(inline)
            continue
        value = plain_value(option.kind, option, inline)
        if value is _UNSURE:  # typer's check, with typer's message
            return None
        values[option.field] = value
    if len(given) > len(ARGUMENTS) or values.get("output_format") not in FORMATS:
        return None
    from .eval_run import EvalArgs

    return EvalArgs(**dict(zip(ARGUMENTS, given)), **values)
