"""The stages of a run, wired once: spec file -> dataset -> plan -> results -> report folder.

``validate``, ``plan`` and ``analyze`` stop after :func:`prepare` (and the analyses) and write nothing;
:func:`build` runs everything and writes the report folder atomically; :func:`verify` rebuilds a release.
Each concern around the stages has its module: :mod:`.running` (worker processes, executors, the cache),
:mod:`.outputs` (the formats), :mod:`.releasing` (releases and the previous report), :mod:`.progress`;
where and how the folder is written (lock, checks, temporary folder, swap, recovery) is
:mod:`sigreport.archive.store`. This module gathers what the build reads so the store can refuse an output
folder that holds any of it, and reads the previous report explicitly, once, for the plan.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sigreport.analyses import (choices_stable, collect_results, figure_warnings, imports_ahead, previous_methods,
                                 source_warnings, with_step)
from sigreport.api import releasing
from sigreport.api.outputs import write_report
from sigreport.api.preparing import Prepared, plan_of, prepare, spec_file, strict_failures  # noqa: F401
from sigreport.api.progress import Progress, phase, say as say_line
from sigreport.api.shards import load_sharded, power_on, sharded_input
from sigreport.api.running import RunError, RunOptions, check_cache, figure_workers_ahead, open_cache, \
    prune_cache, ready_workers, run_analyses, workers_for
from sigreport.archive import store
from sigreport.archive.manifest import read_manifest
from sigreport.archive.verify import CannotRebuild, VerifyResult, verify_release
from sigreport import defaults
from sigreport.data import Dataset, left_out_warnings, load_data
from sigreport.execute.cache import build_code
from sigreport.errors import Problem, StrictError, UserError
from sigreport.results import Results
from sigreport.spec import SpecFile, output_dir
from sigreport.speed import unchanged, workers
from sigreport.speed.collector import keep, long_lived
from sigreport.speed.imports import prefetch
from sigreport.version import __version__

if TYPE_CHECKING:
    from sigreport.archive import releases  # imported by the release paths only (validate need not pay)


def collect(p: Prepared, results: dict[str, Any]) -> Results:
    """The run's Results (what results.json holds)."""
    return collect_results(p.spec_file.spec, p.dataset, results, __version__, p.steps)


def collect_warnings(results: dict[str, Any]) -> list[Problem]:
    """Every warning of the analyses and of their pairs, named by analysis (and pair)."""
    out = []
    for node_id, r in results.items():
        for w in getattr(r, "warnings", ()):
            out.append(Problem(node_id, None, "", w))
        for p in getattr(r, "pairs", ()):
            for w in getattr(p, "warnings", ()):
                out.append(Problem(node_id, None, f"{p.a} vs {p.b}", w))
    return out


def build(spec_path: SpecFile | str | Path, out: str | Path | None = None, formats: list[str] | None = None,
          strict: bool = False, progress: Progress | None = None, templates: str | Path | None = None,
          release: releases.ReleasePlan | None = None, previous: Results | None = None, wait: float = 0.0,
          say: store.Say | None = None, run: RunOptions = RunOptions(),
          force: bool = False, context: Any = None, reuse: bool = False) -> tuple[Path, list[str], list[Problem]]:
    """Run a whole build; returns (report folder, files written, warnings).

    The output folder is locked for the whole build (a second build waits ``wait`` seconds, then stops
    with exit 2) and checked before any statistics run, so a refused build costs nothing. With
    ``release`` (from :func:`~.releasing.plan_release`) the report goes into the archive with its manifest,
    and the index is rewritten. The previous report (for ``selection``) is ``previous``, else the release's
    previous one, else the report in the output folder: read here, explicitly, and handed to the plan.
    A release folder is replaced only by a release build with ``--force`` (a plain build into it needs
    ``force``, and then the archive's index is rewritten). ``context``: the release a rebuild writes the
    report of (``verify``; a release build knows its own). ``reuse`` (the command line's plain builds): keep
    the build record with which the next command-line build of the same spec, data, options and software
    leaves the report as it is (:mod:`sigreport.speed.unchanged`).
    """
    check_build_options(formats, wait)
    sf = spec_file(spec_path)
    dest = release.dest if release else (Path(out).resolve() if out else output_dir(sf))
    job = Job(sf=sf, dest=dest, formats=formats, strict=strict, progress=progress, templates=templates, release=release,
              previous=previous, wait=wait, say=say or say_line, run=run, force=force, context=context)
    with outputs_dir_named(sf, release is None and not out):
        check_cache(run, sf)  # an unusable cache folder stops the build before the data is read
        if reuse and release is None and previous is None and context is None and not force and sf.from_file:
            job = build_fingerprint(job, out)  # before anything is read; the record is kept when the report is written
        with long_lived(), ready_workers(figure_workers_ahead(sf, run, formats)) as drawers:
            return _build(job, drawers)


@dataclasses.dataclass(frozen=True)
class Job:
    """What :func:`build` was asked to do (its arguments, the spec loaded and the output folder resolved)."""

    sf: SpecFile
    dest: Path
    formats: list[str] | None
    strict: bool
    progress: Progress | None
    templates: str | Path | None
    release: releases.ReleasePlan | None
    previous: Results | None
    wait: float
    say: store.Say
    run: RunOptions
    force: bool
    context: Any
    fingerprint: str | None = None  # of the inputs, options and software (a build that may be left as it is)
    inputs: tuple[Path, ...] = ()  # what the fingerprint was taken of
    out: str | Path | None = None  # the output folder as asked for (None: the spec's outputs.dir)


def build_fingerprint(job: Job, out: str | Path | None) -> Job:
    """The job with the fingerprint of what its files depend on (inputs, options and software) and where its
    build record goes (:mod:`sigreport.speed.unchanged`)."""
    options = unchanged.options_of(job.formats, job.strict, job.templates)
    inputs = tuple(input_paths(job.sf, job.templates))
    return dataclasses.replace(job, fingerprint=unchanged.fingerprint(inputs, options, build_code()),
                               inputs=inputs, out=out)


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
    """Refuse, before anything is read, a format that is not one of :data:`sigreport.defaults.FORMATS` (an unknown
    one was silently left out of the report) and a ``wait`` that is not a finite number of seconds, 0 or more
    (NaN is never reached by a deadline: the build would wait for ever)."""
    known = ", ".join(defaults.FORMATS)
    if isinstance(formats, str):
        raise RunError(f"formats: a list of format names is needed (of {known}), not the string {formats!r}")
    unknown = [f for f in formats or () if f not in defaults.FORMATS]
    if unknown:
        raise RunError(f"formats: unknown format{'s' if len(unknown) > 1 else ''} "
                       f"{', '.join(repr(f) for f in unknown)}; known: {known}")
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not math.isfinite(wait) or wait < 0:
        raise RunError(f"wait: a number of seconds, 0 or more, is needed, not {wait!r}")


def _build(job: Job, drawers: workers.Ready | None) -> tuple[Path, list[str], list[Problem]]:
    """The build once its options are checked: read, then with the output folder locked, check it, plan, run
    the analyses and write the report folder; then prune the cache and rewrite a release archive's index."""
    t0, started = time.monotonic(), time.time()
    if sharded_input(job.sf, job.run):  # Parquet shards: read by the Dask workers, never by this process
        return _build_sharded(job, drawers, t0, started)
    ds = read_data(job.sf, job.progress)
    return _build_read(job, drawers, ds, t0, started)


def _build_sharded(job: Job, drawers: workers.Ready | None, t0: float, started: float
                   ) -> tuple[Path, list[str], list[Problem]]:
    """The build of a score table of Parquet shards: the Dask cluster started first, its workers read the
    shards and hold the blocks (:mod:`.shards`), the analyses run there; the cluster is closed whatever happens."""
    from sigreport.execute.dask import DaskExecutor, DaskUnavailable

    run = job.run
    if job.release is not None:  # its notes and diff read the items of every block on this machine
        raise RunError("a release build reads the scores on this machine: build the release without --executor "
                       "dask (Parquet shards are read by the Dask workers only in plain builds)")
    executor = DaskExecutor(run.scheduler, workers_for(run.jobs, None, dask=True),  # type: ignore[arg-type]
                            run.scheduler_timeout)
    try:
        phase(job.progress, f"reading {_data_names(job.sf)} on the Dask workers", transient=True)
        try:
            ds = load_sharded(job.sf, executor)
        except DaskUnavailable as exc:
            raise RunError(f"{exc}; nothing was written") from None
        return _build_read(job, drawers, ds, t0, started, executor)
    finally:
        executor.shutdown()


def _build_read(job: Job, drawers: workers.Ready | None, ds: Dataset, t0: float, started: float,
                executor: Any = None) -> tuple[Path, list[str], list[Problem]]:
    """The build once its data is read (``executor``: the one that holds it, when the workers read it)."""
    noted = left_out_warnings(job.sf, ds)  # rows the spec leaves out: said now, failing --strict before any analysis
    if job.strict and (failing := strict_failures(job.sf, noted, unused=False)):
        raise StrictError(str(job.sf.path), failing)
    for w in noted:
        job.say(f"warning: {w.render()}")
    run = dataclasses.replace(job.run, jobs=workers_for(job.run.jobs, ds, job.run.executor == "dask"))
    if drawers is not None and run.jobs < 2:  # the guess was wrong: fewer rows than it took
        drawers.close()
        drawers = None
    dest, say = job.dest, job.say
    with archive_locked(job), store.locked(dest, job.wait, say):
        store.recover(dest, say)
        store.check_inputs_outside(dest, input_paths(job.sf, job.templates))
        store.check_destination(dest)
        replaced_release = releasing.check_release_destination(dest, job.release, job.force)
        cache = open_cache(run, job.sf)  # only now: a refused build leaves no cache folder behind
        previous = job.previous or releasing.previous_of(job.release, dest, say)
        p = Prepared(job.sf, ds, plan_of(job.sf, ds, previous), dest,
                     with_step("power", power_on(executor)) if executor else None)
        processes = f"; {run.jobs} worker processes" if run.jobs > 1 and run.executor != "dask" else ""
        phase(job.progress, f"read {_shape(ds)} and planned {len(p.plan.nodes):,} analyses in "
                            f"{time.monotonic() - t0:.1f} s{processes}")
        results = run_analyses(p.plan, p.dataset, run, job.progress, cache, executor)
        keep()
        warnings = (noted + collect_warnings(results) + figure_warnings(job.sf.spec, results.values())
                    + source_warnings(p.dataset, results.values()))
        if job.strict and (failing := strict_failures(job.sf, warnings)):
            raise StrictError(str(job.sf.path), failing)
        written = write_folder(job, p, results, warnings, run.jobs, cache, drawers)
        if job.fingerprint is not None:  # what the next build compares with (before pruning: this build's entry)
            unchanged.remember(cache, job.sf.path, job.out, dest, job.inputs, job.fingerprint,
                               choices_stable(previous_methods(previous), results), warnings)
        prune_cache(cache, run, started, job.progress)
        releasing.rewrite_index(job.release, dest, replaced_release, say)
    return dest, written, warnings


def archive_locked(job: Job) -> contextlib.AbstractContextManager[None]:
    """A release build holds its archive's lock (``.ARCHIVE.lock`` beside it) from before its folder is checked
    until the index is rewritten: a second release build into the same archive waits ``--wait`` seconds, then
    stops with exit code 2 naming the build that holds it. Its previous release, sequence number and index
    entry are then always read and written by one build at a time."""
    if job.release is None:
        return contextlib.nullcontext()
    return store.locked(job.release.archive, job.wait, job.say, what=f"the archive {job.release.archive}")


def read_data(sf: SpecFile, progress: Progress | None) -> Dataset:
    """The spec's data, read while the module the analyses will import first is imported in the background
    (:func:`sigreport.analyses.imports_ahead`, :func:`sigreport.speed.imports.prefetch`)."""
    phase(progress, f"reading {_data_names(sf)}", transient=True)
    ahead = imports_ahead(sf.spec)
    imported = prefetch(ahead) if ahead else (lambda: None)
    try:
        ds = load_data(sf)
    finally:
        imported()  # before any process is forked, whatever happened
    keep()
    return ds


def write_folder(job: Job, p: Prepared, results: dict[str, Any], warnings: list[Problem], jobs: int,
                 cache: Any, drawers: workers.Ready | None) -> list[str]:
    """Write the report (and a release's manifest and notes) into a temporary folder and swap it in at
    ``job.dest`` (:func:`sigreport.archive.store.write_report_folder`); the files written."""
    formats = job.formats or list(job.sf.spec.outputs.formats)
    if job.release and "json" not in formats:
        formats = [*formats, "json"]  # a release's diff and index read its results.json
    context = releasing.release_context(job.release) if job.release else job.context

    def fill(tmp: Path) -> list[str]:
        res = collect(p, results)
        keep()
        written = write_report(res=res, spec=job.sf.spec, source=job.sf.path.name, dest=tmp, formats=formats,
                               templates=job.templates, notices=warnings, progress=job.progress, jobs=jobs, cache=cache,
                               figure_workers=drawers, release=context)
        if job.release:
            written += releasing.finish_release(job.release, tmp, job.sf, p.dataset, formats, job.templates)
        return written

    return store.write_report_folder(job.dest, fill, job.say, __version__)


def _data_names(sf: SpecFile) -> str:
    data = sf.spec.data
    return ", ".join(Path(f).name for f in data.named_files()) or "the data"


def _shape(ds: Dataset) -> str:
    """"1,000,000 score rows (20 systems, 10 corpora, 5 metrics)", for the progress display."""
    counts = [(len(ds.systems), "system", "systems"), (len(ds.corpora), "corpus", "corpora"),
              (len(ds.metrics), "metric", "metrics")]
    parts = ", ".join(f"{n:,} {one if n == 1 else many}" for n, one, many in counts)
    return f"{ds.n_rows:,} score rows ({parts})" if ds.n_rows else f"the data ({parts})"


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


def verify(folder: str | Path, rebuild: bool = True, data_dir: str | Path | None = None,
           digest: str | None = None, progress: Progress | None = None) -> VerifyResult:
    """``sigreport verify``: check a release against its manifest (and the manifest against a published
    ``digest``), rebuilding it with :func:`build` unless ``rebuild`` is False. The rebuild uses no cache.
    ``progress``: told the steps of the verification and of the rebuild's build (the command line's display)."""
    from sigreport.archive import releases

    folder = Path(folder)
    previous, missing, context = None, None, None
    try:  # a release was analysed against its previous release (selection): so is its rebuild
        manifest = read_manifest(folder)
        name, context = manifest.get("previous"), releases.context_of(folder, manifest)
    except UserError:
        name = None  # verify_release reports an unreadable manifest itself
    if isinstance(name, str) and name:
        previous = releasing.previous_results(folder.parent / name)
        if previous is None:
            missing = (f"the previous release '{name}' it was analysed against cannot be read at "
                       f"{folder.parent / name}; verify the release inside its archive")

    def builder(spec: Path, out: Path, formats: list[str], templates: str | None) -> None:
        if missing:
            raise CannotRebuild(missing)
        build(spec, out, formats or None, progress=progress, templates=templates, previous=previous, context=context)

    return verify_release(Path(folder), rebuild, Path(data_dir) if data_dir else None, builder, digest,
                          lambda text: phase(progress, text))
