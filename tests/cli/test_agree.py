"""`stickler agree`: the worked example of docs/agreement.md, three annotators, JSON and Markdown, gates and
bad input (issue 42, item 4)."""

import json
import os
import subprocess
import sys
import re
from pathlib import Path

import pytest

from stickler_cli.cli.app import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "agreement.md"


def _example(tmp_path):
    """The files of the page's example, written as the page shows them, and the output it shows."""
    text = DOC.read_text()
    for name, body in re.findall(r"`([a-z]+\.jsonl?)`:\n\n```json\n(.*?)```", text, re.S):
        (tmp_path / name).write_text(body)
    shown = re.search(
        r"```console\n\$ stickler agree schema.json alice.jsonl bob.jsonl --id-field id\n(.*?)```", text, re.S
    )
    return shown.group(1)


def _run(tmp_path, monkeypatch, capsys, *args):
    monkeypatch.chdir(tmp_path)
    code = main(["agree", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_pages_example_prints_what_the_page_shows(tmp_path, monkeypatch, capsys):
    shown = _example(tmp_path)
    code, out, err = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "bob.jsonl", "--id-field", "id")
    assert (code, err) == (0, "")
    assert out == shown
    assert "0.800                0.688" in out  # kappa (0.8 - 9/25) / (1 - 9/25), worked on the page


def test_json_figures_intervals_and_disagreements(tmp_path, monkeypatch, capsys):
    _example(tmp_path)
    code, out, _ = _run(
        tmp_path,
        monkeypatch,
        capsys,
        "schema.json",
        "alice.jsonl",
        "bob.jsonl",
        "-f",
        "json",
        "--ci",
        "0.9",
        "--seed",
        "2",
    )
    report = json.loads(out)
    category, vendor = report["fields"]
    assert code == 0 and report["documents"] == 5
    assert category["kappa"] == pytest.approx(0.44 / 0.64)
    # alpha, two annotators, 10 values; each unit's two ordered pairs weigh 1/(2-1) = 1. Units r1 ff, r2 tf,
    # r3 oo, r4 ff, r5 tt: o_ff 4, o_tt 2, o_oo 2, o_tf = o_ft = 1; n_f 5, n_t 3, n_o 2, n 10.
    # alpha = 1 - (n-1) * off-diagonal / (n^2 - sum n_c^2) = 1 - 9 * 2 / (100 - 25 - 9 - 4) = 1 - 18/62.
    assert category["alpha"] == pytest.approx(1 - 18 / 62)
    assert (category["agreement"], vendor["agreement"], vendor["comparisons"]) == (0.8, 0.8, 10)
    assert "kappa" not in vendor and "alpha" not in vendor
    low, high = category["ci"]["agreement"]
    assert low <= 0.8 <= high and 0 <= low < high <= 1
    assert report["disagreements"] == [
        {"document": "r2", "field": "category", "values": ["travel", "food"]},
        {"document": "r3", "field": "vendor", "values": ["Initech", "Initrode"]},
    ]


def test_three_annotators_by_line_give_alpha_and_markdown(tmp_path, monkeypatch, capsys):
    """By line; alpha of d1 f f f, d2 f t f, d3 o o t, d4 t t t is 23/45 (worked in tests/report/test_agreement.py)."""
    (tmp_path / "s.json").write_text(
        json.dumps(
            {"type": "object", "properties": {"c": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}}}
        )
    )
    rows = [("f", "f", "f"), ("f", "t", "f"), ("o", "o", "t"), ("t", "t", "t")]
    for k in range(3):
        (tmp_path / f"a{k}.jsonl").write_text("".join(json.dumps({"c": row[k]}) + "\n" for row in rows))
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "s.json", "a0.jsonl", "a1.jsonl", "a2.jsonl", "-f", "markdown")
    assert code == 0
    assert "| field | comparisons | agreement | alpha |" in out
    assert f"| `c` | 24 | {16 / 24:.3f} | {23 / 45:.3f} |" in out
    assert '- `a0.jsonl:2`, `c`\n    - `a0.jsonl`: `"f"`\n    - `a1.jsonl`: `"t"`' in out
    code, out, _ = _run(
        tmp_path, monkeypatch, capsys, "s.json", "a0.jsonl", "a1.jsonl", "a2.jsonl", "--fail-under", "c.alpha=0.6"
    )
    assert code == 1 and "FAILED   c.alpha >= 0.6 (actual 0.511)" in out


def test_disagreements_are_bounded_and_counted(tmp_path, monkeypatch, capsys):
    _example(tmp_path)
    code, out, _ = _run(
        tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "bob.jsonl", "--disagreements", "1"
    )
    assert code == 0 and "r2  category" in out and "r3  vendor" not in out
    assert "… and 1 more (--disagreements N lists more)" in out


def test_gates_pass_fail_and_lack_of_data(tmp_path, monkeypatch, capsys):
    _example(tmp_path)
    files = ("schema.json", "alice.jsonl", "bob.jsonl")
    assert _run(tmp_path, monkeypatch, capsys, *files, "--fail-under", "*.agreement=0.8")[0] == 0
    code, out, _ = _run(tmp_path, monkeypatch, capsys, *files, "--fail-under", "category.kappa=0.7")
    assert code == 1 and "FAILED   category.kappa >= 0.7 (actual 0.688)" in out
    # vendor is not categorical: it never has a kappa. A glob skips it; naming it is refused before any scoring.
    code, out, _ = _run(tmp_path, monkeypatch, capsys, *files, "--fail-under", "*.kappa=0.6")
    assert code == 0 and "PASSED   category.kappa >= 0.6 (actual 0.688)" in out and "vendor.kappa" not in out
    code, out, err = _run(tmp_path, monkeypatch, capsys, *files, "--fail-under", "vendor.kappa=0.5")
    assert code == 2 and out == ""
    assert "'vendor.kappa': vendor has no kappa: kappa and alpha are measured on categorical fields only" in err
    code, _, err = _run(
        tmp_path, monkeypatch, capsys, *files, "--fail-under", "category.alpha=0.5", "--fail-under", "*.kappa=0"
    )
    assert code == 0


@pytest.mark.parametrize(
    "change, args, message",
    [
        ({"bob.jsonl": '{"id": "r1"}\nnot json\n'}, [], "bob.jsonl:2: "),
        ({"bob.jsonl": '{"id": "r1"}\n'}, [], "alice.jsonl:2: a record, and none on line 2 of bob.jsonl"),
        ({"bob.jsonl": "{}\n" * 5 + "not json\n"}, [], "bob.jsonl:6: a record, and none on line 6 of alice.jsonl"),
        ({"bob.jsonl": "not json\n"}, ["--id-field", "id"], "bob.jsonl:1: not valid JSON"),
        (
            {"bob.jsonl": '{"id": "r9"}\n' + "".join(f'{{"id": "r{k}"}}\n' for k in range(1, 6))},
            ["--id-field", "id"],
            "bob.jsonl:1: a record with id 'r9'; alice.jsonl has none",
        ),
        ({"bob.jsonl": '{"id": "r9"}\n'}, ["--id-field", "id"], "no record with id 'r1'"),
        ({"bob.jsonl": '{"x": 1}\n'}, ["--id-field", "id"], "bob.jsonl:1: the record has no 'id'"),
        ({}, ["--fail-under", "category.f1=0.5"], "unknown metric 'f1'"),
        ({}, ["--fail-under", "kappa=0.5"], "expected FIELD.METRIC=VALUE, e.g. vendor.kappa=0.8"),
        ({}, ["--fail-under", "nothing.kappa=0.5"], "matches no field"),
        ({}, ["-f", "html"], "--format 'html'"),
        ({"bob.jsonl": "\n"}, [], "bob.jsonl: holds no record"),
        ({}, ["--ci", "0.9", "--bootstrap", "200000"], "more resamples than the limit of 100,000"),
        # alice.jsonl, the first annotator's file, is read as eval reads the ground truth
        ({}, ["--limit", "line-bytes=20"], "alice.jsonl:1: ground truth line of 50 bytes, over the 20-byte limit"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, change, args, message):
    _example(tmp_path)
    for name, text in change.items():
        (tmp_path / name).write_text(text)
    code, _, err = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "bob.jsonl", *args)
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_one_annotator_is_a_usage_error(tmp_path, monkeypatch, capsys):
    _example(tmp_path)
    code, _, err = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl")
    assert code == 2 and "at least two" in err


def test_a_long_value_is_cut_as_eval_cuts_it(tmp_path, monkeypatch, capsys):
    """313 characters, 315 quoted: the table and Markdown show the first 300 and count the 15 left out; the JSON
    report keeps values up to 10,000 characters whole, and cuts a longer one the same way (a string)."""
    _example(tmp_path)
    long = "Initrode " + "x" * 300 + " END"
    (tmp_path / "bob.jsonl").write_text((tmp_path / "bob.jsonl").read_text().replace('"Initrode"', json.dumps(long)))
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "bob.jsonl")
    assert code == 0 and f"  bob.jsonl: {json.dumps(long)[:300]}… (+15 characters)\n" in out
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "bob.jsonl", "-f", "markdown")
    assert f"    - `bob.jsonl`: `{json.dumps(long)[:300]}… (+15 characters)`\n" in out
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "bob.jsonl", "-f", "json")
    assert long in [d["values"][1] for d in json.loads(out)["disagreements"]]
    assert _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "bob.jsonl", "--html", "a.html")[0] == 0
    assert f"<code>&quot;Initrode {'x' * 290}… (+15 characters)</code>" in (tmp_path / "a.html").read_text()
    huge = "y" * 25_000
    (tmp_path / "bob.jsonl").write_text(
        (tmp_path / "bob.jsonl").read_text().replace(json.dumps(long), json.dumps(huge))
    )
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "bob.jsonl", "-f", "json")
    assert "y" * 10_000 + "… (+15,000 characters)" in [d["values"][1] for d in json.loads(out)["disagreements"]]
    assert len(out) < 12_000


def test_a_long_field_path_takes_a_line_of_its_own(tmp_path, monkeypatch, capsys):
    path = "a_rather_long_object_name.and_a_long_field_name"
    (tmp_path / "s.json").write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "a_rather_long_object_name": {
                        "type": "object",
                        "properties": {"and_a_long_field_name": {"type": "string"}},
                    }
                },
            }
        )
    )
    for name, value in (("a.jsonl", "x"), ("b.jsonl", "y")):
        (tmp_path / name).write_text(json.dumps({"a_rather_long_object_name": {"and_a_long_field_name": value}}) + "\n")
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "s.json", "a.jsonl", "b.jsonl")
    assert code == 0 and f"\n{path}\n{'':24}           2  0.000\n" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def _lines(tmp_path, name):
    return (tmp_path / name).read_text().splitlines(keepends=True)


def test_files_out_of_step_are_refused_as_eval_refuses_them(tmp_path, monkeypatch, capsys):
    """Paired by line, the ids are checked as eval checks them: bob's file reversed (r5 r4 r3 r2 r1) disagrees on
    4 of 5 lines, more than the 3 tolerated: exit 2. Two lines swapped (r2 r1 r3 r4 r5) disagree on 2: scored,
    and the 2 pairs are record problems, counted and shown."""
    _example(tmp_path)
    bob = _lines(tmp_path, "bob.jsonl")
    (tmp_path / "rev.jsonl").write_text("".join(reversed(bob)))
    code, out, err = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "rev.jsonl")
    assert (code, out) == (2, "")
    assert "rev.jsonl:1: ground truth id 'r1', prediction id 'r5' (not the same document): the two files look" in err
    assert "(more than 3 pairs disagree)" in err
    # --pair-by-line pairs them regardless: r3 agrees on both fields, the 4 others on neither, nor on r5's null
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "rev.jsonl", "--pair-by-line")
    assert code == 0 and "2 annotators, 5 documents" in out
    (tmp_path / "swap.jsonl").write_text("".join([bob[1], bob[0], *bob[2:]]))
    code, out, err = _run(tmp_path, monkeypatch, capsys, "schema.json", "alice.jsonl", "swap.jsonl", "-f", "json")
    report = json.loads(out)
    assert code == 0 and report["error_count"] == 2
    assert [(e["source"], e["line"]) for e in report["errors"]] == [("swap.jsonl", 1), ("swap.jsonl", 2)]
    assert report["errors"][1]["message"].startswith("ground truth id 'r2', prediction id 'r1' (the id of ground")
    assert err.startswith("stickler: warning: 2 record problem(s); the first: swap.jsonl:1 (r1): ground truth id")


def test_a_problem_of_the_first_file_is_said_once_however_many_files_pair_with_it(tmp_path, monkeypatch, capsys):
    """The first annotator's record holds a key twice (the reader's problem): read beside each of two other files,
    it is one problem, at its own line."""
    _example(tmp_path)
    (tmp_path / "twice.jsonl").write_text(
        "".join(
            line.replace('"category"', '"category": "x", "category"', 1) if k == 0 else line
            for k, line in enumerate((tmp_path / "alice.jsonl").read_text().splitlines(True))
        )
    )
    args = ["schema.json", "twice.jsonl", "bob.jsonl", "alice.jsonl", "--id-field", "id", "-f", "json"]
    code, out, _ = _run(tmp_path, monkeypatch, capsys, *args)
    report = json.loads(out)
    assert code == 0 and report["error_count"] == 1
    assert (report["errors"][0]["source"], report["errors"][0]["line"]) == ("twice.jsonl", 1)
    assert "'category' twice" in report["errors"][0]["message"]


def test_record_problems_are_counted_and_shown(tmp_path, monkeypatch, capsys):
    """A match key repeated in both annotators' lists: each direction (A as the ground truth, then B) names it in
    each file, 4 problems; they are counted in the table's footer, in Markdown and in JSON, the first on stderr."""
    item = {"type": "object", "properties": {k: {"type": "string"} for k in "kn"}}
    schema = {"type": "object", "properties": {"a": {"type": "array", "x-aws-stickler-match-key": "k", "items": item}}}
    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "a.jsonl").write_text(json.dumps({"a": [{"k": "A", "n": "x"}, {"k": "A", "n": "y"}]}) + "\n")
    (tmp_path / "b.jsonl").write_text(json.dumps({"a": [{"k": "A", "n": "y"}, {"k": "A", "n": "x"}]}) + "\n")
    code, out, err = _run(tmp_path, monkeypatch, capsys, "s.json", "a.jsonl", "b.jsonl")
    problem = 'a: key k="A" appears 2 times in the ground truth (items 0, 1): paired by similarity'
    assert code == 0 and "\n4 record problem(s):\n" in out
    assert f"  a.jsonl as the ground truth, b.jsonl as the prediction (a.jsonl:1): {problem}\n" in out
    assert f"  b.jsonl as the ground truth, a.jsonl as the prediction (a.jsonl:1): {problem}\n" in out
    assert err == (
        "stickler: warning: 4 record problem(s); the first: a.jsonl as the ground truth, b.jsonl as the prediction "
        f"(a.jsonl:1): {problem}\n"
    )
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "s.json", "a.jsonl", "b.jsonl", "-f", "markdown")
    assert "\n4 record problem(s):\n- `a.jsonl as the ground truth, b.jsonl as the prediction (a.jsonl:1)`" in out
    code, out, _ = _run(tmp_path, monkeypatch, capsys, "s.json", "a.jsonl", "b.jsonl", "-f", "json")
    report = json.loads(out)
    assert report["error_count"] == 4 and len(report["errors"]) == 4
    assert _run(tmp_path, monkeypatch, capsys, "s.json", "a.jsonl", "b.jsonl", "--html", "a.html")[0] == 0
    page = (tmp_path / "a.html").read_text()
    assert "<h2>Errors (4)</h2>" in page and "a.jsonl as the ground truth, b.jsonl as the prediction" in page
    assert report["errors"][0] == {
        "source": "a.jsonl as the ground truth, b.jsonl as the prediction",
        "line": None,
        "doc_id": "a.jsonl:1",
        "message": problem,
    }


def test_acceptable_values_agree_whichever_annotator_comes_first(tmp_path, monkeypatch, capsys):
    """A: food (or groceries), travel, food, travel; B: groceries, food, food, travel. Two annotations agree in
    the direction that agrees more, so d1 agrees (B's groceries is one of A's acceptable values): 3 of 4
    documents, agreement 6/8 = 0.75 in either order. B's groceries takes A's category, food: A food, travel,
    food, travel; B food, food, food, travel: po 3/4, pe 1/2 * 3/4 + 1/2 * 1/4 = 1/2, kappa (3/4 - 1/2) / (1/2)
    = 0.5. No record problem: A's _alternatives are read where A is the ground truth."""
    schema = {"type": "object", "properties": {"c": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}}}
    (tmp_path / "s.json").write_text(json.dumps(schema))
    first = [{"_value": "food", "_alternatives": ["groceries"]}, "travel", "food", "travel"]
    second = ["groceries", "food", "food", "travel"]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps({"c": c}) + "\n" for c in first))
    (tmp_path / "b.jsonl").write_text("".join(json.dumps({"c": c}) + "\n" for c in second))
    for order in (("a.jsonl", "b.jsonl"), ("b.jsonl", "a.jsonl")):
        code, out, err = _run(tmp_path, monkeypatch, capsys, "s.json", *order, "-f", "json")
        report = json.loads(out)
        (field,) = report["fields"]
        assert (code, err, report["error_count"]) == (0, "", 0)
        assert (field["comparisons"], field["agreement"], field["kappa"]) == (8, 0.75, pytest.approx(0.5))
        assert [d["document"] for d in report["disagreements"]] == [f"{order[0]}:2"]


def test_standard_input_is_one_annotator(tmp_path):
    """'-' reads one annotator's file from standard input (either one); twice is a usage error."""
    _example(tmp_path)
    root = Path(__file__).resolve().parents[2]

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "stickler_cli", "agree", "schema.json", *args, "--id-field", "id", "-f", "json"],
            input=(tmp_path / "bob.jsonl").read_bytes(),
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(root)},
            capture_output=True,
        )

    for args in (("alice.jsonl", "-"), ("-", "alice.jsonl")):
        done = run(*args)
        assert done.returncode == 0, done.stderr
        category, vendor = json.loads(done.stdout)["fields"]
        assert (category["agreement"], vendor["agreement"]) == (0.8, 0.8)  # as the page's example, worked there
    done = run("-", "-")
    assert done.returncode == 2
    assert done.stderr == b"stickler: error: standard input ('-') can be read once: give it for one annotator at most\n"
