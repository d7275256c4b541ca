"""``stickler eval … --format json|markdown`` read without typer (cli/light.py) is the typer command, byte for byte.

Three checks: the light path's table of options is typer's declaration of ``eval`` (names, spellings, types,
bounds, defaults), so that an option added to one and not the other fails here; on a matrix of command lines,
the ``EvalArgs`` the light path reads are the ones typer builds, or the light path leaves the line to typer; and
the console script (light path first) and the typer app write the same standard output, standard error, files
and exit code on success, a failed gate (1), bad input (2), bad option values, an unknown option and ``--help``.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
import typer.main

from stickler_cli.cli import app as cli
from stickler_cli.cli import eval as eval_module
from stickler_cli.cli import light
from stickler_cli.cli import run as console_script
from stickler_cli.cli.eval_run import EvalArgs

ROOT = Path(__file__).resolve().parents[2]
INVOICE = [
    str(ROOT / "schemas/invoice.json"),
    str(ROOT / "fixtures/invoice/gt.jsonl"),
    str(ROOT / "fixtures/invoice/pred.jsonl"),
]
GT, PRED = INVOICE[1:]


def _eval_params() -> list:
    return typer.main.get_command(cli._app_for(["eval"])).commands["eval"].params


def test_the_table_is_typers_declaration():
    params = _eval_params()
    arguments = [p for p in params if p.param_type_name == "argument"]
    options = [p for p in params if p.param_type_name == "option"]
    assert tuple(p.name for p in arguments) == light.ARGUMENTS
    assert [p.name for p in params] == [f.name for f in dataclasses.fields(EvalArgs)]
    kinds = {str: str, int: int, float: float, bool: bool, list[str]: list}
    declared = [
        (
            p.name,
            tuple(p.opts),
            kinds[p.type_descriptor.annotation],
            getattr(p, "min", None),
            getattr(p, "max", None),
            tuple(p.secondary_opts),
        )
        for p in options
    ]
    assert declared == [(o.field, o.spellings, o.kind, o.min, o.max, o.off) for o in light.OPTIONS]
    defaults = {f.name: f.default for f in dataclasses.fields(EvalArgs)}
    assert {p.name: p.default for p in params} == defaults
    # What the light parser does not read: a value typer would take from the environment, a callback, a parser
    # of the option's own, a clamped bound, an eager option, more than one value each time.
    for p in params:
        info = p.type_descriptor.parameter_info
        assert (p.envvar, p.callback, info.parser, info.clamp, p.is_eager, p.nargs) == (
            None,
            None,
            None,
            False,
            False,
            1,
        )
        assert p.multiple == (kinds[p.type_descriptor.annotation] is list)
        assert not p.required


def _typers_args(monkeypatch, args: list[str]) -> EvalArgs | None:
    """The ``EvalArgs`` the typer command builds from ``args`` (None when it stops before: a usage error, --help)."""
    built: list[EvalArgs] = []
    monkeypatch.setattr(eval_module, "run_eval", built.append)
    cli.main(args)
    return built[0] if built else None


S, G, P = INVOICE
READ = [  # command lines the light path reads: the EvalArgs must be typer's
    ["eval", S, G, P, "--format", "json"],
    ["eval", "--format", "json", S, G, P],
    ["eval", S, "--format=markdown", G, P],
    ["eval", G, P, "-f", "json"],
    ["eval", "-f", "markdown", G],
    ["eval", "-f", "json"],
    ["eval", S, G, P, "-f", "table", "--format", "json", "-o", "out.json", "--output", "-"],
    ["eval", S, G, P, "--format", "json", "--fail-under", "weighted_overall_score=0.9", "--fail-under", "x=0.1"],
    ["eval", S, G, P, "--format", "json", "--no-progress", "--progress", "--strict", "--pair-by-line", "--debug"],
    ["eval", S, G, P, "--format", "json", "--no-progress", "--dry-run", "--assert-formats", "--no-data-passes"],
    ["eval", S, G, P, "--format", "json", "--workers", "2", "-w", "1", "--ece-bins", "100", "--show-errors", "0"],
    ["eval", S, G, P, "--format", "json", "--bootstrap", "10", "--seed", "007", "--ci", "0.9", "--fdr", "0.1"],
    ["eval", S, G, P, "--format", "json", "--ci=0.95", "--slice-by", "a.b", "--limit", "x=y", "--limit=line-bytes=1"],
    ["eval", S, G, P, "--format", "json", "--check-id", "id", "--plugin", "m", "--schema-resource", "u=f"],
    ["eval", S, G, P, "--format", "json", "--allow-network", "h", "--llm-base-url", "http://x", "--llm-cache", "c"],
    ["eval", S, G, P, "--format", "json", "--llm-api-key-env", "K", "--judge-pairing", "proxy", "--dask", "local"],
    ["eval", S, G, P, "--format", "json", "--id-field", "", "--confidence-metrics", "auroc", "--budgets", "0.5"],
    ["eval", S, G, P, "--format", "json", "--iou-thresholds", "0.5", "--box-found", "iou", "--gates", "g.toml"],
    ["eval", S, G, P, "--format", "json", "--junit", "j.xml", "--html", "r.html", "--suggest-thresholds", "p.json"],
    ["eval", S, G, P, "--format", "json", "--non-matches", "n", "--per-document", "d", "--save-schema", "s"],
    ["eval", S, G, P, "--format", "json", "--save-state", "state.json", "--format", "markdown"],
    ["eval", "-", G, "-", "--format", "json"],
    ["eval", S, G, P, "--format", "json", "--ceiling", "agreement.json"],  # issue 42, item 4
]
TYPERS = [  # command lines the light path leaves to typer
    ["eval"],
    ["eval", S, G, P],  # the tables
    ["eval", S, G, P, "--format", "table"],
    ["eval", S, G, P, "--format", "json", "--format", "table"],
    ["eval", S, G, P, "--format", "xml"],
    ["eval", S, G, P, "--format", "json", "--help"],
    ["eval", "--help"],
    ["eval", S, G, P, "--format", "json", "--no-such-option"],
    ["eval", S, G, P, "--format", "json", "--form", "json"],  # a prefix: not an option to click
    ["eval", S, G, P, "-fjson"],
    ["eval", S, G, P, "-f=json"],
    ["eval", S, G, P, "--format", "json", "extra"],
    ["eval", S, G, P, "--format", "json", "--output"],
    ["eval", S, G, P, "--format", "json", "-o", "--strict"],
    ["eval", S, G, P, "--format", "json", "--strict=yes"],
    ["eval", S, G, P, "--format", "json", "--workers", "0"],
    ["eval", S, G, P, "--format", "json", "--workers", "x"],
    ["eval", S, G, P, "--format", "json", "--ece-bins", "101"],
    ["eval", S, G, P, "--format", "json", "--seed", "-1"],
    ["eval", S, G, P, "--format", "json", "--ci", "1e-1"],
    ["eval", S, G, P, "--format", "json", "--", G],
    ["eval", S, G, P, "--format", "json", "--version"],
    ["--debug", "eval", S, G, P, "--format", "json"],
    ["compare", S, G, P, "--format", "json"],
]


@pytest.mark.parametrize("args", READ, ids=lambda a: " ".join(x.rpartition("/")[2] for x in a[1:]))
def test_what_the_light_path_reads_is_what_typer_builds(monkeypatch, capsys, args):
    read = light.parse(args)
    assert read is not None and read.output_format in light.FORMATS
    assert read == _typers_args(monkeypatch, args)


@pytest.mark.parametrize("args", TYPERS, ids=lambda a: " ".join(x.rpartition("/")[2] for x in a))
def test_the_rest_is_typers(args):
    assert light.parse(args) is None
    assert light.main(args) is None


def test_a_shells_completion_is_clicks(monkeypatch):
    monkeypatch.setenv(light.COMPLETION, "bash_complete")
    assert light.parse(READ[0]) is not None and light.main(READ[0]) is None


def test_a_parse_reads_the_values_as_typer_does():
    read = light.parse([*READ[11]])
    assert (read.bootstrap, read.seed, read.ci, read.fdr) == (10, 7, 0.9, 0.1)
    read = light.parse(READ[7])
    assert read.fail_under == ["weighted_overall_score=0.9", "x=0.1"] and read.limit is None
    read = light.parse(READ[8])
    assert (read.show_progress, read.strict, read.pair_by_line, read.debug, read.dry_run) == (
        True,
        True,
        True,
        True,
        False,
    )


# -- the whole command, both ways ------------------------------------------------------------------------------

BAD_LINE = '{"invoice_number": "A-1"}\n{"invoice_number": \n'


def _files(folder: Path) -> None:
    folder.mkdir()
    (folder / "bad.jsonl").write_text(BAD_LINE)
    (folder / "gates.toml").write_text('[fail-under]\nweighted_overall_score = 0.99\n"no.such.field.cm_f1" = 0.5\n')


CASES = {
    "json": [S, G, P, "--format", "json"],
    "markdown": [S, G, P, "--format", "markdown", "--show-errors", "2"],
    "json file and stdout": [S, G, P, "-f", "json", "-o", "out.json", "--save-state", "state.json"],
    "json to stdout by -o -": [S, G, P, "--format", "json", "--output", "-"],
    "markdown and files": [S, G, P, "-f", "markdown", "--junit", "j.xml", "--non-matches", "nm.jsonl"],
    "gate passes": [S, G, P, "-f", "json", "--fail-under", "weighted_overall_score=0.1", "--no-progress"],
    "gate fails": [S, G, P, "-f", "markdown", "--fail-under", "weighted_overall_score=0.99", "--ci", "0.9"],
    "gate fails, json": [S, G, P, "-f", "json", "--fail-under", "weighted_overall_score=0.99", "-o", "r.json"],
    "gates file naming no field": [S, G, P, "-f", "json", "--gates", "gates.toml"],
    "slices held and not": [S, G, P, "-f", "json", "--slice-by", "customer_name", "--slice-by", "no.such"],
    "schema inferred": [G, P, "--format", "json", "--save-schema", "inferred.json"],
    "data only": [G, "--format", "json"],
    "bad line": [S, "bad.jsonl", P, "--format", "json"],
    "bad line, strict": [S, G, "bad.jsonl", "--format", "json", "--strict"],
    "no such file": [S, "missing.jsonl", P, "--format", "markdown"],
    "bad limit": [S, G, P, "--format", "json", "--limit", "x=y"],
    "bad ci": [S, G, P, "--format", "json", "--ci", "2"],
    "bad format": [S, G, P, "--format", "xml"],
    "bad workers": [S, G, P, "--format", "json", "--workers", "0"],
    "bad seed": [S, G, P, "--format", "json", "--seed", "x"],
    "unknown option": [S, G, P, "--format", "json", "--no-such-option"],
    "missing value": [S, G, P, "--format", "json", "--output"],
    "help": ["--format", "json", "--help"],
    "debug": [S, G, P, "--format", "json", "--debug"],
    "output onto an input": [S, G, P, "--format", "json", "-o", G],
}
# The exit codes (0 unless named): a failed gate 1, bad input or a bad option 2 (docs/ci/index.md, "Exit codes").
CODES = {
    "gate fails": 1,
    "gate fails, json": 1,
    "gates file naming no field": 2,
    "json to stdout by -o -": 2,
    "data only": 2,
    "bad line": 2,
    "bad line, strict": 2,
    "no such file": 2,
    "bad limit": 2,
    "bad ci": 2,
    "bad format": 2,
    "bad workers": 2,
    "bad seed": 2,
    "unknown option": 2,
    "missing value": 2,
    "output onto an input": 2,
}
TYPERS_TO_ANSWER = ("bad format", "bad workers", "bad seed", "unknown option", "missing value", "help")
# What differs between two runs: the run's seconds (the JSON report, JUnit's time) and the clock (JUnit's timestamp).
_CLOCK = re.compile(rb'"elapsed_seconds": ?[0-9.e-]+|\btime="[0-9.]+"|\btimestamp="[^"]+"')


def _same(data: bytes) -> bytes:
    """The bytes of an output with the figures that differ between two runs (seconds, the clock) blanked."""
    return _CLOCK.sub(b"CLOCK", data)


def _outcome(folder: Path, capsys, monkeypatch, run) -> tuple:
    monkeypatch.chdir(folder)
    summary = folder / "summary.md"
    summary.write_text("before\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("COLUMNS", "100")
    code = run()
    out, err = capsys.readouterr()
    here = str(folder).encode()
    files = {p.name: _same(p.read_bytes()).replace(here, b"DIR") for p in sorted(folder.iterdir())}
    return code, _same(out).replace(here, b"DIR"), err.replace(here, b"DIR"), files


@pytest.mark.parametrize("name", CASES)
def test_the_light_path_writes_what_typer_writes(tmp_path, capsysbinary, monkeypatch, name):
    args = ["eval", *CASES[name]]
    light_folder, typer_folder = tmp_path / "light", tmp_path / "typer"
    _files(light_folder)
    _files(typer_folder)

    def console() -> int:  # the console script: the light path when it reads the line, else the typer app
        monkeypatch.setattr(sys, "argv", ["stickler", *args])
        with pytest.raises(SystemExit) as ended:
            console_script()
        return ended.value.code

    light_run = _outcome(light_folder, capsysbinary, monkeypatch, console)
    typer_run = _outcome(typer_folder, capsysbinary, monkeypatch, lambda: cli.main(args))
    assert light_run == typer_run
    code, out, err, files = light_run
    assert code == CODES.get(name, 0)
    assert (light.parse(args) is None) == (name in TYPERS_TO_ANSWER)
    assert files["summary.md"].startswith(b"before\n")
