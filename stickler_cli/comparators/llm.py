"""Ask a chat model whether two values are equivalent (score 1.0 or 0.0).

Speaks the OpenAI-compatible chat-completions protocol with the standard
library only, so any such server works: OpenAI, vLLM, Ollama, LiteLLM, a
corporate gateway. Every answer is kept in an sqlite file so that a rerun of
the same evaluation makes no calls; calls for a batch of pairs run on a
bounded thread pool; transient HTTP failures are retried with backoff.

A failed call never stops the run: the pair scores 0.0 and the failure is
kept on the comparator until the engine collects it with ``drain_failures``.

Where values are sent, with which key, and where answers are stored is the
user's decision, never the schema's (docs/trust.md, "Trust"): the endpoint comes from
the command line or the user's environment (``Access``); a schema may name a
``base_url`` only for a host the user allowed with ``--allow-network``; the
key is read from a variable the user names (or, for the user's own endpoint,
``$STICKLER_LLM_API_KEY`` / ``$OPENAI_API_KEY``); the cache lives in the
stickler cache directory or at ``--llm-cache``. Compiling a schema needs none
of it: ``ready()`` resolves it before the first question.
"""

from __future__ import annotations

import email.utils
import hashlib
import html
import http.client
import ipaddress
import json
import os
import random
import re
import socket
import sqlite3
import stat
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from .. import limits
from ..errors import ComparatorSetupError, UsageError
from .base import BILL, Comparator, ComparatorConfigError, Param, identical_values

# Bump when the prompt wording changes: cached answers to the old prompt no
# longer apply.
PROMPT_VERSION = "1"

SYSTEM_PROMPT = "You decide whether two values are equivalent. Reply with exactly one word: true or false."

ENV_BASE_URL = ("STICKLER_LLM_BASE_URL", "OPENAI_BASE_URL")
ENV_MODEL = ("STICKLER_LLM_MODEL",)
# Read only for an endpoint the user gave (never for a schema's base_url).
ENV_API_KEY = ("STICKLER_LLM_API_KEY", "OPENAI_API_KEY")
ENV_CACHE_DIR = "STICKLER_CACHE_DIR"
CACHE_FILE = "llm.sqlite"  # in the stickler cache directory, unless --llm-cache names a file
# The table that marks an sqlite file as a stickler answer cache: any other sqlite file is never written.
CACHE_MARKER = "stickler_llm_cache"
CACHE_FORMAT = 1
# A cache written before the marker existed: exactly this table, exactly these columns.
LEGACY_COLUMNS = ["key", "score", "answer", "created"]

# A server asking us to wait longer than this is out of quota, not busy.
MAX_RETRY_AFTER = 30.0
MAX_BACKOFF = 30.0
# Bounds on what is kept, so a misbehaving server cannot exhaust memory. The size of one
# response is bounded by the user-raisable limit ``llm-response-bytes`` (limits.Limits).
MAX_KEPT_FAILURES = 1000
MAX_MEMO_ENTRIES = 200_000
# HTTP statuses that will fail the same way for every pair: stop calling.
FATAL_STATUSES = {401: "unauthorised", 403: "forbidden", 404: "not found"}
REDIRECTS = (301, 302, 303, 307, 308)  # never followed: the key and the values go where the user said only


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one question to the model came to: a score, or why there is none."""

    score: float
    error: str | None = None


class _RetryableError(Exception):
    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


class _FinalError(Exception):
    def __init__(self, message: str, fatal: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal


# ---------------------------------------------------------------------------
# Reading the model's answer

MAX_REPLY_CHARS = 100_000  # longer replies are not read (nor searched) at all
_NEGATIONS = {"not", "isn", "aren", "never"}


def _strip_thinking(text: str) -> str | None:
    """The reply without <think>…</think> blocks, in one pass; None when one is left open."""
    lowered = text.lower()
    if "<think>" not in lowered:
        return text
    out: list[str] = []
    position = 0
    while True:
        start = lowered.find("<think>", position)
        if start < 0:
            out.append(text[position:])
            return "".join(out)
        end = lowered.find("</think>", start)
        if end < 0:
            return None
        out.append(text[position:start])
        position = end + len("</think>")


_FENCE = "```"
_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _strip_fence(text: str) -> str:
    """``text`` without an opening fence (```` ``` ```` and a language tag, then whitespace) and a
    closing one (whitespace, then ```` ``` ```` at the very end), in linear time.

    It removes what ``re.sub(r"^```[a-zA-Z]*\\s*|\\s*```$", "", text)`` removes from a
    stripped reply; that regex retried its ``\\s*`` from every position of a long run of
    whitespace, so a 99 KB reply of spaces cost seconds (quadratic).
    """
    if text.startswith(_FENCE):
        text = text[len(_FENCE) :].lstrip(_ASCII_LETTERS).lstrip()  # str.isspace() is what \\s matches
    if text.endswith(_FENCE):
        text = text[: -len(_FENCE)].rstrip()
    return text


_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Words that settle the question when a reply opens with them.
_OPENING = {
    "true": 1.0,
    "yes": 1.0,
    "equivalent": 1.0,
    "equal": 1.0,
    "same": 1.0,
    "identical": 1.0,
    "match": 1.0,
    "false": 0.0,
    "no": 0.0,
    "not": 0.0,
    "different": 0.0,
    "mismatch": 0.0,
}
# Words that settle it anywhere; "equivalent" is not one ("... not equivalent").
_PLAIN = {"true": 1.0, "yes": 1.0, "false": 0.0, "no": 0.0}
_NEGATED = re.compile(r"\b(?:not|isn't|aren't)\s+(?:\w+\s+)?(?:equivalent|equal|the same|same|identical|a match)\b")
_AFFIRMED = re.compile(r"\b(?:equivalent|equal|the same|identical)\b")
_JSON_KEYS = ("equivalent", "equal", "match", "same", "result", "answer", "verdict", "score", "similarity")


def parse_answer(text: Any) -> float | None:
    """The similarity a model's reply states, or None when it states none.

    Accepts one word (true/false, yes/no), a JSON object such as
    ``{"equivalent": true}`` or ``{"score": 0.8}``, a bare score in [0, 1],
    and short sentences that open or end with a verdict ("Answer: true",
    "No, they differ"). Anything ambiguous is None: a guess would be a score
    nobody can audit.
    """
    if not isinstance(text, str) or len(text) > MAX_REPLY_CHARS:
        return None
    text = _strip_thinking(text)
    if text is None:
        return None
    text = _strip_fence(text.strip()).strip()
    if not text or len(text) > 4000:
        return None
    if text[0] in "{[":
        try:
            verdict = _json_verdict(json.loads(text))
        except (ValueError, RecursionError):  # "[[[[…": nested too deep to be a verdict
            verdict = None
        if verdict is not None:
            return verdict
    lowered = text.lower()
    words = _WORD.findall(lowered)
    if not words:
        return None
    first = _OPENING.get(words[0])
    last = words[-1]
    final = _PLAIN.get(last)
    if final is not None and len(words) >= 2 and words[-2] in _NEGATIONS:
        final = 1.0 - final  # "that is not true"
    if first is not None and final is not None and len(words) > 1:
        return first if first == final else None  # "Yes and no", "Equivalent? No."
    if first is not None:
        return first
    if final is not None:
        return final
    if _NUMBER.fullmatch(last):
        number = float(last)
        return number if 0.0 <= number <= 1.0 else None
    said = {_PLAIN[w] for w in words if w in _PLAIN}
    if len(said) == 1:
        return said.pop()
    if _NEGATED.search(lowered):
        return 0.0
    if _AFFIRMED.search(lowered) and "not" not in words:
        return 1.0
    return None


def _json_verdict(value: Any, depth: int = 0) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value) if 0.0 <= value <= 1.0 else None
    if isinstance(value, str):
        return parse_answer(value) if depth < 2 else None
    if isinstance(value, dict) and depth < 2:
        lowered = {str(k).lower(): v for k, v in value.items()}
        for key in _JSON_KEYS:
            if key in lowered:
                return _json_verdict(lowered[key], depth + 1)
        if len(value) == 1:
            return _json_verdict(next(iter(value.values())), depth + 1)
    if isinstance(value, list) and len(value) == 1 and depth < 2:
        return _json_verdict(value[0], depth + 1)
    return None


# ---------------------------------------------------------------------------
# The on-disk answer cache


def cache_dir() -> Path:
    """The stickler cache directory: ``$STICKLER_CACHE_DIR``, else ``$XDG_CACHE_HOME/stickler``,
    else ``~/.cache/stickler``."""
    given = os.environ.get(ENV_CACHE_DIR, "").strip()
    if given:
        return Path(given).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg and Path(xdg).is_absolute():  # the XDG spec ignores a relative value
        return Path(xdg) / "stickler"
    return Path.home() / ".cache" / "stickler"


def foreign_file(path: Path) -> str | None:
    """Why ``path`` is not a file the answer cache may open, or None (absent, empty, or ours).

    Ours: an sqlite file holding the marker table, or a cache written by stickler before
    the marker (exactly one table ``answers`` with exactly our columns). Read without
    writing anything: another program's file is never opened for writing. A path that
    cannot be read at all is not judged here: opening it fails and disables the cache.
    """
    try:
        info = path.stat()
    except OSError:  # absent, or unreachable: opening it fails too, which disables the cache
        return None
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_size == 0:
        return None
    try:
        with open(path, "rb") as handle:
            magic = handle.read(16)
    except OSError:
        return None
    if magic != b"SQLite format 3\x00":
        return "is not an sqlite file"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30.0)
        try:
            tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            columns = [row[1] for row in conn.execute("PRAGMA table_info(answers)")] if tables == ["answers"] else []
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"cannot be read as sqlite: {exc}"
    if CACHE_MARKER in tables or (tables == ["answers"] and columns == LEGACY_COLUMNS):
        return None
    shown = ", ".join(tables[:5]) + (", …" if len(tables) > 5 else "")
    return f"is an sqlite file that stickler did not write (tables: {shown or 'none'})"


class AnswerCache:
    """Answers by request fingerprint in an sqlite file, shared across runs and processes.

    Opened lazily (validating a schema creates no file) and reopened after a
    fork. Any sqlite error disables the cache for the rest of the run and is
    kept in ``error``: a broken cache costs calls, never the run. A file that
    is not a stickler cache (``foreign_file``) is never written.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.error: str | None = None
        self._conn: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "error": self.error}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(str(state["path"]))
        self.error = state["error"]

    def _connection(self) -> sqlite3.Connection | None:
        if self.error is not None:
            return None
        if self._conn is None or self._pid != os.getpid():
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            problem = foreign_file(self.path)
            if problem is not None:
                raise OSError(f"{self.path} {problem}; not used")
            try:  # created private: the cache holds values from the data
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                pass
            conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
            except sqlite3.Error:
                pass  # e.g. a network file system: the default journal still works
            conn.execute(f"CREATE TABLE IF NOT EXISTS {CACHE_MARKER} (format INTEGER NOT NULL)")
            conn.execute(
                f"INSERT INTO {CACHE_MARKER} SELECT ? WHERE NOT EXISTS (SELECT 1 FROM {CACHE_MARKER})", (CACHE_FORMAT,)
            )
            conn.execute(
                "CREATE TABLE IF NOT EXISTS answers ("
                " key TEXT PRIMARY KEY, score REAL NOT NULL, answer TEXT NOT NULL, created REAL NOT NULL)"
            )
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get_many(self, keys: Sequence[str]) -> dict[str, float]:
        found: dict[str, float] = {}
        with self._lock:
            try:
                conn = self._connection()
                if conn is None:
                    return found
                found = _verdicts(conn, keys)
            except (sqlite3.Error, OSError) as exc:
                self._disable(exc)
        return found

    def read_only(self, keys: Sequence[str]) -> dict[str, float]:
        """``get_many`` without writing anything (``--dry-run``): no file, table or side file is created; a
        file that is absent, not a stickler cache or unreadable answers nothing. Read as it stands on disk
        (``immutable``) unless a writer's log is beside it (then its side files exist already)."""
        if not self.path.is_file() or foreign_file(self.path) is not None:
            return {}
        mode = "mode=ro" if Path(f"{self.path}-wal").exists() else "immutable=1"
        try:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?{mode}", uri=True, timeout=30.0)
            try:
                return _verdicts(conn, keys)
            finally:
                conn.close()
        except sqlite3.Error:
            return {}

    def put(self, key: str, score: float, answer: str) -> None:
        with self._lock:
            try:
                conn = self._connection()
                if conn is not None:
                    conn.execute(
                        "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)",
                        (key, score, answer[:2000], time.time()),
                    )
            except (sqlite3.Error, OSError) as exc:
                self._disable(exc)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def _disable(self, exc: Exception) -> None:
        self.error = f"answer cache {str(self.path)!r} disabled: {exc}"
        self._conn = None


def _verdicts(conn: sqlite3.Connection, keys: Sequence[str]) -> dict[str, float]:
    """The cached verdicts of ``keys`` (those the cache holds)."""
    found: dict[str, float] = {}
    for start in range(0, len(keys), 500):
        chunk = list(keys[start : start + 500])
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(f"SELECT key, score, answer FROM answers WHERE key IN ({marks})", chunk)
        for key, score, answer in rows:
            # Read the stored reply again: a better parser corrects old verdicts.
            verdict = parse_answer(answer) if answer is not None else score
            if verdict is not None:
                found[key] = verdict
    return found


@dataclass
class Bill:
    """What asking a judged field's distinct pairs would cost (``LLMComparator.bill``, ``--dry-run``)."""

    requests: int = 0  # distinct questions neither cached nor refused: each one request
    cached: int = 0  # distinct questions the answer cache answers
    not_sent: int = 0  # pairs never sent (a value too long, or one that cannot be shown)
    characters: int = 0  # characters of the messages the requests would send (system and user)


# ---------------------------------------------------------------------------
# The comparator


@dataclass(frozen=True)
class Access:
    """What the user decided about LLM calls (command line, environment, Python API); never a schema.

    Set once per process with ``configure`` and carried to worker processes in the run's
    options (``run.options.RunOptions.llm``). Holds no secret: the key is read from the
    environment of the process that sends it.
    """

    base_url: str | None = None  # --llm-base-url; else $STICKLER_LLM_BASE_URL, $OPENAI_BASE_URL
    api_key_env: str | None = None  # --llm-api-key-env: the variable whose value is sent as the key
    allow_network: tuple[str, ...] = ()  # --allow-network HOST: hosts a schema's base_url may name
    cache: str | None = None  # --llm-cache PATH: the answer cache file
    # False where nothing may be sent (``stickler merge`` re-explaining its worst documents):
    # answers come from an existing cache only, and a question not found there is not asked.
    calls: bool = True


_access = Access()

_ASKED, _CACHED, _IDENTICAL, _DEDUPLICATED, _FAILED = (BILL.index(name) for name in BILL)

# Requests sent to a judge by this process in this run (every LLMComparator field together), held to
# ``--limit judge-calls``; ``configure`` (once per run) starts it afresh.
_sent = [0]
_sent_lock = threading.Lock()


class JudgeLimitError(ComparatorSetupError):
    """The run would send more requests to the judge than ``--limit judge-calls`` allows: it stops first."""


def requests_sent() -> int:
    """Requests sent to a judge by this process since the run began (``configure``)."""
    return _sent[0]


def _judge_limit_message(sent: int, more: int, limit: int) -> str:
    return (
        f"stopped before asking the judge: the run would send at least {sent + more} requests "
        f"({sent} sent, {more} more for the next batch of distinct, non-identical pairs not in the answer cache), "
        f"over --limit judge-calls={limit}; raise it, or check the bill with --dry-run"
    )


def _room_for(more: int) -> None:
    """JudgeLimitError unless ``more`` requests fit under ``--limit judge-calls``."""
    limit = limits.current().judge_calls
    if limit is not None and _sent[0] + more > limit:
        raise JudgeLimitError(_judge_limit_message(_sent[0], more, limit))


def _count_request() -> None:
    """Count one request about to be sent; JudgeLimitError, and nothing sent, when it would be one too many."""
    limit = limits.current().judge_calls
    with _sent_lock:
        if limit is not None and _sent[0] + 1 > limit:
            raise JudgeLimitError(_judge_limit_message(_sent[0], 1, limit))
        _sent[0] += 1


NOT_ASKED = "not asked: no LLM calls are made here (stickler merge), and the answer cache has no answer"


def configure(access: Access | None = None, **fields: Any) -> Access:
    """Check and adopt the user's LLM settings for this process (``Access`` fields as keywords).

    A malformed value is a UsageError naming the option. Returns what is in force.
    """
    global _access
    access = access if access is not None else Access(**fields)
    if access.base_url is not None:
        _endpoint_of(access.base_url, "--llm-base-url")
    if access.api_key_env is not None and not access.api_key_env.strip():
        raise UsageError("--llm-api-key-env needs the name of an environment variable")
    for entry in access.allow_network:
        _host_entry(entry)
    if access.cache is not None and not str(access.cache).strip():
        raise UsageError("--llm-cache needs a file path")
    _access = Access(access.base_url, access.api_key_env, tuple(access.allow_network), access.cache, access.calls)
    with _sent_lock:
        _sent[0] = 0  # a new run: --limit judge-calls counts its requests from here
    return _access


def current_access() -> Access:
    """The user's LLM settings in force in this process."""
    return _access


class AccessError(ComparatorSetupError):
    """The comparator lacks what only the user can give (an endpoint, a model, a key, a usable
    cache file), or the schema asks for a host the user did not allow. ``key`` is the
    comparator-config option at fault ("" for the comparator; None when no schema
    value is involved)."""

    def __init__(self, message: str, key: str | None = "") -> None:
        super().__init__(message)
        self.key = key

    def __reduce__(self):  # rebuilt from its parts when it crosses a process boundary
        return (AccessError, (str(self), self.key))


# Host names as a URL gives them (lower case); labels of letters, digits, '-' and '_'.
_HOST_NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?)*\.?")


def _valid_host(host: str) -> bool:
    """A host name or an IP address: nothing a message or a shell could misread."""
    if _HOST_NAME.fullmatch(host):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _endpoint_of(url: str, what: str) -> str:
    """The chat-completions URL for base URL ``url``; UsageError (for ``what``) when it is not one."""
    error = UsageError if what.startswith("--") else ValueError
    base = url.strip()
    try:
        parts = urllib.parse.urlsplit(base)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise error(f"{what} is not a URL ({exc}): {shown_url(base)!r}") from None
    if parts.scheme not in ("http", "https"):
        raise error(f"{what} must start with http:// or https://, got {shown_url(base)!r}")
    if parts.username is not None or parts.password is not None:
        raise error(f"{what} must not carry a user name or password; the key comes from --llm-api-key-env")
    if not parts.hostname or not _valid_host(parts.hostname):
        raise error(f"{what} names no valid host: {shown_url(base)!r}")
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    # Built from its parts: the path goes before a query (which may carry a token), never after it; a
    # fragment is never sent.
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def shown_url(url: str) -> str:
    """``url`` as messages show it: without its query or fragment, which may carry a token."""
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=-1)
    return url if cut < 0 else url[:cut] + "?…"


# What an error text may hold of the credentials it was sent with (a server echoing the request's
# headers, a proxy's error page): each redacted before the text is kept or shown.
_SECRET_PATTERNS = (
    re.compile(r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)(?:[a-z]+[ \t]+)?[^\s\"',;}]+"),  # scheme, credentials
    re.compile(r"(?i)(\bbearer\s+)[^\s\"',;}]+"),
    re.compile(r"(?i)(\b(?:x-)?api[-_ ]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&}]+"),
    re.compile(r"(?i)([?&](?:access[-_]?)?(?:token|key|secret|password|sig|signature|code)=)[^\s\"'&#]+"),
    re.compile(r"()\bsk-[A-Za-z0-9_-]{8,}"),
)
REDACTED = "[redacted]"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` without key material: each of ``secrets`` (the key sent, the endpoint's query values)
    wherever it appears, and whatever follows ``Authorization:``, ``Bearer``, ``api-key=``, a URL's
    ``token=`` (and the like), or looks like an ``sk-…`` key."""
    for secret in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def _host_entry(entry: str) -> tuple[str, int | None]:
    """(host, port or None) of an ``--allow-network`` value: a host name or address, optionally :port."""
    text = entry.strip()
    try:
        parts = urllib.parse.urlsplit("//" + text)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
        or not _valid_host(parts.hostname)
    ):
        raise UsageError(f"--allow-network takes a host name (optionally with :port), got {entry!r}")
    return parts.hostname, port


def _allowed(url: str, entries: Sequence[str]) -> bool:
    """Whether the user allowed the host (and port) of ``url`` with ``--allow-network``."""
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    for entry in entries:
        host, allowed_port = _host_entry(entry)
        if host == parts.hostname and allowed_port in (None, port):
            return True
    return False


def _first_env(names: Iterable[str]) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def _is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _excerpt(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _retry_after(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (number or HTTP date), else None."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


# ---------------------------------------------------------------------------
# One request within one deadline


class _Deadline:
    """Shuts a request's socket down when its time is up.

    Socket timeouts bound each read only: a server sending one byte a second
    would hold a request forever. The deadline covers connecting, the TLS
    handshake, the headers and the body.
    """

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if not self.expired:
                return
        self._shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        try:  # the plain socket's shutdown, under any TLS layer: a blocked read returns at once
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass

    def cancel(self) -> bool:
        """Stop the clock; whether the time had run out."""
        self._timer.cancel()
        with self._lock:
            return self.expired


class _DeadlineConnection(http.client.HTTPConnection):
    deadline: _Deadline

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        create = self._create_connection

        def create_and_watch(*a: Any, **k: Any) -> socket.socket:
            sock = create(*a, **k)
            self.deadline.watch(sock)
            return sock

        self._create_connection = create_and_watch


class _DeadlineHTTPSConnection(http.client.HTTPSConnection, _DeadlineConnection):
    pass


def _connection_factory(cls: type[http.client.HTTPConnection], request: urllib.request.Request):
    def make(host: str, **kwargs: Any) -> http.client.HTTPConnection:
        connection = cls(host, **kwargs)
        connection.deadline = request.deadline  # type: ignore[attr-defined]
        return connection

    return make


class _DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection_factory(_DeadlineConnection, req), req)


class _DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection_factory(_DeadlineHTTPSConnection, req), req, context=self._context)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an error: the key and the values go to the endpoint the user chose, nowhere else."""

    def redirect_request(self, *args: Any) -> None:
        return None


def _opener(endpoint: str) -> urllib.request.OpenerDirector:
    handlers: list[Any] = [_DeadlineHTTPHandler(), _DeadlineHTTPSHandler(), _NoRedirects()]
    if _is_loopback(endpoint):  # local servers are reached directly even when a proxy is configured
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


# ---------------------------------------------------------------------------
# The comparator


class _CacheSwitch(Param):
    """``cache``: a schema may switch the answer cache on or off, never say where it is."""

    def check(self, value: Any) -> str | None:
        if value is None or isinstance(value, bool) or value == "":
            return None
        return (
            "must be true or false: a schema cannot choose where files are written; the cache is "
            "in the stickler cache directory ($STICKLER_CACHE_DIR) or at --llm-cache PATH"
            if isinstance(value, str)
            else f"must be true or false, got {value!r}"
        )


class LLMComparator(Comparator):
    name = "LLMComparator"
    aliases = ("llm", "LLM")
    default_threshold = 0.7
    summary = "asks an OpenAI-compatible chat model whether the values are equivalent"
    prefetches = True
    reports_failures = True
    costly = True
    bills = True
    params = (
        Param(
            "base_url",
            str,
            None,
            "chat-completions endpoint the schema asks for; used only for a host "
            "the user allows with --allow-network (else --llm-base-url, $STICKLER_LLM_BASE_URL)",
            nullable=True,
        ),
        Param("model", str, None, "model name (else $STICKLER_LLM_MODEL)", nullable=True),
        Param("guidelines", str, None, "domain rules added to the prompt", nullable=True),
        Param("eval_guidelines", str, None, "stickler-eval's name for 'guidelines'", nullable=True),
        Param("timeout", float, 30.0, "seconds one request may take, all of it", minimum=0.001),
        Param("max_retries", int, 3, "retries after 429, 5xx, timeouts and connection errors", minimum=0),
        Param("backoff", float, 1.0, "first retry delay in seconds, doubled per retry", minimum=0.0),
        Param("concurrency", int, 4, "requests in flight at once", minimum=1),
        _CacheSwitch("cache", bool, True, "keep answers in the answer cache (true) or not (false)", nullable=True),
        Param("temperature", float, 0.0, "sampling temperature", minimum=0.0),
        Param("max_chars", int, 10_000, "longer values are not sent and score 0.0", minimum=1),
    )
    # Options a schema may not set, and why (registry.build refuses them at their pointer).
    refused_options = {
        "api_key_env": "a schema cannot choose which secret is sent: name the variable on the command line "
        "with --llm-api-key-env NAME",
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        if self.eval_guidelines is not None:
            if self.guidelines is not None:
                raise ValueError("give either 'guidelines' or 'eval_guidelines', not both")
            self.guidelines = self.eval_guidelines
        _within_bounds(
            self.name,
            {
                "timeout": (self.timeout, "llm_seconds"),
                "max_retries": (self.max_retries, "llm_retries"),
                "concurrency": (self.concurrency, "llm_concurrency"),
            },
        )
        # Only checked here: compiling a schema (schema check, merge) needs no endpoint.
        try:
            self._schema_endpoint = _endpoint_of(self.base_url, "base_url") if self.base_url else None
        except ValueError as exc:
            raise ComparatorConfigError(f"{self.name} option 'base_url': {exc}", "base_url") from None
        self.endpoint = ""
        self.model_name = (self.model or "").strip()
        self._api_key: str | None = None
        self._cache: AnswerCache | None = None
        self.failures: list[str] = []
        self.dropped_failures = 0
        self._setup_runtime()

    # -- what the user decides ------------------------------------------------------

    def ready(self) -> None:
        """Resolve the endpoint, model, key and cache file from the user's settings, once.

        Raises AccessError when one is missing, or when the schema's ``base_url`` names a
        host the user did not allow. Called before the first question (the CLI calls it
        before reading any data).
        """
        with self._lock:
            if self._access_error is not None:
                raise self._access_error
            if self._resolved:
                return
            try:
                self._resolve(current_access())
            except AccessError as exc:
                self._access_error = exc
                raise
            self._resolved = True

    def _resolve(self, access: Access) -> None:
        if not access.calls:
            self._resolve_cache_only(access)
            return
        endpoint, model, key, path = self.settings(access)
        self.endpoint, self.model_name, self._api_key = endpoint, model, key
        self._cache = AnswerCache(path) if path is not None else None
        self._opener = _opener(endpoint)

    def settings(self, access: Access) -> tuple[str, str, str | None, Path | None]:
        """(endpoint, model, key, answer cache file or None) a run would use under ``access``; nothing is
        opened or installed (``--dry-run`` stops here). Raises AccessError as ``ready`` does."""
        if access.base_url:
            endpoint, users = _endpoint_of(access.base_url, "--llm-base-url"), True
        elif self._schema_endpoint is not None:
            host = urllib.parse.urlsplit(self._schema_endpoint).hostname
            if not _allowed(self._schema_endpoint, access.allow_network):
                raise AccessError(
                    f"the schema sends values to {host}: allow that host with --allow-network {host}, "
                    "or give your own endpoint with --llm-base-url URL",
                    "base_url",
                )
            endpoint, users = self._schema_endpoint, False
        else:
            base = _first_env(ENV_BASE_URL)
            if base is None:
                raise AccessError(
                    "LLMComparator has no endpoint: give --llm-base-url URL or set $STICKLER_LLM_BASE_URL"
                )
            try:
                endpoint, users = _endpoint_of(base, "$STICKLER_LLM_BASE_URL / $OPENAI_BASE_URL"), True
            except ValueError as exc:
                raise AccessError(str(exc), None) from None
        model = self.model_name or _first_env(ENV_MODEL)
        if not model:
            raise AccessError(
                "LLMComparator has no model: set 'model' in x-aws-stickler-comparator-config or $STICKLER_LLM_MODEL"
            )
        if access.api_key_env:
            key = os.environ.get(access.api_key_env, "").strip()
            if not key:
                raise AccessError(f"--llm-api-key-env names ${access.api_key_env}, which is not set", None)
        else:  # the usual variables go to the user's own endpoint only, never to a schema's
            key = _first_env(ENV_API_KEY) if users else None
        path = None
        if self.cache not in (None, False, ""):
            path = Path(access.cache).expanduser() if access.cache else cache_dir() / CACHE_FILE
            problem = foreign_file(path)
            if problem is not None:
                raise AccessError(
                    f"LLM answer cache {path} {problem}: stickler writes only its own cache "
                    "files; give --llm-cache a new file",
                    None,
                )
        return endpoint, model, key, path

    def _resolve_cache_only(self, access: Access) -> None:
        """Where no call may be made: every endpoint the run may have used (the user's, the
        environment's, the schema's: nothing is sent to any) serves only to find cached answers;
        no cache file is created."""
        self._candidates = []
        for url, what in (
            (access.base_url, "--llm-base-url"),
            (_first_env(ENV_BASE_URL), "$STICKLER_LLM_BASE_URL"),
            (self._schema_endpoint, "base_url"),
        ):
            try:
                endpoint = _endpoint_of(url, what) if url else None
            except (ValueError, UsageError):
                endpoint = None
            if endpoint is not None and endpoint not in self._candidates:
                self._candidates.append(endpoint)
        path = Path(access.cache).expanduser() if access.cache else cache_dir() / CACHE_FILE
        usable = self.cache not in (None, False, "") and path.is_file() and foreign_file(path) is None
        self.endpoint = self._candidates[0] if self._candidates else ""
        self.model_name = self.model_name or _first_env(ENV_MODEL) or ""
        self._api_key, self._cache, self._calls = None, AnswerCache(path) if usable else None, False

    def _cached_only(self, gt: Any, pred: Any) -> Outcome:
        """The cached answer for a pair under any candidate endpoint, or NOT_ASKED."""
        question = self._question(gt, pred)
        if isinstance(question, Outcome):
            return question
        if self._cache is not None:
            texts = self.value_text(gt), self.value_text(pred)
            keys = [self._fingerprint(*texts, endpoint=endpoint) for endpoint in self._candidates]
            found = self._cache.get_many(keys)
            for key in keys:
                if key in found:
                    return Outcome(found[key])
        return Outcome(0.0, NOT_ASKED)

    def _setup_runtime(self) -> None:
        """State that belongs to one process: locks, pool, opener, in-run memo, resolved access."""
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0
        self._memo: dict[str, Outcome] = {}
        self._fatal: str | None = None
        self._cache_error_reported = False
        self._resolved = False
        self._calls = True
        self._candidates: list[str] = []
        self._access_error: AccessError | None = None
        self._opener: urllib.request.OpenerDirector | None = None
        self.requests_made = 0
        self._bill = [0] * len(BILL)
        self._billed_elsewhere = False

    def answers(self) -> dict[str, Outcome]:
        """What this run's questions came to so far (question key -> Outcome, failures included): the
        answers a multi-process run's parent gives its workers (run/judge_first.py)."""
        with self._lock:
            return dict(self._memo)

    def adopt(self, answers: dict[str, Outcome] | None) -> None:
        """Take the answers the run's parent process got (``answers``; None: none, this process asks
        and bills as usual). The parent put every question of the run and billed every pair: a worker
        answers from these, and bills only a question the parent did not put, if it must ask one."""
        with self._lock:
            self._billed_elsewhere = answers is not None
            if answers:
                self._memo.update(answers)

    def drain_bill(self) -> list[int] | None:
        """The bill (``base.BILL``) since the last drain, or None when nothing was counted; clears it."""
        with self._lock:
            bill, self._bill = self._bill, [0] * len(BILL)
        return bill if any(bill) else None

    def _charge(self, at: int, count: int = 1) -> None:
        with self._lock:
            self._bill[at] += count

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in (
            "_lock",
            "_slots",
            "_pool",
            "_pool_pid",
            "_memo",
            "_fatal",
            "_cache_error_reported",
            "_opener",
            "requests_made",
            "_bill",
            "_billed_elsewhere",
            "_resolved",
            "_calls",
            "_candidates",
            "_access_error",
            "_api_key",
            "_cache",
        ):
            state.pop(name, None)  # the key is never pickled: it is read again where it is sent
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._api_key, self._cache = None, None
        self._setup_runtime()

    def __repr__(self) -> str:
        endpoint = shown_url(self.endpoint or self._schema_endpoint or "")
        return f"LLMComparator(endpoint={endpoint!r}, model={self.model_name!r})"

    # -- the prompt -----------------------------------------------------------

    @staticmethod
    def value_text(value: Any) -> str:
        """How a value is shown to the model: JSON for containers, str() otherwise."""
        if isinstance(value, (dict, list, tuple)):
            return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        return str(value)

    def render_prompt(self, gt_text: str, pred_text: str) -> str:
        """The user message; values and guidelines are escaped so they cannot close our tags."""
        lines = [
            "Are these two values equivalent?",
            "",
            f"Value 1: {html.escape(gt_text, quote=False)}",
            f"Value 2: {html.escape(pred_text, quote=False)}",
            "",
        ]
        if self.guidelines is not None:
            lines += [
                "<guidelines>",
                "Apply these guidelines when comparing:",
                html.escape(self.guidelines, quote=False),
                "</guidelines>",
                "",
            ]
        lines.append("Answer 'true' if they are equivalent and 'false' if they are not. Reply with that one word.")
        return "\n".join(lines)

    def _fingerprint(self, gt_text: str, pred_text: str, endpoint: str | None = None) -> str:
        parts = [
            PROMPT_VERSION,
            self.endpoint if endpoint is None else endpoint,
            self.model_name,
            self.temperature,
            self.guidelines,
            gt_text,
            pred_text,
        ]
        return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()

    def _question(self, gt: Any, pred: Any) -> tuple[str, str] | Outcome:
        """(cache key, prompt) for a pair, or the Outcome when no call is needed."""
        if gt is None or pred is None:
            return Outcome(1.0 if gt is None and pred is None else 0.0)
        if identical_values(gt, pred):  # the same JSON value: equivalent, nothing to ask
            return Outcome(1.0)
        try:
            gt_text, pred_text = self.value_text(gt), self.value_text(pred)
        except (TypeError, ValueError, RecursionError) as exc:
            return Outcome(0.0, f"value cannot be shown to the model: {exc}")
        longest = max(len(gt_text), len(pred_text))
        if longest > self.max_chars:
            return Outcome(0.0, f"value of {longest} characters exceeds max_chars={self.max_chars}; not sent")
        return self._fingerprint(gt_text, pred_text), self.render_prompt(gt_text, pred_text)

    def question_key(self, gt: Any, pred: Any) -> str | None:
        """The key of the question a pair puts to the model (two pairs with one key are one request in a run,
        and one answer in the cache), or None when the pair needs no question: a null, identical values
        (``base.identical_values``), a value that cannot be sent. Call ``ready()`` first (the key holds the
        endpoint and model)."""
        question = self._question(gt, pred)
        return None if isinstance(question, Outcome) else question[0]

    def bill(self, pairs: Iterable[tuple[Any, Any]]) -> Bill:
        """What asking ``pairs`` (distinct, none identical) would cost a run under the access in force:
        questions told apart as the cache keys them, the cache read without writing, nothing sent."""
        endpoint, model, _, path = self.settings(current_access())
        self.endpoint, self.model_name = endpoint, model  # what the cache key holds
        bill, sizes = Bill(), {}
        for gt, pred in pairs:
            question = self._question(gt, pred)
            if isinstance(question, Outcome):
                bill.not_sent += 1
            else:
                sizes[question[0]] = len(SYSTEM_PROMPT) + len(question[1])
        found = AnswerCache(path).read_only(list(sizes)) if path is not None and sizes else {}
        bill.cached = len(found)
        bill.requests = len(sizes) - bill.cached
        bill.characters = sum(size for key, size in sizes.items() if key not in found)
        return bill

    # -- scoring ----------------------------------------------------------------

    def similarity(self, gt: Any, pred: Any) -> float:
        try:
            outcome = self._answer(gt, pred)
        except ComparatorSetupError:  # no endpoint the user allowed: stop the run, do not score 0.0
            raise
        except Exception as exc:  # noqa: BLE001 - a comparator must never raise
            outcome = Outcome(0.0, f"internal error: {type(exc).__name__}: {exc}")
        if outcome.error is not None:
            self._record_failure(gt, pred, outcome.error)
        return outcome.score

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        self._prefetch_quietly([(g, p) for g in gts for p in preds], walk=False)
        return [[self.similarity(g, p) for p in preds] for g in gts]

    def prefetch(self, pairs: Iterable[tuple[Any, Any]]) -> int:
        """Answer every (gt, pred) pair ahead of scoring, ``concurrency`` calls at a time.

        Later ``similarity`` calls for these pairs are served from memory. The engine's prefetch walk
        (every pair a batch of documents will score) calls it once per batch, and it keeps the bill of
        those pairs: identical, deduplicated (asked or answered before in this run, or earlier in the
        same walk), answered from the cache, asked, failed. Returns the number of pairs that needed
        the model. Raises only AccessError and JudgeLimitError.
        """
        return self._prefetch_quietly(pairs, walk=True)

    def _prefetch_quietly(self, pairs: Iterable[tuple[Any, Any]], walk: bool) -> int:
        try:
            return self._prefetch(pairs, walk)
        except ComparatorSetupError:
            raise
        except Exception:  # noqa: BLE001 - similarity() will retry and record the problem
            return 0

    def _prefetch(self, pairs: Iterable[tuple[Any, Any]], walk: bool = True) -> int:
        """As ``prefetch``; ``walk`` False (a matrix asked for outside the engine's walk): the pairs are
        answered, but only the requests, cache answers and failures are billed, never the pairs skipped."""
        self.ready()
        if not self._calls:
            return 0
        todo: dict[str, str] = {}
        identical = deduplicated = failed = 0
        with self._lock:
            for gt, pred in pairs:
                question = self._question(gt, pred)
                if isinstance(question, Outcome):
                    if question.error is not None:
                        failed += 1
                    elif gt is not None and pred is not None:
                        identical += 1
                elif question[0] in self._memo or question[0] in todo:
                    deduplicated += 1
                else:
                    todo[question[0]] = question[1]
            if walk and not self._billed_elsewhere:
                self._bill[_IDENTICAL] += identical
                self._bill[_DEDUPLICATED] += deduplicated
                self._bill[_FAILED] += failed
        if not todo:
            return 0
        if self._cache is not None:
            found = self._cache.get_many(list(todo))
            for key, score in found.items():
                self._remember(key, Outcome(score))
                del todo[key]
            self._charge(_CACHED, len(found))
        if not todo:
            return 0
        _room_for(len(todo))
        if len(todo) == 1 or self.concurrency == 1:
            for key, prompt in todo.items():
                self._ask_and_store(key, prompt)
        else:
            pool = self._executor()
            for future in [pool.submit(self._ask_and_store, key, prompt) for key, prompt in todo.items()]:
                future.result()
        return len(todo)

    def _answer(self, gt: Any, pred: Any) -> Outcome:
        self.ready()
        if not self._calls:
            return self._cached_only(gt, pred)
        question = self._question(gt, pred)
        if isinstance(question, Outcome):
            return question
        key, prompt = question
        with self._lock:
            known = self._memo.get(key)
        if known is not None:
            return known
        if self._cache is not None:
            cached = self._cache.get_many([key])
            if key in cached:
                outcome = Outcome(cached[key])
                self._remember(key, outcome)
                self._charge(_CACHED)
                return outcome
        return self._ask_and_store(key, prompt)

    def _ask_and_store(self, key: str, prompt: str) -> Outcome:
        outcome, answer = self._ask(prompt)
        if outcome.error is not None:
            self._charge(_FAILED)
        if outcome.error is None and self._cache is not None:
            self._cache.put(key, outcome.score, answer)
        # Failures are remembered for this run too, so a dead endpoint is not
        # retried pair after pair; they are never written to disk.
        self._remember(key, outcome)
        return outcome

    def _remember(self, key: str, outcome: Outcome) -> None:
        with self._lock:
            if len(self._memo) >= MAX_MEMO_ENTRIES:
                self._memo.pop(next(iter(self._memo)))
            self._memo[key] = outcome

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._pool_pid != os.getpid():
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="stickler-llm")
                self._pool_pid = os.getpid()
            return self._pool

    # -- talking to the server ----------------------------------------------------

    def _ask(self, prompt: str) -> tuple[Outcome, str]:
        """(Outcome, raw answer) for one prompt, retrying transient failures."""
        body = json.dumps(
            {
                "model": self.model_name,
                "messages": [
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": prompt},
                ],
                "temperature": self.temperature,
            }
        ).encode()
        attempts = 0
        while True:
            if self._fatal is not None:
                return Outcome(0.0, self._fatal), ""
            attempts += 1
            try:
                with self._slots:
                    content = self._post(body)
            except _RetryableError as exc:
                if attempts > self.max_retries:
                    tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
                    return Outcome(0.0, f"{exc} (gave up after {tries})"), ""
                delay = exc.wait
                if delay is None:
                    delay = min(MAX_BACKOFF, self.backoff * 2 ** (attempts - 1)) * random.uniform(0.5, 1.0)
                elif delay > MAX_RETRY_AFTER:
                    return Outcome(
                        0.0, f"{exc}; server asks to wait {delay:.0f}s, more than {MAX_RETRY_AFTER:.0f}s: giving up"
                    ), ""
                time.sleep(delay)
                continue
            except _FinalError as exc:
                if exc.fatal:
                    self._fatal = f"{exc} (no further calls this run)"
                return Outcome(0.0, str(exc)), ""
            score = parse_answer(content)
            if score is None:
                return Outcome(0.0, f"unreadable answer {_excerpt(content, 80)}"), content
            return Outcome(score), content

    def _post(self, body: bytes) -> str:
        """One request; the message content, or an exception saying whether to retry."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self.endpoint, data=body, headers=headers, method="POST")
        limit = limits.current().llm_response_bytes
        _count_request()  # JudgeLimitError, before anything is sent, past --limit judge-calls
        with self._lock:
            self.requests_made += 1
            self._bill[_ASKED] += 1
        deadline = request.deadline = _Deadline(self.timeout)  # type: ignore[attr-defined]
        where = shown_url(self.endpoint)
        timed_out = f"no complete response from {where} within {self.timeout:g}s"
        try:
            assert self._opener is not None
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read(limit + 1)
        except urllib.error.HTTPError as exc:
            try:
                # Read past the excerpt by the key's length, so that a key the excerpt shows the start of is
                # whole when it is redacted.
                body = exc.read(300 + len(self._api_key or "")) if exc.fp else b""
                detail = _excerpt(self._redact(body.decode("utf-8", "replace")), 160) if body else ""
            except (OSError, http.client.HTTPException):
                detail = ""
            if deadline.cancel():
                raise _RetryableError(timed_out) from None
            status = exc.code
            retry_after = exc.headers.get("Retry-After") if exc.headers is not None else None
            message = f"HTTP {status} from {where}" + (f": {detail}" if detail else "")
            if status == 429 or status >= 500:
                raise _RetryableError(message, _retry_after(retry_after)) from None
            if status in FATAL_STATUSES:
                raise _FinalError(
                    f"{message} ({FATAL_STATUSES[status]}: check the endpoint, model and API key)", fatal=True
                ) from None
            if status in REDIRECTS:
                target = exc.headers.get("Location") if exc.headers is not None else None
                shown = f" to {_excerpt(shown_url(self._redact(target)), 120)}" if target else ""
                raise _FinalError(
                    f"{message}: redirect{shown} not followed (give the final URL as the endpoint)", fatal=True
                ) from None
            raise _FinalError(message) from None
        except (TimeoutError, urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if deadline.cancel() or isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
                raise _RetryableError(timed_out) from None
            raise _RetryableError(f"cannot reach {where}: {reason}") from None
        finally:
            deadline.cancel()  # whatever happened, the clock stops (cancel may be called again)
        if deadline.cancel():  # a body without a length, cut short when the time ran out
            raise _RetryableError(timed_out)
        if len(raw) > limit:
            raise _FinalError(
                f"response from {where} is over {limit} bytes (raise the bound with --limit llm-response-bytes=SIZE)"
            )
        try:
            payload = json.loads(raw)
            content = payload["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError, RecursionError):
            raise _FinalError(f"not a chat-completions response: {_excerpt(self._redact(raw[:200]), 120)}") from None
        if isinstance(content, list):  # content given as parts: [{"type": "text", "text": ...}]
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str):
            raise _FinalError(f"response has no text content: {_excerpt(content, 120)}")
        return content

    # -- failures -------------------------------------------------------------------

    def _redact(self, text: str | bytes) -> str:
        """``text`` (an error body, a message) without the key sent or the endpoint's query values (docs/trust.md,
        "Trust"): a server or proxy that echoes a request's headers must not put the key in a report."""
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        query = urllib.parse.parse_qsl(urllib.parse.urlsplit(self.endpoint).query, keep_blank_values=True)
        return redact(text, [self._api_key or "", *(value for _, value in query)])

    def _record_failure(self, gt: Any, pred: Any, error: str) -> None:
        with self._lock:
            if len(self.failures) >= MAX_KEPT_FAILURES:
                self.dropped_failures += 1
                return
            self.failures.append(self._redact(f"gt={_excerpt(gt)} pred={_excerpt(pred)}: {error}"))

    def drain_failures(self) -> list[str]:
        """Failures since the last drain, one line each, oldest first; clears them.

        A cache that had to be disabled is reported once. When more than
        MAX_KEPT_FAILURES piled up, a last line says how many were dropped.
        """
        with self._lock:
            drained, self.failures = self.failures, []
            dropped, self.dropped_failures = self.dropped_failures, 0
            if self._cache is not None and self._cache.error and not self._cache_error_reported:
                self._cache_error_reported = True
                drained.insert(0, self._cache.error)
        if dropped:
            drained.append(f"... and {dropped} more failed comparisons")
        return drained

    def close(self) -> None:
        """Stop the worker threads and close the cache file (also safe to skip)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None and self._pool_pid == os.getpid():
            pool.shutdown(wait=True)
        if self._cache is not None:
            self._cache.close()


def _within_bounds(name: str, options: dict[str, tuple[float, str]]) -> None:
    """A schema chooses these options, so they may not exceed the user's bounds: a timeout of 1e9 s
    or a million retries would undo every time bound on a run."""
    bounds = limits.current()
    for option, (value, bound) in options.items():
        most = getattr(bounds, bound)
        if value > most:
            raise ComparatorConfigError(
                f"{name} option {option!r} is {value:g}, over the bound of {most:g} "
                f"(--limit {bound.replace('_', '-')}=N raises it)",
                option,
            )
