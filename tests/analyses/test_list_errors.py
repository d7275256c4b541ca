"""What went wrong in a list (issue 19, item 1): each label built on purpose, worked by hand, on both engine
paths (the batch and Engine.compare); the order of precedence; Kendall tau; counts that add up over workers,
batches and `stickler merge`; the bound; bad states; the terminal at 80 columns, Markdown and HTML."""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path

import jsonschema
import orjson
import pytest

from stickler_cli import limits
from stickler_cli.cli.app import main
from stickler_cli.engine import Engine
from stickler_cli.engine.row_errors import _claimable, kendall_tau
from stickler_cli.run.evaluate import evaluate_pairs
from stickler_cli.analyses.list_errors import describe
from stickler_cli.schema import compile_schema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"description": {"type": "string"}, "qty": {"type": "number"}}},
        },
    },
}
PLAN = compile_schema(SCHEMA)


def row(description: str, qty: float) -> dict:
    return {"description": description, "qty": qty}


A, B, C, D = row("steel bolts", 10), row("copper wire", 20), row("rubber gasket", 30), row("brass hinge", 40)


def findings(gt_items, pred_items):
    """(events, tau, unclassified) of the one list, checked equal on both engine paths."""
    docs = [({"id": "x", "items": gt_items}, {"id": "x", "items": pred_items})]
    batch = Engine(PLAN).score_batch(docs).list_errors.get(0, [])
    single = Engine(PLAN).compare(*docs[0]).list_errors
    assert batch == single
    assert len(batch) <= 1
    if not batch:
        return None
    f = batch[0]
    return f.events, f.tau, f.unclassified


# -- each label on purpose ------------------------------------------------------------------------------------


def test_a_list_matched_whole_and_in_order_says_nothing():
    assert findings([A, B, C], [A, B, C]) is None


def test_dropped_a_truth_row_with_no_counterpart():
    # B has no predicted row: A-A and C-C match, B is unpaired.
    assert findings([A, B, C], [A, C]) == ([("dropped", (1,), ())], None, 0)


def test_hallucinated_a_predicted_row_unlike_any_truth_row():
    assert findings([A, B], [A, B, row("xylophone case", 999)]) == ([("hallucinated", (), (2,))], None, 0)


def test_duplicated_a_predicted_row_matching_a_truth_row_already_matched():
    # Predicted row 2 is A again: similarity 1.0 with truth row 0, which predicted row 0 matched.
    assert findings([A, B], [A, B, A]) == ([("duplicated", (0,), (2,))], None, 0)


def test_merged_one_predicted_row_spanning_two_adjacent_truth_rows():
    # "steel bolts copper wire" is truth rows 0 and 1 joined: token-sort ratio 1.0 against the joined text,
    # far above each row alone (0.65 and 0.63), so neither row is dropped.
    assert findings([A, B, C], [row("steel bolts copper wire", 30), C]) == ([("merged", (0, 1), (0,))], None, 0)


def test_merged_reads_rich_values_and_skips_what_is_not_text():
    # The same merge with the predicted description a rich value, and the quantities (numbers) left out of
    # the rows' texts: the row text is "steel bolts copper wire" either way.
    merged = {"description": {"_value": "steel bolts copper wire", "_confidence": 0.4}, "qty": 30}
    assert findings([A, B, C], [merged, C]) == ([("merged", (0, 1), (0,))], None, 0)
    # A rich value without "_value" is not text: the predicted row has none, and nothing is merged.
    assert findings([A, B, C], [{"description": {"_confidence": 0.4}, "qty": 30}, C])[0] == [
        ("dropped", (0,), ()),
        ("dropped", (1,), ()),
        ("hallucinated", (), (0,)),
    ]


def test_merged_and_split_of_texts_beyond_ascii():
    # Non-ASCII rows take the exact words for their lower bound (no letter count by bytes): the same labels.
    e, f = row("Écrou à œil", 10), row("Straße 螺丝", 20)
    assert findings([e, f, C], [row("écrou à œil straße 螺丝", 30), C]) == ([("merged", (0, 1), (0,))], None, 0)
    assert findings([row("ÉCROU À ŒIL STRASSE 螺丝", 30), C], [e, f, C])[0] == [("split", (0,), (0, 1))]


def test_row_text_bounds_hold_the_words_between_them():
    """merged and split skip rows by two bounds of a row's words (rapidfuzz's processing, sorted): at least
    the row's count of ASCII letters and digits, 0 exactly when it has no words; at most its raw text's length."""
    from hypothesis import given, settings
    from hypothesis import strategies as hs
    from rapidfuzz.utils import default_process

    from stickler_cli.engine.row_errors import _Texts

    @settings(deadline=None, max_examples=400)
    @given(
        texts=hs.lists(
            hs.one_of(
                hs.text(alphabet=hs.characters(max_codepoint=127), max_size=20),
                hs.text(max_size=12),
                hs.none(),
                hs.integers(),
            ),
            min_size=1,
            max_size=4,
        )
    )
    def bounds_hold(texts):
        rows = [{"description": t, "sku": t} for t in texts]
        tx = _Texts(("description", "sku"), rows)
        wanted = list(range(len(rows)))
        least, raw, words = [tx.least(k) for k in wanted], [tx.raw_of(k) for k in wanted], tx.read_words(wanted)
        for k, t in enumerate(texts):
            expected = " ".join(sorted(default_process(f"{t} {t}").split())) if type(t) is str else ""
            assert words[k] == expected
            assert least[k] <= len(words[k]) <= len(raw[k])
            assert (least[k] == 0) == (words[k] == "")

    bounds_hold()


def test_split_two_predicted_rows_making_one_truth_row():
    assert findings([row("steel bolts copper wire", 30), C], [A, B, C]) == ([("split", (0,), (0, 1))], None, 0)


def test_mismatched_a_pair_below_the_match_threshold_but_alike():
    # Same description, another quantity: similarity (1.0 + 0.0) / 2 = 0.5, below the match threshold 0.7 and at
    # the like similarity 0.5: the row is there, its values are wrong.
    assert findings([A, B], [A, row("copper wire", 99)]) == ([("mismatched", (1,), (1,))], None, 0)


def test_truncated_tail_the_last_rows_all_missing():
    assert findings([A, B, C, D], [A, B]) == ([("truncated", (2,), ()), ("truncated", (3,), ())], None, 0)


def test_one_missing_last_row_is_dropped_not_a_truncated_tail():
    """tail_rows is 2: a lone last row missing is a dropped row; raised to 3, two are dropped too."""
    assert findings([A, B, C], [A, B]) == ([("dropped", (2,), ())], None, 0)
    old = limits.current()
    limits.use(limits.parse(["list-tail-rows=3"]))
    try:
        assert findings([A, B, C, D], [A, B]) == ([("dropped", (2,), ()), ("dropped", (3,), ())], None, 0)
    finally:
        limits.use(old)


def test_a_tail_with_nothing_matched_before_it_is_dropped():
    # Nothing matched: the model did not stop early, it got every row wrong.
    found = findings([A, B], [row("xylophone case", 999)])
    assert found == ([("dropped", (0,), ()), ("dropped", (1,), ()), ("hallucinated", (), (0,))], None, 0)


def test_reordered_matched_rows_out_of_order_with_kendall_tau():
    # Truth rows 0, 1, 2 matched to predicted rows 1, 2, 0: order [1, 2, 0]; pairs (1,2) concordant, (1,0) and
    # (2,0) discordant: tau = (1 - 2) / 3 = -1/3. Scoring ignores the order: nothing else is said.
    assert findings([A, B, C], [C, A, B]) == ([], pytest.approx(-1 / 3), 0)
    assert findings([A, B], [B, A]) == ([], -1.0, 0)


def test_kendall_tau_worked_by_hand():
    assert kendall_tau([0, 1, 2, 3]) == 1.0
    assert kendall_tau([3, 2, 1, 0]) == -1.0
    assert kendall_tau([2, 0, 1]) == pytest.approx(-1 / 3)
    # [0, 2, 1, 3]: of 6 pairs only (2, 1) is discordant: (5 - 1) / 6.
    assert kendall_tau([0, 2, 1, 3]) == pytest.approx(4 / 6)
    assert kendall_tau([5]) == 1.0


def test_kendall_tau_equals_its_definition_on_both_paths():
    """Counting discordant pairs (up to SMALL_TAU values) and the arrays (beyond) both give (C - D) / (k(k-1)/2),
    bit for bit, on seeded permutations of 2 to 40 values."""
    draw = random.Random(3)
    for k in range(2, 41):
        for _ in range(5):
            order = draw.sample(range(100), k)
            pairs = list(itertools.combinations(order, 2))
            concordant = sum(1 for x, y in pairs if x < y)
            assert kendall_tau(order) == (concordant - (len(pairs) - concordant)) / (k * (k - 1) / 2), order


def test_claimable_pairs_of_one_open_row_are_its_two_neighbouring_pairs():
    """One open row r of a side of ``size`` rows, the others matched: the pairs (r - 1, r) and (r, r + 1) that exist,
    each with the partner of its matched row, as the general walk finds them (two open rows shown for contrast)."""
    for size in range(1, 7):
        partner = {row: 10 + row for row in range(size)}
        for r in range(size):
            tp = {row: j for row, j in partner.items() if row != r}
            expected = ([(10 + r - 1, r - 1)] if r >= 1 else []) + ([(10 + r + 1, r)] if r + 1 < size else [])
            assert _claimable([r], size, tp, [7]) == expected
    # Rows 1 and 2 open of 4: (0, 1) claimed by 0's partner, (1, 2) by each open row of the other side, (2, 3) by 3's.
    assert _claimable([1, 2], 4, {0: 10, 3: 13}, [7, 8]) == [(10, 0), (7, 1), (8, 1), (13, 2)]


# -- precedence ---------------------------------------------------------------------------------------------


def test_merged_comes_before_dropped():
    """Truth rows 0 and 1 are open (one paired below the threshold, one unpaired): merged claims both."""
    events, _, _ = findings([A, B, D], [row("steel bolts copper wire", 99), D])
    assert events == [("merged", (0, 1), (0,))]


def test_duplicated_comes_before_mismatched_and_the_truth_row_is_then_dropped():
    """Predicted row 1 is A again (duplicated) though paired with truth row 1 at similarity 0.5 (alike): the
    duplicate wins, and truth row 1, left without a counterpart, is dropped."""
    b_like_a = row("steel bolts", 20)  # truth row 1: A's text, B's quantity
    events, _, _ = findings([A, b_like_a], [A, A])
    # Hungarian: A-A (1.0) and b_like_a-A (0.5), or the other way round; either way one A matches truth row 0.
    assert events == [("duplicated", (0,), (1,)), ("dropped", (1,), ())]


def test_each_open_row_gets_one_label():
    events, _, _ = findings(
        [A, B, C, D, row("oak plank", 5)], [row("steel bolts copper wire", 99), A, C, row("xylophone case", 999)]
    )
    gt_rows = [r for _, gt, _ in events for r in gt]
    pred_rows = [r for _, _, pred in events for r in pred]
    assert len(set(gt_rows)) == len(gt_rows) and len(set(pred_rows)) == len(pred_rows)


# -- edges ----------------------------------------------------------------------------------------------------


def test_one_side_null_or_empty():
    assert findings([A, B], None) == ([("dropped", (0,), ()), ("dropped", (1,), ())], None, 0)
    assert findings([], [A]) == ([("hallucinated", (), (0,))], None, 0)
    assert findings(None, None) is None and findings([], []) is None


def test_a_list_beyond_the_bound_is_counted_unclassified():
    old = limits.current()
    limits.use(limits.parse(["list-classify-cells=4"]))
    try:
        # 3 x 2 = 6 pairs > 4: not classified; open rows: truth row 1 (dropped otherwise) = 1.
        assert findings([A, B, C], [A, C]) == ([], None, 1)
        report = _report([({"items": [A, B, C]}, {"items": [A, C]})])
        assert report["list_errors"]["fields"]["items"]["unclassified_lists"] == 1
        assert "1 rows unclassified" in describe(report["list_errors"]["fields"]["items"]["examples"][0])
    finally:
        limits.use(old)


def test_a_similarity_setting_above_one_is_refused():
    with pytest.raises(Exception, match="at most 1"):
        limits.parse(["list-text-similarity=1.5"])


# -- the run: counts, examples, report ----------------------------------------------------------------------

CASES = [
    ([A, B, C], [A, C]),
    ([A, B], [A, B, A]),
    ([A, B, C], [C, A, B]),
    ([A, B, C, D], [A, B]),
    ([A, B, C], [row("steel bolts copper wire", 30), C]),
    ([A, B], [A, B]),
    ([A, B], None),
]


def _report(pairs):
    from stickler_cli.run.evaluate import Evaluation
    from stickler_cli.report.build import build_report

    return build_report(Evaluation(PLAN, evaluate_pairs(PLAN, pairs)))


def test_counts_and_examples_over_a_run():
    block = _report([({"items": g}, {"items": p}) for g, p in CASES])["list_errors"]
    items = block["fields"]["items"]
    assert {
        k: items[k]
        for k in (
            "dropped",
            "duplicated",
            "truncated",
            "truncated_lists",
            "merged",
            "reordered",
            "lists",
            "split",
            "hallucinated",
            "mismatched",
        )
    } == {
        "dropped": 3,
        "duplicated": 1,
        "truncated": 2,
        "truncated_lists": 1,
        "merged": 1,
        "reordered": 1,
        "lists": 6,
        "split": 0,
        "hallucinated": 0,
        "mismatched": 0,
    }
    assert items["mean_tau"] == -0.333333  # taus are summed in millionths: exact in any grouping
    # Worst first (most events), ties earlier in the input first: the truncated list (2 events, document 3) and
    # the null prediction (2, document 6), then the single events in input order.
    assert [e["position"] for e in items["examples"]] == [3, 6, 0, 1, 2]
    assert describe(items["examples"][0]) == "truncated gt 2, 3"
    assert block["settings"] == {
        "like_similarity": 0.5,
        "text_similarity": 0.8,
        "text_margin": 0.1,
        "tail_rows": 2,
        "classify_cells": 10_000,
    }


def _write(folder: Path, cases, copies: int = 20) -> tuple[str, str]:
    gt, pred = folder / "gt.jsonl", folder / "pred.jsonl"
    gt.write_bytes(
        b"".join(
            orjson.dumps({"id": f"d{k}-{n}", "items": g}) + b"\n"
            for n in range(copies)
            for k, (g, _) in enumerate(cases)
        )
    )
    pred.write_bytes(
        b"".join(
            orjson.dumps({"id": f"d{k}-{n}", "items": p}) + b"\n"
            for n in range(copies)
            for k, (_, p) in enumerate(cases)
        )
    )
    return str(gt), str(pred)


@pytest.fixture
def files(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    return (str(schema), *_write(tmp_path, CASES))


class Result:
    def __init__(self, exit_code: int, output: str) -> None:
        self.exit_code, self.output = exit_code, output


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    global _capsys
    _capsys = capsys


def _run(*args):
    """The command line as a user runs it (exit codes mapped), its output piped at 80 columns."""
    _capsys.readouterr()
    code = main([*args, "--no-progress"] if args[0] == "eval" else list(args))
    captured = _capsys.readouterr()
    return Result(code, captured.out + captured.err)


def test_workers_and_merged_states_agree_with_one_run(files, tmp_path):
    schema, gt, pred = files
    one = tmp_path / "one.json"
    assert _run("eval", schema, gt, pred, "-o", str(one)).exit_code == 0
    two = tmp_path / "two.json"
    assert _run("eval", schema, gt, pred, "-o", str(two), "--workers", "2").exit_code == 0
    # Two halves saved as states, then merged.
    lines_g, lines_p = Path(gt).read_bytes().splitlines(True), Path(pred).read_bytes().splitlines(True)
    states = []
    for part, (lo, hi) in enumerate([(0, 61), (61, len(lines_g))]):
        g, p = tmp_path / f"g{part}.jsonl", tmp_path / f"p{part}.jsonl"
        g.write_bytes(b"".join(lines_g[lo:hi]))
        p.write_bytes(b"".join(lines_p[lo:hi]))
        state = tmp_path / f"s{part}.json"
        assert _run("eval", schema, str(g), str(p), "--save-state", str(state)).exit_code == 0
        states.append(str(state))
    merged = tmp_path / "merged.json"
    assert _run("merge", *states, "-o", str(merged)).exit_code == 0
    reports = [json.loads(path.read_text()) for path in (one, two, merged)]
    for report in reports:
        jsonschema.validate(report, json.loads((ROOT / "schemas/report.schema.json").read_text()))
    blocks = [report["list_errors"] for report in reports]
    assert blocks[0]["fields"]["items"]["dropped"] == 3 * 20
    assert blocks[0] == blocks[1] == blocks[2]


def test_states_of_different_settings_are_not_merged_but_a_merge_adopts_the_first(files, tmp_path):
    schema, gt, pred = files
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert _run("eval", schema, gt, pred, "--save-state", str(a), "--limit", "list-tail-rows=3").exit_code == 0
    assert _run("eval", schema, gt, pred, "--save-state", str(b)).exit_code == 0
    out = tmp_path / "m.json"
    assert _run("merge", str(a), "-o", str(out)).exit_code == 0
    assert json.loads(out.read_text())["list_errors"]["settings"]["tail_rows"] == 3
    result = _run("merge", str(a), str(b))
    assert result.exit_code == 2 and "other settings" in result.output and str(b) in result.output


def test_a_tampered_state_is_refused_with_a_pointer(files, tmp_path):
    schema, gt, pred = files
    path = tmp_path / "s.json"
    assert _run("eval", schema, gt, pred, "--save-state", str(path)).exit_code == 0
    good = json.loads(path.read_text())
    tampered = [
        (lambda s: s["list_errors"]["fields"]["items"].__setitem__("dropped", -1), "/list_errors/fields/items/dropped"),
        (
            lambda s: s["list_errors"]["fields"]["items"]["examples"][0]["events"][0].__setitem__("gt", [99]),
            "/list_errors/fields/items/examples/0/events/0/gt/0",
        ),
        (
            lambda s: s["list_errors"]["settings"].__setitem__("list_like_similarity", 2),
            "/list_errors/settings/list_like_similarity",
        ),
        (
            lambda s: s["list_errors"]["fields"]["items"].__setitem__("truncated_lists", 10**6),
            "/list_errors/fields/items/truncated_lists",
        ),
        (
            lambda s: s["list_errors"]["fields"]["items"]["examples"][0].__setitem__("position", 10**6),
            "/list_errors/fields/items/examples/0/position",
        ),
    ]
    for change, pointer in tampered:
        state = json.loads(json.dumps(good))
        change(state)
        path.write_text(json.dumps(state))
        result = _run("merge", str(path))
        assert result.exit_code == 2, pointer
        assert pointer in result.output and "Traceback" not in result.output


# -- shown --------------------------------------------------------------------------------------------------


def test_terminal_at_80_columns_piped(files):
    schema, gt, pred = files
    result = _run("eval", schema, gt, pred)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert all(len(line) <= 80 for line in lines)
    start = next(k for k, line in enumerate(lines) if line.startswith("What went wrong in lists"))
    table = "\n".join(lines[start : start + 6])
    for header, figure in (
        ("Dropped", "60"),
        ("Tail", "40"),
        ("Dup", "20"),
        ("Merged", "20"),
        ("Reorder", "20 (τ -0.33)"),
    ):
        assert header in table and figure in table
    assert "items · d3-0: truncated gt 2, 3" in result.output


def test_nothing_to_say_shows_nothing(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    gt, pred = _write(tmp_path, [([A, B], [A, B])], copies=2)
    result = _run("eval", str(schema), gt, pred)
    assert result.exit_code == 0 and "What went wrong in lists" not in result.output
    result = _run("eval", str(schema), gt, pred, "-f", "markdown")
    assert "What went wrong in lists" not in result.output


def test_markdown_and_html(files, tmp_path):
    schema, gt, pred = files
    result = _run("eval", schema, gt, pred, "-f", "markdown")
    assert "### What went wrong in lists" in result.output
    assert re.search(r"\| `items` \| 60 \| 40 \| 20 \| 20 \| 20 \(τ -0\.33\) \|", result.output)
    assert "- `items` · `d3-0`: truncated gt 2, 3" in result.output
    page = tmp_path / "r.html"
    assert _run("eval", schema, gt, pred, "--html", str(page)).exit_code == 0
    text = page.read_text()
    assert "<h2>What went wrong in lists</h2>" in text and "<code>d3-0</code>: truncated gt 2, 3" in text


def test_the_invoice_fixture_shows_list_errors():
    """`make demo`'s first run: its line_items show dropped, hallucinated, mismatched and reordered rows."""
    result = _run(
        "eval",
        str(ROOT / "schemas/invoice.json"),
        str(ROOT / "fixtures/invoice/gt.jsonl"),
        str(ROOT / "fixtures/invoice/pred.jsonl"),
    )
    assert "What went wrong in lists" in result.output
    assert re.search(r"line_items +12 +12 +17 +3 \(τ -0\.78\)", result.output)
