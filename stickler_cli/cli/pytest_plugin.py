"""The pytest plugin (pyproject.toml, entry point ``pytest11``): model quality as a test like any other.

::

    def test_invoice_model(stickler):
        stickler.eval("schema.json", "gt.jsonl", "pred.jsonl", fail_under={"weighted_overall_score": 0.9})

The fixture ``stickler`` runs ``stickler eval`` in the test's process: the same option checks (cli/options.py),
the same run (run/evaluate.py), the same report (report/build.py) and the same gates (report/gates.py). A failed
gate fails the test, naming each failed gate, its figure and its threshold, then the worst fields and documents;
with ``baseline=`` and ``fail_on_regression=True``, so does a field worse than the baseline (issue 41), named.
Paths are relative to the test file's directory. The report's summary is attached to the test as the property
``stickler_report`` (JUnit XML), and the terminal report ends with a line per ``stickler.eval`` call.

pytest imports this module at start-up wherever stickler is installed: it imports nothing of the engine until
``stickler.eval`` runs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

PROPERTY = "stickler_report"  # the name of the test property (JUnit XML) holding the report's summary
SHOWN = 3  # worst fields and worst documents in a failure's message
VALUE_SHOWN = 60  # characters of a value in a failure's message

# The keywords of ``stickler.eval`` beyond the three files, with their defaults: those of ``stickler eval``'s
# options (``--plugin`` is ``plugins``, ``--limit`` is ``limits`` and ``--schema-resource`` is
# ``schema_resources``, as mappings; ``--confidence-metrics``, ``--budgets``, ``--check-id``, ``--slice-by`` and
# ``--allow-network`` take a list or the command line's text). Left out, because the fixture returns the report
# and pytest reports the verdict: --format, --output, --junit, --html, --progress, --save-state, --non-matches,
# --per-document, --suggest-thresholds, --save-schema and --debug. ``target_precision`` takes P, a mapping of
# FIELD to P, or a list of P and "FIELD=P" texts.
OPTIONS: dict[str, Any] = {
    "fail_under": None,
    "gates": None,
    "no_data_passes": False,
    "id_field": None,
    "pair_by_line": False,
    "check_id": None,
    "strict": False,
    "workers": None,
    "dask": None,
    "plugins": None,
    "limits": None,
    "schema_resources": None,
    "assert_formats": False,
    "slice_by": None,
    "fdr": 0.05,
    "ci": None,
    "bootstrap": 1000,
    "seed": 0,
    "confidence_metrics": "auroc,brier_score,ece,error_capture_at_budget",
    "ece_bins": 10,
    "budgets": "0.1,0.3,0.5",
    "iou_thresholds": "0.5:0.95:0.05",
    "box_found": "value-and-iou",
    "show_errors": 0,
    "llm_base_url": None,
    "llm_api_key_env": None,
    "allow_network": None,
    "llm_cache": None,
    "judge_pairing": "full",
    # issue 41 (docs/decisions.md, docs/decisions-baseline.md)
    "target_precision": None,
    "policy_level": 0.95,
    "write_policy": None,
    "policy": None,
    "save_baseline": None,
    "baseline": None,
    "baseline_any_schema": False,
    "fail_on_regression": False,
    # issue 42, item 4 (docs/agreement.md, "The noise ceiling")
    "ceiling": None,
}


# The options given as a dict, and what each maps.
MAPPINGS = {"fail_under": "gate -> threshold", "limits": "name -> value", "schema_resources": "URL -> file"}
# The whole-number options, and the typer declaration (cli/options.py) whose bounds they keep, as on the command line.
WHOLE_NUMBERS = {
    "bootstrap": "BOOTSTRAP_OPTION",
    "seed": "SEED_OPTION",
    "ece_bins": "ECE_BINS_OPTION",
    "show_errors": "SHOW_ERRORS_OPTION",
}
# The options that take a number (a rate or a level), checked as numbers before the CLI's checks compare them.
NUMBERS = ("fdr", "ci", "policy_level")


class Evaluated(NamedTuple):
    """What ``stickler.eval`` returns: the report (the dict of ``stickler eval --format json``, with its
    ``gates``) and the gate results (one per gate and matching field). ``report, gates = stickler.eval(...)``."""

    report: dict[str, Any]
    gates: list[dict[str, Any]]

    @property
    def passed(self) -> bool:
        return not any(r["status"] == "failed" for r in self.gates)


class Stickler:
    """The ``stickler`` fixture: ``eval`` runs an evaluation for the test that asked for it."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._base = Path(request.path).parent
        self._node = request.node

    def eval(
        self, schema: str | os.PathLike, ground_truth: str | os.PathLike, predictions: str | os.PathLike, **options: Any
    ) -> Evaluated:
        """Evaluate ``predictions`` against ``ground_truth`` as ``schema`` says, as ``stickler eval`` does, and check
        the gates of ``fail_under`` (a mapping of gate to threshold, written as for ``--fail-under``:
        ``{"weighted_overall_score": 0.9, "line_items.*.cm_recall": 0.8}``) and of ``gates`` (a TOML file whose
        ``[fail-under]`` table holds gates). A failed gate fails the test; a gate with no data fails unless
        ``no_data_passes=True``; with ``fail_on_regression=True``, a field significantly worse than ``baseline=``
        fails it too, as ``--fail-on-regression`` exits 1. Keywords: ``OPTIONS``; an unknown one is a TypeError."""
        from ..errors import SticklerError

        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            from ..errors import suggest

            raise TypeError(
                f"stickler.eval() got an unknown option {unknown[0]!r}{suggest(unknown[0], OPTIONS)}; "
                f"options: {', '.join(OPTIONS)}"
            )
        for name in MAPPINGS:
            if options.get(name) is not None and not isinstance(options[name], dict):
                raise TypeError(f"stickler.eval(): {name}= takes a dict ({MAPPINGS[name]}), got {options[name]!r}")
        given = {**OPTIONS, **options}
        given["target_precision"] = _targets(given["target_precision"])
        files = [self._path(schema), self._path(ground_truth), self._path(predictions)]
        try:
            with _process_settings():
                report, results = _evaluate(files, given, self._path)
        except SticklerError as exc:
            error = f"stickler.eval: {exc}"
        else:
            error = None
        if error is not None:  # outside the except clause: one line, not the error twice
            pytest.fail(error, pytrace=False)
        # What record_property does, without its warning under junit_family xunit2 (pytest's default): the property
        # is written all the same, in the test case's <properties> (docs/ci/pytest.md).
        self._node.user_properties.append((PROPERTY, summary(report, results)))
        failed = [r for r in results if r["status"] == "failed"]
        regressed = given["fail_on_regression"] and report["baseline"]["regressed"]  # as --fail-on-regression
        if failed or regressed:
            pytest.fail(failure_message(report, results, not report["document_count"], regressed), pytrace=False)
        return Evaluated(report, results)

    def _path(self, given: str | os.PathLike) -> str:
        """``given`` from the test file's directory, shown from the working directory when it lies below it."""
        path = self._base / Path(given)
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)


@pytest.fixture
def stickler(request: pytest.FixtureRequest) -> Stickler:
    """Evaluate structured outputs in a test: ``stickler.eval(schema, ground_truth, predictions, fail_under={...})``
    (docs/ci/pytest.md)."""
    return Stickler(request)


class _process_settings:
    """The bounds and the LLM settings are process-wide (``stickler eval`` sets them once a process): put back
    after each call those that were in force, so that one test's ``limits`` never reach the next test."""

    def __enter__(self) -> None:
        from .. import limits

        self._limits = limits.current()
        llm = sys.modules.get("stickler_cli.comparators.llm")
        self._llm = llm.current_access() if llm is not None else None

    def __exit__(self, *exc: Any) -> None:
        from .. import limits

        limits.use(self._limits)
        if self._llm is not None:
            from ..comparators.llm import configure

            configure(self._llm)


def _evaluate(files: list[str], o: dict[str, Any], path: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The run of ``stickler eval`` (cli/eval_run.evaluate, the same function) on ``files`` (schema, ground
    truth, predictions) with the options ``o``, read as the CLI reads its own: (report, gate results)."""
    from .. import limits
    from ..errors import UsageError
    from ..report import gates as quality_gates
    from .eval_run import EvalArgs, evaluate
    from . import option_values as cli
    from . import options as declared  # the typer declarations, whose bounds the whole numbers keep

    # The bounds as the CLI has them (the working directory's [tool.stickler.limits]), then limits= over them.
    project = limits.parse(None, cli.tool_table("limits", "NAME = VALUE"))
    limits.use(limits.parse(None, o["limits"], base=project, table_origin="limits="))
    _check_numbers(o, declared)
    if o["judge_pairing"] not in cli.JUDGE_PAIRINGS:
        raise UsageError(f"judge_pairing={o['judge_pairing']!r}: must be 'full' or 'proxy'")
    if (o["fail_on_regression"] or o["baseline_any_schema"]) and not o["baseline"]:
        raise UsageError("fail_on_regression= and baseline_any_schema= compare with a baseline: give baseline=FILE")
    gates_file = path(o["gates"]) if o["gates"] else None
    # A test's gates are those it names: not pyproject.toml's [tool.stickler.fail-under], the CLI's for one data set.
    gates = quality_gates.collect([], gates_file, pyproject=None)
    given = [quality_gates.make(str(k), v, "fail_under=") for k, v in (o["fail_under"] or {}).items()]
    gates = list({g.key: g for g in [*gates, *given]}.values())  # fail_under= wins, as --fail-under does
    schema, ground_truth, predictions = files
    files_of = {name: path(o[name]) if o[name] else None for name in PATHS}
    args = EvalArgs(
        schema=schema,
        ground_truth=ground_truth,
        predictions=predictions,
        id_field=o["id_field"],
        pair_by_line=o["pair_by_line"],
        check_id=_listed(o["check_id"]),
        strict=o["strict"],
        plugin=[path(p) if p.endswith(".py") else p for p in _listed(o["plugins"]) or []],
        confidence_metric_names=_texted(o["confidence_metrics"]),
        ece_bins=o["ece_bins"],
        budgets=_texted(o["budgets"]),
        workers=o["workers"],
        dask=o["dask"],
        show_progress=False,
        gates_file=gates_file,
        show_errors=o["show_errors"],
        ci=o["ci"],
        bootstrap=o["bootstrap"],
        seed=o["seed"],
        iou_thresholds=o["iou_thresholds"],
        box_found=o["box_found"],
        slice_by=_listed(o["slice_by"]),
        fdr=o["fdr"],
        schema_resource=[f"{url}={path(file)}" for url, file in (o["schema_resources"] or {}).items()],
        assert_formats=o["assert_formats"],
        llm_base_url=o["llm_base_url"],
        llm_api_key_env=o["llm_api_key_env"],
        allow_network=_listed(o["allow_network"]),
        judge_pairing=o["judge_pairing"],
        baseline_any_schema=bool(o["baseline_any_schema"]),
        fail_on_regression=bool(o["fail_on_regression"]),
        target_precision=o["target_precision"],
        policy_level=o["policy_level"],
        **files_of,
    )
    outcome = evaluate(args, gates, "schema, ground_truth, predictions", lambda option: option[2:].replace("-", "_"))
    assert outcome is not None  # no dry run here
    report = outcome.report
    report["gates"] = quality_gates.check(gates, report, o["no_data_passes"])
    return report, report["gates"]


PATHS = ("llm_cache", "save_baseline", "baseline", "write_policy", "policy", "ceiling")  # files, from the test's folder


def _check_numbers(o: dict[str, Any], declared: Any) -> None:
    """The whole-number options within the bounds the command line declares for them (typer checks those there);
    ``workers`` at least 1 (``--workers``)."""
    from ..errors import UsageError

    bounds = {
        name: (getattr(declared, option).min, getattr(declared, option).max) for name, option in WHOLE_NUMBERS.items()
    }
    if o["workers"] is not None:
        bounds["workers"] = (1, None)
    for name, (low, high) in bounds.items():
        value = o[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"{name}={value!r}: expected a whole number")
        if (low is not None and value < low) or (high is not None and value > high):
            within = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise UsageError(f"{name}={value}: must be {within}")
    for name in NUMBERS:  # their bounds are the CLI's checks (option_values.py)
        value = o[name]
        if (value is not None or name != "ci") and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise UsageError(f"{name}={value!r}: expected a number")


def _targets(value: Any) -> list[str] | None:
    """``target_precision=``: P, a mapping of FIELD to P, or a list of P and ``"FIELD=P"``, as the texts of
    ``--target-precision`` (whose check, report/policy.py, reads them); a TypeError for anything else."""
    if value is None:
        return None
    if isinstance(value, dict):
        items = [(f"{field}=", p) for field, p in value.items()]
    else:
        items = [("", p) for p in (value if isinstance(value, (list, tuple)) else [value])]
    if any(isinstance(p, bool) or not isinstance(p, (str, int, float)) for _, p in items):
        raise TypeError(
            "stickler.eval(): target_precision= takes P, a dict of FIELD to P or a list of P and 'FIELD=P', "
            f"got {value!r}"
        )
    return [f"{field}{p}" for field, p in items]


def _listed(value: Any) -> list[str] | None:
    """A repeatable option: one text, or a list of them."""
    if value is None:
        return None
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _texted(value: Any) -> str:
    """A comma-separated option (``--budgets 0.1,0.3``): its text, or a list of its items."""
    return value if isinstance(value, str) else ",".join(str(v) for v in value)


def summary(report: dict[str, Any], results: list[dict[str, Any]]) -> str:
    """The test property ``stickler_report``: the run's figures and gates, compact JSON."""
    inputs = report.get("inputs") or {}
    fields = {
        path: {k: block.get(k) for k in ("cm_precision", "cm_recall", "cm_f1", "mean_score")}
        for path, block in report["field_metrics"].items()
    }
    gates = [{k: r[k] for k in ("gate", "actual", "threshold", "status", "no_data")} for r in results]
    kept = {
        "schema": (report.get("schema") or {}).get("path"),
        "ground_truth": inputs.get("ground_truth"),
        "predictions": inputs.get("predictions"),
        "document_count": report["document_count"],
        "metrics": {k: v for k, v in report["metrics"].items() if not isinstance(v, dict)},
        "field_metrics": fields,
        "gates": gates,
    }
    block = report.get("baseline")
    if block is not None:  # baseline=: what the comparison found
        kept["baseline"] = {k: block[k] for k in ("file", "worse", "better", "regressed")}
    return json.dumps(kept, separators=(",", ":"), allow_nan=False)


def failure_message(report: dict[str, Any], results: list[dict[str, Any]], empty: bool, regressed: bool = False) -> str:
    """What a failed test says: with ``regressed`` (fail_on_regression=), the comparison with the baseline and its
    worse fields; each failed gate with its figure and threshold; then the worst fields and the worst documents
    (a few each)."""
    from ..report.gates import failed, no_data_hint, shown_actual, threshold_text, verdict
    from .output import printable

    bad = failed(results)
    predictions = (report.get("inputs") or {}).get("predictions")
    if isinstance(predictions, list):  # shards
        predictions = ", ".join(predictions)
    of = f"{report['document_count']:,} documents of {predictions}"
    lines = _regression(report["baseline"], of) if regressed else []
    if bad or not regressed:
        lines.append(f"stickler: {verdict(results)} ({of})")
    width = max((len(r["gate"]) for r in bad), default=0)
    for r in bad:
        figure = shown_actual(r)
        said = f"{figure} < {threshold_text(r['threshold'])}" if not r.get("no_data") else figure
        lines.append(f"  {r['gate']:<{width}}  {said}")
    hint = no_data_hint(results, empty)
    if hint:
        lines.append("  (" + hint.replace("--no-data-passes", "no_data_passes=True") + ")")
    if empty:
        lines.append("  (no document was scored: every gate fails)")
    lines += _worst_fields(report["field_metrics"])
    lines += _worst_documents(report.get("worst_documents") or [])
    return "\n".join(printable(line) for line in lines)


def _regression(block: dict[str, Any], of: str) -> list[str]:
    """The comparison with the baseline that failed the test: its verdict, what the report says first (another
    stickler, another schema), and each worse field with its documents and mean scores."""
    lines = [f"stickler: {block['verdict']} ({of}; baseline {block['file']})"]
    lines += [f"  ({notice})" for notice in block["notices"]]
    worse = [f for f in block["fields"] if f["verdict"] == "worse"]
    width = max((len(f["path"]) for f in worse), default=0)
    for f in worse:
        was, now = f.get("baseline_mean_score"), f.get("run_mean_score")
        scores = "" if was is None or now is None else f"; mean score {was:.3f} -> {now:.3f}"
        qs = [q for q in (f.get("mcnemar_q"), f.get("score_q")) if q is not None]
        q = f"; q {min(qs):.2g}" if qs else ""
        lines.append(
            f"  {f['path']:<{width}}  worse in {f['worse']} of {f['documents']} documents, "
            f"better in {f['better']}{scores}{q}"
        )
    return lines


def _worst_fields(fields: dict[str, dict[str, Any]]) -> list[str]:
    """The fields of lowest F1 (then lowest mean score), with their counts."""
    scored = [(p, b) for p, b in fields.items() if b.get("cm_f1") is not None and b["cm_f1"] < 1.0]
    if not scored:
        return []
    scored.sort(key=lambda item: (item[1]["cm_f1"], item[1].get("mean_score") or 0.0, item[0]))
    width = max(len(p) for p, _ in scored[:SHOWN])
    lines = ["worst fields:"]
    for path, b in scored[:SHOWN]:
        mean = b.get("mean_score")
        lines.append(
            f"  {path:<{width}}  F1 {b['cm_f1']:.3f}  score {'–' if mean is None else f'{mean:.3f}'}  "
            f"TP {b['tp']} FA {b['fa']} FD {b['fd']} FN {b['fn']}"
        )
    return lines


def _worst_documents(worst: list[dict[str, Any]]) -> list[str]:
    """The documents of lowest score, each with its first failing comparisons as ground truth != prediction."""
    from ..analyses.failures import MISSES, imperfect, misses_not_shown

    worst = imperfect(worst)[:SHOWN]
    if not worst:
        return []
    lines = ["worst documents:"]
    for doc in worst:
        misses = [c for c in doc["comparisons"] if c["type"] in MISSES]
        more = len(misses) - SHOWN + misses_not_shown(doc)
        lines.append(f"  {doc['doc_id']}  score {doc['score']:.3f}")
        for c in misses[:SHOWN]:
            lines.append(f"    {c['path']} ({c['type']}): {_shown(c['gt'])} != {_shown(c['pred'])}")
        if more > 0:
            lines.append(f"    … and {more:,} more")
    return lines


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= VALUE_SHOWN else text[: VALUE_SHOWN - 1] + "…"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """A line per ``stickler.eval`` call, read back from the tests' ``stickler_report`` properties (so that it
    holds under pytest-xdist too)."""
    lines = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for name, value in getattr(report, "user_properties", ()):
                if name == PROPERTY:
                    lines.append(_summary_line(report.nodeid, value))
    if lines:
        terminalreporter.write_sep("-", "stickler")
        for line in sorted(lines):
            terminalreporter.write_line(line)


def _summary_line(nodeid: str, value: str) -> str:
    from ..report.gates import verdict

    kept = json.loads(value)
    score = kept["metrics"].get("weighted_overall_score")
    shown = "–" if score is None else f"{score:.3f}"
    gates = f", {verdict(kept['gates'])}" if kept["gates"] else ""
    block = kept.get("baseline")
    if block is None:
        held = ""
    elif block["worse"]:
        held = f", worse than the baseline on {', '.join(block['worse'])}"
    else:  # regressed with no field worse: no document or no field in common
        held = ", nothing compared with the baseline" if block["regressed"] else ", not worse than the baseline"
    return f"{nodeid}: {kept['document_count']:,} documents, weighted_overall_score {shown}{gates}{held}"
