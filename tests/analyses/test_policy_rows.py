"""The per-document rows of an auto-accept policy (analyses/policy.py): the batch path keeps the rows the
per-document path keeps, state files round-trip them, and a damaged policy block is refused with its pointer."""

from __future__ import annotations

import json

import numpy as np
import orjson
import pytest

from stickler_cli.analyses.part import Collect
from stickler_cli.analyses.policy import NO_CONFIDENCE
from stickler_cli.cli.app import main
from stickler_cli.engine import Engine
from stickler_cli.run.accumulate import Accumulator
from stickler_cli.schema import compile_schema

SCHEMA = {
    "type": "object",
    "x-aws-stickler-model-name": "Doc",
    "properties": {
        "a": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "tags": {"type": "array", "x-aws-stickler-comparator": "ExactComparator", "items": {"type": "string"}},
    },
}
GT = [{"a": "x", "tags": ["p", "q"]}, {"a": "y", "tags": ["r"]}, {"a": "z", "tags": []}, {"a": None, "tags": []}]
PRED = [
    # a right at 0.9; tags: one right at 0.8, one right at 0.3 -> the lowest is 0.3
    {
        "a": {"_value": "x", "_confidence": 0.9},
        "tags": [{"_value": "p", "_confidence": 0.8}, {"_value": "q", "_confidence": 0.3}],
    },
    # a wrong at 0.7; tags: one value without a confidence -> -1
    {"a": {"_value": "w", "_confidence": 0.7}, "tags": ["r"]},
    # a without a confidence; no tags
    {"a": "z", "tags": []},
    # an empty prediction given with a confidence (right: the ground truth is empty too)
    {"a": {"_value": None, "_confidence": 0.6}, "tags": []},
]


def _rows(batch: bool):
    plan = compile_schema(SCHEMA)
    acc = Accumulator(plan, Collect(policy=True))
    engine = Engine(plan)
    if batch:
        acc.add_batch(engine.score_batch(list(zip(GT, PRED))))
    else:
        for g, p in zip(GT, PRED):
            acc.add(engine.compare(g, p))
    acc.stats.update(gt_lines=4, pred_lines=4, paired=4)  # as the reader counts them
    return plan, acc


@pytest.mark.parametrize("batch", [False, True])
def test_the_rows_by_hand(batch):
    plan, acc = _rows(batch)
    a, tags = (next(f.index for f in plan.fields if f.path == p) for p in ("a", "tags"))
    document, field, low, values, correct = acc.policy.columns()
    got = sorted(zip(document.tolist(), field.tolist(), low.tolist(), values.tolist(), correct.tolist()))
    assert got == sorted(
        [
            (0, a, 0.9, 1, 1),
            (0, tags, 0.3, 2, 2),
            (1, a, 0.7, 1, 0),
            (1, tags, NO_CONFIDENCE, 0, 0),
            (2, a, NO_CONFIDENCE, 0, 0),
            (3, a, 0.6, 1, 1),
        ]
    )
    assert acc.policy.documents == 4


def _saved(tmp_path, capsys):
    """A state saved by `stickler eval --target-precision --save-state` on GT and PRED."""
    files = [tmp_path / "schema.json", tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"]
    files[0].write_text(json.dumps(SCHEMA))
    for path, rows in zip(files[1:], (GT, PRED)):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    state = tmp_path / "s.state"
    args = ["eval", *map(str, files), "--target-precision", "0.5", "--save-state", str(state), "-f", "json"]
    assert main(args) == 0
    capsys.readouterr()
    return state


def test_batch_equals_per_document_and_the_state_round_trips(tmp_path, capsys):
    _, one = _rows(False)
    plan, other = _rows(True)
    assert [c.tolist() for c in one.policy.columns()] == [c.tolist() for c in other.policy.columns()]
    state = _saved(tmp_path, capsys)
    copy = tmp_path / "copy.state"
    copy.write_bytes(state.read_bytes())
    assert main(["merge", str(state), str(copy), "--allow-overlap", "--target-precision", "0.5", "-f", "json"]) == 0
    through = orjson.loads(capsys.readouterr().out)["policy"]["straight_through"]
    # Each copy: document 0 (a at 0.9, tags at 0.3) and 3 (an empty a at 0.6) hold only confident values; at a
    # target of 0.5 nothing is accepted with so few values (the bound of 1 of 1 is 0.05), so none goes through.
    assert through["documents"] == 8 and through["straight_through"] == 0
    merged = orjson.loads(state.read_bytes())["policy"]
    assert merged["documents"] == 4 and sorted(merged["document"]) == [0, 0, 1, 1, 2, 3]


@pytest.mark.parametrize(
    "damage, pointer",
    [
        (lambda b: b.update(documents=5), "/policy/documents"),
        (lambda b: b["low"].__setitem__(0, 1.5), "/policy/low/0"),
        (lambda b: b["field"].__setitem__(0, 99), "/policy/field/0"),
        (lambda b: b["correct"].__setitem__(0, 7), "/policy/correct/0"),
        (lambda b: b.pop("values"), "/policy"),
    ],
)
def test_a_damaged_policy_block_is_refused_with_its_pointer(tmp_path, capsys, damage, pointer):
    path = _saved(tmp_path, capsys)
    state = orjson.loads(path.read_bytes())
    damage(state["policy"])
    path.write_bytes(orjson.dumps(state))
    assert main(["merge", str(path), "-f", "json"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: {pointer}:" in err and len(err.strip().splitlines()) == 1, err


def test_no_rows_and_no_state_key_without_a_policy():
    plan = compile_schema(SCHEMA)
    acc = Accumulator(plan)
    acc.add_batch(Engine(plan).score_batch(list(zip(GT, PRED))))
    assert "policy" not in acc.get_state()
    assert len(acc.policy.columns()[0]) == 0
    assert np.array_equal(acc.policy.columns()[0], np.empty(0))
