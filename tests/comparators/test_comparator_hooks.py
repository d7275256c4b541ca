"""How the engine uses comparators beyond similarity: whole values, prefetching, failures, listing."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from stickler_cli import compile_schema
from stickler_cli.cli.app import main
from stickler_cli.comparators import Comparator, catalogue, register, registered, registry
from stickler_cli.engine import Engine
from stickler_cli.run.evaluate import evaluate_pairs
from stickler_cli.errors import SchemaError
from stickler_cli.plan import Kind


class WholeLength(Comparator):
    """Scores two arrays as single values: equal lengths -> 1.0, else 0.25."""

    name = "TestWholeLength"
    whole_value = True

    def similarity(self, gt: Any, pred: Any) -> float:
        return 1.0 if len(gt) == len(pred) else 0.25


class Recording(Comparator):
    """Equality, remembering every prefetch call; fails on the value 'boom'."""

    name = "TestRecording"
    prefetches = True
    reports_failures = True
    seen: list[list[tuple[Any, Any]]] = []
    scored: list[tuple[Any, Any]] = []

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._failures: list[str] = []

    def prefetch(self, pairs):
        Recording.seen.append(list(pairs))

    def similarity(self, gt: Any, pred: Any) -> float:
        Recording.scored.append((gt, pred))
        if pred == "boom":
            self._failures.append("model call failed for 'boom'")
            return 0.0
        return 1.0 if gt == pred else 0.0

    def drain_failures(self) -> list[str]:
        out, self._failures = self._failures, []
        return out


@pytest.fixture
def test_comparators():
    register(WholeLength)
    register(Recording)
    Recording.seen = []
    Recording.scored = []
    yield
    for key in ("TestWholeLength", "TestRecording"):
        registry._BY_NAME.pop(key, None)


def test_whole_value_comparator_takes_an_array_as_one_value(test_comparators):
    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "box": {"type": "array", "items": {"type": "number"}, "x-aws-stickler-comparator": "TestWholeLength"}
            },
        }
    )
    box = plan.fields[0]
    assert (box.kind, box.json_type, box.threshold) == (Kind.PRIMITIVE, "array", 0.5)
    engine = Engine(plan)
    assert engine.compare({"box": [1, 2, 3, 4]}, {"box": [5, 6, 7, 8]}).counts[0] == [1, 0, 0, 0, 0]
    result = engine.compare({"box": [1, 2, 3, 4]}, {"box": [1, 2]})
    assert result.counts[0] == [0, 0, 1, 0, 0] and result.score == 0.25  # one FD, clip off
    assert engine.compare({"box": []}, {"box": None}).counts[0] == [0, 0, 0, 0, 1]  # both null: TN
    assert engine.compare({"box": [1]}, {}).counts[0] == [0, 0, 0, 1, 0]  # FN


def test_ordinary_comparators_still_match_array_items(test_comparators):
    plan = compile_schema(
        {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-comparator": "ExactComparator"}
            },
        }
    )
    assert plan.fields[0].kind is Kind.PRIMITIVE_LIST


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "x-aws-stickler-comparator": "TestRecording"},
        "other": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-comparator": "TestRecording"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "x-aws-stickler-comparator": "TestRecording"},
                    "qty": {"type": "integer"},
                },
            },
        },
    },
}


def test_prefetch_sees_every_pair_the_batch_will_score(test_comparators):
    plan = compile_schema(SCHEMA)
    docs = [
        (
            {"name": "a", "other": "x", "tags": ["t1", "t2"], "items": [{"sku": "s1"}, {"sku": "s2"}]},
            {"name": {"_value": "b", "_confidence": 0.5}, "tags": ["t3"], "items": [{"sku": "s9"}]},
        ),
        ({"name": None, "tags": [], "items": []}, {"name": "c", "tags": ["t4"], "items": [{"sku": ""}]}),
    ]
    evaluate_pairs(plan, docs)
    fields = {f.path: f.index for f in plan.fields}
    # One prefetch batch: each comparator instance (one per field) got its own pairs.
    by_field = {frozenset(pairs) for pairs in Recording.seen}
    assert by_field == {
        frozenset({("a", "b")}),  # name: rich value unwrapped; null gt skipped
        frozenset({("t1", "t3"), ("t2", "t3")}),  # tags: every item pair; [] vs ["t4"] has none
        frozenset({("s1", "s9"), ("s2", "s9")}),  # items.sku: every item pair; "" is null
    }
    assert len(Recording.seen) == 3 and "other" in fields


def test_failures_are_reported_per_field_and_the_record_is_still_scored(test_comparators):
    plan = compile_schema(SCHEMA)
    acc = evaluate_pairs(
        plan, [({"name": "a", "items": [{"sku": "s1"}]}, {"name": "boom", "items": [{"sku": "boom"}]})]
    )
    messages = sorted(e["message"] for e in acc.errors)
    assert messages == ["items.sku: model call failed for 'boom'", "name: model call failed for 'boom'"]
    assert acc.get_state()["document_count"] == 1


def test_catalogue_lists_every_builtin_with_valid_defaults():
    entries = {e["name"]: e for e in catalogue()}
    expected = {
        "ExactComparator",
        "LevenshteinComparator",
        "NumericComparator",
        "FuzzyComparator",
        "DateComparator",
        "SemanticComparator",
        "BERTComparator",
        "LLMComparator",
    }
    assert expected <= set(entries)
    for cls in registered():
        for param in cls.params:
            assert param.check(param.default) is None, (cls.name, param.name)
    assert entries["BERTComparator"]["extra"] == "semantic"
    assert "BertComparator" in entries["BERTComparator"]["aliases"]


def test_comparators_command(capsys):
    assert main(["comparators", "--format", "json"]) == 0
    listed = orjson.loads(capsys.readouterr().out)
    assert [e["name"] for e in listed] == sorted(e["name"] for e in listed)
    numeric = next(e for e in listed if e["name"] == "NumericComparator")
    assert {o["name"]: o["default"] for o in numeric["options"]} == {
        "relative_tolerance": 0.0,
        "absolute_tolerance": 0.0,
        "tolerance": None,
    }
    assert main(["comparators"]) == 0
    text = capsys.readouterr().out
    for name in (
        "ExactComparator",
        "relative_tolerance",
        "SemanticComparator",
        "needs the extra 'semantic'",
        "'.[semantic]'",
    ):
        assert name in text
    assert main(["comparators", "--format", "yaml"]) == 2


@pytest.mark.parametrize(
    "fmt, comparator, threshold",
    [
        ("date", "DateComparator", 1.0),
        ("date-time", "DateComparator", 1.0),
        ("uri", "ExactComparator", 1.0),
        ("uuid", "ExactComparator", 1.0),
        ("time", "ExactComparator", 1.0),
        ("email", "LevenshteinComparator", 0.5),
    ],
)
def test_string_formats_choose_the_default_comparator(fmt, comparator, threshold):
    plan = compile_schema({"type": "object", "properties": {"f": {"type": "string", "format": fmt}}})
    assert (plan.fields[0].comparator_name, plan.fields[0].threshold) == (comparator, threshold)
    explicit = compile_schema(
        {
            "type": "object",
            "properties": {"f": {"type": "string", "format": fmt, "x-aws-stickler-comparator": "FuzzyComparator"}},
        }
    )
    assert explicit.fields[0].comparator_name == "FuzzyComparator"


EDGES = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "unknown", "x-aws-stickler-comparator": "TestRecording"},
        "tags": {"type": "array", "items": {"type": "string"}, "x-aws-stickler-comparator": "TestRecording"},
        "vendor": {
            "type": "object",
            "properties": {"city": {"type": "string", "x-aws-stickler-comparator": "TestRecording"}},
        },
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "sku": {"type": "string", "default": "none", "x-aws-stickler-comparator": "TestRecording"},
                    "parts": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"code": {"type": "string", "x-aws-stickler-comparator": "TestRecording"}},
                        },
                    },
                },
            },
        },
    },
}


def test_every_pair_the_engine_scores_was_prefetched(test_comparators):
    """Defaults for missing keys, non-objects read as {}, lone values as lists, rich values, nesting."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    plan = compile_schema(EDGES)
    leaf = st.one_of(
        st.none(),
        st.sampled_from(["a", "b", "", "boom", "none", "unknown"]),
        st.integers(0, 2),
        st.builds(lambda v: {"_value": v, "_confidence": 0.5}, st.sampled_from(["a", "b"])),
    )
    part = st.one_of(st.dictionaries(st.just("code"), leaf, max_size=1), leaf)
    item = st.one_of(
        st.fixed_dictionaries({}, optional={"sku": leaf, "parts": st.one_of(st.lists(part, max_size=3), part)}), leaf
    )
    doc = st.fixed_dictionaries(
        {},
        optional={
            "name": leaf,
            "tags": st.one_of(st.lists(leaf, max_size=3), leaf),
            "vendor": st.one_of(st.fixed_dictionaries({}, optional={"city": leaf}), leaf),
            "items": st.one_of(st.lists(item, max_size=3), item),
        },
    )

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.tuples(doc, doc), min_size=1, max_size=4))
    def check(docs):
        Recording.seen = []
        Recording.scored = []
        evaluate_pairs(plan, docs)
        prefetched = {pair for batch in Recording.seen for pair in batch}
        missing = [pair for pair in Recording.scored if pair not in prefetched]
        assert not missing, f"scored without prefetch: {missing[:5]}"

    check()


def test_compare_command_shows_comparator_failures(test_comparators, tmp_path, capsys):
    schema = tmp_path / "schema.json"
    schema.write_bytes(orjson.dumps(SCHEMA))
    assert main(["compare", str(schema), '{"name": "a"}', '{"name": "boom"}', "--format", "json"]) == 0
    payload = orjson.loads(capsys.readouterr().out)
    assert payload["errors"] == ["name: model call failed for 'boom'"]
    assert main(["compare", str(schema), '{"name": "a"}', '{"name": "boom"}']) == 0
    assert "error: name: model call failed for 'boom'" in capsys.readouterr().out


def test_a_constructor_failing_in_any_way_is_a_schema_error(test_comparators):
    class Fragile(Comparator):
        name = "TestFragile"

        def __init__(self, **config: Any) -> None:
            raise KeyError("missing resource")

    register(Fragile)
    try:
        with pytest.raises(SchemaError) as err:
            compile_schema(
                {"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-comparator": "TestFragile"}}}
            )
        assert "TestFragile could not be set up: KeyError" in str(err.value)
    finally:
        registry._BY_NAME.pop("TestFragile", None)


def test_a_bad_comparator_value_points_at_the_property():
    with pytest.raises(SchemaError) as err:
        compile_schema({"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-comparator": 5}}})
    assert err.value.pointer == "/properties/a/x-aws-stickler-comparator"


def test_the_matching_bound_weighs_texts_on_the_prefetching_path_too(test_comparators):
    """A prefetching comparator anywhere in a schema sends a batch's object lists through ``_prepare_lists``,
    which matched them whole whatever their texts; ``stickler compare`` (document by document) paired the same
    list as a long one. Found by review. Both now pair it as a long list."""
    import random

    schema = {
        "type": "object",
        "properties": {
            "tag": {"type": "string", "x-aws-stickler-comparator": "TestRecording"},
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"t": {"type": "string", "x-aws-stickler-comparator": "LevenshteinComparator"}},
                },
            },
        },
    }
    plan = compile_schema(schema)
    rng = random.Random(3)
    texts = ["".join(rng.choice("abcdefgh") for _ in range(20_000)) for _ in range(8)]
    gt = {"tag": "a", "rows": [{"t": t} for t in texts]}
    pred = {"tag": "a", "rows": [{"t": t[:-1] + "z"} for t in reversed(texts)]}  # 8 x 8, none identical
    doc = Engine(plan).compare(gt, pred)
    batch = evaluate_pairs(plan, [(gt, pred)])
    assert [int(n) for n in batch.tally] == doc.tally
    rows = 5 * plan.root.field("rows").index
    assert doc.tally[rows : rows + 5] == [0, 0, 8, 0, 0]  # paired by position: 8 FD (matched, each would be a TP)
    assert doc.errors == [
        "rows: 8 x 8 items, long texts: more work than the matching bound (1,000,000): 0 identical "
        "item pairs matched first, the other 8 paired by position"
    ]
