"""One way out for every command's results: the files asked for, GitHub's step summary, standard output,
and the exit code of a failed gate (``emit``), with what standard output may do meanwhile (a closed pipe,
a full disk)."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, NoReturn, Sequence

from ..errors import ExitCode, UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from ..plan import Plan
    from ..report.gates import Gate


@dataclass(frozen=True)
class Written:
    """A file a command was asked to write: where, what it is (as the table's closing lines name it: None
    says nothing there), and its bytes, rendered only when asked for."""

    path: str | None
    what: str | None
    render: Callable[[], bytes]


def emit(
    data: bytes,
    output_format: str,
    files: Sequence[Written],
    markdown: Callable[[], str],
    table: Callable[[Console], None],
    notes: Sequence[str] = (),
    verdict: Callable[[bool], None] | None = None,
) -> None:
    """The one way out of a command: write each of ``files`` asked for, append the Markdown page to GitHub's
    step summary ($GITHUB_STEP_SUMMARY), print ``data`` (json), the page (markdown) or the ``table`` with the
    files written and the ``notes`` below it; then ``verdict`` (given whether the table said it) exits 1 when a
    gate failed."""
    for written in files:
        if written.path:
            from ..run import atomic

            atomic.write(written.path, written.render())
    said = [*(f"{w.what} written to {w.path}" for w in files if w.path and w.what), *notes]
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    page = markdown() if summary_file or output_format == "markdown" else ""
    if summary_file:
        append_summary(summary_file, page)
    with printing():
        if output_format == "json":
            sys.stdout.buffer.write(data)
        elif output_format == "markdown":
            sys.stdout.write(page)
        else:
            from rich.text import Text

            console = stdout_console()
            table(console)
            for line in said:
                console.print(Text(line, style="dim"))
        sys.stdout.flush()
    if verdict is not None:
        verdict(output_format == "table")


def emit_report(
    report: dict[str, Any],
    output_format: str,
    targets: dict[str, str | None],
    gates: list[Gate],
    show_errors: int = 0,
    notes: Sequence[str] = (),
    no_data_passes: bool = False,
    fail_on_regression: bool = False,
) -> None:
    """``emit`` for the report of ``eval`` and ``merge``: the gates checked first (the report holds their
    verdicts), then the JSON (``--output``), JUnit (``--junit``) and HTML (``--html``) files of ``targets``;
    with ``fail_on_regression``, exit 1 also when the report's ``baseline`` block finds a field worse."""
    from ..report import gates as quality_gates
    from ..reporters import json_report, markdown

    report["gates"] = quality_gates.check(gates, report, no_data_passes)
    data = json_report.dumps(report)

    def junit() -> bytes:
        from ..reporters.junit import render_junit

        return render_junit(report)

    def html() -> bytes:
        from ..reporters.html import render_html

        return render_html(report).encode()

    def table(console: Console) -> None:
        from ..reporters import terminal
        from ..reporters.gate_table import render_gates

        terminal.render_report(report, console)
        if show_errors:
            terminal.render_worst(report["worst_documents"][:show_errors], console)
        render_gates(report["gates"], console)

    files = [
        Written(targets.get("--output"), "JSON report", lambda: data),
        Written(targets.get("--junit"), "JUnit XML", junit),
        Written(targets.get("--html"), "HTML report", html),
    ]
    emit(
        data,
        output_format,
        files,
        lambda: markdown.render_markdown(report, show_errors or markdown.WORST_SHOWN),
        table,
        notes,
        lambda shown: _verdicts(report, shown, fail_on_regression),
    )


def _verdicts(report: dict[str, Any], shown: bool, fail_on_regression: bool) -> None:
    """Exit 1 when a gate failed, or (``fail_on_regression``) when a field is worse than the baseline or no
    document was in common with it (nothing then shows that the run is not worse)."""
    block = report.get("baseline")
    regressed = fail_on_regression and block is not None and block["regressed"]
    if regressed:
        from ..report.gates import failed

        if not failed(report["gates"]):
            fail(printable(block["verdict"]), shown=shown)
        sys.stderr.write(f"stickler: {printable(block['verdict'])}\n")  # and the gates' failure below
    fail_gates(report["gates"], not report["document_count"], shown)


def write_threshold_patch(path: str, plan: Plan, report: dict[str, Any]) -> str:
    """Write the schema patch of ``--suggest-thresholds``; the fields it cannot patch are named on stderr."""
    from ..run import atomic
    from ..reporters import json_report
    from ..analyses.thresholds import suggest_patch

    operations, skipped = suggest_patch(plan, report["thresholds"]["fields"])
    atomic.write(path, json_report.dumps(operations))  # type: ignore[arg-type]
    for reason in skipped:
        sys.stderr.write(f"stickler: warning: --suggest-thresholds: {printable(reason)}\n")
    fields = sum(op["op"] != "test" for op in operations)
    return f"Threshold patch ({fields} field{'s' if fields != 1 else ''}) written to {path}"


def print_json(data: bytes) -> None:
    with printing():
        sys.stdout.buffer.write(data)
        sys.stdout.flush()


@contextlib.contextmanager
def printing() -> Iterator[None]:
    """Standard output that refuses data (a full disk behind a redirection) is a usage error, as
    for any file. A reader that closed the pipe (``| head``) has read what it wanted: printing stops
    there, and the exit code is still the gates' (1 would say a gate failed). Either way standard output
    is then pointed at /dev/null, so that Python's last flush stays quiet."""
    global _stdout_cut
    try:
        yield
    except BrokenPipeError:
        _stdout_cut = True
        to_devnull(sys.stdout)
    except OSError as exc:
        to_devnull(sys.stdout)
        raise UsageError(f"standard output: cannot write: {exc.strerror or exc}") from None


_stdout_cut = False  # set when a reader closed the pipe: what the tables said did not reach it


def cut_stdout() -> None:
    """Standard output reaches no reader (closed before the run, ``>&-``): a failed gate says so on stderr."""
    global _stdout_cut
    _stdout_cut = True


def to_devnull(stream: Any) -> None:
    """Point ``stream``'s descriptor at /dev/null: what is still written to it, Python's last flush included,
    goes nowhere quietly."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def stdout_console() -> Console:
    """Rich's console on standard output, except that a closed pipe is a BrokenPipeError for ``printing``
    to take: Rich's own answer is SystemExit(1), the exit code of a failed gate."""
    from rich.console import Console

    console = Console()
    console.on_broken_pipe = _closed_pipe  # type: ignore[method-assign]
    return console


def _closed_pipe() -> NoReturn:
    raise BrokenPipeError(errno.EPIPE, "the reader closed standard output")


def fail_gates(results: list[dict[str, Any]], empty: bool, shown: bool) -> None:
    """Exit 1 when a gate failed, saying how many failed for lack of data (and, in a run that scored something,
    that --no-data-passes lets such a gate pass); return when none failed."""
    from ..report.gates import failed, lack_of_data, no_data_hint

    bad = failed(results)
    if not bad:
        return
    hint = no_data_hint(results, empty)
    if hint:
        sys.stderr.write(f"stickler: note: {hint}\n")
    fail(f"{len(bad)} quality gate(s) failed{lack_of_data(bad)}", shown)


class GateFailed(Exception):
    """A gate failed and the command is done: exit 1, with nothing more said (``fail`` said it). Not typer's
    ``Exit``, so that a run without typer (cli/light.py) ends the same way; cli/exits.py maps it to its code."""

    exit_code = int(ExitCode.GATE_FAILED)


def fail(reason: str, shown: bool) -> NoReturn:
    """Exit 1 (a gate failed); the reason on stderr unless the tables on stdout already said it."""
    if not shown or _stdout_cut:
        sys.stderr.write(f"stickler: {reason}\n")
    raise GateFailed


def append_summary(path: str, text: str) -> None:
    """Add to a file another tool owns (GitHub's step summary): never replace it."""
    from ..run.atomic import refuse_planted_links

    refuse_planted_links(path)
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(
            f"GITHUB_STEP_SUMMARY={path}: cannot append the Markdown summary: {exc.strerror or exc}"
        ) from None


def error(message: str) -> None:
    """The one line of an error, on stderr: ``stickler: error: ...``."""
    sys.stderr.write(f"stickler: error: {printable(message)}\n")


def printable(text: str) -> str:
    """One line of inert text: messages quote the schema and the data."""
    from ..reporters.sanitize import plain

    return plain(text, 2000)


def write_policy(path: str, report: dict[str, Any], data_files: list[tuple[str, str]]) -> str:
    """--write-policy (issue 41, policy): the fitted policy as JSON, written whole or not at all."""
    from ..report.policy import policy_file
    from ..reporters import json_report
    from ..run import atomic
    from ..version import __version__

    atomic.write(path, json_report.dumps(policy_file(report, data_files, __version__)))
    return f"policy written to {path}"


def warn_about_problems(count: int, first: dict[str, Any] | None, how: str = "") -> None:
    """One line on stderr when there are record problems: how many and the first (a ``DataError.as_dict()``),
    never silently; ``how`` says how they were found (a dry run: ", read as a run reads them")."""
    if count and first is not None:
        from ..run.reader import error_location

        sys.stderr.write(
            f"stickler: warning: {count:,} record problem(s){how}; the first: "
            f"{printable(error_location(first))}: {printable(first['message'])}\n"
        )
