"""`stickler agree`: the worked example of docs/agreement.md, three annotators, JSON and Markdown, gates and
bad input (issue 42, item 4)."""

import json
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
        ({"bob.jsonl": '{"id": "r9"}\n'}, ["--id-field", "id"], "no record with id 'r1'"),
        ({"bob.jsonl": '{"x": 1}\n'}, ["--id-field", "id"], "bob.jsonl:1: the record has no 'id'"),
        ({}, ["--fail-under", "category.f1=0.5"], "expected FIELD.METRIC=VALUE"),
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
