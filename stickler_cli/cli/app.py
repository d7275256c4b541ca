"""The ``stickler`` command: the typer app, its commands (one module each, registered here) and
the error handling that maps every failure to an exit code.

Exit codes (docs/ci/index.md, "Exit codes"): 0 success; 1 a quality gate failed;
2 usage or input error; 3 internal error; 128 + the signal number when
SIGINT (130), SIGTERM (143) or SIGHUP (129) stopped the run. Errors are one
line on stderr; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import copy
import errno
import inspect
import os
import sys
from typing import Any

import typer


# Only what --help needs is imported here: each command imports what it uses when it runs
# (docs/performance.md, "Start-up"; tests/project/test_startup.py checks that --help imports no engine).
from ..run import interrupts
from .help import HelpTyper
from ..errors import ExitCode, SticklerError
from ..version import __version__
from . import output
from .comparators import comparators_command
from .compare import compare_command
from .diff import diff_command
from .eval import eval_command
from .merge import merge_command
from .output import to_devnull
from .schema import schema_check, schema_infer
from .split import split_command

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


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run the app and map errors to exit codes. SIGINT, SIGTERM and
    SIGHUP stop the run cleanly (interrupts.py): exit 128 + the signal number, one line."""
    args = list(sys.argv[1:] if argv is None else argv)
    stdout, stderr = sys.stdout, sys.stderr
    # A stream closed before the run (`>&-`, `2>&-`) is None to Python: the run goes on, writing it nowhere.
    closed = [open(os.devnull, "w") for stream in (stdout, stderr) if stream is None]
    if stdout is None:
        sys.stdout = closed[0]
        output.cut_stdout()
    sys.stderr = _ClosedTolerant(stderr if stderr is not None else closed[-1])  # type: ignore[assignment]
    try:
        with interrupts.handling():
            try:
                return _run(args)
            except interrupts.Interrupted as exc:
                from ..run import atomic

                atomic.remove_temporaries()
                sys.stderr.write(f"stickler: interrupted by {exc.name}\n")
                return exc.exit_code
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        for devnull in closed:
            devnull.close()


class _ClosedTolerant:
    """Standard error for a run: a reader that closed it (``2>&1 | head``) hears no more, and the run goes on.
    A warning written to it raised BrokenPipeError, which click answers with exit 1 and ``_run`` took for a
    closed standard output (exit 0): the run stopped before writing its reports and passed."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._closed()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed()

    def _closed(self) -> None:
        to_devnull(self._stream)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


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


def _run(args: list[str]) -> int:
    debug = "--debug" in args
    try:
        code = _app_for(args)(args=args, prog_name="stickler", standalone_mode=False)  # typer.Exit(n) returns n
        sys.stdout.flush()  # a full disk behind a redirection shows here at the latest
    except interrupts.Interrupted:
        raise
    except SticklerError as exc:
        if debug:
            raise
        _error(str(exc))
        return int(exc.exit_code)
    except typer.Exit as exc:
        return int(exc.exit_code or 0)
    except typer.Abort:
        _error("aborted")
        return int(ExitCode.USAGE_ERROR)
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except BrokenPipeError:
        to_devnull(sys.stdout)
        return 0
    except SystemExit as exc:  # click's answer to a closed pipe (gates end a run by typer.Exit, never this way)
        return 0 if exc.code == 1 else exc.code if isinstance(exc.code, int) else 0
    except Exception as exc:
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):  # a usage error found by click: one line, as ours
            ctx, message = getattr(exc, "ctx", None), exc.format_message()
            if message:
                _error(f"{message} (see '{ctx.command_path if ctx else 'stickler'} --help')")
            else:  # a group named without a command: its help page is the answer
                exc.show()
            return int(ExitCode.USAGE_ERROR)
        if interrupts.received() is not None:  # a failure the signal caused (a worker it ended)
            raise interrupts.Interrupted(interrupts.received() or 0) from None
        if isinstance(exc, OSError) and _stdout_refuses(exc):  # a full disk behind a redirection: as for any file
            _error(f"standard output: cannot write: {exc.strerror or exc}")
            return int(ExitCode.USAGE_ERROR)
        if debug:
            raise
        _error(f"internal error: {type(exc).__name__}: {exc} (run again with --debug for the traceback)")
        return int(ExitCode.INTERNAL_ERROR)
    return code if isinstance(code, int) else 0


_DISK_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def _stdout_refuses(exc: OSError) -> bool:
    """Whether ``exc`` is standard output refusing data (a full disk behind a redirection): every
    file stickler writes itself reports its own failures, so a disk-full error that reaches here was
    stdout's. Standard output is then pointed at /dev/null, so that Python's last flush stays quiet."""
    if exc.errno not in _DISK_FULL:
        return False
    to_devnull(sys.stdout)
    return True


def _error(message: str) -> None:
    output.error(message)


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
