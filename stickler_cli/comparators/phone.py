"""Phone numbers: 1.0 when both sides dial the same number, else 0.0.

Both values are parsed with libphonenumber (the ``phone`` extra installs
``phonenumberslite``); numbers without a ``+`` country code are read in
``region``. Two valid numbers match when their E.164 forms and their
extensions are equal, so ``"206-555-0100"``, ``"(206) 555-0100"`` and
``"+1 206 555 0100"`` all match. When neither side is a valid number the
values match only if their text is identical; when exactly one side is
valid they do not match.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from .base import Comparator, MissingExtraError, Param, value_text

EXTRA = "phone"


def _phonenumbers(comparator: str) -> ModuleType:
    try:
        import phonenumbers
    except ImportError:
        raise MissingExtraError(comparator, EXTRA, "phonenumbers") from None
    return phonenumbers


class PhoneComparator(Comparator):
    name = "PhoneComparator"
    aliases = ("phone", "Phone")
    default_threshold = 1.0
    summary = "1.0 when two phone numbers are the same number (libphonenumber, E.164 plus extension)"
    extra = EXTRA
    requires = ("phonenumbers",)
    params = (Param("region", str, "US", "ISO 3166-1 alpha-2 region for numbers written without +country code"),)

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._lib = _phonenumbers(self.name)
        if self.region not in self._lib.SUPPORTED_REGIONS:
            hint = " (the United Kingdom is 'GB')" if self.region.upper() == "UK" else ""
            raise ValueError(f"unknown region {self.region!r}{hint}; expected an ISO 3166-1 alpha-2 code such as 'US'")

    def canonical(self, value: Any) -> tuple[str, str | None] | None:
        """``(E.164, extension)`` of a valid number, or None when ``value`` is not one."""
        lib = self._lib
        text = value_text(value)
        if text is None:
            return None
        try:
            parsed = lib.parse(text, self.region)
            if not lib.is_valid_number(parsed):
                return None
            return lib.format_number(parsed, lib.PhoneNumberFormat.E164), (parsed.extension or None)
        except Exception:  # NumberParseException, or anything odd in exotic input
            return None

    def similarity(self, gt: Any, pred: Any) -> float:
        a, b = self.canonical(gt), self.canonical(pred)
        if a is None and b is None:
            # Neither is a usable number ("N/A", a 555 area code, a national
            # number from another region): identical text still matches.
            text = value_text(gt)
            return 1.0 if text is not None and text == value_text(pred) else 0.0
        return 1.0 if a == b else 0.0
