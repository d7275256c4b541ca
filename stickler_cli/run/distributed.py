"""Shards as Dask tasks: each task scores one shard pair and returns its state.

Workers need stickler-cli installed and the data files at the same paths
(a shared file system or object-store mount); the schema travels with the
task. The states come back to the client and are merged in shard order.
"""

from __future__ import annotations

from typing import Any, Sequence

from .accumulate import Accumulator
from ..errors import UsageError
from .judge_first import Answers, adopt_answers
from .options import RunOptions, for_plan
from .parallel import PlanSource, built
from ..plan import Plan
from .reader import check_alignment
from .scoring import score_shard
from .shards import Shard


def score_shard_task(
    shard: Shard, source: PlanSource, options: RunOptions, answers: Answers | None = None
) -> dict[str, Any]:
    """Runs on a Dask worker: the state of one shard pair, under the run's options (installed by each task:
    a Dask worker may run the tasks of several runs), its judges given the parent's ``answers``."""
    options.install()
    engine, plan = built(source, options.llm, options.judge_pairing)
    adopt_answers(plan, answers)
    acc = Accumulator(plan, options.collect)
    score_shard(engine, acc, shard, for_plan(options.pairing, plan))
    return acc.get_state(with_schema=False, as_arrays=True)


def score_on_dask(
    plan: Plan, shards: Sequence[Shard], acc: Accumulator, options: RunOptions, answers: Answers | None = None
) -> None:
    """Score ``shards`` on the cluster at ``options.dask`` (or a ``local`` one of ``options.workers``
    processes) into ``acc``, each task given ``options`` whole and the judges' ``answers`` (judge_first.py)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        from ..extras import install_hint

        raise UsageError(f"--dask needs the optional extra 'dask': {install_hint('dask')}") from None
    options = options.shipped()
    address, workers = options.dask, options.workers
    source = PlanSource.of(plan, options.plugins)
    cluster = None
    try:
        if address == "local":
            # No more worker processes than shards: each shard is one task.
            cluster = LocalCluster(
                n_workers=max(1, min(workers, len(shards))),
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            )
            client = Client(cluster)
        else:
            try:
                client = Client(address, timeout="15s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise UsageError(f"--dask: cannot reach the scheduler at {address}: {exc}") from None
        with client:
            # Sent to each worker once (a list of one: a dict given to scatter is scattered key by key).
            given = client.scatter([answers], broadcast=True)[0] if answers is not None else None
            futures = client.map(
                score_shard_task, list(shards), source=source, options=options, answers=given, pure=False
            )
            for state in client.gather(futures):
                acc.merge_state(state)
                check_alignment(acc.stats, acc.errors)
    finally:
        if cluster is not None:
            cluster.close()
