"""`stickler eval --save-state` on parts, then `stickler merge`, equals one `stickler eval`."""

import json
import os
import shutil
from pathlib import Path

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
    paths = {"schema": schema,
             "gt": write_lines(tmp_path / "gt.jsonl", gt_lines),
             "pred": write_lines(tmp_path / "pred.jsonl", pred_lines)}
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
        done = run("eval", data["schema"], data["gt" + name], data["pred" + name], "--save-state", target,
                   "--format", "json")
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
    done = run("eval", root / "schemas/shipment.json", root / "fixtures/shipment/gt.jsonl",
               root / "fixtures/shipment/pred.jsonl", "--save-state", other, "--format", "json")
    assert done.returncode == 0, done.stderr
    done = run("merge", a, other)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert str(other) in done.stderr
    assert "different schema" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("content, expected", [
    (b"{this is not json", "not valid JSON"),
    (b'{"document_count": 3}', "not a stickler state file"),
    (b"[1, 2, 3]", "not a stickler state file"),
])
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
    from stickler_cli.accumulate import schema_digest

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
    ("negative count", lambda s: s["counts"][2].__setitem__(0, -5),
     "/counts/2/0: must be a non-negative integer, got -5"),
    ("schema edited, hash kept", _reweighted,
     "/schema: the embedded schema does not match the state's schema_digest"),
    ("one-bin histogram", lambda s: s.__setitem__("score_histogram", [s["document_count"]]),
     "/score_histogram: must hold 20 values, holds 1"),
    ("histogram not adding up", _shifted_histogram, "/score_histogram: counts 151 documents, the state 150"),
    ("count as a string", lambda s: s.__setitem__("document_count", "150"),
     "/document_count: must be a non-negative integer, got '150'"),
    ("count as a boolean", lambda s: s["stats"].__setitem__("paired", True),
     "/stats/paired: must be a non-negative integer, got True"),
    ("score sum beyond the documents", lambda s: s.__setitem__("score_sum", 151.0),
     "/score_sum: must be between 0 and 150, got 151.0"),
    ("truncated field sums", lambda s: s["field_score_sum"].pop(), "/field_score_sum: must hold 8 values, holds 7"),
    ("truncated confidence column", _truncated_confidence, "/confidence/value: must hold"),
    ("confidence above 1", lambda s: s["confidence"]["value"].__setitem__(0, 1.5),
     "/confidence/value/0: must be between 0 and 1, got 1.5"),
    ("confidence of no field", lambda s: s["confidence"]["field"].__setitem__(0, 99),
     "/confidence/field/0: must be a field index from 0 to 7, got 99"),
    ("overall not the top-level sum", lambda s: s["overall"].__setitem__(0, s["overall"][0] + 1),
     "/overall: must be the sum of the top-level fields' counts"),
    ("a field renamed", lambda s: s["fields"].__setitem__(1, "customer"),
     "/fields/1: must be 'customer_name', the schema's field there, got 'customer'"),
    ("more valid than checked", lambda s: s["conformance"].__setitem__("valid", 10**6),
     "/conformance/valid: must be at most the 149 predictions checked, got 1000000"),
    ("worst document without ground truth", lambda s: s["worst"][0].__setitem__("gt", [1, 2]),
     "/worst/0/gt: must be an object, got list"),
    ("worst document beyond the run", lambda s: s["worst"][0].__setitem__("position", 150),
     "/worst/0/position: must be below the document count 150, got 150"),
    # Counts each possible alone that do not add up as a run's do ("-493 of 7" predictions valid, before).
    ("more ground-truth lines than documents", lambda s: s["stats"].__setitem__("gt_lines", 1000),
     "/stats/gt_lines: must equal the document_count (150), got 1,000"),
    # coverage above 1 and record rates over a denominator the documents do not make (issue 37)
    ("documents neither paired nor missing", lambda s: s["stats"].__setitem__("missing_predictions", 5),
     "/stats/gt_lines: must equal paired + missing_predictions (155), got 150"),
    ("prediction lines neither paired nor unpaired", lambda s: s["stats"].__setitem__("pred_lines", 7),
     "/stats/pred_lines: must equal paired + unpaired_predictions (150), got 7"),
    ("more invalid predictions than lines", lambda s: s["stats"].__setitem__("invalid_predictions", 500),
     "/stats/pred_lines: must equal invalid_predictions + conformance.checked (649), got 150"),
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
    assert done.stderr.startswith(f"stickler: error: {bad}: /schema/properties/customer_name/$ref: embedded schema: "
                                  "reference 'other.json#/$defs/Name' names a document outside this schema"), done.stderr
    done = run("merge", saved["a"], bad)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{bad}: embeds a different schema than {saved['a']} under the same schema sha256" in done.stderr


@pytest.fixture(scope="module")
def ci_state(saved, tmp_path_factory):
    target = tmp_path_factory.mktemp("ci") / "ci.state.json"
    done = run("eval", saved["schema"], saved["gt1"], saved["pred1"], "--ci", "0.9", "--save-state", target,
               "--format", "json")
    assert done.returncode == 0, done.stderr
    return target


def _keys_short(state):
    state["document_keys"].pop()


def _row_count_changed(state):
    state["documents"][1] += 1.0  # the first document's first count, the totals left alone


DOCUMENT_ROWS = [
    ("truncated rows", lambda s: s["documents"].pop(), "/documents: must hold whole rows of 57 numbers"),
    ("a key short", _keys_short, "/document_keys: must hold one key per document row (150), holds 149"),
    ("negative key", lambda s: s["document_keys"].__setitem__(3, -1),
     "/document_keys/3: must be an unsigned 64-bit integer, got -1"),
    ("negative row count", lambda s: s["documents"].__setitem__(57 + 2, -1.0),
     "/documents/59: a count must be a non-negative integer"),
    ("row score above 1", lambda s: s["documents"].__setitem__(57 * 4, 3.0),
     "/documents/228: a document score must be between 0 and 1"),
    ("rows not adding up", _row_count_changed, "/documents: the documents' counts do not add up to the state's counts"),
    ("row as text", lambda s: s["documents"].__setitem__(5, "1"), "/documents/5: must be a number, got '1'"),
]


@pytest.mark.parametrize("edit, expected", [case[1:] for case in DOCUMENT_ROWS], ids=[case[0] for case in DOCUMENT_ROWS])
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
    assert run("merge", saved["a"], saved["b"], ci_state, "--format", "json").returncode == 0
    done = run("diff", ci_state, ci_state, "--format", "json")
    assert done.returncode == 0, done.stderr


def test_a_state_given_twice_is_refused_and_a_copy_is_warned_of(saved, tmp_path):
    """Merged twice, a state's documents would be counted twice: by the same path, another spelling
    or a link it is exit 2; a copy with the same bytes (one shard saved twice?) is counted with a warning."""
    a = Path(saved["a"])
    link = tmp_path / "link.json"
    link.symlink_to(a)
    for twice in ([a, a], [a, saved["b"], link], [a, Path(os.path.relpath(a, tmp_path))]):
        done = run("merge", *twice, "--format", "json", cwd=tmp_path)
        assert done.returncode == 2, done.stdout
        assert done.stderr == f"stickler: error: {twice[-1]}: is given twice (also as {twice[0]}): its documents " \
                              "would be counted twice\n"
    copy = tmp_path / "copy.json"
    copy.write_bytes(a.read_bytes())
    done = run("merge", a, copy, "--format", "json")
    assert done.returncode == 0
    assert done.stderr == (f"stickler: warning: {copy} has the same content as {a}: the same shard saved twice? "
                           "Its documents are counted twice\n")
    one = json.loads(run("merge", a, "--format", "json").stdout)
    assert json.loads(done.stdout)["document_count"] == 2 * one["document_count"]


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

    from stickler_cli.cli import main

    data_value = re.compile(r"^/(worst/\d+|failures/[^/]+/\d+)/(gt|pred)(/|$)")
    bad = tmp_path / "bad.state.json"
    tried = quoted = 0
    for source, extra in ((ci_state, ["--ci", "0.9"]),):  # its structure holds every place saved["a"]'s does
        clean = orjson.loads(Path(source).read_bytes())
        assert {p for p, _, _ in _number_pointers(orjson.loads(Path(saved["a"]).read_bytes()))} <= {
            p for p, _, _ in _number_pointers(clean)}
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
                        pointer, err)
                tried += 1
    assert tried > 80 and 0 < quoted < tried / 3, (tried, quoted)
