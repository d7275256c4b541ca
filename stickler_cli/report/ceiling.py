"""``eval --ceiling AGREE_REPORT``: each field's model accuracy beside the annotators' agreement (the noise ceiling).

The file is the JSON report of ``stickler agree`` (``-o FILE`` or ``-f json``). It is untrusted: read up to the
``schema-bytes`` bound, and checked key by key; anything wrong is an InputError (exit 2) naming the file and what
is wrong.

Which figures are put side by side: the annotators' ``agreement`` is the share of comparisons the engine counts
TP or TN when one annotator's record is the ground truth and another's the prediction. The model's figure of the
same kind is the field's ``cm_accuracy``: (TP + TN) / all comparisons, with the ground truth as the ground truth
and the model as the prediction. For a field outside lists both are the share of documents in which the field
matches. A model whose accuracy on a field is above the annotators' agreement agrees with the ground truth more
often than a second annotator does: the ground truth, not the model, may be the limit there.

The report must have been made with the same fields: each field it holds must be a field of the schema eval
scores with, compared by the same comparator at the same threshold (agreement under another rule is another
figure). Fields of the schema the report lacks are shown without agreement and counted. A report made with
another schema file whose fields match is accepted, and said (``same_schema`` false).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..limits import read_json_within
from ..plan import Plan
from ..run.accumulate import schema_digest

TOOL = "stickler agree"  # the report's tool.name
MODEL_FIGURE = "cm_accuracy"
CHANCE = ("kappa", "alpha")


@dataclass(frozen=True)
class Ceiling:
    """An agree report read back and checked: its file, annotators, documents, whether its schema is eval's
    (same digest), and per field path its figures (``agreement``, ``kappa``, ``alpha``: a number or None)."""

    file: str
    annotators: list[str]
    documents: int
    same_schema: bool
    fields: dict[str, dict[str, float | None]]


def _need(condition: bool, message: str, path: str) -> None:
    if not condition:
        raise InputError(message, path)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _figure(value: Any, low: float | None) -> bool:
    """None, or a finite number at most 1 (and at least ``low`` when given)."""
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return False
    return value <= 1 and (low is None or value >= low)


def load(path: str, plan: Plan) -> Ceiling:
    """Read and check ``stickler agree``'s JSON report at ``path`` against eval's ``plan``."""
    report = read_json_within(path, "schema-bytes", "stickler agree report")
    tool = report.get("tool") if isinstance(report, dict) else None
    _need(
        isinstance(tool, dict) and tool.get("name") == TOOL,
        "not a stickler agree report (no tool.name 'stickler agree'): write one with "
        "`stickler agree SCHEMA ANNOTATOR_A ANNOTATOR_B -o FILE`",
        path,
    )
    annotators, documents, fields = report.get("annotators"), report.get("documents"), report.get("fields")
    _need(
        isinstance(annotators, list) and len(annotators) >= 2 and all(isinstance(a, str) for a in annotators),
        "'annotators' must be a list of two or more file names",
        path,
    )
    _need(_count(documents), "'documents' must be a count", path)
    schema = report.get("schema")
    _need(isinstance(schema, dict) and isinstance(schema.get("digest"), str), "'schema.digest' is missing", path)
    _need(isinstance(fields, list), "'fields' must be a list", path)
    found: dict[str, dict[str, float | None]] = {}
    for k, entry in enumerate(fields):
        where = f"'fields'[{k}]"
        _need(isinstance(entry, dict) and isinstance(entry.get("field"), str), f"{where} has no 'field' path", path)
        name = entry["field"]
        _need(name not in found, f"{where}: field {name!r} is listed twice", path)
        _need(
            entry.get("comparator") is None or isinstance(entry.get("comparator"), str),
            f"field {name!r}: 'comparator' must be a name",
            path,
        )
        _need(_figure(entry.get("threshold"), 0), f"field {name!r}: 'threshold' must be a number in [0, 1]", path)
        _need(_figure(entry.get("agreement"), 0), f"field {name!r}: 'agreement' must be null or in [0, 1]", path)
        for metric in CHANCE:
            _need(_figure(entry.get(metric), None), f"field {name!r}: {metric!r} must be null or a number ≤ 1", path)
        found[name] = {m: entry.get(m) for m in ("agreement", *CHANCE)}
        _same_rule(plan, entry, path)
    digest = schema_digest(plan.schema, plan.resources)
    return Ceiling(path, list(annotators), documents, schema["digest"] == digest, found)


def _same_rule(plan: Plan, entry: dict[str, Any], path: str) -> None:
    """The agree report's field ``entry`` is a field of ``plan`` with the same comparator and threshold."""
    name = entry["field"]
    field = next((f for f in plan.fields if f.path == name), None)
    if field is None:
        raise InputError(
            f"made with another schema: its field {name!r} is not a field of {plan.source} "
            "(agreement and model accuracy must be of the same fields)",
            path,
        )
    theirs, ours = (entry.get("comparator"), entry.get("threshold")), (field.comparator_name, field.threshold)
    if theirs != ours:
        raise InputError(
            f"made with another schema: field {name!r} is compared by {theirs[0]} at {theirs[1]} there, "
            f"by {ours[0]} at {ours[1]} in {plan.source} (agreement under another rule is another figure)",
            path,
        )


def block(ceiling: Ceiling, plan: Plan, field_metrics: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The report's ``ceiling`` block: per field agree measures (its leaves and lists of objects, in the plan's
    order), the model's accuracy (None without a comparison), the annotators' figures (None when the agree
    report lacks the field), and whether the model is above the annotators' agreement."""
    from .agreement import leaves

    rows = []
    for leaf in leaves(plan):
        fm = field_metrics.get(leaf.path, {})
        compared = sum(int(fm.get(k, 0)) for k in ("tp", "fa", "fd", "fn", "tn"))
        model = fm.get(MODEL_FIGURE) if compared else None
        theirs = ceiling.fields.get(leaf.path)
        agreement = theirs["agreement"] if theirs else None
        rows.append(
            {
                "path": leaf.path,
                "model_accuracy": model,
                "comparisons": compared,
                "in_report": theirs is not None,
                "agreement": agreement,
                "kappa": theirs["kappa"] if theirs else None,
                "alpha": theirs["alpha"] if theirs else None,
                "above_ceiling": model is not None and agreement is not None and model > agreement,
            }
        )
    return {
        "file": ceiling.file,
        "annotators": ceiling.annotators,
        "documents": ceiling.documents,
        "same_schema": ceiling.same_schema,
        "model_figure": MODEL_FIGURE,
        "fields": rows,
        "above_ceiling": [r["path"] for r in rows if r["above_ceiling"]],
        "not_in_report": [r["path"] for r in rows if not r["in_report"]],
    }
