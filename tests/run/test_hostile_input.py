"""Messy and hostile input files: each case has a documented behaviour (docs/trust.md, "What counts as an error")."""

from __future__ import annotations

import json
import os

import gzip
import subprocess
import sys

import orjson
import pytest

STICKLER = [sys.executable, "-m", "stickler_cli"]

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "total": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
        "account": {"type": "integer", "x-aws-stickler-comparator": "ExactComparator"},
    },
}
GT = [
    {"id": "a", "total": 10.5, "account": 7},
    {"id": "b", "total": 3, "account": 8},
    {"id": "c", "total": 1, "account": 9},
]
PRED = [
    {"id": "a", "total": 10.5, "account": 7},
    {"id": "B", "total": 3, "account": 8},
    {"id": "c", "total": 2, "account": 9},
]


def run(*args, stdin: bytes | None = None):
    """``stickler ARGS`` with a terminal 200 columns wide (tables cut values to their column)."""
    return subprocess.run(
        [*STICKLER, *map(str, args)], capture_output=True, input=stdin, env={**os.environ, "COLUMNS": "200"}
    )


@pytest.fixture
def files(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_bytes(orjson.dumps(SCHEMA))

    def write(name: str, data: bytes):
        path = tmp_path / name
        path.write_bytes(data)
        return path

    return schema, write


def jsonl(records) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def report(done) -> dict:
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    return json.loads(done.stdout)  # not orjson: reports may quote integers beyond 64 bits from the data


def counts(rep: dict) -> tuple:
    m = rep["metrics"]
    return rep["document_count"], m["tp"], m["fd"], m["fa"], m["fn"], m["tn"], rep["metrics"]["weighted_overall_score"]


def test_crlf_bom_and_blank_lines_in_step_change_nothing(files):
    schema, write = files
    plain = report(run("eval", schema, write("g.jsonl", jsonl(GT)), write("p.jsonl", jsonl(PRED)), "--format", "json"))
    # The same blank lines on both sides (and trailing ones on one side only) pair with each other.
    messy_gt = b"\n" + b"\n\n".join(orjson.dumps(r) for r in GT) + b"\n"
    messy_pred = b"\xef\xbb\xbf\r\n" + b"\r\n\r\n".join(orjson.dumps(r) for r in PRED) + b"\r\n\r\n\r\n"
    messy = report(run("eval", schema, write("g2.jsonl", messy_gt), write("p2.jsonl", messy_pred), "--format", "json"))
    # ExactComparator folds case by default: "B" matches "b"; only total 1 vs 2 is wrong.
    assert counts(messy) == counts(plain) == (3, 8, 1, 0, 0, 0, counts(plain)[-1])
    assert messy["errors"] == []
    assert messy["inputs"]["records"]["blank_lines"] == 3 + 5  # lines 1, 3, 5 of both; 7 and 8 of the predictions


def test_a_blank_line_keeps_its_place(files):
    """A blank prediction line is a missing prediction at that line: the pairs after it stay in step."""
    schema, write = files
    gt = write("g.jsonl", jsonl(GT))
    pred = write("p.jsonl", jsonl(PRED[:1]) + b"\n" + jsonl(PRED[2:]))
    rep = report(run("eval", schema, gt, pred, "--format", "json"))
    # line 1: 3 TP; line 2: blank, 3 FN; line 3: id and account TP, total 1 vs 2 FD.
    assert counts(rep)[:6] == (3, 5, 1, 0, 3, 0)
    assert [(e["source"].endswith("p.jsonl"), e["doc_id"], e["message"]) for e in rep["errors"]] == [
        (True, "b", "no prediction for this ground truth (that line of the predictions is blank); scored as empty")
    ]
    records = rep["inputs"]["records"]
    assert (records["missing_predictions"], records["pred_lines"], records["blank_lines"]) == (1, 2, 1)
    # A blank ground-truth line: the prediction on that line has no ground truth and is not scored.
    rep = report(
        run(
            "eval",
            schema,
            write("g2.jsonl", jsonl(GT[:1]) + b"\n" + jsonl(GT[2:])),
            write("p2.jsonl", jsonl(PRED)),
            "--format",
            "json",
        )
    )
    assert counts(rep)[:6] == (2, 5, 1, 0, 0, 0)
    assert [e["message"] for e in rep["errors"]] == [
        "prediction has no ground truth (that line of the ground truth is blank); not scored"
    ]


def test_standard_input_for_either_side(files):
    schema, write = files
    gt, pred = write("g.jsonl", jsonl(GT)), write("p.jsonl", jsonl(PRED))
    expected = counts(report(run("eval", schema, gt, pred, "--format", "json")))
    assert counts(report(run("eval", schema, gt, "-", "--format", "json", stdin=jsonl(PRED)))) == expected
    assert counts(report(run("eval", schema, "-", pred, "--format", "json", stdin=jsonl(GT)))) == expected
    by_id = report(run("eval", schema, gt, "-", "--id-field", "id", "--format", "json", stdin=jsonl(PRED[::-1])))
    assert by_id["document_count"] == 3 and by_id["inputs"]["records"]["paired"] == 2  # "B" is not "b"
    both = run("eval", schema, "-", "-")
    assert both.returncode == 2 and b"only one of ground truth and predictions" in both.stderr


def test_a_json_file_holding_an_array(files):
    schema, write = files
    expected = counts(
        report(run("eval", schema, write("g.jsonl", jsonl(GT)), write("p.jsonl", jsonl(PRED)), "--format", "json"))
    )
    gt, pred = write("g.json", orjson.dumps(GT, option=orjson.OPT_INDENT_2)), write("p.json", orjson.dumps(PRED))
    assert counts(report(run("eval", schema, gt, pred, "--format", "json"))) == expected
    packed = write("p.json.gz", gzip.compress(orjson.dumps(PRED)))
    assert counts(report(run("eval", schema, gt, packed, "--format", "json"))) == expected
    # A stray element is reported by its position in the array.
    odd = report(
        run("eval", schema, gt, write("odd.json", orjson.dumps([PRED[0], "text", PRED[2]])), "--format", "json")
    )
    assert [(e["line"], e["message"][:42]) for e in odd["errors"]] == [
        (2, "prediction expected a JSON object, got str")
    ]
    not_array = run("eval", schema, gt, write("obj.json", b'{"id": "a"}'))
    assert not_array.returncode == 2
    assert not_array.stderr.decode().startswith("stickler: error: ")
    assert not_array.stderr.decode().endswith(
        "obj.json: a .json input must hold an array of records (JSON Lines files end in .jsonl)\n"
    )


def test_invalid_utf8_names_the_line(files):
    schema, write = files
    gt = write("g.jsonl", jsonl(GT))
    pred = write("p.jsonl", jsonl(PRED[:1]) + b'{"id": "\xff\xfe"}\n' + jsonl(PRED[2:]))
    rep = report(run("eval", schema, gt, pred, "--format", "json"))
    assert [e["line"] for e in rep["errors"]] == [2]
    # orjson says only that some byte is not UTF-8: the message says which, and where.
    assert rep["errors"][0]["message"] == (
        "prediction not valid JSON (not valid UTF-8: byte 0xFF at column 9 (invalid start byte)); scored as empty"
    )
    assert rep["inputs"]["records"]["invalid_predictions"] == 1
    bad_gt = run("eval", schema, write("g2.jsonl", jsonl(GT[:2]) + b'{"id": "\xc3"}\n'), pred)
    assert bad_gt.returncode == 2 and bad_gt.stderr.decode().endswith(
        "g2.jsonl:3: ground truth not valid JSON (not valid UTF-8: byte 0xC3 at column 9 (invalid continuation byte))\n"
    )
    # A whole .json file: the line and column within the file.
    whole = write("p.json", b'[{"id": "a"},\n {"id": "b\xe9"}]')
    refused = run("eval", schema, gt, whole)
    assert refused.returncode == 2 and refused.stderr.decode().endswith(
        "p.json: not valid JSON (not valid UTF-8: byte 0xE9 at line 2 column 11 (invalid continuation byte))\n"
    )


def test_a_line_not_in_utf_8_is_not_read_however_many_digits_it_holds(files):
    """JSON Lines is UTF-8. A line in UTF-16 that holds a run of 19 digit bytes (here "ㄱ", U+3131, is the bytes
    "11") goes to the reader that catches integers beyond 64 bits, which once let Python's json guess UTF-16 and
    read it; it is refused as its twin without the run is."""
    schema, write = files
    gt = write("g.jsonl", jsonl(GT))
    messages = []
    for note in ("ㄱ" * 10, "x"):
        line = json.dumps({**PRED[1], "note": note}, ensure_ascii=False).encode("utf-16-le")
        pred = write("p.jsonl", jsonl(PRED[:1]) + line + b"\n" + jsonl(PRED[2:]))
        rep = report(run("eval", schema, gt, pred, "--format", "json"))
        assert [e["line"] for e in rep["errors"]] == [2], note
        assert rep["inputs"]["records"]["invalid_predictions"] == 1, note
        messages.append(rep["errors"][0]["message"])
    assert messages[0] == messages[1] and messages[0].startswith("prediction not valid JSON (")
    # A byte order mark is skipped on the first line only: on another, it is refused with or without a NaN
    # (which sends the line to that reader, where Python's json would have skipped the mark).
    messages = []
    for total in (b"NaN", b"1"):
        line = b'\xef\xbb\xbf{"id": "b", "total": ' + total + b"}"
        pred = write("p.jsonl", jsonl(PRED[:1]) + line + b"\n" + jsonl(PRED[2:]))
        rep = report(run("eval", schema, gt, pred, "--format", "json"))
        assert [e["line"] for e in rep["errors"]] == [2], total
        messages.append(rep["errors"][0]["message"])
    assert (
        messages[0]
        == messages[1]
        == (
            "prediction not valid JSON (a byte order mark (BOM) where only the file's "
            "first bytes may hold one); scored as empty"
        )
    )


def test_nan_infinity_and_huge_numbers_are_read_exactly(files):
    schema, write = files
    gt = write(
        "g.jsonl",
        b'{"id": "a", "total": 1e400, "account": 123456789012345678901234567890}\n'
        b'{"id": "b", "total": 5, "account": 123456789012345678901234567890}\n'
        b'{"id": "c", "total": NaN, "account": 1}\n',
    )
    pred = write(
        "p.jsonl",
        b'{"id": "a", "total": Infinity, "account": 123456789012345678901234567890}\n'
        b'{"id": "b", "total": -Infinity, "account": 123456789012345678901234567891}\n'
        b'{"id": "c", "total": NaN, "account": 1}\n',
    )
    rep = report(run("eval", schema, gt, pred, "--format", "json"))
    assert rep["errors"] == []
    fields = rep["field_metrics"]
    # 1e400 is infinity, equal to Infinity; -Infinity is not 5; NaN equals nothing, not even NaN.
    assert (fields["total"]["tp"], fields["total"]["fd"]) == (1, 2)
    # 30-digit integers compared exactly (orjson alone would round both to the same float).
    assert (fields["account"]["tp"], fields["account"]["fd"]) == (2, 1)


def test_records_that_are_not_objects(files):
    schema, write = files
    gt = write("g.jsonl", jsonl(GT * 2))
    pred = write("p.jsonl", b'[1, 2]\n"text"\nnull\n' + jsonl(PRED))
    rep = report(run("eval", schema, gt, pred, "--format", "json"))
    assert [e["message"] for e in rep["errors"]] == [
        "prediction expected a JSON object, got list; scored as empty",
        "prediction expected a JSON object, got str; scored as empty",
        "prediction expected a JSON object, got null; scored as empty",
    ]
    assert rep["document_count"] == 6 and rep["metrics"]["fn"] == 9
    bad = run("eval", schema, write("g2.jsonl", b"42\n"), pred)
    assert bad.returncode == 2 and bad.stderr.decode().endswith(
        "g2.jsonl:1: ground truth expected a JSON object, got int\n"
    )


def test_nesting_ten_thousand_levels_deep_is_a_per_record_error(files):
    schema, write = files
    deep = b'{"id": "b", "total": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    gt = write("g.jsonl", jsonl(GT))
    pred = write("p.jsonl", jsonl(PRED[:1]) + deep + b"\n" + jsonl(PRED[2:]))
    rep = report(run("eval", schema, gt, pred, "--format", "json"))
    assert [(e["line"], e["message"]) for e in rep["errors"]] == [
        (2, "prediction not valid JSON (nested deeper than 1,024 levels); scored as empty")
    ]
    assert rep["document_count"] == 3
    deep_nan = write("p2.jsonl", b'{"total": NaN, "x": ' + b"[" * 10_000 + b"]" * 10_000 + b"}\n")
    rep = report(run("eval", schema, gt, deep_nan, "--format", "json"))
    assert "nested deeper than 1,024 levels" in rep["errors"][0]["message"]
    bad = run("eval", schema, write("g2.jsonl", deep + b"\n"), pred)
    assert (
        bad.returncode == 2
        and b"g2.jsonl:1: ground truth not valid JSON (nested deeper than 1,024 levels)" in bad.stderr
    )


def test_a_lone_surrogate_is_refused_even_beside_nan(files):
    schema, write = files
    gt = write("g.jsonl", jsonl(GT))
    pred = write("p.jsonl", b'{"id": "\\ud800", "total": NaN}\n' + jsonl(PRED[1:]))
    rep = report(run("eval", schema, gt, pred, "--format", "json"))
    assert rep["inputs"]["records"]["invalid_predictions"] == 1
    assert rep["errors"][0]["message"] == (
        "prediction not valid JSON (lone surrogate \\ud800 in string: not text); scored as empty"
    )


def test_counts_reconcile_on_a_broken_fixture_set(files):
    """Every line read is accounted for: scored, or reported."""
    schema, write = files
    gt = write("g.jsonl", jsonl(GT * 4) + b"\n\n")
    lines = [orjson.dumps(r) for r in PRED * 4]
    lines[1] = lines[1][:9]  # truncated model output
    lines[4] = b"not json at all"
    lines[6] = b"[]"
    lines.append(orjson.dumps(PRED[0]))  # one prediction too many
    lines.append(orjson.dumps(PRED[1]))
    pred = write("p.jsonl", b"\n".join(lines) + b"\n")
    rep = report(run("eval", schema, gt, pred, "--format", "json"))
    records = rep["inputs"]["records"]
    assert records["gt_lines"] == 12 == rep["document_count"]
    assert records["pred_lines"] == 14 == records["paired"] + records["unpaired_predictions"]
    assert records["invalid_predictions"] == 3
    assert len(rep["errors"]) == records["invalid_predictions"] + records["unpaired_predictions"] == 5


def test_lists_of_twenty_thousand_items_are_matched_within_bounds(files, monkeypatch):
    """Beyond MATCH_BOUND pairs: identical items first, then the Hungarian algorithm on what remains
    when that is within the bound, else by position; the record says which."""
    from stickler_cli import compile_schema
    from stickler_cli.engine import Engine
    from stickler_cli.engine import matching

    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "rows": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                            "qty": {"type": "number"},
                        },
                    },
                },
            },
        }
    )
    tags = [f"tag-{k}" for k in range(20_000)]
    rows = [{"sku": f"s{k}", "qty": k} for k in range(20_000)]
    pred_tags = tags[::-1]
    pred_tags[5] = "tag-5x"  # one typo: its gt item is left for the remainder
    pred_rows = rows[::-1] + [{"sku": "new", "qty": 1}]
    doc = Engine(plan).compare({"tags": tags, "rows": rows}, {"tags": pred_tags, "rows": pred_rows})
    tags_index, rows_index = plan.root.field("tags").index, plan.root.field("rows").index
    assert doc.tally[5 * tags_index : 5 * tags_index + 5] == [19_999, 0, 1, 0, 0]  # tp, fa, fd, fn, tn
    assert doc.tally[5 * rows_index : 5 * rows_index + 5] == [20_000, 1, 0, 0, 0]
    assert doc.errors == [
        "tags: 20,000 x 20,000 items, more pairs than the matching bound (1,000,000): "
        "19,999 identical item pairs matched first, the other 1 by the Hungarian algorithm",
        "rows: 20,000 x 20,001 items, more pairs than the matching bound (1,000,000): "
        "20,000 identical item pairs matched first",
    ]
    # With a bound of 4 pairs, 3 x 3 different items are paired by position.
    monkeypatch.setattr(matching, "MATCH_BOUND", 4)
    from stickler_cli.engine import compare as compare_module

    monkeypatch.setattr(compare_module, "MATCH_BOUND", 4)
    small = Engine(plan).compare({"tags": ["a", "b", "c"]}, {"tags": ["x", "y", "z"]})
    assert small.errors == [
        "tags: 3 x 3 items, more pairs than the matching bound (4): "
        "0 identical item pairs matched first, the other 3 paired by position"
    ]
    assert small.tally[5 * tags_index : 5 * tags_index + 5] == [0, 0, 3, 0, 0]


@pytest.mark.parametrize("comparator", ["LevenshteinComparator", "ExactComparator"])
def test_lists_of_long_texts_count_their_edit_distances_toward_the_bound(tmp_path, comparator):
    """40 x 40 items of 20,000 characters: 1,600 edit distances of 25 ms each (40 s; 100 items, 252 s). Each pair
    counts as 20,000² / TEXT_PAIR = 25,000 pairs: over the bound, paired as a long list is. Exact compares
    texts for equality (no edit distance): its lists are matched whole."""
    import random

    from stickler_cli import compile_schema
    from stickler_cli.engine import Engine
    from stickler_cli.engine.matching import TEXT_PAIR
    from stickler_cli.run.evaluate import evaluate_pairs

    assert 40 * 40 + (40 * 20_000) ** 2 // TEXT_PAIR > 1_000_000 > 40 * 40
    rng = random.Random(5)
    texts = ["".join(rng.choice("abcdefgh") for _ in range(20_000)) for _ in range(80)]
    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "rows": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"t": {"type": "string", "x-aws-stickler-comparator": comparator}},
                    },
                },
                "tags": {"type": "array", "x-aws-stickler-comparator": comparator, "items": {"type": "string"}},
            },
        }
    )
    gt = {"rows": [{"t": t} for t in texts[:40]], "tags": texts[:40]}
    pred = {"rows": [{"t": t} for t in texts[40:39:-1] + texts[41:]], "tags": [texts[0], *texts[41:]]}
    doc = Engine(plan).compare(gt, pred)
    batch = evaluate_pairs(plan, [(gt, pred)])
    assert [int(n) for n in batch.tally] == doc.tally  # the batch leaves such lists to the per-document engine
    if comparator == "ExactComparator":
        assert doc.errors == []
        return
    assert doc.errors == [
        "rows: 40 x 40 items, long texts: more work than the matching bound (1,000,000): 0 identical item pairs "
        "matched first, the other 40 paired by position",
        "tags: 40 x 40 items, long texts: more work than the matching bound (1,000,000): 1 identical item pairs "
        "matched first, the other 39 paired by position",
    ]


def test_ten_megabyte_strings_are_compared_in_bounded_time(files):
    """Edit-distance scorers see at most MAX_TEXT characters (MAX_PARTIAL_TEXT for partial_ratio)."""
    from stickler_cli.comparators.anls import ANLSStarComparator
    from stickler_cli.comparators.base import MAX_PARTIAL_TEXT, MAX_TEXT
    from stickler_cli.comparators.fuzzy import FuzzyComparator
    from stickler_cli.comparators.levenshtein import LevenshteinComparator

    big_a = "ab" * 5_000_000
    big_b = "ba" * 5_000_000
    lev = LevenshteinComparator()
    assert lev.similarity(big_a, big_a) == 1.0
    # Equal on the first MAX_TEXT characters: the difference beyond them is not seen (documented).
    assert lev.similarity(big_a, big_a[:MAX_TEXT] + "z" * 100) == 1.0
    assert lev.similarity(big_a, big_b) == LevenshteinComparator().similarity(big_a[:MAX_TEXT], big_b[:MAX_TEXT])
    partial = FuzzyComparator(method="partial_ratio")
    assert partial.similarity(big_a, big_b) == partial.similarity(big_a[:MAX_PARTIAL_TEXT], big_b[:MAX_PARTIAL_TEXT])
    # ANLS* reads a leaf as they do (a pair of 1 MB texts took 30 s, and the time grew with their product),
    # whether a leaf stands alone, in an object or in a list of texts.
    anls = ANLSStarComparator()
    cut_a, cut_b = big_a[:MAX_TEXT], big_b[:MAX_TEXT] + "z" * 100
    for whole in (lambda t: t, lambda t: {"k": t}, lambda t: [t, "x"] * 20):
        assert anls.similarity(whole(big_a), whole(big_b)) == anls.similarity(whole(big_a[:MAX_TEXT]), whole(cut_b))
    assert anls.similarity(big_a, big_a[:MAX_TEXT] + "z" * 100) == 1.0 and cut_a != big_a
    schema, write = files
    gt = write("g.jsonl", orjson.dumps({"id": big_a, "total": 1}) + b"\n")
    pred = write("p.jsonl", orjson.dumps({"id": big_b, "total": 1}) + b"\n")
    done = subprocess.run(
        [*STICKLER, "eval", str(schema), str(gt), str(pred), "--format", "json"], capture_output=True, timeout=120
    )  # a hang fails here; speed is make bench's
    assert report(done)["document_count"] == 1


@pytest.mark.parametrize(
    "levels, message",
    [
        (400, b"objects nested more than 64 levels deep; stickler compares at most 64"),
        (5_000, b"not valid JSON: depth limit exceeded"),
    ],
)
def test_schemas_nested_too_deeply_are_refused(tmp_path, levels, message):
    text = '{"type": "string"}'
    for _ in range(levels):
        text = '{"type": "object", "properties": {"a": ' + text + "}}"
    schema = tmp_path / "deep.json"
    schema.write_text(text)
    done = run("schema", "check", schema)
    assert done.returncode == 2 and message in done.stderr and b"Traceback" not in done.stderr
    assert done.stderr.count(b"\n") == 1


HOSTILE = "\x1b[2J\x1b]0;pwned\x07[bold red]markup[/bold red]\u202eevil\ntwo"


def test_terminal_output_cannot_be_rewritten_by_the_data_or_the_schema(tmp_path):
    """Escape sequences, Rich markup, line breaks and bidi overrides from a prediction, a schema key
    or a model name are shown as inert text."""
    schema = tmp_path / "s.json"
    schema.write_bytes(
        orjson.dumps(
            {
                "type": "object",
                "x-aws-stickler-model-name": "M" + HOSTILE,
                "properties": {"name" + HOSTILE: {"type": "string"}, "n": {"type": "integer"}},
            }
        )
    )
    gt = tmp_path / "g.jsonl"
    gt.write_bytes(orjson.dumps({"name" + HOSTILE: "ok", "n": 5}) + b"\n")
    pred = tmp_path / "p.jsonl"
    pred.write_bytes(
        b'{"name'
        + orjson.dumps(HOSTILE)[1:-1]
        + b'": '
        + orjson.dumps(HOSTILE)
        + b', "n": 123456789012345678901234567890}\n'
        + b'{"broken": "'
        + HOSTILE.encode()[:4]
        + b"\n"
    )
    for args in (
        ("eval", schema, gt, pred),
        ("compare", schema, gt, tmp_path / "one.json"),
        ("schema", "check", schema),
    ):
        (tmp_path / "one.json").write_bytes(pred.read_bytes().splitlines()[0])
        done = run(*args)
        assert done.returncode == 0, done.stderr
        out = done.stdout.decode()
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
        assert "[bold red]markup" in out  # shown, not interpreted
        assert "pwned" not in out.split("\n")[0] or "�" in out
    # A 30-digit integer is shown as read, not rounded to a float (the table cuts it at its width) …
    assert "1234567890123456789012345" in run("compare", schema, gt, tmp_path / "one.json").stdout.decode()
    # … and written exactly into JSON, which orjson alone cannot do.
    done = run("compare", schema, gt, tmp_path / "one.json", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert b'"pred": 123456789012345678901234567890' in done.stdout


def test_schema_check_names_keyword_typos_and_warns_about_unknown_keywords(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_bytes(
        orjson.dumps(
            {
                "type": "object",
                "$defs": {"Row": {"type": "object", "properties": {"qty": {"type": "integer", "minimun": 0}}}},
                "properties": {
                    "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
                    "weight": {"anyOf": [{"type": "number", "unit": "kg"}, {"type": "null"}]},
                },
            }
        )
    )
    done = run("schema", "check", schema)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"stickler: error: {schema}: /$defs/Row/properties/qty: unknown keyword 'minimun' (did you mean 'minimum'?)\n"
    )
    schema.write_bytes(schema.read_bytes().replace(b"minimun", b"minimum"))
    done = run("schema", "check", schema)
    assert done.returncode == 0
    assert done.stderr.decode() == (
        f"stickler: warning: {schema}: /properties/weight/anyOf/0: unknown keyword 'unit' is ignored\n"
    )


def test_commands_that_score_warn_of_keyword_typos_schema_check_refuses(tmp_path):
    """`propertiess` on an object made it one value compared whole, and the scores moved, without a word."""
    schema = _write_json(
        tmp_path / "s.json",
        {
            "type": "object",
            "properties": {"vendor": {"type": "object", "propertiess": {"name": {"type": "string"}}, "unit": "kg"}},
        },
    )
    gt = tmp_path / "g.jsonl"
    gt.write_bytes(b'{"vendor": {"name": "A"}}\n')
    warning = (
        f"stickler: warning: {schema}: /properties/vendor: unknown keyword 'propertiess' (did you mean "
        "'properties'?) is ignored; `stickler schema check` refuses it\n"
    )
    for args in (["eval", schema, gt, gt], ["compare", schema, gt, gt], ["diff", schema, gt, gt, gt]):
        done = run(*args)
        assert (done.returncode, done.stderr.decode()) == (0, warning), args  # 'unit' is no typo: not named
    assert run("schema", "check", schema).returncode == 2


def _write_json(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(value))
    return path


def test_file_references_stay_in_the_schema_directory_and_never_fetch(tmp_path):
    from stickler_cli import load_schema

    base = tmp_path / "schemas"
    _write_json(
        base / "common.json",
        {
            "$defs": {
                "Money": {
                    "type": "number",
                    "x-aws-stickler-comparator": "NumericComparator",
                    "x-aws-stickler-comparator-config": {"absolute_tolerance": 0.01},
                }
            }
        },
    )
    _write_json(
        base / "defs" / "item.json",
        {
            "type": "object",
            "properties": {"sku": {"$ref": "#/$defs/Sku"}, "price": {"$ref": "../common.json#/$defs/Money"}},
            "$defs": {"Sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
        },
    )
    main_schema = _write_json(
        base / "invoice.json",
        {
            "type": "object",
            "properties": {
                "total": {"$ref": "common.json#/$defs/Money"},
                "items": {"type": "array", "items": {"$ref": "defs/item.json"}},
            },
        },
    )
    plan = load_schema(main_schema)
    assert [(f.path, f.comparator_name) for f in plan.fields] == [
        ("total", "NumericComparator"),
        ("items", ""),
        ("items.sku", "ExactComparator"),
        ("items.price", "NumericComparator"),
    ]
    from stickler_cli.engine import Engine

    doc = Engine(plan).compare(
        {"total": 10, "items": [{"sku": "A", "price": 1.0}]}, {"total": 10.005, "items": [{"sku": "A", "price": 1.02}]}
    )
    assert doc.field_scores == {"total": 1.0, "items": pytest.approx(0.5)}

    def refused(ref, message, where=base):
        schema = _write_json(where / "s.json", {"type": "object", "properties": {"a": {"$ref": ref}}})
        done = run("schema", "check", schema)
        assert done.returncode == 2 and message in done.stderr.decode(), done.stderr
        assert b"Traceback" not in done.stderr

    _write_json(tmp_path / "outside.json", {"type": "string"})
    refused("../outside.json", "leaves the schema's directory")
    (base / "link.json").symlink_to(tmp_path / "outside.json")
    refused("link.json", "leaves the schema's directory")
    refused("https://example.com/s.json", "references are never fetched")
    refused("missing.json", "referenced file 'missing.json' not found")
    _write_json(base / "a.json", {"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "b.json#/$defs/B"}}}}})
    _write_json(base / "b.json", {"$defs": {"B": {"type": "object", "properties": {"a": {"$ref": "a.json#/$defs/A"}}}}})
    refused("a.json#/$defs/A", "recursive")


def test_review_findings_pipes_overflow_keywords_deep_values(files, tmp_path):
    schema, write = files
    many = [dict(GT[k % 3], id=f"d{k}") for k in range(700)]
    pred = write("p.jsonl", jsonl(many))
    # Ground truth from a pipe past the 256th line (the progress position is not asked of a pipe).
    piped = report(run("eval", schema, "-", pred, "--format", "json", stdin=jsonl(many)))
    assert piped["document_count"] == 700 and piped["errors"] == []
    # A number beyond float64 beside a plain one: no numpy warning reaches the user.
    rows = write(
        "rows.json",
        orjson.dumps(
            {
                "type": "object",
                "properties": {
                    "r": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "number"}}}}
                },
            }
        ),
    )
    big = write("big.jsonl", b'{"r": [{"v": 1.7e308}, {"v": "12"}]}\n')
    done = run("eval", rows, big, big)
    assert done.returncode == 0 and done.stderr == b""
    # Draft 4's "id" is a keyword, not a typo of "$id".
    legacy = write(
        "legacy.json", orjson.dumps({"id": "http://x/s", "type": "object", "properties": {"a": {"type": "string"}}})
    )
    assert run("schema", "check", legacy).returncode == 0
    # A value nested 600 levels, written to JSON by stickler compare.
    one = write("one.json", b'{"id": ' + b"[" * 600 + b"]" * 600 + b"}")
    done = run("compare", schema, write("g1.json", b'{"id": "a"}'), one, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert b"nested deeper than 200 levels" in done.stdout
    # 400 digits without an exponent: beyond float64, read as infinity as Python's json does.
    one_gt = write("g400.jsonl", jsonl(GT[:1]))
    assert (
        report(
            run("eval", schema, one_gt, write("p400.jsonl", b'{"total": ' + b"9" * 400 + b"}\n"), "--format", "json")
        )["errors"]
        == []
    )


INVISIBLE = "\u2028\u2029\u200b\u200c\u200d\u2060\ufeff\u061c\u00ad\U000e0041"


def test_every_control_format_and_separator_character_is_shown_inert():
    """Cc, Cf, Zl and Zp (as the running Python's Unicode database knows them) never reach the
    terminal, the Markdown or the JUnit report raw; printable text is untouched."""
    import unicodedata

    from stickler_cli.reporters.sanitize import plain

    dangerous = [chr(cp) for cp in range(0x110000) if unicodedata.category(chr(cp)) in ("Cc", "Cf", "Zl", "Zp")]
    assert {"\u2028", "\u2029", "\u200b", "\u200d", "\u2060", "\ufeff", "\u061c"} <= set(dangerous)
    shown = plain("".join(dangerous), limit=len(dangerous) + 1)
    assert shown == "\ufffd" * len(dangerous)
    kept = "Zürich 東京 ١٢٣ naïve e\u0301 ✓ 👍"
    assert plain(kept, 100) == kept


def test_invisible_characters_do_not_reach_terminal_markdown_or_junit(files, tmp_path):
    schema, write = files
    gt = write("g.jsonl", jsonl([{"id": "a" + INVISIBLE + "line two", "total": 1, "account": 1}]))
    pred = write("p.jsonl", jsonl([{"id": "a" + INVISIBLE, "total": 2, "account": 1}]))
    junit_path = tmp_path / "junit.xml"
    for args in (("--show-errors", "1"), ("--format", "markdown", "--junit", junit_path)):
        done = run("eval", schema, gt, pred, *args)
        assert done.returncode == 0, done.stderr
        out = done.stdout.decode()
        assert not set(INVISIBLE) & set(out), [hex(ord(c)) for c in set(INVISIBLE) & set(out)]
        assert "\ufffd" in out
    assert not set(INVISIBLE) & set(junit_path.read_text(encoding="utf-8"))


def test_an_empty_ground_truth_file_is_a_warning_and_fails_any_gate(files):
    schema, write = files
    gt, pred = write("g.jsonl", b""), write("p.jsonl", jsonl(PRED))
    done = run("eval", schema, gt, pred, "--format", "json")
    warning = (
        "no ground-truth record was read: nothing was scored (every figure is 0, and any quality gate fails such a run)"
    )
    assert done.returncode == 0 and done.stderr.decode() == f"stickler: warning: {gt}: {warning}\n"
    rep = report(done)
    assert rep["document_count"] == 0 and rep["warnings"] == [warning]
    assert rep["inputs"]["records"]["unpaired_predictions"] == len(PRED)
    gated = run("eval", schema, gt, pred, "--fail-under", "cm_f1=0.1")
    assert gated.returncode == 1


def test_an_integer_beyond_pythons_digits_is_refused_for_what_it_is(files):
    """Integers beyond 64 bits are read exactly up to Python's 4,300 digits; past them the message blamed
    a float ("number is infinity when parsed as double")."""
    schema, write = files
    gt = write("g.jsonl", jsonl(GT))
    pred = write("p.jsonl", b'{"id": "a", "total": ' + b"9" * 5_000 + b"}\n" + jsonl(PRED[1:]))
    rep = report(run("eval", schema, gt, pred, "--format", "json"))
    assert [(e["line"], e["message"]) for e in rep["errors"]] == [
        (1, "prediction not valid JSON (an integer of more than 4,300 digits, more than Python reads); scored as empty")
    ]
    assert rep["inputs"]["records"]["invalid_predictions"] == 1


@pytest.mark.parametrize(
    "array",
    [orjson.dumps(PRED) + b"\n", b"[\n" + b",\n".join(map(orjson.dumps, PRED)) + b"\n]\n"],
    ids=["one line", "pretty-printed"],
)
def test_blank_lines_before_a_jsonl_array_do_not_shift_its_records(files, array):
    """They stood as records 1, 2… beside the array's own 1, 2…: every pair shifted by one, with two errors."""
    schema, write = files
    gt = write("g.jsonl", jsonl(GT))
    expected = counts(report(run("eval", schema, gt, write("p.json", orjson.dumps(PRED)), "--format", "json")))
    rep = report(run("eval", schema, gt, write("p.jsonl", b"\n\n" + array), "--format", "json"))
    assert counts(rep) == expected and rep["errors"] == []
    assert rep["inputs"]["records"]["blank_lines"] == 2 and rep["inputs"]["records"]["paired"] == 3
    # Blank lines before records, not an array, keep their place (docs/trust.md: a blank line is a missing record).
    rep = report(run("eval", schema, gt, write("p2.jsonl", b"\n" + jsonl(PRED[1:])), "--format", "json"))
    assert rep["errors"][0]["message"].startswith(
        "no prediction for this ground truth (that line of the predictions is blank)"
    )


def test_a_threshold_on_a_list_of_objects_is_said_to_decide_nothing(tmp_path):
    """It changed no figure (items are paired and decided at their match threshold, in stickler-eval too), and
    schema check showed 0.7 beside it without a word; comparator-config there is refused, this is legal."""
    schema = _write_json(
        tmp_path / "s.json",
        {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "x-aws-stickler-threshold": 0.99,
                    "items": {
                        "type": "object",
                        "x-aws-stickler-match-threshold": 0.6,
                        "properties": {"a": {"type": "string"}},
                    },
                }
            },
        },
    )
    data = tmp_path / "d.jsonl"
    data.write_bytes(b'{"items": [{"a": "x"}]}\n')
    warning = (
        f"stickler: warning: {schema}: /properties/items/x-aws-stickler-threshold: decides nothing on a list "
        "of objects: its items are paired and decided at x-aws-stickler-match-threshold (0.6 here), on its "
        "'items'\n"
    )
    for args in (["schema", "check", schema], ["eval", schema, data, data], ["compare", schema, data, data]):
        done = run(*args)
        assert (done.returncode, done.stderr.decode()) == (0, warning), args


def test_blank_lines_before_the_first_record_are_counted_not_held(tmp_path):
    """Held until the first record said whether the file is one array, each blank line cost about 275 bytes:
    5 MB of newlines took 1.4 GB. They are counted, and yielded (paired by line) once it is known."""
    import tracemalloc

    from stickler_cli.run.reader import PairingStats, _lines

    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" * 200_000 + b'{"id": "a"}\n')
    tracemalloc.start()
    seen = blank = 0
    for number, _, content in _lines(str(path), PairingStats(), keep_blank=True):
        seen += 1
        blank += not content
        last = number
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert (seen, blank, last) == (200_001, 200_000, 200_001)  # each blank line keeps its place
    assert peak < 2 * 2**20, peak


def test_the_matching_bound_weighs_only_texts_an_edit_distance_reads_and_nested_lists():
    """Found by review: every text of an item was counted (an unread key, an Exact field), so a list of 8 was paired
    by position for a 20,000-character note no comparator reads; and lists under 64 pairs were never measured,
    though lists of texts below them multiply (7 x 9 lists of 7 x 9 lists: 108 s)."""
    import random

    from stickler_cli import compile_schema
    from stickler_cli.engine import Engine
    from stickler_cli.engine.matching import ListCost, list_cost
    from stickler_cli.run.evaluate import evaluate_pairs

    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "rows": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "x-aws-stickler-comparator": "LevenshteinComparator"},
                            "code": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                        },
                    },
                },
                "outer": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"inner": {"type": "array", "items": {"type": "string"}}},
                    },
                },
            },
        }
    )
    assert list_cost(plan.root.field("rows")) == ListCost(weighs=True, nested=False)
    assert list_cost(plan.root.field("outer")) == ListCost(weighs=True, nested=True)
    rows = [{"name": f"name {k}", "code": "c" * 20_000 + str(k), "notes": "n" * 20_000} for k in range(8)]
    rng = random.Random(4)
    text = lambda: "".join(rng.choice("abcdefgh") for _ in range(20_000))  # noqa: E731
    gt = {"rows": rows, "outer": [{"inner": [text() for _ in range(10)]} for _ in range(3)]}
    pred = {"rows": rows[::-1], "outer": [{"inner": [text() for _ in range(10)]} for _ in range(3)]}
    doc = Engine(plan).compare(gt, pred)
    assert [int(n) for n in evaluate_pairs(plan, [(gt, pred)]).tally] == doc.tally
    index = 5 * plan.root.field("rows").index
    assert doc.tally[index : index + 5] == [8, 0, 0, 0, 0]  # matched whole: each row found again
    outer = [e for e in doc.errors if e.startswith("outer:")]
    assert outer == [
        "outer: 3 x 3 items, long texts: more work than the matching bound (1,000,000): 0 identical "
        "item pairs matched first, the other 3 paired by position"
    ]  # 9 pairs, measured: nested
    inner = [e for e in doc.errors if e.startswith("outer.inner:")]
    assert len(inner) == 1 and len(doc.errors) == 2 and "10 x 10 items, long texts" in inner[0]  # said once


def test_whole_values_in_list_items_weigh_their_leaves():
    """ANLS* pairs the leaves of the values it compares (a microsecond a pair, up to its budget): 7 x 7 items each
    holding 6,000 short strings took 83 s (found by the second review). Each leaf weighs at least 127 characters,
    and such a field makes its list measured at any size, as a nested list does."""
    from stickler_cli import compile_schema
    from stickler_cli.engine import Engine
    from stickler_cli.engine.matching import ListCost, list_cost
    from stickler_cli.run.evaluate import evaluate_pairs

    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "rows": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "v": {
                                "type": "array",
                                "items": {"type": "string"},
                                "x-aws-stickler-comparator": "ANLSStarComparator",
                            }
                        },
                    },
                }
            },
        }
    )
    assert list_cost(plan.root.field("rows")) == ListCost(weighs=True, nested=True)
    gt = {"rows": [{"v": [f"g{k}-{j}" for j in range(200)]} for k in range(7)]}  # 7 x 7 x 200 x 200 x 127²
    pred = {"rows": [{"v": [f"p{k}-{j}" for j in range(200)]} for k in range(7)]}
    doc = Engine(plan).compare(gt, pred)
    assert [int(n) for n in evaluate_pairs(plan, [(gt, pred)]).tally] == doc.tally
    assert doc.errors == [
        "rows: 7 x 7 items, long texts: more work than the matching bound (1,000,000): 0 identical "
        "item pairs matched first, the other 7 paired by position"
    ]
    small = {"rows": gt["rows"][:2]}  # 2 x 2 items of 200 leaves: within the bound, matched whole
    assert Engine(plan).compare(small, small).errors == []
