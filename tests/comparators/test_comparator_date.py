"""DateComparator: hand-worked scores for every option and the seed's tricky cases."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from stickler_cli.comparators import ComparatorConfigError, build
from stickler_cli.comparators import date as date_module
from stickler_cli.comparators.date import DateComparator, DateReading, DateSpan, read_single, read_value
from tests.support.date_strategies import date_range_text, date_text, garbage, non_strings, value_pairs

# (comparator-config, ground truth, prediction, score). tests/parity/test_date_oracle.py
# checks that stickler-eval gives the same numbers.
CASES: list[tuple[dict[str, Any], Any, Any, float]] = [
    # Surface forms of one day.
    ({}, "2024-01-15", "January 15, 2024", 1.0),
    ({}, "2024-01-15", "15/01/2024", 1.0),  # month 15 is impossible, day-first reading wins
    ({}, "2024-01-15", "Mon, 15 Jan 2024", 1.0),
    ({}, "2024-01-15", "2024-01-16", 0.0),
    ({}, "2024-01-15T09:00", "2024-01-15T17:30", 1.0),  # same calendar day
    ({}, "  2024-01-15  ", "2024-01-15", 1.0),
    # tolerance: whole days compare calendar days ...
    ({"tolerance": 1}, "2024-01-15", "2024-01-16", 1.0),
    ({"tolerance": 1}, "2024-01-15", "2024-01-17", 0.0),
    ({}, "2024-01-15T23:00", "2024-01-16T01:00", 0.0),
    ({"tolerance": 1}, "2024-01-15T23:00", "2024-01-16T01:00", 1.0),
    ({"tolerance": 1}, "2024-01-15T00:00", "2024-01-16T23:00", 1.0),  # 1 calendar day apart
    # ... fractions compare instants: 1.5 days = 36 h < 47 h; 0.5 days = 12 h > 2 h.
    ({"tolerance": 1.5}, "2024-01-15T00:00", "2024-01-16T23:00", 0.0),
    ({"tolerance": 0.5}, "2024-01-15T23:00", "2024-01-16T01:00", 1.0),
    # Time zones: both aware -> compared in UTC; a naive value takes the other's zone.
    ({}, "2024-01-15T23:30:00-05:00", "2024-01-16T04:30:00Z", 1.0),
    ({}, "2024-01-15T23:30:00-05:00", "2024-01-16", 0.0),
    ({}, "2024-01-15T23:30:00-05:00", "2024-01-15", 1.0),
    # precision_mode: "Jan 2024" is month-grain, "2024" year-grain.
    ({}, "Jan 2024", "2024-01-01", 0.0),
    ({}, "Jan 2024", "January 2024", 1.0),
    ({}, "2024", "2024", 1.0),
    ({}, "2024", "2024-06-30", 0.0),
    ({"precision_mode": "gt_loose"}, "Jan 2024", "2024-01-01", 1.0),
    ({"precision_mode": "gt_loose"}, "Jan 2024", "2024-01-31", 1.0),
    ({"precision_mode": "gt_loose"}, "2024-01-01", "Jan 2024", 0.0),  # prediction coarser
    ({"precision_mode": "overlap"}, "2024-01-01", "Jan 2024", 1.0),
    ({"precision_mode": "overlap"}, "Jan 2024", "2024-02-01", 0.0),
    ({"precision_mode": "overlap"}, "2024", "2024-06-30", 1.0),
    # dayfirst: None tries both readings and keeps the better score.
    ({}, "01/02/2025", "2025-02-01", 1.0),
    ({}, "01/02/2025", "2025-01-02", 1.0),
    ({"dayfirst": False}, "01/02/2025", "2025-02-01", 0.0),
    ({"dayfirst": True}, "01/02/2025", "2025-02-01", 1.0),
    ({"dayfirst": True}, "2025-02-01", "1 Feb 2025", 1.0),  # year-first text is never day-first
    # allow_partial_year: a year-less date agreeing on month/day earns 0.7.
    ({}, "Oct 24", "10/24/16", 0.0),
    ({"allow_partial_year": True}, "Oct 24", "10/24/16", 0.7),
    ({"allow_partial_year": True}, "Oct 24", "10/25/16", 0.0),
    ({}, "Oct 24", "24 October", 1.0),  # both year-less
    # Ranges, graded (default): Jan 5..10 shared = 6 days of Jan 1..15 = 15 -> 0.4.
    ({}, "2024-01-01 to 2024-01-10", "2024-01-05 to 2024-01-15", 0.4),
    ({}, "2024-01-01 to 2024-01-10", "2024-01-05", 0.5),
    ({}, "2024-01-05", "2024-01-01 to 2024-01-10", 0.5),
    ({}, "2024-01-01 to 2024-01-10", "2024-01-20", 0.0),
    ({}, "2024-01-01 to 2024-01-10", "Jan 1, 2024 through Jan 10, 2024", 1.0),
    ({}, "2024-01-01 - 2024-01-10", "2024-01-01 to 2024-01-05", 0.5),  # 5 / 10 days
    ({}, "2024-01-05 to 2024-01-05", "2024-01-05", 1.0),  # a one-day range is that day
    ({}, "2024-01-10 to 2024-01-01", "2024-01-05", 0.0),  # backwards: not a range, not a date
    # Month-grain ends stand for the 1st: Jan 1..Mar 1 (61 days) vs Jan 1..Feb 1 (32 days).
    ({}, "Jan 2024 to Mar 2024", "Jan 2024 to Feb 2024", 32 / 61),
    ({}, "Jan 2024 to Mar 2024", "2024-02-15", 0.0),  # grains differ
    ({"precision_mode": "gt_loose"}, "Jan 2024 to Mar 2024", "2024-02-15", 0.5),
    ({"range_mode": "contains"}, "2024-01-01 to 2024-01-10", "2024-01-05", 1.0),
    ({"range_mode": "contains"}, "2024-01-01 to 2024-01-10", "2024-01-05 to 2024-01-15", 0.0),
    ({"range_mode": "contains"}, "2024-01-01 to 2024-01-10", "Jan 1, 2024 through Jan 10, 2024", 1.0),
    ({"range_mode": "strict"}, "2024-01-01 to 2024-01-10", "2024-01-05", 0.0),
    ({"range_mode": "strict"}, "2024-01-01 to 2024-01-10", "Jan 1, 2024 - Jan 10, 2024", 1.0),
    ({"range_mode": "reject"}, "2024-01-01 to 2024-01-10", "2024-01-01 to 2024-01-10", 0.0),
    ({"range_mode": "reject"}, "2024-01-05 to 2024-01-05", "2024-01-05", 0.0),
    # Year-less against dated ranges: compared on the calendar wheel, times 0.7.
    ({"allow_partial_year": True}, "2023-12-20 to 2024-01-05", "Jan 3", 0.5 * 0.7),
    ({"allow_partial_year": True, "range_mode": "contains"}, "2023-12-20 to 2024-01-05", "Jan 3", 0.7),
    ({"allow_partial_year": True}, "2023-12-20 to 2024-01-05", "Dec 10", 0.0),
    ({"allow_partial_year": True}, "Jan 1 to Jan 10", "2024-01-05 to 2024-01-15", 0.4 * 0.7),
    ({}, "Jan 1 to Jan 10", "2024-01-05 to 2024-01-15", 0.0),
    ({}, "Jan 1 to Jan 10", "Jan 5 to Jan 15", 0.4),
    ({}, "Jan 5 10:00 UTC to Jan 7", "Jan 5 to Jan 7", 1.0),
    # One end aware, one naive, against a dated range: the calendar-wheel walk
    # cannot subtract them; stickler-eval scores that 0.0.
    ({"allow_partial_year": True}, "Jan 5 10:00 UTC to Jan 7", "2024-01-05 to 2024-01-07", 0.0),
    # Year-less "Dec 20 to Jan 5" runs backwards within the placeholder year.
    ({}, "Dec 20 to Jan 5", "Dec 20 to Jan 5", 0.0),
    # Not dates.
    ({}, "- 10/24/16", "10/24/16", 0.0),  # truncated range
    ({}, "10/24/16 -", "10/24/16", 0.0),
    ({}, "Back to school 2024", "2024", 0.0),  # " to " makes it a (failed) range
    ({}, "12:30 PM", "12:30 PM", 0.0),  # a time alone
    ({}, "Feb 29", "Feb 29", 0.0),  # no year: 1900 stands in, and it is not a leap year
    ({}, "Feb 29 2024", "2024-02-29", 1.0),
    ({}, "2024-02-30", "2024-02-30", 0.0),
    ({}, "N/A", "N/A", 0.0),
    ({}, "", "", 0.0),
    ({}, "x" * 300, "x" * 300, 0.0),
    ({}, "2024-01-15" + " " * 300, "2024-01-15", 1.0),  # the limit applies after stripping
    ({}, "2024-01-15 " + "x" * 300, "2024-01-15", 0.0),
    # Non-strings are read as their text.
    ({}, 20240115, "2024-01-15", 1.0),
    ({}, 2024, "2024", 1.0),
    ({}, True, True, 0.0),
    ({}, [2024], [2024], 0.0),
    ({}, {"date": "2024-01-15"}, "2024-01-15", 0.0),
]


@pytest.mark.parametrize(("config", "gt", "pred", "expected"), CASES, ids=lambda v: repr(v)[:40])
def test_worked_example(config: dict[str, Any], gt: Any, pred: Any, expected: float) -> None:
    assert build("DateComparator", config).similarity(gt, pred) == pytest.approx(expected, abs=1e-12)


def test_date_and_datetime_objects() -> None:
    date = build("date")
    assert date.similarity(dt.date(2024, 1, 15), "2024-01-15") == 1.0
    assert date.similarity(dt.datetime(2024, 1, 15, 18, 0), "Jan 15, 2024") == 1.0
    assert date.similarity(dt.date(2024, 1, 15), dt.date(2024, 1, 16)) == 0.0
    aware = dt.datetime(2024, 1, 15, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    assert date.similarity(aware, "2024-01-16T04:30:00Z") == 1.0


def test_tolerance_accepts_timedelta_from_python() -> None:
    within_36_hours = DateComparator(tolerance=dt.timedelta(hours=36))
    assert within_36_hours.similarity("2024-01-15T00:00", "2024-01-16T11:00") == 1.0
    assert within_36_hours.similarity("2024-01-15T00:00", "2024-01-16T13:00") == 0.0


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"tolerance": -1}, "tolerance"),
        ({"tolerance": True}, "tolerance"),
        ({"tolerance": "1 day"}, "tolerance"),
        ({"dayfirst": "yes"}, "dayfirst"),
        ({"dayfirst": 1}, "dayfirst"),
        ({"allow_partial_year": None}, "allow_partial_year"),
        ({"range_mode": "loose"}, "range_mode"),
        ({"precision_mode": "gt-loose"}, "precision_mode"),
        ({"tolerence": 1}, "tolerence"),
    ],
)
def test_bad_config_is_rejected(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ComparatorConfigError) as info:
        build("DateComparator", config)
    assert info.value.key == key


def test_absurd_tolerance_is_a_value_error() -> None:
    with pytest.raises(ComparatorConfigError):
        build("DateComparator", {"tolerance": 1e12})  # beyond timedelta's range
    for bad in ({"tolerance": -0.5}, {"tolerance": "1"}, {"dayfirst": 1}, {"range_mode": "x"}, {"precision_mode": "x"}):
        with pytest.raises(ValueError):
            DateComparator(**bad)


def test_registry_names_and_defaults() -> None:
    date = build("Date")
    assert type(date).name == "DateComparator"
    assert date.default_threshold == 1.0
    assert date.config == {
        "tolerance": None,
        "dayfirst": None,
        "allow_partial_year": False,
        "range_mode": "graded",
        "precision_mode": "exact",
    }


def test_grains_are_detected() -> None:
    def flags(text: str) -> tuple[bool, bool, bool]:
        reading = read_single(text, False)
        assert isinstance(reading, DateReading)
        return reading.has_year, reading.has_month, reading.has_day

    assert flags("Jan 2024") == (True, True, False)
    assert flags("2024") == (True, False, False)
    assert flags("Oct 24") == (False, True, True)
    assert flags("January 15, 2024") == (True, True, True)
    assert flags("Tuesday Jan 2024") == (True, True, False)
    assert read_single("12:30 PM", False) is None


def test_ranges_are_read() -> None:
    span = read_value("Jan 1, 2024 through Jan 10, 2024", False)
    assert isinstance(span, DateSpan)
    assert (span.start.dt, span.end.dt) == (dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 10))
    assert isinstance(read_value("2024-01-05 to 2024-01-05", False), DateReading)
    assert isinstance(read_value("2024-01-05 to 2024-01-05", False, keep_one_day_ranges=True), DateSpan)
    assert read_value("2024-01-01 to 2024-01-10 to 2024-01-20", False) is None


def test_matrix_equals_pairwise_scores() -> None:
    values = [
        "2024-01-15",
        "15/01/2024",
        "Jan 2024",
        "2024-01-01 to 2024-01-31",
        "N/A",
        20240115,
        dt.date(2024, 1, 15),
        "x" * 1000,
        [1],
        "01/02/2024",
        "2024-02-01T00:00Z",
    ]
    for config in ({}, {"precision_mode": "overlap", "range_mode": "contains"}, {"dayfirst": True}):
        date = build("date", config)
        expected = [[date.similarity(a, b) for b in values] for a in values]
        assert date.similarity_matrix(values, values) == expected


def test_identical_texts_are_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = date_module._read_with_dateutil

    def counting(text: str, dayfirst: bool) -> Any:
        calls.append(text)
        return real(text, dayfirst)

    monkeypatch.setattr(date_module, "_read_with_dateutil", counting)
    date_module._read_single_cached.cache_clear()
    date_module._readings_of_text.cache_clear()
    date = build("date")
    for _ in range(50):
        assert date.similarity("March 3, 2031", "3 March 2031") == 1.0
    # One dateutil pass each: day 3 and month 3 agree, so day-first cannot differ.
    assert sorted(calls) == ["3 March 2031", "March 3, 2031"]


# ---------------------------------------------------------------------------
# The shortcuts agree with the plain dateutil reading.
# ---------------------------------------------------------------------------

texts = hs.one_of(date_text(), date_range_text(), garbage)


@settings(deadline=None, max_examples=400)
@given(text=texts, dayfirst=hs.booleans())
def test_one_tokenisation_reads_like_two_parses(text: str, dayfirst: bool) -> None:
    def read(reader: Any) -> Any:
        try:
            return reader(text.strip(), dayfirst)
        except Exception:
            return "error"

    fast = read(date_module._read_with_one_tokenisation)
    plain = read(date_module._read_with_public_parse)
    assert fast == plain or (fast is None and plain == "error")


# Texts that begin with a word: dateutil's words (months, weekdays, am/pm, fillers, nan/inf) and others, in any
# case, then anything a date may hold; a NUL or a letter outside ASCII inside the first word.
_DATEUTIL_WORDS = [
    "jan",
    "January",
    "SEPT",
    "mon",
    "Tuesday",
    "am",
    "p",
    "at",
    "of",
    "and",
    "st",
    "t",
    "m",
    "NaN",
    "inf",
    "Infinity",
    "sku",
    "INV",
    "DE",
    "Q",
    "x",
    "Rechnung",
    "Mär",
    "Ju\x00n",
    "Ja\x00n",
    "ａm",
]
_date_tails = hs.lists(
    hs.sampled_from(
        [
            "",
            " ",
            "-",
            "/",
            ".",
            ",",
            "15",
            "2024",
            "05",
            "12:30",
            "+02:00",
            " 2024-01-15",
            "GMT",
            "é",
            "\u0301",
            "th",
            " of ",
            "PM",
            " to ",
            " - ",
            " through ",
            "Jan 5 2024",
        ]
    ),
    max_size=5,
)


@settings(deadline=None, max_examples=600)
@given(
    word=hs.one_of(
        hs.sampled_from(_DATEUTIL_WORDS),
        hs.text(hs.characters(codec="ascii"), min_size=1, max_size=6),
        hs.text(min_size=1, max_size=4),
    ),
    tail=_date_tails,
    dayfirst=hs.booleans(),
)
def test_a_leading_unknown_word_is_refused_as_dateutil_refuses_it(word: str, tail: list[str], dayfirst: bool) -> None:
    """The screen before dateutil (a first word dateutil does not know: it raises at once) answers as dateutil
    does, whenever it answers; and it answers for the identifiers that fill real FDs."""
    text = (word + "".join(tail)).strip()
    if not text:
        return
    if date_module._starts_with_unknown_word(text):
        try:
            plain = date_module._read_with_public_parse(text, dayfirst)
        except Exception:  # dateutil refuses it: read_single reads None
            plain = None
        assert plain is None
        assert read_single(text, dayfirst) is None
        for keep in (False, True):  # as a whole: neither a date nor a range, read without the screen
            assert date_module._readings_of_text.__wrapped__(text, (False, True), keep) == (None, None)
            assert date_module.read_readings(" " + text, (False, True), keep) == (None, None)


def test_the_first_words_known_are_dateutils_own() -> None:
    """The screen's word list, written out so that screening imports no dateutil, is dateutil's parserinfo:
    weekdays, months, am/pm and filler words, and the words ``float`` reads; those of ASCII letters only (the
    screen looks up a leading run of them), lower case. A dateutil release that changes its words fails here."""
    from dateutil import parser

    info = parser.DEFAULTPARSER.info
    words = {w for group in (*info.WEEKDAYS, *info.MONTHS, *info.AMPM) for w in group}
    known = {w.lower() for w in (*words, *info.JUMP, "nan", "inf", "infinity")}
    assert date_module.FIRST_WORDS_KNOWN == {w for w in known if w.isascii() and w.isalpha()}
    assert {"jan", "sept", "wednesday", "pm", "of", "th", "infinity"} <= date_module.FIRST_WORDS_KNOWN


def test_dateutil_is_imported_only_for_a_text_it_must_read() -> None:
    """ISO and numeric dates, identifiers and numbers are read (or refused) without importing dateutil (a tenth of
    a small run's start-up); the first text that needs it imports it, and reads as before."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from stickler_cli.comparators import date\n"
        "readings = [date.read_value(t, d) for t in ('2024-01-15', '15/01/2024', '1.5.2024', 'SKU-39926',\n"
        "            'INV-2019-00151', '', '  ', 'Rechnung 5') for d in (False, True)]\n"
        "assert str(readings[0].dt) == '2024-01-15 00:00:00' and str(readings[3].dt) == '2024-01-15 00:00:00'\n"
        "assert readings[6:] == [None] * 10, readings\n"
        "assert 'dateutil' not in sys.modules, 'imported for a text read without it'\n"
        "assert str(date.read_value('Jan 15, 2024', False).dt) == '2024-01-15 00:00:00'\n"
        "assert 'dateutil.parser' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_an_install_without_dateutil_fails_when_the_comparator_loads() -> None:
    """dateutil is imported lazily, but its absence is found when the module loads (as the import used to): not
    swallowed later, value by value, as a text that reads no date."""
    import subprocess
    import sys

    script = (
        "import sys\nsys.modules['dateutil'] = None\n"
        "try:\n    import stickler_cli.comparators.date\nexcept ImportError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == (
        "python-dateutil, which stickler requires, is not installed (pip install python-dateutil)"
    )


def test_identifiers_skip_dateutil(monkeypatch: pytest.MonkeyPatch) -> None:
    """SKUs, invoice numbers and tax ids are not tokenised; dates and month names still are."""
    calls: list[str] = []
    real = date_module._read_with_dateutil
    monkeypatch.setattr(
        date_module, "_read_with_dateutil", lambda text, dayfirst: calls.append(text) or real(text, dayfirst)
    )
    date_module._read_single_cached.cache_clear()
    for text in ("SKU-39926", "INV-2019-00151", "DE123456789", "Invoice 15/01/2024"):
        assert read_single(text, False) is None
    assert calls == []
    assert read_single("Jan 15, 2024", False) == DateReading(dt.datetime(2024, 1, 15), True)
    assert read_single("15/01/2024", True) == DateReading(dt.datetime(2024, 1, 15), True)
    assert read_single("at 15/01/2024", False) == DateReading(dt.datetime(2024, 1, 15), True)
    assert calls == ["Jan 15, 2024", "at 15/01/2024"]  # 15/01/2024: _numeric_date, without dateutil
    date_module._read_single_cached.cache_clear()


@settings(deadline=None, max_examples=400)
@given(year=hs.integers(0, 9999), month=hs.integers(0, 19), day=hs.integers(0, 39))
def test_plain_iso_shortcut_reads_like_dateutil(year: int, month: int, day: int) -> None:
    text = f"{year:04d}-{month:02d}-{day:02d}"
    date_module._read_single_cached.cache_clear()
    shortcut = read_single(text, False)
    try:
        plain = date_module._read_with_public_parse(text, False)
    except Exception:
        plain = None
    assert shortcut == plain


@settings(deadline=None, max_examples=400)
@given(text=texts)
def test_day_first_reuse_matches_a_day_first_parse(text: str) -> None:
    text = text.strip()
    reused = date_module._read_day_first_after_month_first(text)
    date_module._read_single_cached.cache_clear()
    direct = read_single(text, True)
    assert reused == direct


@settings(deadline=None, max_examples=300)
@given(
    pair=hs.one_of(value_pairs(), hs.tuples(non_strings, garbage), hs.tuples(hs.text(), hs.text())),
    range_mode=hs.sampled_from(["strict", "reject", "contains", "graded"]),
    precision_mode=hs.sampled_from(["exact", "gt_loose", "overlap"]),
    allow_partial_year=hs.booleans(),
    tolerance=hs.sampled_from([None, 0, 1, 0.5]),
)
def test_scores_are_in_range_and_never_raise(pair: tuple[Any, Any], **config: Any) -> None:
    score = build("date", config).similarity(*pair)
    assert 0.0 <= score <= 1.0


def test_pathological_inputs_score_zero() -> None:
    date = build("date")
    nested: Any = "2024"
    for _ in range(5000):
        nested = [nested]
    assert date.similarity(nested, nested) == 0.0
    assert date.similarity(10**5000, 10**5000) == 0.0
    assert date.similarity(list(range(10**5)), "2024") == 0.0
    assert date.similarity("2024-01-01 " * 10**5, "2024-01-01") == 0.0
    assert date.similarity(float("nan"), float("inf")) == 0.0
    assert date.similarity("9999-12-31T23:00:00-05:00", "0001-01-01T01:00:00+05:00") == 0.0
    bad_offset = "2024-01-01 10:00+99:00"  # beyond 24 h: cannot be converted to UTC
    assert date.similarity(bad_offset, bad_offset) == 0.0


def test_worked_examples_with_the_public_dateutil_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback for a dateutil without the underscored steps scores the same."""
    monkeypatch.setattr(date_module, "_read_with_dateutil", date_module._read_with_public_parse)
    date_module._read_single_cached.cache_clear()
    date_module._readings_of_text.cache_clear()
    try:
        for config, gt, pred, expected in CASES:
            assert build("date", config).similarity(gt, pred) == pytest.approx(expected, abs=1e-12)
    finally:
        date_module._read_single_cached.cache_clear()
        date_module._readings_of_text.cache_clear()


NUMBERS = (*range(40), 59, 60, 99)


def test_numeric_day_month_year_shortcut_reads_like_dateutil() -> None:
    """Day and month in either order and a four-digit year (15/01/2024, 1.5.2024, 01-15-2024) are read without
    dateutil, exactly as dateutil reads them: every first and second number from 0 to 39 and a few above (with
    and without a leading zero; dateutil's rules turn at 12 and 31), each separator, years at the ends of the
    form's range and between, both passes."""
    date_module._read_single_cached.cache_clear()
    checked = 0
    for year in ("1000", "1999", "2024", "9999"):
        for separator in "/-.":
            for first in NUMBERS:
                for second in NUMBERS:
                    spellings = {(str(first), str(second)), (f"{first:02d}", f"{second:02d}")}
                    for a, b in spellings:
                        text = f"{a}{separator}{b}{separator}{year}"
                        assert date_module._NUMERIC_DATE.fullmatch(text)
                        for dayfirst in (False, True):
                            try:
                                plain = date_module._read_with_public_parse(text, dayfirst)
                            except Exception:
                                plain = None
                            assert date_module._read_single_cached.__wrapped__(text, dayfirst) == plain, (
                                text,
                                dayfirst,
                            )
                            checked += 1
    two_digits = sum(n >= 10 for n in NUMBERS)
    assert checked == 4 * 3 * (2 * len(NUMBERS) ** 2 - two_digits**2) * 2
    date_module._read_single_cached.cache_clear()


def test_the_numeric_shortcut_leaves_other_forms_to_dateutil(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mixed separators, a two-digit or zero-led year, a year first or three-digit parts go to dateutil."""
    calls: list[str] = []
    real = date_module._read_with_dateutil
    monkeypatch.setattr(
        date_module, "_read_with_dateutil", lambda text, dayfirst: calls.append(text) or real(text, dayfirst)
    )
    date_module._read_single_cached.cache_clear()
    assert read_single("15/01/2024", True) == DateReading(dt.datetime(2024, 1, 15), True)
    assert read_single("03/04/2024", False) == DateReading(dt.datetime(2024, 3, 4), True)
    assert read_single("03/04/2024", True) == DateReading(dt.datetime(2024, 4, 3), True)
    assert read_single("13/13/2024", False) is None
    assert calls == []
    others = ["15/01-2024", "15/01/24", "15/01/0999", "2024/01/15", "015/01/2024", "15 / 01 / 2024"]
    for text in others:
        read_single(text, False)
    assert calls == others
    date_module._read_single_cached.cache_clear()
