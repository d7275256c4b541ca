"""No value from the data can make a comparator, or the engine around it, raise."""

from __future__ import annotations

import math

import pytest

from stickler_cli import compile_schema
from stickler_cli.comparators import build, registered
from stickler_cli.run.evaluate import evaluate_pairs
from tests.support import embeddings  # noqa: F401 - registers the embedding function "letter_counts"


def _deep(depth: int):
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


HOSTILE = [
    _deep(900),
    {"a": _deep(900)},
    10**5000,
    -(10**5000),
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    "x" * 200_000,
    "\x00\x1b[31m",
    "",
    " ",
    True,
    False,
    0,
    [],
    {},
    [None],
    {"_value": None},
    ["2024-01-01", "2024-01-02"],
    [[1, 2], [3, 4]],
    [1, 2, 3, 4],
    "2024-01-01 to",
    "+1 (206) 555-0100 ext. 99999999",
]
SAFE_TO_CALL = [
    cls for cls in registered() if cls.__module__.startswith("stickler_cli.") and cls.name != "LLMComparator"
]


@pytest.mark.parametrize("cls", SAFE_TO_CALL, ids=[c.name for c in SAFE_TO_CALL])
def test_similarity_is_a_number_in_range_for_any_value(cls):
    config = {"embedding_function": "letter_counts"} if cls.name == "SemanticComparator" else {}
    comparator = build(cls.name, config)
    for gt in HOSTILE:
        for pred in (gt, "x", [1, 2, 3, 4], 12):
            score = comparator.similarity(gt, pred)
            assert isinstance(score, float) and 0.0 <= score <= 1.0, (cls.name, repr(gt)[:60], repr(pred)[:60], score)


def test_a_raising_comparator_scores_zero_and_is_reported():
    from stickler_cli.comparators import Comparator, register, registry

    class Explodes(Comparator):
        name = "TestExplodes"

        def similarity(self, gt, pred):
            raise RuntimeError("kaboom")

        def similarity_matrix(self, gts, preds):
            raise MemoryError("too big")

    register(Explodes)
    try:
        plan = compile_schema(
            {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "x-aws-stickler-comparator": "TestExplodes"},
                    "b": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-comparator": "TestExplodes"},
                    "c": {"type": "string"},
                },
            }
        )
        acc = evaluate_pairs(plan, [({"a": "x", "b": ["y"], "c": "z"}, {"a": "x", "b": ["y"], "c": "z"})])
        state = acc.get_state()
        assert state["counts"][0] == [0, 0, 1, 0, 0]  # a: FD at 0.0
        assert state["counts"][1] == [0, 0, 1, 0, 0]  # b: its one pair FD at 0.0
        assert state["counts"][2] == [1, 0, 0, 0, 0]  # c: unaffected
        messages = [e["message"] for e in acc.errors]
        assert messages == [
            "a: TestExplodes failed, scored 0.0: RuntimeError: kaboom",
            "b: TestExplodes failed, scored 0.0: RuntimeError: kaboom",
        ]  # matrix failed: pair by pair
    finally:
        registry._BY_NAME.pop("TestExplodes", None)
