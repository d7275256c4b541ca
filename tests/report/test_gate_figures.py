"""A failed gate never shows a figure that reads as passing: 0.59055 against 0.5906 was shown as 0.591 in the
terminal, Markdown and HTML (and 0.89996 against 0.9 as 0.9000 in JUnit). The figure takes as many decimals as
it needs to read on its side of the threshold, and the threshold is shown as given."""

from __future__ import annotations

import random
import re
from pathlib import Path

import orjson
import pytest

from stickler_cli.cli.app import main
from stickler_cli.report.gates import actual_text, threshold_text

ROOT = Path(__file__).resolve().parents[2]
INVOICE = [str(ROOT / p) for p in ("schemas/invoice.json", "fixtures/invoice/gt.jsonl", "fixtures/invoice/pred.jsonl")]


@pytest.mark.parametrize(
    "actual, threshold, shown",
    [
        (0.5905511811023622, 0.5906, "0.59055"),  # below: 0.591 and 0.5906 would both read as passing
        (0.86962, 0.8697, "0.8696"),
        (0.89996, 0.9, "0.89996"),
        (0.9, 0.9, "0.900"),  # equal passes, and reads so
        (0.90004, 0.9, "0.900"),
        (0.5, 0.9, "0.500"),
        (0.9999999, 1.0, "0.9999999"),
        (0.0, 1e-9, "0.000"),
        (None, 0.9, "–"),
    ],
)
def test_the_figure_reads_on_its_side_of_the_threshold(actual, threshold, shown):
    assert actual_text(actual, threshold) == shown


def test_random_figures_never_read_on_the_wrong_side():
    rng = random.Random(17)
    for _ in range(20_000):
        threshold = round(rng.random(), rng.randint(1, 6))
        actual = threshold + rng.choice([-1, 1]) * rng.random() * 10 ** -rng.randint(1, 12)
        assert (float(actual_text(actual, threshold)) < threshold) == (actual < threshold), (actual, threshold)


def test_the_threshold_is_shown_as_given():
    assert [threshold_text(t) for t in (0.9, 0.8697, 0.123456789, 1.0, 0.0)] == [
        "0.9",
        "0.8697",
        "0.123456789",
        "1",
        "0",
    ]


def test_every_report_shows_the_failed_gate_below_its_threshold(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = tmp_path / "r.json"
    code = main(
        [
            "eval",
            *INVOICE,
            "--fail-under",
            "cm_precision=0.5906",
            "-o",
            str(out),
            "--junit",
            str(tmp_path / "j.xml"),
            "--html",
            str(tmp_path / "r.html"),
        ]
    )
    table = capsys.readouterr().out
    assert code == 1
    assert orjson.loads(out.read_bytes())["gates"][0]["actual"] == 0.5905511811023622
    assert re.search(r"cm_precision >= 0\.5906\s+0\.5906\s+0\.59055\s+failed", table), table
    assert main(["eval", *INVOICE, "--fail-under", "cm_precision=0.5906", "-f", "markdown"]) == 1
    assert "| `cm_precision >= 0.5906` | 0.5906 | 0.59055 |" in capsys.readouterr().out
    junit = (tmp_path / "j.xml").read_text()
    assert 'message="0.59055 &lt; 0.5906"' in junit and "is 0.59055, below the gate's 0.5906" in junit
    html = (tmp_path / "r.html").read_text()
    assert (
        '<td class="n" data-sort="0.5906">0.5906</td><td class="n" data-sort="0.5905511811023622">0.59055</td>' in html
    )
