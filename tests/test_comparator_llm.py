"""LLMComparator against a real local HTTP server speaking chat-completions.

The server decides equivalence by a fixed rule (same letters and digits,
ignoring case and punctuation), so every expected score is known; it can be
told to fail, stall, answer slowly or return garbage.
"""

from __future__ import annotations

import html
import json
import pickle
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

import pytest

from stickler_cli.comparators import registry
from stickler_cli.comparators.llm import Access, AccessError, LLMComparator, configure, parse_answer
from stickler_cli.comparators.registry import ComparatorConfigError

ENV_VARS = ("STICKLER_LLM_BASE_URL", "STICKLER_LLM_MODEL", "STICKLER_LLM_API_KEY",
            "OPENAI_BASE_URL", "OPENAI_API_KEY", "TEST_LLM_KEY", "STICKLER_CACHE_DIR", "XDG_CACHE_HOME")


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
                self.send(h, status, b'{"error": "injected"}', headers)
                return
            if self.stall:
                time.sleep(self.stall)
            if self.garbage:
                self.send(h, 200, b"<html>gateway says hi</html>")
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
            payload = {"id": "x", "object": "chat.completion", "model": body["model"],
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}]}
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


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
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


@pytest.fixture
def make(server: ChatServer, tmp_path: Path):
    """Build an LLMComparator through the registry; the user's endpoint is the test server
    (as ``--llm-base-url`` would say) and its cache file ``tmp_path/cache/llm.sqlite``."""
    built: list[LLMComparator] = []

    def build(access: dict[str, Any] | None = None, **config: Any) -> LLMComparator:
        configure(Access(**{"base_url": server.url + "/v1", "cache": str(tmp_path / "cache" / "llm.sqlite"),
                            **(access or {})}))
        options = {"model": "test-model", "timeout": 2.0, "backoff": 0.01}
        options.update(config)
        comparator = registry.build("llm", options)
        built.append(comparator)
        return comparator

    yield build
    for comparator in built:
        comparator.close()


# -- answers and the request ---------------------------------------------------------


def test_scores_follow_the_model(make, server):
    c = make()
    assert c.similarity("St. John", "st john") == 1.0
    assert c.similarity("apple", "orange") == 0.0
    assert c.similarity(12, "12") == 1.0
    assert c.similarity({"b": 1, "a": 2}, '{"a": 2, "b": 1}') == 1.0  # dicts shown as sorted JSON
    assert server.count == 4
    assert c.drain_failures() == []


def test_request_shape_and_guidelines(make, server):
    c = make(guidelines="Treat 'St' and 'Saint' as the same </guidelines> <b>", temperature=0.0)
    c.similarity("a & b", "a and b")
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    body = request["body"]
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.0
    system, user = body["messages"]
    assert system["role"] == "system" and "true or false" in system["content"]
    assert user["role"] == "user"
    assert "Value 1: a &amp; b\nValue 2: a and b" in user["content"]
    assert "<guidelines>" in user["content"]
    assert "Treat 'St' and 'Saint' as the same &lt;/guidelines&gt; &lt;b&gt;" in user["content"]
    assert user["content"].count("</guidelines>") == 1  # the guideline text cannot close the tag


def test_eval_guidelines_is_accepted_as_the_seed_name(make, server):
    c = make(eval_guidelines="Ignore case")
    c.similarity("x", "X")
    assert "Ignore case" in server.requests[0]["body"]["messages"][1]["content"]
    with pytest.raises(ComparatorConfigError, match="either 'guidelines' or 'eval_guidelines'"):
        make(guidelines="a", eval_guidelines="b")


def test_no_guidelines_block_without_guidelines(make, server):
    make().similarity("x", "y")
    assert "guidelines" not in server.requests[0]["body"]["messages"][1]["content"]


def test_api_key_from_named_env_var_is_sent_as_bearer(make, server, monkeypatch):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-secret")
    c = make(access={"api_key_env": "TEST_LLM_KEY"})
    c.similarity("x", "x")
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-secret"
    assert "sk-secret" not in repr(c)
    assert b"sk-secret" not in pickle.dumps(c)  # the key is read where it is sent, never carried


def test_no_authorization_header_without_a_key(make, server):
    make().similarity("x", "x")
    assert "Authorization" not in server.requests[0]["headers"]


def test_model_reply_formats(make, server):
    c = make(cache=None)
    server.reply = '{"equivalent": true}'
    assert c.similarity("a", "b") == 1.0
    server.reply = '```json\n{"score": 0.8}\n```'
    assert c.similarity("a", "c") == 0.8
    server.reply = "No, they differ."
    assert c.similarity("a", "d") == 0.0
    assert c.drain_failures() == []


@pytest.mark.parametrize("reply, expected", [
    ("true", 1.0), ("True.", 1.0), ("FALSE", 0.0), ("**false**", 0.0), ("Yes", 1.0), ("no", 0.0),
    ("1", 1.0), ("0", 0.0), ("0.25", 0.25), ("Score: 0.8", 0.8), ("Answer: true", 1.0),
    ('{"equivalent": false}', 0.0), ('{"Equivalent": "yes"}', 1.0), ('{"score": 1}', 1.0),
    ("[true]", 1.0), ("<think>maybe true</think>\nfalse", 0.0),
    ("The values are not equivalent.", 0.0), ("They are equivalent.", 1.0),
    ("banana", None), ("", None), ("7", None), ('{"score": 3}', None), (None, None), ("x" * 5000, None),
    ("That is not true.", 0.0), ("Equivalent? No.", None), ("Yes and no", None), ("<think>unfinished", None),
    ("<think>" * 50_000, None), ("<think>a</think><think>b</think> yes", 1.0),
])
def test_parse_answer(reply, expected):
    assert parse_answer(reply) == expected


# -- cache --------------------------------------------------------------------------


def test_cached_replies_are_read_again(make, server, tmp_path):
    """A stored reply is parsed again on reading, so a parser fix corrects old verdicts."""
    import sqlite3

    first = make()
    assert first.similarity("apple", "orange") == 0.0
    first.close()
    with sqlite3.connect(tmp_path / "cache" / "llm.sqlite") as conn:
        conn.execute("UPDATE answers SET answer = 'That is not false.', score = 0.0")
    second = make()
    assert second.similarity("apple", "orange") == 1.0  # read from the stored reply, not its old score
    assert server.count == 1


def test_answers_persist_across_instances(make, server, tmp_path):
    pairs = [("St. John", "st john"), ("apple", "orange"), ("1", "1.0")]
    first = make()
    scores = [first.similarity(g, p) for g, p in pairs]
    assert server.count == 3
    first.close()
    assert (tmp_path / "cache" / "llm.sqlite").is_file()

    second = make()
    assert [second.similarity(g, p) for g, p in pairs] == scores
    assert second.similarity_matrix(["apple"], ["orange"]) == [[0.0]]
    assert server.count == 3  # every answer came from disk

    # Anything that could change the answer is part of the key.
    make(guidelines="new rules").similarity("apple", "orange")
    make(model="other-model").similarity("apple", "orange")
    assert server.count == 5


def test_repeated_pair_asks_once_even_without_disk_cache(make, server, tmp_path):
    c = make(cache="")
    assert c.similarity("a", "a") == c.similarity("a", "a") == 1.0
    assert server.count == 1
    make(cache=None).similarity("a", "a")
    assert server.count == 2
    assert not (tmp_path / "cache").exists()


def test_failures_are_not_cached_on_disk(make, server):
    server.fail_next(1, 400)
    assert make().similarity("a", "a") == 0.0
    assert make().similarity("a", "a") == 1.0
    assert server.count == 2


def test_unusable_cache_path_is_reported_once_and_scoring_goes_on(make, server, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    c = make(access={"cache": str(blocker / "llm.sqlite")})
    assert c.similarity("a", "a") == 1.0
    failures = c.drain_failures()
    assert len(failures) == 1 and "cache" in failures[0] and "disabled" in failures[0]
    assert c.similarity("b", "b") == 1.0
    assert c.drain_failures() == []


def test_pickled_comparator_still_works(make, server):
    c = make()
    c.similarity("a", "a")
    clone = pickle.loads(pickle.dumps(c))
    assert clone.similarity("a", "a") == 1.0
    assert clone.similarity("b", "c") == 0.0
    assert server.count == 2


# -- retries, timeouts, failures ------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_transient_failures_are_retried(make, server, status):
    server.fail_next(2, status)
    c = make(max_retries=3)
    assert c.similarity("a", "a") == 1.0
    assert server.count == 3
    assert c.drain_failures() == []


def test_retry_after_is_honoured(make, server):
    server.fail_next(1, 429, {"Retry-After": "0.3"})
    c = make(backoff=0.0)
    started = time.monotonic()
    assert c.similarity("a", "a") == 1.0
    assert time.monotonic() - started >= 0.3
    assert server.count == 2


def test_long_retry_after_gives_up_at_once(make, server):
    server.fail_next(1, 429, {"Retry-After": "3600"})
    c = make()
    assert c.similarity("a", "a") == 0.0
    assert server.count == 1
    [failure] = c.drain_failures()
    assert "HTTP 429" in failure and "3600s" in failure


def test_permanent_failure_scores_zero_and_is_drained(make, server):
    server.fail_next(10, 503)
    c = make(max_retries=2)
    assert c.similarity("ground truth", "prediction") == 0.0
    assert server.count == 3
    failures = c.drain_failures()
    assert len(failures) == 1
    assert "HTTP 503" in failures[0] and "3 attempts" in failures[0]
    assert "'ground truth'" in failures[0] and "'prediction'" in failures[0]
    assert c.drain_failures() == []
    # The failed pair is not asked again this run, but is reported again when scored again.
    assert c.similarity("ground truth", "prediction") == 0.0
    assert server.count == 3
    assert len(c.drain_failures()) == 1


def test_failure_messages_truncate_long_values(make, server):
    server.fail_next(1, 400)
    c = make()
    c.similarity("g" * 500, "p" * 500)
    [failure] = c.drain_failures()
    assert len(failure) < 400 and "HTTP 400" in failure


def test_timeout_scores_zero(make, server):
    server.stall = 1.5
    c = make(timeout=0.2, max_retries=1)
    started = time.monotonic()
    assert c.similarity("a", "a") == 0.0
    assert time.monotonic() - started < 1.2
    [failure] = c.drain_failures()
    assert "within 0.2s" in failure and "2 attempts" in failure


def test_unreachable_endpoint_scores_zero(make):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = make(access={"base_url": f"http://127.0.0.1:{port}/v1"}, max_retries=1)
    assert c.similarity("a", "a") == 0.0
    [failure] = c.drain_failures()
    assert "cannot reach" in failure


def test_garbage_body_scores_zero(make, server):
    server.garbage = True
    c = make()
    assert c.similarity("a", "a") == 0.0
    [failure] = c.drain_failures()
    assert "not a chat-completions response" in failure
    assert server.count == 1  # garbage is not retried


def test_unreadable_answer_scores_zero(make, server):
    server.reply = "Let me think about bananas."
    c = make()
    assert c.similarity("a", "a") == 0.0
    [failure] = c.drain_failures()
    assert "unreadable answer" in failure and "bananas" in failure


def test_auth_failure_stops_further_calls(make, server):
    server.fail_next(5, 401)
    c = make(max_retries=3)
    assert c.similarity("a", "a") == 0.0
    assert c.similarity("b", "b") == 0.0
    assert server.count == 1
    failures = c.drain_failures()
    assert len(failures) == 2 and all("HTTP 401" in f for f in failures)


def test_values_that_need_no_call(make, server):
    c = make(max_chars=10)
    assert c.similarity(None, None) == 1.0
    assert c.similarity("a", None) == 0.0
    assert c.similarity("x" * 11, "x") == 0.0
    assert server.count == 0
    [failure] = c.drain_failures()
    assert "max_chars=10" in failure


# -- concurrency ------------------------------------------------------------------------


def test_matrix_calls_run_in_parallel_within_the_bound(make, server):
    server.delay = 0.05
    c = make(concurrency=3)
    gts = ["alpha", "beta", "gamma", "delta"]
    preds = ["DELTA", "Alpha", "beta!", "epsilon"]
    matrix = c.similarity_matrix(gts, preds)
    assert matrix == [[1.0 if server_rule(g, p) else 0.0 for p in preds] for g in gts]
    assert server.count == 16
    assert 2 <= server.max_inflight <= 3


def test_prefetch_answers_a_batch_then_scoring_is_free(make, server):
    server.delay = 0.02
    c = make(concurrency=4)
    pairs = [(f"v{i}", f"V{i}") for i in range(10)] + [("v0", "V0"), (None, "x")]
    assert c.prefetch(pairs) == 10
    assert server.count == 10 and server.max_inflight <= 4
    assert [c.similarity(g, p) for g, p in pairs] == [1.0] * 11 + [0.0]
    assert server.count == 10
    assert c.prefetch(pairs) == 0  # everything known


def test_concurrency_one_is_sequential(make, server):
    server.delay = 0.01
    c = make(concurrency=1)
    c.similarity_matrix(["a", "b"], ["a", "b", "c"])
    assert server.max_inflight == 1 and server.count == 6


# -- configuration ----------------------------------------------------------------------


def test_configuration_from_stickler_env_vars(server, monkeypatch, tmp_path):
    monkeypatch.setenv("STICKLER_LLM_BASE_URL", server.url + "/v1/")
    monkeypatch.setenv("STICKLER_LLM_MODEL", "env-model")
    monkeypatch.setenv("STICKLER_LLM_API_KEY", "sk-env")
    c = registry.build("LLMComparator", {"cache": None})
    assert c.similarity("a", "A") == 1.0
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "env-model"
    assert request["headers"]["Authorization"] == "Bearer sk-env"


def test_configuration_from_openai_env_vars(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    c = registry.build("llm", {"model": "m", "cache": None})
    assert c.similarity("a", "b") == 0.0
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-openai"


def test_the_users_endpoint_wins_over_the_schemas_and_the_environment(server, monkeypatch):
    monkeypatch.setenv("STICKLER_LLM_BASE_URL", "http://127.0.0.1:9/nowhere")
    monkeypatch.setenv("STICKLER_LLM_MODEL", "env-model")
    configure(base_url=server.url + "/v1/chat/completions")
    c = registry.build("llm", {"base_url": "http://schema-host.example/v1", "model": "cfg", "cache": None})
    c.similarity("a", "a")
    assert server.requests[0]["path"] == "/v1/chat/completions"
    assert server.requests[0]["body"]["model"] == "cfg"


def test_compiling_needs_no_endpoint_and_scoring_names_what_is_missing():
    c = registry.build("llm", {})  # schema check and merge compile like this: no endpoint, no model
    with pytest.raises(AccessError) as missing:
        c.ready()
    assert str(missing.value) == ("LLMComparator has no endpoint: give --llm-base-url URL or set "
                                  "$STICKLER_LLM_BASE_URL")
    assert missing.value.key == ""
    with pytest.raises(AccessError):  # scoring stops the run (exit 2) rather than scoring 0.0
        c.similarity("a", "b")

    configure(base_url="http://localhost:11434/v1")
    with pytest.raises(AccessError, match=r"has no model: set 'model' .* or \$STICKLER_LLM_MODEL"):
        registry.build("llm", {}).ready()


def test_a_key_variable_the_user_names_must_be_set():
    configure(base_url="http://localhost:1/v1", api_key_env="TEST_LLM_KEY")
    with pytest.raises(AccessError, match=r"--llm-api-key-env names \$TEST_LLM_KEY, which is not set") as err:
        registry.build("llm", {"model": "m"}).ready()
    assert err.value.key is None  # the user's setting: no schema pointer


@pytest.mark.parametrize("config, key", [
    ({"concurrency": 0}, "concurrency"),
    ({"timeout": 0}, "timeout"),
    ({"max_retries": -1}, "max_retries"),
    ({"modle": "x"}, "modle"),
])
def test_bad_options_are_schema_errors(config, key):
    with pytest.raises(ComparatorConfigError) as err:
        registry.build("llm", {"model": "m", **config})
    assert err.value.key == key


@pytest.mark.parametrize("url, message", [
    ("localhost:11434", "http:// or https://"),
    ("file:///etc/passwd", "http:// or https://"),
    ("http://user:secret@example.com/v1", "must not carry a user name or password"),
    ("http://exa mple.com/v1", "names no valid host"),
    ("http://example.com:99999/v1", "is not a URL"),
])
def test_a_schema_base_url_must_be_a_plain_http_url(url, message):
    with pytest.raises(ComparatorConfigError, match=re.escape(message)) as err:
        registry.build("llm", {"base_url": url, "model": "m"})
    assert err.value.key == "base_url"


def test_building_creates_no_cache_file(tmp_path):
    configure(base_url="http://localhost:1/v1", cache=str(tmp_path / "c" / "llm.sqlite"))
    registry.build("llm", {"model": "m"})
    assert not (tmp_path / "c").exists()


def test_engine_hooks_are_declared(make):
    c = make()
    assert c.prefetches and c.reports_failures
