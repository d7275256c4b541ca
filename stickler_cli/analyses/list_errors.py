"""What went wrong in lists, over a run: the labels of engine/row_errors.py counted per list field, and
the lists with the most labelled rows kept as examples (docs/why-it-fails.md, "What went wrong in a list").

The state adds up: counts add, each state keeps its ``kept`` worst lists per field ranked by (most
events, earliest in the input), so the merged states' union, cut to the smallest ``kept``, is the
worst of the whole input. States classified with different settings are not added together.
"""

from __future__ import annotations

import bisect
from typing import Any, Sequence

from .. import limits
from ..engine.row_errors import CATEGORIES, ListFindings
from ..errors import SticklerError
from ..json_text import as_written
from ..plan import Kind, Plan
from ..schema.keywords import escape as _token
from .part import Collect, Part, ReportContext
from .state_check import bad, check_array, check_count, check_number, check_object, check_scalar, is_int, shown

# Per list field: each label's count, then the lists found out of order (their Kendall taus summed in
# ``tau_millionths``: each tau rounded to 1e-6, in integers, so that sums are exact in any grouping), the lists with
# a truncated tail, the lists with something to say, and the unclassified ones and their rows.
COUNTS = (*CATEGORIES, "reordered", "truncated_lists", "lists", "unclassified_lists", "unclassified_rows")
SETTINGS = ("list_like_similarity", "list_text_similarity", "list_text_margin", "list_tail_rows", "list_classify_cells")
TAU_UNIT = 1_000_000  # taus are summed in millionths
EXAMPLE_EVENTS = 20  # events of one example kept (the rest counted in events_total)
EXAMPLE_KEYS = ("doc_id", "position", "gt_rows", "pred_rows", "tau", "unclassified", "events", "events_total")
EVENT_KEYS = ("type", "gt", "pred")
SHOWN = 3  # examples per field printed in the terminal and Markdown


def settings() -> dict[str, float | int]:
    """The labels' settings in force (``--limit list-…``)."""
    bounds = limits.current()
    return {name: getattr(bounds, name) for name in SETTINGS}


def list_fields(plan: Plan) -> list[int]:
    """The indices of the plan's lists of objects."""
    return [f.index for f in plan.fields if f.kind is Kind.OBJECT_LIST]


class ListErrors:
    """The run's counts and examples, by field index of each list of objects."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.fields = list_fields(plan)
        self.settings = settings()
        self.kept = limits.current().list_examples
        self.counts: dict[int, dict[str, Any]] = {
            i: {**dict.fromkeys(COUNTS, 0), "tau_millionths": 0} for i in self.fields
        }
        self.examples: dict[int, list[dict[str, Any]]] = {i: [] for i in self.fields}
        self._worst: dict[int, tuple] = {}  # per field with its examples full: the last one's rank (_keep clears it)
        self.empty = True  # nothing added or merged yet: a merge may adopt another state's settings

    def add(self, found: Sequence[ListFindings], doc_id: Any, position: int) -> None:
        """One document's lists (engine order) at ``position`` in the input."""
        self.empty = False
        for finding in found:
            field, tau, events = finding.field, finding.tau, finding.events
            counts = self.counts[field]
            counts["lists"] += 1
            if finding.unclassified:
                counts["unclassified_lists"] += 1
                counts["unclassified_rows"] += finding.unclassified
            if tau is not None:
                counts["reordered"] += 1
                counts["tau_millionths"] += round(tau * TAU_UNIT)
            truncated = False
            for label, _, _ in events:
                counts[label] += 1
                if label == "truncated":
                    truncated = True
            if truncated:
                counts["truncated_lists"] += 1
            kept = self.examples[field]
            if len(kept) >= self.kept:  # worse than the least bad kept? (most lists are not: no example built)
                worst = self._worst.get(field)
                if worst is None:
                    worst = self._worst[field] = _rank(kept[-1])
                if (
                    _rank_of(len(events), tau, finding.unclassified, position, finding.gt_rows, finding.pred_rows)
                    >= worst
                ):
                    continue
            self._keep(field, _example(finding, doc_id, position))

    def _keep(self, field: int, example: dict[str, Any]) -> None:
        """Insert ``example`` among the field's kept examples, keeping at most ``kept``: the one place that writes
        them, so they are always sorted worst first (``_rank``)."""
        kept = self.examples[field]
        bisect.insort(kept, example, key=_rank)
        del kept[self.kept :]
        self._worst.pop(field, None)

    def state(self) -> dict[str, Any]:
        fields = self.plan.fields
        return {
            "settings": dict(self.settings),
            "kept": self.kept,
            "fields": {fields[i].path: {**self.counts[i], "examples": list(self.examples[i])} for i in self.fields},
        }

    def merge(self, state: dict[str, Any], offset: int, documents: int) -> None:
        """Add a state whose documents come after this one's first ``offset``."""
        if state["settings"] != self.settings:
            if not self.empty:
                raise SticklerError(
                    f"cannot merge states whose lists were classified with different settings "
                    f"({state['settings']} and {self.settings})"
                )
            self.settings = dict(state["settings"])
        self.empty = self.empty and not documents
        self.kept = min(self.kept, state["kept"])
        index = {self.plan.fields[i].path: i for i in self.fields}
        for path, block in state["fields"].items():
            i = index[path]
            for key in COUNTS:
                self.counts[i][key] += block[key]
            self.counts[i]["tau_millionths"] += block["tau_millionths"]
            for example in block["examples"]:
                self._keep(i, {**example, "position": example["position"] + offset})
        for i in self.fields:  # kept sorted by _keep; cut to a smaller bound a merge may have brought
            del self.examples[i][self.kept :]
        self._worst.clear()

    def report(self) -> dict[str, Any]:
        """The report's ``list_errors``: settings, and per list of objects its counts, mean tau and examples."""
        fields = self.plan.fields
        out = {}
        for i in self.fields:
            counts = self.counts[i]
            block = {key: counts[key] for key in COUNTS}
            block["mean_tau"] = (
                counts["tau_millionths"] / TAU_UNIT / counts["reordered"] if counts["reordered"] else None
            )
            block["examples"] = list(self.examples[i])
            out[fields[i].path] = block
        return {
            "settings": {name.removeprefix("list_"): value for name, value in self.settings.items()},
            "examples_kept": self.kept,
            "fields": out,
        }


def _example(finding: ListFindings, doc_id: Any, position: int) -> dict[str, Any]:
    events = [{"type": label, "gt": list(gt), "pred": list(pred)} for label, gt, pred in finding.events]
    return {
        "doc_id": doc_id,
        "position": position,
        "gt_rows": finding.gt_rows,
        "pred_rows": finding.pred_rows,
        "tau": finding.tau,
        "unclassified": finding.unclassified,
        "events": events[:EXAMPLE_EVENTS],
        "events_total": len(events),
    }


def _rank(example: dict[str, Any]) -> tuple:
    """An example's place among the kept, worst first (``_rank_of``)."""
    return _rank_of(
        example["events_total"],
        example["tau"],
        example["unclassified"],
        example["position"],
        example["gt_rows"],
        example["pred_rows"],
    )


def _rank_of(events: int, tau: float | None, unclassified: int, position: int, gt_rows: int, pred_rows: int) -> tuple:
    """Worst first: the most labelled rows (an out-of-order list counts one more, an unclassified list its
    open rows), then the earlier in the input, then the lower (more out-of-order) tau. One rule for the
    examples kept and for the test that spares building one that would not be kept."""
    weight = events + (tau is not None) + unclassified
    return (-weight, position, 2.0 if tau is None else tau, gt_rows, pred_rows)


# -- words for people ---------------------------------------------------------------------------------------

HEADERS = {
    "dropped": "Dropped",
    "truncated": "Tail",
    "hallucinated": "Halluc",
    "duplicated": "Dup",
    "merged": "Merged",
    "split": "Split",
    "mismatched": "Mismatch",
    "reordered": "Reorder",
    "unclassified_rows": "Unclass",
}
SHOWN_ORDER = (
    "dropped",
    "truncated",
    "hallucinated",
    "duplicated",
    "merged",
    "split",
    "mismatched",
    "reordered",
    "unclassified_rows",
)


def has_findings(block: dict[str, Any] | None) -> bool:
    """Whether a report's ``list_errors`` has anything to say."""
    return bool(block) and any(f.get("lists") for f in block.get("fields", {}).values())


def shown_columns(block: dict[str, Any]) -> list[str]:
    """The figures some list field has (a column of zeros says nothing), in a fixed order."""
    fields = [f for f in block["fields"].values() if f.get("lists")]
    return [key for key in SHOWN_ORDER if any(f.get(key) for f in fields)]


def _rows(indices: list[int]) -> str:
    """Row indices as people read them: ``3``, ``2, 5``, ``4–7`` for a run."""
    out: list[str] = []
    k = 0
    while k < len(indices):
        end = k
        while end + 1 < len(indices) and indices[end + 1] == indices[end] + 1:
            end += 1
        out.append(f"{indices[k]}–{indices[end]}" if end - k >= 2 else ", ".join(map(str, indices[k : end + 1])))
        k = end + 1
    return ", ".join(out)


def describe(example: dict[str, Any]) -> str:
    """One example in words: ``dropped gt 3; merged pred 1 = gt 1+2; order τ −0.33`` (rows numbered from 0)."""
    parts: list[str] = []
    by_label: dict[str, list[dict[str, Any]]] = {}
    for event in example["events"]:
        by_label.setdefault(event["type"], []).append(event)
    for label in CATEGORIES:
        events = by_label.get(label)
        if not events:
            continue
        if label in ("dropped", "truncated"):
            parts.append(f"{label} gt {_rows([e['gt'][0] for e in events])}")
        elif label == "hallucinated":
            parts.append(f"{label} pred {_rows([e['pred'][0] for e in events])}")
        elif label == "duplicated":
            parts.append(f"{label} " + ", ".join(f"pred {e['pred'][0]} (of gt {e['gt'][0]})" for e in events))
        elif label == "merged":
            parts.append(f"{label} " + ", ".join(f"pred {e['pred'][0]} = gt {e['gt'][0]}+{e['gt'][1]}" for e in events))
        elif label == "split":
            parts.append(
                f"{label} " + ", ".join(f"gt {e['gt'][0]} = pred {e['pred'][0]}+{e['pred'][1]}" for e in events)
            )
        else:
            parts.append(f"{label} " + ", ".join(f"gt {e['gt'][0]} ~ pred {e['pred'][0]}" for e in events))
    if example["events_total"] > len(example["events"]):
        parts.append(f"… {example['events_total'] - len(example['events'])} more")
    if example["tau"] is not None:
        parts.append(f"order τ {example['tau']:+.2f}")
    if example["unclassified"]:
        parts.append(f"{example['unclassified']} rows unclassified (list beyond list-classify-cells)")
    return "; ".join(parts)


# -- the part of the accumulated state (analyses/part.py): fed by the accumulator's add_list_errors ------------------


def new_store(plan: Plan, collect: Collect) -> ListErrors:
    return ListErrors(plan)


def state_of(store: ListErrors, as_arrays: bool) -> dict[str, Any]:
    return {"list_errors": store.state()}


def merge_state(store: ListErrors, state: dict[str, Any], offset: int) -> None:
    store.merge(state["list_errors"], offset, state["document_count"])


def check_state(state: dict[str, Any], plan: Plan) -> None:
    """A state's ``list_errors``: the settings its lists were labelled with, per list of objects its counts (parts
    no larger than their wholes) and at most ``kept`` examples whose rows lie within their lists."""
    block, n = state["list_errors"], state["document_count"]
    block = check_object(block, "/list_errors", ("settings", "kept", "fields"))
    settings = check_object(block["settings"], "/list_errors/settings", SETTINGS)
    for name in SETTINGS:
        at = f"/list_errors/settings/{name}"
        if name in ("list_tail_rows", "list_classify_cells"):
            if check_count(settings[name], at) < 1:
                raise bad(at, "must be at least 1")
        elif check_number(settings[name], at, 0.0, 1.0) <= 0:
            raise bad(at, f"must be above 0, got {as_written(settings[name])}")
    kept = check_count(block["kept"], "/list_errors/kept")
    paths = [plan.fields[i].path for i in list_fields(plan)]
    fields = check_object(block["fields"], "/list_errors/fields", paths)
    for path in paths:
        where = f"/list_errors/fields/{_token(path)}"
        entry = check_object(fields[path], where, (*COUNTS, "tau_millionths", "examples"))
        for key in COUNTS:
            check_count(entry[key], f"{where}/{key}")
        for part, whole in (
            ("truncated_lists", "truncated"),
            ("reordered", "lists"),
            ("unclassified_lists", "lists"),
            ("truncated_lists", "lists"),
            ("unclassified_lists", "unclassified_rows"),
        ):
            if entry[part] > entry[whole]:
                raise bad(f"{where}/{part}", f"cannot exceed {whole} ({entry[whole]}), got {entry[part]}")
        bound = TAU_UNIT * entry["reordered"]
        if not is_int(entry["tau_millionths"]) or not -bound <= entry["tau_millionths"] <= bound:
            raise bad(
                f"{where}/tau_millionths",
                f"must be a whole number from {-bound} to {bound} (the reordered "
                f"lists' taus in millionths), got {shown(entry['tau_millionths'])}",
            )
        examples = check_array(entry["examples"], f"{where}/examples")
        if len(examples) > min(kept, entry["lists"]):
            raise bad(
                f"{where}/examples",
                f"holds {len(examples)} lists, more than the {min(kept, entry['lists'])} the state kept",
            )
        for k, example in enumerate(examples):
            at = f"{where}/examples/{k}"
            check_object(example, at, EXAMPLE_KEYS)
            check_scalar(example["doc_id"], f"{at}/doc_id")
            if check_count(example["position"], f"{at}/position") >= n:
                raise bad(f"{at}/position", f"must be below the document count {n}, got {example['position']}")
            rows = {
                "gt": check_count(example["gt_rows"], f"{at}/gt_rows"),
                "pred": check_count(example["pred_rows"], f"{at}/pred_rows"),
            }
            if example["tau"] is not None:
                check_number(example["tau"], f"{at}/tau", -1.0, 1.0)
            check_count(example["unclassified"], f"{at}/unclassified")
            events = check_array(example["events"], f"{at}/events")
            if len(events) > EXAMPLE_EVENTS or check_count(example["events_total"], f"{at}/events_total") < len(events):
                raise bad(
                    f"{at}/events", f"holds {len(events)} events: at most {EXAMPLE_EVENTS}, and at most events_total"
                )
            for e, event in enumerate(events):
                place = f"{at}/events/{e}"
                check_object(event, place, EVENT_KEYS)
                if event["type"] not in CATEGORIES:
                    raise bad(f"{place}/type", f"must be one of {', '.join(CATEGORIES)}, got {shown(event['type'])}")
                for side in ("gt", "pred"):
                    for r, row in enumerate(check_array(event[side], f"{place}/{side}")):
                        if check_count(row, f"{place}/{side}/{r}") >= rows[side]:
                            raise bad(
                                f"{place}/{side}/{r}", f"must be a row of the list (below {rows[side]}), got {row}"
                            )


def report_of(store: ListErrors, context: ReportContext) -> dict[str, Any]:
    return {"list_errors": store.report()}


PART = Part("list_errors", new_store, state_of, merge_state, check_state, report=report_of)
