"""Streaming JSONL input and ground-truth/prediction pairing.

Lines are parsed one at a time with orjson, so memory does not grow with the
number of documents. Pairing by ``--id-field`` indexes only the prediction
file's ids and byte offsets, then seeks to each prediction when its ground
truth arrives.

Inputs: JSONL (``.gz`` too), ``-`` for standard input, or a ``.json`` file
holding one array of records (read whole; its "line" numbers are the records'
positions in the array). Lines may end in CRLF; a UTF-8 BOM and blank lines
are skipped. NaN, Infinity and integers beyond 64 bits are read as Python's
json module reads them (orjson refuses the first two and rounds the last).

Policy (README, "What counts as an error"):
- ground truth that is not a JSON object (or not JSON, or not UTF-8, or
  nested deeper than 1,024 levels): InputError (exit 2) naming file:line;
- prediction that is not a JSON object: a recorded ``DataError``, scored as an
  empty prediction (``--strict`` turns it into an InputError);
- a ground truth without prediction: scored against an empty prediction;
- a prediction without ground truth: recorded, never scored.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import sys
import zlib
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator

import orjson

from .errors import InputError


@dataclass(frozen=True, slots=True)
class DataError:
    """A problem with one record that did not stop the run."""

    source: str
    line: int | None
    doc_id: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "doc_id": self.doc_id, "message": self.message}


@dataclass(slots=True)
class Pair:
    """One document to score; ``pred`` is ``{}`` when the prediction is missing or broken."""

    doc_id: str
    gt: dict | None  # None: an unscored prediction, carried only for its error
    pred: dict | None
    gt_line: int
    pred_line: int | None
    errors: list[DataError]
    pred_invalid: bool = False  # the prediction line was unusable and is scored as {}

    @property
    def pred_read(self) -> bool:
        """A prediction record was read and is a JSON object (so its conformance is checked)."""
        return self.pred_line is not None and self.pred is not None and not self.pred_invalid


@dataclass(slots=True)
class PairingStats:
    gt_lines: int = 0
    pred_lines: int = 0
    paired: int = 0
    unpaired_predictions: int = 0
    missing_predictions: int = 0
    invalid_predictions: int = 0  # prediction records that are not a JSON object, paired or not
    blank_lines: int = 0
    gt_bytes_read: int = 0  # of the ground-truth files, as stored on disk (for progress)


STDIN = "-"
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, skipped at the start of a file


def _open(path: str) -> BinaryIO:
    """The file as bytes; ``.gz`` files are decompressed as they are read; ``-`` is standard input."""
    if path == STDIN:
        return open(sys.stdin.fileno(), "rb", closefd=False)
    try:
        if path.endswith(".gz"):
            return gzip.open(path, "rb")  # type: ignore[return-value]
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError("file not found", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a JSONL file", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None


def _lines(path: str, stats: PairingStats, progress: bool = False) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, content) for each non-blank line.

    With ``progress`` the bytes read so far (of the file as stored, compressed
    or not) are kept in ``stats.gt_bytes_read``, for a progress bar.
    """
    if is_json_array(path):
        yield from _array_records(path, stats)
        return
    with _open(path) as handle:
        raw_file = getattr(handle, "fileobj", None) or handle  # the compressed stream of a .gz
        progress = progress and raw_file.seekable()  # a pipe has no position to report
        done = stats.gt_bytes_read
        offset = number = 0
        try:
            for number, raw in enumerate(handle, start=1):
                start = offset
                offset += len(raw)
                if progress and number % 256 == 0:
                    stats.gt_bytes_read = done + raw_file.tell()
                content = raw.strip()
                if number == 1 and content.startswith(BOM):
                    content = content.removeprefix(BOM).strip()
                if not content:
                    stats.blank_lines += 1
                    continue
                yield number, start, content
        except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt .gz
            where = f" after line {number}" if number else ""
            raise InputError(f"cannot read compressed data{where}: {exc}", path) from None
        if progress:
            stats.gt_bytes_read = done + file_size(path)


class Record:
    """A record already parsed (an element of a ``.json`` array), where a raw line would be."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def is_json_array(path: str) -> bool:
    return path.removesuffix(".gz").endswith(".json")


def _array_records(path: str, stats: PairingStats) -> Iterator[tuple[int, int, Record]]:
    """The elements of a ``.json`` file holding one array, numbered from 1."""
    with _open(path) as handle:
        try:
            data = handle.read()
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"cannot read compressed data: {exc}", path) from None
    data = data.removeprefix(BOM)
    try:
        value = decode(data)
    except ValueError as exc:
        raise InputError(f"not valid JSON ({_reason(exc)})", path) from None
    if not isinstance(value, list):
        raise InputError("a .json input must hold an array of records (JSON Lines files end in .jsonl)", path)
    for number, item in enumerate(value, start=1):
        yield number, 0, Record(item)


# A run of 19 digits: an integer orjson may round (beyond 64 bits). Found by mapping every digit
# to "9" and searching for the run: two passes in C, six times cheaper than a regular expression.
_DIGITS_AS_NINES = bytes(0x39 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"9" * 19


def _long_number(content: bytes) -> bool:
    return _LONG_RUN in content.translate(_DIGITS_AS_NINES)


_NON_FINITE = re.compile(rb"NaN|Infinity|\d[eE]\+?\d{3}")


def decode(content: bytes) -> Any:
    """A JSON value; raises ValueError (its message says why) when there is none.

    orjson, except where it refuses or rounds what Python's json module reads
    exactly: NaN, Infinity, numbers beyond float64 (read as infinity) and
    integers beyond 64 bits. Those lines are read by the json module.
    """
    try:
        value = orjson.loads(content)
    except orjson.JSONDecodeError as exc:
        if not (_NON_FINITE.search(content) or _long_number(content)):
            raise
        return _lenient(content, exc)
    if _long_number(content):
        return _lenient(content, None)
    return value


def _lenient(content: bytes, refused: ValueError | None) -> Any:
    try:
        value = json.loads(content)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError:
        if refused is not None:
            raise refused from None
        raise
    _check_text(value)
    return value


def _check_text(value: Any) -> None:
    """json accepts escaped lone surrogates (orjson does not): no string may hold one."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            item.encode("utf-8")  # UnicodeEncodeError is a ValueError
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())


def _reason(exc: ValueError) -> str:
    text = str(exc.args[0] if exc.args else exc)
    if "depth limit" in text or "nested too deeply" in text:
        return "nested deeper than 1,024 levels"
    if isinstance(exc, UnicodeError) or "UTF-8" in text:
        return f"not valid UTF-8: {text}"
    return text


def file_size(path: str) -> int:
    """Size on disk (compressed size for a .gz); 0 when unknown."""
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


def _parse(content: bytes | Record) -> tuple[Any, str | None]:
    """(value, None) or (None, reason) for one line (or an already parsed record)."""
    if type(content) is Record:
        value = content.value
    else:
        try:
            value = decode(content)
        except ValueError as exc:
            return None, f"not valid JSON ({_reason(exc)})"
    if not isinstance(value, dict):
        return None, f"expected a JSON object, got {type(value).__name__ if value is not None else 'null'}"
    return value, None


def _gt_record(path: str, number: int, content: bytes) -> dict:
    value, problem = _parse(content)
    if problem:
        raise InputError(f"ground truth {problem}", path, number)
    return value


def _id_of(record: dict, id_field: str) -> str | None:
    value = record.get(id_field)
    if isinstance(value, dict) and "_value" in value:
        value = value["_value"]
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


Line = tuple[int, int, bytes]  # (line number, byte offset, content) of a non-blank line


def ground_truth_lines(gt_path: str, stats: PairingStats) -> Iterator[Line]:
    """The ground truth's non-blank lines, unparsed: given to the pairing functions as ``gt_lines``
    when one reading must serve two pairings (``stickler diff``)."""
    return _lines(gt_path, stats, progress=True)


def pair_by_line(gt_path: str, pred_path: str, stats: PairingStats, strict: bool = False,
                 gt_lines: Iterator[Line] | None = None) -> Iterator[Pair]:
    """Pair the n-th ground truth record with the n-th prediction record."""
    return pair_lines(line_pairs(gt_path, pred_path, stats, gt_lines), gt_path, pred_path, stats, strict)


def line_pairs(gt_path: str, pred_path: str, stats: PairingStats,
               gt_lines: Iterator[Line] | None = None) -> Iterator[tuple[Line | None, Line | None]]:
    """The raw line pairs ``pair_lines`` takes: read without parsing (cheap), for worker processes."""
    gt = gt_lines if gt_lines is not None else ground_truth_lines(gt_path, stats)
    return zip_longest(gt, _lines(pred_path, stats))


def pair_lines(lines: Iterable[tuple[Line | None, Line | None]], gt_path: str, pred_path: str,
               stats: PairingStats, strict: bool = False) -> Iterator[Pair]:
    """Parse and pair raw (ground truth, prediction) lines; either side is None past its file's end."""
    for gt_item, pred_item in lines:
        if gt_item is None:
            number = pred_item[0]
            stats.pred_lines += 1
            stats.unpaired_predictions += 1
            # A prediction past the end of the ground truth is reported, not scored (but its
            # conformance to the schema is counted).
            pred, problem = _parse(pred_item[2])
            stats.invalid_predictions += problem is not None
            yield _orphan(pred_path, number, "prediction has no ground truth (more prediction lines than ground-truth lines); not scored",
                          pred=pred)
            continue
        gt_number, _, gt_content = gt_item
        stats.gt_lines += 1
        gt = _gt_record(gt_path, gt_number, gt_content)
        doc_id = f"line {gt_number}"
        errors: list[DataError] = []
        if pred_item is None:
            stats.missing_predictions += 1
            errors.append(DataError(pred_path, None, doc_id, "no prediction for this ground truth (fewer prediction lines); scored as empty"))
            yield Pair(doc_id, gt, {}, gt_number, None, errors)
            continue
        pred_number, _, pred_content = pred_item
        stats.pred_lines += 1
        stats.paired += 1
        pred, problem = _parse(pred_content)
        if problem:
            if strict:
                raise InputError(f"prediction {problem}", pred_path, pred_number)
            stats.invalid_predictions += 1
            errors.append(DataError(pred_path, pred_number, doc_id, f"prediction {problem}; scored as empty"))
            yield Pair(doc_id, gt, {}, gt_number, pred_number, errors, pred_invalid=True)
            continue
        yield Pair(doc_id, gt, pred, gt_number, pred_number, errors)


def pair_by_id(
    gt_path: str, pred_path: str, id_field: str, stats: PairingStats, strict: bool = False,
    gt_lines: Iterator[Line] | None = None,
) -> Iterator[Pair]:
    """Pair records whose ``id_field`` values are equal; duplicates are input errors."""
    # Predictions are indexed by id as (line, byte offset) and read back with a
    # seek; a compressed file cannot seek cheaply, so its lines are kept instead.
    keep_lines = pred_path.endswith(".gz") or pred_path == STDIN or is_json_array(pred_path)
    index: dict[str, tuple[int, int | bytes]] = {}
    early: list[Pair] = []
    for number, offset, content in _lines(pred_path, stats):
        stats.pred_lines += 1
        pred, problem = _parse(content)
        if problem:
            if strict:
                raise InputError(f"prediction {problem}", pred_path, number)
            stats.unpaired_predictions += 1
            stats.invalid_predictions += 1
            early.append(_orphan(pred_path, number, f"prediction {problem}; its id cannot be read, so it is not scored"))
            continue
        key = _id_of(pred, id_field)
        if key is None:
            stats.unpaired_predictions += 1
            early.append(_orphan(pred_path, number, f"prediction has no {id_field!r}; not scored", pred=pred))
            continue
        if key in index:
            raise InputError(f"duplicate {id_field} {key!r} (first on line {index[key][0]})", pred_path, number)
        index[key] = (number, content if keep_lines else offset)
    yield from early

    seen: dict[str, int] = {}
    with contextlib.nullcontext() if keep_lines else _open(pred_path) as handle:
        for gt_number, _, gt_content in (gt_lines if gt_lines is not None else ground_truth_lines(gt_path, stats)):
            stats.gt_lines += 1
            gt = _gt_record(gt_path, gt_number, gt_content)
            key = _id_of(gt, id_field)
            if key is None:
                raise InputError(f"ground truth has no {id_field!r}", gt_path, gt_number)
            if key in seen:
                raise InputError(f"duplicate {id_field} {key!r} (first on line {seen[key]})", gt_path, gt_number)
            seen[key] = gt_number
            errors: list[DataError] = []
            location = index.pop(key, None)
            if location is None:
                stats.missing_predictions += 1
                errors.append(DataError(pred_path, None, key, "no prediction with this id; scored as empty"))
                yield Pair(key, gt, {}, gt_number, None, errors)
                continue
            pred_number, where = location
            pred, _ = _parse(_stored(handle, where))
            stats.paired += 1
            yield Pair(key, gt, pred, gt_number, pred_number, errors)
        for key, (number, where) in sorted(index.items(), key=lambda item: item[1][0]):
            stats.unpaired_predictions += 1
            pred, _ = _parse(_stored(handle, where))
            yield _orphan(pred_path, number, f"prediction {id_field} {key!r} has no ground truth; not scored", key, pred)


def _stored(handle: BinaryIO | None, where: int | bytes | Record) -> bytes | Record:
    """An indexed prediction's line: kept as it was read, or read back at its byte offset."""
    if not isinstance(where, int):
        return where
    handle.seek(where)  # type: ignore[union-attr]
    return handle.readline().strip().removeprefix(BOM)  # type: ignore[union-attr]


def _orphan(source: str, line: int, message: str, doc_id: str | None = None, pred: dict | None = None) -> Pair:
    """A prediction that cannot be scored: carried to report its error (and, when it was read,
    to count its conformance to the schema)."""
    return Pair(doc_id or "", None, pred, 0, line, [DataError(source, line, doc_id, message)])


def check_readable(*paths: str) -> None:
    """Fail before any work when an input file is missing or unreadable."""
    for path in paths:
        if path == STDIN:
            continue
        p = Path(path)
        if not p.exists():
            raise InputError("file not found", path)
        if p.is_dir():
            raise InputError("is a directory, expected a JSONL file", path)
        _open(path).close()
