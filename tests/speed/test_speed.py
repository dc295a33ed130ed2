"""The code that exists only for speed (sigreport.speed) against its plain path: the same bytes, and the
switch really switches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import sigreport
from conftest import CONFIGS, ROOT
from sigreport import speed

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
WITH_PDF = "summarizers"  # the PDF (weasyprint's time) of one small example

# Builds every example given on the command line into OUT/<name>, with the command line itself (which owns
# its process: the collector's freezing runs on the fast path), and no cache (everything is computed).
DRIVER = """
import sys
from sigreport.cli import main
out, configs, jobs, with_pdf, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
for name in names:
    formats = "json,html,latex" + (",pdf" if name == with_pdf else "")
    code = main(["build", "-q", "--no-cache", "--jobs", jobs, "--formats", formats, "-o", f"{out}/{name}",
                 f"{configs}/{name}.yaml"])
    if code:
        sys.exit(f"{name}: exit code {code}")
"""


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_every_example_gives_the_same_bytes_on_the_fast_and_the_plain_path(tmp_path):
    """Both paths in their own fresh process, side by side: the fast one with --jobs 2 (figure workers forked
    ahead, results.json written by a forked process, the collector frozen), the plain one with
    SIGREPORT_PLAIN=1 and --jobs 1. Every file of every example, the PDF of one, byte for byte."""
    env = {k: v for k, v in os.environ.items() if k != speed.PLAIN_ENV}
    runs = {}
    for path, jobs, extra in (("fast", "2", {}), ("plain", "1", {speed.PLAIN_ENV: "1"})):
        runs[path] = subprocess.Popen(
            [sys.executable, "-c", DRIVER, str(tmp_path / path), str(CONFIGS), jobs, WITH_PDF, *EXAMPLES],
            cwd=ROOT, env={**env, **extra}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for path, proc in runs.items():
        out, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"{path}: {err[-3000:]}"
    for name in EXAMPLES:
        fast, plain = files_of(tmp_path / "fast" / name), files_of(tmp_path / "plain" / name)
        assert sorted(fast) == sorted(plain), name
        assert {"results.json", "index.html"} <= set(fast) and any(f.startswith("tables/") for f in fast), name
        different = [f for f in fast if fast[f] != plain[f]]
        assert not different, f"{name}: {different}"
    assert "report.pdf" in files_of(tmp_path / "fast" / WITH_PDF)


def test_the_plain_path_runs_no_trick(tmp_path, monkeypatch):
    """With plain=True, a build that would use every trick (figures, the PDF's fonts, Shapiro-Wilk, Nemenyi,
    the noncentral t, results.json) reaches none of their fast code: each is replaced by a failure here."""
    import threadpoolctl

    from sigreport.speed import collector, imports, json_text, mpl, scipy_private, workers

    def forbidden(*args, **kwargs):
        raise AssertionError("a speed trick ran on the plain path")

    for module, name in ((scipy_private, "_swilk"), (scipy_private, "_swilk_from_file"), (imports, "_import_quietly"),
                         (json_text.Writer, "_write"), (json_text.Writer, "_emit"), (mpl, "_METRICS"),
                         (mpl, "_SUBSETS")):
        monkeypatch.setattr(module, name, forbidden)
    monkeypatch.setattr(collector.gc, "freeze", forbidden)
    monkeypatch.setattr(threadpoolctl, "threadpool_limits", forbidden)
    report = sigreport.build(CONFIGS / "demsar.yaml", tmp_path / "out", formats=["json", "html", "latex"], plain=True)
    assert "results.json" in report.files and any(f.startswith("figures/") for f in report.files)
    assert json.loads((tmp_path / "out" / "results.json").read_text())["analyses"]
    with speed.plain_path():
        assert speed.is_plain()
        assert scipy_private.swilk() is None and scipy_private.nct_sf() is None
        assert scipy_private.studentized_range_sf_inf([1.0], 3) is None
        assert scipy_private.unwrapped(sorted) is None
        assert not workers.can_fork() and workers.Ready(2, forbidden).size == 0
    assert not speed.is_plain()
    monkeypatch.setenv(speed.PLAIN_ENV, "1")
    assert speed.is_plain()
    monkeypatch.setenv(speed.PLAIN_ENV, "0")
    assert not speed.is_plain()


def test_in_background_runs_in_a_forked_process_and_reports_its_failure(tmp_path, monkeypatch):
    """results.json is written by a forked process while the build renders (with --jobs 2 or more): the
    work really runs elsewhere, its error reaches the build, and with one job it runs at once, here."""
    from sigreport.speed.workers import in_background

    monkeypatch.delenv(speed.PLAIN_ENV, raising=False)
    out = tmp_path / "pid"
    wait = in_background(lambda: out.write_text(str(os.getpid())), allowed=True)
    wait()
    assert int(out.read_text()) != os.getpid()
    in_background(lambda: out.write_text(str(os.getpid())), allowed=False)
    assert int(out.read_text()) == os.getpid()

    def fail() -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        in_background(fail, allowed=True)()
    with speed.plain_path():  # the plain path: here, at once
        in_background(lambda: out.write_text(str(os.getpid())), allowed=True)
        assert int(out.read_text()) == os.getpid()


def test_in_background_starts_no_thread_and_names_a_killed_writer(tmp_path, monkeypatch):
    """The forked writer is one plain fork (no pool, so no thread here for later forks to inherit); killed, the
    build gets one line naming it and the signal; cancelled, it is stopped and reaped, not waited for."""
    import signal
    import time

    from sigreport.forking import WorkerLost
    from sigreport.speed.workers import in_background

    monkeypatch.delenv(speed.PLAIN_ENV, raising=False)
    threads = threading.active_count()
    pid_file = tmp_path / "pid"

    def stuck() -> None:
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)

    wait = in_background(stuck, allowed=True)
    assert threading.active_count() == threads
    while not pid_file.exists() or not pid_file.read_text():
        time.sleep(0.01)
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    with pytest.raises(WorkerLost, match=r"while it wrote results.json \(pid \d+, killed by SIGKILL"):
        wait()
    pid_file.unlink()
    waiting = in_background(stuck, allowed=True)
    while not pid_file.exists() or not pid_file.read_text():
        time.sleep(0.01)
    child = int(pid_file.read_text())
    t0 = time.monotonic()
    waiting.cancel()
    assert time.monotonic() - t0 < 5
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)  # gone and reaped


class _TwoArgs(Exception):
    """An exception the build cannot get back: it holds a lock (which never pickles, whatever pickling support
    another test installed for exceptions)."""

    def __init__(self, a, b):
        super().__init__(f"{a}{b}")
        self.lock = threading.Lock()


def test_in_background_passes_the_traceback_and_never_leaves_its_process(tmp_path, monkeypatch):
    """What the writer raised comes back with its traceback's text as the cause; an exception the build could not
    read back comes as a RuntimeError naming it; and an interruption while the build waits (Ctrl-C) stops the
    writer and reaps it, as the pool did."""
    import signal
    import time

    from sigreport.speed.workers import ChildTraceback, in_background

    monkeypatch.delenv(speed.PLAIN_ENV, raising=False)

    def failing_writer() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom") as info:
        in_background(failing_writer, allowed=True)()
    assert isinstance(info.value.__cause__, ChildTraceback) and "failing_writer" in str(info.value.__cause__)

    def odd() -> None:
        raise _TwoArgs("a", "b")

    with pytest.raises(RuntimeError, match="_TwoArgs: ab"):
        in_background(odd, allowed=True)()

    pid_file = tmp_path / "pid"

    def stuck() -> None:
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        wait = in_background(stuck, allowed=True)
        while not pid_file.exists() or not pid_file.read_text():
            time.sleep(0.01)
        child = int(pid_file.read_text())
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(KeyboardInterrupt):
            wait()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)  # killed and reaped: no process, not even a zombie


def test_figure_records_too_large_to_send_go_to_workers_forked_now():
    """A wave of figure tasks goes to the workers made ready ahead unless its records hold more than SEND_ROWS
    pairs; a block source that cannot say its rows is sent."""
    from sigreport.execute.forked import SEND_ROWS, worth_sending
    from sigreport.plan import Node

    class Rows:
        def __init__(self, n):
            self.n = n

        def rows(self, key):
            return self.n[key]

    node = lambda *keys: (Node(id="f", kind="figure", metric=None, corpus=None, fn=None, params=None,  # noqa: E731
                               blocks=keys), ())
    small, big = ("figures", "a"), ("figures", "b")
    source = Rows({small: SEND_ROWS // 2, big: SEND_ROWS + 1})
    assert worth_sending(source, [node(small)])
    assert not worth_sending(source, [node(big)])
    assert not worth_sending(source, [node(small), node(small), node(small)])  # the wave's rows in all
    assert worth_sending(object(), [node(big)])


def test_a_figure_block_counts_the_pairs_of_every_record_that_has_pairs():
    """FigureInputs.rows (what sending a figure's record costs) knows every record class with a ``pairs`` field."""
    import dataclasses

    from sigreport.results.records import WITH_PAIRS, Record

    def every(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from every(sub)

    with_pairs = {c for c in every(Record) if "pairs" in {f.name for f in dataclasses.fields(c)}}
    assert with_pairs == set(WITH_PAIRS)


def test_prefetch_imports_in_another_thread_and_the_module_is_then_used(monkeypatch):
    from sigreport.speed import imports
    from sigreport.stats.lazy import LazyModule

    monkeypatch.delenv(speed.PLAIN_ENV, raising=False)
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    seen = []
    real = imports._import_quietly

    def spy(name):
        seen.append(threading.current_thread() is not threading.main_thread())
        real(name)

    monkeypatch.setattr(imports, "_import_quietly", spy)
    imports.prefetch("colorsys")()
    assert seen == [True] and "colorsys" in sys.modules
    assert LazyModule("colorsys").rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)
    imports.prefetch("colorsys")()  # already imported: nothing started
    assert seen == [True]
    monkeypatch.delitem(sys.modules, "colorsys")
    with speed.plain_path():
        imports.prefetch("colorsys")()  # the plain path: nothing started
    assert seen == [True] and "colorsys" not in sys.modules


def test_a_failed_prefetch_raises_at_the_first_use_as_without_it(monkeypatch):
    from sigreport.speed import imports
    from sigreport.stats.lazy import LazyModule

    monkeypatch.delenv(speed.PLAIN_ENV, raising=False)
    imports.prefetch("sigreport_no_such_module")()  # quiet in the thread
    with pytest.raises(ModuleNotFoundError):
        LazyModule("sigreport_no_such_module").anything


def host_state() -> dict[str, object]:
    """What a library call must leave as it found it in the calling process."""
    import gc
    import logging
    import signal

    import matplotlib
    import matplotlib.text
    from matplotlib.backends import _backend_pdf_ps
    from threadpoolctl import threadpool_info

    return {
        "gc": (gc.isenabled(), gc.get_freeze_count(), gc.get_threshold()),
        "threads": sorted((t.ident, t.name) for t in threading.enumerate()),
        "blas threads": sorted((i["filepath"], i["num_threads"]) for i in threadpool_info()),
        "signals": (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM),
                    signal.pthread_sigmask(signal.SIG_BLOCK, set())),
        "loggers": {n: logging.getLogger(n).level for n in ("weasyprint", "fontTools", "matplotlib",
                                                            "matplotlib.font_manager")},
        "rcParams": dict(matplotlib.rcParams),
        "matplotlib functions": (getattr(matplotlib.text, "_get_text_metrics_with_cache", None),
                                 getattr(_backend_pdf_ps, "get_glyphs_subset", None),
                                 getattr(_backend_pdf_ps, "font_as_file", None)),
    }


@pytest.mark.parametrize("plain", [False, True])
def test_a_library_call_leaves_the_process_as_it_found_it(tmp_path, monkeypatch, plain):
    """sigreport.build and sigreport.analyze from a host (a notebook) whose collector is tuned or disabled:
    on both paths the collector (enabled or not, frozen objects, thresholds; gc.freeze never called), the
    threads, the BLAS thread counts of the libraries the host had loaded, the signal handlers and mask, the
    loggers' levels, matplotlib's settings and its functions are as the call found them (run alone, the test
    once failed on scipy's BLAS library, which the call loads with scipy.special: not a host setting)."""
    import gc

    from sigreport.speed import collector

    monkeypatch.delenv(speed.PLAIN_ENV, raising=False)
    froze = []
    real_freeze = collector.gc.freeze
    monkeypatch.setattr(collector.gc, "freeze", lambda: froze.append(1) or real_freeze())
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    formats = ["json", "html", "latex"] + ([] if plain else ["pdf"])
    try:
        for tuned in (True, False):
            gc.set_threshold(1234, 7, 9) if tuned else gc.disable()
            before = host_state()
            sigreport.build(CONFIGS / "summarizers.yaml", tmp_path / f"out-{tuned}", formats=formats, plain=plain)
            sigreport.analyze(CONFIGS / "demsar.yaml", plain=plain)
            after = host_state()
            # a BLAS library the call loaded (scipy's, with scipy.special) was not the host's: its own are compared
            known = {path for path, _ in before["blas threads"]}  # type: ignore[attr-defined]
            libs = after["blas threads"]
            after["blas threads"] = [lib for lib in libs if lib[0] in known]  # type: ignore[attr-defined]
            assert after == before, {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    finally:
        gc.set_threshold(*threshold)
        gc.enable() if enabled else gc.disable()
    assert froze == []


def test_results_json_is_begun_before_the_figures_only_for_many_pairs(tmp_path, monkeypatch):
    """json_first: the forked results.json writer starts before the figures when the results hold more than
    JSON_FIRST_PAIRS pairs; the order of the two never changes the files (a --jobs 2 build with the threshold at
    0 gives the bytes of one with it out of reach)."""
    from sigreport.api import outputs
    from sigreport.api.pipeline import build
    from sigreport.api.running import RunOptions

    res = sigreport.analyze(CONFIGS / "summarizers.yaml")
    pairs = sum(len(r.pairs) for r in res.records if getattr(r, "pairs", None))
    assert pairs > 0
    monkeypatch.setattr(outputs, "JSON_FIRST_PAIRS", pairs - 1)
    assert outputs.json_first(res)
    monkeypatch.setattr(outputs, "JSON_FIRST_PAIRS", pairs)
    assert not outputs.json_first(res)
    monkeypatch.delenv(speed.PLAIN_ENV, raising=False)
    folders = []
    for limit in (0, 10**12):
        monkeypatch.setattr(outputs, "JSON_FIRST_PAIRS", limit)
        dest, _, _ = build(CONFIGS / "summarizers.yaml", tmp_path / f"out{limit}", ["html", "latex", "json"],
                           run=RunOptions(jobs=2, cache=None))
        folders.append(dest)
    first, late = ({p.relative_to(f).as_posix(): p.read_bytes() for p in f.rglob("*") if p.is_file()} for f in folders)
    assert "results.json" in first and first == late
