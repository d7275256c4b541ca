"""One part of a run's accumulated state: the protocol every analysis follows, and what a run collects.

The accumulator (run/accumulate.py) keeps the counts itself and hands everything else to its parts
(analyses/registry.py lists them). A part is a store (any object: ``Part.new`` makes an empty one,
the accumulator holds it as the attribute ``Part.name``) and what is done with it:

- ``add`` / ``add_batch``: one scored document (``DocResult``) or a batch (``BatchResult``), with the
  documents' ids; None where the part is fed otherwise (the worst documents, the slices).
- ``state``: its keys of the saved state (JSON values, or numpy arrays when ``as_arrays``: cheaper
  to pickle to the parent process).
- ``merge``: adds another run's state in (``offset``: the documents counted before it).
- ``check``: the state-file check of its keys (run/state_file.py calls it once the counts are
  checked, so it may rely on ``document_count`` and ``counts``); raises ``state_check.BadState``.
- ``report``: its keys of the report dict (report/build.py), None where the report derives it
  elsewhere (the roll-up feeds the metrics; slice statistics are report/slices.py's).

Same input, same state: one process, N workers, Dask and ``stickler merge`` must reach the same
figures, so ``merge`` of two states equals the state of the concatenated input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, Sequence, TypeVar

from ..limits import DEFAULT as DEFAULT_LIMITS

if TYPE_CHECKING:
    from ..engine.batch import BatchResult
    from ..engine.result import DocResult
    from ..plan import Plan

Store = TypeVar("Store")


@dataclass(frozen=True)
class Collect:
    """What a run collects beyond the counts (sent to worker processes as is)."""

    worst: int = 10  # the documents with the lowest scores, kept whole for the report
    non_matches: bool = False  # every FD/FA/FN comparison, for --non-matches
    per_document: bool = False  # one line per document (score, field scores, counts), for --per-document
    documents: bool = False  # each document's score and per-field counts, for confidence intervals
    # The first failing comparisons (FD/FA/FN) of each field path kept, in input order (--limit failures-per-field):
    # for the HTML report. Each document explained for them costs about as much as scoring a hundred, so
    # none unless asked for (`stickler eval` asks when --html or --save-state is given).
    failures: int = 0
    # --slice-by: ground-truth paths whose values slice the counts (slicing.py), at most ``slice_values``
    # values per path kept (limits.Limits.slice_values), each cut to ``slice_chars`` characters.
    slices: tuple[str, ...] = ()
    slice_values: int = DEFAULT_LIMITS.slice_values
    slice_chars: int = DEFAULT_LIMITS.slice_value_chars
    # Each document's ground-truth digest and line (document_index.py), for a state that is saved (merge checks
    # that states share no document) or diffed (documents): about 14,000 instructions a document, so only then.
    index: bool = False
    # --target-precision, --policy: each document's lowest confidence per field (policy.py), for the straight-through
    # rate of an auto-accept policy: 24 bytes a (document, field with a value), so only then.
    policy: bool = False

    @property
    def indexed(self) -> bool:
        """Whether the run keeps its document index."""
        return self.index or self.documents


@dataclass(frozen=True)
class ReportContext:
    """What a part's report block may use besides its store: the plan, the run's flat per-field counts and
    the report's settings that concern the analyses."""

    plan: Plan
    tally: list[int]
    iou_thresholds: Sequence[float] | None = None  # localisation: None for the default (COCO's 0.50:0.95)
    box_rule: str = "value-and-iou"
    judge_pairing: str = "full"  # --judge-pairing of the run: worst documents are explained as they were scored


@dataclass(frozen=True)
class Part(Generic[Store]):
    """One part of the accumulated state (see the module docstring)."""

    name: str
    new: Callable[[Plan, Collect], Store]
    state: Callable[[Store, bool], dict[str, Any]]
    merge: Callable[[Store, dict[str, Any], int], None]
    check: Callable[[dict[str, Any], Plan], None]
    add: Callable[[Store, DocResult, Any], None] | None = None
    add_batch: Callable[[Store, BatchResult, Sequence[Any] | None], None] | None = None
    report: Callable[[Store, ReportContext], dict[str, Any]] | None = None
