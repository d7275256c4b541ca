"""Start-up: each command imports only what it uses (docs/performance.md, "Start-up").

Deterministic, never timed: each command runs in a fresh interpreter, through the console script
that pyproject.toml names, and the test reads which modules that process imported. The whole
process's time is measured by `make bench` (bench/startup.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from stickler_cli.cli.help import _UNSURE, plain_value
from stickler_cli.comparators import names, plugins, registry
from stickler_cli.version import __version__

ROOT = Path(__file__).resolve().parents[2]
INVOICE = [
    str(ROOT / "schemas/invoice.json"),
    str(ROOT / "fixtures/invoice/gt.jsonl"),
    str(ROOT / "fixtures/invoice/pred.jsonl"),
]
QUICKSTART = [
    str(ROOT / "schemas/quickstart.json"),
    str(ROOT / "fixtures/quickstart/gt.json"),
    str(ROOT / "fixtures/quickstart/pred.json"),
]
# What no command needs before it scores: the engine's libraries, and what typer would import to
# check option values (pydantic) or a plugin lookup would (importlib.metadata).
# The one scipy module eval loads when it solves a list (alone: scipy_lsap.py), not scipy's packages.
SOLVER = "scipy.optimize._lsap"
ENGINE = (
    "numpy",
    "scipy",
    "rapidfuzz",
    "pydantic",
    "jsonschema",
    "referencing",
    "importlib.metadata",
    "stickler_cli.engine",
    "stickler_cli.comparators",
    "stickler_cli.schema",
)


def _console_script() -> str:
    """``module:function`` of the ``stickler`` command, as pyproject.toml declares it."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["stickler"]


# Runs the console script's function as the generated `stickler` script does, then writes the
# names of the modules this interpreter imported to the file given first.
RUNNER = """
import importlib, json, sys
out, target, *args = sys.argv[1:]
module, _, function = target.partition(":")
sys.argv = ["stickler", *args]
try:
    getattr(importlib.import_module(module), function)()
    code = 0
except SystemExit as exc:
    code = exc.code
with open(out, "w") as handle:
    json.dump({"code": code, "modules": sorted(sys.modules)}, handle)
"""


def _run(tmp_path: Path, *args: str) -> tuple[int, set[str], str]:
    """Exit code, imported modules and standard output of ``stickler ARGS`` in a fresh interpreter."""
    out = tmp_path / "modules.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), "COLUMNS": "100"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(out), _console_script(), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert out.is_file(), done.stderr
    result = json.loads(out.read_text())
    return result["code"], set(result["modules"]), done.stdout


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules for name in names if m == name or m.startswith(name + "."))


def test_the_console_script_is_the_small_module():
    assert _console_script() == "stickler_cli.cli:run"


def test_version_imports_neither_typer_nor_rich_nor_the_engine(tmp_path):
    code, modules, out = _run(tmp_path, "--version")
    assert (code, out) == (0, f"stickler {__version__}\n")
    assert _loaded(modules, ("typer", "rich", "stickler_cli.cli.app", "typing", *ENGINE)) == []


def test_version_says_what_the_app_says(capsys):
    from stickler_cli.cli.app import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"stickler {__version__}\n"


def test_version_with_more_arguments_is_the_apps(tmp_path):
    """Only `stickler --version` alone is answered early: anything else is typer's to judge."""
    code, modules, _ = _run(tmp_path, "--version", "--no-such-option")
    assert code == 2 and "typer" in modules


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["eval", "--help"],
        ["compare", "--help"],
        ["diff", "--help"],
        ["merge", "--help"],
        ["schema", "check", "--help"],
        ["comparators", "--help"],
        ["agree", "--help"],
        ["stability", "--help"],
    ],
    ids=" ".join,
)
def test_help_imports_no_engine_and_no_rich_when_piped(tmp_path, args):
    """Piped, a help page is plain text, which Rich would write alike: Rich is not imported (console_kind.py)."""
    code, modules, out = _run(tmp_path, *args)
    assert code == 0 and out.startswith("Usage: stickler")
    assert _loaded(modules, (*ENGINE, "rich")) == []


def test_eval_imports_only_what_it_uses(tmp_path):
    """JSON on stdout: no tables; a schema of strings, numbers and lists of objects: the comparators it
    names and nothing else; lists: solved by scipy's compiled solver alone, without the scipy.optimize
    package (scipy_lsap.py); built-in comparators
    only: no entry point read (importlib.metadata is what reads them). The Date comparator's reader is
    loaded once an FD reaches the cosmetic classification's date step (cosmetic.py), as the fixture's do. The
    schema refers to nothing and names no draft: checked and compiled without jsonschema (schema/drafts.py)."""
    code, modules, out = _run(
        tmp_path,
        "eval",
        *INVOICE,
        "--format",
        "json",
        "--workers",
        "1",
        "--ci",
        "0.9",
        "--seed",
        "3",
        "--show-errors",
        "2",
    )
    assert code == 0 and json.loads(out)["document_count"] == 24
    assert _loaded(
        modules,
        (
            "scipy",
            "pydantic",
            "importlib.metadata",
            *TERMINAL,
            "stickler_cli.run.parallel",
            "jsonschema",
            "referencing",
            "jsonschema_specifications",
            "stickler_cli.comparators.llm",
            "stickler_cli.comparators.anls",
            "stickler_cli.reporters.html",
        ),
    ) == [SOLVER]
    assert "stickler_cli.engine" in modules


# What draws for a terminal, and reads the command line for it: left out where nothing is drawn (cli/light.py).
TERMINAL = ("typer", "click", "rich", "stickler_cli.cli.app", "stickler_cli.cli.options", "stickler_cli.cli.help")


@pytest.mark.parametrize(
    "args, code, shown",
    [
        (["--format", "markdown", "--show-errors", "3"], 0, "## stickler"),
        (["-f", "json", "-o", "out.json", "--save-state", "state.json", "--no-progress"], 0, '"document_count": 24'),
        (
            ["--format=json", "--fail-under", "weighted_overall_score=0.99", "--junit", "j.xml"],
            1,
            "weighted_overall_score >= 0.99",
        ),
        (["--format", "markdown", "--fail-under", "weighted_overall_score=0.99"], 1, "1 of 1 gate(s) failed"),
        (["--format", "json", "--limit", "no-such-limit=1"], 2, ""),
    ],
    ids=["markdown", "json and files", "gate fails", "gate fails, markdown", "bad limit"],
)
def test_eval_for_a_machine_imports_neither_typer_nor_rich(tmp_path, args, code, shown):
    """JSON and Markdown draw nothing: the options are read without typer (cli/light.py), the report written
    without Rich, on success, a failed gate (exit 1) and bad input (exit 2)."""
    got, modules, out = _run(tmp_path, "eval", *INVOICE, *args)
    assert (got, shown in out) == (code, True)
    assert _loaded(modules, TERMINAL) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--format", "json", "--fail-under", "weighted_overall_score=0.99", "--slice-by", "no.such"],
        ["--format", "markdown", "--show-errors", "2"],
        ["--format", "json", "--limit", "line-bytes=x"],
    ],
    ids=["gate fails, a warning", "markdown", "bad limit"],
)
def test_eval_without_typer_writes_what_typer_writes_in_a_fresh_process(tmp_path, args):
    """tests/cli/test_light.py compares both paths in one process; here each runs alone, as a user runs it: the
    console script (no typer, no Rich) and the typer app, the same bytes on stdout and stderr, the same exit code."""
    full = "import sys; from stickler_cli.cli.app import main; sys.exit(main(sys.argv[1:]))"
    script = "import sys; from stickler_cli.cli import run; run()"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), "COLUMNS": "100"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", code, "eval", *INVOICE, *args],
            capture_output=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        for code in (script, full)
    ]
    light, typer = ((r.returncode, re.sub(rb'"elapsed_seconds": [0-9.e-]+', b"", r.stdout), r.stderr) for r in runs)
    assert light == typer
    assert light[0] == (1 if "--fail-under" in args else 2 if "--limit" in args else 0)
    said = {
        1: [b"stickler: warning: --slice-by no.such: no ground-truth record", b"stickler: 1 quality gate(s) failed"],
        2: [b"stickler: error: --limit"],
        0: [],
    }[light[0]]
    assert all(line in light[2] for line in said) and (light[0] != 0 or light[1].startswith(b"## stickler"))


@pytest.mark.parametrize(
    "args",
    [[], ["--format", "table"], ["--format", "json", "--no-such-option"], ["--format", "json", "--workers", "0"]],
    ids=["tables", "--format table", "an unknown option", "a value typer checks"],
)
def test_eval_for_a_terminal_or_in_doubt_is_typers(tmp_path, args):
    """Tables are drawn by Rich (piped: plain text, as Rich writes it); a command line the light path does not
    read whole goes to typer, for typer's message."""
    code, modules, out = _run(tmp_path, "eval", *INVOICE, *args)
    assert code == (0 if len(args) < 3 else 2)
    assert {"typer", "stickler_cli.cli.app"} <= modules
    assert ("rich.console" in modules) == (code == 0) and ("Weighted score" in out) == (code == 0)


def test_slicing_tests_its_slices_without_scipy(tmp_path):
    """Fisher's test, Benjamini-Hochberg and Newcombe's interval are computed without scipy.stats (~0.4 s to
    import): hypergeometric.py, and the normal quantile from the standard library."""
    code, modules, out = _run(
        tmp_path, "eval", *INVOICE, "--format", "json", "--slice-by", "customer_name", "--slice-by", "_meta.template"
    )
    assert code == 0 and json.loads(out)["slices"]["tests"] > 0
    assert _loaded(modules, ("scipy",)) == [SOLVER]


def test_compare_imports_neither_scipy_nor_pydantic_nor_jsonschema(tmp_path):
    code, modules, out = _run(tmp_path, "compare", *QUICKSTART, "--format", "json")
    assert code == 0 and "score" in json.loads(out)
    assert _loaded(
        modules,
        ("scipy", "pydantic", "importlib.metadata", "stickler_cli.comparators.llm", "jsonschema", "referencing"),
    ) == [SOLVER]


def test_agree_imports_neither_pydantic_nor_jsonschema_nor_the_judges(tmp_path):
    """Two annotators' files (the cosmetic fixture's ground truth and predictions): numpy for its figures, the
    engine to compare; nothing eval's reports, typer's value checks or the LLM comparators need."""
    annotators = [
        str(ROOT / "schemas/cosmetic.json"),
        *(str(ROOT / f"fixtures/cosmetic/{n}.jsonl") for n in ("gt", "pred")),
    ]
    code, modules, out = _run(tmp_path, "agree", *annotators, "--format", "json")
    assert code == 0 and json.loads(out)["documents"] > 0
    assert (
        _loaded(
            modules,
            ("pydantic", "importlib.metadata", "stickler_cli.comparators.llm", "jsonschema", "referencing", "rich"),
        )
        == []
    )


def test_a_schema_that_refers_to_others_still_imports_jsonschema(tmp_path):
    """The shipment schema refers to its own definitions: its references resolve through ``referencing``."""
    shipment = [
        str(ROOT / "schemas/shipment.json"),
        str(ROOT / "fixtures/shipment/gt.jsonl"),
        str(ROOT / "fixtures/shipment/pred.jsonl"),
    ]
    code, modules, out = _run(tmp_path, "eval", *shipment, "--format", "json")
    assert code == 0 and json.loads(out)["document_count"] > 0
    assert {"jsonschema", "referencing"} <= modules


def test_split_scores_nothing_so_imports_no_engine(tmp_path):
    packets = ROOT / "fixtures" / "packets"
    code, modules, out = _run(tmp_path, "split", str(packets / "gt.jsonl"), str(packets / "pred.jsonl"))
    assert code == 0 and "Packet score" in out
    # numpy it uses itself (Kendall's tau); the engine, the comparators and the schema machinery it does not.
    assert _loaded(modules, tuple(name for name in ENGINE if name != "numpy")) == []


def _python(script: str) -> subprocess.CompletedProcess:
    """``script`` in a fresh interpreter with this checkout first on the path."""
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_the_python_api_imports_names_when_used(tmp_path):
    script = (
        "import sys, stickler_cli as st\n"
        "before = sorted(sys.modules)\n"
        "plan = st.compile_schema({'type': 'object', 'properties': {'a': {'type': 'string'}}})\n"
        "from stickler_cli.run.evaluate import evaluate_pairs\n"  # the submodule evaluate ...
        "report = st.evaluate(plan, [({'a': 'x'}, {'a': 'x'})])\n"  # ... leaves st.evaluate the function
        "print(report['document_count'], callable(st.evaluate), st.Plan.__name__, "
        "sorted(set(st.__all__) - set(dir(st))), file=sys.stderr)\n"
        "print(' '.join(before))\n"
    )
    done = _python(script)
    assert done.returncode == 0, done.stderr
    assert done.stderr.split() == ["1", "True", "Plan", "[]"]
    assert _loaded(set(done.stdout.split()), (*ENGINE, "typer", "rich", "typing")) == []


def test_a_command_named_first_is_built_alone(monkeypatch, capsys):
    """typer builds the parameters of every command it holds on each call; a command named first is built alone
    (cli._app_for), a group with its own commands, and the root's help page builds (and lists) them all."""
    import typer.main

    from stickler_cli.cli import app as cli

    built: list[str] = []
    runs: list[bool] = []  # whether each command built is one that can run (not a listing's)
    real = typer.main.get_command_from_info

    def spy(command_info, **options):
        built.append(command_info.name)
        runs.append(command_info.callback is not cli._never_called)
        return real(command_info, **options)

    monkeypatch.setattr(typer.main, "get_command_from_info", spy)
    assert cli.main(["compare", *QUICKSTART, "--format", "json"]) == 0
    assert "score" in json.loads(capsys.readouterr().out) and built == ["compare"]
    built.clear()
    assert cli.main(["schema", "check", "--help"]) == 0
    assert "Usage: stickler schema check" in capsys.readouterr().out and built == ["check", "infer"]
    assert runs == [True, True, True]
    built.clear()
    runs.clear()
    assert cli.main(["--help"]) == 0  # no command named: all of them listed, none built to run
    out = capsys.readouterr().out
    assert sorted(built) == [
        "agree",
        "check",
        "comparators",
        "compare",
        "diff",
        "eval",
        "infer",
        "merge",
        "split",
        "stability",
    ]
    assert not any(runs)
    assert "  eval         Evaluate predictions against ground truth;" in out
    assert "schema       Inspect and validate schemas." in out
    built.clear()
    assert cli.main(["evl"]) == 2  # no such command: the listing, whose error names the commands it has
    assert "No such command" in capsys.readouterr().err and len(built) == 10 and not any(runs)
    built.clear()
    runs.clear()
    assert cli.main(["--debug", "compare", *QUICKSTART, "--format", "json"]) == 2  # an option first: the whole app
    assert len(built) == 10 and all(runs)


def test_the_reader_and_the_report_writer_import_no_engine():
    """Commands that read records or write files without scoring (`split`, `schema infer`) reach the reader
    through run/atomic.py: the raw-line checks (boxes, the older rich shape) must not bring numpy with them."""
    done = _python(
        "import sys, stickler_cli.run.reader, stickler_cli.run.atomic, stickler_cli.reporters.json_report\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    assert done.returncode == 0, done.stderr
    assert _loaded(set(done.stdout.split()), ENGINE) == []


# -- no entry point read for built-ins ------------------------------------------------------


def test_a_schema_of_built_ins_reads_no_entry_point(monkeypatch):
    import stickler_cli as st

    plugins.reset_entry_points()
    plan = st.compile_schema(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "total": {"type": "number"},
                "when": {"type": "string", "x-aws-stickler-comparator": "date"},
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"sku": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"}},
                    },
                },
            },
        }
    )
    report = st.evaluate(
        plan,
        [
            (
                {"name": "a", "total": 1, "when": "2024-01-02", "items": [{"sku": "x"}]},
                {"name": "a", "total": 1, "when": "2 Jan 2024", "items": [{"sku": "x"}]},
            )
        ],
    )
    assert report["metrics"]["weighted_overall_score"] == 1.0
    assert not plugins._comparator_entry_points.loaded and not plugins._embedding_entry_points.loaded


def test_an_unknown_name_reads_the_entry_points_and_lists_every_built_in():
    plugins.reset_entry_points()
    with pytest.raises(registry.ComparatorConfigError) as err:
        registry.lookup("Levenshtien")
    assert plugins._comparator_entry_points.loaded
    assert "(did you mean 'Levenshtein'?)" in str(err.value)
    assert all(cls in str(err.value) for cls, _ in names.BUILTINS.values())


# -- built-in comparators imported when named -------------------------------------------------


def test_the_table_of_built_ins_is_what_the_classes_say():
    for module_name, (class_name, aliases) in names.BUILTINS.items():
        module = __import__(f"stickler_cli.comparators.{module_name}", fromlist=["_"])
        [cls] = plugins.comparator_classes(module)
        assert (cls.__name__, cls.name, tuple(cls.aliases)) == (class_name, class_name, aliases)
    assert set(registry.BUILTIN_MODULES) == set(names.BUILTINS)


def test_a_built_in_name_is_refused_before_its_module_is_imported(tmp_path):
    """The phone comparator's module is not imported, yet a plugin may not take its name."""
    script = (
        "import sys\n"
        "from stickler_cli.comparators import Comparator, register\n"
        "class Mine(Comparator):\n"
        "    name = 'phone'\n"
        "    def similarity(self, a, b): return 1.0\n"
        "assert 'stickler_cli.comparators.phone' not in sys.modules\n"
        "try:\n"
        "    register(Mine)\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
    )
    done = _python(script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "comparator name 'phone' of __main__.Mine is already taken by stickler_cli.comparators.phone.PhoneComparator"
    )


# -- option values checked without pydantic ------------------------------------------------


class _Info:
    def __init__(self, minimum=None, maximum=None):
        self.min, self.max, self.clamp = minimum, maximum, False


SPELLINGS = [
    "0",
    "1",
    "7",
    "007",
    "10",
    "123456789012345678",
    "1234567890123456789",
    "0.95",
    "0.5",
    "3.14159",
    "2.0",
    "10.00",
    "-1",
    "+3",
    " 7",
    "7 ",
    "1_000",
    "1e3",
    ".5",
    "5.",
    "inf",
    "nan",
    "",
    "abc",
    "٣",
    "0x10",
    "１",
]


@pytest.mark.parametrize("annotation", [int, float])
@pytest.mark.parametrize("bounds", [(None, None), (1, None), (10, None)])
def test_a_plain_value_is_what_pydantic_makes_of_it(annotation, bounds):
    """Where plain_value answers, pydantic (typer's check) gives the same value; elsewhere typer checks."""
    from annotated_types import Ge, Le
    from typing import Annotated

    constraints = [c for c, v in ((Ge(bounds[0]), bounds[0]), (Le(bounds[1]), bounds[1])) if v is not None]
    adapter = TypeAdapter(Annotated[annotation, *constraints] if constraints else annotation)
    answered = 0
    for text in SPELLINGS:
        plain = plain_value(annotation, _Info(*bounds), text)
        if plain is _UNSURE:
            continue
        answered += 1
        expected = adapter.validate_python(text)
        assert (type(plain), plain) == (type(expected), expected), text
    assert answered >= 2


def test_plain_text_and_lists_of_text_pass_unchanged():
    for text in ["schema.json", "", "caf\udce9.json", "a b"]:
        assert plain_value(str, _Info(), text) == TypeAdapter(str).validate_python(text)
    assert plain_value(list[str], _Info(), ("a", "b")) == ["a", "b"]
    assert plain_value(bool, _Info(), True) is True
    assert plain_value(int, _Info(), True) is _UNSURE  # a bool is no int here: typer decides
    assert plain_value(bool, _Info(), "yes") is _UNSURE


def test_a_wrong_value_gets_typers_own_message(capsys):
    from stickler_cli.cli.app import main

    assert main(["eval", *INVOICE, "--workers", "0"]) == 2
    assert "Invalid value for '--workers' / '-w': Input should be greater than or equal to 1" in capsys.readouterr().err
    assert main(["eval", *INVOICE, "--ci", "x"]) == 2
    assert "Invalid value for '--ci': Input should be a valid number" in capsys.readouterr().err
