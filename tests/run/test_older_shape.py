"""The older rich-value shape ``{"value": v, "confidence": c}`` (issue 23, item 2): read as the rich
value ``{"_value": v, "_confidence": c}`` wherever the schema puts a field, as stickler-eval 1.0.0
reads it (deprecated there); counted, and warned of once on stderr and in the report's warnings.
Figures worked by hand: Levenshtein on one-word names, clip off (the default: docs/schema.md, the table of extensions)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import stickler_cli as st
from stickler_cli.engine.values import adopt_older_shape
from stickler_cli.run.reader import holds_key, may_hold_older_shape

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "city": {"type": "string"},
        "vendor": {"type": "object", "properties": {"city": {"type": "string"}}},
        "tags": {"type": "array", "items": {"type": "string"}},
        # An object that declares "value" and "confidence": such objects are its data, never unwrapped.
        "reading": {"type": "object", "properties": {"value": {"type": "number"}, "confidence": {"type": "number"}}},
    },
}
GT = [
    {
        "name": "Acme",
        "city": "Paris",
        "vendor": {"city": "X"},
        "tags": ["a", "b"],
        "reading": {"value": 1, "confidence": 0.5},
    },
    {"name": "Bob", "city": "Rome", "vendor": {"city": "Y"}, "tags": ["c"], "reading": {"value": 2, "confidence": 0.5}},
]
PRED = [
    {
        "name": {"value": "Acme", "confidence": 0.9},
        "city": {"value": "Berlin", "confidence": 0.8},
        "vendor": {"value": {"city": "X"}, "confidence": 0.4},
        "tags": [{"value": "a", "confidence": 0.5}, "b"],
        "reading": {"value": 1, "confidence": 0.5},
    },
    # A third key: data, as any object where a string belongs (FD); a rich value beside it is read as ever.
    {
        "name": {"value": "Bob", "confidence": 0.3, "source": "ocr"},
        "city": {"_value": "Rome", "_confidence": 0.6},
        "vendor": {"city": "Y"},
        "tags": ["c"],
        "reading": {"value": 2, "confidence": 0.5},
    },
]
WARNING = (
    'record(s) hold values in the older rich shape {"value": …, "confidence": …}, read as '
    '{"_value": …, "_confidence": …}; rename the two keys (the older shape is deprecated)'
)


def _files(tmp_path: Path, pred_lines: list[str] | None = None) -> tuple[Path, Path, Path]:
    schema, gt, pred = tmp_path / "s.json", tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    schema.write_text(json.dumps(SCHEMA))
    gt.write_text("".join(json.dumps(r) + "\n" for r in GT))
    pred.write_text("".join(line + "\n" for line in (pred_lines or [json.dumps(r) for r in PRED])))
    return schema, gt, pred


def _eval(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stickler_cli", "eval", *map(str, args), "-f", "json"], capture_output=True, text=True
    )


def test_older_shape_is_read_as_a_rich_value_counted_and_warned_of(tmp_path):
    schema, gt, pred = _files(tmp_path)
    done = _eval(schema, gt, pred)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    counts = {path: [m[k] for k in ("tp", "fa", "fd", "fn", "tn")] for path, m in report["field_metrics"].items()}
    assert counts["name"] == [1, 0, 1, 0, 0]  # Acme unwrapped: TP; Bob's wrapper has a third key: FD
    assert counts["city"] == [1, 0, 1, 0, 0]  # Paris/Berlin FD, Rome/Rome TP
    assert counts["vendor.city"] == [2, 0, 0, 0, 0]  # the object inside the older wrapper is compared
    assert counts["tags"] == [3, 0, 0, 0, 0]
    assert counts["reading.value"] == [2, 0, 0, 0, 0] and counts["reading.confidence"] == [2, 0, 0, 0, 0]
    # Document 1: name 1, city Paris/Berlin 1 - 4/6 = 1/3, vendor 1, tags 1, reading 1 -> (4 + 1/3) / 5.
    # Document 2: name 0.0 (an object against a string), the rest 1 -> 4/5.
    assert report["metrics"]["weighted_overall_score"] == pytest.approx(((4 + 1 / 3) / 5 + 4 / 5) / 2, abs=1e-12)
    # Confidences of the older shape count: name 0.9, city 0.8, tags[0] 0.5, and Rome's _confidence 0.6.
    assert report["confidence_metrics"]["coverage"]["fields_with_confidence"] == 4
    assert report["inputs"]["records"]["older_shape_records"] == 1
    assert report["warnings"] == [f"1 {WARNING}"]
    assert done.stderr == f"stickler: warning: {gt}: 1 {WARNING}\n"


def test_records_without_the_older_shape_say_nothing(tmp_path):
    schema, gt, pred = _files(tmp_path, [json.dumps(r) for r in GT])
    done = _eval(schema, gt, pred)
    report = json.loads(done.stdout)
    assert done.stderr == "" and report["warnings"] == [] and report["inputs"]["records"]["older_shape_records"] == 0
    assert report["metrics"]["weighted_overall_score"] == 1.0


def test_escaped_keys_are_read_as_the_keys_they_spell(tmp_path):
    """The raw-text test that spares most lines the walk must not miss a key written with escapes."""
    line = '{"name": {"\\u0076alue": "Acme", "\\u0063onfidence": 0.9}}'
    schema, gt, pred = _files(tmp_path, [line, json.dumps(GT[1])])
    report = json.loads(_eval(schema, gt, pred).stdout)
    assert report["field_metrics"]["name"]["tp"] == 2
    assert report["inputs"]["records"]["older_shape_records"] == 1


def test_the_raw_text_test_finds_the_key_however_it_is_escaped_and_lets_accents_pass():
    """Every letter of "confidence", escaped with either case of hex digit, sends the line to the walk; a line whose
    escapes are accents (as json.dumps writes them) or other characters is spared it, and a line it spares never
    holds a "confidence" key once parsed (random records, random keys and letters escaped)."""
    for k, letter in enumerate("confidence"):
        for code in (f"\\u{ord(letter):04x}", f"\\u{ord(letter):04X}"):
            key = "confidence"[:k] + code + "confidence"[k + 1 :]
            assert may_hold_older_shape(f'{{"name": {{"value": "A", "{key}": 0.9}}}}'.encode())
    assert not may_hold_older_shape(json.dumps({"name": "Zoë Café", "note": "a\nb", "path": "C:\\users"}).encode())
    rng = random.Random(7)
    words = ["value", "confidence", "_confidence", "conf", "name", "Zoë", "naïve", "\\", "\n", "é", "c"]
    spared = 0

    def string(text: str) -> str:  # as json.dumps writes it, some letters escaped too
        return (
            '"'
            + "".join(
                json.dumps(c)[1:-1] if not c.isalpha() or c.isascii() and rng.random() > 0.05 else f"\\u{ord(c):04x}"
                for c in text
            )
            + '"'
        )

    for _ in range(3000):
        text = (
            "{"
            + ", ".join(
                f"{string(rng.choice(words) + rng.choice(['', 's']))}: "
                f"{{{string(rng.choice(words))}: {string(rng.choice(words))}}}"
                for _ in range(3)
            )
            + "}"
        )
        parsed = json.loads(text)
        if not may_hold_older_shape(text.encode()):
            spared += 1
            assert not holds_key(parsed, "confidence"), text
    assert 500 < spared < 2900  # both answers were given


def test_two_workers_and_pairing_by_id_read_it_too(tmp_path):
    ids = [{"id": str(k), **r} for k, r in enumerate(GT)]
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({**SCHEMA, "properties": {"id": {"type": "string"}, **SCHEMA["properties"]}}))
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text("".join(json.dumps(r) + "\n" for r in ids))
    pred.write_text("".join(json.dumps({"id": str(k), **r}) + "\n" for k, r in reversed(list(enumerate(PRED)))))
    one = json.loads(_eval(schema, gt, pred, "--id-field", "id").stdout)
    two = json.loads(_eval(schema, gt, pred, "--id-field", "id", "--workers", "2").stdout)
    assert one["field_metrics"]["name"]["tp"] == 1 and one["inputs"]["records"]["older_shape_records"] == 1
    assert (two["field_metrics"], two["metrics"], two["warnings"]) == (
        one["field_metrics"],
        one["metrics"],
        one["warnings"],
    )


def test_compare_reads_it_and_warns(tmp_path):
    schema, gt, pred = _files(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "compare", str(schema), str(gt), str(pred), "--line", "1", "-f", "json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    rows = {r["path"]: r for r in json.loads(done.stdout)["comparisons"]}
    assert rows["name"]["result"] == "TP" and rows["name"]["pred"] == "Acme" and rows["name"]["confidence"] == 0.9
    assert rows["tags[0↔0]"]["confidence"] == 0.5
    assert done.stderr == f"stickler: warning: {gt}, {pred}: 1 {WARNING}\n"


def test_adopt_rewrites_only_where_the_schema_puts_a_field():
    plan = st.compile_schema(SCHEMA)
    record = {
        "name": {"value": "A", "confidence": 0.5},
        "extra": {"value": "B", "confidence": 0.5},
        "tags": [{"value": "t", "confidence": 0.1}, {"value": "u"}],
        "reading": {"value": 3, "confidence": 0.2},
    }
    assert adopt_older_shape(plan.root, record) == 2
    assert record == {
        "name": {"_value": "A", "_confidence": 0.5},
        "extra": {"value": "B", "confidence": 0.5},
        "tags": [{"_value": "t", "_confidence": 0.1}, {"value": "u"}],
        "reading": {"value": 3, "confidence": 0.2},
    }


def test_markdown_carries_the_warning(tmp_path):
    schema, gt, pred = _files(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "eval", str(schema), str(gt), str(pred), "-f", "markdown"],
        capture_output=True,
        text=True,
    )
    assert done.stdout.rstrip("\n").splitlines()[-1] == f"> **Warning:** `1 {WARNING}`"
