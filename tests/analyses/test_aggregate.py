"""The leaf roll-up of every node (``aggregate``, issue 23 item 4): beside an object's or a list's own
verdict, the counts of the leaf fields beneath it, summed; the document's over every leaf.

Every figure here is worked by hand; tests/parity/test_aggregate_oracle.py checks the same files
against stickler-eval 1.0.0's own ``aggregate``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import orjson
import pytest

from stickler_cli.report import gates
from stickler_cli.run.accumulate import Accumulator
from stickler_cli.cli.app import main
from stickler_cli.engine import Engine
from stickler_cli.run.evaluate import evaluate_pairs
from stickler_cli.report.metrics import count_block
from stickler_cli.report.build import aggregate_counts, build_report
from stickler_cli.run.evaluate import Evaluation
from stickler_cli.schema import compile_schema
from tests.support.case_files import write_case

COUNTS = ("tp", "fa", "fd", "fn", "tn")
SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "vendor": {"type": "object", "properties": {"name": {"type": "string"}, "city": {"type": "string"}}},
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "number"}}},
        },
    },
}

# The example and a list of objects, in one document.
ONE_GT = {
    "id": "A",
    "vendor": {"name": "Acme", "city": "Paris"},
    "items": [{"sku": "ABC", "qty": 1}, {"sku": "DEF", "qty": 2}, {"sku": "GHI", "qty": 3}],
}
ONE_PRED = {
    "id": "A",
    "vendor": {"name": "Acme", "city": "Xyzzy"},
    "items": [
        {"sku": "ABC", "qty": 1},
        {"sku": "DEF", "qty": 5},
        {"sku": "zzzzzz", "qty": 99},
        {"sku": "extra", "qty": 7},
    ],
}

# Three documents where a node is not opened or a list item adds nothing.
ACME = {"name": "Acme", "city": "Paris"}
CORPUS_GT = [
    {"id": "A", "vendor": None, "items": []},
    {"id": "B", "vendor": ACME, "items": [{"sku": "ABC", "qty": 1}]},
    {"id": "C", "vendor": ACME, "items": [{"sku": "ABC", "qty": 1}, {"sku": "DEF", "qty": 2}]},
]
CORPUS_PRED = [
    {"id": "A", "vendor": ACME, "items": []},
    {"id": "B", "vendor": ACME, "items": []},
    {"id": "C", "vendor": {"name": "Acme", "city": "Lyon"}, "items": [{"sku": "ABC", "qty": 1}]},
]


def _counts(block: dict) -> list[int]:
    return [block[k] for k in COUNTS]


def _report(gts: list[dict], preds: list[dict]) -> dict:
    plan = compile_schema(SCHEMA)
    return build_report(Evaluation(plan, evaluate_pairs(plan, zip(gts, preds))))


def test_the_vendor_example_and_a_list_of_objects_worked_by_hand() -> None:
    report = _report([ONE_GT], [ONE_PRED])
    fields = report["field_metrics"]
    # vendor = {name TP, city FD}: vendor itself is one FD; its leaves are TP 1, FD 1
    assert _counts(fields["vendor"]) == [0, 0, 1, 0, 0]
    assert _counts(fields["vendor"]["aggregate"]) == [1, 0, 1, 0, 0]
    assert fields["vendor"]["aggregate"]["cm_precision"] == 0.5 and fields["vendor"]["aggregate"]["cm_recall"] == 1.0
    assert (
        fields["vendor"]["aggregate"]["cm_f1"] == pytest.approx(2 / 3)
        and fields["vendor"]["aggregate"]["cm_accuracy"] == 0.5
    )
    # items: ABC matched (TP), DEF/5 and GHI/zzzzzz paired below the match threshold 0.7 (FD), one extra (FA);
    # only the matched pair's leaves roll up: sku TP, qty TP
    assert _counts(fields["items"]) == [1, 1, 2, 0, 0]
    assert _counts(fields["items"]["aggregate"]) == [2, 0, 0, 0, 0] and fields["items"]["aggregate"]["cm_f1"] == 1.0
    # the document: id TP, name TP, city FD, sku TP, qty TP
    document = report["metrics"]["aggregate"]
    assert _counts(document) == [4, 0, 1, 0, 0]
    assert document == count_block([4, 0, 1, 0, 0])
    assert document["cm_precision"] == 0.8 and document["cm_f1"] == pytest.approx(8 / 9)
    # leaves carry no aggregate (theirs is their own counts)
    assert "aggregate" not in fields["id"] and "aggregate" not in fields["vendor.city"]


def test_a_node_not_opened_counts_as_one_leaf_and_unmatched_items_add_nothing() -> None:
    report = _report(CORPUS_GT, CORPUS_PRED)
    fields = report["field_metrics"]
    # vendor: A null in the ground truth (one FA, not two), B name TP city TP, C name TP city FD
    assert _counts(fields["vendor"]["aggregate"]) == [3, 1, 1, 0, 0]
    # the leaves alone hold TP 3, FD 1: A's FA is vendor's own verdict, counted as one leaf
    assert _counts(fields["vendor.name"]) + _counts(fields["vendor.city"]) == [2, 0, 0, 0, 0, 1, 0, 1, 0, 0]
    # items: A both empty (TN 1), B no item matched (its own FN 1), C ABC matched (sku TP, qty TP) and
    # DEF unmatched (adds nothing, though items counts it as FN)
    assert _counts(fields["items"]) == [1, 0, 0, 2, 1]
    assert _counts(fields["items"]["aggregate"]) == [2, 0, 0, 1, 1]
    # the document: id TP ×3 + vendor's + items'
    assert _counts(report["metrics"]["aggregate"]) == [8, 1, 1, 1, 1]


def test_document_by_document_add_and_batches_and_merged_states_agree() -> None:
    plan = compile_schema(SCHEMA)
    engine = Engine(plan)
    one = Accumulator(plan)
    for gt, pred in zip(CORPUS_GT, CORPUS_PRED):
        one.add(engine.compare(gt, pred))
    batched = evaluate_pairs(plan, zip(CORPUS_GT, CORPUS_PRED))
    merged = Accumulator(plan)
    for k in range(3):
        part = evaluate_pairs(plan, [(CORPUS_GT[k], CORPUS_PRED[k])])
        merged.merge_state(json.loads(json.dumps(part.get_state())))
    expected = ([8, 1, 1, 1, 1], {1: [3, 1, 1, 0, 0], 4: [2, 0, 0, 1, 1]})
    assert aggregate_counts(one) == aggregate_counts(batched) == aggregate_counts(merged) == expected
    assert one.unopened == batched.unopened == merged.unopened


def test_no_object_no_table_and_the_document_roll_up_is_the_counts(tmp_path: Path, capsys) -> None:
    schema = tmp_path / "flat.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}))
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text('{"a": "x", "b": "y"}\n')
    pred.write_text('{"a": "x"}\n')
    assert main(["eval", str(schema), str(gt), str(pred), "--format", "json", "--no-progress"]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert _counts(report["metrics"]["aggregate"]) == _counts(report["metrics"]) == [1, 0, 0, 1, 0]
    assert main(["eval", str(schema), str(gt), str(pred), "--no-progress"]) == 0
    assert "Leaves beneath" not in capsys.readouterr().out


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return write_case(tmp_path, SCHEMA, CORPUS_GT, CORPUS_PRED)


def _eval(files: dict[str, str], capsys, *extra: str) -> tuple[int, dict]:
    code = main(["eval", files["schema"], files["gt"], files["pred"], "--format", "json", "--no-progress", *extra])
    return code, orjson.loads(capsys.readouterr().out)


def test_the_report_schema_describes_it(root: Path, files, capsys) -> None:
    _, report = _eval(files, capsys)
    schema = orjson.loads((root / "schemas/report.schema.json").read_bytes())
    jsonschema.validate(report, schema)
    del report["metrics"]["aggregate"]
    with pytest.raises(jsonschema.ValidationError, match="aggregate"):
        jsonschema.validate(report, schema)


def test_gates_on_a_node_a_glob_and_the_document(files, capsys) -> None:
    # vendor's leaves: TP 3, FA 1, FD 1: precision 3/5, recall 1, F1 0.75
    code, report = _eval(files, capsys, "--fail-under", "vendor.aggregate.cm_f1=0.9")
    assert code == 1
    [gate] = report["gates"]
    assert (gate["gate"], gate["path"], gate["metric"], gate["actual"], gate["status"]) == (
        "vendor.aggregate.cm_f1 >= 0.9",
        "vendor",
        "aggregate.cm_f1",
        pytest.approx(0.75),
        "failed",
    )
    assert _eval(files, capsys, "--fail-under", "vendor.aggregate.cm_f1=0.74")[0] == 0
    # vendor's own F1 (1 TP of 3 with an FA and an FD) would fail the same bar: the gate reads the leaves
    assert report["field_metrics"]["vendor"]["cm_f1"] < 0.75
    code, report = _eval(
        files, capsys, "--fail-under", "*.aggregate.cm_recall=0.6", "--fail-under", "aggregate.cm_precision=0.79"
    )
    assert code == 0
    assert [(g["gate"], g["actual"]) for g in report["gates"]] == [
        ("vendor.aggregate.cm_recall >= 0.6", 1.0),
        ("items.aggregate.cm_recall >= 0.6", pytest.approx(2 / 3)),
        ("aggregate.cm_precision >= 0.79", pytest.approx(0.8)),
    ]


@pytest.mark.parametrize(
    "gate, message",
    [
        ("id.aggregate.cm_f1=0.9", "gate 'id.aggregate.cm_f1' matches no object or list of objects"),
        ("vendor.aggregate.mean_score=0.9", "a leaf roll-up has no 'mean_score'"),
        ("aggregate.cm_f2=0.9", "a leaf roll-up has no 'cm_f2'"),
    ],
)
def test_a_roll_up_gate_that_cannot_be_read_is_a_usage_error(files, capsys, gate, message) -> None:
    code = main(["eval", files["schema"], files["gt"], files["pred"], "--no-progress", "--fail-under", gate])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_a_field_named_aggregate_is_still_gated_through_a_literal_glob() -> None:
    gate = gates.parse("totals.aggregat[e].cm_f1=0.5")
    assert (gate.pattern, gate.metric, gate.rolled_up) == ("totals.aggregat[e]", "cm_f1", False)
    assert gates.matching(gate, ["totals", "totals.aggregate"]) == ["totals.aggregate"]


def test_per_document_lines_carry_each_documents_roll_up(files, tmp_path: Path, capsys) -> None:
    out = tmp_path / "docs.jsonl"
    assert main(["eval", files["schema"], files["gt"], files["pred"], "--no-progress", "--per-document", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["aggregate"] for r in rows] == [
        {"document": {"tp": 1, "fa": 1, "tn": 1}, "fields": {"vendor": {"fa": 1}, "items": {"tn": 1}}},
        {"document": {"tp": 3, "fn": 1}, "fields": {"vendor": {"tp": 2}, "items": {"fn": 1}}},
        {"document": {"tp": 4, "fd": 1}, "fields": {"vendor": {"tp": 1, "fd": 1}, "items": {"tp": 2}}},
    ]


def test_saved_states_keep_it_and_a_tampered_one_is_refused(files, tmp_path: Path, capsys) -> None:
    state = tmp_path / "run.state.json"
    assert (
        main(
            [
                "eval",
                files["schema"],
                files["gt"],
                files["pred"],
                "--no-progress",
                "--save-state",
                str(state),
                "--format",
                "json",
            ]
        )
        == 0
    )
    report = orjson.loads(capsys.readouterr().out)
    assert main(["merge", str(state), "--format", "json"]) == 0
    merged = orjson.loads(capsys.readouterr().out)
    assert merged["metrics"]["aggregate"] == report["metrics"]["aggregate"]
    assert merged["field_metrics"]["items"]["aggregate"] == report["field_metrics"]["items"]["aggregate"]
    saved = orjson.loads(state.read_bytes())
    for k, row, expected in (
        (0, [1, 0, 0, 0, 0], "/unopened/0: must be all zeros: 'id' has no fields beneath it"),
        (4, [0, 0, 0, 9, 0], "/unopened/4: cannot exceed the field's counts"),
    ):
        bad = json.loads(json.dumps(saved))
        bad["unopened"][k] = row
        path = tmp_path / f"bad{k}.state.json"
        path.write_bytes(orjson.dumps(bad))
        assert main(["merge", str(path)]) == 2
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1, err


def _fits(out: str, columns: int = 80) -> None:
    widest = max(len(line) for line in out.splitlines())
    assert widest <= columns, f"a line of {widest} characters at {columns} columns"


def test_the_terminal_table_fits_80_columns_piped_with_every_figure_whole(tmp_path: Path, capsys, monkeypatch) -> None:
    long = "consignee_billing_address_as_printed_on_the_invoice"
    schema = {
        "type": "object",
        "properties": {long: SCHEMA["properties"]["vendor"], "items": SCHEMA["properties"]["items"]},
    }
    (tmp_path / "s.json").write_text(json.dumps(schema))
    rows = [
        (dict(gt, **{long: gt["vendor"]}), dict(pred, **{long: pred["vendor"]}))
        for gt, pred in zip(CORPUS_GT * 40, CORPUS_PRED * 40)
    ]
    for name, side in (("gt", 0), ("pred", 1)):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps({k: v for k, v in r[side].items() if k != "vendor"}) + "\n" for r in rows)
        )
    monkeypatch.setenv("COLUMNS", "80")
    args = ["eval", str(tmp_path / "s.json"), str(tmp_path / "gt.jsonl"), str(tmp_path / "pred.jsonl"), "--no-progress"]
    assert main([*args, "-o", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    _fits(out)
    report = json.loads((tmp_path / "r.json").read_text())
    table = out.split("Leaves beneath each node")[1]
    assert "…" not in table
    for name, block in [
        ("(document)", report["metrics"]["aggregate"]),
        *((p, f["aggregate"]) for p, f in report["field_metrics"].items() if "aggregate" in f),
    ]:
        figures = [str(block[k]) for k in COUNTS] + [f"{block[k]:.3f}" for k in ("cm_precision", "cm_recall", "cm_f1")]
        assert re.search(r" +".join(map(re.escape, figures)), table), (name, figures, table)
    assert _counts(report["metrics"]["aggregate"]) == [40 * 5, 40, 40, 40, 40]  # the corpus without its ids, 40 times
    # the long name wraps, whole
    assert long in "".join(re.findall(r"[a-z_]+", table))


def test_markdown_and_html_show_it(files, tmp_path: Path, capsys) -> None:
    html = tmp_path / "r.html"
    assert (
        main(
            [
                "eval",
                files["schema"],
                files["gt"],
                files["pred"],
                "--no-progress",
                "--format",
                "markdown",
                "--html",
                str(html),
            ]
        )
        == 0
    )
    markdown = capsys.readouterr().out
    assert "### Leaves beneath each node" in markdown
    assert "| **(document)** | 8 | 1 | 1 | 1 | 1 | 0.800 | 0.889 | 0.842 |" in markdown
    assert "| `vendor` | 3 | 1 | 1 | 0 | 0 | 0.600 | 1.000 | 0.750 |" in markdown
    page = html.read_text()
    assert "<h2>Leaves beneath each node</h2>" in page
    section = page.split("<h2>Leaves beneath each node</h2>")[1].split("<h2>")[0]
    assert re.search(r"<td>items</td>(<td[^>]*>[^<]*</td>){5}", section)
    assert 'data-sort="0.75">0.750</td>' in section  # vendor's F1
