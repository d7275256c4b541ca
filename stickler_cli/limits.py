"""Bounds on what untrusted input may cost: one named value each, raisable by the user.

A schema, a state file and every data record are untrusted (docs/trust.md, "Trust"); each
way they could take unbounded time or memory has a bound here. The user raises one
on the command line (``--limit line-bytes=256MiB``, repeatable) or in
``[tool.stickler.limits]`` of pyproject.toml; nothing read from the input can.

The bounds in force are process-wide (``current()``): set once by the CLI before any
work, and handed to worker processes with the plan.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .errors import UsageError, suggest


@dataclass(frozen=True)
class Limits:
    """Every bound, by the name the user writes (underscores as dashes)."""

    line_bytes: int = 64 * 2**20  # one JSONL line (or a whole .json array file); longer lines are skipped and counted
    # Prediction lines held in memory to pair by id when the file cannot be read twice (.gz, a pipe); and what
    # `stickler split` holds: its prediction lines (every packet until its ground truth comes) and a page table's
    # cells (characters). A bound on the input held: the objects read from it take a few times as much memory.
    kept_bytes: int = 2**30
    llm_response_bytes: int = 2**20  # one LLMComparator response body; a longer one fails that comparison
    # What a schema's LLMComparator options may ask for at most: seconds per request (its `timeout`),
    # retries per comparison (`max_retries`), requests in flight (`concurrency`).
    llm_seconds: float = 300.0
    llm_retries: int = 10
    llm_concurrency: int = 64
    # Requests the run may send to judges (LLMComparator fields together): None for no bound. The run stops, exit
    # 2, before the request that would go past it (docs/comparators/llm.md, "The bill"); 0 sends none at all.
    judge_calls: int | None = None
    # Subschemas nested in one another (through $ref too), and objects compared inside one another. Each
    # level costs stack in the checks a schema goes through; far deeper than any real schema.
    schema_depth: int = 64
    # Bytes of a schema file, and of each file its references read (--schema-resource files too): read up to the
    # bound and no further, so /dev/zero or a multi-gigabyte file is refused rather than read until memory runs out.
    schema_bytes: int = 16 * 2**20
    # Bytes of a state file (`stickler merge`, `diff` of states): read up to the bound and no further, as schemas
    # are. A state holds a few hundred bytes a document and field; its JSON takes several times as much memory.
    state_bytes: int = 2**30
    # Subschemas visited when the schema is compiled, the target of a $ref counted at every use: definitions
    # that each refer to the next twice expand exponentially (2 KB of schema, 2^30 subschemas).
    schema_nodes: int = 100_000
    # Fields of the compiled plan: one row each in every report, one comparison each per document.
    plan_fields: int = 10_000
    # Seconds one `pattern` / `patternProperties` match may take; a match that takes longer counts as not
    # matching and is reported (a pattern such as ^(a|aa)+$ backtracks exponentially on 40 characters).
    regex_seconds: float = 0.1
    # Timed-out matches (all patterns together) after which no pattern is tried for the rest of the run
    # (in each process): a schema of a thousand hostile patterns costs regex_timeouts x regex_seconds.
    regex_timeouts: int = 10
    # Units all the patterns of one schema may compile to, about 260 bytes each: the engine writes a repeat
    # out its minimum number of times (a{10000000} alone takes 2.6 GB).
    regex_size: int = 100_000
    # Characters of a value an `iri` / `iri-reference` format check reads when formats are asserted: the checker
    # (rfc3987-syntax, a general parser) takes about a millisecond and 60 KB per character, 42 s and 1.3 GB on
    # 180 KB. A longer value is counted as not conforming to its format, and reported.
    iri_check_chars: int = 1_000
    # Seconds jsonschema may take to check one record (the compiled checker visits each value once per
    # subschema): a schema whose anyOf/$ref revisit a value level after level costs 2^depth without it. The
    # asserted format checks of a record count against it too, in either checker.
    record_check_seconds: float = 1.0
    # Records over that time after which no more records are checked in the run (each is "unchecked").
    record_check_timeouts: int = 10
    # Failing comparisons (FD/FA/FN) kept per field path for the HTML report's field panels: the first ones in
    # input order. Each is one explained comparison held until the report is written (values cut to
    # analysis.SAMPLE_VALUE_CHARS), so memory stays flat at any input size.
    failures_per_field: int = 20
    # Comparisons one document's explanation holds (the worst documents of every report, --show-errors,
    # --non-matches, the failing comparisons sampled for the HTML report, `stickler compare`): the first ones
    # in the order the report lists them, then failing ones (FD, FA, FN) up to as many again (engine.result.Trace);
    # the rest are only counted, by type, and said as "and N more". One
    # list of a million items is a million comparisons (a few hundred bytes each, more in a report).
    explain_items: int = 1000
    # Acceptable values one ground-truth value lists in `_alternatives` (docs/ground-truth.md): each is
    # scored against the prediction, and in a list each multiplies the item's row of the similarity matrix. Past it
    # the first ones are scored and the record is reported, naming the field.
    alternatives: int = 100
    # Examples kept per field and outcome of the cosmetic-or-real classification of FDs (cosmetic.py): the
    # first ones in input order, each value cut to cosmetic.EXAMPLE_CHARS characters.
    cosmetic_examples: int = 3
    # Records of each file `stickler schema infer` (and `eval` without a schema) reads to infer a schema.
    infer_records: int = 10_000
    # Predicted boxes (leaves carrying `_bbox`) kept for localisation mAP, which ranks them all: about 21 bytes
    # each in memory, more in a state file. Past it the run stops, naming this limit.
    box_detections: int = 5_000_000
    # Values of each --slice-by path kept apart (the smallest labels in code-point order; the rest pooled as
    # "(other)", slicing.py), and the characters of a value kept (longer values cut: they share a slice).
    slice_values: int = 20
    slice_value_chars: int = 200
    # What went wrong in a list (docs/why-it-fails.md, "What went wrong in a list"; engine/row_errors.py): a list of more item
    # pairs than list-classify-cells is not classified (its open rows are counted as unclassified), so the text
    # comparisons of one list stay below twice this; the lists with the most labelled rows kept per list field
    # as examples; and the settings of the labels (similarities from 0 to 1; tail rows a whole number).
    list_classify_cells: int = 10_000
    list_examples: int = 5
    list_like_similarity: float = 0.5
    list_text_similarity: float = 0.8
    list_text_margin: float = 0.1
    list_tail_rows: int = 2
    # Scoring processes (--workers) per core this run may use: more only compete for the cores (64 on 2 cores
    # spawned 64 processes, 99,999 were killed); a larger --workers is lowered to it, with a warning. Never
    # more processes than the input has chunks of work (parallel.CHUNK_SIZE documents) either.
    workers_per_core: int = 1
    # Bootstrap resamples (--bootstrap) of --ci and diff: each is a pass over every document and keeps one row of
    # figures per field until the intervals are read (about 48 bytes a field).
    bootstrap_resamples: int = 100_000


DEFAULT = Limits()
_current = DEFAULT


def current() -> Limits:
    """The bounds in force in this process."""
    return _current


def use(limits: Limits) -> None:
    """Make ``limits`` the bounds in force (the CLI, and each worker process at start)."""
    global _current
    _current = limits


READ_CHUNK = 2**20  # a bounded file is read this much at a time (one read of the whole bound costs an mmap)


class TooLarge(Exception):
    """A file larger than its bound: the reason, to be said of the file."""


def read_within(path: str | Path, name: str) -> bytes:
    """A file's bytes, at most the bound ``name`` (``schema-bytes``, ``state-bytes``) of them, so that a huge
    file or an endless one (``/dev/zero``, a pipe that never closes its end) stops at the bound instead of
    filling memory. OSError as ``open`` raises it; TooLarge past the bound."""
    limit = getattr(current(), name.replace("-", "_"))
    chunks: list[bytes] = []
    total = 0
    with open(path, "rb") as handle:
        while total <= limit:
            chunk = handle.read(min(READ_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    if total > limit:
        raise TooLarge(f"holds over {limit:,} bytes (the {name} limit; --limit {name}=N raises it)")
    return b"".join(chunks)


def read_json_within(path: str, name: str, what: str) -> Any:
    """The JSON value of a file given to read back (a baseline, an agree report), read within the bound ``name``:
    InputError (exit 2) naming the file when it is too large, cannot be read or is not JSON (``what`` names the
    kind of file in the message: "not a baseline file: not JSON (...)"). What the value holds is the caller's to
    check."""
    import orjson

    from .errors import InputError

    try:
        data = read_within(path, name)
    except TooLarge as exc:
        raise InputError(str(exc), path) from None
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror or exc}", path) from None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not a {what}: not JSON ({exc}; truncated?)", path) from None


ZERO_ALLOWED = frozenset({"judge-calls"})  # a bound of 0 means none at all (not "no bound")
AT_MOST_ONE = frozenset({"list-like-similarity", "list-text-similarity", "list-text-margin"})
NAMES = {f.name.replace("_", "-"): f for f in fields(Limits)}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(|k|ki|m|mi|g|gi)(?:b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 10**3, "ki": 2**10, "m": 10**6, "mi": 2**20, "g": 10**9, "gi": 2**30}


def _value(name: str, text: str, kind: type, where: str) -> int | float:
    if kind is float:
        try:
            number = float(text)
        except ValueError:
            raise UsageError(f"{where} {name}: expected a number, got {text!r}") from None
    else:
        match = _SIZE.match(text)
        if not match:
            raise UsageError(
                f"{where} {name}: expected a whole number (units k, M, G, KiB, MiB, GiB allowed), got {text!r}"
            )
        number = float(match.group(1)) * _UNITS[match.group(2).lower()]
        if number != int(number):
            raise UsageError(f"{where} {name}: expected a whole number, got {text!r}")
        number = int(number)
    if not number > 0 and not (name in ZERO_ALLOWED and number == 0):
        raise UsageError(f"{where} {name}: must be above 0, got {text!r}")
    if name in AT_MOST_ONE and number > 1:
        raise UsageError(f"{where} {name}: a similarity, must be at most 1, got {text!r}")
    return number


def parse(
    items: list[str] | None,
    table: dict | None = None,
    base: Limits = DEFAULT,
    table_origin: str = "pyproject.toml [tool.stickler.limits]",
) -> Limits:
    """``base`` with the bounds of a ``[tool.stickler.limits]`` table, then ``NAME=VALUE`` items, applied."""
    changes: dict[str, int | float] = {}
    given = [(str(k), str(v), table_origin) for k, v in (table or {}).items()]
    for item in items or []:
        name, sep, text = item.partition("=")
        if not sep:
            raise UsageError(f"--limit takes NAME=VALUE, got {item!r}; names: {', '.join(NAMES)}")
        given.append((name.strip(), text.strip(), "--limit"))
    for name, text, where in given:
        field = NAMES.get(name)
        if field is None:
            raise UsageError(f"{where}: unknown limit {name!r}{suggest(name, NAMES)}; names: {', '.join(NAMES)}")
        kind = float if isinstance(getattr(DEFAULT, field.name), float) else int
        changes[field.name] = _value(name, text, kind, where)
    return dataclasses.replace(base, **changes)
