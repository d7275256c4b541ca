"""Slices (``--slice-by``, issue 19 item 4): figures per value of a ground-truth path, the slices where a
field is significantly worse (Fisher's exact test on design-effect counts, Benjamini–Hochberg), gates on a
slice, the cap and its "(other)" pool, mergeable states, and the outputs.

The statistics are checked against scipy's own tests and published worked examples; the procedure as a
whole by simulation: a planted weak slice is found, null slices are not, at the stated FDR.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import numpy as np
import orjson
import pytest
from scipy.stats import false_discovery_control, fisher_exact

from stickler_cli.report import gates, slices as slice_stats
from stickler_cli.run.accumulate import Accumulator, Collect
from stickler_cli.cli.app import main
from stickler_cli.report.slices import analyse, benjamini_hochberg, design_effects, fisher_less, newcombe
from stickler_cli.analyses.slicing import LARGE_INTEGER, LIST, MISSING, OBJECT, OTHER, Slices, label
from tests.support.case_files import write_case

SCHEMA = {
    "type": "object",
    "properties": {
        "invoice_id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "total": {"type": "number"},
        "vendor": {"type": "object", "properties": {"name": {"type": "string"}, "country": {"type": "string"}}},
    },
}
COUNTRIES = ("DE", "ES", "FR", "IT", "US")


def _corpus(n: int = 300) -> tuple[list[dict], list[dict]]:
    """Documents of five countries in turn; invoice_id wrong in every other German document and every
    20th of the others (shares 0.5 and 0.95): Germany is the planted weak slice, the rest are alike."""
    gts, preds = [], []
    for i in range(n):
        country = COUNTRIES[i % 5]
        gt = {
            "invoice_id": f"INV-{i}",
            "total": float(i),
            "vendor": {"name": f"V{i % 7}", "country": country},
            "_meta": {"template": f"t{i % 3}"},
        }
        wrong = (i // 5) % 2 == 0 if country == "DE" else (i // 5) % 20 == 1
        pred = {
            "invoice_id": f"X-{i}" if wrong else f"INV-{i}",
            "total": float(i),
            "vendor": {"name": f"V{i % 7}", "country": country},
        }
        gts.append(gt)
        preds.append(pred)
    return gts, preds


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return write_case(tmp_path, SCHEMA, *_corpus())


def _eval(files: dict[str, str], capsys, *extra: str) -> tuple[int, dict]:
    code = main(["eval", files["schema"], files["gt"], files["pred"], "--no-progress", "--format", "json", *extra])
    return code, orjson.loads(capsys.readouterr().out)


# -- the statistics, against scipy and worked examples ---------------------------------------------------------


def test_fisher_p_values_are_scipys() -> None:
    tables = [(3, 7, 90, 10), (0, 1, 99, 0), (5, 5, 5, 5), (1, 0, 0, 1), (12, 30, 400, 58), (0, 3, 0, 7)]
    a, b, c, e = (np.array(column, dtype=float) for column in zip(*tables))
    ours = fisher_less(a, b, c, e)
    for k, (w, x, y, z) in enumerate(tables):
        assert ours[k] == pytest.approx(fisher_exact([[w, x], [y, z]], alternative="less").pvalue, rel=1e-12)
    # one failed comparison in a slice of one, the rest 99 of 100 right: 2 failures among 101 comparisons, so
    # p = 2/101 that the slice's one is a failure (a z-test would say about 1e-23)
    assert fisher_less(np.array([0.0]), np.array([1.0]), np.array([99.0]), np.array([1.0]))[0] == pytest.approx(2 / 101)


def test_benjamini_hochberg_worked_by_hand_and_as_scipy() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.2])
    # sorted 0.005, 0.01, 0.03, 0.04, 0.2; times m/rank: 0.025, 0.025, 0.05, 0.05, 0.2; running minimum from the top
    assert benjamini_hochberg(p).tolist() == pytest.approx([0.025, 0.05, 0.05, 0.025, 0.2])
    rng = np.random.default_rng(3)
    for _ in range(20):
        p = rng.uniform(size=int(rng.integers(1, 40))) ** 3
        assert benjamini_hochberg(p) == pytest.approx(false_discovery_control(p, method="bh"))


def test_newcombe_interval_matches_the_paper() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, table II, method 10: 56/70 - 48/80 and 9/10 - 3/10
    low, high = newcombe(
        np.array([56 / 70, 0.9]), np.array([70.0, 10.0]), np.array([48 / 80, 0.3]), np.array([80.0, 10.0]), 0.95
    )
    assert low.round(4).tolist() == [0.0524, 0.1705]
    assert high.round(4).tolist() == [0.3339, 0.8090]


def _state(rows_by_slice: dict[str, list[tuple[int, int]]], cap: int = 20) -> dict:
    """Slices.state() of one path and one field from documents given as (decided comparisons x, TPs y)."""
    slices = Slices(["k"], 1, cap, 200)
    for value, docs in rows_by_slice.items():
        tally = np.array([[y, 0, x - y, 0, 0] for x, y in docs], dtype=np.int64)
        slices.add_batch([{"k": value}] * len(docs), tally, np.zeros(len(docs)))
    return slices.state()


def test_design_effect_is_one_for_one_comparison_a_document_and_k_for_k_perfectly_correlated() -> None:
    single = _state({"a": [(1, 1), (1, 0), (1, 1)], "b": [(1, 0), (1, 1), (0, 0)]})
    assert design_effects(single["paths"]["k"], 1).tolist() == [1.0]
    # documents of 4 items, all right or all wrong: each document is one piece of evidence, not four
    clustered = _state({"a": [(4, 4), (4, 0), (4, 4)], "b": [(4, 0), (4, 4)]})
    assert design_effects(clustered["paths"]["k"], 1).tolist() == pytest.approx([4.0])
    # so the counts tested are those of one comparison a document: a = 2, b = 1 for "a", c = 1, e = 1 for "b"
    found = analyse(clustered, ["f"], [0])["paths"]["k"]["values"]["b"]["field_metrics"]["f"]["test"]
    assert found["p_value"] == pytest.approx(fisher_exact([[1, 1], [2, 1]], alternative="less").pvalue)


def _simulate(seed: int, clustered: bool, plant: bool, fdr: float = 0.05, naive: bool = False) -> tuple[bool, int, int]:
    """One corpus of 8 slices × 60 documents, two fields: ``single`` (one comparison a document, right with
    probability 0.9, 0.65 in slice s3 when planted) and ``items`` (8 comparisons a document, all right or all
    wrong together when ``clustered``, probability 0.8). Returns (planted finding made, null findings, findings)."""
    rng = np.random.default_rng(seed)
    n_slices, per, k = 8, 60, 8
    value = np.repeat(np.arange(n_slices), per)
    p_single = np.where((value == 3) & plant, 0.65, 0.9)
    single = (rng.uniform(size=len(value)) < p_single).astype(np.int64)
    if clustered:
        items = np.where(rng.uniform(size=len(value)) < 0.8, k, 0)
    else:
        items = (rng.uniform(size=(len(value), k)) < 0.8).sum(axis=1)
    tally = np.zeros((len(value), 10), dtype=np.int64)
    tally[:, 0], tally[:, 2] = single, 1 - single
    tally[:, 5], tally[:, 7] = items, k - items
    slices = Slices(["t"], 2, 20, 200)
    slices.add_batch([{"t": f"s{v}"} for v in value], tally, np.ones(len(value)))
    state = slices.state()
    if naive:  # every comparison taken as independent evidence
        original = slice_stats._design_effects
        slice_stats._design_effects = lambda counts, moments: np.ones(counts.shape[1])
        try:
            found = analyse(state, ["single", "items"], [0, 1], fdr)["significant"]
        finally:
            slice_stats._design_effects = original
    else:
        found = analyse(state, ["single", "items"], [0, 1], fdr)["significant"]
    planted = any(f["value"] == "s3" and f["field"] == "single" for f in found) if plant else False
    null = sum(1 for f in found if not (plant and f["value"] == "s3" and f["field"] == "single"))
    return planted, null, len(found)


def test_a_planted_weak_slice_is_found_and_null_slices_are_not_at_the_stated_fdr() -> None:
    """200 seeded corpora: the planted slice (0.65 against 0.9, 60 documents) is found in most; the share of
    findings that are null slices (the false-discovery proportion) is at most the FDR on average, though
    the list field's comparisons come 8 at a time from one document, all right or all wrong."""
    found, proportions = 0, []
    for seed in range(200):
        planted, null, total = _simulate(seed, clustered=True, plant=True)
        found += planted
        proportions.append(null / total if total else 0.0)
    assert found / 200 >= 0.8
    assert np.mean(proportions) <= 0.05


def test_without_the_design_effect_clustered_null_slices_would_be_found() -> None:
    """The same null corpora, no slice planted: with the design effect a finding is rare (at most the FDR of
    runs, as Benjamini-Hochberg promises when every hypothesis is null); taking the 8 comparisons of a
    document as 8 independent pieces of evidence, most runs would 'find' a weak slice."""
    with_effect = sum(_simulate(seed, clustered=True, plant=False)[2] > 0 for seed in range(200))
    naive = sum(_simulate(seed, clustered=True, plant=False, naive=True)[2] > 0 for seed in range(200))
    assert with_effect / 200 <= 0.05  # 9 of 200 (1,000 seeds: 3.1%)
    assert naive / 200 >= 0.5  # 177 of 200


def test_independent_comparisons_keep_their_full_weight() -> None:
    # items independent within a document: the design effect stays near 1, not 8
    rng_d = [design_effects(_one_path(seed), 2)[1] for seed in range(5)]
    assert all(0.99 <= d < 1.5 for d in rng_d), rng_d


def _one_path(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    items = (rng.uniform(size=(200, 8)) < 0.8).sum(axis=1)
    tally = np.zeros((200, 10), dtype=np.int64)
    tally[:, 5], tally[:, 7] = items, 8 - items
    slices = Slices(["t"], 2, 20, 200)
    slices.add_batch([{"t": f"s{i % 4}"} for i in range(200)], tally, np.ones(200))
    return slices.state()["paths"]["t"]


# -- slice values, the cap and merging ------------------------------------------------------------------------


def test_slice_values_follow_the_documented_rules() -> None:
    keys = ["vendor", "country"]
    assert label({"vendor": {"country": "DE"}}, keys, 200) == "DE"
    assert label({"vendor": {"country": {"_value": "FR", "_confidence": 0.9}}}, keys, 200) == "FR"
    for record in (
        {},
        {"vendor": None},
        {"vendor": {}},
        {"vendor": {"country": None}},
        {"vendor": {"country": ""}},
        {"vendor": "DE"},
        {"vendor": [{"country": "DE"}]},
    ):
        assert label(record, keys, 200) == MISSING, record
    assert label({"vendor": {"country": {"a": 1}}}, keys, 200) == OBJECT
    assert label({"vendor": {"country": ["DE"]}}, keys, 200) == LIST
    assert [label({"k": v}, ["k"], 200) for v in (True, 3, 2.5, float("nan"), -float("inf"))] == [
        "true",
        "3",
        "2.5",
        "NaN",
        "-Infinity",
    ]
    assert label({"k": "x" * 300}, ["k"], 200) == "x" * 200
    assert label({"k": 10**5000}, ["k"], 200) == LARGE_INTEGER


def _batches(records: list[dict], size: int) -> Slices:
    slices = Slices(["k"], 1, 3, 200)
    for start in range(0, len(records), size):
        part = records[start : start + size]
        tally = np.array([[1, 0, 0, 0, 0] if r["ok"] else [0, 0, 1, 0, 0] for r in part], dtype=np.int64)
        slices.add_batch(part, tally, np.array([1.0 if r["ok"] else 0.0 for r in part]))
    return slices


def test_the_cap_keeps_the_smallest_values_and_pools_the_rest_whatever_the_order_or_split() -> None:
    values = ["m", "c", "z", "a", "q", "b", None, "c", "z", "a"]
    records = [{"k": v, "ok": i % 3 != 0} for i, v in enumerate(values)]
    one = _batches(records, 256).state()
    assert list(one["paths"]["k"]) == [MISSING, OTHER, "a", "b", "c"]  # the 3 smallest; (missing) outside the cap
    other = one["paths"]["k"][OTHER]
    assert other["documents"] == 4  # m, z, q, z
    assert [sum(v["documents"] for v in one["paths"]["k"].values())] == [len(values)]
    # batches of 1 (values pooled early, then "a" arrives and evicts "q"), shards merged in either order
    assert _batches(records, 1).state() == one
    for cut in range(1, len(records)):
        first, second = _batches(records[:cut], 2), _batches(records[cut:], 3)
        for x, y in ((first, second), (_batches(records[cut:], 3), _batches(records[:cut], 2))):
            x.merge(y.state())
            assert x.state()["paths"] == one["paths"], cut


def test_the_smaller_cap_wins_when_states_merge() -> None:
    big = Slices(["k"], 1, 5, 200)
    big.add_batch([{"k": v} for v in "edcba"], np.ones((5, 5), dtype=np.int64), np.ones(5))
    small = Slices(["k"], 1, 2, 200)
    small.add_batch([{"k": "f"}], np.ones((1, 5), dtype=np.int64), np.ones(1))
    small.merge(big.state())
    state = small.state()
    assert state["max_values"] == 2 and list(state["paths"]["k"]) == [OTHER, "a", "b"]
    assert state["paths"]["k"][OTHER]["documents"] == 4


def test_the_cap_is_a_limit_and_other_pools_the_rest(files, capsys) -> None:
    code, report = _eval(files, capsys, "--slice-by", "vendor.name", "--limit", "slice-values=3")
    values = report["slices"]["paths"]["vendor.name"]["values"]
    assert list(values) == [OTHER, "V0", "V1", "V2"]
    assert report["slices"]["paths"]["vendor.name"]["pooled"] is True
    assert sum(v["documents"] for v in values.values()) == 300
    assert values[OTHER]["documents"] == sum(1 for i in range(300) if i % 7 >= 3)


# -- a run, end to end -------------------------------------------------------------------------------------------


def test_the_planted_country_is_found_with_its_figures(files, capsys, root: Path) -> None:
    code, report = _eval(files, capsys, "--slice-by", "vendor.country", "--slice-by", "_meta.template")
    assert code == 0
    section = report["slices"]
    jsonschema.validate(report, orjson.loads((root / "schemas/report.schema.json").read_bytes()))
    de = section["paths"]["vendor.country"]["values"]["DE"]
    assert de["documents"] == 60
    invoice = de["field_metrics"]["invoice_id"]
    assert (invoice["tp"], invoice["fd"], invoice["tp_share"]) == (30, 30, 0.5)
    # the rest: 240 documents, every 20th group of five wrong (i // 5 % 20 == 1): 12 of 240 wrong
    assert invoice["test"]["rest_tp_share"] == pytest.approx(228 / 240)
    assert invoice["test"]["p_value"] == pytest.approx(fisher_exact([[30, 30], [228, 12]], alternative="less").pvalue)
    assert [(f["path"], f["value"], f["field"]) for f in section["significant"]] == [
        ("vendor.country", "DE", "invoice_id")
    ]
    finding = section["significant"][0]
    assert finding["difference"] == pytest.approx(0.5 - 0.95)
    assert finding["low"] < finding["difference"] < finding["high"] < 0
    assert finding["cm_f1"] == pytest.approx(2 * 30 / (2 * 30 + 30))
    # templates are alike: no finding among them. Tests: only invoice_id has a failure anywhere, so one test per
    # slice value: 5 countries and 3 templates
    assert section["tests"] == 5 + 3
    assert section["fdr"] == 0.05 and section["max_values"] == 20


def test_merge_and_workers_give_the_one_run_figures(files, tmp_path: Path, capsys) -> None:
    args = ("--slice-by", "vendor.country", "--slice-by", "_meta.template", "--limit", "slice-values=3")
    _, one = _eval(files, capsys, *args)
    _, pool = _eval(files, capsys, *args, "--workers", "2")
    assert _exact(pool["slices"]) == _exact(one["slices"])
    gts, preds = (Path(files[k]).read_text().splitlines(keepends=True) for k in ("gt", "pred"))
    states = []
    for k, (lo, hi) in enumerate(((0, 77), (77, 300))):  # shards that see different countries first
        (tmp_path / f"g{k}.jsonl").write_text("".join(gts[lo:hi]))
        (tmp_path / f"p{k}.jsonl").write_text("".join(preds[lo:hi]))
        state = tmp_path / f"s{k}.json"
        assert (
            main(
                [
                    "eval",
                    files["schema"],
                    str(tmp_path / f"g{k}.jsonl"),
                    str(tmp_path / f"p{k}.jsonl"),
                    "--no-progress",
                    "--format",
                    "json",
                    "--save-state",
                    str(state),
                    *args,
                ]
            )
            == 0
        )
        capsys.readouterr()
        states.append(str(state))
    assert main(["merge", *states, "--format", "json"]) == 0
    merged = orjson.loads(capsys.readouterr().out)
    assert _exact(merged["slices"]) == _exact(one["slices"])
    assert main(["merge", *reversed(states), "--format", "json"]) == 0
    assert _exact(orjson.loads(capsys.readouterr().out)["slices"]) == _exact(one["slices"])


def _exact(section: dict) -> dict:
    """The section with each slice's weighted score rounded: documents' scores are floats added in another
    order by another split (as the run's own weighted score is); every count and test is exact."""
    copy = json.loads(json.dumps(section))
    for block in copy["paths"].values():
        for value in block["values"].values():
            value["weighted_overall_score"] = round(value["weighted_overall_score"], 12)
    return copy


def test_states_sliced_differently_or_tampered_are_refused(files, tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, extra in ((a, ["--slice-by", "vendor.country"]), (b, [])):
        assert (
            main(
                [
                    "eval",
                    files["schema"],
                    files["gt"],
                    files["pred"],
                    "--no-progress",
                    "--format",
                    "json",
                    "--save-state",
                    str(path),
                    *extra,
                ]
            )
            == 0
        )
    capsys.readouterr()
    assert main(["merge", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "same --slice-by" in err and err.count("\n") == 1
    saved = orjson.loads(a.read_bytes())
    cases = [
        (
            lambda s: s["slices"]["paths"]["vendor.country"]["DE"]["moments"][0].__setitem__(0, 10**6),
            "/slices/paths/vendor.country/DE/moments/0: cannot be the sums",
        ),
        (
            lambda s: s["slices"]["paths"]["vendor.country"]["DE"]["counts"][0].__setitem__(4, 5),
            "/slices/paths/vendor.country: the slices' counts do not add up",
        ),
        (
            lambda s: s["slices"]["paths"]["vendor.country"].pop("FR"),
            "/slices/paths/vendor.country: counts 240 documents",
        ),
        (lambda s: s["slices"].__setitem__("max_values", 2), "holds 5 values, more than the 2"),
    ]
    for k, (change, expected) in enumerate(cases):
        bad = json.loads(json.dumps(saved))
        change(bad)
        path = tmp_path / f"bad{k}.json"
        path.write_bytes(orjson.dumps(bad))
        assert main(["merge", str(path)]) == 2
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1, err


# -- gates -------------------------------------------------------------------------------------------------------


def test_slice_gates_pass_fail_and_have_no_data(files, capsys) -> None:
    gates = (
        "--fail-under",
        "slice:vendor.country=FR:invoice_id.cm_f1=0.9",
        "--fail-under",
        "slice:vendor.country=XX:cm_f1=0.9",
    )
    code, report = _eval(files, capsys, *gates, "--no-data-passes")
    assert code == 0  # the gate's path is sliced without --slice-by
    results = {r["gate"]: (r["status"], r["actual"]) for r in report["gates"]}
    fr = report["slices"]["paths"]["vendor.country"]["values"]["FR"]["field_metrics"]["invoice_id"]["cm_f1"]
    assert results == {
        "slice:vendor.country=FR:invoice_id.cm_f1 >= 0.9": ("passed", fr),
        "slice:vendor.country=XX:cm_f1 >= 0.9": ("no data", None),
    }
    code, report = _eval(files, capsys, *gates)  # a slice the run did not see fails for lack of data by default
    assert code == 1 and [(r["status"], r["no_data"]) for r in report["gates"]] == [("passed", False), ("failed", True)]
    code, report = _eval(files, capsys, "--fail-under", "slice:vendor.country=*:invoice_id.cm_f1=0.9")
    assert code == 1
    statuses = {r["slice"]["value"]: r["status"] for r in report["gates"]}
    assert statuses == {"DE": "failed", "ES": "passed", "FR": "passed", "IT": "passed", "US": "passed"}
    assert [r["actual"] for r in report["gates"] if r["slice"]["value"] == "DE"] == [pytest.approx(2 * 30 / 90)]
    code, report = _eval(files, capsys, "--fail-under", "slice:vendor.country=DE:weighted_overall_score=0.99")
    assert (
        code == 1
        and report["gates"][0]["actual"]
        == report["slices"]["paths"]["vendor.country"]["values"]["DE"]["weighted_overall_score"]
    )


@pytest.mark.parametrize(
    "gate, message",
    [
        ("slice:vendor.country:cm_f1=0.9", "expected slice:PATH=VALUE:METRIC"),
        ("slice:=DE:cm_f1=0.9", "expected slice:PATH=VALUE:METRIC"),
        ("slice:vendor.country=DE:invoice_id.mean_score=0.9", "a slice keeps counts, not 'mean_score'"),
        ("slice:vendor.country=DE:valid_json_rate=0.9", "a slice keeps counts, not 'valid_json_rate'"),
        ("slice:vendor.country=DE:nope.cm_f1=0.9", "matches no field path"),
    ],
)
def test_bad_slice_gates_are_usage_errors(files, capsys, gate: str, message: str) -> None:
    assert main(["eval", files["schema"], files["gt"], files["pred"], "--no-progress", "--fail-under", gate]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_a_slice_gate_on_merged_states_needs_their_slicing(files, tmp_path: Path, capsys) -> None:
    state = tmp_path / "run.state.json"
    assert (
        main(
            [
                "eval",
                files["schema"],
                files["gt"],
                files["pred"],
                "--no-progress",
                "--format",
                "json",
                "--save-state",
                str(state),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["merge", str(state), "--fail-under", "slice:vendor.country=DE:cm_f1=0.5"]) == 2
    assert "the run was not sliced by 'vendor.country'" in capsys.readouterr().err


def test_gate_keys_split_as_documented() -> None:
    gate = gates.parse("slice:a.b=x:y=z:items.*.cm_f1=0.5")
    assert (gate.slice, gate.pattern, gate.metric) == (("a.b", "x:y=z"), "items.*", "cm_f1")
    assert gates.parse("slice:a=DE:cm_f1=0.5").pattern is None


@pytest.mark.parametrize(
    "args, message",
    [
        (["--fdr", "0"], "--fdr must be a rate between 0 and 1"),
        (["--fdr", "1.5"], "--fdr must be a rate between 0 and 1"),
        (["--slice-by", "vendor..country"], "expected a dotted path"),
        (["--limit", "slice-values=0"], "slice-values: must be above 0"),
    ],
)
def test_bad_options_are_usage_errors(files, capsys, args: list[str], message: str) -> None:
    assert main(["eval", files["schema"], files["gt"], files["pred"], "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


# -- outputs -----------------------------------------------------------------------------------------------------


def test_the_terminal_section_fits_80_columns_piped_and_shows_every_figure_whole(
    files, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    gts = [
        dict(g, vendor=dict(g["vendor"], country="Deutschland_Bundesrepublik_" + g["vendor"]["country"]))
        for g in map(json.loads, Path(files["gt"]).read_text().splitlines())
    ]
    Path(files["gt"]).write_text("".join(json.dumps(g) + "\n" for g in gts))
    args = ["eval", files["schema"], files["gt"], files["pred"], "--no-progress", "--slice-by", "vendor.country"]
    assert main([*args, "-o", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    section = out.split("Weak slices")[1]
    assert "…" not in section.split("Share: TP")[0]
    f = json.loads((tmp_path / "r.json").read_text())["slices"]["significant"][0]
    figures = [
        str(f["documents"]),
        f"{f['tp_share']:.3f}",
        f"{f['rest_tp_share']:.3f}",
        f"{f['difference']:+.3f}",
        f"[{f['low']:+.3f},",
        f"{f['high']:+.3f}]",
        f"{f['q_value']:.2g}",
    ]
    for figure in figures:
        assert re.search(rf"(^|\s){re.escape(figure)}(\s|$)", section, re.M), (figure, section)
    lines = section.splitlines()
    rule = next(k for k, line in enumerate(lines) if line.strip().startswith("─"))
    key = "".join(line[:24].strip() for line in lines[rule + 1 : rule + 4])  # the key column's lines: wrapped, whole
    assert key == "Deutschland_Bundesrepublik_DE ·invoice_id", key


def test_no_table_without_a_finding_and_nothing_without_slicing(files, capsys) -> None:
    assert (
        main(["eval", files["schema"], files["gt"], files["pred"], "--no-progress", "--slice-by", "_meta.template"])
        == 0
    )
    out = capsys.readouterr().out
    assert "Weak slices" not in out
    assert "Sliced by _meta.template: no field significantly worse in any slice" in " ".join(out.split())
    assert main(["eval", files["schema"], files["gt"], files["pred"], "--no-progress", "--format", "json"]) == 0
    assert "slices" not in orjson.loads(capsys.readouterr().out)


def test_markdown_and_html_show_the_findings(files, tmp_path: Path, capsys) -> None:
    html = tmp_path / "r.html"
    assert (
        main(
            [
                "eval",
                files["schema"],
                files["gt"],
                files["pred"],
                "--no-progress",
                "--format",
                "markdown",
                "--slice-by",
                "vendor.country",
                "--html",
                str(html),
            ]
        )
        == 0
    )
    markdown = capsys.readouterr().out
    assert "### Slices" in markdown
    assert re.search(
        r"\| `vendor.country=DE` \| `invoice_id` \| 60 \| 0\.500 \| 0\.950 \| -0\.450 \| \[-0\.\d{3}, -0\.\d{3}\] \|",
        markdown,
    ), markdown
    page = html.read_text()
    assert "<h2>Slices</h2>" in page and "vendor.country=DE" in page and "Slices of vendor.country: 5 value(s)" in page


def test_slicing_costs_nothing_when_off() -> None:
    """Without --slice-by the accumulator holds no slice table and the scoring loop skips the call."""
    from stickler_cli.schema import compile_schema

    acc = Accumulator(compile_schema(SCHEMA))
    assert not acc.slices and acc.get_state()["slices"] == {"max_values": 20, "paths": {}}
    assert Collect().slices == ()


def test_a_path_no_record_holds_is_a_warning_not_good_news(capsys) -> None:
    """A misspelt --slice-by made every document "(missing)": one slice, no test, "no field significantly worse"."""
    root = Path(__file__).resolve().parents[2]
    files = [
        str(root / p) for p in ("schemas/invoice.json", "fixtures/invoice/gt.jsonl", "fixtures/invoice/pred.jsonl")
    ]
    warning = (
        "--slice-by custmer_name: no ground-truth record holds a value there (all 24 documents are (missing)) "
        "(did you mean 'customer_name'?)"
    )
    assert main(["eval", *files, "--slice-by", "custmer_name", "--slice-by", "internal_notes", "-f", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == f"stickler: warning: {warning}\n"
    assert orjson.loads(out)["warnings"] == [warning]  # internal_notes is held by some records: no warning
