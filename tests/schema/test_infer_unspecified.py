"""``x-aws-stickler-infer-unspecified`` and ``"x-aws-stickler-comparator": "auto"`` (issue 23, item 1):
stickler-eval 1.0.0's ninth extension, refused before ("unknown extension", exit 2). On an object
schema it scopes its subtree; each property that names no comparator gets the comparator, options,
threshold and clip that ``stickler schema infer``'s rules choose from its name and type; the author's
threshold, clip and options still win. Figures worked by hand (tests/parity has the oracle's)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import stickler_cli as st
from stickler_cli.cli.app import main
from stickler_cli.plan import Kind
from tests.support.case_files import write_case

ISSUE = {
    "type": "object",
    "x-aws-stickler-infer-unspecified": True,
    "properties": {"invoice_id": {"type": "string"}, "total": {"type": "number"}},
}


def _rows(schema: dict, gt: dict, pred: dict) -> dict[str, tuple[float, str, float]]:
    result = st.compare(st.compile_schema(schema), gt, pred, explain=True)
    return {r.path: (result.field_scores.get(r.path, r.score), r.label, r.threshold) for r in result.trace}


def _plan(schema: dict) -> dict[str, tuple]:
    plan = st.compile_schema(schema)
    return {
        f.path: (f.comparator_name, f.threshold, f.clip, f.comparator.config if f.comparator else None)
        for f in plan.fields
    }


def test_the_issue_example_scores_as_the_library_does():
    rows = _rows(ISSUE, {"invoice_id": "INV-1", "total": 100.0}, {"invoice_id": "INV-l", "total": 100.05})
    # INV-1 vs INV-l: strict Exact (name token 'id'); 100.05 is 0.05% off 100.0, within 0.1%
    assert rows["invoice_id"] == (0.0, "FD", 1.0)
    assert rows["total"] == (1.0, "TP", 0.95)
    assert _plan(ISSUE) == {
        "invoice_id": ("ExactComparator", 1.0, True, {"case_sensitive": True, "normalize": False}),
        "total": (
            "NumericComparator",
            0.95,
            True,
            {"relative_tolerance": 0.001, "absolute_tolerance": 0.0, "tolerance": None},
        ),
    }


def test_without_the_flag_the_defaults_stand():
    schema = {k: v for k, v in ISSUE.items() if k != "x-aws-stickler-infer-unspecified"}
    rows = _rows(schema, {"invoice_id": "INV-1", "total": 100.0}, {"invoice_id": "INV-l", "total": 100.05})
    assert rows["invoice_id"] == (0.8, "TP", 0.5)  # Levenshtein: one edit in five
    assert rows["total"] == (0.0, "FD", 0.5)  # Numeric, exact equality


def test_a_nested_false_turns_it_off_below_and_a_nested_object_inherits():
    schema = {
        "type": "object",
        "x-aws-stickler-infer-unspecified": True,
        "properties": {
            "vendor": {"type": "object", "properties": {"city": {"type": "string"}}},
            "memo": {
                "type": "object",
                "x-aws-stickler-infer-unspecified": False,
                "properties": {
                    "city": {"type": "string"},
                    "inner": {
                        "type": "object",
                        "x-aws-stickler-infer-unspecified": True,
                        "properties": {"city": {"type": "string"}},
                    },
                },
            },
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "x-aws-stickler-infer-unspecified": False,
                    "properties": {"city": {"type": "string"}},
                },
            },
        },
    }
    plan = _plan(schema)
    fuzzy = ("FuzzyComparator", 0.8, True, {"method": "token_sort_ratio", "normalize": True})
    assert plan["vendor.city"] == fuzzy
    assert plan["memo.city"] == ("LevenshteinComparator", 0.5, False, {"normalize": True})
    assert plan["memo.inner.city"] == fuzzy
    assert plan["items.city"] == ("LevenshteinComparator", 0.5, False, {"normalize": True})
    rows = _rows(
        schema,
        {"vendor": {"city": "New York City"}, "memo": {"city": "New York City"}},
        {"vendor": {"city": "City New York"}, "memo": {"city": "City New York"}},
    )
    assert rows["vendor.city"][:2] == (1.0, "TP")  # same words reordered: token_sort_ratio 100
    assert rows["memo.city"][1] == "FD"


def test_the_authors_settings_win_and_options_merge():
    schema = {
        "type": "object",
        "x-aws-stickler-infer-unspecified": True,
        "properties": {
            "total": {
                "type": "number",
                "x-aws-stickler-threshold": 0.5,
                "x-aws-stickler-clip-under-threshold": False,
                "x-aws-stickler-weight": 2,
                "x-aws-stickler-comparator-config": {"absolute_tolerance": 1.0},
            },
            "name": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        },
    }
    plan = st.compile_schema(schema)
    total, name = plan.fields
    assert (total.comparator_name, total.threshold, total.clip, total.weight) == ("NumericComparator", 0.5, False, 2.0)
    assert total.comparator.config["relative_tolerance"] == 0.001  # inferred, kept beside the author's option
    assert total.comparator.config["absolute_tolerance"] == 1.0
    assert total.inferred.endswith("yours: options, threshold, clip")
    # a named comparator is the author's whole choice: its threshold is the 0.5 of a named comparator
    assert (name.comparator_name, name.threshold, name.inferred) == ("ExactComparator", 0.5, "")
    rows = _rows(schema, {"total": 100.0, "name": "x"}, {"total": 100.9, "name": "x"})
    assert rows["total"] == (1.0, "TP", 0.5)  # 0.9 off: within the author's absolute tolerance of 1.0


def test_schema_formats_are_read_as_the_library_types_them():
    schema = {
        "type": "object",
        "x-aws-stickler-infer-unspecified": True,
        "properties": {
            "website_url": {"type": "string", "format": "uri"},  # a URL type: strict Exact, the name not read
            "contact_email": {"type": "string", "format": "email"},  # stays a string: the name rule applies
            "vendor_name": {"type": "string", "format": "email"},
            "timestamp": {"type": "string", "format": "date-time"},  # one minute of tolerance
            "due_date": {"type": "string", "format": "date-time"},  # the name's date rule: no tolerance
            "amounts": {"type": ["integer", "number"]},  # a union: Exact
            "meta": {"type": "object"},
        },
    }  # a mapping: ANLS* at the match threshold, not clipped
    plan = _plan(schema)
    strict = {"case_sensitive": True, "normalize": False}
    assert plan["website_url"] == ("ExactComparator", 1.0, True, strict)
    assert plan["contact_email"] == ("ExactComparator", 1.0, True, {"case_sensitive": False, "normalize": False})
    assert plan["vendor_name"] == ("LevenshteinComparator", 0.85, True, {"normalize": True})
    assert plan["timestamp"][:3] == ("DateComparator", 0.95, True)
    assert plan["timestamp"][3]["tolerance"] == pytest.approx(1 / 1440)
    assert plan["due_date"][3]["tolerance"] is None
    assert plan["amounts"] == ("ExactComparator", 1.0, True, strict)
    assert plan["meta"] == ("ANLSStarComparator", 0.7, False, {"leaf_threshold": 0.5})
    gt = {
        "website_url": "https://acme.com/a",
        "contact_email": "Ann@acme.com",
        "timestamp": "2024-03-01T10:00:00Z",
        "meta": {"a": 1, "b": "x"},
    }
    pred = {
        "website_url": "https://ACME.com/a",
        "contact_email": "ann@acme.com",
        "timestamp": "2024-03-01T10:00:30Z",
        "meta": {"a": 1, "b": "y"},
    }
    rows = _rows(schema, gt, pred)
    assert rows["website_url"] == (0.0, "FD", 1.0)
    assert rows["contact_email"] == (1.0, "TP", 1.0)
    assert rows["timestamp"] == (1.0, "TP", 0.95)  # 30 seconds apart
    assert rows["meta"] == (0.5, "FD", 0.7)  # ANLS*: a equal, b 0 (under the leaf threshold), over 2 keys


def test_lists_infer_from_their_items():
    schema = {
        "type": "object",
        "x-aws-stickler-infer-unspecified": True,
        "properties": {
            "prices": {"type": "array", "items": {"type": "number"}},
            "line_items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}},
        },
    }
    plan = st.compile_schema(schema)
    prices = plan.fields[0]
    assert (prices.kind, prices.comparator_name, prices.threshold) == (Kind.PRIMITIVE_LIST, "NumericComparator", 0.95)
    assert "each item" in prices.inferred
    items = next(f for f in plan.fields if f.path == "line_items")
    sku = next(f for f in plan.fields if f.path == "line_items.sku")
    assert (items.kind, items.inferred) == (Kind.OBJECT_LIST, "")  # nothing to infer on the list itself
    assert (sku.comparator_name, sku.comparator.config["case_sensitive"]) == ("ExactComparator", True)


def test_auto_infers_one_field_only():
    schema = {
        "type": "object",
        "properties": {
            "total": {"type": "number", "x-aws-stickler-comparator": "auto"},
            "subtotal": {"type": "number"},
        },
    }
    plan = _plan(schema)
    assert plan["total"][:3] == ("NumericComparator", 0.95, True)
    assert plan["subtotal"][:3] == ("NumericComparator", 0.5, False)
    rows = _rows(schema, {"total": 100.0, "subtotal": 100.0}, {"total": 100.05, "subtotal": 100.05})
    assert rows["total"][:2] == (1.0, "TP") and rows["subtotal"][:2] == (0.0, "FD")


@pytest.mark.parametrize(
    "prop, message",
    [
        (
            {
                "type": "array",
                "x-aws-stickler-comparator": "auto",
                "items": {"type": "object", "properties": {"a": {"type": "string"}}},
            },
            "/properties/p: 'x-aws-stickler-comparator': 'auto' has nothing to infer on a list of objects",
        ),
        (
            {"type": "object", "x-aws-stickler-comparator": "auto", "properties": {"a": {"type": "string"}}},
            "/properties/p: 'x-aws-stickler-comparator': 'auto' has nothing to infer on an object",
        ),
        (
            {"type": "number", "x-aws-stickler-infer-unspecified": True},
            "/properties/p: 'x-aws-stickler-infer-unspecified' belongs on an object schema, not on a number",
        ),
    ],
)
def test_auto_on_a_container_and_the_flag_on_a_value_are_errors(prop, message):
    with pytest.raises(st.SchemaError) as caught:
        st.compile_schema({"type": "object", "properties": {"p": prop}})
    assert str(caught.value).startswith(message)


def test_the_flag_is_a_boolean(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({**ISSUE, "x-aws-stickler-infer-unspecified": "yes"}))
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "schema", "check", str(schema)], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f'stickler: error: {schema}: /x-aws-stickler-infer-unspecified: must be true or false, got "yes"'
    ]


def test_eval_reads_the_flag_end_to_end(tmp_path):
    case = write_case(
        tmp_path, ISSUE, [{"invoice_id": "INV-1", "total": 100.0}], [{"invoice_id": "INV-l", "total": 100.05}]
    )
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "eval", case["schema"], case["gt"], case["pred"], "-f", "json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    fields = json.loads(done.stdout)["field_metrics"]
    assert (fields["invoice_id"]["fd"], fields["invoice_id"]["comparator"], fields["invoice_id"]["threshold"]) == (
        1,
        "ExactComparator",
        1.0,
    )
    assert (fields["total"]["tp"], fields["total"]["comparator"], fields["total"]["threshold"]) == (
        1,
        "NumericComparator",
        0.95,
    )


def test_schema_check_shows_each_choice_and_why(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                **ISSUE,
                "properties": {
                    **ISSUE["properties"],
                    "vendor_name_of_the_supplier_company": {"type": "string"},
                    "note": {"type": "string", "x-aws-stickler-comparator": "LevenshteinComparator"},
                },
            }
        )
    )
    assert main(["schema", "check", str(schema)]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert " Exact*  " in out and " Levenshtein  " in out  # the starred comparators are inferred
    text = " ".join(out.split())
    assert "* inferred from the name and type (3 fields), and why:" in text
    assert (
        "invoice_id: ExactComparator (case-sensitive), threshold 1.0 — inferred: name token 'id' "
        "(identifier), type string"
    ) in text
    assert (
        "total: NumericComparator (relative_tolerance 0.001), threshold 0.95 — inferred: name token "
        "'total' (money), type number"
    ) in text
    assert "note:" not in text  # named by the author: nothing inferred
