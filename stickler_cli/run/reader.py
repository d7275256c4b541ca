"""Streaming JSONL input and ground-truth/prediction pairing.

Lines are parsed one at a time with orjson, so memory does not grow with the
number of documents. Pairing by ``--id-field`` indexes only the prediction
file's ids and byte offsets, then seeks to each prediction when its ground
truth arrives.

Inputs: JSONL (``.gz`` too), ``-`` for standard input, or a ``.json`` file
holding one array of records (read whole; its "line" numbers are the records'
positions in the array); a ``.jsonl`` file that turns out to hold one array is
read the same way. Lines may end in CRLF; a UTF-8 BOM is skipped. A blank line
keeps its place when pairing by line: it is a missing record at that line. A
line longer than ``--limit line-bytes`` is never held in memory whole: it is
skipped, counted and reported. NaN, Infinity and integers beyond 64 bits are
read as Python's json module reads them (orjson refuses the first two and
rounds the last).

Policy (docs/trust.md, "What counts as an error"):
- ground truth that is not a JSON object (or not JSON, or not UTF-8, or
  nested deeper than 1,024 levels): InputError (exit 2) naming file:line;
- prediction that is not a JSON object: a recorded ``DataError``, scored as an
  empty prediction (``--strict`` turns it into an InputError);
- a ground truth without prediction: scored against an empty prediction;
- a prediction without ground truth: recorded, never scored;
- pairing by line, records whose document ids (``ID_FIELDS``) show the two files
  out of step: recorded, and past ``MISALIGNED_TOLERANCE`` pairs an InputError;
- more than half of the prediction records unreadable: an InputError (the file
  is not JSON Lines), raised by ``check_predictions_readable`` after the run.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import stat
import sys
import zlib
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator

import orjson

from .. import limits
from ..errors import InputError, UsageError
from ..json_text import ALTERNATIVES_KEY, BBOX_KEY, holds_key


@dataclass(frozen=True, slots=True)
class DataError:
    """A problem with one record that did not stop the run."""

    source: str
    line: int | None
    doc_id: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "doc_id": self.doc_id, "message": self.message}


def error_location(error: dict[str, Any]) -> str:
    """Where a record problem (``DataError.as_dict()``) is: file:line, and the document it concerns
    when that says more (a missing prediction has no line of its own: "pred.jsonl (D-0042)")."""
    line = error.get("line")
    where = f"{error['source']}:{line}" if line else str(error["source"])
    document = error.get("doc_id")
    if document and not (line and document.endswith(f":{line}")):  # paired by line: FILE:LINE says no more
        where += f" ({document})"
    side = error.get("side")  # stickler diff: the model whose records these are
    return f"{side}: {where}" if side else where


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
    older_shape: bool = (
        False  # a record's text may hold {"value": …, "confidence": …} (engine/values.adopt_older_shape)
    )
    # A side carries "_bbox" or "_alternatives": scored by Engine.compare, which collects boxes and chooses among
    # acceptable values (goes_alone).
    alone: bool = False

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
    long_lines: int = 0  # lines over --limit line-bytes, skipped unread
    misaligned_pairs: int = 0  # pairing by line: pairs whose document ids show the files out of step
    ids_compared: int = 0  # pairing by line: pairs whose document ids were compared
    gt_with_confidence: int = 0  # ground-truth records carrying _confidence (swapped arguments?)
    older_shape_records: int = 0  # records holding {"value": …, "confidence": …} (counted by scoring.score_pairs)
    gt_bytes_read: int = 0  # of the ground-truth files, as stored on disk (for progress)
    first_misaligned: "DataError | None" = None  # the earliest out-of-step pair, for the stop message


# The counts a run reports (``inputs.records``), added up across workers and states.
COUNTED = (
    "gt_lines",
    "pred_lines",
    "paired",
    "unpaired_predictions",
    "missing_predictions",
    "invalid_predictions",
    "blank_lines",
    "long_lines",
    "misaligned_pairs",
    "ids_compared",
    "gt_with_confidence",
    "older_shape_records",
)

STDIN = "-"


def record_warnings(stats: dict[str, int | None]) -> list[str]:
    """What the counts of a run say about its records that the user should hear (stderr and the
    report's ``warnings``): nothing to score, arguments likely swapped, values in the deprecated older rich shape."""
    found = []
    if stats.get("gt_lines") == 0:  # counted, and none (None, or not given: not a reading of the ground truth)
        found.append(
            "no ground-truth record was read: nothing was scored (every figure is 0, and any quality gate "
            "fails such a run)"
        )
    if count := stats.get("gt_with_confidence", 0):
        found.append(
            f"{count:,} ground-truth record(s) carry _confidence, which predictions carry: are the "
            "ground truth and prediction arguments swapped?"
        )
    if count := stats.get("older_shape_records", 0):
        found.append(
            f'{count:,} record(s) hold values in the older rich shape {{"value": …, "confidence": …}}, read '
            'as {"_value": …, "_confidence": …}; rename the two keys (the older shape is deprecated)'
        )
    return found


BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, skipped at the start of a file


def stdin_descriptor() -> int:
    """Standard input's file descriptor; an InputError when it is closed (``<&-``): Python then sets
    ``sys.stdin`` to None, and descriptor 0 may since name a file stickler opened itself."""
    if sys.stdin is None:
        raise InputError("standard input is closed: nothing to read ('-' names standard input)", STDIN)
    return sys.stdin.fileno()


def open_input(path: str) -> BinaryIO:
    """The file as bytes; ``.gz`` files are decompressed as they are read; ``-`` is standard input."""
    if path == STDIN:
        return open(stdin_descriptor(), "rb", closefd=False)
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


class Overlong:
    """A line longer than ``--limit line-bytes``, where its content would be: skipped, never held whole."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size

    def problem(self) -> str:
        return (
            f"line of {self.size:,} bytes, over the {limits.current().line_bytes:,}-byte limit; "
            f"not read (raise it with --limit line-bytes=...)"
        )


_SKIP_CHUNK = 1 << 20  # the rest of an overlong line is read and dropped this much at a time


def _lines(
    path: str, stats: PairingStats, progress: bool = False, keep_blank: bool = False
) -> Iterator[tuple[int, int, "bytes | Record | Overlong"]]:
    """(line number, byte offset, content) for each line; blank lines only with ``keep_blank``
    (as empty content: pairing by line keeps their place).

    With ``progress`` the bytes read so far (of the file as stored, compressed
    or not) are kept in ``stats.gt_bytes_read``, for a progress bar. No line is
    held in memory beyond ``--limit line-bytes``: a longer one comes as ``Overlong``.
    A ``.jsonl`` file that is really one JSON array (pretty-printed, or on one line)
    is read as a ``.json`` file is; pretty-printed objects are an InputError.
    """
    if is_json_array(path):
        yield from _array_records(path, stats)
        return
    limit = limits.current().line_bytes
    with open_input(path) as handle:
        raw_file = getattr(handle, "fileobj", None) or handle  # the compressed stream of a .gz
        progress = progress and raw_file.seekable()  # a pipe has no position to report
        done = stats.gt_bytes_read
        offset = number = 0
        first = True  # no record line seen yet
        # Blank lines are counted, not held: those before the first record are lines 1.., those after a first
        # line holding an array follow it. Kept (keep_blank), they are yielded once what they are is known.
        leading = 0  # blank lines before the first record
        array: tuple[int, int, bytes] | None = None  # a first line holding an array: the file, or a bad record?
        after = 0  # blank lines after it
        readline = handle.readline
        try:
            while raw := readline(limit + 1):
                number += 1
                start = offset
                offset += len(raw)
                if progress and number % 256 == 0:
                    stats.gt_bytes_read = done + raw_file.tell()
                if len(raw) > limit and not raw.endswith(b"\n"):
                    offset, size = _skip_line(handle, offset, len(raw))
                    stats.long_lines += 1
                    first = False
                    yield from _held(keep_blank, leading, array, after)
                    leading, array, after = 0, None, 0
                    yield number, start, Overlong(size)
                    continue
                content = raw.strip()
                if number == 1 and content.startswith(BOM):
                    content = content.removeprefix(BOM).strip()
                if not content:
                    stats.blank_lines += 1
                    if first:
                        leading += 1
                    elif array is not None:
                        after += 1
                    elif keep_blank:
                        yield number, start, b""
                    continue
                if first:
                    first = False
                    if content == b"{":
                        raise InputError(
                            "looks like pretty-printed JSON (a record spans several lines); JSON "
                            f"Lines holds one record per line: convert it with jq -c . {path}",
                            path,
                            number,
                        )
                    # A file that is one array is read as a .json file: its records numbered from 1, blank
                    # lines before it left out (kept, they would stand as records 1, 2… beside its own).
                    if content == b"[":  # a pretty-printed array
                        yield from _array_rest(path, handle, content, limit)
                        return
                    if content[:1] == b"[" and _is_array(content):
                        array = (number, start, content)
                        continue
                if leading or array is not None:  # once, at the first record
                    yield from _held(keep_blank, leading, array, after)
                    leading, array, after = 0, None, 0
                yield number, start, content
        except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt .gz
            where = f" after line {number}" if number else ""
            raise InputError(f"cannot read compressed data{where}: {exc}", path) from None
        if array is not None:  # the file is one array on one line: its records, as a .json file's
            yield from _records(decode(array[2]), array[2])
        else:
            yield from _held(keep_blank, leading, None, 0)  # a file of blank lines only: each keeps its place
        if progress:
            stats.gt_bytes_read = done + file_size(path)


def _held(
    keep_blank: bool, leading: int, array: tuple[int, int, bytes] | None, after: int
) -> Iterator[tuple[int, int, bytes]]:
    """The lines held back while the first record's nature was unknown, in their order: ``leading`` blank lines
    (lines 1..), the first line holding an array (a bad record, as it turned out) and ``after`` blank lines after
    it. Blank lines only with ``keep_blank``; their offset is never read (0)."""
    if keep_blank:
        yield from blank_lines(1, leading)
    if array is not None:
        yield array
        if keep_blank:
            yield from blank_lines(array[0] + 1, after)


def blank_lines(first: int, count: int) -> Iterator[tuple[int, int, bytes]]:
    """``count`` blank lines from line ``first``, as ``_lines`` gives them (their offset is never read: 0)."""
    return ((n, 0, b"") for n in range(first, first + count))


def _is_array(content: bytes) -> bool:
    try:
        return isinstance(decode(content), list)
    except ValueError:
        return False


def _skip_line(handle: BinaryIO, offset: int, size: int) -> tuple[int, int]:
    """Read past the rest of an overlong line (``size`` bytes of it read so far): the offset
    after it, and its length without the line end."""
    while chunk := handle.readline(_SKIP_CHUNK):
        offset += len(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n"):
            return offset, size - len(b"\n")
    return offset, size


def _array_rest(path: str, handle: BinaryIO, content: bytes, limit: int) -> Iterator[tuple[int, int, "Record"]]:
    """The records of a JSON Lines file that is really one pretty-printed JSON array
    (its first line ``[``), read as a ``.json`` file is."""
    data = whole_file(path, handle, content, limit)
    try:
        value = decode(data)
    except ValueError as exc:
        raise InputError(
            f"looks like one JSON array spread over lines, but it is not valid JSON ({why_not_json(exc, data)})", path
        ) from None
    return _records(value, data)


def whole_file(path: str, handle: BinaryIO, head: bytes, limit: int) -> bytes:
    """``head`` and the rest of ``handle``: a whole file read as one value, within ``--limit line-bytes``."""
    rest = handle.read(limit + 1 - len(head))
    if len(head) + len(rest) > limit:
        raise InputError(
            f"holds one JSON value of over {limit:,} bytes, read whole (the --limit line-bytes "
            "bound); raise it with --limit line-bytes=...",
            path,
        )
    return head + rest


def _records(value: list, data: bytes) -> Iterator[tuple[int, int, "Record"]]:
    """An array's elements as records, numbered from 1; ``data``, the array's text, tells which of them hold
    a key written twice (duplicate_keys)."""
    twice = _array_duplicates(data, value)
    for number, item in enumerate(value, start=1):
        yield number, 0, Record(item, twice.get(number, ()))


def _array_duplicates(data: bytes, value: list) -> dict[int, list[str]]:
    """The keys written twice in each element of the array ``value`` read from ``data``, by element number
    (from 1): counted for the whole array as duplicate_keys counts a line, and only where the counts differ,
    each element's text found again (json's raw_decode) and read by the slow, exact reading."""
    if not duplicate_keys(data, value):
        return {}
    found: dict[int, list[str]] = {}
    try:
        text = data.decode("utf-8-sig")
        decoder = json.JSONDecoder()
        at = text.index("[") + 1
        number = 0
        while True:
            while text[at] in " \t\r\n,":
                at += 1
            if text[at] == "]":
                return found
            _, end = decoder.raw_decode(text, at)
            number += 1
            if keys := _named_duplicates(text[at:end].encode()):
                found[number] = keys
            at = end
    except (ValueError, IndexError, RecursionError):  # read by orjson, not by Python's json: no names to give
        return found


class Record:
    """A record already parsed (an element of a ``.json`` array), where a raw line would be, with the keys its
    text wrote twice (the line it came from is gone by the time it is paired)."""

    __slots__ = ("value", "duplicates")

    def __init__(self, value: Any, duplicates: "list[str] | tuple" = ()) -> None:
        self.value = value
        self.duplicates = duplicates


def is_json_array(path: str) -> bool:
    return path.removesuffix(".gz").endswith(".json")


def read_whole(path: str) -> bytes:
    """A file read whole as one JSON text (``-``: standard input; ``.gz``: decompressed), within
    ``--limit line-bytes``, a leading BOM skipped: a ``.json`` input of ``eval`` and of ``compare``."""
    with open_input(path) as handle:
        try:
            data = whole_file(path, handle, b"", limits.current().line_bytes)
        except (EOFError, zlib.error) as exc:
            raise InputError(f"cannot read compressed data: {exc}", path) from None
        except OSError as exc:
            raise InputError(
                f"cannot read compressed data: {exc}" if path.endswith(".gz") else f"cannot read: {exc.strerror}", path
            ) from None
    return data.removeprefix(BOM)


def _array_records(path: str, stats: PairingStats) -> Iterator[tuple[int, int, Record]]:
    """The elements of a ``.json`` file holding one array, numbered from 1."""
    data = read_whole(path)
    try:
        value = decode(data)
    except ValueError as exc:
        raise InputError(f"not valid JSON ({why_not_json(exc, data)})", path) from None
    if not isinstance(value, list):
        raise InputError("a .json input must hold an array of records (JSON Lines files end in .jsonl)", path)
    yield from _records(value, data)


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
    (msgspec, which reads long integers exactly in one pass, was measured and
    not taken: docs/performance-history.md, "Tried and dropped".)
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
        value = json.loads(content.decode("utf-8"))  # not json's guess of UTF-16 or UTF-32: JSON Lines is UTF-8
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # its time grows with the square of the digits: not read
            raise ValueError(
                f"an integer of more than {sys.get_int_max_str_digits():,} digits, more than Python reads"
            ) from None
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
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError(f"lone surrogate \\u{ord(item[exc.start]):04x} in string: not text") from None
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())


def why_not_json(exc: ValueError, content: bytes) -> str:
    """Why ``content`` is not JSON, in a line's words: where a byte that is not UTF-8 is (orjson only says
    that one is somewhere), a byte order mark named as one."""
    text = str(exc.args[0] if exc.args else exc)
    if "depth limit" in text or "nested too deeply" in text:
        return "nested deeper than 1,024 levels"
    if content.startswith(BOM):  # the file's own is skipped before: this one begins a later line
        return "a byte order mark (BOM) where only the file's first bytes may hold one"
    if isinstance(exc, UnicodeError) or "UTF-8" in text:
        try:
            content.decode("utf-8")
        except UnicodeDecodeError as bad:
            column = bad.start - content.rfind(b"\n", 0, bad.start)
            # A record's line is the error's own (file:line): within it, the column; a whole file, its line too.
            line = content.count(b"\n", 0, bad.start) + 1
            place = f"line {line} column {column}" if b"\n" in content else f"column {column}"
            return f"not valid UTF-8: byte 0x{content[bad.start]:02X} at {place} ({bad.reason})"
        return f"not valid UTF-8: {text}"
    return text


def file_size(path: str) -> int:
    """Size on disk (compressed size for a .gz); 0 when unknown."""
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


def _parse(content: "bytes | Record | Overlong") -> tuple[Any, str | None]:
    """(value, None) or (None, reason) for one line (or an already parsed record)."""
    kind = type(content)
    if kind is Record:
        value = content.value  # type: ignore[union-attr]
    elif kind is Overlong:
        return None, content.problem()  # type: ignore[union-attr]
    else:
        try:
            value = decode(content)  # type: ignore[arg-type]
        except ValueError as exc:
            return None, f"not valid JSON ({why_not_json(exc, content)})"  # type: ignore[arg-type]
    if not isinstance(value, dict):
        return None, f"expected a JSON object, got {type(value).__name__ if value is not None else 'null'}"
    return value, None


def duplicate_keys(content: "bytes | Record | Overlong", value: Any) -> list[str]:
    """The keys written twice in one object of a record's line (``{"name": "X", "name": "Y"}``), of which
    the parser keeps the last silently; empty for almost every line, found so: each key is followed by one
    colon, and every other colon is inside a string, where the parsed value holds it too; so the colons of
    the line and those of the parsed value written again by orjson (keys unescaped, strings' colons kept)
    differ by exactly the keys dropped. Only a colon written as an escape (``\\u003a``) breaks the count:
    such a line, and one whose counts differ, is read again by Python's json to name the keys. A record
    read from a whole-file array carries its own (``Record.duplicates``, found when the array was read)."""
    if type(content) is Record:
        return list(content.duplicates)  # type: ignore[union-attr]
    if type(content) is not bytes:
        return []
    written = content.count(b":")  # type: ignore[union-attr]
    if written < 2:
        return []
    # Only an escaped colon (\u003a) is missing from the line's count; other escapes (Go writes < and > as
    # \u003c, \u003e) change no colon, and keep the fast count.
    if b"\\u003" not in content or (b"\\u003a" not in content and b"\\u003A" not in content):  # type: ignore[operator]
        try:
            if orjson.dumps(value).count(b":") == written:
                return []
        except (TypeError, orjson.JSONEncodeError):  # an integer beyond 64 bits: read again below
            pass
    return _named_duplicates(content)  # type: ignore[arg-type]


def _named_duplicates(content: bytes) -> list[str]:
    """Each key written again in the same object, in order (the slow, exact reading)."""
    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        seen: set[str] = set()
        for key, _ in items:
            if key in seen:
                found.append(key)
            seen.add(key)
        return dict(items)

    try:
        json.loads(content.decode("utf-8"), object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return []
    return found


def duplicate_key_error(side: str, path: str, line: int, doc_id: str | None, keys: list[str]) -> DataError:
    """The record problem of ``duplicate_keys``: the record is scored with each key's last value, as read."""
    shown = ", ".join(repr(k) for k in dict.fromkeys(keys))
    return DataError(
        path,
        line,
        doc_id,
        f"{side} has key {shown} twice in one object ({len(keys)} duplicate key(s)): the last value of each is scored",
    )


class _KeyInText:
    """A key looked for in a line's raw text, before it is walked for: as written (``"key"``), or perhaps spelt
    with an escape (``\\u0063``, hex digits in either case) of one of its (ASCII) characters. A line with neither
    cannot hold the key; other escapes (accents, as Python's json.dumps writes them) cannot spell it."""

    __slots__ = ("written", "_escape")

    def __init__(self, key: str) -> None:
        self.written = f'"{key}"'.encode()
        codes = sorted({f"{ord(character):04x}" for character in key})
        either_case = ["".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in code) for code in codes]
        self._escape = re.compile(rf"\\u(?:{'|'.join(either_case)})".encode())

    def escaped(self, content: bytes) -> bool:
        # A backslash is rare and found by memchr; the search for an escape is not.
        return b"\\" in content and self._escape.search(content) is not None


_CONFIDENCE = b'"_confidence"'
_OLDER_KEY = _KeyInText("confidence")  # the older rich-value shape's key ("_confidence" does not hold it)


def may_hold_older_shape(*contents: "bytes | Record | Overlong | None") -> bool:
    """Whether records read from ``contents`` may hold the older rich-value shape: found in the raw
    text (cheap: most lines are never walked), or unknown (a parsed record, a key's letter escaped)."""
    for content in contents:
        if type(content) is bytes:
            if _OLDER_KEY.written in content or _OLDER_KEY.escaped(content):
                return True
        elif type(content) is Record:
            return True
    return False


def _gt_record(path: str, number: int, content: "bytes | Record | Overlong", stats: PairingStats) -> dict:
    value, problem = _parse(content)
    if problem:
        raise InputError(f"ground truth {problem}", path, number)
    # Confidences belong to predictions: ground truth carrying them is almost always the two
    # arguments swapped. Found in the raw line (cheap); counted, and the CLI warns.
    found = _CONFIDENCE in content if type(content) is bytes else holds_key(value, "_confidence")
    if found:
        stats.gt_with_confidence += 1
    return value


_BOX_KEY = _KeyInText("_bbox")  # its .written is json_text.BBOX_KEY


def carries_boxes(content: Any, value: Any) -> bool:
    """Whether a record (its raw line, and its parsed value) holds a ``_bbox`` key at any depth, so that
    Engine.compare collects its boxes (localisation.py): found in the raw line (cheap), the parsed value
    walked only for a line that escapes one of the key's letters."""
    if type(content) is bytes:
        return BBOX_KEY in content or (_BOX_KEY.escaped(content) and holds_key(value, "_bbox"))
    return holds_key(value, "_bbox")


_ALTERNATIVES_KEY = _KeyInText("_alternatives")  # its .written is json_text.ALTERNATIVES_KEY


def carries_alternatives(content: Any, value: Any) -> bool:
    """Whether a record holds an ``_alternatives`` key at any depth (a ground truth's acceptable values, or a
    prediction wrongly listing some), so that Engine.compare scores it: found as ``carries_boxes`` finds ``_bbox``."""
    if type(content) is bytes:
        return ALTERNATIVES_KEY in content or (_ALTERNATIVES_KEY.escaped(content) and holds_key(value, "_alternatives"))
    return holds_key(value, "_alternatives")


def goes_alone(content: Any, value: Any) -> bool:
    """Whether Engine.compare scores a record rather than the batch path: it holds ``_bbox`` (its boxes are
    collected there, ``carries_boxes``) or ``_alternatives`` (acceptable values are chosen there,
    ``carries_alternatives``), found in the raw line; a line escaping a letter of either key is walked. Two
    ``in`` searches and one search for a backslash: a regular expression for both keys costs more than both."""
    if type(content) is bytes:
        if BBOX_KEY in content or ALTERNATIVES_KEY in content:
            return True
        if b"\\" not in content:
            return False
    return carries_boxes(content, value) or carries_alternatives(content, value)


Key = Any  # an id as compared: a string as itself, a number or boolean tagged by its JSON type


def _id_of(record: dict, id_field: str) -> tuple[Key, str] | None:
    """(key, shown) of a record's id, compared as JSON values: ``1`` and ``"1"`` differ, ``1`` and
    ``1.0`` are the same number, ``true`` is no number; None when the record has no scalar id."""
    value = record.get(id_field)
    if isinstance(value, dict) and "_value" in value:
        value = value["_value"]
    if isinstance(value, str):
        return value, value
    if isinstance(value, bool):
        return ("boolean", value), json.dumps(value)
    if isinstance(value, (int, float)):
        return ("number", value), json.dumps(value)
    return None


Line = tuple[int, int, "bytes | Record | Overlong"]  # (line number, byte offset, content; b"" for a blank line)

# Pairing by line, the fields that name a document: where both records carry one and they
# disagree on more than MISALIGNED_TOLERANCE pairs, the files are out of step and the run stops.
ID_FIELDS = (
    "doc_id",
    "document_id",
    "docid",
    "id",
    "uuid",
    "guid",
    "file",
    "file_name",
    "filename",
    "file_path",
    "document",
    "document_name",
    "record_id",
    "page_id",
    "source_file",
)
_ID_RANK = {name.replace("_", ""): rank for rank, name in enumerate(ID_FIELDS)}  # names folded: docId, DOC-ID
MISALIGNED_TOLERANCE = 3
# Evidence of a shift (a prediction carrying another line's id) is sought among the ids of the
# same block of lines, so that a run split across worker processes finds exactly the same.
ALIGNMENT_BLOCK = 500
OUT_OF_STEP = "the two files look out of step"


@dataclass(frozen=True)
class Pairing:
    """How ground truth and predictions are paired, as the user asked.

    By ``id_field``, or by line; by line, the id-like ``check_ids`` of each pair are compared
    (None: ``--pair-by-line``, unchecked). A disagreement counts as evidence of misaligned
    files when the field is not one the schema scores (``scored``: an id the model extracts may
    simply be wrong) or was named by the user; otherwise only when the prediction carries the
    id of another line nearby (or the ground truth that of another prediction).
    """

    id_field: str | None = None
    strict: bool = False
    check_ids: tuple[str, ...] | None = ID_FIELDS
    user_named: bool = False
    scored: frozenset[str] = frozenset()


class _StepCheck:
    """Compares the document ids of line pairs; raises when the files are out of step."""

    def __init__(self, pairing: Pairing, pred_path: str, stats: PairingStats, stop: bool, id_key: "_IdKeys") -> None:
        self.stop = stop
        self.id_key = id_key
        self.fields = pairing.check_ids or ()
        self.trusted = pairing.user_named
        self.scored = pairing.scored
        self.pred_path = pred_path
        self.stats = stats
        self.block = -1
        self.gt_ids: dict[Key, int] = {}
        self.pred_ids: dict[Key, int] = {}

    def _fields(self, gt: dict, pred: dict) -> tuple[str, str] | None:
        """The id field both records carry, as each spells it: a field the user named (spelled alike), else the
        best-ranked usual id name, folded (``doc_id`` and ``docId`` are one field)."""
        if self.trusted:
            name = next((name for name in self.fields if name in gt and name in pred), None)
            return None if name is None else (name, name)
        return self.id_key.pair(gt, pred)

    def check(self, number: int, gt: dict, pred: dict, doc_id: str) -> DataError | None:
        names = self._fields(gt, pred)
        if names is None:
            return None
        name, pred_name = names
        ours, theirs = _id_of(gt, name), _id_of(pred, pred_name)
        if ours is None or theirs is None:
            return None
        self.stats.ids_compared += 1
        block = (number - 1) // ALIGNMENT_BLOCK
        if block != self.block:
            self.block = block
            self.gt_ids.clear()
            self.pred_ids.clear()
        if ours[0] == theirs[0]:
            self.gt_ids[ours[0]] = self.pred_ids[theirs[0]] = number
            return None
        gt_line, pred_line = self.gt_ids.get(theirs[0]), self.pred_ids.get(ours[0])
        self.gt_ids[ours[0]] = self.pred_ids[theirs[0]] = number
        if gt_line:
            why = f"the id of ground-truth line {gt_line}"
        elif pred_line:
            why = f"prediction line {pred_line} has this ground truth's id"
        elif self.trusted or name not in self.scored:
            why = "not the same document"
        else:
            return None  # a wrong id the model extracted: scored like any other field
        by_id = f"pair by id with --id-field {name}, or " if pred_name == name else ""
        error = DataError(
            self.pred_path,
            number,
            doc_id,
            f"ground truth {name} {_json(ours[1], ours[0])}, prediction {pred_name} "
            f"{_json(theirs[1], theirs[0])} ({why}): "
            f"{OUT_OF_STEP}; {by_id}pass --pair-by-line to pair by line regardless",
        )
        stats = self.stats
        stats.misaligned_pairs += 1
        if stats.first_misaligned is None:
            stats.first_misaligned = error
        if self.stop and stats.misaligned_pairs > MISALIGNED_TOLERANCE:
            raise out_of_step(stats.first_misaligned.as_dict())
        return error


def _fold(key: str) -> str:
    """A key's name as id names are compared: ``docId``, ``DOC-ID`` and ``doc_id`` are all ``docid``."""
    return key.lower().replace("_", "").replace("-", "")


def _rank(key: str, ranks: dict[str, int]) -> int:
    """A key's rank among ID_FIELDS, its name folded (len(ID_FIELDS): no id name), remembered in ``ranks``."""
    position = ranks[key] = _ID_RANK.get(_fold(key), len(ID_FIELDS))
    return position


def _id_key(record: dict, ranks: dict[str, int]) -> str | None:
    """The record's best-ranked key whose name, folded (``ID``, ``docId``, ``Document-ID``), is a usual
    document-id name; ``ranks`` caches the keys seen."""
    best, rank = None, len(ID_FIELDS)
    for key in record:
        position = ranks.get(key)
        if position is None:
            position = _rank(key, ranks)
        if position < rank:
            best, rank = key, position
    return best


class _IdKeys:
    """``_id_key`` for many records: records of one shape (the same keys in the same order, as a
    JSONL file's usually are) share the search for their id-like keys, done once per shape. One
    instance serves a pairing's document names and its id check, which ask about the same ground
    truth record one after the other: the last record's keys are kept for the second question."""

    SHAPES = 1024  # shapes remembered; a file of ever-new shapes searches each record itself

    def __init__(self) -> None:
        self.ranks: dict[str, int] = {}
        self.shapes: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.pred_shapes: dict[tuple[str, ...], dict[int, str]] = {}
        self.last: tuple[dict | None, tuple[str, ...]] = (None, ())

    def _ranked(self, record: dict) -> tuple[str, ...]:
        """The record's id-like keys, best-ranked first (remembered for its shape while there is room)."""
        shape = tuple(record)
        found = self.shapes.get(shape)
        if found is None:
            ranks = self.ranks
            ranked = sorted((ranks[key] if key in ranks else _rank(key, ranks), k, key) for k, key in enumerate(shape))
            found = tuple(key for position, _, key in ranked if position < len(ID_FIELDS))
            if len(self.shapes) < self.SHAPES:
                self.shapes[shape] = found
        return found

    def _of(self, record: dict) -> tuple[str, ...]:
        """``_ranked`` of the record asked about last (a pairing's document name, then its id check), kept."""
        last, found = self.last
        if record is not last:
            found = self._ranked(record)
            self.last = (record, found)
        return found

    def __call__(self, record: dict) -> str | None:
        found = self._of(record)
        return found[0] if found else None

    def pair(self, gt: dict, pred: dict) -> tuple[str, str] | None:
        """The best-ranked id key of ``gt`` that ``pred`` carries too, as each spells it: names are folded on
        both sides, so ``doc_id`` in the ground truth is compared with ``docId`` in the prediction."""
        found = self._of(gt)
        if not found:
            return None
        theirs = None
        for key in found:
            if key in pred:
                return key, key
            if theirs is None:
                theirs = self._spellings(pred)
            match = theirs.get(self.ranks[key])
            if match is not None:
                return key, match
        return None

    def _spellings(self, pred: dict) -> dict[int, str]:
        """A prediction's id-like keys by rank (the first of each), remembered for its shape while there is
        room; its key names are not kept beyond that (predictions are not ours to cache without bound)."""
        shape = tuple(pred)
        found = self.pred_shapes.get(shape)
        if found is None:
            found = {}
            for key in shape:
                rank = _ID_RANK.get(_fold(key), len(ID_FIELDS))
                if rank < len(ID_FIELDS):
                    found.setdefault(rank, key)
            if len(self.pred_shapes) < self.SHAPES:
                self.pred_shapes[shape] = found
        return found


def shared_id_fields(gt: dict, pred: dict) -> tuple[str, str] | None:
    """The id field two records both carry, as each spells it (names folded), or None (``stickler compare``)."""
    return _IdKeys().pair(gt, pred)


class _DocNames:
    """Names documents paired by line: by the ground truth's id when it carries one (the field named
    with --check-id, else a usual id name), else ``FILE:LINE``, so that documents from several shards
    or merged states never share a name as "line 12" of each would."""

    def __init__(self, pairing: Pairing, gt_path: str, id_key: _IdKeys) -> None:
        self.named = pairing.check_ids if pairing.user_named else None
        self.id_key = id_key
        self.prefix = ("<stdin>" if gt_path == STDIN else gt_path) + ":"

    def __call__(self, number: int, gt: dict) -> str:
        if self.named is not None:
            name = next((field for field in self.named if field in gt), None)
        else:
            name = self.id_key(gt)
        shown = None if name is None else record_id(gt, name)
        return shown or f"{self.prefix}{number}"


def out_of_step(first: dict[str, Any]) -> InputError:
    """The error that stops a run paired by line: its first out-of-step pair."""
    return InputError(
        f"{first['message']} (more than {MISALIGNED_TOLERANCE} pairs disagree)", first["source"], first["line"]
    )


def check_pairing_outcome(stats: dict[str, int], pairing: Pairing, pred_paths: list[str]) -> None:
    """What only the whole run's counts show: predictions that are mostly not JSON Lines, a
    ``--check-id`` field nobody carries."""
    check_predictions_readable(stats, pred_paths)
    check_named_ids_found(stats, pairing)


def check_named_ids_found(stats: dict[str, int], pairing: Pairing) -> None:
    """Fields named with --check-id that no pair carried on both sides checked nothing: a typo, most
    likely, which must not pass for a run found in step."""
    if pairing.user_named and pairing.check_ids and stats.get("paired", 0) and not stats.get("ids_compared", 0):
        names = ", ".join(map(repr, pairing.check_ids))
        raise UsageError(
            f"--check-id {names}: no pair of records carries it on both sides (as a string, number or "
            "boolean), so nothing was checked; name the field as the records spell it"
        )


def check_alignment(stats: dict[str, int], errors: list[dict[str, Any]]) -> None:
    """Raise when merged counts show the files out of step (work split across processes)."""
    if stats.get("misaligned_pairs", 0) > MISALIGNED_TOLERANCE:
        raise out_of_step(next(e for e in errors if OUT_OF_STEP in e["message"]))


# From this many prediction records on, more than half of them unreadable is not a result but a
# file that is not JSON Lines; below it, a broken record or two is reported like any other.
UNREADABLE_MIN_RECORDS = 10


def check_predictions_readable(stats: dict[str, int], paths: list[str]) -> None:
    """More than half of the prediction records unreadable is not a result: the file is not JSON Lines."""
    read, invalid = stats.get("pred_lines", 0), stats.get("invalid_predictions", 0)
    if read >= UNREADABLE_MIN_RECORDS and invalid * 2 > read:
        raise InputError(
            f"{invalid:,} of {read:,} prediction records are not JSON objects: is this a JSON "
            "Lines file (one JSON object per line)? Nothing was reported",
            ", ".join(paths),
        )


def ground_truth_lines(gt_path: str, stats: PairingStats) -> Iterator[Line]:
    """The ground truth's lines (blank ones as empty content), unparsed: given to the pairing
    functions as ``gt_lines`` when one reading must serve two pairings (``stickler diff``)."""
    return _lines(gt_path, stats, progress=True, keep_blank=True)


def pair_by_line(
    gt_path: str,
    pred_path: str,
    stats: PairingStats,
    pairing: Pairing = Pairing(),
    gt_lines: Iterator[Line] | None = None,
) -> Iterator[Pair]:
    """Pair the n-th ground truth line with the n-th prediction line."""
    return pair_lines(line_pairs(gt_path, pred_path, stats, gt_lines), gt_path, pred_path, stats, pairing)


def line_pairs(
    gt_path: str, pred_path: str, stats: PairingStats, gt_lines: Iterator[Line] | None = None
) -> Iterator[tuple[Line | None, Line | None]]:
    """The raw line pairs ``pair_lines`` takes: read without parsing (cheap), for worker processes.
    Blank lines are kept, so the n-th pair is line n of each file."""
    gt = gt_lines if gt_lines is not None else ground_truth_lines(gt_path, stats)
    return zip_longest(gt, _lines(pred_path, stats, keep_blank=True))


def pair_lines(
    lines: Iterable[tuple[Line | None, Line | None]],
    gt_path: str,
    pred_path: str,
    stats: PairingStats,
    pairing: Pairing = Pairing(),
    stop_out_of_step: bool = True,
) -> Iterator[Pair]:
    """Parse and pair raw (ground truth, prediction) lines; either side is None past its file's
    end, and empty content where a line is blank: a missing record at that line. Out-of-step
    pairs are counted, and stop the run unless ``stop_out_of_step`` is off (a worker's chunk:
    its parent decides on the count over every chunk, ``check_alignment``)."""
    id_key = _IdKeys()  # one search for a record's id keys serves its name and its id check
    steps = _StepCheck(pairing, pred_path, stats, stop_out_of_step, id_key) if pairing.check_ids else None
    name_of = _DocNames(pairing, gt_path, id_key)
    for gt_item, pred_item in lines:
        blank = pred_item is not None and not pred_item[2]
        if blank:
            pred_item = None  # no prediction on this line
        if gt_item is None or not gt_item[2]:
            if pred_item is None:
                continue
            number = pred_item[0]
            stats.pred_lines += 1
            stats.unpaired_predictions += 1
            # A prediction without ground truth is reported, not scored (but its conformance to
            # the schema is counted).
            pred, problem = _parse(pred_item[2])
            stats.invalid_predictions += problem is not None
            why = (
                "more prediction lines than ground-truth lines"
                if gt_item is None
                else "that line of the ground truth is blank"
            )
            yield _orphan(
                pred_path,
                number,
                f"prediction has no ground truth ({why}); not scored",
                pred=pred,
                older_shape=may_hold_older_shape(pred_item[2]),
            )
            continue
        gt_number, _, gt_content = gt_item
        stats.gt_lines += 1
        gt = _gt_record(gt_path, gt_number, gt_content, stats)
        doc_id = name_of(gt_number, gt)
        errors: list[DataError] = []
        if twice := duplicate_keys(gt_content, gt):
            errors.append(duplicate_key_error("ground truth", gt_path, gt_number, doc_id, twice))
        if pred_item is None:
            stats.missing_predictions += 1
            why = "that line of the predictions is blank" if blank else "fewer prediction lines"
            errors.append(
                DataError(pred_path, None, doc_id, f"no prediction for this ground truth ({why}); scored as empty")
            )
            yield Pair(
                doc_id,
                gt,
                {},
                gt_number,
                None,
                errors,
                older_shape=may_hold_older_shape(gt_content),
                alone=goes_alone(gt_content, gt),
            )
            continue
        pred_number, _, pred_content = pred_item
        stats.pred_lines += 1
        stats.paired += 1
        pred, problem = _parse(pred_content)
        if problem:
            if pairing.strict:
                raise InputError(f"prediction {problem}", pred_path, pred_number)
            stats.invalid_predictions += 1
            errors.append(DataError(pred_path, pred_number, doc_id, f"prediction {problem}; scored as empty"))
            yield Pair(
                doc_id,
                gt,
                {},
                gt_number,
                pred_number,
                errors,
                pred_invalid=True,
                older_shape=may_hold_older_shape(gt_content),
                alone=goes_alone(gt_content, gt),
            )
            continue
        if twice := duplicate_keys(pred_content, pred):
            errors.append(duplicate_key_error("prediction", pred_path, pred_number, doc_id, twice))
        if steps is not None:
            error = steps.check(gt_number, gt, pred, doc_id)
            if error is not None:
                errors.append(error)
        yield Pair(
            doc_id,
            gt,
            pred,
            gt_number,
            pred_number,
            errors,
            older_shape=may_hold_older_shape(gt_content, pred_content),
            alone=goes_alone(gt_content, gt) or goes_alone(pred_content, pred),
        )


def _keeps_lines(path: str) -> bool:
    """Whether an indexed file's lines must be kept as read: it cannot be read again by offset
    (compressed, standard input, a pipe or process substitution, a .json array)."""
    if path == STDIN or path.endswith(".gz") or is_json_array(path):
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True


def pair_by_id(
    gt_path: str, pred_path: str, stats: PairingStats, pairing: Pairing, gt_lines: Iterator[Line] | None = None
) -> Iterator[Pair]:
    """Pair records whose ``pairing.id_field`` values are equal (as JSON values); duplicates are input errors."""
    id_field = pairing.id_field
    assert id_field
    # Predictions are indexed by id as (line, byte offset) and read back with a seek; a file
    # that cannot be read twice (compressed, a pipe) has its lines kept instead.
    keep_lines = _keeps_lines(pred_path)
    index: dict[Key, tuple[int, int | bytes | Record, str]] = {}
    early: list[Pair] = []
    kept, most = 0, limits.current().kept_bytes
    for number, offset, content in _lines(pred_path, stats):
        if keep_lines and type(content) is bytes:
            kept += len(content)
            if kept > most:
                raise InputError(
                    f"pairing by id keeps the lines of a compressed or piped prediction file in memory, "
                    f"and they pass {most:,} bytes: decompress it to a plain file (indexed by position "
                    "instead), or raise --limit kept-bytes=...",
                    pred_path,
                    number,
                )
        stats.pred_lines += 1
        pred, problem = _parse(content)
        if problem:
            if pairing.strict:
                raise InputError(f"prediction {problem}", pred_path, number)
            stats.unpaired_predictions += 1
            stats.invalid_predictions += 1
            early.append(
                _orphan(pred_path, number, f"prediction {problem}; its id cannot be read, so it is not scored")
            )
            continue
        found = _id_of(pred, id_field)
        if found is None:
            stats.unpaired_predictions += 1
            early.append(_orphan(pred_path, number, f"prediction has no {id_field!r}; not scored", pred=pred))
            continue
        key, shown = found
        if key in index:
            raise InputError(
                f"duplicate {id_field} {_json(index[key][2], key)} (first on line {index[key][0]})", pred_path, number
            )
        # A record read from an array (a .jsonl holding one) is no line to read back at an offset: kept.
        index[key] = (number, content if keep_lines or type(content) is not bytes else offset, shown)
    yield from early

    seen: dict[Key, int] = {}
    with contextlib.nullcontext() if keep_lines else open_input(pred_path) as handle:
        for gt_number, _, gt_content in gt_lines if gt_lines is not None else ground_truth_lines(gt_path, stats):
            if not gt_content:
                continue  # a blank line: nothing to pair by id
            stats.gt_lines += 1
            gt = _gt_record(gt_path, gt_number, gt_content, stats)
            found = _id_of(gt, id_field)
            if found is None:
                what = (
                    f" has no {id_field!r}"
                    if gt.get(id_field) is None
                    else (f"'s {id_field!r} is {_kind(gt[id_field])}, not a string, number or boolean")
                )
                raise InputError(f"ground truth{what}", gt_path, gt_number)
            key, shown = found
            if key in seen:
                raise InputError(
                    f"duplicate {id_field} {_json(shown, key)} (first on line {seen[key]})", gt_path, gt_number
                )
            seen[key] = gt_number
            errors: list[DataError] = []
            if twice := duplicate_keys(gt_content, gt):
                errors.append(duplicate_key_error("ground truth", gt_path, gt_number, shown, twice))
            location = index.pop(key, None)
            if location is None:
                stats.missing_predictions += 1
                errors.append(DataError(pred_path, None, shown, "no prediction with this id; scored as empty"))
                yield Pair(
                    shown,
                    gt,
                    {},
                    gt_number,
                    None,
                    errors,
                    older_shape=may_hold_older_shape(gt_content),
                    alone=goes_alone(gt_content, gt),
                )
                continue
            pred_number, where, _ = location
            pred_content = _stored(handle, where)
            pred, _ = _parse(pred_content)
            stats.paired += 1
            if twice := duplicate_keys(pred_content, pred):
                errors.append(duplicate_key_error("prediction", pred_path, pred_number, shown, twice))
            yield Pair(
                shown,
                gt,
                pred,
                gt_number,
                pred_number,
                errors,
                older_shape=may_hold_older_shape(gt_content, pred_content),
                alone=goes_alone(gt_content, gt) or goes_alone(pred_content, pred),
            )
        for key, (number, where, shown) in sorted(index.items(), key=lambda item: item[1][0]):
            stats.unpaired_predictions += 1
            pred_content = _stored(handle, where)
            pred, _ = _parse(pred_content)
            yield _orphan(
                pred_path,
                number,
                f"prediction {id_field} {_json(shown, key)} has no ground truth; not scored",
                shown,
                pred,
                may_hold_older_shape(pred_content),
            )


def _kind(value: Any) -> str:
    return "an object" if isinstance(value, dict) else "a list" if isinstance(value, list) else type(value).__name__


def _json(shown: str, key: Key) -> str:
    """An id as written in the data: strings quoted, numbers and booleans bare."""
    return repr(shown) if isinstance(key, str) else shown


def _stored(handle: BinaryIO | None, where: int | bytes | Record) -> bytes | Record:
    """An indexed prediction's line: kept as it was read, or read back at its byte offset."""
    if not isinstance(where, int):
        return where
    handle.seek(where)  # type: ignore[union-attr]
    return handle.readline().strip().removeprefix(BOM)  # type: ignore[union-attr]


def _orphan(
    source: str, line: int, message: str, doc_id: str | None = None, pred: dict | None = None, older_shape: bool = False
) -> Pair:
    """A prediction that cannot be scored: carried to report its error (and, when it was read,
    to count its conformance to the schema)."""
    return Pair(doc_id or "", None, pred, 0, line, [DataError(source, line, doc_id, message)], older_shape=older_shape)


def check_readable(*paths: str) -> None:
    """Fail before any work when an input file is missing or unreadable."""
    for path in paths:
        if path == STDIN:
            stdin_descriptor()
            continue
        p = Path(path)
        if not p.exists():
            raise InputError("file not found", path)
        if p.is_dir():
            raise InputError("is a directory, expected a JSONL file", path)
        if not p.is_file():  # a pipe (mkfifo, <(...)) is read once: opening it now would lose it
            if not os.access(path, os.R_OK):
                raise InputError("cannot read: permission denied", path)
            continue
        open_input(path).close()


def parse_record(content: "bytes | Record | Overlong") -> tuple[Any, str | None]:
    """(record, None), or (None, why not) for a line that is not one JSON object: one line read
    as pairing reads it (``stickler compare`` picks one record this way)."""
    return _parse(content)


def record_id(record: dict, id_field: str | None = None) -> str | None:
    """A record's document id as shown in messages (strings as written, numbers and booleans as
    JSON): that of ``id_field``, or without one, of the first of ``ID_FIELDS`` the record has
    (names folded, as pairing by line finds them: ``docId``, ``Document-ID``); None when absent."""
    if id_field is None:
        id_field = _id_key(record, {})
        if id_field is None:
            return None
    found = _id_of(record, id_field)
    return None if found is None else found[1]


def sample(path: str, count: int) -> Iterator[tuple[int, Any, str | None]]:
    """(line, value, None), or (line, None, why not), for the first ``count`` records of a file, read
    as pairing reads them (``stickler schema infer``): a line that is not a JSON object is its why-not."""
    stats = PairingStats()
    for taken, (number, _, content) in enumerate(_lines(path, stats)):
        if taken >= count:
            return
        value, problem = _parse(content)
        yield number, value, problem
