"""The ``oracle`` fixture: a long-lived stickler-eval process scoring value pairs.

Tests marked ``oracle`` run under ``make parity`` (STICKLER_ORACLE_PYTHON names
the oracle venv's python). Plain ``make test`` deselects them; when they are
selected and the oracle is missing they fail rather than skip, so a green CI
always means they ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

import pytest


class ComparatorOracle:
    """Client of tests/parity/comparator_server.py running under the oracle's python."""

    def __init__(self, python: str) -> None:
        server = Path(__file__).with_name("comparator_server.py")
        self._proc = subprocess.Popen(
            [python, str(server)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=sys.stderr,
            text=True,
            bufsize=1,
        )

    def scores(self, comparator: str, pairs: Sequence[tuple[Any, Any]], **config: Any) -> list[Any]:
        """The oracle's score per pair (a float, or {"error": ...} where it raised)."""
        request = {"comparator": comparator, "config": config, "pairs": [list(p) for p in pairs]}
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()
        reply = json.loads(self._proc.stdout.readline())
        if "error" in reply:
            raise RuntimeError(f"oracle could not build {comparator}: {reply['error']}")
        return reply["scores"]

    def score(self, comparator: str, gt: Any, pred: Any, **config: Any) -> Any:
        return self.scores(comparator, [(gt, pred)], **config)[0]

    def close(self) -> None:
        if self._proc.stdin:
            self._proc.stdin.close()
        self._proc.wait(timeout=30)


@pytest.fixture(scope="session")
def oracle() -> Iterable[ComparatorOracle]:
    python = os.environ.get("STICKLER_ORACLE_PYTHON")
    if not python or not Path(python).exists():
        pytest.fail("oracle tests need STICKLER_ORACLE_PYTHON (run them with `make parity`)")
    client = ComparatorOracle(python)
    yield client
    client.close()
