"""Shards as Dask tasks: each task scores one shard pair and returns its state.

Workers need stickler-cli installed and the data files at the same paths
(a shared file system or object-store mount); the schema travels with the
task. The states come back to the client and are merged in shard order.
"""

from __future__ import annotations

from typing import Any, Sequence

from .accumulate import Accumulator, Collect
from ..errors import UsageError
from .parallel import PlanSource, built
from ..plan import Plan
from .reader import Pairing, check_alignment
from .scoring import score_shard
from .shards import Shard


def score_shard_task(shard: Shard, source: PlanSource, pairing: Pairing,
                     analysis: Collect = Collect()) -> dict[str, Any]:
    """Runs on a Dask worker: the state of one shard pair."""
    engine, plan = built(source)
    acc = Accumulator(plan, analysis)
    score_shard(engine, acc, shard, pairing)
    return acc.get_state(with_schema=False, as_arrays=True)


def score_on_dask(plan: Plan, shards: Sequence[Shard], address: str, acc: Accumulator,
                  pairing: Pairing = Pairing(), plugins: Sequence[str] = (),
                  workers: int = 1) -> None:
    """Score ``shards`` on the cluster at ``address`` (or a ``local`` one of ``workers`` processes) into ``acc``."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        from ..extras import install_hint

        raise UsageError(f"--dask needs the optional extra 'dask': {install_hint('dask')}") from None
    source = PlanSource.of(plan, plugins)
    cluster = None
    try:
        if address == "local":
            # No more worker processes than shards: each shard is one task.
            cluster = LocalCluster(n_workers=max(1, min(workers, len(shards))), threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
            client = Client(cluster)
        else:
            try:
                client = Client(address, timeout="15s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise UsageError(f"--dask: cannot reach the scheduler at {address}: {exc}") from None
        with client:
            futures = client.map(score_shard_task, list(shards), source=source, pairing=pairing,
                                 analysis=acc.collect, pure=False)
            for state in client.gather(futures):
                acc.merge_state(state)
                check_alignment(acc.stats, acc.errors)
    finally:
        if cluster is not None:
            cluster.close()
