"""report/stability.py on records made by hand: no engine, no files."""

from __future__ import annotations

import pytest

from stickler_cli.errors import UsageError
from stickler_cli.report import stability
from stickler_cli.report.stability import Scored

TP, FD, FN, TN = [1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1]


def _doc(a: list[int], b: list[int], missing: bool = False) -> Scored:
    """Two fields, a and b; each field's score 1 when TP or TN, else 0; the document's their mean."""
    scores = [1.0 if c in (TP, TN) else 0.0 for c in (a, b)]
    return Scored(sum(scores) / 2, [a, b], scores, [1, 1], missing)


def test_figures_of_two_runs():
    run_1 = [_doc(TP, TP), _doc(TP, FD), _doc(FN, TN)]
    run_2 = [_doc(TP, TP), _doc(TP, TP), _doc(TP, TN, missing=True)]  # a missing document is right nowhere
    report = stability.build(["a", "b"], [run_1, run_2], flaky=0.4)
    a, b, total = report["fields"]["a"], report["fields"]["b"], report["total"]
    # a: doc 1 RR, doc 2 RR, doc 3 -- (FN, then missing)
    assert (a["pass_k"], a["pass_at_k"], a["flip_rate"]) == (2 / 3, 2 / 3, 0.0)
    # b: doc 1 RR, doc 2 -R, doc 3 R- (TN, then missing)
    assert (b["pass_k"], b["pass_at_k"], b["flip_rate"]) == (1 / 3, 1.0, 2 / 3)
    assert b["stability"] == pytest.approx(1 / 3)
    # the document: doc 1 RR, doc 2 -R, doc 3 --
    assert (total["pass_k"], total["pass_at_k"], total["flip_rate"]) == (1 / 3, 2 / 3, 1 / 3)
    # doc 3 is missing from run 2: 0 in every field and overall, whatever its (made up) counts say
    assert a["mean_score_per_run"] == [2 / 3, 2 / 3] and b["mean_score_per_run"] == [2 / 3, 2 / 3]
    assert total["mean_score_per_run"] == [(1 + 0.5 + 0.5) / 3, 2 / 3]
    assert report["missing_per_run"] == [0, 1] and report["flaky_fields"] == ["b"]  # 2/3 > 0.4; a's 0 is not


def test_a_missing_document_scores_0_in_a_field_of_list_items_too():
    """A field of a list's items (items.k): the engine compares it on no item of the prediction {}, so a missing
    document has score_n 0 there. It scores 0 in as many comparisons as the field has where the document is
    present: doc 1 has 2 items (sum 2 of 2 in both runs), doc 2 has 1 (1 of 1 in run 1, missing in run 2, so 0
    of 1): run 1 (2 + 1) / (2 + 1) = 1.0, run 2 (2 + 0) / (2 + 1) = 2/3, their mean 5/6; doc 2 flips (right,
    then missing): flip rate 1/2. A document missing from every run scores 0 in one comparison."""
    present = [Scored(1.0, [[2, 0, 0, 0, 0]], [2.0], [2]), Scored(1.0, [TP], [1.0], [1])]
    missing = Scored(0.0, [[0, 0, 0, 0, 0]], [0.0], [0], missing=True)
    report = stability.build(["items.k"], [present, [present[0], missing]])
    field = report["fields"]["items.k"]
    assert field["mean_score_per_run"] == [1.0, 2 / 3] and field["mean_score"] == pytest.approx(5 / 6)
    assert (field["pass_k"], field["pass_at_k"], field["flip_rate"]) == (1 / 2, 1.0, 1 / 2)
    assert report["total"]["mean_score_per_run"] == [1.0, 1 / 2]
    both = stability.build(["items.k"], [[missing], [missing]])["fields"]["items.k"]
    assert both["mean_score_per_run"] == [0.0, 0.0] and both["flip_rate"] == 0.0


def test_no_document_gives_no_figure():
    report = stability.build(["a"], [[], []])
    assert report["document_count"] == 0
    assert report["total"]["pass_k"] is None and report["fields"]["a"]["flip_rate"] is None
    assert report["flaky_fields"] == []


@pytest.mark.parametrize(
    ("text", "key", "threshold"),
    [("total.pass_k=0.9", "total.pass_k", 0.9), (" a.*.stability = 1 ", "a.*.stability", 1.0)],
)
def test_gates_parse(text, key, threshold):
    gate = stability.parse_gate(text)
    assert (gate.key, gate.threshold) == (key, threshold)


@pytest.mark.parametrize("text", ["total.flip_rate=0.1", "total.pass_k=-0.1", "total.pass_k=x", "pass_k=1", "=1"])
def test_bad_gates(text):
    with pytest.raises(UsageError):
        stability.parse_gate(text)
