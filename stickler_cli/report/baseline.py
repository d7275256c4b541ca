"""``eval --save-baseline`` and ``eval --baseline``: a small file of what a run found, and later runs held to it.

A baseline keeps, per document and field, what the run's per-document rows (``Collect.documents``, the rows
``--ci`` and ``stickler diff`` use) hold: the five outcome counts (TP, FA, FD, FN, TN: for a field with one value
in a document, exactly one of them is 1), the field's mean score, and the document's score. Not the values.
Scores are quantised to 16 bits (``QUANTUM`` = 1/65535: a score is kept to within 7.7e-6), counts in the
smallest unsigned integer that holds them; each array is compressed with zlib and base64-coded in one JSON
object, beside the schema's digest, stickler's version and the run's figures.

A document is known by its ground-truth record's 64-bit digest (the document index's key: the record holds its
id when it has one) and, for a record found more than once, by which occurrence it is; it is named by its
ground-truth file and line. Comparing a run with its baseline pairs the documents found in both; the others
are counted and listed. Per field, two paired tests: exact McNemar on the documents whose outcome changed
between correct (no FD, FA or FN) and incorrect, and the paired bootstrap and permutation test of the mean
score that ``stickler diff`` makes (``statistics.paired_comparison``). The p-values of every field are adjusted
together (Benjamini–Hochberg); a field is worse or better when one of its tests is significant at ``--fdr``.
"""

from __future__ import annotations

import base64
import binascii
import math
import zlib
from typing import Any

import numpy as np
import orjson

from ..errors import InputError
from ..limits import current, read_json_within
from ..run.accumulate import COUNTS, row_width, schema_digest
from ..run.evaluate import Evaluation
from ..version import __version__
from .diff import changes_line
from .slices import benjamini_hochberg
from .statistics import document_rows, observed, paired_comparison

FORMAT, FORMAT_VERSION = "stickler-baseline", 1
QUANTUM = 1 / 65535  # scores are kept as round(score / QUANTUM) in 16 bits
BETTER, WORSE, SAME, NO_DATA = "better", "worse", "same", "no data"
EVALUATOR_NOTE = "a change in the evaluator is not a change in the model"
_COUNT_TYPES = ("<u1", "<u2", "<u4")


def quantise(values: np.ndarray) -> np.ndarray:
    """Scores in [0, 1] as 16-bit steps of QUANTUM."""
    return np.rint(np.clip(values, 0.0, 1.0) / QUANTUM).astype("<u2")


def _pack(values: np.ndarray) -> str:
    return base64.b64encode(zlib.compress(np.ascontiguousarray(values).tobytes(), 9)).decode("ascii")


def _unpack(text: Any, dtype: str, count: int, name: str, path: str) -> np.ndarray:
    """``count`` values of ``dtype`` from zlib + base64 ``text``; InputError saying why not (never more
    bytes than the header promised are inflated: a small file cannot fill memory)."""
    if not isinstance(text, str):
        raise InputError(f"baseline field {name!r} must be a base64 string", path)
    try:
        raw = base64.b64decode(text, validate=True)
        size = count * np.dtype(dtype).itemsize
        inflate = zlib.decompressobj()
        data = inflate.decompress(raw, size + 1)
        if not inflate.eof or inflate.unconsumed_tail or inflate.unused_data:
            raise ValueError
    except (binascii.Error, ValueError, zlib.error):
        raise InputError(f"baseline field {name!r} is not zlib-compressed base64 data (truncated or edited?)", path)
    if len(data) != size:
        raise InputError(f"baseline field {name!r} holds {len(data):,} bytes, the header says {size:,}", path)
    return np.frombuffer(data, dtype=dtype)


def _count_type(counts: np.ndarray) -> str:
    top = int(counts.max()) if counts.size else 0
    return next(t for t in _COUNT_TYPES if top <= np.iinfo(np.dtype(t)).max)


def _fields(evaluation: Evaluation) -> list[dict[str, str]]:
    return [{"path": f.path, "comparator": f.comparator_name or f.kind.value} for f in evaluation.plan.fields]


def _digest(evaluation: Evaluation) -> str:
    return schema_digest(evaluation.plan.schema, evaluation.plan.resources)


def build(evaluation: Evaluation) -> bytes:
    """The baseline file of a run that kept its per-document rows (``Collect.documents``)."""
    acc, plan = evaluation.accumulator, evaluation.plan
    size = len(plan.fields)
    rows = document_rows(acc.documents, size)
    n = len(rows)
    counts = np.rint(rows[:, 1 : 1 + COUNTS * size]).astype(np.int64)
    score_n = np.rint(rows[:, 1 + (COUNTS + 1) * size :]).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        means = np.where(score_n > 0, rows[:, 1 + COUNTS * size : 1 + (COUNTS + 1) * size] / score_n, 0.0)
    counts_type, n_type = _count_type(counts), _count_type(score_n)
    found = observed(rows, size) if n else {}
    figures = {
        "document_count": n,
        "weighted_overall_score": float(found["weighted_overall_score"][0]) if n else None,
        "fields": {
            f.path: {
                name: (None if np.isnan(v := float(found[name][0, f.index])) else v)
                for name in ("cm_precision", "cm_recall", "cm_f1", "mean_score")
            }
            for f in plan.fields
        }
        if n
        else {},
    }
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "stickler": __version__,
        "schema": {"path": plan.source, "sha256": plan.sha256, "digest": _digest(evaluation)},
        "ground_truth": evaluation.inputs.get("ground_truth"),
        "predictions": evaluation.inputs.get("predictions"),
        "documents": n,
        "fields": _fields(evaluation),
        "score_quantum": QUANTUM,
        "figures": figures,
        "sources": [list(run) for run in acc.index.sources],
        "arrays": {
            "digests": _pack(np.frombuffer(acc.index.digests, dtype=np.uint64).astype("<u8")),
            "lines": _pack(np.frombuffer(acc.index.lines, dtype=np.uint32).astype("<u4")),
            "score": _pack(quantise(rows[:, 0])),
            "counts": {"dtype": counts_type, "data": _pack(counts.astype(counts_type))},
            "mean_score": _pack(quantise(means)),
            "score_n": {"dtype": n_type, "data": _pack(score_n.astype(n_type))},
        },
    }
    return orjson.dumps(header)


class Baseline:
    """A baseline file read back: its header and its documents' rows (``row_width``, scores as quantised)."""

    def __init__(self, header: dict[str, Any], rows: np.ndarray, digests: np.ndarray, lines: np.ndarray) -> None:
        self.header, self.rows, self.digests, self.lines = header, rows, digests, lines
        self.fields: list[dict[str, str]] = header["fields"]

    def where(self, k: int) -> str:
        first = 0
        for source, count in self.header["sources"]:
            if k < first + count:
                return f"{source}:{int(self.lines[k])}" if self.lines[k] else f"document {k - first + 1} of {source}"
            first += count
        return f"document {k + 1}"


def _need(condition: bool, message: str, path: str) -> None:
    if not condition:
        raise InputError(message, path)


def load(path: str) -> Baseline:
    """Read and check a baseline file (bounded by --limit state-bytes): InputError (exit 2) naming the file and
    what is wrong, never a traceback."""
    header = read_json_within(path, "state-bytes", "baseline file")
    _need(isinstance(header, dict) and header.get("format") == FORMAT, "not a stickler baseline file", path)
    _need(
        header.get("format_version") == FORMAT_VERSION,
        f"baseline format version {header.get('format_version')!r}; this stickler reads {FORMAT_VERSION}",
        path,
    )
    n, fields, arrays = header.get("documents"), header.get("fields"), header.get("arrays")
    _need(isinstance(n, int) and not isinstance(n, bool) and n >= 0, "'documents' must be a count", path)
    _need(
        isinstance(fields, list)
        and all(
            isinstance(f, dict) and isinstance(f.get("path"), str) and isinstance(f.get("comparator"), str)
            for f in fields
        ),
        "'fields' must be a list of {path, comparator}",
        path,
    )
    _need(isinstance(arrays, dict), "'arrays' is missing", path)
    version = header.get("stickler")
    _need(isinstance(version, str) and 0 < len(version) <= 100, "'stickler' must be a version string", path)
    schema = header.get("schema")
    _need(isinstance(schema, dict) and isinstance(schema.get("digest"), str), "'schema.digest' is missing", path)
    sources = header.get("sources")
    _need(
        isinstance(sources, list)
        and all(
            isinstance(s, list)
            and len(s) == 2
            and isinstance(s[0], str)
            and isinstance(s[1], int)
            and not isinstance(s[1], bool)
            and s[1] >= 0
            for s in sources
        )
        and sum(s[1] for s in sources) == n,
        "'sources' must be [file, documents] runs adding up to 'documents'",
        path,
    )
    size = len(fields)
    # A cell costs at least a byte: a header claiming more than the limit allows is refused before inflating.
    _need(
        n * max(size, 1) <= current().state_bytes,
        f"claims {n:,} documents × {size} fields: over the state-bytes limit",
        path,
    )

    def typed(name: str) -> tuple[Any, str]:
        block = arrays.get(name)
        _need(
            isinstance(block, dict) and block.get("dtype") in _COUNT_TYPES,
            f"'arrays.{name}' must be {{dtype, data}} with dtype one of {', '.join(_COUNT_TYPES)}",
            path,
        )
        return block.get("data"), block["dtype"]

    digests = _unpack(arrays.get("digests"), "<u8", n, "digests", path)
    lines = _unpack(arrays.get("lines"), "<u4", n, "lines", path)
    score = _unpack(arrays.get("score"), "<u2", n, "score", path).astype(np.float64) * QUANTUM
    counts = _unpack(*typed("counts"), n * size * COUNTS, "counts", path)
    means = _unpack(arrays.get("mean_score"), "<u2", n * size, "mean_score", path).astype(np.float64) * QUANTUM
    score_n = _unpack(*typed("score_n"), n * size, "score_n", path).astype(np.float64)
    means, score_n = means.reshape(n, size), score_n.reshape(n, size)
    rows = np.empty((n, row_width(size)))
    rows[:, 0] = score
    rows[:, 1 : 1 + COUNTS * size] = counts.reshape(n, size * COUNTS)
    rows[:, 1 + COUNTS * size : 1 + (COUNTS + 1) * size] = means * score_n
    rows[:, 1 + (COUNTS + 1) * size :] = score_n
    return Baseline(header, rows, digests, lines)


def quantised_rows(rows: np.ndarray, size: int) -> np.ndarray:
    """A run's rows as its baseline would keep them (scores and mean scores in QUANTUM steps), so that a run
    compared with its own baseline differs by exactly nothing."""
    out = rows.copy()
    out[:, 0] = quantise(rows[:, 0]) * QUANTUM
    sums, ns = rows[:, 1 + COUNTS * size : 1 + (COUNTS + 1) * size], rows[:, 1 + (COUNTS + 1) * size :]
    with np.errstate(divide="ignore", invalid="ignore"):
        means = np.where(ns > 0, sums / ns, 0.0)
    out[:, 1 + COUNTS * size : 1 + (COUNTS + 1) * size] = quantise(means) * QUANTUM * ns
    return out


def _keys(digests: np.ndarray) -> list[tuple[int, int]]:
    """Each document's key: its digest and which occurrence of that digest it is (0 for the first)."""
    seen: dict[int, int] = {}
    keys = []
    for d in digests.tolist():
        k = seen.get(d, 0)
        seen[d] = k + 1
        keys.append((d, k))
    return keys


def pair_documents(base: np.ndarray, run: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int], list[int]]:
    """The positions of the documents found in both (baseline's, run's, in the run's order) and those found in
    the baseline only and in the run only."""
    at = {key: k for k, key in enumerate(_keys(base))}
    ours, theirs, only_run = [], [], []
    for j, key in enumerate(_keys(run)):
        k = at.pop(key, None)
        if k is None:
            only_run.append(j)
        else:
            ours.append(j)
            theirs.append(k)
    return np.array(theirs, dtype=np.int64), np.array(ours, dtype=np.int64), sorted(at.values()), only_run


def mcnemar_p(worse: int, better: int) -> float:
    """Two-sided exact McNemar p-value: the binomial test of ``worse`` out of the ``worse + better`` discordant
    documents at 1/2 (``scipy.stats.binomtest(worse, worse + better).pvalue``); the same binomial tail as the
    policy's test (``scipy.special.bdtr``), without importing scipy.stats."""
    n = worse + better
    if n == 0 or worse == better:
        return 1.0
    from scipy.special import bdtr  # scipy.stats.binom.cdf

    return min(1.0, 2 * float(bdtr(min(worse, better), n, 0.5)))


def _select(rows: np.ndarray, size: int, picked: list[int]) -> np.ndarray:
    """Rows of ``size`` fields cut to the fields ``picked`` (in that order)."""
    p = np.asarray(picked, dtype=np.int64)
    count_columns = (1 + COUNTS * p[:, None] + np.arange(COUNTS)).ravel()
    columns = np.concatenate([[0], count_columns, 1 + COUNTS * size + p, 1 + (COUNTS + 1) * size + p]).astype(np.int64)
    return rows[:, columns]


def _number(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def compare(
    evaluation: Evaluation,
    baseline: Baseline,
    path: str,
    fdr: float,
    level: float,
    resamples: int,
    seed: int,
) -> dict[str, Any]:
    """The report's ``baseline`` block: the run against ``baseline`` (read from ``path``, its schema checked by
    ``check_schema`` before the run), document by document."""
    plan, acc = evaluation.plan, evaluation.accumulator
    size = len(plan.fields)
    header = baseline.header
    schema_differs = header["schema"]["digest"] != _digest(evaluation)
    notices = []
    if header["stickler"] != __version__:
        notices.append(f"the baseline was written by stickler {header['stickler']}, this is {__version__}")
    if schema_differs:
        notices.append("the baseline was written with another schema")
    if notices:
        notices = [f"{'; '.join(notices)}: {EVALUATOR_NOTE}"]
    # Fields: by position when the schema is the same; by path and comparator otherwise.
    ours = _fields(evaluation)
    theirs_at = {(f["path"], f["comparator"]): k for k, f in enumerate(baseline.fields)}
    mapped = [
        (k, theirs_at[(f["path"], f["comparator"])])
        for k, f in enumerate(ours)
        if (f["path"], f["comparator"]) in theirs_at
    ]
    mapped_ours = {k for k, _ in mapped}
    not_compared = [
        {"path": f["path"], "comparator": f["comparator"], "side": "run"}
        for k, f in enumerate(ours)
        if k not in mapped_ours
    ]
    mapped_theirs = {k for _, k in mapped}
    not_compared += [
        {"path": f["path"], "comparator": f["comparator"], "side": "baseline"}
        for k, f in enumerate(baseline.fields)
        if k not in mapped_theirs
    ]
    run_rows = quantised_rows(document_rows(acc.documents, size), size)
    digests = np.frombuffer(acc.index.digests, dtype=np.uint64)
    theirs, ours_k, only_base, only_run = pair_documents(baseline.digests, digests)
    common = len(ours_k)
    fields_out: list[dict[str, Any]] = []
    if mapped:
        a = _select(baseline.rows[theirs], len(baseline.fields), [t for _, t in mapped])
        b = _select(run_rows[ours_k], size, [o for o, _ in mapped])
        m = len(mapped)
        scores = paired_comparison(a, b, m, level, resamples, seed)["mean_score"] if common else None
        ca = a[:, 1 : 1 + COUNTS * m].reshape(common, m, COUNTS)
        cb = b[:, 1 : 1 + COUNTS * m].reshape(common, m, COUNTS)
        for j, (o, _) in enumerate(mapped):
            seen_a, seen_b = ca[:, j].sum(axis=1) > 0, cb[:, j].sum(axis=1) > 0
            both = seen_a & seen_b
            right_a = ca[:, j, 1:4].sum(axis=1) == 0  # no FA, FD or FN
            right_b = cb[:, j, 1:4].sum(axis=1) == 0
            worse = int((both & right_a & ~right_b).sum())
            better = int((both & ~right_a & right_b).sum())
            entry: dict[str, Any] = {
                "path": ours[o]["path"],
                "comparator": ours[o]["comparator"],
                "documents": int(both.sum()),
                "baseline_correct": int((both & right_a).sum()),
                "run_correct": int((both & right_b).sum()),
                "worse": worse,
                "better": better,
                "mcnemar_p": mcnemar_p(worse, better) if both.any() else None,
                "baseline_mean_score": None,
                "run_mean_score": None,
                "score_difference": None,
                "ci": None,
                "score_p": None,
            }
            if scores is not None:
                diff = _number(scores["difference"][j])
                low, high = _number(scores["low"][j]), _number(scores["high"][j])
                entry.update(
                    baseline_mean_score=_number(scores["a"][j]),
                    run_mean_score=_number(scores["b"][j]),
                    score_difference=diff,
                    ci=None if low is None or high is None else {"low": low, "high": high, "level": level},
                    score_p=_number(scores["p_value"][j]),
                )
            fields_out.append(entry)
    _decide(fields_out, fdr)
    worse_fields = [f["path"] for f in fields_out if f["verdict"] == WORSE]
    better_fields = [f["path"] for f in fields_out if f["verdict"] == BETTER]
    block = {
        "file": path,
        "written_by": {
            "stickler": header["stickler"],
            "schema_digest": header["schema"]["digest"],
            "predictions": header.get("predictions"),
        },
        "version_differs": header["stickler"] != __version__,
        "schema_differs": schema_differs,
        "notices": notices,
        "documents": {
            "common": common,
            "baseline_only": len(only_base),
            "run_only": len(only_run),
            "baseline_only_listed": [baseline.where(k) for k in only_base],
            "run_only_listed": [acc.index.where(k) for k in only_run],
        },
        "fdr": fdr,
        "bootstrap": {"level": level, "resamples": resamples, "seed": seed},
        "method": (
            "per field: exact McNemar test on the documents whose outcome changed between correct (no FD, FA or "
            "FN) and incorrect; paired bootstrap interval and permutation test of the mean score; "
            f"Benjamini-Hochberg over every field's tests at FDR {fdr:g}"
        ),
        "fields": fields_out,
        "not_compared": not_compared,
        "worse": worse_fields,
        "better": better_fields,
    }
    block["verdict"] = verdict(block)
    # what --fail-on-regression fails on: a field worse, or nothing compared (never green on missing data)
    block["regressed"] = bool(worse_fields) or not common or not fields_out
    return block


def _decide(fields: list[dict[str, Any]], fdr: float) -> None:
    """Each field's q-values (Benjamini–Hochberg over all fields' tests) and verdict: worse when a significant
    test goes down, better when one goes up and none down, same otherwise; no data without a document."""
    tests: list[tuple[int, str, float]] = []
    for k, f in enumerate(fields):
        if f["mcnemar_p"] is not None and f["worse"] + f["better"]:
            tests.append((k, "mcnemar", f["mcnemar_p"]))
        if f["score_p"] is not None and f["score_difference"]:
            tests.append((k, "score", f["score_p"]))
    q = benjamini_hochberg(np.array([t[2] for t in tests], dtype=np.float64))
    for f in fields:
        f["mcnemar_q"] = f["score_q"] = None
        f["directions"] = []
    for (k, test, _), q_k in zip(tests, q.tolist()):
        f = fields[k]
        f[f"{test}_q"] = q_k
        if q_k > fdr:
            continue
        if test == "mcnemar":
            f["directions"].append(WORSE if f["worse"] > f["better"] else BETTER)
        elif f["ci"] is not None and (f["ci"]["low"] > 0 or f["ci"]["high"] < 0):  # as diff: the interval agrees
            f["directions"].append(WORSE if f["score_difference"] < 0 else BETTER)
    for f in fields:
        directions = f.pop("directions")
        if not f["documents"] and f["score_p"] is None:
            f["verdict"] = NO_DATA
        elif WORSE in directions:
            f["verdict"] = WORSE
        elif BETTER in directions:
            f["verdict"] = BETTER
        else:
            f["verdict"] = SAME


def verdict(block: dict[str, Any]) -> str:
    """The comparison in one line."""
    if not block["documents"]["common"]:
        return "No document in common with the baseline: nothing shows that the run is not worse"
    if not block["fields"]:
        return (
            "No field in common with the baseline (same path and comparator): nothing shows that the run is not worse"
        )
    line = changes_line("Against the baseline, the run is", "field(s)", block["worse"], block["better"])
    return line or "No field is significantly different from the baseline"


def check_schema(baseline: Baseline, plan: Any, path: str, any_schema: bool) -> None:
    """Refuse (exit 2) a baseline written with another schema, unless ``any_schema``."""
    digest = schema_digest(plan.schema, plan.resources)
    theirs = baseline.header["schema"]["digest"]
    if theirs != digest and not any_schema:
        raise InputError(
            f"was written with another schema (digest {theirs[:12]}…, this run's {digest[:12]}…); "
            "--baseline-any-schema compares the fields of the same path and comparator",
            path,
        )
