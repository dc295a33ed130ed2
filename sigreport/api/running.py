"""Where and how a build's analyses run: worker processes (``--jobs``), the executor, the result cache.

The numbers of workers are guesses made before or after the data is read (:func:`workers_for`,
:func:`figure_workers_ahead`); results are the same bytes for every choice made here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sigreport.api.progress import Progress, phase
from sigreport.data import Dataset
from sigreport.errors import Problem, UserError
from sigreport.execute import Cache, CacheError, Executor, SerialExecutor, run_plan
from sigreport.execute.cache import LIMIT as CACHE_LIMIT
from sigreport.execute.cache import check_folder as check_cache_folder
from sigreport.execute.cache import code_digest
from sigreport.execute.dask import TIMEOUT as DASK_TIMEOUT
from sigreport.execute.dask import DaskExecutor, DaskUnavailable
from sigreport.plan import Plan
from sigreport.spec import SpecFile
from sigreport.speed import workers
from sigreport.version import __version__

CACHE_DIR = ".sigreport-cache"
AUTO_JOBS_ROWS = 200_000  # --jobs auto: one worker per core from this many score rows
AUTO_JOBS_MAX = 8  # ... up to this many: each worker holds its own resamples and buffers (~0.3 GB at 1M rows)
AUTO_AHEAD_BYTES = 4_000_000  # ~200,000 rows of a score CSV: --jobs auto forks the figure workers ahead


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """Where and how the analyses run: worker processes, executor, Dask scheduler, cache folder ("" = the
    default ``.sigreport-cache/`` beside the spec; None = no cache). Results are the same bytes for all."""

    jobs: int | str = 1  # or "auto": see workers_for
    executor: str = "local"
    scheduler: str | None = None
    cache: str | None = None
    cache_limit: int = CACHE_LIMIT  # bytes the cache folder keeps after the build (least recently used go)
    scheduler_timeout: float = DASK_TIMEOUT  # seconds to reach the Dask scheduler and hear its handshake


class RunError(UserError):
    """A build option that cannot be used (the cache folder, the Dask scheduler): one line, exit 2."""

    def __init__(self, message: str):
        super().__init__("build", [Problem("build", None, "", message)])

    def render(self) -> str:
        return f"error: {self.problems[0].render()}"


def workers_for(jobs: int | str, ds: Dataset, dask: bool = False) -> int:
    """The worker processes of a build: ``jobs``, or for ``"auto"`` (the CLI's default) one per usable core
    (at most :data:`AUTO_JOBS_MAX`) when the data has at least :data:`AUTO_JOBS_ROWS` score rows, else 1.
    Why the cap: memory grows with the workers, and a 64-core machine would hold 64 copies of every
    corpus's resamples for a few seconds' gain. Why the threshold: forking workers and sending results back
    costs more than a small build's analyses and figures take, and a large build saves a good share of its
    time with 2 workers. With the Dask executor ``"auto"`` is one worker per core. Results are the same
    bytes for every count."""
    if jobs != "auto":
        return int(jobs)
    return auto_workers() if dask or ds.n_rows >= AUTO_JOBS_ROWS else 1


def auto_workers() -> int:
    """One per usable core, at most :data:`AUTO_JOBS_MAX`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity (macOS, Windows)
        cores = os.cpu_count() or 1
    return max(1, min(cores, AUTO_JOBS_MAX))


def figure_workers_ahead(sf: SpecFile, run: RunOptions, formats: list[str] | None) -> int:
    """How many figure workers a build forks before it reads the data (:class:`sigreport.speed.workers.Ready`):
    as many as its workers when it will draw figures (HTML, LaTeX or PDF output, ``outputs.figures`` not
    empty) with ``--jobs`` 2 or more, or ``auto`` and a score file of :data:`AUTO_AHEAD_BYTES` or more (a
    guess at :data:`AUTO_JOBS_ROWS` before the rows are counted: a wrong guess costs only time); else 0.

    Why: a figure worker forked when the figures are due first gets ready (imports matplotlib, makes its
    first measurements) while the other cores are busy; forked ahead, it does that while this process reads
    the data with a core to spare."""
    spec = sf.spec
    if run.executor == "dask" or set(formats or spec.outputs.formats) <= {"json"}:  # nothing is rendered
        return 0
    if spec.outputs.figures is not None and not spec.outputs.figures:
        return 0
    if run.jobs != "auto":
        return int(run.jobs) if int(run.jobs) > 1 else 0
    try:
        path = getattr(spec.data.source, "path", None)
        size = sf.resolve(path).stat().st_size if path else 0
    except OSError:
        return 0  # the read reports it
    return auto_workers() if size >= AUTO_AHEAD_BYTES and auto_workers() > 1 else 0


@contextlib.contextmanager
def ready_workers(n: int) -> Iterator[workers.Ready | None]:
    """``n`` figure workers forked now and getting ready (:func:`figure_workers_ahead`), stopped on exit."""
    if n < 2 or not workers.can_fork():
        yield None
        return
    from sigreport.render.figures import warm_up

    ready = workers.Ready(n, warm_up)
    try:
        yield ready
    finally:
        ready.close()


def executor_for(run: RunOptions) -> Executor:
    """The executor ``run`` asks for: Dask's, the worker-process pool (``jobs`` 2 or more), else serial."""
    if run.executor == "dask":
        return DaskExecutor(run.scheduler, run.jobs, run.scheduler_timeout)
    if int(run.jobs) > 1:
        from sigreport.execute.pool import ProcessExecutor

        return ProcessExecutor(int(run.jobs))
    return SerialExecutor()


def cache_folder(run: RunOptions, sf: SpecFile) -> Path | None:
    """The cache folder a build uses: ``--cache DIR``, else ``.sigreport-cache/`` beside the spec; None: no cache."""
    if run.cache is None:
        return None
    return Path(run.cache) if run.cache else sf.folder / CACHE_DIR


def check_cache(run: RunOptions, sf: SpecFile) -> None:
    """Refuse a cache folder that cannot be sigreport's (a file, a foreign non-empty folder) before the data
    is read; writes nothing (the cache is created by :func:`open_cache` once the output folder is accepted)."""
    folder = cache_folder(run, sf)
    if folder is not None:
        try:
            check_cache_folder(folder)
        except CacheError as exc:
            raise _cache_error(exc) from None


def open_cache(run: RunOptions, sf: SpecFile) -> Cache | None:
    """The result cache (created and tagged when missing), or None; a folder or key that cannot be used is a
    user error before any analysis runs."""
    folder = cache_folder(run, sf)
    if folder is None:
        return None
    try:
        return Cache.open(folder, f"{__version__}+{code_digest()}")
    except CacheError as exc:
        raise _cache_error(exc) from None


def _cache_error(exc: CacheError) -> RunError:
    return RunError(f"cannot use the {exc}; pass --no-cache or another --cache DIR; nothing was written")


def run_analyses(plan: Plan, dataset: Dataset, run: RunOptions, progress: Progress | None,
                 cache: Cache | None, executor: Executor | None = None) -> dict[str, Any]:
    """Run the plan with ``executor`` (one already holding the data: Parquet shards read by the Dask workers),
    else the executor ``run`` asks for, and ``cache``; executor failures are user errors, raised before any
    report file is written."""
    t0 = time.monotonic()
    try:
        results = run_plan(plan, dataset, executor or executor_for(run), progress, cache)
    except DaskUnavailable as exc:
        raise RunError(f"{exc}; nothing was written") from None
    hits = f", {cache.hits} from the cache" if cache is not None else ""
    phase(progress, f"ran {len(plan.nodes):,} analyses in {time.monotonic() - t0:.1f} s{hits}")
    return results


def prune_cache(cache: Cache | None, run: RunOptions, since: float, progress: Progress | None) -> None:
    """After a build: the cache's least recently used entries removed down to ``run.cache_limit``, never what
    this build (which started at ``since``) used or wrote (2 s earlier: file times of coarse file systems)."""
    if cache is None:
        return
    removed, freed = cache.prune(run.cache_limit, since=since - 2)
    if removed:
        phase(progress, f"cache: removed {removed:,} least recently used entries ({freed / 1e6:,.0f} MB) to keep "
                        f"it under {run.cache_limit / 1e6:,.0f} MB")
