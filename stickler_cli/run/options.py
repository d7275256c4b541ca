"""How a run reads, pairs and scores its inputs: one frozen object, built once at the boundary.

The command line builds a ``RunOptions`` from its flags (cli/options.py); the Python API builds one by
hand or takes the defaults. It travels whole: to ``evaluate_files``, to each process of the pool
(parallel.py) and to each Dask task (distributed.py), which install its limits and LLM settings once
(``install``) before they score. What the report makes of the state is ``report.options.ReportOptions``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Sequence

from .. import limits as bounds
from .accumulate import Collect
from .reader import Pairing

if TYPE_CHECKING:
    from ..plan import Plan


def asked_pairing(
    id_field: str | None = None,
    strict: bool = False,
    pair_by_line: bool = False,
    check_ids: Sequence[str] | None = None,
) -> Pairing:
    """The pairing the user asked for: by ``id_field``; else by line, checked against the document ids
    ``check_ids`` (default ``reader.ID_FIELDS``) unless ``pair_by_line``. Bound to a plan by ``for_plan``."""
    if pair_by_line:
        return Pairing(id_field, strict, None)
    if check_ids:
        return Pairing(id_field, strict, tuple(check_ids), user_named=True)
    return Pairing(id_field, strict)


def for_plan(pairing: Pairing, plan: Plan) -> Pairing:
    """``pairing`` knowing the fields ``plan`` scores (an id the model extracts may simply be wrong): every
    process binds the options' pairing to the plan it built."""
    return replace(pairing, scored=frozenset(f.key for f in plan.root.fields))


@dataclass(frozen=True)
class RunOptions:
    """Everything a run needs beyond the plan and the files: how records pair, where they are scored
    (``workers`` processes, or the Dask scheduler at ``dask``), the plugins each process imports, the
    bounds in force, the user's LLM settings, what the accumulator keeps (``collect``) and how lists with
    judged fields pair (``judge_pairing``)."""

    pairing: Pairing = Pairing()
    workers: int = 1
    dask: str | None = None  # a scheduler address, or "local" (a cluster of ``workers`` processes)
    plugins: tuple[str, ...] = ()  # --plugin: imported by name in every process
    # The bounds of this run (--limit, [tool.stickler.limits]); by default those in force where it is built.
    limits: bounds.Limits = field(default_factory=bounds.current)
    # comparators.llm.Access (--llm-*, --allow-network); None: whatever the process has (the defaults,
    # unless the Python API configured it), taken when the run goes to other processes (``shipped``).
    llm: Any = None
    collect: Collect = Collect()
    # --judge-pairing: "full" (every item pair of a list judged, stickler-eval's way) or "proxy" (engine/proxy.py).
    judge_pairing: str = "full"

    def install(self) -> None:
        """Put the bounds and the LLM settings in force in this process (a pool worker, a Dask task)."""
        bounds.use(self.limits)
        if self.llm is not None:
            from ..comparators.llm import configure

            configure(self.llm)

    def shipped(self) -> RunOptions:
        """These options as another process needs them: the LLM settings in force here, when none were given
        (a spawned worker starts with the defaults)."""
        if self.llm is not None:
            return self
        from ..comparators.llm import current_access

        return replace(self, llm=current_access())
