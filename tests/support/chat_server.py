"""A chat-completions endpoint on 127.0.0.1 for LLMComparator tests.

The server decides equivalence by a fixed rule (same letters and digits,
ignoring case and punctuation), so every expected score is known; it can be
told to fail, stall, answer slowly or return garbage.
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest


def server_rule(a: str, b: str) -> bool:
    """Equivalence as the fake model sees it."""

    def norm(s: str) -> str:
        return re.sub(r"[^0-9a-z]", "", s.casefold())

    return norm(a) == norm(b)


class ChatServer:
    """A chat-completions endpoint on 127.0.0.1 with knobs for misbehaviour."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.inflight = 0
        self.max_inflight = 0
        self.failures: list[tuple[int, dict[str, str]]] = []  # (status, headers), consumed in order
        self.stall = 0.0  # seconds to sleep before answering
        self.delay = 0.0  # seconds every request takes
        self.reply: Callable[[str, str], str] | str | None = None  # override the answer text
        self.garbage = False  # answer with a body that is not JSON
        self.body: bytes | None = None  # answer with exactly these bytes
        self.pad = 0  # characters of padding added to a well-formed answer
        self.error_body: Callable[[dict[str, str]], bytes] | None = None  # a failure's body, from the request's headers
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                owner.handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    @property
    def count(self) -> int:
        return len(self.requests)

    def fail_next(self, n: int, status: int, headers: dict[str, str] | None = None) -> None:
        self.failures.extend([(status, headers or {})] * n)

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        with self.lock:
            self.requests.append({"path": h.path, "headers": dict(h.headers), "body": body})
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
            failure = self.failures.pop(0) if self.failures else None
        try:
            if self.delay:
                time.sleep(self.delay)
            if failure is not None:
                status, headers = failure
                data = self.error_body(dict(h.headers)) if self.error_body else b'{"error": "injected"}'
                self.send(h, status, data, headers)
                return
            if self.stall:
                time.sleep(self.stall)
            if self.garbage:
                self.send(h, 200, b"<html>gateway says hi</html>")
                return
            if self.body is not None:
                self.send(h, 200, self.body)
                return
            prompt = body["messages"][-1]["content"]
            gt = html.unescape(re.search(r"^Value 1: (.*)$", prompt, re.M).group(1))
            pred = html.unescape(re.search(r"^Value 2: (.*)$", prompt, re.M).group(1))
            if callable(self.reply):
                text = self.reply(gt, pred)
            elif self.reply is not None:
                text = self.reply
            else:
                text = "true" if server_rule(gt, pred) else "false"
            payload = {
                "id": "x",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            }
            if self.pad:
                payload["padding"] = "x" * self.pad
            self.send(h, 200, json.dumps(payload).encode())
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)
        finally:
            with self.lock:
                self.inflight -= 1

    @staticmethod
    def send(h: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            h.send_header(key, value)
        h.end_headers()
        h.wfile.write(data)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# Fixtures shared by the LLM tests (imported into each test module by name).
ENV_VARS = (
    "STICKLER_LLM_BASE_URL",
    "STICKLER_LLM_MODEL",
    "STICKLER_LLM_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "TEST_LLM_KEY",
    "STICKLER_CACHE_DIR",
    "XDG_CACHE_HOME",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """No endpoint, key or cache directory from the machine; the LLM settings reset around each test."""
    from stickler_cli.comparators.llm import Access, configure

    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the default cache directory is in here
    configure(Access())
    yield
    configure(Access())


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()
