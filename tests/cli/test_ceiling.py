"""``stickler eval --ceiling AGREE_REPORT`` and ``stickler agree -o / --html`` (issue 42, item 4).

The example is docs/agreement.md's: Alice and Bob labelled five receipts; Alice's file is the ground truth and a
model wrote model.jsonl. Worked by hand (and on the page): category, the model right on r1, r3, r4 and wrong on r2
(food for travel) and r5 (office for travel): accuracy 3/5 = 0.6, below the annotators' agreement 8/10 = 0.8 (kappa
(0.8 - 0.36) / (1 - 0.36) = 0.6875, alpha 1 - 18/62, worked in tests/cli/test_agree.py); vendor, the model matches
r1 to r4 and r5 is null on both sides (a TN): 5/5 = 1.0, above the agreement 0.8.
"""

import json
import re
from pathlib import Path

import jsonschema
import pytest

from stickler_cli.cli import light, pytest_plugin
from stickler_cli.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "agreement.md"
EVAL = ("eval", "schema.json", "alice.jsonl", "model.jsonl", "--id-field", "id", "--ceiling", "agreement.json")
AGREE = ("agree", "schema.json", "alice.jsonl", "bob.jsonl", "--id-field", "id")


def _run(tmp_path, monkeypatch, capsys, *args):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")  # piped: what a CI log shows
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def example(tmp_path, monkeypatch, capsys):
    """The page's files, and agreement.json written by `stickler agree ... -o agreement.json`."""
    for name, body in re.findall(r"`([a-z]+\.jsonl?)`:\n\n```json\n(.*?)```", DOC.read_text(), re.S):
        (tmp_path / name).write_text(body)
    assert {p.name for p in tmp_path.iterdir()} >= {"schema.json", "alice.jsonl", "bob.jsonl", "model.jsonl"}
    code, out, err = _run(tmp_path, monkeypatch, capsys, *AGREE, "-o", "agreement.json")
    assert (code, err) == (0, "") and out.endswith("\nJSON report written to agreement.json\n")
    assert "0.800                0.688" in out  # the table is still printed
    return tmp_path


def _block_after(marker):
    text = DOC.read_text()
    start = text.index(f"<!-- docs-test: {marker} -->")
    body = text.index("\n", text.index("```", start)) + 1
    return text[body : text.index("```", body)].rstrip("\n")


def _report(example, monkeypatch, capsys, *args):
    code, out, err = _run(example, monkeypatch, capsys, *EVAL, "-f", "json", *args)
    assert (code, err) == (0, "")
    return json.loads(out)


def test_the_pages_example_prints_what_the_page_shows(example, monkeypatch, capsys):
    shown = _block_after("noise-ceiling").split("\n")
    assert shown[0] == "$ " + " ".join((*AGREE, "-o", "agreement.json")).replace("agree", "stickler agree", 1)
    assert shown[1] == "$ stickler " + " ".join(EVAL) and shown[2] == "..."
    code, out, err = _run(example, monkeypatch, capsys, *EVAL)
    assert (code, err) == (0, "")
    lines = [line.rstrip() for line in out.splitlines()]
    start = lines.index("Noise ceiling")
    assert lines[start : start + len(shown) - 3] == shown[3:]
    assert max(len(line) for line in out.splitlines()) <= 80


def test_the_json_block_holds_the_hand_worked_figures(example, monkeypatch, capsys):
    report = _report(example, monkeypatch, capsys)
    jsonschema.validate(report, json.loads((ROOT / "schemas/report.schema.json").read_text()))
    block = report["ceiling"]
    category, vendor = block["fields"]
    assert category["model_accuracy"] == 3 / 5 and category["agreement"] == 8 / 10 and category["comparisons"] == 5
    assert category["kappa"] == pytest.approx((0.8 - 9 / 25) / (1 - 9 / 25), abs=1e-12)
    assert category["alpha"] == pytest.approx(1 - 18 / 62, abs=1e-12)
    assert category["above_ceiling"] is False
    assert (vendor["model_accuracy"], vendor["agreement"], vendor["kappa"], vendor["alpha"]) == (1.0, 0.8, None, None)
    assert vendor["above_ceiling"] is True
    assert block["above_ceiling"] == ["vendor"] and block["not_in_report"] == []
    assert block["same_schema"] is True and block["model_figure"] == "cm_accuracy"
    assert block["annotators"] == ["alice.jsonl", "bob.jsonl"] and block["documents"] == 5
    # the model figure is eval's own accuracy of the field
    assert [f["model_accuracy"] for f in block["fields"]] == [
        report["field_metrics"][p]["cm_accuracy"] for p in ("category", "vendor")
    ]
    # the page's JSON, numbers to 1e-12 (the page rounds kappa's last bit and says so)
    text = DOC.read_text()
    page = json.loads(re.search(r"holds the block `ceiling`:\n\n```json\n(.*?)```", text, re.S).group(1))
    assert page["fields"][0]["kappa"] == pytest.approx(category["kappa"], abs=1e-12)
    page["fields"][0]["kappa"] = category["kappa"]
    assert page == block


def test_markdown_and_html_show_the_same_table(example, monkeypatch, capsys):
    code, out, _ = _run(example, monkeypatch, capsys, *EVAL, "-f", "markdown", "--html", "report.html")
    assert code == 0
    section = out[out.index("### Noise ceiling") :]
    assert "Agree report `agreement.json`: 2 annotators, 5 documents." in section
    assert "| Field | Model | Agreement | kappa | Ceiling |" in section
    assert "| `category` | 0.600 | 0.800 | 0.688 |  |" in section
    assert "| `vendor` | 1.000 | 0.800 | – | above |" in section
    assert "- 1 field(s) above the ceiling: the ground truth may be the limit (`vendor`)" in section
    page = (example / "report.html").read_text()
    assert "<h2>Noise ceiling</h2>" in page
    assert '<tr class="failed"><td>vendor</td><td>1.000</td><td>0.800</td><td>–</td><td>above</td></tr>' in page
    assert '<tr class=""><td>category</td><td>0.600</td><td>0.800</td><td>0.688</td><td></td></tr>' in page


def test_without_ceiling_no_report_shows_it(example, monkeypatch, capsys):
    plain = [a for a in EVAL if a not in ("--ceiling", "agreement.json")]
    code, out, _ = _run(example, monkeypatch, capsys, *plain, "-f", "json")
    assert code == 0 and "ceiling" not in json.loads(out)
    for fmt in ("markdown", "table"):
        code, out, _ = _run(example, monkeypatch, capsys, *plain, "-f", fmt)
        assert code == 0 and "Noise ceiling" not in out and "above the ceiling" not in out


def test_a_field_the_report_lacks_is_a_dash_counted_and_never_above(example, monkeypatch, capsys):
    """schema2.json adds `total`: another schema file, whose fields the agree report has all match."""
    schema = json.loads((example / "schema.json").read_text())
    schema["properties"]["total"] = {"type": "number"}
    (example / "schema2.json").write_text(json.dumps(schema))
    args = ("eval", "schema2.json", *EVAL[2:])
    code, out, _ = _run(example, monkeypatch, capsys, *args, "-f", "json")
    block = json.loads(out)["ceiling"]
    total = block["fields"][2]
    assert code == 0 and block["same_schema"] is False and block["not_in_report"] == ["total"]
    # total is missing on both sides of every document: 5 TN, accuracy 1.0, yet not flagged: nothing to hold it to
    assert total == {
        "path": "total",
        "model_accuracy": 1.0,
        "comparisons": 5,
        "in_report": False,
        "agreement": None,
        "kappa": None,
        "alpha": None,
        "above_ceiling": False,
    }
    assert block["above_ceiling"] == ["vendor"]
    code, out, _ = _run(example, monkeypatch, capsys, *args)
    said = " ".join(out.split())  # the line wraps at 80 columns
    assert (
        "Agree report agreement.json: 2 annotators, 5 documents; made with another schema file whose fields match"
        in said
    )
    assert re.search(r"\n total +1\.000 +– +–\s*\n", out)
    assert "1 field(s) not in the agree report, shown as –: total" in out


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "change, args, message",
    [
        (lambda p: p.write_text("{"), [], "agreement.json: not a stickler agree report: not JSON ("),
        (lambda p: p.write_text("[]"), [], "agreement.json: not a stickler agree report (no tool.name"),
        (
            lambda p: _edit(p, lambda d: d["tool"].update(name="stickler stability")),
            [],
            "agreement.json: not a stickler agree report",
        ),
        (
            lambda p: p.write_text(p.read_text() + " " * 3000),
            ["--limit", "schema-bytes=2k"],
            "agreement.json: ",
        ),
        (
            lambda p: _edit(p, lambda d: d["fields"][0].update(agreement=1.5)),
            [],
            "agreement.json: field 'category': 'agreement' must be null or in [0, 1]",
        ),
        (
            lambda p: _edit(p, lambda d: d["fields"][1].update(kappa="high")),
            [],
            "agreement.json: field 'vendor': 'kappa' must be null or a number ≤ 1",
        ),
        (lambda p: _edit(p, lambda d: d.update(fields={})), [], "agreement.json: 'fields' must be a list"),
        (
            lambda p: _edit(p, lambda d: d.update(annotators=["alice.jsonl"])),
            [],
            "agreement.json: 'annotators' must be a list of two or more file names",
        ),
        (
            lambda p: _edit(p, lambda d: d["fields"].append(dict(d["fields"][0]))),
            [],
            "agreement.json: 'fields'[2]: field 'category' is listed twice",
        ),
        (
            lambda p: _edit(p, lambda d: d["fields"].append({**d["fields"][0], "field": "notes"})),
            [],
            "agreement.json: made with another schema: its field 'notes' is not a field of schema.json",
        ),
        (
            lambda p: _edit(p, lambda d: d["fields"][0].update(comparator="FuzzyComparator")),
            [],
            "agreement.json: made with another schema: field 'category' is compared by FuzzyComparator at 0.5 there, "
            "by ExactComparator at 0.5 in schema.json",
        ),
        (lambda p: p.unlink(), [], "agreement.json: file not found"),
    ],
)
def test_a_bad_agree_report_is_one_line_and_exit_2(example, monkeypatch, capsys, change, args, message):
    change(example / "agreement.json")
    code, out, err = _run(example, monkeypatch, capsys, *EVAL, *args)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_the_too_big_report_names_the_bound(example, monkeypatch, capsys):
    path = example / "agreement.json"
    path.write_text(path.read_text() + " " * 3000)
    code, _, err = _run(example, monkeypatch, capsys, *EVAL, "--limit", "schema-bytes=2k")
    assert code == 2 and err == (
        "stickler: error: agreement.json: holds over 2,000 bytes (the schema-bytes limit; --limit schema-bytes=N "
        "raises it)\n"
    )


def test_the_pages_error_lines_are_what_eval_says(example, monkeypatch, capsys):
    """docs/agreement.md shows two refusals: a threshold changed since the agree report, and an eval report given
    for an agree report."""
    text = DOC.read_text()
    _edit(example / "schema.json", lambda d: d["properties"]["vendor"].update({"x-aws-stickler-threshold": 0.9}))
    code, _, err = _run(
        example, monkeypatch, capsys, "eval", "schema.json", "alice.jsonl", "model.jsonl", "--ceiling", "agreement.json"
    )
    assert code == 2 and f"\n{err}```" in text
    _edit(example / "schema.json", lambda d: d["properties"]["vendor"].update({"x-aws-stickler-threshold": 0.8}))
    assert _run(example, monkeypatch, capsys, *EVAL[:-2], "-o", "report.json")[0] == 0
    code, _, err = _run(
        example, monkeypatch, capsys, "eval", "schema.json", "alice.jsonl", "model.jsonl", "--ceiling", "report.json"
    )
    assert code == 2 and f"\n{err}```" in text


def test_the_ceiling_table_fits_80_columns_piped_and_cuts_nothing(tmp_path, monkeypatch, capsys):
    """Three annotators (alpha) and a field path longer than the table leaves it: the path wraps, no figure is
    cut. Values c of d1..d4: a f f f / b f t f / c o o t / d t t t: agreement, over six ordered pairs a document,
    (6 + 2 + 2 + 6) / 24 = 2/3; the model (ground truth: the first annotator) is right on d1, d2, d4: 3/4 = 0.75,
    above the ceiling. alpha 23/45 (worked in tests/report/test_agreement.py)."""
    long = "an_object_with_a_rather_long_name.and_a_field_with_a_long_name_too"
    outer, inner = long.split(".")
    schema = {
        "type": "object",
        "properties": {
            outer: {
                "type": "object",
                "properties": {inner: {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
            }
        },
    }
    (tmp_path / "s.json").write_text(json.dumps(schema))
    rows = {"a": "ffot", "b": "ftot", "c": "fftt", "m": "ffxt"}  # per file, d1..d4
    names = {"f": "food", "t": "travel", "o": "office", "x": "other"}
    for who, labels in rows.items():
        (tmp_path / f"{who}.jsonl").write_text("".join(json.dumps({outer: {inner: names[v]}}) + "\n" for v in labels))
    code, _, _ = _run(tmp_path, monkeypatch, capsys, "agree", "s.json", "a.jsonl", "b.jsonl", "c.jsonl", "-o", "g.json")
    assert code == 0
    code, out, err = _run(tmp_path, monkeypatch, capsys, "eval", "s.json", "a.jsonl", "m.jsonl", "--ceiling", "g.json")
    assert (code, err) == (0, "")
    section = out[out.index("Noise ceiling") :]
    assert max(len(line) for line in section.splitlines()) <= 80
    assert "Agree report g.json: 3 annotators, 4 documents" in section
    assert re.search(r"Field +Model +Agreement +alpha +Ceiling", section)
    assert re.search(r" 0\.750 +0\.667 +0\.511 +above", section)  # 3/4, 16/24, 23/45
    assert "".join(re.findall(r"^ ([a-z_.]+)", section, re.M)).startswith(long.replace(" ", ""))
    report = json.loads(main_json(tmp_path, monkeypatch, capsys))
    (row,) = [r for r in report["ceiling"]["fields"] if r["path"] == long]
    assert row["model_accuracy"] == 0.75 and row["agreement"] == pytest.approx(2 / 3, abs=1e-12)
    assert row["alpha"] == pytest.approx(23 / 45, abs=1e-12) and row["kappa"] is None and row["above_ceiling"]


def main_json(tmp_path, monkeypatch, capsys):
    code, out, _ = _run(
        tmp_path, monkeypatch, capsys, "eval", "s.json", "a.jsonl", "m.jsonl", "--ceiling", "g.json", "-f", "json"
    )
    assert code == 0
    return out


def test_agree_writes_its_json_and_a_self_contained_escaped_page(example, monkeypatch, capsys):
    bob = example / "bob.jsonl"
    bob.write_text(bob.read_text().replace('"Initrode"', '"<script>alert(1)</script> & co"'))
    code, out, _ = _run(example, monkeypatch, capsys, *AGREE, "-f", "json", "-o", "a.json", "--html", "a.html")
    assert code == 0 and (example / "a.json").read_text() == out  # -o writes what -f json prints
    report = json.loads(out)
    assert report["tool"]["name"] == "stickler agree" and len(report["schema"]["digest"]) == 64
    page = (example / "a.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing loaded from anywhere
    assert "<h1>Annotators&#x27; agreement</h1>" in page or "<h1>Annotators' agreement</h1>" in page
    # the fields: agreement 0.800 both; kappa 0.688 of category; alpha too (a column: the JSON has it)
    assert re.search(r"<td>category</td>.*?0\.800.*?0\.688.*?0\.710", page)
    assert "<h2>Disagreements (2)</h2>" in page and "<li>alice.jsonl</li><li>bob.jsonl</li>" in page
    assert "<th>document</th><th>field</th><th>alice.jsonl</th><th>bob.jsonl</th>" in page
    assert "<td>r3</td><td>vendor</td><td><code>&quot;Initech&quot;</code></td>" in page


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["-o", "alice.jsonl"],
            "--output alice.jsonl: refusing to overwrite an input file with the report: it is the file of annotator 1",
        ),
        (
            ["--html", "schema.json"],
            "--html schema.json: refusing to overwrite an input file with the report: it is the schema",
        ),
        (["-o", "x.json", "--html", "x.json"], "--output and --html name the same file (x.json)"),
    ],
)
def test_agree_never_overwrites_an_input_nor_one_file_twice(example, monkeypatch, capsys, args, message):
    before = {p.name: p.read_bytes() for p in example.iterdir()}
    code, out, err = _run(example, monkeypatch, capsys, *AGREE, *args)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
    assert {p.name: p.read_bytes() for p in example.iterdir()} == before


def test_the_light_path_and_the_pytest_plugin_take_the_ceiling(example):
    read = light.parse(["eval", *EVAL[1:], "-f", "json"])
    assert read is not None and read.ceiling == "agreement.json"
    files = [str(example / n) for n in ("schema.json", "alice.jsonl", "model.jsonl")]
    options = {**pytest_plugin.OPTIONS, "id_field": "id", "ceiling": str(example / "agreement.json")}
    report, _ = pytest_plugin._evaluate(files, options, str)
    assert report["ceiling"]["above_ceiling"] == ["vendor"]
    assert [f["model_accuracy"] for f in report["ceiling"]["fields"]] == [0.6, 1.0]


def test_agree_adds_its_markdown_to_the_step_summary_as_eval_does(example, monkeypatch, capsys):
    summary = example / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, _ = _run(example, monkeypatch, capsys, *AGREE, "-f", "json")
    assert code == 0 and json.loads(out)["documents"] == 5
    text = summary.read_text()
    assert (
        text.startswith("earlier step\n**2 annotators, 5 documents**\n")
        and "| `category` | 10 | 0.800 | 0.688 |" in text
    )
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(example / "alice.jsonl"))  # never an input, as for eval
    code, _, err = _run(example, monkeypatch, capsys, *AGREE)
    assert code == 2 and "refusing to overwrite an input file" in err


def test_the_model_figure_is_the_agreements_kind_on_nested_lists(tmp_path, monkeypatch, capsys):
    """The shipment fixture (nested objects, a list of objects, fields inside its items): its ground truth and its
    predictions taken as two annotators agree on each field exactly as often as the predictions match the ground
    truth. The engine's comparators score both ways alike, so agreement (A vs B and B vs A) and accuracy (GT vs
    prediction) count the same comparisons: equal on every row, hence none above the ceiling."""
    files = [
        str(ROOT / p) for p in ("schemas/shipment.json", "fixtures/shipment/gt.jsonl", "fixtures/shipment/pred.jsonl")
    ]
    code, _, _ = _run(tmp_path, monkeypatch, capsys, "agree", *files, "-f", "json", "-o", "agree.json")
    assert code == 0
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "eval", *files, "-f", "json", "--ceiling", "agree.json")
    block = json.loads(out)["ceiling"]
    assert code == 0 and len(block["fields"]) == 12 and block["not_in_report"] == []
    assert "consignee.packages" in [r["path"] for r in block["fields"]]  # a list of objects has its row
    for row in block["fields"]:
        assert row["model_accuracy"] == pytest.approx(row["agreement"], abs=1e-12), row["path"]
    assert block["above_ceiling"] == []
