"""An object whose schema declares ``_value`` is data, not a rich value (issue 37, item 7; docs/parity.md
row 48). stickler-eval 1.0.0 reads such an object as data when its model is built from a dict (what
``compare_with`` then scores: the same counts as ours), but its JSON reader (``from_json``, the path of
records with confidences) unwraps ``_value`` first and rejects the record: that is the difference."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from stickler_cli import compile_schema
from stickler_cli.engine import Engine

pytestmark = pytest.mark.oracle

WEIGHT = {"type": "object", "properties": {"_value": {"type": "number"}, "unit": {"type": "string"}}}
SCHEMA = {"type": "object", "properties": {"weight": WEIGHT}}
GT = {"weight": {"_value": 5, "unit": "kg"}}
PRED = {"weight": {"_value": 5, "unit": "lb"}}

ORACLE = """
import json, sys
from stickler import StructuredModel
schema, gt, pred = (json.loads(a) for a in sys.argv[1:4])
Model = StructuredModel.from_json_schema(schema)
cm = Model.model_validate(gt).compare_with(Model.model_validate(pred), include_confusion_matrix=True)["confusion_matrix"]
weight = cm["fields"]["weight"]
out = {"weight": weight["overall"], **{f"weight.{k}": v["overall"] for k, v in weight["fields"].items()}}
try:
    Model.from_json(gt)
    out["from_json"] = "read"
except Exception as exc:
    out["from_json"] = type(exc).__name__
print(json.dumps({k: v if isinstance(v, str) else [v[c] for c in ("tp", "fa", "fd", "fn", "tn")]
                  for k, v in out.items()}))
"""


def test_a_declared_value_is_data_as_the_library_scores_a_model():
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python:
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    done = subprocess.run(
        [python, "-c", ORACLE, *(json.dumps(v) for v in (SCHEMA, GT, PRED))], capture_output=True, text=True, check=True
    )
    theirs = json.loads(done.stdout)
    plan = compile_schema(SCHEMA)
    doc = Engine(plan).compare(GT, PRED)
    ours = {f.path.replace("_value", "value"): doc.tally[5 * f.index : 5 * f.index + 5] for f in plan.fields}
    assert ours == {k: v for k, v in theirs.items() if k != "from_json"}
    assert ours["weight.value"] == [1, 0, 0, 0, 0] and ours["weight.unit"] == [0, 0, 1, 0, 0]
    assert theirs["from_json"] == "ValidationError"  # its JSON reader unwraps _value, then refuses the record
