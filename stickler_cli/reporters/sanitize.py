"""Text from the data or the schema, made safe to show on a terminal.

A prediction (or a schema) is untrusted: printed as it is, it could carry
escape sequences that move the cursor, retitle the window or clear the
screen, Rich markup, line breaks that forge extra lines (U+2028 too), Unicode
marks that make text read in another order than it is stored, or invisible
characters that make two different values look the same. Each such character
is shown as U+FFFD.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..json_text import compact_json

if TYPE_CHECKING:  # Rich is imported where a table needs it: the plain text of the JSON and Markdown reports does not
    from rich.text import Text

# Characters of a name (field path, document, file, gate, slice value) shown whole in every report: names wrap;
# only beyond this are they cut.
NAME_LIMIT = 400

# Characters of a ground-truth or predicted value in the lists of failures and disagreements of every report
# (terminal, Markdown, HTML, stickler agree): enough to triage; past them the text says how many were left out.
# A number is never cut.
VALUE_LISTED = 300

# Every character of Unicode categories Cc, Cf, Zl and Zp (Unicode 15.1): C0 and C1 controls
# (ESC, CSI, BEL, CR, LF, TAB, NEL…), the line and paragraph separators U+2028/U+2029 (line breaks
# to many terminals and editors), and the format characters, which are invisible: the marks that
# reorder text (U+061C, U+200E/F, U+202A–E, U+2066–9), zero-width spaces and joiners
# (U+200B–D, U+2060, U+FEFF), the soft hyphen, invisible operators and the tag characters
# (U+E0000 block, which can carry hidden ASCII). A value that differs from another only by
# one of them shows where it differs.
INVISIBLE = (  # Cf, Zl and Zp, as a regular-expression character class body (the HTML report uses it too)
    "\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f" + INVISIBLE + "]")


def plain(value: Any, limit: int = 60) -> str:
    """``safe`` as a plain string (for the Markdown and JUnit reports, and the messages on stderr), without Rich:
    every control character Rich's ``Text`` would strip is already shown as U+FFFD."""
    return limited(value, _CONTROL.sub("�", data_text(value)), limit)


def safe(value: Any, limit: int = 60) -> Text:
    """Printable, markup-free, length-limited text of a data value. A number is never cut (a figure
    cut is a wrong figure); other text past ``limit`` characters is cut with the count left out."""
    from rich.text import Text

    return Text(plain(value, limit))


def folding(value: Any, limit: int) -> Text:
    """``safe`` for a table cell that folds onto lines: the JSON of an object or a list gets a space after each
    ``,`` and ``:`` outside its strings, where a line may break, so that a number inside it is never split
    (``"unit_price":1`` / ``118.59}`` read as 118.59)."""
    if not isinstance(value, (dict, list)):
        return safe(value, limit)
    from rich.text import Text

    text = data_text(value)
    shown = _breakable(text[:limit]) + (cut(text, limit)[limit:] if len(text) > limit else "")
    return Text(_CONTROL.sub("�", shown))


def _breakable(text: str) -> str:
    out: list[str] = []
    quoted = escaped = False
    for char in text:
        out.append(char)
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = quoted
        elif char == '"':
            quoted = not quoted
        elif char in ",:" and not quoted:
            out.append(" ")
    return "".join(out)


def data_text(value: Any) -> str:
    """A data value as text: a string as itself, anything else as compact JSON (integers beyond
    64 bits too, which orjson cannot write)."""
    if isinstance(value, str):
        return value
    text = compact_json(value)
    return f"<{type(value).__name__} too large to show>" if text is None else text


def limited(value: Any, text: str, limit: int | None) -> str:
    """``text`` (of ``value``) within ``limit`` characters, unless ``value`` is a number: never cut."""
    if limit is None or len(text) <= limit or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return text
    return cut(text, limit)


def cut(text: str, limit: int) -> str:
    """The first ``limit`` characters and how many more there were: "abc… (+4,997 characters)"."""
    return f"{text[:limit]}… (+{len(text) - limit:,} characters)"


def figure(value: float | None) -> str:
    """A figure to three decimals, ``–`` where there is none (nothing to measure)."""
    return "–" if value is None else f"{value:.3f}"


def figure_cell(value: float | None) -> Text:
    """``figure`` for a table cell: the ``–`` of no figure dimmed."""
    from rich.text import Text

    return Text("–", style="dim") if value is None else Text(f"{value:.3f}")


def markdown_cell(value: Any, limit: int = NAME_LIMIT) -> str:
    """Inert Markdown for one table cell or line: a code span, fenced by more backticks than it holds."""
    content = plain(value, limit).replace("|", "\\|")
    if not content:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", content)), default=0) + 1)
    pad = " " if content[0] in "` " or content[-1] in "` " else ""
    return f"{fence}{pad}{content}{pad}{fence}"
