"""Work in forked processes that inherit what it needs (nothing pickled on the way in).

One mechanism for the places that hand CPU work to other processes for the length of one step: the
figures of a report (``sigreport.render.figures.output.start_figures``) and the writing of
results.json while the report renders (``sigreport.api.pipeline.in_background``). The task is a
closure over the caller's data; the workers are forked when the pool starts, so they inherit it, and
only the results travel back (pickled). Where the platform has no ``fork``, the work runs here.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
_TASK: Callable[[int], Any] | None = None  # what the forked workers call (inherited, never pickled)


def _call(i: int) -> Any:
    assert _TASK is not None
    return _TASK(i)


def start(task: Callable[[int], T], n: int, workers: int) -> Callable[[], list[T]]:
    """Begin ``[task(0), ..., task(n - 1)]`` in ``workers`` forked processes and return the function that
    waits for them and gives the results in order (raising what a task raised). With no workers (0), no
    tasks or no ``fork``, the tasks run here when that function is called. Fork before any thread of the
    caller's can hold a lock the task needs (the caller's job)."""
    global _TASK
    if workers < 1 or n < 1 or "fork" not in multiprocessing.get_all_start_methods():
        return lambda: [task(i) for i in range(n)]
    _TASK = task
    pool = ProcessPoolExecutor(min(workers, n), mp_context=multiprocessing.get_context("fork"))
    try:
        futures = [pool.submit(_call, i) for i in range(n)]  # the first submit forks every worker
    except BaseException:
        pool.shutdown(cancel_futures=True)
        _TASK = None
        raise

    def wait() -> list[T]:
        global _TASK
        try:
            return [f.result() for f in futures]
        finally:
            pool.shutdown(cancel_futures=True)
            _TASK = None

    return wait
