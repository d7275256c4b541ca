"""The command line decides where LLMComparator sends values and which key goes with them
(issue 15, item 8): a schema naming a host or a key variable is refused unless the user says so,
and commands that only compile a schema (schema check, merge) need no endpoint at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from stickler_cli.cli.app import main
from tests.support.chat_server import ENV_VARS, ChatServer, clean_env, server  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[2]
POINTER = "/properties/name/x-aws-stickler-comparator-config"


def _files(tmp_path: Path, config: dict) -> tuple[str, str, str]:
    schema = tmp_path / "schema.json"
    schema.write_bytes(
        orjson.dumps(
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "x-aws-stickler-comparator": "LLMComparator",
                        "x-aws-stickler-threshold": 1.0,
                        "x-aws-stickler-comparator-config": {"model": "judge", **config},
                    }
                },
            }
        )
    )
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_text('{"name": "St. John"}\n{"name": "apple"}\n')
    pred.write_text('{"name": "st john"}\n{"name": "orange"}\n')
    return str(schema), str(gt), str(pred)


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("stickler: error: ") and err.count("\n") == 1, err
    return err


def test_the_key_is_not_sent_to_a_host_the_schema_chose(server, tmp_path, monkeypatch, capsys):
    """The attack of issue 15: a schema's base_url received $OPENAI_API_KEY."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    schema, gt, pred = _files(tmp_path, {"base_url": server.url + "/v1"})
    assert main(["eval", schema, gt, pred]) == 2
    err = _one_line_error(capsys)
    assert f"{schema}: {POINTER}/base_url: the schema sends values to 127.0.0.1" in err
    assert "--allow-network 127.0.0.1" in err and "--llm-base-url URL" in err
    assert server.count == 0

    assert main(["eval", schema, gt, pred, "--allow-network", "127.0.0.1", "--format", "json"]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert (report["field_metrics"]["name"]["tp"], report["field_metrics"]["name"]["fd"]) == (1, 1)
    assert server.count == 2
    assert all("Authorization" not in r["headers"] for r in server.requests)


def test_the_users_endpoint_gets_the_key(server, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    schema, gt, pred = _files(tmp_path, {"base_url": "https://schema-host.example/v1"})
    assert main(["eval", schema, gt, pred, "--llm-base-url", server.url + "/v1", "--format", "json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["field_metrics"]["name"]["tp"] == 1
    assert [r["headers"]["Authorization"] for r in server.requests] == ["Bearer sk-openai"] * 2

    monkeypatch.setenv("TEST_LLM_KEY", "sk-chosen")
    schema, gt, pred = _files(tmp_path, {"cache": False})
    assert (
        main(
            [
                "compare",
                schema,
                '{"name": "a"}',
                '{"name": "A"}',
                "--format",
                "json",
                "--llm-base-url",
                server.url + "/v1",
                "--llm-api-key-env",
                "TEST_LLM_KEY",
            ]
        )
        == 0
    )
    assert orjson.loads(capsys.readouterr().out)["score"] == 1.0
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-chosen"

    assert main(["eval", schema, gt, pred, "--llm-base-url", server.url, "--llm-api-key-env", "NOT_SET_X"]) == 2
    assert "--llm-api-key-env names $NOT_SET_X, which is not set" in _one_line_error(capsys)


def test_schema_check_and_merge_need_no_endpoint_and_send_nothing(server, tmp_path, monkeypatch, capsys):
    schema, gt, pred = _files(tmp_path, {"base_url": "https://schema-host.example/v1"})
    assert main(["schema", "check", schema]) == 0
    capsys.readouterr()
    state = str(tmp_path / "run.state.json")
    monkeypatch.setenv("STICKLER_LLM_BASE_URL", server.url + "/v1")
    assert (
        main(["eval", schema, gt, pred, "--save-state", state, "--format", "json", "--allow-network", "1.2.3.4"]) == 2
    )  # the schema's base_url needs its own host allowed, the environment notwithstanding
    assert "--allow-network schema-host.example" in _one_line_error(capsys)
    assert (
        main(
            ["eval", schema, gt, pred, "--llm-base-url", server.url + "/v1", "--save-state", state, "--format", "json"]
        )
        == 0
    )
    evaluated = orjson.loads(capsys.readouterr().out)
    assert server.count == 2

    # Merging re-explains the worst documents: answers come from the cache, nothing is sent.
    assert main(["merge", state, "--format", "json"]) == 0
    merged = orjson.loads(capsys.readouterr().out)
    assert merged["field_metrics"] == evaluated["field_metrics"]
    assert merged["worst_documents"] == evaluated["worst_documents"]
    assert server.count == 2

    monkeypatch.delenv("STICKLER_LLM_BASE_URL")  # no endpoint at all: still merges, still sends nothing
    assert main(["merge", state, "--format", "json"]) == 0
    merged = orjson.loads(capsys.readouterr().out)
    assert merged["field_metrics"] == evaluated["field_metrics"]
    assert server.count == 2


def test_without_an_endpoint_scoring_stops_before_reading(tmp_path, capsys):
    schema, gt, pred = _files(tmp_path, {})
    assert main(["eval", schema, gt, pred]) == 2
    err = _one_line_error(capsys)
    assert err == (
        f"stickler: error: {schema}: /properties/name/x-aws-stickler-comparator: LLMComparator has no "
        "endpoint: give --llm-base-url URL or set $STICKLER_LLM_BASE_URL\n"
    )


@pytest.mark.parametrize(
    "config, key, message",
    [
        ({"api_key_env": "OPENAI_API_KEY"}, "api_key_env", "--llm-api-key-env NAME"),
        ({"cache": "/home/user/.mozilla/places.sqlite"}, "cache", "a schema cannot choose where files are written"),
    ],
)
def test_a_schema_naming_a_secret_or_a_path_is_refused_everywhere(config, key, message, tmp_path, capsys):
    schema, gt, pred = _files(tmp_path, config)
    for args in (["schema", "check", schema], ["eval", schema, gt, pred, "--llm-base-url", "http://127.0.0.1:9"]):
        assert main(args) == 2
        err = _one_line_error(capsys)
        assert f"{POINTER}/{key}:" in err and message in err


def test_a_foreign_cache_file_stops_the_run_untouched(server, tmp_path, capsys):
    import sqlite3

    target = tmp_path / "app.db"
    with sqlite3.connect(target) as conn:
        conn.execute("CREATE TABLE accounts (id INTEGER, balance REAL)")
    before = target.read_bytes()
    schema, gt, pred = _files(tmp_path, {})
    assert main(["eval", schema, gt, pred, "--llm-base-url", server.url, "--llm-cache", str(target)]) == 2
    assert "is an sqlite file that stickler did not write (tables: accounts)" in _one_line_error(capsys)
    assert target.read_bytes() == before and server.count == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--llm-base-url", "ftp://x"], "--llm-base-url must start with http:// or https://"),
        (["--allow-network", "https://x.example/v1"], "--allow-network takes a host name"),
    ],
)
def test_bad_network_options_are_usage_errors(args, message, tmp_path, capsys):
    schema, gt, pred = _files(tmp_path, {})
    assert main(["eval", schema, gt, pred, *args]) == 2
    assert message in _one_line_error(capsys)


def test_worker_processes_use_the_users_endpoint_and_key(server, tmp_path):
    """Workers rebuild the plan from the schema: the user's settings travel with it, the key does not
    (each worker reads it from its own environment)."""
    schema, gt, pred = _files(tmp_path, {"cache": False})
    Path(gt).write_text('{"name": "St. John"}\n{"name": "apple"}\n' * 300)
    Path(pred).write_text('{"name": "st john"}\n{"name": "orange"}\n' * 300)
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    env.update(PYTHONPATH=str(ROOT), TEST_LLM_KEY="sk-workers", HOME=str(tmp_path / "home"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "stickler_cli",
            "eval",
            schema,
            gt,
            pred,
            "--workers",
            "2",
            "--llm-base-url",
            server.url + "/v1",
            "--llm-api-key-env",
            "TEST_LLM_KEY",
            "--format",
            "json",
        ],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()
    name = orjson.loads(done.stdout)["field_metrics"]["name"]
    assert (name["tp"], name["fd"]) == (300, 300)
    assert server.count >= 2
    assert {r["headers"].get("Authorization") for r in server.requests} == {"Bearer sk-workers"}


KEY = "sk-proj-Zq81Lw0pXvT7mNcq"


def _echo_headers(headers: dict[str, str]) -> bytes:
    """An error page that echoes the request, as some proxies and debugging servers do."""
    return (
        f"<html><body>bad request; you sent Authorization: {headers.get('Authorization')} "
        f'and "api_key": "{KEY}"</body></html>'
    ).encode()


def test_error_bodies_never_carry_the_key_into_any_output(server, tmp_path, monkeypatch, capsys):
    """Issue 37, item 13: an error body echoing the Authorization header put the key in `errors` (JSON, HTML,
    state); a base URL with a query got /chat/completions after the query. The key and the query's token are
    redacted from every error text, and the path goes before the query."""
    monkeypatch.setenv("TEST_LLM_KEY", KEY)
    schema, gt, pred = _files(tmp_path, {"cache": False, "max_retries": 0})
    server.error_body = _echo_headers
    server.fail_next(2, 400)
    report, page, state = (str(tmp_path / name) for name in ("report.json", "report.html", "state.json"))
    code = main(
        [
            "eval",
            schema,
            gt,
            pred,
            "--llm-base-url",
            server.url + "/v1/?token=qs-9f8e7d6c5b",
            "--llm-api-key-env",
            "TEST_LLM_KEY",
            "-o",
            report,
            "--html",
            page,
            "--save-state",
            state,
            "--format",
            "json",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert [r["path"] for r in server.requests] == ["/v1/chat/completions?token=qs-9f8e7d6c5b"] * 2
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {KEY}"
    errors = [e["message"] for e in orjson.loads(out.out)["errors"]]
    assert len(errors) == 2 and all(
        "HTTP 400 from http://127.0.0.1:" in e and "/v1/chat/completions?…" in e for e in errors
    ), errors
    assert all("Authorization: [redacted]" in e and '"api_key": "[redacted]"' in e for e in errors), errors
    for text in (out.out, out.err, *(Path(p).read_text() for p in (report, page, state))):
        assert KEY not in text and "qs-9f8e7d6c5b" not in text and "sk-proj" not in text


@pytest.mark.parametrize(
    "text, secrets, expected",
    [
        ("Authorization: Bearer abc.def-123 rest", [], "Authorization: [redacted] rest"),
        ('{"authorization": "Bearer abc"}', [], '{"authorization": "[redacted]"}'),
        ("token bearer xyz123, then", [], "token bearer [redacted], then"),
        ("GET /v1?api-key=K1234567&x=1", [], "GET /v1?api-key=[redacted]&x=1"),
        ("https://h/v1?access_token=t0k3n#f", [], "https://h/v1?access_token=[redacted]#f"),
        ("key sk-abcdefgh12345678 leaked", [], "key [redacted] leaked"),
        ("echo: hunter2hunter2!", ["hunter2hunter2"], "echo: [redacted]!"),
        ("nothing secret here: sk-1, a bearer", [], "nothing secret here: sk-1, a bearer"),
    ],
)
def test_redact(text, secrets, expected):
    from stickler_cli.comparators.llm import redact

    assert redact(text, secrets) == expected


def test_a_base_url_query_is_kept_after_the_path_and_never_shown(capsys, tmp_path):
    from stickler_cli.comparators.llm import _endpoint_of

    assert (
        _endpoint_of("https://gw.example/v1/?token=T#frag", "--llm-base-url")
        == "https://gw.example/v1/chat/completions?token=T"
    )
    assert (
        _endpoint_of("https://gw.example/openai/chat/completions?k=1", "x")
        == "https://gw.example/openai/chat/completions?k=1"
    )
    schema, gt, pred = _files(tmp_path, {})
    assert main(["eval", schema, gt, pred, "--llm-base-url", "ftp://gw.example/v1?token=SECRET77"]) == 2
    err = _one_line_error(capsys)
    assert "ftp://gw.example/v1?…" in err and "SECRET77" not in err
