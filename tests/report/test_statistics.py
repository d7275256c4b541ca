"""Bootstrap intervals: agreement with scipy.stats.bootstrap, coverage, and the report's keys."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from stickler_cli.cli.app import main
from stickler_cli.report.statistics import BATCH, figures, intervals, resampled_sums, row_width


def rows_from(scores, counts):
    """Document rows for one field: score, [tp, fa, fd, fn, tn], score sum, score count."""
    return np.array([[s, *c, s, 1.0] for s, c in zip(scores, counts)], dtype=np.float64)


def test_weighted_score_interval_equals_scipy_on_the_same_resamples():
    rng = np.random.default_rng(7)
    scores = rng.uniform(0, 1, 150)
    rows = rows_from(scores, [[1, 0, 0, 0, 0]] * 150)
    ours = intervals(rows, 1, 0.9, 500, seed=3)["weighted_overall_score"]
    theirs = stats.bootstrap(
        (scores,),
        np.mean,
        n_resamples=500,
        confidence_level=0.9,
        method="percentile",
        batch=BATCH,
        rng=np.random.default_rng(3),
    ).confidence_interval
    assert ours == pytest.approx((theirs.low, theirs.high), abs=1e-12)


def test_precision_interval_equals_scipy_paired_statistic():
    rng = np.random.default_rng(11)
    counts = [[int(t), int(f), 0, int(n), 0] for t, f, n in rng.integers(0, 3, (120, 3))]
    rows = rows_from(rng.uniform(0, 1, 120), counts)
    tp = np.array([c[0] for c in counts], float)
    fp = np.array([c[1] + c[2] for c in counts], float)
    fn = np.array([c[3] for c in counts], float)

    def precision(tp, fp, fn, axis=-1):
        return tp.sum(axis) / (tp.sum(axis) + fp.sum(axis))

    def f1(tp, fp, fn, axis=-1):
        return 2 * tp.sum(axis) / (2 * tp.sum(axis) + fp.sum(axis) + fn.sum(axis))

    ours = intervals(rows, 1, 0.95, 400, seed=5)["fields"]
    for name, statistic in (("cm_precision", precision), ("cm_f1", f1)):
        theirs = stats.bootstrap(
            (tp, fp, fn),
            statistic,
            paired=True,
            n_resamples=400,
            method="percentile",
            batch=BATCH,
            rng=np.random.default_rng(5),
        ).confidence_interval
        assert ours[name][0] == pytest.approx((theirs.low, theirs.high), abs=1e-12), name


def test_intervals_cover_the_true_value_about_95_percent_of_the_time():
    """Documents right with probability 0.8: the interval of the mean score covers 0.8 in about
    95% of seeded repetitions (300 repetitions; 0.91–0.98 is ±3.5 standard errors)."""
    covered = 0
    for seed in range(300):
        rng = np.random.default_rng(1000 + seed)
        right = rng.uniform(size=200) < 0.8
        rows = rows_from(right.astype(float), [[1, 0, 0, 0, 0] if r else [0, 0, 1, 0, 0] for r in right])
        low, high = intervals(rows, 1, 0.95, 400, seed=seed)["weighted_overall_score"]
        covered += low <= 0.8 <= high
    assert 0.91 <= covered / 300 <= 0.98


def test_undefined_figures_have_no_interval():
    # Recall of a field present in one document out of 50: some resamples have no TP + FN at all.
    counts = [[1, 0, 0, 0, 0]] + [[0, 0, 0, 0, 1]] * 49
    found = intervals(rows_from([1.0] * 50, counts), 1, 0.95, 200, seed=0)["fields"]
    assert found["cm_recall"] == [None]
    assert intervals(np.empty((0, row_width(1))), 1)["weighted_overall_score"] is None


def test_figures_from_sums():
    sums = np.array([[3.0, 4, 1, 1, 2, 0, 2.5, 5]])  # one field: tp 4, fa 1, fd 1, fn 2
    got = figures(sums, 4, 1)
    assert got["weighted_overall_score"][0] == 0.75
    assert got["cm_precision"][0, 0] == 4 / 6 and got["cm_recall"][0, 0] == 4 / 6
    assert got["cm_f1"][0, 0] == 8 / 12 and got["mean_score"][0, 0] == 0.5
    assert sum(len(s) for s in resampled_sums(np.ones((5, 3)), 250, 0)) == 250


# -- the CLI ----------------------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "n": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
                },
            }
        )
    )
    rng = np.random.default_rng(0)
    gt = [{"id": f"d{k}", "n": k} for k in range(300)]
    pred = [{"id": r["id"] if rng.uniform() < 0.9 else "x", "n": r["n"] if rng.uniform() < 0.7 else -1} for r in gt]
    (tmp_path / "gt.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gt))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pred))
    return {"schema": str(schema), "gt": str(tmp_path / "gt.jsonl"), "pred": str(tmp_path / "pred.jsonl")}


def _eval(files, capsys, *extra):
    assert main(["eval", files["schema"], files["gt"], files["pred"], "-f", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_report_carries_intervals_and_workers_agree(files, capsys):
    one = _eval(files, capsys, "--ci", "0.9", "--bootstrap", "300", "--seed", "4")
    ci = one["metrics"]["weighted_overall_score_ci"]
    assert ci["level"] == 0.9 and ci["low"] < one["metrics"]["weighted_overall_score"] < ci["high"]
    for name in ("cm_precision", "cm_recall", "cm_f1", "mean_score"):
        block = one["field_metrics"]["id"][f"{name}_ci"]
        assert block["low"] <= one["field_metrics"]["id"][name] <= block["high"]
    assert one["bootstrap"]["resamples"] == 300
    two = _eval(files, capsys, "--ci", "0.9", "--bootstrap", "300", "--seed", "4", "--workers", "2")
    assert two["metrics"]["weighted_overall_score_ci"] == pytest.approx(ci)
    assert "weighted_overall_score_ci" not in _eval(files, capsys)["metrics"]


def test_merged_states_give_the_same_intervals(files, tmp_path, capsys):
    whole = _eval(files, capsys, "--ci", "0.95", "--bootstrap", "200")
    state = tmp_path / "a.state"
    _eval(files, capsys, "--ci", "0.95", "--save-state", str(state))
    assert main(["merge", str(state), "-f", "json", "--ci", "0.95", "--bootstrap", "200"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["field_metrics"]["n"]["cm_f1_ci"] == whole["field_metrics"]["n"]["cm_f1_ci"]
    plain = tmp_path / "b.state"
    _eval(files, capsys, "--save-state", str(plain))
    assert main(["merge", str(plain), "--ci", "0.95"]) == 2
    assert "stickler eval --ci LEVEL --save-state" in capsys.readouterr().err


def test_bad_level_is_a_usage_error(files, capsys):
    assert main(["eval", files["schema"], files["gt"], files["pred"], "--ci", "95"]) == 2
    assert "between 0 and 1" in capsys.readouterr().err


def test_report_with_intervals_validates(files, capsys):
    from pathlib import Path

    import jsonschema

    schema = json.loads((Path(__file__).parents[2] / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(_eval(files, capsys, "--ci", "0.95", "--bootstrap", "100"), schema)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_per_document_lines(files, tmp_path, capsys, workers):
    target = tmp_path / "docs.jsonl"
    report = _eval(files, capsys, "--per-document", str(target), "--workers", workers)
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [d["doc_id"] for d in lines] == [f"d{k}" for k in range(300)]  # named by the records' "id"
    assert sum(d["score"] for d in lines) / 300 == pytest.approx(report["metrics"]["weighted_overall_score"])
    for path in ("id", "n"):  # the lines' classifications add up to the report's counts
        for name in ("tp", "fa", "fd", "fn", "tn"):
            assert sum(d["counts"].get(path, {}).get(name, 0) for d in lines) == report["field_metrics"][path][name]
    assert set(lines[0]) == {
        "doc_id",
        "gt_source",
        "gt_line",
        "pred_source",
        "pred_line",
        "score",
        "field_scores",
        "counts",
    }
    assert (lines[0]["gt_source"], lines[0]["pred_source"]) == (files["gt"], files["pred"])
    assert set(lines[0]["field_scores"]) == {"id", "n"}


# -- stickler diff -------------------------------------------------------------------------------------


def _right_rows(right):
    return rows_from(right.astype(float), [[1, 0, 0, 0, 0] if r else [0, 0, 1, 0, 0] for r in right])


def test_paired_interval_equals_scipy_on_the_same_resamples():
    from stickler_cli.report.statistics import paired_comparison

    rng = np.random.default_rng(2)
    a, b = rng.uniform(size=180), rng.uniform(size=180)
    found = paired_comparison(
        rows_from(a, [[1, 0, 0, 0, 0]] * 180), rows_from(b, [[1, 0, 0, 0, 0]] * 180), 1, 0.9, 300, seed=8
    )["weighted_overall_score"]
    theirs = stats.bootstrap(
        (b - a,),
        np.mean,
        n_resamples=300,
        confidence_level=0.9,
        method="percentile",
        batch=BATCH,
        rng=np.random.default_rng(8),
    ).confidence_interval
    assert (found["low"], found["high"]) == pytest.approx((theirs.low, theirs.high), abs=1e-12)


def test_paired_interval_covers_a_known_improvement_about_95_percent_of_the_time():
    """A is right with probability 0.7, B with 0.8, on the same documents: the interval of B − A
    covers the true 0.1 in about 95% of 200 seeded repetitions, and B is found better most times."""
    from stickler_cli.report.statistics import paired_comparison

    covered = better = 0
    for seed in range(200):
        rng = np.random.default_rng(5000 + seed)
        u = rng.uniform(size=300)
        a, b = u < 0.7, u < 0.8  # B is right wherever A is, and on 10% more documents
        b = np.where(rng.uniform(size=300) < 0.5, b, rng.uniform(size=300) < 0.8)  # not perfectly paired
        found = paired_comparison(_right_rows(a), _right_rows(b), 1, 0.95, 300, seed=seed)["weighted_overall_score"]
        covered += found["low"] <= 0.1 <= found["high"]
        better += found["low"] > 0 and found["p_value"] < 0.05
    assert 0.90 <= covered / 200 <= 0.985
    assert better / 200 > 0.9


def test_identical_sets_differ_by_nothing():
    from stickler_cli.report.statistics import paired_comparison

    rows = _right_rows(np.random.default_rng(0).uniform(size=100) < 0.6)
    for name, block in paired_comparison(rows, rows, 1, 0.95, 200, seed=1).items():
        assert float(np.ravel(block["p_value"])[0]) == 1.0, name
        assert float(np.ravel(block["low"])[0]) <= 0 <= float(np.ravel(block["high"])[0])


def test_diff_command(files, tmp_path, capsys):
    worse = tmp_path / "worse.jsonl"
    rows = [json.loads(line) for line in open(files["pred"])]
    worse.write_text("".join(json.dumps(dict(r, id="x") if k % 3 == 0 else r) + "\n" for k, r in enumerate(rows)))
    args = ["diff", files["schema"], files["gt"], files["pred"]]
    assert main([*args, str(worse), "-f", "json", "--fail-on-regression", "--bootstrap", "300"]) == 1
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert [(r["path"], r["metric"]) for r in report["regressions"]] == [
        (None, "weighted_overall_score"),
        ("id", "cm_f1"),
    ]
    first = report["comparisons"][0]
    assert first["difference"] == pytest.approx(first["b"] - first["a"]) and first["ci"]["high"] < 0
    assert "significantly worse on 2 watched figure(s)" in err
    # the same file twice: nothing changed, exit 0
    assert main([*args, files["pred"], "--fail-on-regression"]) == 0
    assert "within the noise" in capsys.readouterr().out
    assert main([*args, str(worse), "--metric", "nope.cm_f1"]) == 2


def test_diff_of_saved_states(files, tmp_path, capsys):
    worse = tmp_path / "worse.jsonl"
    rows = [json.loads(line) for line in open(files["pred"])]
    worse.write_text("".join(json.dumps(dict(r, id="x") if k % 3 == 0 else r) + "\n" for k, r in enumerate(rows)))
    a, b = tmp_path / "a.state", tmp_path / "b.state"
    for pred, state in ((files["pred"], a), (str(worse), b)):
        assert (
            main(["eval", files["schema"], files["gt"], pred, "--ci", "0.95", "--save-state", str(state), "-f", "json"])
            == 0
        )
    capsys.readouterr()
    assert (
        main(["diff", files["schema"], files["gt"], files["pred"], str(worse), "-f", "json", "--bootstrap", "200"]) == 0
    )
    direct = json.loads(capsys.readouterr().out)
    assert main(["diff", str(a), str(b), "-f", "json", "--bootstrap", "200"]) == 0
    saved = json.loads(capsys.readouterr().out)
    assert saved["comparisons"] == direct["comparisons"]
    # Another ground truth (documents reversed) is refused, naming the first document that differs.
    other = tmp_path / "gt2.jsonl"
    other.write_text("".join(reversed(open(files["gt"]).readlines())))
    c = tmp_path / "c.state"
    # Paired by line, reversed documents are out of step (their ids say so): the user insists.
    assert (
        main(["eval", files["schema"], str(other), str(worse), "--ci", "0.95", "--save-state", str(c), "-f", "json"])
        == 2
    )
    assert "the two files look out of step" in capsys.readouterr().err
    assert (
        main(
            [
                "eval",
                files["schema"],
                str(other),
                str(worse),
                "--ci",
                "0.95",
                "--save-state",
                str(c),
                "-f",
                "json",
                "--pair-by-line",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["diff", str(a), str(c)]) == 2
    assert "document 1 is not the ground truth" in capsys.readouterr().err
    assert main(["diff", str(a)]) == 2


def test_diff_refuses_what_it_cannot_answer(files, tmp_path, capsys):
    args = ["diff", files["schema"], files["gt"], files["pred"], files["pred"]]
    assert main(["diff", files["schema"], files["gt"], "-", "-"]) == 2  # one standard input only
    assert "standard input" in capsys.readouterr().err
    assert main([*args, "--bootstrap", "10"]) == 2  # p can never go below 1/11
    assert "no p-value can go below 1/11" in capsys.readouterr().err
    for key in ("cm_f1", "id.cm_accuracy"):  # gates know them; a diff does not compute them
        assert main([*args, "--metric", key]) == 2, key
        assert "a diff compares" in capsys.readouterr().err
    assert main([*args, "--metric", "weighted_overall_score.cm_f1"]) == 2
    assert "matches no field path" in capsys.readouterr().err
    assert main([*args, "--seed", "-1"]) == 2
    capsys.readouterr()
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main(["diff", files["schema"], str(empty), str(empty), str(empty), "--fail-on-regression"]) == 1
    assert "no document was compared" in capsys.readouterr().err


@pytest.mark.parametrize("id_field", [[], ["--id-field", "id"]])
def test_diff_reads_the_ground_truth_once(files, tmp_path, id_field):
    """One pass: the ground truth may come from standard input, and both sides see every document;
    an extra prediction line on one side is reported, not misaligned."""
    import subprocess
    import sys

    truth = [json.loads(line) for line in open(files["gt"])]
    same, worse = tmp_path / "same.jsonl", tmp_path / "worse.jsonl"
    same.write_text("".join(json.dumps(r) + "\n" for r in truth))
    worse.write_text(
        "".join(json.dumps(dict(r, n=-5) if k % 4 == 0 else r) + "\n" for k, r in enumerate(truth))
        + '{"id": "extra", "n": 1}\n'
    )

    def diff(gt: str) -> dict:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "stickler_cli",
                "diff",
                files["schema"],
                gt,
                str(same),
                str(worse),
                "-f",
                "json",
                "--bootstrap",
                "200",
                *id_field,
            ],
            input=open(files["gt"], "rb").read(),
            capture_output=True,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    from_file, from_stdin = diff(files["gt"]), diff("-")
    assert from_file["document_count"] == 300
    assert from_stdin["comparisons"] == from_file["comparisons"]
    n = next(r for r in from_file["comparisons"] if r["path"] == "n" and r["metric"] == "cm_f1")
    assert (n["a"], n["b"], n["verdict"]) == (1.0, pytest.approx(2 * 225 / (2 * 225 + 75)), "regressed")


# -- the run's precision, recall and F1 (issue 37, item 10) -------------------------------------------

OVERALL_CI = ("cm_precision", "cm_recall", "recall_with_fd", "cm_f1")


@pytest.fixture
def mixed(tmp_path):
    """Documents whose counts are known as they are written: id right (TP) or wrong (FD); n right (TP), wrong (FD)
    or left out (FN); note absent in the ground truth and predicted now and then (FA)."""
    schema = tmp_path / "s.json"
    schema.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                    "n": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"},
                    "note": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
                },
            }
        )
    )
    rng = np.random.default_rng(21)
    gt, pred, counts = [], [], []
    for k in range(240):
        gt.append({"id": f"d{k}", "n": k})
        id_right, n_draw, note = rng.uniform() < 0.85, rng.uniform(), rng.uniform() < 0.1
        row = {"id": f"d{k}" if id_right else "wrong"}
        if n_draw < 0.7:
            row["n"] = k
        elif n_draw < 0.85:
            row["n"] = -1
        if note:
            row["note"] = "extra"
        pred.append(row)
        tp = int(id_right) + int(n_draw < 0.7)
        fd = int(not id_right) + int(0.7 <= n_draw < 0.85)
        counts.append((tp, int(note), fd, int(n_draw >= 0.85)))  # tp, fa, fd, fn
    (tmp_path / "gt.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gt))
    (tmp_path / "pred.jsonl").write_text("".join(json.dumps(r) + "\n" for r in pred))
    return {
        "schema": str(schema),
        "gt": str(tmp_path / "gt.jsonl"),
        "pred": str(tmp_path / "pred.jsonl"),
        "counts": np.array(counts, dtype=float),
    }


def test_the_runs_precision_recall_and_f1_intervals_equal_scipy_on_the_same_resamples(mixed, tmp_path, capsys):
    """``--ci`` on the headline figures: scipy's paired percentile bootstrap over the documents' counts (written
    down as the documents were generated, not read from the run), the same seed and resamples, gives the same
    intervals; each holds its figure; workers and a merged state give the same ones."""
    report = _eval(mixed, capsys, "--ci", "0.9", "--bootstrap", "400", "--seed", "6")
    tp, fa, fd, fn = mixed["counts"].T
    assert [report["metrics"][k] for k in ("tp", "fa", "fd", "fn")] == [tp.sum(), fa.sum(), fd.sum(), fn.sum()]

    statistics = {
        "cm_precision": lambda tp, fa, fd, fn, axis=-1: tp.sum(axis) / (tp.sum(axis) + fa.sum(axis) + fd.sum(axis)),
        "cm_recall": lambda tp, fa, fd, fn, axis=-1: tp.sum(axis) / (tp.sum(axis) + fn.sum(axis)),
        "recall_with_fd": lambda tp, fa, fd, fn, axis=-1: tp.sum(axis) / (tp.sum(axis) + fn.sum(axis) + fd.sum(axis)),
        "cm_f1": lambda tp, fa, fd, fn, axis=-1: (
            2 * tp.sum(axis) / (2 * tp.sum(axis) + fa.sum(axis) + fd.sum(axis) + fn.sum(axis))
        ),
    }
    for name, statistic in statistics.items():
        theirs = stats.bootstrap(
            (tp, fa, fd, fn),
            statistic,
            paired=True,
            n_resamples=400,
            confidence_level=0.9,
            method="percentile",
            batch=BATCH,
            rng=np.random.default_rng(6),
        ).confidence_interval
        ci = report["metrics"][f"{name}_ci"]
        assert (ci["low"], ci["high"]) == pytest.approx((theirs.low, theirs.high), abs=1e-12), name
        assert ci["level"] == 0.9 and ci["low"] <= report["metrics"][name] <= ci["high"], name
        assert ci["low"] < ci["high"], name  # not degenerate: the documents differ
    two = _eval(mixed, capsys, "--ci", "0.9", "--bootstrap", "400", "--seed", "6", "--workers", "2")
    state = tmp_path / "run.state"
    _eval(mixed, capsys, "--ci", "0.9", "--save-state", str(state))
    assert main(["merge", str(state), "-f", "json", "--ci", "0.9", "--bootstrap", "400", "--seed", "6"]) == 0
    merged = json.loads(capsys.readouterr().out)
    for name in OVERALL_CI:
        assert two["metrics"][f"{name}_ci"] == pytest.approx(report["metrics"][f"{name}_ci"]), name
        assert merged["metrics"][f"{name}_ci"] == pytest.approx(report["metrics"][f"{name}_ci"]), name
    other_seed = _eval(mixed, capsys, "--ci", "0.9", "--bootstrap", "400", "--seed", "7")
    assert other_seed["metrics"]["cm_f1_ci"] != report["metrics"]["cm_f1_ci"]


def test_the_runs_intervals_are_degenerate_when_every_document_is_alike(tmp_path, capsys):
    """Every document right on both fields: every resample has precision, recall and F1 1.0, so each interval is
    [1.0, 1.0]; nothing ever due (both sides empty): no resample can measure them, no interval."""
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}))
    right = tmp_path / "right.jsonl"
    right.write_text("".join(json.dumps({"a": f"x{k}", "b": "y"}) + "\n" for k in range(30)))
    files = {"schema": str(schema), "gt": str(right), "pred": str(right)}
    metrics = _eval(files, capsys, "--ci", "0.95", "--bootstrap", "50")["metrics"]
    for name in OVERALL_CI:
        assert metrics[f"{name}_ci"] == {"low": 1.0, "high": 1.0, "level": 0.95}, name
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"a": null}\n' * 5)
    files["gt"] = files["pred"] = str(empty)
    metrics = _eval(files, capsys, "--ci", "0.95", "--bootstrap", "50")["metrics"]
    assert [metrics[f"{name}_ci"] for name in OVERALL_CI] == [None] * 4
    assert metrics["weighted_overall_score_ci"] == {"low": 1.0, "high": 1.0, "level": 0.95}


def test_the_summaries_show_the_runs_intervals(mixed, tmp_path, capsys):
    page = tmp_path / "r.html"
    report = _eval(mixed, capsys, "--ci", "0.9", "--bootstrap", "200")
    assert (
        main(
            [
                "eval",
                mixed["schema"],
                mixed["gt"],
                mixed["pred"],
                "-f",
                "markdown",
                "--ci",
                "0.9",
                "--bootstrap",
                "200",
                "--html",
                str(page),
            ]
        )
        == 0
    )
    markdown = capsys.readouterr().out
    assert main(["eval", mixed["schema"], mixed["gt"], mixed["pred"], "--ci", "0.9", "--bootstrap", "200"]) == 0
    terminal = capsys.readouterr().out
    html = page.read_text()
    m = report["metrics"]
    for label, name in (("Precision", "cm_precision"), ("Recall", "cm_recall"), ("F1", "cm_f1")):
        shown = f"{m[name]:.3f} [{m[name + '_ci']['low']:.3f}, {m[name + '_ci']['high']:.3f}]"
        assert f"| {label} | {shown} |" in markdown, label
        assert any(
            line.split()[:1] == [label] and line.split()[1:4] == shown.split() for line in terminal.splitlines()
        ), label
        assert f"[{m[name + '_ci']['low']:.3f}, {m[name + '_ci']['high']:.3f}]" in html, label
