"""``--help`` pages: options grouped by their help panel, names never cut, text shown as written.

Typer's Rich help reads option help as Rich markup (so ``[tool.stickler.fail-under]`` vanished) and
squeezes a six-column table into 80 columns by cutting option names (``--confidence-met…``). Here
each option is one name column that is never wrapped (a name longer than the column puts its help
on the next line) and a help column that wraps at word boundaries, so every name and every word of
help is whole at any width, piped or not. Options are grouped by ``rich_help_panel`` (the constants
below, given in cli/options.py and the command modules), in the order the panels first appear; options
without one are listed under "Options".
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from dataclasses import dataclass
from typing import Any, get_args, get_origin

import typer
from typer.core import TyperCommand, TyperGroup

from .option_values import _UNSURE, plain_value

try:  # typer >= 0.25 checks every value with a pydantic TypeAdapter (see _PlainValues)
    from typer._coercion import RuntimeParam, build_runtime_param
except ImportError:  # an older typer checks values itself
    RuntimeParam = None  # type: ignore[assignment,misc]

ARGUMENTS = "Arguments"
OPTIONS = "Options"
COMMANDS = "Commands"
# The option groups, in the order the help pages list them (give an option one with rich_help_panel=).
INPUTS = "Inputs and pairing"
OUTPUTS = "Outputs"
GATES = "Quality gates"
CONFIDENCE = "Confidence"
DECISIONS = "Decisions"
STATISTICS = "Statistics"
SCALE = "Scale"
LIMITS = "Limits and network"
PANELS = (ARGUMENTS, INPUTS, OUTPUTS, GATES, CONFIDENCE, DECISIONS, STATISTICS, SCALE, LIMITS)
INDENT = 2
NAME_SHARE = 0.45  # the name column takes at most this share of the width; longer names wrap the help below
GAP = 2
MAX_WIDTH = 100  # wider help lines are hard to read: a wide terminal gets this many columns
MIN_WIDTH = len("Usage: ") + 1  # narrower ($COLUMNS=0), the usage line has no room at all: laid out at this width


# Parameters are typer's (which carries its own copy of click): read by duck typing.
Param = Any


def _is_argument(param: Param) -> bool:
    return getattr(param, "param_type_name", "") == "argument"


def metavar(param: Param) -> str:
    """What follows an option's name: its metavar (VALUE when it has none); nothing for a flag."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return ""
    return param.metavar or "VALUE"


def _default(param: Param) -> str:
    """``default: …`` for an option with a meaningful default; nothing for flags off, None and lists."""
    if _is_argument(param) or getattr(param, "show_default", True) is False:
        return ""
    if param.is_flag and param.secondary_opts:  # --progress/--no-progress
        return f"default: {param.opts[0] if param.default else param.secondary_opts[0]}"
    value = param.default
    if value is None or param.is_flag or isinstance(value, (list, tuple)) or callable(value):
        return ""
    return f"default: {value}"


def spellings(names: list[str]) -> list[str]:
    """An option's names, short ones first (``-o, --output``)."""
    return [o for o in names if not o.startswith("--")] + [o for o in names if o.startswith("--")]


def _option_name(param: Param) -> str:
    if _is_argument(param):
        return param.metavar or (param.name or "").upper()
    names = ", ".join(spellings(param.opts))
    if param.secondary_opts:
        names += " / " + ", ".join(spellings(param.secondary_opts))
    value = metavar(param)
    return f"{names} {value}" if value else names


def paragraphs(text: str) -> list[str]:
    """A docstring as paragraphs, each on one line (single line breaks are the source's wrapping)."""
    text = inspect.cleandoc(text).partition("\f")[0]
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def _rows(width: int, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(name, help line)`` pairs: names in a column, help wrapped beside them (or below a long name)."""
    if not rows:
        return []
    cap = max(12, int(width * NAME_SHARE))
    column = max((len(name) for name, _ in rows if len(name) <= cap), default=2 * INDENT)
    help_width = max(20, width - INDENT - column - GAP)
    lines: list[tuple[str, str]] = []
    for name, text in rows:
        wrapped = textwrap.wrap(text, help_width, break_on_hyphens=False) or [""]
        if len(name) > column:  # the whole name on its own line, its help below
            lines.append((name, ""))
            lines += [("", line) for line in wrapped]
        else:
            lines.append((name.ljust(column), wrapped[0]))
            lines += [("", line) for line in wrapped[1:]]
    return [(name if name else " " * column, text) for name, text in lines]


def _param_help(param: Param) -> str:
    text = " ".join((getattr(param, "help", None) or "").split())
    default = _default(param)
    return f"{text} ({default})" if default else text


def print_help(command: Any, ctx: Any) -> None:
    """The help page of a command or group, on standard output: through Rich on a terminal (names and
    headings in bold), as plain lines elsewhere, which Rich would write alike (console_kind.py)."""
    from . import console as console_kind

    if console_kind.styled():
        from rich.console import Console
        from rich.text import Text

        console = Console(highlight=False, soft_wrap=True)
        console.width = max(console.width, MIN_WIDTH)  # Rich writes nothing at all at a width of 0
        for line in _page(command, ctx, console.width):
            shown = Text.assemble(*((text, style) for text, style in line))
            shown.rstrip()
            console.print(shown, crop=False, overflow="ignore", no_wrap=True)
        return
    page = _page(command, ctx, console_kind.width())
    sys.stdout.write("".join("".join(text for text, _ in line).rstrip() + "\n" for line in page))
    sys.stdout.flush()


def _page(command: Any, ctx: Any, width: int) -> list[list[tuple[str, str]]]:
    """The page's lines at ``width`` (held within MIN_WIDTH and MAX_WIDTH), each a list of (text, Rich style) pieces."""
    width = max(MIN_WIDTH, min(width, MAX_WIDTH))
    lines = textwrap.wrap(usage(command, ctx), width - len("Usage: "), break_long_words=False)
    out: list[list[tuple[str, str]]] = [
        [("Usage: " + lines[0], "bold")],
        *[[(" " * len("Usage: ") + line, "")] for line in lines[1:]],
        [],
    ]
    for paragraph in paragraphs(command.help or ""):
        out += [[(line, "")] for line in textwrap.wrap(paragraph, width, break_on_hyphens=False)]
        out.append([])
    sections = {
        title: [(_option_name(param), _param_help(param)) for param in params] for title, params in panels(command, ctx)
    }
    sections[COMMANDS] = [(name, (paragraphs(sub.help or "") or [""])[0]) for name, sub in subcommands(command, ctx)]
    for title, rows in sections.items():
        if not rows:
            continue
        out.append([(f"{title}:", "bold")])
        for name, text in _rows(width, rows):
            out.append([(" " * INDENT, ""), (name, "bold cyan" if name.strip() else ""), (" " * GAP + text, "")])
        out.append([])
    while out and not "".join(text for text, _ in out[-1]):
        out.pop()
    return out


def usage(command: Any, ctx: Any) -> str:
    """``stickler eval [OPTIONS] [SCHEMA] GROUND_TRUTH PREDICTIONS``: the usage line, unwrapped."""
    return " ".join([ctx.command_path, *_usage_pieces(command, ctx)])


def argument_usage(param: Param) -> str:
    """An argument as the usage line names it: by metavar or name in capitals, an optional one in brackets (a
    metavar, which a command gives where typer's idea of optional is not the user's, as it is)."""
    if param.metavar:
        return param.metavar
    name = (param.name or "").upper() + ("..." if param.nargs == -1 else "")
    return name if param.required else f"[{name}]"


def _usage_pieces(command: Any, ctx: Any) -> list[str]:
    """``[OPTIONS] SCHEMA GROUND_TRUTH PREDICTIONS``: the arguments as ``argument_usage`` names them."""
    pieces = ["[OPTIONS]", *(argument_usage(param) for param in command.get_params(ctx) if _is_argument(param))]
    if isinstance(command, TyperGroup):
        pieces.append("COMMAND [ARGS]...")
    return pieces


def panels(command: Any, ctx: Any) -> list[tuple[str, list[Param]]]:
    """The command's parameters (hidden ones left out) grouped as its help page shows them: ``(title, parameters)``
    with the arguments first, then the panels in PANELS' order, any other panel, and "Options" (no panel) last."""
    grouped: dict[str, list[Param]] = {}
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        title = ARGUMENTS if _is_argument(param) else getattr(param, "rich_help_panel", None) or OPTIONS
        grouped.setdefault(title, []).append(param)
    order = [*PANELS, *[title for title in grouped if title not in (*PANELS, OPTIONS)], OPTIONS]
    return [(title, grouped[title]) for title in order if title in grouped]


def subcommands(command: Any, ctx: Any) -> list[tuple[str, Any]]:
    """A group's commands (hidden ones left out) as ``(name, command)``, in the help page's order; none for a command."""
    if not isinstance(command, TyperGroup):
        return []
    found = ((name, command.get_command(ctx, name)) for name in command.list_commands(ctx))
    return [(name, sub) for name, sub in found if sub is not None and not sub.hidden]


# -- values without pydantic ------------------------------------------------------------
#
# typer (0.25 and later) checks each option's value with a pydantic TypeAdapter built on first
# use (~60 ms of every command). Plain values are read by ``plain_value`` (cli/option_values.py, which
# ``eval`` read without typer takes too: cli/light.py); anything else goes to typer's own check, so that
# every message a wrong value gets is typer's. tests/project/test_startup.py compares both on such values.


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class _PlainValues(RuntimeParam):  # type: ignore[misc,valid-type]
        """typer's value check, with plain values checked by ``plain_value`` (no pydantic)."""

        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            plain = plain_value(self.annotation, self.parameter_info, value)
            if plain is not _UNSURE:
                return plain
            return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)


def _check_plainly(params: list[Any]) -> None:
    """Give each option of a plain type the ``_PlainValues`` check (typers without one keep theirs)."""
    if RuntimeParam is None:
        return
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", False) is not None:
            continue
        if descriptor.file_annotation is not None or descriptor.parameter_info.parser is not None:
            continue
        annotation = descriptor.annotation
        if annotation in (str, bool, int, float) or (get_origin(annotation) is list and get_args(annotation) == (str,)):
            param._runtime_param = _PlainValues(
                parameter_info=descriptor.parameter_info, annotation=annotation, descriptor=descriptor
            )


class _Help:
    """What a command and a command group share: --help printed by ``print_help``, and values
    checked without pydantic where they are plain."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _check_plainly(self.params)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        _check_plainly([option] if option is not None else [])
        return option

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage_pieces(self, ctx)


class HelpCommand(_Help, TyperCommand):
    """A command of stickler's (see ``_Help``)."""


class HelpGroup(_Help, TyperGroup):
    """A command group of stickler's (see ``_Help``)."""


class HelpTyper(typer.Typer):
    """A Typer app whose groups and commands (any added later too) print ``print_help`` pages."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cls=HelpGroup, **kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", HelpCommand)
        return super().command(*args, **kwargs)
