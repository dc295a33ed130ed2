"""Run independent nodes on a Dask cluster (``--executor dask``, ``pip install 'sigreport[dask]'``).

The dataset is scattered to every worker once; each node is a task that looks its blocks up there.
Workers need sigreport (and any user aggregate module) importable. ``scheduler`` is a
``tcp://host:port`` address; without one, a local cluster of ``jobs`` single-threaded worker
processes is started for the build and closed after it. Results are the same bytes as the serial
executor's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sigreport.execute.runner import Task, run_node
from sigreport.plan import BlockSource, Node


class DaskUnavailable(Exception):
    """dask.distributed is missing, or the scheduler cannot be reached."""


def _work(node: Node, dataset: BlockSource, deps: tuple[Any, ...]) -> Any:
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return run_node(node, dataset, deps)


class DaskExecutor:
    def __init__(self, scheduler: str | None = None, jobs: int = 2, timeout: float = 5.0):
        self.scheduler = scheduler
        self.jobs = jobs
        self.timeout = timeout
        self.client: Any = None
        self.cluster: Any = None
        self.data: Any = None

    def start(self, dataset: BlockSource) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise DaskUnavailable("the Dask executor needs dask.distributed: pip install 'sigreport[dask]'") from None
        try:
            if self.scheduler:
                self.client = Client(self.scheduler, timeout=self.timeout)
            else:
                self.cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                            dashboard_address=None, host="127.0.0.1")
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as exc:
            self.close()
            where = f"the Dask scheduler at {self.scheduler}" if self.scheduler else "a local Dask cluster"
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise DaskUnavailable(f"cannot reach {where}: {reason}") from None
        self.data = self.client.scatter(dataset, broadcast=True)

    def run(self, tasks: Sequence[Task], done: Callable[[Node], None]) -> list[Any]:
        from dask.distributed import as_completed

        futures = [self.client.submit(_work, node, self.data, deps, pure=False) for node, deps in tasks]
        node_of = {f.key: node for f, (node, _) in zip(futures, tasks)}
        for fut in as_completed(futures):
            done(node_of[fut.key])
        return self.client.gather(futures)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
