"""Quality gates: ``--fail-under METRIC=VALUE`` makes a run fail (exit 1) below a bar.

A gate names an overall metric (``weighted_overall_score=0.9``) or a field path
and a metric (``invoice_id.cm_f1=0.99``); the path may be a glob
(``line_items.*.cm_recall=0.8``: one gate per matching field). Gates come from
the command line, a ``--gates`` TOML file and ``[tool.stickler]`` in the
working directory's ``pyproject.toml``; a gate on the command line replaces a
file's gate of the same name.

A gate may also name a leaf roll-up (report.aggregate_counts): ``aggregate.cm_f1=0.9``
for the whole document's, ``vendor.aggregate.cm_f1=0.9`` for an object's or a list of
objects' (globs too: ``*.aggregate.cm_recall``). ``aggregate`` before the metric always
means the roll-up; a field that is itself named ``aggregate`` is gated through a glob
that matches it literally (``x.aggregat[e].cm_f1``).

A gate may name a slice (``--slice-by``, slice_stats.py): ``slice:PATH=VALUE:METRIC`` holds METRIC (an
overall or a field's, as above) to the documents whose ground truth has VALUE at PATH:
``slice:vendor.country=DE:invoice_id.cm_f1=0.95``. VALUE may be a glob (``slice:vendor.country=*:...``:
one gate per slice value) or a special slice such as ``(missing)``. A slice gate slices the run by its
path. A slice the run did not see (or pooled into ``(other)``) is "no data".

A metric with nothing to measure (recall of a field never present in the ground
truth, a slice the run did not see) is "no data", and a gate on it FAILS, said as
failed for lack of data, never with a figure: a pipeline must not go green on what
it did not measure. ``--no-data-passes`` (eval, merge, split) reports such a gate
"no data" instead, like a skipped test. A run that scored no document at all fails
every gate, with or without it: an empty input must not pass a pipeline.

The record figures count what is missing against the run: ``valid_json_rate`` and
``schema_valid_rate`` are shares of the predictions due (one per ground-truth
document, and one per prediction read without a ground truth), so a missing
prediction is neither valid JSON nor schema-valid; ``coverage`` is the share of
ground-truth documents that have a prediction (report.schema_conformance).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ..errors import UsageError, suggest

if TYPE_CHECKING:
    from ..plan import Plan

# issue 41, policy: the auto-accept policy's figures (report/policy.py), with --target-precision or --policy
POLICY_OVERALL = ("straight_through_rate", "policy_holds")
POLICY_FIELD = ("coverage",)
RECORD_FIGURES = ("valid_json_rate", "schema_valid_rate", "coverage")  # report["schema_conformance"]'s
OVERALL = (
    "weighted_overall_score",
    "cm_precision",
    "cm_recall",
    "recall_with_fd",
    "cm_f1",
    "cm_accuracy",
    *RECORD_FIGURES,
    *POLICY_OVERALL,
)
PER_FIELD = ("cm_precision", "cm_recall", "recall_with_fd", "cm_f1", "cm_accuracy", "mean_score", *POLICY_FIELD)
AGGREGATE = "aggregate"  # FIELD.aggregate.METRIC, aggregate.METRIC: a leaf roll-up's figure
ROLLED_UP = ("cm_precision", "cm_recall", "recall_with_fd", "cm_f1", "cm_accuracy")
TABLE = "fail-under"  # the TOML table: [fail-under] in a gates file, [tool.stickler.fail-under] in pyproject.toml
# The tables [tool.stickler] may hold (limits: see limits.py; schema-resources: URL = "file", see schema/registry.py).
TOOL_TABLES = (TABLE, "limits", "schema-resources")

SLICE = "slice:"  # slice:PATH=VALUE:METRIC
# What a slice keeps (slicing.py): the counts, and the documents' scores; no mean score, roll-up or conformance.
SLICE_FIELD = ROLLED_UP
SLICE_OVERALL = ("weighted_overall_score", *SLICE_FIELD)

PASSED, FAILED, NO_DATA = "passed", "failed", "no data"


@dataclass(frozen=True)
class Gate:
    key: str  # as written: "line_items.*.cm_recall"
    threshold: float
    origin: str  # where it was written: "--fail-under", a file name

    @property
    def pattern(self) -> str | None:
        """The field path (or glob) the gate is on; None for an overall metric."""
        return split(self.inner)[0]

    @property
    def metric(self) -> str:
        """``cm_f1``; ``aggregate.cm_f1`` for a roll-up's."""
        return split(self.inner)[1]

    @property
    def slice(self) -> tuple[str, str] | None:
        """(slicing path, value or glob) of a slice gate."""
        found = slice_of(self.key)
        return None if found is None else (found[0], found[1])

    @property
    def inner(self) -> str:
        """The key without its slice: ``invoice_id.cm_f1`` of ``slice:vendor.country=DE:invoice_id.cm_f1``."""
        found = slice_of(self.key)
        return self.key if found is None else found[2]

    @property
    def rolled_up(self) -> bool:
        return self.metric.startswith(AGGREGATE + ".")


def split(key: str) -> tuple[str | None, str]:
    """(field path or glob, metric) of a gate's key; no path for the run's figures."""
    if key in OVERALL:
        return None, key
    path, _, metric = key.rpartition(".")
    if path == AGGREGATE and metric in ROLLED_UP:
        return None, key
    head, dot, tail = path.rpartition(".")
    if dot and head and tail == AGGREGATE and metric in ROLLED_UP:
        return head, f"{AGGREGATE}.{metric}"
    return path, metric


def slice_of(key: str) -> tuple[str, str, str] | None:
    """(path, value, metric key) of ``slice:PATH=VALUE:METRIC``; None for a gate on the whole run. The
    metric follows the last colon (a field path has none) and the value the first ``=`` (a path has none)."""
    if not key.startswith(SLICE):
        return None
    head, colon, inner = key[len(SLICE) :].rpartition(":")
    path, equals, value = head.partition("=")
    if not colon or not equals or not path.strip() or not value or not inner:
        return "", "", ""
    return path.strip(), value, inner.strip()


def parse(text: str, origin: str = "--fail-under") -> Gate:
    """``KEY=VALUE`` from the command line."""
    key, sep, value = text.rpartition("=")
    if not sep or not key.strip():
        raise UsageError(
            f"{origin} {text!r}: expected METRIC=VALUE or FIELD.METRIC=VALUE, "
            "e.g. weighted_overall_score=0.9 or invoice_id.cm_f1=0.99"
        )
    return make(key.strip(), _number(text, value, origin), origin)


def _number(text: str, value: str, origin: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise UsageError(f"{origin} {text!r}: {value.strip()!r} is not a number") from None


def threshold_of(text: str, value: str, origin: str = "--fail-under") -> float:
    """The VALUE of a gate written ``KEY=VALUE`` (``text``): a number in [0, 1], else a UsageError naming the gate
    (the commands whose gates name metrics of their own: agree, stability)."""
    threshold = _number(text, value, origin)
    if not 0.0 <= threshold <= 1.0:
        raise UsageError(f"{origin} {text!r}: the threshold must be a number in [0, 1]")
    return threshold


def metric_gate(
    text: str,
    metrics: Sequence[str],
    form: str,
    example: str,
    origin: str = "--fail-under",
    hints: dict[str, str] | None = None,
) -> Gate:
    """``FIELD.METRIC=VALUE`` (FIELD a path or a glob), METRIC one of ``metrics``: a gate of the commands whose
    figures are not eval's (agree, stability). A usage error names the gate and, for a text not of the ``form``,
    shows ``example``; for an unknown metric, the known ones (and ``hints``' word for it, if any)."""
    key, sep, value = text.rpartition("=")
    key = key.strip()
    path, dot, metric = key.rpartition(".")
    if not sep or not dot or not path:
        raise UsageError(f"{origin} {text!r}: expected {form}, e.g. {example}")
    if metric not in metrics:
        raise UsageError(
            f"{origin} {text!r}: unknown metric {metric!r}{suggest(metric, metrics)}; known: {', '.join(metrics)}"
            + (hints or {}).get(metric, "")
        )
    return Gate(key, threshold_of(text, value, origin), origin)


def make(key: str, threshold: Any, origin: str) -> Gate:
    """A checked gate: a known metric and a threshold in [0, 1]."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise UsageError(f"{origin}: gate {key!r}: the threshold must be a number in [0, 1], got {threshold!r}")
    sliced = slice_of(key)
    if sliced is not None:
        from ..analyses.slicing import is_slice_path  # lazily: reading gates needs no numpy

        path, _, inner = sliced
        if not is_slice_path(path):
            raise UsageError(
                f"{origin}: gate {key!r}: expected slice:PATH=VALUE:METRIC, "
                "e.g. slice:vendor.country=DE:invoice_id.cm_f1"
            )
        field, metric = split(make(inner, threshold, origin).key)
        allowed = SLICE_OVERALL if field is None else SLICE_FIELD
        if metric not in allowed:
            raise UsageError(
                f"{origin}: gate {key!r}: a slice keeps counts, not {metric!r}; per slice: "
                f"{', '.join(SLICE_OVERALL)}, FIELD.METRIC with METRIC one of {', '.join(SLICE_FIELD)}"
            )
        return Gate(key, float(threshold), origin)
    if key not in OVERALL and not split(key)[1].startswith(AGGREGATE + "."):
        path, dot, metric = key.rpartition(".")
        if not dot or not path:
            raise UsageError(
                f"{origin}: gate {key!r}: unknown metric{suggest(key, OVERALL)}; overall metrics: "
                f"{', '.join(OVERALL)}; per field: FIELD.METRIC with METRIC one of {', '.join(PER_FIELD)}; "
                f"leaf roll-ups: aggregate.METRIC, FIELD.aggregate.METRIC with METRIC one of "
                f"{', '.join(ROLLED_UP)}"
            )
        if path.endswith(AGGREGATE) and (path == AGGREGATE or path.endswith("." + AGGREGATE)):
            raise UsageError(f"{origin}: gate {key!r}: a leaf roll-up has no {metric!r}; known: {', '.join(ROLLED_UP)}")
        if metric not in PER_FIELD:
            raise UsageError(
                f"{origin}: gate {key!r}: unknown field metric {metric!r}{suggest(metric, PER_FIELD)}; "
                f"known: {', '.join(PER_FIELD)}"
            )
    return Gate(key, float(threshold), origin)


def from_toml(path: str, under_tool: bool) -> list[Gate]:
    """The gates of a TOML file: its ``[fail-under]`` table (``[tool.stickler.fail-under]`` in pyproject.toml)."""
    import tomllib

    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: gates file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None
    table: Any = data
    if under_tool:
        tool = data.get("tool")
        table = tool.get("stickler") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        return []
    gates = table.get(TABLE, {})
    where = f"[tool.stickler.{TABLE}]" if under_tool else f"[{TABLE}]"
    if not isinstance(gates, dict):
        raise UsageError(f"{path}: {where} must be a table of METRIC = VALUE")
    known = TOOL_TABLES if under_tool else (TABLE,)
    unknown = sorted(k for k in table if k not in known)
    if unknown:
        raise UsageError(
            f"{path}: unknown key {unknown[0]!r}{suggest(unknown[0], known)}; "
            f"gates go in {where}" + (", bounds in [tool.stickler.limits]" if under_tool else "")
        )
    return [make(key, value, f"{path} {where}") for key, value in gates.items()]


PYPROJECT = "pyproject.toml"  # read from the working directory


def sources(gates_file: str | None, pyproject: str = PYPROJECT) -> list[tuple[str, str]]:
    """The files ``collect`` reads, as (what it is, path): a run must not write over them."""
    found = [("gates file", gates_file)] if gates_file else []
    if Path(pyproject).is_file():
        found.append(("project configuration", pyproject))
    return found


def collect(cli: Iterable[str], gates_file: str | None, pyproject: str | None = PYPROJECT) -> list[Gate]:
    """Every gate of a run: pyproject.toml's (none when ``pyproject`` is None), then the gates file's, then the
    command line's (later wins)."""
    chosen: dict[str, Gate] = {}
    if pyproject is not None and Path(pyproject).is_file():
        chosen.update((g.key, g) for g in from_toml(pyproject, under_tool=True))
    if gates_file:
        chosen.update((g.key, g) for g in from_toml(gates_file, under_tool=False))
    chosen.update((g.key, g) for g in (parse(text) for text in cli))
    return list(chosen.values())


def candidates(gate: Gate, plan: Plan) -> list[str]:
    """The field paths a field gate may name: every field's, or for a leaf roll-up's figure those of the
    objects and lists of objects (the nodes with fields beneath them)."""
    if gate.rolled_up:
        return [f.path for f in plan.fields if f.model is not None and f.model.fields]
    return [f.path for f in plan.fields]


def check_paths(gates: list[Gate], plan: Plan) -> None:
    """A field gate that names no field of ``plan`` is a usage error, found before the run rather than after it."""
    for gate in gates:
        if gate.pattern is not None:
            matching(gate, candidates(gate, plan))


def matching(gate: Gate, paths: list[str]) -> list[str]:
    """The field paths a field gate applies to; none is a usage error (checked before a run too)."""
    found = [p for p in paths if fnmatch.fnmatchcase(p, gate.pattern or "")]
    if not found:
        what = (
            "object or list of objects (a leaf roll-up is a node's with fields beneath it)"
            if gate.rolled_up
            else "field path"
        )
        raise UsageError(
            f"{gate.origin}: gate {gate.key!r} matches no {what}"
            f"{suggest(gate.pattern or '', paths)}; {'those' if gate.rolled_up else 'fields'}: "
            f"{', '.join(paths) or 'none'}"
        )
    return found


def check(gates: list[Gate], report: dict[str, Any], no_data_passes: bool = False) -> list[dict[str, Any]]:
    """One result per gate and matching field: ``{gate, path, metric, threshold, actual, status, no_data}``;
    ``no_data_passes``: a figure with nothing to measure is "no data" rather than failed."""
    results: list[dict[str, Any]] = []
    fields = report["field_metrics"]
    empty = not report["document_count"]
    for gate in gates:
        if gate.slice is not None:
            results.extend(_slice_results(gate, report, empty, no_data_passes))
            continue
        if gate.pattern is None:
            results.append(result(gate, None, _counted(report["metrics"], gate.metric, report), empty, no_data_passes))
            continue
        if gate.metric in POLICY_FIELD:  # the policy's fields: those with confidences or named by a target
            policy_fields = (report.get("policy") or {}).get("fields") or {}
            results.extend(
                result(gate, p, policy_fields.get(p, {}).get("coverage"), empty, no_data_passes)
                for p in matching(gate, list(policy_fields) or list(fields))
            )
            continue
        # A roll-up's gate names the nodes that have one; _counted reads "aggregate.METRIC" in its block.
        paths = [p for p, block in fields.items() if AGGREGATE in block] if gate.rolled_up else list(fields)
        results.extend(
            result(gate, p, _counted(fields[p], gate.metric), empty, no_data_passes) for p in matching(gate, paths)
        )
    return results


def _slice_results(gate: Gate, report: dict[str, Any], empty: bool, no_data_passes: bool) -> list[dict[str, Any]]:
    """A slice gate's results: one per slice value matching and field matching; "no data" when no value matches."""
    path, value = gate.slice or ("", "")
    sliced = (report.get("slices") or {}).get("paths", {})
    if path not in sliced:
        raise UsageError(
            f"{gate.origin}: gate {gate.key!r}: the run was not sliced by {path!r}"
            f"{suggest(path, list(sliced))} (sliced by: {', '.join(sliced) or 'nothing'}; "
            "give `stickler eval --slice-by` before saving the states)"
        )
    values = sliced[path]["values"]
    chosen = [v for v in values if fnmatch.fnmatchcase(v, value)]
    where = {"path": path, "value": value}
    if not chosen:
        none = result(gate, gate.pattern, None, empty, no_data_passes)
        return [{**none, "slice": where}]
    results = []
    for v in chosen:
        block = values[v]
        if gate.pattern is None:
            metric = gate.metric
            actual = (
                block["weighted_overall_score"]
                if metric == "weighted_overall_score"
                else _counted(block["metrics"], metric)
            )
            found = [(None, actual)]
        else:
            fields = block["field_metrics"]
            found = [(p, _counted(fields[p], gate.metric)) for p in matching(gate, list(fields))]
        for field, actual in found:
            one = result(gate, field, actual, empty, no_data_passes)
            name = f"{SLICE}{path}={v}:{gate.metric if field is None else f'{field}.{gate.metric}'}"
            results.append({**one, "gate": f"{name} >= {gate.threshold:g}", "slice": {"path": path, "value": v}})
    return results


def threshold_text(threshold: float) -> str:
    """A gate's threshold as the user gave it: ``0.8697``, never rounded to a neighbour."""
    short = f"{threshold:g}"
    return short if float(short) == threshold else repr(threshold)


def actual_text(actual: float | None, threshold: float, digits: int = 3, none: str = "–") -> str:
    """A gate's figure to ``digits`` decimals, or to as many more as it takes to read on the side of the
    threshold it is on: 0.86962 against 0.8697 is ``0.8696`` (``0.870`` would read as passing what failed)."""
    if actual is None:
        return none
    for places in range(digits, 18):
        shown = f"{actual:.{places}f}"
        if (float(shown) < threshold) == (actual < threshold):
            return shown
    return repr(actual)


NO_DATA_SHOWN = "no data"  # a gate's figure where it had nothing to measure, in every output


def shown_actual(result: dict[str, Any], digits: int = 3) -> str:
    """A gate's figure as every output shows it: "no data" when it had nothing to measure (never a number that
    would read as measured, nor a dash that reads as a missing cell), else ``actual_text``."""
    if result.get("no_data") or result["actual"] is None:
        return NO_DATA_SHOWN
    return actual_text(result["actual"], result["threshold"], digits)


def failed(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in results if r["status"] == FAILED]


def lack_of_data(bad: list[dict[str, Any]]) -> str:
    """``, 2 for lack of data`` after a count of failed gates when some had nothing to measure; else nothing."""
    unmeasured = sum(1 for r in bad if r.get("no_data"))
    return f", {unmeasured} for lack of data" if unmeasured else ""


def verdict(results: list[dict[str, Any]]) -> str:
    """One line for people: "2 of 5 gate(s) failed, 1 for lack of data", "4 gate(s) passed, 1 without data"."""
    bad = failed(results)
    if bad:
        return f"{len(bad)} of {len(results)} gate(s) failed{lack_of_data(bad)}"
    no_data = sum(1 for r in results if r["status"] == NO_DATA)
    passed = f"{len(results) - no_data} gate(s) passed"
    return f"{passed}, {no_data} without data" if no_data else passed


def no_data_hint(results: list[dict[str, Any]], empty: bool) -> str | None:
    """What to say when some gate of a run that scored documents (not ``empty``) failed for lack of data (a
    figure the input cannot give): how to let such a gate pass, if that is what the user means."""
    if not empty and any(r.get("no_data") for r in failed(results)):
        return "a gate with no data fails; --no-data-passes lets it pass"
    return None


def result(
    gate: Gate, path: str | None, actual: float | None, empty: bool, no_data_passes: bool = False
) -> dict[str, Any]:
    """One gate's result as every command reports it: a run that evaluated nothing fails it; a figure that
    cannot be measured fails it too ("no_data": True), unless ``no_data_passes`` makes it "no data"."""
    no_data = empty or actual is None
    if empty:
        status = FAILED  # nothing was evaluated: --no-data-passes does not make an empty input pass
    elif actual is None:
        status = NO_DATA if no_data_passes else FAILED
    else:
        status = PASSED if actual >= gate.threshold else FAILED
    name = gate.key if path is None or path == gate.pattern else f"{path}.{gate.metric}"
    return {
        "gate": f"{name} >= {gate.threshold:g}",
        "pattern": gate.key,
        "path": path,
        "metric": gate.metric,
        "threshold": gate.threshold,
        "actual": actual,
        "status": status,
        "no_data": no_data,
    }


def policy_figure(block: dict[str, Any] | None, metric: str) -> float | None:
    """``straight_through_rate`` (None when it cannot be known) or ``policy_holds`` (the share of the applied
    policy's fields whose realised precision is not significantly below their target; None when a field has no
    accepted value to check, so that a policy is never found to hold on data it did not see)."""
    if block is None:  # a report without a policy (a command that fits none): nothing to measure
        return None
    if metric == "policy_holds":
        return block.get("holds")
    through = block["straight_through"]
    return None if through is None else through["rate"]


def check_policy_gates(gates: list[Gate], policy: bool, applied: bool) -> None:
    """A policy gate needs its policy: --target-precision or --policy; ``policy_holds`` needs --policy."""
    for gate in gates:
        # A field's coverage (FIELD.coverage) is the policy's; a bare ``coverage`` is the records' (RECORD_FIGURES).
        field_coverage = gate.metric in POLICY_FIELD and gate.pattern is not None
        if gate.slice is None and (gate.metric in POLICY_OVERALL or field_coverage) and not policy:
            raise UsageError(f"{gate.origin}: gate {gate.key!r} needs a policy: give --target-precision or --policy")
        if gate.slice is None and gate.metric == "policy_holds" and not applied:
            raise UsageError(f"{gate.origin}: gate {gate.key!r} checks a written policy: give --policy FILE")


def _counted(block: dict[str, Any], metric: str, report: dict[str, Any] | None = None) -> float | None:
    """A field's (or, with ``report``, the run's) figure, or None when its denominator is empty
    (nothing to measure)."""
    if report is not None and metric in RECORD_FIGURES:
        return report["schema_conformance"][metric]
    if report is not None and metric in POLICY_OVERALL:
        return policy_figure(report.get("policy"), metric)
    if metric.startswith(AGGREGATE + "."):
        return _counted(block[AGGREGATE], metric.split(".", 1)[1])
    if metric == "weighted_overall_score":
        return block[metric] if report and report["document_count"] else None
    tp, fp, fn = block["tp"], block["fp"], block["fn"]
    # Recall is measured wherever the ground truth holds a value (TP, FN or FD): every prediction wrong is
    # recall 0.0, a failed gate, not "nothing to measure" (its formula leaves FD out of the denominator).
    support = {
        "cm_precision": tp + fp,
        "cm_recall": tp + fn + block["fd"],
        "recall_with_fd": tp + fn + block["fd"],
        "cm_f1": tp + fp + fn,
        "cm_accuracy": tp + fp + fn + block["tn"],
    }
    if metric == "mean_score":
        return block.get("mean_score")
    return block[metric] if support[metric] else None
