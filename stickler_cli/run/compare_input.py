"""What ``stickler compare`` compares: one ground-truth record and one prediction.

Each input is JSON text (``'{"id": 1}'``), a ``.json`` file holding one object (or an array of
records), a JSON Lines file, or ``-`` for standard input (one of the two). Where an input holds
several records, ``--line N`` or ``--id VALUE`` chooses one; without either, it must hold one.
Files are read by the reader as ``stickler eval`` reads them (``.gz``, a BOM, CRLF, a file that is
one array, ``--limit line-bytes``), and lines are counted as eval counts them: blank lines keep
their place, so ``--line 42`` is the pair eval calls line 42.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator, Union

from ..errors import InputError, UsageError
from .reader import (
    ID_FIELDS,
    STDIN,
    Line,
    PairingStats,
    Record,
    decode,
    ground_truth_lines,
    parse_record,
    read_whole,
    record_id,
    why_not_json,
)

ID_FIELDS_SHOWN = 4  # document-id names listed in the message of an id not found


@dataclass(frozen=True)
class Chosen:
    """The record compared, and where it was found."""

    record: dict
    source: str | None  # the file, "-" for standard input; None for JSON text given as the argument
    line: int | None  # its line (its position in a JSON array); None when the input is one object

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line}

    def where(self) -> str:
        """``gt.jsonl:42``, ``gt.json``, or ``JSON text``."""
        if self.source is None:
            return "JSON text"
        source = "standard input" if self.source == STDIN else self.source
        return f"{source}:{self.line}" if self.line is not None else source


@dataclass(frozen=True)
class Selector:
    """``--line N`` or ``--id VALUE`` (looked up in ``--id-field``, else in the document-id field
    each record carries, as pairing by line finds it); neither: each input holds one record."""

    line: int | None = None
    id_value: str | None = None
    id_field: str | None = None

    def check(self) -> None:
        if self.line is not None and self.id_value is not None:
            raise UsageError("give --id or --line, not both")
        if self.id_field is not None and self.id_value is None:
            raise UsageError("--id-field names the field --id is looked up in: give --id too")

    @property
    def given(self) -> bool:
        return self.line is not None or self.id_value is not None


@dataclass(frozen=True)
class _Records:
    """An input of records, read when one is chosen."""

    source: str
    lines: Iterator[Line]
    positions: bool = False  # numbered by position in a JSON array, not by line


Input = Union[Chosen, _Records]


def choose_pair(ground_truth: str, prediction: str, selector: Selector) -> tuple[Chosen, Chosen]:
    """The ground-truth record and the prediction to compare (exit 2, one line, when there is none);
    ``selector`` already checked (``Selector.check``, before any work)."""
    if ground_truth == STDIN and prediction == STDIN:
        raise UsageError("only one of the two inputs can be standard input (-)")
    inputs = [_input(ground_truth, "ground truth", selector), _input(prediction, "prediction", selector)]
    if selector.given and all(isinstance(i, Chosen) for i in inputs):
        option = "--line" if selector.line is not None else "--id"
        raise UsageError(
            f"{option} chooses a record of a JSON Lines file (or a .json array); both inputs are one JSON object"
        )
    gt, pred = (_choose(i, selector) for i in inputs)
    return gt, pred


def _input(argument: str, what: str, selector: Selector) -> Input:
    """JSON text, a ``.json`` file read whole, or a file of records read line by line. Standard
    input without a selector is read whole, so that ``jq '.[3]' | stickler compare s.json gt.json -``
    (one pretty-printed object) works; with one, it is JSON Lines."""
    if argument.lstrip().startswith(("{", "[")) and not os.path.exists(argument):
        return Chosen(_object(argument.encode(), f"<{what} argument>", what), None, None)
    if argument != STDIN:
        if not os.path.exists(argument):
            raise InputError(f"{what} is neither JSON text nor an existing file", argument)
        if os.path.isdir(argument):
            raise InputError("is a directory, expected a JSON or JSON Lines file", argument)
    if argument.endswith(".json") or (argument == STDIN and not selector.given):
        raw = read_whole(argument)
        value = _value(raw, argument, what) if argument != STDIN else _stdin_value(raw, what)
        if isinstance(value, list):  # an array of records, numbered by position as eval numbers them
            return _Records(argument, iter([(n, 0, Record(item)) for n, item in enumerate(value, start=1)]), True)
        return Chosen(_check_object(value, argument, what), argument, None)
    return _Records(argument, ground_truth_lines(argument, PairingStats()))


def _stdin_value(raw: bytes, what: str) -> Any:
    """Standard input read whole: one JSON value, or one JSON Lines record (several: say how to choose)."""
    try:
        return decode(raw)
    except ValueError:
        lines = [line for line in raw.splitlines() if line.strip()]
        if len(lines) > 1:
            raise InputError(
                "holds more than one line and is not one JSON value: for JSON Lines, pass --id or "
                "--line to choose the record to compare",
                STDIN,
            ) from None
        return _value(raw, STDIN, what)


def _value(raw: bytes, source: str, what: str) -> Any:
    try:
        return decode(raw)
    except ValueError as exc:
        raise InputError(f"{what} is not valid JSON ({why_not_json(exc, raw)})", source) from None


def _object(raw: bytes, source: str, what: str) -> dict:
    return _check_object(_value(raw, source, what), source, what)


def _check_object(value: Any, source: str, what: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"{what} must be a JSON object", source)
    return value


def _choose(given: Input, selector: Selector) -> Chosen:
    if isinstance(given, Chosen):  # one object: compared whatever the selector
        return given
    if selector.line is not None:
        return _at_line(given, selector.line)
    if selector.id_value is not None:
        return _with_id(given, selector.id_value, selector.id_field)
    return _only(given)


def _blank(content: Any) -> bool:
    return type(content) is bytes and not content


def _at_line(records: _Records, wanted: int) -> Chosen:
    last = 0
    for number, _, content in records.lines:
        last = number
        if number < wanted:
            continue
        if _blank(content):
            raise InputError("a blank line: no record to compare", records.source, wanted)
        record, problem = parse_record(content)
        if problem:
            raise InputError(problem, records.source, wanted)
        return Chosen(record, records.source, wanted)
    unit = "records" if records.positions else "lines"
    raise InputError(f"--line {wanted} is past its end ({last} {unit})", records.source)


def _with_id(records: _Records, wanted: str, id_field: str | None) -> Chosen:
    found: Chosen | None = None
    unread = 0
    for number, _, content in records.lines:
        if _blank(content):
            continue
        record, problem = parse_record(content)
        if problem:
            unread += 1
            continue
        if record_id(record, id_field) == wanted:
            if found is not None:
                raise InputError(
                    f"two records have the id {wanted!r} (lines {found.line} and {number}): name the "
                    "one to compare with --line",
                    records.source,
                    number,
                )
            found = Chosen(record, records.source, number)
    if found is None:
        looked = (
            f"in {id_field!r}"
            if id_field
            else f"in the first document-id field each record has: {', '.join(ID_FIELDS[:ID_FIELDS_SHOWN])}, …; "
            "name one with --id-field"
        )
        note = f"; {unread} line(s) are not JSON objects" if unread else ""
        raise InputError(f"no record has the id {wanted!r} ({looked}){note}", records.source)
    return found


def _only(records: _Records) -> Chosen:
    found: Chosen | None = None
    for number, _, content in records.lines:
        if _blank(content):
            continue
        if found is not None:
            raise InputError(
                "holds more than one record: pass --id or --line to choose the one to compare", records.source
            )
        record, problem = parse_record(content)
        if problem:
            raise InputError(problem, records.source, number)
        found = Chosen(record, records.source, number)
    if found is None:
        raise InputError("holds no record", records.source)
    return found


def id_disagreement(gt: Chosen, pred: Chosen) -> str | None:
    """Chosen by line, records carrying different document ids are most likely not the same
    document (files out of step): what to say about it, or None."""
    from .reader import shared_id_fields

    names = shared_id_fields(gt.record, pred.record)
    if names is None:
        return None
    name, pred_name = names
    ours, theirs = record_id(gt.record, name), record_id(pred.record, pred_name)
    if ours is None or theirs is None or ours == theirs:
        return None
    spelled = "" if pred_name == name else f" {pred_name}"
    return (
        f"{gt.where()} has {name} {ours!r} and {pred.where()} has{spelled} {theirs!r}: not the same document? "
        f"(--id {ours} compares the records carrying it)"
    )
