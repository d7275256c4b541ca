"""`stickler compare` at 80 columns, piped: paths whole (wrapped after a dot), values folded, never cut;
one pair chosen from two JSON Lines files by --id or --line, or read from standard input (issue 16,
item 10)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from stickler_cli.cli.app import main


def test_long_paths_and_values_are_shown_whole_at_80_columns(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "provider": {
                        "type": "object",
                        "properties": {
                            "address": {
                                "type": "object",
                                "properties": {"postal_code_of_the_billing_office": {"type": "string"}},
                            }
                        },
                    }
                },
            }
        )
    )
    value = "a value much longer than forty characters, ending here: END"
    gt = json.dumps({"provider": {"address": {"postal_code_of_the_billing_office": value}}})
    pred = json.dumps({"provider": {"address": {"postal_code_of_the_billing_office": value + "!"}}})
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "compare", str(schema), gt, pred],
        capture_output=True,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "…" not in done.stdout.decode()
    field_column = "".join(line[1:19].strip() for line in lines[4:])
    assert "provider.address.postal_code_of_the_billing_office" in field_column
    assert "END!" in done.stdout.decode().replace("\n", "").replace(" ", "")


# -- one pair chosen from two JSON Lines files (issue 16, item 10) ---------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "doc_id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "total": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
        "currency": {"type": "string", "default": "USD", "x-aws-stickler-comparator": "ExactComparator"},
    },
}
# Line 2 of the ground truth is blank: it keeps its place, as eval counts lines.
GT_LINES = ['{"doc_id": "doc-0001", "total": 10}', "", '{"doc_id": "doc-0042", "total": 42, "currency": "CAD"}']
PRED_LINES = [
    '{"doc_id": "doc-0042", "total": {"_value": 41, "_confidence": 0.93}}',
    '{"doc_id": "doc-0002", "total": 2}',
    '{"doc_id": "doc-0001", "total": 10}',
    "not json",
]


@pytest.fixture
def pair(tmp_path: Path) -> dict[str, str]:
    paths = {"schema": tmp_path / "s.json", "gt": tmp_path / "gt.jsonl", "pred": tmp_path / "pred.jsonl"}
    paths["schema"].write_text(json.dumps(SCHEMA))
    paths["gt"].write_text("\n".join(GT_LINES) + "\n")
    paths["pred"].write_text("\n".join(PRED_LINES) + "\n")
    return {k: str(v) for k, v in paths.items()}


def _compare(pair, capsys, *args: str) -> tuple[int, str, str]:
    code = main(["compare", pair["schema"], pair["gt"], pair["pred"], *args])
    out, err = capsys.readouterr()
    return code, out, err


def _json(pair, capsys, *args: str) -> dict:
    code, out, err = _compare(pair, capsys, *args, "-f", "json")
    assert code == 0, err
    return json.loads(out)


def test_id_finds_the_pair_in_the_document_id_field_or_the_one_named(pair, capsys):
    found = _json(pair, capsys, "--id", "doc-0042")
    assert found["inputs"] == {
        "ground_truth": {"source": pair["gt"], "line": 3},
        "prediction": {"source": pair["pred"], "line": 1},
    }
    rows = {r["path"]: r for r in found["comparisons"]}
    assert (rows["total"]["gt"], rows["total"]["pred"], rows["total"]["confidence"]) == (42, 41, 0.93)
    assert (rows["currency"]["gt"], rows["currency"]["pred"], rows["currency"]["pred_default"]) == ("CAD", "USD", True)
    assert found["score"] == pytest.approx(1 / 3)
    assert _json(pair, capsys, "--id", "doc-0001", "--id-field", "doc_id")["inputs"]["prediction"]["line"] == 3


def test_line_counts_blank_lines_as_eval_does(pair, capsys):
    found = _json(pair, capsys, "--line", "3")
    assert found["inputs"] == {
        "ground_truth": {"source": pair["gt"], "line": 3},
        "prediction": {"source": pair["pred"], "line": 3},
    }
    assert [(r["path"], r["gt"], r["pred"]) for r in found["comparisons"]] == [
        ("doc_id", "doc-0042", "doc-0001"),
        ("total", 42, 10),
        ("currency", "CAD", "USD"),
    ]
    # Line 3 of each carries another document id: compared as asked, with a warning that says so.
    code, _, err = _compare(pair, capsys, "--line", "3")
    assert code == 0
    assert err == (
        f"stickler: warning: {pair['gt']}:3 has doc_id 'doc-0042' and {pair['pred']}:3 has 'doc-0001': "
        "not the same document? (--id doc-0042 compares the records carrying it)\n"
    )
    assert _compare(pair, capsys, "--id", "doc-0042")[2] == ""  # chosen by id: nothing to warn of


def test_the_table_names_the_lines_compared_and_fits_80_columns(pair, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = _compare(pair, capsys, "--id", "doc-0042")
    assert code == 0
    assert "".join(out.split("Document score")[0].split()) == "".join(
        f"{pair['gt']}:3 against {pair['pred']}:1".split()
    )  # wrapped, mid-path too
    assert max(len(line) for line in out.splitlines()) <= 80
    assert re.search(r"\n total +FD +42 +41 +0\.930 +0\.000 +0\.000 *\n", out)
    assert re.search(r"\n currency +FD +CAD +USD \(default\) +– +0\.000 +0\.000 *\n", out)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--id", "doc-0002"],
            "{gt}: no record has the id 'doc-0002' (in the first document-id field each record has: "
            "doc_id, document_id, docid, id, …; name one with --id-field)",
        ),
        (["--id", "doc-0001", "--id-field", "total"], "{gt}: no record has the id 'doc-0001' (in 'total')"),
        (["--line", "5"], "{gt}: --line 5 is past its end (3 lines)"),
        (["--line", "2"], "{gt}:2: a blank line: no record to compare"),
        (["--id", "doc-0042", "--line", "1"], "give --id or --line, not both"),
        (["--id-field", "doc_id"], "--id-field names the field --id is looked up in: give --id too"),
        ([], "{gt}: holds more than one record: pass --id or --line to choose the one to compare"),
    ],
)
def test_no_such_record_is_one_line_exit_2(pair, capsys, args, message):
    code, out, err = _compare(pair, capsys, *args)
    assert (code, out) == (2, "")
    assert err == f"stickler: error: {message.format(gt=pair['gt'])}\n"


def test_an_unreadable_prediction_line_and_an_id_only_the_truth_has(pair, capsys):
    Path(pair["gt"]).write_text("\n".join(GT_LINES + ['{"doc_id": "doc-0004"}']) + "\n")
    code, _, err = _compare(pair, capsys, "--line", "4")
    assert code == 2 and err.startswith(f"stickler: error: {pair['pred']}:4: not valid JSON (")
    code, _, err = _compare(pair, capsys, "--id", "doc-0004")
    assert code == 2 and err == (
        f"stickler: error: {pair['pred']}: no record has the id 'doc-0004' (in the first "
        "document-id field each record has: doc_id, document_id, docid, id, …; name one "
        "with --id-field); 1 line(s) are not JSON objects\n"
    )


def test_a_duplicate_id_is_named_with_both_lines(pair, capsys):
    Path(pair["pred"]).write_text("\n".join(PRED_LINES[:3] + ['{"doc_id": "doc-0042"}']) + "\n")
    code, _, err = _compare(pair, capsys, "--id", "doc-0042")
    assert code == 2 and err == (
        f"stickler: error: {pair['pred']}:4: two records have the id 'doc-0042' (lines 1 "
        "and 4): name the one to compare with --line\n"
    )


def test_standard_input_for_one_of_the_two(pair):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "stickler_cli",
            "compare",
            pair["schema"],
            pair["gt"],
            "-",
            "--id",
            "doc-0001",
            "-f",
            "json",
        ],
        input="\n".join(PRED_LINES[:3]).encode(),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["inputs"]["prediction"] == {"source": "-", "line": 3} and found["score"] == 1.0
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "compare", pair["schema"], "-", "-"], input=b"{}", capture_output=True
    )
    assert (done.returncode, done.stderr) == (
        2,
        b"stickler: error: only one of the two inputs can be standard input (-)\n",
    )
    # Without a selector, standard input is one JSON value, pretty-printed or not (jq '.[3]' | ...).
    pretty = json.dumps({"doc_id": "doc-0042", "total": 41, "currency": "CAD"}, indent=2).encode()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "stickler_cli",
            "compare",
            pair["schema"],
            '{"doc_id": "doc-0042", "total": 42, "currency": "CAD"}',
            "-",
            "-f",
            "json",
        ],
        input=pretty,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    rows = {r["path"]: (r["gt"], r["pred"]) for r in json.loads(done.stdout)["comparisons"]}
    assert rows == {"doc_id": ("doc-0042", "doc-0042"), "total": (42, 41), "currency": ("CAD", "CAD")}
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "compare", pair["schema"], "{}", "-"],
        input=b'{"total": 1}\n{"total": 2}\n',
        capture_output=True,
    )
    assert (done.returncode, done.stderr) == (
        2,
        b"stickler: error: -: holds more than one line and is not one JSON "
        b"value: for JSON Lines, pass --id or --line to choose the record to "
        b"compare\n",
    )


def test_the_two_json_object_form_is_unchanged(pair, tmp_path, capsys):
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"doc_id": "doc-0042", "total": 42}, indent=2))  # a .json file may be pretty-printed
    code = main(
        ["compare", pair["schema"], str(one), '{"doc_id": "doc-0042", "total": 42, "currency": "USD"}', "-f", "json"]
    )
    found = json.loads(capsys.readouterr().out)
    assert code == 0 and found["score"] == 1.0
    assert found["inputs"] == {
        "ground_truth": {"source": str(one), "line": None},
        "prediction": {"source": None, "line": None},
    }
    assert [(r["path"], r["result"], r["gt_default"]) for r in found["comparisons"]] == [
        ("doc_id", "TP", False),
        ("total", "TP", False),
        ("currency", "TP", True),
    ]
    # a selector needs a file of records to choose from
    code = main(["compare", pair["schema"], str(one), "{}", "--line", "1"])
    assert code == 2 and capsys.readouterr().err == (
        "stickler: error: --line chooses a record of a JSON Lines file (or a "
        ".json array); both inputs are one JSON object\n"
    )


def test_a_json_file_with_a_byte_order_mark_is_read_as_eval_reads_it(pair, tmp_path, capsys):
    """compare read .json files by a copy of eval's reading that refused a BOM ("BOM is not supported")."""
    one = tmp_path / "one.json"
    one.write_bytes(b"\xef\xbb\xbf" + json.dumps({"doc_id": "doc-0042", "total": 42}).encode())
    code = main(["compare", pair["schema"], str(one), '{"doc_id": "doc-0042", "total": 42}', "-f", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "") and json.loads(out)["score"] == 1.0


def test_a_json_file_that_is_not_utf8_names_the_byte_as_eval_does(pair, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"doc_id": "doc-0042",\n "total": "4\xe92"}')
    code = main(["compare", pair["schema"], '{"doc_id": "doc-0042", "total": 42}', str(bad)])
    assert (code, capsys.readouterr().err) == (
        2,
        f"stickler: error: {bad}: prediction is not valid JSON (not valid "
        "UTF-8: byte 0xE9 at line 2 column 13 (invalid continuation byte))\n",
    )


def test_json_text_that_is_not_an_object_says_so(pair, capsys):
    code = main(["compare", pair["schema"], "[]", "{}"])
    _, err = capsys.readouterr()
    assert (code, err) == (2, "stickler: error: <ground truth argument>: ground truth must be a JSON object\n")


def test_an_empty_argument_is_named_as_one(pair, capsys):
    assert main(["compare", pair["schema"], "", "{}"]) == 2
    assert capsys.readouterr().err == (
        "stickler: error: '' (an empty argument): ground truth is neither JSON text nor an existing file\n"
    )
