"""Every terminal table at 80 columns, piped (issue 16, item 5): no figure, header or verdict is cut.

Standard output is captured here, so Rich sees no terminal and uses $COLUMNS, as in a CI log.
Each test reads the figures from the JSON report and finds every one of them whole, in its row.
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from stickler_cli.cli.app import main
from stickler_cli.reporters.fit import Column, ReportTable, fit

CLAIM_SCHEMA = {
    "type": "object",
    "x-aws-stickler-model-name": "MedicalClaim",
    "properties": {
        "claim_id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator", "x-aws-stickler-weight": 3},
        "patient_name": {
            "type": "string",
            "x-aws-stickler-comparator": "LevenshteinComparator",
            "x-aws-stickler-threshold": 0.8333,
        },
        "total_charge_amount": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
        "provider": {
            "type": "object",
            "properties": {
                "billing_address": {
                    "type": "object",
                    "properties": {
                        "postal_code_with_extension": {
                            "type": "string",
                            "x-aws-stickler-comparator": "ExactComparator",
                        },
                    },
                },
                "national_provider_identifier": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
            },
        },
        "service_lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "procedure_code": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "charge": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
                },
            },
        },
    },
}


def _claims(n: int = 1200) -> list[dict]:
    """Ground truth (enough documents for counts of four digits)."""
    rng = random.Random(0)
    return [
        {
            "claim_id": f"C-{k:05d}",
            "patient_name": rng.choice(["Ada Lovelace", "Alan Turing", "Grace Hopper"]),
            "total_charge_amount": round(rng.uniform(10, 9000), 2),
            "provider": {
                "billing_address": {"postal_code_with_extension": f"{rng.randint(10000, 99999)}-0001"},
                "national_provider_identifier": str(rng.randint(10**9, 10**10 - 1)),
            },
            "service_lines": [
                {"procedure_code": f"9{rng.randint(1000, 9999)}", "charge": rng.randint(1, 900)}
                for _ in range(rng.randint(1, 4))
            ],
        }
        for k in range(n)
    ]


def _predict(gt: list[dict], seed: int, id_errors: float) -> list[dict]:
    """Predictions with errors at known rates, and confidences on two fields."""
    rng = random.Random(seed)
    pred = []
    for doc in gt:
        guess = json.loads(json.dumps(doc))
        if rng.random() < id_errors:
            guess["claim_id"] = "C-?"
        if rng.random() < 0.3:
            guess["patient_name"] = guess["patient_name"][:-3]
        if rng.random() < 0.1:
            del guess["total_charge_amount"]
        if rng.random() < 0.25:
            guess["provider"]["billing_address"]["postal_code_with_extension"] = "00000"
        for line in guess["service_lines"]:
            if rng.random() < 0.2:
                line["charge"] += 1
        guess["claim_id"] = {"_value": guess["claim_id"], "_confidence": round(rng.random(), 3)}
        guess["patient_name"] = {"_value": guess["patient_name"], "_confidence": round(rng.random(), 3)}
        pred.append(guess)
    return pred


@pytest.fixture(scope="module")
def claims(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("claims")
    gt = _claims()
    pred_a, pred_b = _predict(gt, 1, id_errors=0.05), _predict(gt, 2, id_errors=0.2)  # B is worse on claim_id
    files = {"schema": root / "claim.json", "gt": root / "gt.jsonl", "a": root / "a.jsonl", "b": root / "b.jsonl"}
    files["schema"].write_text(json.dumps(CLAIM_SCHEMA))
    for name, rows in (("gt", gt), ("a", pred_a), ("b", pred_b)):
        files[name].write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {k: str(v) for k, v in files.items()}


def _run(args: list[str], capsys, monkeypatch, columns: int = 80) -> tuple[int, str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    code = main(args)
    out = capsys.readouterr().out
    return code, out


def _fits(out: str, columns: int = 80) -> None:
    widest = max(len(line) for line in out.splitlines())
    assert widest <= columns, f"a line of {widest} characters at {columns} columns"


def _row(out: str, *cells: str) -> None:
    """The cells appear whole, in this order, on one line, separated only by spaces."""
    pattern = r"(?<![\w.\[-])" + r" +".join(re.escape(c) for c in cells) + r"(?![\w.\]])"
    assert re.search(pattern, out), f"no row {' '.join(cells)!r} in:\n{out}"


def _f(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _eval_report(claims, tmp_path, capsys, monkeypatch, columns, *extra):
    report_path = tmp_path / f"report-{columns}.json"
    code, out = _run(
        ["eval", claims["schema"], claims["gt"], claims["b"], "-o", str(report_path), *extra],
        capsys,
        monkeypatch,
        columns,
    )
    return code, out, json.loads(report_path.read_text())


EVAL_EXTRA = [
    "--ci",
    "0.95",
    "--bootstrap",
    "200",
    "--show-errors",
    "2",
    "--fail-under",
    "provider.billing_address.postal_code_with_extension.cm_precision=0.9",
    "--fail-under",
    "weighted_overall_score=0.5",
]


def test_eval_tables_at_80_columns_piped(claims, tmp_path, capsys, monkeypatch):
    code, out, report = _eval_report(claims, tmp_path, capsys, monkeypatch, 80, *EVAL_EXTRA)
    assert code == 1  # the postal-code gate fails
    _fits(out)
    tables, worst = out.split("worst document(s)")
    assert "…" not in tables + worst.split("Quality gates")[1]  # values of over 80 characters end with one
    m = report["metrics"]
    ci = m["weighted_overall_score_ci"]
    _row(out, "Weighted", "score", _f(m["weighted_overall_score"]), f"[{ci['low']:.3f},", f"{ci['high']:.3f}]")
    _row(out, "TP", str(m["tp"]), "FA", str(m["fa"]), "FD", str(m["fd"]), "FN", str(m["fn"]), "TN", str(m["tn"]))
    r = report["inputs"]["records"]  # each count beside its word (one row of them split "0" from "unpaired")
    _row(out, "Records", str(r["gt_lines"]), "ground", "truth,", str(r["pred_lines"]), "predictions")
    _row(
        out,
        str(r["invalid_predictions"]),
        "invalid,",
        str(r["missing_predictions"]),
        "missing,",
        str(r["unpaired_predictions"]),
        "unpaired",
    )
    # the field table: the counts, then the rates with their intervals (a second table at 80 columns)
    assert "Fields (worst F1 in bold red) (continued)" in out
    for path, f in report["field_metrics"].items():
        _row(out, f"{f['weight']:g}", _f(f["mean_score"]), *(str(f[k]) for k in ("tp", "fa", "fd", "fn", "tn")))
        f1 = f["cm_f1_ci"]
        _row(
            out,
            _f(f["cm_precision"]),
            _f(f["cm_recall"]),
            _f(f["cm_f1"]),
            f"[{f1['low']:.3f},",
            f"{f1['high']:.3f}]",
            str(f["schema_violations"]),
        )
        assert path.rsplit(".", 1)[-1] in out
    for header in ("W", "Score", "TP", "FA", "FD", "FN", "TN", "Prec", "Rec", "F1", "Viol"):
        assert re.search(rf"(?<!\S){header}(?!\S)", out)
    # calibration: every field's figures whole, and the review budgets
    confidence = report["confidence_metrics"]
    for block in [confidence["overall"], *confidence["fields"].values()]:
        _row(out, *(_f(block[n]["value"]) for n in ("auroc", "brier_score", "ece", "error_capture_at_budget")))
    for key, b in confidence["overall"]["error_capture_at_budget"]["budgets"].items():
        _row(
            out,
            f"{float(key):.0%}",
            str(b["fields_reviewed"]),
            f"{b['pct_errors_caught']:.0%}",
            f"({b['errors_found']})",
            f"{b['gain']:.1f}×",
        )
    # quality gates: threshold, actual and verdict
    for gate in report["gates"]:
        _row(out, f"{gate['threshold']:g}", _f(gate["actual"]), gate["status"])
    # the worst documents: every failing comparison's score, the verdict column whole
    for doc in report["worst_documents"][:2]:
        assert f"score {doc['score']:.3f}" in " ".join(out.split())
        for c in doc["comparisons"]:
            if c["type"] in ("FD", "FA", "FN"):
                assert re.search(rf"(?<!\S){c['type']}(?!\S)", out)
                # the prediction's confidence, a column of its own, whole beside the score (issue 16, item 11)
                _row(out, "–" if c["confidence"] is None else f"{c['confidence']:.3f}", f"{c['score']:.3f}")
    assert re.search(r"Prediction +Conf +Score", worst)


def test_a_wide_terminal_gets_one_field_table(claims, tmp_path, capsys, monkeypatch):
    _, out, report = _eval_report(claims, tmp_path, capsys, monkeypatch, 160, *EVAL_EXTRA)
    _fits(out, 160)
    assert "(continued)" not in out
    f = report["field_metrics"]["claim_id"]
    f1 = f["cm_f1_ci"]
    _row(
        out,
        "claim_id",
        "3",
        _f(f["mean_score"]),
        *(str(f[k]) for k in ("tp", "fa", "fd", "fn", "tn")),
        _f(f["cm_precision"]),
        _f(f["cm_recall"]),
        _f(f["cm_f1"]),
        f"[{f1['low']:.3f},",
        f"{f1['high']:.3f}]",
    )


def test_merge_tables_at_80_columns(claims, tmp_path, capsys, monkeypatch):
    state = tmp_path / "b.state"
    assert (
        main(
            [
                "eval",
                claims["schema"],
                claims["gt"],
                claims["b"],
                "-f",
                "json",
                "--ci",
                "0.95",
                "--bootstrap",
                "50",
                "--save-state",
                str(state),
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    code, out = _run(["merge", str(state), "--ci", "0.95", "--bootstrap", "50"], capsys, monkeypatch)
    assert code == 0
    _fits(out)
    assert "…" not in out
    for f in report["field_metrics"].values():
        _row(out, *(str(f[k]) for k in ("tp", "fa", "fd", "fn", "tn")))
        _row(out, _f(f["cm_precision"]), _f(f["cm_recall"]), _f(f["cm_f1"]))


def test_diff_table_at_80_columns_keeps_every_verdict(claims, tmp_path, capsys, monkeypatch):
    """Piped, the verdict column showed `w` and `n` instead of `worse` and `noise`."""
    target = tmp_path / "diff.json"
    code, out = _run(
        ["diff", claims["schema"], claims["gt"], claims["a"], claims["b"], "--bootstrap", "200", "-o", str(target)],
        capsys,
        monkeypatch,
    )
    assert code == 0
    _fits(out)
    assert "…" not in out
    report = json.loads(target.read_text())
    labels = {"improved": "better", "regressed": "worse", "no significant change": "noise", "no data": "no data"}
    shown = [r for r in report["comparisons"] if r["watched"] or r["verdict"] in ("improved", "regressed")]
    assert any(len(r["path"] or "") > 30 for r in shown)  # long paths wrap; the figures stay whole
    for r in shown:
        ci = r["ci"]
        difference = "–" if r["difference"] is None else f"{r['difference']:+.3f}"
        interval = ["–"] if ci is None else [f"[{ci['low']:+.3f},", f"{ci['high']:+.3f}]"]
        _row(out, _f(r["a"]), _f(r["b"]), difference, *interval, _f(r["p_value"]), labels[r["verdict"]])
    assert {labels[r["verdict"]] for r in shown} >= {"worse", "noise"}
    verdicts = re.findall(r"(?<!\S)(better|worse|noise|no data)\s*$", out, re.MULTILINE)
    assert len(verdicts) == len(shown)


def test_schema_check_at_80_columns(claims, capsys, monkeypatch):
    code, out = _run(["schema", "check", claims["schema"]], capsys, monkeypatch)
    assert code == 0
    _fits(out)
    assert "…" not in out
    for header in ("Field", "Kind", "Comparator", "Threshold", "Weight", "Clip", "Pairing"):
        assert re.search(rf"(?<!\S){header}(?!\S)", out), header
    _row(out, "patient_name", "primitive", "Levenshtein", "0.8333", "1", "no", "-")
    _row(out, "service_lines", "object_list", "fields", "0.7", "1", "no", "hungarian")
    assert re.search(
        r"\n     postal_code_ +primitive +Exact +0.5 +1 +no +- *\n +with_ *\n +extension *\n", out
    )  # wrapped, indented


@pytest.mark.parametrize("columns", [80, 120])
def test_compare_trace_keeps_figures_whole(claims, capsys, monkeypatch, columns):
    gt = json.dumps({"claim_id": "C-1", "patient_name": "Grace Hopper", "total_charge_amount": 10})
    pred = json.dumps({"claim_id": "C-1", "patient_name": "Grace Hoppe", "total_charge_amount": 10})
    code, out = _run(["compare", claims["schema"], gt, pred], capsys, monkeypatch, columns)
    assert code == 0
    _fits(out, columns)
    _row(out, "0.917", "0.917", *(["0.8333"] if columns >= 100 else []))  # the threshold was cut to 0.833 at width 5


@pytest.mark.parametrize("columns", [80, 120])
def test_compare_of_a_jsonl_pair_keeps_every_figure_and_confidence_whole(claims, capsys, monkeypatch, columns):
    """A record with confidences, chosen by --line from the two files: every row's confidence,
    similarity and score whole, on the row of its field (issue 16, items 10 and 11)."""
    code, out = _run(
        ["compare", claims["schema"], claims["gt"], claims["b"], "--line", "7", "-f", "json"], capsys, monkeypatch
    )
    assert code == 0
    rows = json.loads(out)["comparisons"]
    assert any(r["confidence"] is not None for r in rows)
    code, out = _run(
        ["compare", claims["schema"], claims["gt"], claims["b"], "--line", "7"], capsys, monkeypatch, columns
    )
    assert code == 0
    _fits(out, columns)
    assert "…" not in out and "_confidence" not in out
    assert re.search(r"Prediction +Conf +Sim +Score", out)
    for r in rows:
        figures = [
            "–" if r["confidence"] is None else f"{r['confidence']:.3f}",
            f"{r['similarity']:.3f}",
            f"{r['score']:.3f}",
        ]
        _row(out, *figures, *([f"{r['threshold']:g}"] if columns >= 100 else []))


def test_fit_never_cuts_a_cell_at_any_width():
    """A table of long names and wide figures, laid out from 26 columns (the header Figure, the widest
    figure and 4) to 200: every line fits and every figure and header is on some line, whole."""
    columns = [Column(h, group=g) for h, g in (("Alpha", 0), ("Beta", 0), ("interval", 1), ("p", 1), ("", 2))]
    rows = [
        [
            Text(f"section_{k}.subsection_{k}.a_rather_long_leaf_name_{k}"),
            f"{k * 1234.5:.1f}",
            f"{k}",
            f"[{-k / 7:+.3f}, {k / 9:+.3f}]",
            "0.001",
            "worse" if k % 2 else "no data",
        ]
        for k in range(6)
    ]
    for width in range(26, 201, 3):
        console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        for table in fit("Title", "Figure", columns, rows, width):
            console.print(table)
        text = console.export_text()
        _fits(text, width)
        assert "…" not in text
        for row in rows:
            for cell in row[1:]:
                assert cell in text, (width, cell)
        for column in columns[:-1]:
            assert column.header in text


@pytest.mark.parametrize("columns", [80, 120])
def test_short_field_names_keep_the_field_header_whole(tmp_path, capsys, monkeypatch, columns):
    """A one-letter path once set the column to one character, and "Field" stood vertically."""
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"x": {"type": "string"}}}))
    (tmp_path / "g.jsonl").write_text('{"x": "a"}\n')
    (tmp_path / "p.jsonl").write_text('{"x": "z"}\n')
    args = [str(schema), str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl")]
    for command in (["eval", *args, "--show-errors", "1"], ["compare", *args, "--line", "1"]):
        _, out = _run(command, capsys, monkeypatch, columns)
        _fits(out, columns)
        assert re.search(r"^ Field +Ground truth +Prediction ", out, re.M), out
        assert re.search(r"^ x +FD +a +z +(0\.000 +)?0\.000\b", out, re.M), out


# -- report tables laid out without Rich's per-cell rendering (fit.ReportTable) -------------------

ROOT = Path(__file__).resolve().parents[2]
OWN_LAYOUT = ReportTable._plain_lines
FIXTURE_RUNS = [
    [
        "eval",
        "schemas/invoice.json",
        "fixtures/invoice/gt.jsonl",
        "fixtures/invoice/pred.jsonl",
        "--show-errors",
        "3",
        "--fail-under",
        "weighted_overall_score=0.9",
    ],
    ["eval", "schemas/shipment.json", "fixtures/shipment/gt.jsonl", "fixtures/shipment/pred.jsonl"],
    ["eval", "schemas/boxes.json", "fixtures/boxes/gt.jsonl", "fixtures/boxes/pred.jsonl"],
    ["eval", "schemas/cosmetic.json", "fixtures/cosmetic/gt.jsonl", "fixtures/cosmetic/pred.jsonl", "--id-field", "id"],
    [
        "eval",
        "schemas/employee.json",
        "fixtures/employee/gt.jsonl",
        "fixtures/employee/pred.jsonl",
        "--slice-by",
        "active",
    ],
    ["compare", "schemas/quickstart.json", "fixtures/quickstart/gt.json", "fixtures/quickstart/pred.json"],
    ["split", "fixtures/packets/gt.jsonl", "fixtures/packets/pred.jsonl"],
]


def _counting(taken: list[bool]):
    """ReportTable's own layout, noting in ``taken`` whether each table took it."""

    def counting(self, *args):
        lines = OWN_LAYOUT(self, *args)
        taken.append(lines is not None)
        return lines

    return counting


def _both_ways(args: list[str], capsys, monkeypatch, columns: int) -> tuple[str, str, int]:
    """(stdout with ReportTable's own layout, stdout with Rich's, how many tables took the own layout)."""
    taken: list[bool] = []
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(ReportTable, "_plain_lines", _counting(taken))
    _, fast = _run(args, capsys, monkeypatch, columns)
    monkeypatch.setattr(ReportTable, "_plain_lines", lambda self, *args: None)
    _, rich = _run(args, capsys, monkeypatch, columns)
    return fast, rich, sum(taken)


@pytest.mark.parametrize("columns", [8, 23, 47, 80, 101, 160])
@pytest.mark.parametrize("args", FIXTURE_RUNS, ids=lambda a: f"{a[0]} {a[1].split('/')[-1]}")
def test_report_tables_are_written_as_rich_writes_them(args, columns, capsys, monkeypatch):
    """Every table of every fixture's report, piped, at widths from 8 columns to 160: the same bytes whether
    ReportTable lays the rows out or Rich does; at 80 columns and more, most tables take the own layout."""
    fast, rich, taken = _both_ways(args, capsys, monkeypatch, columns)
    assert fast == rich and len(fast.splitlines()) > 5
    if columns >= 80 and args[0] == "eval":
        assert taken >= 2


def test_report_tables_of_the_claims_run_are_written_as_rich_writes_them(claims, capsys, monkeypatch):
    """Gates, worst documents, intervals, calibration, continued tables."""
    counts = []
    for columns in (60, 80, 140):
        fast, rich, taken = _both_ways(
            ["eval", claims["schema"], claims["gt"], claims["b"], *EVAL_EXTRA], capsys, monkeypatch, columns
        )
        assert fast == rich
        counts.append(taken)
    assert counts[-1] >= 4, counts  # at 140 columns no table wraps a cell


def _split_selector() -> Text:
    """A variation selector split from its base by a style: Rich measures the pieces apart."""
    text = Text("❤\ufe0f-(")
    text.stylize("italic", 0, 1)
    return text


HOSTILE_CELLS = [
    "[bold]markup[/bold]",
    ":thumbs_up: emoji",
    "名前の欄",
    "tab\there",
    "bell\x07",
    Text("wide 名前"),
    Text("x", justify="center"),
    "a\nb",
    "",
    Text(""),
    "plain",
    Text("styled", style="red"),
    "trailing  ",
    Text("ab", end="\n\n"),
    _split_selector(),
    "1\ufe0f",
]


@pytest.mark.parametrize("width", [6, 12, 30, 60])
def test_hostile_cells_are_written_as_rich_writes_them(width, monkeypatch):
    """Markup and emoji codes in strings (Rich reads them), wide characters, control characters, a Text
    justified on its own, line breaks, empty cells; each justification, with and without a box, an edge
    padding, an expanded table, no header: the own layout agrees with Rich's, or leaves the table to it."""
    from rich import box

    def tables():
        for justify in ("left", "right", "center"):
            for cell in HOSTILE_CELLS:
                for options in (
                    {"box": box.SIMPLE_HEAD, "pad_edge": False, "padding": (0, 1, 0, 0)},
                    {"box": None, "padding": (0, 2)},
                    {"box": box.ROUNDED, "expand": True},
                    {"box": None, "show_header": False, "padding": (0, 1)},
                ):
                    table = ReportTable(title="T", **options)
                    table.add_column("Key", justify=justify)
                    table.add_column("n", justify="right", width=4)
                    table.add_row(cell, "12")
                    table.add_row("other", Text("3"))
                    yield table

    def written(plain_lines):
        monkeypatch.setattr(ReportTable, "_plain_lines", plain_lines)
        console = Console(width=width, file=io.StringIO())
        for table in tables():
            console.print(table)
        return console.file.getvalue()

    taken: list[bool] = []
    assert written(_counting(taken)) == written(lambda self, *args: None)
    assert sum(taken) < len(taken)  # some are left to Rich
    assert sum(taken) > 0 or width < 30  # and where there is room, some take the own layout


def test_on_a_terminal_rich_lays_the_tables_out(capsys, monkeypatch):
    """Colour: the own layout is not used (styles are Rich's to write)."""
    console = Console(width=80, force_terminal=True, color_system="truecolor", file=open("/dev/null", "w"))  # noqa: SIM115
    table = fit("Fields", "Field", [Column("F1")], [[Text("a", style="bold red"), "0.500"]], 80)[0]
    assert isinstance(table, ReportTable)
    assert table._plain_lines(console, console.options, [5, 5]) is None
    recorded = Console(width=80, file=io.StringIO(), record=True)  # its export keeps styles: Rich's to record
    assert table._plain_lines(recorded, recorded.options, [6, 5]) is None
    plain = Console(width=80, file=open("/dev/null", "w"))  # noqa: SIM115
    # widths with padding: Field 5 + 1, F1 5 (the last column has no edge padding); edges and the rule
    assert table._plain_lines(plain, plain.options, [6, 5]) == [
        " " * 14,
        " Field     F1 ",
        " " + "─" * 12 + " ",
        " a      0.500 ",
        " " * 14,
    ]
