"""The first failing comparisons of each field, kept for the HTML report: bounded, in input order, the same
whether a run is serial, on workers or merged from shard states, and checked as untrusted input in a state."""

from __future__ import annotations

import dataclasses

import importlib
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import stickler_cli as st
from stickler_cli.analyses import failures as analysis
from stickler_cli.run import parallel, state_file
from stickler_cli.run.accumulate import Accumulator, Collect
from stickler_cli.analyses.failures import SAMPLE_VALUE_CHARS, failure_field
from stickler_cli.errors import InputError
from stickler_cli import evaluate_files
from stickler_cli.run.evaluate import Evaluation, evaluate_pairs
from stickler_cli.limits import DEFAULT
from stickler_cli.report.build import build_report
from stickler_cli.run.shards import Shard
from tests.support.datagen import generate
from tests.support.reports import run

SCHEMA = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "name": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "unit": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "colour": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "qty": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
                },
            },
        },
    },
}


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("schema") / "s.json"
    path.write_text(json.dumps(SCHEMA))
    return st.load_schema(path)


def _code_wrong(n: int) -> list[tuple[dict, dict]]:
    """``n`` documents whose code is wrong in every one (FD) and whose name is always right."""
    return [({"code": f"C{i}", "name": "A"}, {"code": f"X{i}", "name": "A"}) for i in range(n)]


def test_a_field_with_more_failures_than_the_bound_keeps_exactly_the_bound(plan: Any) -> None:
    acc = evaluate_pairs(plan, _code_wrong(30), Collect(failures=20))
    report = build_report(Evaluation(plan, acc))
    assert DEFAULT.failures_per_field == 20 and report["field_failures"]["kept_per_field"] == 20
    assert report["field_metrics"]["code"]["fd"] == 30
    kept = report["field_failures"]["fields"]
    assert list(kept) == ["code"]  # name never failed
    assert [r["pred"] for r in kept["code"]] == [f"X{i}" for i in range(20)]  # the first 20, in input order
    assert [r["doc_id"] for r in kept["code"]] == [f"pair {i}" for i in range(1, 21)]
    assert kept["code"][0] == {
        "doc_id": "pair 1",
        "path": "code",
        "type": "FD",
        "gt": "C0",
        "pred": "X0",
        "similarity": 0.0,
        "score": 0.0,
        "threshold": 0.5,
        "comparator": "ExactComparator",
        "confidence": None,
        "gt_default": False,
        "pred_default": False,
    }


def test_a_document_is_explained_only_while_a_field_it_fails_on_has_room(plan: Any, monkeypatch) -> None:
    """The explaining walk is per-document Python: once every field a document fails on is full, it is skipped."""
    explained = []
    real = analysis.non_match_rows

    def counting(engine, doc_id, gt, pred):
        explained.append(doc_id)
        return real(engine, doc_id, gt, pred)

    monkeypatch.setattr(importlib.import_module("stickler_cli.run.scoring"), "non_match_rows", counting)
    pairs = _code_wrong(50)
    pairs[40] = ({"code": "C40", "name": "A"}, {"code": "X40", "name": "B"})  # name fails once, late
    acc = Accumulator(plan, Collect(failures=3))
    from stickler_cli.engine import Engine
    from stickler_cli.run.reader import Pair
    from stickler_cli.run.scoring import score_pairs
    from stickler_cli.run.shards import Shard

    engine = Engine(plan)
    score_pairs(
        engine,
        acc,
        [Pair(f"d{k}", gt, pred, k + 1, k + 1, []) for k, (gt, pred) in enumerate(pairs)],
        Shard("g.jsonl", "p.jsonl"),
    )
    assert explained == ["d0", "d1", "d2", "d40"]  # code full after 3; d40 explained for name's sake
    assert {plan.fields[i].path: [r["doc_id"] for r in rows] for i, rows in acc.failures.items()} == {
        "code": ["d0", "d1", "d2"],
        "name": ["d40"],
    }
    assert Accumulator(plan, Collect(failures=0)).wants_failures(engine.compare(*pairs[0]).tally) is False


def test_list_comparisons_belong_to_their_field(plan: Any) -> None:
    """``items[0↔1].qty`` is a comparison of ``items.qty``; a list of objects compared as a whole is not one
    of its counted comparisons (its pairs are), so the kept rows match the counts."""
    gt = {
        "code": "C",
        "name": "A",
        "items": [
            {"sku": "a", "unit": "kg", "colour": "red", "qty": 1},
            {"sku": "b", "unit": "kg", "colour": "red", "qty": 2},
            {"sku": "c", "unit": "kg", "colour": "red", "qty": 3},
        ],
    }
    pred = {
        "code": "C",
        "name": "A",
        "items": [
            {"sku": "a", "unit": "kg", "colour": "red", "qty": 5},  # 3 of 4: paired
            {"sku": "zzz", "unit": "m", "colour": "blue", "qty": 99},
        ],
    }
    report = build_report(Evaluation(plan, evaluate_pairs(plan, [(gt, pred)], Collect(failures=20))))
    kept = report["field_failures"]["fields"]
    for path, rows in kept.items():
        fm = report["field_metrics"][path]
        assert len(rows) == fm["fd"] + fm["fa"] + fm["fn"], path
    assert {path: [(r["path"], r["type"]) for r in rows] for path, rows in kept.items()} == {
        "items": [("items[1↔1]", "FD"), ("items[2↔-]", "FN")],
        "items.qty": [("items[0↔0].qty", "FD")],
    }
    assert failure_field(plan, "items", "FD") is None and failure_field(plan, "items", "FN").path == "items"
    assert failure_field(plan, "nothing", "FD") is None


def test_long_values_are_kept_cut(plan: Any) -> None:
    long = "é" * 5000
    report = build_report(
        Evaluation(
            plan,
            evaluate_pairs(plan, [({"code": long, "name": "A"}, {"code": "x", "name": "A"})], Collect(failures=20)),
        )
    )
    row = report["field_failures"]["fields"]["code"][0]
    assert row["cut"] == ["gt"] and row["pred"] == "x"
    assert len(row["gt"]) == SAMPLE_VALUE_CHARS and row["gt"] == '"' + "é" * (SAMPLE_VALUE_CHARS - 2) + "…"


# -- serial, workers, shards and merge agree -------------------------------------------------------------

N_DOCS = 600


@pytest.fixture(scope="module")
def invoice(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from tests.conftest import ROOT

    d = tmp_path_factory.mktemp("samples")
    schema = ROOT / "schemas/invoice.json"
    gts, preds = generate(str(schema), N_DOCS, 7, confidence=True)
    lines = {"gt": [orjson.dumps(r).decode() for r in gts], "pred": [orjson.dumps(r).decode() for r in preds]}
    paths: dict[str, Any] = {"schema": schema, "plan": st.load_schema(schema)}
    for side, rows in lines.items():
        paths[side] = d / f"{side}.jsonl"
        paths[side].write_text("".join(line + "\n" for line in rows))
        for k, (lo, hi) in enumerate(((0, 250), (250, N_DOCS))):
            paths[f"{side}{k}"] = d / f"{side}{k}.jsonl"
            paths[f"{side}{k}"].write_text("".join(line + "\n" for line in rows[lo:hi]))
    return paths


def _without_ids(failures: dict[str, Any]) -> dict[str, Any]:
    """The kept rows without the names of their documents (shard files number their own lines)."""
    return {
        **failures,
        "fields": {
            p: [{k: v for k, v in r.items() if k != "doc_id"} for r in rows] for p, rows in failures["fields"].items()
        },
    }


def test_serial_workers_and_merged_shard_states_keep_the_same_failures(
    invoice: dict[str, Any], tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(parallel, "CHUNK_SIZE", 25)  # 24 chunks: the later ones are sent with full fields
    closed: list[int] = []
    full_fields = Accumulator.full_fields
    monkeypatch.setattr(
        Accumulator, "full_fields", lambda self: closed.append(len(full_fields(self))) or full_fields(self)
    )
    plan = invoice["plan"]
    analysis_ = Collect(failures=5)
    serial = build_report(evaluate_files(plan, str(invoice["gt"]), str(invoice["pred"]), analysis=analysis_))
    workers = build_report(
        evaluate_files(plan, str(invoice["gt"]), str(invoice["pred"]), workers=2, analysis=analysis_)
    )
    assert len(closed) == 24 and closed[0] == 0 and closed[-1] >= 4  # chunks skip the fields already full
    failures = serial["field_failures"]
    assert failures["kept_per_field"] == 5
    full = [p for p, rows in failures["fields"].items() if len(rows) == 5]
    assert len(full) >= 4 and any(serial["field_metrics"][p]["fd"] > 50 for p in full)  # the bound was reached
    assert workers["field_failures"] == failures  # the same rows, documents named alike
    # Two shard states saved to disk, then merged: the same rows (their documents are named by their own file).
    states = []
    for k in (0, 1):  # a state saved keeps its document index (merge checks that states share no document)
        run_k = evaluate_files(
            plan, str(invoice[f"gt{k}"]), str(invoice[f"pred{k}"]), analysis=dataclasses.replace(analysis_, index=True)
        )
        states.append(str(tmp_path / f"{k}.state.json"))
        state_file.save(states[-1], run_k.accumulator)
    merged = build_report(state_file.merge(states, collect=Collect(failures=5)))
    assert _without_ids(merged["field_failures"]) == _without_ids(failures)
    # Glob shards in one run: the same again.
    sharded = build_report(
        evaluate_files(
            plan,
            [Shard(str(invoice["gt0"]), str(invoice["pred0"])), Shard(str(invoice["gt1"]), str(invoice["pred1"]))],
            analysis=analysis_,
        )
    )
    assert _without_ids(sharded["field_failures"]) == _without_ids(failures)


def test_states_kept_with_a_smaller_bound_merge_to_the_smaller_bound(invoice: dict[str, Any]) -> None:
    plan = invoice["plan"]
    small = evaluate_files(plan, str(invoice["gt0"]), str(invoice["pred0"]), analysis=Collect(failures=2))
    large = evaluate_files(plan, str(invoice["gt1"]), str(invoice["pred1"]), analysis=Collect(failures=5))
    acc = Accumulator(plan, Collect(failures=5))
    for part in (small, large):
        acc.merge_state(orjson.loads(orjson.dumps(part.accumulator.get_state())))
    whole = evaluate_files(plan, str(invoice["gt"]), str(invoice["pred"]), analysis=Collect(failures=2))
    assert acc.failures_known == 2
    assert _without_ids(build_report(Evaluation(plan, acc))["field_failures"]) == _without_ids(
        build_report(whole)["field_failures"]
    )


def test_the_limit_option_sets_the_bound(invoice: dict[str, Any], tmp_path: Path) -> None:
    done = run(
        "eval",
        invoice["schema"],
        invoice["gt"],
        invoice["pred"],
        "-f",
        "json",
        "--limit",
        "failures-per-field=3",
        "--save-state",
        tmp_path / "s.json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["field_failures"]["kept_per_field"] == 3
    assert {len(rows) for rows in report["field_failures"]["fields"].values()} == {3}
    merged = run("merge", tmp_path / "s.json", "-f", "json")  # the state's bound: 3, below the default 20
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["field_failures"] == report["field_failures"]
    bad = run("eval", invoice["schema"], invoice["gt"], invoice["pred"], "--limit", "failures-per-field=0")
    assert bad.returncode == 2 and "failures-per-field: must be above 0" in bad.stderr


# -- a state file's rows are untrusted -----------------------------------------------------------------


def _first(state: dict) -> dict:
    return next(iter(state["failures"].values()))[0]


def _move(state: dict) -> None:
    paths = list(state["failures"])
    state["failures"][paths[1]][0] = state["failures"][paths[0]][0]


TAMPERED = [
    (
        "more rows than kept",
        lambda s: s.__setitem__("failures_kept", 1),
        "/failures/invoice_id: holds 5 comparisons, more than the 1 per field the state kept",
    ),
    (
        "a field the schema lacks",
        lambda s: s["failures"].__setitem__("nope", []),
        "/failures/nope: not a field of the schema",
    ),
    (
        "a right comparison",
        lambda s: _first(s).__setitem__("type", "TP"),
        "/failures/invoice_id/0/type: must be one of FD, FA, FN",
    ),
    (
        "a row of another field",
        _move,
        "/failures/customer_name/0/path: must be a comparison of field 'customer_name', got 'invoice_id'",
    ),
    (
        "a confidence as text",
        lambda s: _first(s).__setitem__("confidence", "0.9"),
        "/failures/invoice_id/0/confidence: must be a finite number, got '0.9'",
    ),
    ("an unknown key", lambda s: _first(s).__setitem__("script", 1), "/failures/invoice_id/0/script: unknown key"),
    ("a missing key", lambda s: _first(s).pop("comparator"), "/failures/invoice_id/0: missing key 'comparator'"),
    (
        "a value longer than kept",
        lambda s: _first(s).__setitem__("gt", "x" * 5000),
        "/failures/invoice_id/0/gt: holds 5002 characters, more than the 1000 kept",
    ),
    (
        "a cut value that is not text",
        lambda s: _first(s).update(cut=["gt"], gt=[1]),
        "/failures/invoice_id/0/gt: a cut value must be a string",
    ),
    (
        "a default mark that is not a boolean",
        lambda s: _first(s).__setitem__("pred_default", "yes"),
        "/failures/invoice_id/0/pred_default: must be true or false",
    ),
    (
        "a bound that is not a count",
        lambda s: s.__setitem__("failures_kept", -1),
        "/failures_kept: must be a non-negative integer, got -1",
    ),
]


@pytest.mark.parametrize("edit, expected", [case[1:] for case in TAMPERED], ids=[case[0] for case in TAMPERED])
def test_tampered_failure_rows_are_refused_naming_the_pointer(
    invoice: dict[str, Any], tmp_path: Path, edit, expected: str
) -> None:
    acc = evaluate_files(
        invoice["plan"], str(invoice["gt0"]), str(invoice["pred0"]), analysis=Collect(failures=5)
    ).accumulator
    state = orjson.loads(orjson.dumps(acc.get_state()))
    assert len(state["failures"]["invoice_id"]) == 5
    edit(state)
    path = tmp_path / "bad.state.json"
    path.write_bytes(orjson.dumps(state))
    with pytest.raises(InputError) as caught:
        state_file.merge([str(path)])
    assert expected in str(caught.value), str(caught.value)


def test_kept_rows_hold_the_sample_keys_only() -> None:
    """Keys a comparison row may gain are dropped unless the sample knows them, so a state stays checkable;
    a confidence that is no number is kept as none (the run lists the malformed _confidence in errors)."""
    row = {
        "doc_id": "d",
        "path": "a",
        "type": "FD",
        "gt": 1,
        "pred": 2,
        "similarity": 0.0,
        "score": 0.0,
        "threshold": 1.0,
        "comparator": "ExactComparator",
        "confidence": "high",
        "pred_default": True,
        "new": 1,
    }
    assert analysis.sample_row(row) == {**{k: v for k, v in row.items() if k != "new"}, "confidence": None}


def test_samples_are_kept_only_for_the_outputs_that_show_them(tmp_path, monkeypatch) -> None:
    """Explaining a document costs about as much as scoring a hundred: without --html or --save-state,
    `stickler eval` explains none for the samples (bench case 1 spent half its time on them)."""
    import json

    from stickler_cli.cli.app import main

    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"code": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
            }
        )
    )
    (tmp_path / "g.jsonl").write_text("".join(json.dumps({"code": f"C{i}"}) + "\n" for i in range(30)))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps({"code": f"X{i}"}) + "\n" for i in range(30)))  # 30 FD
    explained = []
    real = analysis.non_match_rows
    monkeypatch.setattr(
        importlib.import_module("stickler_cli.run.scoring"),
        "non_match_rows",
        lambda *a: explained.append(a[1]) or real(*a),
    )
    args = ["eval", str(schema), str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl"), "--no-progress"]
    assert main([*args, "-f", "json", "-o", str(tmp_path / "r.json")]) == 0
    assert explained == [] and json.loads((tmp_path / "r.json").read_text())["field_failures"]["fields"] == {}
    assert main([*args, "--html", str(tmp_path / "r.html"), "-f", "json", "-o", str(tmp_path / "r2.json")]) == 0
    assert len(explained) == 20
    assert len(json.loads((tmp_path / "r2.json").read_text())["field_failures"]["fields"]["code"]) == 20
    explained.clear()
    assert main([*args, "--save-state", str(tmp_path / "s.state"), "-f", "json"]) == 0
    assert len(explained) == 20
