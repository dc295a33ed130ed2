"""Run independent nodes in worker processes (``--jobs N``).

Workers get the dataset once (inherited through ``fork`` where the platform has it, otherwise pickled
to each worker at start) and receive only nodes and their dependencies' results. Each worker holds its
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
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from sigreport import forking
from sigreport.execute.runner import Task, run_node
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


def _work(batch: Sequence[Task]) -> list[Any]:
    assert _DATASET is not None
    return [run_node(node, _DATASET, deps) for node, deps in batch]


def batches(tasks: Sequence[Task], jobs: int) -> list[list[Task]]:
    """The tasks in the batches a worker runs in one go: one batch per corpus (plan order kept) when there
    are at least four corpora per worker, else one task each.

    Why: the nodes of one corpus share its resample (every metric's bootstrap reuses the corpus's counts,
    drawn once per process; see ``sigreport.analyses.common.SharedResamples``). Spread over the workers
    node by node, each worker drew the counts of every corpus; by corpus, each draws its own. With fewer
    corpora the batches would be too few to keep every worker busy to the end, so nodes go one by one."""
    groups: dict[Any, list[Task]] = {}
    for task in tasks:
        groups.setdefault(task[0].corpus, []).append(task)
    if len(groups) < 4 * jobs:
        return [[task] for task in tasks]
    return list(groups.values())


class ProcessExecutor:
    def __init__(self, jobs: int):
        if jobs < 1:
            raise ValueError("jobs must be at least 1")
        self.jobs = jobs
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.procs: dict[int, Any] = {}
        self.failed = False  # a run stopped with an error or an interruption: close kills the workers

    def start(self, dataset: BlockSource) -> None:
        global _DATASET
        methods = multiprocessing.get_all_start_methods()
        if "fork" in methods:
            _DATASET = dataset  # children inherit it; nothing is pickled
            ctx, arg = multiprocessing.get_context("fork"), None
        else:  # pragma: no cover - platforms without fork
            ctx, arg = multiprocessing.get_context("spawn"), dataset
        self.pool = concurrent.futures.ProcessPoolExecutor(self.jobs, mp_context=ctx, initializer=_init,
                                                           initargs=(arg, os.getpid()))

    def run(self, tasks: Sequence[Task], done: Callable[[Node], None]) -> list[Any]:
        assert self.pool is not None
        try:
            return self._run(self.pool, tasks, done)
        except BrokenProcessPool as exc:
            self.failed = True
            if exc.__cause__ is not None:  # a result that could not be read back: a bug, with its traceback
                raise
            raise forking.lost(self.procs, "ran the analyses") from None
        except BaseException:
            self.failed = True
            raise

    def _run(self, pool: concurrent.futures.ProcessPoolExecutor, tasks: Sequence[Task],
             done: Callable[[Node], None]) -> list[Any]:
        groups = batches(tasks, self.jobs)
        with forking.held_signals():  # the first submit forks the workers (see forking.held_signals)
            futures = [pool.submit(_work, batch) for batch in groups]
        self.procs = forking.workers_of(pool)  # forked by the first submit; kept to name one that dies
        batch_of = dict(zip(futures, groups))
        for fut in concurrent.futures.as_completed(futures):
            for node, _ in batch_of[fut]:
                done(node)
        found = {id(node): value for batch, fut in zip(groups, futures) for (node, _), value in zip(batch, fut.result())}
        return [found[id(node)] for node, _ in tasks]

    def close(self) -> None:
        global _DATASET
        if self.pool is not None:
            forking.stop_pool(self.pool, kill=self.failed)
            self.pool = None
        _DATASET = None
