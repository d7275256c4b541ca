"""Several acceptable values through the command line (docs/ground-truth.md): the worked example
of fixtures/alternatives, the report's ``alternatives`` block in JSON, the terminal and Markdown, states and
their merge, `stickler compare`, the prediction's record problem and the reader's flag."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import orjson

from stickler_cli.cli.app import main
from stickler_cli.run.reader import carries_alternatives, goes_alone
from tests.support.chat_server import clean_env, server  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures/alternatives"
SCHEMA, GT, PRED = (FIXTURE / name for name in ("schema.json", "gt.jsonl", "pred.jsonl"))
REPORT_SCHEMA = orjson.loads((ROOT / "schemas/report.schema.json").read_bytes())

# Document 1 lists "St. Louis" and "St Louis" beside "Saint Louis"; the prediction "St Louis" is 8 / 11 = 0.727
# from "Saint Louis" (below city's threshold 0.8: an FD alone) and 1.0 from the second alternative, which decides.
# Document 2's prediction "New York" equals its _value, which decides. Document 3 lists none.
BLOCK = {
    "documents": 2,
    "values": 2,
    "decided_by_alternative": 1,
    "fields": {"city": {"values": 2, "decided_by_alternative": 1}},
}


def _json(capsys, *args) -> dict:
    assert main(["eval", *map(str, args), "-f", "json"]) == 0
    return orjson.loads(capsys.readouterr().out)


def test_the_worked_example(capsys):
    report = _json(capsys, SCHEMA, GT, PRED)
    jsonschema.validate(report, REPORT_SCHEMA)
    assert report["alternatives"] == BLOCK
    city = report["field_metrics"]["city"]
    assert (city["tp"], city["fd"], city["mean_score"]) == (3, 0, 1.0)
    assert report["metrics"]["weighted_overall_score"] == 1.0


def test_the_example_without_its_alternatives(capsys, tmp_path):
    plain = tmp_path / "gt.jsonl"
    rows = [json.loads(line) for line in GT.read_text().splitlines()]
    for row in rows:
        if isinstance(row["city"], dict):
            row["city"] = row["city"]["_value"]
    plain.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = _json(capsys, SCHEMA, plain, PRED)
    assert "alternatives" not in report
    city = report["field_metrics"]["city"]
    assert (city["tp"], city["fd"]) == (2, 1)
    assert city["mean_score"] == (1 - 3 / 11 + 1 + 1) / 3  # "saint louis" -> "st louis": 3 edits over 11


def test_terminal_and_markdown_say_it_in_one_line(capsys):
    assert main(["eval", str(SCHEMA), str(GT), str(PRED)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "Acceptable values: 2 ground-truth values in 2 documents list _alternatives; an alternative decided 1 (city 1 of 2)"
        in out
    )
    assert main(["eval", str(SCHEMA), str(GT), str(PRED), "-f", "markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        "**Acceptable values**: 2 ground-truth values in 2 documents list _alternatives; an alternative decided 1 "
        "(`city` 1 of 2)"
    ) in lines


def test_no_block_and_no_state_key_without_alternatives(capsys, tmp_path):
    invoice = [ROOT / "schemas/invoice.json", ROOT / "fixtures/invoice/gt.jsonl", ROOT / "fixtures/invoice/pred.jsonl"]
    report = _json(capsys, *invoice, "--save-state", tmp_path / "s.state")
    assert "alternatives" not in report
    assert "alternatives" not in orjson.loads((tmp_path / "s.state").read_bytes())


def test_states_merge_to_the_whole_run(capsys, tmp_path):
    """Each part counts its own documents; merged, the counts are the whole run's (no document twice)."""
    gt_lines, pred_lines = GT.read_text().splitlines(True), PRED.read_text().splitlines(True)
    states = []
    for name, part in (("a", slice(0, 1)), ("b", slice(1, 3))):
        (tmp_path / f"gt_{name}.jsonl").write_text("".join(gt_lines[part]))
        (tmp_path / f"pred_{name}.jsonl").write_text("".join(pred_lines[part]))
        state = tmp_path / f"{name}.state"
        _json(capsys, SCHEMA, tmp_path / f"gt_{name}.jsonl", tmp_path / f"pred_{name}.jsonl", "--save-state", state)
        states.append(state)
    assert orjson.loads(states[0].read_bytes())["alternatives"] == {"documents": 1, "fields": {"city": [1, 1]}}
    assert orjson.loads(states[1].read_bytes())["alternatives"] == {"documents": 1, "fields": {"city": [1, 0]}}
    assert main(["merge", *map(str, states), "-f", "json"]) == 0
    merged = orjson.loads(capsys.readouterr().out)
    assert merged["alternatives"] == BLOCK


def test_a_state_with_bad_counts_is_refused(capsys, tmp_path):
    state = tmp_path / "s.state"
    _json(capsys, SCHEMA, GT, PRED, "--save-state", state)
    saved = orjson.loads(state.read_bytes())
    saved["alternatives"]["fields"]["city"] = [1, 2]  # more decided than counted
    state.write_bytes(orjson.dumps(saved))
    assert main(["merge", str(state), "-f", "json"]) == 2
    assert "/alternatives/fields/city/1: must be at most the values counted (1), got 2" in capsys.readouterr().err
    saved["alternatives"]["fields"]["city"] = [4, 1]
    saved["alternatives"]["documents"] = 4  # 4 values, but 3 documents in the state
    state.write_bytes(orjson.dumps(saved))
    assert main(["merge", str(state), "-f", "json"]) == 2
    err = capsys.readouterr().err
    assert "/alternatives/documents: must be from 1 to 3 (the values and the documents counted), got 4" in err


def test_compare_shows_the_alternative_that_decided(capsys, monkeypatch):
    """docs/ground-truth.md's command: the first document of the worked example."""
    monkeypatch.setenv("COLUMNS", "100")  # the table as the page shows it
    first = [str(SCHEMA), str(GT), str(PRED), "--line", "1"]
    assert main(["compare", *first, "-f", "json"]) == 0
    rows = {row["path"]: row for row in orjson.loads(capsys.readouterr().out)["comparisons"]}
    assert rows["city"]["alternative"] == 1 and rows["city"]["gt"] == "St Louis"
    assert rows["city"]["similarity"] == 1.0 and rows["city"]["result"] == "TP"
    assert "alternative" not in rows["state"]
    monkeypatch.chdir(ROOT)  # the page's relative paths
    relative = [str(p.relative_to(ROOT)) for p in (SCHEMA, GT, PRED)]
    assert main(["compare", *relative, "--line", "1"]) == 0
    printed = "\n".join(line.rstrip() for line in capsys.readouterr().out.splitlines()).rstrip()
    assert "city   TP  St Louis" in printed and "(_alternatives[1])" in printed
    page = (ROOT / "docs" / "ground-truth.md").read_text(encoding="utf-8")
    assert f"--line 1\n{printed}\n```" in page
    assert (
        "printed in a terminal 100 columns\nwide; at 80 columns (or piped), the `Thr` and `Comparator` columns" in page
    )
    # What the page says of 80 columns: the table without those two columns.
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["compare", *relative, "--line", "1"]) == 0
    narrow = capsys.readouterr().out
    assert " Sim  Score" in narrow and "Thr" not in narrow and "Comparator" not in narrow


def test_a_prediction_listing_alternatives_is_named(capsys, tmp_path):
    pred = tmp_path / "pred.jsonl"
    lines = PRED.read_text().splitlines()
    lines[2] = json.dumps({"id": "3", "city": {"_value": "Paris", "_alternatives": ["Lutece"]}, "state": "IDF"})
    pred.write_text("\n".join(lines) + "\n")
    report = _json(capsys, SCHEMA, GT, pred)
    assert report["errors"] == [
        {
            "source": str(pred),
            "line": 3,
            "doc_id": "3",
            "message": "city: a prediction carries _alternatives (only the ground truth lists acceptable values); "
            "its _value is scored",
        }
    ]
    assert report["field_metrics"]["city"]["tp"] == 3  # its _value, "Paris", is scored
    assert report["alternatives"] == BLOCK  # a prediction's alternatives are not counted


def test_the_ground_truths_problems_name_the_ground_truths_file_and_line(capsys, tmp_path):
    """A malformed ``_alternatives`` on line 2 of the ground truth, whose document "2" is on line 1 of the
    predictions (written in reverse order, paired by id): reported at the ground truth's line 2. Its _value
    "New York" alone is scored, equal to the prediction: city stays 3 TP (document 1 decided by "St Louis")."""
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    lines = GT.read_text().splitlines()
    lines[1] = json.dumps({"id": "2", "city": {"_value": "New York", "_alternatives": "NYC"}, "state": "NY"})
    gt.write_text("\n".join(lines) + "\n")
    pred.write_text("\n".join(reversed(PRED.read_text().splitlines())) + "\n")
    report = _json(capsys, SCHEMA, gt, pred, "--id-field", "id")
    message = 'city: the ground truth\'s _alternatives must be a list of values, got "NYC"; its _value alone is scored'
    assert report["errors"] == [{"source": str(gt), "line": 2, "doc_id": "2", "message": message}]
    assert report["field_metrics"]["city"]["tp"] == 3
    report = _json(capsys, SCHEMA, GT, pred, "--id-field", "id", "--limit", "alternatives=1")
    assert sorted((e["source"], e["line"]) for e in report["errors"]) == [(str(GT), 1), (str(GT), 2)]


def test_the_reader_finds_the_key_in_the_raw_line():
    for line in (
        '{"a": {"_value": 1, "_alternatives": [2]}}',
        '{"a": {"_value": 1, "_alternative\\u0073": [2]}}',  # a letter escaped: the record is walked
    ):
        assert carries_alternatives(line.encode(), json.loads(line)), line
        assert goes_alone(line.encode(), json.loads(line)), line
    spelt_in_a_value = '{"a": "\\u005falternatives"}'
    assert not carries_alternatives(spelt_in_a_value.encode(), json.loads(spelt_in_a_value))
    assert not carries_alternatives(b'{"a": 1}', {"a": 1})
    assert not goes_alone(spelt_in_a_value.encode(), json.loads(spelt_in_a_value))
    assert not goes_alone(b'{"a": {"_value": 1, "_confidence": 0.5}}', {})
    for line in ('{"a": {"_value": 1, "_bbox": [0, 0, 1, 1]}}', '{"a": {"_value": 1, "_b\\u0062ox": [0, 0, 1, 1]}}'):
        assert goes_alone(line.encode(), json.loads(line)), line  # boxes, as before, in the same pass


def test_a_judge_is_asked_every_acceptable_value_in_one_batch_within_its_bound(server, tmp_path, capsys):  # noqa: F811 (the fixture)
    """LLMComparator: the prefetch walk asks each (acceptable value, prediction) pair once, before scoring, so
    that --limit judge-calls counts them all; the winner is not asked again."""
    schema = tmp_path / "schema.json"
    leaf = {"type": "string", "x-aws-stickler-comparator": "LLMComparator", "x-aws-stickler-threshold": 1.0}
    leaf["x-aws-stickler-comparator-config"] = {"model": "judge", "cache": False}
    schema.write_bytes(orjson.dumps({"type": "object", "properties": {"city": leaf}}))
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    # The counting server's rule: the same letters and digits. "st louis" is "St. Louis", not "Saint Louis".
    gt.write_text('{"city": {"_value": "Saint Louis", "_alternatives": ["St. Louis"]}}\n' * 3)
    pred.write_text('{"city": "st louis"}\n' * 3)
    base = ["eval", str(schema), str(gt), str(pred), "--llm-base-url", server.url + "/v1", "-f", "json"]
    assert main([*base, "--limit", "judge-calls=1"]) == 2  # two distinct questions: stopped before asking
    assert server.count == 0 and "would send at least 2 requests" in capsys.readouterr().err
    assert main([*base, "--limit", "judge-calls=2"]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert server.count == 2
    assert report["field_metrics"]["city"]["tp"] == 3
    assert report["alternatives"]["decided_by_alternative"] == 3
    # 3 documents x 2 acceptable values asked of the comparator: 2 requests, 4 answered from this run's questions
    assert report["judge"]["city"] == {"asked": 2, "cached": 0, "identical": 0, "deduplicated": 4, "failed": 0}


def test_limit_alternatives_on_the_command_line(capsys):
    report = _json(capsys, SCHEMA, GT, PRED, "--limit", "alternatives=1")
    message = "city: the ground truth lists 2 _alternatives, more than --limit alternatives (1): the first 1 are scored"
    assert [(e["line"], e["doc_id"], e["message"]) for e in report["errors"]] == [(1, "1", message), (2, "2", message)]
    # "St. Louis" alone is 8/9 = 0.889 from "St Louis" (1 edit, the dot): still above 0.8, decided by alternative 0
    assert report["field_metrics"]["city"]["tp"] == 3
    assert report["alternatives"] == BLOCK


def test_failure_lists_name_the_alternative_that_decided(capsys, monkeypatch, tmp_path):
    """ "St Lewis" is 2 edits from "St Louis" (0.75, below city's 0.8: an FD), further from the other values:
    the second alternative decides, and --show-errors and --non-matches say so."""
    monkeypatch.setenv("COLUMNS", "100")
    pred, lines = tmp_path / "pred.jsonl", tmp_path / "nm.jsonl"
    pred.write_text('{"id": "1", "city": "St Lewis", "state": "MO"}\n' + "".join(PRED.read_text().splitlines(True)[1:]))
    assert main(["eval", str(SCHEMA), str(GT), str(pred), "--show-errors", "1", "--non-matches", str(lines)]) == 0
    assert "city FD St Louis (_alternatives[1]) St Lewis 0.750" in " ".join(capsys.readouterr().out.split())
    assert main(["eval", str(SCHEMA), str(GT), str(pred), "--show-errors", "1", "-f", "markdown"]) == 0
    assert "| `city` | FD | `St Louis` (`_alternatives[1]`) | `St Lewis` | 0.750 |" in capsys.readouterr().out
    page = tmp_path / "report.html"
    assert main(["eval", str(SCHEMA), str(GT), str(pred), "--html", str(page), "-f", "json"]) == 0
    html = page.read_text()
    assert "<td><code>&quot;St Louis&quot;</code><span" in html and ">_alternatives[1]</span></td>" in html
    (row,) = [orjson.loads(line) for line in lines.read_text().splitlines()]
    assert (row["path"], row["type"], row["gt"], row["similarity"], row["alternative"]) == (
        "city",
        "FD",
        "St Louis",
        0.75,
        1,
    )
