"""The GitHub Action (action.yml): its `run:` steps run here with bash as a runner runs them
(tests/support/action_runner.py), on the invoice fixtures, without network.

The install step is the one left out of the end-to-end runs: the input ``install: "false"`` makes the action take
the `stickler` on PATH, and PATH starts with a directory holding a `stickler` that runs this checkout with this
interpreter (and a `python3` that is this interpreter). The install step itself runs on its own against a
`python3` that records what pip is asked for. The `uses:` steps (actions/setup-python, actions/upload-artifact)
cannot run here: the runner lists them with their ``with:`` filled in, and the tests check what they would get.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.action_runner import ROOT, load_action, run_action, stickler_on_path

SCHEMA = "schemas/invoice.json"
GT = "fixtures/invoice/gt.jsonl"
PRED = "fixtures/invoice/pred.jsonl"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A repository checkout as a workflow sees it: the invoice schema and fixtures at their usual paths."""
    ws = tmp_path / "workspace"
    for relative in (SCHEMA, GT, PRED):
        (ws / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, ws / relative)
    return ws


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    return stickler_on_path(tmp_path / "bin")


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """stickler as a user runs it, outside the action (no step summary)."""
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "stickler_cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def cli_score(cwd: Path) -> float:
    done = cli(cwd, "eval", SCHEMA, GT, PRED, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["metrics"]["weighted_overall_score"]


def action(workspace: Path, bin_dir: Path, **inputs: str):
    given = {"ground-truth": GT, "predictions": PRED, "install": "false", **inputs}
    return run_action({k.replace("_", "-"): v for k, v in given.items()}, workspace, workspace.parent, [bin_dir])


def test_action_is_composite_and_its_scripts_hold_no_expression() -> None:
    action = load_action()
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    scripts = [s for s in steps if "run" in s]
    assert [s.get("id") for s in scripts] == ["install", "eval", None]
    for step in scripts:
        # GitHub's hardening guidance: inputs reach a script through env only, never spliced into its text.
        assert "${{" not in step["run"], step["name"]
        assert step["shell"] == "bash"
    # Every input declared is read somewhere (in a step's env, with: or if:), and none is read undeclared.
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert set(re.findall(r"inputs\.([\w-]+)", text)) == set(action["inputs"])
    assert set(action["outputs"]) == {"score", "passed", "report", "html"}
    uses = [s["uses"] for s in steps if "uses" in s]
    assert uses == ["actions/setup-python@v5", "actions/upload-artifact@v4"]
    # The artifact is uploaded before the gates' verdict fails the job.
    names = [s["name"] for s in steps]
    assert names.index("Upload the reports") < names.index("Gates") == len(steps) - 1


def test_a_passing_gate_sets_the_score_and_passed_true(workspace: Path, bin_dir: Path) -> None:
    score = cli_score(workspace)
    gates = f"weighted_overall_score={score - 0.05:.4f}, line_items.*.cm_recall=0.25\n\n"
    run = action(workspace, bin_dir, schema=SCHEMA, fail_under=gates)
    assert run.code == 0, run.log
    assert [s.name for s in run.ran] == ["Install stickler", "Evaluate", "Gates"]
    assert float(run.outputs["score"]) == score
    assert run.outputs["passed"] == "true"
    report = json.loads(Path(run.outputs["report"]).read_text(encoding="utf-8"))
    assert report["metrics"]["weighted_overall_score"] == score
    # Both gates reached stickler, the comma and the blank lines splitting them.
    assert {(g["pattern"], g["threshold"], g["status"]) for g in report["gates"]} == {
        ("weighted_overall_score", float(f"{score - 0.05:.4f}"), "passed"),
        ("line_items.*.cm_recall", 0.25, "passed"),
    }
    html = Path(run.outputs["html"]).read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") and "Invoice" in html
    # The artifact: the directory holding both reports, under RUNNER_TEMP.
    assert run.uses == [
        ("actions/upload-artifact@v4", {"name": "stickler-report", "path": run.outputs["report"][:-12]})
    ]
    assert sorted(p.name for p in Path(run.uses[0][1]["path"]).iterdir()) == ["report.html", "report.json"]
    assert Path(run.uses[0][1]["path"]).parent == run.runner_temp
    # The step summary holds the Markdown report once: the page `--format markdown` prints with these gates.
    page = cli(
        workspace, "eval", SCHEMA, GT, PRED, "-f", "markdown",
        "--fail-under", f"weighted_overall_score={score - 0.05:.4f}", "--fail-under", "line_items.*.cm_recall=0.25",
    )  # fmt: skip
    assert page.returncode == 0, page.stderr
    assert run.summary == page.stdout
    assert run.summary.count("## stickler · `Invoice` · 24 documents") == 1
    # Workflow commands are off while stickler prints what the data holds, and on again after.
    token = re.search(r"::stop-commands::([0-9a-f]{32})\n", run.log)
    assert token and f"::{token.group(1)}::" in run.log


def test_a_failing_gate_uploads_the_reports_then_fails(workspace: Path, bin_dir: Path) -> None:
    score = cli_score(workspace)
    run = action(workspace, bin_dir, schema=SCHEMA, fail_under=f"weighted_overall_score={score + 0.05:.4f}")
    assert run.code == 1
    assert [(s.name, s.code) for s in run.ran] == [("Install stickler", 0), ("Evaluate", 0), ("Gates", 1)]
    assert (
        "::error title=stickler eval::a quality gate failed, or a field is worse than the baseline (exit code 1): "
        "the job summary says which"
    ) in run.ran[-1].stdout
    assert run.outputs["passed"] == "false"
    assert float(run.outputs["score"]) == score
    assert [u for u, _ in run.uses] == ["actions/upload-artifact@v4"]  # before the failing step
    report = json.loads(Path(run.outputs["report"]).read_text(encoding="utf-8"))
    assert [(g["gate"], g["status"]) for g in report["gates"]] == [
        (f"weighted_overall_score >= {score + 0.05:.4f}".rstrip("0"), "failed")
    ]
    assert Path(run.outputs["html"]).is_file()
    assert run.summary.count("## stickler · `Invoice` · 24 documents") == 1


def test_no_schema_infers_one_and_a_gates_file_and_args_reach_stickler(workspace: Path, bin_dir: Path) -> None:
    (workspace / "gates.toml").write_text("[fail-under]\nweighted_overall_score = 0.99\n", encoding="utf-8")
    inferred = cli(workspace, "eval", GT, PRED, "--format", "json")
    assert inferred.returncode == 0, inferred.stderr
    expected = json.loads(inferred.stdout)["metrics"]["weighted_overall_score"]
    run = action(workspace, bin_dir, gates="gates.toml", args="--save-schema 'inferred schema.json' --no-progress")
    assert run.code == 1
    assert float(run.outputs["score"]) == expected != cli_score(workspace)
    assert json.loads((workspace / "inferred schema.json").read_text(encoding="utf-8"))["type"] == "object"
    report = json.loads(Path(run.outputs["report"]).read_text(encoding="utf-8"))
    assert [(g["gate"], g["status"]) for g in report["gates"]] == [("weighted_overall_score >= 0.99", "failed")]


def test_bad_input_fails_the_step_with_exit_2_and_runs_nothing_after(workspace: Path, bin_dir: Path) -> None:
    run = action(workspace, bin_dir, schema=SCHEMA, ground_truth="fixtures/invoice/missing.jsonl")
    assert run.code == 2
    assert [(s.name, s.code) for s in run.ran] == [("Install stickler", 0), ("Evaluate", 2)]
    assert "fixtures/invoice/missing.jsonl" in run.ran[-1].stderr
    assert "::error title=stickler eval::bad input (exit code 2)" in run.ran[-1].stdout
    assert run.uses == [] and run.outputs["passed"] == "" and run.summary == ""
    # An unbalanced quote in args: a clear error, stickler not run.
    run = action(workspace, bin_dir, schema=SCHEMA, args="--show-errors '3")
    assert run.code == 2 and said_after_commands_resume(run.ran[-1].stdout) == "args: No closing quotation"
    # A working directory that is not there: exit 2, not the 1 of a failed gate.
    run = action(workspace, bin_dir, schema=SCHEMA, working_directory="no/such/dir")
    assert run.code == 2 and "no/such/dir" in run.ran[-1].stderr
    assert said_after_commands_resume(run.ran[-1].stdout) == "working-directory: no such directory (the line above)"


def said_after_commands_resume(stdout: str) -> str:
    """The action's error annotation, which must come after the line that turns workflow commands on again."""
    lines = stdout.splitlines()
    token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[0]).group(1)
    assert lines[-2:-1] == [f"::{token}::"], lines
    return lines[-1].removeprefix("::error title=stickler action::")


def test_shell_metacharacters_in_inputs_are_text(workspace: Path, bin_dir: Path, tmp_path: Path) -> None:
    odd = workspace / "$(touch pwned1) `touch pwned2`; touch pwned3"
    for relative in (SCHEMA, GT, PRED):
        (odd / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(workspace / relative, odd / relative)
    (odd / GT).rename(odd / "gt $(touch pwned4).jsonl")
    run = action(
        workspace,
        bin_dir,
        working_directory=odd.name,
        schema=SCHEMA,
        ground_truth="gt $(touch pwned4).jsonl",
        args='--non-matches "nm $(touch pwned5);touch pwned6.jsonl" --show-errors 2',
        fail_under="weighted_overall_score=0.1",
    )
    assert run.code == 0, run.log
    assert float(run.outputs["score"]) == cli_score(workspace)
    assert (odd / "nm $(touch pwned5);touch pwned6.jsonl").stat().st_size > 0
    assert not [p for p in tmp_path.rglob("pwned*")]
    # A gate holding a substitution reaches stickler as text, which refuses it (exit 2), and nothing ran.
    run = action(workspace, bin_dir, schema=SCHEMA, fail_under="weighted_overall_score=0.5$(touch pwned7)")
    assert run.code == 2 and "pwned7" in run.ran[-1].stderr
    assert not [p for p in tmp_path.rglob("pwned*")]


@pytest.fixture
def fake_python(tmp_path: Path) -> Path:
    """A `python3` whose `-m venv DIR` makes DIR/bin/python record its arguments and DIR/bin/stickler answer
    --version: what the install step asks pip for, without pip."""
    directory = tmp_path / "fake-bin"
    directory.mkdir()
    script = directory / "python3"
    script.write_text(
        """#!/bin/sh
[ "$1 $2" = "-m venv" ] || exit 9
mkdir -p "$3/bin"
printf '#!/bin/sh\\nprintf "%%s\\\\n" "$@" > "%s/pip-args"\\n' "$3" > "$3/bin/python"
printf '#!/bin/sh\\necho "stickler 9.9.9"\\n' > "$3/bin/stickler"
chmod +x "$3/bin/python" "$3/bin/stickler"
""",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return directory


@pytest.mark.parametrize(
    ("version", "requirement"),
    [("", str(ROOT)), ("1.4.0", "stickler-cli==1.4.0"), ("stickler-cli>=1.4,<2", "stickler-cli>=1.4,<2")],
)
def test_the_install_step_asks_pip_for_the_checkout_or_the_version(
    version: str, requirement: str, workspace: Path, fake_python: Path
) -> None:
    inputs = {"ground-truth": GT, "predictions": PRED, "version": version}
    run = run_action(inputs, workspace, workspace.parent, [fake_python], only={"install"})
    assert run.code == 0, run.log
    venv = run.runner_temp / "stickler-venv"
    assert (venv / "pip-args").read_text(encoding="utf-8").splitlines() == [
        "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--", requirement,
    ]  # fmt: skip
    assert run.step_outputs["install"] == {"stickler": str(venv / "bin" / "stickler")}
    assert run.ran[0].stdout == "stickler 9.9.9\n"


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"version": "--index-url=https://example.invalid/simple"}, "version must be a version or a requirement"),
        ({"install": "no"}, "install must be true or false"),
        ({"install": "false"}, "install is false but no stickler is on PATH"),
    ],
)
def test_the_install_step_refuses(inputs: dict[str, str], message: str, workspace: Path, fake_python: Path) -> None:
    run = run_action({"ground-truth": GT, "predictions": PRED, **inputs}, workspace, workspace.parent, [fake_python])
    assert run.code == 2 and [s.name for s in run.ran] == ["Install stickler"]
    assert f"::error title=stickler action::{message}" in run.ran[0].stdout
    assert not (run.runner_temp / "stickler-venv").exists()


def test_python_version_sets_up_python_first(workspace: Path, bin_dir: Path) -> None:
    run = action(workspace, bin_dir, schema=SCHEMA, python_version="3.12", upload="false")
    assert run.code == 0, run.log
    assert run.uses == [("actions/setup-python@v5", {"python-version": "3.12"})]


def page_steps(page: str) -> list[dict]:
    """The steps of the page's YAML blocks (whole workflows, or a job's steps) that use the action."""
    steps = []
    for block in re.findall(r"^```yaml\n(.*?)^```$", page, re.M | re.S):
        parsed = yaml.safe_load(block)
        for job in parsed.get("jobs", {"": parsed}).values():
            steps += [s for s in job["steps"] if s.get("uses") in ("ORG/stickler@v1", "./")]
    return steps


def test_the_pages_workflows_and_summary_are_what_the_action_does(workspace: Path, bin_dir: Path) -> None:
    page = (ROOT / "docs" / "ci" / "github-action.md").read_text(encoding="utf-8")
    declared = load_action()["inputs"]
    steps = [s for s in page_steps(page) if s["with"]["ground-truth"] == GT]  # the invoice workflows
    assert [s["uses"] for s in steps] == ["ORG/stickler@v1", "./"]
    required = {name for name, spec in declared.items() if spec.get("required")}
    score = cli_score(workspace)
    codes = []
    for step in steps:
        assert required <= set(step["with"]) <= set(declared)
        # The files and gates shown are stickler's own fixtures: the first workflow's gate 0.9 fails, 0.5 passes.
        run = action(workspace, bin_dir, **{k.replace("-", "_"): v for k, v in step["with"].items()})
        assert float(run.outputs["score"]) == score
        codes.append((run.code, run.outputs["passed"]))
    assert codes == [(1, "false"), (0, "true")]
    # The summary shown: the first lines of the page the summary holds, then its failed gate.
    shown = re.search(r"^```\n(## stickler .*?)^```$", page, re.M | re.S).group(1)
    head, _, tail = shown.partition("...\n")
    run = action(workspace, bin_dir, schema=SCHEMA, fail_under="weighted_overall_score=0.9")
    assert run.code == 1 and run.summary.startswith(head) and "\n" + tail.lstrip("\n") in run.summary


def test_the_pages_baseline_and_policy_workflows_run(workspace: Path, bin_dir: Path) -> None:
    """docs/ci/github-action.md's baseline and policy workflows, on stickler's fixtures/baseline and fixtures/policy:
    the page's commands write ci/baseline.stickler (the shipped model) and ci/policy.json (target 0.8); the pull
    request's candidate model is worse on total (8 documents right before, wrong now: docs/decisions-baseline.md
    works it out), so `--fail-on-regression` in args fails the job; the refresh writes the baseline again, which
    the shipped predictions then meet; the committed policy holds on the data it was fitted on (policy_holds 1)."""
    import shlex

    page = (ROOT / "docs" / "ci" / "github-action.md").read_text(encoding="utf-8")
    for name in ("baseline", "policy"):
        shutil.copytree(ROOT / "fixtures" / name, workspace / "fixtures" / name)
    (workspace / "ci").mkdir()
    commands = re.findall(r"^stickler eval (.*)$", page, re.M)
    assert len(commands) == 2
    for command in commands:
        done = cli(workspace, "eval", *shlex.split(command))
        assert done.returncode == 0, done.stderr
    steps = [s for s in page_steps(page) if s["with"]["ground-truth"] != GT]
    assert [s["with"]["args"] for s in steps] == [
        "--baseline ci/baseline.stickler --fail-on-regression",
        "--save-baseline ci/baseline.stickler",
        "--policy ci/policy.json --fail-under policy_holds=1",
    ]
    held, refresh, policy = ({k.replace("-", "_"): v for k, v in s["with"].items()} for s in steps)

    run = action(workspace, bin_dir, **held)
    assert run.code == 1 and run.outputs["passed"] == "false"
    assert [(s.name, s.code) for s in run.ran] == [("Install stickler", 0), ("Evaluate", 0), ("Gates", 1)]
    assert "a field is worse than the baseline (exit code 1)" in run.ran[-1].stdout
    block = json.loads(Path(run.outputs["report"]).read_text(encoding="utf-8"))["baseline"]
    assert block["worse"] == ["total"] and block["documents"]["common"] == 40
    total = next(f for f in block["fields"] if f["path"] == "total")
    assert (total["worse"], total["better"]) == (8, 0)
    assert "Against the baseline, the run is significantly worse on 1 field(s): total" in run.summary

    (workspace / "ci" / "baseline.stickler").unlink()
    run = action(workspace, bin_dir, **refresh)
    assert run.code == 0 and run.outputs["passed"] == "true", run.log
    base = held["predictions"].replace("candidate", "shipped")
    done = cli(workspace, "eval", held["schema"], held["ground_truth"], base, *shlex.split(held["args"]), "-f", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["baseline"]["documents"]["common"] == 40

    run = action(workspace, bin_dir, **policy)
    assert run.code == 0 and run.outputs["passed"] == "true", run.log
    report = json.loads(Path(run.outputs["report"]).read_text(encoding="utf-8"))
    assert report["policy"]["mode"] == "applied"
    assert [(g["gate"], g["actual"], g["status"]) for g in report["gates"]] == [("policy_holds >= 1", 1.0, "passed")]
