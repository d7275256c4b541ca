"""`stickler eval --dry-run`: what a run would ask its judges, counted without asking.

The inputs are read as a run reads them (the same reader, pairing and record checks), the plan's judged
fields (those whose comparator calls a model) are walked as the engine's prefetch walks them
(engine/prefetch.py: inside lists every item pair, as the full matrix does), and each field's value pairs
are counted: identical values (never sent), duplicates (one request per distinct pair per run), answers
already in the LLM answer cache (read, never written), and the characters the requests would send.
Nothing is called, and no report, state or cache file is written.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Iterator, Sequence

from ..plan import Plan
from .output import print_json, printable, printing, stdout_console, warn_about_problems

COLUMNS = ("pairs", "identical", "duplicates", "not_sent", "cached", "requests", "characters")
HEADINGS = ("Pairs", "Identical", "Duplicate", "Not sent", "Cached", "Requests", "Characters")
NOTHING = "nothing to ask: no field of this schema calls a model (an LLM or embeddings)"


@dataclass
class FieldCount:
    """One judged field's value pairs, and what becomes of them (each pair counted in exactly one of
    identical, duplicates, not_sent, cached and requests)."""

    path: str
    comparator: str
    pairs: int = 0  # value pairs the field would compare (every item pair inside lists)
    identical: int = 0  # equal JSON values: 1.0, never sent
    duplicates: int = 0  # a pair (or a question) already counted in this run
    not_sent: int = 0  # a value the comparator refuses to send (over max_chars)
    cached: int = 0  # answered by the LLM answer cache
    requests: int = 0  # what the run would ask
    characters: int = 0  # characters those requests would send


def count(
    plan: Plan, batches: Iterable[list[tuple[Any, Any]]], judge_pairing: str = "full"
) -> tuple[list[FieldCount], int]:
    """The judged fields' counts over ``batches`` of (gt, pred) records, nothing asked, and how many records.
    A batch at a time, as the run walks them: what is held is each field's distinct pairs, not the records.
    Under ``--judge-pairing proxy`` a list's item pairs are the ones the proxy chooses, as the real run's
    prefetch walk hands them."""
    from ..engine import Engine
    from ..engine.prefetch import collect, models_needed
    from ..engine.proxy import judged
    from ..comparators.base import identical_values
    from ..engine.values import pair_key

    fields = [f for f in plan.root.walk() if judged(f)]
    wanted = {f.index for f in fields}
    needed = models_needed(plan.root, wanted)
    chosen = Engine(plan, judge_pairing="proxy").proxy_pairs if judge_pairing == "proxy" and fields else None
    counts = {f.index: FieldCount(f.path, f.comparator.name) for f in fields}
    distinct: dict[int, dict[str, tuple[Any, Any]]] = {f.index: {} for f in fields}
    documents = 0
    for docs in batches:
        documents += len(docs)
        pairs = collect(plan.root, docs, wanted, needed, chosen) if fields else {}
        for index, field_pairs in pairs.items():
            c, seen = counts[index], distinct[index]
            for gt, pred in field_pairs:
                c.pairs += 1
                if identical_values(gt, pred):
                    c.identical += 1
                    continue
                key = pair_key(gt, pred)
                seen.setdefault(key if key is not None else repr((gt, pred)), (gt, pred))
    for f in fields:
        c = counts[f.index]
        _ask(f.comparator, list(distinct[f.index].values()), c)
        c.duplicates = c.pairs - c.identical - c.not_sent - c.cached - c.requests
    return [counts[f.index] for f in fields], documents


def _ask(comparator: Any, pairs: list[tuple[Any, Any]], c: FieldCount) -> None:
    """What asking the distinct ``pairs`` would cost: the comparator's own bill (LLMComparator: questions as its
    cache keys them, the cache, its prompt), else one request a pair sending both values' text."""
    if hasattr(comparator, "bill"):
        bill = comparator.bill(pairs)
        c.not_sent, c.cached, c.requests, c.characters = bill.not_sent, bill.cached, bill.requests, bill.characters
        return
    c.requests = len(pairs)
    c.characters = sum(len(_text(gt)) + len(_text(pred)) for gt, pred in pairs)


def _text(value: Any) -> str:
    from ..json_text import compact_json

    return value if type(value) is str else compact_json(value) or ""


def read(
    plan: Plan, shards: Sequence[Any], pairing: Any, inputs: str, counted: "Reading"
) -> Iterator[list[tuple[Any, Any]]]:
    """The scored (gt, pred) records of ``shards`` in the run's batches, read as a run reads them (one batch
    held at a time); once read, the record problems (counted in ``counted.problems``) and the record counts'
    warnings are said on stderr as a run says them."""
    from ..run.options import for_plan
    from ..run.reader import PairingStats, check_pairing_outcome
    from ..run.scoring import add_pairing_stats, adopted_batches, read_pairs
    from .inputs import warn_about_records

    pairing = for_plan(pairing, plan)
    stats = PairingStats()
    problems, first = 0, None
    for shard in shards:
        for batch in adopted_batches(plan.root, read_pairs(shard, stats, pairing), counted):
            for pair in batch:
                if pair.errors:
                    first = first or pair.errors[0]
                    problems += len(pair.errors)
            yield [(pair.gt, pair.pred) for pair in batch if pair.gt is not None]
    add_pairing_stats(counted, stats)
    check_pairing_outcome(counted.stats, pairing, sorted({s.predictions for s in shards}))
    warn_about_records(counted.stats, inputs)
    warn_about_problems(problems, first and first.as_dict(), ", read as a run reads them")
    counted.problems = problems


class Reading:
    """What a dry run's reading counts: the record counts add_pairing_stats and adopted_batches fill (an
    Accumulator's ``stats`` and ``plan``), and the record problems."""

    def __init__(self, plan: Plan) -> None:
        from collections import Counter

        self.plan = plan
        self.stats: Counter = Counter()
        self.problems = 0


def report(counts: list[FieldCount], documents: int, problems: int, output_format: str, not_written: list[str]) -> None:
    """Print the counts (a table, Markdown or JSON) and say on stderr which files were not written."""
    if not_written:
        sys.stderr.write(f"stickler: dry run: not written: {printable(', '.join(not_written))}\n")
    total = FieldCount("total", "")
    for c in counts:
        for name in COLUMNS:
            setattr(total, name, getattr(total, name) + getattr(c, name))
    if output_format == "json":
        from ..reporters.json_report import dumps

        body = {
            "dry_run": True,
            "documents": documents,
            "record_problems": problems,
            "fields": [asdict(c) for c in counts],
            "total": {name: getattr(total, name) for name in COLUMNS},
            "note": None if counts else NOTHING,
        }
        print_json(dumps(body))
        return
    head = f"Dry run: {documents:,} documents; nothing was asked and no file was written."
    if output_format == "markdown":
        lines = [head, ""]
        if counts:
            lines += ["| Field | " + " | ".join(HEADINGS) + " |", "|---" + "|---:" * len(HEADINGS) + "|"]
            for c in [*counts, total]:
                lines.append(f"| {c.path} | " + " | ".join(f"{getattr(c, n):,}" for n in COLUMNS) + " |")
        else:
            lines.append(NOTHING[0].upper() + NOTHING[1:] + ".")
        with printing():
            sys.stdout.write("\n".join(lines) + "\n")
        return
    _table(counts, total, head)


def _table(counts: list[FieldCount], total: FieldCount, head: str) -> None:
    from rich.table import Table
    from rich.text import Text

    console = stdout_console()
    console.width = min(console.width, 80)
    with printing():
        console.print(Text(head))
        if not counts:
            console.print(Text(NOTHING[0].upper() + NOTHING[1:] + "."))
            return
        # No rules: at 80 columns every character goes to the figures and the field path (folded, never cut).
        table = Table(box=None, pad_edge=False, header_style="bold" if console.is_terminal else "")
        table.add_column("Field", overflow="fold", min_width=10)
        for heading in HEADINGS:
            table.add_column(heading, justify="right", no_wrap=True)
        for c in [*counts, total]:
            table.add_row(c.path, *(f"{getattr(c, n):,}" for n in COLUMNS))
        console.print(table)
        console.print(Text("Pairs = identical + duplicate + not sent + cached + requests.", style="dim"))
