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
import sys
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


def hook_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a hook's run: `stickler` on PATH (this checkout), no step summary."""
    env = {**os.environ, "PATH": f"{stickler_on_path(tmp_path / 'bin')}{os.pathsep}{os.environ['PATH']}"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return env


def run_hook(repo: Path, tmp_path: Path) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    hook = the_hook()
    files = sorted(str(p.relative_to(repo)) for p in repo.rglob("*") if p.is_file())
    names = chosen(hook, files)
    command = [*shlex.split(hook["entry"]), *hook.get("args", []), *names]
    return names, subprocess.run(command, cwd=repo, env=hook_env(tmp_path), capture_output=True, text=True, timeout=300)


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


def blocks(page: str, language: str) -> list[str]:
    text = (ROOT / "docs" / "ci" / page).read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.M | re.S)


def test_the_pages_configurations_name_the_hook_and_their_patterns_choose_what_the_page_says(tmp_path: Path) -> None:
    configs = [yaml.safe_load(b) for b in blocks("pre-commit.md", "yaml") if b.startswith("repos:")]
    assert len(configs) == 2
    hooks = [h for c in configs for r in c["repos"] for h in r["hooks"]]
    assert {h["id"] for h in hooks} == {the_hook()["id"]}
    hook = {**the_hook(), **hooks[1]}
    exclude = re.compile(hook["exclude"])
    files = ["schemas/invoice.json", "eval/receipt.json", "schemas/report.schema.json", "app/schemas/a.json"]
    assert [f for f in chosen(hook, files) if not exclude.search(f)] == files[:2]
    assert chosen(the_hook(), ["schemas/invoice.json", "app/schemas/v2/receipt.json", "a.stickler.json"]) == [
        "schemas/invoice.json",
        "app/schemas/v2/receipt.json",
        "a.stickler.json",
    ]
    # stickler's own schemas pass the hook as configured on the page (the report schemas left out).
    own = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "schemas").glob("*.json"))
    checked = [f for f in chosen(hook, own) if not exclude.search(f)]
    assert "schemas/invoice.json" in checked and "schemas/report.schema.json" not in checked
    done = subprocess.run(
        [stickler_on_path(tmp_path / "bin") / "stickler"] + ["schema", "check", *checked],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_the_failure_the_page_shows_is_what_the_hook_prints(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    shutil.copyfile(GOOD, tmp_path / "schemas" / "invoice.json")
    (receipt,) = blocks("pre-commit.md", "json")
    (tmp_path / "schemas" / "receipt.json").write_text(receipt, encoding="utf-8")
    shown = next(b for b in blocks("pre-commit.md", "") if b.startswith("stickler schema check...."))
    header, _, printed = shown.partition("- exit code: 2\n\n")
    hook = the_hook()
    command = [*shlex.split(hook["entry"]), "schemas/invoice.json", "schemas/receipt.json"]
    # pre-commit prints standard output and standard error as one stream, as they came.
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env={**hook_env(tmp_path), "COLUMNS": "80"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert done.returncode == 2  # the page's "exit code: 2"
    assert header.startswith(f"{hook['name']}....") and f"- hook id: {hook['id']}\n" in header
    assert [line.rstrip() for line in done.stdout.splitlines()] == printed.splitlines()  # blanks at line ends dropped


def test_pre_commit_itself_takes_the_manifest_the_pages_configs_and_runs_the_hook(tmp_path: Path) -> None:
    """The real pre-commit, pip-installed from the package registry into a virtual environment of the test's own:
    it validates .pre-commit-hooks.yaml and the page's configurations, and `pre-commit try-repo` installs this
    checkout into the hook's environment (stickler's dependencies from the registry too) and runs the hook on a
    repository holding a good and a bad schema."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    pip = subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "pre-commit"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stderr
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}  # no stickler of the test's on PATH
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")

    def pre_commit(*args: str | Path, cwd: Path = tmp_path) -> subprocess.CompletedProcess[str]:
        command = [venv / "bin" / "pre-commit", *args]
        return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200)

    manifest = pre_commit("validate-manifest", ROOT / ".pre-commit-hooks.yaml")
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
    for number, config in enumerate(b for b in blocks("pre-commit.md", "yaml") if b.startswith("repos:")):
        (tmp_path / f"config-{number}.yaml").write_text(config, encoding="utf-8")
        checked = pre_commit("validate-config", f"config-{number}.yaml")
        assert (checked.returncode, checked.stdout + checked.stderr) == (0, "")
    repo = tmp_path / "repo"
    (repo / "schemas").mkdir(parents=True)
    shutil.copyfile(GOOD, repo / "schemas" / "invoice.json")
    (repo / "schemas" / "receipt.json").write_text(BAD_COMPARATOR, encoding="utf-8")
    (repo / "data.json").write_text(BAD_COMPARATOR, encoding="utf-8")  # not a schema the pattern chooses
    for git in (["init", "-q"], ["add", "."]):
        subprocess.run(["git", *git], cwd=repo, check=True)
    tried = pre_commit("try-repo", ROOT, "stickler-schema-check", "--all-files", cwd=repo)
    out = tried.stdout
    assert tried.returncode == 1, out + tried.stderr  # pre-commit's code for a hook that failed
    assert re.search(r"^stickler schema check\.+Failed$", out, re.M) and "- exit code: 2" in out
    assert "stickler: error: schemas/receipt.json: /properties/a/x-aws-stickler-comparator: unknown comparator" in out
    assert "schemas/invoice.json: OK — model Invoice, 6 fields" in out and "data.json" not in out
