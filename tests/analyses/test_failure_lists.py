"""Failure lists (issue 16, items 11 and 13): every comparison row carries the prediction's
confidence at a leaf, plain values (never a raw ``{"_value": …, "_confidence": …}`` wrapper), and
marks a value the schema's ``default`` stood in for; the terminal and Markdown show both, at 80
columns piped."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

import stickler_cli as st
from stickler_cli.analyses.failures import explain
from stickler_cli.cli.app import main
from stickler_cli.engine import Engine

ROOT = Path(__file__).resolve().parents[2]

SCHEMA = {
    "type": "object",
    "x-aws-stickler-model-name": "Claim",
    "properties": {
        "claim_id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "currency": {"type": "string", "default": "USD", "x-aws-stickler-comparator": "ExactComparator"},
        "patient": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "x-aws-stickler-comparator": "LevenshteinComparator"},
                "age": {"type": "integer"},
            },
        },
        "codes": {"type": "array", "x-aws-stickler-comparator": "ExactComparator", "items": {"type": "string"}},
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "x-aws-stickler-match-threshold": 0.5,
                "properties": {
                    "sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "unit": {"type": "string", "default": "each", "x-aws-stickler-comparator": "ExactComparator"},
                },
            },
        },
    },
}
GT = {
    "claim_id": "C-1",
    "currency": "CAD",
    "patient": {"name": "Ada Lovelace", "age": 36},
    "codes": ["A1", "B2"],
    "lines": [{"sku": "X", "unit": "box"}],
}
PRED = {
    "claim_id": {"_value": "C-7", "_confidence": 0.93},  # confident and wrong
    "patient": {"name": {"_value": "Ada Lovelace", "_confidence": 0.8}, "age": {"_value": 63, "_confidence": 0.25}},
    "codes": [
        {"_value": "A1", "_confidence": 0.9},
        {"_value": "Q9", "_confidence": 0.6},
        {"_value": "Z0", "_confidence": 0.125},
    ],
    "lines": [{"sku": {"_value": "X", "_confidence": 0.5}}],
}


def _rows() -> dict[str, dict]:
    return {r["path"]: r for r in explain(Engine(st.compile_schema(SCHEMA)), GT, PRED)[0]}


def test_rows_carry_the_leaf_confidence_and_plain_values_at_every_depth():
    rows = _rows()
    assert {p: r["confidence"] for p, r in rows.items()} == {
        "claim_id": 0.93,
        "currency": None,
        "patient": None,
        "patient.name": 0.8,
        "patient.age": 0.25,
        "codes[0↔0]": 0.9,
        "codes[1↔1]": 0.6,
        "codes[-↔2]": 0.125,  # an unpaired predicted item is a leaf too
        "lines": None,
        "lines[0↔0]": None,
        "lines[0↔0].sku": 0.5,
        "lines[0↔0].unit": None,
    }
    # object and list rows: the values as the record means them, no wrapper at any depth
    assert rows["patient"]["pred"] == {"name": "Ada Lovelace", "age": 63}
    assert rows["lines"]["pred"] == [{"sku": "X"}]
    assert rows["lines[0↔0]"]["pred"] == {"sku": "X"}
    assert (rows["claim_id"]["type"], rows["claim_id"]["pred"]) == ("FD", "C-7")
    assert "_value" not in json.dumps(list(rows.values()))


def test_a_default_filled_into_a_missing_value_is_marked():
    rows = _rows()
    # The model never said USD: the schema's default stood in for it (stickler-eval 1.0.0 fills it too).
    currency = rows["currency"]
    assert (currency["type"], currency["gt"], currency["pred"], currency["gt_default"], currency["pred_default"]) == (
        "FD",
        "CAD",
        "USD",
        False,
        True,
    )
    unit = rows["lines[0↔0].unit"]  # inside a list item too
    assert (unit["type"], unit["gt"], unit["pred"], unit["gt_default"], unit["pred_default"]) == (
        "FD",
        "box",
        "each",
        False,
        True,
    )
    assert not any(
        r["gt_default"] or r["pred_default"] for p, r in rows.items() if p not in ("currency", "lines[0↔0].unit")
    )
    # Missing on both sides: the default against itself, a TP, both marked.
    both = {
        r["path"]: r for r in explain(Engine(st.compile_schema(SCHEMA)), {"claim_id": "C-1"}, {"claim_id": "C-1"})[0]
    }
    assert (both["currency"]["type"], both["currency"]["gt_default"], both["currency"]["pred_default"]) == (
        "TP",
        True,
        True,
    )
    # A value given, even one equal to the default, is not marked.
    given = {
        r["path"]: r for r in explain(Engine(st.compile_schema(SCHEMA)), {"currency": "USD"}, {"currency": "USD"})[0]
    }
    assert (given["currency"]["gt_default"], given["currency"]["pred_default"]) == (False, False)


def test_filling_defaults_leaves_the_scores_as_they_were():
    """Marking happens only when explaining: the counts and score are those of the plain path."""
    plan = st.compile_schema(SCHEMA)
    plain, explained = Engine(plan).compare(GT, PRED), Engine(plan).compare(GT, PRED, explain=True)
    assert plain.tally == explained.tally and plain.score == explained.score
    assert plain.defaults is None and explained.defaults == {
        "currency": [False, True],
        "lines[0↔0].unit": [False, True],
    }
    currency = plan.root.field("currency").index
    assert plain.counts[currency] == [0, 0, 1, 0, 0]  # FD: CAD against the filled-in USD


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {"schema": tmp_path / "s.json", "gt": tmp_path / "gt.jsonl", "pred": tmp_path / "pred.jsonl"}
    paths["schema"].write_text(json.dumps(SCHEMA))
    paths["gt"].write_text(json.dumps(GT) + "\n" + json.dumps({"claim_id": "C-2", "currency": "EUR"}) + "\n")
    paths["pred"].write_text(json.dumps(PRED) + "\n" + json.dumps({"claim_id": "C-2", "currency": "EUR"}) + "\n")
    return {k: str(v) for k, v in paths.items()}


def _eval(files, capsys, monkeypatch, *extra: str) -> tuple[int, str]:
    monkeypatch.setenv("COLUMNS", "80")
    code = main(["eval", files["schema"], files["gt"], files["pred"], *extra])
    return code, capsys.readouterr().out


def test_non_matches_lines_carry_confidence_and_defaults(files, tmp_path, capsys, monkeypatch):
    target = tmp_path / "misses.jsonl"
    code, _ = _eval(files, capsys, monkeypatch, "--non-matches", str(target))
    assert code == 0
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert [(r["path"], r["type"], r["gt"], r["pred"], r["confidence"], r["pred_default"]) for r in rows] == [
        ("claim_id", "FD", "C-1", "C-7", 0.93, False),
        ("currency", "FD", "CAD", "USD", None, True),
        ("patient", "FD", {"name": "Ada Lovelace", "age": 36}, {"name": "Ada Lovelace", "age": 63}, None, False),
        ("patient.age", "FD", 36, 63, 0.25, False),
        ("codes[1↔1]", "FD", "B2", "Q9", 0.6, False),
        ("codes[-↔2]", "FA", None, "Z0", 0.125, False),
        ("lines[0↔0].unit", "FD", "box", "each", None, True),
    ]
    assert all(r["doc_id"] == rows[0]["doc_id"] and r["gt_default"] is False for r in rows)


def test_the_reports_worst_documents_carry_them_and_validate(files, capsys, monkeypatch):
    code, out = _eval(files, capsys, monkeypatch, "-f", "json")
    assert code == 0
    report = json.loads(out)
    jsonschema.validate(report, json.loads((ROOT / "schemas/report.schema.json").read_text()))
    rows = {c["path"]: c for c in report["worst_documents"][0]["comparisons"]}
    assert (rows["claim_id"]["confidence"], rows["currency"]["pred_default"], rows["patient"]["pred"]) == (
        0.93,
        True,
        {"name": "Ada Lovelace", "age": 63},
    )


def test_terminal_worst_documents_show_a_confidence_column_and_the_default_mark(files, capsys, monkeypatch):
    code, out = _eval(files, capsys, monkeypatch, "--show-errors", "1")
    assert code == 0
    worst = out[out.index("The 1 worst document(s)") :]
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in worst and "_value" not in worst and "_confidence" not in worst
    assert re.search(r"Prediction +Conf +Score", worst)
    assert re.search(r"\n claim_id +FD +C-1 +C-7 +0\.930 +0\.000 *\n", worst)
    assert re.search(r"\n currency +FD +CAD +USD \(default\) +– +0\.000 *\n", worst)
    assert re.search(r"\n patient\.age +FD +36 +63 +0\.250 +0\.000 *\n", worst)
    assert re.search(r"\n codes\[-↔2\] +FA +null +Z0 +0\.125 +0\.000 *\n", worst)


def test_markdown_worst_documents_show_a_confidence_column_and_the_default_mark(files, capsys, monkeypatch):
    code, out = _eval(files, capsys, monkeypatch, "-f", "markdown")
    assert code == 0
    assert "| Field | Type | Ground truth | Prediction | Confidence | Score |\n|---|---|---|---|---:|---:|" in out
    assert "| `claim_id` | FD | `C-1` | `C-7` | 0.930 | 0.000 |" in out
    assert "| `currency` | FD | `CAD` | `USD` (default) | – | 0.000 |" in out
    assert (
        '| `patient` | FD | `{"name":"Ada Lovelace","age":36}` | `{"name":"Ada Lovelace","age":63}` | – | 0.500 |'
        in out
    )
    assert "_value" not in out


def test_without_any_confidence_the_lists_keep_their_columns(files, capsys, monkeypatch):
    Path(files["pred"]).write_text(json.dumps({"claim_id": "C-7"}) + "\n")
    code, out = _eval(files, capsys, monkeypatch, "-f", "markdown")
    assert code == 0
    assert "| Field | Type | Ground truth | Prediction | Score |\n|---|---|---|---|---:|" in out
    assert "| `currency` | FD | `CAD` | `USD` (default) | 0.000 |" in out
    code, out = _eval(files, capsys, monkeypatch, "--show-errors", "1")
    assert "Conf" not in out and re.search(r"Prediction +Score", out)


BIG = 10**30  # beyond 64 bits: orjson cannot write it, Python's json can
LONG_ID = "s3://acme-claims-bucket/2026/07/vendor-acme-health/batch-0042/claim-000000000000000000000017.pdf"


def test_long_names_huge_numbers_and_long_values_in_every_failure_list(tmp_path, capsys, monkeypatch):
    """Review of issue 16: names and paths whole in Markdown; a 64-bit-plus integer shown as JSON
    digits, never as a Python repr and never cut; other long values cut with the count left out."""
    schema = {
        "type": "object",
        "properties": {
            "doc_id": {"type": "string"},
            "beneficiary_information_section": {
                "type": "object",
                "properties": {
                    "secondary_insurance_policy_holder_details": {
                        "type": "object",
                        "properties": {"employer_identification_number": {"type": "string"}},
                    }
                },
            },
            "amount": {"type": "integer", "x-aws-stickler-comparator": "ExactComparator"},
            "lines": {"type": "array", "items": {"type": "integer"}, "x-aws-stickler-comparator": "ExactComparator"},
            "notes": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        },
    }
    path = "beneficiary_information_section.secondary_insurance_policy_holder_details.employer_identification_number"
    nested = {
        "beneficiary_information_section": {
            "secondary_insurance_policy_holder_details": {"employer_identification_number": "12-3456789"}
        }
    }
    gt = {"doc_id": LONG_ID, **nested, "amount": 7, "lines": [1], "notes": "n" * 5000}
    pred = {"doc_id": LONG_ID, "amount": BIG, "lines": [BIG], "notes": "m" * 5000}
    files = {"schema": tmp_path / "s.json", "gt": tmp_path / "gt.jsonl", "pred": tmp_path / "p.jsonl"}
    files["schema"].write_text(json.dumps(schema))
    files["gt"].write_text(json.dumps(gt) + "\n")
    files["pred"].write_text(json.dumps(pred) + "\n")
    files = {k: str(v) for k, v in files.items()}

    code, md = _eval(files, capsys, monkeypatch, "-f", "markdown")
    assert code == 0
    assert f"<summary><code>{LONG_ID}</code>" in md
    assert f"| `{path}` |" in md  # the field table
    assert f"| `amount` | FD | `7` | `{BIG}` |" in md
    assert f"| `lines[0↔0]` | FD | `1` | `{BIG}` |" in md
    assert f"`{'m' * 300}… (+4,700 characters)`" in md

    monkeypatch.setenv("COLUMNS", "1000")  # wide enough that no value folds: each row on one line
    code = main(["eval", files["schema"], files["gt"], files["pred"], "--show-errors", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(rf"\n amount +FD +7 +{BIG} +0\.000 *\n", out)
    assert re.search(rf"\n lines\[0↔0\] +FD +1 +{BIG} +0\.000 *\n", out)
    assert f" {'m' * 300}… (+4,700 characters) " in out

    target = tmp_path / "misses.jsonl"
    code, _ = _eval(files, capsys, monkeypatch, "--non-matches", str(target))
    lines = target.read_text().splitlines()
    assert [json.loads(line)["pred"] for line in lines if json.loads(line)["path"] == "amount"] == [BIG]
    assert all(", " not in line and '": ' not in line for line in lines)  # one compact style throughout

    monkeypatch.setenv("COLUMNS", "160")
    code = main(["compare", files["schema"], files["gt"], files["pred"]])
    out = capsys.readouterr().out
    assert sum(map(len, re.findall("m{5,}", out))) == 5000  # up to 10,000 characters shown whole
    assert re.search(r"\n notes +FD +n+ +m+ +0\.000 +0\.000 +[0-9.]+ +Exact *\n", out)
    assert "…" not in out


def test_a_confidence_outside_0_1_is_shown_as_none(tmp_path):
    """It is listed in errors and left out of the metrics: the failure lists do not show it either."""
    schema = st.compile_schema({"type": "object", "properties": {"x": {"type": "string"}}})
    result = Engine(schema).compare({"x": "a"}, {"x": {"_value": "b", "_confidence": 2.0}}, explain=True)
    assert [(r.path, r.confidence) for r in result.trace] == [("x", None)]
    assert result.errors == ["x: _confidence must be a number from 0 to 1, got 2.0"]


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_numbers_inside_listed_objects_are_never_split_across_lines(command, capsys, monkeypatch):
    """A list or object value is folded between its members, never inside one: ``"unit_price":1`` over
    ``118.59}]`` read as 118.59 in an 80-column log."""
    monkeypatch.setenv("COLUMNS", "80")
    files = [
        str(ROOT / p) for p in ("schemas/invoice.json", "fixtures/invoice/gt.jsonl", "fixtures/invoice/pred.jsonl")
    ]
    args = ["--show-errors", "24"] if command == "eval" else ["--line", "1"]
    main([command, *files, *args])
    out = capsys.readouterr().out
    record = json.loads((ROOT / "fixtures/invoice/gt.jsonl").read_text().splitlines()[0])
    prices = [str(item["unit_price"]) for item in record["line_items"]] + ["1663.4", "1118.59"]  # and the prediction's
    assert len(prices) == 4
    for price in prices:
        assert re.search(rf"(?<![\d.]){re.escape(price)}(?![\d.])", out), (price, out)


def test_a_worst_document_without_a_miss_says_so_on_a_line_of_its_own(tmp_path, capsys, monkeypatch):
    """Its note stood in the field column, five characters wide: one syllable a line; Markdown gave an empty table."""
    monkeypatch.setenv("COLUMNS", "80")
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "LevenshteinComparator",
                        "x-aws-stickler-threshold": 0.5,
                    },
                    "code": {"type": "string"},
                },
            }
        )
    )
    gt, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gt.write_text('{"name": "abcdef", "code": "X"}\n{"name": "qq", "code": "Y"}\n')
    pred.write_text('{"name": "abcdeg", "code": "X"}\n{"name": "qq", "code": "Z"}\n')
    monkeypatch.chdir(tmp_path)  # short relative names: the heading's layout is not the temporary path's length
    main(["eval", "s.json", "g.jsonl", "p.jsonl", "--show-errors", "3"])
    out = capsys.readouterr().out
    # 1 - 1/6 for the name (a TP), 1 for the code: 0.917 over two fields
    assert re.search(
        r"g\.jsonl:1 · \s*score 0\.917 · [^│]*?p\.jsonl:1\n    no failing comparison: the score is below 1 "
        r"by partial matches\n",
        out,
    ), out
    main(["eval", "s.json", "g.jsonl", "p.jsonl", "--show-errors", "3", "-f", "markdown"])
    page = capsys.readouterr().out
    assert (
        "g.jsonl:1</code> · score 0.917 · 0 failing comparison(s)</summary>\n\nno failing comparison: the "
        "score is below 1 by partial matches\n\n</details>"
    ) in page
