"""Command line: ``sigreport build|validate|plan|diff|gate|verify|trend|schema``.

Maps user mistakes (:class:`~sigreport.errors.UserError`) to one line per problem and exit code 2,
without a traceback; a worker process killed under the build (:class:`~sigreport.forking.WorkerLost`) to
one line and exit code 1; Ctrl-C and SIGTERM to one line and 130 or 143 (the build cleans up as it
stops); anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
import shutil
import signal
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

from sigreport import defaults
from sigreport.errors import Problem, StrictError, UserError, printable
from sigreport.version import __version__

FORMATS = defaults.FORMATS  # the output formats (their writers: sigreport.api.outputs.WRITERS)


class Progress:
    """What a build is doing, on standard error: the phases (data read and plan, analyses i/N with an
    estimate of the time left, rendering, PDF).

    On a terminal one line is rewritten in place (and erased at the end); elsewhere (a log, a pipe, CI)
    each phase is one plain line, and a long run of analyses adds a line every ``every`` seconds.
    Disabled (``--quiet``), it prints nothing. Standard output is left to the build's result.
    """

    def __init__(self, enabled: bool, stream: Any = None, every: float = 10.0):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = enabled and self.stream.isatty()
        self.every = every
        self.start = time.monotonic()
        self.shown = False
        self.run_start: float | None = None
        self.last = 0.0

    def phase(self, text: str, transient: bool = False) -> None:
        """A new phase; ``transient`` ones (work that may still fail on the user's input) only on a terminal."""
        if self.tty:
            self._rewrite(text)
        elif self.enabled and not transient:
            self._line(text)

    def __call__(self, done: int, total: int, what: str) -> None:
        """Analyses: ``done`` of ``total`` finished, the last one ``what``."""
        if not self.enabled:
            return
        now = time.monotonic()
        if self.run_start is None or done == 0:
            self.run_start = now
        text = f"analyses {done}/{total}{time_left(now - self.run_start, done, total)}"
        if self.tty:
            if done == total or now - self.last >= 0.1:
                self._rewrite(f"{text}: {printable(what)}")
        elif 0 < done < total and now - max(self.last, self.run_start) >= self.every:
            self._line(text)

    def _rewrite(self, text: str) -> None:
        now = time.monotonic()
        if not self.shown and now - self.start < 0.5:  # a build that takes a moment shows nothing
            return
        self.shown = True
        self.last = now
        width = max(20, shutil.get_terminal_size().columns - 1)
        self.stream.write(f"\r\x1b[K{printable(text)}"[:width + 4])
        self.stream.flush()

    def _line(self, text: str) -> None:
        self.last = time.monotonic()
        self.stream.write(f"{printable(text)}\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def time_left(elapsed: float, done: int, total: int) -> str:
    """", about 2 min left" from the pace so far (empty until one analysis is done, and at the end)."""
    if done <= 0 or done >= total or elapsed <= 0:
        return ""
    left = elapsed / done * (total - done)
    return f", about {left:.0f} s left" if left < 90 else f", about {left / 60:.0f} min left"


def _formats(value: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in FORMATS]
    if bad or not items:
        raise argparse.ArgumentTypeError(f"unknown format(s) {', '.join(bad) or '(none)'}; known: {', '.join(FORMATS)}")
    return items


def _jobs(value: str) -> int | str:
    if value == "auto":
        return value
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"--jobs takes auto or a whole number of at least 1, not {value!r}")
    return n


def _megabytes(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"--cache-limit takes a whole number of megabytes (0 or more), not {value!r}")
    return n


def _seconds(option: str, zero: bool = True) -> Any:
    """The argument type of an option in seconds: a finite number, at least 0 (above 0 unless ``zero``).
    ``float`` alone takes ``nan`` (which no deadline ever reaches: a wait that never ends) and ``inf``."""

    def parse(value: str) -> float:
        try:
            x = float(value)
        except ValueError:
            x = math.nan
        if not math.isfinite(x) or x < 0 or (x == 0 and not zero):
            least = "0 or more" if zero else "more than 0"
            raise argparse.ArgumentTypeError(f"{option} takes a number of seconds ({least}), not {value!r}")
        return x

    return parse


_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})")


def _scheduler(value: str) -> str:
    """A Dask scheduler address, ``tcp://HOST:PORT`` (or ``tls://``, ``ws://``, ``wss://``; the scheme may be
    left out): checked here, so that a malformed one is one line, not a traceback from deep in Dask."""
    m = _ADDRESS.fullmatch(value)
    if m is None or not 1 <= int(m.group(1)) <= 65535:
        raise argparse.ArgumentTypeError(f"--scheduler takes an address tcp://HOST:PORT (PORT from 1 to 65535; "
                                         f"an IPv6 host in brackets), not {value!r}")
    return value


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="sigreport", description="Significance reports for comparing systems.")
    ap.add_argument("--version", action="version", version=f"sigreport {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    b = sub.add_parser("build", help="validate, run every analysis and write the report")
    b.add_argument("spec", help="the YAML spec")
    b.add_argument("-o", "--output", help="report folder (default: the spec's outputs.dir)")
    b.add_argument("--formats", type=_formats, help="comma-separated subset of html,pdf,latex,json")
    b.add_argument("--strict", action="store_true", help="fail (exit 2) when the data (rows the spec leaves out) or any "
                   "analysis has a warning")
    b.add_argument("--templates", help="folder of templates overriding the built-in ones (html/, latex/)")
    b.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    b.add_argument("--release", metavar="NAME", help="write the report as release NAME of the archive, with its manifest")
    b.add_argument("--archive", metavar="DIR", help="archive folder (default: outputs.archive, else reports/ beside the spec)")
    b.add_argument("--force", action="store_true", help="replace an existing release of that name (with -o: let a "
                   "plain report replace a release folder)")
    b.add_argument("--previous", metavar="DIR", help="report to compare with (default: the archive's newest release)")
    b.add_argument("-j", "--jobs", type=_jobs, default="auto", metavar="N",
                   help="run independent analyses and figures in N worker processes (same results for every N; "
                   "default auto: one per core, at most 8, from 200,000 score rows, else 1)")
    b.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="where analyses run: this machine (default) or a Dask cluster (pip install 'sigreport[dask]')")
    b.add_argument("--scheduler", metavar="ADDRESS", type=_scheduler,
                   help="Dask scheduler address (tcp://host:port); default: a local cluster of --jobs workers")
    b.add_argument("--scheduler-timeout", type=_seconds("--scheduler-timeout", zero=False), default=10.0,
                   metavar="SECONDS", help="how long to try to reach the Dask scheduler (default 10)")
    b.add_argument("--cache", metavar="DIR", help="cache of analysis results (default: .sigreport-cache/ beside the spec)")
    b.add_argument("--no-cache", action="store_true", help="compute every analysis afresh and cache nothing")
    b.add_argument("--cache-limit", type=_megabytes, default=2048, metavar="MB",
                   help="after the build, least recently used cache entries are removed down to MB megabytes "
                   "(default 2048; never what this build used)")
    b.add_argument("--wait", type=_seconds("--wait"), default=0.0, metavar="SECONDS",
                   help="when another build is writing the same folder, wait this long for it (default 0: stop)")
    v = sub.add_parser("validate", help="check the spec and the data; compute nothing")
    v.add_argument("spec")
    v.add_argument("-q", "--quiet", action="store_true")
    v.add_argument("--strict", action="store_true", help="fail (exit 2) when the data has a warning (rows the "
                   "spec leaves out)")
    p = sub.add_parser("plan", help="print the analysis DAG: nodes and dependencies")
    p.add_argument("spec")
    d = sub.add_parser("diff", help="what changed in the conclusions between two reports or releases")
    d.add_argument("old", help="report folder, or release name with --archive")
    d.add_argument("new", help="report folder, or release name with --archive")
    d.add_argument("--archive", metavar="DIR", help="read OLD and NEW as release names of this archive")
    d.add_argument("--format", choices=("text", "markdown", "json", "html"), default="text")
    d.add_argument("--fail-on", choices=("conclusions", "flips", "any"), default="conclusions",
                   help="exit 1 on changed conclusions (default), only on flipped decisions, or on any difference")
    _gate_parser(sub)
    r = sub.add_parser("verify", help="check a release: input hashes, then a rebuild compared with its manifest")
    r.add_argument("release", help="the release folder")
    r.add_argument("--no-rebuild", action="store_true", help="only compare the files with the manifest's hashes")
    r.add_argument("--data", metavar="DIR", help="folder holding the inputs (default: beside the original spec)")
    r.add_argument("--digest", metavar="SHA256", help="the manifest's sha256 as published when the release was "
                   "built: a manifest rewritten since does not verify")
    t = sub.add_parser("trend", help="every system's value per metric and corpus across the releases of an archive")
    t.add_argument("archive", help="the archive folder")
    t.add_argument("--metric", help="only this metric (its name or label)")
    t.add_argument("--corpus", help="only this corpus ('*': across corpora)")
    t.add_argument("--format", choices=("markdown", "csv", "json", "html"), default="markdown")
    w = sub.add_parser("power", help="items (and runs) the next study needs to detect a difference, from a pilot's data")
    w.add_argument("spec")
    w.add_argument("--difference", action="append", required=True, metavar="[METRIC=]D",
                   help="the true difference to detect, in the metric's units: D for every metric, or METRIC=D for "
                   "one (its key or label; repeat for several)")
    w.add_argument("--power", type=_probability, default=None, metavar="P",
                   help="the power to reach (default: tests.power, else 0.8)")
    w.add_argument("--metric", action="append", help="only this metric (repeat for several)")
    w.add_argument("--format", choices=("text", "json"), default="text")
    m = sub.add_parser("methods", help="list every test sigreport can run (built-in and plugins): options, where it "
                       "applies, its power rule and references")
    m.add_argument("--format", choices=("text", "json"), default="text")
    s = sub.add_parser("schema", help="print the JSON Schema of the spec")
    s.add_argument("-o", "--output", help="write to this file instead of standard output")
    return ap


def _gate_parser(sub: Any) -> None:
    g = sub.add_parser("gate", help="release verdict for CI: exit 0 when every gated metric is non-inferior to the "
                       "baseline (or better), 1 when one is not, 2 on error")
    g.add_argument("report", help="a built report's results.json or its folder, or a YAML spec (built first, "
                   "results.json only, into a temporary folder)")
    g.add_argument("--baseline", required=True, metavar="SYSTEM", help="the system the candidates must not be worse than")
    g.add_argument("--candidate", action="append", default=[], metavar="SYSTEM",
                   help="the system to gate (repeat for several; default: every other system)")
    g.add_argument("--margin", action="append", default=[], metavar="M=D",
                   help="non-inferiority margin D of metric M in its units (repeat; default: the report's "
                   "metrics.M.margin)")
    g.add_argument("--metrics", action="append", default=[], metavar="M[,M...]",
                   help="the primary metrics, tested first (default: every metric with a margin)")
    g.add_argument("--secondary", action="append", default=[], metavar="M[,M...]",
                   help="secondary metrics, in order, tested only when every primary one passes (fixed sequence)")
    g.add_argument("--format", choices=("text", "markdown", "json"), default="text")


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a CI runner's timeout), raised in the main thread: a build stops as on Ctrl-C
    (temporary folder removed, workers stopped, previous report intact, lock released)."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated()


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within: SIGTERM raises :class:`Terminated` (where a handler can be set: the main thread); the
    previous handler is put back after, so a caller of :func:`main` finds its process as it was."""
    try:
        previous = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    """The command line. It owns its process (:func:`sigreport.speed.owned_process`): a build may change the
    process for its length (the garbage collector's freezing), and puts everything back before it returns."""
    args = parser().parse_args(argv)
    from sigreport.speed import owned_process

    try:
        with sigterm_interrupts(), owned_process():
            return _run(args)
    except UserError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except Terminated:
        print("terminated (SIGTERM); nothing was written", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("interrupted; nothing was written", file=sys.stderr)
        return 130
    except Exception as exc:
        from sigreport.forking import WorkerLost

        if isinstance(exc, WorkerLost):  # the cause is outside this process: a traceback would not show it
            print(f"error: {exc}; nothing was written", file=sys.stderr)
            return 1
        raise


def _run(args: argparse.Namespace) -> int:
    if args.command == "diff":
        return _diff(args)  # reads JSON only: no need to import the statistics stack
    if args.command == "trend":
        return _trend(args)
    if args.command == "gate":
        return _gate(args)
    if args.command == "verify" and args.no_rebuild:
        from sigreport.archive.verify import verify_release

        return _verified(verify_release(Path(args.release), False, digest=args.digest,
                                        say=Progress(True).phase))
    if args.command == "methods":  # the declarations only: no data, statistics or rendering
        return _methods(args)
    if args.command == "schema":  # the spec models only: no statistics, data or rendering imports
        from sigreport.spec import json_schema

        text = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
        if args.output:
            from sigreport.archive.store import write_text_file

            write_text_file(Path(args.output), text)
        else:
            sys.stdout.write(text)
        return 0
    if (args.command == "build" and not args.release and not args.no_cache and not args.force and not args.previous
            and _left_as_it_is(args) is not None):  # before the build is imported: nothing changed, nothing to do
        return 0
    if args.command in ("validate", "plan"):
        return _prepared_only(args)
    from sigreport.api import pipeline as b

    if args.command == "power":
        from sigreport.api.planning import parse_differences, plan_power, render_plans

        prepared = b.prepare(args.spec)
        target = args.power if args.power is not None else (prepared.spec_file.spec.tests.power or 0.8)
        differences = parse_differences(args.difference, prepared.dataset.metric_specs)
        sys.stdout.write(render_plans(plan_power(prepared, differences, target, args.metric), differences,
                                      target, args.format, prepared.spec_file.spec.tests.alternative))
        return 0
    if args.command == "verify":
        progress = Progress(True)
        try:
            result = b.verify(args.release, True, args.data, args.digest, progress)
        finally:
            progress.finish()
        return _verified(result)
    if args.templates:  # before any statistics: a mistyped folder must not cost a whole build
        from sigreport.render import check_template_dir

        check_template_dir(args.templates)
    release = _release(args)
    progress = Progress(not args.quiet)
    try:
        dest, written, warnings = b.build(args.spec, args.output, args.formats, args.strict, progress, args.templates,
                                          release, wait=args.wait, run=_run_options(args), force=args.force,
                                          say=_notices(progress, args.quiet), reuse=release is None and not args.no_cache)
    finally:
        progress.finish()
    if not args.quiet:
        if release and release.replaced:
            print(f"replaced release {release.name} (build #{release.replaced.sequence}, sigreport "
                  f"{release.replaced.manifest.get('sigreport_version')}, built {release.replaced.manifest.get('built_at')})")
        print(f"wrote {dest} ({len(written)} files: {', '.join(_summary(written))})")
        if release:
            from sigreport.archive.manifest import manifest_digest

            print(f"manifest sha256 {manifest_digest(dest)} (publish it to pin this release: "
                  f"sigreport verify {dest} --digest HASH)")
            from sigreport.archive.releases import release_summary

            print("\n".join(printable(line) for line in release_summary(release)))
        if warnings:
            print(f"{len(warnings)} warning{'s' if len(warnings) != 1 else ''} (shown in the report; --strict fails on them)")
    return 0


def _unchanged_record(spec: str | Path, out: str | Path | None, cache_dir: str | None, options: Mapping[str, Any],
                      wait: float, say: Any) -> Any:
    """The command line's check before it imports the build: the record when the report of ``spec`` built
    into ``out`` may be left as it is, None when the build must run. ``cache_dir``: ``--cache`` ('' for the
    default ``.sigreport-cache/`` beside the spec). Only an existing cache folder is looked into; the report
    folder is locked while its files are compared."""
    from sigreport.speed import unchanged

    if not unchanged.may_leave_reports():
        return None
    spec_path = Path(spec)
    if not spec_path.is_file():
        return None  # the build says what is wrong
    folder = Path(cache_dir) if cache_dir else spec_path.resolve().parent / ".sigreport-cache"
    if not folder.is_dir():
        return None
    from sigreport.archive import store
    from sigreport.execute.cache import Cache, CacheError, build_code, check_folder, key_path

    try:
        check_folder(folder)
        if not key_path().is_file():
            return None
        cache = Cache.open(folder, "")
    except (CacheError, OSError):
        return None  # the build says what is wrong with it
    found, record = cache.section(unchanged.SECTION).get(unchanged.record_key(spec_path, out))
    if not found or not isinstance(record, unchanged.BuildRecord) or not record.stable or not Path(record.dest).is_dir():
        return None  # the build writes the folder (and says what is wrong where it cannot)
    with store.locked(Path(record.dest), wait, say):
        store.recover(Path(record.dest), say)  # what a stopped build left beside the folder, as every build does
        return unchanged.up_to_date(cache, spec_path, out, options, build_code())


def _left_as_it_is(args: argparse.Namespace) -> Any:
    """When the report this build would write is already there, untouched (same spec, data, options and
    sigreport: :mod:`sigreport.speed.unchanged`), say so and return its build record; else None. Runs before the
    build is imported: a rebuild where nothing changed costs the start-up, the hashing of the inputs and a look
    at the report's files."""
    from sigreport.speed import unchanged

    options = unchanged.options_of(args.formats, args.strict, args.templates)
    record = _unchanged_record(args.spec, args.output, args.cache, options, args.wait,
                               lambda m: print(m, file=sys.stderr))
    if record is None:
        return None
    if not args.quiet:
        files = sum(1 for f in record.files if not f.startswith("."))
        print(f"{record.dest} is up to date: same spec, data, options and sigreport as the build that wrote it, and "
              f"its {files} file{'s' if files != 1 else ''} untouched since; left as it is (--no-cache builds it again)")
        if record.warnings:
            n = len(record.warnings)
            print(f"{n} warning{'s' if n != 1 else ''} (shown in the report; --strict fails on them)")
    return record


def _prepared_only(args: argparse.Namespace) -> int:
    """``validate`` and ``plan``: the spec, its data and the plan (:mod:`sigreport.api.preparing`), without
    importing the build's writers, archive, cache and worker processes."""
    from sigreport.api.preparing import prepare

    if args.command == "validate":
        return _validate(prepare(args.spec), args)
    print(prepare(args.spec).plan.describe())
    return 0


def _validate(p: Any, args: argparse.Namespace) -> int:  # p: pipeline.Prepared
    """``validate``: the data's warnings (rows the spec leaves out; what a native source left out or warned of
    while reading, e.g. errored samples of an Inspect log) on standard error, failing with ``--strict``; then what
    would be analysed."""
    from sigreport.data import left_out_warnings

    from sigreport.api.preparing import strict_failures

    noted = p.dataset.source_info.get("warnings") or ()  # the build shows these beside each metric's descriptives
    warnings = left_out_warnings(p.spec_file, p.dataset) + [p.spec_file.problem(str(w), "data", "scores")
                                                            for w in noted]
    if args.strict and (failing := strict_failures(p.spec_file, warnings, unused=False)):
        raise StrictError(str(p.spec_file.path), failing)
    if not args.quiet:
        for w in warnings:
            print(f"warning: {w.render()}", file=sys.stderr)
        ds = p.dataset
        rows = f"{ds.n_rows} of {ds.table_rows}" if any(lo.table == "scores" for lo in ds.left_out) else f"{ds.n_rows}"
        votes = "" if ds.preferences is None else \
            f", {sum(g.a.size for g in ds.preferences.groups.values()):,} preference votes"
        print(f"ok: {args.spec}: {len(ds.systems)} systems, {len(ds.corpora)} corpora, {len(ds.metrics)} metrics, "
              f"{rows} score rows{votes}; {len(p.plan.nodes)} analyses planned")
    return 0


def method_listing() -> list[dict[str, Any]]:
    """Every declared method as plain data (``sigreport methods``): from the declarations, nothing restated."""
    from sigreport.render.views.methods import reference
    from sigreport.results import methods as registry
    from sigreport.results.methods import ALL_KINDS, OUTSIDE_TESTS

    out = []
    for kind in ALL_KINDS:
        for d in registry.methods(kind):
            out.append({"kind": d.kind, "name": d.name, "display": d.display, "origin": registry.origin(d),
                        "options": {k if d.kind in OUTSIDE_TESTS else f"tests.{k}": v for k, v in d.options.items()},
                        "applies": list(d.applies),
                        "record": d.record, "mde": d.mde.text(),
                        "references": [{"key": k, "cite": reference(k)[0], "full": reference(k)[1]}
                                       for k in d.references]})
    from sigreport.stats.methods.equivalence import DECLARATIONS as EQUIVALENCE

    for e in EQUIVALENCE:  # beside a pairwise test, with metrics.M.margin
        out.append({"kind": "equivalence", "name": e.name, "display": e.display, "origin": "built-in",
                    "options": {"metrics.M.margin": "the margin D (> 0, in the metric's units)"},
                    "applies": list(e.methods), "record": "PairwiseRecord (each pair's equivalence)",
                    "mde": "none: not computed for equivalence tests",
                    "references": [{"key": k, "cite": reference(k)[0], "full": reference(k)[1]}
                                   for k in e.references]})
    from sigreport.results.methods import proportion

    for d in proportion.INTERVALS:  # a binary metric's systems (tests.proportion_ci)
        out.append({"kind": "proportion_interval", "name": d.name, "display": d.display, "origin": "built-in",
                    "options": {"tests.proportion_ci": d.name + (" (the default)" if d.name == proportion.DEFAULT
                                                                 else "")},
                    "applies": list(proportion.APPLIES), "record": "DescriptivesRecord (each system's interval; "
                    "ci_method)", "mde": "none: an interval, not a test",
                    "references": [{"key": k, "cite": reference(k)[0], "full": reference(k)[1]}
                                   for k in (d.reference, "korn1998")]})  # korn1998: the clustered variant
    n = proportion.NEWCOMBE  # a binary metric's pairs
    out.append({"kind": "paired_proportion_interval", "name": n.name, "display": n.display, "origin": "built-in",
                "options": {}, "applies": list(n.applies),
                "record": "PairwiseRecord (each pair's interval; ci_method)", "mde": "none: an interval, not a test",
                "references": [{"key": k, "cite": reference(k)[0], "full": reference(k)[1]} for k in (n.reference,)]})
    return out


def _methods(args: argparse.Namespace) -> int:
    listing = method_listing()
    if args.format == "json":
        sys.stdout.write(json.dumps({"methods": listing}, indent=2, ensure_ascii=False) + "\n")
        return 0
    lines = []
    for m in listing:
        lines.append(f"{m['kind']} {m['name']}: {m['display']} ({m['origin']})")
        options = "; ".join(f"{k}: {v}" for k, v in m["options"].items()) or "none"
        lines += [f"  options: {options}", f"  applies to: {'; '.join(m['applies'])}", f"  MDE: {m['mde']}",
                  f"  references: {'; '.join(r['full'] for r in m['references'])}"]
    sys.stdout.write(printable_lines(lines))
    return 0


def printable_lines(lines: list[str]) -> str:
    """Lines for the terminal: a plugin's text with its control characters escaped."""
    return "".join(printable(line) + "\n" for line in lines)


def _notices(progress: Progress, quiet: bool) -> Any:  # store.Say
    """The build's one-line notices on standard error, below the progress line (erased first); with ``--quiet``
    its warnings are left out (they are counted in the report), the notices of what it did to files are not."""

    def say(message: str) -> None:
        if quiet and message.startswith("warning: "):
            return
        progress.finish()
        print(message, file=sys.stderr)

    return say


def _probability(text: str) -> float:
    """A number strictly between 0 and 1 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value


def _run_options(args: argparse.Namespace) -> Any:  # running.RunOptions
    from sigreport.api.running import RunOptions

    if args.scheduler and args.executor != "dask":
        raise UserError("build", [Problem("build", None, "--scheduler", "only with --executor dask")])
    cache = None if args.no_cache else (args.cache or "")  # "" = the default folder beside the spec
    return RunOptions(args.jobs, args.executor, args.scheduler, cache, args.cache_limit * 1024**2,
                      args.scheduler_timeout)


def _release(args: argparse.Namespace) -> Any:  # a ReleasePlan or None
    """Check the release flags before anything is computed."""
    from sigreport.api.releasing import plan_release

    if args.release is None:
        extra = [f for f, v in (("--archive", args.archive), ("--force", args.force and not args.output),
                                ("--previous", args.previous)) if v]
        if extra:
            raise UserError("build", [Problem("build", None, extra[0], "only with --release NAME")])
        return None
    if args.output:
        raise UserError("build", [Problem("build", None, "--output", "a release is written into the archive; "
                                          "use --archive DIR instead of -o")])
    return plan_release(args.spec, args.release, args.archive, args.force, args.previous)


def _verified(result: Any) -> int:  # a VerifyResult
    print("\n".join(result.lines()))
    return int(result.exit_code)


def _diff(args: argparse.Namespace) -> int:
    from sigreport.api.release_notes import diff_folders
    from sigreport.archive import notes, releases

    if args.archive:
        archive = Path(args.archive)
        folders = [releases.find_release(archive, n).path for n in (args.old, args.new)]
        labels = [args.old, args.new]
    else:
        folders = [Path(x) for x in (args.old, args.new)]
        labels = [None, None]
        for f in folders:
            if not f.is_dir():
                raise UserError(str(f), [Problem(str(f), None, "", f"no report folder at {f} "
                                                 "(release names need --archive DIR)")])
    d, links = diff_folders(folders[0], folders[1], labels[0], labels[1])
    sys.stdout.write(notes.render(d, args.format, links))
    return d.exit_code(args.fail_on)


def _names(values: list[str]) -> list[str]:
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


def _gate(args: argparse.Namespace) -> int:
    """``sigreport gate``: read (or build, for a spec) the report's results.json and gate it
    (:mod:`sigreport.archive.gate`)."""
    import tempfile

    from sigreport.archive import gate
    from sigreport.archive.documents import read_results_document
    from sigreport.results.reading import read_document

    where = str(args.report)
    margins = gate.parse_margins(args.margin)
    path = Path(args.report)
    with tempfile.TemporaryDirectory(prefix="sigreport-gate-") as tmp:
        if path.suffix in (".yaml", ".yml") and path.is_file():
            from sigreport.api import pipeline

            dest, _, _ = pipeline.build(str(path), Path(tmp) / "report", ["json"])
            path = dest / "results.json"
        elif path.is_dir():
            path = path / "results.json"
        if not path.is_file():
            raise UserError(where, [Problem(where, None, "REPORT", f"no results.json at {path} (give a report "
                                            "folder built with the json format, its results.json, or a spec)")])
        found = read_document(read_results_document(path))
    result = gate.run_gate(found, args.baseline, margins, _names(args.metrics), _names(args.secondary),
                           args.candidate, where)
    sys.stdout.write(gate.RENDERERS[args.format](result))
    return result.exit_code


def _trend(args: argparse.Namespace) -> int:
    from sigreport.archive import releases, trends

    archive = releases.require_archive(Path(args.archive))
    if not releases.is_archive(archive):
        raise UserError(str(archive), [Problem(str(archive), None, "ARCHIVE", f"{archive} is not a sigreport archive")])
    found = releases.archive_trends(releases.scan(archive, lambda m: print(printable(m), file=sys.stderr)))
    chosen = trends.select(found, args.metric, args.corpus)
    if found and not chosen:
        known = ", ".join(dict.fromkeys(f"{t.metric} on {t.corpus if t.corpus is not None else '*'}" for t in found))
        raise UserError(str(archive), [Problem(str(archive), None, "--metric" if args.metric else "--corpus",
                                               f"no trend of that metric and corpus; known: {known}")])
    if args.format == "html":  # the index's trend sections with their plots, as a page of their own
        from sigreport.render.figures.trend import draw_trend

        sys.stdout.write(releases.trends_page(chosen, {(t.metric, t.corpus): draw_trend(t) for t in chosen}))
        return 0
    sys.stdout.write(trends.RENDERERS[args.format](chosen))
    return 0


def _summary(written: list[str]) -> list[str]:
    tex = [w for w in written if w.startswith("tables/") and w.endswith(".tex")]
    figs = [w for w in written if w.startswith("figures/") and w.endswith(".pdf")]
    out = [w for w in written if not w.startswith(("tables/", "figures/"))]
    if tex:
        out.append(f"{len(tex)} LaTeX table{'s' if len(tex) != 1 else ''} and README.txt in tables/")
    if figs:
        out.append(f"{len(figs)} figure{'s' if len(figs) != 1 else ''} (PDF and .tex snippet each) and README.txt "
                   "in figures/")
    return out


def entry() -> NoReturn:
    """The console script (``sigreport``) and ``python -m sigreport.cli``: :func:`main` in a process of its own,
    which ends without the interpreter's last garbage collection (:func:`sigreport.speed.collector.exit_process`)."""
    from sigreport.speed.collector import exit_process

    exit_process(main())


if __name__ == "__main__":
    entry()
