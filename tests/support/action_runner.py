"""Run the composite GitHub Action of action.yml here, as a runner would, without network.

Each `run:` step is given to bash (``bash --noprofile --norc -eo pipefail``, the runner's own command for
``shell: bash``) in order, in the workspace, with what a runner sets: GITHUB_ACTION_PATH (the checkout),
RUNNER_TEMP, GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, a fresh GITHUB_OUTPUT file per step (read back as the step's
outputs), and the step's ``env:`` with its ``${{ }}`` expressions filled in. Only the expression forms
action.yml uses are understood (``inputs.x``, ``steps.id.outputs.x``, ``github.action_path``, ``runner.temp``,
``inputs.x == 'v'`` and ``!=`` in ``if:``); any other is an error, so a new form cannot pass unread. A ``uses:``
step (actions/setup-python, actions/upload-artifact) cannot run here: it is recorded, with its ``with:`` filled
in, when its ``if:`` holds. As a runner does, the first step that fails ends the run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
CONDITION = re.compile(r"^inputs\.([\w-]+)\s*(==|!=)\s*'([^']*)'$")


def load_action() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


@dataclass
class StepRun:
    name: str
    code: int
    stdout: str
    stderr: str


@dataclass
class ActionRun:
    runner_temp: Path
    ran: list[StepRun] = field(default_factory=list)  # the run: steps, in order
    uses: list[tuple[str, dict[str, str]]] = field(default_factory=list)  # uses: steps that would run, with: filled
    step_outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)  # the action's outputs
    summary: str = ""

    @property
    def code(self) -> int:
        """The exit code of the step that ended the run (0 when every step passed)."""
        return next((s.code for s in self.ran if s.code), 0)

    @property
    def log(self) -> str:
        return "".join(s.stdout + s.stderr for s in self.ran)


def stickler_on_path(directory: Path) -> Path:
    """A directory holding `stickler` (this checkout, run by this interpreter) and `python3` (this interpreter):
    the environment of the test in place of the install step's virtual environment."""
    directory.mkdir(parents=True, exist_ok=True)
    scripts = {
        "stickler": f'PYTHONPATH="{ROOT}" exec "{sys.executable}" -m stickler_cli "$@"',
        "python3": f'exec "{sys.executable}" "$@"',
    }
    for name, line in scripts.items():
        script = directory / name
        script.write_text(f"#!/bin/sh\n{line}\n", encoding="utf-8")
        script.chmod(0o755)
    return directory


def run_action(
    inputs: dict[str, str],
    workspace: Path,
    temp: Path,
    path: list[Path],
    only: set[str] | None = None,
) -> ActionRun:
    """Run action.yml's steps with ``inputs`` (the defaults of action.yml for the others), in ``workspace``, with
    a new directory in ``temp`` holding RUNNER_TEMP and the runner's files, and ``path`` before /usr/bin:/bin on PATH; ``only``: the ids of the steps to run."""
    action = load_action()
    declared = action["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs action.yml does not declare: {unknown}"
    values = {name: inputs.get(name, str(spec.get("default", ""))) for name, spec in declared.items()}
    for name, spec in declared.items():
        assert not (spec.get("required") and not values[name]), f"required input {name} not given"
    temp = Path(tempfile.mkdtemp(prefix="action-run-", dir=temp))  # each run its own files
    runner_temp = temp / "runner-temp"
    runner_temp.mkdir()
    summary = temp / "step-summary.md"
    summary.write_text("", encoding="utf-8")
    run = ActionRun(runner_temp=runner_temp)
    base = {
        "PATH": os.pathsep.join([*(str(p) for p in path), "/usr/bin", "/bin"]),
        "HOME": str(temp),
        "LANG": "C.UTF-8",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_WORKSPACE": str(workspace),
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_STEP_SUMMARY": str(summary),
    }

    def evaluate(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            expr = match.group(1)
            if m := re.fullmatch(r"inputs\.([\w-]+)", expr):
                return values[m.group(1)]
            if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr):
                return run.step_outputs.get(m.group(1), {}).get(m.group(2), "")
            if expr == "github.action_path":
                return str(ROOT)
            if expr == "runner.temp":
                return str(runner_temp)
            raise AssertionError(f"expression this runner does not know: {expr}")

        return EXPRESSION.sub(one, str(text))

    def holds(condition: str | None) -> bool:
        if condition is None:
            return True
        m = CONDITION.fullmatch(condition.strip())
        assert m, f"if: this runner does not know: {condition}"
        equal = values[m.group(1)] == m.group(3)
        return equal if m.group(2) == "==" else not equal

    for number, step in enumerate(action["runs"]["steps"]):
        if only is not None and step.get("id") not in only:
            continue
        if not holds(step.get("if")):
            continue
        if "uses" in step:
            run.uses.append((step["uses"], {k: evaluate(v) for k, v in step.get("with", {}).items()}))
            continue
        assert step.get("shell") == "bash", step
        output = temp / f"github-output-{number}"
        output.write_text("", encoding="utf-8")
        script = temp / f"step-{number}.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = {**base, "GITHUB_OUTPUT": str(output), **{k: evaluate(v) for k, v in step.get("env", {}).items()}}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        run.ran.append(StepRun(step.get("name", str(number)), done.returncode, done.stdout, done.stderr))
        if "id" in step:
            run.step_outputs[step["id"]] = read_outputs(output)
        if done.returncode:
            break
    run.outputs = {name: evaluate(spec["value"]) for name, spec in action.get("outputs", {}).items()}
    run.summary = summary.read_text(encoding="utf-8")
    return run


def read_outputs(path: Path) -> dict[str, str]:
    """A GITHUB_OUTPUT file: name=value lines (and the name<<DELIMITER form)."""
    found: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            found[name] = "\n".join(iter(lambda: next(lines), delimiter))
        elif line:
            name, value = line.split("=", 1)
            found[name] = value
    return found
