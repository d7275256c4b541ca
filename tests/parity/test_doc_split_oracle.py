"""`stickler split`'s figures equal stickler-eval 1.0.0's `doc_split` on generated packets: the
classical ones (DocSplitClassificationMetrics) per packet, the graded ones (evaluate_packet) on
the page table of each packet, under several weights and strict clustering; and evaluate_packet
on page-table CSV files equals what `stickler split PAGES.csv` reads and scores.

The oracle needs pandas (the library's `docsplit` extra, which `make parity` installs).
"""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from stickler_cli.packets.metrics import Section, Weights, classify, page_table, score_pages
from stickler_cli.run.packets import Reading, read_page_table
from tests.support.packets import library_rows, packet

pytestmark = pytest.mark.oracle
TOLERANCE = 1e-12
WEIGHTS = [
    Weights(),
    Weights(strict=True),
    Weights(0.7, 0.3, 0.25, False),
    Weights(0.3, 0.7, 1.0, True),
    Weights(0.5, 0.5, 0.0, False),
]
PACKETS = 400


def _oracle(request: dict) -> dict:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    script = Path(__file__).with_name("doc_split_oracle.py")
    done = subprocess.run([python, str(script)], input=json.dumps(request), capture_output=True, text=True)
    if done.returncode and "requires pandas" in done.stderr:
        pytest.fail("the oracle lacks pandas: pip install 'stickler-eval[docsplit]==1.0.0' in its venv")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _sections(raw: list[dict]) -> tuple[Section, ...]:
    return tuple(Section(s["document_class"], tuple(s["page_indices"])) for s in raw)


def _weights(w: Weights) -> dict:
    return {"alpha": w.alpha, "beta": w.beta, "v_measure_weight": w.v_measure_weight, "strict": w.strict}


def _close(ours: float, theirs: float, what: str) -> None:
    assert abs(ours - theirs) <= TOLERANCE, f"{what}: ours {ours!r}, library {theirs!r}"


def test_generated_packets_equal_the_library() -> None:
    rng = random.Random(18)
    cases = [packet(rng) for _ in range(PACKETS)]
    theirs = _oracle(
        {
            "packets": [{"gt": gt, "pred": pred, "rows": library_rows(gt, pred)} for gt, pred in cases],
            "weights": [_weights(w) for w in WEIGHTS],
        }
    )["packets"]
    seen_strict_difference = False
    for k, ((gt, pred), expected) in enumerate(zip(cases, theirs)):
        mine = classify(_sections(gt), _sections(pred))
        _close(mine.page_accuracy, expected["page_accuracy"], f"packet {k} page accuracy")
        _close(mine.split_accuracy_without_order, expected["split_accuracy_without_order"], f"packet {k} split")
        _close(mine.split_accuracy_with_order, expected["split_accuracy_with_order"], f"packet {k} ordered split")
        rows = page_table(_sections(gt), _sections(pred))
        for w, library in zip(WEIGHTS, expected["graded"]):
            g = score_pages(rows, w)
            for ours, key in (
                (g.packet_score, "final_score"),
                (g.clustering, "clustering_score"),
                (g.v_measure, "v_measure"),
                (g.rand_index, "rand_index"),
                (g.ordering, "avg_ordering_score"),
            ):
                _close(ours, library[key], f"packet {k} {key} {w}")
        seen_strict_difference |= expected["graded"][0]["v_measure"] != expected["graded"][1]["v_measure"]
    assert seen_strict_difference  # the cases exercise strict clustering


def _write_table(path: Path, rows: list[dict], packet_ids: list[str] | None = None) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        columns = [
            "group_id",
            "group_id_predicted",
            "page_number",
            "page_number_predicted",
            "class_label",
            "class_label_predicted",
        ]
        writer.writerow(columns)
        for row in rows:
            writer.writerow([row[c] for c in columns])


def test_page_table_csv_equals_the_library(tmp_path: Path) -> None:
    rng = random.Random(7)
    paths = []
    for k in range(60):
        gt, pred = packet(rng)
        rows = library_rows(gt, pred)
        # Page numbers 1-based and global in some files: only their order counts.
        if k % 2:
            rows = [
                dict(
                    r, page_number=r["page_number"] + 1 + 10 * k, page_number_predicted=r["page_number_predicted"] * 2.5
                )
                for r in rows
            ]
        path = tmp_path / f"pages{k}.csv"
        _write_table(path, rows)
        paths.append(path)
    theirs = _oracle({"packets": [], "weights": [_weights(w) for w in WEIGHTS], "csv": [str(p) for p in paths]})["csv"]
    for path, expected in zip(paths, theirs):
        pairs = list(read_page_table(str(path), Reading()))
        rows = pairs[0].rows if pairs else ()
        for w, library in zip(WEIGHTS, expected):
            g = score_pages(rows or [], w)
            _close(g.packet_score, library["final_score"], f"{path.name} {w}")
            _close(g.v_measure, library["v_measure"], f"{path.name} V {w}")
            _close(g.rand_index, library["rand_index"], f"{path.name} RI {w}")
            _close(g.ordering, library["avg_ordering_score"], f"{path.name} tau {w}")


def test_fixture_golden_numbers_are_the_library_s() -> None:
    """The golden numbers tests/packets/test_split.py holds for fixtures/packets came from the library."""
    from tests.packets.test_split import FIXTURE_GOLDEN, fixture_cases

    cases = fixture_cases()
    theirs = _oracle(
        {
            "packets": [{"gt": gt, "pred": pred, "rows": library_rows(gt, pred)} for _, gt, pred in cases],
            "weights": [_weights(Weights()), _weights(Weights(strict=True))],
        }
    )["packets"]
    for (packet_id, _, _), expected in zip(cases, theirs):
        golden = FIXTURE_GOLDEN[packet_id]
        for key in ("page_accuracy", "split_accuracy_without_order", "split_accuracy_with_order"):
            _close(golden[key], expected[key], f"{packet_id} {key}")
        _close(golden["packet_score"], expected["graded"][0]["final_score"], f"{packet_id} packet score")
        _close(golden["strict_packet_score"], expected["graded"][1]["final_score"], f"{packet_id} strict packet score")
