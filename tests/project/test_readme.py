"""README.md's five-minute walk-through, run as a test: the files it shows, run by the commands it shows,
give the figures it shows. A README that drifts from the tool fails here.

The walk-through's blocks are found by HTML comments, invisible on GitHub and in the docs site, each on the
line before a fenced block:

- ``<!-- walkthrough-file: NAME -->``: a file the reader saves as NAME (the schema, the two JSONL files);
- ``<!-- walkthrough-command: KEY -->``: a ``bash`` block, the command(s) the reader types;
- ``<!-- walkthrough-output: KEY -->``: a ``text`` block, what that command prints at 80 columns (the whole
  output, or, for the gate, its end).

The figures the README prints are also checked against figures worked out here by hand from the data, so
that the README is right, not only in step with the tool.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.support.reports import STICKLER

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 300


_BLOCK = re.compile(r"^<!-- walkthrough-(file|command|output): (\S+) -->\n```(\w+)\n(.*?)^```$", re.M | re.S)


def _blocks() -> dict[tuple[str, str], tuple[str, str]]:
    """(kind, key) -> (the fence's language, the block's text) for every marked block of README.md."""
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for kind, key, language, body in _BLOCK.findall(README.read_text(encoding="utf-8")):
        assert (kind, key) not in found, f"README.md marks two blocks walkthrough-{kind}: {key}"
        found[kind, key] = (language, body)
    return found


def _block(kind: str, key: str, language: str) -> str:
    blocks = _blocks()
    assert (kind, key) in blocks, f"README.md has no block marked <!-- walkthrough-{kind}: {key} -->"
    found_language, body = blocks[kind, key]
    assert found_language == language, f"walkthrough-{kind}: {key} is fenced as {found_language}, not {language}"
    return body


def _lines(text: str) -> list[str]:
    """The lines as a reader sees them: trailing blanks and blank lines at either end dropped (the tables pad
    their cells with spaces; an editor trims them from a README)."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _commands(key: str) -> list[tuple[list[str], int | None]]:
    """The ``stickler`` commands of a command block, each with the exit code that an ``echo $?    # N`` line
    after it states (None when no line states one)."""
    commands: list[tuple[list[str], int | None]] = []
    for line in _block("command", key, "bash").splitlines():
        if line.startswith("stickler "):
            commands.append((shlex.split(line, comments=True)[1:], None))
        elif stated := re.fullmatch(r"echo \$\?\s+#\s*(\d+)", line.strip()):
            assert commands, f"walkthrough-command: {key}: `echo $?` before any stickler command"
            commands[-1] = (commands[-1][0], int(stated.group(1)))
        else:
            assert not line.strip(), f"walkthrough-command: {key}: a line this test does not run: {line!r}"
    return commands


@pytest.fixture(scope="module")
def walk(tmp_path_factory) -> Path:
    """An empty directory holding the walk-through's files, as the reader saves them."""
    directory = tmp_path_factory.mktemp("walkthrough")
    for (kind, name), (_language, body) in _blocks().items():
        if kind == "file":
            (directory / name).write_text(body, encoding="utf-8")
    return directory


def _run(key: str, directory: Path) -> tuple[subprocess.CompletedProcess, int | None]:
    """Run the README's one command of block ``key`` in ``directory`` as a CI log shows it: 80 columns, no
    terminal, no colour forced, no step summary to append to."""
    commands = _commands(key)
    assert len(commands) == 1, f"walkthrough-command: {key} should show one stickler command: {commands}"
    args, stated_exit = commands[0]
    env = {**os.environ, "COLUMNS": "80"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p)
    for name in ("GITHUB_STEP_SUMMARY", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        env.pop(name, None)
    run = subprocess.run(
        [*STICKLER, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=directory,
        timeout=300,
    )
    return run, stated_exit


def _figures(text: str) -> dict[str, object]:
    """The figures of an ``eval`` output: the summary's rates and counts, and each table's rows by field path
    (nesting read from the indentation), every cell as printed."""
    figures: dict[str, object] = {}
    lines = _lines(text)
    for line in lines:
        if rate := re.fullmatch(r"  (Weighted score|Precision|Recall|Recall with FD|F1|Accuracy)\s+(\d\.\d{3})", line):
            figures[rate.group(1)] = rate.group(2)
        elif counts := re.fullmatch(r"  Counts\s+(.*)", line):
            figures["Counts"] = dict(re.findall(r"([A-Z]{2}) (\d+)", counts.group(1)))
    for number, line in enumerate(lines):
        if not re.fullmatch(r" (Field|Node) .*", line):
            continue
        header = line.split()
        table: dict[str, dict[str, str]] = {}
        parents: list[str] = []
        for row in lines[number + 2 :]:  # past the rule under the header
            if not row.strip():
                break
            depth = (len(row) - len(row.lstrip()) - 1) // 2
            cells = row.split()
            parents[depth:] = [cells[0]]
            assert len(cells) == len(header), f"a row of {len(cells)} cells under {len(header)} columns: {row!r}"
            table[".".join(parents)] = dict(zip(header[1:], cells[1:]))
        figures[header[0]] = table
    return figures


# -- the figures, worked out by hand from the README's data -------------------------------------------------
# Similarities (LevenshteinComparator, lower-cased): "ACME Corp." vs "Acme Corp": 1 edit in 10 characters, 0.9;
# "Globex Inc" vs "Globex": 4 in 10, 0.6; "Staplers" vs "Stapler": 1 in 8, 0.875. Everything else is equal or
# (invoice_id A-8 for A-3: Exact, 0.0; total missing: FN, 0.0) not.
STAPLER_ITEM = (0.875 + 1.0) / 2  # name, price: the item's weighted mean; its list has one item
DOCUMENT_SCORES = [
    (1 + 0.9 + 1 + 1) / 4,  # invoice_id, vendor, total, items; equal weights
    (1 + 0.6 + 1 + 1) / 4,
    (0 + 1 + 0 + STAPLER_ITEM) / 4,
]
WEIGHTED_SCORE = sum(DOCUMENT_SCORES) / 3
TP, FD, FN = 10, 2, 1  # top-level: invoice_id 2+0, vendor 2+1 FD, total 2+1 FN, items 4 paired items (2, 1, 1)
PRECISION, RECALL = TP / (TP + FD), TP / (TP + FN)


def test_walkthrough_files_are_what_the_readme_says(walk):
    """The schema is minimal as promised (one comparator named, one threshold, one list of objects), and the two
    JSONL files are three JSON objects each."""
    schema = json.loads((walk / "schema.json").read_text())
    text = json.dumps(schema)
    assert text.count('"x-aws-stickler-comparator"') == 1 and text.count('"x-aws-stickler-threshold"') == 1
    lists_of_objects = [p for p, s in schema["properties"].items() if s.get("items", {}).get("type") == "object"]
    assert lists_of_objects == ["items"]
    for name in ("gt.jsonl", "pred.jsonl"):
        records = [json.loads(line) for line in (walk / name).read_text().splitlines()]
        assert len(records) == 3 and all(isinstance(r, dict) for r in records), name


def test_walkthrough_eval_prints_the_figures_the_readme_shows(walk):
    shown = _block("output", "eval", "text")
    run, stated_exit = _run("eval", walk)
    assert run.returncode == 0 and stated_exit in (None, 0), run.stderr
    assert run.stderr == ""
    assert _figures(shown) == _figures(run.stdout), "a figure in README.md's eval table differs from the run's"
    assert _lines(shown) == _lines(run.stdout), "README.md's eval output is not what `stickler eval` prints"

    figures = _figures(shown)
    assert figures["Weighted score"] == f"{WEIGHTED_SCORE:.3f}" == "0.786"
    assert figures["Precision"] == f"{PRECISION:.3f}" and figures["Recall"] == f"{RECALL:.3f}"
    assert figures["Recall with FD"] == f"{TP / (TP + FD + FN):.3f}"
    assert figures["F1"] == f"{2 * PRECISION * RECALL / (PRECISION + RECALL):.3f}"
    assert figures["Counts"] == {"TP": str(TP), "FA": "0", "FD": str(FD), "FN": str(FN), "TN": "0"}
    fields = figures["Field"]
    assert list(fields) == ["invoice_id", "vendor", "total", "items", "items.name", "items.price"]
    assert fields["vendor"]["Score"] == f"{(0.9 + 0.6 + 1) / 3:.3f}"
    assert (fields["vendor"]["TP"], fields["vendor"]["FD"]) == ("2", "1")  # 0.6 < the threshold 0.8 < 0.9
    assert (fields["total"]["TP"], fields["total"]["FN"], fields["total"]["Rec"]) == ("2", "1", f"{2 / 3:.3f}")
    assert fields["items"]["Score"] == f"{(1 + 1 + STAPLER_ITEM) / 3:.3f}"
    assert fields["items.name"]["Score"] == f"{(1 + 1 + 1 + 0.875) / 4:.3f}"
    # The sentence under the table adds the top-level rows' TP up to the summary's.
    addends = re.search(r"\((\d+) TP: ([\d +\n]+)\)", README.read_text(encoding="utf-8"))
    assert addends, "README.md no longer says how the summary's TP adds up"
    top_level = [row["TP"] for path, row in fields.items() if "." not in path]
    assert [s.strip() for s in addends.group(2).split("+")] == top_level
    assert addends.group(1) == figures["Counts"]["TP"] == str(sum(map(int, top_level)))
    # The leaf roll-up: invoice_id, vendor, total (3 each) and the 4 items' name and price: 17 leaves.
    assert figures["Node"]["(document)"] == {
        "TP": "14",
        "FA": "0",
        "FD": "2",
        "FN": "1",
        "TN": "0",
        "Prec": f"{14 / 16:.3f}",
        "Rec": f"{14 / 15:.3f}",
        "F1": f"{2 * 14 / (2 * 14 + 2 + 1):.3f}",
    }


def test_walkthrough_compare_explains_the_document_the_readme_shows(walk):
    shown = _block("output", "compare", "text")
    run, _ = _run("compare", walk)
    assert run.returncode == 0, run.stderr
    assert _lines(shown) == _lines(run.stdout), "README.md's compare output is not what `stickler compare` prints"
    score = re.search(r"^Document score (\d\.\d{3})$", shown, re.M)
    assert score and score.group(1) == f"{DOCUMENT_SCORES[2]:.3f}" == "0.484"
    # The sentence under the output works the same sum.
    text = README.read_text(encoding="utf-8")
    assert f"(0 + 1 + 0 + {STAPLER_ITEM:.3f}) / 4 = {DOCUMENT_SCORES[2]:.3f}" in text


def test_walkthrough_gate_fails_with_the_exit_code_and_message_the_readme_shows(walk):
    shown = _lines(_block("output", "gate", "text"))
    run, stated_exit = _run("gate", walk)
    readme_exit = re.fullmatch(r"1 of 1 gate\(s\) failed \(exit code (\d)\)", shown[-1])
    assert readme_exit, f"README.md's gate output should end with the verdict line: {shown[-1]!r}"
    assert run.returncode == stated_exit == int(readme_exit.group(1)) == 1, (run.returncode, run.stderr)
    printed = _lines(run.stdout)
    assert printed[-len(shown) :] == shown, "README.md's gate output is not the end of what the run prints"
    # "It prints the same tables, then:" the eval output, the gate table after it.
    assert _lines("\n".join(printed[: -len(shown)])) == _lines(_block("output", "eval", "text"))
    gate = next(line.split() for line in shown if line.startswith(" weighted_overall_score"))
    assert gate == ["weighted_overall_score", ">=", "0.9", "0.9", f"{WEIGHTED_SCORE:.3f}", "failed"]


def test_readme_is_at_most_300_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; at most {MAX_LINES}"


def _github_slug(heading: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


def test_every_relative_link_in_the_readme_points_to_a_file_of_the_repository():
    text = README.read_text(encoding="utf-8")
    text_outside_code = re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)
    links = re.findall(r"\]\(([^)\s]+)\)", text_outside_code)
    assert len(links) >= 20, links  # the docs pages, the CI pages, the schema example
    anchors = {_github_slug(h) for h in re.findall(r"^#+ (.+)$", text_outside_code, re.M)}
    broken = []
    for link in links:
        if re.match(r"[a-z][a-z+.-]*:", link):  # https:, mailto:
            continue
        path, _, fragment = link.partition("#")
        if not path:
            if fragment not in anchors:
                broken.append(link)
        elif not (ROOT / path).exists():
            broken.append(link)
    assert not broken, f"README.md links to files that do not exist: {broken}"


def test_readme_renders_as_github_markdown():
    """Every code fence names its language (the highlighting on GitHub and in the site), fences are closed,
    and nothing tells a newcomer about torch before the walk-through is over (that is the semantic page's)."""
    text = README.read_text(encoding="utf-8")
    fences = [line for line in text.splitlines() if line.startswith("```")]
    assert len(fences) % 2 == 0, "an unclosed code fence"
    openings = fences[0::2]
    assert all(re.fullmatch(r"```[a-z]+", fence) for fence in openings), openings
    assert all(fence == "```" for fence in fences[1::2])
    assert text.startswith("# stickler\n")
    walkthrough_end = text.index("\n### Next\n")
    assert "torch" not in text[:walkthrough_end].lower()


def test_commands_at_a_glance_name_every_command_and_only_those():
    import typer.main

    from stickler_cli.cli.app import app

    group = typer.main.get_command(app)
    commands = set()
    for name, command in group.commands.items():
        subcommands = getattr(command, "commands", None)
        commands |= {f"{name} {sub}" for sub in subcommands} if subcommands else {name}
    section = README.read_text(encoding="utf-8").split("## Commands at a glance\n")[1].split("\n## ")[0]
    listed = re.findall(r"^\| `stickler ([a-z]+(?: [a-z]+)?)", section, re.M)
    assert sorted(listed) == sorted(commands)


def test_exit_codes_table_lists_every_exit_code():
    from stickler_cli.errors import ExitCode

    section = README.read_text(encoding="utf-8").split("## Exit codes\n")[1].split("\n## ")[0]
    codes = {int(code) for row in re.findall(r"^\| ([\d, ]+) \|", section, re.M) for code in row.split(",")}
    assert {int(code) for code in ExitCode} | {129, 130, 143} == codes
