"""What the commands' option values are checked and built into, without typer (cli/options.py declares the options).

The values are checked here and built into the option objects a run and a report take:
``run.options.RunOptions`` (``run_options``) and ``report.options.ReportOptions`` (``report_options``), once, at
the boundary. Nothing here imports typer or Rich: ``stickler eval --format json`` reads its options without them
(cli/light.py), and calls these as the typer command does.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args, get_origin

from .. import limits
from ..errors import UsageError

if TYPE_CHECKING:
    from ..confidence import ConfidenceMetric
    from ..plan import Plan
    from ..report.gates import Gate
    from ..report.options import ReportOptions
    from ..run.accumulate import Collect
    from ..run.options import RunOptions
    from ..run.reader import Pairing


# Without --workers, a run scores in one process unless both hold (make bench, case 5,
# docs/performance.md): on 2 cores a second worker was no reliable gain at any size measured (1 to
# 32 MB; the parent reads and pairs while the workers score), and 32 MB was the smallest size whose
# median gain passed 1.3×. --workers N overrides both.
AUTO_WORKERS_BYTES = 32 * 2**20
AUTO_WORKERS_MIN_CORES = 3

# How a list whose items hold a judged field (LLM, embeddings) pairs its items: engine/proxy.py.
JUDGE_PAIRINGS = ("full", "proxy")


def check_judge_pairing(judge_pairing: str) -> str:
    """``--judge-pairing``'s value, or a usage error (exit 2) naming the choices."""
    if judge_pairing not in JUDGE_PAIRINGS:
        raise UsageError(f"--judge-pairing must be full or proxy; got {judge_pairing!r}")
    return judge_pairing


FORMATS = ("table", "json", "markdown")

TABLE_OR_JSON = ("table", "json")


def check_bootstrap(bootstrap: int) -> None:
    """--bootstrap within its named bound: each resample is a pass over every document and keeps a row of
    figures per field (10,000,000 would take hours and gigabytes)."""
    most = limits.current().bootstrap_resamples
    if bootstrap > most:
        raise UsageError(
            f"--bootstrap {bootstrap:,}: more resamples than the limit of {most:,} (raise it with "
            "--limit bootstrap-resamples=N)"
        )


def within_cores(workers: int) -> int:
    """--workers, at most ``workers-per-core`` processes for each core this process may run on: more only
    compete for the cores (64 on 2 cores spawned 64 processes; 99,999 were killed). Said on stderr."""
    if workers <= 1:
        return workers
    from ..run.parallel import available_cores

    cores = available_cores()
    per_core = limits.current().workers_per_core
    most = cores * per_core
    if workers > most:
        sys.stderr.write(
            f"stickler: warning: --workers {workers:,} is more than {most} process(es) for the {cores} "
            f"core(s) this run may use (limit workers-per-core={per_core}): scoring on {most}\n"
        )
        return most
    return workers


def check_ci(level: float | None) -> None:
    if level is not None and not 0.0 < level < 1.0:
        raise UsageError(f"--ci must be a level between 0 and 1, such as 0.95; got {level:g}")


def check_fdr(fdr: float) -> None:
    if not 0.0 < fdr < 1.0:
        raise UsageError(f"--fdr must be a rate between 0 and 1, such as 0.05; got {fdr:g}")


def slice_paths(given: list[str] | None, gates: list[Gate]) -> tuple[str, ...]:
    """The --slice-by paths, then those the gates name (a slice gate slices by its path), each once."""
    from ..analyses.slicing import is_slice_path

    paths: list[str] = []
    for path in [*(given or []), *(g.slice[0] for g in gates if g.slice)]:
        if not is_slice_path(path):
            raise UsageError(
                f"--slice-by {path!r}: expected a dotted path of ground-truth keys, such as vendor.country"
            )
        if path not in paths:
            paths.append(path)
    return tuple(paths)


def check_format(output_format: str, allowed: tuple[str, ...] = FORMATS) -> None:
    if output_format not in allowed:
        raise UsageError(
            f"--format must be {', '.join(map(repr, allowed[:-1]))} or {allowed[-1]!r}, got {output_format!r}"
        )


def chosen_metrics(names: str, ece_bins: int, budgets: str) -> list[ConfidenceMetric]:
    """The metric objects the options ask for; a wrong name or value is a usage error."""
    from ..confidence import ECE, METRICS, ErrorCaptureAtBudget
    from ..errors import suggest

    try:
        budget_values = [float(b) for b in budgets.split(",") if b.strip()]
        chosen: list[ConfidenceMetric] = []
        for name in [n.strip() for n in names.split(",") if n.strip()]:
            if name not in METRICS:
                known = ", ".join(METRICS)
                raise UsageError(
                    f"--confidence-metrics: unknown metric {name!r}{suggest(name, METRICS)}; known: {known}"
                )
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


def box_settings(iou_thresholds: str, box_found: str) -> tuple[tuple[float, ...], str]:
    """(IoU thresholds, rule) of localisation mAP, checked before any work."""
    from ..analyses.localisation import check_rule, parse_thresholds

    return parse_thresholds(iou_thresholds), check_rule(box_found)


def llm_access(
    base_url: str | None = None,
    api_key_env: str | None = None,
    hosts: list[str] | None = None,
    cache: str | None = None,
    calls: bool = True,
) -> Any:
    """Adopt the user's LLM endpoint, key variable, allowed hosts and cache file for this run
    (``calls=False``: none is made, answers come from the cache only); the settings in force
    (comparators.llm.Access, for ``RunOptions.llm``), None when they are the defaults."""
    if (
        calls
        and base_url is None
        and api_key_env is None
        and not hosts
        and cache is None
        and "stickler_cli.comparators.llm" not in sys.modules
    ):
        return None  # the defaults, in force until the module is first imported (by a schema naming LLMComparator)
    from ..comparators.llm import configure

    return configure(
        base_url=base_url, api_key_env=api_key_env, allow_network=tuple(hosts or ()), cache=cache, calls=calls
    )


def load_plugins(specs: list[str] | None) -> list[tuple[str, str]]:
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


def tool_table(name: str, shape: str, pyproject: str = "pyproject.toml") -> dict | None:
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


def use_limits(items: list[str] | None) -> None:
    """Put the bounds in force: the defaults, raised by pyproject.toml's [tool.stickler.limits], then by --limit."""
    limits.use(limits.parse(items, tool_table("limits", "NAME = VALUE")))


def schema_resources(items: list[str] | None) -> dict[str, str]:
    """The URLs mapped to files: pyproject.toml's [tool.stickler.schema-resources], then --schema-resource."""
    from ..schema.registry import mapping

    table = tool_table("schema-resources", '"URL" = "FILE"')
    return mapping(items, table, "pyproject.toml [tool.stickler.schema-resources]")


def pairing_option(id_field: str | None, strict: bool, pair_by_line: bool, check_id: list[str] | None) -> Pairing:
    """The pairing of --id-field, --strict, --pair-by-line and --check-id (``RunOptions.pairing``), checked."""
    from ..run.options import asked_pairing

    check_pairing(id_field, pair_by_line, check_id)
    return asked_pairing(id_field, strict, pair_by_line, check_id)


def check_pairing(id_field: str | None, pair_by_line: bool, check_id: list[str] | None) -> None:
    if id_field is not None and not id_field.strip():
        raise UsageError("--id-field needs a field name (omit it to pair by line)")
    if id_field is not None and (pair_by_line or check_id):
        raise UsageError("--id-field pairs by id: --pair-by-line and --check-id are for pairing by line")
    if pair_by_line and check_id:
        raise UsageError("--pair-by-line turns the id check off; --check-id names the fields it compares: give one")
    for name in check_id or []:
        if not name.strip():
            raise UsageError("--check-id needs a field name")


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


def report_options(
    metric_names: str,
    ece_bins: int,
    budgets: str,
    iou_thresholds: str,
    box_found: str,
    ci: float | None,
    bootstrap: int,
    seed: int,
    fdr: float,
) -> ReportOptions:
    """The report's options from --confidence-metrics, --ece-bins, --budgets, --iou-thresholds, --box-found,
    --ci, --bootstrap, --seed and --fdr (checked when the command starts: ``check_ci``, ...)."""
    from ..report.options import ReportOptions

    metrics = chosen_metrics(metric_names, ece_bins, budgets)
    thresholds, rule = box_settings(iou_thresholds, box_found)
    return ReportOptions(tuple(metrics), thresholds, rule, ci, bootstrap, seed, fdr)


def check_policy_options(
    target_precision: list[str] | None, policy_level: float, write_policy: str | None, policy: str | None
) -> None:
    """issue 41, policy: --target-precision, --policy-level, --write-policy and --policy, before anything is read."""
    if not 0.0 < policy_level < 1.0:
        raise UsageError(f"--policy-level must be a level between 0 and 1, such as 0.95; got {policy_level:g}")
    if target_precision and policy:
        raise UsageError("--target-precision fits a policy, --policy checks one: give one of them")
    if write_policy and not target_precision:
        raise UsageError("--write-policy writes the policy fitted with --target-precision: give --target-precision")


def with_policy(
    reporting: ReportOptions,
    target_precision: list[str] | None,
    policy_level: float,
    policy: str | None,
    plan: Plan,
    gates: list[Gate],
) -> ReportOptions:
    """The report's options with the policy asked for (report/policy.py: a written one read and checked against
    ``plan``), once the policy gates are known to have their policy."""
    import dataclasses

    from ..report import gates as quality_gates

    options = None
    if target_precision or policy:
        from ..report import policy as policies

        targets = policies.parse_targets(target_precision or [], [f.path for f in plan.fields])
        applied = policies.read_policy(policy, plan) if policy else None
        options = policies.PolicyOptions(targets, applied["level"] if applied else policy_level, applied)
    quality_gates.check_policy_gates(gates, options is not None, bool(policy))
    return dataclasses.replace(reporting, policy=options)


def workers_option(workers: int | None, dask: str | None, plan: Plan, total_bytes: int) -> int:
    """--workers within the cores; without it, every core for a Dask cluster, else as ``_auto_workers`` says."""
    if workers is not None:
        return within_cores(workers)
    if dask:
        from ..run.parallel import available_cores

        return available_cores()
    return _auto_workers(plan, total_bytes)


def collect_option(
    show_errors: int,
    outputs: dict[str, str | None],
    ci: float | None,
    slices: tuple[str, ...],
    policy: bool = False,
    rows: bool = False,
) -> Collect:
    """What ``eval`` keeps beyond the counts (``RunOptions.collect``), from what its outputs show:
    --show-errors, --non-matches, --per-document, --ci, --save-state, --html, the slices and a policy asked for.
    ``rows``: each document's row and index, kept when a baseline is written or read (the rows ``--ci`` and
    ``stickler diff`` use, which workers and Dask return in input order)."""
    from ..run.accumulate import Collect

    bounds = limits.current()
    return Collect(
        worst=max(Collect.worst, show_errors),
        non_matches=bool(outputs.get("--non-matches")),
        per_document=bool(outputs.get("--per-document")),
        documents=ci is not None or rows,
        index=bool(outputs.get("--save-state")),
        # Explaining documents for the samples costs time: kept for the outputs that show them.
        failures=bounds.failures_per_field if outputs.get("--html") or outputs.get("--save-state") else 0,
        slices=slices,
        slice_values=bounds.slice_values,
        slice_chars=bounds.slice_value_chars,
        policy=policy,
    )


def run_options(
    pairing: Pairing,
    workers: int,
    dask: str | None,
    plugins: list[str] | None,
    llm: Any,
    collect: Collect,
    judge_pairing: str = "full",
) -> RunOptions:
    """The run's options, whole: the bounds are those in force (``use_limits`` put them there first)."""
    from ..run.options import RunOptions

    return RunOptions(
        pairing, workers, dask, tuple(plugins or ()), limits.current(), llm, collect, check_judge_pairing(judge_pairing)
    )


# -- a value as typer reads it, without pydantic -------------------------------------------------------------------
#
# typer (0.25 and later) checks each option's value with a pydantic TypeAdapter built on first use (~60 ms). The
# values stickler's options take are plain (text, a whole number, a decimal number, repeated text): those are read
# here the way pydantic reads them, by typer's check (cli/help.py) and by ``eval`` read without typer (cli/light.py);
# anything else (a sign, an exponent, spaces, a value out of range) is typer's to check, with typer's message.

_DIGITS = re.compile(r"[0-9]{1,18}")
_DECIMAL = re.compile(r"[0-9]{1,30}(\.[0-9]{1,30})?")
_UNSURE = object()


def plain_value(annotation: Any, info: Any, value: Any) -> Any:
    """``value`` as pydantic would give it for a str, bool, int, float or list[str] option, or
    ``_UNSURE`` when only pydantic should say (an unusual spelling, a value out of range)."""
    if annotation is str:
        return value if isinstance(value, str) else _UNSURE
    if annotation is bool:
        return value if isinstance(value, bool) else _UNSURE
    if annotation is int:
        if type(value) is int:
            number: Any = value
        elif isinstance(value, str) and _DIGITS.fullmatch(value):
            number = int(value)
        else:
            return _UNSURE
    elif annotation is float:
        if type(value) is float:
            number = value
        elif isinstance(value, str) and _DECIMAL.fullmatch(value):
            number = float(value)  # correctly rounded, as pydantic's parser is
        else:
            return _UNSURE
    elif get_origin(annotation) is list and get_args(annotation) == (str,):
        if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
            return list(value)
        return _UNSURE
    else:
        return _UNSURE
    if (
        getattr(info, "clamp", False)
        or (info.min is not None and number < info.min)
        or (info.max is not None and number > info.max)
    ):
        return _UNSURE
    return number
