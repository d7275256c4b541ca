"""What number a value spells: a JSON number itself, or a text that is one number written as people write
amounts. One reader for the Numeric comparator, Exact's numbers and the cosmetic number step, so that a
text is a number to all three or to none (docs/comparators/index.md, "Numbers in text").

A text is read after NFKC and case folding: currency symbols (Unicode Sc) and one currency code at either
end (``USD``, ``EUR``… a fixed list) dropped, ``−`` read as ``-``, ``(12.50)`` as ``-12.50``, a trailing
``%`` dropped (``5%`` is 5, as written); whitespace around those is dropped, and between digits it may only
group thousands (``1 000``). The rest must be one whole number: point decimals with optional comma groups
of three (``1,234.5``, ``.5``), or else comma decimals with optional point groups (``1.234,5``, ``1,5``). Anything
else spells none: ``page 1 of 2``, ``5 to 7``, ``1 0``, ``Box 12``, ``1e2`` (no exponent notation in a text;
a JSON number written ``1e2`` is the number 100).
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Context, Decimal, InvalidOperation
from typing import Any

from .ascii_text import WHITESPACE, deleting, without

# A text longer than this is not read as a number (no real amount is).
NUMBER_CHARS = 100

# Currency codes dropped beside a number (besides every currency symbol, Unicode Sc).
CURRENCY_CODES = frozenset(
    "usd eur gbp jpy chf cad aud nzd cny rmb inr sek nok dkk pln czk huf brl mxn zar "
    "krw sgd hkd try rub aed sar".split()
)
_CODE = re.compile(r"^([a-z]{3})?(.*?)([a-z]{3})?$", re.DOTALL)
# Point decimal, comma groups (1,234.50), tried first; then comma decimal, point groups (1.234,50).
_POINT = re.compile(r"[+-]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)", re.ASCII)  # "12." is 12
_COMMA = re.compile(r"[+-]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?", re.ASCII)
DIGIT = re.compile(r"\d")  # a text with no digit (of any script: NFKC may make one) spells no number or date
# What an ASCII text must look like (lower case, without spaces and "$") to read as a number: a currency code,
# "(", a sign, digits with points and commas, a percent sign, ")", a currency code, each but the digits optional.
_CODES = "|".join(sorted(CURRENCY_CODES))
_NUMBER_FORM = re.compile(rf"(?:{_CODES})?\(?[+-]?[\d.,]+%?\)?(?:{_CODES})?", re.ASCII)
# Digits with whitespace between them: allowed only as thousands groups ("1 000", "12 345 678").
_SPACED_DIGITS = re.compile(r"\d+(?:\s+\d+)+")
_SPACE_GROUPS = re.compile(r"\d{1,3}(?:\s+\d{3})+")
_ASCII_SPACE_AND_DOLLAR = deleting("$" + WHITESPACE)


def read_decimal(value: Any) -> Decimal | None:
    """The number ``value`` spells (module docstring), as a Decimal; None when it spells none. A JSON number
    (int or float, not bool) is its own value, NaN and infinities included; any other value than a text
    spells none."""
    kind = type(value)
    if kind is int or kind is float:
        try:
            return Decimal(str(value))
        except (InvalidOperation, ValueError):  # an integer beyond 4,300 digits
            return None
    if kind is not str or len(value) > NUMBER_CHARS or not DIGIT.search(value):
        return None
    if _SPACED_DIGITS.search(value) is not None:
        text = _spaced_groups(value)
        if text is None:
            return None
    else:
        text = value
    if text.isascii():  # the same steps, by a translation table ("$" is the one ASCII currency symbol)
        text = without(text.lower(), _ASCII_SPACE_AND_DOLLAR)
        if not _NUMBER_FORM.fullmatch(text):
            return None
    else:
        if any(ch.isdigit() and not ch.isdecimal() for ch in text):
            return None  # a superscript or circled digit (NFKC reads "5²" as "52"): no amount is written so
        text = unicodedata.normalize("NFKC", text).casefold().replace("\u2212", "-")
        text = "".join(ch for ch in text if not ch.isspace() and unicodedata.category(ch) != "Sc")
    found = _CODE.match(text)
    if found is not None and (found.group(1) or found.group(3)):
        if all(code is None or code in CURRENCY_CODES for code in (found.group(1), found.group(3))):
            text = found.group(2)
    negative = len(text) >= 3 and text[0] == "(" and text[-1] == ")"
    if negative:
        text = text[1:-1]
        if text[0] in "+-":
            return None  # "(-5)": a sign inside the accounting parentheses says neither
    if text.endswith("%"):
        text = text[:-1]
    if _POINT.fullmatch(text):
        plain = text.replace(",", "")
    elif _COMMA.fullmatch(text):
        plain = text.replace(".", "").replace(",", ".")
    else:
        return None
    number = Decimal(plain)
    return -number if negative else number


def _spaced_groups(text: str) -> str | None:
    """``text`` with the whitespace between its digits removed where it groups thousands; None when digits are
    apart in any other way ("1 0", "12 34", "5 7")."""
    out = []
    at = 0
    for run in _SPACED_DIGITS.finditer(text):  # each run whole: its digits start and end there
        if not _SPACE_GROUPS.fullmatch(run.group()):
            return None
        out.append(text[at : run.start()])
        out.append("".join(run.group().split()))
        at = run.end()
    out.append(text[at:])
    return "".join(out)


def read_number(value: Any) -> str | None:
    """The finite number a value spells (``read_decimal``) as canonical decimal text ("1,234.50", "$1234.5",
    "1.234,50 EUR" and 1234.5 all read "1234.5"); None when it spells none, or NaN or an infinity."""
    kind = type(value)
    if kind is int and -(10**15) < value < 10**15:  # the common cases, without Decimal: the same text
        return str(value)
    if kind is float and -1e15 < value < 1e15:
        if value.is_integer():
            return str(int(value))
        shortest = repr(value)
        if "e" not in shortest:
            return shortest  # the shortest repr has no trailing zeros: Decimal's normalised text
    number = read_decimal(value)
    return canonical(number) if number is not None and number.is_finite() else None


def canonical(number: Decimal) -> str:
    """A finite number as canonical decimal text: "1234.5", "-3", "0" (no exponent, no trailing zeros), every
    digit kept (normalize() alone would round to the context's 28 digits: two 30-digit integers one apart
    would read alike)."""
    if number.is_zero():
        return "0"
    return format(number.normalize(Context(prec=max(28, len(number.as_tuple().digits)))), "f")
