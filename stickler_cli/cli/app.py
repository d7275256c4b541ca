"""The ``stickler`` command: the typer app, its commands (one module each, registered here) and
what typer and click raise, mapped to exit codes; cli/exits.py maps every other failure (docs/ci/index.md,
"Exit codes") and is where ``eval --format json`` without typer (cli/light.py) ends too.
"""

from __future__ import annotations

import copy
import inspect
import sys

import typer


# Only what --help needs is imported here: each command imports what it uses when it runs
# (docs/performance.md, "Start-up"; tests/project/test_startup.py checks that --help imports no engine).
from .help import HelpTyper
from ..errors import ExitCode
from ..version import __version__
from . import exits, output
from .agree import agree_command
from .comparators import comparators_command
from .compare import compare_command
from .diff import diff_command
from .eval import eval_command
from .merge import merge_command
from .schema import schema_check, schema_infer
from .split import split_command
from .stability import stability_command

app = HelpTyper(
    add_completion=False,
    no_args_is_help=True,
    help="Evaluate structured AI outputs field by field against ground truth, driven by a JSON Schema.",
    pretty_exceptions_enable=False,
)
schema_app = HelpTyper(help="Inspect and validate schemas.", no_args_is_help=True)
app.add_typer(schema_app, name="schema")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"stickler {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Evaluate structured AI outputs field by field."""


# The commands, one module each, registered in the order the help page lists them. The modules do not
# import this one: the arrow points one way.
app.command("eval")(eval_command)
app.command("merge")(merge_command)
app.command("diff")(diff_command)
app.command("compare")(compare_command)
app.command("split")(split_command)
schema_app.command("check")(schema_check)
schema_app.command("infer")(schema_infer)
app.command("comparators")(comparators_command)
app.command("agree")(agree_command)
app.command("stability")(stability_command)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run the app and map errors to exit codes (cli/exits.py)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return exits.main(
        lambda: _app_for(args)(args=args, prog_name="stickler", standalone_mode=False),  # typer.Exit(n) returns n
        "--debug" in args,
        _typer_answer,
    )


def _app_for(args: list[str]) -> typer.Typer:
    """The app as ``args`` need it. typer builds the parameters of every command it holds on each call
    (signatures, type hints: 10-15 ms for all of them), so a command named first is built alone. When no
    argument names a command, none can run: the help page and the usage errors only list the commands, so
    each is given as a ``_listing`` (its name and help, no parameters). Anything else (an option before the
    command) gets the whole app. The copies keep the root callback (``_root``), which is what makes typer
    build a group even of one command, so the first word is still read as the command's name."""
    name = args[0] if args else None
    commands = [c for c in app.registered_commands if c.name == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not (commands or groups):
        named = {c.name for c in app.registered_commands} | {g.name for g in app.registered_groups}
        return app if named.intersection(args) else _listing(app)
    alone = copy.copy(app)
    alone.registered_commands, alone.registered_groups = commands, groups
    return alone


def _listing(full: typer.Typer) -> typer.Typer:
    """A copy of ``full`` whose commands (its groups' too) keep their names, help and flags, with callbacks
    that take no parameters and are never called."""
    listed = copy.copy(full)
    listed.registered_commands = []
    for command in full.registered_commands:
        stub = copy.copy(command)
        stub.callback = _never_called
        stub.help = command.help if command.help is not None else inspect.getdoc(command.callback)
        listed.registered_commands.append(stub)
    listed.registered_groups = []
    for group in full.registered_groups:
        stub_group = copy.copy(group)
        stub_group.typer_instance = _listing(group.typer_instance)
        listed.registered_groups.append(stub_group)
    return listed


def _never_called() -> None:
    raise AssertionError("a listed command was run: cli.app._app_for must give the whole app when a command is named")


def _typer_answer(exc: Exception) -> int | None:
    """The exit code of what typer and click raise (cli/exits.py asks): an exit, an abort, a usage error (one
    line, as ours); None for anything else."""
    if isinstance(exc, typer.Exit):
        return int(exc.exit_code or 0)
    if isinstance(exc, typer.Abort):
        output.error("aborted")
        return int(ExitCode.USAGE_ERROR)
    if hasattr(exc, "show") and hasattr(exc, "exit_code"):  # a usage error found by click: one line, as ours
        ctx, message = getattr(exc, "ctx", None), exc.format_message()  # type: ignore[attr-defined]
        if message:
            output.error(f"{message} (see '{ctx.command_path if ctx else 'stickler'} --help')")
        else:  # a group named without a command: its help page is the answer
            exc.show()  # type: ignore[attr-defined]
        return int(ExitCode.USAGE_ERROR)
    return None


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
