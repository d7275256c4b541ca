"""Hypothesis strategies for date-like values in the forms extraction models emit.

Pairs are drawn from one underlying day written two ways (often shifted a few
days, sometimes coarsened or made a range), so that matches, near misses and
every option's branch all occur, next to garbage and non-string JSON values.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from hypothesis import strategies as hs

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
ZONES = (
    "",
    "",
    "",
    "Z",
    "+00:00",
    "+05:30",
    "-08:00",
    "-0500",
    " UTC",
    " GMT",
    " EST",
    " PST",
    " +0100",
    "+14:00",
    "-12:00",
)
SEPARATORS = (" to ", " through ", " - ", " - ", " to ", "-", " – ", " TO ", " until ")


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def written(day: dt.date, style: int, time: dt.time | None, zone: str) -> str:
    """``day`` in one of many surface forms (some drop the year, month or day)."""
    y, m, d = day.year, day.month, day.day
    mon, full = MONTHS[m - 1][:3], MONTHS[m - 1]
    forms = (
        f"{y:04d}-{m:02d}-{d:02d}",
        f"{y:04d}/{m:02d}/{d:02d}",
        f"{y:04d}.{m}.{d}",
        f"{m:02d}/{d:02d}/{y:04d}",
        f"{d:02d}/{m:02d}/{y:04d}",
        f"{m}/{d}/{y % 100:02d}",
        f"{d}.{m}.{y}",
        f"{d:02d}-{m:02d}-{y:04d}",
        f"{full} {d}, {y}",
        f"{mon} {d} {y}",
        f"{d} {full} {y}",
        f"{_ordinal(d)} {full} {y}",
        f"{WEEKDAYS[day.weekday()]}, {full} {d}, {y}",
        f"{mon} {y}",
        f"{full} {y}",
        f"{y}",
        f"{m:02d}/{y}",
        f"{y}-{m:02d}",
        f"{full} {d}",
        f"{d} {mon}",
        f"{m}/{d}",
        f"{y:04d}{m:02d}{d:02d}",
        f"{mon.upper()} {d}, {y}",
        f"{WEEKDAYS[day.weekday()]} {mon} {y}",
    )
    text = forms[style % len(forms)]
    if time is not None and style % len(forms) in (0, 1, 3, 4, 8, 10):
        sep = "T" if style % len(forms) == 0 else " "
        text = f"{text}{sep}{time.hour:02d}:{time.minute:02d}"
        if time.second:
            text += f":{time.second:02d}"
        text += zone
    return text


days = hs.one_of(
    hs.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2035, 12, 31)),
    hs.dates(),
    hs.dates(min_value=dt.date(2024, 1, 1), max_value=dt.date(2024, 3, 31)),
)
times = hs.one_of(hs.none(), hs.times())
zones = hs.sampled_from(ZONES)
styles = hs.integers(0, 200)

garbage = hs.one_of(
    hs.sampled_from(
        [
            "",
            " ",
            "N/A",
            "unknown",
            "TBD",
            "12:30 PM",
            "10/45AM",
            "- 10/24/16",
            "10/24/16 -",
            "2024-13-01",
            "2024-02-30",
            "Feb 29",
            "Feb 29 2024",
            "31/31/2031",
            "0000-01-01",
            "Back to school 2024",
            "Q1 2024",
            "2024-W05",
            "2024-01-15 to",
            "to 2024-01-15",
            "9999-12-31T23:00:00-05:00",
            "0001-01-01T01:00:00+05:00",
            "Dec 31 9999 to Dec 31 9999",
            "Jan 5 10:00 UTC to Jan 7",
            "2024-01-01T00:00Z to 2024-01-05",
            "x" * 300,
            "2024-01-01" + " " * 400,
            "1/2",
            "1/2/3",
            "31",
            "the 31st",
            "May",
            "Monday",
            "2024-01-10 to 2024-01-01",
            "2024-01-01 to 2024-01-01",
            "Jan 2024 to 2024-01-01",
            "12/20 to 1/5",
            "Dec 20 to Jan 5",
            "2024-01-01 - 2024-01-10 - 2024-02-01",
            "nan",
            "inf",
            "True",
            "[2024]",
            "{}",
            "٢٠٢٤-٠١-١٥",
            "２０２４-０１-１５",
        ]
    ),
    hs.text(max_size=30),
    hs.text(alphabet="0123456789/-.: ,TZ+", max_size=25),
)

non_strings = hs.one_of(
    hs.integers(min_value=-(10**12), max_value=10**12),
    hs.sampled_from([20240115, 2024, 240115, 1, 0, 2024.0, 2024.5, 1e20, True, False]),
    hs.floats(allow_nan=False, allow_infinity=False),
    hs.lists(hs.integers(0, 3000), max_size=3),
    hs.sampled_from([{"date": "2024-01-15"}, {}, [], ["2024-01-15"], [[2024, 1, 15]]]),
)


@hs.composite
def date_text(draw: Any, day: dt.date | None = None) -> str:
    day = draw(days) if day is None else day
    return written(day, draw(styles), draw(times), draw(zones))


def _shifted(day: dt.date, delta: int) -> dt.date:
    try:
        return day + dt.timedelta(days=delta)
    except OverflowError:
        return day


@hs.composite
def date_range_text(draw: Any, day: dt.date | None = None) -> str:
    day = draw(days) if day is None else day
    start = _shifted(day, draw(hs.integers(-20, 5)))
    end = _shifted(start, draw(hs.integers(-2, 40)))
    style = draw(styles)
    same_style = draw(hs.booleans())
    try:
        left = written(start, style, None, "")
        right = written(end, style if same_style else draw(styles), draw(times), draw(zones))
    except (OverflowError, ValueError):
        return "2024-01-01 to 2024-01-10"
    return f"{left}{draw(hs.sampled_from(SEPARATORS))}{right}"


@hs.composite
def value_near(draw: Any, day: dt.date) -> Any:
    """A value about ``day``: the same day, a nearby one, a range, or junk."""
    kind = draw(hs.integers(0, 9))
    if kind <= 3:
        return draw(date_text(day))
    if kind == 4:
        return draw(date_text(_shifted(day, draw(hs.integers(-3, 3)))))
    if kind == 5:
        return draw(date_text(_shifted(day, draw(hs.integers(-400, 400)))))
    if kind <= 7:
        return draw(date_range_text(day))
    if kind == 8:
        return draw(garbage)
    return draw(non_strings)


@hs.composite
def value_pairs(draw: Any) -> tuple[Any, Any]:
    day = draw(days)
    return draw(value_near(day)), draw(value_near(day))


configs = hs.fixed_dictionaries(
    {},
    optional={
        "tolerance": hs.sampled_from([None, 0, 1, 2, 7, 0.5, 1.5, 0.25, 30]),
        "dayfirst": hs.sampled_from([None, True, False]),
        "allow_partial_year": hs.booleans(),
        "range_mode": hs.sampled_from(["strict", "reject", "contains", "graded"]),
        "precision_mode": hs.sampled_from(["exact", "gt_loose", "overlap"]),
    },
)
