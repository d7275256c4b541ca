"""Cosmetic or real: each FD of a leaf re-scored under progressively stronger normalisations.

An FD is a pair of present values that the field's comparator scored below the field's threshold.
Here each one is re-scored, by the same comparator and threshold, on the values normalised step by
step, in a fixed order (``STEPS``), every step on top of the ones before it; the first step at which
the pair would have matched is its class, "real" when none does (docs/why-it-fails.md, "Cosmetic or real"). Only
FD pairs are looked at (a small share of the comparisons), after a batch is scored: no score, count
or verdict changes. Candidate comparator configurations (``candidates``) are tried on the cosmetic
ones, so that the report can say which setting would have accepted how many.

The counts, accepted counts and bounded examples form a mergeable state (``CosmeticTally``): workers,
Dask and ``stickler merge`` add them up to what one run counts.
"""

from __future__ import annotations

import re
import string
import unicodedata
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from .. import number_text
from ..number_text import CURRENCY_CODES, read_number
from ..ascii_text import PUNCTUATION, WHITESPACE, deleting
from ..engine.result import FD
from ..json_text import MAX_INTEGER, compact_json
from ..plan import FieldPlan, Kind, Plan
from ..schema.keywords import escape as _token
from .part import Collect, Part, ReportContext
from .state_check import BadState

if TYPE_CHECKING:
    from ..engine.batch import BatchResult
    from ..engine.result import DocResult
    from ..comparators import Comparator

STEPS = ("case", "whitespace", "punctuation", "unicode", "number", "date")
REAL = "real"  # no step made the pair match
UNSCORED = "not_rescored"  # the comparator calls a model or a service: not called again for advice
OUTCOMES = (*STEPS, REAL, UNSCORED)
_REAL, _UNSCORED = len(STEPS), len(STEPS) + 1
_NUMBER = STEPS.index("number")

# Classified pairs of plain values remembered per tally (a cache: memory, not results, depends on it).
SEEN_PAIRS = 4096
_PLAIN = (str, int, float, bool)
_NUMBERS = (int, float)  # bool is not a number here
_date: Any = None  # comparators.date, imported on the first value with a digit (start-up)
# The characters of a value's JSON text kept in an example (longer ones end in "…"); how many examples are
# kept per field and outcome is limits.Limits.cosmetic_examples (--limit cosmetic-examples=N).
EXAMPLE_CHARS = 120
# The lengths at which dateutil reads a bare run of digits as a full date: YYMMDD, YYYYMMDD, and YYYYMMDD with
# hhmm or hhmmss (any other run gives at most a year, or nothing). A test holds read_dates to dateutil on them.
FULL_DATE_DIGITS = (6, 8, 12, 14)
# Two runs of ASCII digits joined by one "-" or "/" (tax ids, account numbers: "12-3456789"). dateutil reads them as
# two of year, month and day, never all three, unless it reads the first run alone as a whole date (at one of
# FULL_DATE_DIGITS). A test holds read_dates to dateutil on every pair of run lengths up to 15.
_TWO_RUNS = re.compile(r"([0-9]+)[-/][0-9]+")
_DIGIT = number_text.DIGIT
_LETTERS, _LOWER = string.ascii_letters, string.ascii_lowercase

# Settings of a comparator that accept more spellings, tried as suggestions (same comparator, these
# options changed); and comparators tried in place of the field's (their default configuration).
LENIENT = {
    "ExactComparator": {"case_sensitive": False, "normalize": True},
    "NormalizedComparator": {"case_sensitive": False, "ignore_whitespace": True, "ignore_punctuation": True},
    "FuzzyComparator": {"normalize": True},
    "LevenshteinComparator": {"normalize": True},
}
INSTEAD = ("NormalizedComparator", "NumericComparator", "DateComparator")


# -- the steps ----------------------------------------------------------------------------------------


def _no_space(text: str) -> str:
    return "".join(ch for ch in text if not ch.isspace())


def _no_punctuation(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def _unicode(text: str) -> str:
    """NFKC, accents (combining marks) removed, then case, whitespace and punctuation again (NFKC may make
    capitals, spaces or punctuation: fullwidth forms, ligatures)."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = unicodedata.normalize("NFC", "".join(ch for ch in text if unicodedata.category(ch) != "Mn"))
    return _no_punctuation(_no_space(text.casefold()))


_ASCII_SPACE = deleting(WHITESPACE)
_ASCII_PUNCTUATION = deleting(PUNCTUATION)


def text_forms(value: Any) -> tuple[Any, Any, Any, Any]:
    """A value after steps 1-4 (case, whitespace, punctuation, Unicode), each on top of the ones before;
    a value that is not a string is the same at every step."""
    if type(value) is not str:
        return value, value, value, value
    if value.isascii():  # the same steps, by translation tables; NFKC and accents change no ASCII text
        case = value.lower()
        spaced = case.encode("ascii").translate(None, _ASCII_SPACE)  # ascii_text.without, twice, decoded once each
        space = spaced.decode("ascii")
        punctuation = spaced.translate(None, _ASCII_PUNCTUATION).decode("ascii")
        return case, space, punctuation, punctuation
    case = value.casefold()
    space = _no_space(case)
    punctuation = _no_punctuation(space)
    return case, space, punctuation, _unicode(punctuation)


def read_dates(value: Any) -> tuple[str, ...]:
    """The days a string spells as one full date (year, month and day), as the Date comparator reads it
    with its default configuration, month-first then day-first (``01/02/2024`` reads two ways): ISO
    ``YYYY-MM-DD`` texts, without repeats. Ranges, partial dates and non-strings read none."""
    if type(value) is not str:
        return ()
    bare = value.strip()
    if bare.isascii() and _unknown_first_word(bare):  # "INV-2024-00017", "SKU-62504": dateutil refuses them
        return ()
    if not _DIGIT.search(value):  # a full date has digits: its year and day
        return ()
    if bare.isdigit() and bare.isascii() and len(bare) not in FULL_DATE_DIGITS:  # postcodes, account numbers
        return ()
    two = _TWO_RUNS.fullmatch(bare)
    if two is not None and len(two[1]) not in FULL_DATE_DIGITS:
        return ()
    return _full_days(value)


def _unknown_first_word(bare: str) -> bool:
    """Whether an ASCII text without surrounding whitespace begins with a run of letters that dateutil refuses as
    a first word (``comparators.date._starts_with_unknown_word``, which the Date comparator asks before reading a
    text), found without a regular expression: ``read_dates`` of such a text is empty."""
    global _date
    run = len(bare) - len(bare.lstrip(_LETTERS))
    if not run or "\x00" in bare:
        return False
    if _date is None:
        from ..comparators import date as _date
    return bare[:run].lower() not in _date.FIRST_WORDS_KNOWN


def _spells_no_number(space: str) -> bool:
    """Whether an ASCII text, given in lower case without whitespace (its second ``text_forms`` form), surely spells
    no number (``read_number`` None), found without reading it. number_text reads such a text only when all of it,
    without "$", has the form of ``number_text._NUMBER_FORM``: a currency code, "(", one sign, digits, points and
    commas, "%", ")", a currency code. So a text with a "/" or with two signs spells none ("2024-01-15",
    "15/01/2024"), nor one that begins with letters that are not exactly a code ("inv-2024-00017", "sku-62504")."""
    if "/" in space or space.count("-") + space.count("+") > 1:
        return True
    run = len(space) - len(space.lstrip(_LOWER))
    return run > 0 and "$" not in space and not (run == 3 and space[:3] in CURRENCY_CODES)


def _full_days(value: str) -> tuple[str, ...]:
    """``read_dates`` without its screens: the Date comparator's readings of a string, kept when full."""
    global _date
    if _date is None:
        from ..comparators import date as _date
    try:
        readings = _date.read_readings(value, (False, True), False)
    except Exception:  # the comparator scores such a value 0.0; here it reads no date
        return ()
    days: list[str] = []
    for reading in readings:
        if isinstance(reading, _date.DateReading) and reading.has_year and reading.has_month and reading.has_day:
            day = reading.dt.date().isoformat()
            if day not in days:
                days.append(day)
    return tuple(days)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _matches(comparator: "Comparator", threshold: float, g: Any, p: Any) -> bool:
    """Whether the comparator, at the threshold, accepts a normalised pair. A side normalised to the empty
    text matches only an empty text (the engine would call it null); a comparator that fails says no."""
    if g == "" or p == "":
        return _same(g, p)
    try:
        return comparator.similarity(g, p) >= threshold
    except Exception:
        return False


def classify(comparator: "Comparator", threshold: float, g: Any, p: Any) -> int:
    """The index in STEPS of the first step at which the FD pair (g, p) matches, len(STEPS) when none does.

    A step that changes neither value is not scored (it cannot match what the previous step did not).
    The number step puts each value that spells a number (``read_number``) in its canonical form, and
    the date step each value that spells a date (``read_dates``) in ISO form, the day both sides share
    when they read several; a value that spells none keeps its form from the step before.
    """
    tg, tp = type(g), type(p)
    if tg in _NUMBERS and tp in _NUMBERS and comparator.scores_number_values:
        return _REAL  # the number step would spell the same two numbers, which this comparator already read
    if tg is not str and tp is not str:  # no text step changes them, no date is read from them
        number = (read_number(g), read_number(p))
        if number[0] is None and number[1] is None:
            return _REAL
        pair = (g if number[0] is None else number[0], p if number[1] is None else number[1])
        return _NUMBER if _matches(comparator, threshold, *pair) else _REAL
    # (``_same`` written out in this function: it runs on every FD not seen before, each step twice)
    bg, bp = g, p  # the pair at the last step that changed it
    k = 0
    forms_g, forms_p = text_forms(g), text_forms(p)
    for fg, fp in zip(forms_g, forms_p):
        if not (type(fg) is type(bg) and fg == bg and type(fp) is type(bp) and fp == bp):
            if _matches(comparator, threshold, fg, fp):
                return k
            bg, bp = fg, fp
        k += 1
    ng = None if tg is str and g.isascii() and _spells_no_number(forms_g[1]) else read_number(g)
    np_ = None if tp is str and p.isascii() and _spells_no_number(forms_p[1]) else read_number(p)
    fg = bg if ng is None else ng
    fp = bp if np_ is None else np_
    if not (type(fg) is type(bg) and fg == bg and type(fp) is type(bp) and fp == bp):
        if _matches(comparator, threshold, fg, fp):
            return _NUMBER
        bg, bp = fg, fp
    g_days, p_days = read_dates(g), read_dates(p)
    if not g_days and not p_days:
        return _REAL  # the date step changes neither value
    shared = [day for day in g_days if day in p_days]
    if shared:
        fg = fp = shared[0]
    else:
        fg = g_days[0] if g_days else bg
        fp = p_days[0] if p_days else bp
    if not (type(fg) is type(bg) and fg == bg and type(fp) is type(bp) and fp == bp):
        if _matches(comparator, threshold, fg, fp):
            return _NUMBER + 1
    return _REAL


# -- which fields, which suggestions -----------------------------------------------------------------------


def classified(f: FieldPlan) -> bool:
    """Whether a field's FDs are re-scored: leaves and lists of leaves whose comparator runs locally (one
    that calls a model or a service is not called again for advice: its FDs count as not re-scored)."""
    comparator = f.comparator
    return comparator is not None and not (comparator.prefetches or comparator.reports_failures)


def candidates(f: FieldPlan) -> list[tuple[str, dict[str, Any]]]:
    """(comparator name, comparator-config) pairs tried on a field's cosmetic FDs: its own comparator with
    the LENIENT settings where they differ from its configuration, then each of INSTEAD it is not."""
    comparator = f.comparator
    if comparator is None:
        return []
    name = type(comparator).name
    out: list[tuple[str, dict[str, Any]]] = []
    lenient = LENIENT.get(name)
    if lenient is not None and any(comparator.config.get(k) != v for k, v in lenient.items()):
        config = {k: v for k, v in comparator.config.items() if v is not None}
        out.append((name, {**config, **lenient}))
    out.extend((other, {}) for other in INSTEAD if other != name)
    return out


def candidate_key(name: str, config: dict[str, Any]) -> str:
    """A candidate as one text (the state's and the report's key): its schema keywords as compact JSON."""
    return compact_json({"x-aws-stickler-comparator": name, "x-aws-stickler-comparator-config": config}) or ""


# -- the mergeable tally ---------------------------------------------------------------------------------


class CosmeticTally:
    """Per field path: how many FDs first matched at each step (OUTCOMES), how many of the cosmetic ones each
    candidate accepts, and the first examples of each outcome."""

    def __init__(self, plan: Plan, examples: int | None = None) -> None:
        from .. import limits

        self.plan = plan
        self.examples_kept = limits.current().cosmetic_examples if examples is None else examples
        self.counts: dict[str, list[int]] = {}
        self.accepted: dict[str, dict[str, int]] = {}
        self.examples: dict[str, dict[str, list[dict[str, Any]]]] = {}
        self._fields = plan.fields
        self._candidates: dict[int, list[tuple[str, "Comparator"]]] = {}
        # What pairs of plain values already classified came to: models repeat their habits ("usd" for "USD"
        # in every document), so most FDs of a long run are pairs seen before. Cleared past SEEN_PAIRS.
        self._seen: dict[tuple, tuple[int, tuple[str, ...]]] = {}
        self._slots: dict[int, tuple[FieldPlan, list[int], bool, bool, list[bool]]] = {}  # per field index: _slot

    def _built(self, f: FieldPlan) -> list[tuple[str, "Comparator"]]:
        found = self._candidates.get(f.index)
        if found is None:
            from ..comparators.registry import build

            found = []
            for name, config in candidates(f):
                try:
                    found.append((candidate_key(name, config), build(name, config)))
                except Exception:  # not installed, or refused: not suggested
                    continue
            self._candidates[f.index] = found
        return found

    def _slot(self, index: int) -> tuple[FieldPlan, list[int], bool, bool, list[bool]]:
        """(field, its counts, whether its FDs are re-scored, whether its comparator scores plain numbers by
        their values, per outcome whether its examples are full) of a field index, made on its first FD."""
        f = self._fields[index]
        counts = self.counts.setdefault(f.path, [0] * len(OUTCOMES))
        rescored = classified(f)
        by_value = rescored and f.comparator.scores_number_values
        slot = self._slots[index] = (f, counts, rescored, by_value, [False] * len(OUTCOMES))
        return slot

    def add(self, entries: Sequence[tuple[int, int, Any, Any]], doc_ids: Sequence[Any] | None = None) -> None:
        """Classify a batch's FD pairs: (document in the batch, field index, gt value, pred value), the
        documents in input order. Counts do not depend on the order; the examples are taken within a
        document in field order, then by their JSON text, so that the ones kept do not depend on which
        engine path scored the document. Only pairs whose outcome still has room for an example are put
        in that order (once a field's examples are full, a batch sorts nothing)."""
        seen, slots = self._seen, self._slots
        room: list[tuple[int, int, Any, Any, str, str]] = []
        for entry in entries:
            index, g, p = entry[1], entry[2], entry[3]
            slot = slots.get(index) or self._slot(index)
            f, counts, rescored, by_value, full = slot
            if by_value and type(g) in _NUMBERS and type(p) in _NUMBERS:
                outcome, keys = _REAL, ()  # classify's first rule, without its call
            elif not rescored:
                outcome, keys = _UNSCORED, ()
            else:
                key = (index, type(g), g, type(p), p) if type(g) in _PLAIN and type(p) in _PLAIN else None
                found = seen.get(key) if key is not None else None
                if found is not None:
                    outcome, keys = found
                else:
                    outcome = classify(f.comparator, f.threshold, g, p)
                    keys = (
                        tuple(k for k, candidate in self._built(f) if _matches(candidate, f.threshold, g, p))
                        if outcome < _REAL
                        else ()
                    )
                    if key is not None:
                        if len(seen) >= SEEN_PAIRS:
                            seen.clear()
                        seen[key] = (outcome, keys)
                if keys:
                    accepted = self.accepted.setdefault(f.path, {})
                    for k in keys:
                        accepted[k] = accepted.get(k, 0) + 1
            counts[outcome] += 1
            if not full[outcome]:
                if len(self.examples.get(f.path, {}).get(OUTCOMES[outcome], ())) < self.examples_kept:
                    room.append((*entry, f.path, OUTCOMES[outcome]))
                else:  # examples only grow (a merge cuts them to a smaller bound, still full)
                    full[outcome] = True
        for d, _, g, p, path, outcome in _in_order(room):
            kept = self.examples.setdefault(path, {}).setdefault(outcome, [])
            if len(kept) < self.examples_kept:
                doc_id = doc_ids[d] if doc_ids is not None and d < len(doc_ids) else None
                kept.append({"doc_id": doc_id, "gt": example_text(g), "pred": example_text(p)})

    def state(self) -> dict[str, Any]:
        """The tally as JSON, in one order whatever the order things were met in (fields in plan order,
        outcomes in OUTCOMES order, candidates in ``candidates`` order): one run, workers and merges agree."""
        paths = [f.path for f in self._fields if f.path in self.counts]
        accepted: dict[str, dict[str, int]] = {}
        for f in self._fields:
            found = self.accepted.get(f.path)
            if found:
                accepted[f.path] = {
                    key: found[key] for key in (candidate_key(n, c) for n, c in candidates(f)) if key in found
                }
        examples = {
            path: {
                k: [dict(e) for e in self.examples[path][k][: self.examples_kept]]
                for k in OUTCOMES
                if self.examples.get(path, {}).get(k)
            }
            for path in paths
        }
        return {
            "counts": {path: list(self.counts[path]) for path in paths},
            "accepted": accepted,
            "examples": {path: rows for path, rows in examples.items() if rows},
            "examples_kept": self.examples_kept,
        }

    def merge(self, state: dict[str, Any]) -> None:
        """Add another run's tally (states come in input order: their examples are concatenated, cut to the
        smaller bound)."""
        for path, counts in state["counts"].items():
            mine = self.counts.setdefault(path, [0] * len(OUTCOMES))
            mine[:] = [a + b for a, b in zip(mine, counts)]  # in place: _slot holds the list
        for path, accepted in state["accepted"].items():
            mine_a = self.accepted.setdefault(path, {})
            for key, n in accepted.items():
                mine_a[key] = mine_a.get(key, 0) + n
        self.examples_kept = min(self.examples_kept, state["examples_kept"])
        for path, by in state["examples"].items():
            for outcome, rows in by.items():
                kept = self.examples.setdefault(path, {}).setdefault(outcome, [])
                kept.extend(rows[: max(0, self.examples_kept - len(kept))])
        for by in self.examples.values():
            for outcome in by:
                del by[outcome][self.examples_kept :]


def _in_order(entries: Sequence[tuple]) -> list[tuple]:
    """Entries by document and field; several of one document and field (list items) by their JSON text."""
    ordered = sorted(entries, key=lambda e: (e[0], e[1]))
    k = 0
    while k < len(ordered):
        end = k + 1
        while end < len(ordered) and ordered[end][:2] == ordered[k][:2]:
            end += 1
        if end - k > 1:
            ordered[k:end] = sorted(ordered[k:end], key=lambda e: (compact_json(e[2]) or "", compact_json(e[3]) or ""))
        k = end
    return ordered


def example_text(value: Any) -> str:
    """A value as an example shows it: its compact JSON, cut to EXAMPLE_CHARS."""
    text = compact_json(value)
    if text is None:
        return "<nested too deeply to show>"
    return text if len(text) <= EXAMPLE_CHARS else text[: EXAMPLE_CHARS - 1] + "…"


def check_state(state: dict[str, Any], plan: Plan) -> None:
    """Raise BadState at the first value of a state's ``cosmetic`` block that no run of ``plan`` could hold:
    every FD of a leaf field counted once (as many as the field's counts say), known candidates, bounded
    examples."""
    block, counted = state["cosmetic"], state["counts"]
    fd_counts = {f.path: counted[f.index][FD] for f in plan.fields}

    def bad(pointer: str, message: str) -> BadState:
        return BadState(f"/cosmetic{pointer}", message)

    if not isinstance(block, dict) or set(block) != {"counts", "accepted", "examples", "examples_kept"}:
        raise bad("", "must be an object with counts, accepted, examples and examples_kept")
    kept = block["examples_kept"]
    if type(kept) is not int or not 0 <= kept <= MAX_INTEGER:
        raise bad("/examples_kept", "must be a non-negative integer, at most 2^53")
    fields = {f.path: f for f in plan.fields if f.kind in (Kind.PRIMITIVE, Kind.PRIMITIVE_LIST)}
    for name in ("counts", "accepted", "examples"):
        if not isinstance(block[name], dict):
            raise bad(f"/{name}", "must be an object")
        for path in block[name]:
            if path not in fields:
                raise bad(f"/{name}/{_token(path)}", "not a leaf field of the schema")
    for path, f in fields.items():
        counts = block["counts"].get(path, [0] * len(OUTCOMES))
        where = f"/counts/{_token(path)}"
        if (
            not isinstance(counts, list)
            or len(counts) != len(OUTCOMES)
            or not all(type(n) is int and n >= 0 for n in counts)
        ):
            raise bad(where, f"must be {len(OUTCOMES)} non-negative integers ({', '.join(OUTCOMES)})")
        if sum(counts) != fd_counts.get(path, 0):
            raise bad(where, f"counts {sum(counts)} FDs, the field has {fd_counts.get(path, 0)}")
        if counts[_UNSCORED] and classified(f) or counts[_UNSCORED] != sum(counts) and not classified(f):
            raise bad(where, "re-scored and not re-scored FDs do not match the field's comparator")
        cosmetic = sum(counts[:_REAL])
        known = {candidate_key(n, c) for n, c in candidates(f)}
        accepted = block["accepted"].get(path, {})
        if not isinstance(accepted, dict):
            raise bad(f"/accepted/{_token(path)}", "must be an object")
        for key, n in accepted.items():
            if key not in known:
                raise bad(f"/accepted/{_token(path)}/{_token(key)}", "not a candidate for this field")
            if type(n) is not int or not 0 <= n <= cosmetic:
                raise bad(
                    f"/accepted/{_token(path)}/{_token(key)}",
                    f"must be an integer from 0 to the {cosmetic} cosmetic FDs",
                )
        by = block["examples"].get(path, {})
        if not isinstance(by, dict):
            raise bad(f"/examples/{_token(path)}", "must be an object")
        for outcome, rows in by.items():
            at = f"/examples/{_token(path)}/{_token(outcome)}"
            if outcome not in OUTCOMES:
                raise bad(at, f"must be one of {', '.join(OUTCOMES)}")
            if not isinstance(rows, list) or len(rows) > min(kept, counts[OUTCOMES.index(outcome)]):
                raise bad(at, "holds more examples than the state kept or counted")
            for k, row in enumerate(rows):
                if not isinstance(row, dict) or set(row) != {"doc_id", "gt", "pred"}:
                    raise bad(f"{at}/{k}", "must be an object with doc_id, gt and pred")
                if row["doc_id"] is not None and type(row["doc_id"]) not in (str, int, float):
                    raise bad(f"{at}/{k}/doc_id", "must be a string, a number or null")
                for side in ("gt", "pred"):
                    if type(row[side]) is not str or len(row[side]) > EXAMPLE_CHARS:
                        raise bad(f"{at}/{k}/{side}", f"must be a text of at most {EXAMPLE_CHARS} characters")


# -- what the report says ---------------------------------------------------------------------------------


def report_block(tally_state: dict[str, Any], plan: Plan) -> dict[str, Any]:
    """The report's ``cosmetic_errors``: per field with FDs, the counts by first matching step, the real
    ones, the suggestion (the candidate accepting the most cosmetic FDs) and the examples kept."""
    fields: dict[str, Any] = {}
    by_path = {f.path: f for f in plan.fields}
    for path, counts in tally_state["counts"].items():
        f = by_path[path]
        cosmetic = sum(counts[:_REAL])
        entry: dict[str, Any] = {
            "fd": sum(counts),
            **dict(zip(OUTCOMES, counts)),
            "cosmetic": cosmetic,
            "comparator": f.comparator_name,
            "threshold": f.threshold,
        }
        accepted = tally_state["accepted"].get(path, {})
        ranked = [(name, config, accepted.get(candidate_key(name, config), 0)) for name, config in candidates(f)]
        ranked = sorted((r for r in ranked if r[2]), key=lambda r: -r[2])  # stable: LENIENT before INSTEAD
        entry["suggestions"] = [
            {"pointer": f.pointer, "comparator": name, "comparator_config": config, "accepts": n}
            for name, config, n in ranked
        ]
        entry["examples"] = tally_state["examples"].get(path, {})
        fields[path] = entry
    return {"steps": list(STEPS), "examples_kept": tally_state["examples_kept"], "fields": fields}


# How the summary names each step.
STEP_NAMES = {
    "case": "case",
    "whitespace": "whitespace",
    "punctuation": "punctuation",
    "unicode": "Unicode form",
    "number": "number spelling",
    "date": "date spelling",
}


def summary(path: str, entry: dict[str, Any]) -> str:
    """One field's line: ``name: FD 120, of which 80 differ only in case, 25 in punctuation, 15 real``."""
    return f"{path}: {figures(entry)}"


def figures(entry: dict[str, Any]) -> str:
    """``FD 120, of which 80 differ only in case, 25 in punctuation, 15 real`` (steps with none left out)."""
    parts = []
    for step in STEPS:
        n = entry[step]
        if n:
            parts.append(f"{n} {'differ only' if not parts else ''} in {STEP_NAMES[step]}".replace("  ", " "))
    if entry[REAL]:
        parts.append(f"{entry[REAL]} real")
    if entry[UNSCORED]:
        parts.append(f"{entry[UNSCORED]} not re-scored (model-backed comparator)")
    return f"FD {entry['fd']}, of which " + ", ".join(parts)


def suggestion_text(entry: dict[str, Any]) -> str | None:
    """The best suggestion as the terminal shows it, or None."""
    if not entry["suggestions"]:
        return None
    best = entry["suggestions"][0]
    config = compact_json(best["comparator_config"])
    return (
        f"{best['comparator']} {config} at {best['pointer'] or '/'} would accept {best['accepts']} of the "
        f"{entry['cosmetic']} cosmetic FDs"
    )


def iter_fields(block: dict[str, Any] | None) -> Iterable[tuple[str, dict[str, Any]]]:
    """The fields with a cosmetic FD, in report order."""
    return [(p, e) for p, e in (block or {}).get("fields", {}).items() if e["cosmetic"]]


# -- the part of the accumulated state (analyses/part.py) ----------------------------------------------------------


def new_store(plan: Plan, collect: Collect) -> CosmeticTally:
    return CosmeticTally(plan)


def add_document(store: CosmeticTally, doc: DocResult, doc_id: Any) -> None:
    if doc.fd_values:
        store.add([(0, index, g, p) for index, g, p in doc.fd_values], [doc_id])


def add_batch(store: CosmeticTally, batch: BatchResult, doc_ids: Sequence[Any] | None) -> None:
    if batch.fd_values:
        store.add(batch.fd_values, doc_ids)


def state_of(store: CosmeticTally, as_arrays: bool) -> dict[str, Any]:
    return {"cosmetic": store.state()}


def merge_state(store: CosmeticTally, state: dict[str, Any], offset: int) -> None:
    store.merge(state["cosmetic"])


def report_of(store: CosmeticTally, context: ReportContext) -> dict[str, Any]:
    return {"cosmetic_errors": report_block(store.state(), context.plan)}


PART = Part("cosmetic", new_store, state_of, merge_state, check_state, add_document, add_batch, report_of)
