"""Threshold sensitivity (issue 19, item 3): the F1 curve worked by hand, flips, warnings, the schema patch,
states that merge, and the sections of every output.

The similarities are chosen exactly with tests/support/given_similarity.py (the prediction read as a
number), so every figure below is worked out by hand from them.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import orjson
import pytest

from stickler_cli import compile_schema, load_schema
from stickler_cli.run.accumulate import Accumulator
from stickler_cli.cli.app import main
from stickler_cli.comparators import plugins
from stickler_cli.engine import Engine
from stickler_cli.run.evaluate import evaluate_pairs
from stickler_cli.analyses.thresholds import edges, locate, suggest_patch, verdict_bin, window

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "tests.support.given_similarity"
plugins.load_module(PLUGIN)
GIVEN = {"type": "string", "x-aws-stickler-comparator": "GivenSimilarityComparator"}
JUST_BELOW = "0.7999999999999999"  # the float just below 0.8
# The hand-worked corpus: ten compared pairs, two FN, one FA, one TN at threshold 0.8.
SIMILARITIES = ["1.0", "1.0", "0.95", "0.85", "0.8", JUST_BELOW, "0.78", "0.5", "0.2", "0.1"]


def schema(threshold: float = 0.8, **extra) -> dict:
    return {"type": "object", "properties": {"name": {**GIVEN, "x-aws-stickler-threshold": threshold, **extra}}}


def corpus(similarities=SIMILARITIES) -> list[tuple[dict, dict]]:
    docs = [({"name": "x"}, {"name": s}) for s in similarities]
    docs += [({"name": "x"}, {"name": None}), ({"name": "x"}, {})]  # FN
    docs += [({"name": None}, {"name": "0.9"})]  # FA: the comparator is never asked
    docs += [({}, {})]  # TN
    return docs


def block_of(docs, threshold: float = 0.8, path: str = "name", plan=None) -> dict:
    plan = plan or compile_schema(schema(threshold))
    acc = evaluate_pairs(plan, docs)
    from stickler_cli.analyses.thresholds import report_block

    return report_block(plan, acc.layout, acc.similarity, acc.tally)["fields"][path]


def f1_at(block: dict, t: float) -> float:
    return block["curve"]["f1"][block["curve"]["thresholds"].index(t)]


# -- the curve worked by hand ------------------------------------------------------------------------


def test_the_curve_worked_by_hand():
    """N = 10 compared, FA = 1, FN = 2: F1(t) = 2 C / (C + N + FA + FN) = 2 C / (C + 13), C = pairs with s >= t."""
    b = block_of(corpus())
    assert (b["compared"], b["tp"], b["fd"], b["fa"], b["fn"]) == (10, 5, 5, 1, 2)
    # C(0.8) = 5: the similarity 0.8 itself is at or above 0.8 (a TP), the float just below it is not.
    assert b["f1"] == pytest.approx(10 / 18)
    expected = {
        1.0: 2,
        0.96: 2,
        0.95: 3,
        0.9: 3,
        0.86: 3,
        0.85: 4,
        0.81: 4,
        0.8: 5,
        0.79: 6,
        0.78: 7,
        0.75: 7,
        0.51: 7,
        0.5: 8,
        0.21: 8,
        0.2: 9,
        0.11: 9,
        0.1: 10,
        0.0: 10,
    }
    for t, c in expected.items():
        assert b["curve"]["tp"][b["curve"]["thresholds"].index(t)] == c, t
        assert f1_at(b, t) == pytest.approx(2 * c / (c + 13)), t
    # F1 never rises with the threshold (FD counts against precision, never against recall).
    assert all(a >= z for a, z in zip(b["curve"]["f1"], b["curve"]["f1"][1:]))
    # Flips within ±0.05 ([0.75, 0.85]): FDs 0.7999… and 0.78 turn TP at 0.75; the TP 0.8 turns FD at 0.85
    # (0.85 itself stays a TP there).
    assert b["flips"] == {"low": 0.75, "high": 0.85, "to_tp": 2, "to_fd": 1, "total": 3}
    # Otsu: {0.1, 0.2, 0.5} against the rest has the largest between-group variance; every edge in (0.5, 0.78]
    # splits so, the nearest 0.8 is 0.78. The best F1 at or above 0.78 is there: C = 7, F1 = 14 / 20.
    assert b["separation"] == 0.78
    assert (b["best_threshold"], b["best_f1"]) == (0.78, pytest.approx(0.7))
    assert b["f1_gain"] == pytest.approx(0.7 - 10 / 18) and b["suggest"] is True
    # Quartiles read to the bin: TPs 0.8, 0.85, 0.95, 1, 1 (2nd: 0.85); FDs 0.1, 0.2, 0.5, 0.78, 0.7999… (4th: 0.78).
    assert (b["tp_lower_quartile"], b["fd_upper_quartile"]) == (0.85, 0.78)
    assert [w["kind"] for w in b["warnings"]] == ["overlap"]  # 0.85 - 0.78 < 0.1; 3 flips < 5: stable
    assert [0.79, 0.8, 1] in b["bins"] and [0.8, 0.81, 1] in b["bins"] and [1.0, None, 2] in b["bins"]


def test_f1_at_the_configured_threshold_is_the_fields_f1_to_the_bit():
    plan = load_schema(ROOT / "schemas/invoice.json")
    gts = [orjson.loads(x) for x in (ROOT / "fixtures/invoice/gt.jsonl").read_bytes().splitlines()]
    preds = []
    for line in (ROOT / "fixtures/invoice/pred.jsonl").read_bytes().splitlines():
        try:
            preds.append(orjson.loads(line))
        except orjson.JSONDecodeError:  # the fixture's broken line, scored as empty
            preds.append({})
    acc = evaluate_pairs(plan, list(zip(gts, preds)))
    from stickler_cli.report.build import field_metrics
    from stickler_cli.analyses.thresholds import field_blocks

    fields = field_metrics(acc)
    blocks = field_blocks(plan, acc.layout, acc.similarity, acc.tally)
    assert blocks  # every primitive field with compared pairs
    for path, b in blocks.items():
        assert b["f1"].hex() == fields[path]["cm_f1"].hex(), path
        assert (b["tp"], b["fd"]) == (fields[path]["tp"], fields[path]["fd"])


def test_thresholds_on_the_grid_are_bin_edges_and_others_get_their_own():
    assert edges(0.8).count(0.8) == 1 and 0.75 in edges(0.8) and 0.85 in edges(0.8)
    assert window(0.7) == (0.65, 0.75)  # decimal arithmetic: not 0.6499999999999999
    assert window(0.98) == (0.93, 1.0) and window(0.02) == (0.0, 0.07)
    odd = edges(0.825)
    assert {0.825, 0.775, 0.875} <= set(odd) and len(odd) == 104
    b = block_of(
        corpus(["0.83", "0.825", "0.8249999999999998", "0.79", "0.2"]),
        threshold=0.825,
        plan=compile_schema(schema(0.825)),
    )
    assert (b["tp"], b["fd"]) == (2, 3)  # 0.8249999999999998 is below the float 0.825
    # Window [0.775, 0.875]: the FDs 0.8249… and 0.79 turn TP at 0.775, the TPs 0.83 and 0.825 turn FD at 0.875.
    assert b["flips"] == {"low": 0.775, "high": 0.875, "to_tp": 2, "to_fd": 2, "total": 4}


# -- warnings on built cases --------------------------------------------------------------------------


def test_a_threshold_in_a_dense_region_is_unstable():
    dense = ["0.76", "0.77", "0.78", "0.79", JUST_BELOW, "0.8", "0.81", "0.82", "0.83", "0.84", "1.0", "0.0"]
    b = block_of(corpus(dense))
    assert b["flips"]["total"] == 10 and b["compared"] == 12
    assert "unstable" in [w["kind"] for w in b["warnings"]]
    assert "10 of 12 verdicts (83%)" in b["warnings"][0]["message"]


def test_a_threshold_in_a_gap_is_stable_and_separated():
    b = block_of(corpus(["1.0"] * 8 + ["0.1"] * 6))
    assert b["flips"]["total"] == 0 and b["warnings"] == []
    assert b["suggest"] is False and b["best_threshold"] == 0.8  # the valley is wide: 0.8 is already in it


def test_overlap_needs_both_sides_close_and_five_of_each():
    close = ["0.81", "0.82", "0.83", "0.81", "0.82", "0.75", "0.76", "0.77", "0.78", "0.79"]
    kinds = [w["kind"] for w in block_of(corpus(close))["warnings"]]
    assert "overlap" in kinds
    assert "overlap" not in [w["kind"] for w in block_of(corpus(close[:-1]))["warnings"]]  # 4 FDs
    far = ["1.0"] * 5 + ["0.2"] * 5
    assert block_of(corpus(far))["warnings"] == []


def test_no_compared_pairs_no_block():
    plan = compile_schema(schema())
    acc = evaluate_pairs(plan, [({"name": "x"}, {}), ({}, {"name": "0.5"})])
    assert build_report_fields(plan, acc) == {}


def build_report_fields(plan, acc):
    from stickler_cli.analyses.thresholds import report_block

    return report_block(plan, acc.layout, acc.similarity, acc.tally)["fields"]


def test_primitive_list_items_and_leaves_in_list_items_are_counted():
    s = {
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                **{k: v for k, v in GIVEN.items() if k != "type"},
                "x-aws-stickler-threshold": 0.5,
            },
            "rows": {
                "type": "array",
                "items": {"type": "object", "properties": {"a": {**GIVEN, "x-aws-stickler-threshold": 0.6}}},
            },
        },
    }
    plan = compile_schema(s)
    docs = [
        (
            {"tags": ["p", "q"], "rows": [{"a": "x"}, {"a": "y"}]},
            {"tags": ["0.9", "0.4", "0.3"], "rows": [{"a": "0.95"}, {"a": "0.2"}]},
        )
    ]
    fields = build_report_fields(plan, evaluate_pairs(plan, docs))
    assert (fields["tags"]["tp"], fields["tags"]["fd"], fields["tags"]["fa"]) == (1, 1, 1)
    # Row pairs match on the items' similarity (0.95 >= 0.7: TP, descended into; 0.2: FD, not descended).
    assert (fields["rows.a"]["compared"], fields["rows.a"]["tp"]) == (1, 1)


# -- the schema patch -----------------------------------------------------------------------------------


def apply_patch(document, operations):
    """RFC 6902 add / replace / test, written for these tests (no library needed)."""
    document = copy.deepcopy(document)
    for op in operations:
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]]
        parent = document
        for t in tokens[:-1]:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        last = tokens[-1]
        if op["op"] == "test":
            assert parent[last] == op["value"], op
        elif op["op"] == "replace":
            assert last in parent, op
            parent[last] = op["value"]
        elif op["op"] == "add":
            parent[last] = op["value"]
        else:
            raise AssertionError(op)
    return document


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def write_corpus(tmp_path: Path, docs, name: str = "") -> tuple[Path, Path]:
    gt, pred = tmp_path / f"gt{name}.jsonl", tmp_path / f"pred{name}.jsonl"
    gt.write_bytes(b"".join(orjson.dumps(g) + b"\n" for g, _ in docs))
    pred.write_bytes(b"".join(orjson.dumps(p) + b"\n" for _, p in docs))
    return gt, pred


def test_the_patch_applied_gives_the_suggested_thresholds_and_passes_schema_check(tmp_path, capsys):
    nested = {
        "type": "object",
        "properties": {
            "name": {**GIVEN, "x-aws-stickler-threshold": 0.8},  # replaced (tested first)
            "code": dict(GIVEN),  # no threshold written: added (its default is 0.5)
            "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
            "kept": {**GIVEN, "x-aws-stickler-threshold": 1.0},
        },
        "$defs": {
            "Row": {
                "type": "object",
                "x-aws-stickler-match-threshold": 0.0,
                "properties": {"a/b": {**GIVEN, "x-aws-stickler-threshold": 0.9}},
            }
        },
    }
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(nested))
    rows = [
        {"name": s, "code": c, "rows": [{"a/b": r}], "kept": "1.0"}
        for s, c, r in zip(
            SIMILARITIES,
            ["0.45", "0.42", "0.41", "0.4", "0.1", "0.05", "0.03", "0.02", "0.01", "0"],
            ["0.85", "0.86", "0.87", "0.88", "0.1", "0.1", "0.1", "1", "1", "1"],
        )
    ]
    gt, pred = write_corpus(
        tmp_path, [({"name": "x", "code": "x", "rows": [{"a/b": "x"}], "kept": "x"}, p) for p in rows]
    )
    patch = tmp_path / "patch.json"
    code, out, err = run_cli(
        capsys,
        "eval",
        path,
        gt,
        pred,
        "--plugin",
        PLUGIN,
        "--suggest-thresholds",
        patch,
        "-f",
        "json",
        "-o",
        tmp_path / "report.json",
    )
    assert code == 0, err
    assert json.loads(out)["thresholds"] == json.loads((tmp_path / "report.json").read_text())["thresholds"]
    operations = json.loads(patch.read_text())
    fields = json.loads(out)["thresholds"]["fields"]
    suggested = {p: b["best_threshold"] for p, b in fields.items() if b["suggest"]}
    assert suggested == {"name": 0.78, "code": 0.4, "rows.a/b": 0.85}
    assert operations == [
        {"op": "test", "path": "/properties/name/x-aws-stickler-threshold", "value": 0.8},
        {"op": "replace", "path": "/properties/name/x-aws-stickler-threshold", "value": 0.78},
        {"op": "add", "path": "/properties/code/x-aws-stickler-threshold", "value": 0.4},
        {"op": "test", "path": "/$defs/Row/properties/a~1b/x-aws-stickler-threshold", "value": 0.9},
        {"op": "replace", "path": "/$defs/Row/properties/a~1b/x-aws-stickler-threshold", "value": 0.85},
    ]
    patched = tmp_path / "patched.json"
    patched.write_text(json.dumps(apply_patch(nested, operations)))
    plan = load_schema(patched)
    assert {f.path: f.threshold for f in plan.fields if f.path in suggested} == suggested
    code, out, err = run_cli(capsys, "schema", "check", patched, "--plugin", PLUGIN)
    assert code == 0, err + out
    # Run again on the patched schema: nothing more to suggest.
    code, out, err = run_cli(capsys, "eval", patched, gt, pred, "--plugin", PLUGIN, "--suggest-thresholds", patch)
    assert code == 0 and json.loads(patch.read_text()) == []


def test_a_shared_definition_is_not_patched(tmp_path):
    shared = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Item"},
            "b": {"$ref": "#/$defs/Item"},
            "l": {"type": "array", "items": {"$ref": "#/$defs/Box"}},
            "m": {"type": "array", "items": {"$ref": "#/$defs/Box"}},
        },
        "$defs": {
            "Item": {**GIVEN, "x-aws-stickler-threshold": 0.8},
            "Box": {"type": "object", "properties": {"v": {**GIVEN, "x-aws-stickler-threshold": 0.8}}},
        },
    }
    plan = compile_schema(shared)
    # A $ref'd property is patched beside its $ref (its own keywords win); a field inside a shared object is not.
    assert locate(shared, "/properties/a") == "/properties/a"
    assert locate(shared, "/properties/l/items/properties/v") == "/$defs/Box/properties/v"
    fake = {"suggest": True, "best_threshold": 0.7}
    operations, skipped = suggest_patch(plan, {"a": fake, "l.v": fake})
    assert operations == [{"op": "add", "path": "/properties/a/x-aws-stickler-threshold", "value": 0.7}]
    assert skipped == [
        "l.v: its schema (/$defs/Box/properties/v) is shared by 2 fields; set x-aws-stickler-threshold by hand"
    ]


# -- mergeable state -------------------------------------------------------------------------------------


def random_corpus(n: int, seed: int) -> list[tuple[dict, dict]]:
    rng = random.Random(seed)
    docs = []
    for _ in range(n):
        s = rng.choice([rng.random(), round(rng.random(), 2), 0.8, 1.0, 0.0, None])
        docs.append(({"name": "x" if rng.random() > 0.1 else None}, {"name": None if s is None else repr(s)}))
    return docs


def test_workers_and_merged_states_agree_with_one_run(tmp_path, capsys):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema()))
    docs = random_corpus(700, 3)
    gt, pred = write_corpus(tmp_path, docs)
    halves = [write_corpus(tmp_path, docs[:350], "1"), write_corpus(tmp_path, docs[350:], "2")]
    blocks = []
    for workers in ("1", "2"):
        code, out, err = run_cli(capsys, "eval", path, gt, pred, "--plugin", PLUGIN, "--workers", workers, "-f", "json")
        assert code == 0, err
        blocks.append(json.loads(out)["thresholds"])
    for k, (g, p) in enumerate(halves):
        assert run_cli(capsys, "eval", path, g, p, "--plugin", PLUGIN, "--save-state", tmp_path / f"s{k}.json")[0] == 0
    code, out, err = run_cli(
        capsys, "merge", tmp_path / "s0.json", tmp_path / "s1.json", "--plugin", PLUGIN, "-f", "json"
    )
    assert code == 0, err
    blocks.append(json.loads(out)["thresholds"])
    assert blocks[0]["fields"]["name"]["compared"] > 500
    assert blocks[1] == blocks[0] and blocks[2] == blocks[0]


def test_a_tampered_histogram_is_refused(tmp_path, capsys):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema()))
    gt, pred = write_corpus(tmp_path, corpus())
    state = tmp_path / "s.json"
    assert run_cli(capsys, "eval", path, gt, pred, "--plugin", PLUGIN, "--save-state", state)[0] == 0
    data = json.loads(state.read_text())
    row = data["similarity_bins"][0]
    first_tp = verdict_bin(edges(0.8), 0.8)
    row[first_tp] -= 1  # the TP at exactly 0.8 moved below the threshold's edge
    row[first_tp - 1] += 1
    state.write_text(json.dumps(data))
    code, out, err = run_cli(capsys, "merge", state, "--plugin", PLUGIN)
    assert code == 2
    assert (
        "/similarity_bins/0: holds 4 similarities at or above the threshold and 6 below: the field counts 5 TP "
        "and 5 FD" in err
    )


def test_the_columnar_and_per_document_engines_bin_alike():
    plan = compile_schema(schema())
    docs = corpus() + random_corpus(300, 5)
    one, batched = Accumulator(plan), Accumulator(plan)
    engine = Engine(plan)
    for g, p in docs:
        one.add(engine.compare(g, p))
    batched.add_batch(engine.score_batch(docs))
    assert one.similarity.tolist() == batched.similarity.tolist()
    assert int(one.similarity.sum()) == one.tally[0] + one.tally[2]


# -- outputs ---------------------------------------------------------------------------------------------


def test_the_terminal_section_at_80_columns_piped(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    long = {
        "type": "object",
        "properties": {
            "customer": {
                "type": "object",
                "properties": {"a_rather_long_customer_name_field": {**GIVEN, "x-aws-stickler-threshold": 0.8}},
            }
        },
    }
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(long))
    gt, pred = write_corpus(
        tmp_path,
        [
            (
                {"customer": {"a_rather_long_customer_name_field": "x"}},
                {"customer": {"a_rather_long_customer_name_field": s}},
            )
            for s in SIMILARITIES
        ],
    )
    code, out, err = run_cli(capsys, "eval", path, gt, pred, "--plugin", PLUGIN)
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    start = next(k for k, line in enumerate(lines) if line.startswith("Thresholds"))
    section = "\n".join(lines[start : start + 12])
    for figure in ("0.8", "0.667", "0.78", "0.824", "3/10", "overlap"):  # F1 10/15 at 0.8 (no FA/FN), 14/17 at 0.78
        assert figure in section, (figure, section)
    assert "Flips: verdicts" in section


def test_nothing_to_say_no_section(tmp_path, capsys):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema()))
    gt, pred = write_corpus(tmp_path, corpus(["1.0"] * 8 + ["0.1"] * 6))
    code, out, _ = run_cli(capsys, "eval", path, gt, pred, "--plugin", PLUGIN)
    assert code == 0 and "Thresholds" not in out
    code, out, _ = run_cli(capsys, "eval", path, gt, pred, "--plugin", PLUGIN, "-f", "markdown")
    assert "### Thresholds" not in out


def test_markdown_html_and_report_schema(tmp_path, capsys):
    import jsonschema

    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema()))
    gt, pred = write_corpus(tmp_path, corpus())
    code, out, _ = run_cli(
        capsys,
        "eval",
        path,
        gt,
        pred,
        "--plugin",
        PLUGIN,
        "-f",
        "markdown",
        "--html",
        tmp_path / "r.html",
        "-o",
        tmp_path / "r.json",
    )
    assert "| `name` | 0.8 | 0.556 | 0.78 | 0.700 | 3 of 10 | `TP and FD similarities overlap" in out
    page = (tmp_path / "r.html").read_text()
    assert "<h2>Thresholds</h2>" in page and 'aria-label="name"' in page
    assert "best threshold 0.78: F1 0.700" in page and "configured threshold 0.8" in page
    report = json.loads((tmp_path / "r.json").read_text())
    jsonschema.validate(report, json.loads((ROOT / "schemas/report.schema.json").read_text()))


def test_the_patch_never_overwrites_an_input(tmp_path, capsys):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema()))
    gt, pred = write_corpus(tmp_path, corpus())
    code, out, err = run_cli(capsys, "eval", path, gt, pred, "--plugin", PLUGIN, "--suggest-thresholds", path)
    assert code == 2 and "--suggest-thresholds" in err and json.loads(path.read_text()) == schema()
