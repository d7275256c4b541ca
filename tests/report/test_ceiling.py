"""report/ceiling.py's block: which fields get a row, the model's figure, and what "above the ceiling" means
(strictly above; never without both figures). tests/cli/test_ceiling.py runs the command."""

from stickler_cli.report.ceiling import Ceiling, block
from stickler_cli.schema import compile_schema

SCHEMA = {
    "type": "object",
    "properties": {
        "a": {"type": "string"},
        "b": {"type": "string"},
        "c": {"type": "string"},
        "address": {"type": "object", "properties": {"city": {"type": "string"}}},
        "items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}},
    },
}


def _counts(tp=0, fa=0, fd=0, fn=0, tn=0):
    total = tp + fa + fd + fn + tn
    return {"tp": tp, "fa": fa, "fd": fd, "fn": fn, "tn": tn, "cm_accuracy": (tp + tn) / total if total else 0.0}


def test_rows_figures_and_strictly_above():
    plan = compile_schema(SCHEMA)
    figures = {"agreement": 0.75, "kappa": None, "alpha": None}
    ceiling = Ceiling("g.json", ["x", "y"], 4, True, {"a": figures, "b": figures, "address.city": figures})
    metrics = {
        "a": _counts(tp=3, fd=1),  # 3/4 = 0.75: equal to the agreement, not above it
        "b": _counts(tp=3, tn=1),  # 4/4 = 1.0: above
        "c": _counts(tp=4),  # not in the agree report: no agreement, never above
        "address": _counts(tp=4),
        "address.city": _counts(),  # compared nowhere: no model figure (not 0.0), not above
        "items": _counts(tp=2, fa=1, fn=1),
        "items.sku": _counts(tp=2),
    }
    out = block(ceiling, plan, metrics)
    rows = {r["path"]: r for r in out["fields"]}
    # an object has no agreement of its own (stickler agree measures leaves and lists of objects): no row
    assert list(rows) == ["a", "b", "c", "address.city", "items", "items.sku"]
    assert (rows["a"]["model_accuracy"], rows["a"]["above_ceiling"]) == (0.75, False)
    assert (rows["b"]["model_accuracy"], rows["b"]["above_ceiling"]) == (1.0, True)
    assert (rows["c"]["agreement"], rows["c"]["in_report"], rows["c"]["above_ceiling"]) == (None, False, False)
    assert (rows["address.city"]["model_accuracy"], rows["address.city"]["comparisons"]) == (None, 0)
    assert rows["address.city"]["above_ceiling"] is False
    assert (rows["items"]["model_accuracy"], rows["items"]["comparisons"]) == (0.5, 4)
    assert out["above_ceiling"] == ["b"]
    assert out["not_in_report"] == ["c", "items", "items.sku"]
