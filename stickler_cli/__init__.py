"""stickler: field-by-field evaluation of structured AI outputs.

The Python API is what the CLI uses::

    import stickler_cli as st
    plan = st.load_schema("schemas/invoice.json")     # or st.compile_schema(dict)
    result = st.compare(plan, gt_dict, pred_dict)     # one pair -> DocResult
    report = st.evaluate(plan, [(gt, pred), ...])     # many pairs -> report dict

Every module below this package imports it first, ``stickler --version`` included, so it imports
nothing itself: each name is imported from its module on first use (``__getattr__``), and not even
``typing`` is imported here.
"""

from __future__ import annotations

import sys
import types

from .version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (type checkers know this name)
if TYPE_CHECKING:
    import os
    from typing import Any, Iterable, Sequence

    from .confidence import ConfidenceMetric, ConfidencePairs
    from .engine import DocResult, Engine
    from .errors import ExitCode, InputError, SchemaError, SticklerError
    from .plan import Plan
    from .run.accumulate import Collect
    from .run.evaluate import Evaluation, Progress
    from .run.options import RunOptions
    from .run.shards import Shard
    from .schema import compile_schema, load_schema, pydantic_model

# The names imported from other modules on first use.
_LAZY = (
    "ConfidenceMetric",
    "ConfidencePairs",
    "DocResult",
    "Engine",
    "ExitCode",
    "InputError",
    "SchemaError",
    "SticklerError",
    "Plan",
    "compile_schema",
    "load_schema",
    "pydantic_model",
)


class _Package(types.ModuleType):
    """This package, whose ``evaluate`` stays the function below: importing the submodule
    ``stickler_cli.run.evaluate`` (which any command does, sooner or later) would otherwise replace it.
    The submodule is ``from stickler_cli.run.evaluate import ...``, as always."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "evaluate" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name in ("ConfidenceMetric", "ConfidencePairs"):
        from . import confidence as module
    elif name in ("DocResult", "Engine"):
        from . import engine as module
    elif name in ("ExitCode", "InputError", "SchemaError", "SticklerError"):
        from . import errors as module
    elif name == "Plan":
        from . import plan as module
    elif name in ("compile_schema", "load_schema", "pydantic_model"):
        from . import schema as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module is not None:
        value = getattr(module, name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def compare(plan: Plan, gt: dict, pred: dict, explain: bool = False, *, judge_pairing: str = "full") -> DocResult:
    """Score one ground-truth/prediction pair. ``judge_pairing``: as ``--judge-pairing`` ("full" or "proxy")."""
    from .engine import Engine

    return Engine(plan, judge_pairing).compare(gt, pred, explain=explain)


def evaluate(
    plan: Plan,
    pairs: Iterable[tuple[dict, dict]],
    confidence_metrics: Sequence[ConfidenceMetric] | None = None,
    *,
    judge_pairing: str = "full",
) -> dict:
    """Score many pairs and return the report dict (same shape as ``--format json``).

    ``confidence_metrics`` replaces the four built-in metrics; a metric is any
    ``ConfidenceMetric`` subclass with a ``name`` and ``compute(pairs)``. ``judge_pairing``: as
    ``--judge-pairing`` ("full", stickler-eval's way, or "proxy").
    """
    from .run.evaluate import Evaluation, evaluate_pairs
    from .report.build import build_report

    from .report.options import ReportOptions

    inputs: dict[str, Any] = {"ground_truth": None, "predictions": None, "id_field": None}
    if judge_pairing != "full":  # as a run of files says it (run/evaluate.py): worst documents are explained so too
        inputs["judge_pairing"] = judge_pairing
    metrics = tuple(confidence_metrics) if confidence_metrics is not None else None
    return build_report(
        Evaluation(plan, evaluate_pairs(plan, pairs, judge_pairing=judge_pairing), inputs),
        ReportOptions(confidence_metrics=metrics),
    )


def evaluate_files(
    plan: Plan,
    gt_path: str | os.PathLike | Sequence[Shard],
    pred_path: str | os.PathLike | None = None,
    options: RunOptions | None = None,
    *,
    progress: Progress | None = None,
    id_field: str | None = None,
    strict: bool = False,
    pair_by_line: bool = False,
    check_ids: Sequence[str] | None = None,
    workers: int = 1,
    plugins: Sequence[str] = (),
    dask: str | None = None,
    analysis: Collect | None = None,
    judge_pairing: str = "full",
) -> Evaluation:
    """Score JSONL files (one pair, or a list of ``Shard``) and return the ``Evaluation``
    (``stickler_cli.report.build.build_report`` makes the report of it).

    Give the run's ``RunOptions`` (``stickler_cli.run.options``), or its settings by keyword: they are
    built into one here, as the command line builds one from its flags.
    """
    from .run.evaluate import evaluate_files as run_files
    from .run.options import RunOptions, asked_pairing

    if options is not None and not isinstance(options, RunOptions):
        raise TypeError(
            f"evaluate_files: the fourth argument is the run's RunOptions, not {type(options).__name__}; "
            "give the other settings by keyword (id_field=..., workers=...)"
        )
    if hasattr(gt_path, "__fspath__"):  # a pathlib.Path names one file, as a string does
        gt_path = str(gt_path.__fspath__())  # type: ignore[union-attr]
    if pred_path is not None and hasattr(pred_path, "__fspath__"):
        pred_path = str(pred_path.__fspath__())  # type: ignore[union-attr]
    if options is None:
        from .run.accumulate import Collect

        options = RunOptions(
            asked_pairing(id_field, strict, pair_by_line, check_ids),
            workers,
            dask,
            tuple(plugins),
            collect=analysis if analysis is not None else Collect(),
            judge_pairing=judge_pairing,
        )
    return run_files(plan, gt_path, pred_path, options, progress)


__all__ = [
    "__version__",
    "load_schema",
    "compile_schema",
    "pydantic_model",
    "compare",
    "evaluate",
    "evaluate_files",
    "Plan",
    "DocResult",
    "Engine",
    "SticklerError",
    "SchemaError",
    "InputError",
    "ExitCode",
    "ConfidenceMetric",
    "ConfidencePairs",
]
