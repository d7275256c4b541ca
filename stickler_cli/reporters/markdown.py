"""The report as GitHub-flavoured Markdown: for pull-request comments and ``$GITHUB_STEP_SUMMARY``.

Field names and values come from the schema and the data, and GitHub renders HTML,
links, @mentions and math inside Markdown. Every such text is therefore written as
a code span (inside one, nothing is markup: not HTML, a link, a mention or math),
with control characters and line breaks replaced and ``|`` escaped so that it
cannot split a table row.
"""

from __future__ import annotations

import html
from typing import Any

from ..analyses.failures import MISSES, PARTIAL_ONLY, imperfect, listed_value, misses_not_shown, more_line
from ..confidence.trust import trust_sentence
from ..report.gates import verdict
from ..run.reader import error_location
from .cosmetic import markdown_lines as cosmetic_lines
from .alternatives import markdown_lines as alternatives_lines
from .judge import markdown_lines as judge_lines
from .gate_markdown import failed_gates_markdown
from .sanitize import NAME_LIMIT, VALUE_LISTED, plain
from .sanitize import markdown_cell as text
from . import baseline as baseline_section
from .slices import render_markdown as slice_lines
from . import list_section

WORST_SHOWN = 5


def _rate(value: float | None, ci: dict[str, float] | None = None) -> str:
    """A figure, and its bootstrap interval when the run has one: ``0.912 [0.897, 0.925]``."""
    if value is None:
        return "–"
    return f"{value:.3f} [{ci['low']:.3f}, {ci['high']:.3f}]" if ci else f"{value:.3f}"


def render_markdown(report: dict[str, Any], worst_shown: int = WORST_SHOWN) -> str:
    m = report["metrics"]
    lines = [f"## stickler · {text(report['schema']['model_name'])} · {report['document_count']} documents", ""]
    lines += baseline_section.notice_markdown(report, text)
    gates = report.get("gates") or []
    bad = [g for g in gates if g["status"] == "failed"]
    if gates:
        lines += [f"**{'❌' if bad else '✅'} {verdict(gates)}**", ""]
    lines += ["| Metric | Value |", "|---|---:|"]
    lines += [
        f"| {label} | {_rate(m[key], m.get(f'{key}_ci'))} |"
        for label, key in (
            ("Weighted score", "weighted_overall_score"),
            ("Precision", "cm_precision"),
            ("Recall", "cm_recall"),
            ("Recall with FD", "recall_with_fd"),
            ("F1", "cm_f1"),
        )
    ]
    lines += [
        f"| Accuracy | {_rate(m['cm_accuracy'])} |",
        f"| Counts | TP {m['tp']} · FA {m['fa']} · FD {m['fd']} · FN {m['fn']} · TN {m['tn']} |",
    ]
    conformance = report.get("schema_conformance") or {}
    due = conformance.get("predictions_due", conformance.get("predictions_read"))
    if due:  # shares of the predictions due: a missing prediction is not a valid one
        lines += [
            f"| Valid JSON | {_rate(conformance['valid_json_rate'])} ({conformance['valid_json']} of {due}) |",
            f"| Schema-valid | {_rate(conformance['schema_valid_rate'])} ({conformance['schema_valid']} of {due}) |",
        ]
    if conformance.get("ground_truth_documents"):
        lines.append(
            f"| Coverage | {_rate(conformance['coverage'])} ({conformance['paired']} of "
            f"{conformance['ground_truth_documents']} documents) |"
        )
    lines.append("")
    lines += failed_gates_markdown(bad)
    lines += [
        "### Fields",
        "",
        "| Field | Weight | Score | TP | FA | FD | FN | TN | Precision | Recall | F1 | Schema violations |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for path, f in report["field_metrics"].items():
        lines.append(
            f"| {text(path)} | {f['weight']:g} | {_rate(f.get('mean_score'))} | {f['tp']} | {f['fa']} | {f['fd']} "
            f"| {f['fn']} | {f['tn']} | {_rate(f['cm_precision'])} | {_rate(f['cm_recall'])} "
            f"| {_rate(f['cm_f1'], f.get('cm_f1_ci'))} | {f.get('schema_violations', 0)} |"
        )
    lines.append("")
    if report.get("ceiling"):  # issue 42, item 4: the noise ceiling, beside the field table
        from .ceiling import markdown_lines as ceiling_lines

        lines += ceiling_lines(report, text)
    lines += _aggregates(report)
    from .threshold_table import markdown_lines  # the section beside its terminal table (which imports Rich lazily)

    lines += markdown_lines(report, text)
    lines += slice_lines(report, text)
    lines += baseline_section.markdown_lines(report, text)
    lines += list_section.markdown_lines(report, text)
    lines += cosmetic_lines(report.get("cosmetic_errors"), text)
    lines += judge_lines(report.get("judge"), text)
    lines += alternatives_lines(report.get("alternatives"), text)
    if report.get("policy"):  # issue 41, policy
        from .policy import markdown_lines as policy_lines

        lines += policy_lines(report, text)
    lines += _calibration(report.get("confidence_metrics"))
    lines += _localisation(report.get("localisation"))
    lines += _worst(report.get("worst_documents") or [], worst_shown)
    lines += _problems(report)
    return "\n".join(lines) + "\n"


def _problems(report: dict[str, Any]) -> list[str]:
    """The record problems (folded) and the warnings: eval's, and each side's of a diff."""
    lines = []
    errors = report.get("errors") or []
    if errors:
        lines += [f"<details><summary>{len(errors)} record problem(s)</summary>", ""]
        for e in errors[:20]:
            lines.append(f"- {text(error_location(e))}: {text(e['message'], 200)}")
        if len(errors) > 20:
            lines.append(f"- … and {len(errors) - 20} more (see the JSON report)")
        lines += ["", "</details>", ""]
    lines += [f"> **Warning:** {text(w, 400)}" for w in report.get("warnings") or []]
    return lines


def _aggregates(report: dict[str, Any]) -> list[str]:
    """The leaf roll-up of the document and of each object and list of objects (none without one)."""
    nodes = [(text(p), f["aggregate"]) for p, f in report["field_metrics"].items() if "aggregate" in f]
    if not nodes:
        return []
    lines = [
        "### Leaves beneath each node",
        "",
        "The leaf fields' counts summed beneath each object and list of objects (stickler-eval's `aggregate`).",
        "",
        "| Node | TP | FA | FD | FN | TN | Precision | Recall | F1 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, a in [("**(document)**", report["metrics"]["aggregate"]), *nodes]:
        lines.append(
            f"| {label} | {a['tp']} | {a['fa']} | {a['fd']} | {a['fn']} | {a['tn']} | {_rate(a['cm_precision'])} "
            f"| {_rate(a['cm_recall'])} | {_rate(a['cm_f1'])} |"
        )
    return lines + [""]


def _calibration(confidence: dict[str, Any] | None) -> list[str]:
    if not confidence:
        return []
    overall = confidence["overall"]
    names = {
        "auroc": "AUROC",
        "brier_score": "Brier",
        "ece": "ECE",
        "error_capture_at_budget": "Gain at the middle budget",
    }
    cov = confidence["coverage"]
    verdict_line = trust_sentence(overall)
    lines = [
        "### Confidence",
        "",
        f"{cov['fields_with_confidence']} of {cov['fields_total']} predicted values carry a confidence "
        f"({cov['ratio']:.0%})." + (f" {verdict_line}" if verdict_line else ""),
        "",
        "| Field | " + " | ".join(names.get(n, text(n)) for n in overall) + " |",
        "|---|" + "---:|" * len(overall),
    ]
    rows = [("**overall**", overall)] + [(text(p), block) for p, block in confidence["fields"].items()]
    for label, block in rows:
        values = [(block.get(n) or {}).get("value") for n in overall]
        lines.append(f"| {label} | " + " | ".join(_rate(v) for v in values) + " |")
    return lines + [""]


def _localisation(block: dict[str, Any] | None) -> list[str]:
    """Box mAP per field (docs/numbers.md, "Localisation: box mAP"); nothing when no value carried a box."""
    if not block:
        return []
    from .localisation import RULE_TEXT, thresholds_label

    boxes = block["boxes"]
    lines = [
        "### Localisation",
        "",
        f"mAP@[{thresholds_label(block['iou_thresholds'])}] **{_rate(block['map'])}**, mAP50 {_rate(block['map_50'])}, "
        f"mAP75 {_rate(block['map_75'])}. {RULE_TEXT.get(block['rule'], text(block['rule']))}. "
        f"{boxes['gt_boxes']} ground-truth and {boxes['pred_boxes']} predicted boxes "
        f"({boxes['gt_only']} ground truth only, {boxes['pred_only']} prediction only, "
        f"{boxes['not_a_box']} not a box, {boxes['reversed']} reversed).",
        "",
        "| Field | AP | AP50 | AP75 | Mean IoU | GT boxes | Predicted | TP at 0.50 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for path, f in block["fields"].items():
        lines.append(
            f"| {text(path)} | {_rate(f['ap'])} | {_rate(f['ap_50'])} | {_rate(f['ap_75'])} "
            f"| {_rate(f['mean_iou'])} | {f['gt_boxes']} | {f['pred_boxes']} | {f['true_positives_50']} |"
        )
    lines.append("")
    lines += [f"- {text(note)}" for note in block["notes"]]
    return lines + ([""] if block["notes"] else [])


def _worst(worst: list[dict[str, Any]], shown: int) -> list[str]:
    worst = imperfect(worst)
    if not worst:
        return []
    lines = ["### Worst documents", ""]
    worst = worst[:shown]
    # A confidence column when a failing comparison carries one; "(default)" after a value the
    # schema's default stood in for (outside the code span: not part of the value).
    confident = any(c.get("confidence") is not None for d in worst for c in d["comparisons"] if c["type"] in MISSES)
    head, rule = ("| Confidence ", "---:|") if confident else ("", "")
    for doc in worst:
        misses = [c for c in doc["comparisons"] if c["type"] in MISSES]
        hidden = misses_not_shown(doc)  # past --limit explain-items
        lines += [
            f"<details><summary><code>{html.escape(plain(doc['doc_id'], NAME_LIMIT))}</code> · score {doc['score']:.3f} · "
            f"{len(misses) + hidden:,} failing comparison(s)</summary>",
            "",
        ]
        if not misses:
            lines += [more_line(hidden) if hidden else PARTIAL_ONLY, "", "</details>", ""]
            continue
        lines += [f"| Field | Type | Ground truth | Prediction {head}| Score |", f"|---|---|---|---|{rule}---:|"]
        for c in misses:
            confidence = f" {_rate(c.get('confidence'))} |" if confident else ""
            gt, pred = (
                _value(listed_value(c, side, VALUE_LISTED), c.get(f"{side}_default")) for side in ("gt", "pred")
            )
            if c.get("alternative") is not None:  # which of the ground truth's _alternatives decided
                gt += f" (`_alternatives[{c['alternative']}]`)"
            lines.append(f"| {text(c['path'])} | {c['type']} | {gt} | {pred} |{confidence} {c['score']:.3f} |")
        lines += ["", *([more_line(hidden), ""] if hidden else []), "</details>", ""]
    return lines


def _value(value: Any, filled: bool | None) -> str:
    return text(value, VALUE_LISTED) + (" (default)" if filled else "")


def render_diff_markdown(report: dict[str, Any]) -> str:
    """``stickler diff`` as Markdown: the verdict naming the watched figures that changed, then a table
    of the watched figures and every significant change (all of them: ``-f json`` has the rest)."""
    from ..report.diff import FIELDS_SHOWN, LABELS, REGRESSED, documents_line, figure_name, key, rule, shown, verdict

    level = report["bootstrap"]["level"]
    inputs = report.get("inputs") or {}
    lines = [
        f"## stickler diff · {text(report['schema']['model_name'])} · {report['document_count']} documents · "
        f"{level * 100:g}% intervals",
        "",
        f"A: {text(inputs.get('a') or '')} · B: {text(inputs.get('b') or '')}",
        "",
        f"**{'❌' if report['regressions'] else '✅'} {verdict(report, text)}**",
        "",
        f"| Figure | A | B | B − A | {level * 100:g}% interval | p | Verdict |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in shown(report):
        ci = r["ci"]
        difference = "–" if r["difference"] is None else format(r["difference"], "+.3f")
        interval = "–" if ci is None else "[{:+.3f}, {:+.3f}]".format(ci["low"], ci["high"])
        label = LABELS[r["verdict"]]
        label = (f"**{label}**" if r["verdict"] == REGRESSED else label) + (" (watched)" if r["watched"] else "")
        lines.append(
            f"| {text(key(r))} | {_rate(r['a'])} | {_rate(r['b'])} | {difference} | {interval} "
            f"| {_rate(r['p_value'])} | {label} |"
        )
    lines += ["", f"_{rule(level)}_", ""]
    changed = report.get("changed_documents") or []
    if changed:
        lines += ["**Documents B changed** (score A → B):", ""]
        lines += [f"- {text(figure_name(e))}: {documents_line(e, text)}" for e in changed[:FIELDS_SHOWN]]
        if len(changed) > FIELDS_SHOWN:
            lines.append(f"- … and {len(changed) - FIELDS_SHOWN} more figures (see the JSON report)")
        lines.append("")
    lines += _problems(report)
    return "\n".join(lines).rstrip("\n") + "\n\n"
