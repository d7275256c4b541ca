"""docs/ground-truth.md (issue 42): the agreement and stability examples print what the page shows, and the
figures the page works out by hand are the command's (the other sections' examples have tests of their own,
named on the page)."""

import json
import re
import shlex
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score

from stickler_cli.cli.app import main

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ground-truth.md"


def _files(tmp_path: Path) -> dict[str, str]:
    """The page's files (a name in backticks, a colon, a JSON block), written into ``tmp_path``."""
    text = PAGE.read_text(encoding="utf-8")
    files = dict(re.findall(r"`([a-z0-9_]+\.jsonl?)`:\n\n```json\n(.*?)```", text, re.S))
    for name, body in files.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    return files


def _examples() -> list[tuple[list[str], str]]:
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n\$ (stickler (?:agree|stability) [^\n]*)\n(.*?)```", text, re.S)
    return [(shlex.split(command)[1:], shown) for command, shown in blocks]


def test_the_page_holds_both_examples():
    assert [args[0] for args, _ in _examples()] == ["agree", "stability"]


@pytest.mark.parametrize("args, shown", _examples(), ids=["agree", "stability"])
def test_each_example_prints_what_the_page_shows(args, shown, tmp_path, monkeypatch, capsys):
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(args) == 0
    printed = "\n".join(line.rstrip() for line in capsys.readouterr().out.splitlines())
    assert printed + "\n" == shown


def test_the_hand_worked_figures(tmp_path, monkeypatch, capsys):
    files = _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    a = [json.loads(line)["category"] for line in files["ann_a.jsonl"].splitlines()]
    b = [json.loads(line)["category"] for line in files["ann_b.jsonl"].splitlines()]
    # kappa as the page works it: observed 3/4, chance 7/16
    assert cohen_kappa_score(a, b) == pytest.approx((0.75 - 7 / 16) / (1 - 7 / 16))
    assert main(["agree", "schema.json", "ann_a.jsonl", "ann_b.jsonl", "--id-field", "id", "-f", "json"]) == 0
    category = next(f for f in json.loads(capsys.readouterr().out)["fields"] if f["field"] == "category")
    assert category["agreement"] == 0.75 and category["kappa"] == pytest.approx(cohen_kappa_score(a, b))
    runs = ["ann_a.jsonl", "run1.jsonl", "run2.jsonl"]
    assert main(["stability", "schema.json", *runs, "--id-field", "id", "-f", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    whole = report["total"]
    assert (whole["pass_k"], whole["pass_at_k"], whole["flip_rate"]) == (0.5, 1.0, 0.5)  # d1, d4 right twice
    page = PAGE.read_text(encoding="utf-8")
    for said in ("κ = (0.75 − 0.4375) / (1 − 0.4375) =\n0.556", "(pass^k = 0.5)", "(flip rate 0.25, flaky)"):
        assert said in page
