"""Work in forked processes that inherit what it needs (nothing pickled on the way in), for speed only.

Two mechanisms for the places that hand CPU work to other processes for the length of one step:

- :func:`start`: the task is a closure over the caller's data; the workers are forked when the pool
  starts, so they inherit it, and only the results travel back (pickled). Used for the figures of a report
  when no workers were made ready ahead (``render.figures.output.start_figures``) or what they would be sent
  is too large (``sigreport.execute.forked.worth_sending``); :func:`in_background`, its one-process form
  with no pool, for the writing of results.json while the report renders (``sigreport.api.outputs``).
- :class:`Ready`: workers forked before their work exists (at the start of a build) and made ready
  (imports) while the caller goes on; the items travel to them pickled. Used for a large build's
  figures (``sigreport.api.running.figure_workers_ahead``).

On the plain path (:func:`sigreport.speed.is_plain`), and where the platform has no ``fork``, the work
runs here, in order, when it is waited for: the same function gives the same results wherever it runs.
Every worker is bound to its build by :mod:`sigreport.forking`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, TypeVar

from sigreport.forking import bind_to_parent, held_signals, lost, stop_pool, workers_of
from sigreport.speed import is_plain

T = TypeVar("T")
_TASK: Callable[[int], Any] | None = None  # what the forked workers call (inherited, never pickled)


def can_fork() -> bool:
    """Whether work may go to forked processes: not on the plain path, and the platform has ``fork``."""
    return not is_plain() and "fork" in multiprocessing.get_all_start_methods()


def _call(i: int) -> Any:
    assert _TASK is not None
    return _TASK(i)


class Waiting(Generic[T]):
    """Work begun elsewhere: call it to wait for the results; :meth:`cancel` gives them up (the caller is
    stopping with an error: its workers are stopped rather than waited for, and nothing is done here)."""

    def __init__(self, wait: Callable[[], T], cancel: Callable[[], None] | None = None):
        self._wait, self._cancel = wait, cancel

    def __call__(self) -> T:
        return self._wait()

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel()


def start(task: Callable[[int], T], n: int, workers: int) -> Waiting[list[T]]:
    """Begin ``[task(0), ..., task(n - 1)]`` in ``workers`` forked processes and return the function that
    waits for them and gives the results in order (raising what a task raised). With no workers (0), no
    tasks, no ``fork`` or on the plain path, the tasks run here when that function is called. Fork before
    any thread of the caller's can hold a lock the task needs (the caller's job)."""
    global _TASK
    if workers < 1 or n < 1 or not can_fork():
        return Waiting(lambda: [task(i) for i in range(n)])
    _TASK = task
    pool = ProcessPoolExecutor(min(workers, n), mp_context=multiprocessing.get_context("fork"),
                               initializer=bind_to_parent, initargs=(os.getpid(),))
    try:
        with held_signals():
            futures = [pool.submit(_call, i) for i in range(n)]  # the first submit forks every worker
    except BaseException:
        stop_pool(pool, kill=True)
        _TASK = None
        raise
    procs = workers_of(pool)

    def stop(kill: bool = True) -> None:
        global _TASK
        stop_pool(pool, kill)
        _TASK = None

    def wait() -> list[T]:
        ok = False
        try:
            out = [f.result() for f in futures]
            ok = True
            return out
        except BrokenProcessPool as exc:
            if exc.__cause__ is not None:  # a result that could not be read back: a bug, with its traceback
                raise
            raise lost(procs, "drew figures or wrote results.json") from None
        finally:
            stop(kill=not ok)

    return Waiting(wait, stop)


def in_background(work: Callable[[], Any], allowed: bool) -> Waiting[object]:
    """Run ``work`` in a forked process when ``allowed`` (the build has worker processes to spare: --jobs
    2 or more) and return the function that waits for it and raises what it raised; else (or on the plain
    path) run it now.

    Why: writing a large build's results.json needs nothing the rendering makes, so with two cores it costs
    nothing in another process, begun before the figures are drawn. One plain ``fork`` and one pipe, as
    :class:`Ready` does, no pool: this process starts no thread for it, so the figure workers forked after it
    inherit none. Call it when this process has no other thread. The same function writes the same bytes
    wherever it runs."""
    if not allowed or not can_fork():
        work()
        return Waiting(lambda: None)
    parent = os.getpid()
    mine, theirs = multiprocessing.Pipe(duplex=False)
    with held_signals():  # the child never leaves this block: it sets its handlers before any signal
        pid = os.fork()
        if pid == 0:
            try:
                bind_to_parent(parent)
                mine.close()
                _report(work, theirs)
            finally:
                os._exit(0)
    theirs.close()
    state = {"pid": pid}

    def reap(kill: bool) -> int | None:
        child = state.pop("pid", None)
        if child is None:
            return None
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            return os.waitpid(child, 0)[1]
        return None

    def wait() -> object:
        try:
            got = mine.recv()
        except (OSError, EOFError):  # the process ended without a word: killed
            status = reap(kill=False)
            sig = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None
            raise lost({pid: _Ended(-sig if sig else None)}, "wrote results.json") from None
        except BaseException:  # interrupted while waiting, or what it sent cannot be read: stopped, not left
            reap(kill=True)
            raise
        finally:
            mine.close()
        reap(kill=False)
        if got is not None:
            exc, text = got
            raise exc from ChildTraceback(text)
        return None

    def cancel() -> None:
        mine.close()
        reap(kill=True)

    return Waiting(wait, cancel)


class ChildTraceback(Exception):
    """The traceback of what the forked process raised (its text), as the cause of the error raised here."""

    def __str__(self) -> str:
        return "\n" + str(self.args[0]) if self.args else ""


def _report(work: Callable[[], Any], conn: Any) -> None:
    """In the forked process: do ``work`` and send None, or what it raised with its traceback's text (a plain
    RuntimeError naming it when the exception does not pickle or would not unpickle)."""
    import pickle
    import traceback

    try:
        work()
        conn.send(None)
        return
    except BaseException as exc:  # noqa: BLE001 - raised again in the build
        got, text = exc, traceback.format_exc()
    try:
        pickle.loads(pickle.dumps(got))  # what the build could not read back is sent as a RuntimeError
        conn.send((got, text))
    except Exception:  # noqa: BLE001 - an exception that does not pickle
        conn.send((RuntimeError(f"{type(got).__name__}: {got}"), text))


class _Ended:
    """A process's exit code as :func:`sigreport.forking.lost` reads it (``exitcode``: minus the signal)."""

    def __init__(self, exitcode: int | None):
        self.exitcode = exitcode


class Ready:
    """Worker processes forked ahead of their work and made ready by ``warm`` (imports, first-use caches)
    while the caller goes on; later :meth:`run` shares a list of items out among them (pickled both ways).

    Why: a figure worker forked when the figures are due first gets ready (importing matplotlib, first
    measurements) in every worker, on cores that are busy drawing. Here one process
    is forked at the start of a build, gets ready while this one reads the data, and then forks the
    other workers, which inherit its readiness: one warm-up, not one per worker. Plain ``fork`` and one
    pipe per worker, no threads: the build forks other workers later (the analyses), which must not
    inherit a thread's locks. An item a worker could not do (it raised, or the worker is gone) is done
    here by the caller's own function, which then raises what it raises.
    """

    def __init__(self, workers: int, warm: Callable[[], None]):
        self._conns: list[Any] = []
        self._pending = 0  # shares sent whose results were not read: those workers may be busy
        self._pid = 0  # the first worker (it forks the others)
        self._others: list[int] | None = None  # their pids, once the first one has said them
        if workers < 1 or not can_fork():
            return
        pipes = [multiprocessing.Pipe() for _ in range(workers)]
        parent = os.getpid()
        with held_signals():  # the child never leaves this block: it sets its handlers before any signal
            pid = os.fork()
            if pid == 0:  # the first worker: never returns
                try:
                    bind_to_parent(parent)
                    for mine, _ in pipes:
                        mine.close()
                    _first(warm, [theirs for _, theirs in pipes])
                finally:
                    os._exit(0)
        for _, theirs in pipes:
            theirs.close()
        self._pid, self._conns = pid, [mine for mine, _ in pipes]

    @property
    def size(self) -> int:
        """How many workers there are (0: none; :meth:`run` then works here)."""
        return len(self._conns)

    def _ready(self, timeout: float | None) -> list[int]:
        """The other workers' pids (the first worker sends them when it has forked them)."""
        if self._others is None and self._conns:
            try:
                if timeout is None or self._conns[0].poll(timeout):
                    self._others = list(self._conns[0].recv())
            except (OSError, EOFError):
                self._others = []
        return self._others or []

    def run(self, fn: Callable[[Any], T], items: list[Any], here: Callable[[int], T]) -> Waiting[list[T]]:
        """Begin ``[fn(items[0]), ...]`` in the workers (worker w takes items w, w + size, ...; ``fn`` a module
        function, items and results picklable) and return the function that waits for them in order.
        ``here(i)``: the same result made in this process, for an item no worker delivered."""
        if not self._conns or len(items) < 2:
            return Waiting(lambda: [here(i) for i in range(len(items))])
        self._ready(None)  # the workers exist (the first is ready long before a build's figures are due)
        n = len(self._conns)
        sent = []
        for w, conn in enumerate(self._conns):
            share = list(range(w, len(items), n))
            try:
                conn.send((fn, [items[i] for i in share]))  # pickled before anything is written
                sent.append((conn, share))
                self._pending += 1
            except Exception:  # noqa: BLE001 - the worker is gone, or an item does not pickle: done here
                sent.append((None, share))

        def wait() -> list[T]:
            out: list[Any] = [None] * len(items)
            for conn, share in sent:
                got = None
                if conn is not None:
                    try:
                        got = conn.recv()
                    except (OSError, EOFError):  # the worker is gone (killed): its share is done here
                        got = None
                    self._pending -= 1
                for j, i in enumerate(share):
                    ok, value = got[j] if isinstance(got, list) and j < len(got) else (False, None)
                    out[i] = value if ok else here(i)
            return out

        return Waiting(wait)  # cancelled: nothing is read back, and close() kills the busy workers

    def close(self) -> None:
        """Stop the workers and wait for the first (which waits for the others). Idle workers are told to
        end; workers that may be busy (a share not read back: the build stopped early) or still getting
        ready are killed at once (SIGKILL: no handler of the build's runs in them)."""
        if not self._conns:
            return
        others = self._ready(0)
        idle = self._others is not None and not self._pending
        for conn in self._conns:
            if idle:
                with contextlib.suppress(OSError, EOFError):
                    conn.send(None)  # a worker waiting for work ends by itself
            conn.close()  # a worker forked but not yet said reads the end of its pipe and ends
        self._conns = []
        for _ in range(100 if idle else 0):  # idle workers end within milliseconds
            try:
                if os.waitpid(self._pid, os.WNOHANG)[0]:
                    return
            except ChildProcessError:
                return
            time.sleep(0.01)
        for pid in [*others, self._pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self._pid, 0)


def _first(warm: Callable[[], None], conns: list[Any]) -> None:
    """The first :class:`Ready` worker: get ready, fork the others (they inherit it), tell their pids, serve."""
    try:
        with contextlib.suppress(Exception):  # a failed warm-up only makes the first items slower
            warm()
        others = []
        first = os.getpid()
        for w in range(1, len(conns)):
            pid = os.fork()
            if pid == 0:
                bind_to_parent(first)
                for v, conn in enumerate(conns):
                    if v != w:
                        conn.close()
                _serve(conns[w])
                os._exit(0)
            others.append(pid)
        for conn in conns[1:]:
            conn.close()
        conns[0].send(others)
        _serve(conns[0])
        for pid in others:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    finally:
        os._exit(0)


def _serve(conn: Any) -> None:
    """A :class:`Ready` worker's work: each share sent, until told to stop (or the pipe closes)."""
    try:
        while True:
            try:
                msg = conn.recv()
            except (OSError, EOFError):
                return
            if msg is None:
                return
            fn, items = msg
            out = []
            for item in items:
                try:
                    out.append((True, fn(item)))
                except Exception:  # noqa: BLE001 - done again by the caller, where the error is raised
                    out.append((False, None))
            conn.send(out)
    except (OSError, EOFError):  # the caller is gone
        return
