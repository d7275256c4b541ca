"""The pytest plugin (stickler_cli/cli/pytest_plugin.py), run by pytest's own ``pytester``: a passing gate passes, a
failing one fails naming the gate, its figure and threshold, the worst fields and documents; a gates file; paths
from the test file's directory; the JUnit property; no data; bad input; unknown options; the entry point.

The figures are those of ``stickler eval schemas/invoice.json fixtures/invoice/gt.jsonl fixtures/invoice/pred.jsonl
--format json`` (24 documents): weighted_overall_score 0.5942058554045783; total_amount TP 12, FA 2, FD 7, FN 3,
so F1 = 2·12 / (2·12 + 9 + 3) = 24/36 = 0.667; line_items.description TP 13, FN 2, recall 13/15 = 0.867;
line_items TP 21, FP 29 (FA 3, FD 26), FN 3, F1 = 42/74 = 0.568. The worst document is line 7, whose prediction
misses every field (score 0.000).
"""

import json
import os
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ElementTree

import pytest

# Imported here, before any in-process run below: pytester forgets the modules a run imported first, and a Rich
# imported anew beside its forgotten first copy made a later test's tables fail (Text + Text of two classes).
import rich.console  # noqa: F401
import rich.table  # noqa: F401
import rich.text  # noqa: F401
from scipy.stats import beta

from stickler_cli.cli.app import main

pytest_plugins = ["pytester"]

PLUGIN = "stickler_cli.cli.pytest_plugin"
WEIGHTED = 0.5942058554045783  # `stickler eval ... --format json`'s metrics.weighted_overall_score


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """What an evaluation imports, imported here first: pytester's in-process runs take out afterwards the modules
    imported during them, and numpy cannot be imported a second time in one process. A policy fitted and a
    baseline saved and held to import what issue 41's options need."""
    from stickler_cli.cli import pytest_plugin
    from tests.conftest import ROOT

    files = [
        str(ROOT / p) for p in ("schemas/invoice.json", "fixtures/invoice/gt.jsonl", "fixtures/invoice/pred.jsonl")
    ]
    options = {**pytest_plugin.OPTIONS, "fail_under": {"weighted_overall_score": 0.9}}
    report, results = pytest_plugin._evaluate(files, options, str)
    pytest_plugin.failure_message(report, results, False)
    baseline = str(tmp_path_factory.mktemp("warm") / "baseline")
    for held in ({"save_baseline": baseline}, {"baseline": baseline, "target_precision": ["0.8"]}):
        report, results = pytest_plugin._evaluate(files, {**pytest_plugin.OPTIONS, **held}, str)
    pytest_plugin.failure_message(report, results, False, True)


@pytest.fixture
def project(pytester, root, monkeypatch, imported):
    """A project whose tests live in models/, the invoice fixture in models/data/; pytest runs from the
    project's root (the working directory), so the test's paths only resolve from the test file's directory.
    Plugins are loaded by -p only: an installed entry point must not register the plugin a second time."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    data = pytester.path / "models" / "data"
    data.mkdir(parents=True)
    shutil.copy(root / "schemas/invoice.json", data / "invoice.json")
    shutil.copy(root / "fixtures/invoice/gt.jsonl", data / "gt.jsonl")
    shutil.copy(root / "fixtures/invoice/pred.jsonl", data / "pred.jsonl")
    return pytester


def write_test(pytester, body: str, name: str = "test_model.py"):
    path = pytester.path / "models" / name
    path.write_text(body, encoding="utf-8")
    return path


def run(pytester, *args):
    # The plugin module is imported already (by this module's fixtures): pytest says it cannot rewrite it.
    return pytester.runpytest(
        "-p", PLUGIN, "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning", *args
    )


EVAL = 'stickler.eval("data/invoice.json", "data/gt.jsonl", "data/pred.jsonl"'


def test_a_passing_gate_passes_and_returns_the_report(project):
    write_test(
        project,
        f"""
def test_invoice_model(stickler):
    report, gates = {EVAL}, fail_under={{"weighted_overall_score": 0.59, "total_amount.cm_f1": 0.66}})
    assert report["document_count"] == 24
    assert report["metrics"]["weighted_overall_score"] == {WEIGHTED!r}
    assert [(g["gate"], g["status"]) for g in gates] == [
        ("weighted_overall_score >= 0.59", "passed"),
        ("total_amount.cm_f1 >= 0.66", "passed"),
    ]
    assert gates[1]["actual"] == 24 / 36
""",
    )
    result = run(project)
    result.assert_outcomes(passed=1)
    # the terminal report's line per call
    result.stdout.fnmatch_lines(
        ["*- stickler -*", "models/test_model.py::test_invoice_model: 24 documents, weighted_overall_score 0.594, "
         "2 gate(s) passed"]
    )  # fmt: skip


def test_a_failing_gate_fails_naming_the_gate_its_figure_and_threshold(project):
    write_test(
        project,
        f"""
def test_invoice_model(stickler):
    {EVAL}, fail_under={{"weighted_overall_score": 0.9, "total_amount.cm_f1": 0.66,
                          "line_items.*.cm_recall": 0.9}})
    raise AssertionError("not reached: the failed gate stops the test")
""",
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "stickler: 2 of 5 gate(s) failed (24 documents of models/data/pred.jsonl)",
            "  weighted_overall_score >= 0.9            0.594 < 0.9",
            "  line_items.description.cm_recall >= 0.9  0.867 < 0.9",
            "worst fields:",
            "  line_items    F1 0.568  score 0.735  TP 21 FA 3 FD 26 FN 3",
            "  invoice_id    F1 0.647  score 0.500  TP 11 FA 1 FD 7 FN 4",
            "  total_amount  F1 0.667  score 0.500  TP 12 FA 2 FD 7 FN 3",
            "worst documents:",
            "  models/data/gt.jsonl:7  score 0.000",
            "    invoice_id (FN): 'PO-2020-7899' != None",
            "    customer_name (FN): 'Hill' != None",
            "    total_amount (FN): 1029.65 != None",
            "    … and 2 more",
            "  models/data/gt.jsonl:4  score 0.054",
            "    customer_name (FD): 'Stark' != 'widget east oak'",
        ]
    )
    assert "not reached" not in result.stdout.str()
    assert "total_amount.cm_f1 >= 0.66" not in result.stdout.str()  # a passed gate is not listed as failed
    result.stdout.fnmatch_lines(["FAILED models/test_model.py::test_invoice_model - Failed: stickler: 2 of 5*"])


def test_the_gates_are_the_clis(project, root, capsys):
    """The same gate results as `stickler eval --fail-under ... --format json`, field by field."""
    gates = {"weighted_overall_score": 0.5, "line_items.*.cm_recall": 0.9, "aggregate.cm_f1": 0.8}
    write_test(
        project,
        f"""
import json

def test_invoice_model(stickler):
    report, gates = {EVAL}, fail_under={gates!r}, no_data_passes=True)
    (__import__("pathlib").Path(__file__).parent / "gates.json").write_text(json.dumps(gates))
""",
    )
    result = run(project)
    result.assert_outcomes(failed=1)  # line_items.description.cm_recall 0.867 and aggregate.cm_f1 0.794
    data = project.path / "models" / "data"
    args = [str(data / n) for n in ("invoice.json", "gt.jsonl", "pred.jsonl")]
    given = [a for k, v in gates.items() for a in ("--fail-under", f"{k}={v}")]
    capsys.readouterr()
    assert main(["eval", *args, *given, "--format", "json"]) == 1
    cli = json.loads(capsys.readouterr().out)["gates"]
    assert not (project.path / "models" / "gates.json").exists()  # the test failed before writing
    assert [(g["gate"], g["actual"], g["status"]) for g in cli] == [
        ("weighted_overall_score >= 0.5", WEIGHTED, "passed"),
        ("line_items.description.cm_recall >= 0.9", 13 / 15, "failed"),
        ("line_items.quantity.cm_recall >= 0.9", 1.0, "passed"),
        ("line_items.unit_price.cm_recall >= 0.9", 1.0, "passed"),
        ("aggregate.cm_f1 >= 0.8", 0.7938931297709925, "failed"),
    ]
    # the plugin's results, read back from its JUnit property, are the CLI's
    xml = project.path / "out.xml"
    run(project, f"--junitxml={xml}")
    (prop,) = ElementTree.parse(xml).getroot().iter("property")
    kept = json.loads(prop.get("value"))
    assert kept["gates"] == [{k: g[k] for k in ("gate", "actual", "threshold", "status", "no_data")} for g in cli]


def test_a_gates_file_and_fail_under_over_it(project):
    (project.path / "models" / "gates.toml").write_text(
        '[fail-under]\nweighted_overall_score = 0.5\n"total_amount.cm_f1" = 0.7\n', encoding="utf-8"
    )
    write_test(
        project,
        f"""
def test_file(stickler):
    {EVAL}, gates="gates.toml")

def test_file_then_fail_under(stickler):
    report, gates = {EVAL}, gates="gates.toml", fail_under={{"total_amount.cm_f1": 0.6}})
    assert [(g["gate"], g["status"]) for g in gates] == [
        ("weighted_overall_score >= 0.5", "passed"),
        ("total_amount.cm_f1 >= 0.6", "passed"),
    ]
""",
    )
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["stickler: 1 of 2 gate(s) failed (24 documents of models/data/pred.jsonl)", "  total_amount.cm_f1 >= 0.7  0.667 < 0.7"]
    )  # fmt: skip


def test_paths_are_relative_to_the_test_files_directory(project, monkeypatch):
    """The same call from models/ and from models/deeper/ (whose data/ is a copy): each reads its own directory's
    files, whatever the working directory; an absolute path is taken as it is."""
    deeper = project.path / "models" / "deeper"
    shutil.copytree(project.path / "models" / "data", deeper / "data")
    (deeper / "data" / "pred.jsonl").write_text((deeper / "data" / "gt.jsonl").read_text())  # a perfect model
    body = f"""
def test_here(stickler):
    report, _ = {EVAL})
    assert report["inputs"]["predictions"] == "{{}}"
    assert report["metrics"]["weighted_overall_score"] == {{}}
"""
    here = project.path.name  # paths are shown from the working directory: the project's parent, below
    write_test(project, body.format(f"{here}/models/data/pred.jsonl", WEIGHTED))
    (deeper / "test_deeper.py").write_text(body.format(f"{here}/models/deeper/data/pred.jsonl", 1.0))
    absolute = project.path / "models" / "data"
    write_test(
        project,
        f"""
def test_absolute(stickler):
    report, _ = stickler.eval(r"{absolute / "invoice.json"}", r"{absolute / "gt.jsonl"}", r"{absolute / "pred.jsonl"}")
    assert report["document_count"] == 24
""",
        "test_absolute.py",
    )
    monkeypatch.chdir(project.path.parent)  # nothing of the project's is reachable from here
    run(project, str(project.path)).assert_outcomes(passed=3)


def test_the_report_is_a_junit_property(project):
    write_test(
        project,
        f"""
def test_invoice_model(stickler):
    {EVAL}, fail_under={{"total_amount.cm_f1": 0.9}})
""",
    )
    xml = project.path / "junit.xml"
    result = run(project, f"--junitxml={xml}")
    result.assert_outcomes(failed=1)
    assert "record_property is incompatible" not in result.stdout.str()  # no warning under xunit2, the default
    (case,) = ElementTree.parse(xml).getroot().iter("testcase")
    assert case.get("name") == "test_invoice_model"
    (prop,) = case.iter("property")
    assert prop.get("name") == "stickler_report"
    kept = json.loads(prop.get("value"))
    assert kept["schema"] == "models/data/invoice.json"
    assert kept["ground_truth"] == "models/data/gt.jsonl"
    assert kept["document_count"] == 24
    assert kept["metrics"]["weighted_overall_score"] == WEIGHTED
    assert kept["metrics"]["tp"] == 75 and kept["metrics"]["fd"] == 46
    assert kept["field_metrics"]["total_amount"]["cm_f1"] == 24 / 36
    assert kept["gates"] == [
        {"gate": "total_amount.cm_f1 >= 0.9", "actual": 24 / 36, "threshold": 0.9, "status": "failed", "no_data": False}
    ]


NO_DATA_SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "note": {"type": "string"}},
}


@pytest.fixture
def no_data(project):
    """Three documents whose `note` is in neither file: its recall has nothing to measure."""
    data = project.path / "models" / "data"
    (data / "names.json").write_text(json.dumps(NO_DATA_SCHEMA))
    names = "".join(json.dumps({"name": n}) + "\n" for n in ("Ann", "Bob", "Cy"))
    (data / "names_gt.jsonl").write_text(names)
    (data / "names_pred.jsonl").write_text(names)
    (data / "empty.jsonl").write_text("")
    return project


def test_a_gate_with_no_data_fails_unless_no_data_passes(no_data):
    write_test(
        no_data,
        """
NAMES = ("data/names.json", "data/names_gt.jsonl", "data/names_pred.jsonl")

def test_fails(stickler):
    stickler.eval(*NAMES, fail_under={"name.cm_f1": 1.0, "note.cm_recall": 0.5})

def test_passes(stickler):
    report, gates = stickler.eval(*NAMES, fail_under={"name.cm_f1": 1.0, "note.cm_recall": 0.5}, no_data_passes=True)
    assert [(g["gate"], g["actual"], g["status"]) for g in gates] == [
        ("name.cm_f1 >= 1", 1.0, "passed"),
        ("note.cm_recall >= 0.5", None, "no data"),
    ]

def test_nothing_scored_fails_all_the_same(stickler):
    stickler.eval("data/names.json", "data/empty.jsonl", "data/empty.jsonl", fail_under={"name.cm_f1": 0.5},
                  no_data_passes=True)
""",
    )
    result = run(no_data)
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "stickler: 1 of 2 gate(s) failed, 1 for lack of data (3 documents of models/data/names_pred.jsonl)",
            "  note.cm_recall >= 0.5  no data",
            "  (a gate with no data fails; no_data_passes=True lets it pass)",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "stickler: 1 of 1 gate(s) failed, 1 for lack of data (0 documents of models/data/empty.jsonl)",
            "  name.cm_f1 >= 0.5  no data",
            "  (no document was scored: every gate fails)",
        ]
    )


def test_unknown_options_and_bad_input_are_clear_errors(project):
    (project.path / "models" / "data" / "bad.json").write_text(
        json.dumps({"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-threshold": 2}}})
    )
    write_test(
        project,
        f"""
import pytest

def test_unknown_option(stickler):
    with pytest.raises(TypeError) as raised:
        {EVAL}, worker=2)
    assert str(raised.value).startswith("stickler.eval() got an unknown option 'worker' (did you mean 'workers'?)")

def test_a_mapping_given_a_list(stickler):
    with pytest.raises(TypeError) as raised:
        {EVAL}, fail_under=["weighted_overall_score=0.9"])
    assert str(raised.value) == (
        "stickler.eval(): fail_under= takes a dict (gate -> threshold), got ['weighted_overall_score=0.9']"
    )

def test_bootstrap_under_its_bound(stickler):
    {EVAL}, ci=0.95, bootstrap=5)

def test_no_workers(stickler):
    {EVAL}, workers=0)

def test_missing_file(stickler):
    stickler.eval("data/invoice.json", "data/nope.jsonl", "data/pred.jsonl")

def test_bad_schema(stickler):
    stickler.eval("data/bad.json", "data/gt.jsonl", "data/pred.jsonl")

def test_bad_gate(stickler):
    {EVAL}, fail_under={{"total_amount.f1": 0.9}})

def test_gate_on_no_field(stickler):
    {EVAL}, fail_under={{"totl.cm_f1": 0.9}})

def test_missing_gates_file(stickler):
    {EVAL}, gates="nope.toml")

def test_unknown_judge_pairing(stickler):
    {EVAL}, judge_pairing="nearest")
""",
    )
    result = run(project, "-rf")
    result.assert_outcomes(passed=2, failed=8)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "stickler.eval: bootstrap=5: must be at least 10",
            "stickler.eval: workers=0: must be at least 1",
            "stickler.eval: models/data/nope.jsonl: file not found",
            "stickler.eval: models/data/bad.json: /properties/a/x-aws-stickler-threshold: *",
            "stickler.eval: fail_under=: gate 'total_amount.f1': unknown field metric 'f1'*",
            "stickler.eval: fail_under=: gate 'totl.cm_f1' matches no field path; fields: invoice_id, customer_name, *",
            "stickler.eval: models/nope.toml: gates file not found",
            "stickler.eval: judge_pairing='nearest': must be 'full' or 'proxy'",
        ]
    )
    assert "Traceback" not in out and "During handling" not in out


def test_limits_are_given_and_put_back(project):
    """``limits=`` raises a bound for the call (here lowers one, so that it shows), and the next call has the
    defaults again."""
    write_test(
        project,
        f"""
from stickler_cli import limits

def test_lowered(stickler):
    {EVAL}, limits={{"line-bytes": 10}})

def test_then_the_defaults(stickler):
    assert limits.current() == limits.DEFAULT
    report, _ = {EVAL})
    assert report["document_count"] == 24
""",
    )
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["stickler.eval: models/data/gt.jsonl:1: *line-bytes*"])


def test_the_entry_point_names_the_module(root):
    """pyproject.toml registers the plugin with pytest (pytest11), under the name that `-p no:stickler` turns off;
    the module it names holds the fixture and the terminal summary."""
    import importlib

    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"stickler": PLUGIN}
    module = importlib.import_module(PLUGIN)
    assert callable(module.stickler) and callable(module.pytest_terminal_summary)


def test_loading_the_plugin_imports_no_engine(root):
    """pytest imports every pytest11 plugin at start-up: this one imports nothing of stickler's beyond its package
    and cli/__init__, and none of the libraries the engine needs."""
    code = (
        "import sys\n"
        f"import {PLUGIN}\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('stickler_cli'))\n"
        "heavy = sorted(m for m in ('typer', 'rich', 'orjson', 'scipy', 'numpy', 'jsonschema', 'pydantic', 'rapidfuzz')"
        " if m in sys.modules)\n"
        "print(loaded, heavy)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.strip() == (
        "['stickler_cli', 'stickler_cli.cli', 'stickler_cli.cli.pytest_plugin', 'stickler_cli.version'] []"
    )


def test_the_projects_pyproject_gives_limits_not_gates(project):
    """The working directory's pyproject.toml: its [tool.stickler.limits] hold as for the CLI (``limits=`` over
    them), its [tool.stickler.fail-under] does not (a test's gates are those it names)."""
    write_test(
        project,
        f"""
def test_no_gates(stickler):
    report, gates = {EVAL})
    assert gates == [] and report["document_count"] == 24

def test_raised(stickler):
    report, gates = {EVAL}, limits={{"line-bytes": "1MiB"}})
    assert report["document_count"] == 24
""",
    )
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text('[tool.stickler.fail-under]\n"total_amount.cm_f1" = 0.99\n', encoding="utf-8")
    run(project).assert_outcomes(passed=2)
    pyproject.write_text("[tool.stickler.limits]\nline-bytes = 10\n", encoding="utf-8")
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["stickler.eval: models/data/gt.jsonl:1: *line-bytes*"])


def test_the_docs_failure_is_a_real_run(pytester, root, monkeypatch, imported):
    """docs/ci/pytest.md: its first example, on the files it copies, fails with the message the page shows."""
    import re

    page = (root / "docs/ci/pytest.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n(.*?)```", page, re.S).group(1)
    shown = re.search(r"\n(stickler: 2 of 2 gate\(s\) failed.*?… and 3 more)\n", page, re.S).group(1)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    tests = pytester.mkdir("tests")
    for name, source in (
        ("schema.json", "schemas/invoice.json"),
        ("gt.jsonl", "fixtures/invoice/gt.jsonl"),
        ("pred.jsonl", "fixtures/invoice/pred.jsonl"),
    ):
        shutil.copy(root / source, tests / name)
    (tests / "test_invoice_model.py").write_text(example, encoding="utf-8")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert shown in result.stdout.str()
    assert "tests/test_invoice_model.py::test_invoice_model: 24 documents, weighted_overall_score 0.594, 2 of 2" in (
        result.stdout.str()
    )


def test_a_slice_gate(project, root):
    """A slice gate slices the run by its path, as `stickler eval --fail-under 'slice:active=*:cm_f1=0.5'` does on
    the employee fixture: one result per value of `active`, with the CLI's figures."""
    data = project.path / "models" / "data"
    shutil.copy(root / "schemas/employee.json", data / "employee.json")
    shutil.copy(root / "fixtures/employee/gt.jsonl", data / "employee_gt.jsonl")
    shutil.copy(root / "fixtures/employee/pred.jsonl", data / "employee_pred.jsonl")
    write_test(
        project,
        """
def test_slices(stickler):
    report, gates = stickler.eval("data/employee.json", "data/employee_gt.jsonl", "data/employee_pred.jsonl",
                                  fail_under={"slice:active=*:cm_f1": 0.5})
    assert [(g["gate"], g["actual"], g["status"]) for g in gates] == [
        ("slice:active=(missing):cm_f1 >= 0.5", 0.5714285714285714, "passed"),
        ("slice:active=false:cm_f1 >= 0.5", 0.7164179104477612, "passed"),
        ("slice:active=true:cm_f1 >= 0.5", 0.7560975609756099, "passed"),
    ]
    assert set(report["slices"]["paths"]) == {"active"}
""",
    )
    run(project).assert_outcomes(passed=1)


@pytest.fixture
def decisions(project, root):
    """issue 41's worked examples beside the test: fixtures/policy (20 invoices whose invoice_id and total carry
    confidences) in models/data/policy/, fixtures/baseline (40 receipts; shipped and candidate predictions) in
    models/data/baseline/."""
    for name in ("policy", "baseline"):
        shutil.copytree(root / "fixtures" / name, project.path / "models" / "data" / name)
    return project


POLICY = 'stickler.eval("data/policy/schema.json", "data/policy/gt.jsonl", "data/policy/pred.jsonl"'


def test_a_policy_fitted_in_a_test_then_applied(decisions):
    """docs/decisions.md's worked example, at a target of 0.8. invoice_id: its 16 right values at confidence 0.99 ..
    0.84 are accepted (0.80 twice, one of them wrong, and a wrong 0.60 are not; one value has no confidence), so
    coverage 16/20; every accepted value right, so the one-sided 95% Clopper–Pearson bound is 0.05 ** (1/16).
    total: 18 right values at 0.97 .. 0.84, two wrong ones at 0.30 and 0.20: coverage 18/20, bound 0.05 ** (1/18).
    Straight through: the 14 documents whose two values are both at 0.84 or above (tests/cli/test_policy.py counts
    them from the files). At the level 0.9, total's threshold falls to 0.30: its 19 values at 0.30 or above (18
    right) have the bound beta.ppf(0.1, 18, 2) = 0.810 >= 0.8 (at 0.95 it is 0.774 < 0.8). The written policy,
    applied to the same data, holds."""
    write_test(
        decisions,
        f"""
import json
import pytest

def test_fit(stickler):
    report, gates = {POLICY}, target_precision=0.8, write_policy="data/policy.json",
                                    fail_under={{"straight_through_rate": 0.7, "total.coverage": 0.9}})
    fields = report["policy"]["fields"]
    assert (fields["invoice_id"]["threshold"], fields["invoice_id"]["accepted"], fields["invoice_id"]["values"]) == (
        0.84, 16, 20)
    assert fields["invoice_id"]["coverage"] == 0.8
    assert fields["invoice_id"]["lower_bound"] == pytest.approx(0.05 ** (1 / 16), abs=1e-12)
    assert (fields["total"]["threshold"], fields["total"]["coverage"]) == (0.84, 0.9)
    assert fields["total"]["lower_bound"] == pytest.approx(0.05 ** (1 / 18), abs=1e-12)
    assert report["policy"]["straight_through"]["straight_through"] == 14
    assert [(g["gate"], g["actual"], g["status"]) for g in gates] == [
        ("straight_through_rate >= 0.7", 0.7, "passed"),
        ("total.coverage >= 0.9", 0.9, "passed"),
    ]
    written = json.loads(open("models/data/policy.json").read())
    assert written["target"] == 0.8 and written["level"] == 0.95
    assert {{k: v["threshold"] for k, v in written["fields"].items()}} == {{"invoice_id": 0.84, "total": 0.84}}

def test_one_field_by_name(stickler):
    report, _ = {POLICY}, target_precision={{"total": 0.8}}, policy_level=0.9)
    assert report["policy"]["level"] == 0.9
    total = report["policy"]["fields"]["total"]
    assert (total["threshold"], total["accepted"], total["errors_let_through"]) == (0.3, 19, 1)
    assert total["lower_bound"] == pytest.approx({float(beta.ppf(0.1, 18, 2))!r}, abs=1e-12)
    assert set(report["policy"]["fields"]) == {{"total"}}

def test_apply(stickler):
    report, gates = {POLICY}, policy="data/policy.json", fail_under={{"policy_holds": 1}})
    assert report["policy"]["mode"] == "applied"
    assert [(g["gate"], g["actual"], g["status"]) for g in gates] == [("policy_holds >= 1", 1.0, "passed")]

def test_a_policy_gate_fails(stickler):
    {POLICY}, target_precision=0.8, fail_under={{"straight_through_rate": 0.75}})
""",
    )
    result = run(decisions)
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "stickler: 1 of 1 gate(s) failed (20 documents of models/data/policy/pred.jsonl)",
            "  straight_through_rate >= 0.75  0.700 < 0.75",
        ]
    )


BASELINE = 'stickler.eval("data/baseline/schema.json", "data/baseline/gt.jsonl", "data/baseline/{}.jsonl"'


def test_a_baseline_saved_then_held_to(decisions):
    """docs/decisions-baseline.md's worked example. The shipped predictions against their own baseline: the same on
    every field. The candidate: total went from correct to incorrect in 8 documents and back in none (McNemar
    p = 2 × (1/2)^8), its mean score from 35/40 to 27/40; Benjamini–Hochberg over the four tests made gives it
    q = 0.022 (the page works it by hand): worse, and fail_on_regression= fails the test naming it. date went the
    other way in 4 documents (p = 2 × (1/2)^4 = 0.125): the same. Without fail_on_regression= the test passes."""
    shipped, candidate = BASELINE.format("shipped"), BASELINE.format("candidate")
    write_test(
        decisions,
        f"""
import os
import pytest

def test_the_same_predictions_pass(stickler):
    {shipped}, save_baseline="data/shipped.baseline")
    assert os.path.getsize("models/data/shipped.baseline") < os.path.getsize("models/data/baseline/shipped.jsonl")
    report, _ = {shipped}, baseline="data/shipped.baseline", fail_on_regression=True)
    block = report["baseline"]
    assert block["documents"]["common"] == 40 and not block["regressed"]
    assert {{f["path"]: f["verdict"] for f in block["fields"]}} == {{
        "receipt_id": "same", "vendor": "same", "date": "same", "total": "same"}}

def test_said_without_failing(stickler):
    {shipped}, save_baseline="data/said.baseline")
    report, _ = {candidate}, baseline="data/said.baseline")
    block = report["baseline"]
    fields = {{f["path"]: f for f in block["fields"]}}
    assert block["worse"] == ["total"] and block["better"] == []
    assert (fields["total"]["worse"], fields["total"]["better"]) == (8, 0)
    assert fields["total"]["mcnemar_p"] == pytest.approx(2 * 0.5**8, rel=1e-12)
    assert (fields["total"]["baseline_mean_score"], fields["total"]["run_mean_score"]) == (35 / 40, 27 / 40)
    assert (fields["date"]["worse"], fields["date"]["better"], fields["date"]["verdict"]) == (0, 4, "same")

def test_a_worse_field_fails(stickler):
    {shipped}, save_baseline="data/failing.baseline")
    {candidate}, baseline="data/failing.baseline", fail_on_regression=True)
    raise AssertionError("not reached: the regression stops the test")
""",
    )
    result = run(decisions)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "stickler: Against the baseline, the run is significantly worse on 1 field(s): total "
            "(40 documents of models/data/baseline/candidate.jsonl; baseline models/data/failing.baseline)",
            "  total  worse in 8 of 40 documents, better in 0; mean score 0.875 -> 0.675; q 0.022",
            "worst fields:",
        ]
    )
    assert "not reached" not in result.stdout.str()
    # the terminal report's lines: a call without baseline= says nothing of one
    result.stdout.fnmatch_lines(
        [
            "models/test_model.py::test_a_worse_field_fails: 40 documents, weighted_overall_score 0.906, "
            "worse than the baseline on total",
            "models/test_model.py::test_a_worse_field_fails: 40 documents, weighted_overall_score 0.931",
            "models/test_model.py::test_said_without_failing: 40 documents, weighted_overall_score 0.906, "
            "worse than the baseline on total",
            "models/test_model.py::test_said_without_failing: 40 documents, weighted_overall_score 0.931",
            "models/test_model.py::test_the_same_predictions_pass: 40 documents, weighted_overall_score 0.931, "
            "not worse than the baseline",
        ]
    )


def test_bad_policy_and_baseline_options_are_clear_errors(decisions):
    """The CLI's checks of issue 41's options, each a one-line failure naming the option or the file."""
    shipped = BASELINE.format("shipped")
    write_test(
        decisions,
        f"""
import pytest

def test_target_out_of_range(stickler):
    {POLICY}, target_precision=1.5)

def test_target_on_no_field(stickler):
    {POLICY}, target_precision={{"totl": 0.9}})

def test_target_not_a_number(stickler):
    with pytest.raises(TypeError) as raised:
        {POLICY}, target_precision=[None])
    assert str(raised.value).startswith("stickler.eval(): target_precision= takes P, a dict of FIELD to P")

def test_level_not_a_number(stickler):
    {POLICY}, target_precision=0.9, policy_level="high")

def test_level_out_of_range(stickler):
    {POLICY}, target_precision=0.9, policy_level=1.0)

def test_fit_and_apply(stickler):
    {POLICY}, target_precision=0.9, policy="data/policy.json")

def test_policy_gate_without_a_policy(stickler):
    {POLICY}, fail_under={{"straight_through_rate": 0.5}})

def test_missing_policy(stickler):
    {POLICY}, policy="data/nope.json")

def test_regression_without_baseline(stickler):
    {shipped}, fail_on_regression=True)

def test_missing_baseline(stickler):
    {shipped}, baseline="data/nope.baseline")

def test_baseline_of_another_schema(stickler):
    {shipped}, save_baseline="data/receipts.baseline")
    {POLICY}, baseline="data/receipts.baseline")

def test_save_baseline_over_the_ground_truth(stickler):
    {shipped}, save_baseline="data/baseline/gt.jsonl")
""",
    )
    result = run(decisions, "-rf")
    result.assert_outcomes(passed=1, failed=11)
    result.stdout.fnmatch_lines(
        [
            "stickler.eval: --target-precision '1.5': the precision must be between 0 and 1 (exclusive)",
            "stickler.eval: --target-precision 'totl=0.9': no field 'totl' (did you mean 'total'?)",
            "stickler.eval: policy_level='high': expected a number",
            "stickler.eval: --policy-level must be a level between 0 and 1, such as 0.95; got 1",
            "stickler.eval: --target-precision fits a policy, --policy checks one: give one of them",
            "stickler.eval: fail_under=: gate 'straight_through_rate' needs a policy: *",
            "stickler.eval: models/data/nope.json: cannot read the policy file: *",
            "stickler.eval: fail_on_regression= and baseline_any_schema= compare with a baseline: give baseline=FILE",
            "stickler.eval: models/data/nope.baseline: file not found",
            "stickler.eval: models/data/receipts.baseline: was written with another schema *",
            "stickler.eval: save_baseline=models/data/baseline/gt.jsonl: refusing to overwrite an input file with the "
            "report: it is the ground truth",
        ]
    )
    out = result.stdout.str()
    assert "Traceback" not in out and "During handling" not in out


def test_the_docs_decision_examples_are_real_runs(pytester, root, monkeypatch, imported, capsys):
    """docs/ci/pytest.md, "Decisions: a policy and a baseline": its three tests, on the files it copies and the
    baseline its command writes, pass, pass and fail, the last with the message the page shows."""
    import re

    page = (root / "docs/ci/pytest.md").read_text(encoding="utf-8")
    section = page[page.index("## Decisions: a policy and a baseline") : page.index("## Bad input")]
    examples = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(examples) == 2
    command = re.search(r"```\nstickler eval (.*?)\n```", section, re.S).group(1).split()
    shown = re.search(r"\n(stickler: Against the baseline.*?)\nworst fields:", section, re.S).group(1)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    tests = pytester.mkdir("tests")
    for name in ("policy", "baseline"):
        shutil.copytree(root / "fixtures" / name, tests / name)
    assert main(["eval", *command]) == 0
    capsys.readouterr()
    (tests / "test_decisions.py").write_text("\n\n".join(examples), encoding="utf-8")
    result = run(pytester)
    result.assert_outcomes(passed=2, failed=1)
    assert shown in result.stdout.str()
    assert (tests / "policy" / "policy.json").is_file()
