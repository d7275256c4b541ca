"""Run states on disk: ``--save-state`` writes one, ``stickler merge`` adds them up.

A state file is the accumulator's mergeable state as JSON, with the schema
embedded (so merging needs no schema file) and its hash (so states of
different schemas are never added together).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence


from .accumulate import STATE_VERSION, Accumulator, Analysis
from .errors import InputError
from .reader import decode
from .evaluate import Evaluation
from .reporters import json_report


def save(path: str, acc: Accumulator) -> None:
    """Write ``acc``'s state atomically (a crash never leaves half a file). The worst documents are
    kept whole, so the state may hold what orjson cannot write (integers beyond 64 bits)."""
    json_report.write(path, json_report.dumps(acc.get_state(), indent=False))


def load(path: str) -> dict[str, Any]:
    """A state file's content, checked enough that merging cannot fail halfway."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("state file not found", path) from None
    except OSError as exc:
        raise InputError(f"cannot read state file: {exc.strerror or exc}", path) from None
    try:
        state = decode(data)
    except ValueError as exc:
        raise InputError(f"not a stickler state file (not valid JSON: {exc})", path) from None
    if not isinstance(state, dict) or "schema_sha256" not in state or "state_version" not in state:
        raise InputError("not a stickler state file (written by `stickler eval --save-state`)", path)
    if state["state_version"] != STATE_VERSION:
        raise InputError(f"state version {state['state_version']!r} is not supported (this stickler writes "
                         f"{STATE_VERSION})", path)
    if not isinstance(state.get("schema"), dict):
        raise InputError("state file has no embedded schema", path)
    return state


def check_documents(acc: Accumulator, paths: Sequence[str]) -> None:
    """Intervals need every document's row: states saved by older stickler versions lack them."""
    from .statistics import row_width

    if len(acc.documents) != acc.document_count * row_width(acc.size):
        raise InputError("--ci needs each document's figures, which these states do not hold "
                         "(save them with `stickler eval --ci LEVEL --save-state`)", ", ".join(paths))


def merge(paths: Sequence[str], plugins: Sequence[str] = (), analysis: Analysis = Analysis()) -> Evaluation:
    """One Evaluation from several state files; the schema is the first state's."""
    from .parallel import PlanSource

    states = [(path, load(path)) for path in paths]
    first_path, first = states[0]
    for path, state in states[1:]:
        if state["schema_sha256"] != first["schema_sha256"]:
            raise InputError(
                f"made with a different schema than {first_path} (schema sha256 {state['schema_sha256'][:12]}… "
                f"vs {first['schema_sha256'][:12]}…); states of different schemas cannot be merged", path)
    source = PlanSource(first["schema"], first.get("schema_source") or "<state>", first["schema_sha256"],
                        tuple(plugins))
    plan = source.build()
    acc = Accumulator(plan, analysis)
    for path, state in states:
        try:
            acc.merge_state(state)
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise InputError(f"state file is damaged ({type(exc).__name__}: {exc})", path) from None
    return Evaluation(plan, acc, {"ground_truth": None, "predictions": None, "id_field": None, "states": list(paths)})
