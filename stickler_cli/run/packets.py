"""Packets from files: JSON Lines of sections, paired by ``packet_id``, or the page-table CSV.

JSON Lines (``.gz``, ``.json`` arrays, ``-`` too, read as ``stickler eval`` reads records), one
packet a line::

    {"packet_id": "P-1", "sections": [{"document_class": "invoice", "page_indices": [0, 1]}, ...]}

``document_class`` is a string or ``{"type": string}``; absent, null or "" it is "Unknown" (the
library's word). ``page_indices`` are the section's pages (non-negative integers) in reading
order; the library's nested ``"split_document": {"page_indices": [...]}`` is read too. A page may
appear once in a packet.

Policy, as ``stickler eval`` has it for records: a ground-truth packet that cannot be read stops
the run (InputError, exit 2, naming file:line and the field); a prediction that cannot be read is
counted and reported, and its ground truth is scored against an empty split (every page missing).
A ground-truth packet without prediction is scored the same way and counted; a prediction
without ground truth is counted and listed, never scored. Two ground-truth packets with one id
stop the run; a second prediction for one id is counted and ignored.

The page-table CSV is the library's ``evaluate_packet`` input: a header, then one row per page
with ``group_id``, ``group_id_predicted``, ``page_number``, ``page_number_predicted``, and
optionally ``class_label`` and ``class_label_predicted`` (both or neither) and ``packet_id`` (rows
grouped into packets; without it the file is one packet). A bad row stops the run (exit 2).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any, Iterator

from .. import limits
from ..errors import InputError
from .reader import STDIN, PairingStats, ground_truth_lines, open_input, parse_record
from ..packets.metrics import UNKNOWN_CLASS, PageRow, Section

# Pages one packet may hold (each side of a JSON Lines packet; rows of a CSV packet): the page
# table and the ordering cost grow with them (Kendall's tau is quadratic in a document's pages).
# Raised with `stickler split --max-pages N`.
MAX_PAGES_PER_PACKET = 10_000
PROBLEMS_KEPT = 100  # record problems listed in the report (all are counted)
CSV_COLUMNS = ("group_id", "group_id_predicted", "page_number", "page_number_predicted")
CSV_CLASS_COLUMNS = ("class_label", "class_label_predicted")
CSV_PACKET_COLUMN = "packet_id"


@dataclass(frozen=True)
class PacketPair:
    """One ground-truth packet and its prediction: sections (JSON Lines) or page rows (CSV)."""

    packet_id: str  # as shown: a string as written, a number as JSON
    where: str  # file:line of the ground truth (of the packet's first row, for a CSV)
    gt: tuple[Section, ...] = ()
    pred: tuple[Section, ...] = ()
    rows: tuple[PageRow, ...] | None = None  # the page-table form
    has_classes: bool = True  # the CSV carries class_label columns


@dataclass
class Reading:
    """What reading found besides the packets: counts, and the first problems in full."""

    gt_packets: int = 0
    pred_packets: int = 0
    paired: int = 0
    missing_predictions: int = 0
    unpaired_predictions: int = 0
    invalid_predictions: int = 0
    duplicate_predictions: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    problem_count: int = 0

    def problem(self, source: str, line: int | None, message: str) -> None:
        self.problem_count += 1
        if len(self.problems) < PROBLEMS_KEPT:
            self.problems.append({"source": source, "line": line, "message": message})

    def counts(self) -> dict[str, int]:
        return {k: v for k, v in vars(self).items() if isinstance(v, int)}


class BadPacket(ValueError):
    """A packet record that cannot be read; the message names the field."""


def read_pairs(
    gt_path: str, pred_path: str, reading: Reading, max_pages: int = MAX_PAGES_PER_PACKET
) -> Iterator[PacketPair]:
    """The ground-truth packets in file order, each with its prediction (paired by packet_id)."""
    predictions = _predictions(pred_path, reading, max_pages)
    seen: dict[Any, int] = {}
    for number, content in _records(gt_path):
        record, problem = parse_record(content)
        try:
            if problem:
                raise BadPacket(problem)
            key, shown = _packet_id(record)
            sections = _sections(record, max_pages)
        except BadPacket as exc:
            raise InputError(f"ground truth {exc}", gt_path, number) from None
        if key in seen:
            raise InputError(f"packet_id {shown}: also on line {seen[key]}", gt_path, number)
        seen[key] = number
        reading.gt_packets += 1
        found = predictions.pop(key, None)
        if found is None:
            reading.missing_predictions += 1
            reading.problem(pred_path, None, f"no prediction for packet {shown}: scored as an empty split")
        else:
            reading.paired += 1
        # An unreadable prediction (None, already reported) is scored as an empty split too.
        pred = found[1] if found is not None and found[1] is not None else ()
        yield PacketPair(shown, f"{_name(gt_path)}:{number}", sections, pred)
    for key, (number, _) in predictions.items():
        reading.unpaired_predictions += 1
        reading.problem(pred_path, number, f"packet {_shown(key)} has no ground truth: not scored")


def _predictions(path: str, reading: Reading, max_pages: int) -> dict[Any, tuple[int, tuple[Section, ...] | None]]:
    """packet key -> (line, its sections, or None when the record could not be read), in file order. Every
    prediction is held until its ground truth comes, so the lines read are bounded, as eval's pairing by id
    bounds the lines it keeps (``kept-bytes``)."""
    found: dict[Any, tuple[int, tuple[Section, ...] | None]] = {}
    kept, most = 0, limits.current().kept_bytes
    for number, content in _records(path):
        kept += len(content) if type(content) is bytes else 0
        if kept > most:
            raise InputError(
                f"pairing packets by packet_id holds every prediction in memory, and their lines pass "
                f"{most:,} bytes: split the files by packet, or raise --limit kept-bytes=...",
                path,
                number,
            )
        reading.pred_packets += 1
        record, problem = parse_record(content)
        key = None
        try:
            if problem:
                raise BadPacket(problem)
            key, shown = _packet_id(record)
            if key in found:
                reading.duplicate_predictions += 1
                reading.problem(
                    path,
                    number,
                    f"packet_id {shown}: a second prediction (line {found[key][0]} is the one scored); ignored",
                )
                continue
            found[key] = (number, _sections(record, max_pages))
        except BadPacket as exc:
            reading.invalid_predictions += 1
            scored = " (its ground truth is scored as an empty split)" if key is not None else ""
            reading.problem(path, number, f"prediction {exc}{scored}")
            if key is not None:
                found[key] = (number, None)
    return found


def _records(path: str) -> Iterator[tuple[int, Any]]:
    for number, _, content in ground_truth_lines(path, PairingStats()):
        if type(content) is bytes and not content:
            continue  # a blank line
        yield number, content


def _packet_id(record: dict) -> tuple[Any, str]:
    if "packet_id" not in record:
        raise BadPacket("packet_id: missing")
    value = record["packet_id"]
    if isinstance(value, str):
        return ("s", value), value
    if isinstance(value, int) and not isinstance(value, bool):
        return ("i", value), str(value)
    raise BadPacket(f"packet_id: expected a string or an integer, got {_kind(value)}")


def _shown(key: tuple[str, Any]) -> str:
    return key[1] if key[0] == "s" else str(key[1])


def _sections(record: dict, max_pages: int) -> tuple[Section, ...]:
    if "sections" not in record:
        raise BadPacket("sections: missing")
    sections = record["sections"]
    if not isinstance(sections, list):
        raise BadPacket(f"sections: expected an array, got {_kind(sections)}")
    owner: dict[int, int] = {}  # page -> the section holding it
    read = []
    for k, section in enumerate(sections):
        where = f"sections[{k}]"
        if not isinstance(section, dict):
            raise BadPacket(f"{where}: expected an object, got {_kind(section)}")
        pages = _pages(section, where)
        for j, page in enumerate(pages):
            if page in owner:
                other = "the same section" if owner[page] == k else f"sections[{owner[page]}]"
                raise BadPacket(
                    f"{where}.page_indices[{j}]: page {page} is already in {other} "
                    "(a page belongs to one document, once)"
                )
            owner[page] = k
        if len(owner) > max_pages:
            raise BadPacket(f"{where}: more than {max_pages:,} pages in the packet (raise the bound with --max-pages)")
        read.append(Section(_document_class(section, where), pages))
    return tuple(read)


def _document_class(section: dict, where: str) -> str:
    value = section.get("document_class")
    if isinstance(value, dict):
        inner = value.get("type")
        if inner is not None and not isinstance(inner, str):
            raise BadPacket(f"{where}.document_class.type: expected a string, got {_kind(inner)}")
        value = inner
    elif value is not None and not isinstance(value, str):
        raise BadPacket(f'{where}.document_class: expected a string or {{"type": string}}, got {_kind(value)}')
    return value or UNKNOWN_CLASS


def _pages(section: dict, where: str) -> tuple[int, ...]:
    if "page_indices" in section:
        pages, field_name = section["page_indices"], f"{where}.page_indices"
    elif isinstance(section.get("split_document"), dict) and "page_indices" in section["split_document"]:
        pages, field_name = section["split_document"]["page_indices"], f"{where}.split_document.page_indices"
    else:
        raise BadPacket(f"{where}.page_indices: missing")
    if not isinstance(pages, list):
        raise BadPacket(f"{field_name}: expected an array of page indices, got {_kind(pages)}")
    for j, page in enumerate(pages):
        if isinstance(page, bool) or not isinstance(page, int) or page < 0:
            raise BadPacket(f"{field_name}[{j}]: expected a page index (an integer from 0), got {_value(page)}")
    return tuple(pages)


def _kind(value: Any) -> str:
    return (
        "null"
        if value is None
        else {
            dict: "an object",
            list: "an array",
            str: "a string",
            bool: "a boolean",
            int: "a number",
            float: "a number",
        }.get(type(value), type(value).__name__)
    )


def _value(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:40])
    return _kind(value)


def _name(path: str) -> str:
    return "standard input" if path == STDIN else path


def read_page_table(path: str, reading: Reading, max_pages: int = MAX_PAGES_PER_PACKET) -> Iterator[PacketPair]:
    """The packets of a page-table CSV, in the order of their first rows."""
    packets: dict[str, list[PageRow]] = {}
    first: dict[str, int] = {}
    kept, most = 0, limits.current().kept_bytes  # every row is held until the file ends (a packet's rows may scatter)
    with _open_text(path) as handle:
        rows = csv.reader(handle)
        try:
            header = next(rows, None)
            if header is None:
                raise InputError("empty: expected a header row naming the columns " + ", ".join(CSV_COLUMNS), path)
            columns = _columns(header, path)
            has_classes = CSV_CLASS_COLUMNS[0] in columns
            for cells in rows:
                line = rows.line_num
                if not any(c.strip() for c in cells):
                    continue
                if len(cells) != len(header):
                    raise InputError(f"{len(cells)} cells, the header names {len(header)} columns", path, line)
                packet = cells[columns[CSV_PACKET_COLUMN]].strip() if CSV_PACKET_COLUMN in columns else ""
                if CSV_PACKET_COLUMN in columns and not packet:
                    raise InputError(f"{CSV_PACKET_COLUMN}: empty", path, line)
                kept += sum(map(len, cells))
                if kept > most:
                    raise InputError(
                        f"a page table is held in memory until it ends, and its rows pass {most:,} "
                        "characters: split the file by packet, or raise --limit kept-bytes=...",
                        path,
                        line,
                    )
                held = packets.setdefault(packet, [])
                first.setdefault(packet, line)
                if len(held) >= max_pages:
                    raise InputError(
                        f"packet {packet or path!r}: more than {max_pages:,} pages (raise the bound with --max-pages)",
                        path,
                        line,
                    )
                held.append(_row(cells, columns, has_classes, path, line))
        except csv.Error as exc:
            raise InputError(f"not a readable CSV: {exc}", path, rows.line_num) from None
        except UnicodeDecodeError as exc:
            raise InputError(f"not valid UTF-8: {exc.reason} at byte {exc.start}", path) from None
    for packet, held in packets.items():
        reading.gt_packets += 1
        reading.pred_packets += 1
        reading.paired += 1
        yield PacketPair(
            packet or _name(path), f"{_name(path)}:{first[packet]}", rows=tuple(held), has_classes=has_classes
        )


def _open_text(path: str) -> io.TextIOBase:
    """A CSV file as text, opened as every input is (reader.open_input: ``-``, ``.gz``, one-line errors),
    a leading BOM skipped."""
    return io.TextIOWrapper(open_input(path), encoding="utf-8-sig", newline="")


def _columns(header: list[str], path: str) -> dict[str, int]:
    columns: dict[str, int] = {}
    for k, name in enumerate(header):
        name = name.strip()
        if name in columns:
            raise InputError(f"column {name!r} appears twice in the header", path, 1)
        columns[name] = k
    missing = [c for c in CSV_COLUMNS if c not in columns]
    if missing:
        raise InputError(
            f"the header lacks the column(s) {', '.join(missing)} (it needs {', '.join(CSV_COLUMNS)}; "
            f"{' and '.join(CSV_CLASS_COLUMNS)} optionally, and {CSV_PACKET_COLUMN})",
            path,
            1,
        )
    classes = [c for c in CSV_CLASS_COLUMNS if c in columns]
    if len(classes) == 1:
        raise InputError(
            f"the header has {classes[0]} without "
            f"{next(c for c in CSV_CLASS_COLUMNS if c not in columns)}: give both or neither",
            path,
            1,
        )
    return columns


def _row(cells: list[str], columns: dict[str, int], has_classes: bool, path: str, line: int) -> PageRow:
    def text(name: str) -> str:
        value = cells[columns[name]].strip()
        if not value:
            raise InputError(f"{name}: empty", path, line)
        return value

    def number(name: str) -> float:
        value = text(name)
        try:
            parsed = float(value)
        except ValueError:
            raise InputError(f"{name}: expected a number, got {value[:40]!r}", path, line) from None
        if not math.isfinite(parsed):
            raise InputError(f"{name}: expected a finite number, got {value[:40]!r}", path, line)
        return parsed

    labels = (text("class_label"), text("class_label_predicted")) if has_classes else (None, None)
    return PageRow(
        text("group_id"), text("group_id_predicted"), number("page_number"), number("page_number_predicted"), *labels
    )
