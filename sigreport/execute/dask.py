"""Run independent nodes on a Dask cluster (``--executor dask``, ``pip install 'sigreport[dask]'``).

The dataset is scattered to every worker once; each node is a task that looks its blocks up there. A dataset
whose blocks the workers made themselves (Parquet shards read where they live, :mod:`sigreport.api.shards`)
is not scattered: :meth:`DaskExecutor.hold` takes the futures of its blocks, and each node is a task on those
futures (it runs where its block is), its other inputs (a metric's aggregate) sent from the client.
Workers need sigreport (and any user aggregate module) importable. ``scheduler`` is a
``tcp://host:port`` address; without one, a local cluster of ``jobs`` single-threaded worker
processes is started for the build and closed after it. Results are the same bytes as the serial
executor's.

A scheduler address is checked before the client is made (:func:`probe`): the client connects with a
timeout but then waits for the scheduler's first message without one, so a port that accepts and says
nothing hung the build, and a port that answers another protocol (HTTP) had its first bytes read as a
message length (an allocation of exabytes).
"""

from __future__ import annotations

import dataclasses
import logging
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


def _work_on(node: Node, deps: tuple[Any, ...], *inputs: Any) -> Any:
    """A node on its inputs themselves (the held blocks' futures resolved by Dask on the worker)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return node.fn(node.id, tuple(aligned(x) for x in inputs), node.params, aligned(deps))


def aligned(value: Any) -> Any:
    """``value`` with every numpy array in it (a dataclass's fields, tuples, lists) on memory aligned for its type.

    Why: an array that came from another worker lies where Dask's frame put it in the bytes received, which
    may be an address that is not a multiple of 8; numpy then sums through a buffer in chunks, and a column
    of 10,000 items comes out different in the last bit (a system's SD, an ANOVA sum of squares: 145 of
    600,000 numbers of the 10M-row benchmark). An aligned copy sums as the single-machine build does."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return value if value.flags.aligned else np.array(value, copy=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: aligned(getattr(value, f.name)) for f in dataclasses.fields(value)
                   if f.init and _holds_arrays(getattr(value, f.name))}
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, (tuple, list)) and _holds_arrays(value):
        return type(value)(aligned(v) for v in value)
    return value


def _holds_arrays(value: Any) -> bool:
    """Whether an unaligned array may be in ``value`` (looked for in dataclasses, tuples and lists only)."""
    import numpy as np

    if isinstance(value, np.ndarray):
        return not value.flags.aligned
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_holds_arrays(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, (tuple, list)):
        return any(_holds_arrays(v) for v in value)
    return False


TIMEOUT = 10.0  # seconds to connect to a scheduler and hear its handshake (--scheduler-timeout)


def probe(address: str, timeout: float) -> None:
    """Connect to the Dask scheduler at ``address`` and exchange the comm handshake, all within ``timeout``
    seconds, then hang up; raise :class:`DaskUnavailable` saying why not. Run in a thread of its own, so
    that a caller inside a running event loop (a notebook) is not disturbed."""
    import asyncio
    import concurrent.futures

    from distributed.comm import connect

    async def handshake() -> None:
        comm = await connect(address, timeout=timeout)
        await comm.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        try:
            pool.submit(asyncio.run, asyncio.wait_for(handshake(), timeout)).result()
        except (TimeoutError, asyncio.TimeoutError):
            raise DaskUnavailable(f"cannot reach the Dask scheduler at {address}: no Dask handshake within "
                                  f"{timeout:g} s (is a Dask scheduler listening there? --scheduler-timeout "
                                  "SECONDS waits longer)") from None
        except MemoryError:  # another protocol's first bytes read as a frame length
            raise DaskUnavailable(f"cannot reach the Dask scheduler at {address}: what answers there does not "
                                  "speak Dask's protocol (is it another service, such as a web server?)") from None
        except (OSError, ValueError, EOFError) as exc:  # refused, closed (CommClosedError), malformed address
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise DaskUnavailable(f"cannot reach the Dask scheduler at {address}: {reason}") from None


class DaskExecutor:
    def __init__(self, scheduler: str | None = None, jobs: int = 2, timeout: float = TIMEOUT):
        self.scheduler = scheduler
        self.jobs = jobs
        self.timeout = timeout
        self.client: Any = None
        self.cluster: Any = None
        self.data: Any = None
        self.dataset: BlockSource | None = None
        self.held: dict[tuple, Any] = {}  # block key -> the future of a block a worker holds

    def hold(self, blocks: dict[tuple, Any]) -> None:
        """Run the nodes reading these block keys on the futures given (blocks the workers made), and scatter
        nothing: the client never has them."""
        self.held = dict(blocks)

    def on_blocks(self, fn: Callable[..., Any], calls: Sequence[tuple[tuple, Any]], *args: Any) -> list[Any]:
        """``fn(block, value, *args)`` for each (block key, value) of ``calls``, each run on the worker that holds
        its block; the results in order."""
        return self.client.gather([self.client.submit(fn, self.held[key], value, *args, pure=False)
                                   for key, value in calls])

    def start(self, dataset: BlockSource) -> None:
        self.connect()
        self.dataset = dataset
        if not self.held:
            self.data = self.client.scatter(dataset, broadcast=True)

    def connect(self) -> None:
        """Connect to the scheduler (or start the local cluster), once."""
        if self.client is not None:
            return
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise DaskUnavailable("the Dask executor needs dask.distributed: pip install 'sigreport[dask]'") from None
        if self.scheduler:
            probe(self.scheduler, self.timeout)
        try:
            if self.scheduler:
                self.client = Client(self.scheduler, timeout=self.timeout)
            else:
                self.cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                            dashboard_address=None, host="127.0.0.1", silence_logs=logging.ERROR)
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as exc:
            self.close()
            where = f"the Dask scheduler at {self.scheduler}" if self.scheduler else "a local Dask cluster"
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise DaskUnavailable(f"cannot reach {where}: {reason}") from None

    def run(self, tasks: Sequence[Task], done: Callable[[Node], None]) -> list[Any]:
        from dask.distributed import as_completed

        futures = [self._submit(node, deps) for node, deps in tasks]
        node_of = {f.key: node for f, (node, _) in zip(futures, tasks)}
        for fut in as_completed(futures):
            done(node_of[fut.key])
        return self.client.gather(futures)

    def _submit(self, node: Node, deps: tuple[Any, ...]) -> Any:
        if not self.held:
            return self.client.submit(_work, node, self.data, deps, pure=False)
        assert self.dataset is not None
        inputs = [self.held[k] if k in self.held else self.dataset.lookup(k) for k in node.blocks]
        return self.client.submit(_work_on, node, deps, *inputs, pure=False)

    def close(self) -> None:
        """The end of a run: the cluster closed, unless it holds blocks (:meth:`hold`), which the build still
        reads after the run (the pairs' minimum detectable differences); :meth:`shutdown` then closes it."""
        if not self.held:
            self.shutdown()

    def shutdown(self) -> None:
        self.held = {}
        self.dataset = None
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None
