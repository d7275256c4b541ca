"""Tables that fit the width they are printed at without cutting a figure, a header or a verdict.

Rich squeezes a table wider than the console by cutting cells: piped into a CI log (80 columns),
``worse`` became ``w`` and ``[0.899, 0.982]`` became ``[0.899, 0.98…``. Here a table is laid out
from the width of every cell, by three rules in order:

1. everything fits: one table, as wide as its cells;
2. the key column (a field path, a figure's name) wraps onto more lines, down to ``KEY_MIN``
   characters, so that every figure column keeps its whole width;
3. still too wide: the figure columns are dealt into several tables, each repeating the key
   column, keeping the columns of one group (TP, FA, FD, FN, TN) together where they fit.

Figures, headers and verdicts are never wrapped nor cut, down to a width of the key's header plus
the widest figure plus 4. The width is the console's: the terminal's when there is one, else
``$COLUMNS``, else 80.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, Sequence, Union

from rich import box
from rich._pick import pick_bool
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

KEY_MIN = 16  # the key column wraps down to this many characters before the figures are split into two tables
KEY_SHARE = 0.4  # once split, the key column takes at most this share of the width
Cell = Union[str, Text]


@dataclass(frozen=True)
class Column:
    """A column of figures (or short words, such as a verdict): never wrapped, never cut."""

    header: str
    justify: Literal["left", "right", "center"] = "right"
    group: int = 0  # columns of one group go into one table when they fit together


class ReportTable(Table):
    """A Table whose rows are laid out here when Rich would write them without style (no colour: piped, a
    CI log) and every cell is one line of plain text within its column. Rich renders each cell through
    its whole machinery (about 40 µs a cell: most of the time of a short ``stickler eval``); here a cell is
    its text, justified and padded as Rich pads it. Anything else (colour, markup, a wrapped or wide
    cell) is Rich's own layout. tests/reporters/test_table_widths.py checks both write the same bytes."""

    def _render(self, console: Console, options: ConsoleOptions, widths: list[int]) -> Iterable[Segment]:
        lines = self._plain_lines(console, options, widths)
        if lines is None:
            yield from super()._render(console, options, widths)
            return
        for line in lines:
            yield Segment(line)
            yield Segment.line()

    def _plain_lines(self, console: Console, options: ConsoleOptions, widths: list[int]) -> list[str] | None:
        """The table's lines below its title, as Rich lays them out; None when only Rich can say."""
        if (
            console.color_system is not None
            or console.record
            or options.legacy_windows
            or not self.show_edge
            or self.show_footer
            or self.show_lines
            or self.leading
            or self.collapse_padding
            or self.padding[0]
            or self.padding[2]
            or any(row.end_section for row in self.rows)
        ):
            return None
        _, right, _, left = self.padding
        last = len(self.columns) - 1
        columns: list[list[str]] = []
        for k, (column, width) in enumerate(zip(self.columns, widths)):
            pad_left = 0 if k == 0 and not self.pad_edge else left
            pad_right = 0 if k == last and not self.pad_edge else right
            room = width - pad_left - pad_right
            if room < 1 or column.justify not in ("left", "right", "default"):
                return None
            cells = [column.header, *column.cells] if self.show_header else list(column.cells)
            shown: list[str] = []
            for cell in cells:
                text = _plain(cell)
                if text is None:
                    return None
                if column.justify == "right":
                    text = text.rstrip()  # as Rich's right justification does
                gap = room - len(text)
                if gap < 0:
                    return None
                text = " " * gap + text if column.justify == "right" else text + " " * gap
                shown.append(" " * pad_left + text + " " * pad_right)
            columns.append(shown)
        rows = list(zip(*columns))
        if self.box is None:
            return ["".join(row) for row in rows]
        frame = self.box.substitute(options, safe=pick_bool(self.safe_box, console.safe_box))
        if not self.show_header:
            frame = frame.get_plain_headed_box()
        edges = (
            (frame.head_left, frame.head_vertical, frame.head_right),
            (frame.mid_left, frame.mid_vertical, frame.mid_right),
            (frame.foot_left, frame.foot_vertical, frame.foot_right),
        )
        lines = [frame.get_top(widths)]
        for index, row in enumerate(rows):
            edge_left, divider, edge_right = edges[0 if index == 0 else 2 if index == len(rows) - 1 else 1]
            lines.append(edge_left + divider.join(row) + edge_right)
            if index == 0 and self.show_header:
                lines.append(frame.get_row(widths, "head", edge=True))
        lines.append(frame.get_bottom(widths))
        return lines


def _plain(cell: object) -> str | None:
    """A cell's text when Rich would write it as it is: one printable line of characters one cell wide each
    (Rich measures a Text piece by piece: a zero-width character split from its base by a style counts
    apart); a string without markup or emoji codes, which Rich would read; a Text ending its line plainly.
    Else None."""
    if isinstance(cell, Text):
        if cell.justify is not None or cell.overflow is not None or cell.no_wrap is not None or cell.end != "\n":
            return None
        text = cell.plain
    elif isinstance(cell, str):
        if "[" in cell or ":" in cell:
            return None
        text = cell
    else:
        return None
    if not text.isprintable() or not (text.isascii() or all(cell_len(character) == 1 for character in text)):
        return None
    return text


def compact(title: Union[str, Text, None], expand: bool = False) -> Table:
    """The look of every report table: no vertical rules, one space between columns."""
    return ReportTable(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), pad_edge=False, expand=expand
    )


def overhead(columns: int) -> int:
    """Characters a ``compact`` table adds to its cells: an edge on each side, a padding and a rule between columns."""
    return 2 + 2 * (columns - 1)


def _width(cell: Cell) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(cell)


def fit(
    title: Union[str, Text, None],
    key: str,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    width: int,
    continued: str = "(continued)",
) -> list[Table]:
    """The tables showing ``rows`` (key cell first, then one cell per column) within ``width``."""
    natural = [max([cell_len(key), *(_width(r[0]) for r in rows)])]
    natural += [max([cell_len(c.header), *(_width(r[k + 1]) for r in rows)]) for k, c in enumerate(columns)]
    figures = natural[1:]
    room = width - overhead(len(columns) + 1) - sum(figures)
    if room >= natural[0]:
        return [_table(title, key, None, columns, range(len(columns)), rows, natural, width)]
    if room >= min(KEY_MIN, natural[0]):
        return [_table(title, key, room, columns, range(len(columns)), rows, natural, width)]
    key_width = max(cell_len(key), min(natural[0], max(KEY_MIN, int(width * KEY_SHARE))))
    tables: list[Table] = []
    for part in _deal(columns, figures, width - key_width - 2):
        # each table's key column takes the room its figures leave (a lone wide figure: less than key_width)
        room = max(cell_len(key), width - 2 - sum(figures[k] + 2 for k in part))
        wrap = room if natural[0] > room else None
        shown = title if not tables else Text.assemble(title, " ", continued) if title else Text(continued)
        tables.append(_table(shown, key, wrap, columns, part, rows, natural, width))
    return tables


def _deal(columns: Sequence[Column], widths: list[int], room: int) -> list[list[int]]:
    """Column indexes dealt into tables of at most ``room`` characters (each column costing its width
    and 2 for the gap before it), whole groups first; a column wider than ``room`` gets a table alone."""
    groups: list[list[int]] = []
    for k, column in enumerate(columns):
        if groups and columns[groups[-1][0]].group == column.group:
            groups[-1].append(k)
        else:
            groups.append([k])
    cost = [w + 2 for w in widths]
    parts: list[list[int]] = [[]]
    for group in groups:
        needed = sum(cost[k] for k in group)
        if sum(cost[j] for j in parts[-1]) + needed <= room:
            parts[-1].extend(group)
        elif needed <= room:
            parts.append(list(group))
        else:  # wider than a table: column by column
            for k in group:
                if parts[-1] and sum(cost[j] for j in parts[-1]) + cost[k] > room:
                    parts.append([])
                parts[-1].append(k)
    return [p for p in parts if p]


def _table(
    title: Union[str, Text, None],
    key: str,
    key_width: int | None,
    columns: Sequence[Column],
    chosen: Sequence[int],
    rows: Sequence[Sequence[Cell]],
    natural: list[int],
    width: int,
) -> Table:
    table = compact(title)
    # A table that fits is given its widths (``natural``: each column's widest cell), which Rich would otherwise
    # find again by measuring every cell. One that cannot fit (a console narrower than a key and a figure) gives
    # minimums, as Rich then lays it out with its whole cells and crops the lines, rather than cutting each cell.
    fits = (key_width or natural[0]) + sum(natural[k + 1] for k in chosen) + overhead(len(chosen) + 1) <= width
    size = "width" if fits else "min_width"
    if key_width is None:
        table.add_column(key, no_wrap=True, **{size: natural[0]})
    else:
        table.add_column(key, overflow="fold", width=key_width)  # names come wrapped by wrap_name
    for k in chosen:
        table.add_column(columns[k].header, justify=columns[k].justify, no_wrap=True, **{size: natural[k + 1]})
    for row in rows:
        name = row[0] if key_width is None else wrap_name(row[0], key_width)
        table.add_row(name, *(row[k + 1] for k in chosen))
    return table


def wrap_name(cell: Cell, width: int) -> Text:
    """A name on lines of at most ``width`` characters, broken after a dot where it can be
    (``customer_name.`` / ``cm_precision``), else after ``_``, ``-`` or a space, else anywhere;
    continuation lines keep the name's indentation."""
    text = cell if isinstance(cell, Text) else Text(cell)
    plain = text.plain
    if cell_len(plain) <= width or len(plain) != cell_len(plain):  # wide characters: Rich folds them itself
        return text
    indent = len(plain) - len(plain.lstrip(" "))
    indent = indent if indent < width // 2 else 0
    cuts, start, limit, floor = [], 0, width, indent
    while len(plain) - start > limit:
        piece = plain[start : start + limit]
        end = start + len(piece)
        for marks in (".", "_- "):
            cut = max(piece.rfind(mark) for mark in marks)
            if cut >= floor:
                end = start + cut + 1
                break
        cuts.append(end)
        start, limit, floor = end, width - indent, 0
    lines = text.divide(cuts)
    for line in lines[1:]:
        line.pad_left(indent)
    return Text("\n").join(lines)
