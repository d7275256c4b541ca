"""Every pairing shown (issue 42, item 3): how each list's items were paired, in ``--per-document`` lines,
``--non-matches`` rows, the report's worst documents (JSON and HTML) and ``stickler compare`` (JSON and table).
The example is docs/ground-truth.md's ("Every pairing shown"), worked by hand below."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import stickler_cli as st
from stickler_cli import limits
from stickler_cli.cli.app import main
from stickler_cli.engine import Engine, matching

ROOT = Path(__file__).resolve().parents[2]
EXACT = {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}
SCHEMA = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "x-aws-stickler-match-key": "sku",
            "items": {"type": "object", "properties": {"sku": EXACT, "name": EXACT}},
        },
        "tags": {
            "type": "array",
            "items": {"type": "string"},
            "x-aws-stickler-comparator": "ExactComparator",
            "x-aws-stickler-match-order": "position",
        },
        "codes": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-comparator": "ExactComparator"},
    },
}
GT = {
    "items": [{"sku": "A", "name": "pen"}, {"sku": "B", "name": "ink"}, {"name": "pad"}],
    "tags": ["red", "blue"],
    "codes": ["x", "y"],
}
PRED = {
    "items": [{"sku": "B", "name": "inks"}, {"sku": "Z", "name": "pad"}, {"sku": "A", "name": "pen"}, {"sku": "Q"}],
    "tags": ["blue"],
    "codes": ["y", "x", "w"],
}


def _pair(gt: int | None, pred: int | None, rule: str, similarity: float | None) -> dict:
    return {"gt_index": gt, "pred_index": pred, "rule": rule, "similarity": similarity}


# By hand (ExactComparator everywhere: 1 or 0; the items' similarity is the mean over the fields not null on both
# sides). items: A pairs gt 0 / pred 2 by key (1.0), B gt 1 / pred 0 (sku 1, name 0: 0.5). gt 2 has no key: it
# and pred 1 (Z, pad) and pred 3 (Q) go to the Hungarian matching: pad / pad scores (0 + 1) / 2 = 0.5 (sku null
# against Z counts), pad / Q 0 (sku 0, name null against pad 0): gt 2 / pred 1 at 0.5; pred 3 unmatched.
# tags by position: red / blue 0.0; "blue" of the ground truth unmatched. codes by the Hungarian matching:
# x / x and y / y, 1.0 each; w unmatched.
PAIRINGS = {
    "items": [
        _pair(0, 2, "key", 1.0),
        _pair(1, 0, "key", 0.5),
        _pair(2, 1, "hungarian", 0.5),
        _pair(None, 3, "unmatched", None),
    ],
    "tags": [_pair(0, 0, "position", 0.0), _pair(1, None, "unmatched", None)],
    "codes": [_pair(0, 1, "hungarian", 1.0), _pair(1, 0, "hungarian", 1.0), _pair(None, 2, "unmatched", None)],
}


def _by_list(result) -> dict:
    return result.pairings.by_list()


def test_each_list_says_how_its_items_were_paired() -> None:
    engine = Engine(st.compile_schema(SCHEMA))
    assert _by_list(engine.compare(GT, PRED, pairings=True)) == PAIRINGS
    assert _by_list(engine.compare(GT, PRED, explain=True)) == PAIRINGS


def test_a_scoring_run_notes_no_pairing() -> None:
    """Neither path pays for pairings unless asked: the result holds None."""
    engine = Engine(st.compile_schema(SCHEMA))
    assert engine.compare(GT, PRED).pairings is None
    assert engine.score_batch([(GT, PRED)]).document(0).pairings is None


def test_identical_items_of_a_long_list(monkeypatch) -> None:
    """A list beyond the matching bound (lowered to 4 item pairs): codes 2 x 3 = 6 pairs. Identical items pair
    first (x / x, y / y), then the Hungarian matching on what is left (nothing to pair: w unmatched)."""
    monkeypatch.setattr(matching, "MATCH_BOUND", 4)
    engine = Engine(st.compile_schema({"type": "object", "properties": {"codes": SCHEMA["properties"]["codes"]}}))
    gt, pred = {"codes": ["x", "y", "v"]}, {"codes": ["y", "x", "w"]}
    # 3 x 3 = 9 pairs: x / x and y / y identical; v / w (1 x 1, within the bound) by the Hungarian matching, 0.0.
    assert _by_list(engine.compare(gt, pred, pairings=True)) == {
        "codes": [_pair(0, 1, "identical", 1.0), _pair(1, 0, "identical", 1.0), _pair(2, 2, "hungarian", 0.0)]
    }


def test_the_pairings_are_bounded_by_explain_items() -> None:
    """--limit explain-items=3: the first three of the nine pairings above, six counted as not shown."""
    before = limits.current()
    limits.use(limits.parse(["explain-items=3"]))
    try:
        result = Engine(st.compile_schema(SCHEMA)).compare(GT, PRED, pairings=True)
    finally:
        limits.use(before)
    assert _by_list(result) == {"items": PAIRINGS["items"][:3]}
    assert result.pairings.more == 6


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"schema": tmp_path / "s.json", "gt": tmp_path / "gt.jsonl", "pred": tmp_path / "pred.jsonl"}
    paths["schema"].write_text(json.dumps(SCHEMA))
    paths["gt"].write_text(json.dumps(GT) + "\n")
    paths["pred"].write_text(json.dumps(PRED) + "\n")
    return paths


def test_per_document_non_matches_and_the_report_carry_them(files, tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = {name: tmp_path / name for name in ("pd.jsonl", "nm.jsonl", "report.json", "report.html")}
    code = main(
        [
            "eval",
            *(str(files[k]) for k in ("schema", "gt", "pred")),
            "--per-document",
            str(out["pd.jsonl"]),
            "--non-matches",
            str(out["nm.jsonl"]),
            "-o",
            str(out["report.json"]),
            "--html",
            str(out["report.html"]),
        ]
    )
    capsys.readouterr()
    assert code == 0
    (line,) = [json.loads(text) for text in out["pd.jsonl"].read_text().splitlines()]
    assert line["pairings"] == PAIRINGS
    rows = [json.loads(text) for text in out["nm.jsonl"].read_text().splitlines()]
    # The non-matching item rows, each with its pair; the list's row and a field's row (items[1↔0].name) have none.
    assert {r["path"]: r.get("pair") for r in rows} == {
        "items": None,
        "items[1↔0]": PAIRINGS["items"][1],
        "items[1↔0].name": None,
        "items[2↔1]": PAIRINGS["items"][2],
        "items[-↔3]": PAIRINGS["items"][3],
        "tags[0↔0]": PAIRINGS["tags"][0],
        "tags[1↔-]": PAIRINGS["tags"][1],
        "codes[-↔2]": PAIRINGS["codes"][2],
    }
    report = json.loads(out["report.json"].read_text())
    jsonschema.validate(report, json.loads((ROOT / "schemas/report.schema.json").read_text()))
    (worst,) = report["worst_documents"]
    assert worst["pairings"] == PAIRINGS and "pairings_not_shown" not in worst
    html = out["report.html"].read_text()
    assert "How the list items were paired" in html
    assert '<tr class="pairing"><td>items</td><td class="n">2</td><td class="n">1</td><td>hungarian</td>' in html
    assert '<tr class="pairing"><td>tags</td><td class="n">1</td><td class="n">–</td><td>unmatched</td>' in html


def test_compare_shows_them(files, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    args = ["compare", *(str(files[k]) for k in ("schema", "gt", "pred"))]
    assert main([*args, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairings"] == PAIRINGS
    assert main(args) == 0
    table = capsys.readouterr().out.split("How the list items were paired")[1]
    rows = [line.split() for line in table.splitlines() if line.split()[:1] in (["items"], ["tags"], ["codes"])]
    assert rows == [
        ["items", "0", "2", "key", "1.000"],
        ["items", "1", "0", "key", "0.500"],
        ["items", "2", "1", "hungarian", "0.500"],
        ["items", "-", "3", "unmatched", "-"],
        ["tags", "0", "0", "position", "0.000"],
        ["tags", "1", "-", "unmatched", "-"],
        ["codes", "0", "1", "hungarian", "1.000"],
        ["codes", "1", "0", "hungarian", "1.000"],
        ["codes", "-", "2", "unmatched", "-"],
    ]


def test_a_keyed_list_beyond_the_matching_bound(monkeypatch) -> None:
    """The matching bound lowered to 4 item pairs: items (3 x 4) pair by key first, then gt 2 against pred 1 and
    3 (2 pairs, within the bound) by the Hungarian matching, as above; codes (2 x 3) pair their identical items
    first. The figures do not move: the same pairs."""
    engine = Engine(st.compile_schema(SCHEMA))
    plain = engine.compare(GT, PRED)
    monkeypatch.setattr(matching, "MATCH_BOUND", 4)
    bounded = engine.compare(GT, PRED, pairings=True)
    assert _by_list(bounded) == {
        **PAIRINGS,
        "codes": [_pair(0, 1, "identical", 1.0), _pair(1, 0, "identical", 1.0), _pair(None, 2, "unmatched", None)],
    }
    assert (bounded.score, bounded.tally) == (plain.score, plain.tally)
    # codes is named; items is not: what its key left (1 x 2 items) is within the bound, matched as any list's.
    assert [e.split(":")[0] for e in bounded.errors] == ["codes"]


NESTED = {
    "type": "object",
    "properties": {
        "orders": {
            "type": "array",
            "x-aws-stickler-match-key": "no",
            "items": {
                "type": "object",
                "properties": {
                    "no": {"type": "integer"},
                    "lines": {
                        "type": "array",
                        "x-aws-stickler-match-key": "sku",
                        "items": {"type": "object", "properties": {"sku": EXACT}},
                    },
                },
            },
        }
    },
}


def test_explain_items_keeps_the_pairings_from_the_top() -> None:
    """Two orders, paired by key (gt 0 with pred 1, gt 1 with pred 0), each with two lines paired by key: 2 + 2 + 2
    pairings, outer list first. With --limit explain-items=3, the orders' two and the first order's first line are
    kept, in that walk order; 3 are counted as not shown."""
    gt = {
        "orders": [{"no": 1, "lines": [{"sku": "a"}, {"sku": "b"}]}, {"no": 2, "lines": [{"sku": "c"}, {"sku": "d"}]}]
    }
    pred = {
        "orders": [{"no": 2, "lines": [{"sku": "d"}, {"sku": "c"}]}, {"no": 1, "lines": [{"sku": "a"}, {"sku": "b"}]}]
    }
    engine = Engine(st.compile_schema(NESTED))
    whole = engine.compare(gt, pred, pairings=True)
    assert list(_by_list(whole)) == ["orders", "orders[0↔1].lines", "orders[1↔0].lines"]
    before = limits.current()
    limits.use(limits.parse(["explain-items=3"]))
    try:
        result = engine.compare(gt, pred, pairings=True)
    finally:
        limits.use(before)
    assert _by_list(result) == {
        "orders": [_pair(0, 1, "key", 1.0), _pair(1, 0, "key", 1.0)],
        "orders[0↔1].lines": [_pair(0, 0, "key", 1.0)],
    }
    assert result.pairings.more == 3
