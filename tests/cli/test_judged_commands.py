"""`stickler agree` and `stickler stability` under a schema whose comparators are the user's to allow: a judge
(LLMComparator, against the local counting chat server of tests/support/chat_server.py, which calls two texts the
same when their letters and digits are, case and punctuation aside) and a --plugin comparator. As eval and compare,
the endpoint and the code are given on the command line, never by the schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stickler_cli.cli.app import main
from tests.support.chat_server import ChatServer, clean_env, server  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[2]
JUDGED = {
    "type": "string",
    "x-aws-stickler-comparator": "LLMComparator",
    "x-aws-stickler-comparator-config": {"model": "judge"},
}
SHOUT = {"type": "string", "x-aws-stickler-comparator": "ShoutComparator", "x-aws-stickler-threshold": 0.9}


def _write(tmp_path: Path, name: str, value: object) -> str:
    path = tmp_path / name
    if isinstance(value, list):
        path.write_text("".join(json.dumps(r) + "\n" for r in value))
    else:
        path.write_text(json.dumps(value))
    return str(path)


def _files(tmp_path: Path, field: dict) -> tuple[str, str, str, str]:
    """Annotator A (also the ground truth), annotator B (also run 1) and run 2: the field's values per document.

    doc  A           B           run 2
    1    "St. John"  "st john"   "St. John"
    2    "Acme"      "ACME inc"  "acme"
    3    "apple"     "apple"     "pear"
    """
    schema = _write(tmp_path, "schema.json", {"type": "object", "properties": {"name": field}})
    a = _write(tmp_path, "a.jsonl", [{"name": v} for v in ("St. John", "Acme", "apple")])
    b = _write(tmp_path, "b.jsonl", [{"name": v} for v in ("st john", "ACME inc", "apple")])
    run2 = _write(tmp_path, "r2.jsonl", [{"name": v} for v in ("St. John", "acme", "pear")])
    return schema, a, b, run2


def test_agree_asks_the_judge_the_command_line_names(server, tmp_path, capsys):
    """The judge calls "St. John"/"st john" the same and "Acme"/"ACME inc" not: docs 1 and 3 agree, 2 of 3 (4 of 6
    comparisons, each document both ways)."""
    schema, a, b, _ = _files(tmp_path, JUDGED)
    assert main(["agree", schema, a, b]) == 2  # no endpoint: the schema cannot choose one
    assert "LLMComparator has no endpoint" in capsys.readouterr().err
    assert main(["agree", schema, a, b, "--llm-base-url", server.url + "/v1", "-f", "json"]) == 0
    (field,) = json.loads(capsys.readouterr().out)["fields"]
    assert (field["field"], field["comparisons"], field["agreement"]) == ("name", 6, pytest.approx(4 / 6))
    # each pair of values asked once per direction, identical values ("apple") never: 2 pairs x 2 directions
    assert server.count == 4


def test_stability_asks_the_judge_the_command_line_names(server, tmp_path, capsys):
    """Held to A: run 1 (B) is right on docs 1 and 3, run 2 on docs 1 and 2 ("acme" is "Acme" to the judge): right
    in both runs doc 1 only (pass^k 1/3), in some run all three (pass@k 1), flipped docs 2 and 3 (2/3)."""
    schema, a, b, run2 = _files(tmp_path, JUDGED)
    assert main(["stability", schema, a, b, run2, "--llm-base-url", server.url + "/v1", "-f", "json"]) == 0
    name = json.loads(capsys.readouterr().out)["fields"]["name"]
    assert (name["pass_k"], name["pass_at_k"], name["flip_rate"]) == (
        pytest.approx(1 / 3),
        1.0,
        pytest.approx(2 / 3),
    )


def test_a_plugin_comparator_in_agree_and_stability(tmp_path, capsys):
    """ShoutComparator: 1.0 equal ignoring case, 0.5 for equal lengths, at a threshold of 0.9: "St. John"/"st john"
    differ (8 and 7 characters), "Acme"/"ACME inc" differ, "apple" agrees: 1 of 3 (2 of 6). Held to A, run 2 is
    right on docs 1 and 2 ("acme" is "Acme" upper-cased), run 1 (B) on doc 3 only: pass^k 0, pass@k 1."""
    schema, a, b, run2 = _files(tmp_path, SHOUT)
    plugin = str(ROOT / "tests/support/shout_plugin.py")
    assert main(["agree", schema, a, b]) == 2  # an unknown comparator without its plugin
    capsys.readouterr()
    assert main(["agree", schema, a, b, "--plugin", plugin, "-f", "json"]) == 0
    (field,) = json.loads(capsys.readouterr().out)["fields"]
    assert field["agreement"] == pytest.approx(2 / 6)
    assert main(["stability", schema, a, b, run2, "--plugin", plugin, "-f", "json"]) == 0
    name = json.loads(capsys.readouterr().out)["fields"]["name"]
    assert (name["pass_k"], name["pass_at_k"]) == (0.0, 1.0)
    # A file to write may not be the plugin's (nor any input): eval's rule.
    assert main(["agree", schema, a, b, "--plugin", plugin, "-o", plugin]) == 2
    assert "refusing to overwrite an input file" in capsys.readouterr().err
