"""Run a plan's nodes in worker processes (``--jobs N``).

Workers get the dataset once (inherited through ``fork`` where the platform has it, otherwise pickled
to each worker at start) and receive only nodes and the results of the dependencies they do not run
themselves.

The pool takes every node the runner has left at once (:meth:`ProcessExecutor.run_graph`) and decides,
here and only here, whether they are worth the workers (:func:`worth_workers`: the nodes of a single block
run in this process) and (:func:`batches`) which nodes a worker runs in one call: with enough corpora, a
corpus's whole chain (its descriptives, then its pairwise tests and omnibus, then its post-hoc tests),
each node taking the values of the batch's earlier nodes as its dependencies. So there is no barrier at
the end of a wave (a worker goes on to the next stage of its corpus while the other still works on the
first), and no dependency travels back to a worker (the pairwise results a post-hoc test reads, half a
megabyte per corpus at a million rows, stay where they were made). A batch is sent once every node it
needs from other batches is back; batches are numbered so that a batch only needs earlier ones (never
a cycle). Each worker holds its
BLAS libraries to one thread (threadpoolctl), so N workers use N cores instead of N x cores threads.
Results are the same bytes as the serial executor's: nothing in a node depends on where it runs.

Workers die with the build (:func:`sigreport.forking.bind_to_parent`); a build stopping with an error or
an interruption kills them rather than waiting for their analyses; a worker that dies (SIGKILL, the
out-of-memory killer) ends the run with :class:`sigreport.forking.WorkerLost`, one line, not a traceback.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sigreport import forking
from sigreport.execute.runner import Finished, SerialExecutor, Task, run_node
from sigreport.plan import BlockSource, Node

_DATASET: BlockSource | None = None  # the dataset inside a worker process
_LIMITS: Any = None


def _init(dataset: BlockSource | None, parent: int) -> None:
    global _DATASET, _LIMITS
    forking.bind_to_parent(parent)
    if dataset is not None:
        _DATASET = dataset
    from threadpoolctl import threadpool_limits

    _LIMITS = threadpool_limits(limits=1)


def _work(batch: Sequence[Node], outside: dict[str, Any]) -> list[Any]:
    """Run the batch's nodes in order; a node's dependencies are the values of earlier nodes of the batch,
    or given in ``outside``."""
    assert _DATASET is not None
    values = dict(outside)
    out = []
    for node in batch:
        values[node.id] = run_node(node, _DATASET, tuple(values[d] for d in node.depends_on))
        out.append(values[node.id])
    return out


def batches(nodes: Sequence[Node], jobs: int) -> list[list[Node]]:
    """The nodes in the batches a worker runs in one go (each batch in plan order, each needing only nodes of
    earlier batches): a corpus's nodes together when there are at least four corpora per worker, else one
    node each.

    Why: the nodes of one corpus share its resample (every metric's bootstrap reuses the corpus's counts,
    drawn once per process; see ``sigreport.analyses.common.SharedResamples``), and its later nodes read its
    earlier nodes' results: run together, each worker draws only its own corpora's counts and no result is
    sent back to a worker. With fewer corpora the batches would be too few to keep every worker busy to the
    end, so nodes go one by one. A node joins its corpus's latest batch only when every node it needs that is
    not in that batch is in an earlier one; otherwise (a node reading another batch made after its corpus's,
    such as a cross-corpus analysis's) it starts a new batch."""
    if len({n.corpus for n in nodes}) < 4 * jobs:
        return [[n] for n in nodes]
    out: list[list[Node]] = []
    where: dict[str, int] = {}  # node id -> its batch
    latest: dict[Any, int] = {}  # corpus -> its latest batch
    for node in nodes:
        b = latest.get(node.corpus)
        if b is None or any(where.get(d, -1) > b for d in node.depends_on):
            b = latest[node.corpus] = len(out)
            out.append([])
        out[b].append(node)
        where[node.id] = b
    return out


def worth_workers(nodes: Sequence[Node]) -> bool:
    """Whether ``nodes`` go to the workers: when they analyse two or more blocks (metric, corpus); the nodes of
    a single block run here.

    Why: a block's nodes mostly form one chain (its descriptives, its tests, the post-hoc tests that read them),
    so a second worker has little to run beside it (independent analyses of one block, such as a Bayesian
    comparison beside the pairwise test, now run one after the other: same bytes, and the speed measured on
    the leaderboards), while every value a worker makes travels back pickled:
    the pairwise family of a 1,000-system leaderboard (499,500 pairs, 277 MB pickled) cost 12 s to pickle and
    21 s to read back, more than the analysis itself (14 s)."""
    return len({(n.metric, n.corpus) for n in nodes}) >= 2


class ProcessExecutor:
    def __init__(self, jobs: int):
        if jobs < 1:
            raise ValueError("jobs must be at least 1")
        self.jobs = jobs
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.dataset: BlockSource | None = None  # for the nodes run here (worth_workers)
        self.procs: dict[int, Any] = {}
        self.failed = False  # a run stopped with an error or an interruption: close kills the workers

    def start(self, dataset: BlockSource) -> None:
        global _DATASET
        self.dataset = dataset
        methods = multiprocessing.get_all_start_methods()
        if "fork" in methods:
            _DATASET = dataset  # children inherit it; nothing is pickled
            ctx, arg = multiprocessing.get_context("fork"), None
        else:  # pragma: no cover - platforms without fork
            ctx, arg = multiprocessing.get_context("spawn"), dataset
        self.pool = concurrent.futures.ProcessPoolExecutor(self.jobs, mp_context=ctx, initializer=_init,
                                                           initargs=(arg, os.getpid()))

    def run(self, tasks: Sequence[Task], done: Callable[[Node], None]) -> list[Any]:
        """Independent nodes with their dependencies' values given (the :class:`~sigreport.execute.runner.Executor`
        protocol; the runner itself hands this executor the whole graph, :meth:`run_graph`)."""
        known = {d: value for node, deps in tasks for d, value in zip(node.depends_on, deps)}
        found: dict[int, Any] = {}

        def finished(node: Node, value: Any) -> None:
            found[id(node)] = value
            done(node)

        self.run_graph([node for node, _ in tasks], known, finished)
        return [found[id(node)] for node, _ in tasks]

    def run_graph(self, nodes: Sequence[Node], known: Mapping[str, Any], finished: Finished) -> None:
        """Run ``nodes`` in the workers, batch by batch (:func:`batches`), each batch sent once the batches it
        needs are back; ``finished`` is told each node's value as its batch comes back."""
        assert self.pool is not None
        if not worth_workers(nodes):
            self._here(nodes, known, finished)
            return
        try:
            self._run(self.pool, batches(nodes, self.jobs), known, finished)
        except BrokenProcessPool as exc:
            self.failed = True
            if exc.__cause__ is not None:  # a result that could not be read back: a bug, with its traceback
                raise
            raise forking.lost(self.procs, "ran the analyses") from None
        except BaseException:
            self.failed = True
            raise

    def _here(self, nodes: Sequence[Node], known: Mapping[str, Any], finished: Finished) -> None:
        """The nodes run in this process, in plan order, by the serial executor (BLAS held to one thread, the
        resampling engine's buffer released after); the workers are never forked."""
        assert self.dataset is not None
        serial = SerialExecutor()
        serial.start(self.dataset)
        try:
            values = dict(known)
            for node in nodes:
                values[node.id], = serial.run([(node, tuple(values[d] for d in node.depends_on))], lambda n: None)
                finished(node, values[node.id])
        finally:
            serial.close()

    def _run(self, pool: concurrent.futures.ProcessPoolExecutor, groups: list[list[Node]],
             known: Mapping[str, Any], finished: Finished) -> None:
        where = {node.id: b for b, group in enumerate(groups) for node in group}
        needs = {b: {where[d] for node in group for d in node.depends_on if where.get(d, b) != b}
                 for b, group in enumerate(groups)}
        values = dict(known)
        running: dict[concurrent.futures.Future, int] = {}
        while needs or running:
            ready = [b for b, wanted in needs.items() if not wanted]
            if not ready and not running:  # batches() numbers batches so that this cannot be
                raise RuntimeError(f"analysis batches wait for each other: {sorted(needs)}")
            with forking.held_signals():  # the first submit forks the workers (see forking.held_signals)
                for b in ready:
                    del needs[b]
                    outside = {d: values[d] for node in groups[b] for d in node.depends_on if where.get(d) != b}
                    running[pool.submit(_work, groups[b], outside)] = b
            self.procs = self.procs or forking.workers_of(pool)  # kept to name a worker that dies
            back, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in back:
                b = running.pop(fut)
                for node, value in zip(groups[b], fut.result()):
                    values[node.id] = value
                    finished(node, value)
                for wanted in needs.values():
                    wanted.discard(b)

    def close(self) -> None:
        global _DATASET
        if self.pool is not None:
            forking.stop_pool(self.pool, kill=self.failed)
            self.pool = None
        _DATASET = None
        self.dataset = None
