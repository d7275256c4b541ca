"""``x-aws-stickler-infer-unspecified`` (issue 23, item 1): our compiled plan and our scores equal
stickler-eval 1.0.0's. First every name rule's word (and names no rule knows) crossed with every
property type and format a schema can give (comparator, options, threshold, clip, weight), then an
end-to-end corpus with nested scopes, a nested ``false``, lists, a free-form mapping, author's
settings and ``"auto"`` (counts and scores)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import stickler_cli as st
from stickler_cli.run.evaluate import evaluate_files
from stickler_cli.report.build import build_report
from stickler_cli.schema import compile_schema
from stickler_cli.schema.inference import RULES

from .transform import for_oracle, for_us

pytestmark = pytest.mark.oracle

TYPES = {
    "string": {"type": "string"},
    "date": {"type": "string", "format": "date"},
    "date_time": {"type": "string", "format": "date-time"},
    "time": {"type": "string", "format": "time"},
    "email": {"type": "string", "format": "email"},
    "uri": {"type": "string", "format": "uri"},
    "uuid": {"type": "string", "format": "uuid"},
    "hostname": {"type": "string", "format": "hostname"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "enum": {"type": "string", "enum": ["a", "b"]},
    "int_enum": {"type": "integer", "enum": [1, 2]},
    "const": {"const": "x"},
    "null": {"type": "null"},
    "nullable": {"type": ["string", "null"]},
    "anyof_null": {"anyOf": [{"type": "number"}, {"type": "null"}]},
    "union": {"type": ["string", "integer"]},
    "int_or_number": {"type": ["integer", "number"]},
    "numbers": {"type": "array", "items": {"type": "number"}},
    "dates": {"type": "array", "items": {"type": "string", "format": "date"}},
    "strings": {"type": "array", "items": {"type": "string"}},
    "mapping": {"type": "object"},
    "mappings": {"type": "array", "items": {"type": "object"}},
}
EXTRA_NAMES = [
    "x",
    "value",
    "invoiceId",
    "vendor_name",
    "zip_code",
    "website_url",
    "isbn13",
    "unitPrice",
    "ship-to-city",
    "phone_number",
    "status",
    "notes2",
]

MATRIX_SCRIPT = """
import json, sys, typing, warnings
warnings.simplefilter("ignore")
from stickler import StructuredModel
from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper
schema = json.load(sys.stdin)
model = StructuredModel.from_json_schema(schema)
out = {}
for kind, sub in schema["properties"].items():
    annotation = model.model_fields[kind].annotation
    cls = ([a for a in typing.get_args(annotation) if a is not type(None)] or [annotation])[0]
    for name in sub["properties"]:
        info = ConfigurationHelper.get_comparison_info(cls, name)
        c = info.comparator
        options = {k.lstrip("_"): (v.total_seconds() / 86400 if hasattr(v, "total_seconds") else v)
                   for k, v in vars(c).items() if k not in ("threshold", "threshold_was_set", "_fuzzy_func")}
        out[kind + "/" + name] = [type(c).__name__, info.threshold, info.clip_under_threshold, info.weight, options]
print(json.dumps(out))
"""


def _python() -> str:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    return python


def _ours(comparator, option: str):
    value = getattr(comparator, option)
    if option == "tolerance" and comparator.name == "DateComparator" and value is None:
        return 0.0  # no tolerance: the same calendar day, the library's timedelta(0)
    return value


def test_every_name_and_property_type_compiles_as_the_library_infers() -> None:
    names = sorted({token for rule in RULES for token in rule.tokens} | set(EXTRA_NAMES))
    schema = {
        "type": "object",
        "x-aws-stickler-infer-unspecified": True,
        "properties": {
            kind: {
                "type": "object",
                "x-aws-stickler-match-threshold": 0.8,
                "properties": {name: dict(node) for name in names},
            }
            for kind, node in TYPES.items()
        },
    }
    done = subprocess.run(
        [_python(), "-c", MATRIX_SCRIPT], input=json.dumps(schema), capture_output=True, text=True, check=True
    )
    theirs = json.loads(done.stdout)
    plan = compile_schema(schema)
    compared = 0
    for f in plan.fields:
        if f.path.count(".") != 1:
            continue
        comparator, threshold, clip, weight, options = theirs[f.path.replace(".", "/")]
        c = f.comparator
        assert f.inferred, f.path
        assert (c.name, f.threshold, f.clip, f.weight) == (comparator, threshold, clip, weight), f.path
        assert {k: _ours(c, k) for k in options} == options, f.path
        if c.name == "ExactComparator":
            assert c.normalize is False, f.path  # the library's Exact never normalises (docs/parity.md row 1)
        compared += 1
    assert compared == len(theirs) == len(names) * len(TYPES) > 1000


SCHEMA = {
    "type": "object",
    "x-aws-stickler-infer-unspecified": True,
    "x-aws-stickler-match-threshold": 0.8,
    "properties": {
        "invoice_id": {"type": "string"},
        "total": {"type": "number"},
        "amount_due": {"type": "number", "x-aws-stickler-comparator-config": {"absolute_tolerance": 1.0}},
        "ref_no": {"type": "string", "x-aws-stickler-threshold": 0.5},
        "due_date": {"type": "string", "format": "date"},
        "issued_at": {"type": "string", "format": "date-time"},
        "website": {"type": "string", "format": "uri"},
        "contact_email": {"type": "string", "format": "email"},
        "status": {"type": "string", "enum": ["open", "paid"]},
        "quantity": {"type": "integer"},
        "paid": {"type": "boolean"},
        "title": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "vendor": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "city": {"type": "string"}, "zip_code": {"type": "string"}},
        },
        "memo": {
            "type": "object",
            "x-aws-stickler-infer-unspecified": False,
            "properties": {
                "text": {"type": "string"},
                "summary": {"type": "string", "x-aws-stickler-comparator": "auto"},
            },
        },
        "line_items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "unit_price": {"type": "number"},
                    "sku": {"type": "string"},
                },
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}},
        "meta": {"type": "object"},
    },
}
GT = [
    {
        "invoice_id": "INV-1",
        "total": 100.0,
        "amount_due": 50.0,
        "ref_no": "R-100",
        "due_date": "2024-03-01",
        "issued_at": "2024-03-01T10:00:00Z",
        "website": "https://acme.com/a",
        "contact_email": "Ann@acme.com",
        "status": "open",
        "quantity": 3,
        "paid": False,
        "title": "Invoice",
        "vendor": {"name": "Acme Corporation", "city": "New York City", "zip_code": "10001"},
        "memo": {"text": "Deliver to the back door", "summary": "urgent order"},
        "line_items": [
            {"description": "blue widget large", "unit_price": 9.99, "sku": "W-1"},
            {"description": "red gadget", "unit_price": 20.0, "sku": "G-2"},
        ],
        "tags": ["alpha", "beta"],
        "meta": {"a": 1, "b": "x"},
    },
    {
        "invoice_id": "INV-2",
        "total": 250.0,
        "amount_due": 10.0,
        "ref_no": "R-200",
        "due_date": "2024-04-15",
        "issued_at": "2024-04-15T08:30:00Z",
        "website": "https://b.org",
        "contact_email": "bo@b.org",
        "status": "paid",
        "quantity": 1,
        "paid": True,
        "title": "Bill",
        "vendor": {"name": "Bolt Ltd", "city": "Boston", "zip_code": "02101"},
        "memo": {"text": "none", "summary": "routine"},
        "line_items": [{"description": "bolt pack", "unit_price": 1.5, "sku": "B-9"}],
        "tags": ["gamma"],
        "meta": {"k": [1, 2]},
    },
    {
        "invoice_id": "INV-3",
        "total": 75.5,
        "amount_due": 3.0,
        "ref_no": "R-3",
        "due_date": "2024-05-20",
        "issued_at": "2024-05-20T12:00:00Z",
        "website": "https://c.io",
        "contact_email": "c@c.io",
        "status": "open",
        "quantity": 7,
        "paid": False,
        "title": "Note",
        "vendor": {"name": "Cee Inc", "city": "Chicago", "zip_code": "60601"},
        "memo": {"text": "ring twice", "summary": "small"},
        "line_items": [],
        "tags": [],
        "meta": {},
    },
]
PRED = [
    {
        "invoice_id": "INV-l",
        "total": 100.05,
        "amount_due": 50.9,
        "ref_no": "R-10O",
        "due_date": "03/01/2024",
        "issued_at": "2024-03-01T10:00:30Z",
        "website": "https://ACME.com/a",
        "contact_email": "ann@acme.com",
        "status": "open",
        "quantity": 3,
        "paid": False,
        "title": "invoice",
        "vendor": {"name": "Acme Corp", "city": "City New York", "zip_code": "10001"},
        "memo": {"text": "Deliver to back door", "summary": "urgent orders"},
        "line_items": [
            {"description": "large blue widget", "unit_price": 10.0, "sku": "W-1"},
            {"description": "red gadget", "unit_price": 20.0, "sku": "g-2"},
        ],
        "tags": ["alpha", "betta"],
        "meta": {"a": 1, "b": "y"},
    },
    {
        "invoice_id": "INV-2",
        "total": 251.0,
        "amount_due": 12.0,
        "ref_no": "R-200",
        "due_date": "2024-04-16",
        "issued_at": "2024-04-15T09:30:00Z",
        "website": "https://b.org",
        "contact_email": "bo@b.org ",
        "status": "open",
        "quantity": 2,
        "paid": True,
        "title": "Bill",
        "vendor": {"name": "Bolt Limited", "city": "Boston", "zip_code": "02102"},
        "memo": {"text": "none", "summary": "routine"},
        "line_items": [{"description": "pack of bolts", "unit_price": 1.5, "sku": "B-9"}],
        "tags": ["gamma", "delta"],
        "meta": {"k": [1, 2]},
    },
    {
        "invoice_id": "INV-3",
        "total": 75.5,
        "ref_no": "R-3",
        "due_date": "2024-05-20",
        "issued_at": "2024-05-20T12:00:00Z",
        "website": "https://c.io",
        "contact_email": "c@c.io",
        "status": "open",
        "quantity": 7,
        "paid": None,
        "title": "Note",
        "vendor": {"name": "Cee Inc", "city": "Chicago", "zip_code": "60601"},
        "memo": {"text": "ring twice", "summary": "small"},
        "line_items": [{"description": "extra", "unit_price": 1.0, "sku": "X"}],
        "tags": [],
        "meta": {},
    },
]


def test_a_corpus_scores_as_the_oracle_scores_it(tmp_path: Path) -> None:
    ours_schema, theirs_schema = tmp_path / "ours.json", tmp_path / "theirs.json"
    ours_schema.write_text(json.dumps(for_us(SCHEMA)))
    theirs_schema.write_text(json.dumps(for_oracle(SCHEMA)))
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text("".join(json.dumps(r) + "\n" for r in GT))
    pred.write_text("".join(json.dumps(r) + "\n" for r in PRED))
    runner = Path(__file__).with_name("oracle_runner.py")
    done = subprocess.run(
        [_python(), str(runner), str(theirs_schema), str(gt), str(pred), "--per-document"],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(done.stdout)
    ours = build_report(evaluate_files(st.load_schema(str(ours_schema)), str(gt), str(pred)))
    keys = ("tp", "fa", "fd", "fp", "fn", "tn")
    assert {p: [m[k] for k in keys] for p, m in ours["field_metrics"].items()} == {
        p: [m[k] for k in keys] for p, m in theirs["field_metrics"].items()
    }
    assert ours["metrics"]["weighted_overall_score"] == pytest.approx(
        theirs["metrics"]["weighted_overall_score"], abs=1e-12
    )
    for path, block in theirs["field_metrics"].items():
        if "mean_score" in block:
            assert ours["field_metrics"][path]["mean_score"] == pytest.approx(block["mean_score"], abs=1e-9), path
    assert [d["field_scores"]["invoice_id"] for d in theirs["per_document"]] == [0.0, 1.0, 1.0]
    assert [d["field_scores"]["total"] for d in theirs["per_document"]] == [1.0, 0.0, 1.0]  # 251 vs 250: 0.4% off
    # the same verdicts are not a vacuous agreement: inference changed them from the defaults
    plain = build_report(evaluate_files(compile_schema(_without_inference(SCHEMA)), str(gt), str(pred)))
    assert plain["metrics"]["weighted_overall_score"] != pytest.approx(ours["metrics"]["weighted_overall_score"])


def _without_inference(schema: dict) -> dict:
    out = json.loads(json.dumps(schema))
    out.pop("x-aws-stickler-infer-unspecified")
    out["properties"]["memo"]["properties"]["summary"].pop("x-aws-stickler-comparator")
    return out
