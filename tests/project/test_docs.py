"""The documentation site (mkdocs.yml, pages in docs/; `make docs`): every page is in the nav, the strict
build passes and fails on what it must refuse, and the examples the pages show are what the commands print.

The build needs mkdocs (the `docs` extra). Without it those tests skip, except where the build must be
proved: under CI=true or STICKLER_REQUIRE_DOCS=1 (as .ci/run sets) a missing mkdocs fails them."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from stickler_cli.cli.app import app

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"

# The pages agreed for the site, in the nav's order (the comparators' own pages sit under their index).
AGREED = [
    "index.md",
    "getting-started.md",
    "schema.md",
    "comparators/index.md",
    "numbers.md",
    "confidence.md",
    "decisions.md",  # issue 41, policy
    "decisions-baseline.md",
    "ground-truth.md",  # issue 42: several acceptable values, keys, pairings; agreement and stability below
    "agreement.md",  # issue 42, item 4: stickler agree
    "stability.md",  # issue 42, item 5
    "why-it-fails.md",
    "ci/index.md",
    "ci/github-action.md",
    "ci/pre-commit.md",
    "ci/pytest.md",
    "scale.md",
    "trust.md",
    "python-api.md",
    "parity.md",
    "notes/oracle-confidence.md",
    "performance.md",
    "performance-history.md",
    "reference/cli.md",
]


def nav_pages() -> list[str]:
    """The pages mkdocs.yml's nav names, in order (read as text: no YAML library needed)."""
    text = (ROOT / "mkdocs.yml").read_text()
    nav = text[text.index("\nnav:\n") :]
    return re.findall(r"^\s+- (?:[^\n]*?: )?([\w./-]+\.md)\s*$", nav, re.M)


def need_mkdocs() -> None:
    if importlib.util.find_spec("mkdocs") is not None and importlib.util.find_spec("material") is not None:
        return
    reason = "mkdocs and mkdocs-material are not installed (pip install -e '.[docs]', or make dev)"
    if os.environ.get("CI", "").lower() == "true" or os.environ.get("STICKLER_REQUIRE_DOCS") == "1":
        pytest.fail(f"the documentation site must be built here: {reason}")
    pytest.skip(reason)


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_every_page_in_docs_is_in_the_nav_and_every_nav_entry_is_a_page():
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    nav = nav_pages()
    assert sorted(nav) == pages
    assert len(set(nav)) == len(nav)


def test_the_agreed_pages_are_in_the_nav_in_the_agreed_order():
    nav = nav_pages()
    assert [p for p in nav if p in AGREED] == AGREED
    # the rest are the comparators' own pages, under their index
    assert all(p.startswith("comparators/") for p in nav if p not in AGREED)


def test_the_site_builds_strictly(tmp_path):
    need_mkdocs()
    done = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    for page in AGREED:
        html = page[: -len(".md")] + "/index.html" if not page.endswith("index.md") else page[: -len(".md")] + ".html"
        assert (tmp_path / "site" / html).is_file(), html


def test_the_strict_build_fails_on_a_broken_link_a_bad_anchor_and_a_page_left_out(tmp_path):
    """The validation settings of mkdocs.yml: each of the three is a warning, and --strict fails on it."""
    need_mkdocs()
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    scale = tmp_path / "docs" / "scale.md"
    scale.write_text(scale.read_text() + "\nSee [a page](no-such-page.md) and [a section](trust.md#no-such-section).\n")
    (tmp_path / "docs" / "stray.md").write_text("# Stray\n\nA page no menu reaches.\n")
    done = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 1
    said = done.stdout + done.stderr
    assert "Aborted with 3 warnings in strict mode" in said, said
    assert "'no-such-page.md'" in said
    assert "'trust.md#no-such-section'" in said
    assert "- stray.md" in said


def run_cli(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "stickler_cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100", NO_COLOR="1"),
        timeout=120,
    )
    return "\n".join(line.rstrip() for line in done.stdout.splitlines())


def block_after(page: str, marker: str) -> str:
    """The fenced block that follows `<!-- docs-test: marker -->` on a page."""
    text = (DOCS / page).read_text()
    start = text.index(f"<!-- docs-test: {marker} -->")
    body = text.index("\n", text.index("```", start)) + 1
    return text[body : text.index("```", body)].rstrip("\n")


def test_the_minimal_schema_is_checked_as_the_schema_page_shows(tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(block_after("schema.md", "minimal-schema"))
    shown = (DOCS / "schema.md").read_text()
    out = run_cli("schema", "check", "schema.json", cwd=tmp_path)
    assert out.startswith("schema.json: OK — model Invoice, 6 fields")
    assert out.strip("\n") in shown


def test_the_first_evaluation_prints_what_getting_started_shows():
    shown = block_after("getting-started.md", "invoice-summary").split("\n")
    assert shown[0] == "$ stickler eval schemas/invoice.json fixtures/invoice/gt.jsonl fixtures/invoice/pred.jsonl"
    out = run_cli("eval", *shown[0].split()[3:]).split("\n")
    assert shown[1:] == out[: len(shown) - 1]
    assert "  Weighted score    0.594" in shown


def test_every_option_of_eval_is_explained_in_words_on_getting_started():
    text = (DOCS / "getting-started.md").read_text()
    table = text[text.index("## Every option of `stickler eval`") :]
    rows = {m.group(1) for m in re.finditer(r"^\| (.+?) \| (.+?) \| \[", table, re.M)}
    named = {name for row in rows for name in re.findall(r"`(-[-\w]+|\[?[A-Z_]+\]?)", row)}
    command = typer.main.get_command(app).commands["eval"]
    for param in command.params:
        if param.param_type_name == "argument":
            assert param.name.upper() in {n.strip("[]") for n in named}, param.name
        else:
            for opt in param.opts + param.secondary_opts:
                assert opt in named, opt


def test_the_baseline_example_prints_what_the_baseline_page_shows(tmp_path):
    shutil.copytree(ROOT / "fixtures/baseline", tmp_path / "fixtures/baseline")
    page = (DOCS / "decisions-baseline.md").read_text()
    save = re.search(r"^\$ (stickler eval .* --save-baseline receipts\.baseline\.json)$", page, re.M).group(1)
    out = run_cli(*save.split()[1:], cwd=tmp_path)
    assert out.splitlines()[-1] == "Baseline of 40 documents written to receipts.baseline.json"
    written = (tmp_path / "receipts.baseline.json").stat().st_size
    predictions = (tmp_path / "fixtures/baseline/shipped.jsonl").stat().st_size
    assert f"The file is {written:,} bytes; the predictions are {predictions:,}." in page
    shown = block_after("decisions-baseline.md", "baseline-example").split("\n")
    out = run_cli(*shown[0].split()[2:], cwd=tmp_path).split("\n")
    start = out.index(shown[1])
    assert out[start : start + len(shown) - 1] == shown[1:]
