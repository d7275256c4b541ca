"""``--judge-pairing proxy|full`` (engine/proxy.py) against the local counting chat server
(tests/support/chat_server.py: the model says two texts are equivalent when their letters and digits
match, ignoring case and punctuation; ``server.count`` counts requests)."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import orjson
import pytest

from stickler_cli.cli.app import main
from stickler_cli.engine import Engine
from stickler_cli.engine.prefetch import collect
from stickler_cli.schema.compiler import compile_schema
from tests.support.chat_server import ChatServer, clean_env, server  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[2]

SCHEMA = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "LLMComparator",
                        "x-aws-stickler-threshold": 1.0,
                        "x-aws-stickler-comparator-config": {"model": "judge"},
                    },
                    "qty": {"type": "integer"},
                },
            },
        }
    },
}

# Two documents, 3 and 2 items; predictions shuffled, every text changed in case or punctuation only (the
# judge says equivalent; no prediction is identical to its ground truth, so no request can be skipped as such).
GT = [
    {
        "items": [
            {"name": "St. John Street", "qty": 1},
            {"name": "Apple pie", "qty": 2},
            {"name": "Orange juice", "qty": 3},
        ]
    },
    {"items": [{"name": "Blue cheese", "qty": 4}, {"name": "Green tea", "qty": 5}]},
]
PRED = [
    {
        "items": [
            {"name": "orange juice", "qty": 3},
            {"name": "st john street", "qty": 1},
            {"name": "apple-pie", "qty": 2},
        ]
    },
    {"items": [{"name": "green tea!", "qty": 5}, {"name": "BLUE CHEESE", "qty": 4}]},
]


def _run(server: ChatServer, tmp_path: Path, gt: list, pred: list, *extra: str) -> tuple[int, dict]:
    """(requests the run asked, its JSON report); a fresh answer cache each run, so that every question is asked."""
    run = tmp_path / f"run{len(list(tmp_path.glob('run*')))}"
    schema, gt_file, pred_file = _write(run, gt, pred)
    report = run / "report.json"
    before = server.count
    args = ["eval", str(schema), str(gt_file), str(pred_file), "--llm-base-url", server.url + "/v1"]
    args += ["--llm-cache", str(run / "llm.sqlite"), "--format", "json", "--output", str(report), *extra]
    assert main(args) == 0
    return server.count - before, orjson.loads(report.read_bytes())


def _write(run: Path, gt: list, pred: list) -> tuple[Path, Path, Path]:
    """The schema and the two JSON Lines files in the new folder ``run``."""
    run.mkdir()
    schema, gt_file, pred_file = run / "schema.json", run / "gt.jsonl", run / "pred.jsonl"
    schema.write_bytes(orjson.dumps(SCHEMA))
    gt_file.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in gt))
    pred_file.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in pred))
    return schema, gt_file, pred_file


def _figures(report: dict) -> tuple:
    return report["metrics"], report["field_metrics"]


def test_full_is_the_default_and_asks_the_whole_matrix(server, tmp_path):
    """(c) The default asks every item pair: 3 x 3 + 2 x 2 = 13 requests. Counted on main before this change
    (commit b488bb7, this very test run with PYTHONPATH=/work/main): 13, the same as here."""
    asked, default = _run(server, tmp_path, GT, PRED)
    assert asked == 13
    asked_full, full = _run(server, tmp_path, GT, PRED, "--judge-pairing", "full")
    assert asked_full == 13
    assert _figures(full) == _figures(default)


def test_proxy_asks_only_the_chosen_pairs(server, tmp_path):
    """(a) Proxy pairs by edit distance, then asks the judge once per chosen pair: 3 + 2 = 5 requests, one per
    item matched (N items matched, N requests for the one judged field), against 13 for the full matrix."""
    asked, report = _run(server, tmp_path, GT, PRED, "--judge-pairing", "proxy")
    assert asked == 5
    pairs = sorted(
        (m["body"]["messages"][-1]["content"].split("Value 1: ")[1].split("\n")[:2]) for m in server.requests
    )
    assert [a for a, _ in pairs] == sorted(i["name"] for d in GT for i in d["items"])
    assert report["field_metrics"]["items.name"]["tp"] == 5  # every chosen pair judged equivalent
    assert report["inputs"]["judge_pairing"] == "proxy"  # the report says how it paired
    jsonschema.validate(report, orjson.loads((ROOT / "schemas/report.schema.json").read_bytes()))


def test_the_prefetch_walk_hands_only_the_chosen_pairs():
    """What the model-backed comparator is handed before scoring: the 9 + 4 item pairs under full, the 3 + 2
    pairs the edit distance chose under proxy (each ground truth with its case- or punctuation-changed twin)."""
    plan = compile_schema(SCHEMA)
    name = plan.root.fields[0].model.fields[0]
    wanted = {name.index}
    for pairing, expected in (("full", 13), ("proxy", 5)):
        engine = Engine(plan, pairing)
        handed = collect(
            plan.root, list(zip(GT, PRED)), wanted, engine._needed, engine.proxy_pairs if pairing == "proxy" else None
        )
        assert len(handed[name.index]) == expected
    assert sorted(handed[name.index]) == [
        ("Apple pie", "apple-pie"),
        ("Blue cheese", "BLUE CHEESE"),
        ("Green tea", "green tea!"),
        ("Orange juice", "orange juice"),
        ("St. John Street", "st john street"),
    ]


def test_unambiguous_lists_give_the_same_figures(server, tmp_path):
    """(b) Each item is clearly closest to one item under both the proxy and the judge: same report figures."""
    _, full = _run(server, tmp_path, GT, PRED, "--judge-pairing", "full")
    _, proxy = _run(server, tmp_path, GT, PRED, "--judge-pairing", "proxy")
    assert _figures(proxy) == _figures(full)


def test_proxy_can_pair_differently_where_the_judge_sees_what_edit_distance_does_not(server, tmp_path):
    """(d) What proxy can change. Ground truth "x.y.z.w" and "xyzq"; predictions "XYZW" and "x-y-z-q". The judge
    pairs x.y.z.w with XYZW and xyzq with x-y-z-q (letters equal): 2 matched. The edit distance (lower-cased) has
    x.y.z.w~xyzw 4/7, x.y.z.w~x-y-z-q 3/7, xyzq~xyzw 3/4, xyzq~x-y-z-q 4/7: the diagonal sums to 8/7 = 1.143,
    the crossing to 3/7 + 3/4 = 1.179, so proxy pairs across, and the judge says no to both pairs: 0 matched."""
    gt = [{"items": [{"name": "x.y.z.w"}, {"name": "xyzq"}]}]
    pred = [{"items": [{"name": "XYZW"}, {"name": "x-y-z-q"}]}]
    asked_full, full = _run(server, tmp_path, gt, pred, "--judge-pairing", "full")
    asked_proxy, proxy = _run(server, tmp_path, gt, pred, "--judge-pairing", "proxy")
    assert (asked_full, asked_proxy) == (4, 2)
    assert full["field_metrics"]["items.name"]["tp"] == 2
    assert proxy["field_metrics"]["items.name"]["tp"] == 0
    assert full["metrics"] != proxy["metrics"]


def test_compare_explains_a_pair_as_it_was_paired(server, tmp_path, capsys, monkeypatch):
    """``stickler compare`` on example (d)'s pair: full shows the judge's pairs (0↔0, 1↔1; 4 requests), proxy the
    crossing pairs (0↔1, 1↔0; 2 requests)."""
    monkeypatch.setenv("COLUMNS", "120")
    gt, pred = tmp_path / "gt.json", tmp_path / "pred.json"
    schema = tmp_path / "schema.json"
    schema.write_bytes(orjson.dumps(SCHEMA))
    gt.write_bytes(orjson.dumps({"items": [{"name": "x.y.z.w"}, {"name": "xyzq"}]}))
    pred.write_bytes(orjson.dumps({"items": [{"name": "XYZW"}, {"name": "x-y-z-q"}]}))
    args = ["compare", str(schema), str(gt), str(pred), "--llm-base-url", server.url + "/v1"]
    for pairing, requests, rows in (
        ("full", 4, ("items[0↔0]", "items[1↔1]")),
        ("proxy", 2, ("items[0↔1]", "items[1↔0]")),
    ):
        before = server.count
        assert main([*args, "--llm-cache", str(tmp_path / f"{pairing}.sqlite"), "--judge-pairing", pairing]) == 0
        assert server.count - before == requests
        out = capsys.readouterr().out
        assert all(f" {row} " in out for row in rows), out


def test_an_unknown_judge_pairing_is_a_usage_error(server, tmp_path, capsys):
    with pytest.raises(AssertionError):
        _run(server, tmp_path, GT, PRED, "--judge-pairing", "cheap")
    assert "--judge-pairing must be full or proxy; got 'cheap'" in capsys.readouterr().err


def test_diff_pairs_both_sides_by_the_proxy(server, tmp_path):
    """``stickler diff`` with the same predictions on both sides: the 5 chosen pairs are asked once (side B's
    answers come from the run's answer cache), against the 13 of the full matrix."""
    run = tmp_path / "diff"
    schema, gt, pred = _write(run, GT, PRED)
    for pairing, expected in (("proxy", 5), ("full", 13)):
        before = server.count
        args = ["diff", str(schema), str(gt), str(pred), str(pred), "--llm-base-url", server.url + "/v1"]
        args += ["--llm-cache", str(run / f"{pairing}.sqlite"), "--judge-pairing", pairing, "--format", "json"]
        assert main(args) == 0
        assert server.count - before == expected


def test_the_python_api_takes_judge_pairing(server, tmp_path):
    """compare, evaluate and evaluate_files take ``judge_pairing`` as the command line takes --judge-pairing:
    13 requests for the full matrices of GT/PRED, 5 for the proxy's pairs (the two tests above)."""
    import stickler_cli as st
    from stickler_cli.comparators.llm import Access, configure

    configure(Access(base_url=server.url + "/v1", cache=str(tmp_path / "cache.sqlite")))
    plan = compile_schema(SCHEMA)
    report = st.evaluate(plan, list(zip(GT, PRED)), judge_pairing="proxy")
    assert server.count == 5 and report["field_metrics"]["items.name"]["tp"] == 5
    plan = compile_schema(SCHEMA)  # fresh comparators: nothing remembered from the run before
    configure(Access(base_url=server.url + "/v1", cache=str(tmp_path / "other.sqlite")))
    assert st.compare(plan, GT[0], PRED[0]).score == 1.0
    assert server.count == 5 + 9  # one 3 x 3 matrix, in full
    _, gt_file, pred_file = _write(tmp_path / "files", GT, PRED)
    plan = compile_schema(SCHEMA)
    configure(Access(base_url=server.url + "/v1", cache=str(tmp_path / "third.sqlite")))
    evaluation = st.evaluate_files(plan, gt_file, pred_file, judge_pairing="proxy")
    assert evaluation.inputs["judge_pairing"] == "proxy" and server.count == 5 + 9 + 5
    with pytest.raises(ValueError, match="judge_pairing must be 'full' or 'proxy'"):
        st.compare(plan, GT[0], PRED[0], judge_pairing="nearest")
    with pytest.raises(TypeError, match="the fourth argument is the run's RunOptions, not str"):
        st.evaluate_files(plan, gt_file, pred_file, "doc_id")  # type: ignore[arg-type]
