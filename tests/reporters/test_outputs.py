"""Files stickler writes: never over an input of the run (whatever name leads to it), never two
reports in one file, an existing file's permissions kept, a full disk a usage error naming the file."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stickler_cli.cli.app import main

STICKLER = [sys.executable, "-m", "stickler_cli"]
SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "x-aws-stickler-comparator": "ExactComparator"},
        "amount": {"$ref": "common.json#/$defs/Money"},
    },
}
COMMON = {"$defs": {"Money": {"type": "number", "x-aws-stickler-comparator": "NumericComparator"}}}
GT = [{"id": "A", "amount": 1}, {"id": "B", "amount": 2}, {"id": "C", "amount": 3}]
PRED = [{"id": "A", "amount": 1}, {"id": "X", "amount": 2}, {"id": "C", "amount": 30}]
PLUGIN = """
from stickler_cli.comparators import Comparator


class OutputsTestComparator(Comparator):
    name = "OutputsTestComparator"

    def similarity(self, gt, pred):
        return 1.0 if gt == pred else 0.0
"""


def jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


@pytest.fixture
def files(tmp_path: Path, monkeypatch) -> dict[str, Path]:
    """A schema with a $ref to a file beside it, data, a gates file and pyproject.toml; the working
    directory is theirs (pyproject.toml is read from it)."""
    monkeypatch.chdir(tmp_path)
    paths = {
        "schema": tmp_path / "s.json",
        "common": tmp_path / "common.json",
        "gt": tmp_path / "gt.jsonl",
        "pred": tmp_path / "pred.jsonl",
        "gates": tmp_path / "gates.toml",
        "pyproject": tmp_path / "pyproject.toml",
        "plugin": tmp_path / "outputs_plugin.py",
    }
    paths["schema"].write_text(json.dumps(SCHEMA))
    paths["common"].write_text(json.dumps(COMMON))
    paths["gt"].write_text(jsonl(GT))
    paths["pred"].write_text(jsonl(PRED))
    paths["gates"].write_text("[fail-under]\nweighted_overall_score = 0.1\n")
    paths["pyproject"].write_text("[project]\nname = 'x'\n")
    paths["plugin"].write_text(PLUGIN)
    return paths


def run(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*STICKLER, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def refused(done, *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, (word, done.stderr)


@pytest.mark.parametrize("option", ["-o", "--html", "--junit", "--save-state", "--non-matches", "--per-document"])
@pytest.mark.parametrize(
    "victim, what",
    [
        ("common", "file the schema references"),
        ("gates", "gates file"),
        ("pyproject", "project configuration"),
        ("plugin", "--plugin file"),
    ],
)
def test_no_output_overwrites_a_file_the_run_reads(files, option, victim, what):
    """Not only the three arguments: a $ref-ed file, the gates file, pyproject.toml and a plugin."""
    before = snapshot(files["schema"].parent)
    done = run(
        "eval",
        files["schema"],
        files["gt"],
        files["pred"],
        "--gates",
        files["gates"],
        "--plugin",
        files["plugin"],
        option,
        files[victim].name,
        cwd=files["schema"].parent,
    )
    refused(done, option, files[victim].name, "refusing to overwrite an input file", what)
    after = snapshot(files["schema"].parent)
    after.pop("__pycache__", None)
    assert after == before  # nothing written, no temporary file left


def links(files: dict[str, Path]) -> dict[str, Path]:
    """Other names for the ground truth: a symbolic link, a hard link, another spelling."""
    directory = files["gt"].parent
    (directory / "sub").mkdir()
    symbolic = directory / "sym.jsonl"
    symbolic.symlink_to(files["gt"])
    hard = directory / "hard.jsonl"
    os.link(files["gt"], hard)
    return {"symbolic link": symbolic, "hard link": hard, "spelling": directory / "sub" / ".." / "gt.jsonl"}


@pytest.mark.parametrize("kind", ["symbolic link", "hard link", "spelling"])
def test_any_name_of_an_input_is_that_input(files, capsys, kind):
    target = links(files)[kind]
    before = files["gt"].read_bytes()
    code = main(["eval", str(files["schema"]), str(files["gt"]), str(files["pred"]), "--html", str(target)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert (
        f"--html {target}: refusing to overwrite an input file with the report: it is the ground truth ({files['gt']})"
        in err
    )
    assert files["gt"].read_bytes() == before


def test_two_outputs_naming_one_file_by_any_name(files, capsys):
    out = files["gt"].parent / "out.json"
    out.write_text("{}")
    link = files["gt"].parent / "out-link.json"
    link.symlink_to(out)
    hard = files["gt"].parent / "out-hard.json"
    os.link(out, hard)
    args = ["eval", str(files["schema"]), str(files["gt"]), str(files["pred"])]
    for other in (link, hard):
        assert main([*args, "-o", str(out), "--save-state", str(other)]) == 2
        assert f"--output and --save-state name the same file ({out}, {other})" in capsys.readouterr().err
    # Not there yet: a dangling link and the file it will make are one file too.
    dangling = files["gt"].parent / "dangling.json"
    dangling.symlink_to(files["gt"].parent / "new.json")
    assert main([*args, "--junit", str(dangling), "--html", str(files["gt"].parent / "new.json")]) == 2
    assert "--junit and --html name the same file" in capsys.readouterr().err
    assert not (files["gt"].parent / "new.json").exists() and out.read_text() == "{}"


def test_glob_shards_and_merged_states_are_inputs(files, capsys, tmp_path):
    for side, rows in (("gt", GT), ("pred", PRED)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "part-1.jsonl").write_text(jsonl(rows[:2]))
        (tmp_path / side / "part-2.jsonl").write_text(jsonl(rows[2:]))
    shard = tmp_path / "pred" / "part-2.jsonl"
    before = shard.read_bytes()
    code = main(
        [
            "eval",
            str(files["schema"]),
            str(tmp_path / "gt" / "*.jsonl"),
            str(tmp_path / "pred" / "*.jsonl"),
            "--per-document",
            str(shard),
        ]
    )
    assert code == 2 and "it is the predictions" in capsys.readouterr().err and shard.read_bytes() == before
    state = tmp_path / "a.state.json"
    assert (
        main(
            [
                "eval",
                str(files["schema"]),
                str(files["gt"]),
                str(files["pred"]),
                "--save-state",
                str(state),
                "-f",
                "json",
            ]
        )
        == 0
    )
    capsys.readouterr()
    saved = state.read_bytes()
    for option in ("--html", "--junit", "-o", "--save-state"):
        assert main(["merge", str(state), option, str(state)]) == 2
        assert "it is the state file" in capsys.readouterr().err and state.read_bytes() == saved
    assert main(["diff", str(state), str(state), "-o", str(state)]) == 2
    assert "it is the state file" in capsys.readouterr().err and state.read_bytes() == saved


def test_diff_outputs_spare_the_files_the_schema_references(files, capsys):
    before = files["common"].read_bytes()
    code = main(
        [
            "diff",
            str(files["schema"]),
            str(files["gt"]),
            str(files["pred"]),
            str(files["pred"]),
            "-o",
            str(files["common"]),
        ]
    )
    assert code == 2 and "it is the file the schema references" in capsys.readouterr().err
    assert files["common"].read_bytes() == before


def test_plugin_loaded_by_module_name_is_an_input(files):
    before = files["plugin"].read_bytes()
    done = run(
        "eval",
        files["schema"],
        files["gt"],
        files["pred"],
        "--plugin",
        "outputs_plugin",
        "--junit",
        "outputs_plugin.py",
        cwd=files["schema"].parent,
    )
    refused(done, "--plugin file")
    assert files["plugin"].read_bytes() == before


# -- permissions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["-o", "--save-state", "--non-matches", "--per-document", "--junit"])
def test_an_existing_files_permissions_are_kept(files, capsys, option):
    target = files["gt"].parent / "private.out"
    target.write_text("old")
    target.chmod(0o600)
    assert main(["eval", str(files["schema"]), str(files["gt"]), str(files["pred"]), option, str(target)]) == 0
    capsys.readouterr()
    assert target.read_text() != "old"
    assert target.stat().st_mode & 0o777 == 0o600
    target.chmod(0o640)
    assert main(["eval", str(files["schema"]), str(files["gt"]), str(files["pred"]), option, str(target)]) == 0
    assert target.stat().st_mode & 0o777 == 0o640


# -- a full disk ----------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["-o", "--junit", "--html", "--save-state", "--non-matches", "--per-document"])
def test_dev_full_is_exit_2_naming_the_file(files, capsys, option):
    code = main(["eval", str(files["schema"]), str(files["gt"]), str(files["pred"]), option, "/dev/full"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err == "stickler: error: /dev/full: cannot write: No space left on device\n"


@contextlib.contextmanager
def small_filesystem(directory: Path, size: str = "64k"):
    """A tmpfs of ``size`` mounted at ``directory`` (needs root and a system that allows it)."""
    directory.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(directory)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield directory
    finally:
        subprocess.run(["umount", str(directory)], check=True)


def test_a_full_file_system_is_exit_2_and_leaves_the_old_report(files, tmp_path):
    gt = tmp_path / "big_gt.jsonl"
    pred = tmp_path / "big_pred.jsonl"
    gt.write_text(jsonl({"id": f"doc-{k}", "amount": k} for k in range(2000)))
    pred.write_text(jsonl({"id": f"doc-{k}x", "amount": k + 1} for k in range(2000)))
    with small_filesystem(tmp_path / "small") as small:
        report = small / "report.json"
        report.write_text("previous report")
        with open(small / "filler", "wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:  # the file system full but for less than a block
                filler.write(b"x" * 1024)
        for option, target in (("-o", report), ("--non-matches", small / "misses.jsonl")):
            done = run("eval", files["schema"], gt, pred, option, target)
            refused(done, f"{target}: cannot write: No space left on device")
            assert sorted(p.name for p in small.iterdir()) == ["filler", "report.json"]  # no temporary file left
            assert report.read_text() == "previous report"


def test_a_failed_rename_is_exit_2_naming_the_file(files, capsys, monkeypatch):
    """Where no small file system can be mounted: the same path, the failure made in-process."""
    from stickler_cli.run import atomic

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "replace", full)
    target = files["gt"].parent / "r.json"
    code = main(["eval", str(files["schema"]), str(files["gt"]), str(files["pred"]), "-o", str(target)])
    assert code == 2
    assert capsys.readouterr().err == f"stickler: error: {target}: cannot write: No space left on device\n"
    assert not target.exists() and not [p for p in target.parent.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("output_format", ["json", "markdown", "table"])
def test_standard_output_on_a_full_disk_is_exit_2(files, output_format):
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [*STICKLER, "eval", str(files["schema"]), str(files["gt"]), str(files["pred"]), "-f", output_format],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr == "stickler: error: standard output: cannot write: No space left on device\n"


# -- issue 37, item 13: the step summary and links planted in shared directories ------------------------------


@pytest.mark.parametrize("command", ["eval", "merge", "diff", "split"])
def test_a_step_summary_naming_an_input_is_refused(files, capsys, monkeypatch, tmp_path, command):
    """$GITHUB_STEP_SUMMARY naming the ground truth got the Markdown appended to it: it is an output like any."""
    state = tmp_path / "run.state"
    assert (
        main(
            [
                "eval",
                str(files["schema"]),
                str(files["gt"]),
                str(files["pred"]),
                "--save-state",
                str(state),
                "--format",
                "json",
            ]
        )
        == 0
    )
    capsys.readouterr()
    victim = {"eval": files["gt"], "merge": state, "diff": files["pred"], "split": files["gt"]}[command]
    args = {
        "eval": [str(files["schema"]), str(files["gt"]), str(files["pred"])],
        "merge": [str(state)],
        "diff": [str(files["schema"]), str(files["gt"]), str(files["pred"]), str(files["pred"])],
        "split": [str(files["gt"]), str(files["pred"])],
    }[command]
    before = victim.read_bytes()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(victim))
    assert main([command, *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"GITHUB_STEP_SUMMARY={victim}: refusing to overwrite an input file" in err, err
    assert victim.read_bytes() == before
    if command != "split":  # (these records are not packets: split stops at reading them)
        summary = tmp_path / "summary.md"
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
        main([command, *args])
        assert summary.read_text().startswith("#")  # an ordinary summary file still gets its Markdown


def _shared_directory(tmp_path: Path) -> Path:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # as /tmp is: sticky, writable by every user
    return shared


OTHER_USER = 65534  # nobody


@pytest.mark.skipif(os.geteuid() != 0, reason="planting a link owned by another user needs root")
@pytest.mark.parametrize("option", ["-o", "--html", "--save-state", "--non-matches"])
def test_an_output_through_a_link_another_user_planted_in_tmp_is_refused(files, capsys, tmp_path, option):
    """stickler resolved the link itself, bypassing fs.protected_symlinks: the victim's file was replaced."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    shared = _shared_directory(tmp_path)
    link = shared / "report.out"
    link.symlink_to(victim)
    os.lchown(link, OTHER_USER, OTHER_USER)
    args = ["eval", str(files["schema"]), str(files["gt"]), str(files["pred"])]
    assert main([*args, option, str(link)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{link}: {link} is a symbolic link another user made in {shared}" in err, err
    assert victim.read_text() == "precious\n" and link.is_symlink()
    # A directory on the way is a link too.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    through = shared / "dir"
    through.symlink_to(elsewhere)
    os.lchown(through, OTHER_USER, OTHER_USER)
    assert main([*args, option, str(through / "out.json")]) == 2
    assert f"{through} is a symbolic link another user made in {shared}" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []
    # The user's own link there, and a link in a directory that is not shared, are followed.
    os.lchown(link, 0, 0)
    assert main([*args, option, str(link)]) == 0
    assert victim.read_text() != "precious\n" and link.is_symlink()


def test_the_kernels_rule_for_links_in_shared_directories():
    """The rule itself, for any user (the test above needs root to plant another user's link)."""
    from stickler_cli.run.atomic import planted

    def st(mode: int, uid: int) -> os.stat_result:
        return os.stat_result((mode, 0, 0, 0, uid, 0, 0, 0, 0, 0))

    shared, private = 0o40000 | 0o1777, 0o40000 | 0o777  # /tmp; writable by all but not sticky
    assert planted(st(0o120777, 1001), st(shared, 0), user=1000)
    assert not planted(st(0o120777, 1000), st(shared, 0), user=1000)  # the user's own link
    assert not planted(st(0o120777, 0), st(shared, 0), user=1000)  # the directory owner's link
    assert not planted(st(0o120777, 1001), st(private, 0), user=1000)
    assert not planted(st(0o120777, 1001), st(0o40000 | 0o1755, 0), user=1000)  # sticky, not world-writable


# -- issue 37, item 14: partial outputs of a killed run ---------------------------------------------------------

KILLED_WRITER = """
import os, signal, sys
from stickler_cli.run import atomic
with atomic.replacing(sys.argv[1]) as handle:
    handle.write(b"half a report")
    handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)
"""

HOLDING_WRITER = """
import sys, time
from stickler_cli.run import atomic
with atomic.replacing(sys.argv[1]) as handle:
    handle.write(b"still writing")
    handle.flush()
    print("ready", flush=True)
    time.sleep(60)
"""


def test_a_killed_runs_partial_output_is_removed_by_the_next_run(tmp_path):
    """kill -9 left a hidden partial output (.nm.jsonl.XXXX) for ever. The next run writing that file removes
    the partials of dead writers for that file only: never a live writer's, another file's or the user's own."""
    target = tmp_path / "nm.jsonl"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    killed = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(target)], env=env, timeout=60)
    assert killed.returncode == -9
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith(".nm.jsonl.") and left[0].endswith(".partial"), left
    live = subprocess.Popen(
        [sys.executable, "-c", HOLDING_WRITER, str(target)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert live.stdout.readline() == "ready\n"
        live_partial = [p for p in tmp_path.iterdir() if f".{live.pid}." in p.name]
        assert len(live_partial) == 1
        # What must stay: the user's own hidden files, another output's partial of a dead writer.
        keep = [
            tmp_path / ".nm.jsonl.backup",
            tmp_path / ".nm.jsonl.1.abcdefgh.partial.bak",
            tmp_path / f".other.json.{killed_pid(left[0])}.abcdefgh.partial",
        ]
        for path in keep:
            path.write_text("mine")
        from stickler_cli.run import atomic

        atomic.write(str(target), b"whole report\n")
        assert target.read_bytes() == b"whole report\n"
        names = sorted(p.name for p in tmp_path.iterdir())
        assert names == sorted([target.name, live_partial[0].name, *(p.name for p in keep)]), names
    finally:
        live.kill()
        live.wait()


def killed_pid(name: str) -> str:
    return name.split(".")[3]


def test_a_report_is_on_disk_before_it_takes_its_name(files, monkeypatch):
    """Written with fsync before the rename: a crash leaves the old report or the new one, never an empty file."""
    from stickler_cli.run import atomic

    order: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (order.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (order.append("replace"), real_replace(a, b))[1])
    atomic.write(str(files["gt"].parent / "out.json"), b"{}\n")
    assert order[:2] == ["fsync", "replace"]
