"""LLMComparator against a real local HTTP server speaking chat-completions
(tests/support/chat_server.py), which decides by a fixed rule so every score is known."""

from __future__ import annotations

import json
import pickle
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from stickler_cli.comparators import registry
from stickler_cli.comparators.llm import Access, AccessError, LLMComparator, configure, parse_answer
from stickler_cli.comparators.registry import ComparatorConfigError
from tests.support.chat_server import ChatServer, clean_env, server, server_rule  # noqa: F401 (fixtures)


@pytest.fixture
def make(server: ChatServer, tmp_path: Path):
    """Build an LLMComparator through the registry; the user's endpoint is the test server
    (as ``--llm-base-url`` would say) and its cache file ``tmp_path/cache/llm.sqlite``."""
    built: list[LLMComparator] = []

    def build(access: dict[str, Any] | None = None, **config: Any) -> LLMComparator:
        configure(
            Access(
                **{"base_url": server.url + "/v1", "cache": str(tmp_path / "cache" / "llm.sqlite"), **(access or {})}
            )
        )
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
    c.similarity("x", "X")
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-secret"
    assert "sk-secret" not in repr(c)
    assert b"sk-secret" not in pickle.dumps(c)  # the key is read where it is sent, never carried


def test_no_authorization_header_without_a_key(make, server):
    make().similarity("x", "X")
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


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("true", 1.0),
        ("True.", 1.0),
        ("FALSE", 0.0),
        ("**false**", 0.0),
        ("Yes", 1.0),
        ("no", 0.0),
        ("1", 1.0),
        ("0", 0.0),
        ("0.25", 0.25),
        ("Score: 0.8", 0.8),
        ("Answer: true", 1.0),
        ('{"equivalent": false}', 0.0),
        ('{"Equivalent": "yes"}', 1.0),
        ('{"score": 1}', 1.0),
        ("[true]", 1.0),
        ("<think>maybe true</think>\nfalse", 0.0),
        ("The values are not equivalent.", 0.0),
        ("They are equivalent.", 1.0),
        ("banana", None),
        ("", None),
        ("7", None),
        ('{"score": 3}', None),
        (None, None),
        ("x" * 5000, None),
        ("That is not true.", 0.0),
        ("Equivalent? No.", None),
        ("Yes and no", None),
        ("<think>unfinished", None),
        ("<think>" * 50_000, None),
        ("<think>a</think><think>b</think> yes", 1.0),
    ],
)
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
    assert c.similarity("a", "A") == c.similarity("a", "A") == 1.0
    assert server.count == 1
    make(cache=None).similarity("a", "A")
    assert server.count == 2
    assert not (tmp_path / "cache").exists()


def test_failures_are_not_cached_on_disk(make, server):
    server.fail_next(1, 400)
    assert make().similarity("a", "A") == 0.0
    assert make().similarity("a", "A") == 1.0
    assert server.count == 2


def test_unusable_cache_path_is_reported_once_and_scoring_goes_on(make, server, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    c = make(access={"cache": str(blocker / "llm.sqlite")})
    assert c.similarity("a", "A") == 1.0
    failures = c.drain_failures()
    assert len(failures) == 1 and "cache" in failures[0] and "disabled" in failures[0]
    assert c.similarity("b", "B") == 1.0
    assert c.drain_failures() == []


def test_pickled_comparator_still_works(make, server):
    c = make()
    c.similarity("a", "A")
    clone = pickle.loads(pickle.dumps(c))
    assert clone.similarity("a", "A") == 1.0
    assert clone.similarity("b", "c") == 0.0
    assert server.count == 2


# -- retries, timeouts, failures ------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_transient_failures_are_retried(make, server, status):
    server.fail_next(2, status)
    c = make(max_retries=3)
    assert c.similarity("a", "A") == 1.0
    assert server.count == 3
    assert c.drain_failures() == []


def test_retry_after_is_honoured(make, server):
    server.fail_next(1, 429, {"Retry-After": "0.3"})
    c = make(backoff=0.0)
    started = time.monotonic()
    assert c.similarity("a", "A") == 1.0
    assert time.monotonic() - started >= 0.3
    assert server.count == 2


def test_long_retry_after_gives_up_at_once(make, server):
    server.fail_next(1, 429, {"Retry-After": "3600"})
    c = make()
    assert c.similarity("a", "A") == 0.0
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
    assert c.similarity("a", "A") == 0.0
    assert time.monotonic() - started < 1.2
    [failure] = c.drain_failures()
    assert "within 0.2s" in failure and "2 attempts" in failure


def test_unreachable_endpoint_scores_zero(make):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    c = make(access={"base_url": f"http://127.0.0.1:{port}/v1"}, max_retries=1)
    assert c.similarity("a", "A") == 0.0
    [failure] = c.drain_failures()
    assert "cannot reach" in failure


def test_garbage_body_scores_zero(make, server):
    server.garbage = True
    c = make()
    assert c.similarity("a", "A") == 0.0
    [failure] = c.drain_failures()
    assert "not a chat-completions response" in failure
    assert server.count == 1  # garbage is not retried


def test_unreadable_answer_scores_zero(make, server):
    server.reply = "Let me think about bananas."
    c = make()
    assert c.similarity("a", "A") == 0.0
    [failure] = c.drain_failures()
    assert "unreadable answer" in failure and "bananas" in failure


def test_auth_failure_stops_further_calls(make, server):
    server.fail_next(5, 401)
    c = make(max_retries=3)
    assert c.similarity("a", "A") == 0.0
    assert c.similarity("b", "B") == 0.0
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
    assert server.max_inflight == 1 and server.count == 4  # six pairs, two of them identical: never sent


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
    c.similarity("a", "A")
    assert server.requests[0]["path"] == "/v1/chat/completions"
    assert server.requests[0]["body"]["model"] == "cfg"


def test_compiling_needs_no_endpoint_and_scoring_names_what_is_missing():
    c = registry.build("llm", {})  # schema check and merge compile like this: no endpoint, no model
    with pytest.raises(AccessError) as missing:
        c.ready()
    assert str(missing.value) == (
        "LLMComparator has no endpoint: give --llm-base-url URL or set $STICKLER_LLM_BASE_URL"
    )
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


@pytest.mark.parametrize(
    "config, key",
    [
        ({"concurrency": 0}, "concurrency"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"modle": "x"}, "modle"),
    ],
)
def test_bad_options_are_schema_errors(config, key):
    with pytest.raises(ComparatorConfigError) as err:
        registry.build("llm", {"model": "m", **config})
    assert err.value.key == key


@pytest.mark.parametrize(
    "url, message",
    [
        ("localhost:11434", "http:// or https://"),
        ("file:///etc/passwd", "http:// or https://"),
        ("http://user:secret@example.com/v1", "must not carry a user name or password"),
        ("http://exa mple.com/v1", "names no valid host"),
        ("http://example.com:99999/v1", "is not a URL"),
    ],
)
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


# -- trust: the endpoint, the key and the cache are the user's (issue 15, item 8) ---------


def test_a_schemas_host_needs_the_users_allowance_and_never_gets_the_usual_keys(server, monkeypatch):
    """The attack: a schema names its own host; OPENAI_API_KEY used to be sent there."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv("STICKLER_LLM_API_KEY", "sk-stickler")
    config = {"base_url": server.url + "/v1", "model": "m", "cache": False}
    c = registry.build("llm", config)  # compiling is fine: nothing is sent yet
    with pytest.raises(AccessError) as refused:
        c.similarity("a", "A")
    assert str(refused.value) == (
        "the schema sends values to 127.0.0.1: allow that host with --allow-network "
        "127.0.0.1, or give your own endpoint with --llm-base-url URL"
    )
    assert refused.value.key == "base_url"
    assert server.count == 0

    configure(allow_network=("127.0.0.1:1",))  # another port of that host is not this one
    with pytest.raises(AccessError):
        registry.build("llm", config).ready()

    port = server.url.rsplit(":", 1)[1]
    for allowed in ("127.0.0.1", f"127.0.0.1:{port}"):
        configure(allow_network=("example.com", allowed))
        assert registry.build("llm", config).similarity("a", "A") == 1.0
    assert server.count == 2
    assert all("Authorization" not in r["headers"] for r in server.requests)  # allowed, but no key

    monkeypatch.setenv("TEST_LLM_KEY", "sk-chosen")  # the user names the key for that host
    configure(allow_network=("127.0.0.1",), api_key_env="TEST_LLM_KEY")
    registry.build("llm", config).similarity("b", "B")
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-chosen"


def test_the_users_own_endpoint_gets_the_usual_key(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    configure(base_url=server.url + "/v1")
    registry.build("llm", {"model": "m", "cache": False}).similarity("a", "A")
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-openai"


def test_a_schema_may_not_name_the_key_variable():
    with pytest.raises(ComparatorConfigError) as err:
        registry.build("llm", {"model": "m", "api_key_env": "OPENAI_API_KEY"})
    assert err.value.key == "api_key_env"
    assert str(err.value) == (
        "LLMComparator option 'api_key_env': a schema cannot choose which secret is sent: "
        "name the variable on the command line with --llm-api-key-env NAME"
    )
    registry.build("llm", {"model": "m", "api_key_env": None})  # null asks for nothing
    [entry] = [e for e in registry.catalogue() if e["name"] == "LLMComparator"]
    assert "api_key_env" not in [o["name"] for o in entry["options"]]  # not offered as an option either


@pytest.mark.parametrize("value", [".stickler-cache/llm.sqlite", "/home/user/.mozilla/places.sqlite"])
def test_a_schema_may_switch_the_cache_but_not_place_it(value):
    with pytest.raises(ComparatorConfigError) as err:
        registry.build("llm", {"model": "m", "cache": value})
    assert err.value.key == "cache"
    assert "a schema cannot choose where files are written" in str(err.value) and "--llm-cache" in str(err.value)
    for switch in (True, False, None, ""):
        registry.build("llm", {"model": "m", "cache": switch})


@pytest.mark.parametrize(
    "entry", ["https://example.com", "", "exa mple.com", "example.com/v1", "user@example.com", "example.com:http"]
)
def test_allow_network_takes_a_host(entry):
    from stickler_cli.errors import UsageError

    with pytest.raises(UsageError, match="--allow-network takes a host name"):
        configure(allow_network=(entry,))


def test_redirects_are_not_followed(make, server, monkeypatch):
    """An endpoint answering 302 cannot send the key and the values elsewhere."""
    elsewhere = ChatServer()
    try:
        monkeypatch.setenv("TEST_LLM_KEY", "sk-secret")
        server.fail_next(3, 302, {"Location": elsewhere.url + "/v1/chat/completions"})
        c = make(access={"api_key_env": "TEST_LLM_KEY"}, max_retries=3)
        assert c.similarity("a", "A") == 0.0
        assert c.similarity("b", "B") == 0.0  # every request would redirect: no further calls
        assert elsewhere.count == 0 and server.count == 1
        first = c.drain_failures()[0]
        assert "HTTP 302" in first and "not followed" in first and elsewhere.url in first
    finally:
        elsewhere.close()


def _sqlite_file(path: Path, statements: list[str]) -> bytes:
    import sqlite3

    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path.read_bytes()


def test_the_default_cache_is_in_the_stickler_cache_directory(make, server, tmp_path, monkeypatch):
    configure(base_url=server.url + "/v1")
    registry.build("llm", {"model": "m"}).similarity("a", "A")
    home_cache = tmp_path / "home" / ".cache" / "stickler" / "llm.sqlite"
    assert home_cache.is_file()
    assert home_cache.stat().st_mode & 0o777 == 0o600  # it holds values from the data

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    registry.build("llm", {"model": "m"}).similarity("a", "A")
    assert (tmp_path / "xdg" / "stickler" / "llm.sqlite").is_file()

    monkeypatch.setenv("STICKLER_CACHE_DIR", str(tmp_path / "mine"))
    registry.build("llm", {"model": "m"}).similarity("a", "A")
    assert (tmp_path / "mine" / "llm.sqlite").is_file()

    configure(base_url=server.url + "/v1", cache=str(tmp_path / "given.sqlite"))  # --llm-cache wins
    registry.build("llm", {"model": "m"}).similarity("a", "A")
    assert (tmp_path / "given.sqlite").is_file()
    assert server.count == 4  # each was a new cache


@pytest.mark.parametrize(
    "statements",
    [
        ["CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)", "INSERT INTO moz_places VALUES (1, 'x')"],
        ["CREATE TABLE answers (key TEXT, score REAL, answer TEXT, created REAL, extra TEXT)"],  # not quite ours
        [
            "CREATE TABLE answers (key TEXT PRIMARY KEY, score REAL NOT NULL, answer TEXT NOT NULL, created REAL NOT NULL)",
            "CREATE TABLE other (x)",
        ],
    ],
)
def test_the_cache_never_opens_another_programs_sqlite_file(server, tmp_path, statements):
    target = tmp_path / "places.sqlite"
    before = _sqlite_file(target, statements)
    configure(base_url=server.url + "/v1", cache=str(target))
    c = registry.build("llm", {"model": "m"})
    with pytest.raises(AccessError) as err:
        c.similarity("a", "A")
    assert "is an sqlite file that stickler did not write" in str(err.value) and "--llm-cache" in str(err.value)
    assert err.value.key is None
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["places.sqlite"]  # no -wal, no -shm
    assert server.count == 0


def test_the_cache_refuses_a_file_that_is_not_sqlite(server, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("my notes\n")
    configure(base_url=server.url + "/v1", cache=str(target))
    with pytest.raises(AccessError, match="is not an sqlite file"):
        registry.build("llm", {"model": "m"}).ready()
    assert target.read_text() == "my notes\n"


def test_a_cache_written_before_the_marker_is_adopted(make, server, tmp_path):
    legacy = tmp_path / "cache" / "llm.sqlite"
    legacy.parent.mkdir()
    first = make()
    first.similarity("apple", "orange")
    first.close()
    import sqlite3

    with sqlite3.connect(legacy) as conn:  # as stickler wrote it before the marker table existed
        conn.execute("DROP TABLE stickler_llm_cache")
    second = make()
    assert second.similarity("apple", "orange") == 0.0
    assert server.count == 1  # the old answer was used
    second.close()
    with sqlite3.connect(legacy) as conn:
        assert conn.execute("SELECT format FROM stickler_llm_cache").fetchall() == [(1,)]


# -- bounds: one deadline per request, linear reading (issue 15, item 17) ------------------


class TrickleServer:
    """Accepts connections on 127.0.0.1, reads the request, then sends ``payload`` one byte per
    ``interval`` seconds. Stops by itself: after the payload, or when the client has gone."""

    def __init__(self, payload: bytes, interval: float) -> None:
        self.payload, self.interval = payload, interval
        self.sent = 0
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen()
        self.listener.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                length = int(re.search(rb"(?i)content-length: *(\d+)", data).group(1))
                while len(data.split(b"\r\n\r\n", 1)[1]) < length:
                    data += conn.recv(65536)
                for i in range(len(self.payload)):
                    if self.stopped.wait(self.interval):
                        return
                    try:
                        conn.sendall(self.payload[i : i + 1])
                    except OSError:
                        break  # the client gave up
                    self.sent += 1

    def close(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.listener.close()


ANSWER = json.dumps({"choices": [{"message": {"content": "true"}}]}).encode()


@pytest.mark.parametrize(
    "payload",
    [
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + b"a" * 40,  # headers trickle
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER),  # the whole reply trickles
    ],
)
def test_timeout_bounds_the_whole_response(payload, tmp_path):
    """One byte every 0.2 s never trips a per-read timeout of 1 s; the deadline does."""
    server = TrickleServer(payload, 0.2)
    try:
        configure(base_url=server.url, cache=str(tmp_path / "c.sqlite"))
        c = registry.build("llm", {"model": "m", "timeout": 1.0, "max_retries": 0})
        started = time.monotonic()
        assert c.similarity("a", "A") == 0.0
        elapsed = time.monotonic() - started
        assert elapsed < 2.0, elapsed  # per read, this took len(payload) * 0.2 s (8 s and more)
        [failure] = c.drain_failures()
        assert "no complete response from" in failure and "within 1s" in failure
        assert server.sent < 10
    finally:
        server.close()


def test_a_quick_response_is_not_cut(make, server):
    c = make(timeout=5.0)
    assert c.similarity("a", "A") == 1.0 and c.drain_failures() == []


def test_response_size_is_bounded_by_a_limit_the_user_can_raise(make, server):
    from stickler_cli import limits

    server.pad = 2 * 2**20
    c = make(cache=False)
    assert c.similarity("a", "A") == 0.0
    [failure] = c.drain_failures()
    assert "is over 1048576 bytes" in failure and "--limit llm-response-bytes=SIZE" in failure
    limits.use(limits.Limits(llm_response_bytes=4 * 2**20))
    try:
        assert make(cache=False).similarity("b", "B") == 1.0
    finally:
        limits.use(limits.DEFAULT)


def test_a_deeply_nested_body_is_an_ordinary_failure(make, server):
    server.body = b"[" * 200_000
    c = make()
    assert c.similarity("a", "A") == 0.0
    [failure] = c.drain_failures()
    assert "not a chat-completions response" in failure


ADVERSARIAL_REPLIES = [
    "a" + " " * 99_000 + "b",  # 16 s of CPU with the fence regex
    "```" + " " * 99_000 + "x",
    "x" + " " * 99_000 + "```",
    "``` " * 24_000,
    "\n" * 99_000 + "true",
    " \t" * 49_000 + "```json",
    "<think>" * 14_000,
    "not " * 24_000 + "true",
    "[" * 3_000,
    "{" * 3_900,
    "equivalent " * 9_000,
]


def test_reading_a_reply_takes_linear_time():
    from stickler_cli.comparators import llm

    assert not isinstance(getattr(llm, "_FENCE", None), re.Pattern)
    spent = []
    for reply in ADVERSARIAL_REPLIES:
        started = time.process_time()
        parse_answer(reply)
        spent.append(time.process_time() - started)
    assert sum(spent) < 0.5, spent
    assert parse_answer("[" * 3_000) is None  # too deep to be a verdict, and no RecursionError


@pytest.mark.parametrize(
    "reply",
    ['```json\n{"equivalent": true}\n```', "```\ntrue\n```", "``` false ```", "```yes", "no```", "````", "```TRUE```"],
)
def test_fences_read_as_before(reply):
    old = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
    from stickler_cli.comparators.llm import _strip_fence

    assert _strip_fence(reply) == old.sub("", reply)
