"""`stickler schema infer` and `stickler eval GT PRED`: a schema inferred from the data.

The comparator choices are stickler-eval 1.0.0's ``stickler.auto`` rules (golden values below were
asked of its ``infer_field_config``; tests/parity/test_inference_oracle.py asks it again for every
name word and type), plus the identifier words of issue 37 (strict Exact), read from the ground truth
alone; the schema compiles, `schema check` passes on it, and evaluating with it equals evaluating
without a schema; messy data gives a valid schema and notes, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from stickler_cli.cli.app import main
from stickler_cli.errors import InputError
from stickler_cli.schema import compile_schema, load_schema
from stickler_cli.schema.inference import ENUM_MAX_VALUES, choose, infer_schema, name_tokens

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = [
    "employee",
    "invoice",
    "shipment",
    "transactions",
]  # the JSONL data sets (quickstart is one pair for `compare`)
STRICT = {"case_sensitive": True, "normalize": False}
LOOSE = {"case_sensitive": False, "normalize": False}

# (field name, kind of its values, library annotation) -> stickler-eval's infer_field_config answer:
# comparator, options (Exact's as ours spell the library's default), threshold, clip.
GOLDEN = [
    ("invoice_id", "string", "ExactComparator", STRICT, 1.0, True),
    ("invoice_id", "integer", "ExactComparator", STRICT, 1.0, True),
    ("zip_code", "string", "ExactComparator", STRICT, 1.0, True),
    ("phone", "string", "PhoneComparator", {}, 1.0, True),
    ("phone", "integer", "NumericComparator", {}, 1.0, True),
    ("email", "string", "ExactComparator", LOOSE, 1.0, True),
    ("website_url", "string", "ExactComparator", LOOSE, 1.0, True),
    ("total_amount", "number", "NumericComparator", {"relative_tolerance": 0.001}, 0.95, True),
    ("total_amount", "integer", "NumericComparator", {"relative_tolerance": 0.001}, 0.95, True),
    ("quantity", "integer", "NumericComparator", {}, 1.0, True),
    ("quantity", "number", "NumericComparator", {}, 1.0, True),
    ("due_date", "date", "DateComparator", {}, 0.95, True),
    ("due_date", "string", "LevenshteinComparator", {}, 0.7, True),
    ("created_at", "date-time", "DateComparator", {}, 0.95, True),
    ("timestamp", "date-time", "DateComparator", {"tolerance": 0.0006944444444444445}, 0.95, True),
    ("customer_name", "string", "LevenshteinComparator", {}, 0.85, True),
    ("name", "integer", "NumericComparator", {}, 1.0, True),
    ("address", "string", "FuzzyComparator", {"method": "token_sort_ratio"}, 0.8, True),
    ("notes", "string", "FuzzyComparator", {"method": "token_set_ratio"}, 0.6, False),
    ("description", "string", "FuzzyComparator", {"method": "token_set_ratio"}, 0.6, False),
    ("flag", "boolean", "ExactComparator", STRICT, 1.0, True),
    ("is_id", "boolean", "ExactComparator", STRICT, 1.0, True),
    ("status", "enum", "ExactComparator", STRICT, 1.0, True),
    ("x", "string", "LevenshteinComparator", {}, 0.7, True),
    ("x", "integer", "NumericComparator", {}, 1.0, True),
    ("x", "number", "NumericComparator", {"relative_tolerance": 0.001}, 0.95, True),
    ("ids", "string", "ExactComparator", STRICT, 1.0, True),
    ("isbn13", "string", "ExactComparator", STRICT, 1.0, True),
    ("invoiceId", "string", "ExactComparator", STRICT, 1.0, True),
    ("postalCode", "string", "ExactComparator", STRICT, 1.0, True),
    ("count", "integer", "NumericComparator", {}, 1.0, True),
]


@pytest.mark.parametrize("name, kind, comparator, config, threshold, clip", GOLDEN)
def test_choices_equal_the_library_rules(name, kind, comparator, config, threshold, clip):
    choice = choose(name, kind)
    assert (choice.comparator, choice.config, choice.threshold, choice.clip) == (comparator, config, threshold, clip)


def test_name_tokens_split_camel_case_digits_and_plurals():
    assert name_tokens("invoiceId") == {"invoice", "id"}
    assert name_tokens("isbn13") == {"isbn", "13"}
    assert {"address", "addresse"} <= name_tokens("shipping_addresses")
    assert "id" in name_tokens("IDs") or "id" in name_tokens("ids")


def test_model_backed_and_missing_comparators_are_never_chosen():
    """stickler-eval degrades what it cannot build to Levenshtein (Exact for dates), threshold kept."""
    phone = choose("phone", "string", frozenset({"PhoneComparator"}))
    assert (phone.comparator, phone.config, phone.threshold) == ("LevenshteinComparator", {}, 1.0)
    assert "not installed" in phone.reason
    date = choose("due_date", "date", frozenset({"DateComparator"}))
    assert (date.comparator, date.config) == ("ExactComparator", STRICT)
    chosen = {choose(n, k).comparator for n in ("summary", "body", "text", "meaning", "x") for k in ("string", "enum")}
    assert not chosen & {"SemanticComparator", "BERTComparator", "LLMComparator"}


def _prop(records, name):
    return infer_schema(records).schema["properties"][name]


def test_values_give_the_types_the_library_reads_from_annotations():
    rows = [
        {
            "due_date": f"2024-01-{d:02d}",
            "created": f"2024-01-{d:02d}T10:00:00Z",
            "amount": d + 0.5,
            "qty": d,
            "ok": d % 2 == 0,
            "status": ["open", "paid"][d % 2],
            "ref": f"A-{d}",
            "who": "Ann Lee",
        }
        for d in range(1, 21)
    ]
    schema = infer_schema(rows).schema
    props = schema["properties"]
    assert props["due_date"]["format"] == "date" and props["due_date"]["x-aws-stickler-comparator"] == "DateComparator"
    assert props["created"]["format"] == "date-time" and props["created"]["x-aws-stickler-threshold"] == 0.95
    assert props["amount"]["type"] == "number"
    assert props["amount"]["x-aws-stickler-comparator-config"] == {"relative_tolerance": 0.001}
    assert props["qty"]["type"] == "integer" and props["qty"]["x-aws-stickler-threshold"] == 1.0
    assert props["ok"]["type"] == "boolean"
    assert (
        props["status"]["enum"] == ["open", "paid"]
        and props["status"]["x-aws-stickler-comparator"] == "ExactComparator"
    )
    assert props["ref"]["x-aws-stickler-comparator-config"] == STRICT and "enum" not in props["ref"]
    assert "'ref'" in props["ref"]["description"]  # why: the name token
    assert sorted(schema["required"]) == sorted(props)
    compile_schema(schema)


def test_enums_only_for_small_repeated_value_sets():
    few = [{"kind": ["a", "b"][i % 2]} for i in range(4)]  # 2 values seen twice each: too few to call it an enum
    assert "enum" not in _prop(few, "kind")
    many = [{"kind": f"v{i % (ENUM_MAX_VALUES + 1)}"} for i in range(200)]  # one value past the bound
    assert "enum" not in _prop(many, "kind")
    assert _prop([{"kind": f"v{i % ENUM_MAX_VALUES}"} for i in range(200)], "kind")["enum"][:2] == ["v0", "v1"]
    long_values = [{"kind": ["x" * 41, "y"][i % 2]} for i in range(40)]
    assert "enum" not in _prop(long_values, "kind")


def test_a_name_rule_that_does_not_fit_the_values_keeps_the_type_choice_and_says_why():
    prop = _prop([{"end_date": "INV-2025-2070"}], "end_date")
    assert (prop["x-aws-stickler-comparator"], prop["x-aws-stickler-threshold"]) == ("LevenshteinComparator", 0.7)
    assert "name token 'date'" in prop["description"] and "does not fit" in prop["description"]


def test_rich_values_are_typed_by_their_value():
    prop = _prop([{"total": {"_value": 12.5, "_confidence": 0.9}}, {"total": 3.25}], "total")
    assert prop["type"] == "number" and prop["x-aws-stickler-comparator"] == "NumericComparator"


def test_messy_data_gives_a_valid_schema_and_notes():
    rows = [
        {
            "mixed": 1,
            "nothing": None,
            "tags": [],
            "grid": [[1, 2], [3, 4]],
            "meta": {},
            "odd": [1, "a"],
            "blob": {"a": 1},
            "deep": {"a": {"b": {"c": 1}}},
        },
        {
            "mixed": "one",
            "nothing": None,
            "tags": [],
            "grid": [[5, 6]],
            "meta": {},
            "odd": [{"k": 1}, 2],
            "blob": "text",
            "deep": {"a": {"b": {"c": 2}}},
        },
        [1, 2],
        "a string",
        None,
        7,
    ]
    inferred = infer_schema(rows, max_depth=2)
    props = inferred.schema["properties"]
    assert (inferred.records, inferred.skipped) == (2, 4)
    assert (
        props["mixed"]["type"] == ["integer", "string"]
        and props["mixed"]["x-aws-stickler-comparator"] == "ExactComparator"
    )
    assert props["nothing"]["type"] == "null"
    for whole in ("tags", "grid", "meta", "odd", "blob"):
        assert props[whole]["x-aws-stickler-comparator"] == "ANLSStarComparator", whole
    notes = "\n".join(inferred.notes)
    for expected in (
        "4 records were not JSON objects",
        "mixed: values of several types (integer, string)",
        "nothing: only null seen",
        "tags: only empty lists seen",
        "grid: list items of type array",
        "meta: only empty objects seen",
        "blob: values of several types",
        "deep.a: nested deeper",
    ):
        assert expected in notes, expected
    plan = compile_schema(inferred.schema)
    assert {f.path for f in plan.fields} >= {"mixed", "nothing", "tags", "grid", "deep", "deep.a"}


def test_colliding_names_and_too_many_fields_are_left_out_with_a_note():
    inferred = infer_schema([{"a": {"b": 1}, "a.b": 2, "$": 3}])
    assert set(inferred.schema["properties"]) == {"a"}
    assert sum("collides" in n for n in inferred.notes) == 2
    compile_schema(inferred.schema)
    emptied = infer_schema([{"x.y": 1, "x": {"y": 2}}, {"l.k": 1, "l": [{"k": 2}]}])  # x and l lose their only field
    assert emptied.schema["properties"]["x"]["x-aws-stickler-comparator"] == "ANLSStarComparator"
    assert emptied.schema["properties"]["l"]["x-aws-stickler-comparator"] == "ANLSStarComparator"
    compile_schema(emptied.schema)
    capped = infer_schema([{f"k{i}": i for i in range(50)}], max_fields=10)
    assert len(capped.schema["properties"]) == 10 and any("more than 10 fields" in n for n in capped.notes)


def test_no_object_with_a_key_is_an_input_error():
    with pytest.raises(InputError, match="no field to infer"):
        infer_schema([{}, [1], "x"], source="gt.jsonl")


# -- the command line ---------------------------------------------------------------------------


def _run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", FIXTURES)
def test_round_trip_infer_check_eval_on_every_fixture(name, tmp_path, capsys):
    gt, pred = ROOT / "fixtures" / name / "gt.jsonl", ROOT / "fixtures" / name / "pred.jsonl"
    schema = tmp_path / "inferred.json"
    code, out, err = _run(["schema", "infer", gt, pred, "-o", schema], capsys)
    assert code == 0 and out == "" and f"written to {schema}" in err
    code, out, err = _run(["schema", "check", schema], capsys)
    assert code == 0 and "model Inferred" in " ".join(out.split())
    # The same fields as the hand-written schema beside the fixture.
    assert sorted(f.path for f in load_schema(schema).fields) == sorted(
        f.path for f in load_schema(ROOT / "schemas" / f"{name}.json").fields
    )
    code, with_schema, _ = _run(["eval", schema, gt, pred, "-f", "json", "--no-progress"], capsys)
    assert code == 0
    code, without, err = _run(["eval", gt, pred, "-f", "json", "--no-progress"], capsys)
    assert code == 0
    lines = [line for line in err.splitlines() if "no schema given" in line]
    assert len(lines) == 1 and "--save-schema FILE" in lines[0]
    ours, theirs = json.loads(with_schema), json.loads(without)
    assert ours["metrics"] == theirs["metrics"] and ours["field_metrics"] == theirs["field_metrics"]
    assert theirs["document_count"] > 0 and theirs["metrics"]["tp"] > 0
    assert theirs["schema"]["path"] == "<inferred>"


def test_schema_infer_writes_to_stdout_and_notes_to_stderr(tmp_path, capsys):
    gt = tmp_path / "gt.jsonl"
    gt.write_text('{"a": 1, "tags": []}\n[1]\nnot json\n{"a": "x", "tags": []}\n')
    code, out, err = _run(["schema", "infer", gt], capsys)
    assert code == 0
    schema = json.loads(out)
    assert schema["properties"]["a"]["type"] == ["integer", "string"]
    assert f"{gt}:2: expected a JSON object, got list (2 such lines skipped)" in err
    assert "note: a: values of several types" in err and "note: tags: only empty lists seen" in err
    assert "Traceback" not in err


def test_records_read_are_bounded_by_a_limit(tmp_path, capsys):
    gt = tmp_path / "gt.jsonl"
    gt.write_text("".join(json.dumps({"n": i}) + "\n" for i in range(5)) + '{"late": "x"}\n')
    code, out, err = _run(["schema", "infer", gt, "--limit", "infer-records=5"], capsys)
    assert code == 0 and set(json.loads(out)["properties"]) == {"n"}
    assert "read the first 5 records (--limit infer-records=N reads more)" in err
    code, out, _ = _run(["schema", "infer", gt], capsys)
    assert set(json.loads(out)["properties"]) == {"n", "late"}


def test_eval_save_schema_keeps_the_inferred_schema(tmp_path, capsys):
    gt, pred = ROOT / "fixtures/invoice/gt.jsonl", ROOT / "fixtures/invoice/pred.jsonl"
    kept = tmp_path / "kept.json"
    code, out, err = _run(["eval", gt, pred, "--save-schema", kept, "--no-progress", "-f", "json"], capsys)
    assert code == 0 and f"written to {kept}" in err
    code, out, _ = _run(["schema", "infer", gt, pred], capsys)
    assert orjson.loads(kept.read_bytes()) == json.loads(out)
    assert json.loads(kept.read_bytes())["properties"]["invoice_id"]["x-aws-stickler-comparator"] == "ExactComparator"


def test_eval_usage_errors_of_the_two_argument_form(tmp_path, capsys):
    gt, pred = ROOT / "fixtures/invoice/gt.jsonl", ROOT / "fixtures/invoice/pred.jsonl"
    schema = ROOT / "schemas/invoice.json"
    code, _, err = _run(["eval", schema, gt], capsys)  # the predictions forgotten: not a schema inferred from a schema
    assert code == 2 and "looks like a schema" in err and "predictions are missing" in err
    code, _, err = _run(["eval", schema, gt, pred, "--save-schema", tmp_path / "s.json"], capsys)
    assert code == 2 and "--save-schema keeps an inferred schema" in err
    code, _, err = _run(["eval", "-", pred], capsys)
    assert code == 2 and "standard input" in err
    code, _, err = _run(["eval", gt, pred, "--save-schema", gt], capsys)
    assert code == 2 and "Traceback" not in err
    assert gt.read_bytes().startswith(b'{"invoice_id"')  # never overwritten
    code, _, err = _run(["eval", "schema.json"], capsys)  # one argument: what is missing, on one line
    assert code == 2 and err.startswith("stickler: error: eval needs the ground truth and the predictions")


def test_data_with_no_field_is_exit_2_naming_the_file(tmp_path, capsys):
    gt = tmp_path / "gt.jsonl"
    gt.write_text("{}\n{}\n")
    code, _, err = _run(["eval", gt, gt], capsys)
    assert code == 2 and f"{gt}" in err and "no field to infer" in err


# -- issue 37: the ground truth chooses; identifier names are compared strictly ------------------------------


def _invoices():
    gt = [
        {
            "invoice_number": f"A9{i:04d}",
            "po_number": f"PO-{1000 + i}",
            "iban": f"DE8937040044053201{i:04d}",
            "invoice_date": f"2024-03-{i + 1:02d}",
            "total": 100 + i * 3.5,
            "vendor": {"vat": f"DE{123456780 + i}"},
        }
        for i in range(12)
    ]
    pred = [json.loads(json.dumps(r)) for r in gt]
    pred[1]["total"] = "$107.00"  # a string where the truth has numbers
    pred[2]["invoice_date"] = "March 3, 2024"  # a date reformatted
    pred[3]["invoice_date"] = "2024-03-05"  # a wrong day
    pred[4]["vendor"]["vat"] = 123
    pred[5]["extra"] = "x"  # a key the truth has not
    pred[6]["vendor"]["city"] = "Berlin"
    return gt, pred


def test_predictions_never_choose_a_type_or_a_comparator_only_notes(tmp_path, capsys):
    """`schema infer GT PRED` let the model's mistakes pick the comparators: a string in `total` made it strict
    Exact ("values of several types"), a reformatted date made `invoice_date` Levenshtein 0.7 (a wrong day TP, a
    reformatted date FD). The schema is now the ground truth's alone; the predictions add notes."""
    gt, pred = _invoices()
    alone, both = infer_schema(gt), infer_schema(gt, predictions=pred, predictions_source="pred.jsonl")
    assert both.schema == alone.schema and alone.notes == []
    props = both.schema["properties"]
    assert (props["total"]["type"], props["total"]["x-aws-stickler-comparator"]) == ("number", "NumericComparator")
    assert props["total"]["x-aws-stickler-comparator-config"] == {"relative_tolerance": 0.001}
    assert (
        props["invoice_date"]["format"],
        props["invoice_date"]["x-aws-stickler-comparator"],
        props["invoice_date"]["x-aws-stickler-threshold"],
    ) == ("date", "DateComparator", 0.95)
    assert "extra" not in props and set(props["vendor"]["properties"]) == {"vat"}
    assert both.notes == [
        "invoice_date: not every predicted value is one of the ISO dates the ground truth holds",
        "total: the predictions also hold string (1) where the ground truth holds number: the comparator follows "
        "the ground truth",
        "vendor.vat: the predictions also hold integer (1) where the ground truth holds string: the comparator "
        "follows the ground truth",
        "vendor.city: only in the predictions (1 value): not in the schema, not scored",
        "extra: only in the predictions (1 value): not in the schema, not scored",
    ]
    # On the command line: the same schema with or without the predictions, and `eval GT PRED` scores with it.
    files = {}
    for name, rows in (("gt", gt), ("pred", pred)):
        files[name] = tmp_path / f"{name}.jsonl"
        files[name].write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = _run(["schema", "infer", files["gt"], files["pred"]], capsys)
    assert code == 0 and json.loads(out)["properties"] == alone.schema["properties"]
    assert "stickler: note: total: the predictions also hold string (1)" in err
    assert _run(["schema", "infer", files["gt"]], capsys)[1] == out
    code, out, err = _run(["eval", files["gt"], files["pred"], "-f", "json", "--no-progress"], capsys)
    assert "inferred one (7 fields) from 12 ground-truth records, 5 note(s)" in err
    fields = json.loads(out)["field_metrics"]
    # The reformatted date is the same day (TP), the wrong day is not (FD): 11 TP, 1 FD.
    assert (fields["invoice_date"]["tp"], fields["invoice_date"]["fd"]) == (11, 1)
    assert fields["total"]["comparator"] == "NumericComparator"


@pytest.mark.parametrize(
    "name",
    [
        "invoice_number",
        "po_number",
        "iban",
        "IBAN",
        "bic",
        "swift",
        "vat",
        "vatNumber",
        "invoice_no",
        "orderNr",
        "account_num",
        "sku",
        "product_code",
        "customer_number",
        "serial",
        "tracking_numbers",
        "ean13",
        "customer_id",
        "supplier_vat",
    ],
)
def test_identifier_names_get_strict_exact_from_data(name):
    rows = [{name: f"A9{i:04d}X"} for i in range(8)]
    prop = infer_schema(rows).schema["properties"][name]
    assert (
        prop["x-aws-stickler-comparator"],
        prop.get("x-aws-stickler-comparator-config"),
        prop["x-aws-stickler-threshold"],
    ) == ("ExactComparator", STRICT, 1.0), name
    assert "(identifier)" in prop["description"]


@pytest.mark.parametrize(
    "name, values, comparator, threshold",
    [
        ("number_of_items", ["a few", "many"], "LevenshteinComparator", 0.7),  # "number" first: not an identifier
        ("number", ["12a", "7b"], "LevenshteinComparator", 0.7),  # alone: a count as often as an id
        ("page_number", [3, 4], "NumericComparator", 1.0),  # integers: compared exactly already
        ("vat_amount", [19.5, 7.25], "NumericComparator", 0.95),  # money, not an identifier
        ("vat_rate", ["19%", "7%"], "LevenshteinComparator", 0.7),  # vat counts as the last word only
        ("phone_number", ["+1 206 555 0100", "+1 206 555 0101"], "PhoneComparator", 1.0),  # phone comes first
        ("notes", ["one more", "two more"], "FuzzyComparator", 0.6),
    ],
)
def test_names_that_do_not_say_identifier_keep_their_rules(name, values, comparator, threshold):
    prop = infer_schema([{name: v} for v in values]).schema["properties"][name]
    expected = (
        comparator
        if comparator != "PhoneComparator" or choose("phone", "string").comparator == comparator
        else "LevenshteinComparator"
    )
    assert (prop["x-aws-stickler-comparator"], prop["x-aws-stickler-threshold"]) == (expected, threshold)


def test_an_identifier_one_character_off_is_no_longer_a_match(tmp_path, capsys):
    """Inferred from the ground truth alone, `invoice_number` got Levenshtein 0.7: A90698 against A9O698 (a letter O
    for a zero) scored 1 - 1/6 = 0.83, a TP. Strict Exact: 0.0, an FD."""
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text('{"invoice_number": "A90698"}\n{"invoice_number": "B11111"}\n')
    pred.write_text('{"invoice_number": "A9O698"}\n{"invoice_number": "B11111"}\n')
    code, out, _ = _run(["eval", gt, pred, "-f", "json", "--no-progress"], capsys)
    field = json.loads(out)["field_metrics"]["invoice_number"]
    assert code == 0 and (field["tp"], field["fd"], field["comparator"]) == (1, 1, "ExactComparator")


def test_a_schema_asking_for_inference_keeps_the_library_rules(tmp_path):
    """x-aws-stickler-infer-unspecified (the ninth extension) follows stickler-eval 1.0.0, whose rules do not read
    `number` or `iban`: Levenshtein 0.7 there (docs/parity.md rows 36 and 40 say where the two differ)."""
    plan = compile_schema(
        {
            "type": "object",
            "x-aws-stickler-infer-unspecified": True,
            "properties": {
                "invoice_number": {"type": "string"},
                "iban": {"type": "string"},
                "invoice_id": {"type": "string"},
            },
        }
    )
    chosen = {f.path: (f.comparator_name, f.deciding_threshold) for f in plan.fields}
    assert chosen == {
        "invoice_number": ("LevenshteinComparator", 0.7),
        "iban": ("LevenshteinComparator", 0.7),
        "invoice_id": ("ExactComparator", 1.0),
    }


def test_dates_written_out_in_the_ground_truth_get_the_date_comparator(tmp_path, capsys):
    """Only ISO dates were dates: `15/03/2024` in the ground truth gave Levenshtein 0.7, under which a wrong day
    (16/03/2024, one character) is a match and the same day written 2024-03-15 is not. Dates in common spellings
    now get DateComparator 0.95 (no `format`: that means ISO), read in the order the ground truth shows."""
    rows = [
        {
            "issued": f"{d:02d}/03/2024",
            "shipped": f"03/{d:02d}/2024",
            "paid": f"March {d}, 2024",
            "posted": f"{d}.03.2024",
            "both": ["15/03/2024", "03/15/2024"][d % 2],
            "odd": f"{d:02d}/03/2024",
            "short": f"03/{d:02d}",
            "ambiguous": f"0{d % 9 + 1}/0{d % 9 + 1}/2024",
        }
        for d in range(10, 22)
    ]
    rows[0]["odd"] = "31/02/2024"  # no such day: not a date, so the field is not dates
    inferred = infer_schema(rows)
    props = inferred.schema["properties"]
    chosen = {
        k: (p["x-aws-stickler-comparator"], p.get("x-aws-stickler-comparator-config"), "format" in p)
        for k, p in props.items()
    }
    assert chosen == {
        "issued": ("DateComparator", {"dayfirst": True}, False),
        "shipped": ("DateComparator", {"dayfirst": False}, False),
        "paid": ("DateComparator", None, False),
        "posted": ("DateComparator", {"dayfirst": True}, False),
        "both": ("ExactComparator", STRICT, False),  # two orders: not one way of writing dates (an enum here)
        "odd": ("LevenshteinComparator", None, False),
        "short": ("LevenshteinComparator", None, False),
        "ambiguous": ("DateComparator", None, False),
    }
    assert props["issued"]["x-aws-stickler-threshold"] == 0.95 and "written day first" in props["issued"]["description"]
    assert inferred.notes == [
        "ambiguous: dates whose day and month are both 12 or less: read both ways (day first "
        "and month first, the better kept); set dayfirst in x-aws-stickler-comparator-config"
    ]
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text("".join(json.dumps({"issued": f"{d:02d}/03/2024"}) + "\n" for d in (15, 16, 17)))
    pred.write_text("".join(json.dumps({"issued": v}) + "\n" for v in ("2024-03-15", "17/03/2024", "17/03/2024")))
    code, out, _ = _run(["eval", gt, pred, "-f", "json", "--no-progress"], capsys)
    field = json.loads(out)["field_metrics"]["issued"]
    assert code == 0 and (field["tp"], field["fd"], field["comparator"]) == (2, 1, "DateComparator")
