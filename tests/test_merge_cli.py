"""`stickler eval --save-state` on parts, then `stickler merge`, equals one `stickler eval`."""

import shutil

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
    done = run("eval", data["schema"], data["gt"], data["pred"], "--format", "json")
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
    assert_same_reordered(swapped, merged, ignore=("elapsed_seconds", "inputs", "errors"))


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
