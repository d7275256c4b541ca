"""Ask a chat model whether two values are equivalent (score 1.0 or 0.0).

Speaks the OpenAI-compatible chat-completions protocol with the standard
library only, so any such server works: OpenAI, vLLM, Ollama, LiteLLM, a
corporate gateway. Every answer is kept in an sqlite file so that a rerun of
the same evaluation makes no calls; calls for a batch of pairs run on a
bounded thread pool; transient HTTP failures are retried with backoff.

A failed call never stops the run: the pair scores 0.0 and the failure is
kept on the comparator until the engine collects it with ``drain_failures``.
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
import sqlite3
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from .base import Comparator, Param

# Bump when the prompt wording changes: cached answers to the old prompt no
# longer apply.
PROMPT_VERSION = "1"

SYSTEM_PROMPT = (
    "You decide whether two values are equivalent. "
    "Reply with exactly one word: true or false."
)

ENV_BASE_URL = ("STICKLER_LLM_BASE_URL", "OPENAI_BASE_URL")
ENV_MODEL = ("STICKLER_LLM_MODEL",)
ENV_API_KEY = ("STICKLER_LLM_API_KEY", "OPENAI_API_KEY")

DEFAULT_CACHE = ".stickler-cache/llm.sqlite"

# A server asking us to wait longer than this is out of quota, not busy.
MAX_RETRY_AFTER = 30.0
MAX_BACKOFF = 30.0
# Bounds on what is read or kept, so a misbehaving server cannot exhaust memory.
MAX_RESPONSE_BYTES = 1 << 20
MAX_KEPT_FAILURES = 1000
MAX_MEMO_ENTRIES = 200_000
# HTTP statuses that will fail the same way for every pair: stop calling.
FATAL_STATUSES = {401: "unauthorised", 403: "forbidden", 404: "not found"}


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

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Words that settle the question when a reply opens with them.
_OPENING = {
    "true": 1.0, "yes": 1.0, "equivalent": 1.0, "equal": 1.0, "same": 1.0, "identical": 1.0,
    "match": 1.0, "false": 0.0, "no": 0.0, "not": 0.0, "different": 0.0, "mismatch": 0.0,
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
    text = _FENCE.sub("", text.strip()).strip()
    if not text or len(text) > 4000:
        return None
    if text[0] in "{[":
        try:
            verdict = _json_verdict(json.loads(text))
        except ValueError:
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


class AnswerCache:
    """Answers by request fingerprint in an sqlite file, shared across runs and processes.

    Opened lazily (validating a schema creates no file) and reopened after a
    fork. Any sqlite error disables the cache for the rest of the run and is
    kept in ``error``: a broken cache costs calls, never the run.
    """

    def __init__(self, path: str) -> None:
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
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
            except sqlite3.Error:
                pass  # e.g. a network file system: the default journal still works
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
                for start in range(0, len(keys), 500):
                    chunk = list(keys[start:start + 500])
                    marks = ",".join("?" * len(chunk))
                    rows = conn.execute(f"SELECT key, score, answer FROM answers WHERE key IN ({marks})", chunk)
                    for key, score, answer in rows:
                        # Read the stored reply again: a better parser corrects old verdicts.
                        verdict = parse_answer(answer) if answer is not None else score
                        if verdict is not None:
                            found[key] = verdict
            except (sqlite3.Error, OSError) as exc:
                self._disable(exc)
        return found

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


# ---------------------------------------------------------------------------
# The comparator


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


class LLMComparator(Comparator):
    name = "LLMComparator"
    aliases = ("llm", "LLM")
    default_threshold = 0.7
    summary = "asks an OpenAI-compatible chat model whether the values are equivalent"
    prefetches = True
    reports_failures = True
    params = (
        Param("base_url", str, None, "chat-completions endpoint, e.g. http://localhost:11434/v1 "
              "(else $STICKLER_LLM_BASE_URL or $OPENAI_BASE_URL)", nullable=True),
        Param("model", str, None, "model name (else $STICKLER_LLM_MODEL)", nullable=True),
        Param("api_key_env", str, None, "name of the environment variable holding the API key "
              "(else $STICKLER_LLM_API_KEY or $OPENAI_API_KEY; none sent if unset)", nullable=True),
        Param("guidelines", str, None, "domain rules added to the prompt", nullable=True),
        Param("eval_guidelines", str, None, "stickler-eval's name for 'guidelines'", nullable=True),
        Param("timeout", float, 30.0, "seconds to wait for one response", minimum=0.001),
        Param("max_retries", int, 3, "retries after 429, 5xx, timeouts and connection errors", minimum=0),
        Param("backoff", float, 1.0, "first retry delay in seconds, doubled per retry", minimum=0.0),
        Param("concurrency", int, 4, "requests in flight at once", minimum=1),
        Param("cache", str, DEFAULT_CACHE, "sqlite answer cache file; null or '' disables", nullable=True),
        Param("temperature", float, 0.0, "sampling temperature", minimum=0.0),
        Param("max_chars", int, 10_000, "longer values are not sent and score 0.0", minimum=1),
    )

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        if self.eval_guidelines is not None:
            if self.guidelines is not None:
                raise ValueError("give either 'guidelines' or 'eval_guidelines', not both")
            self.guidelines = self.eval_guidelines
        self.endpoint = self._resolve_endpoint()
        self.model_name = (self.model or "").strip() or _first_env(ENV_MODEL) or ""
        missing = []
        if not self.endpoint:
            missing.append("an endpoint (comparator-config 'base_url' or $STICKLER_LLM_BASE_URL / $OPENAI_BASE_URL)")
        if not self.model_name:
            missing.append("a model (comparator-config 'model' or $STICKLER_LLM_MODEL)")
        if missing:
            raise ValueError(f"not configured: set {' and '.join(missing)}")
        self._api_key = self._resolve_api_key()
        self.failures: list[str] = []
        self.dropped_failures = 0
        self._cache = AnswerCache(self.cache) if self.cache else None
        self._setup_runtime()

    # -- configuration ------------------------------------------------------

    def _resolve_endpoint(self) -> str:
        base = (self.base_url or "").strip() or _first_env(ENV_BASE_URL) or ""
        if not base:
            return ""
        scheme = urllib.parse.urlsplit(base).scheme
        if scheme not in ("http", "https"):
            raise ValueError(f"base_url must start with http:// or https://, got {base!r}")
        base = base.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"

    def _resolve_api_key(self) -> str | None:
        if self.api_key_env:
            key = os.environ.get(self.api_key_env, "").strip()
            if not key:
                raise ValueError(
                    f"api_key_env names ${self.api_key_env}, which is not set; export it or drop 'api_key_env'"
                )
            return key
        return _first_env(ENV_API_KEY)

    def _setup_runtime(self) -> None:
        """State that belongs to one process: locks, pool, opener, in-run memo."""
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0
        self._memo: dict[str, Outcome] = {}
        self._fatal: str | None = None
        self._cache_error_reported = False
        # Local servers are reached directly even when a proxy is configured.
        handlers = [urllib.request.ProxyHandler({})] if _is_loopback(self.endpoint) else []
        self._opener = urllib.request.build_opener(*handlers)
        self.requests_made = 0

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in ("_lock", "_slots", "_pool", "_pool_pid", "_memo", "_fatal",
                     "_cache_error_reported", "_opener", "requests_made"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._setup_runtime()

    def __repr__(self) -> str:
        return f"LLMComparator(endpoint={self.endpoint!r}, model={self.model_name!r})"

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

    def _fingerprint(self, gt_text: str, pred_text: str) -> str:
        parts = [PROMPT_VERSION, self.endpoint, self.model_name, self.temperature,
                 self.guidelines, gt_text, pred_text]
        return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()

    def _question(self, gt: Any, pred: Any) -> tuple[str, str] | Outcome:
        """(cache key, prompt) for a pair, or the Outcome when no call is needed."""
        if gt is None or pred is None:
            return Outcome(1.0 if gt is None and pred is None else 0.0)
        try:
            gt_text, pred_text = self.value_text(gt), self.value_text(pred)
        except (TypeError, ValueError, RecursionError) as exc:
            return Outcome(0.0, f"value cannot be shown to the model: {exc}")
        longest = max(len(gt_text), len(pred_text))
        if longest > self.max_chars:
            return Outcome(0.0, f"value of {longest} characters exceeds max_chars={self.max_chars}; not sent")
        return self._fingerprint(gt_text, pred_text), self.render_prompt(gt_text, pred_text)

    # -- scoring ----------------------------------------------------------------

    def similarity(self, gt: Any, pred: Any) -> float:
        try:
            outcome = self._answer(gt, pred)
        except Exception as exc:  # noqa: BLE001 - a comparator must never raise
            outcome = Outcome(0.0, f"internal error: {type(exc).__name__}: {exc}")
        if outcome.error is not None:
            self._record_failure(gt, pred, outcome.error)
        return outcome.score

    def similarity_matrix(self, gts: Sequence[Any], preds: Sequence[Any]) -> list[list[float]]:
        self.prefetch((g, p) for g in gts for p in preds)
        return [[self.similarity(g, p) for p in preds] for g in gts]

    def prefetch(self, pairs: Iterable[tuple[Any, Any]]) -> int:
        """Answer every (gt, pred) pair ahead of scoring, ``concurrency`` calls at a time.

        Later ``similarity`` calls for these pairs are served from memory.
        Returns the number of pairs that needed the model. Never raises.
        """
        try:
            return self._prefetch(pairs)
        except Exception:  # noqa: BLE001 - similarity() will retry and record the problem
            return 0

    def _prefetch(self, pairs: Iterable[tuple[Any, Any]]) -> int:
        todo: dict[str, str] = {}
        with self._lock:
            for gt, pred in pairs:
                question = self._question(gt, pred)
                if isinstance(question, tuple) and question[0] not in self._memo:
                    todo[question[0]] = question[1]
        if not todo:
            return 0
        if self._cache is not None:
            for key, score in self._cache.get_many(list(todo)).items():
                self._remember(key, Outcome(score))
                del todo[key]
        if not todo:
            return 0
        if len(todo) == 1 or self.concurrency == 1:
            for key, prompt in todo.items():
                self._ask_and_store(key, prompt)
        else:
            pool = self._executor()
            for future in [pool.submit(self._ask_and_store, key, prompt) for key, prompt in todo.items()]:
                future.result()
        return len(todo)

    def _answer(self, gt: Any, pred: Any) -> Outcome:
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
                return outcome
        return self._ask_and_store(key, prompt)

    def _ask_and_store(self, key: str, prompt: str) -> Outcome:
        outcome, answer = self._ask(prompt)
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
        body = json.dumps({
            "model": self.model_name,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": prompt},
            ],
            "temperature": self.temperature,
        }).encode()
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
                    return Outcome(0.0, f"{exc}; server asks to wait {delay:.0f}s, more than "
                                        f"{MAX_RETRY_AFTER:.0f}s: giving up"), ""
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
        with self._lock:
            self.requests_made += 1
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES)
        except urllib.error.HTTPError as exc:
            try:
                detail = _excerpt(exc.read(300).decode("utf-8", "replace"), 160) if exc.fp else ""
            except (OSError, http.client.HTTPException):
                detail = ""
            status = exc.code
            retry_after = exc.headers.get("Retry-After") if exc.headers is not None else None
            message = f"HTTP {status} from {self.endpoint}" + (f": {detail}" if detail else "")
            if status == 429 or status >= 500:
                raise _RetryableError(message, _retry_after(retry_after)) from None
            if status in FATAL_STATUSES:
                raise _FinalError(f"{message} ({FATAL_STATUSES[status]}: check base_url, model and API key)",
                                  fatal=True) from None
            raise _FinalError(message) from None
        except (TimeoutError, urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
                raise _RetryableError(f"no response from {self.endpoint} within {self.timeout:g}s") from None
            raise _RetryableError(f"cannot reach {self.endpoint}: {reason}") from None
        try:
            payload = json.loads(raw)
            content = payload["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _FinalError(f"not a chat-completions response: {_excerpt(raw[:200], 120)}") from None
        if isinstance(content, list):  # content given as parts: [{"type": "text", "text": ...}]
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        if not isinstance(content, str):
            raise _FinalError(f"response has no text content: {_excerpt(content, 120)}")
        return content

    # -- failures -------------------------------------------------------------------

    def _record_failure(self, gt: Any, pred: Any, error: str) -> None:
        with self._lock:
            if len(self.failures) >= MAX_KEPT_FAILURES:
                self.dropped_failures += 1
                return
            self.failures.append(f"gt={_excerpt(gt)} pred={_excerpt(pred)}: {error}")

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
