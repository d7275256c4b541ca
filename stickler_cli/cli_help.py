"""``--help`` pages: options grouped by their help panel, names never cut, text shown as written.

Typer's Rich help reads option help as Rich markup (so ``[tool.stickler.fail-under]`` vanished) and
squeezes a six-column table into 80 columns by cutting option names (``--confidence-met…``). Here
each option is one name column that is never wrapped (a name longer than the column puts its help
on the next line) and a help column that wraps at word boundaries, so every name and every word of
help is whole at any width, piped or not. Options are grouped by ``rich_help_panel`` (the constants
in cli.py), in the order the panels first appear; options without one are listed under "Options".
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

ARGUMENTS = "Arguments"
OPTIONS = "Options"
COMMANDS = "Commands"
# The option groups, in the order the help pages list them (give an option one with rich_help_panel=).
INPUTS = "Inputs and pairing"
OUTPUTS = "Outputs"
GATES = "Quality gates"
CONFIDENCE = "Confidence"
STATISTICS = "Statistics"
SCALE = "Scale"
LIMITS = "Limits and network"
PANELS = (ARGUMENTS, INPUTS, OUTPUTS, GATES, CONFIDENCE, STATISTICS, SCALE, LIMITS)
INDENT = 2
NAME_SHARE = 0.45  # the name column takes at most this share of the width; longer names wrap the help below
GAP = 2
MAX_WIDTH = 100  # wider help lines are hard to read: a wide terminal gets this many columns


# Parameters are typer's (which carries its own copy of click): read by duck typing.
Param = Any


def _is_argument(param: Param) -> bool:
    return getattr(param, "param_type_name", "") == "argument"


def _metavar(param: Param) -> str:
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


def _option_name(param: Param) -> str:
    if _is_argument(param):
        return param.metavar or (param.name or "").upper()
    short = [o for o in param.opts if not o.startswith("--")]
    long = [o for o in param.opts if o.startswith("--")]
    names = ", ".join(short + long)
    if param.secondary_opts:
        names += " / " + ", ".join(param.secondary_opts)
    metavar = _metavar(param)
    return f"{names} {metavar}" if metavar else names


def _paragraphs(text: str) -> list[str]:
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
    """The help page of a command or group, on standard output."""
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)
    width = min(console.width, MAX_WIDTH)
    usage = textwrap.wrap(_usage(command, ctx), width - len("Usage: "), break_long_words=False)
    out: list[Text] = [Text("Usage: ", style="bold") + Text(usage[0]),
                       *[Text(" " * len("Usage: ") + line) for line in usage[1:]], Text()]
    for paragraph in _paragraphs(command.help or ""):
        out += [Text(line) for line in textwrap.wrap(paragraph, width, break_on_hyphens=False)]
        out.append(Text())
    sections: dict[str, list[tuple[str, str]]] = {}
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        title = ARGUMENTS if _is_argument(param) else getattr(param, "rich_help_panel", None) or OPTIONS
        sections.setdefault(title, []).append((_option_name(param), _param_help(param)))
    if isinstance(command, TyperGroup):
        commands = []
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                commands.append((name, (_paragraphs(sub.help or "") or [""])[0]))
        sections[COMMANDS] = commands
    order = [*PANELS, *[t for t in sections if t not in (*PANELS, OPTIONS, COMMANDS)], OPTIONS, COMMANDS]
    for title in order:
        rows = sections.get(title)
        if not rows:
            continue
        out.append(Text(f"{title}:", style="bold"))
        for name, text in _rows(width, rows):
            out.append(Text(" " * INDENT) + Text(name, style="bold cyan" if name.strip() else "") + Text(" " * GAP + text))
        out.append(Text())
    while out and not out[-1].plain:
        out.pop()
    for line in out:
        line.rstrip()
        console.print(line, crop=False, overflow="ignore", no_wrap=True)


def _usage(command: Any, ctx: Any) -> str:
    return " ".join([ctx.command_path, *_usage_pieces(command, ctx)])


def _usage_pieces(command: Any, ctx: Any) -> list[str]:
    """``[OPTIONS] SCHEMA GROUND_TRUTH PREDICTIONS``: arguments by metavar or name in capitals."""
    pieces = ["[OPTIONS]"]
    for param in command.get_params(ctx):
        if _is_argument(param):
            name = param.metavar or (param.name or "").upper()
            pieces.append(name + ("..." if param.nargs == -1 and not param.metavar else ""))
    if isinstance(command, TyperGroup):
        pieces.append("COMMAND [ARGS]...")
    return pieces


class HelpCommand(TyperCommand):
    """A command whose --help is printed by ``print_help``."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage_pieces(self, ctx)


class HelpGroup(TyperGroup):
    """A command group whose --help is printed by ``print_help``."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage_pieces(self, ctx)


class HelpTyper(typer.Typer):
    """A Typer app whose groups and commands (any added later too) print ``print_help`` pages."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cls=HelpGroup, **kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", HelpCommand)
        return super().command(*args, **kwargs)
