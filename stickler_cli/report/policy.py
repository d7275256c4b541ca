"""An auto-accept policy: which fields a pipeline may accept without a human, above which confidence (docs/decisions.md).

The rule, per field with confidences. Sort the field's values by confidence. Accepting at a threshold t accepts
every value whose confidence is at least t: all the values at confidence t are accepted together (a tie is never
split). Of the n values accepted, k are right (TP; an empty prediction given with a confidence is right when the
ground truth is empty too). The threshold is the **lowest observed confidence t** at which the one-sided
Clopper-Pearson lower bound of the precision k/n, at ``level`` (0.95 unless --policy-level), reaches the target P:
``beta.ppf(1 - level, k, n - k + 1) >= P``. A field where no t reaches it is "review always".

Coverage is the share of the field's predicted values accepted (a value without a confidence is never accepted).
A document goes straight through when it holds a predicted value of a policy field and every predicted value of
every policy field in it is accepted (analyses/policy.py keeps what that needs); a document with none (an empty
or unreadable prediction) goes to review. The straight-through rate is their share of the documents.

A policy written to a file (``--write-policy``) is applied to new data with ``--policy``: per field, the realised
precision of the values its threshold accepts, against the target, with a one-sided exact binomial test (the
p-value is ``binom.cdf(k, n, P)``: how likely so few right values are if the precision were P); the policy
holds on a field when that p-value is at least ``1 - level``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError, UsageError, suggest
from ..engine.result import FA, FD, TP

if TYPE_CHECKING:
    from ..plan import Plan

POLICY_FORMAT = 1  # "stickler_policy" of a policy file
DEFAULT_LEVEL = 0.95
CURVE_POINTS = 101  # at most this many (threshold, coverage, precision) points per field in the report
RULE = (
    "threshold: the lowest observed confidence t at which the values with confidence >= t (ties accepted together) "
    "reach the target precision at the one-sided Clopper-Pearson lower bound; precision = TP / (TP + FD + FA)"
)


@dataclass(frozen=True)
class PolicyOptions:
    """--target-precision (``targets``: (field path or None for every field with confidences, P)),
    --policy-level, and a policy read from --policy (``applied``, as ``read_policy`` gives it)."""

    targets: tuple[tuple[str | None, float], ...] = ()
    level: float = DEFAULT_LEVEL
    applied: dict[str, Any] | None = None


def lower_bound(correct: Any, accepted: Any, level: float) -> np.ndarray:
    """One-sided Clopper-Pearson lower bound of ``correct / accepted`` at ``level`` (0.0 where nothing is right)."""
    from scipy.special import betaincinv  # scipy.stats.beta.ppf, without scipy.stats' second of imports

    k = np.asarray(correct, dtype=np.float64)
    n = np.asarray(accepted, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        bound = betaincinv(np.maximum(k, 1.0), np.maximum(n - k + 1.0, 1.0), 1.0 - level)
    return np.where(k > 0, bound, 0.0)


def curve(value: np.ndarray, match: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thresholds, accepted, correct) of one field's confidence groups: at each distinct confidence, from the
    highest down, how many values are accepted at that threshold and how many of those are right."""
    order = np.argsort(-value, kind="stable")
    value, count = value[order], count[order]
    right = np.where(match[order], count, 0)
    last = np.r_[value[1:] != value[:-1], True] if len(value) else np.zeros(0, dtype=bool)
    return value[last], np.cumsum(count)[last], np.cumsum(right)[last]


def choose(accepted: np.ndarray, correct: np.ndarray, target: float, level: float) -> int | None:
    """The index (into ``curve``'s arrays) of the lowest threshold whose lower bound reaches ``target``; None."""
    passing = np.flatnonzero(lower_bound(correct, accepted, level) >= target)
    return int(passing[-1]) if len(passing) else None


def field_targets(options: PolicyOptions, plan: Plan, with_confidence: set[int]) -> dict[int, float]:
    """Field index -> target precision: every field with confidences at the default target, the named ones at
    their own (a named field without confidences is kept: it has no data)."""
    default = next((p for path, p in options.targets if path is None), None)
    targets = {i: default for i in sorted(with_confidence)} if default is not None else {}
    by_path = {f.path: f.index for f in plan.fields}
    for path, p in options.targets:
        if path is not None:
            targets[by_path[path]] = p
    return targets


def build(acc: Any, options: PolicyOptions) -> dict[str, Any]:
    """The report's ``policy`` block: fitted on this run (--target-precision) or applied (--policy)."""
    plan = acc.plan
    field, match, value, _, count = acc.confidences.columns()
    counts = acc.counts
    if options.applied is not None:
        by_path = {f.path: f.index for f in plan.fields}
        spec = {
            by_path[path]: (entry["target"], entry["threshold"]) for path, entry in options.applied["fields"].items()
        }
        level = options.applied["level"]
    else:
        targets = field_targets(options, plan, {int(i) for i in np.unique(field)})
        spec = {i: (p, None) for i, p in targets.items()}
        level = options.level
    fields: dict[str, Any] = {}
    thresholds: dict[int, float] = {}
    for index, (target, given) in sorted(spec.items()):
        mine = field == index
        t, n, k = curve(value[mine], match[mine], count[mine])
        tp, fa, fd = counts[index][TP], counts[index][FA], counts[index][FD]
        total = max(tp + fa + fd, int(n[-1]) if len(n) else 0)
        if options.applied is None:
            at = choose(n, k, target, level)
            threshold = None if at is None else float(t[at])
        else:
            threshold = given
            at = None if threshold is None or not len(t) else _index_at(t, threshold)
        if threshold is not None:
            thresholds[index] = threshold
        fields[plan.fields[index].path] = _field_block(target, threshold, at, t, n, k, total, level, options)
    block: dict[str, Any] = {
        "mode": "applied" if options.applied is not None else "fitted",
        "rule": RULE,
        "level": level,
        "target": next((p for path, p in options.targets if path is None), None),
        "fields": fields,
        "straight_through": straight_through(acc.policy, list(spec), thresholds, acc.document_count),
    }
    if options.applied is not None:
        block["source"] = options.applied["source"]
        checked = [b["holds"] for b in fields.values() if b["threshold"] is not None]
        block["holds"] = None if not checked or None in checked else sum(checked) / len(checked)
    return block


def _index_at(thresholds: np.ndarray, threshold: float) -> int | None:
    """The index of the last (lowest) curve point at or above ``threshold``; None when no value reaches it."""
    above = np.flatnonzero(thresholds >= threshold)
    return int(above[-1]) if len(above) else None


def _field_block(
    target: float,
    threshold: float | None,
    at: int | None,
    t: np.ndarray,
    n: np.ndarray,
    k: np.ndarray,
    total: int,
    level: float,
    options: PolicyOptions,
) -> dict[str, Any]:
    accepted = int(n[at]) if at is not None else 0
    right = int(k[at]) if at is not None else 0
    block: dict[str, Any] = {
        "target": target,
        "threshold": threshold,
        "review_always": threshold is None,
        "values": total,
        "accepted": accepted,
        "coverage": accepted / total if total else None,
        "precision": right / accepted if accepted else None,
        "lower_bound": float(lower_bound(right, accepted, level)) if accepted else None,
        "errors_let_through": accepted - right,
    }
    if options.applied is not None:
        if threshold is None or not accepted:
            block["p_value"], block["holds"] = None, None
        else:
            from scipy.special import bdtr  # scipy.stats.binom.cdf

            p_value = float(bdtr(right, accepted, target))
            block["p_value"], block["holds"] = p_value, p_value >= 1.0 - level
    keep = np.unique(np.r_[np.linspace(0, len(t) - 1, min(len(t), CURVE_POINTS)).round().astype(int), at or 0])
    block["curve"] = [[float(t[i]), int(n[i]) / total if total else 0.0, int(k[i]) / int(n[i])] for i in keep if len(t)]
    return block


def straight_through(rows: Any, policy_fields: list[int], thresholds: dict[int, float], documents: int) -> Any:
    """{documents, straight_through, rate, values, correct, precision}: the documents whose every value of a policy
    field is accepted (``thresholds``: field index -> threshold; a policy field without one is reviewed always),
    and the precision of their policy fields' values. None when the run kept no rows (a merged state without them)."""
    if not rows.active:
        return None
    document, field, low, values, correct = rows.columns()
    limit = np.full(max(rows.fields, 1), -np.inf)
    limit[policy_fields] = np.inf
    for index, t in thresholds.items():
        limit[index] = t
    policy = np.isin(field, policy_fields)
    reviewed = np.ones(documents, dtype=bool)  # a document with no value of a policy field: nothing to accept
    reviewed[document[policy]] = False
    reviewed[document[policy & (low < limit[field])]] = True
    through = documents - int(reviewed.sum())
    kept = policy & ~reviewed[document]
    n, k = int(values[kept].sum()), int(correct[kept].sum())
    return {
        "documents": documents,
        "straight_through": through,
        "rate": through / documents if documents else None,
        "values": n,
        "correct": k,
        "precision": k / n if n else None,
    }


def policy_file(report: dict[str, Any], data: list[tuple[str, str]], version: str) -> dict[str, Any]:
    """What --write-policy writes: the fitted policy a production pipeline reads."""
    block = report["policy"]
    through = block["straight_through"] or {}
    return {
        "stickler_policy": POLICY_FORMAT,
        "rule": block["rule"],
        "target": block["target"],
        "level": block["level"],
        "fields": {
            path: {key: f[key] for key in ("target", "threshold", "coverage", "precision", "lower_bound")}
            for path, f in block["fields"].items()
        },
        "straight_through_rate": through.get("rate"),
        "schema_sha256": report["schema"]["sha256"],
        "fitted_on": {
            "files": [{"role": role, "path": path, "bytes": _size(path)} for role, path in data],
            "documents": report["document_count"],
        },
        "tool": {"name": "stickler", "version": version},
    }


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


# -- reading a policy file (untrusted data: bounded, checked, one-line errors) ----------------------------------------


def read_policy(path: str, plan: Plan) -> dict[str, Any]:
    """A policy file written by --write-policy, checked against ``plan``: {level, fields: {path: {target,
    threshold}}, source, schema_sha256}. Every problem is an InputError naming the file (exit 2)."""
    import orjson

    from .. import limits

    try:
        raw = limits.read_within(path, "schema-bytes")
    except limits.TooLarge as error:
        raise InputError(f"the policy file {error}", path) from None
    except OSError as error:
        raise InputError(f"cannot read the policy file: {error.strerror or error}", path) from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise InputError(f"not a policy file: invalid JSON ({error.msg})", path, error.lineno) from None
    where = f"{path}"
    if not isinstance(data, dict) or data.get("stickler_policy") != POLICY_FORMAT:
        raise InputError(f'not a policy file: expected an object with "stickler_policy": {POLICY_FORMAT}', where)
    level = data.get("level")
    if not _rate(level):
        raise InputError(f"/level: must be a number between 0 and 1, got {level!r}", where)
    fields = data.get("fields")
    if not isinstance(fields, dict) or not fields:
        raise InputError("/fields: must be an object of at least one field path", where)
    paths = [f.path for f in plan.fields]
    checked: dict[str, dict[str, Any]] = {}
    for name, entry in fields.items():
        pointer = f"/fields/{name}"
        if name not in paths:
            raise InputError(f"{pointer}: no such field in the schema{suggest(name, paths)}", where)
        if not isinstance(entry, dict):
            raise InputError(f"{pointer}: must be an object", where)
        target, threshold = entry.get("target"), entry.get("threshold")
        if not _rate(target):
            raise InputError(f"{pointer}/target: must be a number between 0 and 1, got {target!r}", where)
        if threshold is not None and not _confidence(threshold):
            raise InputError(f"{pointer}/threshold: must be a confidence from 0 to 1 or null, got {threshold!r}", where)
        checked[name] = {"target": float(target), "threshold": None if threshold is None else float(threshold)}
    digest = data.get("schema_sha256")
    return {
        "level": float(level),
        "fields": checked,
        "source": {"path": path, "schema_sha256": digest if isinstance(digest, str) else None},
        "same_schema": digest == plan.sha256,
    }


def _rate(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and 0.0 < value < 1.0


def _confidence(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and 0.0 <= value <= 1.0


def parse_targets(given: list[str], plan_paths: list[str] | None = None) -> tuple[tuple[str | None, float], ...]:
    """--target-precision's values: ``P`` (every field with confidences) or ``FIELD=P``; a usage error otherwise."""
    targets: list[tuple[str | None, float]] = []
    for text in given:
        path, equals, number = text.rpartition("=")
        try:
            p = float(number)
        except ValueError:
            raise UsageError(f"--target-precision {text!r}: expected P or FIELD=P with P between 0 and 1") from None
        if not 0.0 < p < 1.0:
            raise UsageError(f"--target-precision {text!r}: the precision must be between 0 and 1 (exclusive)")
        name = path.strip() if equals else None
        if equals and not name:
            raise UsageError(f"--target-precision {text!r}: expected FIELD=P")
        if name is not None and plan_paths is not None and name not in plan_paths:
            raise UsageError(f"--target-precision {text!r}: no field {name!r}{suggest(name, plan_paths)}")
        targets.append((name, p))
    return tuple(targets)


def warnings(block: dict[str, Any], options: PolicyOptions) -> list[str]:
    """What the report should say first about a policy: one applied across schemas, figures it cannot know."""
    said = []
    if options.applied is not None and not options.applied["same_schema"]:
        said.append(
            f"the policy {options.applied['source']['path']} was fitted with another schema "
            "(schema_sha256 differs): its thresholds may not mean the same here"
        )
    if block["straight_through"] is None:
        said.append(
            "the straight-through rate cannot be known: a merged state was saved without --target-precision or "
            "--policy (it kept no per-document confidences)"
        )
    return said
