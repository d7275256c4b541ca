"""Run states on disk: ``--save-state`` writes one, ``stickler merge`` adds them up.

A state file is the accumulator's mergeable state as JSON, with the schema
embedded (so merging needs no schema file), its hash (so states of different
schemas are never added together) and a digest of the embedded schema itself.

A state file is untrusted input: it may have been damaged, edited or made by
hand. Every value is checked on load (types, shapes, counts that cannot be
negative, lengths that follow from the schema, totals that must agree with one
another) before anything is merged, and a bad value is an input error naming
the file and the JSON pointer of the value. The counts are checked here; every
other part of the state is checked by its own ``Part.check``, beside its analysis
(analyses/part.py). States that workers send back in the same run are not checked
again: they never left the process tree.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from typing import Any, Sequence

from .. import limits
from ..analyses.part import Collect
from ..analyses.state_check import (
    SLACK,
    BadState,
    bad,
    check_array,
    check_count,
    check_counts,
    check_floats,
    check_number,
    check_object,
    check_scalar,
    shown,
)
from ..errors import InputError, SchemaError, SticklerError
from ..json_text import dumps
from ..plan import Plan
from ..schema.keywords import escape as _token
from . import atomic
from .accumulate import COUNTS, HISTOGRAM_BINS, PARTS, STATE_VERSION, Accumulator, row_width, schema_digest
from .evaluate import Evaluation
from .reader import decode


def save(path: str, acc: Accumulator) -> None:
    """Write ``acc``'s state atomically (a crash never leaves half a file). The worst documents are
    kept whole, so the state may hold what orjson cannot write (integers beyond 64 bits). The run must have kept
    its document index (``Collect(index=True)``): a state without it could not be merged."""
    if len(acc.index) != acc.document_count:
        raise SticklerError(
            f"this run kept no index of its {acc.document_count:,} documents, which a saved state "
            "needs: score it with Collect(index=True)"
        )
    atomic.write(path, dumps(acc.get_state(), indent=False))


# -- the parts every state shares, checked before its schema is compiled ---------------------------


def _header(state: Any) -> dict:
    """The version, the schema and its hash and digest: what is needed to compile the plan."""
    if not isinstance(state, dict) or "schema_sha256" not in state or "state_version" not in state:
        raise bad("/", "not a stickler state file (written by `stickler eval --save-state`)")
    if state["state_version"] != STATE_VERSION:
        raise bad(
            "/state_version",
            f"state version {shown(state['state_version'])} is not supported (this "
            f"stickler reads and writes {STATE_VERSION}; save the state again)",
        )
    sha = state["schema_sha256"]
    if not isinstance(sha, str) or len(sha) != 64 or not all(c in "0123456789abcdef" for c in sha):
        raise bad("/schema_sha256", f"must be a sha256 as 64 lower-case hexadecimal digits, got {shown(sha)}")
    if not isinstance(state.get("schema"), dict):
        raise bad("/schema", "state file has no embedded schema")
    if not isinstance(state.get("schema_source"), str):
        raise bad("/schema_source", f"must be a string, got {shown(state.get('schema_source'))}")
    resources = state.get("schema_resources", {})
    if not isinstance(resources, dict) or not all(isinstance(d, (dict, bool)) for d in resources.values()):
        raise bad("/schema_resources", "must map URIs to the schema documents read with the schema")
    if state.get("schema_formats_asserted", True) is not True:
        raise bad(
            "/schema_formats_asserted", f"must be true when present, got {shown(state['schema_formats_asserted'])}"
        )
    if state.get("schema_digest") != schema_digest(state["schema"], resources):
        raise bad(
            "/schema",
            "the embedded schema does not match the state's schema_digest: the state was altered after it was saved",
        )
    return state


# -- everything else, against the plan -------------------------------------------------------------


# issue 41, policy; issue 42, acceptable values (analyses/alternatives.py: only when the ground truth lists some)
OPTIONAL_KEYS = ("policy", "alternatives")


def check(state: dict, plan: Plan) -> None:
    """Every value of ``state`` (whose header has been checked) is possible for a run of ``plan``;
    raises BadState at the first that is not. The counts first (they stay here, as in the Accumulator), then
    each part's keys by its own check."""
    fresh = Accumulator(plan).get_state()
    # A state saved with a policy asked for also holds its per-document rows (analyses/policy.py).
    check_object(state, "", [*fresh, *(key for key in OPTIONAL_KEYS if key in state)])
    size = len(plan.fields)
    paths = [f.path for f in plan.fields]
    fields = check_array(state["fields"], "/fields", size)
    for k, (given, path) in enumerate(zip(fields, paths)):
        if given != path:
            raise bad(f"/fields/{k}", f"must be {path!r}, the schema's field there, got {shown(given)}")
    n = check_count(state["document_count"], "/document_count")
    score_sum = check_number(state["score_sum"], "/score_sum", 0.0, float(n))
    counts = check_array(state["counts"], "/counts", size)
    for k, row in enumerate(counts):
        check_counts(row, f"/counts/{k}", 5)
    top = [f.index for f in plan.root.fields]
    overall = [sum(counts[i][c] for i in top) for c in range(5)]
    if check_counts(state["overall"], "/overall", 5) != overall:
        raise bad(
            "/overall", f"must be the sum of the top-level fields' counts, {overall}, got {shown(state['overall'])}"
        )
    score_n = check_counts(state["field_score_n"], "/field_score_n", size)
    sums = check_array(state["field_score_sum"], "/field_score_sum", size)
    for k, (total, count) in enumerate(zip(sums, score_n)):
        check_number(total, f"/field_score_sum/{k}", 0.0, float(count))
    histogram = check_counts(state["score_histogram"], "/score_histogram", HISTOGRAM_BINS)
    if sum(histogram) != n:
        raise bad("/score_histogram", f"counts {sum(histogram)} documents, the state {n}")
    _check_confidence(state["confidence"], size)
    _check_errors(state["errors"])
    stats = check_object(state["stats"], "/stats", list(fresh["stats"]))
    for key, value in stats.items():
        check_count(value, f"/stats/{_token(key)}")
    checked = _check_conformance(state["conformance"])
    _check_reconciled(stats, n, checked)
    lines = check_object(state["lines"], "/lines", list(fresh["lines"]))
    for kind, rows in lines.items():
        for k, row in enumerate(check_array(rows, f"/lines/{kind}")):
            check_object(row, f"/lines/{kind}/{k}")
    _check_documents(state, n, size, score_sum, counts, sums, score_n)
    for part in PARTS:  # each part's own keys (analyses/part.py), relying on the counts checked above
        part.check(state, plan)


def _check_confidence(block: Any, size: int) -> None:
    """The grouped confidence pairs: columns of one length, each value of its type and range
    (checked a column at a time; a bad value is then located)."""
    import numpy as np

    columns = ("field", "match", "value", "count", "similarity_sum")
    block = check_object(block, "/confidence", (*columns, "predicted_leaves"))
    check_count(block["predicted_leaves"], "/confidence/predicted_leaves")
    length = len(check_array(block["field"], "/confidence/field"))
    for name in columns:
        check_array(block[name], f"/confidence/{name}", length)
    if not length:
        return
    field, match, value, count, similarity = (block[c] for c in columns)
    kinds = (
        ("field", field, (int,)),
        ("match", match, (bool,)),
        ("value", value, (int, float)),
        ("count", count, (int,)),
        ("similarity_sum", similarity, (int, float)),
    )
    for name, column, types in kinds:
        if not all(type(v) in types for v in column):
            k = next(k for k, v in enumerate(column) if type(v) not in types)
            wanted = {"field": "a field index", "match": "true or false", "count": "a positive integer"}
            raise bad(f"/confidence/{name}/{k}", f"must be {wanted.get(name, 'a number')}, got {shown(column[k])}")
    fields = np.asarray(field, dtype=np.int64) if max(map(abs, field)) < 2**62 else None
    if fields is None or (fields < 0).any() or (fields >= size).any():
        k = next(k for k, v in enumerate(field) if not 0 <= v < size)
        raise bad(f"/confidence/field/{k}", f"must be a field index from 0 to {size - 1}, got {shown(field[k])}")
    if max(count) >= 2**62 or min(count) < 1:
        k = next(k for k, v in enumerate(count) if not 1 <= v < 2**62)
        raise bad(f"/confidence/count/{k}", f"must be a positive integer, got {shown(count[k])}")
    values = check_floats(value, "/confidence/value")
    sums = check_floats(similarity, "/confidence/similarity_sum")
    counts = np.asarray(count, dtype=np.float64)
    bad_value = ~np.isfinite(values) | (values < -SLACK) | (values > 1.0 + SLACK)  # as _number judges
    if bad_value.any():
        k = int(np.argmax(bad_value))
        check_number(value[k], f"/confidence/value/{k}", 0.0, 1.0)
    bad_sum = (
        ~np.isfinite(sums) | (sums < -SLACK * np.maximum(counts, 1)) | (sums > counts + SLACK * np.maximum(counts, 1))
    )
    if bad_sum.any():
        k = int(np.argmax(bad_sum))
        check_number(similarity[k], f"/confidence/similarity_sum/{k}", 0.0, float(count[k]))


def _check_errors(errors: Any) -> None:
    for k, error in enumerate(check_array(errors, "/errors")):
        where = f"/errors/{k}"
        check_object(error, where, ("source", "line", "doc_id", "message"))
        if not isinstance(error["source"], str):
            raise bad(f"{where}/source", "must be a string")
        if error["line"] is not None:
            check_count(error["line"], f"{where}/line")
        check_scalar(error["doc_id"], f"{where}/doc_id")
        if not isinstance(error["message"], str):
            raise bad(f"{where}/message", "must be a string")


def _check_conformance(block: Any) -> int:
    """The conformance block's checks; the number of predictions it checked."""
    block = check_object(block, "/conformance", ("checked", "valid", "violations"))
    checked = check_count(block["checked"], "/conformance/checked")
    if check_count(block["valid"], "/conformance/valid") > checked:
        raise bad("/conformance/valid", f"must be at most the {checked} predictions checked, got {block['valid']}")
    for path, keywords in check_object(block["violations"], "/conformance/violations").items():
        where = f"/conformance/violations/{_token(path)}"
        for keyword, n in check_object(keywords, where).items():
            check_count(n, f"{where}/{_token(keyword)}")
    return checked


def _check_reconciled(stats: dict[str, int], n: int, checked: int) -> None:
    """The record counts add up as every run's do (docs/trust.md, "inputs.records"): each ground-truth line is a document,
    each prediction line paired or not, and valid JSON (checked against the schema) or not. A tampered state
    that passed the checks of each value showed "-493 of 7" predictions valid. Each document paired or missing
    its prediction: coverage and the record rates (report.schema_conformance) stay within [0, 1]."""
    for pointer, total, parts, what in (
        ("/stats/gt_lines", stats["gt_lines"], n, "the document_count"),
        (
            "/stats/gt_lines",
            stats["gt_lines"],
            stats["paired"] + stats["missing_predictions"],
            "paired + missing_predictions",
        ),
        (
            "/stats/pred_lines",
            stats["pred_lines"],
            stats["paired"] + stats["unpaired_predictions"],
            "paired + unpaired_predictions",
        ),
        (
            "/stats/pred_lines",
            stats["pred_lines"],
            stats["invalid_predictions"] + checked,
            "invalid_predictions + conformance.checked",
        ),
    ):
        if total != parts:
            raise bad(pointer, f"must equal {what} ({parts:,}), got {total:,}")


def _check_documents(
    state: dict, n: int, size: int, score_sum: float, counts: list[list[int]], sums: list[float], score_n: list[int]
) -> None:
    """Each document's row (kept for ``--ci``): whole rows, counts that are
    counts, and, when every document has its row, column totals equal to the state's totals."""
    import numpy as np

    width = row_width(size)
    documents = check_array(state["documents"], "/documents")
    if len(documents) % width or len(documents) // width > n:
        raise bad(
            "/documents",
            f"must hold whole rows of {width} numbers, at most one per document ({n}); holds {len(documents)} numbers",
        )
    rows_kept = len(documents) // width
    if not rows_kept:
        return
    if not all(type(v) is float or type(v) is int for v in documents):
        k = next(k for k, v in enumerate(documents) if type(v) not in (float, int))
        raise bad(f"/documents/{k}", f"must be a number, got {shown(documents[k])}")
    rows = check_floats(documents, "/documents").reshape(rows_kept, width)
    tallies = rows[:, 1 : 1 + COUNTS * size]
    row_sums = rows[:, 1 + COUNTS * size : 1 + (COUNTS + 1) * size]
    row_n = rows[:, 1 + (COUNTS + 1) * size :]
    problems = (
        (~np.isfinite(rows), "must be a finite number", 0),
        ((rows[:, 0] < -SLACK) | (rows[:, 0] > 1 + SLACK), "a document score must be between 0 and 1", 0),
        ((tallies < 0) | (tallies != np.floor(tallies)), "a count must be a non-negative integer", 1),
        ((row_n < 0) | (row_n != np.floor(row_n)), "a count must be a non-negative integer", 1 + (COUNTS + 1) * size),
        (
            (row_sums < -SLACK) | (row_sums > row_n + SLACK),
            "a field's score sum must be between 0 and its count",
            1 + COUNTS * size,
        ),
    )
    for wrong, message, offset in problems:
        if wrong.any():
            where = np.argwhere(wrong.reshape(rows_kept, -1))[0]
            raise bad(f"/documents/{int(where[0]) * width + offset + int(where[1])}", message)
    if rows_kept != n:
        return  # states with and without rows were merged: --ci refuses them (check_documents)
    flat = [c for row in counts for c in row]
    if tallies.sum(axis=0).tolist() != [float(c) for c in flat] or row_n.sum(axis=0).tolist() != [
        float(c) for c in score_n
    ]:
        raise bad("/documents", "the documents' counts do not add up to the state's counts")
    if not math.isclose(float(rows[:, 0].sum()), score_sum, rel_tol=1e-9, abs_tol=1e-9 * max(n, 1)):
        raise bad(
            "/documents",
            f"the documents' scores add up to {rows[:, 0].sum()!r}, the state's score_sum is {score_sum!r}",
        )
    if not np.allclose(row_sums.sum(axis=0), sums, rtol=1e-9, atol=1e-9 * max(n, 1)):
        raise bad("/documents", "the documents' field score sums do not add up to the state's field_score_sum")


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
    if len(acc.documents) != acc.document_count * row_width(acc.size):
        raise InputError(
            "--ci needs each document's figures, which these states do not hold "
            "(save them with `stickler eval --ci LEVEL --save-state`)",
            ", ".join(paths),
        )


def plan_of(state: dict, path: str, plugins: Sequence[str] = ()) -> Plan:
    """The plan of a state's embedded schema, compiled as any schema is (no file is read: the documents
    its references name are embedded beside it); a schema error names the state file."""
    from .parallel import PlanSource

    try:
        return PlanSource(
            state["schema"],
            state["schema_source"],
            state["schema_sha256"],
            tuple(plugins),
            resources=state.get("schema_resources"),
            assert_formats=state.get("schema_formats_asserted", False),
        ).build()
    except SchemaError as exc:
        raise InputError(f"/schema{exc.pointer.rstrip('/')}: embedded schema: {exc.message}", path) from None


def check_distinct(paths: Sequence[str]) -> None:
    """A state given twice (by any name: a link, ``./``) would count its documents twice: refused."""
    seen: dict[tuple, str] = {}
    for path in paths:
        identity = atomic.identity(path, existing=True)
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
    what = (
        f"shares {shared:,} of its {len(indexes[later]):,} documents with {other} (the same ground-truth "
        f"record): the first, {indexes[later].where(k)}, is {indexes[earlier].where(i)} there"
    )
    if not allow:
        raise InputError(
            f"{what}; merging would count them twice. Merge states of distinct documents, or, if "
            "these are different documents with identical ground truth, pass --allow-overlap",
            path,
        )
    sys.stderr.write(f"stickler: warning: {path} {what}; added anyway (--allow-overlap): they are counted twice\n")


def merge(
    paths: Sequence[str], plugins: Sequence[str] = (), collect: Collect = Collect(), allow_overlap: bool = False
) -> Evaluation:
    """One Evaluation from several state files, each checked whole before any is added, none sharing a
    document with another (unless ``allow_overlap``); the schema is the first state's. States of one schema
    saved from files that differ only in spacing are of the same schema (its digest, of the parsed schema, is
    compared; the file's sha256 is not)."""
    check_distinct(paths)
    states = _loaded(paths)
    first_path, first = states[0]
    for path, state in states[1:]:
        if state["schema_digest"] != first["schema_digest"] and state["schema_sha256"] == first["schema_sha256"]:
            raise InputError(
                f"embeds a different schema than {first_path} under the same schema sha256: one of "
                "them was altered; states of different schemas cannot be merged",
                path,
            )
        if state["schema_digest"] != first["schema_digest"]:
            raise InputError(
                f"made with a different schema than {first_path} (schema digest {state['schema_digest'][:12]}… "
                f"vs {first['schema_digest'][:12]}…); states of different schemas cannot be merged",
                path,
            )
        fields, first_fields = (
            list(map(repr, each["fields"])) if isinstance(each.get("fields"), list) else [] for each in (state, first)
        )
        if fields != first_fields and sorted(fields) == sorted(first_fields):  # the digest sorts keys, a plan does not
            raise InputError(
                f"made with {first_path}'s schema with its properties in another order, so its fields "
                "are counted in another order; save both states with one schema file",
                path,
            )
        settings = (state.get("list_errors") or {}).get("settings")
        if settings != (first.get("list_errors") or {}).get("settings"):
            raise InputError(
                f"its lists were labelled with other settings than {first_path}'s ({settings}): what went "
                "wrong in lists cannot be added up; save both with the same --limit list-… values",
                path,
            )
        if state.get("schema_formats_asserted", False) != first.get("schema_formats_asserted", False):
            asserted, other = (path, first_path) if state.get("schema_formats_asserted") else (first_path, path)
            raise InputError(
                f"{asserted} was saved with --assert-formats and {other} without: their schema-valid "
                "counts mean different things and cannot be added",
                path,
            )
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
            raise InputError(
                f"sliced by {list(state['slices']['paths']) or 'nothing'}, {first_path} by "
                f"{sliced or 'nothing'}: states merge only when every run had the same --slice-by",
                path,
            )
    check_overlap(states, allow_overlap)
    cap = min(state["slices"]["max_values"] for _, state in states)
    collect = dataclasses.replace(collect, slices=tuple(sliced), slice_values=cap)
    acc = Accumulator(plan, collect)
    for path, state in states:
        acc.merge_state(state)
    return Evaluation(plan, acc, {"ground_truth": None, "predictions": None, "id_field": None, "states": list(paths)})
