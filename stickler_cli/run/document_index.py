"""Which documents a run scored: each one's ground-truth digest and line, in input order.

A state carries this index so that ``stickler merge`` can tell states of distinct documents (shards of
one dataset) from states that share documents (a shard and the whole run, one ground truth scored
with two prediction files, a state saved twice under two names), whose sum would count documents
twice; and so that ``stickler diff`` of two states compares them only on the same documents.

A document is known by a 64-bit digest of its ground-truth record (``analysis.document_key``: keys
sorted, so the record's spelling in the file does not matter): the same record read from a shard file
and from the whole file it was cut from is the same document, whatever the files are called, and
records of different documents differ (by their id, when they carry one). Not the file and line: a
shard's line 1 is line 46 of the whole file. A record repeated within a state (``{"label": "cat"}`` in
a small schema) names no document and is no evidence of an overlap (``first_shared``). The price: two
different documents whose ground truth is identical and found once in each of two states are taken for
one, and those states are refused unless ``--allow-overlap``.

On disk the digests and lines are little-endian arrays, base64-packed (8 + 4 bytes a document, 16
characters in all): a state of a million documents grows by 16 MB, not by a JSON list of numbers.
"""

from __future__ import annotations

import base64
import binascii
from array import array
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from ..analyses.failures import document_key
from ..analyses.part import Collect, Part
from ..analyses.state_check import bad, check_array, check_count, check_object, shown

if TYPE_CHECKING:
    from ..plan import Plan

LINE_UNKNOWN = 0  # a ground-truth line beyond 32 bits (a document is then named by its position)
_LINE_MAX = 2**32 - 1
KEYS = ("sources", "digests", "lines")


def _pack(values: array, dtype: str) -> str:
    return base64.b64encode(np.asarray(values, dtype=dtype).tobytes()).decode("ascii")


def unpack(text: Any, dtype: str, count: int) -> np.ndarray:
    """``count`` numbers of little-endian ``dtype`` from base64 ``text``; ValueError saying why not."""
    if not isinstance(text, str):
        raise ValueError(f"must be a base64 string, got {type(text).__name__}")
    size = np.dtype(dtype).itemsize
    if len(text) != 4 * -(-count * size // 3):  # checked before decoding: a claimed size costs nothing
        raise ValueError(
            f"must hold {count:,} values of {size} bytes ({4 * -(-count * size // 3):,} base64 "
            f"characters), holds {len(text):,} characters"
        )
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("is not valid base64") from None
    if len(data) != count * size:
        raise ValueError(f"must hold {count:,} values of {size} bytes, holds {len(data):,} bytes")
    return np.frombuffer(data, dtype=dtype)


class DocumentIndex:
    """The digests and ground-truth lines of a run's documents, and the files they came from (runs of
    ``[file, documents]`` in input order)."""

    def __init__(self) -> None:
        self.digests = array("Q")
        self.lines = array("I")
        self.sources: list[list[Any]] = []

    def __len__(self) -> int:
        return len(self.digests)

    def add(self, source: str, documents: Iterable[tuple[dict, int]]) -> None:
        """Documents of ``source`` (ground-truth record, line), in input order."""
        before = len(self.digests)
        for gt, line in documents:
            self.digests.append(document_key(gt))
            self.lines.append(line if 0 < line <= _LINE_MAX else LINE_UNKNOWN)
        self._extend_sources([[source, len(self.digests) - before]])

    def _extend_sources(self, runs: Sequence[Sequence[Any]]) -> None:
        for source, count in runs:
            if not count:
                continue
            if self.sources and self.sources[-1][0] == source:
                self.sources[-1][1] += count
            else:
                self.sources.append([source, count])

    def state(self, as_arrays: bool = False) -> dict[str, Any]:
        """The index as a state holds it: packed (JSON) or as arrays (between processes)."""
        sources = [list(run) for run in self.sources]
        if as_arrays:
            return {"sources": sources, "digests": self.digests, "lines": self.lines}
        return {"sources": sources, "digests": _pack(self.digests, "<u8"), "lines": _pack(self.lines, "<u4")}

    def merge(self, block: dict[str, Any]) -> None:
        """Another run's documents after this one's (a state checked by state_file, or a worker's arrays)."""
        count = sum(n for _, n in block["sources"])
        for name, packed, native, target in (
            ("digests", "<u8", np.uint64, self.digests),
            ("lines", "<u4", np.uint32, self.lines),
        ):
            values = block[name]
            if isinstance(values, str):
                values = unpack(values, packed, count)
            target.frombytes(np.asarray(values, dtype=native).tobytes())
        self._extend_sources(block["sources"])

    def where(self, k: int) -> str:
        """Document ``k`` (from 0) as ``FILE:LINE``, or by its position in its file when its line is not known."""
        first = 0
        for source, count in self.sources:
            if k < first + count:
                line = self.lines[k]
                return f"{source}:{line}" if line != LINE_UNKNOWN else f"document {k - first + 1} of {source}"
            first += count
        return f"document {k + 1}"


def first_shared(indexes: Sequence[DocumentIndex]) -> tuple[int, int, int, int, int] | None:
    """The first document of a later index that an earlier one holds too: (later index, its position there,
    the first index that holds it, its position there, how many of the later index's documents that one
    holds); None when no two indexes share a document. Only a record found once in each index names a
    document: one repeated within an index (``{"name": "x"}`` in every other document of a small schema) says
    nothing of which document it is, so it is no evidence of an overlap. One sort of every index's digests:
    k shards cost no more than one run of them all."""
    digests = [np.frombuffer(index.digests, dtype=np.uint64) for index in indexes]
    singular = []
    for d in digests:
        values, counts = np.unique(d, return_counts=True)
        singular.append(values[counts == 1])
    if sum(len(v) for v in singular) == 0:
        return None
    values = np.concatenate(singular)
    owners = np.concatenate([np.full(len(v), k, dtype=np.int64) for k, v in enumerate(singular)])
    order = np.lexsort((owners, values))  # by digest, then by index
    values, owners = values[order], owners[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    first_owner = np.repeat(owners[starts], np.diff(np.r_[starts, len(values)]))
    later = owners != first_owner  # held by an earlier index too
    if not later.any():
        return None
    j = int(owners[later].min())
    shared = np.isin(digests[j], values[later & (owners == j)])
    k = int(np.argmax(shared))
    i = int(first_owner[np.searchsorted(values, digests[j][k])])
    both = np.intersect1d(singular[i], singular[j], assume_unique=True)
    return j, k, i, int(np.flatnonzero(digests[i] == digests[j][k])[0]), len(both)


# -- the part of the accumulated state (analyses/part.py): fed by the scoring of each shard ---------------------------


def new_store(plan: Plan, collect: Collect) -> DocumentIndex:
    return DocumentIndex()


def state_of(store: DocumentIndex, as_arrays: bool) -> dict[str, Any]:
    return {"document_index": store.state(as_arrays)}


def merge_state(store: DocumentIndex, state: dict[str, Any], offset: int) -> None:
    store.merge(state["document_index"])


def check_state(state: dict[str, Any], plan: Plan) -> None:
    """A state's ``document_index``: a digest and a line for each of its documents, packed, and the files they
    came from, whose documents add up to the state's. Decoded in place (merging reads the arrays)."""
    block, n = state["document_index"], state["document_count"]
    block = check_object(block, "/document_index", KEYS)
    total = 0
    for k, run in enumerate(check_array(block["sources"], "/document_index/sources")):
        at = f"/document_index/sources/{k}"
        if not (isinstance(run, list) and len(run) == 2 and isinstance(run[0], str)):
            raise bad(at, f"must be a [file name, documents] pair, got {shown(run)}")
        if check_count(run[1], f"{at}/1") < 1:
            raise bad(f"{at}/1", "must be at least 1")
        total += run[1]
    if total != n:
        raise bad("/document_index/sources", f"counts {total:,} documents, the state {n:,}")
    for name, dtype in (("digests", "<u8"), ("lines", "<u4")):
        try:
            block[name] = unpack(block[name], dtype, n)
        except ValueError as exc:
            raise bad(f"/document_index/{name}", str(exc)) from None


PART = Part("index", new_store, state_of, merge_state, check_state)
