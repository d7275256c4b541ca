"""`stickler schema check` shows each list's pairing rule (issue 42): a Pairing column, nothing cut at 80 columns."""

from __future__ import annotations

import json
from pathlib import Path

from stickler_cli.cli.app import main

SCHEMA = {
    "type": "object",
    "properties": {
        "invoice_number": {"type": "string"},
        "line_items": {
            "type": "array",
            "x-aws-stickler-match-key": ["sku", "line_no"],
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "line_no": {"type": "integer"},
                    "description": {"type": "string"},
                },
            },
        },
        "tags": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-match-order": "position"},
        "notes": {"type": "array", "items": {"type": "string"}},
    },
}


def test_the_pairing_column_at_80_columns(tmp_path: Path, capsys, monkeypatch) -> None:
    """Seven fields; the table is wider than 80 columns, so the Pairing column follows under "(continued)",
    each row with its field again, every rule whole."""
    monkeypatch.setenv("COLUMNS", "80")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    assert main(["schema", "check", str(schema)]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    rows = [line.split() for line in out.split("(continued)")[1].splitlines() if line.strip()]
    assert rows[0] == ["Field", "Pairing"]
    assert rows[2:] == [
        ["invoice_number", "-"],
        ["line_items", "key", "sku+line_no"],
        ["sku", "-"],
        ["line_no", "-"],
        ["description", "-"],
        ["tags", "position"],
        ["notes", "hungarian"],
    ]


def test_a_bad_key_is_exit_2_naming_the_pointer(tmp_path: Path, capsys) -> None:
    bad = json.loads(json.dumps(SCHEMA))
    bad["properties"]["line_items"]["x-aws-stickler-match-key"] = ["sku", "line"]
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(bad))
    assert main(["schema", "check", str(schema)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "/properties/line_items: 'x-aws-stickler-match-key' names 'line', which is no property of the items "
        "(did you mean 'line_no'?); their properties: sku, line_no, description"
    ) in err
