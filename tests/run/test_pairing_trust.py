"""Numbers that cannot silently go wrong: pairing by line checked against document ids, files
that are not JSON Lines recognised, ids compared as JSON values, bounded lines, swapped
arguments, plugin answers outside [0, 1] (issue 15, part A; docs/trust.md, "Trust")."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pytest

import stickler_cli as st
from stickler_cli.errors import InputError
from stickler_cli import evaluate_files

ROOT = Path(__file__).resolve().parents[2]
STICKLER = [sys.executable, "-m", "stickler_cli"]
INVOICE = ROOT / "schemas/invoice.json"


def run(*args, stdin: bytes | None = None, cwd: Path | None = None):
    return subprocess.run(
        [*STICKLER, *map(str, args)], capture_output=True, input=stdin, cwd=cwd, env={**os.environ, "COLUMNS": "200"}
    )


def records(path: Path) -> list:
    """The file's records; a line that is not JSON (the fixtures have a truncated one) as its bytes."""
    rows: list = []
    for line in path.read_bytes().splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            rows.append(line)
    return rows


def write(path: Path, rows: list, raw: bytes = b"") -> Path:
    path.write_bytes(b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n" for r in rows) + raw)
    return path


def report_of(done) -> dict:
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


@pytest.fixture
def invoices(tmp_path):
    """The invoice fixtures with a doc_id on both sides (not a field of the schema)."""
    gts = records(ROOT / "fixtures/invoice/gt.jsonl")
    preds = records(ROOT / "fixtures/invoice/pred.jsonl")
    for k, (gt, pred) in enumerate(zip(gts, preds), start=1):
        gt["doc_id"] = f"D-{k:03d}"
        if isinstance(pred, dict):  # line 7 is truncated model output
            pred["doc_id"] = gt["doc_id"]
    return tmp_path, gts, preds


# -- A1: a missing prediction line ------------------------------------------------------------


def test_a_missing_prediction_line_stops_the_run_naming_the_line(invoices):
    tmp, gts, preds = invoices
    gt = write(tmp / "gt.jsonl", gts)
    whole = report_of(run("eval", INVOICE, gt, write(tmp / "pred.jsonl", preds), "-f", "json"))
    missing = write(tmp / "missing.jsonl", preds[:6] + preds[7:])  # line 7, truncated output, lost
    done = run("eval", INVOICE, gt, missing, "-f", "json")
    assert done.returncode == 2 and done.stdout == b""
    # doc_id is no field of the schema: from line 7 on, every pair disagrees.
    assert done.stderr.decode() == (
        f"stickler: error: {missing}:7: ground truth doc_id 'D-007', prediction doc_id 'D-008' "
        "(not the same document): the two files look out of step; pair by id with --id-field doc_id, "
        "or pass --pair-by-line to pair by line regardless (more than 3 pairs disagree)\n"
    )
    # The way out it names gives the figures of the intact files (a missing prediction scores as
    # the truncated one did: empty).
    by_id = report_of(run("eval", INVOICE, gt, missing, "--id-field", "doc_id", "-f", "json"))
    assert by_id["document_count"] == 24 and by_id["inputs"]["records"]["missing_predictions"] == 1
    assert by_id["metrics"] == whole["metrics"] and by_id["field_metrics"] == whole["field_metrics"]
    # --pair-by-line: the user insists, and gets the shifted pairing (every pair counted as out of step
    # is not checked at all).
    forced = report_of(run("eval", INVOICE, gt, missing, "--pair-by-line", "-f", "json"))
    assert forced["inputs"]["records"]["misaligned_pairs"] == 0
    assert forced["metrics"]["weighted_overall_score"] < by_id["metrics"]["weighted_overall_score"] - 0.1


def test_workers_stop_on_the_same_line(invoices):
    tmp, gts, preds = invoices
    plan = st.load_schema(INVOICE)
    gts, preds = gts * 30, preds * 30  # 720 documents: two chunks of 500 lines
    gts, preds = [dict(g) for g in gts], [dict(p) if isinstance(p, dict) else p for p in preds]
    for k, (gt, pred) in enumerate(zip(gts, preds), start=1):
        gt["doc_id"] = f"D-{k:04d}"
        if isinstance(pred, dict):
            pred["doc_id"] = gt["doc_id"]
    gt = write(tmp / "gt.jsonl", gts)
    pred = write(tmp / "pred.jsonl", preds[:600] + preds[601:])
    messages = []
    for workers in (1, 2):
        with pytest.raises(InputError) as caught:
            evaluate_files(plan, str(gt), str(pred), workers=workers)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith(f"{pred}:601: ground truth doc_id 'D-0601', prediction doc_id 'D-0602'")


def test_an_id_the_model_extracts_may_be_wrong_without_stopping_the_run(tmp_path):
    """`id` is a field of this schema: wrong ids are the model's errors (FD), not misaligned files;
    a shift is still found, by predictions that carry another line's id."""
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "total": {"type": "number"},
                },
            }
        )
    )
    gts = [{"id": f"INV-{k}", "total": k} for k in range(1, 11)]
    preds = [{"id": f"INV-{k}X", "total": k} for k in range(1, 11)]  # every id wrong
    rep = report_of(
        run("eval", schema, write(tmp_path / "g.jsonl", gts), write(tmp_path / "p.jsonl", preds), "-f", "json")
    )
    assert rep["field_metrics"]["id"]["fd"] == 10 and rep["inputs"]["records"]["misaligned_pairs"] == 0
    shifted = write(tmp_path / "shifted.jsonl", gts[1:])  # perfect predictions, first line lost
    done = run("eval", schema, tmp_path / "g.jsonl", shifted)
    assert done.returncode == 2
    assert (
        f"{shifted}:2: ground truth id 'INV-2', prediction id 'INV-3' (prediction line 1 has this ground truth's id)"
        in done.stderr.decode()
    )
    # Predictions one line behind: the prediction carries the id of an earlier ground-truth line.
    behind = write(tmp_path / "behind.jsonl", [{"id": "INV-0", "total": 0}] + gts)
    done = run("eval", schema, tmp_path / "g.jsonl", behind)
    assert (
        f"{behind}:2: ground truth id 'INV-2', prediction id 'INV-1' (the id of ground-truth line 1)"
        in done.stderr.decode()
    )
    # --check-id names the field to trust: any disagreement counts.
    done = run("eval", schema, tmp_path / "g.jsonl", tmp_path / "p.jsonl", "--check-id", "id")
    assert done.returncode == 2 and ":4: ground truth id 'INV-1', prediction id 'INV-1X'" not in done.stderr.decode()
    assert (
        f"{tmp_path / 'p.jsonl'}:1: ground truth id 'INV-1', prediction id 'INV-1X' (not the same document)"
        in done.stderr.decode()
    )


def test_a_few_disagreements_are_reported_not_fatal(invoices):
    tmp, gts, preds = invoices
    preds[3]["doc_id"], preds[10]["doc_id"] = "D-XXX", "D-YYY"
    rep = report_of(run("eval", INVOICE, write(tmp / "g.jsonl", gts), write(tmp / "p.jsonl", preds), "-f", "json"))
    assert rep["inputs"]["records"]["misaligned_pairs"] == 2
    assert [(e["line"], e["message"][:58]) for e in rep["errors"] if "out of step" in e["message"]] == [
        (4, "ground truth doc_id 'D-004', prediction doc_id 'D-XXX' (no"),
        (11, "ground truth doc_id 'D-011', prediction doc_id 'D-YYY' (no"),
    ]


def test_diff_checks_both_prediction_sets(invoices):
    tmp, gts, preds = invoices
    gt = write(tmp / "g.jsonl", gts)
    done = run("diff", INVOICE, gt, write(tmp / "a.jsonl", preds), write(tmp / "b.jsonl", preds[1:]))
    assert (
        done.returncode == 2
        and "b.jsonl:1: ground truth doc_id 'D-001', prediction doc_id 'D-002'" in done.stderr.decode()
    )


def test_pairing_options_are_checked():
    for args, message in (
        (["--id-field", ""], "--id-field needs a field name"),
        (["--id-field", "doc_id", "--pair-by-line"], "--id-field pairs by id"),
        (["--pair-by-line", "--check-id", "x"], "--pair-by-line turns the id check off"),
    ):
        done = run("eval", INVOICE, ROOT / "fixtures/invoice/gt.jsonl", ROOT / "fixtures/invoice/pred.jsonl", *args)
        assert done.returncode == 2 and message in done.stderr.decode(), done.stderr


# -- A2: files that are not JSON Lines --------------------------------------------------------


def whole_records(gts: list, preds: list) -> tuple[list, list]:
    """The pairs whose prediction is a record (a JSON array cannot hold a truncated line)."""
    kept = [(g, p) for g, p in zip(gts, preds) if isinstance(p, dict)]
    return [g for g, _ in kept], [p for _, p in kept]


def test_a_json_array_named_jsonl_is_read_as_an_array(invoices):
    tmp, gts, preds = invoices
    gts, preds = whole_records(gts, preds)
    gt = write(tmp / "g.jsonl", gts)
    expected = report_of(run("eval", INVOICE, gt, write(tmp / "p.jsonl", preds), "-f", "json"))
    pretty = tmp / "pretty.jsonl"
    pretty.write_text(json.dumps(preds, indent=2))
    one_line = tmp / "one_line.jsonl"
    one_line.write_text(json.dumps(preds) + "\n\n")
    for path in (pretty, one_line):
        rep = report_of(run("eval", INVOICE, gt, path, "-f", "json"))
        assert rep["metrics"] == expected["metrics"] and rep["field_metrics"] == expected["field_metrics"]
        assert rep["errors"] == [] and rep["inputs"]["records"]["pred_lines"] == 23
    # Paired by id too: each prediction is the array's record, not its file's line read back at an offset
    # (which held the whole array: every prediction was scored as empty, without a word).
    by_id = report_of(run("eval", INVOICE, gt, write(tmp / "p.jsonl", preds), "-f", "json", "--id-field", "doc_id"))
    assert by_id["metrics"] == expected["metrics"]
    for path in (pretty, one_line):
        rep = report_of(run("eval", INVOICE, gt, path, "-f", "json", "--id-field", "doc_id"))
        assert rep["metrics"] == by_id["metrics"] and rep["field_metrics"] == by_id["field_metrics"]
        assert rep["errors"] == [] and rep["schema_conformance"] == by_id["schema_conformance"]
    # A prediction without ground truth, in such an array, is read and checked against the schema.
    extra = {**preds[0], "doc_id": "D-999"}
    one_line.write_text(json.dumps([*preds, extra]) + "\n")
    rep = report_of(run("eval", INVOICE, gt, one_line, "-f", "json", "--id-field", "doc_id"))
    assert rep["inputs"]["records"]["unpaired_predictions"] == 1
    assert rep["schema_conformance"]["checked"] == by_id["schema_conformance"]["checked"] + 1
    assert [e["doc_id"] for e in rep["errors"]] == ["D-999"]
    # Also from standard input, and as the ground truth.
    rep = report_of(run("eval", INVOICE, gt, "-", "-f", "json", stdin=pretty.read_bytes()))
    assert rep["metrics"] == expected["metrics"]
    gt_pretty = tmp / "gt_pretty.jsonl"
    gt_pretty.write_text(json.dumps(gts, indent=1))
    assert report_of(run("eval", INVOICE, gt_pretty, tmp / "p.jsonl", "-f", "json"))["metrics"] == expected["metrics"]


def test_pretty_printed_objects_stop_with_the_way_to_convert_them(invoices):
    tmp, gts, preds = invoices
    gts, preds = whole_records(gts, preds)
    pretty = tmp / "p.jsonl"
    pretty.write_text("\n".join(json.dumps(p, indent=2) for p in preds))
    done = run("eval", INVOICE, write(tmp / "g.jsonl", gts), pretty)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"stickler: error: {pretty}:1: looks like pretty-printed JSON (a record spans "
        f"several lines); JSON Lines holds one record per line: convert it with "
        f"jq -c . {pretty}\n"
    )


def test_mostly_unreadable_predictions_are_a_usage_error(invoices):
    tmp, gts, preds = invoices
    lines = [p if isinstance(p, bytes) else orjson.dumps(p) for p in preds]  # line 7 truncated already
    for k in range(13):  # 13 of 24 lines truncated
        lines[k] = lines[k][:20]
    preds = records(ROOT / "fixtures/invoice/pred.jsonl")
    pred = tmp / "p.jsonl"
    pred.write_bytes(b"\n".join(lines) + b"\n")
    done = run("eval", INVOICE, write(tmp / "g.jsonl", gts), pred)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == (
        f"stickler: error: {pred}: 13 of 24 prediction records are not JSON objects: "
        "is this a JSON Lines file (one JSON object per line)? Nothing was reported\n"
    )
    lines[12] = orjson.dumps(preds[12])  # 12 of 24: half, still a result (doc_id missing: not compared)
    pred.write_bytes(b"\n".join(lines) + b"\n")
    rep = report_of(run("eval", INVOICE, tmp / "g.jsonl", pred, "-f", "json"))
    assert rep["inputs"]["records"]["invalid_predictions"] == 12


# -- A3: swapped arguments --------------------------------------------------------------------


def test_ground_truth_with_confidences_warns_of_swapped_arguments(tmp_path):
    schema = ROOT / "schemas/quickstart.json"
    gt = tmp_path / "gt.jsonl"
    gt.write_text('{"name": {"_value": "Ada", "_confidence": 0.9}}\n{"name": "Bob"}\n')
    pred = write(tmp_path / "p.jsonl", [{"name": "Ada"}, {"name": "Bob"}])
    done = run("eval", schema, gt, pred, "-f", "json")
    assert done.returncode == 0
    assert done.stderr.decode() == (
        f"stickler: warning: {gt}: 1 ground-truth record(s) carry _confidence, which "
        "predictions carry: are the ground truth and prediction arguments swapped?\n"
    )
    assert json.loads(done.stdout)["inputs"]["records"]["gt_with_confidence"] == 1


def test_the_swapped_arguments_warning_reaches_the_html_and_markdown_reports(tmp_path):
    """A reader of the HTML page (or of a PR comment) sees the warning too, escaped, above the figures."""
    schema = ROOT / "schemas/quickstart.json"
    gt = tmp_path / "gt.jsonl"
    gt.write_text('{"name": {"_value": "Ada", "_confidence": 0.9}}\n{"name": "Bob"}\n')
    pred = write(tmp_path / "p.jsonl", [{"name": "Ada"}, {"name": "Bob"}])
    page = tmp_path / "r.html"
    done = run("eval", schema, gt, pred, "--html", page, "-f", "markdown")
    assert done.returncode == 0, done.stderr
    html = page.read_text()
    warning = (
        "<p class=warning role=alert><b>Warning:</b> 1 ground-truth record(s) carry _confidence, which "
        "predictions carry: are the ground truth and prediction arguments swapped?</p>"
    )
    assert html.count(warning) == 1
    assert html.index(warning) < html.index("<h2>")  # before the first section of figures
    assert (
        "> **Warning:** `1 ground-truth record(s) carry _confidence, which predictions carry: are the ground "
        "truth and prediction arguments swapped?`"
    ) in done.stdout.decode()  # (user text in a code span)
    assert run("eval", schema, pred, pred).stderr == b""


# -- A4: ids compared as JSON values ----------------------------------------------------------


def test_ids_compare_as_json_values(tmp_path):
    schema = ROOT / "schemas/quickstart.json"
    gt = write(
        tmp_path / "g.jsonl",
        [{"id": 1, "name": "a"}, {"id": "1", "name": "b"}, {"id": True, "name": "c"}, {"id": 2.0, "name": "d"}],
    )
    pred = write(
        tmp_path / "p.jsonl",
        [{"id": "True", "name": "c"}, {"id": "1", "name": "b"}, {"id": 1.0, "name": "a"}, {"id": 2, "name": "d"}],
    )
    rep = report_of(run("eval", schema, gt, pred, "--id-field", "id", "-f", "json"))
    # 1 pairs with 1.0 (one number), "1" with "1", 2.0 with 2; true has no prediction, "True" no ground truth.
    records_ = rep["inputs"]["records"]
    assert (records_["paired"], records_["missing_predictions"], records_["unpaired_predictions"]) == (3, 1, 1)
    assert sorted(e["message"] for e in rep["errors"]) == [
        "no prediction with this id; scored as empty",
        "prediction id 'True' has no ground truth; not scored",
    ]
    assert [e["doc_id"] for e in rep["errors"]] == ["true", "True"]  # the boolean shown as JSON writes it
    # {"id": 1} and {"id": "1"} are not duplicates; {"id": 1} and {"id": 1.0} are.
    dup = write(tmp_path / "dup.jsonl", [{"id": 1}, {"id": 1.0}])
    done = run("eval", schema, dup, pred, "--id-field", "id")
    assert done.returncode == 2 and done.stderr.decode().endswith("dup.jsonl:2: duplicate id 1.0 (first on line 1)\n")


# -- A6: plugin comparators answering outside [0, 1] -------------------------------------------

PLUGIN = """
import math
from stickler_cli.comparators import Comparator

ANSWERS = {"five": 5.0, "neg": -3.0, "nan": math.nan, "str": "0.5", "ok": 0.25, "true": True}


class Wild(Comparator):
    name = "WildComparator"

    def similarity(self, gt, pred):
        return ANSWERS[pred]
"""


def test_plugin_answers_outside_the_unit_interval_score_zero_and_are_listed(tmp_path):
    (tmp_path / "wild.py").write_text(PLUGIN)
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "x-aws-stickler-comparator": "WildComparator"},
                    "items": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"b": {"type": "string", "x-aws-stickler-comparator": "WildComparator"}},
                        },
                    },
                },
            }
        )
    )
    answers = ["five", "neg", "nan", "str", "ok", "true"]
    gt = write(tmp_path / "g.jsonl", [{"a": "x"} for _ in answers])
    pred = write(tmp_path / "p.jsonl", [{"a": a} for a in answers])
    rep = report_of(run("eval", schema, gt, pred, "--plugin", tmp_path / "wild.py", "-f", "json"))
    # Scores 0, 0, 0, 0, 0.25, 1.0 (threshold 0.5: one TP, five FD); a list empty on both sides scores 1.0.
    assert rep["field_metrics"]["a"]["mean_score"] == pytest.approx(1.25 / 6)
    assert (rep["field_metrics"]["a"]["tp"], rep["field_metrics"]["a"]["fd"]) == (1, 5)
    assert rep["metrics"]["weighted_overall_score"] == pytest.approx((1.25 / 6 + 1.0) / 2)
    assert [e["message"] for e in rep["errors"]] == [
        f"a: WildComparator failed, scored 0.0: NotASimilarity: returned {shown}, not a similarity in [0, 1]"
        for shown in ("5.0", "-3.0", "nan", "'0.5'")
    ]
    # In list matching too (the matrix is refused whole, then asked value by value): never above 1.
    gt = write(tmp_path / "g2.jsonl", [{"items": [{"b": "x"}, {"b": "y"}]} for _ in answers])
    pred = write(tmp_path / "p2.jsonl", [{"items": [{"b": a}, {"b": "ok"}]} for a in answers])
    rep = report_of(run("eval", schema, gt, pred, "--plugin", tmp_path / "wild.py", "-f", "json"))
    assert 0.0 <= rep["metrics"]["weighted_overall_score"] <= 1.0
    assert sum("returned 5.0" in e["message"] for e in rep["errors"]) == 1


# -- C15: a line's length is bounded ----------------------------------------------------------


def test_an_overlong_prediction_line_is_skipped_and_counted(invoices):
    tmp, gts, preds = invoices
    gt = write(tmp / "g.jsonl", gts[:3])
    pred = tmp / "p.jsonl"
    long_line = b'{"invoice_id": "' + b"x" * 5000 + b'"}'
    pred.write_bytes(orjson.dumps(preds[0]) + b"\n" + long_line + b"\n" + orjson.dumps(preds[2]) + b"\n")
    rep = report_of(run("eval", INVOICE, gt, pred, "--limit", "line-bytes=4KiB", "-f", "json"))
    assert rep["inputs"]["records"]["long_lines"] == 1 and rep["inputs"]["records"]["invalid_predictions"] == 1
    assert [(e["line"], e["message"]) for e in rep["errors"]] == [
        (
            2,
            "prediction line of 5,018 bytes, over the 4,096-byte limit; not read (raise it with "
            "--limit line-bytes=...); scored as empty",
        )
    ]
    assert report_of(run("eval", INVOICE, gt, pred, "--limit", "line-bytes=8k", "-f", "json"))["errors"] == []
    # In the ground truth, the same line stops the run (a document nobody could score).
    done = run("eval", INVOICE, pred, pred, "--limit", "line-bytes=4KiB")
    assert done.returncode == 2 and f"{pred}:2: ground truth line of 5,018 bytes" in done.stderr.decode()


def test_a_gzip_bomb_line_is_never_held_in_memory(tmp_path, invoices):
    _, gts, preds = invoices
    bomb = tmp_path / "p.jsonl.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as handle:
        handle.write(orjson.dumps(preds[0]) + b"\n")
        chunk = b" " * (1 << 20)
        for _ in range(400):  # one line of 400 MiB of spaces
            handle.write(chunk)
        handle.write(b"\n" + orjson.dumps(preds[1]) + b"\n")
    gt = write(tmp_path / "g.jsonl", gts[:3])
    # VmHWM: this process's peak resident memory (ru_maxrss would carry the parent's over exec).
    code = (
        f"import re, sys; from stickler_cli.cli.app import main; rc = main(['eval', {str(INVOICE)!r}, "
        f"{str(gt)!r}, {str(bomb)!r}, '-f', 'json', '-o', {str(tmp_path / 'r.json')!r}]); "
        "status = open('/proc/self/status').read(); "
        "sys.stderr.write(re.search(r'VmHWM:\\s*(\\d+)', status).group(1)); sys.exit(rc)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert done.returncode == 0, done.stderr
    peak_kib = int(done.stderr.decode().split()[-1])
    assert peak_kib < 300 * 1024, f"peak memory {peak_kib // 1024} MiB for a 400 MiB line"
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["inputs"]["records"]["long_lines"] == 1 and rep["document_count"] == 3


def test_limits_are_named_and_checked(tmp_path):
    gt, pred = ROOT / "fixtures/invoice/gt.jsonl", ROOT / "fixtures/invoice/pred.jsonl"
    done = run("eval", INVOICE, gt, pred, "--limit", "line-byte=1M")
    assert done.returncode == 2
    assert "--limit: unknown limit 'line-byte' (did you mean 'line-bytes'?)" in done.stderr.decode()
    for bad in ("line-bytes=0", "line-bytes=1.5", "line-bytes=lots", "line-bytes"):
        assert run("eval", INVOICE, gt, pred, "--limit", bad).returncode == 2
    # [tool.stickler.limits] in pyproject.toml of the working directory.
    (tmp_path / "pyproject.toml").write_text('[tool.stickler.limits]\nline-bytes = "100"\n')
    done = run("eval", INVOICE, gt, pred, "-f", "json", cwd=tmp_path)
    assert done.returncode == 2 and "ground truth line of" in done.stderr.decode()  # every line is over 100 bytes
    done = run("eval", INVOICE, gt, pred, "-f", "json", "--limit", "line-bytes=1MiB", cwd=tmp_path)
    assert done.returncode == 0  # the command line wins
    # stickler compare reads its files within the same bound.
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"invoice_id": "x" * 200}))
    done = run("compare", INVOICE, one, one, "--limit", "line-bytes=100")
    assert done.returncode == 2 and "holds one JSON value of over 100 bytes" in done.stderr.decode()


# -- C18: pipes and literal names -------------------------------------------------------------


def test_id_pairing_reads_a_pipe_once(tmp_path, invoices):
    _, gts, preds = invoices
    gt = write(tmp_path / "g.jsonl", gts)
    expected = report_of(
        run("eval", INVOICE, gt, write(tmp_path / "p.jsonl", preds), "--id-field", "doc_id", "-f", "json")
    )
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    data = b"".join((p if isinstance(p, bytes) else orjson.dumps(p)) + b"\n" for p in reversed(preds))

    def feed():
        with open(fifo, "wb") as handle:
            handle.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = subprocess.run(
        [*STICKLER, "eval", str(INVOICE), str(gt), str(fifo), "--id-field", "doc_id", "-f", "json"],
        capture_output=True,
        timeout=60,
    )
    writer.join(5)
    assert report_of(done)["metrics"] == expected["metrics"]
    # Process substitution (/dev/fd/N) in a shell.
    shell = subprocess.run(
        [
            "bash",
            "-c",
            f"{' '.join(STICKLER)} eval {INVOICE} {gt} <(cat {tmp_path / 'p.jsonl'}) --id-field doc_id -f json",
        ],
        capture_output=True,
        timeout=60,
    )
    assert report_of(shell)["metrics"] == expected["metrics"]


def test_a_literal_file_name_with_brackets_is_not_a_pattern(tmp_path, invoices):
    _, gts, preds = invoices
    gt = write(tmp_path / "gt[v2].jsonl", gts)
    pred = write(tmp_path / "pred[v2].jsonl", preds)
    rep = report_of(run("eval", INVOICE, gt, pred, "-f", "json"))
    assert rep["document_count"] == 24 and rep["inputs"]["ground_truth"] == str(gt)


@pytest.mark.parametrize("name", ["ID", "Id", "docId", "documentId", "fileName", "DOC-ID"])
def test_id_fields_are_found_however_they_are_spelled(tmp_path, name):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"total": {"type": "number"}}}))
    rows = [{name: f"D-{k:03d}", "total": k} for k in range(40)]
    done = run("eval", schema, write(tmp_path / "g.jsonl", rows), write(tmp_path / "p.jsonl", rows[:5] + rows[6:]))
    assert done.returncode == 2
    assert f":6: ground truth {name} 'D-005', prediction {name} 'D-006' (not the same document)" in done.stderr.decode()


def test_a_check_id_no_record_carries_is_a_usage_error(tmp_path, invoices):
    _, gts, preds = invoices
    done = run(
        "eval", INVOICE, write(tmp_path / "g.jsonl", gts), write(tmp_path / "p.jsonl", preds), "--check-id", "doc_ID"
    )
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == (
        "stickler: error: --check-id 'doc_ID': no pair of records carries it on both sides (as a string, number "
        "or boolean), so nothing was checked; name the field as the records spell it\n"
    )


def test_ids_of_different_json_types_are_shown_as_written(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"total": {"type": "number"}}}))
    gts = [{"doc_id": k, "total": k} for k in range(10)]
    preds = [{"doc_id": str(k), "total": k} for k in range(10)]
    done = run("eval", schema, write(tmp_path / "g.jsonl", gts), write(tmp_path / "p.jsonl", preds))
    assert (
        done.returncode == 2
        and ":1: ground truth doc_id 0, prediction doc_id '0' (not the same" in done.stderr.decode()
    )
    listed = write(tmp_path / "l.jsonl", [{"doc_id": [1], "total": 1}])
    done = run("eval", schema, listed, listed, "--id-field", "doc_id")
    assert done.returncode == 2
    assert done.stderr.decode().endswith(
        "l.jsonl:1: ground truth's 'doc_id' is a list, not a string, number or boolean\n"
    )


@pytest.mark.parametrize(
    "option, value, bound",
    [
        ("timeout", 1e9, "llm-seconds"),
        ("max_retries", 1_000_000, "llm-retries"),
        ("concurrency", 100_000, "llm-concurrency"),
    ],
)
def test_a_schema_cannot_lift_the_llm_bounds(tmp_path, option, value, bound):
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "a": {
                        "type": "string",
                        "x-aws-stickler-comparator": "LLMComparator",
                        "x-aws-stickler-comparator-config": {"model": "m", option: value},
                    }
                },
            }
        )
    )
    done = run("schema", "check", schema)
    assert done.returncode == 2
    assert (
        f"/x-aws-stickler-comparator-config/{option}: LLMComparator option '{option}' is {value:g}, over the bound of"
        in done.stderr.decode()
        and f"(--limit {bound}=N raises it)" in done.stderr.decode()
    )
    assert run("schema", "check", schema, "--limit", f"{bound}={int(value)}").returncode == 0


def test_id_pairing_of_a_compressed_file_keeps_a_bounded_number_of_bytes(tmp_path, invoices):
    _, gts, preds = invoices
    gts, preds = whole_records(gts, preds)
    packed = tmp_path / "p.jsonl.gz"
    packed.write_bytes(gzip.compress(b"".join(orjson.dumps(p) + b"\n" for p in preds)))
    gt = write(tmp_path / "g.jsonl", gts)
    assert report_of(run("eval", INVOICE, gt, packed, "--id-field", "doc_id", "-f", "json"))["document_count"] == 23
    done = run("eval", INVOICE, gt, packed, "--id-field", "doc_id", "--limit", "kept-bytes=2KiB")
    assert done.returncode == 2
    assert (
        "pairing by id keeps the lines of a compressed or piped prediction file in memory, and they pass 2,048 "
        "bytes: decompress it to a plain file" in done.stderr.decode()
    )


def test_the_llm_cache_is_an_output_like_the_others(tmp_path):
    gt, pred = ROOT / "fixtures/invoice/gt.jsonl", ROOT / "fixtures/invoice/pred.jsonl"
    done = run("eval", INVOICE, gt, pred, "--llm-cache", tmp_path / "x.json", "-o", tmp_path / "x.json")
    assert done.returncode == 2 and "--output and --llm-cache name the same file" in done.stderr.decode()
    done = run("eval", INVOICE, gt, pred, "--llm-cache", pred)
    assert done.returncode == 2 and "refusing to overwrite an input file" in done.stderr.decode()


def test_a_bad_limit_in_pyproject_names_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.stickler.limits]\nbogus = 5\nline-bytes = -1\n")
    done = run("schema", "check", INVOICE, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode().startswith(
        "stickler: error: pyproject.toml [tool.stickler.limits]: unknown limit 'bogus'"
    )


def test_standard_output_on_a_full_disk_is_a_usage_error_for_every_command():
    for args in (
        ["compare", INVOICE, '{"invoice_id": "a"}', '{"invoice_id": "b"}'],
        ["schema", "check", INVOICE],
        ["comparators"],
        ["comparators", "-f", "json"],
    ):
        with open("/dev/full", "wb") as full:
            done = subprocess.run([*STICKLER, *map(str, args)], stdout=full, stderr=subprocess.PIPE)
        assert done.returncode == 2, done.stderr
        assert done.stderr == b"stickler: error: standard output: cannot write: No space left on device\n"


def test_missing_predictions_are_named_by_id_or_line_in_every_listing(tmp_path):
    """Issue 16, item 9: the terminal and Markdown say which document has no prediction."""
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"x": {"type": "number"}}}))
    gt = write(tmp_path / "g.jsonl", [{"doc_id": d, "x": k} for k, d in enumerate("ABC")])
    pred = write(tmp_path / "p.jsonl", [{"doc_id": "A", "x": 0}])
    by_id = run("eval", schema, gt, pred, "--id-field", "doc_id").stdout.decode()
    assert f"  {pred} (B): no prediction with this id; scored as empty\n" in by_id
    assert f"  {pred} (C): no prediction with this id; scored as empty\n" in by_id
    by_line = run("eval", schema, gt, pred, "-f", "markdown").stdout.decode()
    assert f"- `{pred} (B)`: `no prediction for this ground truth (fewer prediction lines); scored as empty`" in by_line
    # Records without an id are named FILE:LINE by their ground-truth line (item 8).
    bare = write(tmp_path / "bare.jsonl", [{"x": k} for k in range(3)])
    by_line = run("eval", schema, bare, pred, "-f", "markdown").stdout.decode()
    assert (
        f"- `{pred} ({bare}:2)`: `no prediction for this ground truth (fewer prediction lines); scored as empty`"
        in by_line
    )


def test_a_record_problem_is_shown_whole_in_the_tables(invoices, monkeypatch):
    """Its message was cut at 200 characters, "…or pass --pair-by-line to … (+23 characters)", at any width."""
    tmp, gts, preds = invoices
    for record in (*gts, *preds):
        if isinstance(record, dict):
            record["doc_id"] = "ACME-CORPORATION-INVOICE-" + record["doc_id"]
    gt = write(tmp / "gt.jsonl", gts)
    missing = write(tmp / "missing.jsonl", preds[:22] + preds[23:])  # line 23 lost: lines 23 and 24 disagree
    monkeypatch.setenv("COLUMNS", "200")
    done = run("eval", INVOICE, gt, missing)
    assert done.returncode == 0
    shown = " ".join(done.stdout.decode().split())
    assert (
        "ground truth doc_id 'ACME-CORPORATION-INVOICE-D-023', prediction doc_id 'ACME-CORPORATION-INVOICE-D-024' "
        "(not the same document): the two files look out of step; pair by id with --id-field doc_id, or pass "
        "--pair-by-line to pair by line regardless"
    ) in shown


def _spelled_apart(gts: list, preds: list) -> list:
    """The predictions with their id key spelled ``docId`` (the ground truth's is ``doc_id``)."""
    return [
        {("docId" if key == "doc_id" else key): value for key, value in p.items()} if isinstance(p, dict) else p
        for p in preds
    ]


def test_ids_spelled_differently_on_each_side_are_still_compared(invoices):
    """Issue 37: ``doc_id`` in the ground truth, ``docId`` in the predictions turned the out-of-step check off
    (ids_compared 0): a prediction file missing line 7 was scored shifted by one line, exit 0. The keys are
    folded on both sides: the run stops at line 7, as it does when both spell ``doc_id``; in step, the 23
    readable pairs (line 7 is truncated output) have their ids compared."""
    tmp, gts, preds = invoices
    gt = write(tmp / "gt.jsonl", gts)
    preds = _spelled_apart(gts, preds)
    in_step = report_of(run("eval", INVOICE, gt, write(tmp / "pred.jsonl", preds), "-f", "json"))
    assert in_step["inputs"]["records"]["ids_compared"] == 23
    assert in_step["inputs"]["records"]["misaligned_pairs"] == 0
    missing = write(tmp / "missing.jsonl", preds[:6] + preds[7:])
    done = run("eval", INVOICE, gt, missing, "-f", "json")
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == (
        f"stickler: error: {missing}:7: ground truth doc_id 'D-007', prediction docId 'D-008' "
        "(not the same document): the two files look out of step; pass --pair-by-line to pair by line regardless "
        "(more than 3 pairs disagree)\n"
    )
    plan = st.load_schema(INVOICE)
    with pytest.raises(InputError) as caught:  # workers fold the keys alike
        evaluate_files(plan, str(gt), str(missing), workers=2)
    assert str(caught.value).startswith(f"{missing}:7: ground truth doc_id 'D-007', prediction docId 'D-008'")
    # `stickler compare` by line warns of the same disagreement.
    done = run("compare", INVOICE, gt, missing, "--line", "7")
    assert done.returncode == 0
    assert (
        f"{gt}:7 has doc_id 'D-007' and {missing}:7 has docId 'D-008': not the same document?" in done.stderr.decode()
    )


# -- issue 37, item 14: a key written twice in one object ------------------------------------------------------

DUPLICATES_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "name": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "vendor": {
            "type": "object",
            "properties": {"city": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
        },
    },
}


@pytest.mark.parametrize("id_field", [None, "id"])
def test_a_key_written_twice_is_a_record_problem_and_the_last_value_is_scored(tmp_path, capsys, id_field):
    """orjson keeps the last of {"name": "X", "name": "Y"} silently. Each such record is a record problem naming
    file, line and key; it is still scored with the last value (what every reader of it did before)."""
    from stickler_cli.cli.app import main

    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(DUPLICATES_SCHEMA))
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_bytes(
        b'{"id": "a", "name": "X", "vendor": {"city": "Oslo"}}\n'
        b'{"id": "b", "name": "Q", "vendor": {"city": "Rome", "city": "Bern"}}\n'
        b'{"id": "c", "name": "say \\"a:b\\"", "vendor": {"city": "Lyon"}}\n'
    )
    pred.write_bytes(
        b'{"id": "a", "name": "X", "name": "Y", "vendor": {"city": "Oslo"}}\n'
        b'{"id": "b", "name": "Q", "vendor": {"city": "Bern"}}\n'
        b'{"id": "c", "name" : "say \\"a:b\\"", "n\\u0061me": "say \\"a:b\\"", '
        b'"vendor": {"city": "Lyon", "note\\u003a": 1}}\n'
    )
    args = [
        "eval",
        str(schema),
        str(gt),
        str(pred),
        "--format",
        "json",
        *(["--id-field", id_field] if id_field else []),
    ]
    assert main(args) == 0
    report = orjson.loads(capsys.readouterr().out)
    problems = [(e["source"], e["line"], e["message"]) for e in report["errors"]]
    assert problems == [
        (
            str(pred),
            1,
            "prediction has key 'name' twice in one object (1 duplicate key(s)): the last value of each is scored",
        ),
        (
            str(gt),
            2,
            "ground truth has key 'city' twice in one object (1 duplicate key(s)): the last value of each is scored",
        ),
        (
            str(pred),
            3,
            "prediction has key 'name' twice in one object (1 duplicate key(s)): the last value of each is scored",
        ),
    ]
    name, city = report["field_metrics"]["name"], report["field_metrics"]["vendor.city"]
    assert (name["tp"], name["fd"]) == (2, 1)  # "Y" against "X": the last value is scored
    assert (city["tp"], city["fd"]) == (3, 0)  # "Bern" against "Bern"


@pytest.mark.parametrize(
    "line, twice",
    [
        (b'{"a": 1, "b": 2}', []),
        (b'{"a": 1, "a": 2}', ["a"]),
        (b'{"a": {"b": 1, "b": 2, "b": 3}, "c": [{"d": 1}, {"d": 1, "d": 2}]}', ["b", "b", "d"]),
        (b'{"a:b": 1, "a:b": 2}', ["a:b"]),  # colons inside keys
        (b'{"a": "x:y:z", "b": "::"}', []),  # colons inside values
        (b'{"a" : 1 , "a"\t: 2}', ["a"]),  # spaces around the colons
        (b'{"k\\u003a": 1, "k:": 2}', ["k:"]),  # a colon written as an escape: read again, exactly
        (b'{"\\u0061": 1, "a": 2}', ["a"]),  # a key spelt with an escape is that key
        (b'{"n": 123456789012345678901234567890, "n": 1}', ["n"]),  # beyond 64 bits: orjson cannot write it
        (b'{"t": "a\\":\\"b", "u": 1}', []),  # escaped quotes around a colon in a value
    ],
)
def test_duplicate_keys_are_found_exactly(line, twice):
    from stickler_cli.run.reader import decode, duplicate_keys

    assert duplicate_keys(line, decode(line)) == twice


def test_escapes_other_than_a_colon_keep_the_fast_duplicate_key_count(monkeypatch):
    """Found by review: any \\u003 escape sent a line to Python's json with a pairs hook (Go writes < and > as
    \\u003c and \\u003e: such files read 6.7x slower). Only an escaped colon changes the colon count."""
    from stickler_cli.run import reader

    slow = []
    real = reader._named_duplicates
    monkeypatch.setattr(reader, "_named_duplicates", lambda content: slow.append(content) or real(content))
    go = b'{"a": "\\u003cb\\u003e", "c": {"d": 1}}'
    assert reader.duplicate_keys(go, orjson.loads(go)) == [] and slow == []
    twice = b'{"a": "\\u003c", "a": 2, "c": 3}'
    assert reader.duplicate_keys(twice, orjson.loads(twice)) == ["a"] and len(slow) == 1
    colon = b'{"k\\u003A": 1, "k:": 2, "z": 3}'  # the same key, one spelling escaped: read by the slow path
    assert reader.duplicate_keys(colon, orjson.loads(colon)) == ["k:"] and len(slow) == 2


@pytest.mark.parametrize("layout", ["json", "one-line jsonl", "pretty jsonl"])
def test_a_key_written_twice_in_an_array_file_is_a_record_problem(tmp_path, capsys, layout):
    """A record read from a whole-file array (a .json file, or a .jsonl file holding one array) was not checked
    (its line is gone when it is paired): the array's text is counted once, and where it holds a key written
    twice, each element is found again and named by its number, as its line would be."""
    from stickler_cli.cli.app import main

    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(DUPLICATES_SCHEMA))
    records = [
        b'{"id": "a", "name": "X", "vendor": {"city": "Oslo"}}',
        b'{"id": "b", "name": "Q", "name": "R", "vendor": {"city": "Rome"}}',
        b'{"id": "c", "name": "Z", "vendor": {"city": "Lyon", "city": "Bern"}}',
    ]
    suffix = ".json" if layout == "json" else ".jsonl"
    joined = (
        b"[" + b", ".join(records) + b"]\n" if layout != "pretty jsonl" else b"[\n" + b",\n".join(records) + b"\n]\n"
    )
    gt, pred = tmp_path / f"gt{suffix}", tmp_path / f"pred{suffix}"
    gt.write_bytes(joined)
    pred.write_bytes(
        b"[" + b", ".join(r.replace(b', "name": "R"', b"").replace(b', "city": "Bern"', b"") for r in records) + b"]\n"
    )
    assert main(["eval", str(schema), str(gt), str(pred), "--format", "json"]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert [(e["source"], e["line"], e["message"]) for e in report["errors"]] == [
        (
            str(gt),
            2,
            "ground truth has key 'name' twice in one object (1 duplicate key(s)): the last value of each is scored",
        ),
        (
            str(gt),
            3,
            "ground truth has key 'city' twice in one object (1 duplicate key(s)): the last value of each is scored",
        ),
    ]
