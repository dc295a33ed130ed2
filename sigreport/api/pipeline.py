"""One build: spec file -> dataset -> plan -> results -> report folder, written atomically.

Where and how the folder is written (lock, checks, temporary folder, swap, recovery) is
:mod:`sigreport.archive.store`; this module gathers what the build reads so the store can refuse an
output folder that holds any of it, and reads the previous report explicitly, once, for the plan.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import gc
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sigreport import forking
from sigreport.analyses import build_plan, collect_results, figure_problems, figure_warnings, uses_scipy_stats
from sigreport.version import __version__
from sigreport.archive import store
from sigreport.archive.manifest import MANIFEST_NAME, read_manifest
from sigreport.archive.verify import CannotRebuild, VerifyResult, verify_release
from sigreport.data import Dataset, load_data, with_frames
from sigreport.errors import Problem, SpecError, StrictError, UserError
from sigreport.execute.cache import LIMIT as CACHE_LIMIT
from sigreport.execute.cache import check_folder as check_cache_folder
from sigreport.execute.cache import code_digest
from sigreport.execute import Cache, CacheError, Executor, SerialExecutor, run_plan
from sigreport.execute.dask import TIMEOUT as DASK_TIMEOUT
from sigreport.execute.dask import DaskExecutor, DaskUnavailable
from sigreport.plan import Plan
from sigreport.results import Results, from_json, to_json
from sigreport.results.io import SCHEMA_VERSION, from_dict
from sigreport.spec import SpecFile, load_spec_file, output_dir
from sigreport.stats.lazy import scipy_stats

if TYPE_CHECKING:  # rendering (jinja2, matplotlib) is imported only by builds that render
    from sigreport.archive import releases  # imported by the release paths only (validate need not pay)
    from sigreport.render.model import ReportModel

Progress = Callable[[int, int, str], None]


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


CACHE_DIR = ".sigreport-cache"
FORMAT_ORDER = ("json", "html", "latex", "pdf")


AUTO_JOBS_ROWS = 200_000  # --jobs auto: one worker per core from this many score rows
AUTO_JOBS_MAX = 8  # ... up to this many: each worker holds its own resamples and buffers (~0.3 GB at 1M rows)


AUTO_AHEAD_BYTES = 4_000_000  # ~200,000 rows of a score CSV: --jobs auto forks the figure workers ahead


def workers_for(jobs: int | str, ds: Dataset, dask: bool = False) -> int:
    """The worker processes of a build: ``jobs``, or for ``"auto"`` (the CLI's default) one per usable core
    (at most :data:`AUTO_JOBS_MAX`) when the data has at least :data:`AUTO_JOBS_ROWS` score rows, else 1.
    Why the cap: memory grows with the workers, and a 64-core machine would hold 64 copies of every
    corpus's resamples for a few seconds' gain. Why the threshold: forking
    workers and sending results back costs ~0.1 s, more than a small build's analyses and figures take
    (the 6-row example builds in 0.7 s); a 1M-row build saves a third of its time with 2 workers. With
    the Dask executor ``"auto"`` is one worker per core. Results are the same bytes for every count."""
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
    """How many figure workers a build forks before it reads the data (:class:`sigreport.forking.Ready`): as
    many as its workers when it will draw figures (HTML, LaTeX or PDF output, ``outputs.figures`` not
    empty) with ``--jobs`` 2 or more, or ``auto`` and a score file of :data:`AUTO_AHEAD_BYTES` or more (a
    guess at :data:`AUTO_JOBS_ROWS` before the rows are counted: a wrong guess costs only time); else 0.

    Why: a figure worker forked when the figures are due spends ~0.6 CPU-s getting ready (importing
    matplotlib, first measurements), each, while the other cores are busy; forked ahead, it does that
    while this process reads the data with a core to spare (1M-row bootstrap build: ~0.5 s)."""
    spec = sf.spec
    if run.executor == "dask" or not set(formats or spec.outputs.formats) & {"html", "latex", "pdf"}:
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


def executor_for(run: RunOptions) -> Executor:
    if run.executor == "dask":
        return DaskExecutor(run.scheduler, run.jobs, run.scheduler_timeout)
    if run.jobs > 1:
        from sigreport.execute.pool import ProcessExecutor

        return ProcessExecutor(run.jobs)
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


def _cache_error(exc: CacheError) -> "RunError":
    return RunError(f"cannot use the {exc}; pass --no-cache or another --cache DIR; nothing was written")


def run_analyses(p: "Prepared", run: RunOptions, progress: Progress | None,
                 cache: Cache | None | bool = True) -> dict[str, Any]:
    """Run the plan with the chosen executor and cache (``True``: open the one ``run`` names); executor
    failures are user errors, raised before any report file is written."""
    if cache is True:
        cache = open_cache(run, p.spec_file)
    t0 = time.monotonic()
    try:
        results = run_plan(p.plan, p.dataset, executor_for(run), progress, cache or None)
    except DaskUnavailable as exc:
        raise RunError(f"{exc}; nothing was written") from None
    hits = f", {cache.hits} from the cache" if isinstance(cache, Cache) else ""
    phase(progress, f"ran {len(p.plan.nodes):,} analyses in {time.monotonic() - t0:.1f} s{hits}")
    return results


class RunError(UserError):
    """A build option that cannot be used (the cache folder, the Dask scheduler): one line, exit 2."""

    def __init__(self, message: str):
        super().__init__("build", [Problem("build", None, "", message)])

    def render(self) -> str:
        return f"error: {self.problems[0].render()}"


def phase(progress: Progress | None, text: str, transient: bool = False) -> None:
    """Tell the progress display (the CLI's, which has ``phase``) that a build phase begins."""
    tell = getattr(progress, "phase", None)
    if tell is not None:
        tell(text, transient)


@dataclasses.dataclass(frozen=True)
class Prepared:
    spec_file: SpecFile
    dataset: Dataset
    plan: Plan
    dest: Path


def spec_file(source: SpecFile | str | Path) -> SpecFile:
    """A loaded spec, or the spec file at a path (the command line's argument is always a file)."""
    return source if isinstance(source, SpecFile) else load_spec_file(source)


def prepare(spec_path: SpecFile | str | Path, out: str | Path | None = None,
            previous: Results | None = None, frames: Mapping[str, Any] | None = None) -> Prepared:
    """Validate spec and data and expand the plan (no statistics yet). ``previous``: the previous report's
    results, for ``selection``; nothing is read from the output folder here. ``frames``: data frames
    standing in for the spec's tables (Python API)."""
    sf = with_frames(spec_file(spec_path), frames or {})
    ds = load_data(sf, frames)
    dest = Path(out).resolve() if out else output_dir(sf)
    store.recover_if_idle(dest, _say)  # a report left under a hidden name by a killed build is put back first
    return Prepared(sf, ds, plan_of(sf, ds, previous), dest)


def plan_of(sf: SpecFile, ds: Dataset, previous: Results | None) -> Plan:
    """The plan of a validated spec on its data; a figure kind listed that no analysis can draw is an error."""
    plan = build_plan(sf.spec, ds, previous)
    problems = figure_problems(sf, plan)
    if problems:
        raise SpecError(str(sf.path), problems)
    return plan


def previous_of(release: releases.ReleasePlan | None, dest: Path, say: store.Say | None = None) -> Results | None:
    """The previous report: a release's previous release (or --previous), else the report in ``dest``. A
    release's previous report that cannot be used is a user error naming its results.json (``--previous``)
    or is skipped with a line through ``say`` (a damaged release of the archive)."""
    if release is None:
        return previous_results(dest)
    from sigreport.archive import releases
    from sigreport.archive.documents import document_error

    found = releases.previous_report(release.archive, release.name, release.previous_dir, say)
    if found is None:
        return None
    path, doc = found
    if doc.get("schema_version") != SCHEMA_VERSION:  # written by another sigreport: nothing to carry over
        (say or _say)(f"sigreport: the previous report {path} has results.json schema_version "
                      f"{doc.get('schema_version')}, this sigreport writes {SCHEMA_VERSION}: its test choices are "
                      "not carried over")
        return None
    try:
        return from_dict(doc, partial=True)  # only its choices are read: an older or partial report still serves
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise document_error(path, "", f"cannot be used as the previous report: {exc}") from None


def previous_results(dest: Path) -> Results | None:
    """The results of the report already in ``dest`` (the previous report of a build into it), if readable."""
    try:
        return from_json((dest / "results.json").read_text(encoding="utf-8"), partial=True)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def collect(p: Prepared, results: dict[str, Any]) -> Results:
    """The run's Results (what results.json holds)."""
    return collect_results(p.spec_file.spec, p.dataset, results, __version__)


def collect_warnings(results: dict[str, Any]) -> list[Problem]:
    out = []
    for node_id, r in results.items():
        for w in getattr(r, "warnings", ()):
            out.append(Problem(node_id, None, "", w))
        for p in getattr(r, "pairs", ()):
            for w in getattr(p, "warnings", ()):
                out.append(Problem(node_id, None, f"{p.a} vs {p.b}", w))
    return out


def write_report(p: Prepared, results: dict[str, Any], dest: Path, formats: list[str],
                 templates: str | Path | None = None, notices: list[Problem] | None = None,
                 progress: Progress | None = None, jobs: int = 1, cache: Cache | None = None,
                 figure_workers: forking.Ready | None = None, release: Any = None) -> list[str]:
    """Render every requested format into ``dest`` (a fresh folder). Returns the files written.
    ``jobs``: worker processes that may draw the figures (the build's --jobs; same bytes). ``cache``: the
    build's cache, whose ``figures`` section keeps drawn figures between builds (same bytes);
    ``figure_workers``: workers forked ahead to draw the figures in (see :func:`figure_workers_ahead`);
    ``release``: the :class:`~sigreport.archive.releases.ReleaseContext` the report names at its top.

    Warnings about the output itself (characters LaTeX cannot print) are appended to ``notices``.
    """
    shown = [f for f in FORMAT_ORDER if f in formats and f != "pdf"]
    phase(progress, f"writing {', '.join(shown)}" if shown else "writing the PDF")
    res = collect(p, results)
    keep()
    written = []
    if set(formats) <= {"json"}:
        (dest / "results.json").write_text(to_json(res), encoding="utf-8")
        return ["results.json"]  # nothing to render: jinja2 and matplotlib are never imported
    from sigreport.api.options import render_options
    from sigreport.render.figure_cache import figure_cache
    from sigreport.render.views import build_report

    # figures carry their vector PDF only for LaTeX (HTML and the PDF report embed the SVG)
    with figure_cache(cache.section("figures") if cache is not None else None):
        model = build_report(res, p.spec_file.path.name, figure_pdf="latex" in formats, figure_jobs=jobs,
                             figure_workers=figure_workers, options=render_options(p.spec_file.spec, formats))
    if release is not None:
        from sigreport.render.model import ReleaseInfo

        model = dataclasses.replace(model, release=ReleaseInfo(release.name, release.previous, release.previous_page,
                                                               release.diff, release.index))
    json_done: forking.Waiting[object] = forking.Waiting(lambda: None)
    try:
        if "json" in formats:  # in a forked process, while this one renders (with workers to spare)
            json_done = in_background(lambda: (dest / "results.json").write_text(to_json(res), encoding="utf-8"),
                                      jobs > 1)
            written.append("results.json")
        written += render_formats(model, dest, formats, templates, notices, progress, bool(shown))
    except BaseException:  # stopped, not waited for: it must not write into the folder being removed
        json_done.cancel()
        raise
    json_done()
    return written


def in_background(work: Callable[[], Any], allowed: bool) -> forking.Waiting[object]:
    """Run ``work`` in a forked process when ``allowed`` (the build has worker processes to spare: --jobs
    2 or more) and return the function that waits for it and raises what it raised; else run it now.

    Why: writing results.json is ~1 s of a 1M-row build (19 MB of text) and needs nothing the rendering
    makes, so with two cores it costs nothing in another process. The same function writes the same
    bytes wherever it runs. The process is forked once the figures are drawn (their workers stopped: no
    threads then)."""
    wait = forking.start(lambda _: (work(), None)[1], 1, 1 if allowed else 0)
    if not allowed:
        wait()  # now, here
        return forking.Waiting(lambda: None)
    return wait  # type: ignore[return-value]


def render_formats(model: "ReportModel", dest: Path, formats: list[str], templates: str | Path | None,
                   notices: list[Problem] | None, progress: Progress | None, others: bool) -> list[str]:
    """Write the HTML, PDF, LaTeX and paper files of ``model`` as ``formats`` ask; the files written."""
    from sigreport.render.html import render_html
    from sigreport.render.latex import render_latex

    written = []
    html = None
    if "html" in formats or "pdf" in formats:
        html = render_html(model, templates)
    if "html" in formats:
        (dest / "index.html").write_text(html, encoding="utf-8")
        written.append("index.html")
    if "pdf" in formats:
        from sigreport.render.pdf import render_pdf

        if others:
            phase(progress, "writing the PDF")
        render_pdf(html, dest / "report.pdf")
        written.append("report.pdf")
    if "latex" in formats:
        out = render_latex(model, dest / "tables", templates)
        written += [f"tables/{n}" for n in out.files] + ["tables/README.txt"]
        warning = out.warning()
        if warning and notices is not None:
            notices.append(Problem("tables", None, "", warning))
    return written + write_paper_files(model, dest, formats)


def write_paper_files(model: "ReportModel", dest: Path, formats: list[str]) -> list[str]:
    """main.md and main.csv (with any format but json alone), and with latex the figures as vector PDFs,
    one ``figures/<name>.tex`` snippet each and ``figures/README.txt``. Returns the files written."""
    from sigreport.render.figure_files import write_figures
    from sigreport.render.markdown import csv_text, markdown

    written = []
    if model.main and set(formats) - {"json"}:
        (dest / "main.md").write_text(markdown(model.main), encoding="utf-8")
        (dest / "main.csv").write_text(csv_text(model.main), encoding="utf-8")
        written += ["main.md", "main.csv"]
    if model.methods is not None and set(formats) - {"json"}:
        from sigreport.render.views.methods import markdown as methods_markdown

        (dest / "methods.md").write_text(methods_markdown(model.methods), encoding="utf-8")
        written.append("methods.md")
    if "latex" in formats and model.figures():
        written += write_figures(model.figures(), dest / "figures", model.latex)
    return written


def build(spec_path: SpecFile | str | Path, out: str | Path | None = None, formats: list[str] | None = None,
          strict: bool = False, progress: Progress | None = None, templates: str | Path | None = None,
          release: releases.ReleasePlan | None = None, previous: Results | None = None, wait: float = 0.0,
          say: store.Say | None = None, run: RunOptions = RunOptions(),
          force: bool = False, context: Any = None) -> tuple[Path, list[str], list[Problem]]:
    """Run a whole build; returns (report folder, files written, warnings).

    The output folder is locked for the whole build (a second build waits ``wait`` seconds, then stops
    with exit 2) and checked before any statistics run, so a refused build costs nothing. With
    ``release`` (from :func:`plan_release`) the report goes into the archive with its manifest, and the
    index is rewritten. The previous report (for ``selection``) is ``previous``, else the release's
    previous one, else the report in the output folder: read here, explicitly, and handed to the plan.
    A release folder is replaced only by a release build with ``--force`` (a plain build into it needs
    ``force``, and then the archive's index is rewritten). ``context``: the release a rebuild writes the
    report of (``verify``; a release build knows its own).
    """
    say = say or _say
    check_build_options(formats, wait)
    sf = spec_file(spec_path)
    dest = release.dest if release else (Path(out).resolve() if out else output_dir(sf))
    with outputs_dir_named(sf, release is None and not out):
        check_cache(run, sf)  # an unusable cache folder stops the build before the data is read
        with long_lived(), ready_workers(figure_workers_ahead(sf, run, formats)) as drawers:
            return _build(sf, dest, formats, strict, progress, templates, release, previous, wait, say, run, drawers,
                          force, context)


@contextlib.contextmanager
def outputs_dir_named(sf: SpecFile, from_spec: bool) -> Iterator[None]:
    """Within: an error about the output folder names the spec's ``outputs.dir`` (field and line) when the
    folder came from it, so the user knows which setting to change."""
    try:
        yield
    except store.OutputError as exc:
        if not from_spec:
            raise
        line = sf.line_of("outputs", "dir") if sf.spec.outputs.dir else None
        field = "outputs.dir" if sf.spec.outputs.dir else "outputs.dir (default reports/<spec name>)"
        problems = [dataclasses.replace(p, line=line, field=field) if not p.field else p for p in exc.problems]
        raise store.OutputError(exc.source, problems) from None


def check_build_options(formats: Any, wait: Any) -> None:
    """Refuse, before anything is read, a format that is not one of :data:`FORMAT_ORDER` (an unknown one
    was silently left out of the report) and a ``wait`` that is not a finite number of seconds, 0 or more
    (NaN is never reached by a deadline: the build would wait for ever)."""
    known = ", ".join(FORMAT_ORDER)
    if isinstance(formats, str):
        raise RunError(f"formats: a list of format names is needed (of {known}), not the string {formats!r}")
    unknown = [f for f in formats or () if f not in FORMAT_ORDER]
    if unknown:
        raise RunError(f"formats: unknown format{'s' if len(unknown) > 1 else ''} "
                       f"{', '.join(repr(f) for f in unknown)}; known: {known}")
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not math.isfinite(wait) or wait < 0:
        raise RunError(f"wait: a number of seconds, 0 or more, is needed, not {wait!r}")


@contextlib.contextmanager
def ready_workers(n: int) -> Iterator[forking.Ready | None]:
    """``n`` figure workers forked now and getting ready (:func:`figure_workers_ahead`), stopped on exit."""
    if n < 2:
        yield None
        return
    from sigreport.render.figures import warm_up

    ready = forking.Ready(n, warm_up)
    try:
        yield ready
    finally:
        ready.close()


def _build(sf: SpecFile, dest: Path, formats: list[str] | None, strict: bool,
           progress: Progress | None, templates: str | Path | None, release: releases.ReleasePlan | None,
           previous: Results | None, wait: float, say: store.Say, run: RunOptions,
           drawers: forking.Ready | None = None, force: bool = False,
           context: Any = None) -> tuple[Path, list[str], list[Problem]]:
    t0, started = time.monotonic(), time.time()
    phase(progress, f"reading {_data_names(sf)}", transient=True)
    imported = scipy_stats.prefetch() if uses_scipy_stats(sf.spec) else (lambda: None)  # while the data is read
    try:
        ds = load_data(sf)
    finally:
        imported()  # before any process is forked, whatever happened
    keep()
    run = dataclasses.replace(run, jobs=workers_for(run.jobs, ds, run.executor == "dask"))
    if drawers is not None and run.jobs < 2:  # the guess was wrong: fewer rows than it took
        drawers.close()
        drawers = None
    with store.locked(dest, wait, say):
        store.recover(dest, say)
        store.check_inputs_outside(dest, input_paths(sf, templates))
        store.check_destination(dest)
        replaces_release = check_release_destination(dest, release, force)
        cache = open_cache(run, sf)  # only now: a refused build leaves no cache folder behind
        p = Prepared(sf, ds, plan_of(sf, ds, previous or previous_of(release, dest, say)), dest)
        workers = f"; {run.jobs} worker processes" if run.jobs > 1 and run.executor != "dask" else ""
        phase(progress, f"read {_shape(ds)} and planned {len(p.plan.nodes):,} analyses in "
                        f"{time.monotonic() - t0:.1f} s{workers}")
        results = run_analyses(p, run, progress, cache)
        keep()
        warnings = collect_warnings(results) + figure_warnings(p.spec_file.spec, results.values())
        if strict and warnings:
            raise StrictError(str(p.spec_file.path), warnings)
        fmts = formats or list(p.spec_file.spec.outputs.formats)
        if release and "json" not in fmts:
            fmts = [*fmts, "json"]  # a release's diff and index read its results.json
        if release:
            from sigreport.archive import releases

            context = releases.release_context(release, SCHEMA_VERSION)

        def fill(tmp: Path) -> list[str]:
            written = write_report(p, results, tmp, fmts, templates, warnings, progress, run.jobs, cache, drawers,
                                   context)
            if release:
                from sigreport.api import release_notes as notes
                from sigreport.archive import releases

                code = [f for f in (getattr(m.func, "source_file", None) for m in p.dataset.aggregates.values()) if f]
                given = releases.release_inputs(p.spec_file, fmts, templates, __version__, code)
                sources = releases.NoteSources(notes.dataset_scores(p.dataset), notes.release_scores,
                                               notes.section_anchors)
                written += releases.finish_release(release, tmp, given, sources)
            return written

        written = store.write_report_folder(dest, fill, say, __version__)
    if cache is not None:  # what this build used or wrote stays (2 s: file times of coarse file systems)
        removed, freed = cache.prune(run.cache_limit, since=started - 2)
        if removed:
            phase(progress, f"cache: removed {removed:,} least recently used entries ({freed / 1e6:,.0f} MB) to keep "
                            f"it under {run.cache_limit / 1e6:,.0f} MB")
    if release or replaces_release:
        from sigreport.archive import releases

        from sigreport.render.figures.trend import draw_trend

        releases.write_index(release.archive if release else dest.parent, say, draw_trend)
    return dest, written, warnings


def check_release_destination(dest: Path, release: releases.ReleasePlan | None, force: bool) -> bool:
    """With the output folder's lock held: a release build's folder is still as planned (a build that
    waited may find the release written meanwhile: refused, releases are immutable); a plain build into a
    release folder (``-o ARCHIVE/NAME``) is refused unless ``force``. Returns whether a plain build replaces
    a release of a sigreport archive (its index is then rewritten)."""
    if release is None and not (dest / MANIFEST_NAME).is_file():  # a plain report: releases need not be imported
        return False
    from sigreport.archive import releases

    if release is not None:
        releases.check_release_unchanged(release)
        return False
    if not force:
        raise store.refuse(dest, f"{dest} is a release (it holds {MANIFEST_NAME}); releases are "
                                 "immutable and listed in their archive's index: rebuild it with --release "
                                 f"{dest.name} --archive {dest.parent} --force, or pass --force to replace it "
                                 "with a plain report")
    return releases.is_archive(dest.parent)


_KEEPING: contextvars.ContextVar[bool] = contextvars.ContextVar("sigreport_keeping", default=False)


@contextlib.contextmanager
def long_lived() -> Iterator[None]:
    """Within: what exists when :func:`keep` is called (modules, the data, the results) is left out of the
    cyclic garbage collector's full passes (``gc.freeze``); after: ``gc.unfreeze``. A caller that froze
    objects itself (the freeze-before-fork pattern of a preloading server) is left alone: nothing is
    frozen or unfrozen then; nor by a build inside another (the outer one unfreezes).

    Why: a full pass walks every tracked object, and a 1M-row build holds millions (its records, pairs
    and views); the passes that the growing heap triggered were ~0.6 s of the 1M-row bootstrap build in
    the main process, and more in every forked worker, which inherits the heap (frozen objects are also
    not written to by the collector there, so their pages stay shared). Nothing is lost: frozen objects
    are still freed when their last reference goes; only cycles among them wait for the end of the build
    (a few MB at 100k rows).
    """
    if _KEEPING.get() or gc.get_freeze_count():
        yield
        return
    token = _KEEPING.set(True)
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        _KEEPING.reset(token)


def keep() -> None:
    """Mark the objects that now exist as long-lived (see :func:`long_lived`), inside a build that froze."""
    if _KEEPING.get():
        gc.freeze()


def _data_names(sf: SpecFile) -> str:
    data = sf.spec.data
    return ", ".join(Path(f).name for f in data.named_files()) or "the data"


def _shape(ds: Dataset) -> str:
    """"1,000,000 score rows (20 systems, 10 corpora, 5 metrics)", for the progress display."""
    counts = [(len(ds.systems), "system", "systems"), (len(ds.corpora), "corpus", "corpora"),
              (len(ds.metrics), "metric", "metrics")]
    parts = ", ".join(f"{n:,} {one if n == 1 else many}" for n, one, many in counts)
    return f"{ds.n_rows:,} score rows ({parts})" if ds.n_rows else f"the data ({parts})"


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def input_paths(sf: SpecFile, templates: str | Path | None = None) -> list[Path]:
    """Every file or folder a build reads: the output folder may hold none of them (it is replaced whole)."""
    data = sf.spec.data
    paths = [sf.path.resolve()] if sf.from_file else []
    paths += [sf.resolve(f) for f in data.named_files()]
    if templates:
        paths.append(Path(templates).resolve())
    for m in sf.spec.metrics.values():
        module = m.aggregate.partition(":")[0] if ":" in m.aggregate else ""
        if module and not module.startswith("sigreport."):
            paths += module_files(module)
    return paths


def module_files(module: str) -> list[Path]:
    """The source files of an imported module and of the packages above it."""
    parts = module.split(".")
    out = []
    for i in range(1, len(parts) + 1):
        mod = sys.modules.get(".".join(parts[:i]))
        file = getattr(mod, "__file__", None)
        if file:
            out.append(Path(file).resolve())
    return out


def plan_release(spec_path: str | Path, name: str, archive: str | Path | None = None, force: bool = False,
                 previous: str | Path | None = None) -> releases.ReleasePlan:
    """Where ``build --release NAME`` writes, checked before any analysis runs."""
    from sigreport.archive import releases

    return releases.plan_release_for(spec_file(spec_path), name, archive, force, previous)


def verify(folder: str | Path, rebuild: bool = True, data_dir: str | Path | None = None,
           digest: str | None = None, progress: Progress | None = None) -> VerifyResult:
    """``sigreport verify``: check a release against its manifest (and the manifest against a published
    ``digest``), rebuilding it unless ``rebuild`` is False. The rebuild uses no cache. ``progress``: told the
    steps of the verification and of the rebuild's build (the command line's display)."""
    from sigreport.archive import releases

    folder = Path(folder)
    previous, missing, context = None, None, None
    try:  # a release was analysed against its previous release (selection): so is its rebuild
        manifest = read_manifest(folder)
        name, context = manifest.get("previous"), releases.context_of(folder, manifest)
    except UserError:
        name = None  # verify_release reports an unreadable manifest itself
    if isinstance(name, str) and name:
        previous = previous_results(folder.parent / name)
        if previous is None:
            missing = (f"the previous release '{name}' it was analysed against cannot be read at "
                       f"{folder.parent / name}; verify the release inside its archive")

    def builder(spec: Path, out: Path, formats: list[str], templates: str | None) -> None:
        if missing:
            raise CannotRebuild(missing)
        build(spec, out, formats or None, progress=progress, templates=templates, previous=previous, context=context)

    return verify_release(Path(folder), rebuild, Path(data_dir) if data_dir else None, builder, digest,
                          lambda text: phase(progress, text))

