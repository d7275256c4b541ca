"""Dates compared as dates: surface form, grain, ranges and time zones all considered.

Both values are read with python-dateutil, so ``2024-01-15``, ``Jan 15, 2024``
and ``15/01/2024`` are the same day. A reading remembers which of year, month
and day the text actually gave: ``Jan 2024`` is a month, ``2024`` a year, and
``Oct 24`` a day without a year. Those facts drive the score:

* two single dates on the same calendar day (within ``tolerance``) -> 1.0;
* a reading without a year against one with a year -> 0.7 when
  ``allow_partial_year`` is on and month/day agree, else 0.0;
* a coarser reading against a finer one (``Jan 2024`` vs ``Jan 1, 2024``) is
  judged by ``precision_mode``;
* ``A to B`` / ``A through B`` / ``A - B`` are ranges, judged by ``range_mode``
  (graded: Jaccard overlap of the days two ranges cover, 0.5 for a date
  inside a range).

The behaviour follows stickler-eval 1.0.0's DateComparator. Parsing is the
expensive part (tens of microseconds per dateutil call), so readings of a text
are cached, ``similarity_matrix`` reads every value once, the commonest numeric
forms are read without dateutil, and dateutil is imported only when a text
needs it (``_dateutil_parser``).
"""

from __future__ import annotations

import importlib.util
import re
import warnings
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from typing import Any, Callable, Sequence, Union

from ..json_text import as_written
from .base import Comparator, Param, value_text

RANGE_MODES = ("strict", "reject", "contains", "graded")
PRECISION_MODES = ("exact", "gt_loose", "overlap")

PARTIAL_YEAR_CREDIT = 0.7  # a year-less reading that agrees on month and day
GRADED_CONTAINMENT_CREDIT = 0.5  # a single date inside a range, range_mode="graded"

# No real date is this long; longer text is garbage and would cost dateutil a
# full scan (a 100 kB value takes hundreds of milliseconds).
MAX_TEXT_LENGTH = 256

# Tried in this order; the bare dash needs spaces so ISO dates are not split.
RANGE_SEPARATORS = (" to ", " through ", " - ")

# A leading four-digit group followed by a separator fixes year-month-day
# order (ISO, 2024/01/31), so day-first reading must not apply to it.
_YEAR_LEADS = re.compile(r"\d{4}[./-]")

# The commonest form in structured output, read without dateutil.
_PLAIN_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
# The next commonest: day and month in either order (one or two digits each), then a year of four digits not
# starting with 0, one separator twice (15/01/2024, 01-15-2024, 15.1.2024). Read without dateutil as dateutil
# reads it (``_numeric_date``).
_NUMERIC_DATE = re.compile(r"(\d{1,2})([-/.])(\d{1,2})\2([1-9]\d{3})", re.ASCII)

# Two parse defaults that differ in year, month and day: a component the text
# did not give comes out different under the two, one it gave comes out equal.
_LOW_DEFAULT = datetime(1900, 1, 1)
_HIGH_DEFAULT = datetime(2099, 6, 15)

_READ_CACHE_SIZE = 1 << 15

_DAY = 86400.0


@dataclass(frozen=True, slots=True)
class DateReading:
    """One date as read from a value, with the components the value stated.

    ``dt`` fills components the text left out from 1900-01-01, so it is only
    meaningful for the fields flagged present. ``grain`` is the low-order
    resolution regardless of year: 0 year, 1 month, 2 day. ``ordinal`` is the
    wall-clock calendar day, kept for the cheap whole-day comparison.
    """

    dt: datetime
    has_year: bool
    has_month: bool = True
    has_day: bool = True
    grain: int = field(init=False, compare=False)
    ordinal: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        grain = 0 if not self.has_month else 2 if self.has_day else 1
        object.__setattr__(self, "grain", grain)
        object.__setattr__(self, "ordinal", self.dt.toordinal())


@dataclass(frozen=True, slots=True)
class DateSpan:
    """A range ``start .. end`` (inclusive, start not after end)."""

    start: DateReading
    end: DateReading


Reading = Union[DateReading, DateSpan, None]


# --------------------------------------------------------------------------
# Reading text
# --------------------------------------------------------------------------


def _reading_from(low: datetime, high: datetime) -> DateReading | None:
    has_year = low.year == high.year
    has_month = low.month == high.month
    has_day = low.day == high.day
    if not (has_year or has_month or has_day):
        return None  # a time of day alone ("12:30 PM") is not a date
    return DateReading(low, has_year, has_month, has_day)


_dateutil: Any = None  # dateutil.parser, once imported
# Found, not imported: an install without it fails here, as the import did, rather than value by value later
# (every read of a text below catches what goes wrong, and would read no date).
if importlib.util.find_spec("dateutil") is None:
    raise ImportError("python-dateutil, which stickler requires, is not installed (pip install python-dateutil)")


def _dateutil_parser() -> Any:
    """``dateutil.parser``, imported on the first text that needs it: most dates in structured output are read
    without it (``_read_single_cached``), and its import is a tenth of a small run's start-up."""
    global _dateutil
    if _dateutil is None:
        from dateutil import parser as _dateutil
    return _dateutil


def _read_with_public_parse(text: str, dayfirst: bool) -> DateReading | None:
    """Two full dateutil parses, one per default."""
    dateutil_parser = _dateutil_parser()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dateutil_parser.UnknownTimezoneWarning)
        low = dateutil_parser.parse(text, default=_LOW_DEFAULT, dayfirst=dayfirst)
        high = dateutil_parser.parse(text, default=_HIGH_DEFAULT, dayfirst=dayfirst)
    return _reading_from(low, high)


def _read_with_one_tokenisation(text: str, dayfirst: bool) -> DateReading | None:
    """Same result as ``_read_with_public_parse`` at half the cost.

    ``dateutil.parser.parse`` is tokenise-and-resolve followed by filling in the
    default; only the second step depends on the default, so the first is run
    once. These are dateutil's own (underscored) steps of ``parse``; the test
    suite checks the two readers agree, and the public one is used if a dateutil
    release lacks them.
    """
    dateutil_parser = _dateutil_parser()
    engine = dateutil_parser.DEFAULTPARSER
    result, _ = engine._parse(text, dayfirst=dayfirst)
    if result is None or len(result) == 0:
        return None
    low = engine._build_naive(result, _LOW_DEFAULT)
    high = engine._build_naive(result, _HIGH_DEFAULT)
    if result.tzname is not None or result.tzoffset is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dateutil_parser.UnknownTimezoneWarning)
            low = engine._build_tzaware(low, result, None)
    return _reading_from(low, high)


_DATEUTIL_STEPS = ("_parse", "_build_naive", "_build_tzaware")
_dateutil_reader: Callable[[str, bool], DateReading | None] | None = None  # chosen on the first dateutil read


def _read_with_dateutil(text: str, dayfirst: bool) -> DateReading | None:
    """One date read by dateutil: by its own steps, tokenising once, when this dateutil release has them."""
    global _dateutil_reader
    if _dateutil_reader is None:
        engine = _dateutil_parser().DEFAULTPARSER
        _dateutil_reader = (
            _read_with_one_tokenisation
            if all(hasattr(engine, step) for step in _DATEUTIL_STEPS)
            else _read_with_public_parse
        )
    return _dateutil_reader(text, dayfirst)


# The words dateutil's parser (fuzzy off) goes on after as a text's first token, those made of ASCII letters
# (the only ones the screen below looks up), lower case: weekdays, months, am/pm, its filler words ("at", "of",
# "st", ...) and those ``float`` reads (nan, inf, infinity). Written out so that a text is screened without
# importing dateutil; tests/comparators/test_comparator_date.py holds it equal to dateutil's own parserinfo.
FIRST_WORDS_KNOWN = frozenset(
    """
    a ad am and apr april at aug august dec december feb february fri friday inf infinity jan january jul july
    jun june m mar march may mon monday nan nd nov november oct october of on p pm rd sat saturday sep sept
    september st sun sunday t th thu thursday tue tuesday wed wednesday""".split()
)
_LEADING_LETTERS = re.compile(r"[A-Za-z]+")


def _starts_with_unknown_word(text: str) -> bool:
    """Whether dateutil would give up on ``text`` at its first token, without tokenising the rest (the tokeniser is
    most of a failed read's cost: "SKU-39926", "INV-2019-00151"). With fuzzy off, dateutil raises on a first
    token that is a word it does not know; that token is the text's leading run of letters. Only ASCII runs are
    judged here (``isalpha`` and the letters class agree on them); a NUL, which the tokeniser skips, makes
    the run unclear, so such a text is left to dateutil."""
    found = _LEADING_LETTERS.match(text)
    if found is None or "\x00" in text:
        return False
    end = found.end()
    if end < len(text) and text[end].isalpha():  # the run goes on in letters outside ASCII
        return False
    return found.group().lower() not in FIRST_WORDS_KNOWN


def read_single(text: str, dayfirst: bool) -> DateReading | None:
    """One date from stripped text, or None when it does not read as a date."""
    if not text or _starts_with_unknown_word(text):
        return None
    if _YEAR_LEADS.match(text):
        dayfirst = False  # also lets both dayfirst passes share one cache entry
    return _read_single_cached(text, dayfirst)


@lru_cache(maxsize=_READ_CACHE_SIZE)
def _read_single_cached(text: str, dayfirst: bool) -> DateReading | None:
    iso = _PLAIN_ISO_DATE.fullmatch(text)
    try:
        if iso:
            year, month, day = map(int, iso.groups())
            return DateReading(datetime(year, month, day), True)
        numeric = _NUMERIC_DATE.fullmatch(text)
        if numeric:
            return _numeric_date(int(numeric[1]), int(numeric[3]), int(numeric[4]), dayfirst)
        return _read_with_dateutil(text, dayfirst)
    except Exception:  # dateutil's ValueError/OverflowError, or anything odd
        return None


def _numeric_date(first: int, second: int, year: int, dayfirst: bool) -> DateReading | None:
    """``first``/``second``/``year`` as dateutil resolves three numbers whose last is a year of four digits
    (``_ymd.resolve_ymd``): a first above 31 makes a year-first reading, whose day (the year) no month has;
    a first above 12, or day-first with a second of at most 12, is the day; otherwise the month. A day or
    month out of range reads no date (ValueError, as dateutil raises). tests/comparators/test_comparator_date.py holds it
    to dateutil on every first and second from 0 to 39 and some above, in both spellings, with each separator."""
    if first > 31:
        return None
    if first > 12 or (dayfirst and second <= 12):
        return DateReading(datetime(year, second, first), True)
    return DateReading(datetime(year, first, second), True)


def read_readings(value: Any, passes: tuple[bool, ...], keep_one_day_ranges: bool) -> tuple[Reading, ...]:
    """A value's reading under each dayfirst setting in ``passes``.

    Date objects are taken as they are; anything else is read as its text. When
    two passes read a value alike, the later entry is the very same object, so
    callers can skip scoring it again with an ``is`` test.
    """
    if isinstance(value, datetime):
        return (DateReading(value, True),) * len(passes)
    if isinstance(value, date):
        return (DateReading(datetime(value.year, value.month, value.day), True),) * len(passes)
    text = value if isinstance(value, str) else _bounded_text(value)
    if text is not None and len(text) > MAX_TEXT_LENGTH:
        text = text.strip()  # keeps huge values out of the cache
        if len(text) > MAX_TEXT_LENGTH:
            text = None
    if text is None or _starts_with_unknown_word(text.lstrip()):
        # (A range's first end begins with the text's first word, and is refused with it: nothing reads.)
        return (None,) * len(passes)
    return _readings_of_text(text, passes, keep_one_day_ranges)


def read_value(value: Any, dayfirst: bool, keep_one_day_ranges: bool = False) -> Reading:
    """A single date, a range, or None, read from one value."""
    return read_readings(value, (dayfirst,), keep_one_day_ranges)[0]


@lru_cache(maxsize=_READ_CACHE_SIZE)
def _readings_of_text(text: str, passes: tuple[bool, ...], keep_one_day_ranges: bool) -> tuple[Reading, ...]:
    text = text.strip()
    readings: list[Reading] = []
    for dayfirst in passes:
        if not dayfirst:
            read = _read_month_first
        elif False in passes:
            read = _read_day_first_after_month_first
        else:
            read = _read_day_first
        reading = _read_text(text, read, keep_one_day_ranges)
        if readings and _same_reading(reading, readings[-1]):
            reading = readings[-1]
        readings.append(reading)
    return tuple(readings)


def _read_month_first(text: str) -> DateReading | None:
    return read_single(text, False)


def _read_day_first(text: str) -> DateReading | None:
    return read_single(text, True)


def _read_day_first_after_month_first(text: str) -> DateReading | None:
    """The day-first reading, reusing the (cached) month-first one when they must agree.

    dateutil consults ``dayfirst`` only when it assigns numbers to month and
    day, and the day-first answer is then the month-first one with month and
    day swapped. So when the month-first reading lacks a month or a day, has a
    day above 12, or has day == month, the day-first reading is the same.
    """
    month_first = read_single(text, False)
    if month_first is not None and not (
        month_first.has_month
        and month_first.has_day
        and month_first.dt.day <= 12
        and month_first.dt.day != month_first.dt.month
    ):
        return month_first
    return read_single(text, True)


def _read_text(text: str, read: Callable[[str], DateReading | None], keep_one_day_ranges: bool) -> Reading:
    """A single date, a range, or None, from stripped text (``read`` reads one date).

    A range whose ends fall on the same day is read as its start unless
    ``keep_one_day_ranges`` (range_mode="reject" wants to see the range).
    """
    if not text or len(text) > MAX_TEXT_LENGTH:
        return None
    try:
        span = _read_span(text, read)
        if span is not None:
            if (
                not keep_one_day_ranges
                and span.start.has_year == span.end.has_year
                and _same_day(span.start.dt, span.end.dt)
            ):
                return span.start
            return span
    except (OverflowError, ValueError):  # an end near year 1/9999 overflowing UTC, a bad offset
        return None
    if _looks_like_range(text):
        return None  # a broken or truncated range is not a date either
    return read(text)


def _read_span(text: str, read: Callable[[str], DateReading | None]) -> DateSpan | None:
    """The first separator whose two sides both read as dates makes the range."""
    for separator in RANGE_SEPARATORS:
        left, found, right = text.partition(separator)
        if not found:
            continue
        start = read(left.strip())
        end = read(right.strip())
        if start is None or end is None:
            continue
        first, last = _comparable(start.dt, end.dt)
        return DateSpan(start, end) if first <= last else None
    return None


def _looks_like_range(text: str) -> bool:
    """A separator inside, or a dash dangling at an edge (``- 10/24/16``)."""
    return text[0] == "-" or text[-1] == "-" or any(sep in text for sep in RANGE_SEPARATORS)


def _bounded_text(value: Any) -> str | None:
    """``str(value)`` unless that would certainly be too long (or fail) to be a date."""
    if isinstance(value, int) and value.bit_length() > 1024:
        return None  # > 300 digits; str() of a huge int can even raise
    if isinstance(value, (list, tuple, dict, set, frozenset)) and len(value) > MAX_TEXT_LENGTH // 2:
        return None  # every item adds at least two characters to the text
    return value_text(value)


# --------------------------------------------------------------------------
# Day arithmetic across time zones
# --------------------------------------------------------------------------


def _comparable(a: datetime, b: datetime) -> tuple[datetime, datetime]:
    """Two datetimes that can be ordered and subtracted.

    Both aware: both in UTC. One aware: the naive one is taken to be in the
    other's zone (a bare date next to an offset means the same wall clock).
    """
    if a.tzinfo is None and b.tzinfo is None:
        return a, b
    if a.tzinfo is not None and b.tzinfo is not None:
        return a.astimezone(timezone.utc), b.astimezone(timezone.utc)
    if a.tzinfo is None:
        return a.replace(tzinfo=b.tzinfo), b
    return a, b.replace(tzinfo=a.tzinfo)


def _midnight(dt: datetime) -> datetime:
    return dt.replace(hour=0, minute=0, second=0, microsecond=0)


def _utc_day(dt: datetime) -> datetime:
    """The calendar day as a naive midnight; aware values are taken in UTC."""
    if dt.tzinfo is not None:
        dt = dt.astimezone(timezone.utc).replace(tzinfo=None)
    return _midnight(dt)


def _same_day(a: datetime, b: datetime) -> bool:
    a, b = _comparable(a, b)
    return _midnight(a) == _midnight(b)


def _month_day(dt: datetime) -> tuple[int, int]:
    return dt.month, dt.day


def _span_days_jaccard(a: DateSpan, b: DateSpan) -> float:
    """|days in both| / |days from the earliest start to the latest end|."""
    a_lo, a_hi = _utc_day(a.start.dt), _utc_day(a.end.dt)
    b_lo, b_hi = _utc_day(b.start.dt), _utc_day(b.end.dt)
    shared_lo, shared_hi = max(a_lo, b_lo), min(a_hi, b_hi)
    if shared_hi < shared_lo:
        return 0.0
    shared = (shared_hi - shared_lo).days + 1
    covered = (max(a_hi, b_hi) - min(a_lo, b_lo)).days + 1
    return shared / covered


def _month_days(span: DateSpan) -> set[tuple[int, int]]:
    """The (month, day) pairs a range covers; at most a year's worth.

    Mixed tz-awareness between the ends raises TypeError, which scores 0.0
    (as in stickler-eval).
    """
    start = _midnight(span.start.dt)
    length = min((_midnight(span.end.dt) - start).days, 366)
    return {_month_day(start + timedelta(days=k)) for k in range(length + 1)}


def _month_days_jaccard(a: DateSpan, b: DateSpan) -> float:
    """Overlap on the calendar wheel, for a year-less range against a dated one."""
    a_days, b_days = _month_days(a), _month_days(b)
    union = a_days | b_days
    return len(a_days & b_days) / len(union) if union else 0.0


def _month_day_inside(target: tuple[int, int], lo: tuple[int, int], hi: tuple[int, int]) -> bool:
    """Inclusive containment; ``lo > hi`` wraps the new year (Dec 20 .. Jan 5)."""
    if lo <= hi:
        return lo <= target <= hi
    return target >= lo or target <= hi


# --------------------------------------------------------------------------
# The comparator
# --------------------------------------------------------------------------


class DateComparator(Comparator):
    name = "DateComparator"
    aliases = ("date", "Date")
    default_threshold = 1.0
    summary = "same calendar day = 1.0; partial dates, ranges and tolerance configurable"
    params = (
        Param(
            "tolerance",
            float,
            None,
            "allowed distance in days between two full dates; whole days compare calendar days, "
            "fractions (1.5 = 36 h) compare timestamps",
            nullable=True,
            minimum=0.0,
        ),
        Param(
            "dayfirst",
            bool,
            None,
            "read 01/02/2025 day-first (true) or month-first (false); null tries both, keeps the better",
            nullable=True,
        ),
        Param("allow_partial_year", bool, False, "a year-less date matching month/day scores 0.7"),
        Param("range_mode", str, "graded", "how ranges score", choices=RANGE_MODES),
        Param(
            "precision_mode", str, "exact", "how a coarser date (Jan 2024) meets a finer one", choices=PRECISION_MODES
        ),
    )

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        if self.dayfirst is not None and not isinstance(self.dayfirst, bool):
            raise ValueError(f"dayfirst must be null, true or false, got {as_written(self.dayfirst)}")
        if self.range_mode not in RANGE_MODES:
            raise ValueError(f"range_mode must be one of {', '.join(RANGE_MODES)}, got {as_written(self.range_mode)}")
        if self.precision_mode not in PRECISION_MODES:
            raise ValueError(
                f"precision_mode must be one of {', '.join(PRECISION_MODES)}, got {as_written(self.precision_mode)}"
            )
        self._window = _tolerance_window(self.tolerance)
        # Whole-day windows compare calendar days; others compare instants.
        self._whole_days = self._window.total_seconds() % _DAY == 0
        self._keep_one_day_ranges = self.range_mode == "reject"
        self._year_miss_credit = PARTIAL_YEAR_CREDIT if self.allow_partial_year else 0.0
        self._passes: tuple[bool, ...] = (False, True) if self.dayfirst is None else (self.dayfirst,)

    # -- public API -----------------------------------------------------------

    def similarity(self, gt: Any, pred: Any) -> float:
        try:
            return self._best(self._readings(gt), self._readings(pred))
        except Exception:  # never let one odd value stop an evaluation
            return 0.0

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        gt_readings = [self._readings_or_none(v) for v in gts]
        pred_readings = [self._readings_or_none(v) for v in preds]
        return [[self._best_or_zero(a, b) for b in pred_readings] for a in gt_readings]

    # -- dayfirst passes ------------------------------------------------------

    def _readings(self, value: Any) -> tuple[Reading, ...]:
        return read_readings(value, self._passes, self._keep_one_day_ranges)

    def _readings_or_none(self, value: Any) -> tuple[Reading, ...] | None:
        try:
            return self._readings(value)
        except Exception:
            return None

    def _best_or_zero(self, gts: tuple[Reading, ...] | None, preds: tuple[Reading, ...] | None) -> float:
        if gts is None or preds is None:
            return 0.0
        try:
            return self._best(gts, preds)
        except Exception:
            return 0.0

    def _best(self, gts: tuple[Reading, ...], preds: tuple[Reading, ...]) -> float:
        """The better score over the dayfirst passes.

        An error in any pass (mixed tz-awareness inside a range) makes the
        whole pair 0.0, as in stickler-eval. A pass that reads both values as
        the previous one did cannot score differently, so it is skipped.
        """
        best = self._score(gts[0], preds[0])
        for k in range(1, len(gts)):
            if gts[k] is not gts[k - 1] or preds[k] is not preds[k - 1]:
                best = max(best, self._score(gts[k], preds[k]))
        return best

    def _score(self, gt: Reading, pred: Reading) -> float:
        if gt is None or pred is None:
            return 0.0
        gt_span, pred_span = isinstance(gt, DateSpan), isinstance(pred, DateSpan)
        if gt_span or pred_span:
            if self.range_mode == "reject":
                return 0.0
            if gt_span and pred_span:
                return self._span_vs_span(gt, pred)
            if gt_span:
                return self._span_vs_date(gt, pred, date_is_gt=False)
            return self._span_vs_date(pred, gt, date_is_gt=True)
        return self._date_vs_date(gt, pred)

    # -- the two axes every comparison passes ---------------------------------

    def _grain_allowed(self, gt: DateReading, pred: DateReading) -> bool:
        """Whether month/day resolutions may differ (precision_mode)."""
        if gt.grain == pred.grain:
            return True
        if self.precision_mode == "overlap":
            return True
        if self.precision_mode == "gt_loose":
            return pred.grain > gt.grain
        return False

    def _year_credit(self, gt_has_year: bool, pred_has_year: bool) -> float:
        return 1.0 if gt_has_year == pred_has_year else self._year_miss_credit

    # -- single dates ---------------------------------------------------------

    def _date_vs_date(self, gt: DateReading, pred: DateReading) -> float:
        if not self._grain_allowed(gt, pred):
            return 0.0
        credit = self._year_credit(gt.has_year, pred.has_year)
        if credit == 0.0 or not self._dates_agree(gt, pred):
            return 0.0
        return credit

    def _dates_agree(self, a: DateReading, b: DateReading) -> bool:
        """Agreement on every component both state; full dates within tolerance."""
        if a.has_year and b.has_year:
            if a.grain == 2 and b.grain == 2:
                if self._whole_days and (a.dt.tzinfo is None or b.dt.tzinfo is None):
                    # Naive, or naive read in the other's zone: wall-clock days.
                    return abs(a.ordinal - b.ordinal) <= self._window.days
                x, y = _comparable(a.dt, b.dt)
                if self._whole_days:
                    x, y = _midnight(x), _midnight(y)
                return abs(x - y) <= self._window
            if a.dt.year != b.dt.year:
                return False
        if a.has_month and b.has_month and a.dt.month != b.dt.month:
            return False
        return not (a.has_day and b.has_day and a.dt.day != b.dt.day)

    # -- ranges ---------------------------------------------------------------

    def _span_vs_date(self, span: DateSpan, single: DateReading, date_is_gt: bool) -> float:
        if self.range_mode == "strict":
            return 0.0
        if date_is_gt:
            grain_ok = self._grain_allowed(single, span.start) and self._grain_allowed(single, span.end)
        else:
            grain_ok = self._grain_allowed(span.start, single) and self._grain_allowed(span.end, single)
        if not grain_ok or span.start.has_year != span.end.has_year:
            return 0.0
        credit = self._year_credit(span.start.has_year, single.has_year)
        if credit == 0.0:
            return 0.0
        if span.start.has_year == single.has_year:
            day = _utc_day(single.dt)
            inside = _utc_day(span.start.dt) <= day <= _utc_day(span.end.dt)
        else:  # the year-less side's year is a placeholder: compare on the calendar wheel
            inside = _month_day_inside(_month_day(single.dt), _month_day(span.start.dt), _month_day(span.end.dt))
        if not inside:
            return 0.0
        return credit * (1.0 if self.range_mode == "contains" else GRADED_CONTAINMENT_CREDIT)

    def _span_vs_span(self, gt: DateSpan, pred: DateSpan) -> float:
        if gt.start.has_year != gt.end.has_year or pred.start.has_year != pred.end.has_year:
            return 0.0
        if not (self._grain_allowed(gt.start, pred.start) and self._grain_allowed(gt.end, pred.end)):
            return 0.0
        credit = self._year_credit(gt.start.has_year, pred.start.has_year)
        if credit == 0.0:
            return 0.0
        years_known = gt.start.has_year == pred.start.has_year
        if self.range_mode in ("strict", "contains"):
            if years_known:
                same = _same_day(gt.start.dt, pred.start.dt) and _same_day(gt.end.dt, pred.end.dt)
            else:
                same = _month_day(gt.start.dt) == _month_day(pred.start.dt) and _month_day(gt.end.dt) == _month_day(
                    pred.end.dt
                )
            return credit if same else 0.0
        overlap = _span_days_jaccard(gt, pred) if years_known else _month_days_jaccard(gt, pred)
        return overlap * credit


def _tolerance_window(tolerance: Any) -> timedelta:
    """The tolerance as a timedelta: a number of days, or a timedelta (Python API)."""
    if tolerance is None:
        return timedelta(0)
    if isinstance(tolerance, timedelta):
        window = tolerance
    elif isinstance(tolerance, (int, float)) and not isinstance(tolerance, bool):
        try:
            window = timedelta(days=tolerance)
        except (OverflowError, ValueError):
            raise ValueError(f"tolerance must be a number of days below 1e9, got {as_written(tolerance)}") from None
    else:
        raise ValueError(f"tolerance must be a number of days, got {as_written(tolerance)}")
    if window < timedelta(0):
        raise ValueError(f"tolerance must be >= 0, got {as_written(tolerance)}")
    return window


def _same_reading(a: Reading, b: Reading) -> bool:
    """Whether two readings are certain to score alike against anything."""
    if a is b:
        return True
    if isinstance(a, DateSpan) and isinstance(b, DateSpan):
        return _same_reading(a.start, b.start) and _same_reading(a.end, b.end)
    if isinstance(a, DateReading) and isinstance(b, DateReading):
        # Same zone object: == compares wall clocks, as the scoring would see them.
        return a.dt.tzinfo is b.dt.tzinfo and a == b
    return False
