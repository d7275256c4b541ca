"""`stickler eval --save-state` on parts, then `stickler merge`, equals one `stickler eval`."""

import base64
import json
import os
import shutil
from pathlib import Path

import numpy as np
import orjson
import pytest

from tests.support.datagen import generate
from tests.support.reports import assert_same, assert_same_reordered, run

N_DOCS = 300


def lines_of(rows):
    return [orjson.dumps(r).decode() for r in rows]


def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


def make_data(root, tmp_path):
    """A schema copy, the whole dataset and its two halves (a broken prediction in each half)."""
    schema = tmp_path / "s.json"
    shutil.copy(root / "schemas/invoice.json", schema)
    gts, preds = generate(str(schema), N_DOCS, 23, confidence=True)
    gt_lines, pred_lines = lines_of(gts), lines_of(preds)
    for k in (40, 200):
        pred_lines[k] = pred_lines[k][:-7]
    half = N_DOCS // 2
    paths = {
        "schema": schema,
        "gt": write_lines(tmp_path / "gt.jsonl", gt_lines),
        "pred": write_lines(tmp_path / "pred.jsonl", pred_lines),
    }
    for name, lo, hi in (("1", 0, half), ("2", half, N_DOCS)):
        paths["gt" + name] = write_lines(tmp_path / f"gt_part{name}.jsonl", gt_lines[lo:hi])
        paths["pred" + name] = write_lines(tmp_path / f"pred_part{name}.jsonl", pred_lines[lo:hi])
    return paths


@pytest.fixture
def data(root, tmp_path):
    return make_data(root, tmp_path)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Shared, read-only: the data, the two halves' states and the whole run's report."""
    from tests.conftest import ROOT

    d = tmp_path_factory.mktemp("merge")
    paths = make_data(ROOT, d)
    paths["a"], paths["b"] = save_states(paths, d)
    paths["whole"] = whole_report(paths)
    return paths


def save_states(data, tmp_path):
    states = []
    for name, state in (("1", "a"), ("2", "b")):
        target = tmp_path / f"{state}.state.json"
        done = run(
            "eval", data["schema"], data["gt" + name], data["pred" + name], "--save-state", target, "--format", "json"
        )
        assert done.returncode == 0, done.stderr
        assert target.is_file()
        states.append(target)
    return states


def whole_report(data):
    """The whole run, keeping the failure samples as the halves' saved states do."""
    import tempfile

    page = Path(tempfile.mkdtemp()) / "whole.html"
    done = run("eval", data["schema"], data["gt"], data["pred"], "--format", "json", "--html", page)
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout)


def assert_merge_equals_whole(merged, whole):
    assert merged["document_count"] == whole["document_count"] == N_DOCS
    assert merged["confidence_metrics"] is not None
    assert merged["inputs"]["records"] == whole["inputs"]["records"]
    # The errors name the part files and their line numbers; their messages are the same.
    assert [e["message"] for e in merged["errors"]] == [e["message"] for e in whole["errors"]]
    assert len(merged["errors"]) == 2
    assert_same_reordered(merged, whole, ignore=("elapsed_seconds", "inputs", "errors"))


def test_merge_of_two_halves_equals_whole_run(saved):
    a, b = saved["a"], saved["b"]
    done = run("merge", a, b, "--format", "json")
    assert done.returncode == 0, done.stderr
    merged = orjson.loads(done.stdout)
    assert merged["inputs"]["states"] == [str(a), str(b)]
    assert_merge_equals_whole(merged, saved["whole"])
    swapped = run("merge", b, a, "--format", "json")
    assert swapped.returncode == 0, swapped.stderr
    # b then a: the errors come in the other order; everything else is the same
    swapped = orjson.loads(swapped.stdout)
    assert swapped["errors"] == merged["errors"][1:] + merged["errors"][:1]
    assert_same_reordered(swapped, merged, ignore=("elapsed_seconds", "inputs", "errors"), in_order=False)


def test_state_embeds_the_schema(data, tmp_path):
    a, b = save_states(data, tmp_path)
    state = orjson.loads(a.read_bytes())
    assert state["schema"] == orjson.loads(data["schema"].read_bytes())
    whole = whole_report(data)
    data["schema"].unlink()
    done = run("merge", a, b, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert_merge_equals_whole(orjson.loads(done.stdout), whole)


def test_merge_save_state_roundtrips(saved, tmp_path):
    a, b = saved["a"], saved["b"]
    ab = tmp_path / "ab.state.json"
    first = run("merge", a, b, "--save-state", ab, "--format", "json")
    assert first.returncode == 0, first.stderr
    again = run("merge", ab, "--format", "json")
    assert again.returncode == 0, again.stderr
    assert_same(orjson.loads(again.stdout), orjson.loads(first.stdout), ignore=("elapsed_seconds", "inputs"))


def test_states_of_different_schemas_do_not_merge(root, saved, tmp_path):
    a = saved["a"]
    other = tmp_path / "other.state.json"
    done = run(
        "eval",
        root / "schemas/shipment.json",
        root / "fixtures/shipment/gt.jsonl",
        root / "fixtures/shipment/pred.jsonl",
        "--save-state",
        other,
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    done = run("merge", a, other)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(other) in done.stderr
    assert "different schema" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"{this is not json", "not valid JSON"),
        (b'{"document_count": 3}', "not a stickler state file"),
        (b"[1, 2, 3]", "not a stickler state file"),
    ],
)
def test_not_a_state_file_is_one_line_exit_2(saved, tmp_path, content, expected):
    a = saved["a"]
    bad = tmp_path / "bad.state.json"
    bad.write_bytes(content)
    done = run("merge", a, bad)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(bad) in done.stderr and expected in done.stderr


def test_missing_state_file_is_one_line_exit_2(saved, tmp_path):
    a = saved["a"]
    done = run("merge", a, tmp_path / "nope.state.json")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "nope.state.json" in done.stderr


def test_save_state_never_overwrites_an_input(data, saved, tmp_path):
    before = data["gt"].read_bytes()
    done = run("eval", data["schema"], data["gt"], data["pred"], "--save-state", data["gt"])
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "refusing to overwrite an input file" in done.stderr
    assert data["gt"].read_bytes() == before
    done = run("eval", data["schema"], data["gt"], data["pred"], "--save-state", data["schema"])
    assert done.returncode == 2
    a, b = tmp_path / "a.state.json", tmp_path / "b.state.json"
    shutil.copy(saved["a"], a)
    shutil.copy(saved["b"], b)
    state_before = a.read_bytes()
    done = run("merge", a, b, "--save-state", a)
    assert done.returncode == 2 and "refusing to overwrite an input file" in done.stderr
    assert a.read_bytes() == state_before


def test_save_state_and_output_must_differ(data, tmp_path):
    target = tmp_path / "same.json"
    done = run("eval", data["schema"], data["gt"], data["pred"], "--save-state", target, "-o", target)
    assert done.returncode == 2 and "same file" in done.stderr


def test_merge_save_state_and_output_must_differ(saved, tmp_path):
    target = tmp_path / "both.json"
    done = run("merge", saved["a"], saved["b"], "--save-state", target, "-o", target)
    assert done.returncode == 2 and "same file" in done.stderr and not target.exists()


def test_merge_table_format_prints_the_field_table(saved):
    done = run("merge", saved["a"], saved["b"])
    assert done.returncode == 0, done.stderr
    assert "customer_name" in done.stdout and "total_amount" in done.stdout
    assert "Weighted score" in done.stdout


# -- a state file is untrusted: every value is checked on load (issue 15, item 16) ----------------


def _digest(state):
    from stickler_cli.run.accumulate import schema_digest

    state["schema_digest"] = schema_digest(state["schema"])


def _reweighted(state):
    state["schema"]["properties"]["total_amount"]["x-aws-stickler-weight"] = 50.0


def _remote_ref(state):
    state["schema"]["properties"]["customer_name"] = {"$ref": "other.json#/$defs/Name"}
    _digest(state)


def _shifted_histogram(state):
    state["score_histogram"][0] += 1


def _truncated_confidence(state):
    state["confidence"]["value"].pop()


TAMPERED = [
    (
        "negative count",
        lambda s: s["counts"][2].__setitem__(0, -5),
        "/counts/2/0: must be a non-negative integer, got -5",
    ),
    ("schema edited, hash kept", _reweighted, "/schema: the embedded schema does not match the state's schema_digest"),
    (
        "one-bin histogram",
        lambda s: s.__setitem__("score_histogram", [s["document_count"]]),
        "/score_histogram: must hold 20 values, holds 1",
    ),
    ("histogram not adding up", _shifted_histogram, "/score_histogram: counts 151 documents, the state 150"),
    (
        "count as a string",
        lambda s: s.__setitem__("document_count", "150"),
        "/document_count: must be a non-negative integer, got '150'",
    ),
    (
        "count as a boolean",
        lambda s: s["stats"].__setitem__("paired", True),
        "/stats/paired: must be a non-negative integer, got True",
    ),
    (
        "score sum beyond the documents",
        lambda s: s.__setitem__("score_sum", 151.0),
        "/score_sum: must be between 0 and 150, got 151.0",
    ),
    ("truncated field sums", lambda s: s["field_score_sum"].pop(), "/field_score_sum: must hold 8 values, holds 7"),
    ("truncated confidence column", _truncated_confidence, "/confidence/value: must hold"),
    (
        "confidence above 1",
        lambda s: s["confidence"]["value"].__setitem__(0, 1.5),
        "/confidence/value/0: must be between 0 and 1, got 1.5",
    ),
    (
        "confidence of no field",
        lambda s: s["confidence"]["field"].__setitem__(0, 99),
        "/confidence/field/0: must be a field index from 0 to 7, got 99",
    ),
    (
        "overall not the top-level sum",
        lambda s: s["overall"].__setitem__(0, s["overall"][0] + 1),
        "/overall: must be the sum of the top-level fields' counts",
    ),
    (
        "a field renamed",
        lambda s: s["fields"].__setitem__(1, "customer"),
        "/fields/1: must be 'customer_name', the schema's field there, got 'customer'",
    ),
    (
        "more valid than checked",
        lambda s: s["conformance"].__setitem__("valid", 10**6),
        "/conformance/valid: must be at most the 149 predictions checked, got 1000000",
    ),
    (
        "worst document without ground truth",
        lambda s: s["worst"][0].__setitem__("gt", [1, 2]),
        "/worst/0/gt: must be an object, got list",
    ),
    (
        "worst document beyond the run",
        lambda s: s["worst"][0].__setitem__("position", 150),
        "/worst/0/position: must be below the document count 150, got 150",
    ),
    # Counts each possible alone that do not add up as a run's do ("-493 of 7" predictions valid, before).
    (
        "more ground-truth lines than documents",
        lambda s: s["stats"].__setitem__("gt_lines", 1000),
        "/stats/gt_lines: must equal the document_count (150), got 1,000",
    ),
    # coverage above 1 and record rates over a denominator the documents do not make (issue 37)
    (
        "documents neither paired nor missing",
        lambda s: s["stats"].__setitem__("missing_predictions", 5),
        "/stats/gt_lines: must equal paired + missing_predictions (155), got 150",
    ),
    (
        "prediction lines neither paired nor unpaired",
        lambda s: s["stats"].__setitem__("pred_lines", 7),
        "/stats/pred_lines: must equal paired + unpaired_predictions (150), got 7",
    ),
    (
        "more invalid predictions than lines",
        lambda s: s["stats"].__setitem__("invalid_predictions", 500),
        "/stats/pred_lines: must equal invalid_predictions + conformance.checked (649), got 150",
    ),
    ("unknown key", lambda s: s.__setitem__("extra", 1), "/extra: unknown key"),
    ("missing key", lambda s: s.pop("errors"), "bad.state.json: missing key 'errors'"),
    ("older version", lambda s: s.__setitem__("state_version", 4), "/state_version: state version 4 is not supported"),
]


@pytest.mark.parametrize("edit, expected", [case[1:] for case in TAMPERED], ids=[case[0] for case in TAMPERED])
def test_tampered_states_are_refused_naming_file_and_pointer(saved, tmp_path, edit, expected):
    state = orjson.loads(saved["a"].read_bytes())
    edit(state)
    bad = tmp_path / "bad.state.json"
    bad.write_bytes(orjson.dumps(state))
    for args in (("merge", saved["b"], bad), ("merge", bad)):
        done = run(*args, "--format", "json")
        assert done.returncode == 2, done.stdout[:200]
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert done.stderr.startswith(f"stickler: error: {bad}: ") and expected in done.stderr, done.stderr
        assert done.stdout == ""


def test_an_embedded_schema_is_compiled_as_any_schema_and_named_by_its_state(saved, tmp_path):
    """Digest recomputed, schema sha256 kept: alone, its schema is compiled (a file reference is refused,
    never read); beside an honest state, the two schemas differ."""
    state = orjson.loads(saved["a"].read_bytes())
    _remote_ref(state)
    bad = tmp_path / "bad.state.json"
    bad.write_bytes(orjson.dumps(state))
    (tmp_path / "other.json").write_text('{"$defs": {"Name": {"type": "string"}}}')
    done = run("merge", bad, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(
        f"stickler: error: {bad}: /schema/properties/customer_name/$ref: embedded schema: "
        "reference 'other.json#/$defs/Name' names a document outside this schema"
    ), done.stderr
    done = run("merge", saved["a"], bad)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{bad}: embeds a different schema than {saved['a']} under the same schema sha256" in done.stderr


@pytest.fixture(scope="module")
def ci_state(saved, tmp_path_factory):
    target = tmp_path_factory.mktemp("ci") / "ci.state.json"
    done = run(
        "eval", saved["schema"], saved["gt1"], saved["pred1"], "--ci", "0.9", "--save-state", target, "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    return target


def _digests_short(state):
    index = state["document_index"]
    index["digests"] = base64.b64encode(base64.b64decode(index["digests"])[:-8]).decode()


def _sources_short(state):
    state["document_index"]["sources"][0][1] -= 1


def _row_count_changed(state):
    state["documents"][1] += 1.0  # the first document's first count, the totals left alone


DOCUMENT_ROWS = [
    ("truncated rows", lambda s: s["documents"].pop(), "/documents: must hold whole rows of 57 numbers"),
    (
        "a digest short",
        _digests_short,
        "/document_index/digests: must hold 150 values of 8 bytes (1,600 base64 characters), holds 1,592 characters",
    ),
    (
        "digests not base64",
        lambda s: s["document_index"].__setitem__("digests", "!" * 1600),
        "/document_index/digests: is not valid base64",
    ),
    (
        "digests as a list",
        lambda s: s["document_index"].__setitem__("digests", [1, 2]),
        "/document_index/digests: must be a base64 string, got list",
    ),
    ("sources short", _sources_short, "/document_index/sources: counts 149 documents, the state 150"),
    (
        "a source without a count",
        lambda s: s["document_index"]["sources"].__setitem__(0, ["gt.jsonl"]),
        "/document_index/sources/0: must be a [file name, documents] pair, got ['gt.jsonl']",
    ),
    (
        "lines short",
        lambda s: s["document_index"].__setitem__("lines", s["document_index"]["lines"][:-4]),
        "/document_index/lines: must hold 150 values of 4 bytes (800 base64 characters), holds 796 characters",
    ),
    ("no index", lambda s: s.pop("document_index"), ": missing key 'document_index'"),
    (
        "negative row count",
        lambda s: s["documents"].__setitem__(57 + 2, -1.0),
        "/documents/59: a count must be a non-negative integer",
    ),
    (
        "row score above 1",
        lambda s: s["documents"].__setitem__(57 * 4, 3.0),
        "/documents/228: a document score must be between 0 and 1",
    ),
    ("rows not adding up", _row_count_changed, "/documents: the documents' counts do not add up to the state's counts"),
    ("row as text", lambda s: s["documents"].__setitem__(5, "1"), "/documents/5: must be a number, got '1'"),
]


@pytest.mark.parametrize(
    "edit, expected", [case[1:] for case in DOCUMENT_ROWS], ids=[case[0] for case in DOCUMENT_ROWS]
)
def test_tampered_document_rows_are_refused_by_merge_and_diff(ci_state, tmp_path, edit, expected):
    state = orjson.loads(ci_state.read_bytes())
    assert len(state["documents"]) == 150 * 57
    edit(state)
    bad = tmp_path / "bad.state.json"
    bad.write_bytes(orjson.dumps(state))
    for args in (("merge", bad, "--ci", "0.9"), ("diff", ci_state, bad)):
        done = run(*args)
        assert done.returncode == 2, done.stdout[:200]
        assert done.stderr.count("\n") == 1 and expected in done.stderr and str(bad) in done.stderr, done.stderr


def test_untampered_states_still_merge_and_diff(saved, ci_state):
    assert run("merge", saved["b"], ci_state, "--format", "json").returncode == 0
    done = run("diff", ci_state, ci_state, "--format", "json")
    assert done.returncode == 0, done.stderr


def test_a_state_given_twice_or_copied_is_refused_unless_overlap_is_allowed(saved, tmp_path):
    """Merged twice, a state's documents would be counted twice: by the same path, another spelling
    or a link it is exit 2; so is a copy (it shares every document), unless --allow-overlap (a warning)."""
    a = Path(saved["a"])
    link = tmp_path / "link.json"
    link.symlink_to(a)
    for twice in ([a, a], [a, saved["b"], link], [a, Path(os.path.relpath(a, tmp_path))]):
        done = run("merge", *twice, "--format", "json", cwd=tmp_path)
        assert done.returncode == 2, done.stdout
        assert (
            done.stderr == f"stickler: error: {twice[-1]}: is given twice (also as {twice[0]}): its documents "
            "would be counted twice\n"
        )
    copy = tmp_path / "copy.json"
    copy.write_bytes(a.read_bytes())
    done = run("merge", a, copy, "--format", "json")
    assert done.returncode == 2 and not done.stdout
    assert done.stderr == (
        f"stickler: error: {copy}: shares 150 of its 150 documents with {a} (the same ground-truth "
        f"record): the first, {saved['gt1']}:1, is {saved['gt1']}:1 there; merging would count them "
        "twice. Merge states of distinct documents, or, if these are different documents with "
        "identical ground truth, pass --allow-overlap\n"
    )
    done = run("merge", a, copy, "--allow-overlap", "--format", "json")
    assert done.returncode == 0
    assert done.stderr == (
        f"stickler: warning: {copy} shares 150 of its 150 documents with {a} (the same ground-truth "
        f"record): the first, {saved['gt1']}:1, is {saved['gt1']}:1 there; added anyway "
        "(--allow-overlap): they are counted twice\n"
    )
    one = json.loads(run("merge", a, "--format", "json").stdout)
    assert json.loads(done.stdout)["document_count"] == 2 * one["document_count"]


def _saved(*args, target):
    done = run("eval", *args, "--save-state", target, "--format", "json")
    assert done.returncode == 0, done.stderr
    return target


def test_a_shard_and_the_whole_run_share_documents_and_are_not_added(saved, tmp_path):
    """Issue 37: a shard (150 documents) merged with the whole run (300) added up to 450 with exit 0. The
    whole run holds the shard's 150 documents: exit 2 naming the first (line 1 of each ground truth)."""
    whole = _saved(saved["schema"], saved["gt"], saved["pred"], target=tmp_path / "whole.state.json")
    done = run("merge", saved["a"], whole, "--format", "json")
    assert done.returncode == 2 and not done.stdout
    assert done.stderr == (
        f"stickler: error: {whole}: shares 150 of its 300 documents with {saved['a']} (the same "
        f"ground-truth record): the first, {saved['gt']}:1, is {saved['gt1']}:1 there; merging "
        "would count them twice. Merge states of distinct documents, or, if these are different "
        "documents with identical ground truth, pass --allow-overlap\n"
    )
    # The second half's first document is line 151 of the whole file: named there, and line 1 of its shard.
    done = run("merge", whole, saved["b"], "--format", "json")
    assert done.returncode == 2
    assert (
        f"{saved['b']}: shares 150 of its 150 documents with {whole} (the same ground-truth record): the first, "
        f"{saved['gt2']}:1, is {saved['gt']}:151 there" in done.stderr
    )
    allowed = run("merge", saved["a"], whole, "--allow-overlap", "--format", "json")
    assert allowed.returncode == 0 and allowed.stderr.startswith(f"stickler: warning: {whole} shares 150 of its 300")
    assert json.loads(allowed.stdout)["document_count"] == 450


def test_one_ground_truth_scored_with_two_prediction_files_is_not_added(saved, tmp_path):
    """The same 150 ground-truth documents scored against two prediction files are the same documents."""
    other = _saved(saved["schema"], saved["gt1"], saved["pred2"], target=tmp_path / "other.state.json")
    done = run("merge", saved["a"], other, "--format", "json")
    assert done.returncode == 2
    assert f"{other}: shares 150 of its 150 documents with {saved['a']}" in done.stderr


def test_a_state_reindented_shares_its_documents(saved, tmp_path):
    """A copy written with other spacing is not the same bytes (no longer caught as a twin file): caught by its
    documents."""
    spaced = tmp_path / "spaced.state.json"
    spaced.write_bytes(orjson.dumps(orjson.loads(saved["a"].read_bytes()), option=orjson.OPT_INDENT_2))
    done = run("merge", saved["a"], spaced, "--format", "json")
    assert done.returncode == 2 and f"{spaced}: shares 150 of its 150 documents" in done.stderr


def test_states_of_one_schema_written_with_other_spacing_merge(saved, tmp_path):
    """Issue 37: the second half scored with the schema file re-indented (another sha256, the same parsed
    schema) was refused as "made with a different schema"; it merges, and equals the two halves' merge."""
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(json.loads(saved["schema"].read_text()), indent=7))
    b = _saved(schema, saved["gt2"], saved["pred2"], target=tmp_path / "b.state.json")
    assert orjson.loads(b.read_bytes())["schema_sha256"] != orjson.loads(saved["a"].read_bytes())["schema_sha256"]
    done = run("merge", saved["a"], b, "--format", "json")
    assert done.returncode == 0, done.stderr
    expected = json.loads(run("merge", saved["a"], saved["b"], "--format", "json").stdout)
    got = json.loads(done.stdout)
    assert got["document_count"] == 300
    assert got["metrics"] == expected["metrics"] and got["field_metrics"] == expected["field_metrics"]
    other = tmp_path / "other.json"
    other.write_text(saved["schema"].read_text().replace('"invoice_id"', '"invoice_no"', 1))
    c = _saved(other, saved["gt2"], saved["pred2"], target=tmp_path / "c.state.json")
    done = run("merge", saved["a"], c, "--format", "json")
    assert done.returncode == 2 and "made with a different schema than" in done.stderr
    reordered = tmp_path / "sorted.json"
    reordered.write_text(json.dumps(json.loads(saved["schema"].read_text()), sort_keys=True))
    d = _saved(reordered, saved["gt2"], saved["pred2"], target=tmp_path / "d.state.json")
    done = run("merge", saved["a"], d, "--format", "json")
    assert done.returncode == 2 and done.stderr == (
        f"stickler: error: {d}: made with {saved['a']}'s schema with its properties in another order, so its fields "
        "are counted in another order; save both states with one schema file\n"
    )


def test_a_state_of_the_previous_version_is_refused_with_a_way_out(saved, tmp_path):
    """States of version 13 hold no document index: their overlap cannot be checked, so they are refused
    (docs/scale.md, `--save-state FILE`: "must be saved again") with a one-line error that says to save them again."""
    state = orjson.loads(saved["a"].read_bytes())
    state["state_version"] = 13
    state.pop("document_index")
    old = tmp_path / "old.state.json"
    old.write_bytes(orjson.dumps(state))
    done = run("merge", old, saved["b"], "--format", "json")
    assert done.returncode == 2 and done.stderr == (
        f"stickler: error: {old}: /state_version: state version 13 is not supported (this stickler reads and writes "
        "17; save the state again)\n"
    )


def test_the_first_shared_document_is_found_among_many_states():
    """document_index.first_shared: the first later state holding an earlier one's document, that document's
    place in both, and how many of its documents that earlier state holds; a record repeated within a state names
    no document and is no evidence."""
    from array import array

    from stickler_cli.run.document_index import DocumentIndex, first_shared

    def index(digests):
        made = DocumentIndex()
        made.add("x", [])
        made.digests, made.lines = array("Q", digests), array("I", range(1, len(digests) + 1))
        return made

    assert first_shared([index([1, 2, 3]), index([4, 5]), index([6, 5, 2, 2])]) == (2, 1, 1, 1, 1)
    assert first_shared([index([1, 2]), index([3, 2, 1, 1])]) == (1, 1, 0, 1, 1)  # 1, repeated there, names nothing
    assert first_shared([index([7, 7]), index([8]), index([]), index([7])]) is None


def test_workers_keep_the_same_document_index(saved, tmp_path):
    """The index of a run split across worker processes (1,200 documents: three chunks of up to 500) is the
    single process's, in input order."""
    gt, pred = tmp_path / "gt.jsonl", tmp_path / "pred.jsonl"
    gt.write_bytes(saved["gt"].read_bytes() * 4)
    pred.write_bytes(saved["pred"].read_bytes() * 4)
    states = [
        _saved(saved["schema"], gt, pred, *extra, target=tmp_path / f"{k}.state.json")
        for k, extra in enumerate(([], ["--workers", "2"]))
    ]
    one, two = (orjson.loads(s.read_bytes())["document_index"] for s in states)
    assert one == two and one["sources"] == [[str(gt), 1200]]
    lines = np.frombuffer(base64.b64decode(one["lines"]), dtype="<u4")
    assert lines.tolist() == list(range(1, 1201))
    digests = np.frombuffer(base64.b64decode(one["digests"]), dtype="<u8")
    assert len(digests) == 1200 and (digests[:300] == digests[300:600]).all()  # the same records, the same digests


def test_records_repeated_within_each_state_are_no_evidence_of_overlap(tmp_path):
    """A small schema's ground truth repeats ({"name": "x"} in most documents): two halves of one file share such
    records but no document, and merge as the whole run scores (the records found once in a state name their
    documents: a half merged with the whole is still refused)."""
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"name": {"type": "string"}}}))
    gts = [{"name": "x" if k % 5 else None} for k in range(40)] + [{"name": "only here"}]
    preds = [{"name": "x" if k % 3 else "y"} for k in range(41)]
    write_lines(tmp_path / "gt.jsonl", lines_of(gts))
    write_lines(tmp_path / "pred.jsonl", lines_of(preds))
    for name, lo, hi in (("1", 0, 20), ("2", 20, 41)):
        write_lines(tmp_path / f"gt{name}.jsonl", lines_of(gts[lo:hi]))
        write_lines(tmp_path / f"pred{name}.jsonl", lines_of(preds[lo:hi]))
    halves = [
        _saved(schema, tmp_path / f"gt{n}.jsonl", tmp_path / f"pred{n}.jsonl", target=tmp_path / f"{n}.state")
        for n in ("1", "2")
    ]
    done = run("merge", *halves, "--format", "json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    whole = json.loads(run("eval", schema, tmp_path / "gt.jsonl", tmp_path / "pred.jsonl", "--format", "json").stdout)
    merged = json.loads(done.stdout)
    assert merged["document_count"] == 41 and merged["field_metrics"] == whole["field_metrics"]
    everything = _saved(schema, tmp_path / "gt.jsonl", tmp_path / "pred.jsonl", target=tmp_path / "all.state")
    done = run("merge", halves[1], everything, "--format", "json")
    assert done.returncode == 2
    assert (
        f"{everything}: shares 1 of its 41 documents with {halves[1]} (the same ground-truth record): the first, "
        f"{tmp_path / 'gt.jsonl'}:41, is {tmp_path / 'gt2.jsonl'}:21 there" in done.stderr
    )


def _number_pointers(value, pointer=""):
    """(JSON pointer, container, key) of every number in a state, one per place in its structure (array
    positions folded: the first item of each array stands for the rest), the embedded schema left out."""
    if isinstance(value, dict):
        items = [(k, v) for k, v in value.items() if not (pointer == "" and k in ("schema", "schema_resources"))]
    elif isinstance(value, list):
        items = list(enumerate(value[:1]))
    else:
        return []
    found = []
    for key, child in items:
        if type(child) in (int, float):
            found.append((f"{pointer}/{key}", value, key))
        else:
            found.extend(_number_pointers(child, f"{pointer}/{key}"))
    return found


def test_every_number_of_a_state_is_bounded(saved, ci_state, tmp_path, capsys):
    """A state is untrusted: a count of 10^400 (Python's json reads it exactly) was an OverflowError, exit 3.
    Every number of a state, wherever it stands, set to 10^400: exit 2, one line naming the file;
    except the data values its sample documents quote (ground truth and predictions, read exactly as the data
    files are: docs/parity.md row 30), which merge as they are."""
    import re

    from stickler_cli.cli.app import main

    data_value = re.compile(r"^/(worst/\d+|failures/[^/]+/\d+)/(gt|pred)(/|$)")
    bad = tmp_path / "bad.state.json"
    tried = quoted = 0
    for source, extra in ((ci_state, ["--ci", "0.9"]),):  # its structure holds every place saved["a"]'s does
        clean = orjson.loads(Path(source).read_bytes())
        assert {p for p, _, _ in _number_pointers(orjson.loads(Path(saved["a"]).read_bytes()))} <= {
            p for p, _, _ in _number_pointers(clean)
        }
        for pointer, _, _ in _number_pointers(clean):
            for huge in (10**400,):
                state = orjson.loads(Path(source).read_bytes())
                place = next((c, k) for p, c, k in _number_pointers(state) if p == pointer)
                place[0][place[1]] = huge
                bad.write_text(json.dumps(state))
                code = main(["merge", str(bad), "-f", "json", "-o", str(tmp_path / "out.json"), *extra])
                err = capsys.readouterr().err
                if data_value.match(pointer):
                    assert (code, err) == (0, ""), (pointer, err)
                    quoted += 1
                else:
                    assert code == 2 and err.startswith(f"stickler: error: {bad}: ") and err.count("\n") == 1, (
                        pointer,
                        err,
                    )
                tried += 1
    assert tried > 80 and 0 < quoted < tried / 3, (tried, quoted)


def test_state_files_are_read_up_to_the_state_bytes_limit(saved):
    """`stickler merge /dev/zero` read until memory ran out: a state file is read up to --limit state-bytes
    (1 GiB) and no further, exit 2 in one line naming the file and the limit."""
    from stickler_cli import limits

    assert limits.DEFAULT.state_bytes == 2**30
    size = saved["a"].stat().st_size
    done = run("merge", saved["a"], saved["b"], "--limit", f"state-bytes={size - 1}", "--format", "json")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"stickler: error: {saved['a']}: state file holds over {size - 1:,} bytes (the "
        "state-bytes limit; --limit state-bytes=N raises it)\n"
    )
    done = run("merge", "/dev/zero", saved["b"], "--limit", "state-bytes=1MiB", "--format", "json")
    assert (done.returncode, done.stderr) == (
        2,
        "stickler: error: /dev/zero: state file holds over 1,048,576 bytes "
        "(the state-bytes limit; --limit state-bytes=N raises it)\n",
    )
    assert run("merge", saved["a"], saved["b"], "--limit", f"state-bytes={size * 2}").returncode == 0
