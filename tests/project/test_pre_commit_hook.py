"""The pre-commit hook of .pre-commit-hooks.yaml, run as pre-commit runs it: the repository's files chosen by the
hook's `files:` pattern and `types: [json]`, then the entry, the hook's args and those file names as one command,
with `stickler` on PATH (this checkout, this interpreter: pre-commit's `language: python` installs the same
console script into the hook's own environment)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.action_runner import ROOT, stickler_on_path

GOOD = ROOT / "schemas" / "quickstart.json"
BAD_COMPARATOR = '{"type": "object", "properties": {"a": {"type": "string", "x-aws-stickler-comparator": "Nope"}}}'
TYPO = '{"type": "object", "properties": {"a": {"type": "string"}}, "requird": ["a"]}'


def the_hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["stickler-schema-check"]
    return hooks[0]


def chosen(hook: dict, files: list[str]) -> list[str]:
    """The files pre-commit gives the hook: `files:` searched in each path, `types: [json]` by the extension."""
    assert hook["types"] == ["json"]
    return [f for f in files if re.search(hook["files"], f) and f.endswith(".json")]


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "schemas" / "nested").mkdir(parents=True)
    (repo / "config").mkdir()
    (repo / "data").mkdir()
    shutil.copyfile(GOOD, repo / "schemas" / "invoice.json")
    shutil.copyfile(GOOD, repo / "config" / "receipts.stickler.json")
    (repo / "data" / "not-a-schema.json").write_text('{"rows": [1, 2]}', encoding="utf-8")  # not chosen
    (repo / "schemas" / "notes.md").write_text("# notes\n", encoding="utf-8")  # not chosen
    return repo


def run_hook(repo: Path, tmp_path: Path) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    hook = the_hook()
    files = sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if p.is_file())
    names = chosen(hook, files)
    command = [*shlex.split(hook["entry"]), *hook.get("args", []), *names]
    env = {**os.environ, "PATH": f"{stickler_on_path(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return names, subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=300)


def test_the_hook_is_stickler_schema_check_on_the_files_it_chooses() -> None:
    hook = the_hook()
    assert hook["entry"] == "stickler schema check" and hook["language"] == "python"
    assert hook.get("pass_filenames", True) is True
    files = [
        "schemas/invoice.json",
        "schemas/nested/a.json",
        "app/schemas/b.json",
        "c.stickler.json",
        "deep/d.stickler.json",
        "myschemas/e.json",
        "schemas/f.jsonl",
        "g.json",
        "schemas/readme.md",
    ]
    assert chosen(hook, files) == files[:5]


def test_good_schemas_pass(repository: Path, tmp_path: Path) -> None:
    names, done = run_hook(repository, tmp_path)
    assert names == ["config/receipts.stickler.json", "schemas/invoice.json"]
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert re.findall(r"^(\S+): OK — model Invoice, 6 fields$", done.stdout, re.M) == names


def test_a_bad_schema_fails_the_hook_and_is_named(repository: Path, tmp_path: Path) -> None:
    (repository / "schemas" / "nested" / "broken.json").write_text(BAD_COMPARATOR, encoding="utf-8")
    (repository / "schemas" / "typo.json").write_text(TYPO, encoding="utf-8")
    names, done = run_hook(repository, tmp_path)
    assert names == [
        "config/receipts.stickler.json",
        "schemas/invoice.json",
        "schemas/nested/broken.json",
        "schemas/typo.json",
    ]
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert lines[0].startswith(
        "stickler: error: schemas/nested/broken.json: /properties/a/x-aws-stickler-comparator: "
        "unknown comparator 'Nope'; known: "
    )
    assert lines[1:] == [
        "stickler: error: schemas/typo.json: /: unknown keyword 'requird' (did you mean 'required'?)",
        "stickler: error: 2 of 4 schemas failed the check: schemas/nested/broken.json, schemas/typo.json",
    ]
    # The good files are still checked, each once, with their fields listed.
    assert re.findall(r"^(\S+): OK", done.stdout, re.M) == names[:2]


def test_one_bad_schema_alone_is_the_one_line_it_always_was(tmp_path: Path) -> None:
    """pre-commit may give a file per run (its batches): the output of one schema is unchanged, no count line."""
    bad = tmp_path / "bad.stickler.json"
    bad.write_text(BAD_COMPARATOR, encoding="utf-8")
    stickler = stickler_on_path(tmp_path / "bin") / "stickler"
    done = subprocess.run([stickler, "schema", "check", bad.name], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("stickler: error: bad.stickler.json: /properties/a/")
