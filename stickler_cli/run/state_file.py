"""Run states on disk: ``--save-state`` writes one, ``stickler merge`` adds them up.

A state file is the accumulator's mergeable state as JSON, with the schema
embedded (so merging needs no schema file), its hash (so states of different
schemas are never added together) and a digest of the embedded schema itself.

A state file is untrusted input: it may have been damaged, edited or made by
hand. Every value is checked on load (types, shapes, counts that cannot be
negative, lengths that follow from the schema, totals that must agree with one
another) before anything is merged, and a bad value is an input error naming
the file and the JSON pointer of the value. States that workers send back in
the same run are not checked again: they never left the process tree.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from typing import Any, Sequence

from .. import limits
from .accumulate import HISTOGRAM_BINS, STATE_VERSION, Accumulator, Analysis, schema_digest
from ..errors import InputError, SchemaError, SticklerError
from .evaluate import Evaluation
from ..json_text import MAX_INTEGER, as_written
from ..plan import Plan
from ..analyses import rollup
from .reader import decode
from ..reporters import json_report
from ..schema.keywords import escape as _token

SLACK = 1e-9  # relative rounding allowed where float sums of the same figures are compared


def save(path: str, acc: Accumulator) -> None:
    """Write ``acc``'s state atomically (a crash never leaves half a file). The worst documents are
    kept whole, so the state may hold what orjson cannot write (integers beyond 64 bits). The run must have kept
    its document index (``Analysis(index=True)``): a state without it could not be merged."""
    if len(acc.index) != acc.document_count:
        raise SticklerError(f"this run kept no index of its {acc.document_count:,} documents, which a saved state "
                            "needs: score it with Analysis(index=True)")
    json_report.write(path, json_report.dumps(acc.get_state(), indent=False))


class BadState(Exception):
    """A value of a state file that cannot be right, at a JSON pointer."""

    def __init__(self, pointer: str, message: str) -> None:
        super().__init__(message)
        self.pointer = pointer or "/"
        self.message = message


def _bad(pointer: str, message: str) -> BadState:
    return BadState(pointer, message)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _is_int(value: Any) -> bool:
    return type(value) is int




def _is_number(value: Any) -> bool:
    kind = type(value)
    return (kind is float and math.isfinite(value)) or (kind is int and -MAX_INTEGER <= value <= MAX_INTEGER)


def _count(value: Any, pointer: str) -> int:
    """A non-negative integer, at most MAX_INTEGER."""
    if not _is_int(value) or value < 0:
        raise _bad(pointer, f"must be a non-negative integer, got {_shown(value)}")
    if value > MAX_INTEGER:
        raise _bad(pointer, f"must be at most 2^53 (9,007,199,254,740,992), got {_shown(value)}")
    return value


def _floats(values: list, pointer: str) -> Any:
    """``values`` (ints and floats, already typed) as a float64 array; an integer too large for one is located."""
    import numpy as np

    try:
        return np.asarray(values, dtype=np.float64)
    except OverflowError:
        k = next(k for k, v in enumerate(values) if not _is_number(v))
        raise _bad(f"{pointer}/{k}", f"must be a finite number, got {_shown(values[k])}") from None


def _number(value: Any, pointer: str, low: float | None = None, high: float | None = None) -> float:
    """A finite number, within [low, high] when given (with rounding slack)."""
    if not _is_number(value):
        raise _bad(pointer, f"must be a finite number, got {_shown(value)}")
    slack = SLACK * max(1.0, abs(high or 0.0))
    if (low is not None and value < low - slack) or (high is not None and value > high + slack):
        raise _bad(pointer, f"must be between {low:g} and {high:g}, got {as_written(value)}")
    return value


def _object(value: Any, pointer: str, keys: Sequence[str] | None = None) -> dict:
    """A JSON object; with ``keys``, holding exactly those."""
    if not isinstance(value, dict):
        raise _bad(pointer, f"must be an object, got {type(value).__name__}")
    if keys is not None:
        for key in keys:
            if key not in value:
                raise _bad(pointer, f"missing key {key!r}")
        for key in value:
            if key not in keys:
                raise _bad(f"{pointer}/{_token(key)}", "unknown key")
    return value


def _array(value: Any, pointer: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        raise _bad(pointer, f"must be an array, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise _bad(pointer, f"must hold {length} values, holds {len(value)}")
    return value


def _counts(values: Any, pointer: str, length: int | None = None) -> list[int]:
    """An array of non-negative integers (checked in one pass, located only when one is bad)."""
    values = _array(values, pointer, length)
    if not all(type(v) is int and 0 <= v <= MAX_INTEGER for v in values):
        for k, v in enumerate(values):
            _count(v, f"{pointer}/{k}")
    return values


def _numbers(values: Any, pointer: str, length: int | None = None, low: float | None = None,
             high: float | None = None) -> list[float]:
    values = _array(values, pointer, length)
    for k, v in enumerate(values):
        _number(v, f"{pointer}/{k}", low, high)
    return values


# -- the parts every state shares, checked before its schema is compiled ---------------------------

def _header(state: Any) -> dict:
    """The version, the schema and its hash and digest: what is needed to compile the plan."""
    if not isinstance(state, dict) or "schema_sha256" not in state or "state_version" not in state:
        raise _bad("/", "not a stickler state file (written by `stickler eval --save-state`)")
    if state["state_version"] != STATE_VERSION:
        raise _bad("/state_version", f"state version {_shown(state['state_version'])} is not supported (this "
                                     f"stickler reads and writes {STATE_VERSION}; save the state again)")
    sha = state["schema_sha256"]
    if not isinstance(sha, str) or len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha):
        raise _bad("/schema_sha256", f"must be a sha256 as 64 lower-case hexadecimal digits, got {_shown(sha)}")
    if not isinstance(state.get("schema"), dict):
        raise _bad("/schema", "state file has no embedded schema")
    if not isinstance(state.get("schema_source"), str):
        raise _bad("/schema_source", f"must be a string, got {_shown(state.get('schema_source'))}")
    resources = state.get("schema_resources", {})
    if not isinstance(resources, dict) or not all(isinstance(d, (dict, bool)) for d in resources.values()):
        raise _bad("/schema_resources", "must map URIs to the schema documents read with the schema")
    if state.get("schema_formats_asserted", True) is not True:
        raise _bad("/schema_formats_asserted", f"must be true when present, got {_shown(state['schema_formats_asserted'])}")
    if state.get("schema_digest") != schema_digest(state["schema"], resources):
        raise _bad("/schema", "the embedded schema does not match the state's schema_digest: the state was "
                              "altered after it was saved")
    return state


# -- everything else, against the plan -------------------------------------------------------------

def check(state: dict, plan: Plan) -> None:
    """Every value of ``state`` (whose header has been checked) is possible for a run of ``plan``;
    raises BadState at the first that is not."""
    fresh = Accumulator(plan).get_state()
    _object(state, "", list(fresh))
    size = len(plan.fields)
    paths = [f.path for f in plan.fields]
    fields = _array(state["fields"], "/fields", size)
    for k, (given, path) in enumerate(zip(fields, paths)):
        if given != path:
            raise _bad(f"/fields/{k}", f"must be {path!r}, the schema's field there, got {_shown(given)}")
    n = _count(state["document_count"], "/document_count")
    score_sum = _number(state["score_sum"], "/score_sum", 0.0, float(n))
    counts = _array(state["counts"], "/counts", size)
    for k, row in enumerate(counts):
        _counts(row, f"/counts/{k}", 5)
    _check_unopened(state["unopened"], counts, plan)
    _check_similarity_bins(state["similarity_bins"], counts, plan)
    top = [f.index for f in plan.root.fields]
    overall = [sum(counts[i][c] for i in top) for c in range(5)]
    if _counts(state["overall"], "/overall", 5) != overall:
        raise _bad("/overall", f"must be the sum of the top-level fields' counts, {overall}, "
                               f"got {_shown(state['overall'])}")
    score_n = _counts(state["field_score_n"], "/field_score_n", size)
    sums = _array(state["field_score_sum"], "/field_score_sum", size)
    for k, (total, count) in enumerate(zip(sums, score_n)):
        _number(total, f"/field_score_sum/{k}", 0.0, float(count))
    histogram = _counts(state["score_histogram"], "/score_histogram", HISTOGRAM_BINS)
    if sum(histogram) != n:
        raise _bad("/score_histogram", f"counts {sum(histogram)} documents, the state {n}")
    _check_confidence(state["confidence"], size)
    _check_boxes(state["boxes"], size)
    _check_errors(state["errors"])
    stats = _object(state["stats"], "/stats", list(fresh["stats"]))
    for key, value in stats.items():
        _count(value, f"/stats/{_token(key)}")
    checked = _check_conformance(state["conformance"])
    _check_reconciled(stats, n, checked)
    worst_kept = _count(state["worst_kept"], "/worst_kept")
    _check_worst(state["worst"], worst_kept, n)
    _check_failures(state["failures"], _count(state["failures_kept"], "/failures_kept"), plan)
    lines = _object(state["lines"], "/lines", list(fresh["lines"]))
    for kind, rows in lines.items():
        for k, row in enumerate(_array(rows, f"/lines/{kind}")):
            _object(row, f"/lines/{kind}/{k}")
    _check_documents(state, n, size, score_sum, counts, sums, score_n)
    _check_index(state["document_index"], n)
    _check_slices(state["slices"], n, counts)
    _check_list_errors(state["list_errors"], plan, n)
    _check_cosmetic(state["cosmetic"], plan, counts)


def _check_index(block: Any, n: int) -> None:
    """The documents' digests and lines (document_index.py): a digest and a line for each of the ``n`` documents,
    packed, and the files they came from, whose documents add up to ``n``. Decoded in place (merging reads the
    arrays)."""
    from .document_index import KEYS, unpack

    block = _object(block, "/document_index", KEYS)
    total = 0
    for k, run in enumerate(_array(block["sources"], "/document_index/sources")):
        at = f"/document_index/sources/{k}"
        if not (isinstance(run, list) and len(run) == 2 and isinstance(run[0], str)):
            raise _bad(at, f"must be a [file name, documents] pair, got {_shown(run)}")
        if _count(run[1], f"{at}/1") < 1:
            raise _bad(f"{at}/1", "must be at least 1")
        total += run[1]
    if total != n:
        raise _bad("/document_index/sources", f"counts {total:,} documents, the state {n:,}")
    for name, dtype in (("digests", "<u8"), ("lines", "<u4")):
        try:
            block[name] = unpack(block[name], dtype, n)
        except ValueError as exc:
            raise _bad(f"/document_index/{name}", str(exc)) from None


def _check_slices(block: Any, n: int, counts: list[list[int]]) -> None:
    """Per slicing path, its values' counts (slicing.py): each a partition of the run's documents, so the
    documents and counts add up to the state's; at most ``max_values`` ordinary values; moments that some
    documents could have (0 ≤ y ≤ x per document: Σy² ≤ Σxy ≤ Σx², Σx ≤ Σx² ≤ (Σx)², as for y)."""
    from ..report.gates import is_slice_path
    from ..analyses.slicing import MOMENTS, SPECIAL

    block = _object(block, "/slices", ("max_values", "paths"))
    cap = _count(block["max_values"], "/slices/max_values")
    if cap < 1:
        raise _bad("/slices/max_values", "must be at least 1")
    size = len(counts)
    for path, values in _object(block["paths"], "/slices/paths").items():
        where = f"/slices/paths/{_token(path)}"
        if not is_slice_path(path):
            raise _bad(where, "must be a dotted path of ground-truth keys")
        ordinary = [v for v in _object(values, where) if v not in SPECIAL]
        if len(ordinary) > cap:
            raise _bad(where, f"holds {len(ordinary)} values, more than the {cap} the state kept (max_values)")
        documents, total = 0, [[0] * 5 for _ in range(size)]
        for value, entry in values.items():
            at = f"{where}/{_token(value)}"
            _object(entry, at, ("documents", "score_sum", "counts", "moments"))
            k = _count(entry["documents"], f"{at}/documents")
            if k < 1:
                raise _bad(f"{at}/documents", "a slice holds at least one document")
            documents += k
            _number(entry["score_sum"], f"{at}/score_sum", 0.0, float(k))
            rows = _array(entry["counts"], f"{at}/counts", size)
            moments = _array(entry["moments"], f"{at}/moments", size)
            for i, (row, moment) in enumerate(zip(rows, moments)):
                _counts(row, f"{at}/counts/{i}", 5)
                sxx, sxy, syy = _counts(moment, f"{at}/moments/{i}", MOMENTS)
                x, y = sum(row[:4]), row[0]
                if not (syy <= sxy <= sxx and x <= sxx <= x * x and y <= syy <= y * y):
                    raise _bad(f"{at}/moments/{i}", f"cannot be the sums x², xy, y² of documents whose decided "
                                                    f"comparisons add up to {x} and TPs to {y}, got {_shown(moment)}")
                total[i] = [a + b for a, b in zip(total[i], row)]
        if documents != n:
            raise _bad(where, f"counts {documents} documents, the state {n}")
        if total != counts:
            raise _bad(where, "the slices' counts do not add up to the state's counts")


def _check_list_errors(block: Any, plan: Plan, n: int) -> None:
    """What went wrong in lists (list_errors.py): the settings they were labelled with, per list of objects its
    counts (parts no larger than their wholes) and at most ``kept`` examples whose rows lie within their lists."""
    from ..engine.row_errors import CATEGORIES
    from ..analyses.list_errors import COUNTS, EVENT_KEYS, EXAMPLE_EVENTS, EXAMPLE_KEYS, SETTINGS, TAU_UNIT, list_fields

    block = _object(block, "/list_errors", ("settings", "kept", "fields"))
    settings = _object(block["settings"], "/list_errors/settings", SETTINGS)
    for name in SETTINGS:
        at = f"/list_errors/settings/{name}"
        if name in ("list_tail_rows", "list_classify_cells"):
            if _count(settings[name], at) < 1:
                raise _bad(at, "must be at least 1")
        elif _number(settings[name], at, 0.0, 1.0) <= 0:
            raise _bad(at, f"must be above 0, got {as_written(settings[name])}")
    kept = _count(block["kept"], "/list_errors/kept")
    paths = [plan.fields[i].path for i in list_fields(plan)]
    fields = _object(block["fields"], "/list_errors/fields", paths)
    for path in paths:
        where = f"/list_errors/fields/{_token(path)}"
        entry = _object(fields[path], where, (*COUNTS, "tau_millionths", "examples"))
        for key in COUNTS:
            _count(entry[key], f"{where}/{key}")
        for part, whole in (("truncated_lists", "truncated"), ("reordered", "lists"), ("unclassified_lists", "lists"),
                            ("truncated_lists", "lists"), ("unclassified_lists", "unclassified_rows")):
            if entry[part] > entry[whole]:
                raise _bad(f"{where}/{part}", f"cannot exceed {whole} ({entry[whole]}), got {entry[part]}")
        bound = TAU_UNIT * entry["reordered"]
        if not _is_int(entry["tau_millionths"]) or not -bound <= entry["tau_millionths"] <= bound:
            raise _bad(f"{where}/tau_millionths", f"must be a whole number from {-bound} to {bound} (the reordered "
                                                  f"lists' taus in millionths), got {_shown(entry['tau_millionths'])}")
        examples = _array(entry["examples"], f"{where}/examples")
        if len(examples) > min(kept, entry["lists"]):
            raise _bad(f"{where}/examples", f"holds {len(examples)} lists, more than the {min(kept, entry['lists'])} "
                                            "the state kept")
        for k, example in enumerate(examples):
            at = f"{where}/examples/{k}"
            _object(example, at, EXAMPLE_KEYS)
            _scalar(example["doc_id"], f"{at}/doc_id")
            if _count(example["position"], f"{at}/position") >= n:
                raise _bad(f"{at}/position", f"must be below the document count {n}, got {example['position']}")
            rows = {"gt": _count(example["gt_rows"], f"{at}/gt_rows"), "pred": _count(example["pred_rows"], f"{at}/pred_rows")}
            if example["tau"] is not None:
                _number(example["tau"], f"{at}/tau", -1.0, 1.0)
            _count(example["unclassified"], f"{at}/unclassified")
            events = _array(example["events"], f"{at}/events")
            if len(events) > EXAMPLE_EVENTS or _count(example["events_total"], f"{at}/events_total") < len(events):
                raise _bad(f"{at}/events", f"holds {len(events)} events: at most {EXAMPLE_EVENTS}, and at most "
                                           "events_total")
            for e, event in enumerate(events):
                place = f"{at}/events/{e}"
                _object(event, place, EVENT_KEYS)
                if event["type"] not in CATEGORIES:
                    raise _bad(f"{place}/type", f"must be one of {', '.join(CATEGORIES)}, got {_shown(event['type'])}")
                for side in ("gt", "pred"):
                    for r, row in enumerate(_array(event[side], f"{place}/{side}")):
                        if _count(row, f"{place}/{side}/{r}") >= rows[side]:
                            raise _bad(f"{place}/{side}/{r}", f"must be a row of the list (below {rows[side]}), got {row}")


def _check_cosmetic(block: Any, plan: Plan, counts: list[list[int]]) -> None:
    """The cosmetic-or-real tally (cosmetic.check_state): as many classified FDs per leaf as it counts."""
    from ..analyses.cosmetic import check_state
    from ..engine.result import FD

    try:
        check_state(block, plan, {f.path: counts[f.index][FD] for f in plan.fields})
    except ValueError as exc:
        raise _bad(*exc.args) from None


def _check_unopened(rows: Any, counts: list[list[int]], plan: Plan) -> None:
    """Each object's (list of objects') counts from the documents it was not opened in: part of its own
    counts, and none for a field with nothing beneath it."""
    opened = {i for i, _, _ in rollup.nodes(plan)}
    for k, row in enumerate(_array(rows, "/unopened", len(counts))):
        _counts(row, f"/unopened/{k}", 5)
        if k not in opened and any(row):
            raise _bad(f"/unopened/{k}", f"must be all zeros: {plan.fields[k].path!r} has no fields beneath it")
        if any(a > b for a, b in zip(row, counts[k])):
            raise _bad(f"/unopened/{k}", f"cannot exceed the field's counts {counts[k]}, got {_shown(row)}")


def _check_similarity_bins(rows: Any, counts: list[list[int]], plan: Plan) -> None:
    """Each primitive field's similarity histogram (thresholds.Layout): its bins at or above the threshold's
    edge hold exactly its TPs, those below exactly its FDs; other fields hold none."""
    from ..analyses.thresholds import Layout, verdict_bin

    layout = Layout(plan)
    for k, row in enumerate(_array(rows, "/similarity_bins", len(counts))):
        pointer = f"/similarity_bins/{k}"
        edges = layout.edges[k]
        if edges is None:
            if _array(row, pointer) != []:
                raise _bad(pointer, f"must be empty: {plan.fields[k].path!r} is not compared by a comparator")
            continue
        _counts(row, pointer, len(edges) + 1)
        first = verdict_bin(edges, plan.fields[k].threshold)
        tp, fd = sum(row[first:]), sum(row[:first])
        if (tp, fd) != (counts[k][0], counts[k][2]):
            raise _bad(pointer, f"holds {tp} similarities at or above the threshold and {fd} below: the field "
                                f"counts {counts[k][0]} TP and {counts[k][2]} FD")


def _check_confidence(block: Any, size: int) -> None:
    """The grouped confidence pairs: columns of one length, each value of its type and range
    (checked a column at a time; a bad value is then located)."""
    import numpy as np

    columns = ("field", "match", "value", "count", "similarity_sum")
    block = _object(block, "/confidence", (*columns, "predicted_leaves"))
    _count(block["predicted_leaves"], "/confidence/predicted_leaves")
    length = len(_array(block["field"], "/confidence/field"))
    for name in columns:
        _array(block[name], f"/confidence/{name}", length)
    if not length:
        return
    field, match, value, count, similarity = (block[c] for c in columns)
    kinds = (("field", field, (int,)), ("match", match, (bool,)), ("value", value, (int, float)),
             ("count", count, (int,)), ("similarity_sum", similarity, (int, float)))
    for name, column, types in kinds:
        if not all(type(v) in types for v in column):
            k = next(k for k, v in enumerate(column) if type(v) not in types)
            wanted = {"field": "a field index", "match": "true or false", "count": "a positive integer"}
            raise _bad(f"/confidence/{name}/{k}", f"must be {wanted.get(name, 'a number')}, got {_shown(column[k])}")
    fields = np.asarray(field, dtype=np.int64) if max(map(abs, field)) < 2**62 else None
    if fields is None or (fields < 0).any() or (fields >= size).any():
        k = next(k for k, v in enumerate(field) if not 0 <= v < size)
        raise _bad(f"/confidence/field/{k}", f"must be a field index from 0 to {size - 1}, got {_shown(field[k])}")
    if max(count) >= 2**62 or min(count) < 1:
        k = next(k for k, v in enumerate(count) if not 1 <= v < 2**62)
        raise _bad(f"/confidence/count/{k}", f"must be a positive integer, got {_shown(count[k])}")
    values = _floats(value, "/confidence/value")
    sums = _floats(similarity, "/confidence/similarity_sum")
    counts = np.asarray(count, dtype=np.float64)
    bad_value = ~np.isfinite(values) | (values < -SLACK) | (values > 1.0 + SLACK)  # as _number judges
    if bad_value.any():
        k = int(np.argmax(bad_value))
        _number(value[k], f"/confidence/value/{k}", 0.0, 1.0)
    bad_sum = ~np.isfinite(sums) | (sums < -SLACK * np.maximum(counts, 1)) | (sums > counts + SLACK * np.maximum(counts, 1))
    if bad_sum.any():
        k = int(np.argmax(bad_sum))
        _number(similarity[k], f"/confidence/similarity_sum/{k}", 0.0, float(count[k]))


def _check_boxes(block: Any, size: int) -> None:
    """Localisation state (localisation.BoxStore): per-field box counts, then the detections as columns of
    one length, each value of its type and range."""
    from ..analyses.localisation import COUNT_NAMES

    columns = ("field", "confidence", "iou", "match")
    block = _object(block, "/boxes", ("counts", *columns))
    counts = _array(block["counts"], "/boxes/counts")
    if counts:
        _array(counts, "/boxes/counts", size)
        for k, row in enumerate(counts):
            _counts(row, f"/boxes/counts/{k}", len(COUNT_NAMES))
    length = len(_array(block["field"], "/boxes/field"))
    for name in columns:
        _array(block[name], f"/boxes/{name}", length)
    if length and not counts:
        raise _bad("/boxes/counts", "must count the boxes of the detections listed")
    for k, v in enumerate(block["field"]):
        if type(v) is not int or not 0 <= v < size:
            raise _bad(f"/boxes/field/{k}", f"must be a field index from 0 to {size - 1}, got {_shown(v)}")
    if not all(_is_number(v) and 0.0 <= v <= 1.0 for c in ("confidence", "iou") for v in block[c]):
        for name in ("confidence", "iou"):
            _numbers(block[name], f"/boxes/{name}", None, 0.0, 1.0)
    for k, v in enumerate(block["match"]):
        if type(v) is not bool:
            raise _bad(f"/boxes/match/{k}", f"must be true or false, got {_shown(v)}")
    detections = [0] * size
    for v in block["field"]:
        detections[v] += 1
    for k, row in enumerate(counts):
        if row[1] != detections[k]:
            raise _bad(f"/boxes/counts/{k}/1", f"must be the number of detections of field {k}, {detections[k]}, "
                                               f"got {_shown(row[1])}")


def _check_errors(errors: Any) -> None:
    for k, error in enumerate(_array(errors, "/errors")):
        where = f"/errors/{k}"
        _object(error, where, ("source", "line", "doc_id", "message"))
        if not isinstance(error["source"], str):
            raise _bad(f"{where}/source", "must be a string")
        if error["line"] is not None:
            _count(error["line"], f"{where}/line")
        _scalar(error["doc_id"], f"{where}/doc_id")
        if not isinstance(error["message"], str):
            raise _bad(f"{where}/message", "must be a string")


def _scalar(value: Any, pointer: str) -> None:
    """A document id: a string, a number, a boolean or null."""
    if value is not None and type(value) not in (str, int, float, bool):
        raise _bad(pointer, f"must be a string, a number or null, got {type(value).__name__}")


def _check_conformance(block: Any) -> int:
    """The conformance block's checks; the number of predictions it checked."""
    block = _object(block, "/conformance", ("checked", "valid", "violations"))
    checked = _count(block["checked"], "/conformance/checked")
    if _count(block["valid"], "/conformance/valid") > checked:
        raise _bad("/conformance/valid", f"must be at most the {checked} predictions checked, got {block['valid']}")
    for path, keywords in _object(block["violations"], "/conformance/violations").items():
        where = f"/conformance/violations/{_token(path)}"
        for keyword, n in _object(keywords, where).items():
            _count(n, f"{where}/{_token(keyword)}")
    return checked


def _check_reconciled(stats: dict[str, int], n: int, checked: int) -> None:
    """The record counts add up as every run's do (README, "inputs.records"): each ground-truth line is a document,
    each prediction line paired or not, and valid JSON (checked against the schema) or not. A tampered state
    that passed the checks of each value showed "-493 of 7" predictions valid. Each document paired or missing
    its prediction: coverage and the record rates (report.schema_conformance) stay within [0, 1]."""
    for pointer, total, parts, what in (
            ("/stats/gt_lines", stats["gt_lines"], n, "the document_count"),
            ("/stats/gt_lines", stats["gt_lines"], stats["paired"] + stats["missing_predictions"],
             "paired + missing_predictions"),
            ("/stats/pred_lines", stats["pred_lines"], stats["paired"] + stats["unpaired_predictions"],
             "paired + unpaired_predictions"),
            ("/stats/pred_lines", stats["pred_lines"], stats["invalid_predictions"] + checked,
             "invalid_predictions + conformance.checked")):
        if total != parts:
            raise _bad(pointer, f"must equal {what} ({parts:,}), got {total:,}")


WORST_KEYS = ("doc_id", "gt_source", "gt_line", "pred_source", "pred_line", "gt", "pred", "score", "position")


def _check_worst(worst: Any, kept: int, n: int) -> None:
    worst = _array(worst, "/worst")
    if len(worst) > min(kept, n):
        raise _bad("/worst", f"holds {len(worst)} documents, more than the {min(kept, n)} the state kept")
    for k, entry in enumerate(worst):
        where = f"/worst/{k}"
        _object(entry, where, WORST_KEYS)
        _scalar(entry["doc_id"], f"{where}/doc_id")
        _count(entry["gt_line"], f"{where}/gt_line")
        for side in ("gt_source", "pred_source"):
            if entry[side] is not None and type(entry[side]) is not str:
                raise _bad(f"{where}/{side}", f"must be a file name (a string) or null, got {type(entry[side]).__name__}")
        if entry["pred_line"] is not None:
            _count(entry["pred_line"], f"{where}/pred_line")
        _object(entry["gt"], f"{where}/gt")
        _object(entry["pred"], f"{where}/pred")
        _number(entry["score"], f"{where}/score", 0.0, 1.0)
        if _count(entry["position"], f"{where}/position") >= n:
            raise _bad(f"{where}/position", f"must be below the document count {n}, got {entry['position']}")


def _check_failures(failures: Any, kept: int, plan: Plan) -> None:
    """The first failing comparisons of each field: at most ``kept`` per field, each a row as the run keeps
    it (analysis.sample_row: known keys, values of their types, long values cut) whose path is of its field."""
    from ..analyses.failures import MISSES, SAMPLE_KEYS, SAMPLE_REQUIRED, SAMPLE_VALUE_CHARS, SIDES, failure_field
    from ..json_text import compact_json

    paths = {f.path for f in plan.fields}
    for path, rows in _object(failures, "/failures").items():
        where = f"/failures/{_token(path)}"
        if path not in paths:
            raise _bad(where, "not a field of the schema")
        if len(_array(rows, where)) > kept:
            raise _bad(where, f"holds {len(rows)} comparisons, more than the {kept} per field the state kept")
        for k, row in enumerate(rows):
            at = f"{where}/{k}"
            _object(row, at)
            for key in SAMPLE_REQUIRED:
                if key not in row:
                    raise _bad(at, f"missing key {key!r}")
            for key in row:
                if key not in SAMPLE_KEYS and key != "cut":
                    raise _bad(f"{at}/{_token(key)}", "unknown key")
            _scalar(row["doc_id"], f"{at}/doc_id")
            for key in ("path", "comparator"):
                if not isinstance(row[key], str):
                    raise _bad(f"{at}/{key}", f"must be a string, got {_shown(row[key])}")
            if row["type"] not in MISSES:
                raise _bad(f"{at}/type", f"must be one of {', '.join(MISSES)}, got {_shown(row['type'])}")
            for key in ("similarity", "score", "threshold"):
                if row[key] is not None:
                    _number(row[key], f"{at}/{key}")
            if row.get("confidence") is not None:
                _number(row["confidence"], f"{at}/confidence")
            for key in ("gt_default", "pred_default"):
                if key in row and type(row[key]) is not bool:
                    raise _bad(f"{at}/{key}", f"must be true or false, got {_shown(row[key])}")
            cut = _array(row.get("cut", []), f"{at}/cut")
            if any(side not in SIDES for side in cut) or len(set(cut)) != len(cut):
                raise _bad(f"{at}/cut", f"must name gt and/or pred once each, got {_shown(cut)}")
            for side in SIDES:
                value = row[side]
                if side in cut and not isinstance(value, str):
                    raise _bad(f"{at}/{side}", "a cut value must be a string")
                text = value if side in cut else compact_json(value)
                if text is None:
                    raise _bad(f"{at}/{side}", "nested too deeply (a state keeps such a value cut)")
                size = len(text)
                if size > SAMPLE_VALUE_CHARS:
                    raise _bad(f"{at}/{side}", f"holds {size} characters, more than the {SAMPLE_VALUE_CHARS} kept")
            field = failure_field(plan, row["path"], row["type"])
            if field is None or field.path != path:
                raise _bad(f"{at}/path", f"must be a comparison of field {_shown(path)}, got {_shown(row['path'])}")


def _check_documents(state: dict, n: int, size: int, score_sum: float, counts: list[list[int]],
                     sums: list[float], score_n: list[int]) -> None:
    """Each document's row (kept for ``--ci``): whole rows, counts that are
    counts, and, when every document has its row, column totals equal to the state's totals."""
    import numpy as np

    from ..report.statistics import COUNTS, row_width

    width = row_width(size)
    documents = _array(state["documents"], "/documents")
    if len(documents) % width or len(documents) // width > n:
        raise _bad("/documents", f"must hold whole rows of {width} numbers, at most one per document ({n}); "
                                 f"holds {len(documents)} numbers")
    rows_kept = len(documents) // width
    if not rows_kept:
        return
    if not all(type(v) is float or type(v) is int for v in documents):
        k = next(k for k, v in enumerate(documents) if type(v) not in (float, int))
        raise _bad(f"/documents/{k}", f"must be a number, got {_shown(documents[k])}")
    rows = _floats(documents, "/documents").reshape(rows_kept, width)
    tallies = rows[:, 1:1 + COUNTS * size]
    row_sums = rows[:, 1 + COUNTS * size:1 + (COUNTS + 1) * size]
    row_n = rows[:, 1 + (COUNTS + 1) * size:]
    problems = (
        (~np.isfinite(rows), "must be a finite number", 0),
        ((rows[:, 0] < -SLACK) | (rows[:, 0] > 1 + SLACK), "a document score must be between 0 and 1", 0),
        ((tallies < 0) | (tallies != np.floor(tallies)), "a count must be a non-negative integer", 1),
        ((row_n < 0) | (row_n != np.floor(row_n)), "a count must be a non-negative integer", 1 + (COUNTS + 1) * size),
        ((row_sums < -SLACK) | (row_sums > row_n + SLACK), "a field's score sum must be between 0 and its count",
         1 + COUNTS * size),
    )
    for bad, message, offset in problems:
        if bad.any():
            where = np.argwhere(bad.reshape(rows_kept, -1))[0]
            raise _bad(f"/documents/{int(where[0]) * width + offset + int(where[1])}", message)
    if rows_kept != n:
        return  # states with and without rows were merged: --ci refuses them (check_documents)
    flat = [c for row in counts for c in row]
    if tallies.sum(axis=0).tolist() != [float(c) for c in flat] or row_n.sum(axis=0).tolist() != [float(c) for c in score_n]:
        raise _bad("/documents", "the documents' counts do not add up to the state's counts")
    if not math.isclose(float(rows[:, 0].sum()), score_sum, rel_tol=1e-9, abs_tol=1e-9 * max(n, 1)):
        raise _bad("/documents", f"the documents' scores add up to {rows[:, 0].sum()!r}, the state's score_sum "
                                 f"is {score_sum!r}")
    if not np.allclose(row_sums.sum(axis=0), sums, rtol=1e-9, atol=1e-9 * max(n, 1)):
        raise _bad("/documents", "the documents' field score sums do not add up to the state's field_score_sum")


# -- loading and merging ---------------------------------------------------------------------------

def load(path: str) -> dict[str, Any]:
    """A state file's content, its header checked (``check`` does the rest, against the plan)."""
    return _decoded(_read(path), path)


def _read(path: str) -> bytes:
    try:
        return limits.read_within(path, "state-bytes")
    except limits.TooLarge as exc:
        raise InputError(f"state file {exc}", path) from None
    except FileNotFoundError:
        raise InputError("state file not found", path) from None
    except OSError as exc:
        raise InputError(f"cannot read state file: {exc.strerror or exc}", path) from None


def _decoded(data: bytes, path: str) -> dict[str, Any]:
    try:
        state = decode(data)
    except ValueError as exc:
        raise InputError(f"not a stickler state file (not valid JSON: {exc})", path) from None
    try:
        return _header(state)
    except BadState as exc:
        raise _input_error(exc, path) from None


def _input_error(exc: BadState, path: str) -> InputError:
    if exc.pointer == "/":
        return InputError(exc.message, path)
    return InputError(f"{exc.pointer}: {exc.message}", path)


def check_documents(acc: Accumulator, paths: Sequence[str]) -> None:
    """Intervals need every document's row: states saved by older stickler versions lack them."""
    from ..report.statistics import row_width

    if len(acc.documents) != acc.document_count * row_width(acc.size):
        raise InputError("--ci needs each document's figures, which these states do not hold "
                         "(save them with `stickler eval --ci LEVEL --save-state`)", ", ".join(paths))


def plan_of(state: dict, path: str, plugins: Sequence[str] = ()) -> Plan:
    """The plan of a state's embedded schema, compiled as any schema is (no file is read: the documents
    its references name are embedded beside it); a schema error names the state file."""
    from .parallel import PlanSource

    try:
        return PlanSource(state["schema"], state["schema_source"], state["schema_sha256"], tuple(plugins),
                          resources=state.get("schema_resources"),
                          assert_formats=state.get("schema_formats_asserted", False)).build()
    except SchemaError as exc:
        raise InputError(f"/schema{exc.pointer.rstrip('/')}: embedded schema: {exc.message}", path) from None


def check_distinct(paths: Sequence[str]) -> None:
    """A state given twice (by any name: a link, ``./``) would count its documents twice: refused."""
    seen: dict[tuple, str] = {}
    for path in paths:
        identity = json_report.identity(path, existing=True)
        if identity is None:
            continue  # load() says what is wrong with it
        if identity in seen:
            raise InputError(f"is given twice (also as {seen[identity]}): its documents would be counted twice", path)
        seen[identity] = path


def _loaded(paths: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """Each state file read once and decoded (a copy of another, by any name or spacing, shares all its
    documents with it: ``check_overlap`` finds it)."""
    return [(path, _decoded(_read(path), path)) for path in paths]


def check_overlap(states: Sequence[tuple[str, dict[str, Any]]], allow: bool = False) -> None:
    """States that share documents (the same ground-truth record: document_index.py) would count them twice:
    refused, naming the first shared document, unless ``allow`` (``--allow-overlap``), which warns."""
    from .document_index import DocumentIndex, first_shared

    indexes = []
    for _, state in states:
        index = DocumentIndex()
        index.merge(state["document_index"])
        indexes.append(index)
    found = first_shared(indexes)
    if found is None:
        return
    later, k, earlier, i, shared = found
    path, other = states[later][0], states[earlier][0]
    what = (f"shares {shared:,} of its {len(indexes[later]):,} documents with {other} (the same ground-truth "
            f"record): the first, {indexes[later].where(k)}, is {indexes[earlier].where(i)} there")
    if not allow:
        raise InputError(f"{what}; merging would count them twice. Merge states of distinct documents, or, if "
                         "these are different documents with identical ground truth, pass --allow-overlap", path)
    sys.stderr.write(f"stickler: warning: {path} {what}; added anyway (--allow-overlap): they are counted twice\n")


def merge(paths: Sequence[str], plugins: Sequence[str] = (), analysis: Analysis = Analysis(),
          allow_overlap: bool = False) -> Evaluation:
    """One Evaluation from several state files, each checked whole before any is added, none sharing a
    document with another (unless ``allow_overlap``); the schema is the first state's. States of one schema
    saved from files that differ only in spacing are of the same schema (its digest, of the parsed schema, is
    compared; the file's sha256 is not)."""
    check_distinct(paths)
    states = _loaded(paths)
    first_path, first = states[0]
    for path, state in states[1:]:
        if state["schema_digest"] != first["schema_digest"] and state["schema_sha256"] == first["schema_sha256"]:
            raise InputError(f"embeds a different schema than {first_path} under the same schema sha256: one of "
                             "them was altered; states of different schemas cannot be merged", path)
        if state["schema_digest"] != first["schema_digest"]:
            raise InputError(
                f"made with a different schema than {first_path} (schema digest {state['schema_digest'][:12]}… "
                f"vs {first['schema_digest'][:12]}…); states of different schemas cannot be merged", path)
        fields, first_fields = (list(map(repr, each["fields"])) if isinstance(each.get("fields"), list) else []
                                for each in (state, first))
        if fields != first_fields and sorted(fields) == sorted(first_fields):  # the digest sorts keys, a plan does not
            raise InputError(f"made with {first_path}'s schema with its properties in another order, so its fields "
                             "are counted in another order; save both states with one schema file", path)
        settings = (state.get("list_errors") or {}).get("settings")
        if settings != (first.get("list_errors") or {}).get("settings"):
            raise InputError(f"its lists were labelled with other settings than {first_path}'s ({settings}): what went "
                             "wrong in lists cannot be added up; save both with the same --limit list-… values", path)
        if state.get("schema_formats_asserted", False) != first.get("schema_formats_asserted", False):
            asserted, other = (path, first_path) if state.get("schema_formats_asserted") else (first_path, path)
            raise InputError(f"{asserted} was saved with --assert-formats and {other} without: their schema-valid "
                             "counts mean different things and cannot be added", path)
        state["schema_sha256"] = first["schema_sha256"]  # the same parsed schema: the first file's hash stands
    plan = plan_of(first, first_path, plugins)
    for path, state in states:
        try:
            check(state, plan)
        except BadState as exc:
            raise _input_error(exc, path) from None
    sliced = list(first["slices"]["paths"])
    for path, state in states[1:]:
        if list(state["slices"]["paths"]) != sliced:
            raise InputError(f"sliced by {list(state['slices']['paths']) or 'nothing'}, {first_path} by "
                             f"{sliced or 'nothing'}: states merge only when every run had the same --slice-by", path)
    check_overlap(states, allow_overlap)
    cap = min(state["slices"]["max_values"] for _, state in states)
    analysis = dataclasses.replace(analysis, slices=tuple(sliced), slice_values=cap)
    acc = Accumulator(plan, analysis)
    for path, state in states:
        acc.merge_state(state)
    return Evaluation(plan, acc, {"ground_truth": None, "predictions": None, "id_field": None, "states": list(paths)})
