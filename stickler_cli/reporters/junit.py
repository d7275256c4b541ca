"""JUnit XML, so that GitLab, Jenkins and GitHub show an evaluation as test results.

Two suites: ``stickler.gates`` has one test case per gate result (failed below
its threshold, skipped when there was nothing to measure); ``stickler.fields``
has one test case per field path, failing when a gate on that field failed, its
figures in ``system-out``. ``stickler split`` has the same gates suite and
``stickler.split``, a test case per figure; ``stickler diff``, ``stickler.diff``.
ElementTree escapes markup; characters XML 1.0 cannot hold at all (most
controls) are replaced first.
"""

from __future__ import annotations

import re
import socket
from datetime import datetime, timezone
from typing import Any
from xml.etree import ElementTree as ET

from ..report.gates import NO_DATA_SHOWN, actual_text, threshold_text
from ..run.reader import error_location
from .sanitize import plain

ERRORS_SHOWN = 50  # record problems a diff's suite lists in its system-err before "… and N more"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _text(value: Any, limit: int = 500) -> str:
    return _NOT_XML.sub("\ufffd", plain(value, limit))


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _actual(gate: dict[str, Any]) -> str:
    """A failed gate's figure, to as many decimals as it takes to read below its threshold."""
    return actual_text(gate["actual"], gate["threshold"], digits=4, none="n/a")


def _below(gate: dict[str, Any]) -> str:
    """Why a gate failed: its figure below the threshold, or nothing to measure (never a figure then)."""
    if gate.get("no_data") or gate["actual"] is None:
        return f"{NO_DATA_SHOWN} (threshold {threshold_text(gate['threshold'])})"
    return f"{_actual(gate)} < {threshold_text(gate['threshold'])}"


def render_junit(report: dict[str, Any]) -> bytes:
    gates = report.get("gates") or []
    timestamp = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    elapsed = f"{report.get('elapsed_seconds', 0.0):.3f}"
    root = ET.Element("testsuites", name=f"stickler {_text(report['schema']['model_name'], 100)}", time=elapsed)

    gate_suite = _gate_suite(root, gates, timestamp)
    field_suite = _suite(root, "stickler.fields", timestamp)
    by_field: dict[str, list[dict[str, Any]]] = {}
    for g in gates:
        if g["path"] is not None:
            by_field.setdefault(g["path"], []).append(g)
    for path, f in report["field_metrics"].items():
        case = ET.SubElement(field_suite, "testcase", name=_text(path, 300), classname="stickler.fields", time="0")
        failing = [g for g in by_field.get(path, []) if g["status"] == "failed"]
        if failing:
            ET.SubElement(
                case, "failure", type="GateFailed", message="; ".join(f"{g['metric']} {_below(g)}" for g in failing)
            )
        ET.SubElement(case, "system-out").text = (
            f"TP {f['tp']} FA {f['fa']} FD {f['fd']} FN {f['fn']} TN {f['tn']}; precision {_figure(f['cm_precision'])}, "
            f"recall {_figure(f['cm_recall'])}, F1 {_figure(f['cm_f1'])}, mean score {_figure(f.get('mean_score'))}, "
            f"schema violations {f.get('schema_violations', 0)}"
        )
    if report.get("baseline"):
        from .baseline import junit_suite

        baseline_suite = _suite(root, "stickler.baseline", timestamp)
        junit_suite(report, baseline_suite, _text)
        return _document(root, (gate_suite, field_suite, baseline_suite))
    return _document(root, (gate_suite, field_suite))


def render_split_junit(report: dict[str, Any]) -> bytes:
    """``stickler split`` as JUnit XML: ``stickler.gates`` as for an evaluation, and ``stickler.split`` with one
    test case per figure of the whole run (page accuracy, split accuracy, V-measure, ...), failing when a gate on
    it failed, its value in ``system-out``."""
    gates = report.get("gates") or []
    timestamp = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    root = ET.Element("testsuites", name=f"stickler split {_text(report['source'], 200)}", time="0")
    gate_suite = _gate_suite(root, gates, timestamp)
    figure_suite = _suite(root, "stickler.split", timestamp)
    packets = report["packet_count"]
    for metric, value in report["metrics"].items():
        case = ET.SubElement(figure_suite, "testcase", name=metric, classname="stickler.split", time="0")
        failing = [g for g in gates if g["metric"] == metric and g["status"] == "failed"]
        if failing:
            ET.SubElement(case, "failure", type="GateFailed", message="; ".join(_below(g) for g in failing))
        if value is None:
            why = (
                "no packet was scored"
                if not packets
                else "a page table has no sections"
                if metric.startswith("split_accuracy")
                else "the page table has no class columns"
                if metric == "page_accuracy"
                else "the input cannot give it"
            )
            if not failing:
                ET.SubElement(case, "skipped", message=f"no data: {why}")
            ET.SubElement(case, "system-out").text = f"{metric}: no data ({why})"
        else:
            ET.SubElement(case, "system-out").text = f"{metric} {_figure(value)} over {packets} packet(s)"
    return _document(root, (gate_suite, figure_suite))


def _gate_suite(root: ET.Element, gates: list[dict[str, Any]], timestamp: str) -> ET.Element:
    """``stickler.gates``: a test case per gate result, failed below its threshold or with nothing to measure,
    skipped with nothing to measure under --no-data-passes."""
    suite = _suite(root, "stickler.gates", timestamp)
    for g in gates:
        case = ET.SubElement(suite, "testcase", name=_text(g["gate"], 300), classname="stickler.gates", time="0")
        if g["status"] == "failed":
            where = _text(g["path"] or "the whole run", 200)
            ET.SubElement(case, "failure", type="GateFailed", message=_below(g)).text = (
                f"{g['metric']} of {where} has nothing to measure (no data), and a gate without data fails"
                if g.get("no_data") or g["actual"] is None
                else f"{g['metric']} of {where} is {_actual(g)}, below the gate's {threshold_text(g['threshold'])}"
            )
        elif g["status"] == "no data":
            ET.SubElement(
                case,
                "skipped",
                message="nothing to measure (no ground truth or prediction for this metric; --no-data-passes)",
            )
    return suite


def _document(root: ET.Element, suites: tuple[ET.Element, ...]) -> bytes:
    """The XML of ``root``, each suite and the root counting their tests, failures and skips."""
    for suite in suites:
        cases = suite.findall("testcase")
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
        suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    root.set("tests", str(sum(int(s.get("tests", 0)) for s in suites)))
    root.set("failures", str(sum(int(s.get("failures", 0)) for s in suites)))
    root.set("errors", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def _suite(root: ET.Element, name: str, timestamp: str) -> ET.Element:
    return ET.SubElement(
        root,
        "testsuite",
        name=name,
        errors="0",
        time="0",
        timestamp=timestamp,
        hostname=_text(socket.gethostname(), 100),
    )


def render_diff_junit(report: dict[str, Any]) -> bytes:
    """``stickler diff`` as JUnit XML: suite ``stickler.diff`` has one test case per watched figure,
    failing when B is significantly worse than A on it, skipped when there was nothing to compare."""
    from ..report.diff import NO_DATA, REGRESSED, key

    timestamp = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
    root = ET.Element("testsuites", name=f"stickler diff {_text(report['schema']['model_name'], 100)}", time="0")
    suite = _suite(root, "stickler.diff", timestamp)
    level = report["bootstrap"]["level"]
    for r in (r for r in report["comparisons"] if r["watched"]):
        case = ET.SubElement(suite, "testcase", name=_text(key(r), 300), classname="stickler.diff", time="0")
        ci = r["ci"]
        detail = (
            f"A {_figure(r['a'])}, B {_figure(r['b'])}, B - A {_figure(r['difference'])}"
            + ("" if ci is None else f", {level * 100:g}% interval [{ci['low']:.4f}, {ci['high']:.4f}]")
            + f", p {_figure(r['p_value'])}"
        )
        if r["verdict"] == REGRESSED:
            ET.SubElement(
                case, "failure", type="Regression", message=f"B is significantly worse: {_figure(r['difference'])}"
            ).text = detail
        elif r["verdict"] == NO_DATA:
            ET.SubElement(case, "skipped", message="nothing to compare (no ground truth or prediction for this figure)")
        ET.SubElement(case, "system-out").text = detail
    problems = [f"{error_location(e)}: {_text(e['message'], 500)}" for e in report.get("errors") or []]
    shown = [*(f"warning: {_text(w, 500)}" for w in report.get("warnings") or []), *problems[:ERRORS_SHOWN]]
    if len(problems) > ERRORS_SHOWN:
        shown.append(f"… and {len(problems) - ERRORS_SHOWN} more record problem(s) (see the JSON report)")
    if shown:  # each side's record problems, named by side, file and line
        ET.SubElement(suite, "system-err").text = "\n".join(_text(line, 800) for line in shown)
    return _document(root, (suite,))
