"""`stickler eval --target-precision / --write-policy / --policy` (issue 41, item 1), through the command line.

The worked example of docs/decisions.md is fixtures/policy: 20 invoices, two fields with confidences. Its figures
are worked out by hand in the doc (and in tests/report/test_policy.py's hand-worked threshold).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import orjson
import pytest
from scipy.stats import beta, binom

from stickler_cli.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = [str(ROOT / "fixtures/policy" / name) for name in ("schema.json", "gt.jsonl", "pred.jsonl")]
SCHEMA = {
    "type": "object",
    "x-aws-stickler-model-name": "Doc",
    "properties": {
        "a": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "b": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
    },
}


def _report(capsys, *args) -> tuple[int, dict]:
    code = main(["eval", *map(str, args), "-f", "json"])
    out = capsys.readouterr().out
    return code, orjson.loads(out)


def test_the_worked_example(capsys):
    code, report = _report(capsys, *EXAMPLE, "--target-precision", "0.8")
    assert code == 0
    fields = report["policy"]["fields"]
    # invoice_id: 16 right values at 0.99 .. 0.84 (bound 0.05 ** (1/16)), then 0.80 twice (one wrong), 0.60 wrong,
    # and one value without a confidence: 20 predicted values, 16 accepted.
    assert fields["invoice_id"]["threshold"] == 0.84
    assert (fields["invoice_id"]["accepted"], fields["invoice_id"]["values"]) == (16, 20)
    assert fields["invoice_id"]["coverage"] == 0.8
    assert fields["invoice_id"]["lower_bound"] == pytest.approx(0.05 ** (1 / 16), abs=1e-12)
    # total: 18 right values at 0.97 .. 0.84, two wrong ones at 0.30 and 0.20.
    assert (fields["total"]["threshold"], fields["total"]["accepted"], fields["total"]["values"]) == (0.84, 18, 20)
    assert fields["total"]["lower_bound"] == pytest.approx(beta.ppf(0.05, 18, 1), abs=1e-12)
    assert fields["total"]["errors_let_through"] == 0
    # Straight through: a document whose invoice_id and total are both at 0.84 or above, counted from the data.
    gt = [json.loads(line) for line in Path(EXAMPLE[1]).read_text().splitlines()]
    pred = [json.loads(line) for line in Path(EXAMPLE[2]).read_text().splitlines()]

    def accepted(value):
        return isinstance(value, dict) and value["_confidence"] >= 0.84

    through = [p for p in pred if accepted(p["invoice_id"]) and accepted(p["total"])]
    assert len(through) == 14 and len(gt) == 20
    assert report["policy"]["straight_through"] == {
        "documents": 20,
        "straight_through": 14,
        "rate": 0.7,
        "values": 28,
        "correct": 28,
        "precision": 1.0,
    }
    # The doc says so, figure for figure.
    doc = (ROOT / "docs/decisions.md").read_text()
    for line in (
        " invoice_id       0.84     0.800      1.000  0.829     0.8     16/20       0 ",
        " total            0.84     0.900      1.000  0.847     0.8     18/20       0 ",
        "Straight through: 14 of 20 documents (0.700)",
    ):
        assert line.strip() in doc, line


def test_the_table_fits_80_columns_nothing_cut(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["eval", *EXAMPLE, "--target-precision", "0.8"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    section = out[out.index("Auto-accept policy") :]
    assert re.search(r"invoice_id\s+0\.84\s+0\.800\s+1\.000\s+0\.829\s+0\.8\s+16/20\s+0\b", section), section
    assert re.search(r"total\s+0\.84\s+0\.900\s+1\.000\s+0\.847\s+0\.8\s+18/20\s+0\b", section), section
    # Markdown: the same figures, in a table.
    assert main(["eval", *EXAMPLE, "--target-precision", "0.8", "-f", "markdown"]) == 0
    assert "| `invoice_id` | 0.84 | 0.800 | 1.000 | 0.829 | 0.8 | 16/20 | 0 |" in capsys.readouterr().out


def test_no_policy_block_without_its_options(capsys):
    _, report = _report(capsys, *EXAMPLE)
    assert "policy" not in report


def _data(tmp_path: Path, n: int, seed: int, name: str) -> list[str]:
    """``n`` documents of two fields; a's confidence c ~ U(0, 1) in steps of 0.01, right with probability c ** 0.3;
    b carries no confidence on one document in ten."""
    rng = np.random.default_rng(seed)
    c = np.round(rng.random((n, 2)), 2)
    right = rng.random((n, 2)) < c**0.3
    gt, pred = [], []
    for d in range(n):
        gt.append({"a": f"a{d}", "b": f"b{d}"})
        a = {"_value": f"a{d}" if right[d, 0] else "wrong", "_confidence": float(c[d, 0])}
        b_value = f"b{d}" if right[d, 1] else "wrong"
        b = b_value if d % 10 == 0 else {"_value": b_value, "_confidence": float(c[d, 1])}
        pred.append({"a": a, "b": b})
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    paths = [tmp_path / f"{name}-gt.jsonl", tmp_path / f"{name}-pred.jsonl"]
    for path, rows in zip(paths, (gt, pred)):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return [str(schema), *map(str, paths)]


def _counted(files: list[str], field: str, threshold: float) -> tuple[int, int]:
    """(accepted, right) of ``field`` at ``threshold``, counted from the files themselves."""
    gt = [json.loads(x) for x in Path(files[1]).read_text().splitlines()]
    pred = [json.loads(x) for x in Path(files[2]).read_text().splitlines()]
    accepted = right = 0
    for g, p in zip(gt, pred):
        value = p[field]
        if isinstance(value, dict) and value["_confidence"] >= threshold:
            accepted += 1
            right += value["_value"] == g[field]
    return accepted, right


def test_a_policy_fitted_on_one_half_is_checked_on_the_other(tmp_path, capsys):
    fit_on = _data(tmp_path, 300, 1, "fit")
    check_on = _data(tmp_path, 300, 2, "check")
    written = tmp_path / "policy.json"
    code, fitted = _report(capsys, *fit_on, "--target-precision", "0.85", "--write-policy", written)
    assert code == 0
    policy = orjson.loads(written.read_bytes())
    assert policy["stickler_policy"] == 1 and policy["target"] == 0.85 and policy["level"] == 0.95
    assert policy["fitted_on"]["documents"] == 300
    assert [f["path"] for f in policy["fitted_on"]["files"]] == fit_on[1:]
    assert policy["fitted_on"]["files"][0]["bytes"] == Path(fit_on[1]).stat().st_size
    assert policy["schema_sha256"] == fitted["schema"]["sha256"]
    assert policy["straight_through_rate"] == fitted["policy"]["straight_through"]["rate"]
    t = policy["fields"]["a"]["threshold"]
    assert t is not None and policy["fields"]["a"]["coverage"] == _counted(fit_on, "a", t)[0] / 300

    code, checked = _report(capsys, *check_on, "--policy", written, "--fail-under", "policy_holds=1")
    block = checked["policy"]
    assert block["mode"] == "applied" and block["source"]["path"] == str(written)
    for field in ("a", "b"):
        t = policy["fields"][field]["threshold"]
        accepted, right = _counted(check_on, field, t)
        got = block["fields"][field]
        assert (got["threshold"], got["accepted"], got["precision"]) == (t, accepted, right / accepted)
        assert got["p_value"] == pytest.approx(binom.cdf(right, accepted, 0.85), abs=1e-12)
        assert got["holds"] == (binom.cdf(right, accepted, 0.85) >= 0.05)
    holds = [block["fields"][f]["holds"] for f in ("a", "b")]
    assert block["holds"] == sum(holds) / 2
    assert code == (0 if all(holds) else 1)
    import jsonschema

    schema = orjson.loads((ROOT / "schemas/report.schema.json").read_bytes())
    jsonschema.validate(fitted, schema)
    jsonschema.validate(checked, schema)


def test_a_policy_that_does_not_hold_fails_its_gate(tmp_path, capsys):
    files = _data(tmp_path, 200, 3, "d")
    policy = tmp_path / "p.json"
    # A threshold of 0 accepts every value of a: about 77% right (E[c ** 0.3]), far below a target of 0.99.
    policy.write_text(
        json.dumps({"stickler_policy": 1, "level": 0.95, "fields": {"a": {"target": 0.99, "threshold": 0}}})
    )
    code, report = _report(capsys, *files, "--policy", policy, "--fail-under", "policy_holds=1")
    accepted, right = _counted(files, "a", 0.0)
    assert accepted == 200 and report["policy"]["fields"]["a"]["precision"] == right / 200 < 0.9
    assert report["policy"]["fields"]["a"]["holds"] is False and report["policy"]["holds"] == 0.0
    assert code == 1
    assert report["gates"][0]["status"] == "failed" and report["gates"][0]["actual"] == 0.0


def test_workers_and_merge_give_the_policy_of_one_process(tmp_path, capsys):
    files = _data(tmp_path, 400, 4, "all")
    _, one = _report(capsys, *files, "--target-precision", "0.85")
    _, two = _report(capsys, *files, "--target-precision", "0.85", "--workers", "2")
    assert two["policy"] == one["policy"]
    # Two halves, each saved with its rows, merged.
    lines = [Path(p).read_text().splitlines(keepends=True) for p in files[1:]]
    states = []
    for k, part in enumerate((slice(0, 150), slice(150, 400))):
        half = [tmp_path / f"h{k}-gt.jsonl", tmp_path / f"h{k}-pred.jsonl"]
        for path, rows in zip(half, lines):
            path.write_text("".join(rows[part]))
        states.append(tmp_path / f"h{k}.state")
        main(
            [
                "eval",
                files[0],
                *map(str, half),
                "--target-precision",
                "0.85",
                "--save-state",
                str(states[-1]),
                "-f",
                "json",
            ]
        )
    capsys.readouterr()
    assert main(["merge", *map(str, states), "--target-precision", "0.85", "-f", "json"]) == 0
    merged = orjson.loads(capsys.readouterr().out)
    assert merged["policy"] == one["policy"]
    assert one["policy"]["straight_through"]["documents"] == 400
    assert 0 < one["policy"]["straight_through"]["straight_through"] < 400


def test_a_merged_state_without_rows_cannot_know_the_straight_through_rate(tmp_path, capsys):
    state = tmp_path / "s.state"
    main(["eval", *EXAMPLE, "--save-state", str(state), "-f", "json"])
    capsys.readouterr()
    code = main(
        ["merge", str(state), "--target-precision", "0.8", "--fail-under", "straight_through_rate=0.5", "-f", "json"]
    )
    report = orjson.loads(capsys.readouterr().out)
    assert report["policy"]["straight_through"] is None
    assert report["policy"]["fields"]["invoice_id"]["threshold"] == 0.84  # the groups are in every state
    assert any("straight-through rate cannot be known" in w for w in report["warnings"])
    assert code == 1 and report["gates"][0]["no_data"] is True


def test_gates(capsys):
    args = [*EXAMPLE, "--target-precision", "0.8"]
    code, report = _report(
        capsys, *args, "--fail-under", "straight_through_rate=0.7", "--fail-under", "invoice_id.coverage=0.8"
    )
    assert code == 0 and [g["actual"] for g in report["gates"]] == [0.7, 0.8]
    code, report = _report(capsys, *args, "--fail-under", "total.coverage=0.95")
    assert code == 1 and report["gates"][0]["actual"] == 0.9
    code, report = _report(capsys, *args, "--fail-under", "*.coverage=0.85")
    assert code == 1 and [(g["path"], g["status"]) for g in report["gates"]] == [
        ("invoice_id", "failed"),
        ("total", "passed"),
    ]
    # A bare ``coverage`` is the records' (predictions paired with a ground truth), with or without a policy.
    for extra in ([], args[len(EXAMPLE) :]):
        code, report = _report(capsys, *EXAMPLE, *extra, "--fail-under", "coverage=1")
        assert code == 0 and report["gates"][0]["actual"] == report["schema_conformance"]["coverage"] == 1.0


def test_a_gate_on_a_field_without_confidences_fails_for_lack_of_data(tmp_path, capsys):
    files = _data(tmp_path, 50, 5, "n")
    pred = Path(files[2])
    rows = [json.loads(x) for x in pred.read_text().splitlines()]
    pred.write_text("".join(json.dumps({"a": r["a"], "b": "x"}) + "\n" for r in rows))  # b: no confidence
    code, report = _report(capsys, *files, "--target-precision", "b=0.9", "--fail-under", "b.coverage=0.1")
    b = report["policy"]["fields"]["b"]
    assert (b["threshold"], b["accepted"], b["values"], b["coverage"]) == (None, 0, 50, 0.0)
    assert code == 1  # a coverage of 0 (no value can be accepted): failed
    rows = [{"a": r["a"]} for r in rows]
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows))  # b: not predicted at all
    code, report = _report(capsys, *files, "--target-precision", "b=0.9", "--fail-under", "b.coverage=0.1")
    assert report["policy"]["fields"]["b"]["coverage"] is None
    assert code == 1 and report["gates"][0]["no_data"] is True and report["gates"][0]["status"] == "failed"
    code, report = _report(
        capsys, *files, "--target-precision", "b=0.9", "--fail-under", "b.coverage=0.1", "--no-data-passes"
    )
    assert code == 0 and report["gates"][0]["status"] == "no data"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--fail-under", "straight_through_rate=0.5"], "needs a policy: give --target-precision or --policy"),
        (["--target-precision", "0.8", "--fail-under", "policy_holds=1"], "checks a written policy"),
        (["--target-precision", "1.2"], "the precision must be between 0 and 1"),
        (["--target-precision", "nope=0.9"], "no field 'nope'"),
        (["--target-precision", "0.8", "--policy-level", "1"], "--policy-level must be a level between 0 and 1"),
        (["--write-policy", "x.json"], "give --target-precision"),
    ],
)
def test_bad_options_are_one_line_usage_errors(capsys, args, message):
    assert main(["eval", *EXAMPLE, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def _written_policy(tmp_path: Path, capsys) -> Path:
    path = tmp_path / "policy.json"
    assert main(["eval", *EXAMPLE, "--target-precision", "0.8", "--write-policy", str(path), "-f", "json"]) == 0
    capsys.readouterr()
    return path


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda text: text[: len(text) // 2], "not a policy file: invalid JSON"),
        (lambda text: '{"fields": {}}', 'expected an object with "stickler_policy": 1'),
        (lambda text: text.replace('"invoice_id"', '"invoice_number"'), "/fields/invoice_number: no such field"),
        (lambda text: text.replace('"threshold": 0.84', '"threshold": "high"', 1), "/threshold: must be a confidence"),
        (lambda text: text.replace('"level": 0.95', '"level": 95'), "/level: must be a number between 0 and 1"),
        (lambda text: text + " " * 2000, "holds over 1,000 bytes (the schema-bytes limit"),
    ],
)
def test_bad_policy_files_are_one_line_errors_naming_the_file(tmp_path, capsys, damage, message):
    path = _written_policy(tmp_path, capsys)
    path.write_text(damage(path.read_text()))
    limit = ["--limit", "schema-bytes=1000"] if "schema-bytes" in message else []
    assert main(["eval", *EXAMPLE, "--policy", str(path), *limit]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_html_draws_each_fields_curve_with_the_chosen_point(tmp_path, capsys):
    html = tmp_path / "r.html"
    assert main(["eval", *EXAMPLE, "--target-precision", "0.8", "--html", str(html), "-f", "json"]) == 0
    page = html.read_text()
    for field in ("invoice_id", "total"):
        assert page.count(f'aria-label="{field}: precision against coverage"') == 1
    assert page.count("<title>threshold 0.84</title>") == 2  # the chosen point of each field


def test_dask_gives_the_policy_of_one_process(tmp_path, capsys):
    pytest.importorskip("distributed")
    files = _data(tmp_path, 300, 6, "all")
    _, one = _report(capsys, *files, "--target-precision", "0.85")
    (tmp_path / "gt").mkdir()
    (tmp_path / "pred").mkdir()
    for src, folder in zip(files[1:], ("gt", "pred")):
        rows = Path(src).read_text().splitlines(keepends=True)
        for n, part in enumerate((slice(0, 100), slice(100, 300))):
            (tmp_path / folder / f"part-{n}.jsonl").write_text("".join(rows[part]))
    shards = [f"{tmp_path}/gt/*", f"{tmp_path}/pred/*"]
    _, dask = _report(capsys, files[0], *shards, "--target-precision", "0.85", "--dask", "local", "--workers", "2")
    assert dask["policy"] == one["policy"]


def test_a_policy_of_another_schema_is_applied_with_a_warning(tmp_path, capsys):
    path = _written_policy(tmp_path, capsys)
    policy = orjson.loads(path.read_bytes())
    policy["schema_sha256"] = "0" * 64
    path.write_bytes(orjson.dumps(policy))
    code, report = _report(capsys, *EXAMPLE, "--policy", path)
    assert code == 0 and report["policy"]["holds"] == 1.0
    assert any("fitted with another schema" in w for w in report["warnings"])


def test_no_output_overwrites_the_policy_it_reads(tmp_path, capsys):
    """--policy FILE is an input: --save-baseline, --write-policy or -o naming it is refused (exit 2), the file kept."""
    policy = tmp_path / "policy.json"
    assert main(["eval", *EXAMPLE, "--target-precision", "0.8", "--write-policy", str(policy), "-f", "json"]) == 0
    capsys.readouterr()
    written = policy.read_bytes()
    for option in ("--save-baseline", "--output"):
        assert main(["eval", *EXAMPLE, "--policy", str(policy), option, str(policy), "-f", "json"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(policy) in err and option in err
        assert policy.read_bytes() == written
