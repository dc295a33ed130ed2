"""Worker processes that die with their build and leave its lock and signals to it.

Whatever forks a worker for a build (the ``--jobs`` executor, :mod:`sigreport.speed.workers`) makes it
call :func:`bind_to_parent` first and forks inside :func:`held_signals`. So every worker dies with the
process that forked it (on Linux a death signal asked of the kernel, everywhere a check that the parent
is still the one that forked it), leaves Ctrl-C to that process (which stops its workers), and holds no
file descriptor registered with :func:`not_inherited` (a build's lock: ``flock`` locks are shared by
every process holding the descriptor, so a worker that outlived its build would keep the folder
locked). A worker that ends without its result (killed by a signal, the out-of-memory killer) is a
:class:`WorkerLost`, named by :func:`lost`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

_NOT_INHERITED: set[int] = set()  # descriptors a forked child closes at once (see not_inherited)
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


class WorkerLost(RuntimeError):
    """A worker process ended without its result: killed (SIGKILL, the out-of-memory killer) or crashed.

    Not the user's input and not a bug a traceback would locate (the cause is outside this process): the
    command line prints its one line and exits with code 1."""


def _close_not_inherited() -> None:
    for fd in _NOT_INHERITED:
        with contextlib.suppress(OSError):
            os.close(fd)
    _NOT_INHERITED.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_not_inherited)


@contextlib.contextmanager
def not_inherited(fd: int) -> Iterator[None]:
    """Within the block, every process forked from this one (by this package, by multiprocessing, by a user
    aggregate) closes ``fd`` as soon as it exists. ``O_CLOEXEC`` does this for programs started with
    ``exec`` only; a forked Python worker would keep the descriptor, and with it an ``flock`` lock."""
    _NOT_INHERITED.add(fd)
    try:
        yield
    finally:
        _NOT_INHERITED.discard(fd)


def bind_to_parent(parent: int) -> None:
    """Called first in a worker forked by process ``parent``: the worker dies with it, and leaves signals
    meant for the build to the build.

    - On Linux the kernel sends the worker SIGKILL when ``parent`` ends, however it ends (``kill``, an
      out-of-memory kill, a crash), so no worker outlives its build. If ``parent`` already ended between
      the fork and this call, the worker ends now.
    - Ctrl-C (SIGINT, which a terminal sends to every process of the build) is ignored: the build's
      process handles it and stops its workers, so no worker prints a traceback of its own.
    - SIGTERM ends the worker (the default action): the build's own handler (the command line turns SIGTERM
      into an interruption) is not the worker's.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # blocked by the parent while it forked (see held_signals)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


_HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def held_signals() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait for the end of the block (in this thread, and in the threads and processes
    it starts within). Fork workers inside it: a worker starts with them blocked and lets them through
    only once :func:`bind_to_parent` has set its own handlers, so a Ctrl-C at the moment of the fork
    can never run the build's handlers in a worker (a copy of the build that would clean up after
    it). Elsewhere than the main thread, or without ``pthread_sigmask``, nothing is held."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def stop_pool(pool: ProcessPoolExecutor, kill: bool) -> None:
    """Shut ``pool`` down; with ``kill`` (the caller is stopping with an error or an interruption) its
    workers are killed first rather than waited for (a worker may be minutes into an analysis)."""
    if kill:
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                proc.kill()
    pool.shutdown(wait=True, cancel_futures=True)


def lost(procs: dict[int, Any], doing: str) -> WorkerLost:
    """The error of a pool one of whose workers ended without its result (``BrokenProcessPool``), naming
    that worker and the signal that ended it when known. ``procs``: :func:`workers_of` the pool, taken
    while it ran (the pool forgets its workers when it shuts down). The pool itself ends the other
    workers with SIGTERM once it is broken, so another signal names the culprit first; the pool's own
    thread reaps them a moment after the error is raised, hence the short wait for every exit code."""
    deadline = time.monotonic() + 2.0
    while any(_exitcode(p) is None for p in procs.values()) and time.monotonic() < deadline:
        time.sleep(0.01)
    ended = [(pid, -code) for pid, code in ((pid, _exitcode(p)) for pid, p in procs.items())
             if code is not None and code < 0]
    ended.sort(key=lambda e: e[1] == signal.SIGTERM)
    how = ""
    if ended:
        pid, sig = ended[0]
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        how = f" (pid {pid}, killed by {name}"
        how += (": the system's out-of-memory killer sends it when memory runs short; try fewer --jobs)"
                if sig == signal.SIGKILL else ")")
    return WorkerLost(f"a worker process of the build ended without its result while it {doing}{how}")


def _exitcode(proc: Any) -> int | None:
    with contextlib.suppress(Exception):
        return proc.exitcode
    return None


def workers_of(pool: ProcessPoolExecutor) -> dict[int, Any]:
    """The pool's worker processes by pid, as they are now (for :func:`lost` after the pool is gone)."""
    return dict(getattr(pool, "_processes", None) or {})
