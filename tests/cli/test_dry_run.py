"""`stickler eval --dry-run` (issue 40): what a run would ask its judges, counted against a local counting
chat server (tests/support/chat_server.py) without asking it anything.

The data set (``_files``), worked by hand. ``name`` and ``items[].desc`` are judged by LLMComparator.

    doc  name (gt / pred)         items (gt / pred)
    1    "Acme Inc" / "Acme Inc"   [a1, a2, a3] / [A1, b2]
    2    "St. John" / "st john"    -
    3    "St. John" / "st john"    -
    4    "apple" / "orange"        -
    5    "apple" / "apple"         -

``name``: 5 pairs; identical: docs 1 and 5 (2); the other 3 are 2 distinct pairs (docs 2 and 3 are the
same pair): 1 duplicate, 2 requests.
``items.desc``: the full matrix of doc 1, 3 × 2 = 6 pairs (a1/A1, a1/b2, a2/A1, a2/b2, a3/A1, a3/b2); none
identical ("a1" is not "A1"), all distinct: 6 requests.
In all: 11 pairs, 2 identical, 1 duplicate, 8 requests.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from stickler_cli.cli.app import main
from tests.support.chat_server import ChatServer, clean_env, server  # noqa: F401 (fixtures)

LLM = {"x-aws-stickler-comparator": "LLMComparator", "x-aws-stickler-comparator-config": {"model": "judge"}}
GT = [
    {"name": "Acme Inc", "items": [{"desc": "a1"}, {"desc": "a2"}, {"desc": "a3"}]},
    {"name": "St. John"},
    {"name": "St. John"},
    {"name": "apple"},
    {"name": "apple"},
]
PRED = [
    {"name": "Acme Inc", "items": [{"desc": "A1"}, {"desc": "b2"}]},
    {"name": "st john"},
    {"name": "st john"},
    {"name": "orange"},
    {"name": "apple"},
]
COLUMNS = ("pairs", "identical", "duplicates", "not_sent", "cached", "requests")


def _files(tmp_path: Path, judged: bool = True) -> list[str]:
    name = {"type": "string", **(LLM if judged else {})}
    desc = {"type": "string", **(LLM if judged else {})}
    schema = {
        "type": "object",
        "properties": {
            "name": name,
            "items": {"type": "array", "items": {"type": "object", "properties": {"desc": desc}}},
        },
    }
    paths = [tmp_path / "data" / n for n in ("schema.json", "gt.jsonl", "pred.jsonl")]
    paths[0].parent.mkdir()
    paths[0].write_bytes(orjson.dumps(schema))
    for path, records in zip(paths[1:], (GT, PRED)):
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return [str(p) for p in paths]


def _dry(files: list[str], server: ChatServer, capsys, *extra: str) -> dict:
    assert main(["eval", *files, "--llm-base-url", server.url + "/v1", "--dry-run", "-f", "json", *extra]) == 0
    return orjson.loads(capsys.readouterr().out)


def _counts(bill: dict) -> dict[str, tuple[int, ...]]:
    return {f["path"]: tuple(f[c] for c in COLUMNS) for f in bill["fields"]}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_dry_run_asks_nothing_and_writes_nothing(server, tmp_path, capsys):
    files = _files(tmp_path)
    before = _tree(tmp_path)  # the data, and no answer cache in $HOME (clean_env points it into tmp_path)
    outputs = ["-o", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")]
    outputs += ["--save-state", str(tmp_path / "s.state"), "--junit", str(tmp_path / "j.xml")]
    bill = _dry(files, server, capsys, *outputs)
    assert server.count == 0
    assert _tree(tmp_path) == before
    assert bill["total"]["requests"] == 8
    err = capsys.readouterr().err
    # Said in one line, on stderr (the JSON on stdout stays the bill).
    assert main(["eval", *files, "--llm-base-url", server.url + "/v1", "--dry-run", *outputs]) == 0
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "not written" in line]
    assert said == [
        f"stickler: dry run: not written: --output {tmp_path}/r.json, --save-state {tmp_path}/s.state, "
        f"--junit {tmp_path}/j.xml, --html {tmp_path}/r.html"
    ]
    assert server.count == 0 and _tree(tmp_path) == before


def test_the_count_per_field_is_the_hand_worked_one(server, tmp_path, capsys):
    """The module docstring works these out."""
    bill = _dry(_files(tmp_path), server, capsys)
    assert bill["documents"] == 5 and bill["record_problems"] == 0
    assert _counts(bill) == {"name": (5, 2, 1, 0, 0, 2), "items.desc": (6, 0, 0, 0, 0, 6)}
    assert [bill["total"][c] for c in COLUMNS] == [11, 2, 1, 0, 0, 8]
    assert server.count == 0


def test_the_table_fits_80_columns_and_sums(server, tmp_path, capsys):
    files = _files(tmp_path)
    assert main(["eval", *files, "--llm-base-url", server.url + "/v1", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:5]}
    assert rows == {
        "name": ["5", "2", "1", "0", "0", "2", rows["name"][-1]],
        "items.desc": ["6", "0", "0", "0", "0", "6", rows["items.desc"][-1]],
        "total": ["11", "2", "1", "0", "0", "8", rows["total"][-1]],
    }
    assert out.startswith("Dry run: 5 documents; nothing was asked and no file was written.\n")


@pytest.mark.parametrize("pairing, requests", [("full", 8), ("proxy", 4)])
def test_the_count_equals_the_next_real_runs_requests(server, tmp_path, capsys, pairing, requests):
    """The dry run's requests and characters are what the real run then sends (identical values not sent,
    each distinct pair asked once). Characters: the system and user messages. Under --judge-pairing proxy
    the 3 x 2 list asks only the 2 pairs the proxy chooses: 2 (name) + 2 (items.desc) = 4."""
    files = _files(tmp_path)
    bill = _dry(files, server, capsys, "--judge-pairing", pairing)
    assert server.count == 0
    assert main(["eval", *files, "--llm-base-url", server.url + "/v1", "-f", "json", "--judge-pairing", pairing]) == 0
    capsys.readouterr()
    sent = sum(len(m["content"]) for r in server.requests for m in r["body"]["messages"])
    assert (server.count, sent) == (bill["total"]["requests"], bill["total"]["characters"])
    assert server.count == requests


def test_answers_in_the_cache_are_not_counted(server, tmp_path, capsys):
    """After a real run with the cache on (the default), every distinct non-identical pair (2 + 6) is answered
    by the cache: the dry run counts 8 cached and 0 requests, and leaves the cache file and its write-ahead log as
    they were (the real run's connection is still open in this process, so the dry run reads the log too; SQLite's
    shared-memory index beside them, llm.sqlite-shm, is the readers' and writers' locks, not data)."""
    files = _files(tmp_path)
    assert main(["eval", *files, "--llm-base-url", server.url + "/v1", "-f", "json"]) == 0
    capsys.readouterr()
    asked = server.count
    cache = tmp_path / "home" / ".cache" / "stickler"
    before = {name: data for name, data in _tree(cache).items() if not name.endswith("-shm")}
    assert "llm.sqlite" in before
    bill = _dry(files, server, capsys)
    assert server.count == asked
    assert _counts(bill) == {"name": (5, 2, 1, 0, 2, 0), "items.desc": (6, 0, 0, 0, 6, 0)}
    assert bill["total"]["requests"] == 0 and bill["total"]["characters"] == 0
    assert {name: data for name, data in _tree(cache).items() if not name.endswith("-shm")} == before

    # Another endpoint is another cache key: nothing cached for it.
    assert main(["eval", *files, "--llm-base-url", "http://127.0.0.1:9/v1", "--dry-run", "-f", "json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["total"]["requests"] == 8


def test_a_schema_with_no_judged_field_has_nothing_to_ask(server, tmp_path, capsys):
    files = _files(tmp_path, judged=False)
    assert main(["eval", *files, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out == (
        "Dry run: 5 documents; nothing was asked and no file was written.\n"
        "Nothing to ask: no field of this schema calls a model (an LLM or embeddings).\n"
    )
    assert main(["eval", *files, "--dry-run", "-f", "json"]) == 0
    bill = orjson.loads(capsys.readouterr().out)
    assert bill["fields"] == [] and bill["total"]["requests"] == 0 and bill["note"].startswith("nothing to ask")
    assert server.count == 0


def test_bad_records_are_counted_as_a_run_counts_them(server, tmp_path, capsys):
    files = _files(tmp_path)
    pred = Path(files[2])
    lines = pred.read_bytes().splitlines(keepends=True)
    pred.write_bytes(b"".join([*lines[:3], b"{not json\n", *lines[4:]]))  # doc 4 (apple / orange) unreadable
    assert main(["eval", *files, "--llm-base-url", server.url + "/v1", "--dry-run", "-f", "json"]) == 0
    out, err = capsys.readouterr()
    bill = orjson.loads(out)
    assert bill["record_problems"] == 1
    # doc 4's prediction is scored as {}: its name pair is gone (4 pairs, 1 request fewer).
    assert _counts(bill)["name"] == (4, 2, 1, 0, 0, 1)
    assert f"stickler: warning: 1 record problem(s), read as a run reads them; the first: {pred}:4: " in err


def test_the_records_are_read_a_batch_at_a_time_and_pairs_counted_across_batches(server, tmp_path, capsys):
    """600 documents are three of the run's batches (256, 256, 88), never held at once; the same pair in every
    document is one request however many batches it spans: 600 pairs, 599 duplicates, 1 request."""
    from stickler_cli.cli import dry_run
    from stickler_cli.run.scoring import BATCH

    files = _files(tmp_path)
    Path(files[1]).write_bytes(b'{"name": "St. John"}\n' * 600)
    Path(files[2]).write_bytes(b'{"name": "st john"}\n' * 600)
    sizes = []
    real_count = dry_run.count

    def counting(plan, batches, judge_pairing="full"):
        def sized():
            for batch in batches:
                sizes.append(len(batch))
                yield batch

        return real_count(plan, sized(), judge_pairing)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dry_run, "count", counting)
        bill = _dry(files, server, capsys)
    assert BATCH == 256 and sizes == [256, 256, 88]
    assert bill["documents"] == 600
    assert _counts(bill)["name"] == (600, 0, 599, 0, 0, 1)
    assert server.count == 0
