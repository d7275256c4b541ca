"""What a run asks the judge (issue 40, item 1): identical values are never sent, each distinct pair is
asked once per run (answer cache on or off), the report's bill counts the requests, and
``--limit judge-calls=N`` stops a run before it asks more. Against the local counting server."""

from __future__ import annotations

import random
from pathlib import Path

import jsonschema
import orjson
import pytest

from stickler_cli.analyses import judge
from stickler_cli.analyses.state_check import BadState
from stickler_cli.cli.app import main
from stickler_cli.comparators.base import identical_values
from stickler_cli.comparators.semantic import SemanticComparator
from stickler_cli.engine import Engine
from stickler_cli.run.accumulate import Accumulator
from stickler_cli.schema import compile_schema
from tests.support.chat_server import clean_env, server  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[2]


def _schema(tmp_path: Path, config: dict | None = None, listed: bool = False) -> str:
    leaf = {
        "type": "string",
        "x-aws-stickler-comparator": "LLMComparator",
        "x-aws-stickler-threshold": 1.0,
        "x-aws-stickler-comparator-config": {"model": "judge", **(config or {})},
    }
    if listed:
        properties = {
            "line_items": {
                "type": "array",
                "items": {"type": "object", "properties": {"description": leaf}},
            }
        }
    else:
        properties = {"name": leaf}
    path = tmp_path / "schema.json"
    path.write_bytes(orjson.dumps({"type": "object", "properties": properties}))
    return str(path)


def _plan(path: str):
    return compile_schema(orjson.loads(Path(path).read_bytes()))


def _write(tmp_path: Path, gts: list[dict], preds: list[dict]) -> tuple[str, str]:
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in gts))
    pred.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in preds))
    return str(gt), str(pred)


def _eval(server, schema: str, gt: str, pred: str, capsys, *extra: str) -> tuple[int, dict | None, str]:
    code = main(["eval", schema, gt, pred, "--llm-base-url", server.url + "/v1", "--format", "json", *extra])
    out = capsys.readouterr()
    return code, (orjson.loads(out.out) if code == 0 else None), out.err


# -- the rule -------------------------------------------------------------------------------------------


def test_identical_values_is_json_equality_of_the_parsed_values():
    assert identical_values("St. John", "St. John")
    assert not identical_values("St. John", "st john")  # the comparator's normalisation is not applied
    assert not identical_values(1, 1.0)  # two spellings: the judge would see "1" and "1.0"
    assert not identical_values(True, 1) and not identical_values(0, False)
    assert not identical_values("1", 1)
    assert identical_values({"a": 1, "b": [1, "x"]}, {"b": [1, "x"], "a": 1})  # key order is not a difference
    assert not identical_values({"a": 1}, {"a": 1, "b": None})
    assert not identical_values([1, 2], [2, 1])
    assert not identical_values(float("nan"), float("nan"))
    deep_a: list = []
    deep_b: list = []
    for _ in range(5000):  # deeper than Python recurses
        deep_a, deep_b = [deep_a], [deep_b]
    assert identical_values(deep_a, deep_b)


# -- identical values, duplicates -----------------------------------------------------------------------


def test_identical_values_ask_nothing(server, tmp_path, capsys):
    """30 documents whose two sides hold the same text: no request, each scores 1.0."""
    rows = [{"name": f"Invoice {k} for St. John & Sons"} for k in range(30)]
    gt, pred = _write(tmp_path, rows, rows)
    code, report, _ = _eval(server, _schema(tmp_path), gt, pred, capsys)
    assert code == 0 and server.count == 0
    name = report["field_metrics"]["name"]
    assert (name["tp"], name["fd"], name["mean_score"]) == (30, 0, 1.0)
    assert report["judge"] == {"name": {"asked": 0, "cached": 0, "identical": 30, "deduplicated": 0, "failed": 0}}
    jsonschema.validate(report, orjson.loads((ROOT / "schemas/report.schema.json").read_bytes()))


@pytest.mark.parametrize("cache", [True, False])
def test_the_same_pair_in_many_documents_is_asked_once(server, tmp_path, capsys, cache):
    """10 documents holding the same non-identical pair: one request, answer cache on or off; 9 deduplicated."""
    gt, pred = _write(tmp_path, [{"name": "St. John"}] * 10, [{"name": "st john"}] * 10)
    schema = _schema(tmp_path, {"cache": cache})
    code, report, _ = _eval(server, schema, gt, pred, capsys)
    assert code == 0 and server.count == 1
    assert report["field_metrics"]["name"]["tp"] == 10  # the server's rule: same letters -> true
    assert report["judge"]["name"] == {"asked": 1, "cached": 0, "identical": 0, "deduplicated": 9, "failed": 0}

    code, report, _ = _eval(server, schema, gt, pred, capsys)  # a second run: the cache answers, if it is on
    assert code == 0 and server.count == (1 if cache else 2)
    expected = {"asked": 0, "cached": 1} if cache else {"asked": 1, "cached": 0}
    assert report["judge"]["name"] == {**expected, "identical": 0, "deduplicated": 9, "failed": 0}


def test_a_failed_question_is_billed_and_not_asked_again(server, tmp_path, capsys):
    gt, pred = _write(tmp_path, [{"name": "a"}] * 3, [{"name": "b"}] * 3)
    server.fail_next(1, 400)  # a final failure: no retry
    code, report, _ = _eval(server, _schema(tmp_path, {"cache": False}), gt, pred, capsys)
    assert code == 0 and server.count == 1
    assert report["judge"]["name"] == {"asked": 1, "cached": 0, "identical": 0, "deduplicated": 2, "failed": 1}
    assert report["field_metrics"]["name"]["fd"] == 3


# -- the issue's scenario -----------------------------------------------------------------------------


def _scenario(seed: int = 40) -> tuple[list[dict], list[dict]]:
    """20 documents of 5 line items; predictions shuffled, 30% of the texts changed slightly."""
    rng = random.Random(seed)
    words = ["bolt", "washer", "bracket", "hinge", "panel", "cable", "sensor", "valve"]
    gts, preds = [], []
    for d in range(20):
        texts = [f"{rng.choice(words)} {rng.choice(words)} no. {d}-{i}" for i in range(5)]
        changed = []
        for text in texts:
            if rng.random() < 0.3:
                text = rng.choice([text.upper(), text.replace(" ", "  ", 1), text + "."])
            changed.append(text)
        rng.shuffle(changed)
        gts.append({"line_items": [{"description": t} for t in texts]})
        preds.append({"line_items": [{"description": t} for t in changed]})
    return gts, preds


def test_the_issues_scenario_asks_each_distinct_non_identical_pair_once(server, tmp_path, capsys):
    gts, preds = _scenario()
    cells = [
        (g["description"], p["description"])
        for gt, pred in zip(gts, preds)
        for g in gt["line_items"]
        for p in pred["line_items"]
    ]
    assert len(cells) == 500  # every 5 x 5 matrix
    identical = sum(1 for g, p in cells if g == p)
    distinct = {(g, p) for g, p in cells if g != p}
    before = len(set(cells))  # main asked every distinct pair of the matrices, identical ones included
    assert 0 < identical < 100 and len(distinct) < before

    gt, pred = _write(tmp_path, gts, preds)
    schema = _schema(tmp_path, {"cache": False}, listed=True)
    # --limit judge-calls one request short: the run stops before its first request, saying how many it needs.
    code, _, err = _eval(server, schema, gt, pred, capsys, "--limit", f"judge-calls={len(distinct) - 1}")
    assert code == 2 and server.count == 0
    assert err.count("\n") == 1 and f"would send at least {len(distinct)} requests" in err
    assert f"--limit judge-calls={len(distinct) - 1}" in err

    code, report, _ = _eval(server, schema, gt, pred, capsys, "--limit", f"judge-calls={len(distinct)}")
    assert code == 0
    assert server.count == len(distinct) < before
    bill = report["judge"]["line_items.description"]
    assert bill == {
        "asked": server.count,
        "cached": 0,
        "identical": identical,
        "deduplicated": len(cells) - identical - len(distinct),
        "failed": 0,
    }
    assert report["field_metrics"]["line_items.description"]["tp"] == 100  # every item found its match


def test_a_limit_of_zero_sends_nothing_and_identical_values_need_no_request(server, tmp_path, capsys):
    rows = [{"name": "same"}] * 4
    gt, pred = _write(tmp_path, rows, rows)
    code, report, _ = _eval(server, _schema(tmp_path), gt, pred, capsys, "--limit", "judge-calls=0")
    assert code == 0 and report["judge"]["name"]["identical"] == 4 and server.count == 0
    gt, pred = _write(tmp_path, rows, [{"name": "other"}] * 4)
    code, _, err = _eval(server, _schema(tmp_path), gt, pred, capsys, "--limit", "judge-calls=0")
    assert code == 2 and server.count == 0
    assert "stopped before asking the judge: the run would send at least 1 requests" in err


# -- the bill in the state, the other reports ---------------------------------------------------------


def test_the_bill_adds_up_over_merged_states_and_a_bad_bill_is_refused(server, tmp_path, capsys):
    from stickler_cli.comparators.llm import configure, Access

    configure(Access(base_url=server.url + "/v1"))
    plan = _plan(_schema(tmp_path, {"cache": False}))
    engine = Engine(plan)
    acc = Accumulator(plan)
    docs = [({"name": "a"}, {"name": "a"}), ({"name": "a"}, {"name": "b"}), ({"name": "a"}, {"name": "b"})]
    acc.add_batch(engine.score_batch(docs))
    state = acc.get_state()
    assert state["judge"] == {"name": [1, 0, 1, 1, 0]}
    acc.merge_state(acc.get_state())
    assert acc.judge.counts == {0: [2, 0, 2, 2, 0]}

    judge.check_state(state, plan)
    state["judge"]["name"][4] = -1
    with pytest.raises(BadState) as refused:
        judge.check_state(state, plan)
    assert refused.value.pointer == "/judge/name/4"


def test_a_plan_without_a_judged_field_has_no_bill(tmp_path):
    path = tmp_path / "plain.json"
    path.write_bytes(orjson.dumps({"type": "object", "properties": {"name": {"type": "string"}}}))
    acc = Accumulator(_plan(str(path)))
    assert "judge" not in acc.get_state()


def test_the_terminal_and_markdown_reports_show_the_bill(server, tmp_path, capsys):
    gt, pred = _write(tmp_path, [{"name": "x"}, {"name": "St. John"}], [{"name": "x"}, {"name": "st john"}])
    base = ["eval", _schema(tmp_path), gt, pred, "--llm-base-url", server.url + "/v1"]
    assert main([*base, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "### Judge requests\n\n- `name`: 1 asked, 0 cached, 1 identical, 0 deduplicated, 0 failed\n" in out
    assert main([*base, "--html", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    assert "Judge requests" in out and "name: 0 asked, 1 cached, 1 identical, 0 deduplicated, 0 failed" in out
    page = (tmp_path / "r.html").read_text()
    assert "<h2>Judge requests</h2>" in page and "<td>name</td>" in page


def test_the_question_key_is_what_deduplicates(server):
    from stickler_cli.comparators import registry
    from stickler_cli.comparators.llm import configure, Access

    configure(Access(base_url=server.url + "/v1"))
    c = registry.build("llm", {"model": "judge", "cache": False})
    c.ready()
    assert c.question_key("a", "a") is None and c.question_key(None, "a") is None
    assert c.question_key("a", "b") == c.question_key("a", "b") != c.question_key("b", "a")
    assert c.question_key(1, "1") == c.question_key("1", 1)  # not identical values, but one question: "1" vs "1"
    c.prefetch([(1, "1"), ("1", 1), ("a", "a")])
    assert server.count == 1 and c.drain_bill() == [1, 0, 1, 1, 0]


# -- the per-document path agrees -----------------------------------------------------------------------


def test_the_batch_and_per_document_paths_agree_and_ask_the_same(server, tmp_path):
    from stickler_cli.comparators.llm import configure, Access

    configure(Access(base_url=server.url + "/v1"))
    gts, preds = _scenario(7)
    docs = list(zip(gts, preds))
    batch = Engine(_plan(_schema(tmp_path, {"cache": False}, listed=True))).score_batch(docs)
    asked = server.count
    one = Engine(_plan(_schema(tmp_path, {"cache": False}, listed=True)))
    singles = [one.compare(g, p) for g, p in docs]
    assert server.count == 2 * asked  # each engine asks each distinct non-identical pair once
    assert batch.scores.tolist() == [r.score for r in singles]
    assert batch.tally.tolist() == [r.tally for r in singles]


# -- embeddings: each distinct text once, identical values never ----------------------------------------


def test_embeddings_compute_each_distinct_text_once_and_skip_identical_pairs(tmp_path):
    embedded: list[str] = []

    def encode(texts: list[str]) -> list[list[float]]:
        embedded.extend(texts)
        return [[float(len(t)), float(sum(map(ord, t)) % 97), 1.0] for t in texts]

    comparator = SemanticComparator(embedding_function=encode)
    pairs = [("alpha", "alpha")] * 5 + [("beta", "gamma"), ("beta", "gamma"), ("gamma", "beta"), ("delta", "delta")]
    comparator.prefetch(pairs)
    assert sorted(embedded) == ["beta", "gamma"]  # alpha and delta only ever met themselves
    assert comparator.similarity("alpha", "alpha") == 1.0 and comparator.similarity("delta", "delta") == 1.0
    assert sorted(embedded) == ["beta", "gamma"]
    comparator.similarity("beta", "gamma")
    comparator.similarity_matrix(["beta", "gamma"], ["gamma", "beta"])
    assert sorted(embedded) == ["beta", "gamma"]  # each distinct text once per run
