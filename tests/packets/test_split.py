"""`stickler split`: the DocSplit metrics of document packets (issue 18, item 2).

Golden numbers below come from stickler-eval 1.0.0's doc_split on fixtures/packets
(tests/parity/test_doc_split_oracle.py checks them against the library, and generated packets
too); the clustering and ordering figures are checked against scikit-learn and scipy here.
"""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import pytest
from scipy.stats import kendalltau
from sklearn.metrics import homogeneity_completeness_v_measure, rand_score, v_measure_score

from stickler_cli.cli.app import main
from stickler_cli.packets.metrics import (
    PageRow,
    Section,
    Weights,
    classify,
    kendall_tau_b,
    page_table,
    rand_index,
    score_pages,
    v_measure,
)
from stickler_cli.run.packets import Reading, read_pairs
from stickler_cli.report.packets import build
from tests.support.packets import packet

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "packets"

# stickler-eval 1.0.0: DocSplitClassificationMetrics and evaluate_packet (default weights; strict) per packet.
FIXTURE_GOLDEN = {
    "P-001": {
        "page_accuracy": 1.0,
        "split_accuracy_without_order": 1.0,
        "split_accuracy_with_order": 1.0,
        "v_measure": 1.0,
        "rand_index": 1.0,
        "ordering_score": 1.0,
        "packet_score": 1.0,
        "strict_packet_score": 1.0,
    },
    "P-002": {
        "page_accuracy": 1.0,
        "split_accuracy_without_order": 1.0,
        "split_accuracy_with_order": 0.5,
        "v_measure": 1.0,
        "rand_index": 1.0,
        "ordering_score": 0.6666666666666666,
        "packet_score": 0.8333333333333333,
        "strict_packet_score": 0.8333333333333333,
    },
    "P-003": {
        "page_accuracy": 0.5,
        "split_accuracy_without_order": 0.0,
        "split_accuracy_with_order": 0.0,
        "v_measure": 0.0,
        "rand_index": 0.3333333333333333,
        "ordering_score": 1.0,
        "packet_score": 0.5833333333333334,
        "strict_packet_score": 0.9083333333333333,
    },
    "P-004": {
        "page_accuracy": 1.0,
        "split_accuracy_without_order": 0.0,
        "split_accuracy_with_order": 0.0,
        "v_measure": 0.0,
        "rand_index": 0.4,
        "ordering_score": 0.6708203932499369,
        "packet_score": 0.4354101966249685,
        "strict_packet_score": 0.4354101966249685,
    },
    "P-005": {
        "page_accuracy": 0.3333333333333333,
        "split_accuracy_without_order": 0.5,
        "split_accuracy_with_order": 0.5,
        "v_measure": 1.0,
        "rand_index": 1.0,
        "ordering_score": 1.0,
        "packet_score": 1.0,
        "strict_packet_score": 0.8500867758294695,
    },
    "P-006": {
        "page_accuracy": 0.75,
        "split_accuracy_without_order": 0.5,
        "split_accuracy_with_order": 0.5,
        "v_measure": 1.0,
        "rand_index": 1.0,
        "ordering_score": 1.0,
        "packet_score": 1.0,
        "strict_packet_score": 1.0,
    },
}
# stickler-eval 1.0.0's evaluate_packet on each packet of fixtures/packets/pages.csv.
CSV_GOLDEN = {
    "P-101": {"packet_score": 0.8333333333333333, "v_measure": 1.0, "ordering_score": 0.6666666666666666},
    "P-102": {"packet_score": 0.15183771886365355, "v_measure": 0.2740175421212809, "ordering_score": 0.0},
}
CLOSE = 1e-12


def fixture_cases() -> list[tuple[str, list, list]]:
    gt = [json.loads(line) for line in (FIXTURE / "gt.jsonl").read_text().splitlines()]
    pred = {p["packet_id"]: p for p in map(json.loads, (FIXTURE / "pred.jsonl").read_text().splitlines())}
    return [(g["packet_id"], g["sections"], pred[g["packet_id"]]["sections"]) for g in gt]


def _sections(raw: list[dict]) -> tuple[Section, ...]:
    return tuple(Section(s["document_class"], tuple(s["page_indices"])) for s in raw)


@pytest.mark.parametrize("packet_id, gt, pred", fixture_cases())
def test_fixture_packets_equal_the_library_s_figures(packet_id, gt, pred) -> None:
    golden = FIXTURE_GOLDEN[packet_id]
    c = classify(_sections(gt), _sections(pred))
    rows = page_table(_sections(gt), _sections(pred))
    g, strict = score_pages(rows), score_pages(rows, Weights(strict=True))
    figures = {
        "page_accuracy": c.page_accuracy,
        "split_accuracy_without_order": c.split_accuracy_without_order,
        "split_accuracy_with_order": c.split_accuracy_with_order,
        "v_measure": g.v_measure,
        "rand_index": g.rand_index,
        "ordering_score": g.ordering,
        "packet_score": g.packet_score,
        "strict_packet_score": strict.packet_score,
    }
    for key, value in golden.items():
        assert figures[key] == pytest.approx(value, abs=CLOSE), key


def _run(args: list[str], capsys, monkeypatch, columns: int = 80) -> tuple[int, str, str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_fixture_report_pools_pages_and_sections_and_averages_packets(capsys, monkeypatch) -> None:
    code, out, _ = _run(
        ["split", str(FIXTURE / "gt.jsonl"), str(FIXTURE / "pred.jsonl"), "-f", "json"], capsys, monkeypatch
    )
    assert code == 0
    report = json.loads(out)
    m = report["metrics"]
    assert report["packet_count"] == 6
    assert m["page_accuracy"] == 20 / 25 and report["counts"]["pages"] == 25  # pooled over pages
    assert m["split_accuracy_without_order"] == 6 / 11 and m["split_accuracy_with_order"] == 5 / 11
    mean = sum(g["packet_score"] for g in FIXTURE_GOLDEN.values()) / 6
    assert m["packet_score"] == pytest.approx(mean, abs=CLOSE)
    assert m["ordering_score"] == pytest.approx(
        sum(g["ordering_score"] for g in FIXTURE_GOLDEN.values()) / 6, abs=CLOSE
    )
    invoice = next(c for c in report["classes"] if c["class"] == "invoice")
    assert (invoice["gt_pages"], invoice["pred_pages"], invoice["correct_pages"]) == (8, 8, 6)
    assert {"ground_truth": "bank_statement", "predicted": None, "pages": 1} in report["confusion"]
    worst = report["worst_packets"]
    assert [p["packet_id"] for p in worst] == ["P-004", "P-003", "P-002", "P-005", "P-006"]  # P-001 is perfect
    assert worst[-1]["pages_missing"] == 1 and worst[-1]["where"].endswith("gt.jsonl:6")


def test_page_table_csv(capsys, monkeypatch) -> None:
    code, out, _ = _run(["split", str(FIXTURE / "pages.csv"), "-f", "json", "--worst", "10"], capsys, monkeypatch)
    assert code == 0
    report = json.loads(out)
    by_id = {p["packet_id"]: p for p in report["worst_packets"]}
    for packet_id, golden in CSV_GOLDEN.items():
        for key, value in golden.items():
            assert by_id[packet_id][key] == pytest.approx(value, abs=CLOSE)
    assert report["metrics"]["page_accuracy"] == 7 / 8  # the CSV carries classes
    assert report["metrics"]["split_accuracy_with_order"] is None  # a page table has no sections


def test_junit_has_a_case_per_gate_and_per_figure(tmp_path, capsys, monkeypatch) -> None:
    """--junit: ``stickler.gates`` as eval writes it, and ``stickler.split``, a case per figure failing where a gate
    on it failed; the figures are the JSON report's (20 of 25 pages right on the fixture); a page table's split
    accuracy, which it cannot give, says so."""
    from xml.etree import ElementTree as ET

    xml, data = tmp_path / "split.xml", tmp_path / "split.json"
    code, out, _ = _run(
        [
            "split",
            str(FIXTURE / "gt.jsonl"),
            str(FIXTURE / "pred.jsonl"),
            "--junit",
            str(xml),
            "-o",
            str(data),
            "--fail-under",
            "page_accuracy=0.99",
            "--fail-under",
            "v_measure=0.5",
        ],
        capsys,
        monkeypatch,
    )
    assert code == 1 and "".join(f"JUnit XML written to {xml}".split()) in "".join(
        out.split()
    )  # wrapped at 80 columns, mid-path too
    root = ET.parse(xml).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("10", "2", "0")
    gates, figures = root.findall("testsuite")
    assert [c.get("name") for c in gates] == ["page_accuracy >= 0.99", "v_measure >= 0.5"]
    assert gates.find("testcase/failure").get("message") == "0.8000 < 0.99"
    report = json.loads(data.read_text())
    assert [c.get("name") for c in figures] == list(report["metrics"])
    cases = {c.get("name"): c for c in figures}
    assert cases["page_accuracy"].find("failure").get("message") == "0.8000 < 0.99"
    assert cases["v_measure"].find("failure") is None and [c for c in figures if c.find("failure") is not None] == [
        cases["page_accuracy"]
    ]
    assert (
        cases["split_accuracy_with_order"].find("system-out").text
        == "split_accuracy_with_order 0.4545 over 6 packet(s)"
    )
    code, _, _ = _run(["split", str(FIXTURE / "pages.csv"), "--junit", str(xml), "-f", "json"], capsys, monkeypatch)
    table = ET.parse(xml).getroot()
    assert code == 0 and table.get("failures") == "0" and table.find("testsuite").get("tests") == "0"
    shown = {c.get("name"): c.find("system-out").text for c in table.findall("testsuite/testcase")}
    assert shown["split_accuracy_with_order"] == "split_accuracy_with_order: no data (a page table has no sections)"
    skipped = [c.get("name") for c in table.findall("testsuite/testcase") if c.find("skipped") is not None]
    assert skipped == ["split_accuracy_without_order", "split_accuracy_with_order"]
    assert table.findall("testsuite")[1].get("skipped") == "2"
    assert shown["page_accuracy"] == "page_accuracy 0.8750 over 2 packet(s)"  # 7 of 8 pages, two packets


def test_every_form_of_report_is_valid_under_its_schema(tmp_path, capsys, monkeypatch) -> None:
    """schemas/split-report.schema.json describes what split writes: sections with gates, a page table with and
    without classes, bad and unpaired predictions, a run without packets; and it refuses a figure out of range."""
    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "split-report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    plain = tmp_path / "plain.csv"
    plain.write_text("group_id,group_id_predicted,page_number,page_number_predicted\na,a,1,2\na,b,2,1\n")
    bad = _write(
        tmp_path / "bad.jsonl",
        [
            "not json",
            dict(GOOD, packet_id="Z"),
            {"packet_id": "A", "sections": [{"document_class": "x", "page_indices": [0, 0]}]},
        ],
    )
    empty = _write(tmp_path / "empty.jsonl", [])
    runs = [
        [
            str(FIXTURE / "gt.jsonl"),
            str(FIXTURE / "pred.jsonl"),
            "--fail-under",
            "page_accuracy=0.99",
            "--fail-under",
            "ordering_score=-0.5",
            "--worst",
            "10",
        ],
        [str(FIXTURE / "pages.csv"), "--fail-under", "split_accuracy_with_order=0.5"],
        [str(plain)],
        [_write(tmp_path / "gt.jsonl", [GOOD]), bad],
        [empty, bad],
        [str(FIXTURE / "gt.jsonl"), str(FIXTURE / "pred.jsonl"), "--alpha", "2", "--beta", "0"],
        [str(FIXTURE / "gt.jsonl"), str(FIXTURE / "pred.jsonl"), "--alpha", "-1", "--beta", "2"],
    ]
    reports = []
    for args in runs:
        code, out, _ = _run(["split", *args, "-f", "json"], capsys, monkeypatch)
        assert code in (0, 1)
        reports.append(json.loads(out))
        jsonschema.validate(reports[-1], schema)
    assert reports[2]["metrics"]["page_accuracy"] is None and reports[4]["packet_count"] == 0
    assert reports[3]["records"]["invalid_predictions"] == 2 and reports[3]["problems"][0]["line"] == 1
    assert max(r["metrics"]["packet_score"] for r in reports[5:]) > 1  # --alpha and --beta take any finite number
    for report, key, value in (
        (reports[0], "page_accuracy", 1.5),
        (reports[0], "clustering_score", -0.1),
        (reports[1], "split_accuracy_with_order", 0.5),
    ):  # a page table has no sections
        wrong = json.loads(json.dumps(report))
        wrong["metrics"][key] = value
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(wrong, schema)


HOSTILE = "<script>alert(1)</script>"


def test_html_page_of_a_split(tmp_path, capsys, monkeypatch) -> None:
    """--html: one self-contained page (no network, the policy of the eval report) with the figures, gates, pages
    by class, misclassified pages, worst packets and record problems; every name from the data escaped."""
    gt = _write(
        tmp_path / "gt.jsonl",
        [
            {"packet_id": HOSTILE, "sections": [{"document_class": HOSTILE, "page_indices": [0, 1]}]},
            dict(GOOD, packet_id="B"),
        ],
    )
    pred = _write(
        tmp_path / "pred.jsonl",
        [{"packet_id": HOSTILE, "sections": [{"document_class": "x", "page_indices": [1, 0]}]}, "not json"],
    )
    page_path = tmp_path / "split.html"
    code, out, _ = _run(
        ["split", gt, pred, "--html", str(page_path), "--fail-under", "packet_score=0.9"], capsys, monkeypatch
    )
    assert code == 1 and "HTML report written to" in out
    page = page_path.read_text()
    assert "<script>alert" not in page and page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3  # packet, class ×2
    assert "Content-Security-Policy" in page and "http" not in page.replace("http-equiv", "")
    for heading in (
        "Figures",
        "Gates: 1 of 1 failed",
        "Pages by class",
        "Misclassified pages",
        "Worst packets",
        "Records",
        "Record problems (2)",
    ):  # the line that is not JSON, packet B without prediction
        assert f"<h2>{heading}</h2>" in page
    assert "pred.jsonl:2: prediction not valid JSON" in page


def test_html_page_of_a_split_in_chromium(tmp_path, capsys, monkeypatch) -> None:
    """The page loads with no console error (its script allowed by the policy), and its worst packets sort on a
    click, by the figures the JSON report gives them."""
    from tests.support.browser import chromium, open_page

    page_path, data = tmp_path / "split.html", tmp_path / "split.json"
    code, _, _ = _run(
        [
            "split",
            str(FIXTURE / "gt.jsonl"),
            str(FIXTURE / "pred.jsonl"),
            "--html",
            str(page_path),
            "-o",
            str(data),
            "--worst",
            "10",
        ],
        capsys,
        monkeypatch,
    )
    assert code == 0
    worst = json.loads(data.read_text())["worst_packets"]
    with chromium() as browser:
        page, problems = open_page(browser, page_path)
        rows = "table.sortable >> nth=2"  # pages by class, misclassified pages, worst packets
        ids = page.locator(rows).locator("tbody tr td:nth-child(1)").all_text_contents()
        assert ids == [p["packet_id"] for p in worst]
        page.locator(rows).locator("thead th", has_text="packet score").locator("button").click()
        scores = [float(v) for v in page.locator(rows).locator("tbody tr td:nth-child(14)").all_text_contents()]
        assert scores == sorted(round(p["packet_score"], 3) for p in worst)
        assert problems == []


def test_clustering_equals_scikit_learn_and_tau_equals_scipy() -> None:
    rng = random.Random(3)
    for _ in range(500):
        n = rng.randint(1, 25)
        truth = [rng.randint(0, 4) for _ in range(n)]
        guess = [rng.choice("abcdef") for _ in range(n)]
        assert v_measure(truth, guess) == pytest.approx(homogeneity_completeness_v_measure(truth, guess), abs=CLOSE)
        assert v_measure(truth, guess)[2] == pytest.approx(v_measure_score(truth, guess), abs=CLOSE)
        assert rand_index(truth, guess) == pytest.approx(rand_score(truth, guess), abs=CLOSE)
        if n >= 2:
            x = [rng.randint(0, 6) for _ in range(n)]
            y = [rng.uniform(0, 3) if rng.random() < 0.5 else rng.randint(0, 3) for _ in range(n)]
            expected = kendalltau(x, y).statistic
            mine = kendall_tau_b(x, y)
            assert (math.isnan(expected) and math.isnan(mine)) or mine == pytest.approx(expected, abs=CLOSE)


def test_edge_cases_as_the_library_has_them() -> None:
    empty = score_pages([])
    assert (empty.v_measure, empty.rand_index, empty.ordering, empty.packet_score) == (0.0, 0.0, 0.0, 0.0)
    one = score_pages([PageRow("d", "x", 0, 0, "a", "b")], Weights(strict=True))
    assert (one.v_measure, one.rand_index, one.ordering, one.packet_score) == (1.0, 1.0, 1.0, 1.0)  # one page
    # Two pages of one document, split apart at the same position: tau undefined -> 0; V 0, RI 0.
    tied = score_pages([PageRow("d", "x", 0, 0), PageRow("d", "y", 1, 0)])
    assert (tied.v_measure, tied.rand_index, tied.ordering, tied.packet_score) == (0.0, 0.0, 0.0, 0.0)
    reversed_ = score_pages([PageRow("d", "x", 0, 1), PageRow("d", "x", 1, 0)])
    assert (reversed_.ordering, reversed_.packet_score) == (-1.0, 0.0)
    none = classify((), ())
    assert (none.page_accuracy, none.split_accuracy_without_order, none.total_pages) == (0.0, 0.0, 0)
    # A page only the prediction names counts against page accuracy, never in the page table.
    extra = classify((Section("a", (0,)),), (Section("a", (0, 1)),))
    assert (extra.correct_pages, extra.total_pages, extra.split_without_order) == (1, 2, 0)
    with pytest.raises(ValueError, match="V-measure weight"):
        score_pages([PageRow("d", "x", 0, 0)], Weights(v_measure_weight=1.5))


def test_generated_packets_score_within_their_ranges() -> None:
    rng = random.Random(11)
    for _ in range(300):
        gt, pred = packet(rng)
        g = score_pages(page_table(_sections(gt), _sections(pred)))
        assert 0.0 <= g.v_measure <= 1.0 and 0.0 <= g.rand_index <= 1.0 and -0.5 <= g.packet_score <= 1.0
        if gt == pred:
            assert classify(_sections(gt), _sections(pred)).page_accuracy == 1.0 and g.packet_score == 1.0


def _write(path: Path, lines: list) -> str:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return str(path)


GOOD = {"packet_id": "A", "sections": [{"document_class": "invoice", "page_indices": [0, 1]}]}


@pytest.mark.parametrize(
    "record, message",
    [
        (
            {
                "packet_id": "A",
                "sections": [
                    {"document_class": "x", "page_indices": [0, 1]},
                    {"document_class": "y", "page_indices": [1]},
                ],
            },
            "gt.jsonl:1: ground truth sections[1].page_indices[0]: page 1 is already in sections[0]",
        ),
        (
            {"packet_id": "A", "sections": [{"document_class": "x", "page_indices": [2, 2]}]},
            "sections[0].page_indices[1]: page 2 is already in the same section",
        ),
        (
            {"packet_id": "A", "sections": [{"document_class": "x", "page_indices": [0, 1.5]}]},
            "sections[0].page_indices[1]: expected a page index (an integer from 0), got 1.5",
        ),
        (
            {"packet_id": "A", "sections": [{"document_class": "x", "page_indices": [-1]}]},
            "sections[0].page_indices[0]: expected a page index (an integer from 0), got -1",
        ),
        ({"packet_id": "A", "sections": [{"document_class": "x", "page_indices": ["0"]}]}, "got '0'"),
        ({"packet_id": "A"}, "gt.jsonl:1: ground truth sections: missing"),
        ({"sections": []}, "packet_id: missing"),
        ({"packet_id": True, "sections": []}, "packet_id: expected a string or an integer, got a boolean"),
        (
            {"packet_id": "A", "sections": [{"document_class": 3, "page_indices": [0]}]},
            "sections[0].document_class: expected a string",
        ),
        ({"packet_id": "A", "sections": [{"document_class": "x"}]}, "sections[0].page_indices: missing"),
        ("[1, 2", "not valid JSON"),
    ],
)
def test_bad_ground_truth_is_one_line_exit_2(tmp_path, capsys, monkeypatch, record, message) -> None:
    gt = _write(tmp_path / "gt.jsonl", [record])
    pred = _write(tmp_path / "pred.jsonl", [GOOD])
    code, out, err = _run(["split", gt, pred], capsys, monkeypatch)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_bad_predictions_are_counted_and_scored_as_empty(tmp_path, capsys, monkeypatch) -> None:
    gt = _write(
        tmp_path / "gt.jsonl", [GOOD, dict(GOOD, packet_id="B"), dict(GOOD, packet_id=7), dict(GOOD, packet_id="D")]
    )
    pred = _write(
        tmp_path / "pred.jsonl",
        [
            {"packet_id": "A", "sections": [{"document_class": "invoice", "page_indices": [0, 0]}]},  # duplicated page
            GOOD,  # a second prediction for A: ignored
            "not json",
            dict(GOOD, packet_id=7),
            dict(GOOD, packet_id="7"),  # "7" is not 7
            dict(GOOD, packet_id="D"),
        ],
    )
    code, out, _ = _run(["split", gt, pred, "-f", "json"], capsys, monkeypatch)
    assert code == 0
    report = json.loads(out)
    r = report["records"]
    assert (
        r["gt_packets"],
        r["paired"],
        r["invalid_predictions"],
        r["duplicate_predictions"],
        r["missing_predictions"],
        r["unpaired_predictions"],
    ) == (4, 3, 2, 1, 1, 1)
    assert report["metrics"]["page_accuracy"] == 4 / 8  # A (duplicated pages) and B (no prediction) score 0
    messages = [f"{p['source'].rsplit('/', 1)[-1]}:{p['line']}: {p['message']}" for p in report["problems"]]
    assert any(
        m.startswith("pred.jsonl:1: prediction sections[0].page_indices[1]: page 0 is already") for m in messages
    )
    assert any(m.startswith("pred.jsonl:5: packet 7 has no ground truth") for m in messages)


def test_duplicate_ground_truth_packet_is_exit_2(tmp_path, capsys, monkeypatch) -> None:
    gt = _write(tmp_path / "gt.jsonl", [GOOD, GOOD])
    code, _, err = _run(["split", gt, _write(tmp_path / "pred.jsonl", [GOOD])], capsys, monkeypatch)
    assert code == 2 and "gt.jsonl:2: packet_id A: also on line 1" in err


def test_pages_per_packet_are_bounded(tmp_path, capsys, monkeypatch) -> None:
    big = {"packet_id": "A", "sections": [{"document_class": "x", "page_indices": list(range(50))}]}
    gt, pred = _write(tmp_path / "gt.jsonl", [big]), _write(tmp_path / "pred.jsonl", [big])
    code, _, err = _run(["split", gt, pred, "--max-pages", "40"], capsys, monkeypatch)
    assert code == 2 and "more than 40 pages in the packet (raise the bound with --max-pages)" in err
    code, out, _ = _run(["split", gt, pred, "--max-pages", "50", "-f", "json"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["metrics"]["packet_score"] == 1.0


def test_what_split_holds_in_memory_is_bounded(tmp_path, capsys, monkeypatch) -> None:
    """split holds every prediction until its ground truth comes, and a page table until it ends: the lines held
    are bounded by --limit kept-bytes, as eval's pairing by id bounds the lines it keeps; past it, one line, exit 2."""
    lines = [dict(GOOD, packet_id=k) for k in "ABCD"]
    size = len(json.dumps(lines[0]))  # each line's bytes, without its newline
    gt, pred = _write(tmp_path / "gt.jsonl", lines), _write(tmp_path / "pred.jsonl", lines)
    code, out, err = _run(["split", gt, pred, "--limit", f"kept-bytes={3 * size}"], capsys, monkeypatch)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert (
        f"pred.jsonl:4: pairing packets by packet_id holds every prediction in memory, and their lines pass "
        f"{3 * size:,} bytes"
        in err
        and "--limit kept-bytes=" in err
    )
    code, out, _ = _run(["split", gt, pred, "--limit", f"kept-bytes={4 * size}", "-f", "json"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["records"]["paired"] == 4
    table = tmp_path / "pages.csv"
    table.write_text("group_id,group_id_predicted,page_number,page_number_predicted\n" + "a,a,1,1\n" * 5)
    code, out, err = _run(["split", str(table), "--limit", "kept-bytes=19"], capsys, monkeypatch)  # 4 a row: 20
    assert (
        code == 2
        and "pages.csv:6: a page table is held in memory until it ends, and its rows pass 19 characters" in err
    )
    code, out, _ = _run(["split", str(table), "--limit", "kept-bytes=20", "-f", "json"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["records"]["gt_packets"] == 1


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "group_id,group_id_predicted,page_number\n",
            "pages.csv:1: the header lacks the column(s) page_number_predicted",
        ),
        (
            "group_id,group_id_predicted,page_number,page_number_predicted\na,b,1,x\n",
            "pages.csv:2: page_number_predicted: expected a number, got 'x'",
        ),
        (
            "group_id,group_id_predicted,page_number,page_number_predicted\na,b,1\n",
            "pages.csv:2: 3 cells, the header names 4",
        ),
        ("group_id,group_id_predicted,page_number,page_number_predicted\n,b,1,1\n", "pages.csv:2: group_id: empty"),
        (
            "group_id,group_id_predicted,page_number,page_number_predicted,class_label\na,b,1,1,x\n",
            "class_label without class_label_predicted",
        ),
        ("group_id,group_id_predicted,page_number,page_number_predicted\na,b,nan,1\n", "expected a finite number"),
        ("", "pages.csv: empty: expected a header row"),
        ('group_id,group_id_predicted,page_number,page_number_predicted\n"a,b,1,1\n', "pages.csv"),
    ],
)
def test_bad_csv_is_one_line_exit_2(tmp_path, capsys, monkeypatch, text, message) -> None:
    path = tmp_path / "pages.csv"
    path.write_text(text)
    code, out, err = _run(["split", str(path)], capsys, monkeypatch)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err and "Traceback" not in err


def test_strict_clustering_needs_classes_in_a_csv(tmp_path, capsys, monkeypatch) -> None:
    path = tmp_path / "pages.csv"
    path.write_text("group_id,group_id_predicted,page_number,page_number_predicted\na,b,1,1\n")
    code, _, err = _run(["split", str(path), "--strict-clustering"], capsys, monkeypatch)
    assert code == 2 and "--strict-clustering needs the classes" in err


def test_gates_exit_1_when_failed_and_2_when_unknown(capsys, monkeypatch, tmp_path) -> None:
    files = [str(FIXTURE / "gt.jsonl"), str(FIXTURE / "pred.jsonl")]
    code, out, _ = _run(
        ["split", *files, "--fail-under", "packet_score=0.9", "--fail-under", "page_accuracy=0.5"], capsys, monkeypatch
    )
    assert code == 1 and "1 of 2 gate(s) failed (exit code 1)" in out
    code, _, err = _run(["split", *files, "-f", "json", "--fail-under", "packet_score=0.9"], capsys, monkeypatch)
    assert code == 1 and "1 quality gate(s) failed" in err
    code, _, err = _run(["split", *files, "--fail-under", "packet_scor=0.9"], capsys, monkeypatch)
    assert code == 2 and "did you mean 'packet_score'" in err
    code, out, _ = _run(
        [
            "split",
            str(FIXTURE / "pages.csv"),
            "-f",
            "json",
            "--fail-under",
            "split_accuracy_with_order=0.5",
            "--no-data-passes",
        ],
        capsys,
        monkeypatch,
    )
    assert code == 0 and json.loads(out)["gates"][0]["status"] == "no data"
    # A page table has no sections: without --no-data-passes the gate fails for lack of data.
    code, out, err = _run(
        ["split", str(FIXTURE / "pages.csv"), "-f", "json", "--fail-under", "split_accuracy_with_order=0.5"],
        capsys,
        monkeypatch,
    )
    gate = json.loads(out)["gates"][0]
    assert code == 1 and (gate["status"], gate["actual"], gate["no_data"]) == ("failed", None, True)
    assert "1 quality gate(s) failed, 1 for lack of data" in err and "--no-data-passes" in err
    empty = _write(tmp_path / "gt.jsonl", [])
    code, _, _ = _run(
        [
            "split",
            empty,
            empty.replace("gt", "pred") if False else _write(tmp_path / "p.jsonl", []),
            "--fail-under",
            "packet_score=0",
        ],
        capsys,
        monkeypatch,
    )
    assert code == 1  # no packet scored: every gate fails


def test_output_file_and_inputs_never_overwritten(tmp_path, capsys, monkeypatch) -> None:
    gt, pred = str(FIXTURE / "gt.jsonl"), str(FIXTURE / "pred.jsonl")
    target = tmp_path / "report.json"
    code, out, _ = _run(["split", gt, pred, "-o", str(target)], capsys, monkeypatch)
    assert code == 0 and f"JSON report written to {target}" in out.replace("\n", "")
    assert json.loads(target.read_text())["packet_count"] == 6
    copy = tmp_path / "pred.jsonl"
    copy.write_text((FIXTURE / "pred.jsonl").read_text())
    code, _, err = _run(["split", gt, str(copy), "-o", str(copy)], capsys, monkeypatch)
    assert code == 2 and copy.read_text() == (FIXTURE / "pred.jsonl").read_text()


def test_markdown(capsys, monkeypatch) -> None:
    code, out, _ = _run(
        ["split", str(FIXTURE / "gt.jsonl"), str(FIXTURE / "pred.jsonl"), "-f", "markdown"], capsys, monkeypatch
    )
    assert code == 0
    assert "| Packet score | 0.809 |" in out and "| `invoice` | `form` | 2 |" in out and "### Worst packets" in out


def test_tables_fit_80_columns_piped_with_every_figure_whole(tmp_path, capsys, monkeypatch) -> None:
    long_class = "commercial_invoice_with_customs_declaration_and_certificate_of_origin"
    gt = _write(
        tmp_path / "gt.jsonl",
        [
            {
                "packet_id": f"PACKET-{'x' * 60}-{k}",
                "sections": [
                    {"document_class": long_class, "page_indices": list(range(1200))},
                    {"document_class": "receipt", "page_indices": [1200 + k]},
                ],
            }
            for k in range(3)
        ],
    )
    pred = _write(
        tmp_path / "pred.jsonl",
        [
            {
                "packet_id": f"PACKET-{'x' * 60}-{k}",
                "sections": [
                    {"document_class": "receipt", "page_indices": list(range(1200 + k, 1200, -1))},
                    {"document_class": long_class, "page_indices": list(range(0, 1200 - k))},
                ],
            }
            for k in range(3)
        ],
    )
    code, out, _ = _run(["split", gt, pred, "-o", str(tmp_path / "r.json")], capsys, monkeypatch)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    report = json.loads((tmp_path / "r.json").read_text())
    assert "…" not in out
    for value in report["metrics"].values():
        assert f"{value:.3f}" in out
    for c in report["classes"]:
        assert re.search(rf"\b{c['gt_pages']:,}\b", out) and f"{c['f1']:.3f}" in out
    for p in report["worst_packets"]:
        assert f"{p['packet_score']:.3f}" in out and f"{p['pages']}" in out
    assert f"{report['counts']['pages']:,} pages" in out


def test_alpha_and_beta_weigh_the_packet_score(capsys, monkeypatch) -> None:
    files = [str(FIXTURE / "gt.jsonl"), str(FIXTURE / "pred.jsonl")]
    code, out, err = _run(["split", *files, "-f", "json", "--alpha", "1", "--beta", "0"], capsys, monkeypatch)
    report = json.loads(out)
    assert code == 0 and err == ""
    assert report["metrics"]["packet_score"] == pytest.approx(report["metrics"]["clustering_score"], abs=CLOSE)
    code, _, err = _run(["split", *files, "-f", "json", "--alpha", "1", "--beta", "1"], capsys, monkeypatch)
    assert code == 0 and "warning: --alpha + --beta = 2, not 1" in err
    code, _, err = _run(["split", *files, "--v-measure-weight", "2"], capsys, monkeypatch)
    assert code == 2 and "V-measure weight must be in [0, 1]" in err


def test_read_pairs_keeps_ground_truth_order(tmp_path) -> None:
    gt = _write(tmp_path / "gt.jsonl", [dict(GOOD, packet_id=k) for k in (3, 1, 2)])
    pred = _write(tmp_path / "pred.jsonl", [dict(GOOD, packet_id=k) for k in (1, 2, 3)])
    reading = Reading()
    report = build(read_pairs(gt, pred, reading), reading, Weights())
    assert report["packet_count"] == 3 and report["metrics"]["packet_score"] == 1.0 and report["worst_packets"] == []
