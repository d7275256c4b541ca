"""--help pages: every option name whole at 80 columns, text in brackets kept, options grouped."""

from __future__ import annotations

import re

import pytest
import typer.main

from stickler_cli.cli.app import app, main
from stickler_cli.cli.help import PANELS

COMMANDS = [["eval"], ["merge"], ["diff"], ["compare"], ["comparators"], ["schema", "check"], ["schema"], []]


def _help(args: list[str], capsys, monkeypatch, columns: int = 80) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))  # standard output is captured: not a terminal, as when piped
    assert main([*args, "--help"]) == 0
    return capsys.readouterr().out


def _command(args: list[str]):
    command = typer.main.get_command(app)
    for name in args:
        command = command.commands[name]
    return command


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a) or "stickler")
@pytest.mark.parametrize("columns", [80, 60])
def test_every_option_name_is_whole_and_every_line_fits(args, columns, capsys, monkeypatch):
    out = _help(args, capsys, monkeypatch, columns)
    assert max(len(line) for line in out.splitlines()) <= columns
    assert "…" not in out
    words = set(re.findall(r"--?[a-z][a-z0-9-]*", out))
    for param in _command(args).params:
        for name in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
            if name.startswith("-"):
                assert name in words, f"{name} missing or cut in `{' '.join(args)} --help`"


def test_text_in_square_brackets_is_shown(capsys, monkeypatch):
    """Rich markup used to eat [tool.stickler.fail-under] and [fail-under] (read as style tags)."""
    out = " ".join(_help(["eval"], capsys, monkeypatch).split())
    assert "also [tool.stickler.fail-under] in pyproject.toml" in out
    assert "TOML file whose [fail-under] table holds gates" in out
    assert "also [tool.stickler.limits] in pyproject.toml" in out
    assert "fractions in (0, 1]" in out
    assert "\\[" not in out


def test_eval_options_are_grouped_and_short(capsys, monkeypatch):
    out = _help(["eval"], capsys, monkeypatch)
    headings = [line[:-1] for line in out.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert headings == [*PANELS, "Options"]
    section = {h: out.split(h + ":\n", 1)[1].split("\n\n", 1)[0] for h in headings}
    assert "--id-field FIELD" in section["Inputs and pairing"]
    assert "--junit FILE" in section["Outputs"] and "-f, --format FORMAT" in section["Outputs"]
    assert "--fail-under METRIC=VALUE" in section["Quality gates"]
    assert "--confidence-metrics NAMES" in section["Confidence"]
    assert "--ci LEVEL" in section["Statistics"] and "--seed N" in section["Statistics"]
    assert "-w, --workers N" in section["Scale"] and "--progress / --no-progress" in section["Scale"]
    assert "--llm-base-url URL" in section["Limits and network"]
    assert len(out.splitlines()) < 125  # issue 41's Decisions panel
    assert out.startswith("Usage: stickler eval [OPTIONS] [SCHEMA] GROUND_TRUTH PREDICTIONS\n")


def test_a_long_name_keeps_its_line_and_the_help_goes_below(capsys, monkeypatch):
    out = _help(["diff"], capsys, monkeypatch)
    assert "\n  SCHEMA GT PRED_A PRED_B | STATE_A STATE_B\n        A schema, the ground truth" in out


def test_usage_errors_name_the_arguments_as_help_does(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["eval", "schema.json"]) == 2
    err = capsys.readouterr().err  # one line, naming what is missing (click said "Missing argument 'ground_truth'")
    assert err == (
        "stickler: error: eval needs the ground truth and the predictions: stickler eval [SCHEMA] "
        "GROUND_TRUTH PREDICTIONS (given only 'schema.json')\n"
    )
    assert main(["eval"]) == 2
    assert capsys.readouterr().err == (
        "stickler: error: eval needs the ground truth and the predictions: stickler "
        "eval [SCHEMA] GROUND_TRUTH PREDICTIONS\n"
    )
    assert main(["schema", "infer", "--help"]) == 0  # an optional argument in brackets
    assert capsys.readouterr().out.startswith("Usage: stickler schema infer [OPTIONS] GROUND_TRUTH [PREDICTIONS]\n")


# -- written without Rich where Rich would add no style (console_kind.py) ----------------------


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a) or "stickler")
@pytest.mark.parametrize("columns", [0, 9, 30, 80, 100, 160])
def test_a_plain_page_is_what_rich_writes(args, columns, capsys, monkeypatch):
    """Standard output captured is no terminal: Rich would write no style, so the page is written
    without it; forced through Rich, the bytes are the same (a width of 0, $COLUMNS=0, used to crash)."""
    from stickler_cli.cli import console as console_kind

    plain = _help(args, capsys, monkeypatch, columns)
    monkeypatch.setattr(console_kind, "styled", lambda: True)
    assert _help(args, capsys, monkeypatch, columns) == plain
    assert plain.startswith("Usage: stickler") and "--help" in plain


def test_on_a_terminal_the_page_is_styled_by_rich(capsys, monkeypatch):
    """Forced colour (a terminal): the usage line and headings in bold, option names in bold cyan."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    out = _help(["eval"], capsys, monkeypatch)
    assert out.startswith("\x1b[1mUsage: stickler eval [OPTIONS] [SCHEMA] GROUND_TRUTH PREDICTIONS\x1b[0m\n")
    assert "\x1b[1mArguments:\x1b[0m\n  \x1b[1;36m[SCHEMA]    \x1b[0m  Annotated JSON Schema" in out


# Prints (styled, width) as console_kind finds them, then as Rich's Console finds them.
KIND = """
import json, sys
from stickler_cli.cli import console as console_kind
mine = [console_kind.styled(), console_kind.width()]
from rich.console import Console
console = Console()
print(json.dumps([mine, [console.is_terminal, console.width]]))
"""


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"COLUMNS": "57"},
        {"COLUMNS": "0"},
        {"COLUMNS": "x9"},
        {"FORCE_COLOR": "1"},
        {"FORCE_COLOR": ""},
        {"TTY_COMPATIBLE": "1"},
        {"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"},
        {"TTY_COMPATIBLE": "2", "COLUMNS": "120"},
        {"TERM": "dumb"},
    ],
    ids=lambda e: " ".join(f"{k}={v}" for k, v in e.items()) or "none",
)
def test_console_kind_answers_as_rich_does_when_piped(env):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR", "TERM", "LINES")
    }
    done = subprocess.run(
        [sys.executable, "-c", KIND],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**base, **env, "PYTHONPATH": str(root)},
        timeout=60,
    )
    mine, rich = json.loads(done.stdout)
    assert mine == rich


@pytest.mark.parametrize("columns", [None, "61"])
def test_console_kind_answers_as_rich_does_on_a_terminal(columns):
    """On a pseudo-terminal 93 columns wide: styled, and as wide as the terminal (or $COLUMNS)."""
    import fcntl
    import json
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 93, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE", "TERM")}
    if columns:
        env["COLUMNS"] = columns
    script = KIND.replace("print(json.dumps(", "sys.stderr.write(json.dumps(")
    with subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=follower,
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**env, "PYTHONPATH": str(root), "TERM": "xterm"},
    ) as process:
        os.close(follower)
        _, err = process.communicate(timeout=60)
    os.close(leader)
    mine, rich = json.loads(err)
    assert mine == rich == [True, int(columns or 93)]


@pytest.mark.parametrize(
    "args, message",
    [
        (["eval", "--bogus"], "No such option: --bogus (Possible options: --budgets) (see 'stickler eval --help')"),
        (["evl"], "No such command 'evl'. Did you mean 'eval'? (see 'stickler --help')"),
        (
            ["eval", "a", "b", "c", "--workers", "0"],
            "Invalid value for '--workers' / '-w': Input should be greater than or equal to 1 (see 'stickler eval --help')",
        ),
    ],
)
def test_usage_errors_found_by_click_are_one_line_as_ours(args, message, capsys):
    """click wrote three (usage, a hint, the error); docs/ci/index.md (Exit codes) promises one line on stderr."""
    assert main(args) == 2
    assert capsys.readouterr().err == f"stickler: error: {message}\n"
