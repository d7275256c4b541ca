"""``stickler stability``: how much the same system's answers change from run to run (pure: records in, figures
out).

Each run is scored against the same ground truth. A field is *right* in a document and a run when the engine
counted no FD, FA or FN for it there (TP and TN only); the document as a whole is right when every field is. A
document missing from a run (no prediction, or one that is not a JSON object) is right in no field of that run:
it is counted, never dropped. Over the documents of the ground truth, with k runs:

- ``pass_k`` (pass^k): the share of documents right in every one of the k runs;
- ``pass_at_k`` (pass@k): the share right in at least one run;
- ``flip_rate``: the share whose verdict (right or not) is not the same in every run;
- ``stability``: 1 - ``flip_rate``, so that a gate reads "at least" as every gate does;
- ``mean_score``: per run, as ``stickler eval`` reports it for that run alone (a field's mean score, the
  documents' mean score overall), but for a document missing from the run: it scores 0 in every field, in as
  many comparisons as the field has in that document where it is present (one at least), where eval scores a
  field of a list's items on none (the prediction ``{}`` has no item); its mean over the runs is ``mean_score``
  of the block.

A field is *flaky* when its flip rate is above ``flaky`` (default 0.05).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from . import gates as quality_gates

TOTAL = "total"  # the gates' name for the whole document's figures: total.pass_k=0.9
METRICS = ("pass_k", "pass_at_k", "stability", "mean_score")
FLAKY = 0.05


@dataclass(frozen=True)
class Scored:
    """One document of one run: its score, each field's [tp, fa, fd, fn, tn] counts, and each field's score sum
    and count (DocResult's); ``missing``: no usable prediction (scored as ``{}``, as eval scores it)."""

    score: float
    counts: Sequence[Sequence[int]]
    score_sum: Sequence[float]
    score_n: Sequence[int]
    missing: bool = False

    def right(self, index: int) -> bool:
        """The field of ``index`` has no FD, FA or FN here (and the prediction is there)."""
        _, fa, fd, fn, _ = self.counts[index]
        return not self.missing and fa + fd + fn == 0


def _figures(verdicts: list[list[bool]], runs: int) -> dict[str, Any]:
    """pass^k, pass@k and the flip rate of per-document verdicts (one per run each)."""
    n = len(verdicts)
    every = sum(1 for v in verdicts if all(v))
    some = sum(1 for v in verdicts if any(v))
    flips = sum(1 for v in verdicts if any(v) and not all(v))
    share = (lambda count: count / n) if n else (lambda count: None)
    return {
        "pass_k": share(every),
        "pass_at_k": share(some),
        "flip_rate": share(flips),
        "stability": None if not n else 1.0 - flips / n,
        "right_in_every_run": every,
        "right_in_some_run": some,
        "flipped": flips,
    }


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def build(paths: Sequence[str], runs: Sequence[Sequence[Scored]], flaky: float = FLAKY) -> dict[str, Any]:
    """The figures of ``runs`` (each a list with one ``Scored`` per ground-truth document, in the same order)
    over the fields named by ``paths`` (Plan.fields' paths, by field index)."""
    k = len(runs)
    documents = len(runs[0]) if runs else 0
    fields: dict[str, dict[str, Any]] = {}
    for index, path in enumerate(paths):
        verdicts = [[run[d].right(index) for run in runs] for d in range(documents)]
        # A document missing from a run scores 0 there, in as many comparisons as the field has in it where it is
        # present (one at least): a field of a list's items too, which the engine scores on no item of {}.
        weight = [max(1, *(run[d].score_n[index] for run in runs)) for d in range(documents)]
        per_run = []
        for run in runs:
            total_n = sum(weight[d] if doc.missing else doc.score_n[index] for d, doc in enumerate(run))
            score_sum = sum(0.0 if doc.missing else doc.score_sum[index] for doc in run)
            per_run.append(score_sum / total_n if total_n else None)
        fields[path] = {"mean_score_per_run": per_run, "mean_score": _mean(per_run), **_figures(verdicts, k)}
    verdicts = [[all(run[d].right(i) for i in range(len(paths))) for run in runs] for d in range(documents)]
    per_run_total = [
        sum(0.0 if doc.missing else doc.score for doc in run) / documents if documents else None for run in runs
    ]
    total = {"mean_score_per_run": per_run_total, "mean_score": _mean(per_run_total), **_figures(verdicts, k)}
    flaky_fields = [p for p, block in fields.items() if block["flip_rate"] is not None and block["flip_rate"] > flaky]
    return {
        "runs": k,
        "document_count": documents,
        "missing_per_run": [sum(1 for doc in run if doc.missing) for run in runs],
        "flaky_above": flaky,
        "flaky_fields": flaky_fields,
        "total": total,
        "fields": fields,
    }


def parse_gate(text: str) -> quality_gates.Gate:
    """``total.METRIC=VALUE`` or ``FIELD.METRIC=VALUE`` (FIELD may be a glob), METRIC one of ``METRICS``,
    VALUE in [0, 1]: the figure must be at least VALUE. ``total.METRIC`` is always the whole document's; a field
    named ``total`` is gated through a glob that matches it literally (``tota[l].pass_k``)."""
    hint = " (a flip rate should be low: gate its stability, 1 - flip rate, e.g. total.stability=0.95)"
    form = "total.METRIC=VALUE or FIELD.METRIC=VALUE"
    return quality_gates.metric_gate(text, METRICS, form, "total.pass_k=0.9", hints={"flip_rate": hint})


def check_gate_paths(gates: list[quality_gates.Gate], paths: list[str]) -> None:
    """A field gate that names no field of ``paths`` is a usage error (gates.matching says which there are)."""
    for gate in gates:
        if not gate.key.startswith(TOTAL + "."):
            quality_gates.matching(gate, paths)


def check_gates(
    gates: list[quality_gates.Gate], report: dict[str, Any], no_data_passes: bool = False
) -> list[dict[str, Any]]:
    """One result per gate and matching field, in the shape ``stickler eval`` reports them (gates.result): no
    document fails every gate; a figure with nothing to measure (a field never scored has no mean score)
    fails for lack of data, or with ``no_data_passes`` is "no data"."""
    empty = not report["document_count"]
    results: list[dict[str, Any]] = []
    for gate in gates:
        path, _, metric = gate.key.rpartition(".")
        if path == TOTAL:
            results.append(quality_gates.result(gate, None, report["total"][metric], empty, no_data_passes))
            continue
        fields = report["fields"]
        for found in quality_gates.matching(gate, list(fields)):
            results.append(quality_gates.result(gate, found, fields[found][metric], empty, no_data_passes))
    return results
