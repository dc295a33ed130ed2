"""Rendering speed-ups change no byte: figures drawn in worker processes (``--jobs``) and PDFs whose font
subset comes from the cache equal figures drawn the plain way."""

from __future__ import annotations

import contextlib

import pytest
from conftest import CONFIGS

from sigreport.api import analyze
from sigreport.render.figures import output
from sigreport.render.html import render_html
from sigreport.render.views import build_report
from sigreport.speed import mpl


@pytest.fixture(scope="module")
def results():
    return analyze(CONFIGS / "summarization.yaml")


def _figures(model) -> list[tuple[str, str, bytes]]:
    return [(f.name, f.svg, f.pdf) for f in model.figures()]


def test_figures_drawn_in_two_workers_are_the_serial_bytes(results):
    serial = build_report(results, "summarization.yaml")
    parallel = build_report(results, "summarization.yaml", figure_jobs=2)
    assert len(_figures(serial)) >= 2  # several figures, so the workers really share them out
    assert _figures(parallel) == _figures(serial)
    assert render_html(parallel) == render_html(serial)


def test_cached_font_subsets_give_the_pdf_matplotlib_writes(results, monkeypatch):
    mpl._SUBSETS.clear()
    cached = [build_report(results, "summarization.yaml") for _ in range(2)]  # cold cache, then every hit
    assert mpl._SUBSETS, "the PDF export did not go through the subset cache"
    monkeypatch.setattr(output, "subset_cache", contextlib.nullcontext)  # matplotlib's own subsetting
    plain = build_report(results, "summarization.yaml")
    assert _figures(cached[0]) == _figures(cached[1]) == _figures(plain)
    assert all(pdf for _, _, pdf in _figures(plain))



def test_a_failure_while_the_workers_draw_stops_them(results, monkeypatch):
    """The figures are drawn in two workers, then the views are built; when that fails, the error reaches
    the caller and no worker process is left behind."""
    import multiprocessing

    from sigreport.render import views

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(views, "main_tables", fail)
    with pytest.raises(OSError, match="disk full"):
        build_report(results, "summarization.yaml", figure_jobs=2)
    assert multiprocessing.active_children() == []


def _square(x: int) -> int:
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x * x


def _gone(pids: list[int]) -> bool:
    """Whether every process of ``pids`` has ended (a killed process ends a moment after the signal)."""
    import time

    for _ in range(200):
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.01)
    return False


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie (dead, not yet reaped) counts as gone
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_workers_forked_ahead_share_the_items_and_leave_nothing_behind():
    """workers.Ready: one worker gets ready and forks the others; run gives every item's result in order;
    close ends them all (the first worker and the ones it forked)."""
    import os

    from sigreport.speed import workers

    warmed = []
    ready = workers.Ready(3, lambda: warmed.append(os.getpid()))
    assert ready.size == 3 and warmed == []  # warmed in the worker, not here
    assert ready.run(_square, list(range(10)), lambda i: -1)() == [i * i for i in range(10)]
    assert ready.run(_square, list(range(7)), lambda i: -1)() == [i * i for i in range(7)]  # again, same workers
    pids = [ready._pid, *ready._others]
    assert len(set(pids)) == 3 and all(_alive(p) for p in pids)
    ready.close()
    assert _gone(pids)


def test_an_item_a_worker_failed_is_done_here_where_its_error_is_raised():
    from sigreport.speed import workers

    ready = workers.Ready(2, lambda: None)
    try:
        here = []
        out = ready.run(_square, [1, -2, 3, 4], lambda i: here.append(i) or _square([1, -2, 3, 4][i]) if i != 1
                        else "done here")()
        assert out == [1, "done here", 9, 16] and here == []  # only the failed item came back here
        with pytest.raises(ValueError, match="negative: -5"):
            ready.run(_square, [1, -5], lambda i: _square([1, -5][i]))()
    finally:
        ready.close()


def test_when_the_workers_are_gone_their_items_are_done_here():
    import os
    import signal

    from sigreport.speed import workers

    ready = workers.Ready(2, lambda: None)
    ready._ready(None)
    for pid in [ready._pid, *ready._others]:
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(ready._pid, 0)
    try:
        assert ready.run(_square, [2, 3, 4], lambda i: _square([2, 3, 4][i]))() == [4, 9, 16]
    finally:
        ready.close()


def _nothing_here(monkeypatch):
    """Make workers.Ready.run fail the test if any item comes back to be done in this process."""
    from sigreport.speed import workers

    run = workers.Ready.run

    def strict(self, fn, items, here):
        return run(self, fn, items, lambda i: pytest.fail(f"item {i} was done in the parent"))

    monkeypatch.setattr(workers.Ready, "run", strict)


def test_figures_drawn_by_workers_forked_ahead_are_the_serial_bytes(results, monkeypatch):
    from sigreport.speed import workers
    from sigreport.render.figures import warm_up

    serial = build_report(results, "summarization.yaml")
    _nothing_here(monkeypatch)  # every figure comes from the workers
    ready = workers.Ready(2, warm_up)
    try:
        ahead = build_report(results, "summarization.yaml", figure_jobs=2, figure_workers=ready)
    finally:
        ready.close()
    assert _figures(ahead) == _figures(serial)


def test_a_failure_while_workers_forked_ahead_draw_stops_them_without_drawing_here(results, monkeypatch):
    """The views fail while the workers draw: the error reaches the caller at once, nothing is drawn in
    this process to make up for the workers, and closing kills the busy workers."""
    from sigreport.speed import workers
    from sigreport.render import views
    from sigreport.render.figures import warm_up

    _nothing_here(monkeypatch)
    monkeypatch.setattr(views, "main_tables", lambda *args: (_ for _ in ()).throw(OSError("disk full")))
    ready = workers.Ready(2, warm_up)
    try:
        with pytest.raises(OSError, match="disk full"):
            build_report(results, "summarization.yaml", figure_jobs=2, figure_workers=ready)
        pids = [ready._pid, *(ready._others or [])]
    finally:
        ready.close()
    assert len(pids) == 2 and _gone(pids)


def test_workers_still_getting_ready_are_stopped_at_once():
    import time

    from sigreport.speed import workers

    ready = workers.Ready(2, lambda: time.sleep(30))  # never ready in this test's time
    first = ready._pid
    ready.close()  # kills the first worker (it has forked no other yet) instead of waiting for it
    assert _gone([first])


def test_which_builds_fork_their_figure_workers_ahead(tmp_path, monkeypatch):
    """api.running.figure_workers_ahead: --jobs 2+ (or auto with a large score file) and figures to draw."""
    from sigreport.api import running
    from sigreport.api.pipeline import spec_file
    from sigreport.api.running import RunOptions, figure_workers_ahead

    monkeypatch.setattr(running, "auto_workers", lambda: 2)
    sf = spec_file(CONFIGS / "summarization.yaml")
    assert figure_workers_ahead(sf, RunOptions(jobs=3), None) == 3
    assert figure_workers_ahead(sf, RunOptions(jobs=1), None) == 0
    assert figure_workers_ahead(sf, RunOptions(jobs=3), ["json"]) == 0  # nothing drawn
    assert figure_workers_ahead(sf, RunOptions(jobs=3, executor="dask"), None) == 0
    assert figure_workers_ahead(sf, RunOptions(jobs="auto"), None) == 0  # a small score file
    monkeypatch.setattr(running, "AUTO_AHEAD_BYTES", 1)
    assert figure_workers_ahead(sf, RunOptions(jobs="auto"), None) == 2
    none = tmp_path / "s.yaml"
    text = (CONFIGS / "summarization.yaml").read_text()
    assert "\noutputs:" not in text
    none.write_text(text.replace("data/", str(CONFIGS / "data") + "/") + "outputs:\n  figures: []\n")
    assert figure_workers_ahead(spec_file(none), RunOptions(jobs=3), None) == 0
